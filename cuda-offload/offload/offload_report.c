/*
 * offload_report.c — the report of one ompdag_offload_for() call: its
 * accessors and its text/JSON writer, read by callers and by the probe hook
 * (probe_hook.c); runtime.c fills it.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "offload_internal.h"

void ompdag_offload_report_destroy(ompdag_offload_report *r)
{
    if (!r) return;
    free(r->dev);
    free(r->names);
    free(r->chunks);
    free(r);
}

ompdag_offload_policy ompdag_offload_report_policy(const ompdag_offload_report *r)
{
    return r->policy;
}

int64_t ompdag_offload_report_n(const ompdag_offload_report *r)
{
    return r->n;
}
double ompdag_offload_report_wall_s(const ompdag_offload_report *r)
{
    return r->wall_s;
}
int64_t ompdag_offload_report_profiled(const ompdag_offload_report *r)
{
    return r->profiled;
}

double ompdag_offload_report_profiling_share(const ompdag_offload_report *r)
{
    return r->wall_s > 0 ? r->profiling_s / r->wall_s : 0;
}

double ompdag_offload_report_imbalance_s(const ompdag_offload_report *r)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int d = 0; d < r->ndev; ++d) {
        if (r->dev[d].iterations == 0) continue;
        if (r->dev[d].finish_s < lo) lo = r->dev[d].finish_s;
        if (r->dev[d].finish_s > hi) hi = r->dev[d].finish_s;
    }
    return hi >= lo ? hi - lo : 0;
}

int ompdag_offload_report_devices(const ompdag_offload_report *r)
{
    return r->ndev;
}

ompdag_status ompdag_offload_report_device(const ompdag_offload_report *r, int i,
                                           ompdag_offload_device_stats *out, ompdag_error *err)
{
    if (i < 0 || i >= r->ndev)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "offload report: no device %d", i);
    *out = r->dev[i];
    return OMPDAG_OK;
}

int64_t ompdag_offload_report_chunks(const ompdag_offload_report *r)
{
    return r->nchunks;
}

ompdag_status ompdag_offload_report_chunk(const ompdag_offload_report *r, int64_t i,
                                          ompdag_offload_chunk *out, ompdag_error *err)
{
    if (i < 0 || i >= r->nchunks)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "offload report: no chunk %" PRId64, i);
    *out = r->chunks[i];
    return OMPDAG_OK;
}

double ompdag_offload_report_gpu_share(const ompdag_offload_report *r)
{
    double gpu = 0, all = 0;
    for (int d = 0; d < r->ndev; ++d) {
        const ompdag_offload_device_stats *v = &r->dev[d];
        if (v->iterations == 0 && v->rate <= 0) continue;
        all += v->rate;
        if (v->kind == OMPDAG_DEVICE_GPU || v->kind == OMPDAG_DEVICE_SIM_GPU) gpu += v->rate;
    }
    return all > 0 ? gpu / all : 0;
}

static const char *kind_name(ompdag_offload_device_kind k)
{
    switch (k) {
    case OMPDAG_DEVICE_CPU:
        return "cpu";
    case OMPDAG_DEVICE_GPU_HOST:
        return "gpu-host";
    case OMPDAG_DEVICE_GPU:
        return "gpu";
    case OMPDAG_DEVICE_SIM_GPU:
        return "sim-gpu";
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
                    v->profiling_iterations, v->given_back, v->busy_s, v->profiling_s, v->finish_s,
                    v->rate, v->refused ? "true" : "false");
        }
        fprintf(out, "]}\n");
    } else {
        fprintf(out,
                "policy %s, n = %" PRId64 ", wall %.6f s, profiling %.1f%% (%" PRId64
                " iterations), imbalance %.6f s\n",
                ompdag_offload_policy_name(r->policy), r->n, r->wall_s,
                100 * ompdag_offload_report_profiling_share(r), r->profiled,
                ompdag_offload_report_imbalance_s(r));
        fprintf(out, "%-12s %-9s %12s %8s %10s %10s %10s %12s %s\n", "device", "kind", "iterations",
                "chunks", "busy_s", "prof_s", "finish_s", "rate/s", "notes");
        for (int d = 0; d < r->ndev; ++d) {
            const ompdag_offload_device_stats *v = &r->dev[d];
            char notes[64] = "";
            if (v->given_back) snprintf(notes, sizeof notes, "gave back %" PRId64, v->given_back);
            if (v->refused) snprintf(notes, sizeof notes, "refused (starvation rule)");
            fprintf(out, "%-12s %-9s %12" PRId64 " %8" PRId64 " %10.6f %10.6f %10.6f %12.4g %s\n",
                    v->name, kind_name(v->kind), v->iterations, v->chunks, v->busy_s,
                    v->profiling_s, v->finish_s, v->rate, notes);
        }
    }
    if (ferror(out)) return ompdag_error_set(err, OMPDAG_ERR_IO, "offload report: write failed");
    return OMPDAG_OK;
}
