/*
 * Tasks in loops: a constant-trip-count loop is unrolled (4 tasks, then one
 * taskwait), and a while loop whose trip count is data-dependent carries
 * `#pragma ompdag loop_bound(3)`, the most iterations it can run.
 */
#include <stdlib.h>

#include "work.h"

static void region(int budget)
{
#pragma omp parallel
#pragma omp single
    {
        work(5);
        for (int i = 0; i < 4; ++i) {
#pragma omp task firstprivate(i)
            work(10 + i);
        }
#pragma omp taskwait
        int left = budget;
#pragma ompdag loop_bound(3)
        while (left > 0) {
#pragma omp task
            work(7);
            left -= 2;
        }
#pragma omp taskwait
        work(3);
    }
}

int main(int argc, char **argv)
{
    region(argc > 1 ? atoi(argv[1]) : 6);
    report("loop_tasks");
    return 0;
}
