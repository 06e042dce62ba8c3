/*
 * policy_dss.c — DSS-like shrinking chunks, the baseline of seed 000
 * (Belviranli et al., "A dynamic self-scheduling scheme for heterogeneous
 * multiprocessor architectures", TACO 9(4), 2013; reference [6]): chunks
 * start large and shrink linearly as the work is consumed.
 *
 * The base chunk of the k-th dispatch follows the trapezoid rule
 * (Tzen & Ni): F = ⌈n/(2P)⌉, L = min_chunk, N = ⌈2n/(F+L)⌉ chunks,
 * δ = (F − L)/(N − 1), base(k) = max(L, F − k·δ).  Each device's chunk is the
 * base times P·V_d/ΣV once every computing device has been measured (the
 * adaptive part), and the base itself before that.  V_d is the device's
 * cumulative rate (iterations done / busy time).
 */
#include <math.h>
#include <stdlib.h>

#include "offload_internal.h"

typedef struct dss_state {
    double F, L, delta;
    int64_t k;
} dss_state;

static ompdag_status dss_init(off_sched *s, ompdag_error *err)
{
    dss_state *st = calloc(1, sizeof *st);
    if (!st)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "offload: out of memory");
    double P = off_sched_active(s);
    st->L = s->opts.min_chunk > 0 ? (double)s->opts.min_chunk : 1.0;
    st->F = ceil((double)s->n / (2.0 * P));
    if (st->F < st->L)
        st->F = st->L;
    double N = ceil(2.0 * (double)s->n / (st->F + st->L));
    st->delta = N > 1 ? (st->F - st->L) / (N - 1) : 0;
    s->pstate = st;
    return OMPDAG_OK;
}

static void dss_destroy(off_sched *s)
{
    free(s->pstate);
    s->pstate = NULL;
}

static int64_t dss_chunk(off_sched *s, int d)
{
    dss_state *st = s->pstate;
    double base = st->F - (double)st->k * st->delta;
    if (base < st->L)
        base = st->L;
    ++st->k;
    double P = 0, sumV = 0;
    bool all = true;
    for (int i = 0; i < s->ndev; ++i) {
        const off_dev *v = &s->dev[i];
        if (v->excluded || v->retired)
            continue;
        P += 1;
        sumV += v->V;
        if (v->V <= 0)
            all = false;
    }
    double B = base;
    if (all && sumV > 0)
        B = base * P * s->dev[d].V / sumV;
    int64_t b = (int64_t)ceil(B);
    if (b < 1)
        b = 1;
    if (s->dev[d].kind == OFF_GPU)
        b = off_round_up(b, s->opts.gpu_quantum);
    return b;
}

static void dss_record(off_sched *s, int d, int64_t iters, double seconds, bool profiling)
{
    (void)iters;
    (void)seconds;
    (void)profiling;
    off_dev *v = &s->dev[d];
    if (v->busy_s > 0)
        v->V = (double)v->iterations / v->busy_s;
}

const off_policy off_policy_dss = {
    .name = "dss",
    .host_computes = false,
    .init = dss_init,
    .chunk = dss_chunk,
    .record = dss_record,
    .destroy = dss_destroy,
};
