/*
 * bfs_mpi_internal.h — the layout behind ompdag_dgraph and
 * ompdag_dbfs_result (include/ompdag/bfs_mpi.h), shared by the distributed
 * builder (bfs_mpi_graph.c), search (bfs_mpi.c) and validator
 * (bfs_mpi_validate.c).
 */
#ifndef OMPDAG_BFS_MPI_INTERNAL_H
#define OMPDAG_BFS_MPI_INTERNAL_H

#include <mpi.h>

#include "bfs_mpi_gpu.h"
#include "graph_internal.h"
#include "ompdag/bfs_mpi.h"

/* ompdag_mpi_agree on any communicator. */
ompdag_status bfs_mpi_agree(MPI_Comm comm, ompdag_status local, ompdag_error *err);

struct ompdag_dgraph {
    MPI_Comm comm; /* a duplicate of the caller's, freed at destroy */
    int rank, size, threads;
    int64_t n, arcs;    /* global vertices and stored arcs */
    int64_t loops;      /* global self-loop arcs (an edge each, as one process counts) */
    int64_t block;      /* vertices per rank, a multiple of 64: v is owned by v / block */
    int64_t lo, nl;     /* this rank owns [lo, lo + nl) */
    int64_t ml;         /* local arcs */
    int64_t *offsets;   /* nl + 1 entries, local row v - lo */
    int32_t *adj32;     /* ml global ids when n <= INT32_MAX, else NULL */
    int64_t *adj64;     /* ml global ids otherwise */
    bool symmetric;     /* every arc has its reverse (global) */
    int64_t file_bytes; /* bytes this rank read from a graph file (0: generated) */
    bfs_mpi_gpu *gpu;   /* this rank's device, when ompdag_dgraph_use_gpu bound one */
    /* the 2-D blocks (bfs_mpi_2d.c), when ompdag_dgraph_partition_2d made them */
    struct bfs_mpi_2d *grid2d;
};

static inline int64_t dg_nbr(const ompdag_dgraph *g, int64_t e)
{
    return g->adj32 ? (int64_t)g->adj32[e] : g->adj64[e];
}

static inline void dg_set_nbr(ompdag_dgraph *g, int64_t e, int64_t v)
{
    if (g->adj32)
        g->adj32[e] = (int32_t)v;
    else
        g->adj64[e] = v;
}

/* The out-degree of local vertex lv (an index into this rank's rows). */
static inline int64_t dg_local_degree(const ompdag_dgraph *g, int64_t lv)
{
    return g->offsets[lv + 1] - g->offsets[lv];
}

static inline int dg_owner(const ompdag_dgraph *g, int64_t v)
{
    return (int)(v / g->block);
}

/* First vertex and vertex count of rank r's block. */
static inline int64_t dg_rank_lo(const ompdag_dgraph *g, int r)
{
    int64_t lo = (int64_t)r * g->block;
    return lo < g->n ? lo : g->n;
}

static inline int64_t dg_rank_count(const ompdag_dgraph *g, int r)
{
    return dg_rank_lo(g, r + 1) - dg_rank_lo(g, r);
}

/* An int64 pair (vertex, parent or neighbour): the unit of every exchange. */
typedef struct dg_pair {
    int64_t a, b;
} dg_pair;

/* MPI datatype of dg_pair (committed once per process, never freed: MPI
 * frees it at MPI_Finalize). */
MPI_Datatype bfs_mpi_pair_type(void);

/* Sends pairs send[0..) grouped by destination (scount[r] to rank r, in
 * rank order) and receives into *recv (grown with realloc; *recv_cap
 * entries) what every rank sent here; *nrecv gets the count.  Collective.
 * Returns false (and still takes part, sending nothing more) when this
 * rank cannot allocate; the caller agrees on the failure. */
bool bfs_mpi_exchange_pairs(MPI_Comm comm, int size, const dg_pair *send, const int *scount,
                            dg_pair **recv, int64_t *recv_cap, int64_t *nrecv);

/* The builder's steps, shared by generation (bfs_mpi_graph.c) and the
 * parallel file reader (bfs_mpi_read.c):
 * bfs_dg_alloc: an empty dgraph on a duplicate of comm for n vertices (its
 *   offsets allocated, rows to fill); threads 0: the node's CPUs / ranks.
 * bfs_dg_alloc_adj: room for ml local neighbour ids.
 * bfs_dg_pack_arcs: the arcs that flags (OMPDAG_GRAPH_*) make of edges
 *   (src[i], dst[i]), grouped by the owner of their tail, scount[r] per
 *   rank; NULL when out of memory.  The caller frees the result.
 * bfs_dg_build_rows: the local rows from arcs (tail, head) owned here:
 *   counting sort by tail, each row sorted (and deduplicated when dedup),
 *   as graph_build.c builds them.
 * bfs_dg_finish (collective): global arc count and the symmetric flag. */
ompdag_status bfs_dg_alloc(MPI_Comm comm, int64_t n, int threads, ompdag_dgraph **out,
                           ompdag_error *err);
bool bfs_dg_alloc_adj(ompdag_dgraph *g, int64_t ml);
dg_pair *bfs_dg_pack_arcs(const ompdag_dgraph *g, const int64_t *src, const int64_t *dst,
                          int64_t count, unsigned flags, int *scount);
bool bfs_dg_build_rows(ompdag_dgraph *g, const dg_pair *arc, int64_t count, bool dedup);
void bfs_dg_finish(ompdag_dgraph *g, bool symmetric);

struct ompdag_dbfs_result {
    int64_t nl, source, reached, edges, bytes;
    double seconds;
    int32_t *levels;  /* nl entries */
    int64_t *parents; /* nl entries, global ids */
    int64_t cap;
    ompdag_dbfs_level *lv; /* lv[i] for level i >= 1 */
    int level_count, lv_cap;
    /* scratch kept between searches */
    int64_t *queue, *next_queue; /* local frontier, global ids */
    uint64_t *front, *next;      /* global frontier bitmap, n/64 words */
    int64_t words_cap;
    dg_pair *send, *recv;
    int64_t send_cap, recv_cap;
    int *scount;
};

/* The 2-D search (bfs_mpi_2d.c) shares the 1-D engine's result steps
 * (bfs_mpi.c): recording a level, and the TEPS figures at the end. */
bool bfs_dbfs_record(ompdag_dbfs_result *r, int depth, ompdag_bfs_direction dir, int64_t found,
                     int64_t bytes);
void bfs_dbfs_count_traversed(const ompdag_dgraph *g, ompdag_dbfs_result *r);

/* bfs_mpi_2d.c: frees g->grid2d (NULL allowed); runs the top-down 2-D
 * search on r, which ompdag_dbfs_run has prepared (levels and parents -1). */
void bfs_mpi_2d_free(struct bfs_mpi_2d *grid);
ompdag_status bfs_mpi_2d_search(const ompdag_dgraph *g, int64_t source, ompdag_dbfs_result *r,
                                ompdag_error *err);

#endif
