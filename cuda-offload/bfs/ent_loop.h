/*
 * ent_loop.h — the device-driven level loop of the gpu engine: Enterprise's
 * techniques (Liu & Huang, SC'15; seed 003_3a3244e76776a6bb.txt §4:
 * degree-classified queues served by thread / warp / CTA / grid, γ-based
 * direction switching, the hub cache) inside ONE persistent cooperative
 * kernel per search, with the direction-optimizing rules of Beamer et al.
 * (SC'12) as an alternative switch and a bitmap frontier for bottom-up.
 *
 * Written once as __host__ __device__ code.  bfs_gpu.cu runs it as one
 * cooperative kernel (every thread runs the phases below, a grid barrier
 * after each, then every thread makes the same decision from the same
 * counters: no host synchronisation per level); gpu-sim runs the very same
 * phase and decision functions on the host, thread by thread, and counts the
 * launches, grid barriers and host synchronisations the design makes.
 *
 * Phases (one grid barrier after each):
 *   INIT     status / parent reset, hub cache cleared, the source queued;
 *   TD(L)    top-down: the level-(L-1) queue, four class segments, is
 *            expanded by thread (Small), warp (Middle), CTA (Large) and the
 *            whole grid (Extreme); a claim is a compare-and-swap; what is
 *            claimed is appended to the level-L queue by class (warp-
 *            aggregated atomics replace the seed's prefix-sum bins);
 *   CONVERT  at the switch to bottom-up only: the level-L frontier is packed
 *            into a bitmap from the status array (one pass, no atomics);
 *   BU(L)    bottom-up: every unvisited vertex of degree < 32 looks, one
 *            thread each, for a neighbour in the level-(L-1) bitmap (or, with
 *            the bitmap off, a neighbour whose status is L-1) and stops at the
 *            first; the vertices of degree >= 32 come from static class lists
 *            (graph properties, built once at upload) and are served by a
 *            warp, a CTA or the grid, which vote to stop together.  What is
 *            found goes into the level-L bitmap and the level-L queue, so a
 *            switch back to top-down costs nothing.
 * Rotation, so that no phase needs a second barrier: phase L adds into
 * counters cnt[L % 4] and clears cnt[(L + 1) % 4]; the decision after phase
 * L reads cnt[L % 4] and cnt[(L - 1) % 4]; bitmaps rotate by 3 (BU(L) reads
 * L-1, writes L, clears L+1); queues and hub caches by 2.  Hub-cache entries
 * carry their level as a tag, so they never need clearing within a search.
 */
#ifndef OMPDAG_ENT_LOOP_H
#define OMPDAG_ENT_LOOP_H

#include "enterprise_kernels.h"

#ifdef __CUDACC__
#include <cooperative_groups.h>
#endif

enum { ENT_PH_INIT = 0, ENT_PH_TD, ENT_PH_BU, ENT_PH_CONVERT, ENT_PH_DONE };
enum { ENT_RULE_GAMMA = 0, ENT_RULE_ALPHA = 1, ENT_RULE_NONE = 2 };

/* Per-level counters, added to with atomics during a phase. */
typedef struct ent_lvl {
    unsigned long long found;  /* vertices found at the level */
    unsigned long long degsum; /* their out-degree sum (the next level's frontier edges) */
    unsigned long long hubs;   /* Fh: hubs (degree > τ) among them */
    unsigned long long qlen[ENT_CLASSES];
} ent_lvl;

/* What the device records of one level (copied to the host once). */
typedef struct ent_rec {
    int32_t direction; /* OMPDAG_BFS_TOP_DOWN / _BOTTOM_UP: how the level was found */
    int32_t converted; /* 1 when a CONVERT phase followed this level */
    int64_t found, hubs, edges, queue[ENT_CLASSES];
    int64_t
        ns; /* device loop: device time of the level (global timer), a CONVERT before it included */
} ent_rec;

typedef struct ent_ctl {
    ent_lvl cnt[4];
    int32_t levels;   /* level count, set at the end (the source's level included) */
    int32_t overflow; /* 1 when a level was past rec_cap (the host grows it and reruns) */
    int64_t barriers; /* grid barriers passed (device loop) */
    int64_t init_ns;  /* device loop: device time of the INIT phase */
} ent_ctl;

/* Everything a phase needs; passed by value to the kernel. */
typedef struct ent_loop_args {
    ent_graph g;
    int64_t source, tau, Th, arcs;
    int32_t *status;
    int64_t *parent;
    int64_t *qbuf;   /* 2 x ENT_CLASSES queues of n entries: (parity * 4 + class) * n */
    uint32_t *bmbuf; /* 3 bitmaps of `words` words (NULL when the bitmap is off) */
    int64_t words;
    unsigned long long *hc; /* 2 x ENT_HC_SIZE tagged entries (NULL when the cache is off) */
    const int64_t *big;     /* vertices of degree >= 32: Middle, then Large, then Extreme */
    int64_t nbig[3];
    ent_ctl *ctl;
    ent_rec *rec; /* rec[L] for L in [1, rec_cap) */
    int32_t rec_cap;
    int32_t rule; /* ENT_RULE_* */
    double gamma, alpha, beta;
    int balance;   /* degree classes (off: everything is Small, one thread per vertex) */
    int symmetric; /* bottom-up needs in-edges: a directed graph stays top-down */
} ent_loop_args;

/* The loop state every thread keeps identically. */
typedef struct ent_loop_state {
    int phase;
    int32_t level; /* the level the next TD/BU phase finds */
    int dir;       /* direction of that level */
    int64_t prev_found, explored;
} ent_loop_state;

#define ENT_QUEUE(a, parity, cls) ((a)->qbuf + ((int64_t)(parity)*ENT_CLASSES + (cls)) * (a)->g.n)
#define ENT_BITMAP(a, k) ((a)->bmbuf + (int64_t)(k) * (a)->words)
#define ENT_HC_TAG(level, v) (((unsigned long long)(uint32_t)(level) << 32) | (uint32_t)(v))

/* Thread-local sums, flushed once per phase. */
typedef struct ent_local {
    unsigned long long found, degsum, hubs;
} ent_local;

ENT_HD int ent_loop_class(const ent_loop_args *a, int64_t degree)
{
    return a->balance ? ent_class(degree) : 0;
}

/* ---- device primitives with their serial host equivalents ---- */

ENT_HD int ent_cas_claim(int32_t *status, int64_t w, int32_t level)
{
#ifdef __CUDA_ARCH__
    if (status[w] != ENT_UNVISITED) return 0;
    return atomicCAS((int *)&status[w], ENT_UNVISITED, (int)level) == ENT_UNVISITED;
#else
    if (status[w] != ENT_UNVISITED) return 0;
    status[w] = level;
    return 1;
#endif
}

/* Reserves one slot in a queue whose length is *len (warp-aggregated on the
 * device: one atomic per class per warp). */
ENT_HD unsigned long long ent_append(unsigned long long *len, int cls)
{
#ifdef __CUDA_ARCH__
    namespace cg = cooperative_groups;
    cg::coalesced_group act = cg::coalesced_threads();
    cg::coalesced_group grp = cg::labeled_partition(act, cls);
    unsigned long long base = 0;
    if (grp.thread_rank() == 0) base = atomicAdd(len, (unsigned long long)grp.size());
    base = grp.shfl(base, 0);
    return base + grp.thread_rank();
#else
    (void)cls;
    return (*len)++;
#endif
}

ENT_HD void ent_bit_set(uint32_t *bm, int64_t v)
{
#ifdef __CUDA_ARCH__
    atomicOr(&bm[v >> 5], 1u << (v & 31));
#else
    bm[v >> 5] |= 1u << (v & 31);
#endif
}

ENT_HD int ent_bit_get(const uint32_t *bm, int64_t v)
{
    return (int)((bm[v >> 5] >> (v & 31)) & 1u);
}

/* Adds a thread's sums to the level's counters (warp-reduced on the device;
 * every lane of the warp must call it). */
ENT_HD void ent_flush(ent_lvl *c, ent_local *l)
{
#ifdef __CUDA_ARCH__
    for (int off = 16; off > 0; off >>= 1) {
        l->found += __shfl_down_sync(0xffffffffu, l->found, off);
        l->degsum += __shfl_down_sync(0xffffffffu, l->degsum, off);
        l->hubs += __shfl_down_sync(0xffffffffu, l->hubs, off);
    }
    if ((threadIdx.x & 31) == 0 && l->found) {
        atomicAdd(&c->found, l->found);
        atomicAdd(&c->degsum, l->degsum);
        if (l->hubs) atomicAdd(&c->hubs, l->hubs);
    }
#else
    c->found += l->found;
    c->degsum += l->degsum;
    c->hubs += l->hubs;
#endif
    l->found = l->degsum = l->hubs = 0;
}

/* ---- the per-thread parts of the phases ---- */

/* v was just claimed at `level`: count it, queue it by class, cache a hub. */
ENT_HD void ent_loop_found(const ent_loop_args *a, int64_t v, int32_t level, ent_local *l)
{
    const int64_t d = ent_degree(a->g, v);
    l->found++;
    l->degsum += (unsigned long long)d;
    const int hub = d > a->tau;
    l->hubs += (unsigned long long)hub;
    const int cls = ent_loop_class(a, d);
    unsigned long long pos = ent_append(&a->ctl->cnt[level % 4].qlen[cls], cls);
    ENT_QUEUE(a, level & 1, cls)[pos] = v;
    if (hub && a->hc) a->hc[(level & 1) * ENT_HC_SIZE + ent_hc_hash(v)] = ENT_HC_TAG(level, v);
}

ENT_HD void ent_ph_init(const ent_loop_args *a, int64_t gid, int64_t G)
{
    const int64_t n = a->g.n, s = a->source;
    for (int64_t v = gid; v < n; v += G) {
        a->status[v] = v == s ? 0 : ENT_UNVISITED;
        a->parent[v] = v == s ? s : -1;
    }
    if (a->hc)
        for (int64_t i = gid; i < 2 * ENT_HC_SIZE; i += G)
            a->hc[i] = ~0ull;
    if (gid == 0) {
        ent_lvl *c0 = &a->ctl->cnt[0];
        for (int k = 0; k < 4; ++k) {
            ent_lvl *c = &a->ctl->cnt[k];
            c->found = c->degsum = c->hubs = 0;
            for (int j = 0; j < ENT_CLASSES; ++j)
                c->qlen[j] = 0;
        }
        const int64_t d = ent_degree(a->g, s);
        c0->found = 1;
        c0->degsum = (unsigned long long)d;
        c0->hubs = d > a->tau;
        const int cls = ent_loop_class(a, d);
        c0->qlen[cls] = 1;
        ENT_QUEUE(a, 0, cls)[0] = s;
        a->ctl->overflow = 0;
        a->ctl->barriers = 0;
    }
}

/* Clears the level's-successor counters: only thread 0, at the start of a
 * level phase (nobody reads or writes them during this phase). */
ENT_HD void ent_clear_next(const ent_loop_args *a, int32_t level, int64_t gid)
{
    if (gid != 0) return;
    ent_lvl *c = &a->ctl->cnt[(level + 1) % 4];
    c->found = c->degsum = c->hubs = 0;
    for (int j = 0; j < ENT_CLASSES; ++j)
        c->qlen[j] = 0;
}

/* Top-down expansion of u by one member (lane of width) of its group.  Four
 * edges per round: their ids, then their statuses, are loaded before any is
 * used, so four random loads are in flight per thread (the level that
 * explodes is bound by their latency). */
#define ENT_ILP 4
ENT_HD void ent_loop_expand(const ent_loop_args *a, int64_t u, int64_t lane, int64_t width,
                            int32_t level, ent_local *l)
{
    const int64_t base = a->g.off[u], deg = a->g.off[u + 1] - base;
    for (int64_t k = lane; k < deg; k += ENT_ILP * width) {
        int64_t w[ENT_ILP];
        int32_t st[ENT_ILP];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
        for (int j = 0; j < ENT_ILP; ++j)
            w[j] = k + j * width < deg ? ent_nbr(a->g, base + k + j * width) : -1;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
        for (int j = 0; j < ENT_ILP; ++j)
            st[j] = w[j] >= 0 ? a->status[w[j]] : 0;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
        for (int j = 0; j < ENT_ILP; ++j)
            if (st[j] == ENT_UNVISITED && ent_cas_claim(a->status, w[j], level)) {
                a->parent[w[j]] = u;
                ent_loop_found(a, w[j], level, l);
            }
    }
}

/* TD(level) for thread gid of G: the four class segments of the previous
 * queue, each served by groups of 1, 32, ENT_CTA and G threads.  cnt: the
 * counters as read after the last barrier. */
ENT_HD void ent_ph_td(const ent_loop_args *a, const ent_lvl *cnt, int32_t level, int64_t gid,
                      int64_t G, ent_local *l)
{
    ent_clear_next(a, level, gid);
    const ent_lvl *prev = &cnt[(level - 1) % 4];
    for (int c = 0; c < ENT_CLASSES; ++c) {
        const int64_t width = c == 0 ? 1 : c == 1 ? ENT_WARP : c == 2 ? ENT_CTA : G;
        const int64_t len = (int64_t)prev->qlen[c];
        const int64_t *q = ENT_QUEUE(a, (level - 1) & 1, c);
        for (int64_t i = gid / width; i < len; i += G / width)
            ent_loop_expand(a, q[i], gid % width, width, level, l);
    }
}

/* Is u a parent for a vertex found bottom-up at `level`?  hc: the hub cache
 * of level-1 (shared memory on the device), may be NULL. */
ENT_HD int ent_loop_probe(const ent_loop_args *a, int64_t u, int32_t level,
                          const unsigned long long *hc, int64_t *hits)
{
    if (hc && hc[ent_hc_hash(u)] == ENT_HC_TAG(level - 1, u)) {
        ++*hits;
        return 1;
    }
    if (a->bmbuf) return ent_bit_get(ENT_BITMAP(a, (level - 1) % 3), u);
    return a->status[u] == level - 1;
}

/* Commits a bottom-up find (v is owned by the caller: no race on it). */
ENT_HD void ent_loop_commit(const ent_loop_args *a, int64_t v, int64_t u, int32_t level,
                            ent_local *l)
{
    a->status[v] = level;
    a->parent[v] = u;
    if (a->bmbuf) ent_bit_set(ENT_BITMAP(a, level % 3), v);
    ent_loop_found(a, v, level, l);
}

/* BU(level), the per-thread part: clears the bitmap of level+1, then every
 * unvisited vertex that is not on a big list looks for a parent.  Returns
 * the neighbour checks made; *hits counts hub-cache answers. */
ENT_HD int64_t ent_ph_bu_thread(const ent_loop_args *a, int32_t level, int64_t gid, int64_t G,
                                const unsigned long long *hc, ent_local *l, int64_t *hits)
{
    ent_clear_next(a, level, gid);
    if (a->bmbuf) {
        uint32_t *nx = ENT_BITMAP(a, (level + 1) % 3);
        for (int64_t w = gid; w < a->words; w += G)
            nx[w] = 0;
    }
    int64_t probes = 0;
    const int64_t n = a->g.n;
    for (int64_t v = gid; v < n; v += G) {
        if (a->status[v] != ENT_UNVISITED) continue;
        const int64_t b = a->g.off[v], e = a->g.off[v + 1];
        if (a->balance && e - b >= ENT_SMALL_LIMIT) continue; /* on a big list */
        /* ENT_ILP neighbours per round, their checks loaded together. */
        for (int64_t k = b; k < e; k += ENT_ILP) {
            int64_t u[ENT_ILP];
            int hit[ENT_ILP];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
            for (int j = 0; j < ENT_ILP; ++j)
                u[j] = k + j < e ? ent_nbr(a->g, k + j) : -1;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
            for (int j = 0; j < ENT_ILP; ++j)
                hit[j] = u[j] >= 0 && ent_loop_probe(a, u[j], level, hc, hits);
            int first = -1;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
            for (int j = ENT_ILP - 1; j >= 0; --j)
                if (hit[j]) first = j;
            probes += first >= 0 ? first + 1 : (e - k < ENT_ILP ? e - k : ENT_ILP);
            if (first >= 0) {
                ent_loop_commit(a, v, u[first], level, l);
                break;
            }
        }
    }
    return probes;
}

/* CONVERT after level-1 switched to bottom-up: bitmap of level-1 from the
 * status array, and the bitmap BU(level) will write cleared. */
ENT_HD void ent_ph_convert(const ent_loop_args *a, int32_t level, int64_t gid, int64_t G)
{
    uint32_t *cur = ENT_BITMAP(a, (level - 1) % 3), *nx = ENT_BITMAP(a, level % 3);
    const int64_t n = a->g.n;
    for (int64_t w = gid; w < a->words; w += G) {
        uint32_t word = 0;
        for (int b = 0; b < 32 && w * 32 + b < n; ++b)
            word |= (uint32_t)(a->status[w * 32 + b] == level - 1) << b;
        cur[w] = word;
        nx[w] = 0;
    }
}

/* The decision every thread makes after the barrier that ended s->phase.
 * rec (may be NULL) receives the record of the level just finished. */
ENT_HD void ent_loop_decide(const ent_loop_args *a, const ent_lvl *cnt, ent_loop_state *s,
                            ent_rec *rec, int32_t rec_cap, int32_t *overflow)
{
    if (s->phase == ENT_PH_INIT) {
        s->level = 1;
        s->dir = 0;
        s->prev_found = 1;
        s->explored = (int64_t)cnt[0].degsum;
        s->phase = ENT_PH_TD;
        return;
    }
    if (s->phase == ENT_PH_CONVERT) {
        s->phase = ENT_PH_BU;
        return;
    }
    const int32_t L = s->level;
    const ent_lvl *c = &cnt[L % 4], *p = &cnt[(L - 1) % 4];
    const int64_t found = (int64_t)c->found;
    if (found == 0) {
        s->phase = ENT_PH_DONE;
        return;
    }
    s->explored += (int64_t)c->degsum;
    int next = s->dir;
    if (s->dir == 0) {
        if (a->symmetric) {
            if (a->rule == ENT_RULE_GAMMA)
                next = ent_switch_to_bottom_up((int64_t)c->hubs, a->Th, a->gamma);
            else if (a->rule == ENT_RULE_ALPHA)
                next = (double)c->degsum > (double)(a->arcs - s->explored) / a->alpha;
        }
    } else if (ent_switch_to_top_down(found, s->prev_found, a->g.n, a->beta)) {
        next = 0;
    }
    if (rec) {
        if (L < rec_cap) {
            ent_rec *r = &rec[L];
            r->direction = s->dir;
            r->converted = s->dir == 0 && next == 1 && a->bmbuf != 0;
            r->found = found;
            r->ns = 0;
            r->hubs = (int64_t)c->hubs;
            r->edges = s->dir == 0 ? (int64_t)p->degsum : 0;
            for (int j = 0; j < ENT_CLASSES; ++j)
                r->queue[j] = s->dir == 0 ? (int64_t)p->qlen[j] : 0;
        } else if (overflow) {
            *overflow = 1;
        }
    }
    s->prev_found = found;
    s->level = L + 1;
    s->phase = next == 1 ? (s->dir == 0 && a->bmbuf ? ENT_PH_CONVERT : ENT_PH_BU) : ENT_PH_TD;
    s->dir = next;
}

/* The public level record of a device-loop level (host code only). */
#ifdef OMPDAG_BFS_H
static inline void bfs_level_from_rec(ompdag_bfs_level *out, const ent_rec *r, int64_t Th,
                                      int host_loop)
{
    out->direction = r->direction ? OMPDAG_BFS_BOTTOM_UP : OMPDAG_BFS_TOP_DOWN;
    out->visited = r->found;
    for (int j = 0; j < ENT_CLASSES; ++j)
        out->queue[j] = r->queue[j];
    out->hubs = r->hubs;
    out->gamma = Th > 0 ? (double)r->hubs / (double)Th : 0.0;
    out->edges = r->edges;
    out->workflow = r->converted ? OMPDAG_BFS_WORKFLOW_CONVERT : OMPDAG_BFS_WORKFLOW_APPEND;
    const int64_t phases = 1 + r->converted;
    out->launches = host_loop ? phases : 0;
    out->host_syncs = host_loop ? phases : 0;
    out->barriers = host_loop ? 0 : phases;
    out->device_seconds = 1e-9 * (double)r->ns;
}
#endif

#endif
