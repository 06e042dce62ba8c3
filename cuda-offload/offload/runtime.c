/*
 * runtime.c — the threads of ompdag_offload_for() (seed 000, section
 * "联合专用线程调度", the joint dedicated-thread scheme, Figure 2).
 *
 * CPU workers loop: ask the pool for a chunk, run cpu_body, report the time.
 * The calling thread is worker 0.  Each GPU has a dedicated host thread:
 *
 *   1. it asks for a GPU chunk (the seed's GC token) and launches it;
 *   2. while the GPU runs it takes a CPU block for itself (the C token), cuts
 *      it into sub_chunks sub-chunks (the seed's temporary queue) and runs
 *      them one by one, polling the GPU between them; with no sub-chunk left
 *      it takes another block, or, when the pool is empty, yields the CPU
 *      between polls (the "yield" mode, neither spin nor blocking);
 *   3. when the GPU completes, the sub-chunks not yet started are put back
 *      in the pool as one range ("压缩剩余子块放回剩余工作队列"), and the
 *      GPU's time (launch to completion, transfers included) is recorded.
 *
 * A GPU the policy refuses (starvation rule) is retired and its host thread
 * goes on as a CPU worker.  Under the baseline policies the host thread does
 * not compute; it launches and polls only.  One mutex guards the pool.
 */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "offload_internal.h"

typedef struct run_state {
    off_sched *s;
    pthread_mutex_t mu;
    ompdag_offload_cpu_fn body;
    void *ctx;
    double t0;
    int sub_chunks;
    const char *gpu_failure; /* first failure, under mu */
    char gpu_failure_name[32];
} run_state;

typedef struct worker {
    run_state *rs;
    int d;        /* CPU worker: its device; host thread: the GPU's device */
    int hd;       /* host thread: its own CPU device */
    off_gpu *gpu; /* NULL for a CPU worker */
    pthread_t thread;
} worker;

static off_next next_locked(run_state *rs, int d, off_range *r, int64_t *id)
{
    pthread_mutex_lock(&rs->mu);
    off_next st = off_sched_next(rs->s, d, ompdag_now_s() - rs->t0, r, id);
    pthread_mutex_unlock(&rs->mu);
    return st;
}

static void record_locked(run_state *rs, int d, int64_t id, int64_t iters, double secs,
                          double end_abs)
{
    pthread_mutex_lock(&rs->mu);
    off_sched_record(rs->s, d, id, iters, secs, end_abs - rs->t0);
    pthread_mutex_unlock(&rs->mu);
}

static void *cpu_worker(void *arg)
{
    worker *w = arg;
    run_state *rs = w->rs;
    for (;;) {
        off_range r;
        int64_t id;
        off_next st = next_locked(rs, w->d, &r, &id);
        if (st == OFF_NEXT_DONE)
            break;
        if (st == OFF_NEXT_WAIT) {
            sched_yield();
            continue;
        }
        double a = ompdag_now_s();
        rs->body(r.begin, r.end, rs->ctx);
        double b = ompdag_now_s();
        record_locked(rs, w->d, id, r.end - r.begin, b - a, b);
    }
    return NULL;
}

/* The host thread's CPU block, run in sub-chunks. */
typedef struct host_block {
    off_range r;
    int64_t id, cur, sub, done;
    double spent;
    bool open;
} host_block;

static bool host_take_block(worker *w, host_block *hb)
{
    run_state *rs = w->rs;
    off_range r;
    int64_t id;
    if (next_locked(rs, w->hd, &r, &id) != OFF_NEXT_CHUNK)
        return false;
    int64_t len = r.end - r.begin;
    int64_t k = rs->sub_chunks > 0 ? rs->sub_chunks : 1;
    *hb = (host_block){.r = r, .id = id, .cur = r.begin, .sub = (len + k - 1) / k, .open = true};
    return true;
}

static void host_run_sub(worker *w, host_block *hb)
{
    run_state *rs = w->rs;
    int64_t e = hb->cur + hb->sub < hb->r.end ? hb->cur + hb->sub : hb->r.end;
    double a = ompdag_now_s();
    rs->body(hb->cur, e, rs->ctx);
    hb->spent += ompdag_now_s() - a;
    hb->done += e - hb->cur;
    hb->cur = e;
}

/* Closes the block, putting [cur, end) back; runs it here if the pool cannot
 * take it. */
static void host_close_block(worker *w, host_block *hb)
{
    run_state *rs = w->rs;
    off_range rest = {hb->cur, hb->r.end};
    pthread_mutex_lock(&rs->mu);
    bool ok = off_sched_host_close(rs->s, w->hd, rest);
    pthread_mutex_unlock(&rs->mu);
    if (!ok) {
        while (hb->cur < hb->r.end)
            host_run_sub(w, hb);
        pthread_mutex_lock(&rs->mu);
        off_sched_host_close(rs->s, w->hd, (off_range){0, 0});
        pthread_mutex_unlock(&rs->mu);
    }
    if (hb->done > 0)
        record_locked(rs, w->hd, hb->id, hb->done, hb->spent, ompdag_now_s());
    hb->open = false;
}

/* Steps 2 and 3: CPU sub-chunks while the GPU runs; returns its end time. */
static double host_overlap(worker *w)
{
    host_block hb = {.open = false};
    double done_s;
    for (;;) {
        if (w->gpu->ops->query(w->gpu, &done_s))
            break;
        if (hb.open && hb.cur < hb.r.end) {
            host_run_sub(w, &hb);
            continue;
        }
        if (hb.open)
            host_close_block(w, &hb);
        if (!host_take_block(w, &hb))
            sched_yield();
    }
    if (hb.open)
        host_close_block(w, &hb);
    return done_s;
}

static void *gpu_host(void *arg)
{
    worker *w = arg;
    run_state *rs = w->rs;
    bool gpu_live = true;
    for (;;) {
        if (gpu_live) {
            off_range r;
            int64_t id;
            off_next st = next_locked(rs, w->d, &r, &id);
            if (st == OFF_NEXT_CHUNK) {
                double launched = ompdag_now_s();
                w->gpu->failure = NULL;
                w->gpu->ops->launch(w->gpu, r.begin, r.end);
                double done = host_overlap(w);
                if (w->gpu->failure) {
                    /* The chunk's results cannot be trusted: the CPUs redo it. */
                    pthread_mutex_lock(&rs->mu);
                    off_sched_give_back(rs->s, r);
                    rs->s->dev[w->d].retired = true;
                    if (!rs->gpu_failure) {
                        rs->gpu_failure = w->gpu->failure;
                        snprintf(rs->gpu_failure_name, sizeof rs->gpu_failure_name, "%s",
                                 w->gpu->name);
                    }
                    pthread_mutex_unlock(&rs->mu);
                    gpu_live = false;
                } else {
                    record_locked(rs, w->d, id, r.end - r.begin, done - launched, done);
                }
                continue;
            }
            if (st == OFF_NEXT_DONE)
                gpu_live = false;
        }
        /* No GPU chunk now: the host thread works as a CPU thread. */
        host_block hb;
        if (host_take_block(w, &hb)) {
            while (hb.cur < hb.r.end)
                host_run_sub(w, &hb);
            host_close_block(w, &hb);
            continue;
        }
        off_range r;
        int64_t id;
        if (!gpu_live && next_locked(rs, w->hd, &r, &id) == OFF_NEXT_DONE)
            break;
        sched_yield();
    }
    return NULL;
}

static int online_pus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static ompdag_status build_report(const off_sched *s, double wall_s, ompdag_offload_report **out,
                                  ompdag_error *err)
{
    ompdag_offload_report *r = calloc(1, sizeof *r);
    if (r) {
        r->dev = calloc((size_t)s->ndev, sizeof *r->dev);
        r->names = calloc((size_t)s->ndev, sizeof *r->names);
        if (s->opts.log_chunks && s->nlog > 0)
            r->chunks = malloc((size_t)s->nlog * sizeof *r->chunks);
    }
    if (!r || !r->dev || !r->names || (s->opts.log_chunks && s->nlog > 0 && !r->chunks)) {
        ompdag_offload_report_destroy(r);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "offload: out of memory");
    }
    r->policy = s->opts.policy;
    r->n = s->n;
    r->profiled = s->profiled;
    r->wall_s = wall_s;
    if (s->opts.policy == OMPDAG_OFFLOAD_DTSA && s->profile_cap_iters > 0)
        r->profiling_s = s->profiling || s->profile_end_s > wall_s ? wall_s : s->profile_end_s;
    r->ndev = s->ndev;
    for (int d = 0; d < s->ndev; ++d) {
        const off_dev *v = &s->dev[d];
        memcpy(r->names[d], v->name, sizeof r->names[d]);
        r->dev[d] = (ompdag_offload_device_stats){
            .name = r->names[d],
            .kind = v->report_kind,
            .iterations = v->iterations,
            .chunks = v->chunks,
            .profiling_iterations = v->profiling_iterations,
            .given_back = v->given_back,
            .busy_s = v->busy_s,
            .profiling_s = v->profiling_s,
            .finish_s = v->finish_s,
            .rate = v->V > 0 ? v->V : (v->busy_s > 0 ? (double)v->iterations / v->busy_s : 0),
            .refused = v->refused,
        };
    }
    if (r->chunks) {
        memcpy(r->chunks, s->log, (size_t)s->nlog * sizeof *r->chunks);
        r->nchunks = s->nlog;
    }
    *out = r;
    return OMPDAG_OK;
}

/* Iterations no device would take (a failed GPU chunk given back after
 * the static blocks were handed out, or a thread that could not start):
 * the calling thread runs them, counted on the first CPU-kind device.
 * After every worker has stopped (no lock). */
static void run_leftovers(run_state *rs)
{
    off_sched *s = rs->s;
    int d = 0;
    while (d < s->ndev && s->dev[d].kind != OFF_CPU)
        ++d;
    while (s->nback > 0 || s->next < s->n) {
        off_range r;
        if (s->nback > 0) {
            r = s->back[--s->nback];
        } else {
            r = (off_range){s->next, s->n};
            s->next = s->n;
        }
        double a = ompdag_now_s();
        rs->body(r.begin, r.end, rs->ctx);
        double b = ompdag_now_s();
        s->R -= r.end - r.begin;
        if (d < s->ndev)
            off_sched_record(s, d, -1, r.end - r.begin, b - a, b - rs->t0);
    }
}

ompdag_status off_run(int64_t n, ompdag_offload_cpu_fn cpu_body, void *ctx,
                      const ompdag_offload_opts *opts_in, off_gpu **gpus, int ngpus,
                      ompdag_offload_report **report, ompdag_error *err)
{
    ompdag_offload_opts opts;
    if (opts_in)
        opts = *opts_in;
    else
        ompdag_offload_opts_init(&opts);
    if (!cpu_body)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "offload: cpu_body is NULL");
    if (opts.sub_chunks < 1 || opts.min_chunk < 1 || opts.gpu_quantum < 1 ||
        !(opts.rate_epsilon >= 0) || !(opts.profile_cap >= 0 && opts.profile_cap <= 1))
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "offload: need sub_chunks, min_chunk, gpu_quantum >= 1, "
                                "rate_epsilon >= 0 and profile_cap in [0, 1]");
    int ncpu = opts.cpu_threads;
    if (ncpu < 0) {
        ncpu = online_pus() - ngpus;
        if (ncpu < 1)
            ncpu = 1;
    }
    if (ncpu == 0 && ngpus == 0)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "offload: no CPU thread and no GPU");
    if (ncpu > 1024)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "offload: %d CPU threads (max 1024)",
                                ncpu);
    int ndev = ncpu + 2 * ngpus;
    ompdag_offload_device_kind *kinds = calloc((size_t)ndev, sizeof *kinds);
    worker *ws = calloc((size_t)(ncpu + ngpus), sizeof *ws);
    if (!kinds || !ws) {
        free(kinds);
        free(ws);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "offload: out of memory");
    }
    for (int c = 0; c < ncpu; ++c)
        kinds[c] = OMPDAG_DEVICE_CPU;
    for (int g = 0; g < ngpus; ++g) {
        kinds[ncpu + 2 * g] = gpus[g]->kind;
        kinds[ncpu + 2 * g + 1] = OMPDAG_DEVICE_GPU_HOST;
    }
    run_state rs = {.body = cpu_body, .ctx = ctx, .sub_chunks = opts.sub_chunks};
    ompdag_status st = off_sched_create(n, kinds, ndev, &opts, &rs.s, err);
    free(kinds);
    if (st != OMPDAG_OK) {
        free(ws);
        return st;
    }
    for (int g = 0; g < ngpus; ++g)
        snprintf(rs.s->dev[ncpu + 2 * g].name, sizeof rs.s->dev[0].name, "%s", gpus[g]->name);
    pthread_mutex_init(&rs.mu, NULL);
    rs.t0 = ompdag_now_s();

    int started = 0;
    for (int i = 0; i < ncpu + ngpus; ++i) {
        worker *w = &ws[i];
        w->rs = &rs;
        if (i < ncpu) {
            w->d = i;
        } else {
            int g = i - ncpu;
            w->d = ncpu + 2 * g;
            w->hd = ncpu + 2 * g + 1;
            w->gpu = gpus[g];
        }
        if (i == 0 && ncpu > 0)
            continue; /* the calling thread is cpu0 */
        if (pthread_create(&w->thread, NULL, w->gpu ? gpu_host : cpu_worker, w) != 0) {
            st = ompdag_error_set(err, OMPDAG_ERR_LIMIT, "offload: cannot start thread %d", i);
            /* Threads already started finish the whole range without this one. */
            pthread_mutex_lock(&rs.mu);
            for (int j = i; j < ncpu + ngpus; ++j) {
                rs.s->dev[ws[j].d].retired = true;
                if (j >= ncpu)
                    rs.s->dev[ws[j].hd].retired = true;
            }
            pthread_mutex_unlock(&rs.mu);
            break;
        }
        ++started;
    }
    if (ncpu > 0)
        cpu_worker(&ws[0]);
    for (int i = 0; i < ncpu + ngpus; ++i)
        if ((i > 0 || ncpu == 0) && i - (ncpu > 0 ? 1 : 0) < started)
            pthread_join(ws[i].thread, NULL);
    if (rs.s->R > 0)
        run_leftovers(&rs);
    double wall = ompdag_now_s() - rs.t0;
    pthread_mutex_destroy(&rs.mu);

    if (st == OMPDAG_OK && rs.gpu_failure)
        st = ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                              "offload: %s failed (%s); the CPUs ran its chunks",
                              rs.gpu_failure_name, rs.gpu_failure);
    if (st == OMPDAG_OK && report)
        st = build_report(rs.s, wall, report, err);
    off_sched_destroy(rs.s);
    free(ws);
    return st;
}
