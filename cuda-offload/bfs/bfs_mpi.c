/*
 * bfs_mpi.c — direction-optimizing BFS over MPI ranks (issue 30).
 *
 * Beamer, Asanović and Patterson, "Direction-Optimizing Breadth-First
 * Search" (SC'12), run on a 1-D partition by vertex as in Enterprise's
 * multi-GPU design (seed 003 §4.4) and in the Graph500 reference's
 * bfs_reference.c: every rank owns a block of vertices and their rows.
 *   top-down:  a rank expands its part of the frontier queue; a neighbour it
 *              owns is claimed at once, any other becomes a (vertex, parent)
 *              pair for its owner, and the pairs travel in one
 *              MPI_Alltoallv;
 *   bottom-up: every rank holds the whole frontier as a bitmap (its own
 *              words joined with MPI_Allgatherv) and each unvisited vertex it
 *              owns looks for a parent among its neighbours.
 * The switch is the one-process engine's (bfs_cpu_do.c), with global
 * m_f, m_u and n_f from one MPI_Allreduce per level: top-down -> bottom-up
 * when m_f > m_u / α, back when the frontier is below n / β and shrinking
 * (α = 15, β = 18), so the directions match one process level for level.
 *
 * A vertex's parent is its smallest neighbour one level up: bottom-up scans
 * sorted rows and stops at the first frontier neighbour; top-down keeps the
 * smallest claimant of the level (a compare-and-swap claims the vertex, an
 * atomic minimum keeps the parent: threads of a rank expand the queue and
 * the received pairs together).  So parents do not depend on the rank
 * count, the thread count or message order.
 */
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bfs_mpi_internal.h"
#include "ompdag/internal/clock.h"

/* The figures every rank contributes to a level's one MPI_Allreduce. */
enum { LV_FOUND, LV_DEGREE, LV_BYTES, LV_FAILED, LV_COUNT };

ompdag_status ompdag_dbfs_result_create(ompdag_dbfs_result **out, ompdag_error *err)
{
    *out = calloc(1, sizeof **out);
    return *out ? OMPDAG_OK : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dbfs: out of memory");
}

void ompdag_dbfs_result_destroy(ompdag_dbfs_result *r)
{
    if (!r) return;
    free(r->levels);
    free(r->parents);
    free(r->lv);
    free(r->queue);
    free(r->next_queue);
    free(r->front);
    free(r->next);
    free(r->send);
    free(r->recv);
    free(r->scount);
    free(r);
}

/* Sizes the result for g (arrays grow, never shrink) and clears it. */
static bool dbfs_prepare(const ompdag_dgraph *g, ompdag_dbfs_result *r, int64_t source)
{
    const int64_t words = (g->n + 63) / 64 + 1;
    if (r->cap < g->nl + 1) {
        free(r->levels);
        free(r->parents);
        free(r->queue);
        free(r->next_queue);
        r->levels = malloc((size_t)(g->nl + 1) * sizeof *r->levels);
        r->parents = malloc((size_t)(g->nl + 1) * sizeof *r->parents);
        r->queue = malloc((size_t)(g->nl + 1) * sizeof *r->queue);
        r->next_queue = malloc((size_t)(g->nl + 1) * sizeof *r->next_queue);
        r->cap = g->nl + 1;
    }
    if (r->words_cap < words) {
        free(r->front);
        free(r->next);
        r->front = calloc((size_t)words, sizeof *r->front);
        r->next = calloc((size_t)words, sizeof *r->next);
        r->words_cap = words;
    }
    free(r->scount);
    r->scount = calloc((size_t)g->size, sizeof *r->scount);
    if (!r->levels || !r->parents || !r->queue || !r->next_queue || !r->front || !r->next ||
        !r->scount) {
        r->cap = r->words_cap = 0;
        return false;
    }
    for (int64_t v = 0; v < g->nl; ++v) {
        r->levels[v] = -1;
        r->parents[v] = -1;
    }
    r->nl = g->nl;
    r->source = source;
    r->level_count = 1;
    r->reached = r->edges = r->bytes = 0;
    r->seconds = 0;
    return true;
}

/* The search state of one rank. */
typedef struct dbfs_state {
    const ompdag_dgraph *g;
    ompdag_dbfs_result *r;
    int64_t qsize; /* local queue */
    int oom;
} dbfs_state;

/* Claims local vertex lv for parent u (global id) at depth; threads may
 * race.  The first claim of the vertex (a compare-and-swap on its level)
 * finds it; every claim of the level then keeps the smaller parent (-1:
 * none yet).  Returns true when this claim found the vertex. */
static inline bool claim(ompdag_dbfs_result *r, int64_t lv, int64_t u, int32_t depth)
{
    int32_t seen = __atomic_load_n(&r->levels[lv], __ATOMIC_RELAXED);
    bool fresh = false;
    if (seen < 0) {
        fresh = __atomic_compare_exchange_n(&r->levels[lv], &seen, depth, false, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED);
        if (fresh) seen = depth;
    }
    if (seen != depth) return false; /* found at an earlier level */
    int64_t cur = __atomic_load_n(&r->parents[lv], __ATOMIC_RELAXED);
    while ((cur < 0 || u < cur) &&
           !__atomic_compare_exchange_n(&r->parents[lv], &cur, u, true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
    }
    return fresh;
}

/* Threads for a step over `work` items: one below a few thousand (a
 * fork/join costs more than the work, as in bfs_cpu_do.c). */
static int step_threads(const ompdag_dgraph *g, int64_t work)
{
    return work >= 4096 ? g->threads : 1;
}

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* Thread t's slice [lo, hi) of n items split over T. */
static void slice(int64_t n, int t, int T, int64_t *lo, int64_t *hi)
{
    *lo = n * t / T;
    *hi = n * (t + 1) / T;
}

/* Top-down, first pass: count[t·P + p] = pairs thread t's slice of the
 * queue sends to rank p (0 for this rank). */
static void td_count(dbfs_state *s, int64_t qsize, int T, int64_t *count)
{
    const ompdag_dgraph *g = s->g;
    memset(count, 0, (size_t)T * (size_t)g->size * sizeof *count);
#pragma omp parallel num_threads(T)
    {
        const int t = thread_id();
        int64_t i0, i1, *mine = count + (size_t)t * (size_t)g->size;
        slice(qsize, t, T, &i0, &i1);
        for (int64_t i = i0; i < i1; ++i) {
            const int64_t lu = s->r->queue[i] - g->lo;
            for (int64_t e = g->offsets[lu]; e < g->offsets[lu + 1]; ++e) {
                const int owner = dg_owner(g, dg_nbr(g, e));
                if (owner != g->rank) ++mine[owner];
            }
        }
    }
}

/* Turns count[] into each thread's first slot per rank in r->send (rank
 * blocks in rank order, threads in order inside), fills r->scount and
 * returns the pairs in all. */
static int64_t td_offsets(dbfs_state *s, int T, int64_t *count)
{
    const ompdag_dgraph *g = s->g;
    int64_t at = 0;
    for (int p = 0; p < g->size; ++p) {
        const int64_t first = at;
        for (int t = 0; t < T; ++t) {
            const int64_t c = count[(size_t)t * (size_t)g->size + (size_t)p];
            count[(size_t)t * (size_t)g->size + (size_t)p] = at;
            at += c;
        }
        s->r->scount[p] = (int)(at - first);
    }
    return at;
}

/* Appends the vertices a thread found to the next queue, in one block. */
static void push_found(dbfs_state *s, const int64_t *found, int64_t n)
{
    int64_t at = __atomic_fetch_add(&s->qsize, n, __ATOMIC_RELAXED);
    memcpy(s->r->next_queue + at, found, (size_t)n * sizeof *found);
}

/* Top-down, second pass: claims local neighbours, packs the others by
 * owner at the slots td_offsets gave.  Returns the degree sum of the
 * vertices found here. */
static int64_t td_expand(dbfs_state *s, int64_t qsize, int32_t depth, int T, int64_t *fill)
{
    const ompdag_dgraph *g = s->g;
    ompdag_dbfs_result *r = s->r;
    int64_t m_f = 0;
#pragma omp parallel num_threads(T) reduction(+ : m_f)
    {
        const int t = thread_id();
        int64_t i0, i1, *at = fill + (size_t)t * (size_t)g->size, buf[256];
        int nbuf = 0;
        slice(qsize, t, T, &i0, &i1);
        for (int64_t i = i0; i < i1; ++i) {
            const int64_t u = r->queue[i], lu = u - g->lo;
            for (int64_t e = g->offsets[lu]; e < g->offsets[lu + 1]; ++e) {
                const int64_t v = dg_nbr(g, e);
                const int owner = dg_owner(g, v);
                if (owner != g->rank) {
                    r->send[at[owner]++] = (dg_pair){v, u};
                } else if (claim(r, v - g->lo, u, depth)) {
                    m_f += dg_local_degree(g, v - g->lo);
                    buf[nbuf++] = v;
                    if (nbuf == 256) push_found(s, buf, nbuf), nbuf = 0;
                }
            }
        }
        push_found(s, buf, nbuf);
    }
    return m_f;
}

/* Claims the pairs other ranks sent.  Returns the degree sum found. */
static int64_t td_receive(dbfs_state *s, int64_t nrecv, int32_t depth)
{
    const ompdag_dgraph *g = s->g;
    ompdag_dbfs_result *r = s->r;
    const int T = step_threads(g, nrecv);
    int64_t m_f = 0;
#pragma omp parallel num_threads(T) reduction(+ : m_f)
    {
        int64_t i0, i1, buf[256];
        int nbuf = 0;
        slice(nrecv, thread_id(), T, &i0, &i1);
        for (int64_t i = i0; i < i1; ++i) {
            const int64_t v = r->recv[i].a;
            if (claim(r, v - g->lo, r->recv[i].b, depth)) {
                m_f += dg_local_degree(g, v - g->lo);
                buf[nbuf++] = v;
                if (nbuf == 256) push_found(s, buf, nbuf), nbuf = 0;
            }
        }
        push_found(s, buf, nbuf);
    }
    return m_f;
}

/* Room for `sent` pairs in r->send. */
static bool td_room(ompdag_dbfs_result *r, int64_t sent)
{
    if (sent <= r->send_cap) return true;
    dg_pair *grown = realloc(r->send, (size_t)sent * sizeof *grown);
    if (!grown) return false;
    r->send = grown;
    r->send_cap = sent;
    return true;
}

/* One top-down level.  out[] gets this rank's LV_* figures. */
static void td_step(dbfs_state *s, int32_t depth, int64_t out[LV_COUNT])
{
    const ompdag_dgraph *g = s->g;
    ompdag_dbfs_result *r = s->r;
    const int64_t qsize = s->qsize;
    const int T = step_threads(g, qsize * 16);
    s->qsize = 0;
    int64_t m_f = 0, nrecv = 0, sent = 0;
    int64_t *fill = malloc((size_t)T * (size_t)g->size * sizeof *fill);
    if (fill) {
        td_count(s, qsize, T, fill);
        sent = td_offsets(s, T, fill);
    }
    if (!fill || !td_room(r, sent)) {
        /* Send nothing, still take part; the level's reduction stops all. */
        s->oom = 1;
        memset(r->scount, 0, (size_t)g->size * sizeof *r->scount);
        sent = 0;
    } else {
        m_f = td_expand(s, qsize, depth, T, fill);
    }
    free(fill);
    if (!bfs_mpi_exchange_pairs(g->comm, g->size, r->send, r->scount, &r->recv, &r->recv_cap,
                                &nrecv))
        s->oom = 1;
    m_f += td_receive(s, nrecv, depth);
    int64_t *t = r->queue;
    r->queue = r->next_queue;
    r->next_queue = t;
    out[LV_FOUND] = s->qsize;
    out[LV_DEGREE] = m_f;
    out[LV_BYTES] = sent * (int64_t)sizeof(dg_pair);
    out[LV_FAILED] = s->oom;
}

/* Joins every rank's words of r->front into the whole frontier.  Returns
 * the bytes this rank sent (its words, to each other rank). */
static int64_t share_frontier(const ompdag_dgraph *g, ompdag_dbfs_result *r)
{
    int *counts = malloc(2 * (size_t)g->size * sizeof *counts);
    if (!counts) MPI_Abort(g->comm, 1); /* 8 bytes per rank */
    for (int p = 0; p < g->size; ++p) {
        counts[p] = (int)((dg_rank_count(g, p) + 63) / 64);
        counts[g->size + p] = (int)(dg_rank_lo(g, p) / 64);
    }
    const int mine = counts[g->rank];
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r->front, counts, counts + g->size,
                   MPI_UINT64_T, g->comm);
    free(counts);
    return (int64_t)mine * 8 * (g->size - 1);
}

/* The local queue as this rank's words of the frontier bitmap. */
static void queue_to_bitmap(dbfs_state *s)
{
    const ompdag_dgraph *g = s->g;
    uint64_t *w = s->r->front + g->lo / 64;
    memset(w, 0, (size_t)((g->nl + 63) / 64) * sizeof *w);
    for (int64_t i = 0; i < s->qsize; ++i) {
        const int64_t lv = s->r->queue[i] - g->lo;
        w[lv >> 6] |= 1ull << (lv & 63);
    }
}

/* This rank's words of the frontier bitmap as the local queue. */
static void bitmap_to_queue(dbfs_state *s)
{
    const ompdag_dgraph *g = s->g;
    const uint64_t *w = s->r->front + g->lo / 64;
    s->qsize = 0;
    for (int64_t k = 0; k < (g->nl + 63) / 64; ++k)
        for (uint64_t bits = w[k]; bits; bits &= bits - 1)
            s->r->queue[s->qsize++] = g->lo + (k << 6) + __builtin_ctzll(bits);
}

static inline bool bit_get(const uint64_t *b, int64_t v)
{
    return (b[v >> 6] >> (v & 63)) & 1u;
}

/* The end of a bottom-up level: the found bits become the frontier. */
static void bu_swap(ompdag_dbfs_result *r, int64_t awake, const dbfs_state *s,
                    int64_t out[LV_COUNT])
{
    uint64_t *t = r->front;
    r->front = r->next;
    r->next = t;
    out[LV_FOUND] = awake;
    out[LV_DEGREE] = 0;
    out[LV_FAILED] = s->oom;
}

/* One bottom-up level over the local vertices: each unvisited one takes its
 * first (smallest) neighbour in the frontier.  Its words of r->next get the
 * vertices found; out[] this rank's figures. */
static void bu_step(dbfs_state *s, int32_t depth, int64_t out[LV_COUNT])
{
    const ompdag_dgraph *g = s->g;
    ompdag_dbfs_result *r = s->r;
    const uint64_t *front = r->front;
    uint64_t *next = r->next + g->lo / 64;
    const int64_t words = (g->nl + 63) / 64;
    int64_t awake = 0;
    if (g->gpu) { /* the rank's device (bfs_mpi_gpu.cu); a CUDA error fails the level */
        awake = bfs_mpi_gpu_bottom_up(g->gpu, front, r->levels, r->parents, next, depth);
        s->oom |= awake < 0;
        bu_swap(r, awake < 0 ? 0 : awake, s, out);
        return;
    }
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : awake) num_threads(g->threads)
    for (int64_t w = 0; w < words; ++w) {
        uint64_t bits = 0;
        const int64_t v0 = w << 6, v1 = v0 + 64 < g->nl ? v0 + 64 : g->nl;
        for (int64_t lv = v0; lv < v1; ++lv) {
            if (r->levels[lv] >= 0) continue;
            for (int64_t e = g->offsets[lv]; e < g->offsets[lv + 1]; ++e) {
                const int64_t u = dg_nbr(g, e);
                if (bit_get(front, u)) {
                    r->parents[lv] = u;
                    r->levels[lv] = depth;
                    bits |= 1ull << (lv & 63);
                    ++awake;
                    break;
                }
            }
        }
        next[w] = bits;
    }
    bu_swap(r, awake, s, out);
}

/* Sums every rank's figures of a level. */
static void level_reduce(const ompdag_dgraph *g, int64_t fig[LV_COUNT])
{
    MPI_Allreduce(MPI_IN_PLACE, fig, LV_COUNT, MPI_INT64_T, MPI_SUM, g->comm);
}

/* Bottom-up levels until the frontier is small and shrinking (bfs_cpu_do.c's
 * rule).  Returns the global size of the last frontier, or -1 on failure. */
static int64_t bu_phase(dbfs_state *s, int32_t *depth, int64_t n_f, double beta)
{
    const ompdag_dgraph *g = s->g;
    queue_to_bitmap(s);
    int64_t old, fig[LV_COUNT];
    do {
        old = n_f;
        const int64_t bytes = share_frontier(g, s->r);
        bu_step(s, ++*depth, fig);
        fig[LV_BYTES] = bytes;
        level_reduce(g, fig);
        if (fig[LV_FAILED] ||
            !bfs_dbfs_record(s->r, *depth, OMPDAG_BFS_BOTTOM_UP, fig[LV_FOUND], fig[LV_BYTES]))
            return -1;
        n_f = fig[LV_FOUND];
    } while (n_f > 0 && (n_f >= old || (double)n_f > (double)g->n / beta));
    bitmap_to_queue(s);
    return n_f;
}

ompdag_status ompdag_dbfs_run(const ompdag_dgraph *g, int64_t source,
                              const ompdag_bfs_options *opts, ompdag_dbfs_result *r,
                              ompdag_error *err)
{
    ompdag_bfs_options defaults;
    ompdag_bfs_options_init(&defaults);
    if (!opts) opts = &defaults;
    ompdag_status st = OMPDAG_OK;
    if (source < 0 || source >= g->n)
        st = ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "dbfs: source %lld is not a vertex",
                              (long long)source);
    else if (!dbfs_prepare(g, r, source))
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "dbfs: out of memory for %lld vertices",
                              (long long)g->nl);
    if ((st = bfs_mpi_agree(g->comm, st, err)) != OMPDAG_OK) return st;
    if (g->grid2d) return bfs_mpi_2d_search(g, source, r, err); /* bfs_mpi_2d.c */
    dbfs_state s = {.g = g, .r = r};
    const bool owner = dg_owner(g, source) == g->rank;
    int64_t m_f = 0, m_u = g->arcs, n_f = 1, fig[LV_COUNT];
    MPI_Barrier(g->comm);
    const double t0 = ompdag_now_s();
    if (owner) {
        r->levels[source - g->lo] = 0;
        r->parents[source - g->lo] = source;
        r->queue[s.qsize++] = source;
        m_f = dg_local_degree(g, source - g->lo);
    }
    MPI_Bcast(&m_f, 1, MPI_INT64_T, dg_owner(g, source), g->comm);
    int32_t depth = 0;
    bool failed = false;
    while (n_f > 0 && !failed) {
        if (g->symmetric && (double)m_f > (double)m_u / opts->alpha) {
            n_f = bu_phase(&s, &depth, n_f, opts->beta);
            failed = n_f < 0;
            m_f = 1; /* as bfs_cpu_do.c: the next step after bottom-up is top-down */
        } else {
            m_u -= m_f;
            td_step(&s, ++depth, fig);
            level_reduce(g, fig);
            failed = fig[LV_FAILED] ||
                     !bfs_dbfs_record(r, depth, OMPDAG_BFS_TOP_DOWN, fig[LV_FOUND], fig[LV_BYTES]);
            n_f = fig[LV_FOUND];
            m_f = fig[LV_DEGREE];
        }
    }
    double seconds = ompdag_now_s() - t0;
    MPI_Allreduce(&seconds, &r->seconds, 1, MPI_DOUBLE, MPI_MAX, g->comm);
    if (failed)
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM,
                              "dbfs: a rank ran out of memory (or its GPU failed) at level %d of "
                              "the search from %lld",
                              depth, (long long)source);
    if ((st = bfs_mpi_agree(g->comm, st, err)) != OMPDAG_OK) return st;
    bfs_dbfs_count_traversed(g, r);
    return OMPDAG_OK;
}

const int32_t *ompdag_dbfs_result_levels(const ompdag_dbfs_result *r)
{
    return r->levels;
}

const int64_t *ompdag_dbfs_result_parents(const ompdag_dbfs_result *r)
{
    return r->parents;
}

int32_t *ompdag_dbfs_result_levels_mut(ompdag_dbfs_result *r)
{
    return r->levels;
}

int64_t *ompdag_dbfs_result_parents_mut(ompdag_dbfs_result *r)
{
    return r->parents;
}

int64_t ompdag_dbfs_result_reached(const ompdag_dbfs_result *r)
{
    return r->reached;
}

int64_t ompdag_dbfs_result_edges(const ompdag_dbfs_result *r)
{
    return r->edges;
}

double ompdag_dbfs_result_seconds(const ompdag_dbfs_result *r)
{
    return r->seconds;
}

double ompdag_dbfs_result_teps(const ompdag_dbfs_result *r)
{
    /* ompdag_bfs_result_teps's definition: at least 1 ns, an isolated
     * source counts as one edge */
    const double t = r->seconds > 1e-9 ? r->seconds : 1e-9;
    return (double)(r->edges > 0 ? r->edges : 1) / t;
}

int ompdag_dbfs_result_level_count(const ompdag_dbfs_result *r)
{
    return r->level_count;
}

const ompdag_dbfs_level *ompdag_dbfs_result_level(const ompdag_dbfs_result *r, int i)
{
    return i >= 1 && i < r->level_count ? &r->lv[i] : NULL;
}

int64_t ompdag_dbfs_result_bytes(const ompdag_dbfs_result *r)
{
    return r->bytes;
}
