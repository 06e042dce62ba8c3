/*
 * offload_internal.h — the pieces behind ompdag_offload_for():
 *
 *   off_sched   the shared work pool (undispatched range + ranges given back
 *               by GPU host threads), per-device rates and the chunk log.  It
 *               is plain data with no threads or clocks, so tests drive it
 *               with scripted rates and a virtual clock (tests/offload).
 *   off_policy  one small module per policy (policy_dtsa.c, policy_static.c,
 *               policy_gss.c, policy_dss.c): how big the next chunk of a
 *               device is, and what a measurement changes.
 *   off_gpu     an asynchronous device: launch a range, poll for completion.
 *               device_sim.c (simulated GPU) and device_cuda.c (CUDA).
 *   off_run     the threads: CPU workers and one dedicated host thread per GPU
 *               (runtime.c).
 * Names follow seed 000 (Pei et al. 2016): B (chunk), V (rate, iterations/s),
 * R (remaining iterations), nCores, Vc (one CPU thread's rate).
 */
#ifndef OMPDAG_OFFLOAD_INTERNAL_H
#define OMPDAG_OFFLOAD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ompdag/internal/array.h"
#include "ompdag/internal/clock.h" /* ompdag_now_s(): the module's clock */
#include "ompdag/offload.h"

typedef struct off_range {
    int64_t begin, end;
} off_range;

typedef enum off_kind { OFF_CPU = 0, OFF_GPU } off_kind;

typedef struct off_dev {
    off_kind kind;
    ompdag_offload_device_kind report_kind;
    char name[32];
    /* policy state shared by the modules */
    double V;               /* rate the policy uses, iterations/s (0 = unknown) */
    double V_prev;          /* dtsa profiling: the previous chunk's rate */
    int64_t B;              /* dtsa profiling: this device's current chunk size */
    int measured;           /* measurements recorded */
    bool stable;            /* dtsa profiling: last rate change <= ε */
    bool retired;           /* gets no more chunks */
    bool refused;           /* retired by the GPU-starvation rule */
    bool excluded;          /* host thread of a policy whose host threads do not compute */
    /* report */
    int64_t iterations, chunks, profiling_iterations, given_back;
    double busy_s, profiling_s, finish_s;
} off_dev;

typedef struct off_sched off_sched;

/* A policy module.  chunk() returns the size of device d's next chunk, 0 for
 * "none, ever again" (the device retires); it is called only while R > 0 and
 * may set s->phase_of_next.  record() sees a finished chunk's measurement
 * after the shared bookkeeping (d->measured, report counters) is done. */
typedef struct off_policy {
    const char *name;
    bool host_computes;     /* GPU host threads also compute CPU chunks */
    ompdag_status (*init)(off_sched *s, ompdag_error *err);
    int64_t (*chunk)(off_sched *s, int d);
    void (*record)(off_sched *s, int d, int64_t iters, double seconds, bool profiling);
    void (*destroy)(off_sched *s);
} off_policy;

extern const off_policy off_policy_dtsa;
extern const off_policy off_policy_static;
extern const off_policy off_policy_gss;
extern const off_policy off_policy_dss;
const off_policy *off_policy_get(ompdag_offload_policy p);

struct off_sched {
    int64_t n;
    int64_t next;           /* undispatched: [next, n) */
    off_range *back;        /* given back, taken first (LIFO) */
    int nback;
    int64_t back_cap; /* ompdag_grow_array */
    int64_t R;              /* remaining = (n - next) + given back */
    int pending_host;       /* host blocks out that may give iterations back */
    int ndev;
    off_dev *dev;
    ompdag_offload_opts opts;
    const off_policy *policy;
    void *pstate;           /* the policy's own state */
    /* dtsa profiling phase (kept here so the report can show it) */
    bool profiling;
    int64_t profiled;       /* iterations dispatched while profiling */
    int64_t profile_cap_iters;
    double profile_end_s;   /* when profiling ended (clock of record calls) */
    ompdag_offload_phase phase_of_next;
    /* chunk log */
    ompdag_offload_chunk *log;
    int64_t nlog, log_cap;
    double clock_s;         /* latest time passed to off_sched_record */
};

typedef enum off_next { OFF_NEXT_CHUNK = 0, OFF_NEXT_WAIT, OFF_NEXT_DONE } off_next;

/* Creates a scheduler over [0, n) for ndev devices of the given kinds (CPU
 * devices of kind OMPDAG_DEVICE_GPU_HOST are GPU host threads).  *out is
 * freed with off_sched_destroy(). */
ompdag_status off_sched_create(int64_t n, const ompdag_offload_device_kind *kinds, int ndev,
                               const ompdag_offload_opts *opts, off_sched **out,
                               ompdag_error *err);
void off_sched_destroy(off_sched *s);

/* Next range for device d at time now_s.  CHUNK fills *out and returns the
 * log index in *log_id (-1 when not logging); WAIT: nothing now, but a host
 * block may still give iterations back; DONE: nothing for d any more. */
off_next off_sched_next(off_sched *s, int d, double now_s, off_range *out, int64_t *log_id);

/* Device d completed `iters` iterations of the chunk log_id in `seconds`
 * (ending at now_s).  For a host block, iters may be fewer than dispatched. */
void off_sched_record(off_sched *s, int d, int64_t log_id, int64_t iters, double seconds,
                      double now_s);

/* A host thread closes its block, putting [r.begin, r.end) back (empty = no
 * give-back).  False (block still open) when the queue cannot grow: the
 * caller then runs r itself and closes with an empty range. */
bool off_sched_host_close(off_sched *s, int d, off_range r);

/* Puts a range back in the pool (a failed GPU chunk). */
bool off_sched_give_back(off_sched *s, off_range r);

/* Shared helpers for the policy modules. */
double off_sched_Vc(const off_sched *s);      /* mean rate of measured CPU devices */
int off_sched_ncores(const off_sched *s);     /* nCores: CPU devices that compute */
int off_sched_active(const off_sched *s);     /* devices not retired or excluded */
double off_sched_dev_V(const off_sched *s, int d); /* d's rate; Vc when unmeasured */
int64_t off_round_up(int64_t x, int64_t q);

/* The report (offload.c reads it, runtime.c fills it). */
struct ompdag_offload_report {
    ompdag_offload_policy policy;
    int64_t n, profiled;
    double wall_s, profiling_s;
    int ndev;
    ompdag_offload_device_stats *dev;
    char (*names)[32];
    ompdag_offload_chunk *chunks;
    int64_t nchunks;
};

/* ---- asynchronous devices ---- */

typedef struct off_gpu off_gpu;
typedef struct off_gpu_ops {
    /* starts [b, e) and returns at once */
    void (*launch)(off_gpu *g, int64_t b, int64_t e);
    /* true when the launched range completed; *done_s = when it did */
    bool (*query)(off_gpu *g, double *done_s);
    void (*destroy)(off_gpu *g);
} off_gpu_ops;

struct off_gpu {
    const off_gpu_ops *ops;
    const char *failure;             /* set by query when the chunk failed (static string) */
    ompdag_offload_device_kind kind; /* GPU or SIM_GPU */
    char name[32];
    void *impl;
};

/* A simulated GPU: `body` runs on its own thread; a launch completes at
 * launch + latency + (thread CPU time of the body) / speed, or when the body
 * returns if that is later. */
ompdag_status off_gpu_sim_create(ompdag_offload_cpu_fn body, void *ctx, double speed,
                                 double latency_s, const char *name, off_gpu **out,
                                 ompdag_error *err);

/* CUDA devices (device_cuda.c, only when built with CUDA). */
int off_cuda_count(void);
const char *off_cuda_why_none(void);
bool off_cuda_info(int i, ompdag_gpu_info *out);
ompdag_status off_gpu_cuda_create(int device, ompdag_offload_gpu_fn body, void *ctx,
                                  const char *name, off_gpu **out, ompdag_error *err);


/* Runs the region with the given GPUs (borrowed; may be 0).  Used by
 * ompdag_offload_for() and by tests that bring scripted devices. */
/* Sends each device's share of a finished loop to the runtime probe, when
 * the program runs under it (probe_hook.c). */
void off_probe_report(const ompdag_offload_report *rep);

ompdag_status off_run(int64_t n, ompdag_offload_cpu_fn cpu_body, void *ctx,
                      const ompdag_offload_opts *opts, off_gpu **gpus, int ngpus,
                      ompdag_offload_report **report, ompdag_error *err);

#endif
