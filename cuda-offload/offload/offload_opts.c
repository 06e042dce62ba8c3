/*
 * offload_opts.c — the region runtime's options and policy names
 * (ompdag_offload_opts_init, ompdag_offload_policy_name/_parse), shared by
 * the entry (offload.c) and the runtime loop (runtime.c).
 */
#include <string.h>

#include "offload_internal.h"

static const char *const policy_names[OMPDAG_OFFLOAD_POLICY_COUNT] = {"dtsa", "static", "gss",
                                                                      "dss"};

const char *ompdag_offload_policy_name(ompdag_offload_policy policy)
{
    if ((int)policy < 0 || policy >= OMPDAG_OFFLOAD_POLICY_COUNT) return "unknown";
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
