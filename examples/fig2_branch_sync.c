/*
 * Seed 004 (Sun et al. 2020), Figure 2(a), made compilable: a task created
 * inside one branch of an if/else (code31) is awaited by the taskwait after
 * the join, so the branch structure has several entries and exits
 * ("multi-source-multi-sink").  Expected graph: the seed's Figure 2(b).
 */
#include <stdlib.h>

#include "work.h"

static void region(int exp)
{
#pragma omp parallel num_threads(4)
#pragma omp single
    {
#pragma omp task
        {
            work(10); /* code11 */
#pragma omp task
            work(20); /* code21 */
            if (exp) {
#pragma omp taskwait
                work(12); /* code12 */
#pragma omp task
                work(31); /* code31 */
            } else {
                work(13); /* code13 */
            }
#pragma omp taskwait
            work(14); /* code14 */
        }
    }
}

int main(int argc, char **argv)
{
    region(argc > 1 ? atoi(argv[1]) : 1);
    report("fig2_branch_sync");
    return 0;
}
