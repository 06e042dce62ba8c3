/* Test program: a task loop kept compact (loop_bound above the unroll
 * limit of 4096): one task per iteration, a taskwait under a branch every
 * 1000 iterations, one after the loop.  argv[1] is the trip count (default
 * 5000, the bound), argv[2] the rounds.  tests/probe/data/cloop.json is its
 * extracted graph (docs/compact.md, "Compact loops"). */
#include <stdlib.h>

static volatile long sink;

static void work(long n)
{
    for (long i = 0; i < n; ++i)
        sink += i;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 5000;
    int rounds = argc > 2 ? atoi(argv[2]) : 1;
    for (int r = 0; r < rounds; ++r) {
#pragma omp parallel
#pragma omp single
        {
#pragma ompdag loop_bound(5000)
            for (int i = 0; i < n; ++i) {
#pragma omp task firstprivate(i)
                work(50 + i % 7);
                if (i % 1000 == 999) {
#pragma omp taskwait
                }
            }
            work(100);
#pragma omp taskwait
        }
    }
    return 0;
}
