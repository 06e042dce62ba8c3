/*
 * Seed 004 (Sun et al. 2020), Figure 3, made compilable: nested tasks
 * (τ3 creates τ4), a branch whose else arm waits, and a taskwait after the
 * join that waits for τ2 along both arms (two W-edges from τ2).  The
 * paper's τ1 is the task at the top of the single block; here it is t2,
 * created by the single block's own task t1.
 */
#include <stdlib.h>

#include "work.h"

static void region(int m, int exp1)
{
#pragma omp parallel num_threads(m)
    {
#pragma omp single
        {
#pragma omp task
            {
                work(11); /* code11 */
#pragma omp task
                { work(21); } /* code21, τ2 */
                if (exp1) {
                    work(12); /* code12 */
#pragma omp task
                    {
                        work(31); /* code31, τ3 */
#pragma omp task
                        { work(41); } /* code41, τ4 */
                        work(32); /* code32 */
                    }
                } else {
#pragma omp taskwait
                    work(13); /* code13 */
                }
#pragma omp taskwait
                work(16); /* code16 */
                work(17); /* code17 */
            }
        }
    }
}

int main(int argc, char **argv)
{
    region(4, argc > 1 ? atoi(argv[1]) : 1);
    report("fig3_nested");
    return 0;
}
