/*
 * ompdag/internal/clock.h — INTERNAL: the one monotonic clock of ompdag's
 * tools, benchmarks and runtimes (not installed).
 *
 * Header-only (static inline) so that programs built outside the libraries
 * (benchmarks, test programs, the offload runtime compiled into an OpenMP
 * program) use the same clock without linking anything.  The OMPT probe has
 * its own calibrated TSC clock (runtime-probe/probe.c), which is a different
 * thing: it must not call into libc on the hot path.
 */
#ifndef OMPDAG_INTERNAL_CLOCK_H
#define OMPDAG_INTERNAL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds on CLOCK_MONOTONIC (NTP-slewed, never jumps back); only
 * differences are meaningful. */
static inline int64_t ompdag_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The same in seconds, for benchmarks that print rates. */
static inline double ompdag_now_s(void)
{
    return (double)ompdag_now_ns() * 1e-9;
}

#endif
