/*
 * report/sim_tied.c — discrete-event schedules of one flow of a con-DAG on m
 * threads under OpenMP's task scheduling constraint (OpenMP 5.2 §12.9, TSC),
 * with an adversary that picks among the legal choices, the independent
 * check of ompdag_rta_tied_bound() (analysis/rta_tied.c, docs/tied.md).
 * Sun et al. (RTSS 2017) show that such legal schedules can run a parallel
 * tied workload fully sequentially; this simulator finds those schedules.
 *
 * A task is a chain of nodes in the flow.  Scheduling points: after a T node
 * (creation), before a W node (taskwait), at the task's end.  Between two
 * other nodes the thread runs on.  At a scheduling point the task suspends
 * and its thread becomes idle; every idle thread then takes one legal action,
 * if it has any (greedy), in an order and with a choice the policy sets:
 *   resume  a suspended task whose next node is ready: an untied one on any
 *           thread, a tied one only on the thread that began it (with
 *           `stack`, only if it is the innermost tied task of that thread);
 *   start   a task whose source is ready (created, depend-predecessors done):
 *           a tied one only if it descends from every tied task the thread
 *           began and has not finished (TSC 1); an untied one anywhere, or
 *           under the same rule with `strict`.
 * With `root_continues_at_creation` (docs/tied.md §4b) the root's thread is
 * pinned to the root after each root T node: its only legal action is to
 * resume the root once the next node is ready (after its dispatch delay).
 * Nothing here uses the bound's recurrences.
 */
#include <stdlib.h>
#include <string.h>

#include "ompdag/gen.h"
#include "ompdag/rta.h"
#include "ompdag/sim_tied.h"

enum { UNSTARTED = 0, RUNNING = 1, SUSPENDED = 2, DONE = 3 };

typedef struct tsim {
    const ompdag_condag *g;
    const ompdag_tied_sim_options *opt;
    int32_t n, nt, m;
    uint8_t *executed;
    int32_t *pending;      /* executed predecessors not yet completed; -1 once started */
    int64_t *seq;          /* when a node became ready (a counter), for newest/oldest */
    int32_t *fnext;        /* executed F-successor, -1 at the task's end */
    int32_t *doff, *dsucc; /* the flow's D-edges, CSR */
    uint8_t *tied;
    int32_t *parent, *state, *owner, *next; /* per task */
    int32_t *run;                           /* per thread: node running, -1 idle */
    int64_t *fin;
    int32_t *created, *suspended; /* per thread: the task its last T node created / that just
                                     suspended on it, -1 none (policy hints) */
    int32_t *stk, *depth;         /* per thread: tied tasks begun and unfinished, innermost last */
    int32_t *pinned;   /* per thread: the root, which it must resume next (it has just created a
                          task and root_continues_at_creation holds), -1 none */
    int32_t *acts;     /* scratch: legal actions, task index, negative for resume */
    int64_t *eligible; /* per node: when its dispatch delay has passed */
    int64_t now, counter;
    ompdag_rng rng;
    ompdag_tied_sim_result res;
} tsim;

const char *ompdag_tied_policy_name(ompdag_tied_policy p)
{
    switch (p) {
    case OMPDAG_TIED_CONTINUE:
        return "continue";
    case OMPDAG_TIED_HOARD:
        return "hoard";
    case OMPDAG_TIED_RANDOM:
        return "random";
    default:
        return "child-first";
    }
}

void ompdag_tied_sim_options_init(ompdag_tied_sim_options *o, int32_t m)
{
    memset(o, 0, sizeof *o);
    o->m = m;
    o->policy = OMPDAG_TIED_CHILD_FIRST;
    o->stack = true;
    o->seed = 1;
}

static void tsim_free(tsim *s)
{
    free(s->executed), free(s->pending), free(s->seq), free(s->fnext), free(s->doff);
    free(s->dsucc), free(s->tied), free(s->parent), free(s->state), free(s->owner);
    free(s->next), free(s->run), free(s->fin), free(s->created), free(s->suspended);
    free(s->stk), free(s->depth), free(s->acts), free(s->eligible), free(s->pinned);
}

static bool tsim_alloc(tsim *s)
{
    size_t n1 = (size_t)s->n + 1, t1 = (size_t)s->nt + 1, m = (size_t)s->m;
    s->executed = calloc(n1, 1);
    s->pending = calloc(n1, sizeof *s->pending);
    s->seq = calloc(n1, sizeof *s->seq);
    s->fnext = malloc(n1 * sizeof *s->fnext);
    s->tied = calloc(t1, 1);
    s->parent = malloc(t1 * sizeof *s->parent);
    s->state = calloc(t1, sizeof *s->state);
    s->owner = malloc(t1 * sizeof *s->owner);
    s->next = malloc(t1 * sizeof *s->next);
    s->run = malloc(m * sizeof *s->run);
    s->fin = calloc(m, sizeof *s->fin);
    s->created = malloc(m * sizeof *s->created);
    s->suspended = malloc(m * sizeof *s->suspended);
    s->stk = malloc(m * t1 * sizeof *s->stk);
    s->depth = calloc(m, sizeof *s->depth);
    s->acts = malloc(2 * t1 * sizeof *s->acts);
    s->eligible = calloc(n1, sizeof *s->eligible);
    s->pinned = malloc(m * sizeof *s->pinned);
    return s->eligible && s->pinned && s->executed && s->pending && s->seq && s->fnext && s->tied &&
           s->parent && s->state && s->owner && s->next && s->run && s->fin && s->created &&
           s->suspended && s->stk && s->depth && s->acts;
}

/* Runs BODY with x bound to every executed successor of v (F, T, W, D). */
#define FOR_EACH_SUCC(S, v, x, BODY)                                                               \
    do {                                                                                           \
        int32_t cnt_;                                                                              \
        const int32_t *fs_ = ompdag_condag_node_fsucc((S)->g, v, &cnt_);                           \
        for (int32_t k_ = 0; k_ < cnt_; ++k_) {                                                    \
            int32_t x = fs_[k_];                                                                   \
            if ((S)->executed[x]) {                                                                \
                BODY;                                                                              \
            }                                                                                      \
        }                                                                                          \
        const int32_t *ws_ = ompdag_condag_node_wsucc((S)->g, v, &cnt_);                           \
        for (int32_t k_ = 0; k_ < cnt_; ++k_) {                                                    \
            int32_t x = ws_[k_];                                                                   \
            if ((S)->executed[x]) {                                                                \
                BODY;                                                                              \
            }                                                                                      \
        }                                                                                          \
        int32_t ct_ = ompdag_condag_node_creates((S)->g, v);                                       \
        if (ct_ >= 0) {                                                                            \
            int32_t x = ompdag_condag_task_source((S)->g, ct_);                                    \
            BODY;                                                                                  \
        }                                                                                          \
        for (int32_t k_ = (S)->doff[v]; k_ < (S)->doff[v + 1]; ++k_) {                             \
            int32_t x = (S)->dsucc[k_];                                                            \
            BODY;                                                                                  \
        }                                                                                          \
    } while (0)

/* Flow, predecessor counts, F-successors in the flow, task tree. */
static ompdag_status tsim_prepare(tsim *s, const int32_t *choice, ompdag_error *err)
{
    ompdag_status st = ompdag_flow_mark(s->g, choice, s->executed, err);
    if (st) return st;
    if ((st = ompdag_condag_flow_order_edges(s->g, s->executed, &s->doff, &s->dsucc, err)))
        return st;
    for (int32_t v = 0; v < s->n; ++v) {
        int32_t cnt;
        const int32_t *fs = ompdag_condag_node_fsucc(s->g, v, &cnt);
        /* a C node goes on with its chosen branch (an empty branch's C -> J
         * edge joins two executed nodes but is not taken) */
        s->fnext[v] = ompdag_condag_node_kind(s->g, v) == OMPDAG_KIND_C ? choice[v]
                      : cnt > 0 && s->executed[fs[0]]                   ? fs[0]
                                                                        : -1;
        if (!s->executed[v]) continue;
        ++s->res.executed;
        int64_t c = s->opt->exec ? s->opt->exec[v] : 0;
        if (c < 0 || c > ompdag_condag_node_wcet(s->g, v))
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                    "tied simulate: execution time of node %s is outside [0, WCET]",
                                    ompdag_condag_node_id(s->g, v));
        if (s->opt->delay && s->opt->delay[v] < 0)
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                    "tied simulate: the delay of node %s is negative",
                                    ompdag_condag_node_id(s->g, v));
        FOR_EACH_SUCC(s, v, x, ++s->pending[x]);
    }
    for (int32_t t = 0; t < s->nt; ++t) {
        int32_t cr = ompdag_condag_task_creator(s->g, t);
        s->parent[t] = cr < 0 ? -1 : ompdag_condag_node_task(s->g, cr);
        s->tied[t] = ompdag_condag_task_is_tied(s->g, t);
        s->owner[t] = -1, s->next[t] = ompdag_condag_task_source(s->g, t);
    }
    for (int32_t p = 0; p < s->m; ++p)
        s->run[p] = s->created[p] = s->suspended[p] = s->pinned[p] = -1;
    return OMPDAG_OK;
}

static int64_t exec_time(const tsim *s, int32_t v)
{
    return s->opt->exec ? s->opt->exec[v] : ompdag_condag_node_wcet(s->g, v);
}

static bool is_descendant(const tsim *s, int32_t x, int32_t y)
{
    for (int32_t t = s->parent[x]; t >= 0; t = s->parent[t])
        if (t == y) return true;
    return false;
}

/* TSC 1: may thread p start task x now? */
static bool may_start(const tsim *s, int32_t p, int32_t x)
{
    if (!s->tied[x] && !s->opt->strict) return true;
    const int32_t *stk = s->stk + (size_t)p * (size_t)(s->nt + 1);
    for (int32_t k = 0; k < s->depth[p]; ++k)
        if (!is_descendant(s, x, stk[k])) return false;
    return true;
}

static bool may_resume(const tsim *s, int32_t p, int32_t x)
{
    if (!s->tied[x]) return true;
    if (s->owner[x] != p) return false;
    const int32_t *stk = s->stk + (size_t)p * (size_t)(s->nt + 1);
    return !s->opt->stack || stk[s->depth[p] - 1] == x;
}

/* A task whose next node is ready, not running: start (unstarted) or resume. */
static bool task_ready(const tsim *s, int32_t x)
{
    if (s->state[x] != UNSTARTED && s->state[x] != SUSPENDED) return false;
    int32_t v = s->next[x];
    return s->executed[v] && s->pending[v] == 0 && s->eligible[v] <= s->now;
}

/* The next time a ready node's dispatch delay passes, INT64_MAX when none. */
static int64_t next_eligible(const tsim *s)
{
    int64_t t = INT64_MAX;
    for (int32_t x = 0; x < s->nt; ++x) {
        if (s->state[x] != UNSTARTED && s->state[x] != SUSPENDED) continue;
        int32_t v = s->next[x];
        if (s->executed[v] && s->pending[v] == 0 && s->eligible[v] > s->now && s->eligible[v] < t)
            t = s->eligible[v];
    }
    return t;
}

/* Legal actions of idle thread p into s->acts: task + 1 to start, -(task + 1)
 * to resume.  Returns their number. */
static int32_t legal_actions(const tsim *s, int32_t p)
{
    int32_t k = 0, root = s->pinned[p];
    if (root >= 0) { /* the root continues after its creation point, nothing else */
        if (task_ready(s, root)) s->acts[k++] = -(root + 1);
        return k;
    }
    for (int32_t x = 0; x < s->nt; ++x) {
        if (!task_ready(s, x)) continue;
        if (s->state[x] == UNSTARTED ? may_start(s, p, x) : may_resume(s, p, x))
            s->acts[k++] = s->state[x] == UNSTARTED ? x + 1 : -(x + 1);
    }
    return k;
}

static int32_t act_task(int32_t a)
{
    return (a > 0 ? a : -a) - 1;
}

/* The action the policy prefers among the k legal ones. */
static int32_t choose(tsim *s, int32_t p, int32_t k)
{
    ompdag_tied_policy pol = s->opt->policy;
    if (pol == OMPDAG_TIED_RANDOM) return s->acts[ompdag_rng_range(&s->rng, 0, k - 1)];
    int32_t hint = pol == OMPDAG_TIED_CONTINUE ? s->suspended[p] : s->created[p];
    for (int32_t i = 0; i < k; ++i)
        if (hint >= 0 && act_task(s->acts[i]) == hint) return s->acts[i];
    bool newest = pol != OMPDAG_TIED_CONTINUE, starts_first = pol != OMPDAG_TIED_CONTINUE;
    int32_t best = -1;
    int64_t best_key = 0;
    for (int32_t i = 0; i < k; ++i) {
        int32_t a = s->acts[i];
        int64_t when = s->seq[s->next[act_task(a)]];
        /* starts before resumes (or the reverse), then by readiness time */
        int64_t key = ((a > 0) == starts_first ? (int64_t)1 << 62 : 0) + (newest ? when : -when);
        if (best < 0 || key > best_key) best = a, best_key = key;
    }
    return best;
}

static void run_node(tsim *s, int32_t p, int32_t v)
{
    int64_t c = exec_time(s, v);
    s->pending[v] = -1;
    s->run[p] = v, s->fin[p] = s->now + c;
    s->res.busy += c;
}

static void apply(tsim *s, int32_t p, int32_t a)
{
    int32_t x = act_task(a);
    if (s->pinned[p] == x) s->pinned[p] = -1;
    if (a > 0 && s->tied[x]) {
        s->owner[x] = p;
        s->stk[(size_t)p * (size_t)(s->nt + 1) + (size_t)s->depth[p]++] = x;
    }
    s->state[x] = RUNNING;
    run_node(s, p, s->next[x]);
}

/* The order idle threads choose in: random, holders of tied tasks first, or by index. */
static void thread_order(tsim *s, int32_t *order)
{
    int32_t k = 0;
    if (s->opt->policy == OMPDAG_TIED_HOARD) {
        for (int32_t p = 0; p < s->m; ++p)
            if (s->depth[p]) order[k++] = p;
        for (int32_t p = 0; p < s->m; ++p)
            if (!s->depth[p]) order[k++] = p;
        return;
    }
    for (int32_t p = 0; p < s->m; ++p)
        order[p] = p;
    if (s->opt->policy == OMPDAG_TIED_RANDOM)
        for (int32_t p = s->m - 1; p > 0; --p) {
            int32_t q = (int32_t)ompdag_rng_range(&s->rng, 0, p), t = order[p];
            order[p] = order[q], order[q] = t;
        }
}

/* Every idle thread with a legal action takes one (greedy). */
static void decide(tsim *s, int32_t *order)
{
    thread_order(s, order);
    for (int32_t i = 0; i < s->m; ++i) {
        int32_t p = order[i];
        if (s->run[p] >= 0) continue;
        int32_t k = legal_actions(s, p);
        if (k) apply(s, p, choose(s, p, k));
        s->created[p] = s->suspended[p] = -1;
    }
}

/* After decide: no idle thread may have a legal action left. */
static ompdag_status check_greedy(tsim *s, bool *held, ompdag_error *err)
{
    bool ready = false;
    for (int32_t x = 0; x < s->nt && !ready; ++x)
        ready = task_ready(s, x);
    *held = false;
    for (int32_t p = 0; p < s->m; ++p) {
        if (s->run[p] >= 0) continue;
        if (legal_actions(s, p))
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "tied simulate: thread %d idle at %lld with a legal action",
                                    (int)p, (long long)s->now);
        if (ready) *held = true;
    }
    return OMPDAG_OK;
}

/* Node v completed on thread p: release successors, then run on, suspend or end. */
static void complete(tsim *s, int32_t p, int32_t v)
{
    s->run[p] = -1;
    ++s->res.events;
    FOR_EACH_SUCC(s, v, x, {
        if (--s->pending[x] == 0) {
            s->seq[x] = ++s->counter;
            s->eligible[x] = s->now + (s->opt->delay ? s->opt->delay[x] : 0);
        }
    });
    int32_t x = ompdag_condag_node_task(s->g, v), nx = s->fnext[v];
    ompdag_kind k = ompdag_condag_node_kind(s->g, v);
    if (nx >= 0 && k != OMPDAG_KIND_T && ompdag_condag_node_kind(s->g, nx) != OMPDAG_KIND_W) {
        run_node(s, p, nx); /* no scheduling point: the task runs on */
        return;
    }
    if (nx < 0) {
        s->state[x] = DONE;
        if (s->tied[x]) { /* leaves p's tied set, wherever it sits in it */
            int32_t *stk = s->stk + (size_t)p * (size_t)(s->nt + 1), j = 0;
            while (j < s->depth[p] && stk[j] != x)
                ++j;
            memmove(stk + j, stk + j + 1, (size_t)(s->depth[p] - j - 1) * sizeof *stk);
            --s->depth[p];
        }
        return;
    }
    s->state[x] = SUSPENDED, s->next[x] = nx, s->suspended[p] = x;
    if (k == OMPDAG_KIND_T) s->created[p] = ompdag_condag_node_creates(s->g, v);
    /* a W node next is a scheduling point of its own, where the root may wait */
    if (k == OMPDAG_KIND_T && s->parent[x] < 0 && s->opt->root_continues_at_creation &&
        ompdag_condag_node_kind(s->g, nx) != OMPDAG_KIND_W)
        s->pinned[p] = x;
}

static ompdag_status tsim_loop(tsim *s, ompdag_error *err)
{
    int32_t *order = malloc((size_t)s->m * sizeof *order);
    if (!order) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    int32_t root = ompdag_condag_root_task(s->g);
    apply(s, 0, root + 1); /* the implicit task runs the region's code on thread 0 */
    ompdag_status st = OMPDAG_OK;
    for (;;) {
        decide(s, order);
        bool held;
        if ((st = check_greedy(s, &held, err))) break;
        int64_t t = next_eligible(s);
        for (int32_t p = 0; p < s->m; ++p)
            if (s->run[p] >= 0 && s->fin[p] < t) t = s->fin[p];
        if (t == INT64_MAX) break;
        for (int32_t p = 0; p < s->m; ++p)
            if (held && s->run[p] < 0) s->res.held += t - s->now;
        s->now = t;
        if (t > s->res.makespan) s->res.makespan = t;
        for (int32_t p = 0; p < s->m; ++p)
            if (s->run[p] >= 0 && s->fin[p] == t) complete(s, p, s->run[p]);
    }
    free(order);
    if (!st && s->res.events != s->res.executed)
        st = ompdag_error_set(err, OMPDAG_ERR_INVALID,
                              "tied simulate: %lld of %d nodes ran, then no thread could act "
                              "(the progress lemma of docs/tied.md would be false)",
                              (long long)s->res.events, (int)s->res.executed);
    return st;
}

ompdag_status ompdag_tied_sim_run(const ompdag_condag *g, const int32_t *choice,
                                  const ompdag_tied_sim_options *opt, ompdag_tied_sim_result *out,
                                  ompdag_error *err)
{
    if (!g || !choice || !opt || !out || opt->m < 1 || !ompdag_condag_is_finalized(g))
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "tied simulate: bad arguments (finalized graph, m >= 1)");
    tsim s = {.g = g, .opt = opt, .m = opt->m};
    s.n = ompdag_condag_node_count(g), s.nt = ompdag_condag_task_count(g);
    ompdag_rng_seed(&s.rng, opt->seed);
    ompdag_status st =
        tsim_alloc(&s) ? OMPDAG_OK : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!st) st = tsim_prepare(&s, choice, err);
    if (!st) st = tsim_loop(&s, err);
    if (!st) *out = s.res;
    tsim_free(&s);
    return st;
}
