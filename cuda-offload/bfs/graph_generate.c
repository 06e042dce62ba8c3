/*
 * graph_generate.c — the Graph500 Kronecker generator and a uniform random
 * generator (GAP's generator.h role), shared by the CLI, tests and benches.
 *
 * Kronecker (Graph500 spec §3; seed 003 §5 uses "Kron-SCALE-EF" graphs):
 * each of edge_factor·2^SCALE edges picks one quadrant of the adjacency
 * matrix per bit, with initiator probabilities A = 0.57, B = C = 0.19,
 * D = 1 − A − B − C = 0.05; then vertex ids go through a seeded
 * pseudo-random bijection so that id order says nothing about degree.  Every edge draws
 * from its own counter-based stream (splitmix64 of seed and edge index), so
 * the graph is the same for every thread count.
 */
#include <stdlib.h>

#include "graph_internal.h"

#define KRON_A 0.57
#define KRON_B 0.19
#define KRON_C 0.19

ompdag_status graph_check_scale(int scale, int edge_factor, ompdag_error *err)
{
    if (scale < 1 || scale > 40 || edge_factor < 1 || edge_factor > 1024)
        return ompdag_error_set(
            err, OMPDAG_ERR_ARGUMENT,
            "graph: scale must be in [1, 40] and edge factor in [1, 1024] (got %d, %d)", scale,
            edge_factor);
    return OMPDAG_OK;
}

static ompdag_status alloc_edges(int64_t m, int64_t **src, int64_t **dst, ompdag_error *err)
{
    *src = malloc((size_t)m * sizeof **src);
    *dst = malloc((size_t)m * sizeof **dst);
    if (!*src || !*dst) {
        free(*src);
        free(*dst);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "graph: out of memory for %lld edges",
                                (long long)m);
    }
    return OMPDAG_OK;
}

/* One Kronecker edge: a quadrant per bit, from the top bit down.  Each
 * splitmix64 draw gives both choices of a bit (two 32-bit uniforms). */
static void kron_edge(int scale, uint64_t stream, int64_t *u, int64_t *v)
{
    const double ab = KRON_A + KRON_B;
    const double c_norm = KRON_C / (1.0 - ab), a_norm = KRON_A / ab;
    const double unit32 = 1.0 / 4294967296.0;
    int64_t i = 0, j = 0;
    uint64_t r = stream;
    for (int bit = 0; bit < scale; ++bit) {
        r = bfs_splitmix64(r);
        int ii = (double)(r >> 32) * unit32 > ab;
        int jj = (double)(r & 0xffffffffu) * unit32 > (ii ? c_norm : a_norm);
        i = (i << 1) | ii;
        j = (j << 1) | jj;
    }
    *u = i;
    *v = j;
}

/* The vertex permutation: a seeded bijection of [0, 2^scale) (three rounds
 * of multiply-by-odd-plus-constant and xorshift, each invertible modulo
 * 2^scale), computed per vertex, so it needs no table and runs in parallel. */
typedef struct kron_perm {
    uint64_t mul[3], add[3], mask;
    int shift;
} kron_perm;

static kron_perm kron_perm_make(int scale, uint64_t seed)
{
    kron_perm p;
    uint64_t r = bfs_splitmix64(seed ^ 0x5DEECE66Dull);
    for (int k = 0; k < 3; ++k) {
        r = bfs_splitmix64(r);
        p.mul[k] = r | 1u;
        r = bfs_splitmix64(r);
        p.add[k] = r;
    }
    p.mask = scale >= 64 ? ~0ull : (1ull << scale) - 1;
    p.shift = (scale + 1) / 2;
    return p;
}

static int64_t kron_perm_apply(const kron_perm *p, int64_t v)
{
    uint64_t x = (uint64_t)v;
    for (int k = 0; k < 3; ++k) {
        x = (x * p->mul[k] + p->add[k]) & p->mask;
        x ^= x >> p->shift;
    }
    return (int64_t)x;
}

/* Edges first .. first+count-1 of the Kronecker graph, into src/dst[0..count):
 * edge i depends only on (scale, seed, i), so any rank can draw any range
 * and the union is the one-process graph (bfs_mpi_graph.c). */
void graph_kron_edges(int scale, uint64_t seed, int64_t first, int64_t count, int64_t *src,
                      int64_t *dst)
{
    const kron_perm perm = kron_perm_make(scale, seed);
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < count; ++k) {
        const int64_t i = first + k;
        int64_t u, v;
        kron_edge(scale, bfs_splitmix64(seed * 0x2545F4914F6CDD1Dull + (uint64_t)i), &u, &v);
        src[k] = kron_perm_apply(&perm, u);
        dst[k] = kron_perm_apply(&perm, v);
    }
}

/* Edges first .. first+count-1 of the uniform graph (as graph_kron_edges). */
void graph_uniform_edges(int scale, uint64_t seed, int64_t first, int64_t count, int64_t *src,
                         int64_t *dst)
{
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < count; ++k) {
        const int64_t i = first + k;
        uint64_t r = bfs_splitmix64(seed * 0x9E3779B97F4A7C15ull + (uint64_t)i);
        src[k] = (int64_t)(r >> (64 - scale));
        r = bfs_splitmix64(r);
        dst[k] = (int64_t)(r >> (64 - scale));
    }
}

ompdag_status ompdag_graph_kronecker(int scale, int edge_factor, uint64_t seed, ompdag_graph **out,
                                     ompdag_error *err)
{
    ompdag_status st = graph_check_scale(scale, edge_factor, err);
    if (st != OMPDAG_OK) return st;
    int64_t n = (int64_t)1 << scale, m = n * edge_factor;
    int64_t *src, *dst;
    if ((st = alloc_edges(m, &src, &dst, err)) != OMPDAG_OK) return st;
    graph_kron_edges(scale, seed, 0, m, src, dst);
    st = ompdag_graph_from_edges(n, m, src, dst, OMPDAG_GRAPH_UNDIRECTED_SIMPLE, out, err);
    free(src);
    free(dst);
    return st;
}

ompdag_status ompdag_graph_uniform(int scale, int edge_factor, uint64_t seed, ompdag_graph **out,
                                   ompdag_error *err)
{
    ompdag_status st = graph_check_scale(scale, edge_factor, err);
    if (st != OMPDAG_OK) return st;
    int64_t n = (int64_t)1 << scale, m = n * edge_factor;
    int64_t *src, *dst;
    if ((st = alloc_edges(m, &src, &dst, err)) != OMPDAG_OK) return st;
    graph_uniform_edges(scale, seed, 0, m, src, dst);
    st = ompdag_graph_from_edges(n, m, src, dst, OMPDAG_GRAPH_UNDIRECTED_SIMPLE, out, err);
    free(src);
    free(dst);
    return st;
}
