/*
 * policy_gss.c — guided self-scheduling (Polychronopoulos & Kuck 1987; the
 * GSS baseline of seed 000, reference [10]): a device that asks gets
 * B = ⌈R/P⌉ of the R remaining iterations, P being the devices that compute.
 * No profiling and no rate weights; GPU chunks are rounded up to
 * gpu_quantum.  GPU host threads only launch and poll (the seed's baselines
 * keep the dedicated thread waiting).
 */
#include "offload_internal.h"

static ompdag_status gss_init(off_sched *s, ompdag_error *err)
{
    (void)s;
    (void)err;
    return OMPDAG_OK;
}

static int64_t gss_chunk(off_sched *s, int d)
{
    int64_t P = off_sched_active(s);
    if (P < 1)
        P = 1;
    int64_t B = (s->R + P - 1) / P;
    if (s->dev[d].kind == OFF_GPU)
        return off_round_up(B, s->opts.gpu_quantum);
    return B < s->opts.min_chunk ? s->opts.min_chunk : B;
}

const off_policy off_policy_gss = {
    .name = "gss",
    .host_computes = false,
    .init = gss_init,
    .chunk = gss_chunk,
    .record = NULL,
    .destroy = NULL,
};
