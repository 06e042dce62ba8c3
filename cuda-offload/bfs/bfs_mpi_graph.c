/*
 * bfs_mpi_graph.c — the distributed graph of the MPI BFS (issue 30): a 1-D
 * partition by vertex, as Enterprise splits a graph over GPUs (seed 003
 * §4.4: device d owns a contiguous block of vertices and their out-edges).
 * Blocks are a multiple of 64 vertices so that a frontier bitmap splits on
 * word boundaries.
 *
 * Generation follows the Graph500 reference's parallel generator: rank r
 * draws its share of the edge list (edge i depends only on the seed and i,
 * graph_generate.c), both arcs of every edge go to the owners of their
 * tails with one MPI_Alltoallv, and each rank builds its rows as the
 * one-process builder does (sorted, deduplicated, no self-loops).  So the
 * distributed graph is the one-process graph, row for row.
 *
 * Also here: the collective agreement on an outcome (a failing rank stops
 * every rank with its message, nobody waits forever) and the pair exchange
 * every phase uses.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bfs_internal.h"
#include "bfs_mpi_internal.h"

bool ompdag_mpi_launched(void)
{
    /* Open MPI's mpirun, PMIx launchers (srun, prterun) and MPICH's hydra. */
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; ++i)
        if (getenv(vars[i])) return true;
    return false;
}

ompdag_status ompdag_mpi_agree(ompdag_status local, ompdag_error *err)
{
    return bfs_mpi_agree(MPI_COMM_WORLD, local, err);
}

ompdag_status bfs_mpi_agree(MPI_Comm comm, ompdag_status local, ompdag_error *err)
{
    int rank, size, first;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = local != OMPDAG_OK ? rank : size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == size) return OMPDAG_OK;
    /* The lowest failing rank tells everyone what went wrong. */
    struct {
        int code;
        char message[OMPDAG_ERROR_MESSAGE_SIZE];
    } packet;
    memset(&packet, 0, sizeof packet);
    if (rank == first) {
        packet.code = (int)local;
        snprintf(packet.message, sizeof packet.message, "%s",
                 err && err->message[0] ? err->message : "failed (no message)");
    }
    MPI_Bcast(&packet, (int)sizeof packet, MPI_BYTE, first, comm);
    return ompdag_error_set(err, (ompdag_status)packet.code, "rank %d: %s", first, packet.message);
}

MPI_Datatype bfs_mpi_pair_type(void)
{
    static MPI_Datatype type = MPI_DATATYPE_NULL;
    if (type == MPI_DATATYPE_NULL) {
        MPI_Type_contiguous(2, MPI_INT64_T, &type);
        MPI_Type_commit(&type);
    }
    return type;
}

bool bfs_mpi_exchange_pairs(MPI_Comm comm, int size, const dg_pair *send, const int *scount,
                            dg_pair **recv, int64_t *recv_cap, int64_t *nrecv)
{
    int *rcount = malloc(4 * (size_t)size * sizeof *rcount);
    if (!rcount) MPI_Abort(comm, 1); /* 16 bytes per rank: nothing sensible is left to do */
    int *sdispl = rcount + size, *rdispl = rcount + 2 * size;
    int ok = 1, all_ok;
    int64_t total = 0, s = 0;
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm);
    for (int r = 0; r < size; ++r) {
        sdispl[r] = (int)s;
        s += scount[r];
        rdispl[r] = (int)(total < INT32_MAX ? total : 0);
        total += rcount[r];
    }
    ok = total <= INT32_MAX; /* MPI counts and displacements are int */
    if (ok && total > *recv_cap) {
        dg_pair *grown = realloc(*recv, (size_t)total * sizeof *grown);
        ok = grown != NULL;
        if (ok) {
            *recv = grown;
            *recv_cap = total;
        }
    }
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (all_ok)
        MPI_Alltoallv(send, scount, sdispl, bfs_mpi_pair_type(), *recv, rcount, rdispl,
                      bfs_mpi_pair_type(), comm);
    *nrecv = all_ok ? total : 0;
    free(rcount);
    return all_ok != 0;
}

/* OpenMP threads per rank when not given: the node's CPUs shared among the
 * node's ranks (two ranks on two cores get one thread each). */
static int default_threads(MPI_Comm comm)
{
    MPI_Comm node;
    int local = 1;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int t = (int)(cpus > 0 ? cpus : 1) / (local > 0 ? local : 1);
    return t > 0 ? t : 1;
}

ompdag_status bfs_dg_alloc(MPI_Comm comm, int64_t n, int threads, ompdag_dgraph **out,
                           ompdag_error *err)
{
    ompdag_dgraph *g = calloc(1, sizeof *g);
    if (!g) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dgraph: out of memory");
    MPI_Comm_dup(comm, &g->comm);
    MPI_Comm_rank(g->comm, &g->rank);
    MPI_Comm_size(g->comm, &g->size);
    g->threads = threads > 0 ? threads : default_threads(g->comm);
    g->n = n;
    int64_t per = (n + g->size - 1) / g->size;
    g->block = (per + 63) / 64 * 64;
    if (g->block == 0) g->block = 64;
    g->lo = dg_rank_lo(g, g->rank);
    g->nl = dg_rank_count(g, g->rank);
    g->offsets = calloc((size_t)g->nl + 1, sizeof *g->offsets);
    if (!g->offsets) {
        ompdag_dgraph_destroy(g);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dgraph: out of memory for %lld offsets",
                                (long long)g->nl + 1);
    }
    *out = g;
    return OMPDAG_OK;
}

bool bfs_dg_alloc_adj(ompdag_dgraph *g, int64_t ml)
{
    g->ml = ml;
    size_t k = (size_t)(ml > 0 ? ml : 1);
    if (g->n <= INT32_MAX)
        g->adj32 = malloc(k * sizeof *g->adj32);
    else
        g->adj64 = malloc(k * sizeof *g->adj64);
    return g->adj32 || g->adj64;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

bool bfs_dg_build_rows(ompdag_dgraph *g, const dg_pair *arc, int64_t count, bool dedup)
{
    int64_t *deg = calloc((size_t)g->nl + 1, sizeof *deg);
    int64_t *heads = malloc((size_t)(count > 0 ? count : 1) * sizeof *heads);
    if (!deg || !heads) {
        free(deg);
        free(heads);
        return false;
    }
    for (int64_t i = 0; i < count; ++i)
        ++deg[arc[i].a - g->lo + 1];
    for (int64_t v = 0; v < g->nl; ++v)
        deg[v + 1] += deg[v];
    for (int64_t i = 0; i < count; ++i)
        heads[deg[arc[i].a - g->lo]++] = arc[i].b;
    /* deg[v] now ends row v; rows start at deg[v - 1] (0 for the first) */
    int64_t kept = 0;
    for (int64_t v = 0; v < g->nl; ++v) {
        int64_t b = v ? deg[v - 1] : 0, e = deg[v];
        qsort(heads + b, (size_t)(e - b), sizeof *heads, cmp_i64);
        g->offsets[v] = kept;
        for (int64_t i = b; i < e; ++i)
            if (!dedup || i == b || heads[i] != heads[i - 1]) heads[kept++] = heads[i];
    }
    g->offsets[g->nl] = kept;
    free(deg);
    bool ok = bfs_dg_alloc_adj(g, kept);
    for (int64_t e = 0; ok && e < kept; ++e)
        dg_set_nbr(g, e, heads[e]);
    free(heads);
    return ok;
}

/* This rank's share of the edge list: edges [r·M/P, (r+1)·M/P). */
static ompdag_status dg_draw_edges(const ompdag_dgraph *g, ompdag_dgraph_kind kind, int scale,
                                   int64_t m, uint64_t seed, int64_t **src, int64_t **dst,
                                   int64_t *count, ompdag_error *err)
{
    int64_t first = m / g->size * g->rank + (m % g->size < g->rank ? m % g->size : g->rank);
    *count = m / g->size + (g->rank < m % g->size);
    *src = malloc((size_t)(*count > 0 ? *count : 1) * sizeof **src);
    *dst = malloc((size_t)(*count > 0 ? *count : 1) * sizeof **dst);
    if (!*src || !*dst)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dgraph: out of memory for %lld edges",
                                (long long)*count);
    if (kind == OMPDAG_DGRAPH_KRONECKER)
        graph_kron_edges(scale, seed, first, *count, *src, *dst);
    else
        graph_uniform_edges(scale, seed, first, *count, *src, *dst);
    return OMPDAG_OK;
}

/* Calls EMIT for every arc the flags make of edge i (graph_build.c's
 * FOR_EACH_ARC): (s, d) unless a dropped self-loop, and (d, s) too when
 * symmetrizing a non-loop. */
#define DG_FOR_EACH_ARC(i, s, d, EMIT)                                                             \
    do {                                                                                           \
        const int64_t s_ = src[i], d_ = dst[i];                                                    \
        if (s_ == d_ && (flags & OMPDAG_GRAPH_DROP_SELF_LOOPS)) break;                             \
        s = s_, d = d_;                                                                            \
        EMIT;                                                                                      \
        if ((flags & OMPDAG_GRAPH_SYMMETRIZE) && s_ != d_) {                                       \
            s = d_, d = s_;                                                                        \
            EMIT;                                                                                  \
        }                                                                                          \
    } while (0)

dg_pair *bfs_dg_pack_arcs(const ompdag_dgraph *g, const int64_t *src, const int64_t *dst,
                          int64_t count, unsigned flags, int *scount)
{
    int64_t s, d;
    int64_t *fill = calloc((size_t)g->size + 1, sizeof *fill);
    dg_pair *send = malloc((size_t)(2 * count > 0 ? 2 * count : 1) * sizeof *send);
    if (!fill || !send) {
        free(fill);
        free(send);
        return NULL;
    }
    for (int64_t i = 0; i < count; ++i)
        DG_FOR_EACH_ARC(i, s, d, ++fill[dg_owner(g, s) + 1]);
    for (int r = 0; r < g->size; ++r) {
        scount[r] = (int)fill[r + 1];
        fill[r + 1] += fill[r];
    }
    for (int64_t i = 0; i < count; ++i)
        DG_FOR_EACH_ARC(i, s, d, send[fill[dg_owner(g, s)]++] = ((dg_pair){s, d}));
    free(fill);
    return send;
}

void bfs_dg_finish(ompdag_dgraph *g, bool symmetric)
{
    MPI_Allreduce(&g->ml, &g->arcs, 1, MPI_INT64_T, MPI_SUM, g->comm);
    int64_t loops = 0;
    for (int64_t v = 0; v < g->nl; ++v)
        for (int64_t e = g->offsets[v]; e < g->offsets[v + 1]; ++e)
            loops += dg_nbr(g, e) == g->lo + v;
    MPI_Allreduce(&loops, &g->loops, 1, MPI_INT64_T, MPI_SUM, g->comm);
    int sym = symmetric, all;
    MPI_Allreduce(&sym, &all, 1, MPI_INT, MPI_MIN, g->comm);
    g->symmetric = all != 0;
}

ompdag_status ompdag_dgraph_generate(ompdag_dgraph_kind kind, int scale, int edge_factor,
                                     uint64_t seed, int threads, ompdag_dgraph **out,
                                     ompdag_error *err)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    *out = NULL;
    ompdag_status st = graph_check_scale(scale, edge_factor, err);
    ompdag_dgraph *g = NULL;
    int64_t n = (int64_t)1 << (st == OMPDAG_OK ? scale : 1), m = n * edge_factor;
    if (st == OMPDAG_OK) st = bfs_dg_alloc(comm, n, threads, &g, err);
    if ((st = bfs_mpi_agree(comm, st, err)) != OMPDAG_OK) {
        ompdag_dgraph_destroy(g);
        return st;
    }
    int64_t *src = NULL, *dst = NULL, count = 0;
    int *scount = calloc((size_t)g->size, sizeof *scount);
    dg_pair *send = NULL;
    st = scount ? dg_draw_edges(g, kind, scale, m, seed, &src, &dst, &count, err)
                : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dgraph: out of memory");
    if (st == OMPDAG_OK && 2 * count > INT32_MAX)
        st = ompdag_error_set(err, OMPDAG_ERR_LIMIT,
                              "dgraph: %lld arcs to send from one rank exceed MPI's int counts; "
                              "run on more ranks",
                              (long long)(2 * count));
    if (st == OMPDAG_OK &&
        !(send = bfs_dg_pack_arcs(g, src, dst, count, OMPDAG_GRAPH_UNDIRECTED_SIMPLE, scount)))
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dgraph: out of memory for %lld arcs",
                              (long long)(2 * count));
    free(src);
    free(dst);
    if ((st = bfs_mpi_agree(comm, st, err)) == OMPDAG_OK) {
        dg_pair *recv = NULL;
        int64_t cap = 0, nrecv = 0;
        if (!bfs_mpi_exchange_pairs(g->comm, g->size, send, scount, &recv, &cap, &nrecv))
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM,
                                  "dgraph: a rank cannot receive its arcs (memory or more than "
                                  "2^31 arcs per rank)");
        free(send);
        send = NULL;
        if (st == OMPDAG_OK && !bfs_dg_build_rows(g, recv, nrecv, true))
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dgraph: out of memory building rows");
        free(recv);
        st = bfs_mpi_agree(comm, st, err);
    }
    free(send);
    free(scount);
    if (st != OMPDAG_OK) {
        ompdag_dgraph_destroy(g);
        return st;
    }
    bfs_dg_finish(g, true);
    *out = g;
    return OMPDAG_OK;
}

ompdag_status ompdag_dgraph_from_graph(const ompdag_graph *full, int threads, ompdag_dgraph **out,
                                       ompdag_error *err)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    *out = NULL;
    ompdag_status st = full ? OMPDAG_OK : OMPDAG_ERR_IO;
    if (!full && err && !err->message[0])
        ompdag_error_set(err, OMPDAG_ERR_IO, "dgraph: no graph on this rank");
    if ((st = bfs_mpi_agree(comm, st, err)) != OMPDAG_OK) return st;
    /* Every rank read the same file: the counts must agree. */
    int64_t mine[2] = {full->n, full->m}, lo[2], hi[2];
    MPI_Allreduce(mine, lo, 2, MPI_INT64_T, MPI_MIN, comm);
    MPI_Allreduce(mine, hi, 2, MPI_INT64_T, MPI_MAX, comm);
    if (lo[0] != hi[0] || lo[1] != hi[1])
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "the ranks read different graphs (%lld..%lld vertices, %lld..%lld "
                                "arcs): give every rank the same file",
                                (long long)lo[0], (long long)hi[0], (long long)lo[1],
                                (long long)hi[1]);
    ompdag_dgraph *g = NULL;
    st = bfs_dg_alloc(comm, full->n, threads, &g, err);
    if (st == OMPDAG_OK) {
        const int64_t base = full->offsets[g->lo];
        for (int64_t v = 0; v <= g->nl; ++v)
            g->offsets[v] = full->offsets[g->lo + v] - base;
        if (!bfs_dg_alloc_adj(g, g->offsets[g->nl]))
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dgraph: out of memory for %lld arcs",
                                  (long long)g->offsets[g->nl]);
        for (int64_t e = 0; st == OMPDAG_OK && e < g->ml; ++e)
            dg_set_nbr(g, e, csr_nbr(full, base + e));
        if (st == OMPDAG_OK && g->ml > INT32_MAX)
            st = ompdag_error_set(err, OMPDAG_ERR_LIMIT,
                                  "dgraph: %lld arcs on one rank exceed MPI's int counts; run on "
                                  "more ranks",
                                  (long long)g->ml);
    }
    if ((st = bfs_mpi_agree(comm, st, err)) != OMPDAG_OK) {
        ompdag_dgraph_destroy(g);
        return st;
    }
    bfs_dg_finish(g, full->symmetric);
    *out = g;
    return OMPDAG_OK;
}

ompdag_status ompdag_dgraph_use_gpu(ompdag_dgraph *g, ompdag_error *err)
{
    MPI_Comm node;
    int local = 0;
    if (MPI_Comm_split_type(g->comm, MPI_COMM_TYPE_SHARED, g->rank, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
    }
    char why[200] = "";
    ompdag_status st = OMPDAG_OK;
    if (!g->gpu)
        g->gpu =
            bfs_mpi_gpu_open(local, g->nl, g->n, g->offsets, g->adj32, g->adj64, why, sizeof why);
    if (!g->gpu)
        st = ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED, "no GPU for this rank: %s", why);
    return bfs_mpi_agree(g->comm, st, err);
}

void ompdag_dgraph_destroy(ompdag_dgraph *g)
{
    if (!g) return;
    if (g->comm != MPI_COMM_NULL) MPI_Comm_free(&g->comm);
    bfs_mpi_gpu_close(g->gpu);
    bfs_mpi_2d_free(g->grid2d);
    free(g->offsets);
    free(g->adj32);
    free(g->adj64);
    free(g);
}

int64_t ompdag_dgraph_vertices(const ompdag_dgraph *g)
{
    return g->n;
}

int64_t ompdag_dgraph_edges(const ompdag_dgraph *g)
{
    return g->symmetric ? (g->arcs - g->loops) / 2 + g->loops : g->arcs; /* as graph_build.c */
}

int64_t ompdag_dgraph_first(const ompdag_dgraph *g)
{
    return g->lo;
}

int64_t ompdag_dgraph_local_vertices(const ompdag_dgraph *g)
{
    return g->nl;
}

int64_t ompdag_dgraph_local_arcs(const ompdag_dgraph *g)
{
    return g->ml;
}

int ompdag_dgraph_ranks(const ompdag_dgraph *g)
{
    return g->size;
}

int ompdag_dgraph_rank(const ompdag_dgraph *g)
{
    return g->rank;
}

int ompdag_dgraph_threads(const ompdag_dgraph *g)
{
    return g->threads;
}

int ompdag_dgraph_pick_sources(const ompdag_dgraph *g, int count, uint64_t seed, int64_t *keys)
{
    /* Every rank gathers the vertices of degree >= 1 (in rank order, so in
     * id order) and draws the same keys one process would draw. */
    int64_t k = 0;
    for (int64_t v = 0; v < g->nl; ++v)
        k += g->offsets[v + 1] > g->offsets[v];
    int mine = (int)k, *counts = calloc(2 * (size_t)g->size, sizeof *counts);
    int ok = counts != NULL && k <= INT32_MAX, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, g->comm);
    if (!all_ok) {
        free(counts);
        return 0;
    }
    MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, g->comm);
    int64_t total = 0;
    for (int r = 0; r < g->size; ++r) {
        counts[g->size + r] = (int)total;
        total += counts[r];
    }
    int64_t *local = malloc((size_t)(k > 0 ? k : 1) * sizeof *local);
    int64_t *cand = malloc((size_t)(total > 0 ? total : 1) * sizeof *cand);
    ok = local && cand && total <= INT32_MAX;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, g->comm);
    int got = 0;
    if (all_ok) {
        k = 0;
        for (int64_t v = 0; v < g->nl; ++v)
            if (g->offsets[v + 1] > g->offsets[v]) local[k++] = g->lo + v;
        MPI_Allgatherv(local, mine, MPI_INT64_T, cand, counts, counts + g->size, MPI_INT64_T,
                       g->comm);
        if (total > 0 && count > 0) {
            bfs_pick_from_candidates(cand, total, count, seed, keys);
            got = count;
        }
    }
    free(local);
    free(cand);
    free(counts);
    return got;
}
