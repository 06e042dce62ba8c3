/*
 * timer.h — the BFS module's name for the one monotonic clock
 * (ompdag/internal/clock.h); every engine and benchmark times through it.
 */
#ifndef OMPDAG_BFS_TIMER_H
#define OMPDAG_BFS_TIMER_H

#include "ompdag/internal/clock.h"

/* Seconds on the monotonic clock. */
static inline double bfs_now(void)
{
    return ompdag_now_s();
}

#endif
