/*
 * offload.c — the public face of the region runtime: options, policy names,
 * the device list of ompdag_offload_for() (CUDA devices, then simulated
 * GPUs), and the report's accessors and writers.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "offload_internal.h"

static const char *const policy_names[OMPDAG_OFFLOAD_POLICY_COUNT] = {"dtsa", "static", "gss",
                                                                      "dss"};

const char *ompdag_offload_policy_name(ompdag_offload_policy policy)
{
    if ((int)policy < 0 || policy >= OMPDAG_OFFLOAD_POLICY_COUNT)
        return "unknown";
    return policy_names[policy];
}

ompdag_status ompdag_offload_policy_parse(const char *name, ompdag_offload_policy *out,
                                          ompdag_error *err)
{
    for (int p = 0; name && p < OMPDAG_OFFLOAD_POLICY_COUNT; ++p)
        if (strcmp(name, policy_names[p]) == 0) {
            *out = (ompdag_offload_policy)p;
            return OMPDAG_OK;
        }
    return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                            "unknown offload policy '%s' (dtsa, static, gss, dss)",
                            name ? name : "(null)");
}

void ompdag_offload_opts_init(ompdag_offload_opts *o)
{
    *o = (ompdag_offload_opts){
        .policy = OMPDAG_OFFLOAD_DTSA,
        .cpu_threads = -1,
        .cuda_devices = -1,
        .sim_gpus = 0,
        .sim_speed = 4.0,
        .sim_latency_s = 20e-6,
        .sim_body = NULL,
        .initial_chunk = 0,
        .rate_epsilon = 0.05,
        .profile_cap = 0.20,
        .min_chunk = 1,
        .gpu_quantum = 1,
        .sub_chunks = 8,
        .static_gpu_share = -1,
        .log_chunks = true,
    };
}

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

/* ---- the report ---- */

void ompdag_offload_report_destroy(ompdag_offload_report *r)
{
    if (!r)
        return;
    free(r->dev);
    free(r->names);
    free(r->chunks);
    free(r);
}

ompdag_offload_policy ompdag_offload_report_policy(const ompdag_offload_report *r)
{
    return r->policy;
}

int64_t ompdag_offload_report_n(const ompdag_offload_report *r) { return r->n; }
double ompdag_offload_report_wall_s(const ompdag_offload_report *r) { return r->wall_s; }
int64_t ompdag_offload_report_profiled(const ompdag_offload_report *r) { return r->profiled; }

double ompdag_offload_report_profiling_share(const ompdag_offload_report *r)
{
    return r->wall_s > 0 ? r->profiling_s / r->wall_s : 0;
}

double ompdag_offload_report_imbalance_s(const ompdag_offload_report *r)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int d = 0; d < r->ndev; ++d) {
        if (r->dev[d].iterations == 0)
            continue;
        if (r->dev[d].finish_s < lo)
            lo = r->dev[d].finish_s;
        if (r->dev[d].finish_s > hi)
            hi = r->dev[d].finish_s;
    }
    return hi >= lo ? hi - lo : 0;
}

int ompdag_offload_report_devices(const ompdag_offload_report *r) { return r->ndev; }

ompdag_status ompdag_offload_report_device(const ompdag_offload_report *r, int i,
                                           ompdag_offload_device_stats *out, ompdag_error *err)
{
    if (i < 0 || i >= r->ndev)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "offload report: no device %d", i);
    *out = r->dev[i];
    return OMPDAG_OK;
}

int64_t ompdag_offload_report_chunks(const ompdag_offload_report *r) { return r->nchunks; }

ompdag_status ompdag_offload_report_chunk(const ompdag_offload_report *r, int64_t i,
                                          ompdag_offload_chunk *out, ompdag_error *err)
{
    if (i < 0 || i >= r->nchunks)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "offload report: no chunk %" PRId64,
                                i);
    *out = r->chunks[i];
    return OMPDAG_OK;
}

double ompdag_offload_report_gpu_share(const ompdag_offload_report *r)
{
    double gpu = 0, all = 0;
    for (int d = 0; d < r->ndev; ++d) {
        const ompdag_offload_device_stats *v = &r->dev[d];
        if (v->iterations == 0 && v->rate <= 0)
            continue;
        all += v->rate;
        if (v->kind == OMPDAG_DEVICE_GPU || v->kind == OMPDAG_DEVICE_SIM_GPU)
            gpu += v->rate;
    }
    return all > 0 ? gpu / all : 0;
}

static const char *kind_name(ompdag_offload_device_kind k)
{
    switch (k) {
    case OMPDAG_DEVICE_CPU: return "cpu";
    case OMPDAG_DEVICE_GPU_HOST: return "gpu-host";
    case OMPDAG_DEVICE_GPU: return "gpu";
    case OMPDAG_DEVICE_SIM_GPU: return "sim-gpu";
    }
    return "unknown";
}

ompdag_status ompdag_offload_report_write(const ompdag_offload_report *r, FILE *out, bool json,
                                          ompdag_error *err)
{
    if (json) {
        fprintf(out,
                "{\"policy\": \"%s\", \"n\": %" PRId64 ", \"wall_s\": %.9g, "
                "\"profiling_share\": %.6g, \"profiled_iterations\": %" PRId64
                ", \"imbalance_s\": %.9g, \"devices\": [",
                ompdag_offload_policy_name(r->policy), r->n, r->wall_s,
                ompdag_offload_report_profiling_share(r), r->profiled,
                ompdag_offload_report_imbalance_s(r));
        for (int d = 0; d < r->ndev; ++d) {
            const ompdag_offload_device_stats *v = &r->dev[d];
            fprintf(out,
                    "%s{\"name\": \"%s\", \"kind\": \"%s\", \"iterations\": %" PRId64
                    ", \"chunks\": %" PRId64 ", \"profiling_iterations\": %" PRId64
                    ", \"given_back\": %" PRId64 ", \"busy_s\": %.9g, \"profiling_s\": %.9g"
                    ", \"finish_s\": %.9g, \"rate\": %.9g, \"refused\": %s}",
                    d ? ", " : "", v->name, kind_name(v->kind), v->iterations, v->chunks,
                    v->profiling_iterations, v->given_back, v->busy_s, v->profiling_s,
                    v->finish_s, v->rate, v->refused ? "true" : "false");
        }
        fprintf(out, "]}\n");
    } else {
        fprintf(out,
                "policy %s, n = %" PRId64 ", wall %.6f s, profiling %.1f%% (%" PRId64
                " iterations), imbalance %.6f s\n",
                ompdag_offload_policy_name(r->policy), r->n, r->wall_s,
                100 * ompdag_offload_report_profiling_share(r), r->profiled,
                ompdag_offload_report_imbalance_s(r));
        fprintf(out, "%-12s %-9s %12s %8s %10s %10s %10s %12s %s\n", "device", "kind",
                "iterations", "chunks", "busy_s", "prof_s", "finish_s", "rate/s", "notes");
        for (int d = 0; d < r->ndev; ++d) {
            const ompdag_offload_device_stats *v = &r->dev[d];
            char notes[64] = "";
            if (v->given_back)
                snprintf(notes, sizeof notes, "gave back %" PRId64, v->given_back);
            if (v->refused)
                snprintf(notes, sizeof notes, "refused (starvation rule)");
            fprintf(out, "%-12s %-9s %12" PRId64 " %8" PRId64 " %10.6f %10.6f %10.6f %12.4g %s\n",
                    v->name, kind_name(v->kind), v->iterations, v->chunks, v->busy_s,
                    v->profiling_s, v->finish_s, v->rate, notes);
        }
    }
    if (ferror(out))
        return ompdag_error_set(err, OMPDAG_ERR_IO, "offload report: write failed");
    return OMPDAG_OK;
}
