/*
 * ompdag/bfs_mpi.h — breadth-first search over MPI ranks (issue 30): the
 * graph is split 1-D by vertex (Enterprise's multi-GPU design, seed 003
 * §4.4), every rank runs the direction-optimizing CPU BFS (Beamer et al.,
 * SC'12) on the vertices it owns, and the frontier is exchanged each level:
 * top-down as (vertex, parent) pairs with MPI_Alltoallv, bottom-up as a
 * bitmap with MPI_Allgatherv.  Graph500 validation runs distributed too.
 *
 * Only built when CMake finds MPI (OMPDAG_HAVE_MPI).  The caller starts MPI
 * (MPI_Init); the functions work over MPI_COMM_WORLD, so this header needs
 * no <mpi.h>.  Every function taking a dgraph or dbfs result is collective:
 * every rank calls it, and every rank gets the same status back (a failure
 * on one rank is reported on all, its message prefixed with "rank R: ").
 */
#ifndef OMPDAG_BFS_MPI_H
#define OMPDAG_BFS_MPI_H

#include <stdbool.h>
#include <stdint.h>

#include "ompdag/bfs.h"
#include "ompdag/error.h"
#include "ompdag/graph.h"
#include "ompdag/offload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True when this process was started by an MPI launcher (mpirun, srun):
 * only then does `ompdag bfs` call MPI_Init.  Not collective. */
bool ompdag_mpi_launched(void);

/* Collective agreement on an outcome: every rank passes its own status and
 * err (whose message explains a failure).  Returns OMPDAG_OK when every
 * rank's was; else the status of the lowest failing rank, with its message
 * as "rank R: message" in *err on every rank.  No rank is left waiting. */
ompdag_status ompdag_mpi_agree(ompdag_status local, ompdag_error *err);

/* The part of a graph that one rank owns: vertices [first, first + count),
 * a block of a multiple of 64 vertices (so frontier bitmaps split on word
 * boundaries), and their out-edges with global neighbour ids. */
typedef struct ompdag_dgraph ompdag_dgraph;

typedef enum ompdag_dgraph_kind {
    OMPDAG_DGRAPH_KRONECKER = 0, /* ompdag_graph_kronecker's graph */
    OMPDAG_DGRAPH_UNIFORM        /* ompdag_graph_uniform's graph */
} ompdag_dgraph_kind;

/* Generates the graph ompdag_graph_kronecker / _uniform would, in parallel:
 * rank r draws edges [r·M/P, (r+1)·M/P) of the M = edge_factor·2^scale, and
 * each arc is sent to the rank owning its tail (MPI_Alltoallv).  The rows
 * are then sorted, deduplicated and free of self-loops, as one process's.
 * threads: OpenMP threads per rank (0: the node's CPUs / its ranks).
 * The caller frees *out with ompdag_dgraph_destroy(). */
ompdag_status ompdag_dgraph_generate(ompdag_dgraph_kind kind, int scale, int edge_factor,
                                     uint64_t seed, int threads, ompdag_dgraph **out,
                                     ompdag_error *err);

/* Keeps this rank's rows of g, a graph every rank holds (read from the
 * same file).  g may be NULL on a rank whose read failed: then err holds
 * why, and every rank returns that failure.  The graphs must agree in
 * vertex and arc counts (else OMPDAG_ERR_ARGUMENT on every rank).
 * The caller frees *out with ompdag_dgraph_destroy(); g stays the caller's. */
ompdag_status ompdag_dgraph_from_graph(const ompdag_graph *g, int threads, ompdag_dgraph **out,
                                       ompdag_error *err);

/* Reads a graph file in parallel: each rank reads only its byte range of
 * an edge list (the lines starting in bytes [r·S/P, (r+1)·S/P)), or of a
 * binary .csr file its offsets and neighbour ids, and every arc goes to the
 * rank owning its tail.  The result equals ompdag_graph_read_limited's graph
 * (path, OMPDAG_GRAPH_FORMAT_AUTO, flags, max_vertices) row for row, and a
 * malformed file gives the error one process gives (file:line or byte),
 * reported by the rank that read it.  Matrix Market files, pipes, and ranks
 * naming different files (or sizes) fall back to every rank reading the
 * whole file (ompdag_dgraph_from_graph).  Collective.
 * The caller frees *out with ompdag_dgraph_destroy(). */
ompdag_status ompdag_dgraph_read(const char *path, unsigned flags, int64_t max_vertices,
                                 int threads, ompdag_dgraph **out, ompdag_error *err);

/* Bytes this rank read from the graph file: its share when read in
 * parallel, -1 when every rank read the whole file, 0 when generated. */
int64_t ompdag_dgraph_file_bytes(const ompdag_dgraph *g);

/* Out-degree and i-th neighbour (global id) of v, a vertex this rank owns
 * (first <= v < first + local_vertices).  Not collective. */
int64_t ompdag_dgraph_degree(const ompdag_dgraph *g, int64_t v);
int64_t ompdag_dgraph_neighbor(const ompdag_dgraph *g, int64_t v, int64_t i);

/* Collective: binds each rank to a GPU of its node (local rank modulo the
 * node's devices), uploads its rows, and from then on runs the bottom-up
 * levels of ompdag_dbfs_run there (top-down levels stay on the CPU;
 * results are the same).  OMPDAG_ERR_UNSUPPORTED on every rank when a rank
 * has no device or the build has no CUDA; g then stays on the CPU. */
ompdag_status ompdag_dgraph_use_gpu(ompdag_dgraph *g, ompdag_error *err);

/* Collective: splits g's arcs over a rows × cols process grid (Buluç and
 * Madduri, SC'11, §4.2), after which ompdag_dbfs_run searches top-down
 * only, each level an expand of the frontier along the processor column
 * (MPI_Allgatherv) and a fold of the found vertices, with their parents,
 * along the processor row (MPI_Alltoallv).  Rank p is grid cell (p mod
 * rows, p / rows); its vertices and results stay those of the 1-D layout
 * (so validation and the accessors are unchanged).  rows = cols = 0 picks
 * the squarest grid (rows <= cols); else rows · cols must be the rank
 * count (OMPDAG_ERR_ARGUMENT on every rank).  The arcs move once, in one
 * MPI_Alltoallv of 16 bytes per arc.  Calling it again regrids. */
ompdag_status ompdag_dgraph_partition_2d(ompdag_dgraph *g, int rows, int cols, ompdag_error *err);

/* The grid of ompdag_dgraph_partition_2d: true with *rows, *cols and the
 * bytes its redistribution sent between ranks (all ranks); false (outputs
 * untouched) for a 1-D graph.  Not collective. */
bool ompdag_dgraph_grid(const ompdag_dgraph *g, int *rows, int *cols, int64_t *moved_bytes);

/* Frees g.  NULL is allowed.  Not collective. */
void ompdag_dgraph_destroy(ompdag_dgraph *g);

int64_t ompdag_dgraph_vertices(const ompdag_dgraph *g); /* global n */
int64_t ompdag_dgraph_edges(const ompdag_dgraph *g);    /* global, as ompdag_graph_edges */
int64_t ompdag_dgraph_first(const ompdag_dgraph *g);    /* first vertex this rank owns */
int64_t ompdag_dgraph_local_vertices(const ompdag_dgraph *g);
int64_t ompdag_dgraph_local_arcs(const ompdag_dgraph *g);
int ompdag_dgraph_ranks(const ompdag_dgraph *g);
int ompdag_dgraph_rank(const ompdag_dgraph *g);
int ompdag_dgraph_threads(const ompdag_dgraph *g); /* OpenMP threads per rank */

/* Collective: the keys ompdag_bfs_pick_sources would pick on the whole
 * graph (the same on every rank).  Returns how many (0: no edge). */
int ompdag_dgraph_pick_sources(const ompdag_dgraph *g, int count, uint64_t seed, int64_t *keys);

/* What one level of a distributed search did (global figures). */
typedef struct ompdag_dbfs_level {
    ompdag_bfs_direction direction;
    int64_t visited; /* vertices found at this level, all ranks */
    int64_t bytes;   /* payload bytes sent between ranks to compute it, all ranks:
                        top-down 16 per (vertex, parent) pair sent to another rank
                        (2-D: plus 8 per frontier id or bitmap word, times rows - 1);
                        bottom-up 8 per bitmap word, times (ranks - 1) receivers */
} ompdag_dbfs_level;

/* A rank's share of one search.  Reusable across searches. */
typedef struct ompdag_dbfs_result ompdag_dbfs_result;

/* Creates an empty result; free it with ompdag_dbfs_result_destroy(). */
ompdag_status ompdag_dbfs_result_create(ompdag_dbfs_result **out, ompdag_error *err);
void ompdag_dbfs_result_destroy(ompdag_dbfs_result *r); /* NULL allowed */

/* Collective: one search from global vertex source.  opts (may be NULL)
 * gives α and β; the engine is always the direction-optimizing one.  Every
 * reached vertex's parent is its smallest neighbour one level up, whatever
 * the rank count (so parents are deterministic). */
ompdag_status ompdag_dbfs_run(const ompdag_dgraph *g, int64_t source,
                              const ompdag_bfs_options *opts, ompdag_dbfs_result *r,
                              ompdag_error *err);

/* Accessors (same value on every rank unless marked local).  Arrays are
 * owned by r and live until its next run or destroy. */
const int32_t *ompdag_dbfs_result_levels(const ompdag_dbfs_result *r);  /* local, -1 unreached */
const int64_t *ompdag_dbfs_result_parents(const ompdag_dbfs_result *r); /* local, global ids */
int32_t *ompdag_dbfs_result_levels_mut(ompdag_dbfs_result *r);          /* for validator tests */
int64_t *ompdag_dbfs_result_parents_mut(ompdag_dbfs_result *r);
int64_t ompdag_dbfs_result_reached(const ompdag_dbfs_result *r);
int64_t ompdag_dbfs_result_edges(const ompdag_dbfs_result *r);   /* TEPS numerator */
double ompdag_dbfs_result_seconds(const ompdag_dbfs_result *r);  /* slowest rank */
double ompdag_dbfs_result_teps(const ompdag_dbfs_result *r);     /* as ompdag_bfs_result_teps */
int ompdag_dbfs_result_level_count(const ompdag_dbfs_result *r); /* incl. the source's */
const ompdag_dbfs_level *ompdag_dbfs_result_level(const ompdag_dbfs_result *r, int i); /* 1.. */
int64_t ompdag_dbfs_result_bytes(const ompdag_dbfs_result *r); /* all levels, empty last too */

/* Collective: the five Graph500 rules of ompdag_bfs_validate, each rank
 * checking its own vertices and rows.  Every rank holds all n levels
 * (MPI_Allgatherv, 4n bytes) while it checks; parents stay distributed,
 * and for a directed graph the parent arcs are checked by the parent's
 * owner.  A cycle in the parents breaks rule 2 here (levels fall by one
 * along every tree edge), so it is reported as tree-levels.  Returns
 * OMPDAG_OK or OMPDAG_ERR_INVALID with the smallest failing vertex and its
 * rule, on every rank. */
ompdag_status ompdag_dbfs_validate(const ompdag_dgraph *g, const ompdag_dbfs_result *r,
                                   ompdag_bfs_rule *rule, int64_t *vertex, ompdag_error *err);

/* Maps task regions over the targets of several nodes with co-location of
 * neighbours per node (Sheng et al. 2015): first each region to a node (a
 * node is one resource of its targets' summed capacity, CG when it has a
 * GPU) by ompdag_map_regions's rules, so an adjacent region's node is
 * preferred while within its share; then each node's regions over that
 * node's targets by the same rules.  node[t] in [0, ntargets) is target t's
 * node; every node index up to the largest must have a target.  assign[r]
 * receives region r's target index.  Errors as ompdag_map_regions's.  Not
 * collective (no MPI): `ompdag map` calls it on rank 0. */
ompdag_status ompdag_map_over_nodes(const ompdag_map_region *regions, int nregions,
                                    const int32_t *edges, int nedges,
                                    const ompdag_map_resource *targets, const int *node,
                                    int ntargets, int32_t *assign, ompdag_error *err);

#ifdef __cplusplus
}
#endif
#endif
