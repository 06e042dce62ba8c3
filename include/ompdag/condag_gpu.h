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
    OMPDAG_EVAL_CPU = 0,     /* ompdag_rta_run(exact) per graph */
    OMPDAG_EVAL_GPU_SIM = 1, /* the GPU kernel's per-thread code, run on the host */
    OMPDAG_EVAL_GPU = 2,     /* CUDA; fails clearly without a device or without CUDA */
    OMPDAG_EVAL_CPU_PAR = 3  /* ompdag_rta_run(exact) per graph, graphs spread over OpenMP
                                threads: the multi-core baseline, and what a GPU-less
                                machine uses */
} ompdag_eval_device;

/* Parses "cpu", "gpu-sim", "gpu" or "cpu-par"; false otherwise. */
bool ompdag_eval_device_parse(const char *name, ompdag_eval_device *out);
const char *ompdag_eval_device_name(ompdag_eval_device d);

/* Computes m·R (exact, no migration overhead, no witness) of graphs[0..count)
 * into bound_times_m[0..count) (caller-owned).  Graphs must be finalized; they
 * are only read.  Fails with OMPDAG_ERR_OVERFLOW, naming the graph, when 2m
 * times a graph's total WCET does not fit in int64, and with
 * OMPDAG_ERR_UNSUPPORTED when the GPU cannot be used (no CUDA build, no
 * device), saying why. */
ompdag_status ompdag_exact_batch(const ompdag_condag *const *graphs, size_t count, int32_t m,
                                 ompdag_eval_device device, int64_t *bound_times_m,
                                 ompdag_error *err);

#ifdef __cplusplus
}
#endif
#endif
