/* Test program (issue 23 item 3): argv[2] untied tasks, one after the other,
 * each creating argv[1] tied children in a row (a little work between two
 * creations) and then waiting for them.  libomp 14 switches an untied task to
 * its scheduling parent and straight back (X -> parent -> X) when it starts
 * and after each `task` directive lexically inside it (clang's re-entry
 * points); the probe must not take those switch pairs for suspensions. */
#include <stdlib.h>

static volatile long sink;

static void work(long n)
{
    for (long i = 0; i < n; ++i)
        sink += i;
}

int main(int argc, char **argv)
{
    int kids = argc > 1 ? atoi(argv[1]) : 8;
    int reps = argc > 2 ? atoi(argv[2]) : 20;
#pragma omp parallel
#pragma omp single
    {
        for (int r = 0; r < reps; ++r) {
#pragma omp task untied
            {
                for (int i = 0; i < kids; ++i) {
                    work(500);
#pragma omp task
                    work(2000);
                }
#pragma omp taskwait
                work(200);
            }
#pragma omp taskwait
        }
    }
    return 0;
}
