/*
 * bfs_mpi_read.c — a graph file read in parallel by the ranks of the MPI
 * BFS (issue 30): rank r of P reads only its byte range of the file, as the
 * Graph500 reference and MPI-IO readers split a file, and the arcs it finds
 * go to the owners of their tails (1-D partition, bfs_mpi_graph.c).
 *
 * Edge lists: rank r takes the lines that start in bytes
 * [r·S/P, (r+1)·S/P) of the S-byte file (reading on to the end of its last
 * line).  Line numbers and the "# vertices N" declaration in force at a
 * rank's first line come from the ranks before it (their newline counts and
 * last declaration, one MPI_Allgather), and each line is parsed by
 * graph_io.c's own rule (graph_edgelist_line), so a malformed line is
 * reported by its owner with the file:line one process reports, and the
 * lowest failing rank's error is the first one in the file.
 *
 * Binary CSR (.csr): every rank reads the header, then only its offsets
 * and neighbour ids (pread); the checks of graph_io.c run in the same order,
 * each over its own part, with an agreement after each, so the error is the
 * one process's.  Undirected-simple flags rebuild the rows from the arcs as
 * graph_io.c's normalize step does.
 *
 * Matrix Market (.mtx): bfs_mpi_read_mtx.c, the edge-list split after the
 * header.  Pipes, and ranks given different files, fall back to every rank
 * reading the whole file (ompdag_dgraph_from_graph).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bfs_mpi_chunk.h"
#include "bfs_mpi_internal.h"
#include "ompdag/internal/array.h"

/* ---- reading bytes ---- */

/* The file as every rank sees it: its size (-1 when not a regular file or
 * not opened) and a hash of its name; ranks read in parallel only when all
 * agree (an MPMD launch may name different files). */
typedef struct file_key {
    int64_t size, name_hash;
} file_key;

static int64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; ++s)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (int64_t)(h >> 1);
}

static bool same_file_everywhere(MPI_Comm comm, file_key mine)
{
    int64_t lo[2], hi[2], k[2] = {mine.size, mine.name_hash};
    MPI_Allreduce(k, lo, 2, MPI_INT64_T, MPI_MIN, comm);
    MPI_Allreduce(k, hi, 2, MPI_INT64_T, MPI_MAX, comm);
    return lo[0] >= 0 && lo[0] == hi[0] && lo[1] == hi[1];
}

/* ---- edge lists ---- */

/* What a rank's predecessors tell it: newlines before its range and the
 * "# vertices N" declaration in force at its first line; and the file's
 * last declaration (the vertex count one process ends with). */
typedef struct line_context {
    int64_t lines_before, declared, last_declared;
} line_context;

static bool share_line_context(MPI_Comm comm, int rank, int size, chunk *c, line_context *lc)
{
    int64_t mine[2] = {0, -1}; /* newlines in the raw range, last declaration */
    for (int64_t i = c->start - c->at; i < c->end - c->at; ++i)
        mine[0] += c->buf[i] == '\n';
    FOR_EACH_LINE(c, p, {
        const char *q = p + strspn(p, " \t");
        long long nv;
        if (*q == '#' && sscanf(q, "# vertices %lld", &nv) == 1 && nv >= 0) mine[1] = nv;
    });
    int64_t *all = malloc(2 * (size_t)size * sizeof *all);
    int ok = all != NULL, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        free(all);
        return false;
    }
    MPI_Allgather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T, comm);
    *lc = (line_context){0, -1, -1};
    for (int r = 0; r < size; ++r) {
        if (r < rank) lc->lines_before += all[2 * r];
        if (r < rank && all[2 * r + 1] >= 0) lc->declared = all[2 * r + 1];
        if (all[2 * r + 1] >= 0) lc->last_declared = all[2 * r + 1];
    }
    free(all);
    return true;
}

typedef struct edges {
    int64_t *src, *dst, len, cap, n; /* n: largest id + 1 */
} edges;

static bool edges_push(edges *e, int64_t u, int64_t v)
{
    int64_t src_cap = e->cap; /* src grows first; e->cap counts once dst has grown too */
    if (!ompdag_grow_array((void **)&e->src, sizeof *e->src, &src_cap, e->len + 1) ||
        !ompdag_grow_array((void **)&e->dst, sizeof *e->dst, &e->cap, e->len + 1))
        return false;
    e->src[e->len] = u;
    e->dst[e->len++] = v;
    if (u + 1 > e->n) e->n = u + 1;
    if (v + 1 > e->n) e->n = v + 1;
    return true;
}

/* Parses the chunk's lines with graph_io.c's rule, numbering them from the
 * line context. */
static ompdag_status parse_chunk(chunk *c, const line_context *lc, const char *path, int64_t max_n,
                                 edges *out, ompdag_error *err)
{
    long lineno = (long)(lc->lines_before + (c->first > c->start) + 1);
    int64_t declared = lc->declared;
    ompdag_status st = OMPDAG_OK;
    FOR_EACH_LINE(c, p, {
        bool is_edge;
        int64_t u, v;
        st = graph_edgelist_line(p, path, lineno++, max_n, &declared, &is_edge, &u, &v, err);
        if (st == OMPDAG_OK && is_edge && !edges_push(out, u, v))
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "%s:%ld: out of memory", path, lineno - 1);
        go_on_ = st == OMPDAG_OK;
    });
    return st;
}

/* ---- building the rows ---- */

static ompdag_status read_edgelist(MPI_Comm comm, int fd, int64_t size, const char *path,
                                   unsigned flags, int64_t max_n, int threads, ompdag_dgraph **out,
                                   ompdag_error *err)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    chunk c = {0};
    line_context lc = {0, -1, -1};
    edges e = {0};
    ompdag_status st = bfs_rd_read_chunk(fd, 0, size, rank, P, &c)
                           ? OMPDAG_OK
                           : ompdag_error_set(err, OMPDAG_ERR_IO, "%s: read failed: %s", path,
                                              errno ? strerror(errno) : "out of memory");
    if ((st = bfs_mpi_agree(comm, st, err)) == OMPDAG_OK &&
        !share_line_context(comm, rank, P, &c, &lc))
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dgraph: out of memory");
    if (st == OMPDAG_OK) st = bfs_mpi_agree(comm, parse_chunk(&c, &lc, path, max_n, &e, err), err);
    free(c.buf);
    ompdag_dgraph *g = NULL;
    if (st == OMPDAG_OK) {
        int64_t n;
        MPI_Allreduce(&e.n, &n, 1, MPI_INT64_T, MPI_MAX, comm);
        if (lc.last_declared > n) n = lc.last_declared;
        st = bfs_dg_alloc(comm, n, threads, &g, err);
        if ((st = bfs_mpi_agree(comm, st, err)) == OMPDAG_OK)
            st = bfs_rd_route_arcs(g, e.src, e.dst, e.len, flags, err);
        if (st == OMPDAG_OK) g->file_bytes = c.len;
    }
    free(e.src);
    free(e.dst);
    if (st == OMPDAG_OK) st = bfs_rd_finish_rows(g, flags, err);
    if (st != OMPDAG_OK) {
        ompdag_dgraph_destroy(g);
        return st;
    }
    *out = g;
    return OMPDAG_OK;
}

/* ---- binary CSR ---- */

/* This rank's offsets [lo, lo + nl] of the file, checked as graph_io.c
 * checks the whole array: first the span [0, m], then no decrease. */
static ompdag_status read_offsets(ompdag_dgraph *g, int fd, const char *path, int64_t m,
                                  int64_t *off, ompdag_error *err)
{
    const int64_t base = GRAPH_BINARY_HEADER_BYTES;
    int64_t ends[2];
    ompdag_status st = OMPDAG_OK;
    if (!bfs_rd_pread_all(fd, &ends[0], 8, base) ||
        !bfs_rd_pread_all(fd, &ends[1], 8, base + 8 * g->n) ||
        !bfs_rd_pread_all(fd, off, 8 * (g->nl + 1), base + 8 * g->lo))
        st = ompdag_error_set(err, OMPDAG_ERR_IO, "%s: byte %lld: truncated offsets", path,
                              (long long)base);
    else if (ends[0] != 0 || ends[1] != m)
        st = ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s: byte %lld: offsets do not span [0, %lld]",
                              path, (long long)base, (long long)m);
    g->file_bytes += 16 + 8 * (g->nl + 1);
    if ((st = bfs_mpi_agree(g->comm, st, err)) != OMPDAG_OK) return st;
    for (int64_t v = 0; v < g->nl && st == OMPDAG_OK; ++v)
        if (off[v + 1] < off[v])
            st = ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                  "%s: byte %lld: offsets decrease at vertex %lld", path,
                                  (long long)(base + 8 * (g->lo + v + 1)), (long long)(g->lo + v));
    return bfs_mpi_agree(g->comm, st, err);
}

/* This rank's neighbour ids (as int64), each checked to lie in [0, n). */
static ompdag_status read_ids(ompdag_dgraph *g, int fd, const char *path, int id_bytes,
                              const int64_t *off, int64_t *ids, ompdag_error *err)
{
    const int64_t count = off[g->nl] - off[0];
    const int64_t at = GRAPH_BINARY_HEADER_BYTES + 8 * (g->n + 1) + (int64_t)id_bytes * off[0];
    ompdag_status st = OMPDAG_OK;
    if (!bfs_rd_pread_all(fd, ids, (int64_t)id_bytes * count, at))
        st = ompdag_error_set(err, OMPDAG_ERR_IO, "%s: byte %lld: truncated neighbour ids", path,
                              (long long)at);
    g->file_bytes += (int64_t)id_bytes * count;
    if (st == OMPDAG_OK && id_bytes == 4) /* widen in place, from the end */
        for (int64_t e = count - 1; e >= 0; --e)
            ids[e] = ((const int32_t *)ids)[e];
    for (int64_t e = 0; e < count && st == OMPDAG_OK; ++e)
        if (ids[e] < 0 || ids[e] >= g->n)
            st = ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                  "%s: byte %lld: neighbour id %lld out of range", path,
                                  (long long)(at + (int64_t)id_bytes * e), (long long)ids[e]);
    return bfs_mpi_agree(g->comm, st, err);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The rows as stored (flags 0: directed, loops and repeats kept), each
 * sorted so that the smallest-neighbour parent rule holds. */
static ompdag_status keep_rows(ompdag_dgraph *g, const int64_t *off, int64_t *ids,
                               ompdag_error *err)
{
    for (int64_t v = 0; v <= g->nl; ++v)
        g->offsets[v] = off[v] - off[0];
    ompdag_status st = OMPDAG_OK;
    if (!bfs_dg_alloc_adj(g, g->offsets[g->nl]))
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dgraph: out of memory for %lld arcs",
                              (long long)g->offsets[g->nl]);
    for (int64_t v = 0; v < g->nl && st == OMPDAG_OK; ++v) {
        int64_t *row = ids + g->offsets[v], len = g->offsets[v + 1] - g->offsets[v];
        qsort(row, (size_t)len, sizeof *row, cmp_i64);
        for (int64_t i = 0; i < len; ++i)
            dg_set_nbr(g, g->offsets[v] + i, row[i]);
    }
    return bfs_mpi_agree(g->comm, st, err);
}

static ompdag_status read_binary(MPI_Comm comm, int fd, int64_t size, const char *path,
                                 unsigned flags, int threads, ompdag_dgraph **out,
                                 ompdag_error *err)
{
    int64_t n = 0, m = 0;
    int id_bytes = 8;
    FILE *f = fdopen(dup(fd), "rb");
    ompdag_status st = f ? graph_binary_header(f, path, size, &n, &m, &id_bytes, err)
                         : ompdag_error_set(err, OMPDAG_ERR_IO, "%s: %s", path, strerror(errno));
    if (f) fclose(f);
    ompdag_dgraph *g = NULL;
    if ((st = bfs_mpi_agree(comm, st, err)) != OMPDAG_OK) return st;
    if ((st = bfs_mpi_agree(comm, bfs_dg_alloc(comm, n, threads, &g, err), err)) != OMPDAG_OK)
        return st;
    g->file_bytes = GRAPH_BINARY_HEADER_BYTES;
    int64_t *off = malloc((size_t)(g->nl + 1) * sizeof *off), *ids = NULL, *src = NULL;
    st = off ? OMPDAG_OK : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dgraph: out of memory");
    if ((st = bfs_mpi_agree(comm, st, err)) == OMPDAG_OK)
        st = read_offsets(g, fd, path, m, off, err);
    if (st == OMPDAG_OK) {
        const int64_t count = off[g->nl] - off[0];
        ids = malloc((size_t)(count > 0 ? count : 1) * sizeof *ids);
        src = malloc((size_t)(count > 0 ? count : 1) * sizeof *src);
        st = ids && src ? OMPDAG_OK
                        : ompdag_error_set(err, OMPDAG_ERR_NOMEM,
                                           "dgraph: out of memory for %lld arcs", (long long)count);
        if ((st = bfs_mpi_agree(comm, st, err)) == OMPDAG_OK)
            st = read_ids(g, fd, path, id_bytes, off, ids, err);
        if (st == OMPDAG_OK && (flags & (unsigned)OMPDAG_GRAPH_UNDIRECTED_SIMPLE)) {
            for (int64_t v = 0; v < g->nl; ++v) /* graph_io.c's normalize: rebuild from arcs */
                for (int64_t e = off[v]; e < off[v + 1]; ++e)
                    src[e - off[0]] = g->lo + v;
            st = bfs_rd_route_arcs(g, src, ids, count, flags, err);
        } else if (st == OMPDAG_OK)
            st = keep_rows(g, off, ids, err);
    }
    free(off);
    free(ids);
    free(src);
    if (st == OMPDAG_OK) st = bfs_rd_finish_rows(g, flags, err);
    if (st != OMPDAG_OK) {
        ompdag_dgraph_destroy(g);
        return st;
    }
    *out = g;
    return OMPDAG_OK;
}

/* ---- the entry ---- */

typedef enum file_kind { KIND_EDGELIST, KIND_BINARY, KIND_MTX, KIND_OTHER } file_kind;

static file_kind kind_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot && !strcmp(dot, ".csr")) return KIND_BINARY;
    if (dot && !strcmp(dot, ".mtx")) return KIND_MTX;
    return KIND_EDGELIST;
}

/* Every rank reads the whole file and keeps its rows (the fallback). */
static ompdag_status read_whole(const char *path, unsigned flags, int64_t max_vertices, int threads,
                                ompdag_dgraph **out, ompdag_error *err)
{
    ompdag_graph *full = NULL;
    ompdag_graph_read_limited(path, OMPDAG_GRAPH_FORMAT_AUTO, flags, max_vertices, &full, err);
    ompdag_status st = ompdag_dgraph_from_graph(full, threads, out, err);
    if (st == OMPDAG_OK) (*out)->file_bytes = -1;
    ompdag_graph_destroy(full);
    return st;
}

ompdag_status ompdag_dgraph_read(const char *path, unsigned flags, int64_t max_vertices,
                                 int threads, ompdag_dgraph **out, ompdag_error *err)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    *out = NULL;
    int fd = path ? open(path, O_RDONLY) : -1;
    struct stat sb;
    file_key key = {-1, path ? name_hash(path) : 0};
    if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) key.size = (int64_t)sb.st_size;
    const file_kind kind = path ? kind_of(path) : KIND_OTHER;
    if (!same_file_everywhere(comm, key) || kind == KIND_OTHER) {
        if (fd >= 0) close(fd);
        return read_whole(path, flags, max_vertices, threads, out, err);
    }
    ompdag_status st;
    int64_t max_n = max_vertices > 0 ? max_vertices : ompdag_graph_default_max_vertices(key.size);
    if (kind == KIND_BINARY)
        st = read_binary(comm, fd, key.size, path, flags, threads, out, err);
    else if (kind == KIND_MTX) /* bfs_mpi_read_mtx.c */
        st = bfs_rd_read_mtx(comm, fd, key.size, path, flags, max_n, threads, out, err);
    else
        st = read_edgelist(comm, fd, key.size, path, flags, max_n, threads, out, err);
    close(fd);
    return st;
}

int64_t ompdag_dgraph_file_bytes(const ompdag_dgraph *g)
{
    return g->file_bytes;
}

int64_t ompdag_dgraph_degree(const ompdag_dgraph *g, int64_t v)
{
    return g->offsets[v - g->lo + 1] - g->offsets[v - g->lo];
}

int64_t ompdag_dgraph_neighbor(const ompdag_dgraph *g, int64_t v, int64_t i)
{
    return dg_nbr(g, g->offsets[v - g->lo] + i);
}
