/*
 * bfs_gpu.cu — the gpu engine: Enterprise (Liu & Huang, SC'15; seed
 * 003_3a3244e76776a6bb.txt §4) on one CUDA device.  Every kernel here is a
 * thin launch wrapper around the per-thread / per-warp logic of
 * enterprise_kernels.h, which gpu-sim runs on the host; the level loop
 * follows the same policy functions, so the two engines make the same
 * decisions.
 *
 *   §4.1 queue generation: a scan kernel fills per-thread bins and counts,
 *        cub::DeviceScan gives the offsets, a scatter kernel copies the bins
 *        (interleaved top-down, contiguous at the switch level, shrinking
 *        bottom-up, and the sparse edge-slot workflow for tiny frontiers);
 *   §4.2 four expansion kernels — thread, warp, CTA, grid — for the Small,
 *        Middle, Large and Extreme queues, on four concurrent streams;
 *   §4.3 γ = Fh / Th > 30% switches to bottom-up (hubs: out-degree > τ);
 *        the hub cache HC is copied into shared memory by every bottom-up
 *        CTA and checked before a neighbour's status;
 *   warp votes use __ballot_sync / __ffs, CTA votes __syncthreads_or (CUDA 13
 *   has no __any or texture references).
 * Multi-GPU (§4.4) runs in gpu-sim only; this engine uses one device.
 * Not run on the build machine (no GPU there); see docs/bfs.md.
 */
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

extern "C" {
#include "bfs_internal.h"
#include "timer.h"
}
#include "enterprise_kernels.h"

namespace {

struct gpu_ctx {
    const ompdag_graph *host = nullptr;
    uint64_t uid = 0; /* the graph's identity: addresses can be reused */
    int64_t n = 0, m = 0;
    int64_t *off = nullptr;
    int32_t *adj32 = nullptr;
    int64_t *adj64 = nullptr;
    int32_t *status = nullptr;
    int64_t *parent = nullptr;
    int64_t *q = nullptr, *qn = nullptr, *bins = nullptr, *binlen = nullptr;
    int64_t *counts = nullptr, *offs = nullptr, *epos = nullptr, *deg = nullptr;
    int64_t *hc = nullptr;
    unsigned long long *acc = nullptr; /* [0] found, [1] hubs, [2] Th */
    void *scan_tmp = nullptr;
    size_t scan_bytes = 0;
    cudaStream_t streams[ENT_CLASSES] = {};
    ent_graph g{};
};

void ctx_free(void *p)
{
    gpu_ctx *c = static_cast<gpu_ctx *>(p);
    if (!c)
        return;
    void *bufs[] = {c->off, c->adj32, c->adj64, c->status, c->parent, c->q, c->qn, c->bins,
                    c->binlen, c->counts, c->offs, c->epos, c->deg, c->hc, c->acc, c->scan_tmp};
    for (void *b : bufs)
        if (b)
            cudaFree(b);
    for (cudaStream_t s : c->streams)
        if (s)
            cudaStreamDestroy(s);
    delete c;
}

const int64_t kMaxThreads = (int64_t)1024 * ENT_CTA;

/* ---------------- kernels: launch wrappers around the shared logic ---------------- */

__global__ void k_count_hubs(ent_graph g, int64_t tau, unsigned long long *acc)
{
    int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int hub = v < g.n && ent_degree(g, v) > tau;
    unsigned mask = __ballot_sync(0xffffffffu, hub);
    if ((threadIdx.x & 31) == 0 && mask)
        atomicAdd(&acc[2], (unsigned long long)__popc(mask));
}

__device__ void store_counts(const ent_counts &k, int64_t len, int64_t t, int64_t T, int64_t *binlen,
                             int64_t *counts, unsigned long long *acc)
{
    binlen[t] = len;
    for (int c = 0; c < ENT_CLASSES; ++c)
        counts[c * T + t] = k.c[c];
    if (k.found)
        atomicAdd(&acc[0], (unsigned long long)k.found);
    if (k.hubs)
        atomicAdd(&acc[1], (unsigned long long)k.hubs);
}

__global__ void k_gen_interleaved(ent_graph g, const int32_t *status, int64_t lo, int64_t hi, int64_t T,
                                  int64_t chunk, int32_t level, int64_t tau, int64_t *bins,
                                  int64_t *binlen, int64_t *counts, unsigned long long *acc)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T)
        return;
    ent_counts k;
    int64_t len = ent_gen_interleaved(g, status, lo, hi, t, T, level, tau, bins + t * chunk, &k);
    store_counts(k, len, t, T, binlen, counts, acc);
}

__global__ void k_gen_contiguous(ent_graph g, const int32_t *status, int64_t lo, int64_t hi, int64_t T,
                                 int64_t chunk, int32_t level, int64_t tau, int64_t *bins, int64_t *hc,
                                 int64_t *binlen, int64_t *counts, unsigned long long *acc)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T)
        return;
    ent_counts k;
    int64_t len = ent_gen_contiguous(g, status, lo, hi, t, chunk, level, tau, bins + t * chunk, hc, &k);
    store_counts(k, len, t, T, binlen, counts, acc);
}

__global__ void k_gen_shrink(ent_graph g, const int32_t *status, const int64_t *prev, int64_t qlen,
                             int64_t T, int64_t chunk, int64_t tau, int64_t *bins, int64_t *hc,
                             int64_t *binlen, int64_t *counts, unsigned long long *acc)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T)
        return;
    ent_counts k;
    int64_t len = ent_gen_shrink(g, status, prev, qlen, t, chunk, tau, bins + t * chunk, hc, &k);
    store_counts(k, len, t, T, binlen, counts, acc);
}

__global__ void k_gen_sparse(ent_graph g, int64_t *slots, int64_t slen, int64_t T, int64_t chunk,
                             int64_t tau, int64_t *binlen, int64_t *counts, unsigned long long *acc)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T)
        return;
    ent_counts k;
    int64_t len = ent_gen_sparse(g, slots, slen, t, chunk, tau, &k);
    store_counts(k, len, t, T, binlen, counts, acc);
}

__global__ void k_scatter(ent_graph g, const int64_t *bins, int64_t chunk, const int64_t *binlen,
                          const int64_t *offs, int64_t T, int64_t *q)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < T)
        ent_scatter(g, bins + t * chunk, binlen[t], offs, t, T, q);
}

__global__ void k_fill_hc(int64_t *hc)
{
    for (int i = threadIdx.x; i < ENT_HC_SIZE; i += blockDim.x)
        hc[i] = -1;
}

__global__ void k_degrees(ent_graph g, const int64_t *q, int64_t len, int64_t *deg)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < len)
        deg[i] = ent_degree(g, q[i]);
    else if (i == len)
        deg[i] = 0;
}

/* §4.2 top-down: Small (thread), Middle (warp), Large (CTA), Extreme (grid). */
__global__ void k_td_thread(ent_graph g, const int64_t *q, int64_t count, int32_t level, int32_t *status,
                            int64_t *parent, int64_t *slots, const int64_t *epos)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        ent_td_expand(g, q[i], 0, 1, level, status, parent, slots, slots ? epos[i] : 0);
}

__global__ void k_td_warp(ent_graph g, const int64_t *q, int64_t count, int32_t level, int32_t *status,
                          int64_t *parent, int64_t *slots, const int64_t *epos)
{
    int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / ENT_WARP;
    if (i < count)
        ent_td_expand(g, q[i], threadIdx.x % ENT_WARP, ENT_WARP, level, status, parent, slots,
                      slots ? epos[i] : 0);
}

__global__ void k_td_cta(ent_graph g, const int64_t *q, int32_t level, int32_t *status, int64_t *parent,
                         int64_t *slots, const int64_t *epos)
{
    int64_t i = blockIdx.x;
    ent_td_expand(g, q[i], threadIdx.x, blockDim.x, level, status, parent, slots, slots ? epos[i] : 0);
}

__global__ void k_td_grid(ent_graph g, const int64_t *q, int64_t count, int32_t level, int32_t *status,
                          int64_t *parent, int64_t *slots, const int64_t *epos)
{
    int64_t gid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, G = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = 0; i < count; ++i)
        ent_td_expand(g, q[i], gid, G, level, status, parent, slots, slots ? epos[i] : 0);
}

/* §4.3: every bottom-up CTA loads the hub cache into shared memory. */
__device__ const int64_t *load_hc(const int64_t *hc, int64_t *shared)
{
    if (!hc)
        return nullptr;
    for (int i = threadIdx.x; i < ENT_HC_SIZE; i += blockDim.x)
        shared[i] = hc[i];
    __syncthreads();
    return shared;
}

__global__ void k_bu_thread(ent_graph g, const int64_t *q, int64_t count, int32_t level, int32_t *status,
                            int64_t *parent, const int64_t *hc)
{
    __shared__ int64_t cache[ENT_HC_SIZE];
    const int64_t *h = load_hc(hc, cache);
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, hits = 0;
    if (i < count)
        ent_bu_thread(g, q[i], level, status, parent, h, &hits);
}

__global__ void k_bu_warp(ent_graph g, const int64_t *q, int64_t count, int32_t level, int32_t *status,
                          int64_t *parent, const int64_t *hc)
{
    __shared__ int64_t cache[ENT_HC_SIZE];
    const int64_t *h = load_hc(hc, cache);
    int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / ENT_WARP;
    const int lane = threadIdx.x % ENT_WARP;
    if (i >= count)
        return; /* whole warps leave together: i is the same on every lane */
    const int64_t v = q[i], end = g.off[v + 1];
    for (int64_t base = g.off[v]; base < end; base += ENT_WARP) {
        int64_t e = base + lane, u = -1;
        int hit = e < end ? ent_bu_probe(g, e, level - 1, status, h, &u) : 0;
        unsigned mask = __ballot_sync(0xffffffffu, hit != 0);
        if (mask) {
            if (lane == __ffs(mask) - 1)
                ent_bu_commit(v, u, level, status, parent);
            break;
        }
    }
}

__global__ void k_bu_cta(ent_graph g, const int64_t *q, int32_t level, int32_t *status, int64_t *parent,
                         const int64_t *hc)
{
    __shared__ int64_t cache[ENT_HC_SIZE];
    __shared__ int winner;
    const int64_t *h = load_hc(hc, cache);
    const int64_t v = q[blockIdx.x], end = g.off[v + 1];
    for (int64_t base = g.off[v]; base < end; base += blockDim.x) {
        if (threadIdx.x == 0)
            winner = INT_MAX;
        __syncthreads();
        int64_t e = base + threadIdx.x, u = -1;
        int hit = e < end ? ent_bu_probe(g, e, level - 1, status, h, &u) : 0;
        if (hit)
            atomicMin(&winner, (int)threadIdx.x);
        if (__syncthreads_or(hit)) {
            if ((int)threadIdx.x == winner)
                ent_bu_commit(v, u, level, status, parent);
            break;
        }
    }
}

__global__ void k_bu_grid(ent_graph g, const int64_t *q, int64_t count, int32_t level, int32_t *status,
                          int64_t *parent, const int64_t *hc)
{
    __shared__ int64_t cache[ENT_HC_SIZE];
    const int64_t *h = load_hc(hc, cache);
    int64_t gid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, G = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = 0; i < count; ++i) {
        const int64_t v = q[i], base = g.off[v], end = g.off[v + 1];
        for (int64_t e = base + gid; e < end; e += G) {
            if (((volatile int32_t *)status)[v] == level)
                break; /* another CTA found a parent */
            int64_t u;
            if (ent_bu_probe(g, e, level - 1, status, h, &u)) {
                ent_bu_commit(v, u, level, status, parent);
                break;
            }
        }
    }
}

/* ---------------- host driver ---------------- */

struct run_state {
    gpu_ctx *c;
    int64_t qlen[ENT_CLASSES];
    int64_t tau;
    bool use_hc;
};

#define CU(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            return e_;                                                                             \
    } while (0)

int64_t qtotal(const run_state &s)
{
    return s.qlen[0] + s.qlen[1] + s.qlen[2] + s.qlen[3];
}

unsigned blocks_for(int64_t threads)
{
    return (unsigned)((threads + ENT_CTA - 1) / ENT_CTA);
}

enum gen_kind { GEN_INTERLEAVED, GEN_CONTIGUOUS, GEN_SHRINK, GEN_SPARSE };

/* §4.1: scan into bins, prefix-sum the counts, scatter; q <- the new queue. */
cudaError_t generate(run_state &s, gen_kind kind, int32_t level, int64_t slen, int64_t *found,
                     int64_t *hubs)
{
    gpu_ctx *c = s.c;
    const int64_t work = kind == GEN_SHRINK ? qtotal(s) : kind == GEN_SPARSE ? slen : c->n;
    const int64_t T = ent_gen_threads(work), chunk = (work + T - 1) / T;
    int64_t *hc = (kind == GEN_CONTIGUOUS || kind == GEN_SHRINK) && s.use_hc ? c->hc : nullptr;
    CU(cudaMemset(c->acc, 0, 2 * sizeof(unsigned long long)));
    if (hc)
        k_fill_hc<<<1, ENT_CTA>>>(hc);
    switch (kind) {
    case GEN_INTERLEAVED:
        k_gen_interleaved<<<blocks_for(T), ENT_CTA>>>(c->g, c->status, 0, c->n, T, chunk, level, s.tau,
                                                      c->bins, c->binlen, c->counts, c->acc);
        break;
    case GEN_CONTIGUOUS:
        k_gen_contiguous<<<blocks_for(T), ENT_CTA>>>(c->g, c->status, 0, c->n, T, chunk, level, s.tau,
                                                     c->bins, hc, c->binlen, c->counts, c->acc);
        break;
    case GEN_SHRINK:
        k_gen_shrink<<<blocks_for(T), ENT_CTA>>>(c->g, c->status, c->q, work, T, chunk, s.tau, c->bins,
                                                 hc, c->binlen, c->counts, c->acc);
        break;
    case GEN_SPARSE:
        k_gen_sparse<<<blocks_for(T), ENT_CTA>>>(c->g, c->bins, slen, T, chunk, s.tau, c->binlen,
                                                 c->counts, c->acc);
        break;
    }
    CU(cudaGetLastError());
    CU(cudaMemset(c->counts + ENT_CLASSES * T, 0, sizeof(int64_t)));
    size_t bytes = c->scan_bytes;
    CU(cub::DeviceScan::ExclusiveSum(c->scan_tmp, bytes, c->counts, c->offs, (int)(ENT_CLASSES * T + 1)));
    k_scatter<<<blocks_for(T), ENT_CTA>>>(c->g, c->bins, chunk, c->binlen, c->offs, T, c->qn);
    CU(cudaGetLastError());
    int64_t bounds[ENT_CLASSES + 1];
    for (int k = 0; k <= ENT_CLASSES; ++k)
        CU(cudaMemcpy(&bounds[k], c->offs + k * T, sizeof(int64_t), cudaMemcpyDeviceToHost));
    for (int k = 0; k < ENT_CLASSES; ++k)
        s.qlen[k] = bounds[k + 1] - bounds[k];
    unsigned long long a[2];
    CU(cudaMemcpy(a, c->acc, sizeof a, cudaMemcpyDeviceToHost));
    *found += (int64_t)a[0];
    *hubs += (int64_t)a[1];
    int64_t *t = c->q;
    c->q = c->qn;
    c->qn = t;
    return cudaSuccess;
}

/* §4.2: the four queues, four kernels, four streams. */
cudaError_t expand(run_state &s, bool bottom_up, int32_t level, bool sparse)
{
    gpu_ctx *c = s.c;
    int64_t *slots = sparse ? c->bins : nullptr;
    const int64_t *hc = s.use_hc ? c->hc : nullptr;
    int64_t begin = 0;
    for (int k = 0; k < ENT_CLASSES; ++k) {
        const int64_t cnt = s.qlen[k];
        const int64_t *q = c->q + begin;
        const int64_t *ep = c->epos + begin;
        cudaStream_t st = c->streams[k];
        begin += cnt;
        if (cnt == 0)
            continue;
        switch (k) {
        case 0:
            if (bottom_up)
                k_bu_thread<<<blocks_for(cnt), ENT_CTA, 0, st>>>(c->g, q, cnt, level, c->status, c->parent, hc);
            else
                k_td_thread<<<blocks_for(cnt), ENT_CTA, 0, st>>>(c->g, q, cnt, level, c->status, c->parent,
                                                                 slots, ep);
            break;
        case 1:
            if (bottom_up)
                k_bu_warp<<<blocks_for(cnt * ENT_WARP), ENT_CTA, 0, st>>>(c->g, q, cnt, level, c->status,
                                                                          c->parent, hc);
            else
                k_td_warp<<<blocks_for(cnt * ENT_WARP), ENT_CTA, 0, st>>>(c->g, q, cnt, level, c->status,
                                                                          c->parent, slots, ep);
            break;
        case 2:
            if (bottom_up)
                k_bu_cta<<<(unsigned)cnt, ENT_CTA, 0, st>>>(c->g, q, level, c->status, c->parent, hc);
            else
                k_td_cta<<<(unsigned)cnt, ENT_CTA, 0, st>>>(c->g, q, level, c->status, c->parent, slots, ep);
            break;
        default:
            if (bottom_up)
                k_bu_grid<<<ENT_GRID_BLOCKS, ENT_CTA, 0, st>>>(c->g, q, cnt, level, c->status, c->parent, hc);
            else
                k_td_grid<<<ENT_GRID_BLOCKS, ENT_CTA, 0, st>>>(c->g, q, cnt, level, c->status, c->parent,
                                                               slots, ep);
            break;
        }
        CU(cudaGetLastError());
    }
    return cudaDeviceSynchronize();
}

/* Σ out-degree of the queue; fills epos (the sparse slot offsets). */
cudaError_t frontier_edges(run_state &s, int64_t *m_f)
{
    gpu_ctx *c = s.c;
    const int64_t len = qtotal(s);
    k_degrees<<<blocks_for(len + 1), ENT_CTA>>>(c->g, c->q, len, c->deg);
    CU(cudaGetLastError());
    size_t bytes = c->scan_bytes;
    CU(cub::DeviceScan::ExclusiveSum(c->scan_tmp, bytes, c->deg, c->epos, (int)(len + 1)));
    return cudaMemcpy(m_f, c->epos + len, sizeof(int64_t), cudaMemcpyDeviceToHost);
}

cudaError_t upload(gpu_ctx *c, const ompdag_graph *g)
{
    c->host = g;
    c->uid = g->uid;
    c->n = g->n;
    c->m = g->m;
    const size_t n = (size_t)g->n, m = (size_t)(g->m > 0 ? g->m : 1);
    CU(cudaMalloc(&c->off, (n + 1) * sizeof(int64_t)));
    CU(cudaMemcpy(c->off, g->offsets, (n + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
    if (g->adj32) {
        CU(cudaMalloc(&c->adj32, m * sizeof(int32_t)));
        CU(cudaMemcpy(c->adj32, g->adj32, (size_t)g->m * sizeof(int32_t), cudaMemcpyHostToDevice));
    } else {
        CU(cudaMalloc(&c->adj64, m * sizeof(int64_t)));
        CU(cudaMemcpy(c->adj64, g->adj64, (size_t)g->m * sizeof(int64_t), cudaMemcpyHostToDevice));
    }
    c->g = ent_graph{g->n, c->off, c->adj32, c->adj64};
    CU(cudaMalloc(&c->status, n * sizeof(int32_t)));
    CU(cudaMalloc(&c->parent, n * sizeof(int64_t)));
    CU(cudaMalloc(&c->q, (n + 1) * sizeof(int64_t)));
    CU(cudaMalloc(&c->qn, (n + 1) * sizeof(int64_t)));
    CU(cudaMalloc(&c->bins, (n + kMaxThreads + 1) * sizeof(int64_t)));
    CU(cudaMalloc(&c->binlen, kMaxThreads * sizeof(int64_t)));
    CU(cudaMalloc(&c->counts, (ENT_CLASSES * kMaxThreads + 1) * sizeof(int64_t)));
    CU(cudaMalloc(&c->offs, (ENT_CLASSES * kMaxThreads + 1) * sizeof(int64_t)));
    CU(cudaMalloc(&c->epos, (n + 2) * sizeof(int64_t)));
    CU(cudaMalloc(&c->deg, (n + 2) * sizeof(int64_t)));
    CU(cudaMalloc(&c->hc, ENT_HC_SIZE * sizeof(int64_t)));
    CU(cudaMalloc(&c->acc, 3 * sizeof(unsigned long long)));
    int items = (int)std::max<int64_t>(ENT_CLASSES * kMaxThreads + 1, (int64_t)n + 2);
    size_t bytes = 0;
    CU(cub::DeviceScan::ExclusiveSum(nullptr, bytes, c->counts, c->offs, items));
    c->scan_bytes = bytes;
    CU(cudaMalloc(&c->scan_tmp, bytes));
    for (cudaStream_t &st : c->streams)
        CU(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    return cudaSuccess;
}

cudaError_t search(gpu_ctx *c, int64_t source, const ompdag_bfs_options *opts, ompdag_bfs_result *r,
                   bool *nomem)
{
    run_state s{};
    s.c = c;
    s.tau = opts->tau;
    s.use_hc = opts->hub_cache;
    const int64_t n = c->n;
    const bool symmetric = c->host->symmetric;
    CU(cudaMemset(c->status, 0xff, (size_t)n * sizeof(int32_t)));
    CU(cudaMemset(c->parent, 0xff, (size_t)n * sizeof(int64_t)));
    const int32_t zero = 0;
    CU(cudaMemcpy(c->status + source, &zero, sizeof zero, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(c->parent + source, &source, sizeof source, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(c->q, &source, sizeof source, cudaMemcpyHostToDevice));
    s.qlen[ent_class(c->host->offsets[source + 1] - c->host->offsets[source])] = 1;
    CU(cudaMemset(c->acc, 0, 3 * sizeof(unsigned long long)));
    k_count_hubs<<<blocks_for(n), ENT_CTA>>>(c->g, s.tau, c->acc);
    CU(cudaGetLastError());
    unsigned long long th = 0;
    CU(cudaMemcpy(&th, c->acc + 2, sizeof th, cudaMemcpyDeviceToHost));
    const int64_t Th = (int64_t)th;
    ompdag_bfs_direction dir = OMPDAG_BFS_TOP_DOWN;
    int64_t prev_found = 1;
    for (int32_t level = 1;; ++level) {
        int64_t found = 0, hubs = 0, queue[ENT_CLASSES];
        for (int k = 0; k < ENT_CLASSES; ++k)
            queue[k] = s.qlen[k];
        const ompdag_bfs_direction found_by = dir;
        int workflow;
        int64_t edges = 0; /* top-down: out-edges of the frontier */
        if (dir == OMPDAG_BFS_TOP_DOWN) {
            int64_t m_f = 0;
            CU(frontier_edges(s, &m_f));
            const bool sparse = ent_use_sparse(m_f, n, 1);
            edges = m_f;
            CU(expand(s, false, level, sparse));
            CU(generate(s, sparse ? GEN_SPARSE : GEN_INTERLEAVED, level, m_f, &found, &hubs));
            workflow = sparse ? OMPDAG_BFS_WORKFLOW_SPARSE : OMPDAG_BFS_WORKFLOW_INTERLEAVED;
            if (found > 0 && symmetric && ent_switch_to_bottom_up(hubs, Th, opts->gamma)) {
                int64_t f2 = 0, h2 = 0;
                CU(generate(s, GEN_CONTIGUOUS, level, 0, &f2, &h2));
                dir = OMPDAG_BFS_BOTTOM_UP;
                workflow = OMPDAG_BFS_WORKFLOW_CONTIGUOUS;
            }
        } else {
            CU(expand(s, true, level, false));
            CU(generate(s, GEN_SHRINK, level, 0, &found, &hubs));
            workflow = OMPDAG_BFS_WORKFLOW_SHRINK;
            if (found > 0 && ent_switch_to_top_down(found, prev_found, n, opts->beta)) {
                int64_t f2 = 0, h2 = 0;
                CU(generate(s, GEN_INTERLEAVED, level, 0, &f2, &h2));
                dir = OMPDAG_BFS_TOP_DOWN;
                workflow = OMPDAG_BFS_WORKFLOW_INTERLEAVED;
            }
        }
        if (found == 0)
            break;
        ompdag_bfs_level *rec = bfs_result_level_at(r, level);
        if (!rec) {
            *nomem = true;
            return cudaSuccess;
        }
        rec->direction = found_by;
        rec->visited = found;
        for (int k = 0; k < ENT_CLASSES; ++k)
            rec->queue[k] = queue[k];
        rec->hubs = hubs;
        rec->gamma = Th > 0 ? (double)hubs / (double)Th : 0.0;
        rec->workflow = workflow;
        rec->edges = edges;
        prev_found = found;
    }
    CU(cudaMemcpy(r->levels, c->status, (size_t)n * sizeof(int32_t), cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(r->parents, c->parent, (size_t)n * sizeof(int64_t), cudaMemcpyDeviceToHost));
    return cudaSuccess;
}

} // namespace

extern "C" bool bfs_gpu_probe(char *why, size_t why_size)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        if (why && why_size)
            snprintf(why, why_size, "no CUDA device (%s); use --engine cpu or gpu-sim",
                     e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports 0 devices");
        return false;
    }
    return true;
}

extern "C" ompdag_status bfs_engine_gpu(const ompdag_graph *g, int64_t source,
                                        const ompdag_bfs_options *opts, ompdag_bfs_result *r,
                                        ompdag_error *err)
{
    if (opts->devices != 1)
        return bfs_fail(err, OMPDAG_ERR_UNSUPPORTED,
                        "gpu: multi-GPU partitioning runs in gpu-sim only (--devices %d)", opts->devices);
    gpu_ctx *c = static_cast<gpu_ctx *>(r->gpu_ctx);
    if (c && (c->host != g || c->uid != g->uid)) {
        ctx_free(c);
        r->gpu_ctx = nullptr;
        c = nullptr;
    }
    if (!c) {
        c = new (std::nothrow) gpu_ctx();
        if (!c)
            return bfs_fail(err, OMPDAG_ERR_NOMEM, "gpu: out of memory");
        cudaError_t e = upload(c, g);
        if (e != cudaSuccess) {
            ctx_free(c);
            return bfs_fail(err, e == cudaErrorMemoryAllocation ? OMPDAG_ERR_NOMEM : OMPDAG_ERR_UNSUPPORTED,
                            "gpu: uploading the graph failed: %s", cudaGetErrorString(e));
        }
        r->gpu_ctx = c;
        r->gpu_graph = g;
        r->gpu_free = ctx_free;
    }
    bool nomem = false;
    double t0 = bfs_now();
    cudaError_t e = search(c, source, opts, r, &nomem);
    r->seconds = bfs_now() - t0;
    if (e != cudaSuccess)
        return bfs_fail(err, OMPDAG_ERR_UNSUPPORTED, "gpu: CUDA error: %s", cudaGetErrorString(e));
    if (nomem)
        return bfs_fail(err, OMPDAG_ERR_NOMEM, "gpu: out of memory for level records");
    return OMPDAG_OK;
}
