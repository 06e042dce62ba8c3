/*
 * bfs_cpu_do.c — direction-optimizing BFS with OpenMP (Beamer, Asanović and
 * Patterson, "Direction-Optimizing Breadth-First Search", SC'12; the CPU
 * anchor named in seed 003 and the GAP suite's bfs kernel).
 *
 * Top-down steps expand a queue of frontier vertices; bottom-up steps let
 * every unvisited vertex look for any parent in a bitmap of the frontier and
 * stop at the first one.  The driver switches top-down -> bottom-up when the
 * frontier's out-edges m_f exceed the unexplored edges m_u / α, and back
 * when the frontier shrinks below n / β (α = 15, β = 18).  parent[] holds -1
 * for unvisited vertices and is claimed with a compare-and-swap top-down;
 * bottom-up each thread owns whole 64-vertex words of the next bitmap, so it
 * needs no atomics.  A directed graph has no in-edge lists here, so on one
 * the engine stays top-down.
 *
 * Bottom-up probes each vertex's highest-degree neighbour before its row, and
 * within a bottom-up phase walks a bitmap of the unvisited vertices that have
 * edges (graph_tables_build: per-graph tables built before the clock starts;
 * docs/bfs.md, "cpu: what a bottom-up level costs").
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bfs_internal.h"
#include "ompdag/internal/clock.h"

typedef struct do_state {
    const ompdag_graph *g;
    int64_t *parent;
    int32_t *level;
    int64_t *queue, *next_queue; /* frontier as a list */
    int64_t qsize;
    uint64_t *front, *next; /* frontier as a bitmap, bottom-up */
    const int32_t *first;   /* highest-degree neighbour per vertex, or NULL */
    const uint64_t *live;   /* vertices with edges (the only ones bottom-up can find) */
    uint64_t *rest;         /* bottom-up: live vertices still unvisited */
    int64_t words;
    int threads;
    int oom; /* set when a thread's buffer could not grow */
} do_state;

/* Below these sizes a step runs on one thread: a fork/join costs more than
 * the work, and on a loaded machine a waiting thread may not get a core for
 * a whole time slice (a path of 10^6 vertices has 10^6 levels). */
#define DO_PAR_MIN_EDGES 4096
#define DO_PAR_MIN_VERTICES 65536
#define DO_PAR_MIN_WORDS 16384
#define DO_PARALLEL _Pragma("omp parallel num_threads(s->threads) if(par)")

static inline bool bit_get(const uint64_t *b, int64_t v)
{
    return (b[v >> 6] >> (v & 63)) & 1u;
}

/* A thread's slice of the next queue: a fixed buffer on the stack, flushed
 * into the shared queue with one atomic add when full (GAP's QueueBuffer).
 * Nothing is allocated during a search: growing heap buffers per level put
 * page faults and unmap shootdowns on every core, the cause of 10-200x
 * spread between searches at 16 threads. */
#define DO_LOCAL 2048
typedef struct local_queue {
    int64_t buf[DO_LOCAL];
    int len;
} local_queue;

static inline void lq_flush(local_queue *b, int64_t *queue, int64_t *tail)
{
    if (b->len) {
        int64_t at = __atomic_fetch_add(tail, b->len, __ATOMIC_RELAXED);
        memcpy(queue + at, b->buf, (size_t)b->len * sizeof *b->buf);
        b->len = 0;
    }
}

static inline void lq_push(local_queue *b, int64_t x, int64_t *queue, int64_t *tail)
{
    if (b->len == DO_LOCAL) lq_flush(b, queue, tail);
    b->buf[b->len++] = x;
}

static inline int64_t clamp_chunk(int64_t c)
{
    return c < 1 ? 1 : c > 64 ? 64 : c;
}

/* One top-down level: claims unvisited neighbours of the queue; returns m_f,
 * the out-degree sum of the vertices it found. */
static int64_t td_step(do_state *s, int32_t depth, int64_t m_f)
{
    const ompdag_graph *g = s->g;
    const bool par = m_f >= DO_PAR_MIN_EDGES || s->qsize * 8 >= DO_PAR_MIN_EDGES;
    int64_t scout = 0, tail = 0;
    /* Chunks of 64 frontier vertices, fewer when the frontier is short: the
     * second level's frontier is often a dozen hubs holding most edges. */
    const int64_t chunk = clamp_chunk(s->qsize / ((int64_t)s->threads * 8));
    DO_PARALLEL
    {
        local_queue lq;
        lq.len = 0;
#pragma omp for schedule(dynamic, chunk) reduction(+ : scout)
        for (int64_t i = 0; i < s->qsize; ++i) {
            int64_t u = s->queue[i];
            for (int64_t e = g->offsets[u]; e < g->offsets[u + 1]; ++e) {
                int64_t w = csr_nbr(g, e), expect = -1;
                if (__atomic_load_n(&s->parent[w], __ATOMIC_RELAXED) < 0 &&
                    __atomic_compare_exchange_n(&s->parent[w], &expect, u, false, __ATOMIC_RELAXED,
                                                __ATOMIC_RELAXED)) {
                    s->level[w] = depth;
                    scout += csr_degree(g, w);
                    lq_push(&lq, w, s->next_queue, &tail);
                }
            }
        }
        lq_flush(&lq, s->next_queue, &tail);
    }
    int64_t *t = s->queue;
    s->queue = s->next_queue;
    s->next_queue = t;
    s->qsize = tail;
    return scout;
}

/* The parent bottom-up finds for unvisited v, or -1: its highest-degree
 * neighbour first (the likeliest to be in a large frontier, so most vertices
 * stop after one probe instead of a scan of their row), then the row. */
static inline int64_t bu_parent(const do_state *s, int64_t v)
{
    const ompdag_graph *g = s->g;
    if (s->first) {
        int64_t hub = s->first[v];
        if (hub >= 0 && bit_get(s->front, hub)) return hub;
    }
    for (int64_t e = g->offsets[v]; e < g->offsets[v + 1]; ++e) {
        int64_t u = csr_nbr(g, e);
        if (bit_get(s->front, u)) return u;
    }
    return -1;
}

/* Word w's live unvisited vertices, read from level[]: the first level of a
 * bottom-up phase (top-down levels before it did not keep the bitmap). */
static inline uint64_t unvisited_word(const do_state *s, int64_t w)
{
    const int64_t v0 = w << 6, v1 = v0 + 64 < s->g->n ? v0 + 64 : s->g->n;
    uint64_t bits = 0;
    for (int64_t v = v0; v < v1; ++v)
        bits |= (uint64_t)(s->level[v] < 0) << (v - v0);
    return bits & s->live[w];
}

/* One bottom-up level: each live unvisited vertex takes the first neighbour
 * found in the front bitmap as parent.  Returns n_f, the vertices found.
 * The first level of a phase (scan) reads level[]; the next ones walk the
 * rest bitmap, so a level that finds few vertices costs n/64 words, not a
 * pass over every vertex (isolated ones, 29% at kron 16, are never seen). */
static int64_t bu_step(do_state *s, int32_t depth, bool scan)
{
    const ompdag_graph *g = s->g;
    const bool par = g->n >= DO_PAR_MIN_VERTICES;
    int64_t awake = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : awake) num_threads(s->threads) if (par)
    for (int64_t w = 0; w < s->words; ++w) {
        const uint64_t unvisited = scan ? unvisited_word(s, w) : s->rest[w];
        uint64_t found = 0;
        for (uint64_t bits = unvisited; bits; bits &= bits - 1) {
            const int64_t v = (w << 6) + __builtin_ctzll(bits);
            const int64_t u = bu_parent(s, v);
            if (u >= 0) {
                s->parent[v] = u;
                s->level[v] = depth;
                found |= bits & -bits;
                ++awake;
            }
        }
        s->next[w] = found;
        s->rest[w] = unvisited & ~found;
    }
    uint64_t *t = s->front;
    s->front = s->next;
    s->next = t;
    return awake;
}

/* Below DO_PAR_MIN_VERTICES frontier vertices, serial with plain ORs: an
 * atomic OR per vertex cost about as much as the rest of the switch. */
static void queue_to_bitmap(do_state *s)
{
    memset(s->front, 0, (size_t)s->words * sizeof *s->front);
    if (s->qsize < DO_PAR_MIN_VERTICES) {
        for (int64_t i = 0; i < s->qsize; ++i)
            s->front[s->queue[i] >> 6] |= 1ull << (s->queue[i] & 63);
        return;
    }
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (int64_t i = 0; i < s->qsize; ++i) {
        int64_t v = s->queue[i];
        __atomic_fetch_or(&s->front[v >> 6], 1ull << (v & 63), __ATOMIC_RELAXED);
    }
}

/* A scan of n/64 words: in parallel only for large graphs, since a fork and
 * join (threads asleep under OMP_WAIT_POLICY=passive) cost more than
 * scanning 1024 words at kron 16. */
static void bitmap_to_queue(do_state *s)
{
    const bool par = s->words >= DO_PAR_MIN_WORDS;
    int64_t tail = 0;
    DO_PARALLEL
    {
        local_queue lq;
        lq.len = 0;
#pragma omp for schedule(static)
        for (int64_t w = 0; w < s->words; ++w)
            for (uint64_t bits = s->front[w]; bits; bits &= bits - 1)
                lq_push(&lq, (w << 6) + __builtin_ctzll(bits), s->queue, &tail);
        lq_flush(&lq, s->queue, &tail);
    }
    s->qsize = tail;
}

/* r's tables for g: cpu_first, each vertex's neighbour of highest degree
 * (the first such in its row; -1 when isolated; only with 32-bit ids), and
 * cpu_live, the vertices with edges.  One pass over the arcs, once per graph
 * before its first search, outside the timed region (as the queues are):
 * properties of the graph, like its CSR, not of a search. */
static ompdag_status graph_tables_build(const ompdag_graph *g, int threads, ompdag_bfs_result *r,
                                        ompdag_error *err)
{
    const int64_t words = (g->n + 63) / 64;
    free(r->cpu_first);
    free(r->cpu_live);
    free(r->cpu_rest);
    r->cpu_tables_uid = 0;
    r->cpu_first = g->adj32 ? malloc((size_t)g->n * sizeof *r->cpu_first) : NULL;
    r->cpu_live = calloc((size_t)words + 1, sizeof *r->cpu_live);
    r->cpu_rest = calloc((size_t)words + 1, sizeof *r->cpu_rest);
    if ((g->adj32 && !r->cpu_first) || !r->cpu_live || !r->cpu_rest)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "cpu: out of memory");
#pragma omp parallel for schedule(dynamic, 4) num_threads(threads)
    for (int64_t w = 0; w < words; ++w) {
        const int64_t v0 = w << 6, v1 = v0 + 64 < g->n ? v0 + 64 : g->n;
        uint64_t live = 0;
        for (int64_t v = v0; v < v1; ++v) {
            live |= (uint64_t)(csr_degree(g, v) > 0) << (v - v0);
            if (!g->adj32) continue;
            int64_t best = -1, best_degree = 0;
            for (int64_t e = g->offsets[v]; e < g->offsets[v + 1]; ++e) {
                int64_t u = g->adj32[e], d = csr_degree(g, u);
                if (d > best_degree) {
                    best_degree = d;
                    best = u;
                }
            }
            r->cpu_first[v] = (int32_t)best;
        }
        r->cpu_live[w] = live; /* one thread per word: no shared writes */
    }
    r->cpu_tables_uid = g->uid;
    return OMPDAG_OK;
}

static bool record(ompdag_bfs_result *r, int32_t depth, ompdag_bfs_direction dir, int64_t found)
{
    if (found == 0) return true;
    ompdag_bfs_level *rec = bfs_result_level_at(r, depth);
    if (!rec) return false;
    rec->direction = dir;
    rec->visited = found;
    return true;
}

ompdag_status bfs_engine_cpu_do(const ompdag_graph *g, int64_t source,
                                const ompdag_bfs_options *opts, ompdag_bfs_result *r,
                                ompdag_error *err)
{
    do_state st = {.g = g, .parent = r->parents, .level = r->levels};
    do_state *s = &st;
    s->threads = opts->threads;
    if (s->threads <= 0) {
        s->threads = 1;
#ifdef _OPENMP
        s->threads = omp_get_max_threads();
#endif
    }
    s->words = (g->n + 63) / 64;
    /* Queues and bitmaps live in the result and are reused by the next
     * search: allocating them per search put first-touch page faults (one
     * mm lock for all threads) inside the timed region, the source of most
     * of the spread between searches. */
    if (r->cpu_cap < g->n + 1) {
        for (int k = 0; k < 2; ++k) {
            free(r->cpu_queue[k]);
            free(r->cpu_bits[k]);
            r->cpu_queue[k] = malloc((size_t)(g->n + 1) * sizeof *r->cpu_queue[k]);
            r->cpu_bits[k] = malloc((size_t)(s->words + 1) * sizeof *r->cpu_bits[k]);
            if (!r->cpu_queue[k] || !r->cpu_bits[k]) {
                r->cpu_cap = 0;
                return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "cpu: out of memory");
            }
            /* first touch here, in parallel, outside the search */
#pragma omp parallel for schedule(static) num_threads(s->threads)
            for (int64_t i = 0; i <= g->n; ++i)
                r->cpu_queue[k][i] = 0;
            memset(r->cpu_bits[k], 0, (size_t)(s->words + 1) * sizeof *r->cpu_bits[k]);
        }
        r->cpu_cap = g->n + 1;
    }
    if (g->symmetric && r->cpu_tables_uid != g->uid) {
        ompdag_status built = graph_tables_build(g, s->threads, r, err);
        if (built != OMPDAG_OK) return built;
    }
    /* only a symmetric graph goes bottom-up, and only its tables are current */
    s->first = g->symmetric ? r->cpu_first : NULL;
    s->live = g->symmetric ? r->cpu_live : NULL;
    s->rest = g->symmetric ? r->cpu_rest : NULL;
    s->queue = r->cpu_queue[0];
    s->next_queue = r->cpu_queue[1];
    s->front = r->cpu_bits[0];
    s->next = r->cpu_bits[1];
    const double alpha = opts->alpha, beta = opts->beta;
    bool ok = true;
    double t0 = ompdag_now_s();
    s->parent[source] = source;
    s->level[source] = 0;
    s->queue[0] = source;
    s->qsize = 1;
    int64_t m_u = g->m, m_f = csr_degree(g, source);
    int32_t depth = 0;
    while (s->qsize > 0 && ok && !s->oom) {
        /* Bottom-up looks for parents among out-neighbours, which are the
         * in-neighbours only in an undirected graph. */
        if (g->symmetric && (double)m_f > (double)m_u / alpha) {
            /* Bottom-up until the frontier is small and shrinking. */
            queue_to_bitmap(s);
            int64_t n_f = s->qsize, old;
            bool scan = true;
            do {
                old = n_f;
                n_f = bu_step(s, ++depth, scan);
                scan = false;
                ok = ok && record(r, depth, OMPDAG_BFS_BOTTOM_UP, n_f);
            } while (n_f > 0 && (n_f >= old || (double)n_f > (double)g->n / beta));
            bitmap_to_queue(s);
            assert(s->qsize == n_f); /* the bitmap and the queue hold one frontier */
            m_f = 1;
        } else {
            m_u -= m_f;
            m_f = td_step(s, ++depth, m_f);
            assert(s->qsize <= g->n && m_f >= 0); /* a vertex is claimed once (CAS) */
            ok = ok && record(r, depth, OMPDAG_BFS_TOP_DOWN, s->qsize);
        }
    }
    r->seconds = ompdag_now_s() - t0;
    /* td_step / bu_step swap the buffers: keep whichever pointers hold them */
    r->cpu_queue[0] = s->queue;
    r->cpu_queue[1] = s->next_queue;
    r->cpu_bits[0] = s->front;
    r->cpu_bits[1] = s->next;
    if (!ok || s->oom) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "cpu: out of memory");
    return OMPDAG_OK;
}
