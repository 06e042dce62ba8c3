/*
 * ompdag/offload.h — running a data-parallel task region on every CPU core
 * and GPU, resource discovery, and greedy mapping of regions to resources.
 *
 * ompdag_offload_for() splits the iterations [0, n) of a loop into chunks and
 * hands them to CPU worker threads and GPUs under one of four policies:
 *   dtsa    Pei et al. 2016: a profiling phase that doubles chunk
 *           sizes while a device's rate changes by more than 0.05 (at most
 *           20% of the iterations), then rate-weighted chunks, a guided
 *           self-scheduling tail Bc = R/(ΣVi + nCores·Vc), no chunk for a
 *           GPU whose chunk would outlast the rest, and a dedicated GPU host
 *           thread that polls the GPU in yield mode while it computes CPU
 *           sub-chunks, putting the unfinished ones back when the GPU ends;
 *   static  one block per device by a fixed GPU share (Qilin-like);
 *   gss     guided self-scheduling, chunk = ⌈R/P⌉;
 *   dss     rate-weighted, linearly shrinking (trapezoid) chunks.
 * GPUs are CUDA devices (when ompdag is built with CUDA and gpu_body is set)
 * and/or simulated GPUs: a CPU body run on a device thread whose completion
 * is delayed to model a given speed and launch latency, so every rule above
 * runs, and is tested, on machines without a GPU.
 *
 * Resource discovery (DISPAR's StreamMAP, Sheng et al. 2015, for one machine) reads
 * the CPU topology with hwloc and the CUDA devices with the CUDA runtime;
 * zero GPUs is a normal answer.  ompdag_map_regions() maps task regions of
 * class CO (CPU only) or CG (CPU+GPU) to resources with DISPAR's greedy
 * rules.
 *
 * Every fallible function returns an ompdag_status and fills *err when it is
 * not NULL.  Handles are opaque; each comment says who frees what.
 */
#ifndef OMPDAG_OFFLOAD_H
#define OMPDAG_OFFLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ompdag/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the region runtime -------------------------------------------------- */

/* Runs iterations [begin, end) on the calling CPU thread. */
typedef void (*ompdag_offload_cpu_fn)(int64_t begin, int64_t end, void *ctx);
/* Launches the work of iterations [begin, end) on `stream` (a cudaStream_t)
 * and returns without waiting; host<->device transfers belong in it too and
 * are timed as part of the chunk.  The runtime polls the stream. */
typedef void (*ompdag_offload_gpu_fn)(int64_t begin, int64_t end, void *ctx, void *stream);

typedef enum ompdag_offload_policy {
    OMPDAG_OFFLOAD_DTSA = 0,
    OMPDAG_OFFLOAD_STATIC,
    OMPDAG_OFFLOAD_GSS,
    OMPDAG_OFFLOAD_DSS,
    OMPDAG_OFFLOAD_POLICY_COUNT
} ompdag_offload_policy;

/* "dtsa", "static", "gss", "dss".  Never NULL. */
const char *ompdag_offload_policy_name(ompdag_offload_policy policy);
/* Parses a policy name; OMPDAG_ERR_ARGUMENT when unknown. */
ompdag_status ompdag_offload_policy_parse(const char *name, ompdag_offload_policy *out,
                                          ompdag_error *err);

/* Options; fill with ompdag_offload_opts_init() first.  Names follow Pei et al. 2016. */
typedef struct ompdag_offload_opts {
    ompdag_offload_policy policy;   /* dtsa */
    int cpu_threads;                /* CPU worker threads besides the GPU host threads;
                                       -1 = online PUs minus one per GPU (at least 1) */
    int cuda_devices;               /* -1 = every CUDA device when built with CUDA and
                                       gpu_body is set, 0 = none, k = the first k */
    int sim_gpus;                   /* simulated GPUs (0..16), added after CUDA ones */
    double sim_speed;               /* a simulated GPU's speed in CPU threads (4.0) */
    double sim_latency_s;           /* its per-launch latency in seconds (20e-6) */
    ompdag_offload_cpu_fn sim_body; /* what it runs; NULL = cpu_body */
    int64_t initial_chunk;          /* dtsa: first profiling chunk; 0 = max(1, n/1024) */
    double rate_epsilon;            /* dtsa: a rate is stable when it changed <= this (0.05) */
    double profile_cap;             /* dtsa: profiling ends after this share of n (0.20) */
    int64_t min_chunk;              /* smallest CPU chunk in a shrinking tail (1) */
    int64_t gpu_quantum;            /* GPU chunks are rounded up to multiples of this (1) */
    int sub_chunks;                 /* dtsa: a host thread cuts its CPU block in this many (8) */
    double static_gpu_share;        /* static: share of n for all GPUs together;
                                       < 0 = an equal share per device (-1) */
    bool log_chunks;                /* keep every chunk in the report (true) */
} ompdag_offload_opts;

/* Fills *opts with the defaults shown above. */
void ompdag_offload_opts_init(ompdag_offload_opts *opts);

/* What ran where: one row per device (CPU workers, GPUs, GPU host threads). */
typedef struct ompdag_offload_report ompdag_offload_report;

typedef enum ompdag_offload_device_kind {
    OMPDAG_DEVICE_CPU = 0,  /* a CPU worker thread */
    OMPDAG_DEVICE_GPU_HOST, /* a GPU's dedicated host thread computing CPU chunks */
    OMPDAG_DEVICE_GPU,      /* a CUDA device */
    OMPDAG_DEVICE_SIM_GPU   /* a simulated GPU */
} ompdag_offload_device_kind;

typedef struct ompdag_offload_device_stats {
    const char *name; /* "cpu0", "gpu0", "gpu0-host", ...; borrowed from the report */
    ompdag_offload_device_kind kind;
    int64_t iterations;           /* iterations this device completed */
    int64_t chunks;               /* chunks it completed */
    int64_t profiling_iterations; /* of which during dtsa's profiling phase */
    int64_t given_back;           /* host threads: iterations put back unfinished */
    double busy_s;                /* time spent computing (GPUs: launch to completion) */
    double profiling_s;           /* of which during the profiling phase */
    double finish_s;              /* when its last chunk ended, from the start */
    double rate;                  /* iterations/s the policy used (0 = never measured) */
    bool refused;                 /* a GPU the policy stopped giving chunks (starvation rule) */
} ompdag_offload_device_stats;

typedef enum ompdag_offload_phase {
    OMPDAG_PHASE_PROFILING = 0, /* dtsa's profiling chunk */
    OMPDAG_PHASE_WEIGHTED,      /* rate-weighted (or a baseline's ordinary) chunk */
    OMPDAG_PHASE_TAIL           /* dtsa's guided self-scheduling tail */
} ompdag_offload_phase;

typedef struct ompdag_offload_chunk {
    int device;         /* row in the report */
    int64_t begin, end; /* dispatched range */
    int64_t done;       /* iterations completed (host blocks may return some) */
    ompdag_offload_phase phase;
    double start_s, end_s; /* from the start of the region */
} ompdag_offload_chunk;

/* Runs cpu_body / gpu_body over [0, n) under opts (NULL = defaults).  Every
 * iteration runs exactly once.  gpu_body may be NULL: CUDA devices are then
 * not used (simulated GPUs still are, running sim_body or cpu_body).  On
 * success and when report is not NULL, *report owns a new report the caller
 * frees with ompdag_offload_report_destroy().  n == 0 runs nothing. */
ompdag_status ompdag_offload_for(int64_t n, ompdag_offload_cpu_fn cpu_body,
                                 ompdag_offload_gpu_fn gpu_body, void *ctx,
                                 const ompdag_offload_opts *opts, ompdag_offload_report **report,
                                 ompdag_error *err);

/* Frees a report.  NULL is a no-op. */
void ompdag_offload_report_destroy(ompdag_offload_report *report);

/* The policy that ran, n, wall time of the region, the share of the wall
 * time spent in dtsa's profiling phase (0 for the others), the iterations
 * dispatched while profiling, and the imbalance: last device finish minus
 * first device finish, over devices that ran a chunk. */
ompdag_offload_policy ompdag_offload_report_policy(const ompdag_offload_report *report);
int64_t ompdag_offload_report_n(const ompdag_offload_report *report);
double ompdag_offload_report_wall_s(const ompdag_offload_report *report);
double ompdag_offload_report_profiling_share(const ompdag_offload_report *report);
int64_t ompdag_offload_report_profiled(const ompdag_offload_report *report);
double ompdag_offload_report_imbalance_s(const ompdag_offload_report *report);

/* Number of device rows, and row i (0 <= i < count); name is borrowed. */
int ompdag_offload_report_devices(const ompdag_offload_report *report);
ompdag_status ompdag_offload_report_device(const ompdag_offload_report *report, int i,
                                           ompdag_offload_device_stats *out, ompdag_error *err);

/* Chunk log (empty unless opts.log_chunks), in dispatch order. */
int64_t ompdag_offload_report_chunks(const ompdag_offload_report *report);
ompdag_status ompdag_offload_report_chunk(const ompdag_offload_report *report, int64_t i,
                                          ompdag_offload_chunk *out, ompdag_error *err);

/* The GPUs' share of the measured throughput (ΣVi over all rates): the
 * ratio a Qilin-like static run measured beforehand.  0 with no GPU. */
double ompdag_offload_report_gpu_share(const ompdag_offload_report *report);

/* Writes the report as a table (json false) or one JSON object. */
ompdag_status ompdag_offload_report_write(const ompdag_offload_report *report, FILE *out, bool json,
                                          ompdag_error *err);

/* ---- resources (DISPAR StreamMAP, one machine) ---------------------------- */

typedef struct ompdag_resources ompdag_resources;

typedef struct ompdag_cpu_topology {
    int packages, numa_nodes, cores, pus;
    int caches;                            /* number of cache objects, all levels */
    int64_t l1d_bytes, l2_bytes, l3_bytes; /* size of one cache of that level, 0 = none */
    int64_t memory_bytes;                  /* total machine memory, 0 = unknown */
    bool from_hwloc;                       /* false: counted with sysconf (no hwloc) */
} ompdag_cpu_topology;

typedef struct ompdag_gpu_info {
    char name[256];
    int sms;                /* streaming multiprocessors */
    int cc_major, cc_minor; /* compute capability */
    int64_t memory_bytes;
} ompdag_gpu_info;

/* Discovers the CPU topology and the CUDA devices.  *out owns a new table the
 * caller frees with ompdag_resources_destroy().  No GPU (or a build without
 * CUDA) gives zero GPUs and OMPDAG_OK; why the count is zero is kept in
 * ompdag_resources_gpu_note(). */
ompdag_status ompdag_resources_discover(ompdag_resources **out, ompdag_error *err);
void ompdag_resources_destroy(ompdag_resources *res);

/* Borrowed views into the table. */
const ompdag_cpu_topology *ompdag_resources_cpu(const ompdag_resources *res);
int ompdag_resources_gpus(const ompdag_resources *res);
const ompdag_gpu_info *ompdag_resources_gpu(const ompdag_resources *res, int i);
const char *ompdag_resources_gpu_note(const ompdag_resources *res); /* "" when GPUs were found */

/* Writes the table as text or as one JSON object. */
ompdag_status ompdag_resources_write(const ompdag_resources *res, FILE *out, bool json,
                                     ompdag_error *err);

/* ---- greedy mapping of regions (DISPAR StreamMAP) ------------------------ */

typedef enum ompdag_region_class {
    OMPDAG_REGION_CO = 0, /* CPU only */
    OMPDAG_REGION_CG      /* CPU+GPU: launches a kernel, calls ompdag_offload_for with a
                             GPU body, or carries #pragma ompdag resource(gpu) */
} ompdag_region_class;

typedef struct ompdag_map_region {
    const char *name; /* borrowed */
    ompdag_region_class cls;
    double load; /* e.g. its WCET; must be >= 0 */
} ompdag_map_region;

typedef struct ompdag_map_resource {
    const char *name;         /* borrowed */
    ompdag_region_class kind; /* CG: has a GPU; CO: CPUs only */
    double capacity;          /* relative speed, > 0 (e.g. cores, or SMs) */
} ompdag_map_resource;

/* Builds the mapping targets of a discovered machine: one CO resource per
 * NUMA node (capacity = its share of the cores) and one CG resource per GPU
 * (capacity 1 each).  *out is a new array of *count entries whose names point
 * into res; free the array with free(), and keep res alive while it is used. */
ompdag_status ompdag_resources_map_targets(const ompdag_resources *res, ompdag_map_resource **out,
                                           int *count, ompdag_error *err);

/* Maps regions to resources greedily (Sheng et al. 2015): regions are visited in
 * breadth-first order from the sources of the edge list (from -> to pairs,
 * edges[2k] -> edges[2k+1]); a CG region takes a CG resource only, a CO
 * region either kind; a resource already holding an adjacent region is
 * preferred while its load stays within its capacity's share of the total
 * load; otherwise the least-loaded resource (load / capacity) is taken, ties
 * to the lower index.  assign[r] receives the resource index of region r.
 * OMPDAG_ERR_UNSUPPORTED when a CG region has no CG resource. */
ompdag_status ompdag_map_regions(const ompdag_map_region *regions, int nregions,
                                 const int32_t *edges, int nedges,
                                 const ompdag_map_resource *resources, int nresources,
                                 int32_t *assign, ompdag_error *err);

/* Writes a mapping file (JSON: regions with class, load and resource; and
 * resources with their total load) atomically to path ("-" = stdout). */
ompdag_status ompdag_map_write(const char *path, const ompdag_map_region *regions, int nregions,
                               const ompdag_map_resource *resources, int nresources,
                               const int32_t *assign, ompdag_error *err);

#ifdef __cplusplus
}
#endif
#endif
