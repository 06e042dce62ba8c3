/*
 * offload.c — the region runtime's entry: ompdag_offload_for() builds the
 * device list (CUDA devices, then simulated GPUs), runs the loop
 * (runtime.c) and hands the report to the probe (probe_hook.c).  Options
 * and policy names are in offload_opts.c, the report in offload_report.c.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "offload_internal.h"

ompdag_status ompdag_offload_for(int64_t n, ompdag_offload_cpu_fn cpu_body,
                                 ompdag_offload_gpu_fn gpu_body, void *ctx,
                                 const ompdag_offload_opts *opts_in,
                                 ompdag_offload_report **report, ompdag_error *err)
{
    if (report)
        *report = NULL;
    ompdag_offload_opts opts;
    if (opts_in)
        opts = *opts_in;
    else
        ompdag_offload_opts_init(&opts);
    if (opts.sim_gpus < 0 || opts.sim_gpus > 16)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "offload: sim_gpus = %d (0..16)",
                                opts.sim_gpus);
    int ncuda = 0;
#ifdef OMPDAG_HAVE_CUDA
    if (gpu_body && opts.cuda_devices != 0) {
        ncuda = off_cuda_count();
        if (opts.cuda_devices > 0 && opts.cuda_devices < ncuda)
            ncuda = opts.cuda_devices;
    }
#else
    (void)gpu_body;
#endif
    int ngpus = ncuda + opts.sim_gpus;
    off_gpu **gpus = calloc((size_t)(ngpus > 0 ? ngpus : 1), sizeof *gpus);
    if (!gpus)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "offload: out of memory");
    ompdag_status st = OMPDAG_OK;
    int made = 0;
    for (int g = 0; g < ngpus && st == OMPDAG_OK; ++g, ++made) {
        char name[32];
        if (g < ncuda) {
            snprintf(name, sizeof name, "gpu%d", g);
#ifdef OMPDAG_HAVE_CUDA
            st = off_gpu_cuda_create(g, gpu_body, ctx, name, &gpus[g], err);
#endif
        } else {
            snprintf(name, sizeof name, "simgpu%d", g - ncuda);
            st = off_gpu_sim_create(opts.sim_body ? opts.sim_body : cpu_body, ctx,
                                    opts.sim_speed, opts.sim_latency_s, name, &gpus[g], err);
        }
        if (st != OMPDAG_OK)
            break;
    }
    /* The probe needs the per-device figures even when the caller does not. */
    ompdag_offload_report *own = NULL;
    if (st == OMPDAG_OK)
        st = off_run(n, cpu_body, ctx, &opts, gpus, ngpus, report ? report : &own, err);
    if (st == OMPDAG_OK)
        off_probe_report(report ? *report : own);
    ompdag_offload_report_destroy(own);
    for (int g = 0; g < made; ++g)
        if (gpus[g])
            gpus[g]->ops->destroy(gpus[g]);
    free(gpus);
    return st;
}

