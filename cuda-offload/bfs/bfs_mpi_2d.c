/*
 * bfs_mpi_2d.c — top-down BFS over a 2-D partition of the adjacency matrix.
 *
 * Buluç and Madduri, "Parallel breadth-first search on distributed memory
 * systems" (SC 2011), §3-4: the ranks form an R × C grid and rank (i, j)
 * holds the block of arcs u -> v with u in vertex block j (the columns,
 * "from") and v in vertex block i (the rows, "to"), i.e. block A_ij of the
 * transposed adjacency matrix, so a level is y = Aᵀ x.  Yoo et al., "A
 * scalable distributed parallel breadth-first search algorithm on
 * BlueGene/L" (SC 2005) give the two exchanges of a level:
 *   expand: the frontier of vertex block j is gathered along processor
 *           column j (MPI_Allgatherv of vertex ids on the column
 *           communicator), so each rank sends its ids to R - 1 others
 *           instead of every rank;
 *   fold:   each rank sends the vertices its arcs reach, with the smallest
 *           parent it saw, to their owners along processor row i
 *           (MPI_Alltoallv of (vertex, parent) pairs on the row
 *           communicator), and the owners set levels and parents.
 * Vertex ownership stays the 1-D one (rank p owns block p of `block`
 * vertices) and the grid is numbered column-major, p = j·R + i, so the
 * ranks of column j own exactly vertex block j (contiguous) and the ranks
 * of row i own vertex block i (C pieces): no vector transpose is needed
 * (Buluç–Madduri's TransposeVector) and results come out in the 1-D owner
 * layout, which the distributed Graph500 validation reads.
 *
 * The blocks are made from the 1-D graph by one MPI_Alltoallv of its arcs
 * (16 bytes per arc), so every generator and file reader feeds both.
 * Top-down only (bottom-up 2-D is not built); each rank's step runs on one
 * thread.  A rank sends a vertex at most once per search (a bitmap of its
 * row block), keeping the smallest parent of the level, so parents are
 * deterministic: each vertex's smallest neighbour one level up.
 */
#include <stdlib.h>
#include <string.h>

#include "bfs_mpi_internal.h"
#include "ompdag/internal/clock.h"

/* One rank's cell of the grid: its communicators and its block of arcs. */
struct bfs_mpi_2d {
    int rows, cols, i, j;  /* grid R × C; this rank is cell (i, j) */
    MPI_Comm col_comm;     /* the R ranks of column j, ordered by i */
    MPI_Comm row_comm;     /* the C ranks of row i, ordered by j */
    int64_t col_lo, col_n; /* vertex block j: [col_lo, col_lo + col_n) */
    int64_t row_n;         /* slots of vertex block i (C · block) */
    int64_t *offsets;      /* col_n + 1: arcs of tail col_lo + k */
    int64_t *heads;        /* global ids, all in vertex block i */
    int64_t moved_bytes;   /* what the redistribution sent, all ranks */
};

void bfs_mpi_2d_free(struct bfs_mpi_2d *grid)
{
    if (!grid) return;
    if (grid->col_comm != MPI_COMM_NULL) MPI_Comm_free(&grid->col_comm);
    if (grid->row_comm != MPI_COMM_NULL) MPI_Comm_free(&grid->row_comm);
    free(grid->offsets);
    free(grid->heads);
    free(grid);
}

bool ompdag_dgraph_grid(const ompdag_dgraph *g, int *rows, int *cols, int64_t *moved_bytes)
{
    if (!g->grid2d) return false;
    *rows = g->grid2d->rows;
    *cols = g->grid2d->cols;
    *moved_bytes = g->grid2d->moved_bytes;
    return true;
}

/* The grid cell that owns vertex v (its 1-D owner p is cell p mod R, p / R). */
static inline int cell_row(const ompdag_dgraph *g, int rows, int64_t v)
{
    return dg_owner(g, v) % rows;
}

static inline int cell_col(const ompdag_dgraph *g, int rows, int64_t v)
{
    return dg_owner(g, v) / rows;
}

/* v's slot in its row block: the row's owners' 1-D blocks side by side. */
static inline int64_t row_slot(const ompdag_dgraph *g, int rows, int64_t v)
{
    return (int64_t)cell_col(g, rows, v) * g->block + v % g->block;
}

/* The squarest R × C = size with R <= C: R the largest divisor <= √size. */
static void squarest_grid(int size, int *rows, int *cols)
{
    int r = 1;
    for (int d = 1; (int64_t)d * d <= size; ++d)
        if (size % d == 0) r = d;
    *rows = r;
    *cols = size / r;
}

/* The arcs this rank owns (tail u here in 1-D), packed by the grid cell
 * that keeps them: (i of the head's owner, j of the tail's).  NULL when out
 * of memory; scount[p] gets the pairs for rank p. */
static dg_pair *pack_grid_arcs(const ompdag_dgraph *g, int rows, int *scount)
{
    int64_t *at = calloc((size_t)g->size + 1, sizeof *at);
    dg_pair *send = malloc((size_t)(g->ml > 0 ? g->ml : 1) * sizeof *send);
    if (!at || !send) {
        free(at);
        free(send);
        return NULL;
    }
    const int64_t j = (int64_t)(g->rank / rows) * rows; /* the first rank of my column */
    for (int64_t e = 0; e < g->ml; ++e)
        ++at[j + cell_row(g, rows, dg_nbr(g, e)) + 1];
    for (int p = 0; p < g->size; ++p) {
        scount[p] = (int)at[p + 1];
        at[p + 1] += at[p];
    }
    for (int64_t lu = 0; lu < g->nl; ++lu)
        for (int64_t e = g->offsets[lu]; e < g->offsets[lu + 1]; ++e) {
            const int64_t v = dg_nbr(g, e);
            send[at[j + cell_row(g, rows, v)]++] = (dg_pair){g->lo + lu, v};
        }
    free(at);
    return send;
}

/* The cell's rows (tail u in vertex block j) from the received arcs, by a
 * counting sort on the tail. */
static bool build_block(struct bfs_mpi_2d *grid, const dg_pair *arc, int64_t count)
{
    grid->offsets = calloc((size_t)grid->col_n + 1, sizeof *grid->offsets);
    grid->heads = malloc((size_t)(count > 0 ? count : 1) * sizeof *grid->heads);
    if (!grid->offsets || !grid->heads) return false;
    for (int64_t k = 0; k < count; ++k)
        ++grid->offsets[arc[k].a - grid->col_lo + 1];
    for (int64_t k = 0; k < grid->col_n; ++k)
        grid->offsets[k + 1] += grid->offsets[k];
    int64_t *fill = malloc((size_t)(grid->col_n > 0 ? grid->col_n : 1) * sizeof *fill);
    if (!fill) return false;
    memcpy(fill, grid->offsets, (size_t)grid->col_n * sizeof *fill);
    for (int64_t k = 0; k < count; ++k)
        grid->heads[fill[arc[k].a - grid->col_lo]++] = arc[k].b;
    free(fill);
    return true;
}

/* A grid cell for this rank: sizes and the two communicators (collective
 * over g->comm: both splits are made on every rank). */
static struct bfs_mpi_2d *grid_cell(const ompdag_dgraph *g, int rows, int cols)
{
    struct bfs_mpi_2d *grid = calloc(1, sizeof *grid);
    const int i = g->rank % rows, j = g->rank / rows;
    MPI_Comm col_comm, row_comm;
    MPI_Comm_split(g->comm, j, i, &col_comm);
    MPI_Comm_split(g->comm, i, j, &row_comm);
    if (!grid) {
        MPI_Comm_free(&col_comm);
        MPI_Comm_free(&row_comm);
        return NULL;
    }
    *grid = (struct bfs_mpi_2d){
        .rows = rows, .cols = cols, .i = i, .j = j, .col_comm = col_comm, .row_comm = row_comm};
    grid->col_lo = dg_rank_lo(g, j * rows);
    grid->col_n = dg_rank_lo(g, (j + 1) * rows) - grid->col_lo;
    grid->row_n = (int64_t)cols * g->block;
    return grid;
}

/* The rows × cols of a request, or why it cannot be. */
static ompdag_status check_grid(int size, int *rows, int *cols, ompdag_error *err)
{
    if (*rows == 0 && *cols == 0) {
        squarest_grid(size, rows, cols);
        return OMPDAG_OK;
    }
    if (*rows < 1 || *cols < 1 || (int64_t)*rows * *cols != size)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "dbfs 2-D: a %d x %d grid needs %lld ranks, not %d", *rows, *cols,
                                (long long)*rows * *cols, size);
    return OMPDAG_OK;
}

/* Sends every arc of g to the cell that keeps it (one MPI_Alltoallv) and
 * builds this rank's block in grid (NULL when it could not be made: the
 * rank still takes part).  Collective; *moved gets the bytes that changed
 * rank, all ranks. */
static ompdag_status move_arcs(const ompdag_dgraph *g, struct bfs_mpi_2d *grid, int64_t *moved,
                               ompdag_error *err)
{
    ompdag_status st = OMPDAG_OK;
    int *scount = calloc((size_t)g->size, sizeof *scount);
    if (!scount) MPI_Abort(g->comm, 1); /* 4 bytes per rank: nothing sensible is left to do */
    dg_pair *send = grid ? pack_grid_arcs(g, grid->rows, scount) : NULL;
    if (!send) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dbfs 2-D: out of memory packing %lld arcs",
                              (long long)g->ml);
        memset(scount, 0, (size_t)g->size * sizeof *scount);
    }
    dg_pair *recv = NULL;
    int64_t cap = 0, nrecv = 0;
    if (!bfs_mpi_exchange_pairs(g->comm, g->size, send, scount, &recv, &cap, &nrecv) &&
        st == OMPDAG_OK)
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM,
                              "dbfs 2-D: a rank cannot receive its block (memory or more than "
                              "2^31 arcs per rank)");
    if (st == OMPDAG_OK && !build_block(grid, recv, nrecv))
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dbfs 2-D: out of memory for a block");
    *moved = send ? (g->ml - scount[g->rank]) * (int64_t)sizeof(dg_pair) : 0;
    MPI_Allreduce(MPI_IN_PLACE, moved, 1, MPI_INT64_T, MPI_SUM, g->comm);
    free(send);
    free(recv);
    free(scount);
    return st;
}

ompdag_status ompdag_dgraph_partition_2d(ompdag_dgraph *g, int rows, int cols, ompdag_error *err)
{
    ompdag_status st = bfs_mpi_agree(g->comm, check_grid(g->size, &rows, &cols, err), err);
    if (st != OMPDAG_OK) return st;
    bfs_mpi_2d_free(g->grid2d);
    g->grid2d = NULL;
    struct bfs_mpi_2d *grid = grid_cell(g, rows, cols);
    int64_t moved;
    st = bfs_mpi_agree(g->comm, move_arcs(g, grid, &moved, err), err);
    if (st != OMPDAG_OK) {
        bfs_mpi_2d_free(grid);
        return st;
    }
    grid->moved_bytes = moved;
    g->grid2d = grid;
    return OMPDAG_OK;
}

/* ---- the search ---- */

/* One rank's working arrays for a search, sized by its cell. */
typedef struct search2d {
    const ompdag_dgraph *g;
    const struct bfs_mpi_2d *grid;
    ompdag_dbfs_result *r;
    int64_t qsize;    /* r->queue: vertices this rank owns found last level */
    int64_t *front;   /* the frontier of vertex block j (expand), ≤ col_n ids */
    uint64_t *bits;   /* ... or as a bitmap of vertex block j, when that is smaller */
    bool as_bits;     /* this level's expand sent the bitmap */
    uint64_t *sent;   /* row slots this rank already sent: reached, never again */
    int64_t *parent;  /* per row slot: smallest parent this level, -1 none */
    int64_t *touched; /* the row slots reached this level */
    dg_pair *send;    /* the fold, by destination column */
    int *counts;      /* R + C ints: expand counts, fold counts */
    int *displs;      /* R displacements of the expand */
    int failed;
} search2d;

static void search_free(search2d *s)
{
    free(s->front);
    free(s->bits);
    free(s->sent);
    free(s->parent);
    free(s->touched);
    free(s->send);
    free(s->counts);
    free(s->displs);
}

/* Every buffer a level needs, so no level allocates (the frontier of a
 * block holds each vertex at most once; a rank folds each slot at most
 * once per level).  About 8·n/C + 32·n/R bytes per rank. */
static bool search_alloc(search2d *s)
{
    const struct bfs_mpi_2d *grid = s->grid;
    const size_t row = (size_t)(grid->row_n > 0 ? grid->row_n : 1);
    s->front = malloc((size_t)(grid->col_n > 0 ? grid->col_n : 1) * sizeof *s->front);
    s->bits = calloc((size_t)(grid->col_n + 63) / 64 + 1, sizeof *s->bits);
    s->sent = calloc((row + 63) / 64, sizeof *s->sent);
    s->parent = malloc(row * sizeof *s->parent);
    s->touched = malloc(row * sizeof *s->touched);
    s->send = malloc(row * sizeof *s->send);
    s->counts = calloc((size_t)(grid->rows + grid->cols), sizeof *s->counts);
    s->displs = calloc((size_t)grid->rows, sizeof *s->displs);
    if (!s->front || !s->bits || !s->sent || !s->parent || !s->touched || !s->send || !s->counts ||
        !s->displs)
        return false;
    for (size_t k = 0; k < row; ++k)
        s->parent[k] = -1;
    return true;
}

/* The expand as a bitmap: each rank's words of vertex block j (its 1-D
 * block starts on a word, being a multiple of 64 vertices) joined along the
 * column.  Returns the bytes this rank sent. */
static int64_t expand_bits(search2d *s)
{
    const ompdag_dgraph *g = s->g;
    const struct bfs_mpi_2d *grid = s->grid;
    for (int k = 0; k < grid->rows; ++k) {
        const int p = grid->j * grid->rows + k;
        s->counts[k] = (int)((dg_rank_count(g, p) + 63) / 64);
        s->displs[k] = (int)((dg_rank_lo(g, p) - grid->col_lo) / 64);
    }
    uint64_t *mine = s->bits + s->displs[grid->i];
    memset(mine, 0, (size_t)s->counts[grid->i] * sizeof *mine);
    for (int64_t q = 0; q < s->qsize; ++q) {
        const int64_t v = s->r->queue[q] - g->lo;
        mine[v >> 6] |= 1ull << (v & 63);
    }
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, s->bits, s->counts, s->displs, MPI_UINT64_T,
                   grid->col_comm);
    return (int64_t)s->counts[grid->i] * 8 * (grid->rows - 1);
}

/* Expand: the frontier of vertex block j on every rank of column j, as ids
 * or, when the column's frontier has more vertices than its bitmap has
 * words, as the bitmap (every rank of the column makes the same choice from
 * the gathered counts).  Returns the ids gathered (0 with s->as_bits);
 * *bytes gets what this rank sent. */
static int64_t expand(search2d *s, int64_t *bytes)
{
    const struct bfs_mpi_2d *grid = s->grid;
    int mine = (int)s->qsize, total = 0;
    MPI_Allgather(&mine, 1, MPI_INT, s->counts, 1, MPI_INT, grid->col_comm);
    for (int k = 0; k < grid->rows; ++k) {
        s->displs[k] = total;
        total += s->counts[k];
    }
    s->as_bits = total > (grid->col_n + 63) / 64;
    if (s->as_bits) {
        *bytes = expand_bits(s);
        return 0;
    }
    MPI_Allgatherv(s->r->queue, mine, MPI_INT64_T, s->front, s->counts, s->displs, MPI_INT64_T,
                   grid->col_comm);
    *bytes = (int64_t)mine * 8 * (grid->rows - 1);
    return total;
}

/* Marks head v reached from tail u; the first time in the search, its slot
 * joins the fold.  Returns the slots touched so far. */
static int64_t reach(search2d *s, int64_t v, int64_t u, int64_t ntouched)
{
    const int64_t k = row_slot(s->g, s->grid->rows, v);
    if (s->parent[k] >= 0) { /* reached this level already: keep the smaller parent */
        if (u < s->parent[k]) s->parent[k] = u;
        return ntouched;
    }
    if ((s->sent[k >> 6] >> (k & 63)) & 1u) return ntouched; /* an earlier level's */
    s->sent[k >> 6] |= 1ull << (k & 63);
    s->parent[k] = u;
    s->touched[ntouched] = k;
    return ntouched + 1;
}

/* The arcs of the block out of tail lu (local to vertex block j). */
static int64_t reach_from(search2d *s, int64_t lu, int64_t ntouched)
{
    const struct bfs_mpi_2d *grid = s->grid;
    const int64_t u = grid->col_lo + lu;
    for (int64_t e = grid->offsets[lu]; e < grid->offsets[lu + 1]; ++e)
        ntouched = reach(s, grid->heads[e], u, ntouched);
    return ntouched;
}

/* The local product: every arc of the block out of the frontier (the ids,
 * or the set bits).  Returns the row slots reached for the first time. */
static int64_t local_step(search2d *s, int64_t nfront)
{
    const struct bfs_mpi_2d *grid = s->grid;
    int64_t ntouched = 0;
    if (s->as_bits) {
        for (int64_t w = 0; w < (grid->col_n + 63) / 64; ++w)
            for (uint64_t b = s->bits[w]; b; b &= b - 1)
                ntouched = reach_from(s, (w << 6) + __builtin_ctzll(b), ntouched);
        return ntouched;
    }
    for (int64_t f = 0; f < nfront; ++f)
        ntouched = reach_from(s, s->front[f] - grid->col_lo, ntouched);
    return ntouched;
}

/* Row slot k back to its global vertex (cell (i, jj) owns rank jj·R + i's block). */
static int64_t slot_vertex(const ompdag_dgraph *g, const struct bfs_mpi_2d *grid, int64_t k)
{
    const int jj = (int)(k / g->block);
    return dg_rank_lo(g, jj * grid->rows + grid->i) + k % g->block;
}

/* Packs the touched slots as (vertex, parent) by owner column and clears
 * their parents for the next level.  Returns the bytes for other ranks. */
static int64_t pack_fold(search2d *s, int64_t ntouched)
{
    const ompdag_dgraph *g = s->g;
    const struct bfs_mpi_2d *grid = s->grid;
    int *scount = s->counts + grid->rows;
    int64_t *at = calloc((size_t)grid->cols + 1, sizeof *at);
    if (!at) MPI_Abort(g->comm, 1); /* 8 bytes per column */
    for (int64_t t = 0; t < ntouched; ++t)
        ++at[s->touched[t] / g->block + 1];
    for (int c = 0; c < grid->cols; ++c) {
        scount[c] = (int)at[c + 1];
        at[c + 1] += at[c];
    }
    for (int64_t t = 0; t < ntouched; ++t) {
        const int64_t k = s->touched[t];
        s->send[at[k / g->block]++] = (dg_pair){slot_vertex(g, grid, k), s->parent[k]};
        s->parent[k] = -1;
    }
    free(at);
    return (ntouched - scount[grid->j]) * (int64_t)sizeof(dg_pair);
}

/* The owner's update: a vertex not reached before takes depth and the
 * parent of the first pair naming it.  That parent is the smallest any rank
 * of the row sent: MPI_Alltoallv delivers the senders in row order j, the
 * tails of sender j lie in vertex block j, and the blocks ascend with j
 * (each sender already sent its smallest).  Returns the vertices found. */
static int64_t owner_update(search2d *s, const dg_pair *got, int64_t n, int32_t depth)
{
    const ompdag_dgraph *g = s->g;
    ompdag_dbfs_result *r = s->r;
    int64_t found = 0;
    for (int64_t k = 0; k < n; ++k) {
        const int64_t lv = got[k].a - g->lo;
        if (r->levels[lv] >= 0) continue;
        r->levels[lv] = depth;
        r->parents[lv] = got[k].b;
        r->queue[found++] = got[k].a;
    }
    return found;
}

/* The figures every rank contributes to a level's one MPI_Allreduce. */
enum { FIG_FOUND, FIG_BYTES, FIG_FAILED, FIG_COUNT };

/* One level: expand, local step, fold, owners' update.  fig[] gets this
 * rank's figures. */
static void level_step(search2d *s, int32_t depth, int64_t fig[FIG_COUNT])
{
    int64_t expand_bytes, nrecv = 0;
    const int64_t nfront = expand(s, &expand_bytes);
    const int64_t fold_bytes = pack_fold(s, local_step(s, nfront));
    ompdag_dbfs_result *r = s->r;
    if (!bfs_mpi_exchange_pairs(s->grid->row_comm, s->grid->cols, s->send,
                                s->counts + s->grid->rows, &r->recv, &r->recv_cap, &nrecv))
        s->failed = 1;
    s->qsize = owner_update(s, r->recv, nrecv, depth);
    fig[FIG_FOUND] = s->qsize;
    fig[FIG_BYTES] = expand_bytes + fold_bytes;
    fig[FIG_FAILED] = s->failed;
}

/* The source: its owner sets it and queues it; the ranks of its row mark
 * it sent, so no arc into it is folded. */
static void place_source(search2d *s, int64_t source)
{
    const ompdag_dgraph *g = s->g;
    if (dg_owner(g, source) == g->rank) {
        s->r->levels[source - g->lo] = 0;
        s->r->parents[source - g->lo] = source;
        s->r->queue[s->qsize++] = source;
    }
    if (cell_row(g, s->grid->rows, source) == s->grid->i) {
        const int64_t k = row_slot(g, s->grid->rows, source);
        s->sent[k >> 6] |= 1ull << (k & 63);
    }
}

/* Levels until no rank finds a vertex.  Returns false on a failed level. */
static bool search_levels(search2d *s, int32_t *depth)
{
    int64_t fig[FIG_COUNT] = {1, 0, 0};
    while (fig[FIG_FOUND] > 0) {
        level_step(s, ++*depth, fig);
        MPI_Allreduce(MPI_IN_PLACE, fig, FIG_COUNT, MPI_INT64_T, MPI_SUM, s->g->comm);
        if (fig[FIG_FAILED] ||
            !bfs_dbfs_record(s->r, *depth, OMPDAG_BFS_TOP_DOWN, fig[FIG_FOUND], fig[FIG_BYTES]))
            return false;
    }
    return true;
}

ompdag_status bfs_mpi_2d_search(const ompdag_dgraph *g, int64_t source, ompdag_dbfs_result *r,
                                ompdag_error *err)
{
    search2d s = {.g = g, .grid = g->grid2d, .r = r};
    ompdag_status st = OMPDAG_OK;
    if (!search_alloc(&s))
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM,
                              "dbfs 2-D: out of memory for the search buffers of %lld + %lld "
                              "vertices",
                              (long long)s.grid->col_n, (long long)s.grid->row_n);
    if ((st = bfs_mpi_agree(g->comm, st, err)) != OMPDAG_OK) {
        search_free(&s);
        return st;
    }
    MPI_Barrier(g->comm);
    const double t0 = ompdag_now_s();
    place_source(&s, source);
    int32_t depth = 0;
    const bool ok = search_levels(&s, &depth);
    double seconds = ompdag_now_s() - t0;
    MPI_Allreduce(&seconds, &r->seconds, 1, MPI_DOUBLE, MPI_MAX, g->comm);
    search_free(&s);
    if (!ok)
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM,
                              "dbfs 2-D: a rank ran out of memory at level %d of the search "
                              "from %lld",
                              depth, (long long)source);
    if ((st = bfs_mpi_agree(g->comm, st, err)) != OMPDAG_OK) return st;
    bfs_dbfs_count_traversed(g, r);
    return OMPDAG_OK;
}
