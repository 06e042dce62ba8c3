/* Test program: sibling tasks ordered by depend clauses, in the KASTORS
 * idiom — named blocks as in strassen-task-dep (depend(in: A21, A22)
 * depend(out: S1)) and a loop over the rows of a block array as in
 * jacobi-task-dep (depend(in: u[i-1]) depend(inout: u[i])).
 * tests/probe/data/depend.json is this file extracted by the front end
 * (line numbers matter); test_depend.c edits its clauses to disagree.
 * The first task cannot finish before the root has created every task
 * and the second task has started (it waits for both, at most 1 s), so the
 * runtime reports the pairs that name it, and the second task always starts
 * before the first completes. */
#include <stdatomic.h>
#include <time.h>

static double a, b, c, d;
static double blk[4][8];
static atomic_int released, b_started;

static void spin_us(long us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

int main(void)
{
#pragma omp parallel
#pragma omp single
    {
#pragma omp task depend(out : a)
        {
            for (int k = 0; !(released && b_started) && k < 100000; k++)
                spin_us(10); /* at most 1 s: a serialized team runs it at once */
            spin_us(5000);
            a = 1;
        }
#pragma omp task depend(out : b)
        {
            atomic_store(&b_started, 1);
            b = 2;
        }
#pragma omp task depend(in : a, b) depend(out : c)
        c = a + b;
#pragma omp task depend(in : a) depend(inout : d)
        d += a;
        for (int i = 1; i < 4; i++) {
#pragma omp task depend(in : blk[i - 1]) depend(inout : blk[i])
            blk[i][0] += blk[i - 1][0] + 1;
        }
#pragma omp task depend(in : c, d, blk[3])
        spin_us(100);
        atomic_store(&released, 1);
#pragma omp taskwait
    }
    return a + b + c + d + blk[3][0] > 1e9;
}
