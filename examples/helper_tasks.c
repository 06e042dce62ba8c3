/*
 * A helper that creates tasks, called from a task: its tasks become
 * children of the calling task, and its early return skips the second
 * task.  The conditional expression chooses between two helpers.
 */
#include <stdlib.h>

#include "work.h"

static void spawn_pair(int n)
{
#pragma omp task
    work(n);
    if (n > 50)
        return;
#pragma omp task
    work(n + 1);
}

static int spawn_one(int n)
{
#pragma omp task
    work(n);
    return n;
}

static void region(int n)
{
#pragma omp parallel
#pragma omp single
    {
#pragma omp task
        {
            work(8);
            spawn_pair(n);
#pragma omp taskwait
            work(9);
        }
        int r = n > 10 ? spawn_one(n) : 0;
        work(r > 0 ? 2 : 1);
#pragma omp taskwait
    }
}

int main(int argc, char **argv)
{
    region(argc > 1 ? atoi(argv[1]) : 30);
    report("helper_tasks");
    return 0;
}
