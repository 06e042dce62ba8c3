/*
 * graph_build.c — the CSR builder shared by every generator and reader
 * (GAP's builder.h role).  An edge list becomes CSR in two counting-sort
 * passes, so every row comes out sorted with no comparison sort:
 *   pass 1: arcs bucketed by destination (a transposed CSR holding sources);
 *   pass 2: the transposed rows walked in destination order, each arc
 *           appended to its source's row, which is therefore sorted.
 * Duplicates are then adjacent and removed in one sweep.  O(n + m) time.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"

ompdag_status graph_alloc(int64_t n, int64_t m, bool wide, ompdag_graph **out, ompdag_error *err)
{
    ompdag_graph *g = calloc(1, sizeof *g);
    if (!g)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory for a graph");
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
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory for a graph of %lld vertices, %lld arcs",
                        (long long)n, (long long)m);
    }
    *out = g;
    return OMPDAG_OK;
}

void ompdag_graph_destroy(ompdag_graph *g)
{
    if (!g)
        return;
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
            if (x == v)
                return true;
            if (x < v)
                lo = mid + 1;
            else
                hi = mid;
        }
        return false;
    }
    for (int64_t e = lo; e < hi; ++e)
        if (csr_nbr(g, e) == v)
            return true;
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

static inline int64_t idv_get(idvec v, int64_t i) { return v.a32 ? (int64_t)v.a32[i] : v.a64[i]; }
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
        if (s_ == d_ && (flags & OMPDAG_GRAPH_DROP_SELF_LOOPS))                                    \
            break;                                                                                 \
        { s = s_; d = d_; EMIT; }                                                                  \
        if ((flags & OMPDAG_GRAPH_SYMMETRIZE) && s_ != d_) {                                       \
            s = d_; d = s_; EMIT;                                                                  \
        }                                                                                          \
    } while (0)

ompdag_status ompdag_graph_from_edges(int64_t n, int64_t m, const int64_t *src, const int64_t *dst,
                                      unsigned flags, ompdag_graph **out, ompdag_error *err)
{
    if (n < 0 || m < 0 || (m > 0 && (!src || !dst)) || !out)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "graph: bad arguments (n=%lld, m=%lld)",
                        (long long)n, (long long)m);
    for (int64_t i = 0; i < m; ++i)
        if (src[i] < 0 || src[i] >= n || dst[i] < 0 || dst[i] >= n)
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                            "graph: edge %lld (%lld -> %lld) has an id outside [0, %lld)",
                            (long long)i, (long long)src[i], (long long)dst[i], (long long)n);
    int64_t *in_off = calloc((size_t)n + 2, sizeof *in_off);
    if (!in_off)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "graph: out of memory");
    int64_t s, d, arcs = 0;
    for (int64_t i = 0; i < m; ++i)
        FOR_EACH_ARC(i, s, d, (++in_off[d + 2], ++arcs));
    (void)s;
    ompdag_graph *g;
    ompdag_status st = graph_alloc(n, arcs, (flags & OMPDAG_GRAPH_WIDE_IDS) != 0, &g, err);
    if (st != OMPDAG_OK) {
        free(in_off);
        return st;
    }
    idvec t = {0};
    if (g->adj32)
        t.a32 = malloc((size_t)(arcs > 0 ? arcs : 1) * sizeof *t.a32);
    else
        t.a64 = malloc((size_t)(arcs > 0 ? arcs : 1) * sizeof *t.a64);
    if (!t.a32 && !t.a64) {
        free(in_off);
        ompdag_graph_destroy(g);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "graph: out of memory for %lld arcs", (long long)arcs);
    }
    /* Pass 1: bucket by destination; in_off[d + 1] is d's cursor. */
    for (int64_t v = 0; v < n; ++v)
        in_off[v + 2] += in_off[v + 1];
    for (int64_t i = 0; i < m; ++i)
        FOR_EACH_ARC(i, s, d, (++g->offsets[s + 1], idv_set(t, in_off[d + 1]++, s)));
    /* Pass 2: walk destinations in order; each source row fills sorted. */
    for (int64_t v = 0; v < n; ++v)
        g->offsets[v + 1] += g->offsets[v];
    /* After pass 1, bucket d is [in_off[d], in_off[d + 1]) (in_off[0] = 0). */
    int64_t *cursor = malloc((size_t)(n > 0 ? n : 1) * sizeof *cursor);
    if (!cursor) {
        free(in_off);
        free(t.a32);
        free(t.a64);
        ompdag_graph_destroy(g);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "graph: out of memory");
    }
    for (int64_t v = 0; v < n; ++v)
        cursor[v] = g->offsets[v];
    idvec a = {g->adj32, g->adj64};
    for (int64_t dv = 0; dv < n; ++dv)
        for (int64_t k = in_off[dv]; k < in_off[dv + 1]; ++k) {
            int64_t sv = idv_get(t, k);
            idv_set(a, cursor[sv]++, dv);
        }
    free(cursor);
    free(t.a32);
    free(t.a64);
    free(in_off);
    if (flags & OMPDAG_GRAPH_DEDUP) {
        int64_t w = 0;
        for (int64_t v = 0; v < n; ++v) {
            int64_t lo = g->offsets[v], hi = g->offsets[v + 1];
            g->offsets[v] = w;
            for (int64_t e = lo; e < hi; ++e) {
                int64_t x = idv_get(a, e);
                if (e == lo || x != idv_get(a, e - 1))
                    idv_set(a, w++, x);
            }
        }
        g->offsets[n] = w;
        g->m = w;
    }
    g->sorted = true;
    if (flags & OMPDAG_GRAPH_SYMMETRIZE)
        g->symmetric = true;
    else
        graph_compute_flags(g);
    *out = g;
    return OMPDAG_OK;
}

int64_t ompdag_graph_vertices(const ompdag_graph *g) { return g->n; }
int64_t ompdag_graph_arcs(const ompdag_graph *g) { return g->m; }
int64_t ompdag_graph_edges(const ompdag_graph *g)
{
    if (!g->symmetric)
        return g->m;
    int64_t loops = 0;
    for (int64_t v = 0; v < g->n; ++v)
        for (int64_t e = g->offsets[v]; e < g->offsets[v + 1]; ++e)
            loops += csr_nbr(g, e) == v;
    return (g->m - loops) / 2 + loops;
}
int64_t ompdag_graph_degree(const ompdag_graph *g, int64_t v) { return csr_degree(g, v); }
int64_t ompdag_graph_neighbor(const ompdag_graph *g, int64_t v, int64_t i)
{
    return csr_nbr(g, g->offsets[v] + i);
}
bool ompdag_graph_is_symmetric(const ompdag_graph *g) { return g->symmetric; }
int ompdag_graph_id_bytes(const ompdag_graph *g) { return g->adj32 ? 4 : 8; }
int64_t ompdag_graph_memory_bytes(const ompdag_graph *g)
{
    return (g->n + 1) * (int64_t)sizeof(int64_t) + g->m * ompdag_graph_id_bytes(g);
}
