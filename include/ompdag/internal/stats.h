/*
 * ompdag/internal/stats.h — INTERNAL: the shared qsort comparators and
 * medians of ompdag's tools and benchmarks (not installed).  Header-only, so
 * standalone benchmarks use them without linking a library.
 */
#ifndef OMPDAG_INTERNAL_STATS_H
#define OMPDAG_INTERNAL_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* qsort comparators, ascending (doubles: callers never pass NaN). */
static inline int ompdag_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline int ompdag_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static inline int ompdag_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static inline int ompdag_cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n-1]: the middle value, or the mean of the two middle
 * values when n is even; 0 when n == 0.  Sorts v in place. */
static inline double ompdag_median_double(double *v, size_t n)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, ompdag_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The same for int64 (rounded toward the lower middle value, so no overflow:
 * lo + (hi - lo) / 2).  Sorts v in place. */
static inline int64_t ompdag_median_i64(int64_t *v, size_t n)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, ompdag_cmp_i64);
    return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

#endif
