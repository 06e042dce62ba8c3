/*
 * bfs_gpu.cu — the gpu engine: Enterprise (Liu & Huang, SC'15; seed
 * 003_3a3244e76776a6bb.txt §4) on one CUDA device.  Every kernel here is a
 * thin launch wrapper around the per-thread / per-warp logic of
 * enterprise_kernels.h, which gpu-sim runs on the host; the level loop is
 * ent_driver.c, the same driver gpu-sim runs, so the two engines make the
 * same decisions and gpu-sim counts this file's launches and syncs.
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
#include "ompdag/internal/clock.h"
}
#include "ent_driver.h"
#include "enterprise_kernels.h"

namespace
{

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
    unsigned long long *acc = nullptr; /* [0] found, [1] hubs */
    int64_t *small = nullptr;          /* k_bounds: class bounds, found, hubs */
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
    int64_t *h_parent = nullptr;                 /* host staging of the gather */
    int64_t tau = -1, Th = 0;                    /* Th for this τ */
    bfs_counts actual{0, 0, 0};                  /* what this search launched / waited for */
    cudaError_t last = cudaSuccess;              /* the last failure */
};

void ctx_free(void *p)
{
    gpu_ctx *c = static_cast<gpu_ctx *>(p);
    if (!c) return;
    for (int k = 0; k < c->devices; ++k) {
        dev_ctx &d = c->dev[k];
        cudaSetDevice(d.device);
        void *bufs[] = {d.off, d.adj32, d.adj64,  d.status, d.parent, d.q,
                        d.qn,  d.bins,  d.binlen, d.counts, d.offs,   d.epos,
                        d.deg, d.hc,    d.bits,   d.acc,    d.small,  d.scan_tmp};
        for (void *b : bufs)
            if (b) cudaFree(b);
        for (cudaStream_t st : d.streams)
            if (st) cudaStreamDestroy(st);
    }
    free(c->h_bits);
    free(c->h_or);
    free(c->h_parent);
    delete c;
}

const int64_t kMaxThreads = (int64_t)1024 * ENT_CTA;

/* ---------------- kernels: launch wrappers around the shared logic ---------------- */

__device__ void store_counts(const ent_counts &k, int64_t len, int64_t t, int64_t T,
                             int64_t *binlen, int64_t *counts, unsigned long long *acc)
{
    binlen[t] = len;
    for (int c = 0; c < ENT_CLASSES; ++c)
        counts[c * T + t] = k.c[c];
    if (k.found) atomicAdd(&acc[0], (unsigned long long)k.found);
    if (k.hubs) atomicAdd(&acc[1], (unsigned long long)k.hubs);
}

__global__ void k_gen_interleaved(ent_graph g, const int32_t *status, int64_t lo, int64_t hi,
                                  int64_t T, int64_t chunk, int32_t level, int64_t tau,
                                  int64_t *bins, int64_t *binlen, int64_t *counts,
                                  unsigned long long *acc)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T) return;
    ent_counts k;
    int64_t len = ent_gen_interleaved(g, status, lo, hi, t, T, level, tau, bins + t * chunk, &k);
    store_counts(k, len, t, T, binlen, counts, acc);
}

__global__ void k_gen_contiguous(ent_graph g, const int32_t *status, int64_t lo, int64_t hi,
                                 int64_t T, int64_t chunk, int32_t level, int64_t tau,
                                 int64_t *bins, int64_t *hc, int64_t *binlen, int64_t *counts,
                                 unsigned long long *acc)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T) return;
    ent_counts k;
    int64_t len =
        ent_gen_contiguous(g, status, lo, hi, t, chunk, level, tau, bins + t * chunk, hc, &k);
    store_counts(k, len, t, T, binlen, counts, acc);
}

__global__ void k_gen_shrink(ent_graph g, const int32_t *status, const int64_t *prev, int64_t qlen,
                             int64_t T, int64_t chunk, int64_t tau, int64_t *bins, int64_t *hc,
                             int64_t *binlen, int64_t *counts, unsigned long long *acc)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T) return;
    ent_counts k;
    int64_t len = ent_gen_shrink(g, status, prev, qlen, t, chunk, tau, bins + t * chunk, hc, &k);
    store_counts(k, len, t, T, binlen, counts, acc);
}

__global__ void k_gen_sparse(ent_graph g, int64_t *slots, int64_t slen, int64_t T, int64_t chunk,
                             int64_t tau, int64_t *binlen, int64_t *counts, unsigned long long *acc)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T) return;
    ent_counts k;
    int64_t len = ent_gen_sparse(g, slots, slen, t, chunk, tau, &k);
    store_counts(k, len, t, T, binlen, counts, acc);
}

__global__ void k_scatter(ent_graph g, const int64_t *bins, int64_t chunk, const int64_t *binlen,
                          const int64_t *offs, int64_t T, int64_t *q)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < T) ent_scatter(g, bins + t * chunk, binlen[t], offs, t, T, q);
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
__global__ void k_td_thread(ent_graph g, const int64_t *q, int64_t count, int32_t level,
                            int32_t *status, int64_t *parent, int64_t *slots, const int64_t *epos)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) ent_td_expand(g, q[i], 0, 1, level, status, parent, slots, slots ? epos[i] : 0);
}

__global__ void k_td_warp(ent_graph g, const int64_t *q, int64_t count, int32_t level,
                          int32_t *status, int64_t *parent, int64_t *slots, const int64_t *epos)
{
    int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / ENT_WARP;
    if (i < count)
        ent_td_expand(g, q[i], threadIdx.x % ENT_WARP, ENT_WARP, level, status, parent, slots,
                      slots ? epos[i] : 0);
}

__global__ void k_td_cta(ent_graph g, const int64_t *q, int32_t level, int32_t *status,
                         int64_t *parent, int64_t *slots, const int64_t *epos)
{
    int64_t i = blockIdx.x;
    ent_td_expand(g, q[i], threadIdx.x, blockDim.x, level, status, parent, slots,
                  slots ? epos[i] : 0);
}

__global__ void k_td_grid(ent_graph g, const int64_t *q, int64_t count, int32_t level,
                          int32_t *status, int64_t *parent, int64_t *slots, const int64_t *epos)
{
    int64_t gid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x,
            G = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = 0; i < count; ++i)
        ent_td_expand(g, q[i], gid, G, level, status, parent, slots, slots ? epos[i] : 0);
}

/* §4.3: every bottom-up CTA loads the hub cache into shared memory. */
__device__ const int64_t *load_hc(const int64_t *hc, int64_t *shared)
{
    if (!hc) return nullptr;
    for (int i = threadIdx.x; i < ENT_HC_SIZE; i += blockDim.x)
        shared[i] = hc[i];
    __syncthreads();
    return shared;
}

__global__ void k_bu_thread(ent_graph g, const int64_t *q, int64_t count, int32_t level,
                            int32_t *status, int64_t *parent, const int64_t *hc)
{
    __shared__ int64_t cache[ENT_HC_SIZE];
    const int64_t *h = load_hc(hc, cache);
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, hits = 0;
    if (i < count) ent_bu_thread(g, q[i], level, status, parent, h, &hits);
}

__global__ void k_bu_warp(ent_graph g, const int64_t *q, int64_t count, int32_t level,
                          int32_t *status, int64_t *parent, const int64_t *hc)
{
    __shared__ int64_t cache[ENT_HC_SIZE];
    const int64_t *h = load_hc(hc, cache);
    int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / ENT_WARP;
    const int lane = threadIdx.x % ENT_WARP;
    if (i >= count) return; /* whole warps leave together: i is the same on every lane */
    const int64_t v = q[i], end = g.off[v + 1];
    for (int64_t base = g.off[v]; base < end; base += ENT_WARP) {
        int64_t e = base + lane, u = -1;
        int hit = e < end ? ent_bu_probe(g, e, level - 1, status, h, &u) : 0;
        unsigned mask = __ballot_sync(0xffffffffu, hit != 0);
        if (mask) {
            if (lane == __ffs(mask) - 1) ent_bu_commit(v, u, level, status, parent);
            break;
        }
    }
}

__global__ void k_bu_cta(ent_graph g, const int64_t *q, int32_t level, int32_t *status,
                         int64_t *parent, const int64_t *hc)
{
    __shared__ int64_t cache[ENT_HC_SIZE];
    __shared__ int winner;
    const int64_t *h = load_hc(hc, cache);
    const int64_t v = q[blockIdx.x], end = g.off[v + 1];
    for (int64_t base = g.off[v]; base < end; base += blockDim.x) {
        if (threadIdx.x == 0) winner = INT_MAX;
        __syncthreads();
        int64_t e = base + threadIdx.x, u = -1;
        int hit = e < end ? ent_bu_probe(g, e, level - 1, status, h, &u) : 0;
        if (hit) atomicMin(&winner, (int)threadIdx.x);
        if (__syncthreads_or(hit)) {
            if ((int)threadIdx.x == winner) ent_bu_commit(v, u, level, status, parent);
            break;
        }
    }
}

__global__ void k_bu_grid(ent_graph g, const int64_t *q, int64_t count, int32_t level,
                          int32_t *status, int64_t *parent, const int64_t *hc)
{
    __shared__ int64_t cache[ENT_HC_SIZE];
    const int64_t *h = load_hc(hc, cache);
    int64_t gid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x,
            G = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = 0; i < count; ++i) {
        const int64_t v = q[i], base = g.off[v], end = g.off[v + 1];
        for (int64_t e = base + gid; e < end; e += G) {
            if (((volatile int32_t *)status)[v] == level) break; /* another CTA found a parent */
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
    if ((threadIdx.x & 31) == 0 && v < n) bits[v / 32] = word;
}

__global__ void k_bitmap_merge(int32_t *status, const uint32_t *bits, int64_t words, int64_t n,
                               int32_t level)
{
    int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w < words) ent_bitmap_merge(status, bits[w], w * 32, n, level);
}

/* Statuses and parents reset and the source placed, in one kernel. */
__global__ void k_init(int32_t *status, int64_t *parent, int64_t n, int64_t source, int owner,
                       int64_t *q)
{
    const int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    status[v] = v == source ? 0 : ENT_UNVISITED;
    parent[v] = v == source && owner ? source : -1;
    if (v == source && owner) q[0] = source;
}

/* The class bounds of a generated queue (offs[k * T]) and the found / hub
 * counters, packed for one copy back. */
__global__ void k_bounds(const int64_t *offs, int64_t T, const unsigned long long *acc,
                         int64_t *out)
{
    const int k = threadIdx.x;
    if (k <= ENT_CLASSES) out[k] = offs[k * T];
    if (k < 2) out[ENT_CLASSES + 1 + k] = (int64_t)acc[k];
}

/* ---------------- the back end of ent_driver.h ----------------
 * Each operation does exactly what ent_driver.c's ent_cost_* says it costs,
 * and counts what it launched and waited for in gpu_ctx::actual;
 * bfs_engine_gpu refuses a search whose count differs from the design's.
 * A CUB scan counts as one launch. */

#define CU(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) return fail(c, e_);                                                 \
    } while (0)

int64_t qtotal(const dev_ctx &d)
{
    return d.qlen[0] + d.qlen[1] + d.qlen[2] + d.qlen[3];
}

unsigned blocks_for(int64_t threads)
{
    return (unsigned)((threads + ENT_CTA - 1) / ENT_CTA);
}

int fail(gpu_ctx *c, cudaError_t e)
{
    c->last = e;
    return 1;
}

int op_init(void *self, int k, int64_t source)
{
    gpu_ctx *c = static_cast<gpu_ctx *>(self);
    dev_ctx &d = c->dev[k];
    CU(cudaSetDevice(d.device));
    const int owner = source >= d.lo && source < d.hi;
    for (int j = 0; j < ENT_CLASSES; ++j)
        d.qlen[j] = 0;
    if (owner) d.qlen[ent_class(c->host->offsets[source + 1] - c->host->offsets[source])] = 1;
    k_init<<<blocks_for(c->n), ENT_CTA>>>(d.status, d.parent, c->n, source, owner, d.q);
    c->actual.launches++;
    CU(cudaGetLastError());
    return 0;
}

void op_queue_lengths(void *self, int k, int64_t q[ENT_CLASSES])
{
    const gpu_ctx *c = static_cast<const gpu_ctx *>(self);
    for (int j = 0; j < ENT_CLASSES; ++j)
        q[j] = c->dev[k].qlen[j];
}

/* Σ out-degree of the queue; fills epos (the sparse slot offsets). */
int op_frontier_edges(void *self, int k, int64_t *m_f)
{
    gpu_ctx *c = static_cast<gpu_ctx *>(self);
    dev_ctx &d = c->dev[k];
    CU(cudaSetDevice(d.device));
    const int64_t len = qtotal(d);
    k_degrees<<<blocks_for(len + 1), ENT_CTA>>>(d.g, d.q, len, d.deg);
    c->actual.launches++;
    CU(cudaGetLastError());
    size_t bytes = d.scan_bytes;
    CU(cub::DeviceScan::ExclusiveSum(d.scan_tmp, bytes, d.deg, d.epos, (int)(len + 1)));
    c->actual.launches++;
    CU(cudaMemcpy(m_f, d.epos + len, sizeof(int64_t), cudaMemcpyDeviceToHost));
    c->actual.host_syncs++;
    return 0;
}

/* §4.2: the four queues, four kernels, four streams, one wait. */
int op_expand(void *self, int k, int bottom_up, int32_t level, int sparse, int use_hc)
{
    gpu_ctx *c = static_cast<gpu_ctx *>(self);
    dev_ctx &d = c->dev[k];
    CU(cudaSetDevice(d.device));
    int64_t *slots = sparse ? d.bins : nullptr;
    const int64_t *hc = use_hc ? d.hc : nullptr;
    int64_t begin = 0;
    for (int j = 0; j < ENT_CLASSES; ++j) {
        const int64_t cnt = d.qlen[j];
        const int64_t *q = d.q + begin;
        const int64_t *ep = d.epos + begin;
        cudaStream_t st = d.streams[j];
        begin += cnt;
        if (cnt == 0) continue;
        switch (j) {
        case 0:
            if (bottom_up)
                k_bu_thread<<<blocks_for(cnt), ENT_CTA, 0, st>>>(d.g, q, cnt, level, d.status,
                                                                 d.parent, hc);
            else
                k_td_thread<<<blocks_for(cnt), ENT_CTA, 0, st>>>(d.g, q, cnt, level, d.status,
                                                                 d.parent, slots, ep);
            break;
        case 1:
            if (bottom_up)
                k_bu_warp<<<blocks_for(cnt * ENT_WARP), ENT_CTA, 0, st>>>(d.g, q, cnt, level,
                                                                          d.status, d.parent, hc);
            else
                k_td_warp<<<blocks_for(cnt * ENT_WARP), ENT_CTA, 0, st>>>(
                    d.g, q, cnt, level, d.status, d.parent, slots, ep);
            break;
        case 2:
            if (bottom_up)
                k_bu_cta<<<(unsigned)cnt, ENT_CTA, 0, st>>>(d.g, q, level, d.status, d.parent, hc);
            else
                k_td_cta<<<(unsigned)cnt, ENT_CTA, 0, st>>>(d.g, q, level, d.status, d.parent,
                                                            slots, ep);
            break;
        default:
            if (bottom_up)
                k_bu_grid<<<ENT_GRID_BLOCKS, ENT_CTA, 0, st>>>(d.g, q, cnt, level, d.status,
                                                               d.parent, hc);
            else
                k_td_grid<<<ENT_GRID_BLOCKS, ENT_CTA, 0, st>>>(d.g, q, cnt, level, d.status,
                                                               d.parent, slots, ep);
            break;
        }
        c->actual.launches++;
        CU(cudaGetLastError());
    }
    CU(cudaDeviceSynchronize());
    c->actual.host_syncs++;
    return 0;
}

/* §4.4: pack on every device (ballot), OR on the host, merge everywhere. */
int op_exchange(void *self, int32_t level)
{
    gpu_ctx *c = static_cast<gpu_ctx *>(self);
    if (c->devices == 1) return 0;
    const size_t bytes = (size_t)c->words * sizeof(uint32_t);
    memset(c->h_or, 0, bytes);
    for (int k = 0; k < c->devices; ++k) {
        dev_ctx &d = c->dev[k];
        CU(cudaSetDevice(d.device));
        k_bitmap_pack<<<blocks_for(c->words * 32), ENT_CTA>>>(d.status, c->n, level, d.bits);
        c->actual.launches++;
        CU(cudaGetLastError());
        CU(cudaMemcpy(c->h_bits, d.bits, bytes, cudaMemcpyDeviceToHost));
        c->actual.host_syncs++;
        for (int64_t w = 0; w < c->words; ++w)
            c->h_or[w] |= c->h_bits[w];
    }
    for (int k = 0; k < c->devices; ++k) {
        dev_ctx &d = c->dev[k];
        CU(cudaSetDevice(d.device));
        CU(cudaMemcpy(d.bits, c->h_or, bytes, cudaMemcpyHostToDevice));
        c->actual.host_syncs++;
        k_bitmap_merge<<<blocks_for(c->words), ENT_CTA>>>(d.status, d.bits, c->words, c->n, level);
        c->actual.launches++;
        CU(cudaGetLastError());
    }
    for (int k = 0; k < c->devices; ++k) {
        CU(cudaSetDevice(c->dev[k].device));
        CU(cudaDeviceSynchronize());
        c->actual.host_syncs++;
    }
    return 0;
}

/* §4.1: scan into bins, prefix-sum the counts, scatter; q <- the new queue;
 * the class bounds and counters come back in one copy. */
int op_generate(void *self, int k, ent_gen_kind kind, int32_t level, int64_t slen, int fill_hc,
                int64_t *found, int64_t *hubs)
{
    gpu_ctx *c = static_cast<gpu_ctx *>(self);
    dev_ctx &d = c->dev[k];
    CU(cudaSetDevice(d.device));
    const int64_t work = kind == ENT_GEN_SHRINK   ? qtotal(d)
                         : kind == ENT_GEN_SPARSE ? slen
                                                  : d.hi - d.lo;
    const int64_t T = ent_gen_threads(work), chunk = (work + T - 1) / T;
    int64_t *hc = fill_hc ? d.hc : nullptr;
    const int64_t tau = c->tau;
    CU(cudaMemsetAsync(d.acc, 0, 2 * sizeof(unsigned long long)));
    if (hc) {
        k_fill_hc<<<1, ENT_CTA>>>(hc);
        c->actual.launches++;
    }
    switch (kind) {
    case ENT_GEN_INTERLEAVED:
        k_gen_interleaved<<<blocks_for(T), ENT_CTA>>>(d.g, d.status, d.lo, d.hi, T, chunk, level,
                                                      tau, d.bins, d.binlen, d.counts, d.acc);
        break;
    case ENT_GEN_CONTIGUOUS:
        k_gen_contiguous<<<blocks_for(T), ENT_CTA>>>(d.g, d.status, d.lo, d.hi, T, chunk, level,
                                                     tau, d.bins, hc, d.binlen, d.counts, d.acc);
        break;
    case ENT_GEN_SHRINK:
        k_gen_shrink<<<blocks_for(T), ENT_CTA>>>(d.g, d.status, d.q, work, T, chunk, tau, d.bins,
                                                 hc, d.binlen, d.counts, d.acc);
        break;
    default: /* ENT_GEN_SPARSE */
        k_gen_sparse<<<blocks_for(T), ENT_CTA>>>(d.g, d.bins, slen, T, chunk, tau, d.binlen,
                                                 d.counts, d.acc);
        break;
    }
    c->actual.launches++;
    CU(cudaGetLastError());
    CU(cudaMemsetAsync(d.counts + ENT_CLASSES * T, 0, sizeof(int64_t)));
    size_t bytes = d.scan_bytes;
    CU(cub::DeviceScan::ExclusiveSum(d.scan_tmp, bytes, d.counts, d.offs,
                                     (int)(ENT_CLASSES * T + 1)));
    c->actual.launches++;
    k_scatter<<<blocks_for(T), ENT_CTA>>>(d.g, d.bins, chunk, d.binlen, d.offs, T, d.qn);
    c->actual.launches++;
    CU(cudaGetLastError());
    k_bounds<<<1, 32>>>(d.offs, T, d.acc, d.small);
    c->actual.launches++;
    CU(cudaGetLastError());
    int64_t got[ENT_CLASSES + 3];
    CU(cudaMemcpy(got, d.small, sizeof got, cudaMemcpyDeviceToHost));
    c->actual.host_syncs++;
    for (int j = 0; j < ENT_CLASSES; ++j)
        d.qlen[j] = got[j + 1] - got[j];
    *found += got[ENT_CLASSES + 1];
    *hubs += got[ENT_CLASSES + 2];
    int64_t *t = d.q;
    d.q = d.qn;
    d.qn = t;
    return 0;
}

/* Gather: levels agree everywhere; a parent lives where it was found. */
int op_gather(void *self, ompdag_bfs_result *r)
{
    gpu_ctx *c = static_cast<gpu_ctx *>(self);
    const size_t n = (size_t)c->n;
    CU(cudaSetDevice(c->dev[0].device));
    CU(cudaMemcpy(r->levels, c->dev[0].status, n * sizeof(int32_t), cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(r->parents, c->dev[0].parent, n * sizeof(int64_t), cudaMemcpyDeviceToHost));
    c->actual.host_syncs += 2;
    for (int k = 1; k < c->devices; ++k) {
        CU(cudaSetDevice(c->dev[k].device));
        CU(cudaMemcpy(c->h_parent, c->dev[k].parent, n * sizeof(int64_t), cudaMemcpyDeviceToHost));
        c->actual.host_syncs++;
        for (size_t v = 0; v < n; ++v)
            if (r->parents[v] < 0) r->parents[v] = c->h_parent[v];
    }
    return 0;
}

const char *op_error(void *self)
{
    return cudaGetErrorString(static_cast<gpu_ctx *>(self)->last);
}

const ent_backend_ops gpu_ops = {op_init,   op_queue_lengths, op_frontier_edges,
                                 op_expand, op_exchange,      op_generate,
                                 op_gather, nullptr,          op_error};

#undef CU
#define CU(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) return e_;                                                          \
    } while (0)

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
    CU(cudaMalloc(&d.small, (ENT_CLASSES + 3) * sizeof(int64_t)));
    int items = (int)std::max<int64_t>(ENT_CLASSES * kMaxThreads + 1, (int64_t)n + 2);
    size_t bytes = 0;
    CU(cub::DeviceScan::ExclusiveSum(nullptr, bytes, d.counts, d.offs, items));
    d.scan_bytes = bytes;
    CU(cudaMalloc(&d.scan_tmp, bytes));
    for (cudaStream_t &st : d.streams)
        CU(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
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
        return ompdag_error_set(
            err, OMPDAG_ERR_UNSUPPORTED,
            "gpu: --devices %d but this machine has %d CUDA device(s); gpu-sim simulates more",
            opts->devices, count);
    gpu_ctx *c = static_cast<gpu_ctx *>(r->gpu_ctx);
    if (c && (r->gpu_free != ctx_free || c->host != g || c->uid != g->uid ||
              c->devices != opts->devices)) {
        r->gpu_free(r->gpu_ctx);
        r->gpu_ctx = nullptr;
        c = nullptr;
    }
    if (!c) {
        c = new (std::nothrow) gpu_ctx();
        if (!c) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "gpu: out of memory");
        c->host = g;
        c->uid = g->uid;
        c->n = g->n;
        c->words = (g->n + 31) / 32;
        c->devices = opts->devices;
        c->h_bits = static_cast<uint32_t *>(calloc((size_t)c->words + 1, sizeof(uint32_t)));
        c->h_or = static_cast<uint32_t *>(calloc((size_t)c->words + 1, sizeof(uint32_t)));
        c->h_parent = static_cast<int64_t *>(malloc(((size_t)g->n + 1) * sizeof(int64_t)));
        cudaError_t e =
            c->h_bits && c->h_or && c->h_parent ? cudaSuccess : cudaErrorMemoryAllocation;
        for (int k = 0; k < c->devices && e == cudaSuccess; ++k) {
            c->dev[k].device = k;
            c->dev[k].lo = g->n * k / c->devices;
            c->dev[k].hi = g->n * (k + 1) / c->devices;
            e = upload(c->dev[k], g);
        }
        if (e != cudaSuccess) {
            ctx_free(c);
            return ompdag_error_set(
                err, e == cudaErrorMemoryAllocation ? OMPDAG_ERR_NOMEM : OMPDAG_ERR_UNSUPPORTED,
                "gpu: uploading the graph failed: %s", cudaGetErrorString(e));
        }
        r->gpu_ctx = c;
        r->gpu_graph = g;
        r->gpu_free = ctx_free;
    }
    if (c->tau != opts->tau) { /* Th for this τ, counted once on the host */
        int64_t th = 0;
        for (int64_t v = 0; v < g->n; ++v)
            th += g->offsets[v + 1] - g->offsets[v] > opts->tau;
        c->tau = opts->tau;
        c->Th = th;
    }
    c->actual = bfs_counts{0, 0, 0};
    const ent_backend be = {&gpu_ops, c, "gpu", c->devices, c->n, c->Th, g->symmetric};
    double t0 = ompdag_now_s();
    ompdag_status st = ent_drive(&be, source, opts, r, err);
    r->seconds = ompdag_now_s() - t0;
    if (st == OMPDAG_OK &&
        (c->actual.launches != r->counts.launches || c->actual.host_syncs != r->counts.host_syncs))
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                "gpu: internal: the design (ent_driver.c) counts %lld launches and "
                                "%lld host syncs, the device made %lld and %lld",
                                (long long)r->counts.launches, (long long)r->counts.host_syncs,
                                (long long)c->actual.launches, (long long)c->actual.host_syncs);
    return st;
}
