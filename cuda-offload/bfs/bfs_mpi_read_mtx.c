/*
 * bfs_mpi_read_mtx.c — a Matrix Market file (coordinate, pattern or a value
 * column, general or symmetric, 1-based ids) read in parallel by the ranks
 * of the MPI BFS, as bfs_mpi_read.c reads an edge list.
 *
 * Every rank reads the header (line 1 and the lines up to the size line
 * "rows cols entries"); the entries after it are split by bytes: rank r
 * takes the lines that start in its share of [data, S).  Each line is
 * checked by graph_io.c's own rules (graph_mtx_*), numbered from the header's
 * lines and the newlines of the ranks before (one MPI_Allgather).  The entry
 * count, which one process checks as it reads, needs the ranks' counts: a
 * second MPI_Allgather of (entries, failed) finds which comes first in the
 * file — a bad line, or the entry past the declared count (the rank holding
 * it reparses its share to name that line) — and a short count is reported
 * by the last rank with the line one process names.  So every error is one
 * process's message, given by the rank that read the line; every rank stops
 * with it (bfs_mpi_agree), none waits on another.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bfs_mpi_chunk.h"
#include "ompdag/internal/array.h"

typedef struct mtx_header {
    bool has_value, symmetric;
    int64_t rows, cols, nnz;
    int64_t data_at; /* the byte after the size line: where the entries start */
    long lines;      /* lines up to and including the size line */
} mtx_header;

/* Line 1 and the lines up to the size line, with the errors one process
 * gives for them (the same on every rank). */
static ompdag_status read_header(int fd, const char *path, int64_t max_n, mtx_header *h,
                                 ompdag_error *err)
{
    int copy = dup(fd);
    FILE *f = copy >= 0 ? fdopen(copy, "r") : NULL;
    if (!f) {
        if (copy >= 0) close(copy);
        return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: %s", path, strerror(errno));
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    bool have_size = false;
    ompdag_status st = fseek(f, 0, SEEK_SET) == 0
                           ? OMPDAG_OK
                           : ompdag_error_set(err, OMPDAG_ERR_IO, "%s: %s", path, strerror(errno));
    *h = (mtx_header){0};
    while (st == OMPDAG_OK && !have_size && (got = getline(&line, &cap, f)) != -1) {
        h->data_at += got;
        if (++h->lines == 1)
            st = graph_mtx_banner(line, path, &h->has_value, &h->symmetric, err);
        else if (!graph_mtx_skipped(line)) {
            st = graph_mtx_size(line, path, h->lines, max_n, &h->rows, &h->cols, &h->nnz, err);
            have_size = st == OMPDAG_OK;
        }
    }
    if (st == OMPDAG_OK && ferror(f))
        st = ompdag_error_set(err, OMPDAG_ERR_IO, "%s:%ld: read failed", path, h->lines + 1);
    else if (st == OMPDAG_OK && h->lines == 0)
        st = graph_mtx_banner(NULL, path, &h->has_value, &h->symmetric, err);
    else if (st == OMPDAG_OK && !have_size)
        st = ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%ld: missing the size line", path,
                              h->lines + 1);
    free(line);
    fclose(f);
    return st;
}

typedef struct entries {
    int64_t *src, *dst, len, src_cap, dst_cap;
} entries;

static bool entries_push(entries *e, int64_t u, int64_t v)
{
    if (!ompdag_grow_array((void **)&e->src, sizeof *e->src, &e->src_cap, e->len + 1) ||
        !ompdag_grow_array((void **)&e->dst, sizeof *e->dst, &e->dst_cap, e->len + 1))
        return false;
    e->src[e->len] = u;
    e->dst[e->len++] = v;
    return true;
}

/* The chunk's entries from line number lineno on, into out (NULL: count
 * only).  The entry after `room` of them is an error, "more entries than
 * declared"; *found gets the entries read before the walk stopped. */
static ompdag_status parse_entries(chunk *c, const mtx_header *h, const char *path, long lineno,
                                   int64_t room, entries *out, int64_t *found, ompdag_error *err)
{
    ompdag_status st = OMPDAG_OK;
    *found = 0;
    FOR_EACH_LINE(c, p, {
        int64_t u, v;
        const long at = lineno++;
        if (!graph_mtx_skipped(p)) {
            st = graph_mtx_entry(p, path, at, h->has_value, h->rows, h->cols, &u, &v, err);
            if (st == OMPDAG_OK && *found >= room) st = graph_mtx_too_many(path, at, h->nnz, err);
            if (st == OMPDAG_OK && out && !entries_push(out, u, v))
                st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "%s:%ld: out of memory", path, at);
            *found += st == OMPDAG_OK;
        }
        go_on_ = st == OMPDAG_OK;
    });
    return st;
}

/* Newlines in the chunk's raw range; the line number of its first line is
 * the header's lines + the newlines of the ranks before + 1 (+ 1 more when
 * the line at its start belongs to the rank before). */
static int64_t raw_newlines(const chunk *c)
{
    int64_t k = 0;
    for (int64_t i = c->start - c->at; i < c->end - c->at; ++i)
        k += c->buf[i] == '\n';
    return k;
}

/* Collective: every rank's int64 pair, all[2r], all[2r + 1]. */
static int64_t *gather_pairs(MPI_Comm comm, int P, int64_t a, int64_t b)
{
    int64_t mine[2] = {a, b}, *all = malloc(2 * (size_t)P * sizeof *all);
    int ok = all != NULL, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        free(all);
        return NULL;
    }
    MPI_Allgather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T, comm);
    return all;
}

/* Parses this rank's entries, then decides, as one process reading in
 * order would, which error comes first in the file.  Collective. */
static ompdag_status parse_share(MPI_Comm comm, chunk *c, const mtx_header *h, const char *path,
                                 int64_t size, entries *e, ompdag_error *err)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    int64_t *nl = gather_pairs(comm, P, raw_newlines(c), 0);
    if (!nl) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dgraph: out of memory");
    int64_t lines = h->lines, first_line = 0; /* lines of the whole file; this rank's first */
    for (int r = 0; r < P; ++r) {
        if (r == rank) first_line = lines + (c->first > c->start) + 1;
        lines += nl[2 * r];
    }
    free(nl);
    if (size > h->data_at && rank == P - 1 && c->buf[c->len - 1] != '\n')
        ++lines; /* a last line without a newline (known to the last rank) */
    int64_t found;
    ompdag_status st = parse_entries(c, h, path, first_line, INT64_MAX, e, &found, err);
    int64_t *all = gather_pairs(comm, P, found, st != OMPDAG_OK);
    if (!all) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dgraph: out of memory");
    int first_bad = P, over = -1;
    int64_t before = 0, mine_before = 0, total = 0;
    for (int r = 0; r < P && first_bad == P; ++r)
        if (all[2 * r + 1]) first_bad = r;
    for (int r = 0; r < P; ++r) {
        if (r == rank) mine_before = before;
        if (over < 0 && r <= first_bad && before + all[2 * r] > h->nnz) over = r;
        before += all[2 * r];
    }
    total = before;
    free(all);
    if (over >= 0) /* the entry past the count comes before any bad line */
        st = rank == over
                 ? parse_entries(c, h, path, first_line, h->nnz - mine_before, NULL, &found, err)
                 : OMPDAG_OK;
    else if (first_bad == P && rank == P - 1)
        st = graph_mtx_count(path, (long)lines + 1, h->nnz, total, err);
    return st;
}

ompdag_status bfs_rd_read_mtx(MPI_Comm comm, int fd, int64_t size, const char *path, unsigned flags,
                              int64_t max_n, int threads, ompdag_dgraph **out, ompdag_error *err)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    mtx_header h;
    chunk c = {0};
    entries e = {0};
    ompdag_status st = bfs_mpi_agree(comm, read_header(fd, path, max_n, &h, err), err);
    if (st == OMPDAG_OK) { /* the same header on every rank: all read on, or none */
        errno = 0;
        if (!bfs_rd_read_chunk(fd, h.data_at, size, rank, P, &c))
            st = ompdag_error_set(err, OMPDAG_ERR_IO, "%s: read failed: %s", path,
                                  errno ? strerror(errno) : "out of memory");
        st = bfs_mpi_agree(comm, st, err);
    }
    if (st == OMPDAG_OK)
        st = bfs_mpi_agree(comm, parse_share(comm, &c, &h, path, size, &e, err), err);
    free(c.buf);
    ompdag_dgraph *g = NULL;
    const unsigned arcs = flags | (h.symmetric ? (unsigned)OMPDAG_GRAPH_SYMMETRIZE : 0u);
    if (st == OMPDAG_OK) {
        st = bfs_mpi_agree(
            comm, bfs_dg_alloc(comm, h.rows > h.cols ? h.rows : h.cols, threads, &g, err), err);
        if (st == OMPDAG_OK) st = bfs_rd_route_arcs(g, e.src, e.dst, e.len, arcs, err);
        if (st == OMPDAG_OK) g->file_bytes = h.data_at + c.len;
    }
    free(e.src);
    free(e.dst);
    if (st == OMPDAG_OK) st = bfs_rd_finish_rows(g, arcs, err);
    if (st != OMPDAG_OK) {
        ompdag_dgraph_destroy(g);
        return st;
    }
    *out = g;
    return OMPDAG_OK;
}
