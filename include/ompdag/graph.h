/*
 * ompdag/graph.h — directed or undirected graphs in CSR form for the BFS
 * engines of cuda-offload (Enterprise, Liu & Huang 2015, §5: "all graphs are
 * represented in compressed sparse row (CSR) format").
 *
 * A graph is an opaque, immutable handle.  Offsets are int64; neighbour ids
 * are int32 when the vertex count fits (n <= INT32_MAX) and int64 otherwise,
 * so that a Graph500 scale-22 graph takes 4 bytes per stored arc.
 * Every fallible function returns an ompdag_status and fills *err (when not
 * NULL) with a message; nothing here aborts.
 */
#ifndef OMPDAG_GRAPH_H
#define OMPDAG_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "ompdag/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An immutable CSR graph.  Create with one of the builders or readers below,
 * free with ompdag_graph_destroy(). */
typedef struct ompdag_graph ompdag_graph;

/* Flags for the edge-list builder. */
enum {
    OMPDAG_GRAPH_SYMMETRIZE = 1u << 0,      /* add (v,u) for every (u,v): an undirected graph */
    OMPDAG_GRAPH_DROP_SELF_LOOPS = 1u << 1, /* drop (v,v) */
    OMPDAG_GRAPH_DEDUP = 1u << 2,           /* keep one copy of each arc */
    OMPDAG_GRAPH_WIDE_IDS = 1u << 3,        /* int64 neighbour ids even when int32 would do
                                               (what graphs of more than 2^31 vertices use) */
    /* The flags the Graph500 generators use. */
    OMPDAG_GRAPH_UNDIRECTED_SIMPLE =
        OMPDAG_GRAPH_SYMMETRIZE | OMPDAG_GRAPH_DROP_SELF_LOOPS | OMPDAG_GRAPH_DEDUP
};

/* Builds a CSR graph of n vertices from m arcs src[i] -> dst[i].
 *   src, dst: m vertex ids each, in [0, n); read only, still owned by the caller.
 *   flags:    OMPDAG_GRAPH_* above.  Each row of the result is sorted by id.
 *   out:      receives a new graph; the caller frees it with ompdag_graph_destroy().
 * Returns OMPDAG_ERR_ARGUMENT for an id out of range, OMPDAG_ERR_NOMEM. */
ompdag_status ompdag_graph_from_edges(int64_t n, int64_t m, const int64_t *src, const int64_t *dst,
                                      unsigned flags, ompdag_graph **out, ompdag_error *err);

/* The Graph500 Kronecker generator: 2^scale vertices, edge_factor * 2^scale
 * edges drawn with initiator A=0.57, B=C=0.19, D=0.05, vertex ids permuted at
 * random, then symmetrized, self-loops dropped and duplicates removed.  The
 * same (scale, edge_factor, seed) gives the same graph on every machine and
 * thread count.  scale in [1, 40].  The caller frees *out. */
ompdag_status ompdag_graph_kronecker(int scale, int edge_factor, uint64_t seed, ompdag_graph **out,
                                     ompdag_error *err);

/* A uniform random (Erdős–Rényi G(n, m)) graph: 2^scale vertices and
 * edge_factor * 2^scale edges with endpoints drawn uniformly, made undirected
 * and simple as above.  Deterministic in seed.  The caller frees *out. */
ompdag_status ompdag_graph_uniform(int scale, int edge_factor, uint64_t seed, ompdag_graph **out,
                                   ompdag_error *err);

/* File formats. */
typedef enum ompdag_graph_format {
    OMPDAG_GRAPH_FORMAT_AUTO =
        0,                      /* by extension: .csr binary, .mtx Matrix Market, else edge list */
    OMPDAG_GRAPH_FORMAT_BINARY, /* "OMPDAGCSR" header + raw offsets and ids, little endian */
    OMPDAG_GRAPH_FORMAT_EDGELIST,     /* text: "u v" per line, 0-based, '#' or '%' comments */
    OMPDAG_GRAPH_FORMAT_MATRIX_MARKET /* coordinate pattern/real/integer, general or symmetric */
} ompdag_graph_format;

/* Reads a graph from path.  Edge lists are read as directed arcs and built
 * with `flags` (OMPDAG_GRAPH_*); Matrix Market files marked `symmetric` are
 * always symmetrized; binary files are taken as stored (flags ignored).
 * A malformed file gives OMPDAG_ERR_PARSE with "path:LINE: what".
 * The caller frees *out with ompdag_graph_destroy(). */
ompdag_status ompdag_graph_read(const char *path, ompdag_graph_format format, unsigned flags,
                                ompdag_graph **out, ompdag_error *err);

/* As ompdag_graph_read, with a cap on the vertex count that ids, a declared
 * "# vertices N" or a Matrix Market size line may ask for (OMPDAG_ERR_LIMIT
 * beyond it): a 12-byte edge list "0 268435456" must not allocate gigabytes.
 * max_vertices <= 0 takes ompdag_graph_default_max_vertices(file size).  A
 * binary file's header must match its size exactly (no trailing bytes). */
ompdag_status ompdag_graph_read_limited(const char *path, ompdag_graph_format format,
                                        unsigned flags, int64_t max_vertices, ompdag_graph **out,
                                        ompdag_error *err);

/* The default cap: 2^20 + 16 vertices per byte of the file (a text edge list
 * needs at least 4 bytes per edge and names at most 2 new vertices in it). */
int64_t ompdag_graph_default_max_vertices(int64_t file_bytes);

/* Writes g to path in format (AUTO picks by extension as above).  Edge lists
 * and Matrix Market files list every stored arc once ("general"). */
ompdag_status ompdag_graph_write(const ompdag_graph *g, const char *path,
                                 ompdag_graph_format format, ompdag_error *err);

/* Frees g and everything it owns.  NULL is allowed. */
void ompdag_graph_destroy(ompdag_graph *g);

/* Number of vertices. */
int64_t ompdag_graph_vertices(const ompdag_graph *g);
/* Number of stored arcs (an undirected edge counts twice, a self-loop once). */
int64_t ompdag_graph_arcs(const ompdag_graph *g);
/* Number of edges: arcs / 2 (rounded up) for a symmetric graph, else arcs. */
int64_t ompdag_graph_edges(const ompdag_graph *g);
/* Out-degree of v; v must be in [0, n). */
int64_t ompdag_graph_degree(const ompdag_graph *g, int64_t v);
/* The i-th out-neighbour of v, i in [0, degree(v)). */
int64_t ompdag_graph_neighbor(const ompdag_graph *g, int64_t v, int64_t i);
/* True when every arc (u,v) has its reverse (v,u): an undirected graph. */
bool ompdag_graph_is_symmetric(const ompdag_graph *g);
/* Bytes of neighbour id (4 or 8). */
int ompdag_graph_id_bytes(const ompdag_graph *g);
/* Bytes the CSR arrays take (offsets + neighbour ids). */
int64_t ompdag_graph_memory_bytes(const ompdag_graph *g);

#ifdef __cplusplus
}
#endif
#endif
