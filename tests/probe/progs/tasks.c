/* Test program: a root task with two children, a taskwait, a branch that
 * creates a third child only when argv[1] is "1", and a final taskwait.
 * Line numbers matter: tests/probe/tasks.json names them. */
#include <stdlib.h>
/* omp.h is not needed: only directives are used */

static volatile long sink;

static void work(long n)
{
    for (long i = 0; i < n; ++i)
        sink += i;
}

int main(int argc, char **argv)
{
    int branch = argc > 1 ? atoi(argv[1]) : 0;
    int rounds = argc > 2 ? atoi(argv[2]) : 1;
    for (int r = 0; r < rounds; ++r) {
#pragma omp parallel
#pragma omp single
        {
            work(20000);
#pragma omp task
            work(100000);
            work(10000);
#pragma omp task
            work(50000);
#pragma omp taskwait
            work(30000);
            if (branch) {
#pragma omp task
                work(40000);
            }
            work(5000);
#pragma omp taskwait
            work(1000);
        }
    }
    return 0;
}
