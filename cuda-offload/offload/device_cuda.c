/*
 * device_cuda.c — CUDA devices behind the off_gpu interface, through the
 * CUDA runtime's C API (compiled only when CMake found CUDA).
 *
 * Each device gets a non-blocking stream and two events.  A launch records
 * `start`, calls the user's gpu_body (kernels and transfers enqueued on the
 * stream, as in seed 000 the transfers count in the chunk time) and records
 * `stop`; a poll is cudaEventQuery(stop), which never blocks, and the host
 * thread yields between polls (the seed's "yield" mode).  The device is put
 * in cudaDeviceScheduleYield mode too, for any synchronisation the body does.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "offload_internal.h"

typedef struct cuda_gpu {
    int device;
    ompdag_offload_gpu_fn body;
    void *ctx;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    double launched_s;
} cuda_gpu;

int off_cuda_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

const char *off_cuda_why_none(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return cudaGetErrorString(e);
    }
    return n == 0 ? "the CUDA runtime reports no device" : "";
}

bool off_cuda_info(int i, ompdag_gpu_info *out)
{
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    snprintf(out->name, sizeof out->name, "%s", p.name);
    out->sms = p.multiProcessorCount;
    out->cc_major = p.major;
    out->cc_minor = p.minor;
    out->memory_bytes = (int64_t)p.totalGlobalMem;
    return true;
}

static void cuda_launch(off_gpu *og, int64_t b, int64_t e)
{
    cuda_gpu *g = og->impl;
    cudaSetDevice(g->device);
    g->launched_s = ompdag_now_s();
    cudaEventRecord(g->start, g->stream);
    g->body(b, e, g->ctx, (void *)g->stream);
    cudaEventRecord(g->stop, g->stream);
}

static bool cuda_query(off_gpu *og, double *done_s)
{
    cuda_gpu *g = og->impl;
    cudaSetDevice(g->device);
    cudaError_t q = cudaEventQuery(g->stop);
    if (q == cudaErrorNotReady)
        return false;
    float ms = 0;
    if (q != cudaSuccess || cudaEventElapsedTime(&ms, g->start, g->stop) != cudaSuccess) {
        cudaError_t e = q != cudaSuccess ? q : cudaGetLastError();
        og->failure = cudaGetErrorString(e);
        *done_s = ompdag_now_s();
        return true;
    }
    *done_s = g->launched_s + 1e-3 * (double)ms;
    return true;
}

static void cuda_destroy(off_gpu *og)
{
    if (!og)
        return;
    cuda_gpu *g = og->impl;
    cudaSetDevice(g->device);
    cudaStreamSynchronize(g->stream);
    cudaEventDestroy(g->start);
    cudaEventDestroy(g->stop);
    cudaStreamDestroy(g->stream);
    free(g);
    free(og);
}

static const off_gpu_ops cuda_ops = {cuda_launch, cuda_query, cuda_destroy};

ompdag_status off_gpu_cuda_create(int device, ompdag_offload_gpu_fn body, void *ctx,
                                  const char *name, off_gpu **out, ompdag_error *err)
{
    *out = NULL;
    off_gpu *og = calloc(1, sizeof *og);
    cuda_gpu *g = calloc(1, sizeof *g);
    if (!og || !g) {
        free(og);
        free(g);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "offload: out of memory");
    }
    g->device = device;
    g->body = body;
    g->ctx = ctx;
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) {
        /* Fails harmlessly when the context already exists. */
        (void)cudaSetDeviceFlags(cudaDeviceScheduleYield);
        (void)cudaGetLastError();
        e = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking);
    }
    if (e == cudaSuccess)
        e = cudaEventCreate(&g->start);
    if (e == cudaSuccess)
        e = cudaEventCreate(&g->stop);
    if (e != cudaSuccess) {
        free(og);
        free(g);
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED, "offload: CUDA device %d: %s",
                                device, cudaGetErrorString(e));
    }
    og->ops = &cuda_ops;
    og->kind = OMPDAG_DEVICE_GPU;
    og->impl = g;
    snprintf(og->name, sizeof og->name, "%s", name ? name : "gpu");
    *out = og;
    return OMPDAG_OK;
}
