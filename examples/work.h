/*
 * examples/work.h — the "real work" of every example segment: a short,
 * deterministic floating-point kernel whose result is folded into a global
 * checksum, so the compiler cannot drop it and the probe has something to
 * time.  `units` scales the cost linearly (about 1 µs per unit at -O2).
 */
#ifndef OMPDAG_EXAMPLES_WORK_H
#define OMPDAG_EXAMPLES_WORK_H

#include <stdio.h>

static double checksum;

static void work(int units)
{
    double x = 1.0 + units * 1e-3;
    for (int i = 0; i < units * 250; ++i)
        x = x * 0.999999 + 1e-6 * (i & 7);
#pragma omp atomic
    checksum += x;
}

static void report(const char *name)
{
    printf("%s: checksum %.6f\n", name, checksum);
}

#endif
