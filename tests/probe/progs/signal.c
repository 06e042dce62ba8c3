/* Test program: runs argv[2] tasks, then raises argv[1] ("TERM" or "INT")
 * after the parallel region ("after") or inside a task ("inside"). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static volatile long sink;

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    int sig = !strcmp(argv[1], "INT") ? SIGINT : SIGTERM;
    int inside = !strcmp(argv[2], "inside");
    int n = atoi(argv[3]);
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < n; ++i) {
#pragma omp task
            {
                for (int k = 0; k < 1000; ++k)
                    sink += k;
                if (inside && i == n / 2)
                    raise(sig);
            }
        }
    }
    if (!inside)
        raise(sig);
    return 0;
}
