#include <stdlib.h>
static volatile long sink;
static void work(int n)
{
    for (int i = 0; i < n; ++i)
        sink += i;
}
int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 20000;
    for (int r = 0; r < runs; ++r) {
#pragma omp parallel num_threads(2)
#pragma omp single
        {
#pragma omp task
            work(100);
#pragma omp task
            work(100);
#pragma omp taskwait
        }
    }
    return 0;
}
