/*
 * Seed 004 (Sun et al. 2020), Figure 5, as a program: the counterexample
 * on which the RTAS'19 bound (alg0) is pessimistic.  A task of no work is
 * created first; then one arm of a branch waits for it and does L units of
 * work, the other arm creates m*L one-unit tasks.  With WCETs 0 / L / 1 as in
 * the figure, the exact bound is L + (1 - 1/m) and alg0 gives
 * L + L(1 - 1/m) (shared/spec/condag.md §3); here m = 2 and L = 4.
 */
#include <stdlib.h>

#include "work.h"

#define M 2
#define L 4

static void region(int wait_first)
{
#pragma omp parallel num_threads(M)
#pragma omp single
    {
#pragma omp task
        work(0);
        if (wait_first) {
#pragma omp taskwait
            work(L);
        } else {
            for (int i = 0; i < M * L; ++i) {
#pragma omp task
                work(1);
            }
        }
    }
}

int main(int argc, char **argv)
{
    region(argc > 1 ? atoi(argv[1]) : 0);
    report("fig5_counterexample");
    return 0;
}
