/*
 * graph_build.c — the CSR builder shared by every generator and reader
 * (GAP's builder.h role, Beamer, Asanović and Patterson, "The GAP Benchmark
 * Suite", 2015): degrees counted with atomics, offsets by a parallel prefix
 * sum, arcs scattered through atomic row cursors, then every row sorted and
 * deduplicated on its own and the rows compacted.  All passes run with
 * OpenMP; the sort makes the graph the same for every thread count.
 */
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "graph_internal.h"
#include "ompdag/internal/stats.h"

ompdag_status graph_alloc(int64_t n, int64_t m, bool wide, ompdag_graph **out, ompdag_error *err)
{
    ompdag_graph *g = calloc(1, sizeof *g);
    if (!g) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory for a graph");
    static uint64_t next_uid;
    g->uid = __atomic_add_fetch(&next_uid, 1, __ATOMIC_RELAXED);
    g->n = n;
    g->m = m;
    g->offsets = calloc((size_t)n + 1, sizeof *g->offsets);
    if (n <= INT32_MAX && !wide)
        g->adj32 = malloc((size_t)(m > 0 ? m : 1) * sizeof *g->adj32);
    else
        g->adj64 = malloc((size_t)(m > 0 ? m : 1) * sizeof *g->adj64);
    if (!g->offsets || (!g->adj32 && !g->adj64)) {
        ompdag_graph_destroy(g);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM,
                                "out of memory for a graph of %lld vertices, %lld arcs",
                                (long long)n, (long long)m);
    }
    *out = g;
    return OMPDAG_OK;
}

void ompdag_graph_destroy(ompdag_graph *g)
{
    if (!g) return;
    free(g->offsets);
    free(g->adj32);
    free(g->adj64);
    free(g);
}

bool graph_has_arc(const ompdag_graph *g, int64_t u, int64_t v)
{
    int64_t lo = g->offsets[u], hi = g->offsets[u + 1];
    if (g->sorted) {
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2, x = csr_nbr(g, mid);
            if (x == v) return true;
            if (x < v)
                lo = mid + 1;
            else
                hi = mid;
        }
        return false;
    }
    for (int64_t e = lo; e < hi; ++e)
        if (csr_nbr(g, e) == v) return true;
    return false;
}

void graph_compute_flags(ompdag_graph *g)
{
    bool sorted = true;
    for (int64_t v = 0; v < g->n && sorted; ++v)
        for (int64_t e = g->offsets[v] + 1; e < g->offsets[v + 1]; ++e)
            if (csr_nbr(g, e - 1) > csr_nbr(g, e)) {
                sorted = false;
                break;
            }
    g->sorted = sorted;
    bool symmetric = true;
    for (int64_t v = 0; v < g->n && symmetric; ++v)
        for (int64_t e = g->offsets[v]; e < g->offsets[v + 1]; ++e)
            if (!graph_has_arc(g, csr_nbr(g, e), v)) {
                symmetric = false;
                break;
            }
    g->symmetric = symmetric;
}

/* Neighbour-id arrays of either width, so the builder's temporaries take 4
 * bytes per arc whenever the final graph does. */
typedef struct idvec {
    int32_t *a32;
    int64_t *a64;
} idvec;

static inline int64_t idv_get(idvec v, int64_t i)
{
    return v.a32 ? (int64_t)v.a32[i] : v.a64[i];
}
static inline void idv_set(idvec v, int64_t i, int64_t x)
{
    if (v.a32)
        v.a32[i] = (int32_t)x;
    else
        v.a64[i] = x;
}

/* Calls EMIT(s, d) for every arc the flags produce from edge i. */
#define FOR_EACH_ARC(i, s, d, EMIT)                                                                \
    do {                                                                                           \
        int64_t s_ = src[i], d_ = dst[i];                                                          \
        if (s_ == d_ && (flags & OMPDAG_GRAPH_DROP_SELF_LOOPS)) break;                             \
        {                                                                                          \
            s = s_;                                                                                \
            d = d_;                                                                                \
            EMIT;                                                                                  \
        }                                                                                          \
        if ((flags & OMPDAG_GRAPH_SYMMETRIZE) && s_ != d_) {                                       \
            s = d_;                                                                                \
            d = s_;                                                                                \
            EMIT;                                                                                  \
        }                                                                                          \
    } while (0)

/* Sorts row [lo, hi) of a (insertion sort for short rows), drops repeats
 * when dedup, and returns the row's new length (kept at lo). */
static int64_t row_sort(idvec a, int64_t lo, int64_t hi, bool dedup)
{
    const int64_t len = hi - lo;
    if (len > 32) {
        if (a.a32)
            qsort(a.a32 + lo, (size_t)len, sizeof *a.a32, ompdag_cmp_i32);
        else
            qsort(a.a64 + lo, (size_t)len, sizeof *a.a64, ompdag_cmp_i64);
    } else {
        for (int64_t i = lo + 1; i < hi; ++i) {
            int64_t x = idv_get(a, i), j = i;
            for (; j > lo && idv_get(a, j - 1) > x; --j)
                idv_set(a, j, idv_get(a, j - 1));
            idv_set(a, j, x);
        }
    }
    if (!dedup || len == 0) return len;
    int64_t w = lo + 1;
    for (int64_t e = lo + 1; e < hi; ++e) {
        int64_t x = idv_get(a, e);
        if (x != idv_get(a, w - 1)) idv_set(a, w++, x);
    }
    return w - lo;
}

/* In-place exclusive prefix sum of x[0..n) into x[0..n], in parallel:
 * per-thread block sums, a serial pass over the blocks, then the blocks. */
static void prefix_sum(int64_t *x, int64_t n)
{
    int nt = 1;
#ifdef _OPENMP
    nt = n > 1 << 16 ? omp_get_max_threads() : 1;
#endif
    int64_t sums[257] = {0};
    if (nt > 256) nt = 256;
#pragma omp parallel num_threads(nt)
    {
        int t = 0, T = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        T = omp_get_num_threads();
#endif
        const int64_t lo = n * t / T, hi = n * (t + 1) / T;
        int64_t s = 0;
        for (int64_t i = lo; i < hi; ++i)
            s += x[i];
        sums[t + 1] = s;
#pragma omp barrier
#pragma omp single
        for (int k = 1; k <= T; ++k)
            sums[k] += sums[k - 1];
        int64_t run = sums[t];
        for (int64_t i = lo; i < hi; ++i) {
            const int64_t v = x[i];
            x[i] = run;
            run += v;
        }
        if (t == T - 1) x[n] = run;
    }
}

/* GAP's builder scheme, in parallel: count degrees (atomics), prefix-sum
 * the offsets, scatter every arc with an atomic cursor, then sort (and
 * dedup) each row on its own and compact.  Sorting makes the result the
 * same for every thread count and arc order. */
ompdag_status ompdag_graph_from_edges(int64_t n, int64_t m, const int64_t *src, const int64_t *dst,
                                      unsigned flags, ompdag_graph **out, ompdag_error *err)
{
    if (n < 0 || m < 0 || (m > 0 && (!src || !dst)) || !out)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "graph: bad arguments (n=%lld, m=%lld)",
                                (long long)n, (long long)m);
    int64_t bad = m;
#pragma omp parallel for reduction(min : bad) schedule(static)
    for (int64_t i = 0; i < m; ++i)
        if (src[i] < 0 || src[i] >= n || dst[i] < 0 || dst[i] >= n) bad = i < bad ? i : bad;
    if (bad < m)
        return ompdag_error_set(
            err, OMPDAG_ERR_ARGUMENT, "graph: edge %lld (%lld -> %lld) has an id outside [0, %lld)",
            (long long)bad, (long long)src[bad], (long long)dst[bad], (long long)n);
    int64_t *deg = calloc((size_t)n + 1, sizeof *deg);
    if (!deg) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "graph: out of memory");
        /* Pass 1: out-degrees before dedup. */
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < m; ++i) {
        int64_t s, d;
        FOR_EACH_ARC(i, s, d, __atomic_fetch_add(&deg[s], 1, __ATOMIC_RELAXED));
        (void)d;
    }
    prefix_sum(deg, n); /* deg[v] = first slot of row v; deg[n] = arcs */
    const int64_t arcs = deg[n];
    ompdag_graph *g;
    ompdag_status st = graph_alloc(n, arcs, (flags & OMPDAG_GRAPH_WIDE_IDS) != 0, &g, err);
    if (st != OMPDAG_OK) {
        free(deg);
        return st;
    }
    int64_t *cursor = malloc((size_t)(n > 0 ? n : 1) * sizeof *cursor);
    idvec t = {0};
    if (g->adj32)
        t.a32 = malloc((size_t)(arcs > 0 ? arcs : 1) * sizeof *t.a32);
    else
        t.a64 = malloc((size_t)(arcs > 0 ? arcs : 1) * sizeof *t.a64);
    if (!cursor || (!t.a32 && !t.a64)) {
        free(deg);
        free(cursor);
        free(t.a32);
        free(t.a64);
        ompdag_graph_destroy(g);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "graph: out of memory for %lld arcs",
                                (long long)arcs);
    }
    /* Pass 2: scatter (rows come out in no particular order). */
    memcpy(cursor, deg, (size_t)n * sizeof *cursor);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < m; ++i) {
        int64_t s, d;
        FOR_EACH_ARC(i, s, d, idv_set(t, __atomic_fetch_add(&cursor[s], 1, __ATOMIC_RELAXED), d));
    }
    free(cursor);
    /* Pass 3: sort (and dedup) every row; the new lengths go to offsets. */
    const bool dedup = (flags & OMPDAG_GRAPH_DEDUP) != 0;
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t v = 0; v < n; ++v)
        g->offsets[v] = row_sort(t, deg[v], deg[v + 1], dedup);
    prefix_sum(g->offsets, n);
    g->m = g->offsets[n];
    idvec a = {g->adj32, g->adj64};
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t v = 0; v < n; ++v) {
        const int64_t len = g->offsets[v + 1] - g->offsets[v];
        if (a.a32)
            memcpy(a.a32 + g->offsets[v], t.a32 + deg[v], (size_t)len * sizeof *a.a32);
        else
            memcpy(a.a64 + g->offsets[v], t.a64 + deg[v], (size_t)len * sizeof *a.a64);
    }
    free(t.a32);
    free(t.a64);
    free(deg);
    g->sorted = true;
    if (flags & OMPDAG_GRAPH_SYMMETRIZE)
        g->symmetric = true;
    else
        graph_compute_flags(g);
    *out = g;
    return OMPDAG_OK;
}

int64_t ompdag_graph_vertices(const ompdag_graph *g)
{
    return g->n;
}
int64_t ompdag_graph_arcs(const ompdag_graph *g)
{
    return g->m;
}
int64_t ompdag_graph_edges(const ompdag_graph *g)
{
    if (!g->symmetric) return g->m;
    int64_t loops = 0;
#pragma omp parallel for reduction(+ : loops) schedule(static)
    for (int64_t v = 0; v < g->n; ++v)
        for (int64_t e = g->offsets[v]; e < g->offsets[v + 1]; ++e)
            loops += csr_nbr(g, e) == v;
    return (g->m - loops) / 2 + loops;
}
int64_t ompdag_graph_degree(const ompdag_graph *g, int64_t v)
{
    return csr_degree(g, v);
}
int64_t ompdag_graph_neighbor(const ompdag_graph *g, int64_t v, int64_t i)
{
    return csr_nbr(g, g->offsets[v] + i);
}
bool ompdag_graph_is_symmetric(const ompdag_graph *g)
{
    return g->symmetric;
}
int ompdag_graph_id_bytes(const ompdag_graph *g)
{
    return g->adj32 ? 4 : 8;
}
int64_t ompdag_graph_memory_bytes(const ompdag_graph *g)
{
    return (g->n + 1) * (int64_t)sizeof(int64_t) + g->m * ompdag_graph_id_bytes(g);
}
