/* Test program: taskloop forms (issue 25 item 1).  One region per form:
 *   a single block with `taskloop num_tasks(4) if(n > 2)` over 12 iterations
 *     (undeferred chunks for argv 0, deferred ones for 3 and 6), then a task
 *     running a taskloop without clauses (at most 16 chunks), then code after
 *     the implicit taskgroups;
 *   `parallel master taskloop grainsize(3)` over 10 iterations (3 chunks with
 *     libomp, at most 3 in the model);
 *   `master taskloop nogroup` whose chunks create a task and wait for it,
 *     over argv-many iterations (at most 6: ompdag loop_bound), then a
 *     barrier.
 * Fewer than 10 chunks per thread, so libomp creates them all from the
 * encountering task (no recursive split).  The master forms: clang 14 has
 * no `masked taskloop`. */
#include <stdlib.h>

static volatile long sink;

static void work(long n)
{
    for (long i = 0; i < n; ++i)
        sink += i;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    if (n > 6) n = 6;
#pragma omp parallel
#pragma omp single
    {
        work(100);
#pragma omp taskloop num_tasks(4) if (n > 2)
        for (int i = 0; i < 12; ++i)
            work(1000 * (i % 3 + 1));
#pragma omp task
        {
#pragma omp taskloop
            for (int i = 0; i < 16; ++i)
                work(300);
        }
        work(200);
    }
#pragma omp parallel master taskloop grainsize(3)
    for (int i = 0; i < 10; ++i)
        work(2000);
#pragma omp parallel
    {
#pragma omp master taskloop nogroup num_tasks(2)
#pragma ompdag loop_bound(6)
        for (int i = 0; i < n; ++i) {
#pragma omp task
            work(500 * (i + 1));
#pragma omp taskwait
        }
#pragma omp barrier
    }
    return 0;
}
