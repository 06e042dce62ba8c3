/*
 * sched.c — the work pool every policy shares (seed 000, Pei et al. 2016,
 * section "联合专用线程调度", the dedicated-thread scheme).
 *
 * Iterations not yet dispatched are the range [next, n).  A GPU host thread
 * that cut its CPU block into sub-chunks puts the unfinished ones back when
 * its GPU completes; those ranges sit in `back` and are handed out first
 * ("优先从剩余工作队列取得任务": first from the remaining-work queue, then
 * from the undispatched iterations).  R counts both.  A device asking while
 * R = 0 waits if some host block is still out (it may give work back), and
 * is done otherwise.  The policy module decides only chunk sizes.
 *
 * Plain data: the caller serialises calls (runtime.c holds one mutex) and
 * passes the time, so tests drive it with a virtual clock.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offload_internal.h"

const off_policy *off_policy_get(ompdag_offload_policy p)
{
    switch (p) {
    case OMPDAG_OFFLOAD_DTSA: return &off_policy_dtsa;
    case OMPDAG_OFFLOAD_STATIC: return &off_policy_static;
    case OMPDAG_OFFLOAD_GSS: return &off_policy_gss;
    case OMPDAG_OFFLOAD_DSS: return &off_policy_dss;
    default: return NULL;
    }
}

int64_t off_round_up(int64_t x, int64_t q)
{
    if (q <= 1)
        return x;
    return (x + q - 1) / q * q;
}

static const char *kind_prefix(ompdag_offload_device_kind k)
{
    switch (k) {
    case OMPDAG_DEVICE_CPU: return "cpu";
    case OMPDAG_DEVICE_GPU: return "gpu";
    case OMPDAG_DEVICE_SIM_GPU: return "simgpu";
    case OMPDAG_DEVICE_GPU_HOST: return "host";
    }
    return "dev";
}

ompdag_status off_sched_create(int64_t n, const ompdag_offload_device_kind *kinds, int ndev,
                               const ompdag_offload_opts *opts, off_sched **out,
                               ompdag_error *err)
{
    *out = NULL;
    if (n < 0)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "offload: n = %lld < 0", (long long)n);
    if (ndev < 1)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "offload: no device to run on");
    const off_policy *pol = off_policy_get(opts->policy);
    if (!pol)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "offload: unknown policy %d",
                                (int)opts->policy);
    off_sched *s = calloc(1, sizeof *s);
    off_dev *dev = calloc((size_t)ndev, sizeof *dev);
    if (!s || !dev) {
        free(s);
        free(dev);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "offload: out of memory");
    }
    s->n = n;
    s->R = n;
    s->ndev = ndev;
    s->dev = dev;
    s->opts = *opts;
    s->policy = pol;
    s->phase_of_next = OMPDAG_PHASE_WEIGHTED;
    int counter[4] = {0, 0, 0, 0};
    for (int d = 0; d < ndev; ++d) {
        ompdag_offload_device_kind k = kinds[d];
        dev[d].report_kind = k;
        dev[d].kind = (k == OMPDAG_DEVICE_GPU || k == OMPDAG_DEVICE_SIM_GPU) ? OFF_GPU : OFF_CPU;
        int idx = counter[k < 4 ? k : 0]++;
        snprintf(dev[d].name, sizeof dev[d].name, "%s%d", kind_prefix(k), idx);
        if (k == OMPDAG_DEVICE_GPU_HOST && !pol->host_computes)
            dev[d].excluded = dev[d].retired = true;
    }
    if (off_sched_active(s) == 0) {
        off_sched_destroy(s);
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "offload: policy %s has no device that computes (no CPU thread, "
                                "no GPU)", pol->name);
    }
    ompdag_status st = pol->init(s, err);
    if (st != OMPDAG_OK) {
        off_sched_destroy(s);
        return st;
    }
    *out = s;
    return OMPDAG_OK;
}

void off_sched_destroy(off_sched *s)
{
    if (!s)
        return;
    if (s->policy && s->policy->destroy)
        s->policy->destroy(s);
    free(s->back);
    free(s->log);
    free(s->dev);
    free(s);
}

double off_sched_Vc(const off_sched *s)
{
    double sum = 0;
    int k = 0;
    for (int d = 0; d < s->ndev; ++d)
        if (s->dev[d].kind == OFF_CPU && !s->dev[d].excluded && s->dev[d].V > 0) {
            sum += s->dev[d].V;
            ++k;
        }
    if (k > 0)
        return sum / k;
    /* No CPU measured yet: assume the mean measured device, else the unit. */
    for (int d = 0; d < s->ndev; ++d)
        if (!s->dev[d].excluded && s->dev[d].V > 0) {
            sum += s->dev[d].V;
            ++k;
        }
    return k > 0 ? sum / k : 1.0;
}

int off_sched_ncores(const off_sched *s)
{
    int k = 0;
    for (int d = 0; d < s->ndev; ++d)
        if (s->dev[d].kind == OFF_CPU && !s->dev[d].excluded)
            ++k;
    return k;
}

int off_sched_active(const off_sched *s)
{
    int k = 0;
    for (int d = 0; d < s->ndev; ++d)
        if (!s->dev[d].retired && !s->dev[d].excluded)
            ++k;
    return k;
}

double off_sched_dev_V(const off_sched *s, int d)
{
    const off_dev *v = &s->dev[d];
    return v->V > 0 ? v->V : off_sched_Vc(s);
}

static bool log_push(off_sched *s, const ompdag_offload_chunk *c)
{
    if (!ompdag_grow_array((void **)&s->log, sizeof *s->log, &s->log_cap, s->nlog + 1))
        return false;
    s->log[s->nlog++] = *c;
    return true;
}

off_next off_sched_next(off_sched *s, int d, double now_s, off_range *out, int64_t *log_id)
{
    assert(d >= 0 && d < s->ndev);
    off_dev *v = &s->dev[d];
    *log_id = -1;
    if (v->retired)
        return OFF_NEXT_DONE;
    if (s->R == 0)
        return s->pending_host > 0 ? OFF_NEXT_WAIT : OFF_NEXT_DONE;
    s->phase_of_next = OMPDAG_PHASE_WEIGHTED;
    int64_t B = s->policy->chunk(s, d);
    if (B <= 0) {
        v->retired = true;
        return OFF_NEXT_DONE;
    }
    if (B > s->R)
        B = s->R;
    off_range r;
    if (s->nback > 0) {
        off_range *b = &s->back[s->nback - 1];
        r.begin = b->begin;
        r.end = b->end - b->begin > B ? b->begin + B : b->end;
        b->begin = r.end;
        if (b->begin == b->end)
            --s->nback;
    } else {
        assert(s->next < s->n);
        r.begin = s->next;
        r.end = s->n - s->next > B ? s->next + B : s->n;
        s->next = r.end;
    }
    int64_t len = r.end - r.begin;
    s->R -= len;
    if (v->report_kind == OMPDAG_DEVICE_GPU_HOST)
        ++s->pending_host;
    if (s->phase_of_next == OMPDAG_PHASE_PROFILING)
        s->profiled += len;
    ompdag_offload_chunk c = {.device = d, .begin = r.begin, .end = r.end, .done = 0,
                              .phase = s->phase_of_next, .start_s = now_s, .end_s = now_s};
    if (log_push(s, &c))
        *log_id = s->nlog - 1;
    *out = r;
    return OFF_NEXT_CHUNK;
}

void off_sched_record(off_sched *s, int d, int64_t log_id, int64_t iters, double seconds,
                      double now_s)
{
    off_dev *v = &s->dev[d];
    bool profiling = false;
    if (log_id >= 0 && log_id < s->nlog) {
        ompdag_offload_chunk *c = &s->log[log_id];
        c->done = iters;
        c->end_s = now_s;
        profiling = c->phase == OMPDAG_PHASE_PROFILING;
    }
    if (seconds < 0)
        seconds = 0;
    v->iterations += iters;
    v->chunks += 1;
    v->busy_s += seconds;
    if (now_s > v->finish_s)
        v->finish_s = now_s;
    if (profiling) {
        v->profiling_iterations += iters;
        v->profiling_s += seconds;
    }
    if (now_s > s->clock_s)
        s->clock_s = now_s;
    if (iters > 0 && seconds > 0) {
        ++v->measured;
        if (s->policy->record)
            s->policy->record(s, d, iters, seconds, profiling);
    }
}

bool off_sched_give_back(off_sched *s, off_range r)
{
    if (r.end <= r.begin)
        return true;
    if (!ompdag_grow_array((void **)&s->back, sizeof *s->back, &s->back_cap, (int64_t)s->nback + 1))
        return false;
    s->back[s->nback++] = r;
    s->R += r.end - r.begin;
    return true;
}

bool off_sched_host_close(off_sched *s, int d, off_range r)
{
    assert(s->dev[d].report_kind == OMPDAG_DEVICE_GPU_HOST);
    assert(s->pending_host > 0);
    if (!off_sched_give_back(s, r))
        return false; /* the block stays open; the caller runs r itself */
    --s->pending_host;
    if (r.end > r.begin)
        s->dev[d].given_back += r.end - r.begin;
    return true;
}
