/*
 * offload_test_util.h — a discrete-event simulator that drives the shared
 * scheduler (off_sched) with scripted chunk durations on a virtual clock, so
 * the policy rules are checked deterministically, and helpers for real runs.
 */
#ifndef OMPDAG_OFFLOAD_TEST_UTIL_H
#define OMPDAG_OFFLOAD_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "offload_internal.h"

/* Duration in seconds of device d's k-th chunk of len iterations. */
typedef double (*tu_dur_fn)(int d, int64_t k, int64_t len, void *u);
/* Called after each dispatch, with R as it was before. */
typedef void (*tu_seen_fn)(off_sched *s, int d, int64_t R_before, off_range r, int64_t id, void *u);

static inline off_sched *tu_sched(int64_t n, const ompdag_offload_device_kind *kinds, int ndev,
                                  const ompdag_offload_opts *o)
{
    off_sched *s = NULL;
    ompdag_error err = {0};
    cr_assert_eq(off_sched_create(n, kinds, ndev, o, &s, &err), OMPDAG_OK, "%s", err.message);
    return s;
}

/* Runs the schedule to the end; returns the makespan.  finish[d] (optional)
 * receives each device's last end time. */
static inline double tu_simulate(off_sched *s, tu_dur_fn dur, void *dur_u, tu_seen_fn seen,
                                 void *seen_u, double *finish)
{
    int nd = s->ndev;
    double *until = calloc((size_t)nd, sizeof *until);
    off_range *cur = calloc((size_t)nd, sizeof *cur);
    int64_t *id = calloc((size_t)nd, sizeof *id), *k = calloc((size_t)nd, sizeof *k);
    char *busy = calloc((size_t)nd, 1), *done = calloc((size_t)nd, 1);
    double now = 0, makespan = 0;
    for (;;) {
        for (int d = 0; d < nd; ++d) {
            if (busy[d] || done[d]) continue;
            int64_t R = s->R;
            off_next st = off_sched_next(s, d, now, &cur[d], &id[d]);
            if (st == OFF_NEXT_DONE) {
                done[d] = 1;
            } else if (st == OFF_NEXT_CHUNK) {
                busy[d] = 1;
                until[d] = now + dur(d, k[d]++, cur[d].end - cur[d].begin, dur_u);
                if (seen) seen(s, d, R, cur[d], id[d], seen_u);
            }
        }
        int best = -1;
        for (int d = 0; d < nd; ++d)
            if (busy[d] && (best < 0 || until[d] < until[best])) best = d;
        if (best < 0) break;
        now = until[best];
        busy[best] = 0;
        int64_t len = cur[best].end - cur[best].begin;
        double took = now - s->log[id[best]].start_s;
        off_sched_record(s, best, id[best], len, took, now);
        if (finish) finish[best] = now;
        if (now > makespan) makespan = now;
    }
    free(until), free(cur), free(id), free(k), free(busy), free(done);
    return makespan;
}

/* Every iteration in [0, n) dispatched exactly once (by the chunk log). */
static inline void tu_assert_cover(const off_sched *s)
{
    unsigned char *seen = calloc((size_t)s->n + 1, 1);
    for (int64_t i = 0; i < s->nlog; ++i)
        for (int64_t j = s->log[i].begin; j < s->log[i].end; ++j) {
            cr_assert(j >= 0 && j < s->n, "iteration %lld out of range", (long long)j);
            cr_assert_eq(seen[j], 0, "iteration %lld dispatched twice", (long long)j);
            seen[j] = 1;
        }
    for (int64_t j = 0; j < s->n; ++j)
        cr_assert_eq(seen[j], 1, "iteration %lld never dispatched", (long long)j);
    cr_assert_eq(s->R, 0);
    free(seen);
}

#endif
