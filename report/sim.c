/*
 * report/sim.c — discrete-event simulation of work-conserving list scheduling
 * of untied OpenMP tasks on m threads, the independent check of seed 004's
 * Theorem 1 (Graham 1966; Serrano et al., CASES 2015): for any such schedule of
 * a flow e,   R <= len(e) + (vol(e) − len(e))/m,  so  m·R <= bound_times_m.
 *
 * The unit of work is a con-DAG node (a code segment between scheduling
 * points).  A node of the flow becomes ready when all its executed
 * predecessors over F-, T-, W- and the flow's D-edges (condag.md §6, Rule 3)
 * have completed; a thread is never idle
 * while a node is ready (work-conserving); any thread may run any node
 * (untied).  Two policies choose *which* ready node runs (OpenMP terms):
 *
 *   WFS (work-first)  each thread owns a deque.  After a T node the thread
 *                     runs the child's first node at once and pushes the
 *                     parent's continuation on its deque; otherwise it runs
 *                     its own continuation.  Other newly ready nodes (a
 *                     taskwait released by the last child) are pushed.  An
 *                     idle thread pops its own deque (newest first), else
 *                     steals the oldest node of a random victim's deque.
 *   BFS (breadth-first) after a T node the parent continues and the child's
 *                     first node joins one FIFO queue (as do released
 *                     taskwaits); idle threads take the oldest.
 *
 * Dispatch delays (ompdag_sim_run_delayed, docs/overheads.md): a node with
 * delay d > 0 that becomes ready at time r joins the ready set only at r + d;
 * in between threads may idle (a real runtime's creation-to-start latency
 * and taskwait wake-up, and the creator's late continuation after a `task`
 * directive).  The bound that covers it is the exact bound with the delays
 * D(v) >= d on the critical chain only (include/ompdag/overhead.h), and so
 * also that of the graph with WCET + D.
 *
 * Nothing here uses the bound's recurrences; tests compare the two.
 */
#include <stdlib.h>
#include <string.h>

#include "ompdag/compact.h"
#include "ompdag/gen.h"
#include "ompdag/internal/array.h"
#include "report_internal.h"

struct ompdag_sim {
    const ompdag_condag *g;
    int32_t n;
    uint8_t *executed;
    int32_t *pending;      /* executed predecessors not yet completed */
    int32_t *order;        /* position of each node in the topological order */
    int32_t *doff, *dsucc; /* D-edges of the current flow (condag.md §6), CSR; NULL: none */
    bool has_depend;       /* no clauses: no flow has D-edges, none are derived */
    /* The nodes the current flow executes, ascending, so that a flow of a
     * k-way branch costs what it runs, not the whole graph (issue 26 item 8). */
    int32_t *list, nlist;
    int32_t *cnodes, ncn; /* C nodes in topological order (ompdag_sim_next) */
    /* Per C node, the position of its last seen choice among its F-successors:
     * finding a choice is O(1) when it is still there, not O(k) for a k-way
     * branch.  Only with no repeated successor (else first-match scans). */
    int32_t *cpos;
    bool use_cpos;
    /* C nodes whose only executed F-successor is the chosen one (each
     * successor is reached from nowhere else), so the scans below skip the
     * other k − 1; `choice` is the current flow's. */
    uint8_t *choice_only;
    const int32_t *choice;
};

typedef struct deque {
    int32_t *buf;
    size_t head, tail, cap;
} deque;

bool ompdag_scheduler_parse(const char *name, ompdag_scheduler *out)
{
    if (name && !strcmp(name, "wfs")) return *out = OMPDAG_SCHED_WFS, true;
    if (name && !strcmp(name, "bfs")) return *out = OMPDAG_SCHED_BFS, true;
    return false;
}

const char *ompdag_scheduler_name(ompdag_scheduler s)
{
    return s == OMPDAG_SCHED_BFS ? "bfs" : "wfs";
}

/* Whether some C node lists a successor twice (then a choice's position is
 * its first match, which a remembered position may not be).  `mark` is
 * zeroed scratch of n bytes, left zeroed. */
static bool has_repeated_successor(const ompdag_condag *g, uint8_t *mark)
{
    bool rep = false;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_C) continue;
        int32_t cnt;
        const int32_t *succ = ompdag_condag_node_fsucc(g, v, &cnt);
        for (int32_t k = 0; k < cnt; ++k)
            rep = rep || mark[succ[k]], mark[succ[k]] = 1;
        for (int32_t k = 0; k < cnt; ++k)
            mark[succ[k]] = 0;
    }
    return rep;
}

/* Fills s->choice_only: a C node whose F-successors have no other
 * F-predecessor and start no task runs, in a flow, only its choice. */
static bool mark_choice_only(ompdag_sim *s)
{
    const ompdag_condag *g = s->g;
    int32_t *indeg = calloc((size_t)s->n + 1, sizeof *indeg);
    if (!indeg) return false;
    for (int32_t v = 0; v < s->n; ++v) {
        int32_t cnt;
        const int32_t *succ = ompdag_condag_node_fsucc(g, v, &cnt);
        for (int32_t k = 0; k < cnt; ++k)
            ++indeg[succ[k]];
    }
    for (int32_t t = 0; t < ompdag_condag_task_count(g); ++t)
        indeg[ompdag_condag_task_source(g, t)] += 2;
    for (int32_t v = 0; v < s->n; ++v) {
        if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_C) continue;
        int32_t cnt;
        const int32_t *succ = ompdag_condag_node_fsucc(g, v, &cnt);
        bool only = true;
        for (int32_t k = 0; k < cnt; ++k)
            only = only && indeg[succ[k]] == 1;
        s->choice_only[v] = only;
    }
    free(indeg);
    return true;
}

ompdag_status ompdag_sim_create(const ompdag_condag *g, ompdag_sim **out, ompdag_error *err)
{
    if (!g || !ompdag_condag_is_finalized(g))
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "simulate: graph is not finalized");
    ompdag_sim *s = calloc(1, sizeof *s);
    int32_t n = ompdag_condag_node_count(g);
    if (s) {
        s->g = g, s->n = n;
        s->executed = calloc((size_t)n + 1, 1);
        s->pending = calloc((size_t)n + 1, sizeof *s->pending);
        s->order = calloc((size_t)n + 1, sizeof *s->order);
        s->list = malloc(((size_t)n + 1) * sizeof *s->list);
        s->cnodes = malloc(((size_t)n + 1) * sizeof *s->cnodes);
        s->cpos = calloc((size_t)n + 1, sizeof *s->cpos);
        s->choice_only = calloc((size_t)n + 1, 1);
        s->has_depend = ompdag_condag_has_depend(g);
    }
    if (!s || !s->executed || !s->pending || !s->order || !s->list || !s->cnodes || !s->cpos ||
        !s->choice_only || !mark_choice_only(s)) {
        ompdag_sim_destroy(s);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    const int32_t *topo = ompdag_condag_topo_order(g);
    for (int32_t i = 0; i < n; ++i) {
        s->order[topo[i]] = i;
        if (ompdag_condag_node_kind(g, topo[i]) == OMPDAG_KIND_C) s->cnodes[s->ncn++] = topo[i];
    }
    s->use_cpos = !has_repeated_successor(g, s->executed);
    *out = s;
    return OMPDAG_OK;
}

void ompdag_sim_destroy(ompdag_sim *s)
{
    if (!s) return;
    free(s->executed), free(s->pending), free(s->order), free(s->doff), free(s->dsucc);
    free(s->list), free(s->cnodes), free(s->cpos), free(s->choice_only);
    free(s);
}

static bool dq_push(deque *d, int32_t v)
{
    if (d->tail == d->cap) {
        if (d->head > 0) { /* compact before growing */
            memmove(d->buf, d->buf + d->head, (d->tail - d->head) * sizeof *d->buf);
            d->tail -= d->head, d->head = 0;
        } else {
            int64_t cap = (int64_t)d->cap;
            if (!ompdag_grow_array((void **)&d->buf, sizeof *d->buf, &cap, cap + 1)) return false;
            d->cap = (size_t)cap;
        }
    }
    d->buf[d->tail++] = v;
    return true;
}

static size_t dq_size(const deque *d)
{
    return d->tail - d->head;
}

static int32_t dq_pop_newest(deque *d)
{
    return dq_size(d) ? d->buf[--d->tail] : -1;
}

static int32_t dq_take_oldest(deque *d)
{
    return dq_size(d) ? d->buf[d->head++] : -1;
}

/* v's F-successors that may run in this flow: all of them, or just the
 * choice of a choice-only C node. */
static const int32_t *flow_fsucc(const ompdag_sim *s, int32_t v, int32_t *cnt)
{
    if (s->choice_only[v]) return *cnt = 1, &s->choice[v];
    return ompdag_condag_node_fsucc(s->g, v, cnt);
}

/* Runs BODY with s bound to every executed successor of v over F-, T-, W- and
 * (this flow's) D-edges. */
#define FOR_EACH_SUCC(S, v, s, BODY)                                                               \
    do {                                                                                           \
        int32_t cnt_;                                                                              \
        const int32_t *fs_ = flow_fsucc(S, v, &cnt_);                                              \
        for (int32_t k_ = 0; k_ < cnt_; ++k_) {                                                    \
            int32_t s = fs_[k_];                                                                   \
            if ((S)->executed[s]) {                                                                \
                BODY;                                                                              \
            }                                                                                      \
        }                                                                                          \
        int32_t ct_ = ompdag_condag_node_creates((S)->g, v);                                       \
        if (ct_ >= 0) {                                                                            \
            int32_t s = ompdag_condag_task_source((S)->g, ct_);                                    \
            BODY;                                                                                  \
        }                                                                                          \
        const int32_t *ws_ = ompdag_condag_node_wsucc((S)->g, v, &cnt_);                           \
        for (int32_t k_ = 0; k_ < cnt_; ++k_) {                                                    \
            int32_t s = ws_[k_];                                                                   \
            if ((S)->executed[s]) {                                                                \
                BODY;                                                                              \
            }                                                                                      \
        }                                                                                          \
        for (int32_t k_ = (S)->doff ? (S)->doff[v] : 0; (S)->doff && k_ < (S)->doff[v + 1];        \
             ++k_) {                                                                               \
            int32_t s = (S)->dsucc[k_];                                                            \
            BODY;                                                                                  \
        }                                                                                          \
    } while (0)

typedef struct sim_state {
    ompdag_sim *s;
    ompdag_scheduler sched;
    int32_t m;
    int32_t *busy;   /* node running on each thread, -1 idle */
    int64_t *finish; /* its completion time */
    int32_t *next;   /* node the thread runs next, -1 none */
    deque *dq;       /* WFS: one per thread; BFS: dq[0] is the FIFO */
    size_t queued;
    ompdag_rng rng;
    int64_t now;
    const int64_t *delay;     /* per node, NULL: none */
    int32_t *dnode, *dthread; /* nodes in their dispatch delay, the thread that released them */
    int64_t *drel;            /* when each joins the ready set */
    size_t nd;
} sim_state;

static bool enqueue(sim_state *st, int32_t p, int32_t v)
{
    ++st->queued;
    return dq_push(&st->dq[st->sched == OMPDAG_SCHED_WFS ? p : 0], v);
}

/* Node x, released by thread p, starts its dispatch delay. */
static void delay_push(sim_state *st, int32_t x, int32_t p)
{
    st->dnode[st->nd] = x;
    st->dthread[st->nd] = p;
    st->drel[st->nd++] = st->now + st->delay[x];
}

/* Thread p completed v: release successors, choose p's next node. */
static bool complete(sim_state *st, int32_t p, int32_t v)
{
    ompdag_sim *s = st->s;
    int32_t fsucc = -1, child = -1;
    int32_t cnt;
    const int32_t *fs = flow_fsucc(s, v, &cnt);
    for (int32_t k = 0; k < cnt; ++k)
        if (s->executed[fs[k]]) fsucc = fs[k];
    int32_t ct = ompdag_condag_node_creates(s->g, v);
    if (ct >= 0) child = ompdag_condag_task_source(s->g, ct);
    int32_t preferred = st->sched == OMPDAG_SCHED_WFS && child >= 0 ? child : fsucc;
    bool ok = true;
    FOR_EACH_SUCC(s, v, x, {
        if (--s->pending[x] == 0) {
            if (st->delay && st->delay[x] > 0)
                delay_push(st, x, p);
            else if (x == preferred && st->next[p] < 0)
                st->next[p] = x;
            else
                ok = ok && enqueue(st, p, x);
        }
    });
    return ok;
}

/* An idle thread looks for work: WFS own deque then a random victim; BFS the FIFO. */
static int32_t find_work(sim_state *st, int32_t p, int64_t *steals)
{
    if (!st->queued) return -1;
    int32_t v;
    if (st->sched == OMPDAG_SCHED_BFS) {
        v = dq_take_oldest(&st->dq[0]);
    } else if ((v = dq_pop_newest(&st->dq[p])) < 0) {
        int32_t start = (int32_t)ompdag_rng_range(&st->rng, 0, st->m - 1);
        for (int32_t k = 0; k < st->m && v < 0; ++k)
            v = dq_take_oldest(&st->dq[(start + k) % st->m]);
        ++*steals;
    }
    if (v >= 0) --st->queued;
    return v;
}

static ompdag_status run_loop(sim_state *st, const int64_t *exec, ompdag_sim_result *res,
                              ompdag_error *err)
{
    ompdag_sim *s = st->s;
    int32_t m = st->m, running = 0;
    int64_t now = 0;
    int32_t root = ompdag_condag_task_source(s->g, ompdag_condag_root_task(s->g));
    st->next[0] = root;
    for (;;) {
        /* start every thread's chosen next node, then feed idle threads */
        for (int32_t p = 0; p < m; ++p) {
            int32_t v = st->next[p];
            if (v < 0 && st->busy[p] < 0) v = find_work(st, p, &res->steals);
            st->next[p] = -1;
            if (v < 0) continue;
            if (st->busy[p] >= 0 || s->pending[v] != 0)
                return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                        "simulate: node %s started before its predecessors",
                                        ompdag_condag_node_id(s->g, v));
            int64_t c = exec ? exec[v] : ompdag_condag_node_wcet(s->g, v);
            st->busy[p] = v, st->finish[p] = now + c;
            s->pending[v] = -1; /* started */
            res->busy += c;
            ++running;
        }
        for (int32_t p = 0; p < m; ++p)
            if (st->busy[p] < 0 && st->queued)
                return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                        "simulate: thread %d idle at %lld while %zu nodes are "
                                        "ready (not work-conserving)",
                                        p, (long long)now, st->queued);
        if (!running && !st->nd) break;
        int64_t t = INT64_MAX;
        for (int32_t p = 0; p < m; ++p)
            if (st->busy[p] >= 0 && st->finish[p] < t) t = st->finish[p];
        for (size_t k = 0; k < st->nd; ++k)
            if (st->drel[k] < t) t = st->drel[k];
        now = st->now = t;
        if (now > res->makespan) res->makespan = now;
        for (int32_t p = 0; p < m; ++p) {
            if (st->busy[p] < 0 || st->finish[p] != t) continue;
            int32_t v = st->busy[p];
            st->busy[p] = -1;
            --running;
            ++res->events;
            if (!complete(st, p, v))
                return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        }
        for (size_t k = 0; k < st->nd;) { /* delays that end now: the node is ready */
            if (st->drel[k] != t) {
                ++k;
                continue;
            }
            if (!enqueue(st, st->dthread[k], st->dnode[k]))
                return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
            --st->nd;
            st->dnode[k] = st->dnode[st->nd], st->dthread[k] = st->dthread[st->nd];
            st->drel[k] = st->drel[st->nd];
        }
    }
    if (res->events != res->executed)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "simulate: %lld of %d nodes ran (the flow deadlocked)",
                                (long long)res->events, res->executed);
    return OMPDAG_OK;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The position of c among v's F-successors (first match), -1 if absent. */
static int32_t choice_pos(ompdag_sim *s, int32_t v, int32_t c)
{
    int32_t cnt;
    const int32_t *succ = ompdag_condag_node_fsucc(s->g, v, &cnt);
    int32_t h = s->cpos[v];
    if (s->use_cpos && h < cnt && succ[h] == c) return h;
    for (int32_t k = 0; k < cnt; ++k)
        if (succ[k] == c) return s->cpos[v] = k;
    return -1;
}

static void mark_node(ompdag_sim *s, int32_t v)
{
    if (!s->executed[v]) s->executed[v] = 1, s->list[s->nlist++] = v;
}

/* The nodes `choice` executes, as ompdag_flow_mark marks them, but found by a
 * walk from the root that touches only them (and the previous flow's, to
 * unmark): s->executed and s->list (ascending).  A bad choice, or a compact
 * graph, falls back to ompdag_flow_mark for its exact error. */
static ompdag_status mark_flow(ompdag_sim *s, const int32_t *choice, ompdag_error *err)
{
    const ompdag_condag *g = s->g;
    for (int32_t i = 0; i < s->nlist; ++i)
        s->executed[s->list[i]] = 0;
    s->nlist = 0;
    bool bad = ompdag_compact_is_compact(g);
    if (!bad) mark_node(s, ompdag_condag_task_source(g, ompdag_condag_root_task(g)));
    for (int32_t i = 0; i < s->nlist && !bad; ++i) { /* the list is the work queue */
        int32_t v = s->list[i], cnt;
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_C) {
            if (!(bad = choice[v] < 0 || choice_pos(s, v, choice[v]) < 0)) mark_node(s, choice[v]);
            continue;
        }
        const int32_t *succ = ompdag_condag_node_fsucc(g, v, &cnt);
        for (int32_t k = 0; k < cnt; ++k)
            mark_node(s, succ[k]);
        int32_t ct = ompdag_condag_node_creates(g, v);
        if (ct >= 0) mark_node(s, ompdag_condag_task_source(g, ct));
    }
    if (bad) {
        ompdag_status rc = ompdag_flow_mark(g, choice, s->executed, err);
        s->nlist = 0; /* whole-graph marks: unmark them all next time */
        for (int32_t v = 0; v < s->n; ++v)
            if (s->executed[v]) s->list[s->nlist++] = v;
        if (rc) return rc;
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "simulate: bad flow choice");
    }
    qsort(s->list, (size_t)s->nlist, sizeof *s->list, cmp_i32);
    return OMPDAG_OK;
}

const int32_t *ompdag_sim_flow_nodes(const ompdag_sim *s, int32_t *count)
{
    *count = s->nlist;
    return s->list;
}

ompdag_status ompdag_sim_run(ompdag_sim *s, const int32_t *choice, const int64_t *exec, int32_t m,
                             ompdag_scheduler sched, uint64_t seed, ompdag_sim_result *out,
                             ompdag_error *err)
{
    return ompdag_sim_run_delayed(s, choice, exec, NULL, m, sched, seed, out, err);
}

ompdag_status ompdag_sim_run_delayed(ompdag_sim *s, const int32_t *choice, const int64_t *exec,
                                     const int64_t *delay, int32_t m, ompdag_scheduler sched,
                                     uint64_t seed, ompdag_sim_result *out, ompdag_error *err)
{
    if (!s || !choice || !out || m < 1)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "simulate: bad arguments (m >= 1)");
    ompdag_status rc = mark_flow(s, choice, err);
    if (rc) return rc;
    s->choice = choice;
    free(s->doff), free(s->dsucc);
    s->doff = s->dsucc = NULL;
    if (s->has_depend &&
        (rc = ompdag_condag_flow_order_edges(s->g, s->executed, &s->doff, &s->dsucc, err)))
        return rc;
    ompdag_sim_result res = {0};
    for (int32_t i = 0; i < s->nlist; ++i)
        s->pending[s->list[i]] = 0;
    for (int32_t i = 0; i < s->nlist; ++i) {
        int32_t v = s->list[i];
        ++res.executed;
        if (exec && (exec[v] < 0 || exec[v] > ompdag_condag_node_wcet(s->g, v)))
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                    "simulate: execution time of node %s is outside [0, WCET]",
                                    ompdag_condag_node_id(s->g, v));
        if (delay && delay[v] < 0)
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                    "simulate: dispatch delay of node %s is negative",
                                    ompdag_condag_node_id(s->g, v));
        FOR_EACH_SUCC(s, v, x, ++s->pending[x]);
    }
    sim_state st = {.s = s, .sched = sched, .m = m, .delay = delay};
    st.dnode = malloc(((size_t)s->nlist + 1) * sizeof *st.dnode);
    st.dthread = malloc(((size_t)s->nlist + 1) * sizeof *st.dthread);
    st.drel = malloc(((size_t)s->nlist + 1) * sizeof *st.drel);
    st.busy = malloc((size_t)m * sizeof *st.busy);
    st.finish = calloc((size_t)m, sizeof *st.finish);
    st.next = malloc((size_t)m * sizeof *st.next);
    st.dq = calloc((size_t)m, sizeof *st.dq);
    if (!st.busy || !st.finish || !st.next || !st.dq || !st.dnode || !st.dthread || !st.drel) {
        rc = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    } else {
        for (int32_t p = 0; p < m; ++p)
            st.busy[p] = -1, st.next[p] = -1;
        ompdag_rng_seed(&st.rng, seed);
        rc = run_loop(&st, exec, &res, err);
    }
    for (int32_t p = 0; st.dq && p < m; ++p)
        free(st.dq[p].buf);
    free(st.busy), free(st.finish), free(st.next), free(st.dq);
    free(st.dnode), free(st.dthread), free(st.drel);
    if (!rc) *out = res;
    return rc;
}

void ompdag_sim_random_choice(const ompdag_condag *g, ompdag_rng *rng, int32_t *choice)
{
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        int32_t n;
        const int32_t *succ = ompdag_condag_node_fsucc(g, v, &n);
        choice[v] = ompdag_condag_node_kind(g, v) == OMPDAG_KIND_C && n > 0
                        ? succ[ompdag_rng_range(rng, 0, n - 1)]
                        : -1;
    }
}

/* Flows in lexicographic order of the choices of executed C nodes, taken in
 * topological order: whether a C node runs depends only on earlier C nodes,
 * so bumping the last executed C node that has another successor and
 * resetting every later C node visits each distinct flow exactly once. */
bool ompdag_sim_next_flow(const ompdag_condag *g, int32_t *choice, uint8_t *executed)
{
    if (ompdag_flow_mark(g, choice, executed, NULL)) return false;
    const int32_t *topo = ompdag_condag_topo_order(g);
    int32_t n = ompdag_condag_node_count(g);
    for (int32_t i = n - 1; i >= 0; --i) {
        int32_t v = topo[i], cnt;
        if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_C || !executed[v]) continue;
        const int32_t *succ = ompdag_condag_node_fsucc(g, v, &cnt);
        int32_t k = 0;
        while (k < cnt && succ[k] != choice[v])
            ++k;
        if (k + 1 >= cnt) continue;
        choice[v] = succ[k + 1];
        for (int32_t j = i + 1; j < n; ++j) {
            int32_t u = topo[j], c2;
            if (ompdag_condag_node_kind(g, u) == OMPDAG_KIND_C)
                choice[u] = ompdag_condag_node_fsucc(g, u, &c2)[0];
        }
        return true;
    }
    return false;
}

/* ompdag_sim_next_flow over s's graph in time proportional to the nodes the
 * flow executes plus the C nodes after the one bumped (same order, same
 * flows): the executed C nodes are taken from the walk, not from a scan. */
/* The successor after v's choice (first match), -1 if none; the walk that
 * just marked the flow left its position in s->cpos. */
static int32_t next_choice(ompdag_sim *s, int32_t v, int32_t c)
{
    int32_t cnt, k = choice_pos(s, v, c);
    const int32_t *succ = ompdag_condag_node_fsucc(s->g, v, &cnt);
    return k >= 0 && k + 1 < cnt ? succ[k + 1] : -1;
}

bool ompdag_sim_next(ompdag_sim *s, int32_t *choice)
{
    if (mark_flow(s, choice, NULL)) return false;
    const ompdag_condag *g = s->g;
    int32_t best = -1; /* the executed C node latest in topological order that can bump */
    for (int32_t i = 0; i < s->nlist; ++i) {
        int32_t v = s->list[i];
        if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_C) continue;
        if (best >= 0 && s->order[v] < s->order[best]) continue;
        if (next_choice(s, v, choice[v]) >= 0) best = v;
    }
    if (best < 0) return false;
    choice[best] = next_choice(s, best, choice[best]);
    ++s->cpos[best]; /* next_choice left it at the old choice's position */
    int32_t cnt;
    /* every C node after it in topological order restarts at its first successor */
    int32_t lo = 0, hi = s->ncn; /* first C node after best */
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (s->order[s->cnodes[mid]] <= s->order[best])
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int32_t j = lo; j < s->ncn; ++j) {
        choice[s->cnodes[j]] = ompdag_condag_node_fsucc(g, s->cnodes[j], &cnt)[0];
        s->cpos[s->cnodes[j]] = 0;
    }
    return true;
}

ompdag_status ompdag_sim_tightness(const ompdag_condag *g, int32_t m, int32_t random_flows,
                                   uint64_t seed, double *ratio, int64_t *max_response,
                                   ompdag_error *err)
{
    if (!g || m < 1 || random_flows < 0 || !ratio)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "tightness: bad arguments");
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    ompdag_rta_result *res = NULL;
    ompdag_sim *sim = NULL;
    int32_t *choice = NULL;
    ompdag_status st = ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &res, err);
    if (!st) st = ompdag_sim_create(g, &sim, err);
    if (!st && !(choice = ompdag_rta_result_choices_copy(res, g)))
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    ompdag_rng rng;
    ompdag_rng_seed(&rng, seed);
    int64_t best = 0;
    for (int32_t f = 0; !st && f <= random_flows; ++f) {
        if (f > 0) ompdag_sim_random_choice(g, &rng, choice);
        for (int sc = 0; sc < 2 && !st; ++sc) {
            ompdag_sim_result r;
            st = ompdag_sim_run(sim, choice, NULL, m, sc ? OMPDAG_SCHED_BFS : OMPDAG_SCHED_WFS,
                                seed + (uint64_t)f, &r, err);
            if (!st && r.makespan > best) best = r.makespan;
        }
    }
    if (!st) {
        int64_t btm = ompdag_rta_result_bound_times_m(res);
        if ((__int128)best * m > btm)
            st = ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                  "tightness: simulated response %lld exceeds the bound %lld/%d",
                                  (long long)best, (long long)btm, m);
        *ratio = btm > 0 ? (double)best * m / (double)btm : 0.0;
        if (max_response) *max_response = best;
    }
    free(choice);
    ompdag_sim_destroy(sim);
    ompdag_rta_result_destroy(res);
    return st;
}
