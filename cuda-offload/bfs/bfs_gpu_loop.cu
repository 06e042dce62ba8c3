/*
 * bfs_gpu_loop.cu — the gpu engine's device-driven level loop (ent_loop.h):
 * Enterprise (Liu & Huang, SC'15; seed 003_3a3244e76776a6bb.txt §4) with
 * the whole search in ONE cooperative kernel.  Every thread runs the phases
 * of ent_loop.h with a grid barrier after each and makes the direction and
 * queue decisions itself from the level counters, so a search costs one
 * launch and one host synchronisation whatever its depth.  With
 * OMPDAG_BFS_LOOP_HOST the same kernel runs one phase per launch and the
 * host decides (one launch and one synchronisation per phase): the
 * comparison that shows what the device loop saves.
 *
 * The warp / CTA / grid bottom-up passes over the static big-vertex lists
 * vote with __ballot_sync and __syncthreads_or (gpu-sim forms the same votes
 * lane by lane in bfs_gpu_sim.c); everything else is the shared header code.
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

extern "C" {
#include "bfs_internal.h"
#include "ompdag/internal/clock.h"
}
#include "ent_loop.h"

namespace cg = cooperative_groups;

/* Vertices per CTA below which a small graph gets a smaller grid, and the
 * resident CTAs per SM the kernel is compiled for (registers: 65536 /
 * (256 x this)); both chosen by measurement on an H100 (docs/bfs.md). */
#define ENT_LOOP_VERTS_PER_CTA 512
#ifndef ENT_LOOP_MIN_BLOCKS
#define ENT_LOOP_MIN_BLOCKS 4
#endif

namespace
{

struct loop_ctx {
    const ompdag_graph *host = nullptr;
    uint64_t uid = 0;
    int64_t n = 0, words = 0;
    int64_t *off = nullptr;
    int32_t *adj32 = nullptr;
    int64_t *adj64 = nullptr;
    int32_t *status = nullptr;
    int64_t *parent = nullptr;
    int64_t *qbuf = nullptr;
    uint32_t *bmbuf = nullptr;
    unsigned long long *hc = nullptr;
    int64_t *big = nullptr;
    int64_t nbig[3] = {0, 0, 0};
    ent_ctl *ctl = nullptr;
    ent_rec *rec = nullptr;
    int32_t rec_cap = 0;
    int64_t tau = -1, Th = 0; /* Th for this τ, counted on the host */
    int blocks = 0;           /* cooperative grid: SMs x resident CTAs */
    std::vector<ent_rec> h_rec;
};

void loop_free(void *p)
{
    loop_ctx *c = static_cast<loop_ctx *>(p);
    if (!c) return;
    void *bufs[] = {c->off,   c->adj32, c->adj64, c->status, c->parent, c->qbuf,
                    c->bmbuf, c->hc,    c->big,   c->ctl,    c->rec};
    for (void *b : bufs)
        if (b) cudaFree(b);
    delete c;
}

#define CU(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) return e_;                                                          \
    } while (0)

/* ---- the warp / CTA / grid bottom-up passes (votes need the hardware) ---- */

__device__ void bu_warp_pass(const ent_loop_args &a, int32_t level, const unsigned long long *hc,
                             ent_local *l, int64_t gid, int64_t G, int64_t *hits)
{
    const int lane = threadIdx.x & 31;
    const int64_t *mid = a.big;
    for (int64_t i = gid / ENT_WARP; i < a.nbig[0]; i += G / ENT_WARP) {
        const int64_t v = mid[i];
        if (a.status[v] != ENT_UNVISITED)
            continue; /* only this warp writes v: the same answer on every lane */
        const int64_t b = a.g.off[v], e = a.g.off[v + 1];
        for (int64_t base = b; base < e; base += ENT_WARP) {
            const int64_t k = base + lane;
            int64_t u = -1;
            int hit = 0;
            if (k < e) {
                u = ent_nbr(a.g, k);
                hit = ent_loop_probe(&a, u, level, hc, hits);
            }
            const unsigned mask = __ballot_sync(0xffffffffu, hit);
            if (mask) {
                if (lane == __ffs(mask) - 1) ent_loop_commit(&a, v, u, level, l);
                break;
            }
        }
    }
}

__device__ void bu_cta_pass(const ent_loop_args &a, int32_t level, const unsigned long long *hc,
                            ent_local *l, int *winner, int64_t *hits)
{
    const int64_t *large = a.big + a.nbig[0];
    for (int64_t i = blockIdx.x; i < a.nbig[1]; i += gridDim.x) {
        const int64_t v = large[i];
        if (a.status[v] != ENT_UNVISITED)
            continue; /* block-uniform: only this CTA writes v, after a barrier */
        const int64_t b = a.g.off[v], e = a.g.off[v + 1];
        for (int64_t base = b; base < e; base += blockDim.x) {
            if (threadIdx.x == 0) *winner = INT_MAX;
            __syncthreads();
            const int64_t k = base + threadIdx.x;
            int64_t u = -1;
            int hit = 0;
            if (k < e) {
                u = ent_nbr(a.g, k);
                hit = ent_loop_probe(&a, u, level, hc, hits);
            }
            if (hit) atomicMin(winner, (int)threadIdx.x);
            if (__syncthreads_or(hit)) {
                if ((int)threadIdx.x == *winner) ent_loop_commit(&a, v, u, level, l);
                break;
            }
        }
        __syncthreads();
    }
}

__device__ void bu_grid_pass(const ent_loop_args &a, int32_t level, const unsigned long long *hc,
                             ent_local *l, int64_t gid, int64_t G, int64_t *hits)
{
    const int64_t *ext = a.big + a.nbig[0] + a.nbig[1];
    for (int64_t i = 0; i < a.nbig[2]; ++i) {
        const int64_t v = ext[i];
        const int64_t b = a.g.off[v], e = a.g.off[v + 1];
        for (int64_t k = b + gid; k < e; k += G) {
            if (((volatile int32_t *)a.status)[v] != ENT_UNVISITED)
                break; /* another thread found a parent */
            const int64_t u = ent_nbr(a.g, k);
            if (ent_loop_probe(&a, u, level, hc, hits)) {
                if (ent_cas_claim(a.status, v, level)) {
                    a.parent[v] = u;
                    if (a.bmbuf) ent_bit_set(ENT_BITMAP(&a, level % 3), v);
                    ent_loop_found(&a, v, level, l);
                }
                break;
            }
        }
    }
}

__device__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* One copy of the level counters per CTA (volatile: other SMs wrote them
 * with atomics); every thread decides from it after the barrier. */
__device__ void load_counters(const ent_ctl *ctl, ent_lvl *cnt)
{
    __syncthreads(); /* the previous copy is no longer read */
    if (threadIdx.x == 0) {
        const volatile unsigned long long *src = (const volatile unsigned long long *)ctl->cnt;
        unsigned long long *dst = (unsigned long long *)cnt;
        for (size_t i = 0; i < 4 * sizeof(ent_lvl) / sizeof(unsigned long long); ++i)
            dst[i] = src[i];
    }
    __syncthreads();
}

/* One search (one_phase = 0) or one phase (one_phase = 1, the host loop). */
__global__ void __launch_bounds__(ENT_CTA, ENT_LOOP_MIN_BLOCKS)
    k_loop(ent_loop_args a, ent_loop_state s, int one_phase)
{
    __shared__ unsigned long long hcs[ENT_HC_SIZE];
    __shared__ ent_lvl cnt[4];
    __shared__ int winner;
    const int64_t gid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t G = (int64_t)gridDim.x * blockDim.x;
    unsigned long long t_prev = 0;
    if (gid == 0) t_prev = global_ns();
    load_counters(a.ctl, cnt);
    for (;;) {
        ent_local l = {0, 0, 0};
        int64_t hits = 0;
        switch (s.phase) {
        case ENT_PH_INIT:
            ent_ph_init(&a, gid, G);
            break;
        case ENT_PH_TD:
            ent_ph_td(&a, cnt, s.level, gid, G, &l);
            ent_flush(&a.ctl->cnt[s.level % 4], &l);
            break;
        case ENT_PH_BU: {
            const unsigned long long *hc = nullptr;
            if (a.hc) {
                const unsigned long long *src = a.hc + ((s.level - 1) & 1) * ENT_HC_SIZE;
                for (int i = threadIdx.x; i < ENT_HC_SIZE; i += blockDim.x)
                    hcs[i] = src[i];
                __syncthreads();
                hc = hcs;
            }
            ent_ph_bu_thread(&a, s.level, gid, G, hc, &l, &hits);
            if (a.balance) {
                bu_warp_pass(a, s.level, hc, &l, gid, G, &hits);
                bu_cta_pass(a, s.level, hc, &l, &winner, &hits);
                bu_grid_pass(a, s.level, hc, &l, gid, G, &hits);
            }
            ent_flush(&a.ctl->cnt[s.level % 4], &l);
            break;
        }
        case ENT_PH_CONVERT:
            ent_ph_convert(&a, s.level, gid, G);
            break;
        default:
            return;
        }
        if (one_phase) return;
        cg::this_grid().sync();
        /* The same decision in every thread, from one copy of the counters per CTA. */
        load_counters(a.ctl, cnt);
        const int phase = s.phase;
        const int32_t L = s.level;
        ent_loop_decide(&a, cnt, &s, gid == 0 ? a.rec : nullptr, a.rec_cap, &a.ctl->overflow);
        if (gid == 0) {
            a.ctl->barriers++;
            const unsigned long long t = global_ns();
            if (phase == ENT_PH_INIT) {
                a.ctl->init_ns = (int64_t)(t - t_prev);
                t_prev = t;
            } else if (phase != ENT_PH_CONVERT) {
                if (L < a.rec_cap && s.phase != ENT_PH_DONE) a.rec[L].ns = (int64_t)(t - t_prev);
                t_prev = t;
            }
        }
        if (s.phase == ENT_PH_DONE) {
            if (gid == 0) a.ctl->levels = s.level;
            return;
        }
    }
}

cudaError_t loop_upload(loop_ctx *c, const ompdag_graph *g)
{
    const size_t n = (size_t)g->n, m = (size_t)(g->m > 0 ? g->m : 1);
    c->host = g;
    c->uid = g->uid;
    c->n = g->n;
    c->words = (g->n + 31) / 32;
    CU(cudaMalloc(&c->off, (n + 1) * sizeof(int64_t)));
    CU(cudaMemcpy(c->off, g->offsets, (n + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
    if (g->adj32) {
        CU(cudaMalloc(&c->adj32, m * sizeof(int32_t)));
        CU(cudaMemcpy(c->adj32, g->adj32, (size_t)g->m * sizeof(int32_t), cudaMemcpyHostToDevice));
    } else {
        CU(cudaMalloc(&c->adj64, m * sizeof(int64_t)));
        CU(cudaMemcpy(c->adj64, g->adj64, (size_t)g->m * sizeof(int64_t), cudaMemcpyHostToDevice));
    }
    CU(cudaMalloc(&c->status, (n + 1) * sizeof(int32_t)));
    CU(cudaMalloc(&c->parent, (n + 1) * sizeof(int64_t)));
    CU(cudaMalloc(&c->qbuf, (2 * ENT_CLASSES * n + 1) * sizeof(int64_t)));
    CU(cudaMalloc(&c->bmbuf, (3 * (size_t)c->words + 1) * sizeof(uint32_t)));
    CU(cudaMalloc(&c->hc, 2 * ENT_HC_SIZE * sizeof(unsigned long long)));
    /* The static big-vertex lists: Middle, Large, Extreme (graph properties). */
    std::vector<int64_t> lists[3];
    for (int64_t v = 0; v < g->n; ++v) {
        const int cls = ent_class(g->offsets[v + 1] - g->offsets[v]);
        if (cls > 0) lists[cls - 1].push_back(v);
    }
    size_t total = 0;
    for (int k = 0; k < 3; ++k) {
        c->nbig[k] = (int64_t)lists[k].size();
        total += lists[k].size();
    }
    CU(cudaMalloc(&c->big, (total + 1) * sizeof(int64_t)));
    size_t at = 0;
    for (int k = 0; k < 3; ++k) {
        if (!lists[k].empty())
            CU(cudaMemcpy(c->big + at, lists[k].data(), lists[k].size() * sizeof(int64_t),
                          cudaMemcpyHostToDevice));
        at += lists[k].size();
    }
    CU(cudaMalloc(&c->ctl, sizeof(ent_ctl)));
    CU(cudaMemset(c->ctl, 0, sizeof(ent_ctl)));
    c->rec_cap = 1024;
    CU(cudaMalloc(&c->rec, (size_t)c->rec_cap * sizeof(ent_rec)));
    int dev = 0, sms = 0, per_sm = 0, coop = 0;
    CU(cudaGetDevice(&dev));
    CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CU(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    if (!coop) return cudaErrorCooperativeLaunchTooLarge;
    CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_loop, ENT_CTA, 0));
    /* A grid barrier costs more with more CTAs: a small graph gets a grid
     * about its size (ENT_LOOP_VERTS_PER_CTA vertices per CTA), a big one
     * every CTA that fits (OMPDAG_BFS_GPU_BLOCKS overrides, for measuring). */
    const int64_t full = (int64_t)sms * std::max(per_sm, 1);
    int64_t want = std::max<int64_t>(sms, g->n / ENT_LOOP_VERTS_PER_CTA);
    if (const char *env = getenv("OMPDAG_BFS_GPU_BLOCKS"))
        want = atoll(env) > 0 ? atoll(env) : want;
    c->blocks = (int)std::min(full, std::max<int64_t>(want, 1));
    return cudaSuccess;
}

ent_loop_args make_args(loop_ctx *c, const ompdag_bfs_options *o, int64_t source)
{
    const ompdag_graph *g = c->host;
    if (c->tau != o->tau) {
        int64_t th = 0;
        for (int64_t v = 0; v < g->n; ++v)
            th += g->offsets[v + 1] - g->offsets[v] > o->tau;
        c->tau = o->tau;
        c->Th = th;
    }
    ent_loop_args a;
    memset(&a, 0, sizeof a);
    a.g = ent_graph{g->n, c->off, c->adj32, c->adj64};
    a.source = source;
    a.tau = o->tau;
    a.Th = c->Th;
    a.arcs = g->m;
    a.status = c->status;
    a.parent = c->parent;
    a.qbuf = c->qbuf;
    a.bmbuf = o->bitmap ? c->bmbuf : nullptr;
    a.words = c->words;
    a.hc = o->hub_cache && g->n <= (int64_t)UINT32_MAX ? c->hc : nullptr;
    a.big = c->big;
    for (int k = 0; k < 3; ++k)
        a.nbig[k] = o->balance ? c->nbig[k] : 0;
    a.ctl = c->ctl;
    a.rec = c->rec;
    a.rec_cap = c->rec_cap;
    a.rule = o->direction == OMPDAG_BFS_SWITCH_ALPHA  ? ENT_RULE_ALPHA
             : o->direction == OMPDAG_BFS_SWITCH_NONE ? ENT_RULE_NONE
                                                      : ENT_RULE_GAMMA;
    a.gamma = o->gamma;
    a.alpha = o->alpha;
    a.beta = o->beta;
    a.balance = o->balance;
    a.symmetric = g->symmetric;
    return a;
}

/* The device loop: one cooperative launch, one synchronisation. */
cudaError_t run_device(loop_ctx *c, const ent_loop_args &a, ent_ctl *out, bfs_counts *k)
{
    ent_loop_state s;
    memset(&s, 0, sizeof s);
    s.phase = ENT_PH_INIT;
    int one = 0;
    void *params[] = {(void *)&a, (void *)&s, (void *)&one};
    CU(cudaLaunchCooperativeKernel((const void *)k_loop, dim3((unsigned)c->blocks), dim3(ENT_CTA),
                                   params, 0, 0));
    k->launches++;
    CU(cudaMemcpy(out, c->ctl, sizeof *out, cudaMemcpyDeviceToHost));
    k->host_syncs++;
    k->barriers += out->barriers;
    return cudaSuccess;
}

/* The host loop: the same phases, one launch and one synchronisation each;
 * the host makes the decisions from the counters it copies back. */
cudaError_t run_host(loop_ctx *c, const ent_loop_args &a, ent_ctl *out, bfs_counts *k)
{
    ent_loop_state s;
    memset(&s, 0, sizeof s);
    s.phase = ENT_PH_INIT;
    int one = 1;
    c->h_rec.assign((size_t)c->rec_cap, ent_rec{});
    int32_t overflow = 0;
    for (;;) {
        k_loop<<<c->blocks, ENT_CTA>>>(a, s, one);
        k->launches++;
        CU(cudaGetLastError());
        CU(cudaMemcpy(out, c->ctl, sizeof *out, cudaMemcpyDeviceToHost));
        k->host_syncs++;
        ent_loop_decide(&a, out->cnt, &s, c->h_rec.data(), c->rec_cap, &overflow);
        if (s.phase == ENT_PH_DONE) break;
    }
    out->levels = s.level;
    out->overflow = overflow;
    out->init_ns = 0;
    return cudaSuccess;
}

} // namespace

extern "C" ompdag_status bfs_engine_gpu_loop(const ompdag_graph *g, int64_t source,
                                             const ompdag_bfs_options *opts, ompdag_bfs_result *r,
                                             ompdag_error *err)
{
    loop_ctx *c = static_cast<loop_ctx *>(r->gpu_ctx);
    if (c && (r->gpu_free != loop_free || c->host != g || c->uid != g->uid)) {
        r->gpu_free(r->gpu_ctx);
        r->gpu_ctx = nullptr;
        c = nullptr;
    }
    if (!c) {
        c = new (std::nothrow) loop_ctx();
        if (!c) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "gpu: out of memory");
        cudaError_t e = loop_upload(c, g);
        if (e != cudaSuccess) {
            loop_free(c);
            return ompdag_error_set(
                err, e == cudaErrorMemoryAllocation ? OMPDAG_ERR_NOMEM : OMPDAG_ERR_UNSUPPORTED,
                "gpu: uploading the graph failed: %s", cudaGetErrorString(e));
        }
        r->gpu_ctx = c;
        r->gpu_graph = g;
        r->gpu_free = loop_free;
    }
    const bool host_loop = opts->loop == OMPDAG_BFS_LOOP_HOST;
    ent_ctl out;
    bfs_counts k;
    for (;;) {
        memset(&k, 0, sizeof k);
        ent_loop_args a = make_args(c, opts, source);
        double t0 = ompdag_now_s();
        cudaError_t e = host_loop ? run_host(c, a, &out, &k) : run_device(c, a, &out, &k);
        r->seconds = ompdag_now_s() - t0;
        if (e != cudaSuccess)
            return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED, "gpu: CUDA error: %s",
                                    cudaGetErrorString(e));
        if (!out.overflow) break;
        /* More levels than records: grow to the depth just seen and search again. */
        cudaFree(c->rec);
        c->rec = nullptr;
        c->rec_cap = out.levels + 1;
        if (cudaMalloc(&c->rec, (size_t)c->rec_cap * sizeof(ent_rec)) != cudaSuccess)
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM,
                                    "gpu: out of memory for %d level records", c->rec_cap);
    }
    r->counts = k;
    /* The result stays on the device until here; the download is not part of the search time. */
    const double t1 = ompdag_now_s();
    const size_t n = (size_t)g->n;
    cudaError_t e = cudaMemcpy(r->levels, c->status, n * sizeof(int32_t), cudaMemcpyDeviceToHost);
    if (e == cudaSuccess)
        e = cudaMemcpy(r->parents, c->parent, n * sizeof(int64_t), cudaMemcpyDeviceToHost);
    std::vector<ent_rec> recs;
    if (!host_loop && e == cudaSuccess && out.levels > 1) {
        recs.resize((size_t)out.levels);
        e = cudaMemcpy(recs.data(), c->rec, (size_t)out.levels * sizeof(ent_rec),
                       cudaMemcpyDeviceToHost);
    }
    if (e != cudaSuccess)
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED, "gpu: CUDA error: %s",
                                cudaGetErrorString(e));
    const ent_rec *src = host_loop ? c->h_rec.data() : recs.data();
    for (int32_t L = 1; L < out.levels; ++L) {
        ompdag_bfs_level *rec = bfs_result_level_at(r, L);
        if (!rec)
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "gpu: out of memory for level records");
        bfs_level_from_rec(rec, &src[L], c->Th, host_loop);
    }
    r->download_seconds = ompdag_now_s() - t1;
    return OMPDAG_OK;
}
