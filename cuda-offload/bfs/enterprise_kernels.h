/*
 * enterprise_kernels.h — the per-thread and per-warp logic of Enterprise
 * (Liu & Huang, "Enterprise: Breadth-First Graph Traversal on GPUs", SC'15;
 * seed 003_3a3244e76776a6bb.txt §4), written once as __host__ __device__
 * code.  nvcc compiles it into the CUDA kernels of bfs_gpu.cu; the C
 * compiler compiles it into the gpu-sim driver of bfs_gpu_sim.c, which runs
 * the same functions thread by thread, lane by lane and block by block.
 *
 * Encoding.  status[v] is the BFS level of v, or ENT_UNVISITED (-1).  (The
 * seed keeps one byte per vertex; an int32 level keeps long-diameter graphs,
 * such as a path of 10^6 vertices, exact.)  A frontier queue holds four
 * segments, one per degree class (§4.2): SmallQueue (< 32 out-edges, one
 * thread each), MiddleQueue (32..256, a warp), LargeQueue (256..65536, a
 * CTA) and ExtremeQueue (> 65536, the whole grid).
 *
 * Queue generation (§4.1): thread t of T puts what it finds into its own bin
 * (a private slice of `bin`), counting per class; an exclusive prefix sum of
 * the counts laid out class-major, counts[c * T + t], gives every thread its
 * write offset in every class segment at once, so the copy needs no atomics
 * and makes no duplicates.  The scan pattern follows the direction:
 *   interleaved  top-down:  thread t checks v = lo + t, lo + t + T, ...
 *   contiguous   the switch ("explosion") level: thread t checks one slice,
 *                so the bottom-up queue of unvisited vertices comes out sorted;
 *   shrink       bottom-up: the previous queue minus the vertices just found;
 *   sparse       (ours, for long-diameter graphs) a tiny top-down frontier
 *                writes what it claims into one bin slot per edge, so a level
 *                costs O(frontier edges), not O(n).
 *
 * Direction (§4.3): a hub has out-degree > τ; γ = Fh / Th with Fh the hubs
 * among the vertices just found and Th all hubs.  The driver switches
 * top-down -> bottom-up when γ > 30%.
 *
 * Hub cache (§4.3): while generating the queue of a bottom-up level, every
 * hub found at the level just finished is stored as HC[hash(id)] = id.  The
 * bottom-up kernels copy HC into shared memory and check a neighbour against
 * it before loading its status from global memory; a hit is a parent.
 */
#ifndef OMPDAG_ENTERPRISE_KERNELS_H
#define OMPDAG_ENTERPRISE_KERNELS_H

#include <stdint.h>

#ifdef __CUDACC__
#define ENT_HD __host__ __device__ static inline
#else
#define ENT_HD static inline
#endif

#define ENT_UNVISITED (-1)
#define ENT_CLASSES 4
#define ENT_SMALL_LIMIT 32     /* Small: degree < 32 */
#define ENT_MIDDLE_LIMIT 256   /* Middle: 32 <= degree <= 256 */
#define ENT_LARGE_LIMIT 65536  /* Large: 256 < degree <= 65536; Extreme above */
#define ENT_WARP 32
#define ENT_CTA 256            /* threads per CTA in every kernel */
#define ENT_HC_BITS 9
#define ENT_HC_SIZE (1 << ENT_HC_BITS) /* 512 ids = 4 KiB of shared memory per CTA */
#define ENT_SPARSE_DIV 16      /* sparse top-down when frontier edges < n / 16 */

/* The CSR arrays, as the kernels see them (device or host pointers). */
typedef struct ent_graph {
    int64_t n;
    const int64_t *off;
    const int32_t *adj32; /* exactly one of adj32/adj64 is set */
    const int64_t *adj64;
} ent_graph;

ENT_HD int64_t ent_nbr(ent_graph g, int64_t e)
{
    return g.adj32 ? (int64_t)g.adj32[e] : g.adj64[e];
}

ENT_HD int64_t ent_degree(ent_graph g, int64_t v) { return g.off[v + 1] - g.off[v]; }

/* §4.2: the queue a vertex of this out-degree goes to. */
ENT_HD int ent_class(int64_t degree)
{
    if (degree < ENT_SMALL_LIMIT)
        return 0;
    if (degree <= ENT_MIDDLE_LIMIT)
        return 1;
    if (degree <= ENT_LARGE_LIMIT)
        return 2;
    return 3;
}

/* §4.3: the hub cache's hash (Fibonacci hashing; ids are permuted anyway). */
ENT_HD uint32_t ent_hc_hash(int64_t v)
{
    return (uint32_t)(((uint64_t)v * 0x9E3779B97F4A7C15ull) >> (64 - ENT_HC_BITS));
}

/* What one thread's bin holds after a queue-generation scan. */
typedef struct ent_counts {
    int64_t c[ENT_CLASSES]; /* vertices per degree class */
    int64_t hubs;           /* Fh: hubs among the vertices found at the level */
    int64_t found;          /* vertices found at the level (shrink and contiguous) */
} ent_counts;

ENT_HD void ent_counts_clear(ent_counts *k)
{
    for (int c = 0; c < ENT_CLASSES; ++c)
        k->c[c] = 0;
    k->hubs = k->found = 0;
}

ENT_HD void ent_bin_put(ent_graph g, int64_t v, int64_t *bin, int64_t *len, ent_counts *k)
{
    bin[(*len)++] = v;
    k->c[ent_class(ent_degree(g, v))]++;
}

/* Interleaved top-down scan: thread t of T over [lo, hi) picks the vertices
 * found at `level`.  Returns the bin length. */
ENT_HD int64_t ent_gen_interleaved(ent_graph g, const int32_t *status, int64_t lo, int64_t hi,
                                   int64_t t, int64_t T, int32_t level, int64_t tau, int64_t *bin,
                                   ent_counts *k)
{
    int64_t len = 0;
    ent_counts_clear(k);
    for (int64_t v = lo + t; v < hi; v += T)
        if (status[v] == level) {
            ent_bin_put(g, v, bin, &len, k);
            k->found++;
            k->hubs += ent_degree(g, v) > tau;
        }
    return len;
}

/* Contiguous scan at the switch level: thread t scans its slice of chunk
 * vertices; unvisited ones form the (sorted) bottom-up queue, hubs found at
 * `level` go into the hub cache (hc may be NULL). */
ENT_HD int64_t ent_gen_contiguous(ent_graph g, const int32_t *status, int64_t lo, int64_t hi,
                                  int64_t t, int64_t chunk, int32_t level, int64_t tau,
                                  int64_t *bin, int64_t *hc, ent_counts *k)
{
    int64_t len = 0;
    ent_counts_clear(k);
    int64_t a = lo + t * chunk, b = a + chunk < hi ? a + chunk : hi;
    for (int64_t v = a; v < b; ++v) {
        int32_t s = status[v];
        if (s == ENT_UNVISITED) {
            ent_bin_put(g, v, bin, &len, k);
        } else if (s == level) {
            k->found++;
            if (ent_degree(g, v) > tau) {
                k->hubs++;
                if (hc)
                    hc[ent_hc_hash(v)] = v;
            }
        }
    }
    return len;
}

/* Shrinking bottom-up queue: thread t takes slice t of the previous queue
 * prev[0..qlen); still-unvisited vertices stay, the others were found at
 * this level (hubs among them go into the hub cache). */
ENT_HD int64_t ent_gen_shrink(ent_graph g, const int32_t *status, const int64_t *prev, int64_t qlen,
                              int64_t t, int64_t chunk, int64_t tau, int64_t *bin, int64_t *hc,
                              ent_counts *k)
{
    int64_t len = 0;
    ent_counts_clear(k);
    int64_t a = t * chunk, b = a + chunk < qlen ? a + chunk : qlen;
    for (int64_t i = a; i < b; ++i) {
        int64_t v = prev[i];
        if (status[v] == ENT_UNVISITED) {
            ent_bin_put(g, v, bin, &len, k);
        } else {
            k->found++;
            if (ent_degree(g, v) > tau) {
                k->hubs++;
                if (hc)
                    hc[ent_hc_hash(v)] = v;
            }
        }
    }
    return len;
}

/* Sparse top-down: thread t compacts its slice of the edge slots (a vertex
 * id where the edge claimed one, -1 elsewhere) in place.  slots + t * chunk
 * is both input and bin. */
ENT_HD int64_t ent_gen_sparse(ent_graph g, int64_t *slots, int64_t slen, int64_t t, int64_t chunk,
                              int64_t tau, ent_counts *k)
{
    int64_t len = 0;
    ent_counts_clear(k);
    int64_t a = t * chunk, b = a + chunk < slen ? a + chunk : slen;
    int64_t *bin = slots + a;
    for (int64_t i = a; i < b; ++i) {
        int64_t v = slots[i];
        if (v >= 0) {
            ent_bin_put(g, v, bin, &len, k);
            k->found++;
            k->hubs += ent_degree(g, v) > tau;
        }
    }
    return len;
}

/* The copy after the prefix sum: offs[c * T + t] is where thread t's class-c
 * vertices start in the queue q. */
ENT_HD void ent_scatter(ent_graph g, const int64_t *bin, int64_t len, const int64_t *offs, int64_t t,
                        int64_t T, int64_t *q)
{
    int64_t pos[ENT_CLASSES];
    for (int c = 0; c < ENT_CLASSES; ++c)
        pos[c] = offs[c * T + t];
    for (int64_t i = 0; i < len; ++i) {
        int64_t v = bin[i];
        q[pos[ent_class(ent_degree(g, v))]++] = v;
    }
}

/* Claims w for `level`.  Status-array levels need no atomics (every writer
 * writes the same level); the sparse workflow must not record w twice, so
 * there the claim is a compare-and-swap on the GPU. */
ENT_HD int ent_claim(int32_t *status, int64_t w, int32_t level, int atomic)
{
#ifdef __CUDA_ARCH__
    if (atomic)
        return atomicCAS((int *)&status[w], ENT_UNVISITED, (int)level) == ENT_UNVISITED;
#else
    (void)atomic;
#endif
    if (status[w] != ENT_UNVISITED)
        return 0;
    status[w] = level;
    return 1;
}

/* Top-down expansion of frontier vertex u by one thread: edges k0, k0 +
 * stride, ... of u.  Thread kernel: (0, 1); warp: (lane, 32); CTA: (tid,
 * 256); grid: (global id, grid size).  slots (sparse workflow only) gets one
 * entry per edge at slot_base + k. */
ENT_HD void ent_td_expand(ent_graph g, int64_t u, int64_t k0, int64_t stride, int32_t level,
                          int32_t *status, int64_t *parent, int64_t *slots, int64_t slot_base)
{
    const int64_t base = g.off[u], deg = g.off[u + 1] - base;
    for (int64_t k = k0; k < deg; k += stride) {
        int64_t w = ent_nbr(g, base + k);
        int claimed = ent_claim(status, w, level, slots != 0);
        if (claimed)
            parent[w] = u;
        if (slots)
            slots[slot_base + k] = claimed ? w : -1;
    }
}

/* Bottom-up check of edge e of an unvisited vertex: is its neighbour u a
 * parent, i.e. found at prev_level?  The hub cache (hc, may be NULL) answers
 * first.  Returns 0 (no), 1 (yes, from the status array), 2 (yes, a hub-cache
 * hit: no global status load). */
ENT_HD int ent_bu_probe(ent_graph g, int64_t e, int32_t prev_level, const int32_t *status,
                        const int64_t *hc, int64_t *u_out)
{
    int64_t u = ent_nbr(g, e);
    *u_out = u;
    if (hc && hc[ent_hc_hash(u)] == u)
        return 2;
    return status[u] == prev_level ? 1 : 0;
}

ENT_HD void ent_bu_commit(int64_t v, int64_t u, int32_t level, int32_t *status, int64_t *parent)
{
    status[v] = level;
    parent[v] = u;
}

/* Thread-level bottom-up for a SmallQueue vertex; returns probes made and
 * adds hub-cache hits to *hits. */
ENT_HD int64_t ent_bu_thread(ent_graph g, int64_t v, int32_t level, int32_t *status, int64_t *parent,
                             const int64_t *hc, int64_t *hits)
{
    int64_t probes = 0;
    for (int64_t e = g.off[v]; e < g.off[v + 1]; ++e) {
        int64_t u;
        int r = ent_bu_probe(g, e, level - 1, status, hc, &u);
        ++probes;
        if (r) {
            *hits += r == 2;
            ent_bu_commit(v, u, level, status, parent);
            break;
        }
    }
    return probes;
}

/* §4.4 bitmap exchange: lane predicate for __ballot_sync (bit = found now). */
ENT_HD int ent_bitmap_lane(const int32_t *status, int64_t v, int64_t n, int32_t level)
{
    return v < n && status[v] == level;
}

/* Applies a received bitmap word covering vertices base..base+31. */
ENT_HD void ent_bitmap_merge(int32_t *status, uint32_t word, int64_t base, int64_t n, int32_t level)
{
    for (int b = 0; b < 32 && base + b < n; ++b)
        if (((word >> b) & 1u) && status[base + b] == ENT_UNVISITED)
            status[base + b] = level;
}

#endif

/* ---- the level-loop policy, shared by the CUDA and gpu-sim drivers ---- */
#ifndef OMPDAG_ENTERPRISE_POLICY
#define OMPDAG_ENTERPRISE_POLICY

#define ENT_GRID_BLOCKS 64 /* CTAs of the grid-level (ExtremeQueue) kernels */

/* Threads for a queue-generation pass over `work` items: about eight items
 * per thread, whole warps (whole CTAs above one CTA), at most 1024 CTAs. */
ENT_HD int64_t ent_gen_threads(int64_t work)
{
    int64_t t = work / 8 + 1;
    if (t > (int64_t)1024 * ENT_CTA)
        return (int64_t)1024 * ENT_CTA;
    if (t <= ENT_CTA)
        return (t + ENT_WARP - 1) / ENT_WARP * ENT_WARP;
    return (t + ENT_CTA - 1) / ENT_CTA * ENT_CTA;
}

/* §4.3, eq. (1): switch top-down -> bottom-up when γ = Fh / Th > gamma. */
ENT_HD int ent_switch_to_bottom_up(int64_t Fh, int64_t Th, double gamma)
{
    return Th > 0 && (double)Fh > gamma * (double)Th;
}

/* Back to top-down for the tail: the frontier shrank and is below n / β. */
ENT_HD int ent_switch_to_top_down(int64_t found, int64_t prev_found, int64_t n, double beta)
{
    return found < prev_found && (double)found < (double)n / beta;
}

/* The sparse top-down workflow: one device and frontier edges < n / 16. */
ENT_HD int ent_use_sparse(int64_t m_f, int64_t n, int devices)
{
    return devices == 1 && m_f < n / ENT_SPARSE_DIV;
}
#endif
