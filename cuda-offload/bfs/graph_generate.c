/*
 * graph_generate.c — the Graph500 Kronecker generator and a uniform random
 * generator (GAP's generator.h role), shared by the CLI, tests and benches.
 *
 * Kronecker (Graph500 spec §3; seed 003 §5 uses "Kron-SCALE-EF" graphs):
 * each of edge_factor·2^SCALE edges picks one quadrant of the adjacency
 * matrix per bit, with initiator probabilities A = 0.57, B = C = 0.19,
 * D = 1 − A − B − C = 0.05; then vertex ids go through a seeded random
 * permutation so that id order says nothing about degree.  Every edge draws
 * from its own counter-based stream (splitmix64 of seed and edge index), so
 * the graph is the same for every thread count.
 */
#include <stdlib.h>

#include "graph_internal.h"

#define KRON_A 0.57
#define KRON_B 0.19
#define KRON_C 0.19

static ompdag_status check_scale(int scale, int edge_factor, ompdag_error *err)
{
    if (scale < 1 || scale > 40 || edge_factor < 1 || edge_factor > 1024)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                        "graph: scale must be in [1, 40] and edge factor in [1, 1024] (got %d, %d)",
                        scale, edge_factor);
    return OMPDAG_OK;
}

static ompdag_status alloc_edges(int64_t m, int64_t **src, int64_t **dst, ompdag_error *err)
{
    *src = malloc((size_t)m * sizeof **src);
    *dst = malloc((size_t)m * sizeof **dst);
    if (!*src || !*dst) {
        free(*src);
        free(*dst);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "graph: out of memory for %lld edges", (long long)m);
    }
    return OMPDAG_OK;
}

/* One Kronecker edge: a quadrant per bit, from the top bit down. */
static void kron_edge(int scale, uint64_t stream, int64_t *u, int64_t *v)
{
    const double ab = KRON_A + KRON_B;
    const double c_norm = KRON_C / (1.0 - ab), a_norm = KRON_A / ab;
    int64_t i = 0, j = 0;
    uint64_t r = stream;
    for (int bit = 0; bit < scale; ++bit) {
        r = bfs_splitmix64(r);
        int ii = bfs_unit(r) > ab;
        r = bfs_splitmix64(r);
        int jj = bfs_unit(r) > (ii ? c_norm : a_norm);
        i = (i << 1) | ii;
        j = (j << 1) | jj;
    }
    *u = i;
    *v = j;
}

ompdag_status ompdag_graph_kronecker(int scale, int edge_factor, uint64_t seed, ompdag_graph **out,
                                     ompdag_error *err)
{
    ompdag_status st = check_scale(scale, edge_factor, err);
    if (st != OMPDAG_OK)
        return st;
    int64_t n = (int64_t)1 << scale, m = n * edge_factor;
    int64_t *src, *dst, *perm = malloc((size_t)n * sizeof *perm);
    if (!perm)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "graph: out of memory");
    if ((st = alloc_edges(m, &src, &dst, err)) != OMPDAG_OK) {
        free(perm);
        return st;
    }
    /* The vertex permutation: Fisher–Yates from the seed's own stream. */
    uint64_t r = bfs_splitmix64(seed ^ 0x5DEECE66Dull);
    for (int64_t v = 0; v < n; ++v)
        perm[v] = v;
    for (int64_t v = n - 1; v > 0; --v) {
        r = bfs_splitmix64(r);
        int64_t k = (int64_t)(r % (uint64_t)(v + 1));
        int64_t x = perm[v];
        perm[v] = perm[k];
        perm[k] = x;
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < m; ++i) {
        int64_t u, v;
        kron_edge(scale, bfs_splitmix64(seed * 0x2545F4914F6CDD1Dull + (uint64_t)i), &u, &v);
        src[i] = perm[u];
        dst[i] = perm[v];
    }
    free(perm);
    st = ompdag_graph_from_edges(n, m, src, dst, OMPDAG_GRAPH_UNDIRECTED_SIMPLE, out, err);
    free(src);
    free(dst);
    return st;
}

ompdag_status ompdag_graph_uniform(int scale, int edge_factor, uint64_t seed, ompdag_graph **out,
                                   ompdag_error *err)
{
    ompdag_status st = check_scale(scale, edge_factor, err);
    if (st != OMPDAG_OK)
        return st;
    int64_t n = (int64_t)1 << scale, m = n * edge_factor;
    int64_t *src, *dst;
    if ((st = alloc_edges(m, &src, &dst, err)) != OMPDAG_OK)
        return st;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < m; ++i) {
        uint64_t r = bfs_splitmix64(seed * 0x9E3779B97F4A7C15ull + (uint64_t)i);
        src[i] = (int64_t)(r >> (64 - scale));
        r = bfs_splitmix64(r);
        dst[i] = (int64_t)(r >> (64 - scale));
    }
    st = ompdag_graph_from_edges(n, m, src, dst, OMPDAG_GRAPH_UNDIRECTED_SIMPLE, out, err);
    free(src);
    free(dst);
    return st;
}
