/*
 * ompdag/condag_gpu.h — the exact bound of many con-DAGs at once, evaluated
 * level-synchronously: nodes are grouped by height (longest distance to a
 * node with no successor), and each level is one data-parallel step in which
 * every node of every graph at that height applies the per-node recurrence
 * of ompdag/exact_kernel.h.  On the GPU one level is one kernel launch over
 * all graphs of the batch; `gpu-sim` runs the same per-thread code block by
 * block on the CPU; `cpu` runs the library's exact algorithm graph by graph.
 * All three give identical integers.
 */
#ifndef OMPDAG_CONDAG_GPU_H
#define OMPDAG_CONDAG_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "ompdag/condag.h"
#include "ompdag/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ompdag_eval_device {
    OMPDAG_EVAL_CPU = 0,           /* ompdag_rta_run(exact) per graph */
    OMPDAG_EVAL_GPU_SIM = 1,       /* the GPU kernel's per-thread code, run on the host */
    OMPDAG_EVAL_GPU = 2,           /* CUDA; fails clearly without a device or without CUDA */
    OMPDAG_EVAL_CPU_PAR = 3,       /* ompdag_rta_run(exact) per graph, graphs spread over OpenMP
                                      threads: the multi-core baseline, and what a GPU-less
                                      machine uses */
    OMPDAG_EVAL_GPU_GRAPHS = 4,    /* CUDA, the per-graph design: each graph's own arrays
                                      copied in bulk, one thread per graph walks its
                                      topological order; one launch, no heights */
    OMPDAG_EVAL_GPU_SIM_GRAPHS = 5 /* that kernel's per-thread code, run on the host */
} ompdag_eval_device;

/* Parses "cpu", "gpu-sim", "gpu", "cpu-par", "gpu-graphs" or "gpu-sim-graphs";
 * false otherwise. */
bool ompdag_eval_device_parse(const char *name, ompdag_eval_device *out);
const char *ompdag_eval_device_name(ompdag_eval_device d);

/* Computes m·R (exact, no migration overhead, no witness) of graphs[0..count)
 * into bound_times_m[0..count) (caller-owned).  Dispatch delays are folded
 * into the WCETs on every device (ompdag_rta_options.fold_delays: sound, at or
 * above the chain-only figure of ompdag_rta_run).  Graphs must be finalized; they
 * are only read.  Fails with OMPDAG_ERR_OVERFLOW, naming the graph, when 2m
 * times a graph's total WCET does not fit in int64, and with
 * OMPDAG_ERR_UNSUPPORTED when the GPU cannot be used (no CUDA build, no
 * device), saying why. */
ompdag_status ompdag_exact_batch(const ompdag_condag *const *graphs, size_t count, int32_t m,
                                 ompdag_eval_device device, int64_t *bound_times_m,
                                 ompdag_error *err);

/* What one batch evaluation cost.  gpu: counted as it ran (device time from
 * CUDA events); gpu-sim: what the GPU design does for this batch (one packed
 * upload, one launch per global height level plus one gather launch, one
 * host synchronisation: the download of the m·R values), host time for the
 * rest; cpu / cpu-par: prepare and the counts stay 0. */
typedef struct ompdag_batch_stats {
    int64_t levels;          /* global height levels (the deepest graph's) */
    int64_t nodes, edges;    /* of the flattened batch */
    int64_t launches;        /* kernel launches */
    int64_t host_syncs;      /* times the host waited for the device */
    int64_t uploads;         /* host-to-device copies */
    int64_t bytes_up;        /* bytes copied host to device */
    int64_t bytes_down;      /* bytes copied device to host */
    double prepare_seconds;  /* host: flatten, heights, bucketing (OpenMP over graphs) */
    double evaluate_seconds; /* upload + levels + download (gpu), or the simulation */
    double total_seconds;    /* the whole call */
} ompdag_batch_stats;

/* ompdag_exact_batch, also filling *stats (caller-owned; may be NULL). */
ompdag_status ompdag_exact_batch_stats(const ompdag_condag *const *graphs, size_t count, int32_t m,
                                       ompdag_eval_device device, int64_t *bound_times_m,
                                       ompdag_batch_stats *stats, ompdag_error *err);

#ifdef __cplusplus
}
#endif
#endif
