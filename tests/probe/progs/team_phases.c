/* Test program for team graphs (tests/probe/test_annotate_team.c;
 * plugin/fe_team.c, docs/probe.md "Team graphs"): every thread of a team of
 * TEAM threads (default 2) creates tasks.  Phase 1 is a worksharing loop whose
 * iterations create tasks (its implicit barrier ends the phase), phase 2 one
 * task per thread and an explicit barrier, phase 3 one more task per thread
 * until the region's end.  Built with -DEXTRA_BARRIER it passes one barrier
 * more than the graph extracted without it.  argv[1]: regions per process
 * (default 1).  Keep the line numbers: the tests do not name them, but the
 * graph and the binaries must agree. */
#include <stdlib.h>

#ifndef TEAM
#define TEAM 2
#endif

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
#pragma omp parallel num_threads(TEAM)
        {
            int i;
#pragma omp for schedule(static)
            for (i = 0; i < 4; i++) {
#pragma omp task
                work(2000 * (i + 1));
            }
            work(500);
#pragma omp task
            work(3000);
#ifdef EXTRA_BARRIER
#pragma omp barrier
#endif
#pragma omp barrier
            work(400);
#pragma omp task
            work(1500);
        }
    }
    return 0;
}
