/*
 * bfs_mpi_chunk.h — what the parallel file readers share: a rank's byte
 * range of a file and a text file's lines (bfs_mpi_chunk.c), and the steps that
 * turn the edges a rank parsed into rows on their owners.  Used by the
 * edge-list reader (bfs_mpi_read.c) and the Matrix Market reader
 * (bfs_mpi_read_mtx.c).
 */
#ifndef OMPDAG_BFS_MPI_CHUNK_H
#define OMPDAG_BFS_MPI_CHUNK_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "bfs_mpi_internal.h"

/* A rank's bytes of a text file: buf holds file bytes [at, at + len) plus
 * a NUL; its lines are those starting in [first, end). */
typedef struct chunk {
    char *buf;
    int64_t at, len;
    int64_t start, end; /* the raw range, rank r's share of [base, S) */
    int64_t first;      /* the first line start >= start (end: no line) */
} chunk;

/* Reads len bytes at off into buf; false on a short read or an error. */
bool bfs_rd_pread_all(int fd, void *buf, int64_t len, int64_t off);

/* Rank r of P's share of bytes [base, size): reads [start - 1, end) and,
 * when the last line runs past end, on to its newline.  base must be 0 or
 * just after a newline.  Returns false when out of memory or the read fails
 * (c->buf is then still the caller's to free). */
bool bfs_rd_read_chunk(int fd, int64_t base, int64_t size, int r, int P, chunk *c);

/* Runs the body on every line p the chunk owns, NUL-terminated in place
 * (the newline is put back after); the body stops the walk by setting
 * go_on_ false. */
#define FOR_EACH_LINE(c, p, ...)                                                                   \
    for (char *p = (c)->buf + ((c)->first - (c)->at), *lim_ = (c)->buf + ((c)->end - (c)->at);     \
         p < lim_;) {                                                                              \
        char *nl_ = memchr(p, '\n', (size_t)((c)->buf + (c)->len - p));                            \
        if (nl_) *nl_ = '\0';                                                                      \
        bool go_on_ = true;                                                                        \
        __VA_ARGS__;                                                                               \
        if (nl_) *nl_ = '\n';                                                                      \
        if (!go_on_ || !nl_) break;                                                                \
        p = nl_ + 1;                                                                               \
    }

/* Sends every arc the flags make of the rank's edges to its owner and
 * builds the rows there.  Collective. */
ompdag_status bfs_rd_route_arcs(ompdag_dgraph *g, const int64_t *src, const int64_t *dst,
                                int64_t count, unsigned flags, ompdag_error *err);

/* Rows built: the arc limit of the exchanges, the global counts and the
 * symmetric flag (true when the flags symmetrized, else checked).
 * Collective. */
ompdag_status bfs_rd_finish_rows(ompdag_dgraph *g, unsigned flags, ompdag_error *err);

/* In bfs_mpi_read_mtx.c: a Matrix Market file of size bytes open on fd,
 * read in parallel by the ranks of comm.  Collective. */
ompdag_status bfs_rd_read_mtx(MPI_Comm comm, int fd, int64_t size, const char *path, unsigned flags,
                              int64_t max_n, int threads, ompdag_dgraph **out, ompdag_error *err);

#endif
