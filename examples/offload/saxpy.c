/*
 * examples/offload/saxpy.c — a data-parallel region run with
 * ompdag_offload_for(): y = a·x + y0 over n elements on every CPU core and
 * every CUDA GPU (when built with CUDA; saxpy_gpu.cu holds the GPU body),
 * plus optional simulated GPUs.  The result is checked against a serial loop
 * and the per-device report is printed.
 *
 *   offload_saxpy [N] [--policy dtsa|static|gss|dss] [--sim-gpus K] [--json]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "ompdag/offload.h"

#ifdef OMPDAG_EXAMPLE_CUDA
/* saxpy_gpu.cu: device buffers for the whole vectors, and the GPU body. */
void *saxpy_gpu_open(const kern_saxpy *k);
void saxpy_gpu_close(void *gpu);
void saxpy_gpu_body(int64_t begin, int64_t end, void *ctx, void *stream);
#endif

typedef struct saxpy_region {
    kern_saxpy k; /* first: the CPU body reads it */
    void *gpu;
} saxpy_region;

int main(int argc, char **argv)
{
    int64_t n = 1 << 22;
    ompdag_offload_opts o;
    ompdag_offload_opts_init(&o);
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        ompdag_error err = {0};
        if (!strcmp(argv[i], "--policy") && i + 1 < argc) {
            if (ompdag_offload_policy_parse(argv[++i], &o.policy, &err) != OMPDAG_OK) {
                fprintf(stderr, "offload_saxpy: %s\n", err.message);
                return 2;
            }
        } else if (!strcmp(argv[i], "--sim-gpus") && i + 1 < argc) {
            o.sim_gpus = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (atoll(argv[i]) > 0) {
            n = atoll(argv[i]);
        } else {
            fprintf(stderr, "usage: offload_saxpy [N] [--policy P] [--sim-gpus K] [--json]\n");
            return 2;
        }
    }
    float *x = malloc((size_t)n * sizeof *x), *y0 = malloc((size_t)n * sizeof *y0);
    float *y = malloc((size_t)n * sizeof *y), *ref = malloc((size_t)n * sizeof *ref);
    if (!x || !y0 || !y || !ref) {
        fprintf(stderr, "offload_saxpy: out of memory\n");
        return 1;
    }
    kern_fill(x, n, 1, -1, 1);
    kern_fill(y0, n, 2, -1, 1);
    saxpy_region r = {.k = {n, 2.0f, x, y0, ref}};
    kern_saxpy_body(0, n, &r.k); /* the serial reference */
    r.k.y = y;

    ompdag_offload_gpu_fn gpu_body = NULL;
#ifdef OMPDAG_EXAMPLE_CUDA
    r.gpu = saxpy_gpu_open(&r.k);
    if (r.gpu)
        gpu_body = saxpy_gpu_body;
#endif
    ompdag_offload_report *rep = NULL;
    ompdag_error err = {0};
    ompdag_status st = ompdag_offload_for(n, kern_saxpy_body, gpu_body, &r, &o, &rep, &err);
#ifdef OMPDAG_EXAMPLE_CUDA
    if (r.gpu)
        saxpy_gpu_close(r.gpu);
#endif
    if (st != OMPDAG_OK) {
        fprintf(stderr, "offload_saxpy: %s\n", err.message);
        return 1;
    }
    ompdag_offload_report_write(rep, stdout, json, NULL);
    ompdag_offload_report_destroy(rep);
    int bad = memcmp(y, ref, (size_t)n * sizeof *y) != 0;
    fprintf(stderr, "offload_saxpy: n = %lld, result %s the serial loop\n", (long long)n,
            bad ? "DIFFERS from" : "is bit-identical to");
    free(x), free(y0), free(y), free(ref);
    return bad;
}
