/*
 * kernels_gpu.cu — CUDA bodies of nbody, hotspot and kmeans (kernels_gpu.h)
 * for the region runtime (seed 000: DTSA and its baselines on CPU + GPU).
 * One thread per iteration runs kernels_one.h, the code the CPU bodies of
 * kernels.c loop over; compiled with -fmad=false so no multiply-add is fused
 * and the GPU gives the CPU's bits.  What every chunk reads is copied once
 * at open; a chunk copies only its own inputs and outputs, on the runtime's
 * stream, so the transfers are part of the chunk time.
 * Built when nvcc is found; not run on this project's GPU-less build machine
 * (docs/offload.md says what awaits a GPU).
 */
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "kernels_gpu.h"
#include "kernels_one.h"

struct kern_gpu {
    kern_gpu_kind kind;
    int device;
    float *in0, *in1; /* nbody: pos; hotspot: temp, power; kmeans: centres, points */
    float *out;       /* nbody: acc; hotspot: out */
    int32_t *member;  /* kmeans */
    void *pinned[3];  /* host arrays registered as page-locked (unregistered at close) */
};

namespace
{

const int kThreads = 256;

__global__ void k_nbody(int64_t b, int64_t e, int64_t n, const float *pos, float *acc)
{
    const int64_t i = b + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < e) kern_nbody_one(n, pos, acc, i);
}

__global__ void k_hotspot(int64_t b, int64_t e, int64_t rows, int64_t cols, const float *temp,
                          const float *power, float *out)
{
    const int64_t i = b + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < e) kern_hotspot_one(rows, cols, temp, power, out, i);
}

__global__ void k_kmeans(int64_t b, int64_t e, int k, int d, const float *points,
                         const float *centres, int32_t *member)
{
    const int64_t i = b + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < e) member[i] = kern_kmeans_one(k, d, points, centres, i);
}

unsigned blocks_for(int64_t count)
{
    return (unsigned)((count + kThreads - 1) / kThreads);
}

cudaError_t upload(float **dst, const float *src, int64_t count)
{
    cudaError_t e = cudaMalloc((void **)dst, sizeof(float) * (size_t)(count > 0 ? count : 1));
    if (e == cudaSuccess && count > 0)
        e = cudaMemcpy(*dst, src, sizeof(float) * (size_t)count, cudaMemcpyHostToDevice);
    return e;
}

/* Page-locks a host array for asynchronous copies; a failure only costs speed. */
void pin(kern_gpu *g, int slot, const void *p, size_t bytes)
{
    if (p && bytes &&
        cudaHostRegister(const_cast<void *>(p), bytes, cudaHostRegisterDefault) == cudaSuccess)
        g->pinned[slot] = const_cast<void *>(p);
    else
        (void)cudaGetLastError();
}

cudaError_t open_on(kern_gpu *g, const kern_region *r)
{
    cudaError_t e = cudaSetDevice(g->device);
    if (e != cudaSuccess) return e;
    switch (g->kind) {
    case KERN_GPU_NBODY: {
        const kern_nbody &k = r->k.nbody;
        if ((e = upload(&g->in0, k.pos, 4 * k.n))) return e;
        if ((e = cudaMalloc((void **)&g->out, sizeof(float) * (size_t)(3 * k.n + 1)))) return e;
        pin(g, 0, k.acc, sizeof(float) * (size_t)(3 * k.n));
        return cudaSuccess;
    }
    case KERN_GPU_HOTSPOT: {
        const kern_hotspot &k = r->k.hotspot;
        const int64_t n = k.rows * k.cols;
        if ((e = upload(&g->in0, k.temp, n)) || (e = upload(&g->in1, k.power, n))) return e;
        if ((e = cudaMalloc((void **)&g->out, sizeof(float) * (size_t)(n + 1)))) return e;
        pin(g, 0, k.out, sizeof(float) * (size_t)n);
        return cudaSuccess;
    }
    case KERN_GPU_KMEANS: {
        const kern_kmeans &k = r->k.kmeans;
        if ((e = upload(&g->in0, k.centres, (int64_t)k.k * k.d))) return e;
        if ((e = cudaMalloc((void **)&g->in1, sizeof(float) * (size_t)(k.n * k.d + 1)))) return e;
        if ((e = cudaMalloc((void **)&g->member, sizeof(int32_t) * (size_t)(k.n + 1)))) return e;
        pin(g, 0, k.points, sizeof(float) * (size_t)(k.n * k.d));
        pin(g, 1, k.member, sizeof(int32_t) * (size_t)k.n);
        return cudaSuccess;
    }
    }
    return cudaErrorInvalidValue;
}

} // namespace

extern "C" void (*kern_cpu_body(kern_gpu_kind kind))(int64_t, int64_t, void *)
{
    return kind == KERN_GPU_NBODY     ? kern_nbody_body
           : kind == KERN_GPU_HOTSPOT ? kern_hotspot_body
                                      : kern_kmeans_body;
}

extern "C" void kern_gpu_close(kern_gpu *g)
{
    if (!g) return;
    cudaSetDevice(g->device);
    cudaDeviceSynchronize();
    for (void *p : g->pinned)
        if (p) cudaHostUnregister(p);
    void *bufs[] = {g->in0, g->in1, g->out, g->member};
    for (void *b : bufs)
        if (b) cudaFree(b);
    free(g);
}

extern "C" kern_gpu *kern_gpu_open(kern_gpu_kind kind, const kern_region *r, int device, char *why,
                                   size_t why_size)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count <= device) {
        if (why && why_size)
            snprintf(why, why_size, "no CUDA device %d (%s)", device,
                     e != cudaSuccess ? cudaGetErrorString(e) : "fewer devices");
        (void)cudaGetLastError();
        return nullptr;
    }
    kern_gpu *g = static_cast<kern_gpu *>(calloc(1, sizeof *g));
    if (!g) {
        if (why && why_size) snprintf(why, why_size, "out of memory");
        return nullptr;
    }
    g->kind = kind;
    g->device = device;
    if ((e = open_on(g, r)) != cudaSuccess) {
        if (why && why_size)
            snprintf(why, why_size, "CUDA device %d: %s", device, cudaGetErrorString(e));
        kern_gpu_close(g);
        return nullptr;
    }
    return g;
}

extern "C" void kern_gpu_body(int64_t b, int64_t e, void *ctx, void *stream)
{
    kern_region *r = static_cast<kern_region *>(ctx);
    kern_gpu *g = r->gpu;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (e <= b) return;
    switch (g->kind) {
    case KERN_GPU_NBODY: {
        const kern_nbody &k = r->k.nbody;
        k_nbody<<<blocks_for(e - b), kThreads, 0, s>>>(b, e, k.n, g->in0, g->out);
        cudaMemcpyAsync(k.acc + 3 * b, g->out + 3 * b, sizeof(float) * (size_t)(3 * (e - b)),
                        cudaMemcpyDeviceToHost, s);
        break;
    }
    case KERN_GPU_HOTSPOT: {
        const kern_hotspot &k = r->k.hotspot;
        k_hotspot<<<blocks_for(e - b), kThreads, 0, s>>>(b, e, k.rows, k.cols, g->in0, g->in1,
                                                         g->out);
        cudaMemcpyAsync(k.out + b, g->out + b, sizeof(float) * (size_t)(e - b),
                        cudaMemcpyDeviceToHost, s);
        break;
    }
    case KERN_GPU_KMEANS: {
        const kern_kmeans &k = r->k.kmeans;
        cudaMemcpyAsync(g->in1 + b * k.d, k.points + b * k.d,
                        sizeof(float) * (size_t)((e - b) * k.d), cudaMemcpyHostToDevice, s);
        k_kmeans<<<blocks_for(e - b), kThreads, 0, s>>>(b, e, k.k, k.d, g->in1, g->in0, g->member);
        cudaMemcpyAsync(k.member + b, g->member + b, sizeof(int32_t) * (size_t)(e - b),
                        cudaMemcpyDeviceToHost, s);
        break;
    }
    }
}
