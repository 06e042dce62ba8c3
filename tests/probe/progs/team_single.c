/* Test program for team graphs with single and masked blocks
 * (tests/probe/test_annotate_team_single.c; plugin/fe_team_single.c,
 * docs/probe.md "Team graphs"): a team of 2 threads, each creating tasks,
 * beside a `single` whose block creates a task (its implicit barrier ends
 * phase 1), a `single nowait` creating a task, an explicit barrier, and a
 * `masked` block creating a task in thread 0.  Built with -DTASKLOOP it is
 * instead the OpenMP Examples' taskloop.2.c shape: every thread runs a
 * taskloop, then `single` + `taskloop`.  argv[1]: regions per process
 * (default 1).  Keep the line numbers: the graph and the binaries must
 * agree. */
#include <stdlib.h>

static volatile long sink;

static void work(long n)
{
    for (long i = 0; i < n; ++i)
        sink += i;
}

#ifndef TASKLOOP
static void region(void)
{
#pragma omp parallel num_threads(2)
    {
        work(300);
#pragma omp task
        work(1000);
#pragma omp single
        {
#pragma omp task
            work(4000);
            work(200);
        }
        work(300);
#pragma omp single nowait
        {
#pragma omp task
            work(2500);
        }
#pragma omp task
        work(1200);
#pragma omp barrier
#pragma omp masked
        {
#pragma omp task
            work(3500);
        }
        work(200);
#pragma omp task
        work(800);
    }
}
#else
#define N 4
static void region(void)
{
    int i;
#pragma omp parallel num_threads(2)
    {
#pragma omp taskloop
        for (i = 0; i < N; i++)
            work(1000 * (i + 1));
#pragma omp single
#pragma omp taskloop
        for (i = 0; i < N; i++)
            work(800 * (i + 1));
    }
}
#endif

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 1;
    for (int r = 0; r < rounds; ++r)
        region();
    return 0;
}
