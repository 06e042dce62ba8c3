/*
 * policy_dtsa.c — DTSA, the dynamic task scheduling algorithm of seed 000
 * (Pei, Ning, Zhang: "CPU-GPU 异构多核系统的动态任务调度算法", 计算机应用研究
 * 33(11), 2016), Figure 1 and its analysis:
 *
 *   Profiling phase (分析阶段).  Every device starts with a small chunk
 *   (initial_chunk).  After each chunk its rate V = iterations / time (time
 *   includes the transfers, which belong to the GPU body) is compared with
 *   the previous one: |V - V_prev| / V_prev > ε (0.05) doubles its chunk B,
 *   otherwise the device is stable.  The phase ends when every device is
 *   stable or 20% of the iterations were dispatched; profiling chunks are
 *   clipped so that the 20% are never exceeded.
 *
 *   Execution phase (执行阶段).  With Tq the longest profiled chunk time
 *   max(B/V), a round of chunks takes Tq on every device when
 *   B1/V1 = B2/V2 = … = Bc/Vc  (equation 4), i.e. Bi = Vi·Tq, Bc = Vc·Tq.
 *   While R >= 2·Tq·(ΣVi + nCores·Vc) iterations remain, those weighted chunks
 *   are handed out.  Below that, guided self-scheduling:
 *       Bc = R / (ΣVi + nCores·Vc)
 *   with rates in units of one CPU thread's rate Vc (as GSS's R/P counts
 *   processors), i.e. Bc = ⌈R·Vc / (ΣVi + nCores·Vc)⌉, never below min_chunk,
 *   and a GPU's share Bi = ⌈R·Vi / (ΣVi + nCores·Vc)⌉ rounded up to
 *   gpu_quantum ("the ideal GPU chunk is a multiple of its thread count").
 *
 *   Starvation rule.  If Bi/Vi exceeds R/(ΣV − Vi) — the time every other
 *   device needs for all remaining iterations — GPU i gets no chunk (Bi = 0)
 *   and is retired; its dedicated host thread goes on as a CPU thread.
 *
 * Rates are frozen after profiling (the weights of the profiling phase);
 * a device first measured after profiling takes its first measurement.
 */
#include <math.h>
#include <stdlib.h>

#include "offload_internal.h"

typedef struct dtsa_state {
    double Tq; /* seconds per weighted round */
} dtsa_state;

static ompdag_status dtsa_init(off_sched *s, ompdag_error *err)
{
    dtsa_state *st = calloc(1, sizeof *st);
    if (!st)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "offload: out of memory");
    s->pstate = st;
    int64_t B0 = s->opts.initial_chunk > 0 ? s->opts.initial_chunk : s->n / 1024;
    if (B0 < 1)
        B0 = 1;
    for (int d = 0; d < s->ndev; ++d) {
        s->dev[d].B = s->dev[d].kind == OFF_GPU ? off_round_up(B0, s->opts.gpu_quantum) : B0;
    }
    s->profile_cap_iters = (int64_t)floor(s->opts.profile_cap * (double)s->n);
    s->profiling = s->profile_cap_iters > 0;
    return OMPDAG_OK;
}

static void dtsa_destroy(off_sched *s)
{
    free(s->pstate);
    s->pstate = NULL;
}

/* Tq = max over measured devices of B/V: the longest profiled chunk time. */
static void dtsa_end_profiling(off_sched *s)
{
    dtsa_state *st = s->pstate;
    s->profiling = false;
    s->profile_end_s = s->clock_s;
    double Tq = 0;
    for (int d = 0; d < s->ndev; ++d) {
        const off_dev *v = &s->dev[d];
        if (v->excluded || v->retired || v->V <= 0)
            continue;
        double t = (double)v->B / v->V;
        if (t > Tq)
            Tq = t;
    }
    st->Tq = Tq;
}

static int64_t dtsa_chunk(off_sched *s, int d)
{
    dtsa_state *st = s->pstate;
    off_dev *v = &s->dev[d];
    if (s->profiling && s->profiled >= s->profile_cap_iters)
        dtsa_end_profiling(s);
    if (s->profiling) {
        s->phase_of_next = OMPDAG_PHASE_PROFILING;
        int64_t left = s->profile_cap_iters - s->profiled;
        return v->B < left ? v->B : left;
    }
    double Vc = off_sched_Vc(s);
    double sumVi = 0;
    for (int i = 0; i < s->ndev; ++i)
        if (s->dev[i].kind == OFF_GPU && !s->dev[i].retired)
            sumVi += off_sched_dev_V(s, i);
    double Vtot = sumVi + (double)off_sched_ncores(s) * Vc;
    double Vd = v->kind == OFF_GPU ? off_sched_dev_V(s, d) : Vc;
    double R = (double)s->R;
    int64_t B;
    if (st->Tq > 0 && R >= 2.0 * st->Tq * Vtot) {
        s->phase_of_next = OMPDAG_PHASE_WEIGHTED;
        B = (int64_t)ceil(Vd * st->Tq);
    } else {
        s->phase_of_next = OMPDAG_PHASE_TAIL;
        B = (int64_t)ceil(R * Vd / Vtot);
    }
    if (v->kind == OFF_CPU) {
        if (B < s->opts.min_chunk)
            B = s->opts.min_chunk;
        if (B < 1)
            B = 1;
        return B;
    }
    B = off_round_up(B < 1 ? 1 : B, s->opts.gpu_quantum);
    if (B > s->R)
        B = s->R;
    double Vothers = Vtot - Vd;
    if (Vothers > 0 && (double)B / Vd > R / Vothers) {
        v->refused = true;
        return 0;
    }
    return B;
}

static void dtsa_record(off_sched *s, int d, int64_t iters, double seconds, bool profiling)
{
    off_dev *v = &s->dev[d];
    double V = (double)iters / seconds;
    if (!profiling) {
        if (v->V <= 0)
            v->V = V;
        return;
    }
    if (v->V_prev > 0) {
        double change = fabs(V - v->V_prev) / v->V_prev;
        v->stable = change <= s->opts.rate_epsilon;
    }
    if (!v->stable)
        v->B *= 2;
    v->V_prev = V;
    v->V = V;
    if (!s->profiling)
        return;
    for (int i = 0; i < s->ndev; ++i) {
        const off_dev *u = &s->dev[i];
        if (!u->excluded && !u->retired && !u->stable)
            return;
    }
    dtsa_end_profiling(s);
}

const off_policy off_policy_dtsa = {
    .name = "dtsa",
    .host_computes = true,
    .init = dtsa_init,
    .chunk = dtsa_chunk,
    .record = dtsa_record,
    .destroy = dtsa_destroy,
};
