/*
 * bfs_mpi_chunk.c — what the parallel file readers of the MPI BFS share
 * (bfs_mpi_chunk.h): a rank's byte range of a file, and the steps that turn
 * the edges a rank parsed into rows on their owners.  The edge-list and CSR
 * reader (bfs_mpi_read.c) and the Matrix Market reader (bfs_mpi_read_mtx.c)
 * both call them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bfs_mpi_chunk.h"
#include "ompdag/internal/array.h"

/* Reads len bytes at off into buf; false on a short read or an error. */
bool bfs_rd_pread_all(int fd, void *buf, int64_t len, int64_t off)
{
    char *p = buf;
    while (len > 0) {
        ssize_t got = pread(fd, p, (size_t)(len < (1 << 30) ? len : (1 << 30)), (off_t)off);
        if (got <= 0) {
            if (got < 0 && errno == EINTR) continue;
            return false;
        }
        p += got, off += got, len -= got;
    }
    return true;
}

static int64_t range_edge(int64_t size, int r, int P)
{
    return (int64_t)((__int128)size * r / P);
}

bool bfs_rd_read_chunk(int fd, int64_t base, int64_t size, int r, int P, chunk *c)
{
    c->start = base + range_edge(size - base, r, P);
    c->end = base + range_edge(size - base, r + 1, P);
    c->at = c->start > 0 ? c->start - 1 : 0;
    c->len = c->end - c->at;
    int64_t cap = c->len + 1;
    c->buf = malloc((size_t)cap);
    if (!c->buf || !bfs_rd_pread_all(fd, c->buf, c->len, c->at)) return false;
    c->first = c->start;
    if (c->start > 0 && c->buf[0] != '\n') {
        const char *nl = memchr(c->buf + 1, '\n', (size_t)(c->len - 1));
        c->first = nl ? c->at + (nl - c->buf) + 1 : c->end;
    }
    while (c->first < c->end && c->at + c->len < size && c->buf[c->len - 1] != '\n') {
        int64_t more = size - (c->at + c->len);
        if (more > (1 << 16)) more = 1 << 16;
        char *grown = realloc(c->buf, (size_t)(c->len + more + 1));
        if (!grown) return false;
        c->buf = grown;
        if (!bfs_rd_pread_all(fd, c->buf + c->len, more, c->at + c->len)) return false;
        const char *nl = memchr(c->buf + c->len, '\n', (size_t)more);
        c->len += nl ? (nl - (c->buf + c->len)) + 1 : more;
    }
    c->buf[c->len] = '\0';
    return true;
}

ompdag_status bfs_rd_route_arcs(ompdag_dgraph *g, const int64_t *src, const int64_t *dst,
                                int64_t count, unsigned flags, ompdag_error *err)
{
    int *scount = calloc((size_t)g->size, sizeof *scount);
    dg_pair *send = NULL, *recv = NULL;
    ompdag_status st = OMPDAG_OK;
    if (2 * count > INT32_MAX)
        st = ompdag_error_set(err, OMPDAG_ERR_LIMIT,
                              "dgraph: %lld arcs to send from one rank exceed MPI's int counts; "
                              "run on more ranks",
                              (long long)(2 * count));
    else if (!scount || !(send = bfs_dg_pack_arcs(g, src, dst, count, flags, scount)))
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dgraph: out of memory for %lld arcs",
                              (long long)(2 * count));
    if ((st = bfs_mpi_agree(g->comm, st, err)) == OMPDAG_OK) {
        int64_t cap = 0, nrecv = 0;
        if (!bfs_mpi_exchange_pairs(g->comm, g->size, send, scount, &recv, &cap, &nrecv))
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM,
                                  "dgraph: a rank cannot receive its arcs (memory or more than "
                                  "2^31 arcs per rank)");
        else if (!bfs_dg_build_rows(g, recv, nrecv, (flags & OMPDAG_GRAPH_DEDUP) != 0))
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dgraph: out of memory building rows");
        st = bfs_mpi_agree(g->comm, st, err);
    }
    free(recv);
    free(send);
    free(scount);
    return st;
}

static bool row_has(const ompdag_dgraph *g, int64_t v, int64_t u)
{
    int64_t lo = g->offsets[v - g->lo], hi = g->offsets[v - g->lo + 1];
    while (lo < hi) { /* rows are sorted */
        int64_t mid = lo + (hi - lo) / 2, x = dg_nbr(g, mid);
        if (x == u) return true;
        if (x < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* Collective: does every arc u -> v have its reverse?  Each arc asks the
 * owner of v whether v's (sorted) row holds u. */
static ompdag_status check_symmetry(ompdag_dgraph *g, bool *symmetric, ompdag_error *err)
{
    int *scount = calloc((size_t)g->size + 1, sizeof *scount);
    int64_t *fill = calloc((size_t)g->size + 1, sizeof *fill);
    dg_pair *ask = malloc((size_t)(g->ml > 0 ? g->ml : 1) * sizeof *ask), *got = NULL;
    int ok = scount && fill && ask && g->ml <= INT32_MAX, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, g->comm);
    int64_t cap = 0, ngot = 0;
    if (all_ok) {
        for (int64_t e = 0; e < g->ml; ++e)
            ++fill[dg_owner(g, dg_nbr(g, e)) + 1];
        for (int r = 0; r < g->size; ++r)
            scount[r] = (int)fill[r + 1], fill[r + 1] += fill[r];
        for (int64_t v = 0; v < g->nl; ++v)
            for (int64_t e = g->offsets[v]; e < g->offsets[v + 1]; ++e)
                ask[fill[dg_owner(g, dg_nbr(g, e))]++] = (dg_pair){dg_nbr(g, e), g->lo + v};
        all_ok = bfs_mpi_exchange_pairs(g->comm, g->size, ask, scount, &got, &cap, &ngot);
    }
    int sym = 1, all_sym;
    for (int64_t i = 0; all_ok && i < ngot && sym; ++i)
        sym = row_has(g, got[i].a, got[i].b);
    MPI_Allreduce(&sym, &all_sym, 1, MPI_INT, MPI_MIN, g->comm);
    *symmetric = all_sym != 0;
    free(got);
    free(ask);
    free(fill);
    free(scount);
    return all_ok ? OMPDAG_OK
                  : ompdag_error_set(err, OMPDAG_ERR_NOMEM,
                                     "dgraph: out of memory checking the graph's symmetry");
}

ompdag_status bfs_rd_finish_rows(ompdag_dgraph *g, unsigned flags, ompdag_error *err)
{
    ompdag_status st = OMPDAG_OK;
    if (g->ml > INT32_MAX)
        st = ompdag_error_set(err, OMPDAG_ERR_LIMIT,
                              "dgraph: %lld arcs on one rank exceed MPI's int counts; run on "
                              "more ranks",
                              (long long)g->ml);
    if ((st = bfs_mpi_agree(g->comm, st, err)) != OMPDAG_OK) return st;
    bool symmetric = true;
    if (!(flags & OMPDAG_GRAPH_SYMMETRIZE) && (st = check_symmetry(g, &symmetric, err))) return st;
    bfs_dg_finish(g, symmetric);
    return OMPDAG_OK;
}
