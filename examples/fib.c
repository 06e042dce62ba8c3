/*
 * Recursive Fibonacci with a sequential cutoff.  Calls below the cutoff
 * create no tasks; `#pragma ompdag recursion_bound(4)` states that at most
 * four task-creating calls are ever active at once (true for n <= 22 with
 * cutoff 18), so ompdag inlines four levels.  The region carries a 5 ms
 * deadline for the report.
 */
#include <omp.h>
#include <stdlib.h>

#include "work.h"

#define CUTOFF 18

static long fib_seq(int n)
{
    return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

#pragma ompdag recursion_bound(4)
static long fib(int n)
{
    if (n < CUTOFF)
        return fib_seq(n);
    long x, y;
#pragma omp task shared(x) untied
    x = fib(n - 1);
#pragma omp task shared(y) untied
    y = fib(n - 2);
#pragma omp taskwait
    return x + y;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 21;
    long r = 0;
#pragma ompdag deadline(5ms)
#pragma omp parallel shared(r)
#pragma omp single
    r = fib(n);
    printf("fib(%d) = %ld on up to %d threads\n", n, r, omp_get_max_threads());
    return 0;
}
