/*
 * timer.h — the one timing helper of the BFS module (GAP keeps its timer in
 * its own header; every engine and benchmark times through this).
 */
#ifndef OMPDAG_BFS_TIMER_H
#define OMPDAG_BFS_TIMER_H

#include <time.h>

/* Seconds on the monotonic clock. */
static inline double bfs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
