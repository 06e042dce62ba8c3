/* Test program: a chain of tasks — the root creates a task and waits for
 * it, three times, in each of argv[1] parallel regions — so the run's own
 * DAG is one path and its floor (Graham of that DAG ÷ the response) is 1
 * within the root's few instructions between a creation and the taskwait.
 * data/chain.json is its graph (ompdag extract); line numbers matter. */
#include <stdlib.h>

static volatile long sink;

static void work(long n)
{
    for (long i = 0; i < n; ++i)
        sink += i;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 1;
    for (int r = 0; r < rounds; ++r) {
#pragma omp parallel
#pragma omp single
        {
#pragma omp task
            work(200000);
#pragma omp taskwait
#pragma omp task
            work(100000);
#pragma omp taskwait
#pragma omp task
            work(150000);
#pragma omp taskwait
        }
    }
    return 0;
}
