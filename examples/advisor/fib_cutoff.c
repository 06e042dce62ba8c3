/*
 * examples/advisor/fib_cutoff.c — training program of `ompdag advise`
 * (docs/advise.md): recursive Fibonacci, an irregular divide-and-conquer
 * tree.  Calls at recursion depth >= CUTOFF run sequentially; above it each
 * call creates two tasks.
 *
 *   fib_cutoff N CUTOFF REPS
 *
 * CUTOFF <= 7 (the recursion bound below) keeps the graph that
 * `ompdag extract` inlines deep enough for any run; the region runs REPS
 * times.
 */
#include <omp.h>
#include <stdlib.h>

#include "../work.h"

static long fib_seq(int n)
{
    return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

#pragma ompdag recursion_bound(8)
static long fib(int n, int depth, int cutoff)
{
    if (n < 2 || depth >= cutoff)
        return fib_seq(n);
    long x, y;
#pragma omp task shared(x) untied
    x = fib(n - 1, depth + 1, cutoff);
#pragma omp task shared(y) untied
    y = fib(n - 2, depth + 1, cutoff);
#pragma omp taskwait
    return x + y;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 24;
    int cutoff = argc > 2 ? atoi(argv[2]) : 6;
    int reps = argc > 3 ? atoi(argv[3]) : 1;
    if (n < 0 || n > 45 || cutoff < 0 || cutoff > 30 || reps < 1) {
        fprintf(stderr, "usage: fib_cutoff N(0..45) CUTOFF(0..30) REPS\n");
        return 2;
    }
    long r = 0;
    for (int i = 0; i < reps; ++i) {
#pragma omp parallel shared(r)
#pragma omp single
        r = fib(n, 0, cutoff);
    }
    printf("fib(%d) = %ld\n", n, r);
    return 0;
}
