/* Test program: a loop the graph unrolls (three T nodes on one line, each
 * creating a task that itself creates a task and ends right there), and a
 * root task that ends with a task directive.  tests/probe/data/loop.json
 * names these lines. */
#include <stdlib.h>

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
#pragma omp parallel
#pragma omp single
        {
            for (int i = 0; i < 3; ++i) {
#pragma omp task firstprivate(i)
                {
                    work(i == 2 ? 30000 : 1000 * (i + 1)); /* a3 far above a1 */
#pragma omp task
                    work(500);
                }
            }
            work(100);
#pragma omp task
            work(2000);
        }
    }
    return 0;
}
