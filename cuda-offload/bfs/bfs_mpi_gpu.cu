/*
 * bfs_mpi_gpu.cu — a rank's GPU in the distributed BFS (issue 30 item 1:
 * "each rank uses the CPU engine, or its GPU where one exists").  The
 * bottom-up level, the step that reads every unvisited vertex's row
 * (Beamer et al., SC'12), runs on the rank's device: Enterprise's multi-GPU
 * layout (Liu & Huang 2015 §4.4) keeps each device's block of rows
 * resident, and the frontier bitmap of the whole graph, gathered by
 * MPI_Allgatherv on the host, is copied to the device each level.  One
 * thread per local vertex scans its sorted row and stops at the first
 * frontier neighbour, so the parent is the smallest neighbour one level up,
 * as on the CPU.  Top-down levels stay on the host (their frontier is
 * small); the levels array is copied to the device before a bottom-up level
 * and the levels, parents and found bits back after it.
 *
 * Built only when CMake finds nvcc (OMPDAG_HAVE_CUDA); written and compiled
 * on a machine without a GPU, never run there.
 */
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>

extern "C" {
#include "bfs_mpi_gpu.h"
}

struct bfs_mpi_gpu {
    int device = -1;
    int64_t nl = 0, words_total = 0;
    int64_t *off = nullptr;
    int32_t *adj32 = nullptr;
    int64_t *adj64 = nullptr;
    int32_t *levels = nullptr;
    int64_t *parents = nullptr;
    unsigned long long *front = nullptr, *next = nullptr, *found = nullptr;
};

namespace
{

__global__ void bottom_up(int64_t nl, const int64_t *off, const int32_t *adj32,
                          const int64_t *adj64, const unsigned long long *front, int32_t *levels,
                          int64_t *parents, unsigned long long *next, unsigned long long *found,
                          int32_t depth)
{
    const int64_t lv = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (lv >= nl || levels[lv] >= 0) return;
    for (int64_t e = off[lv]; e < off[lv + 1]; ++e) {
        const int64_t u = adj32 ? (int64_t)adj32[e] : adj64[e];
        if ((front[u >> 6] >> (u & 63)) & 1ull) {
            parents[lv] = u;
            levels[lv] = depth;
            atomicOr(&next[lv >> 6], 1ull << (lv & 63));
            atomicAdd(found, 1ull);
            return;
        }
    }
}

bool fail(cudaError_t e, char *why, size_t size, const char *what)
{
    if (e == cudaSuccess) return false;
    if (why) snprintf(why, size, "%s: %s", what, cudaGetErrorString(e));
    return true;
}

} // namespace

extern "C" bfs_mpi_gpu *bfs_mpi_gpu_open(int local_rank, int64_t nl, int64_t n,
                                         const int64_t *offsets, const int32_t *adj32,
                                         const int64_t *adj64, char *why, size_t why_size)
{
    int count = 0;
    if (fail(cudaGetDeviceCount(&count), why, why_size, "no CUDA device")) return nullptr;
    if (count == 0) {
        snprintf(why, why_size, "no CUDA device");
        return nullptr;
    }
    bfs_mpi_gpu *g = new (std::nothrow) bfs_mpi_gpu;
    if (!g) return nullptr;
    g->device = local_rank % count; /* the node's ranks share its devices round-robin */
    g->nl = nl;
    g->words_total = (n + 63) / 64;
    const int64_t ml = offsets[nl], local_words = (nl + 63) / 64;
    bool bad = fail(cudaSetDevice(g->device), why, why_size, "cudaSetDevice");
    bad = bad || fail(cudaMalloc(&g->off, sizeof(int64_t) * (nl + 1)), why, why_size, "cudaMalloc");
    if (adj32)
        bad = bad || fail(cudaMalloc(&g->adj32, sizeof(int32_t) * (ml ? ml : 1)), why, why_size,
                          "cudaMalloc");
    else
        bad = bad || fail(cudaMalloc(&g->adj64, sizeof(int64_t) * (ml ? ml : 1)), why, why_size,
                          "cudaMalloc");
    bad = bad || fail(cudaMalloc(&g->levels, sizeof(int32_t) * (nl ? nl : 1)), why, why_size,
                      "cudaMalloc");
    bad = bad || fail(cudaMalloc(&g->parents, sizeof(int64_t) * (nl ? nl : 1)), why, why_size,
                      "cudaMalloc");
    bad = bad || fail(cudaMalloc(&g->front, 8 * (g->words_total ? g->words_total : 1)), why,
                      why_size, "cudaMalloc");
    bad = bad || fail(cudaMalloc(&g->next, 8 * (local_words ? local_words : 1)), why, why_size,
                      "cudaMalloc");
    bad = bad || fail(cudaMalloc(&g->found, 8), why, why_size, "cudaMalloc");
    bad =
        bad || fail(cudaMemcpy(g->off, offsets, sizeof(int64_t) * (nl + 1), cudaMemcpyHostToDevice),
                    why, why_size, "upload of the rows");
    if (adj32)
        bad = bad || fail(cudaMemcpy(g->adj32, adj32, sizeof(int32_t) * ml, cudaMemcpyHostToDevice),
                          why, why_size, "upload of the rows");
    else
        bad = bad || fail(cudaMemcpy(g->adj64, adj64, sizeof(int64_t) * ml, cudaMemcpyHostToDevice),
                          why, why_size, "upload of the rows");
    if (bad) {
        bfs_mpi_gpu_close(g);
        return nullptr;
    }
    return g;
}

extern "C" int64_t bfs_mpi_gpu_bottom_up(bfs_mpi_gpu *g, const uint64_t *front, int32_t *levels,
                                         int64_t *parents, uint64_t *next, int32_t depth)
{
    const int64_t local_words = (g->nl + 63) / 64;
    unsigned long long found = 0;
    if (cudaSetDevice(g->device) != cudaSuccess ||
        cudaMemcpy(g->front, front, 8 * g->words_total, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(g->levels, levels, 4 * g->nl, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(g->parents, parents, 8 * g->nl, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemset(g->next, 0, 8 * (local_words ? local_words : 1)) != cudaSuccess ||
        cudaMemset(g->found, 0, 8) != cudaSuccess)
        return -1;
    const int threads = 256;
    const unsigned blocks = (unsigned)((g->nl + threads - 1) / threads);
    if (blocks > 0)
        bottom_up<<<blocks, threads>>>(g->nl, g->off, g->adj32, g->adj64, g->front, g->levels,
                                       g->parents, g->next, g->found, depth);
    if (cudaGetLastError() != cudaSuccess ||
        cudaMemcpy(&found, g->found, 8, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(levels, g->levels, 4 * g->nl, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(parents, g->parents, 8 * g->nl, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(next, g->next, 8 * local_words, cudaMemcpyDeviceToHost) != cudaSuccess)
        return -1;
    return (int64_t)found;
}

extern "C" void bfs_mpi_gpu_close(bfs_mpi_gpu *g)
{
    if (!g) return;
    cudaSetDevice(g->device);
    cudaFree(g->off);
    cudaFree(g->adj32);
    cudaFree(g->adj64);
    cudaFree(g->levels);
    cudaFree(g->parents);
    cudaFree(g->front);
    cudaFree(g->next);
    cudaFree(g->found);
    delete g;
}
