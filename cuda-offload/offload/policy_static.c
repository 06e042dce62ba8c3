/*
 * policy_static.c — a static split by a fixed ratio, the Qilin-like baseline
 * of seed 000 (Luk, Hong, Kim, MICRO'09; reference [7]).  The GPUs together
 * get the share β = static_gpu_share of the n iterations (equal parts per
 * GPU), the CPU threads the rest in equal parts; β is measured beforehand
 * (ompdag_offload_report_gpu_share() of a training run) or given.  β < 0
 * gives every computing device an equal part.  Each device gets its whole
 * part as one chunk at its first request, and nothing after.  Parts are
 * rounded by largest remainder so they sum to n exactly.
 */
#include <math.h>
#include <stdlib.h>

#include "offload_internal.h"

typedef struct static_state {
    int64_t *part;
    bool *given;
} static_state;

static ompdag_status static_init(off_sched *s, ompdag_error *err)
{
    static_state *st = calloc(1, sizeof *st);
    double *want = calloc((size_t)s->ndev, sizeof *want);
    if (st) {
        st->part = calloc((size_t)s->ndev, sizeof *st->part);
        st->given = calloc((size_t)s->ndev, sizeof *st->given);
    }
    if (!st || !want || !st->part || !st->given) {
        if (st) {
            free(st->part);
            free(st->given);
        }
        free(st);
        free(want);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "offload: out of memory");
    }
    int ngpu = 0, ncpu = 0;
    for (int d = 0; d < s->ndev; ++d) {
        if (s->dev[d].excluded)
            continue;
        if (s->dev[d].kind == OFF_GPU)
            ++ngpu;
        else
            ++ncpu;
    }
    double beta = s->opts.static_gpu_share;
    if (beta > 1)
        beta = 1;
    if (ngpu == 0)
        beta = 0;
    else if (ncpu == 0)
        beta = 1;
    double n = (double)s->n;
    for (int d = 0; d < s->ndev; ++d) {
        if (s->dev[d].excluded)
            continue;
        if (beta < 0)
            want[d] = n / (double)(ngpu + ncpu);
        else if (s->dev[d].kind == OFF_GPU)
            want[d] = n * beta / ngpu;
        else
            want[d] = n * (1 - beta) / ncpu;
    }
    int64_t sum = 0;
    for (int d = 0; d < s->ndev; ++d) {
        st->part[d] = (int64_t)floor(want[d]);
        sum += st->part[d];
    }
    /* Largest remainder, ties to the lower index. */
    while (sum < s->n) {
        int best = -1;
        double rem = -1;
        for (int d = 0; d < s->ndev; ++d) {
            if (s->dev[d].excluded)
                continue;
            double r = want[d] - (double)st->part[d];
            if (r > rem) {
                rem = r;
                best = d;
            }
        }
        ++st->part[best];
        ++sum;
        want[best] = (double)st->part[best]; /* one extra each at most */
    }
    free(want);
    s->pstate = st;
    return OMPDAG_OK;
}

static void static_destroy(off_sched *s)
{
    static_state *st = s->pstate;
    if (st) {
        free(st->part);
        free(st->given);
        free(st);
    }
    s->pstate = NULL;
}

static int64_t static_chunk(off_sched *s, int d)
{
    static_state *st = s->pstate;
    if (st->given[d])
        return 0;
    st->given[d] = true;
    return st->part[d];
}

const off_policy off_policy_static = {
    .name = "static",
    .host_computes = false,
    .init = static_init,
    .chunk = static_chunk,
    .record = NULL,
    .destroy = static_destroy,
};
