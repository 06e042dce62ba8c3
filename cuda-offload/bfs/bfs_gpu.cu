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
 *   §4.4 multi-GPU: with --devices D, device d owns vertices [d·n/D,
 *        (d+1)·n/D); after each level every device packs "found now" into a
 *        bitmap with __ballot_sync, the host ORs the bitmaps and sends the
 *        result back, and each device merges it into its private status.
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

/* One device's copy of the graph and its private search state. */
struct dev_ctx {
    int device = 0;
    int64_t lo = 0, hi = 0; /* owned vertices (§4.4 1-D partition) */
    int64_t *off = nullptr;
    int32_t *adj32 = nullptr;
    int64_t *adj64 = nullptr;
    int32_t *status = nullptr;
    int64_t *parent = nullptr;
    int64_t *q = nullptr, *qn = nullptr, *bins = nullptr, *binlen = nullptr;
    int64_t *counts = nullptr, *offs = nullptr, *epos = nullptr, *deg = nullptr;
    int64_t *hc = nullptr;
    uint32_t *bits = nullptr;          /* the exchanged bitmap */
    unsigned long long *acc = nullptr; /* [0] found, [1] hubs, [2] Th */
    void *scan_tmp = nullptr;
    size_t scan_bytes = 0;
    cudaStream_t streams[ENT_CLASSES] = {};
    ent_graph g{};
    int64_t qlen[ENT_CLASSES] = {0, 0, 0, 0};
};

struct gpu_ctx {
    const ompdag_graph *host = nullptr;
    uint64_t uid = 0; /* the graph's identity: addresses can be reused */
    int64_t n = 0, words = 0;
    int devices = 0;
    dev_ctx dev[8];
    uint32_t *h_bits = nullptr, *h_or = nullptr; /* host staging of the exchange */
};

void ctx_free(void *p)
{
    gpu_ctx *c = static_cast<gpu_ctx *>(p);
    if (!c)
        return;
    for (int k = 0; k < c->devices; ++k) {
        dev_ctx &d = c->dev[k];
        cudaSetDevice(d.device);
        void *bufs[] = {d.off, d.adj32, d.adj64, d.status, d.parent, d.q, d.qn, d.bins, d.binlen,
                        d.counts, d.offs, d.epos, d.deg, d.hc, d.bits, d.acc, d.scan_tmp};
        for (void *b : bufs)
            if (b)
                cudaFree(b);
        for (cudaStream_t st : d.streams)
            if (st)
                cudaStreamDestroy(st);
    }
    free(c->h_bits);
    free(c->h_or);
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

/* §4.4: each warp packs 32 vertices' "found at this level" with __ballot_sync. */
__global__ void k_bitmap_pack(const int32_t *status, int64_t n, int32_t level, uint32_t *bits)
{
    int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned word = __ballot_sync(0xffffffffu, ent_bitmap_lane(status, v, n, level));
    if ((threadIdx.x & 31) == 0 && v < n)
        bits[v / 32] = word;
}

__global__ void k_bitmap_merge(int32_t *status, const uint32_t *bits, int64_t words, int64_t n,
                               int32_t level)
{
    int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w < words)
        ent_bitmap_merge(status, bits[w], w * 32, n, level);
}

/* ---------------- host driver ---------------- */

#define CU(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            return e_;                                                                             \
    } while (0)

int64_t qtotal(const dev_ctx &d)
{
    return d.qlen[0] + d.qlen[1] + d.qlen[2] + d.qlen[3];
}

unsigned blocks_for(int64_t threads)
{
    return (unsigned)((threads + ENT_CTA - 1) / ENT_CTA);
}

struct run_opts {
    int64_t tau;
    bool use_hc;
};

enum gen_kind { GEN_INTERLEAVED, GEN_CONTIGUOUS, GEN_SHRINK, GEN_SPARSE };

/* §4.1: scan into bins, prefix-sum the counts, scatter; q <- the new queue. */
cudaError_t generate(dev_ctx &d, const run_opts &o, gen_kind kind, int32_t level, int64_t slen,
                     int64_t *found, int64_t *hubs)
{
    CU(cudaSetDevice(d.device));
    const int64_t work = kind == GEN_SHRINK ? qtotal(d) : kind == GEN_SPARSE ? slen : d.hi - d.lo;
    const int64_t T = ent_gen_threads(work), chunk = (work + T - 1) / T;
    int64_t *hc = (kind == GEN_CONTIGUOUS || kind == GEN_SHRINK) && o.use_hc ? d.hc : nullptr;
    CU(cudaMemset(d.acc, 0, 2 * sizeof(unsigned long long)));
    if (hc)
        k_fill_hc<<<1, ENT_CTA>>>(hc);
    switch (kind) {
    case GEN_INTERLEAVED:
        k_gen_interleaved<<<blocks_for(T), ENT_CTA>>>(d.g, d.status, d.lo, d.hi, T, chunk, level, o.tau,
                                                      d.bins, d.binlen, d.counts, d.acc);
        break;
    case GEN_CONTIGUOUS:
        k_gen_contiguous<<<blocks_for(T), ENT_CTA>>>(d.g, d.status, d.lo, d.hi, T, chunk, level, o.tau,
                                                     d.bins, hc, d.binlen, d.counts, d.acc);
        break;
    case GEN_SHRINK:
        k_gen_shrink<<<blocks_for(T), ENT_CTA>>>(d.g, d.status, d.q, work, T, chunk, o.tau, d.bins, hc,
                                                 d.binlen, d.counts, d.acc);
        break;
    case GEN_SPARSE:
        k_gen_sparse<<<blocks_for(T), ENT_CTA>>>(d.g, d.bins, slen, T, chunk, o.tau, d.binlen, d.counts,
                                                 d.acc);
        break;
    }
    CU(cudaGetLastError());
    CU(cudaMemset(d.counts + ENT_CLASSES * T, 0, sizeof(int64_t)));
    size_t bytes = d.scan_bytes;
    CU(cub::DeviceScan::ExclusiveSum(d.scan_tmp, bytes, d.counts, d.offs, (int)(ENT_CLASSES * T + 1)));
    k_scatter<<<blocks_for(T), ENT_CTA>>>(d.g, d.bins, chunk, d.binlen, d.offs, T, d.qn);
    CU(cudaGetLastError());
    int64_t bounds[ENT_CLASSES + 1];
    for (int k = 0; k <= ENT_CLASSES; ++k)
        CU(cudaMemcpy(&bounds[k], d.offs + k * T, sizeof(int64_t), cudaMemcpyDeviceToHost));
    for (int k = 0; k < ENT_CLASSES; ++k)
        d.qlen[k] = bounds[k + 1] - bounds[k];
    unsigned long long a[2];
    CU(cudaMemcpy(a, d.acc, sizeof a, cudaMemcpyDeviceToHost));
    *found += (int64_t)a[0];
    *hubs += (int64_t)a[1];
    int64_t *t = d.q;
    d.q = d.qn;
    d.qn = t;
    return cudaSuccess;
}

/* §4.2: the four queues, four kernels, four streams. */
cudaError_t expand(dev_ctx &d, const run_opts &o, bool bottom_up, int32_t level, bool sparse)
{
    CU(cudaSetDevice(d.device));
    int64_t *slots = sparse ? d.bins : nullptr;
    const int64_t *hc = o.use_hc ? d.hc : nullptr;
    int64_t begin = 0;
    for (int k = 0; k < ENT_CLASSES; ++k) {
        const int64_t cnt = d.qlen[k];
        const int64_t *q = d.q + begin;
        const int64_t *ep = d.epos + begin;
        cudaStream_t st = d.streams[k];
        begin += cnt;
        if (cnt == 0)
            continue;
        switch (k) {
        case 0:
            if (bottom_up)
                k_bu_thread<<<blocks_for(cnt), ENT_CTA, 0, st>>>(d.g, q, cnt, level, d.status, d.parent, hc);
            else
                k_td_thread<<<blocks_for(cnt), ENT_CTA, 0, st>>>(d.g, q, cnt, level, d.status, d.parent,
                                                                 slots, ep);
            break;
        case 1:
            if (bottom_up)
                k_bu_warp<<<blocks_for(cnt * ENT_WARP), ENT_CTA, 0, st>>>(d.g, q, cnt, level, d.status,
                                                                          d.parent, hc);
            else
                k_td_warp<<<blocks_for(cnt * ENT_WARP), ENT_CTA, 0, st>>>(d.g, q, cnt, level, d.status,
                                                                          d.parent, slots, ep);
            break;
        case 2:
            if (bottom_up)
                k_bu_cta<<<(unsigned)cnt, ENT_CTA, 0, st>>>(d.g, q, level, d.status, d.parent, hc);
            else
                k_td_cta<<<(unsigned)cnt, ENT_CTA, 0, st>>>(d.g, q, level, d.status, d.parent, slots, ep);
            break;
        default:
            if (bottom_up)
                k_bu_grid<<<ENT_GRID_BLOCKS, ENT_CTA, 0, st>>>(d.g, q, cnt, level, d.status, d.parent, hc);
            else
                k_td_grid<<<ENT_GRID_BLOCKS, ENT_CTA, 0, st>>>(d.g, q, cnt, level, d.status, d.parent,
                                                               slots, ep);
            break;
        }
        CU(cudaGetLastError());
    }
    return cudaDeviceSynchronize();
}

/* Σ out-degree of the queue; fills epos (the sparse slot offsets). */
cudaError_t frontier_edges(dev_ctx &d, int64_t *m_f)
{
    CU(cudaSetDevice(d.device));
    const int64_t len = qtotal(d);
    k_degrees<<<blocks_for(len + 1), ENT_CTA>>>(d.g, d.q, len, d.deg);
    CU(cudaGetLastError());
    size_t bytes = d.scan_bytes;
    CU(cub::DeviceScan::ExclusiveSum(d.scan_tmp, bytes, d.deg, d.epos, (int)(len + 1)));
    return cudaMemcpy(m_f, d.epos + len, sizeof(int64_t), cudaMemcpyDeviceToHost);
}

/* §4.4: pack on every device (ballot), OR on the host, merge everywhere. */
cudaError_t exchange(gpu_ctx *c, int32_t level)
{
    if (c->devices == 1)
        return cudaSuccess;
    const size_t bytes = (size_t)c->words * sizeof(uint32_t);
    memset(c->h_or, 0, bytes);
    for (int k = 0; k < c->devices; ++k) {
        dev_ctx &d = c->dev[k];
        CU(cudaSetDevice(d.device));
        k_bitmap_pack<<<blocks_for(c->words * 32), ENT_CTA>>>(d.status, c->n, level, d.bits);
        CU(cudaGetLastError());
        CU(cudaMemcpy(c->h_bits, d.bits, bytes, cudaMemcpyDeviceToHost));
        for (int64_t w = 0; w < c->words; ++w)
            c->h_or[w] |= c->h_bits[w];
    }
    for (int k = 0; k < c->devices; ++k) {
        dev_ctx &d = c->dev[k];
        CU(cudaSetDevice(d.device));
        CU(cudaMemcpy(d.bits, c->h_or, bytes, cudaMemcpyHostToDevice));
        k_bitmap_merge<<<blocks_for(c->words), ENT_CTA>>>(d.status, d.bits, c->words, c->n, level);
        CU(cudaGetLastError());
    }
    for (int k = 0; k < c->devices; ++k) {
        CU(cudaSetDevice(c->dev[k].device));
        CU(cudaDeviceSynchronize());
    }
    return cudaSuccess;
}

cudaError_t upload(dev_ctx &d, const ompdag_graph *g)
{
    CU(cudaSetDevice(d.device));
    const size_t n = (size_t)g->n, m = (size_t)(g->m > 0 ? g->m : 1);
    CU(cudaMalloc(&d.off, (n + 1) * sizeof(int64_t)));
    CU(cudaMemcpy(d.off, g->offsets, (n + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
    if (g->adj32) {
        CU(cudaMalloc(&d.adj32, m * sizeof(int32_t)));
        CU(cudaMemcpy(d.adj32, g->adj32, (size_t)g->m * sizeof(int32_t), cudaMemcpyHostToDevice));
    } else {
        CU(cudaMalloc(&d.adj64, m * sizeof(int64_t)));
        CU(cudaMemcpy(d.adj64, g->adj64, (size_t)g->m * sizeof(int64_t), cudaMemcpyHostToDevice));
    }
    d.g = ent_graph{g->n, d.off, d.adj32, d.adj64};
    CU(cudaMalloc(&d.status, n * sizeof(int32_t)));
    CU(cudaMalloc(&d.parent, n * sizeof(int64_t)));
    CU(cudaMalloc(&d.q, (n + 1) * sizeof(int64_t)));
    CU(cudaMalloc(&d.qn, (n + 1) * sizeof(int64_t)));
    CU(cudaMalloc(&d.bins, (n + kMaxThreads + 1) * sizeof(int64_t)));
    CU(cudaMalloc(&d.binlen, kMaxThreads * sizeof(int64_t)));
    CU(cudaMalloc(&d.counts, (ENT_CLASSES * kMaxThreads + 1) * sizeof(int64_t)));
    CU(cudaMalloc(&d.offs, (ENT_CLASSES * kMaxThreads + 1) * sizeof(int64_t)));
    CU(cudaMalloc(&d.epos, (n + 2) * sizeof(int64_t)));
    CU(cudaMalloc(&d.deg, (n + 2) * sizeof(int64_t)));
    CU(cudaMalloc(&d.hc, ENT_HC_SIZE * sizeof(int64_t)));
    CU(cudaMalloc(&d.bits, ((n + 31) / 32 + 1) * sizeof(uint32_t)));
    CU(cudaMalloc(&d.acc, 3 * sizeof(unsigned long long)));
    int items = (int)std::max<int64_t>(ENT_CLASSES * kMaxThreads + 1, (int64_t)n + 2);
    size_t bytes = 0;
    CU(cub::DeviceScan::ExclusiveSum(nullptr, bytes, d.counts, d.offs, items));
    d.scan_bytes = bytes;
    CU(cudaMalloc(&d.scan_tmp, bytes));
    for (cudaStream_t &st : d.streams)
        CU(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    return cudaSuccess;
}

cudaError_t search(gpu_ctx *c, int64_t source, const ompdag_bfs_options *opts, ompdag_bfs_result *r,
                   bool *nomem)
{
    const run_opts o{opts->tau, opts->hub_cache};
    const int64_t n = c->n;
    const int D = c->devices;
    const bool symmetric = c->host->symmetric;
    const int32_t zero = 0;
    int64_t Th = 0;
    for (int k = 0; k < D; ++k) {
        dev_ctx &d = c->dev[k];
        CU(cudaSetDevice(d.device));
        CU(cudaMemset(d.status, 0xff, (size_t)n * sizeof(int32_t)));
        CU(cudaMemset(d.parent, 0xff, (size_t)n * sizeof(int64_t)));
        CU(cudaMemcpy(d.status + source, &zero, sizeof zero, cudaMemcpyHostToDevice));
        for (int j = 0; j < ENT_CLASSES; ++j)
            d.qlen[j] = 0;
        if (source >= d.lo && source < d.hi) {
            CU(cudaMemcpy(d.parent + source, &source, sizeof source, cudaMemcpyHostToDevice));
            CU(cudaMemcpy(d.q, &source, sizeof source, cudaMemcpyHostToDevice));
            d.qlen[ent_class(c->host->offsets[source + 1] - c->host->offsets[source])] = 1;
        }
        CU(cudaMemset(d.acc, 0, 3 * sizeof(unsigned long long)));
        /* Th over the owned vertices: count hubs of a shifted view of the rows. */
        ent_graph owned{d.hi - d.lo, d.off + d.lo, d.adj32, d.adj64};
        k_count_hubs<<<blocks_for(d.hi - d.lo), ENT_CTA>>>(owned, o.tau, d.acc);
        CU(cudaGetLastError());
        unsigned long long th = 0;
        CU(cudaMemcpy(&th, d.acc + 2, sizeof th, cudaMemcpyDeviceToHost));
        Th += (int64_t)th;
    }
    ompdag_bfs_direction dir = OMPDAG_BFS_TOP_DOWN;
    int64_t prev_found = 1;
    for (int32_t level = 1;; ++level) {
        int64_t found = 0, hubs = 0, queue[ENT_CLASSES] = {0, 0, 0, 0};
        for (int k = 0; k < D; ++k)
            for (int j = 0; j < ENT_CLASSES; ++j)
                queue[j] += c->dev[k].qlen[j];
        const ompdag_bfs_direction found_by = dir;
        int workflow;
        int64_t edges = 0; /* top-down: out-edges of the frontier */
        if (dir == OMPDAG_BFS_TOP_DOWN) {
            int64_t m_f = 0;
            for (int k = 0; k < D; ++k) {
                int64_t part = 0;
                CU(frontier_edges(c->dev[k], &part));
                m_f += part;
            }
            const bool sparse = ent_use_sparse(m_f, n, D);
            edges = m_f;
            for (int k = 0; k < D; ++k)
                CU(expand(c->dev[k], o, false, level, sparse));
            CU(exchange(c, level));
            for (int k = 0; k < D; ++k)
                CU(generate(c->dev[k], o, sparse ? GEN_SPARSE : GEN_INTERLEAVED, level, m_f, &found, &hubs));
            workflow = sparse ? OMPDAG_BFS_WORKFLOW_SPARSE : OMPDAG_BFS_WORKFLOW_INTERLEAVED;
            if (found > 0 && symmetric && ent_switch_to_bottom_up(hubs, Th, opts->gamma)) {
                int64_t f2 = 0, h2 = 0;
                for (int k = 0; k < D; ++k)
                    CU(generate(c->dev[k], o, GEN_CONTIGUOUS, level, 0, &f2, &h2));
                dir = OMPDAG_BFS_BOTTOM_UP;
                workflow = OMPDAG_BFS_WORKFLOW_CONTIGUOUS;
            }
        } else {
            for (int k = 0; k < D; ++k)
                CU(expand(c->dev[k], o, true, level, false));
            CU(exchange(c, level));
            for (int k = 0; k < D; ++k)
                CU(generate(c->dev[k], o, GEN_SHRINK, level, 0, &found, &hubs));
            workflow = OMPDAG_BFS_WORKFLOW_SHRINK;
            if (found > 0 && ent_switch_to_top_down(found, prev_found, n, opts->beta)) {
                int64_t f2 = 0, h2 = 0;
                for (int k = 0; k < D; ++k)
                    CU(generate(c->dev[k], o, GEN_INTERLEAVED, level, 0, &f2, &h2));
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
        for (int j = 0; j < ENT_CLASSES; ++j)
            rec->queue[j] = queue[j];
        rec->hubs = hubs;
        rec->gamma = Th > 0 ? (double)hubs / (double)Th : 0.0;
        rec->workflow = workflow;
        rec->edges = edges;
        prev_found = found;
    }
    /* Gather: levels agree everywhere; a parent lives where it was found. */
    CU(cudaSetDevice(c->dev[0].device));
    CU(cudaMemcpy(r->levels, c->dev[0].status, (size_t)n * sizeof(int32_t), cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(r->parents, c->dev[0].parent, (size_t)n * sizeof(int64_t), cudaMemcpyDeviceToHost));
    if (D > 1) {
        int64_t *tmp = static_cast<int64_t *>(malloc((size_t)n * sizeof(int64_t)));
        if (!tmp) {
            *nomem = true;
            return cudaSuccess;
        }
        for (int k = 1; k < D; ++k) {
            cudaError_t e = cudaSetDevice(c->dev[k].device);
            if (e == cudaSuccess)
                e = cudaMemcpy(tmp, c->dev[k].parent, (size_t)n * sizeof(int64_t), cudaMemcpyDeviceToHost);
            if (e != cudaSuccess) {
                free(tmp);
                return e;
            }
            for (int64_t v = 0; v < n; ++v)
                if (r->parents[v] < 0)
                    r->parents[v] = tmp[v];
        }
        free(tmp);
    }
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
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < opts->devices)
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                        "gpu: --devices %d but this machine has %d CUDA device(s); gpu-sim simulates more",
                        opts->devices, count);
    gpu_ctx *c = static_cast<gpu_ctx *>(r->gpu_ctx);
    if (c && (c->host != g || c->uid != g->uid || c->devices != opts->devices)) {
        ctx_free(c);
        r->gpu_ctx = nullptr;
        c = nullptr;
    }
    if (!c) {
        c = new (std::nothrow) gpu_ctx();
        if (!c)
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "gpu: out of memory");
        c->host = g;
        c->uid = g->uid;
        c->n = g->n;
        c->words = (g->n + 31) / 32;
        c->devices = opts->devices;
        c->h_bits = static_cast<uint32_t *>(calloc((size_t)c->words + 1, sizeof(uint32_t)));
        c->h_or = static_cast<uint32_t *>(calloc((size_t)c->words + 1, sizeof(uint32_t)));
        cudaError_t e = c->h_bits && c->h_or ? cudaSuccess : cudaErrorMemoryAllocation;
        for (int k = 0; k < c->devices && e == cudaSuccess; ++k) {
            c->dev[k].device = k;
            c->dev[k].lo = g->n * k / c->devices;
            c->dev[k].hi = g->n * (k + 1) / c->devices;
            e = upload(c->dev[k], g);
        }
        if (e != cudaSuccess) {
            ctx_free(c);
            return ompdag_error_set(err, e == cudaErrorMemoryAllocation ? OMPDAG_ERR_NOMEM : OMPDAG_ERR_UNSUPPORTED,
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
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED, "gpu: CUDA error: %s", cudaGetErrorString(e));
    if (nomem)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "gpu: out of memory for level records");
    return OMPDAG_OK;
}
