// examples/offload/saxpy_gpu.cu — the GPU body of saxpy.c.  Device buffers
// hold the whole vectors; each chunk copies its slice in, runs the kernel
// and copies the result out, all enqueued on the runtime's stream, so the
// transfers are timed with the chunk as in seed 000.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

#include "kernels.h"

struct saxpy_gpu {
    float *x, *y0, *y;
};

__global__ void saxpy_kernel(int64_t b, int64_t e, float a, const float *x, const float *y0,
                             float *y)
{
    int64_t i = b + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < e)
        y[i] = a * x[i] + y0[i];
}

extern "C" void *saxpy_gpu_open(const kern_saxpy *k)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        cudaGetLastError();
        return NULL;
    }
    saxpy_gpu *g = (saxpy_gpu *)calloc(1, sizeof *g);
    size_t bytes = (size_t)k->n * sizeof(float);
    if (!g || cudaMalloc(&g->x, bytes) != cudaSuccess || cudaMalloc(&g->y0, bytes) != cudaSuccess ||
        cudaMalloc(&g->y, bytes) != cudaSuccess) {
        if (g) {
            cudaFree(g->x);
            cudaFree(g->y0);
            free(g);
        }
        return NULL;
    }
    return g;
}

extern "C" void saxpy_gpu_close(void *p)
{
    saxpy_gpu *g = (saxpy_gpu *)p;
    cudaDeviceSynchronize();
    cudaFree(g->x);
    cudaFree(g->y0);
    cudaFree(g->y);
    free(g);
}

// ctx is the example's saxpy_region: a kern_saxpy followed by this struct's pointer.
struct saxpy_region_view {
    kern_saxpy k;
    void *gpu;
};

extern "C" void saxpy_gpu_body(int64_t b, int64_t e, void *ctx, void *stream)
{
    const saxpy_region_view *r = (const saxpy_region_view *)ctx;
    saxpy_gpu *g = (saxpy_gpu *)r->gpu;
    cudaStream_t s = (cudaStream_t)stream;
    size_t bytes = (size_t)(e - b) * sizeof(float);
    cudaMemcpyAsync(g->x + b, r->k.x + b, bytes, cudaMemcpyHostToDevice, s);
    cudaMemcpyAsync(g->y0 + b, r->k.y0 + b, bytes, cudaMemcpyHostToDevice, s);
    int threads = 256;
    unsigned blocks = (unsigned)((e - b + threads - 1) / threads);
    saxpy_kernel<<<blocks, threads, 0, s>>>(b, e, r->k.a, g->x, g->y0, g->y);
    cudaMemcpyAsync(r->k.y + b, g->y + b, bytes, cudaMemcpyDeviceToHost, s);
}
