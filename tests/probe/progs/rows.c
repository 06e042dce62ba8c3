/* Test program: two sweeps over the rows of two arrays passed through
 * pointer parameters, in the idiom of KASTORS jacobi-task-dep (depend(in:
 * v[i]) depend(out: u[i]) with `double (*u)[8]`).  The front end cannot
 * tell the rows of u and v apart (the parameters may alias), so the
 * extracted graph (tests/probe/data/rows.json, line numbers matter) orders
 * all eight tasks in a chain; the runtime orders only task i of the second
 * sweep after task i of the first (the same row of a and of b).  Each task
 * spins 200 µs so that the chain and the pairs differ in time. */
#include <time.h>

static double a[4][8], b[4][8];

static void spin_us(long us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

static void sweep(double (*u)[8], double (*v)[8])
{
    for (int i = 0; i < 4; i++) {
#pragma omp task depend(in : v[i]) depend(out : u[i])
        {
            spin_us(200);
            u[i][0] = v[i][0] + 1;
        }
    }
}

int main(void)
{
#pragma omp parallel
#pragma omp single
    {
        sweep(a, b);
        sweep(b, a);
#pragma omp taskwait
    }
    return a[3][0] + b[3][0] > 1e9;
}
