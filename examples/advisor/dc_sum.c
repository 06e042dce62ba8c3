/*
 * examples/advisor/dc_sum.c — training program of `ompdag advise`
 * (docs/advise.md): a balanced divide-and-conquer reduction over an array.
 * Each element costs COST inner iterations; ranges are halved by a task
 * each until recursion depth CUTOFF, then summed sequentially.
 *
 *   dc_sum N CUTOFF COST REPS
 *
 * CUTOFF <= 7 (the recursion bound below); the region runs REPS times.
 */
#include <omp.h>
#include <stdlib.h>

#include "../work.h"

static double elem(const double *a, long i, int cost)
{
    double x = a[i];
    for (int k = 0; k < cost; ++k)
        x = x * 0.999999 + 1e-6 * (k & 3);
    return x;
}

static double sum_seq(const double *a, long lo, long hi, int cost)
{
    double s = 0;
    for (long i = lo; i < hi; ++i)
        s += elem(a, i, cost);
    return s;
}

#pragma ompdag recursion_bound(8)
static double sum(const double *a, long lo, long hi, int depth, int cutoff, int cost)
{
    if (hi - lo < 2 || depth >= cutoff)
        return sum_seq(a, lo, hi, cost);
    long mid = lo + (hi - lo) / 2;
    double x, y;
#pragma omp task shared(x) untied
    x = sum(a, lo, mid, depth + 1, cutoff, cost);
#pragma omp task shared(y) untied
    y = sum(a, mid, hi, depth + 1, cutoff, cost);
#pragma omp taskwait
    return x + y;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1L << 16;
    int cutoff = argc > 2 ? atoi(argv[2]) : 6;
    int cost = argc > 3 ? atoi(argv[3]) : 20;
    int reps = argc > 4 ? atoi(argv[4]) : 1;
    if (n < 1 || n > (1L << 26) || cutoff < 0 || cutoff > 30 || cost < 0 || reps < 1) {
        fprintf(stderr, "usage: dc_sum N CUTOFF(0..30) COST REPS\n");
        return 2;
    }
    double *a = malloc(sizeof *a * (size_t)n);
    if (!a) return 1;
    for (long i = 0; i < n; ++i)
        a[i] = 1.0 + (double)(i % 7) * 1e-3;
    double s = 0;
    for (int r = 0; r < reps; ++r) {
#pragma omp parallel shared(s)
#pragma omp single
        s = sum(a, 0, n, 0, cutoff, cost);
    }
    printf("dc_sum: %.6f\n", s);
    free(a);
    return 0;
}
