/* Test program: one producer creates argv[1] tiny tasks (stress: bounded
 * memory, no lost events). */
#include <stdlib.h>

static volatile long sink;

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
#pragma omp parallel
#pragma omp single
    for (long i = 0; i < n; ++i) {
#pragma omp task
        sink += 1;
    }
    return 0;
}
