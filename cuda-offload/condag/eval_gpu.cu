/*
 * cuda-offload/condag/eval_gpu.cu — level-synchronous exact bounds on the GPU
 * (include/ompdag/condag_gpu.h): the batch is copied once, then one launch
 * per height level runs condag_level_thread() — the code gpu-sim runs — for
 * every node of that level across all graphs.  Built only when nvcc is found;
 * never run on this project's GPU-less machines.
 */
#include <cuda_runtime.h>

#include "batch_internal.h"

__global__ void condag_level_kernel(condag_batch b, const int32_t *nodes, int32_t count, int32_t m,
                                    ompdag_exact_row *rows)
{
    condag_level_thread(&b, nodes, count, (int32_t)(blockIdx.x * blockDim.x + threadIdx.x), m,
                        rows);
}

namespace {

struct device_batch {
    condag_batch b{};
    ompdag_exact_row *rows = nullptr;
    void release()
    {
        cudaFree(b.kind), cudaFree(b.wcet), cudaFree(b.succ_off), cudaFree(b.succ);
        cudaFree(b.child), cudaFree(b.level_nodes), cudaFree(rows);
    }
};

template <typename T> cudaError_t upload(T **dst, const T *src, size_t count)
{
    cudaError_t e = cudaMalloc((void **)dst, sizeof(T) * (count ? count : 1));
    if (e == cudaSuccess && count)
        e = cudaMemcpy(*dst, src, sizeof(T) * count, cudaMemcpyHostToDevice);
    return e;
}

ompdag_status cuda_fail(ompdag_error *err, const char *what, cudaError_t e)
{
    return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED, "device gpu: %s: %s", what,
                            cudaGetErrorString(e));
}

} // namespace

extern "C" ompdag_status condag_eval_gpu(const condag_batch *b, int32_t m, ompdag_exact_row *rows,
                                         ompdag_error *err)
{
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0)
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                "device gpu: no CUDA device (%s); use --device gpu-sim or cpu",
                                e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    device_batch d;
    d.b = *b;
    size_t n = (size_t)b->n, edges = (size_t)b->succ_off[b->n];
    if ((e = upload(&d.b.kind, b->kind, n)) || (e = upload(&d.b.wcet, b->wcet, n)) ||
        (e = upload(&d.b.succ_off, b->succ_off, n + 1)) || (e = upload(&d.b.succ, b->succ, edges)) ||
        (e = upload(&d.b.child, b->child, n)) ||
        (e = upload(&d.b.level_nodes, b->level_nodes, n)) ||
        (e = cudaMalloc((void **)&d.rows, sizeof(ompdag_exact_row) * (n ? n : 1)))) {
        d.release();
        return cuda_fail(err, "copying the batch", e);
    }
    for (int32_t l = 0; l < b->nlevels; ++l) {
        int32_t count = b->level_off[l + 1] - b->level_off[l];
        int32_t blocks = (count + CONDAG_BLOCK - 1) / CONDAG_BLOCK;
        condag_level_kernel<<<blocks, CONDAG_BLOCK>>>(d.b, d.b.level_nodes + b->level_off[l], count,
                                                      m, d.rows);
    }
    if ((e = cudaGetLastError()) || (e = cudaDeviceSynchronize()) ||
        (e = cudaMemcpy(rows, d.rows, sizeof(ompdag_exact_row) * n, cudaMemcpyDeviceToHost))) {
        d.release();
        return cuda_fail(err, "running the level kernels", e);
    }
    d.release();
    return OMPDAG_OK;
}
