/* Test program: untied tasks that create a child, yield, wait and resume
 * (llvm-project #83883: libomp sent wrong task_schedule events for untied
 * tasks).  argv[1] = number of untied tasks. */
#include <stdlib.h>

static volatile long sink;

static void work(long n)
{
    for (long i = 0; i < n; ++i)
        sink += i;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 50;
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < n; ++i) {
#pragma omp task untied
            {
                work(2000);
#pragma omp task
                work(3000);
#pragma omp taskyield
                work(1000);
#pragma omp taskwait
                work(500);
            }
        }
#pragma omp taskwait
    }
    return 0;
}
