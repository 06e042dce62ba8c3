/*
 * The idioms of real task programs, as the Barcelona OpenMP Tasks Suite
 * writes them (this code is written for ompdag, not taken from BOTS):
 *   - stacked directives: `parallel` / `single` / `task` on one statement;
 *   - a loop whose trip count is data-dependent, bounded by a macro
 *     expression (`loop_bound(CHUNKS * 2)`: at most 4 iterations);
 *   - `goto` to the end of a task body (a return from the task);
 *   - `critical` after the single's barrier, run by every thread outside the
 *     task system (not part of the region's graph).
 */
#include <stdlib.h>

#include "work.h"

#define CHUNKS 2

static int visited, total;

static void explore(int budget)
{
#pragma ompdag loop_bound(CHUNKS * 2)
    while (budget > 0) {
#pragma omp task firstprivate(budget)
        {
            if (budget < 2) goto done;
            work(4 + budget);
        done:;
        }
        budget -= 3;
    }
#pragma omp taskwait
}

static void region(int budget)
{
#pragma omp parallel
    {
        int mine = 1;
#pragma omp single
#pragma omp task untied
        explore(budget);
#pragma omp critical
        visited += mine;
    }
    total = visited;
}

int main(int argc, char **argv)
{
    region(argc > 1 ? atoi(argv[1]) : 10);
    report("stacked_tasks");
    return total > 0 ? 0 : 1;
}
