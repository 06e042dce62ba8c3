/*
 * graph_internal.h — the CSR layout behind ompdag_graph, shared by the
 * builder, generators, readers, BFS kernels and verifier (GAP-style: one
 * representation, every kernel shares it).
 */
#ifndef OMPDAG_BFS_GRAPH_INTERNAL_H
#define OMPDAG_BFS_GRAPH_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ompdag/graph.h"

struct ompdag_graph {
    int64_t n;        /* vertices */
    int64_t m;        /* stored arcs */
    int64_t *offsets; /* n + 1 entries; row v is [offsets[v], offsets[v+1]) */
    int32_t *adj32;   /* m ids when n <= INT32_MAX, else NULL */
    int64_t *adj64;   /* m ids otherwise, else NULL */
    bool symmetric;   /* every arc has its reverse */
    bool sorted;      /* every row is sorted by id */
    uint64_t uid;     /* unique per graph created in this process (device caches key on it) */
};

static inline int64_t csr_nbr(const ompdag_graph *g, int64_t e)
{
    return g->adj32 ? (int64_t)g->adj32[e] : g->adj64[e];
}

static inline int64_t csr_degree(const ompdag_graph *g, int64_t v)
{
    return g->offsets[v + 1] - g->offsets[v];
}

/* True when u -> v is an arc: binary search in sorted rows, else a scan. */
bool graph_has_arc(const ompdag_graph *g, int64_t u, int64_t v);

/* Allocates an empty graph with offsets for n vertices and room for m arcs;
 * ids are int64 when n > INT32_MAX or `wide`, else int32. */
ompdag_status graph_alloc(int64_t n, int64_t m, bool wide, ompdag_graph **out, ompdag_error *err);

/* Checks symmetry and sortedness and stores the flags. */
void graph_compute_flags(ompdag_graph *g);

/* In graph_generate.c: the scale / edge-factor check of the generators, and
 * edges [first, first+count) of the Kronecker and uniform generators (edge i
 * depends only on scale, seed and i; bfs_mpi_graph.c draws one range per rank). */
ompdag_status graph_check_scale(int scale, int edge_factor, ompdag_error *err);
void graph_kron_edges(int scale, uint64_t seed, int64_t first, int64_t count, int64_t *src,
                      int64_t *dst);
void graph_uniform_edges(int scale, uint64_t seed, int64_t first, int64_t count, int64_t *src,
                         int64_t *dst);

/* In graph_io.c, shared with the MPI reader (bfs_mpi_read.c) so that both
 * apply one set of rules.  graph_edgelist_line parses one NUL-terminated
 * line of an edge list: a comment or blank line gives *is_edge false (a
 * "# vertices N" comment sets *declared), an edge gives *u, *v; errors name
 * path:lineno.  graph_binary_header reads and checks the header of a binary
 * CSR file (GRAPH_BINARY_HEADER_BYTES long; offsets, then ids, follow). */
#define GRAPH_BINARY_HEADER_BYTES 40
ompdag_status graph_edgelist_line(char *line, const char *path, long lineno, int64_t max_n,
                                  int64_t *declared, bool *is_edge, int64_t *u, int64_t *v,
                                  ompdag_error *err);
ompdag_status graph_binary_header(FILE *f, const char *path, int64_t size, int64_t *n, int64_t *m,
                                  int *id_bytes, ompdag_error *err);

/* In graph_io.c, Matrix Market's rules, shared with the MPI reader
 * (bfs_mpi_read_mtx.c): graph_mtx_banner checks line 1 ("%%MatrixMarket
 * matrix coordinate FIELD SYMMETRY"; NULL: the file is empty); graph_mtx_skipped is true for a
 * comment or blank line; graph_mtx_size parses "rows cols entries" (rows, cols <= max_n);
 * graph_mtx_entry parses "row col [value]" into 0-based *u, *v; graph_mtx_too_many and
 * graph_mtx_count give the entry-count errors.  Each error names path:lineno. */
ompdag_status graph_mtx_banner(const char *line, const char *path, bool *has_value, bool *symmetric,
                               ompdag_error *err);
bool graph_mtx_skipped(const char *line);
ompdag_status graph_mtx_size(char *line, const char *path, long lineno, int64_t max_n,
                             int64_t *rows, int64_t *cols, int64_t *nnz, ompdag_error *err);
ompdag_status graph_mtx_entry(char *line, const char *path, long lineno, bool has_value,
                              int64_t rows, int64_t cols, int64_t *u, int64_t *v,
                              ompdag_error *err);
ompdag_status graph_mtx_too_many(const char *path, long lineno, int64_t nnz, ompdag_error *err);
ompdag_status graph_mtx_count(const char *path, long lineno, int64_t nnz, int64_t found,
                              ompdag_error *err);

/* splitmix64: the seeded, counter-based random source of the generators. */
static inline uint64_t bfs_splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* A uniform double in [0, 1) from 53 random bits. */
static inline double bfs_unit(uint64_t r)
{
    return (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

#endif
