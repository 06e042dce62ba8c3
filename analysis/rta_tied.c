/*
 * analysis/rta_tied.c — a bound that holds for tied tasks (OpenMP 5.2 §12.9,
 * the task scheduling constraint, TSC), after Sun et al., "Real-time
 * scheduling and analysis of OpenMP task systems with tied tasks", RTSS 2017,
 * who show that under the TSC a tied workload may run fully sequentially.
 * The proofs are in docs/tied.md; report/sim_tied.c checks every rule.
 *
 * Graham's argument (Theorem 1 of seed 004) needs every idle thread to take
 * ready work.  Under the TSC a suspended tied task resumes only on its own
 * thread, and that thread may only start tied descendants of it.  The region's
 * root τ1 is the implicit task, which is always tied.  Three rules, from the
 * tightest that applies (docs/tied.md §3-§5):
 *
 *   NONE / NEVER_SUSPENDS  no explicit tied task holds a scheduling point
 *       before its end, and no T node of the root has an F-successor (the root
 *       never waits to resume): every idle thread may take every ready node,
 *       so Theorem 1 holds as is (Alg1 at m).
 *   ROOT  no explicit tied task suspends, but the root may: its ready
 *       continuation can wait while its own thread runs other work.  Graham's
 *       chain then may jump from any node y under root T node t to the root
 *       after t, so  m·R <= vol(e) + (m−1)·Lr  with Lr the longest path of the
 *       graph G_r = G + {y -> F-succ(t)} (linear, over every flow at once).
 *   ROOT_WAITS  ROOT when the caller knows that no root creation point
 *       suspends the root (libomp with at most 256 explicit tasks per flow,
 *       docs/tied.md §4b): the root then waits only at its W nodes, so the
 *       jump from y goes to the first root W nodes after t instead:
 *       G_r' = G + {y -> w : w a first W after t}, never longer than G_r.
 *   VOLUME  otherwise: while work remains some thread runs graph code, so
 *       R <= vol(e) and m·R <= m·max vol (Alg1 at m = 1).
 *
 * Every value is clamped to [Graham, m·vol]: never below Theorem 1, never
 * above the volume bound, which holds in every case.  Dispatch delays are
 * folded into the WCETs of every node for VOLUME (the volume covers every
 * instant); ROOT takes the smaller of the folded form and the chain-only one,
 * vol + the longest G_r path of (m−1)·WCET + m·D (docs/tied.md §4).
 */
#include <jansson.h>
#include <stdlib.h>

#include "ompdag/compact.h"
#include "ompdag/internal/condag_json.h"
#include "ompdag/rta.h"
#include "rta_internal.h"

const char *ompdag_tied_rule_name(ompdag_tied_rule rule)
{
    switch (rule) {
    case OMPDAG_TIED_NEVER_SUSPENDS:
        return "tied-never-suspends";
    case OMPDAG_TIED_VOLUME:
        return "tied-volume";
    case OMPDAG_TIED_ROOT:
        return "tied-root";
    case OMPDAG_TIED_ROOT_WAITS:
        return "tied-root-waits";
    default:
        return "untied";
    }
}

bool ompdag_condag_task_is_tied(const ompdag_condag *g, int32_t t)
{
    int32_t creator = ompdag_condag_task_creator(g, t);
    if (creator < 0) return true; /* the root: the region's implicit task */
    return json_is_false(json_object_get(ompdag_condag_extra(g, creator), "untied"));
}

/* What the rules need to know about the tasks: explicit tied tasks, and those
 * whose body holds a scheduling point before its end (a T or W node). */
typedef struct tied_scan {
    int32_t tied;            /* explicit tied tasks */
    int32_t tied_suspending; /* ... whose body has a T or W node */
    bool root_waits;         /* some T node of the root has an F-successor */
} tied_scan;

static ompdag_status scan_tasks(const ompdag_condag *g, tied_scan *out, ompdag_error *err)
{
    int32_t nt = ompdag_condag_task_count(g), root = ompdag_condag_root_task(g);
    uint8_t *tsp = calloc((size_t)nt + 1, 1);
    if (!tsp) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    *out = (tied_scan){0};
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        ompdag_kind k = ompdag_condag_node_kind(g, v);
        if (k != OMPDAG_KIND_T && k != OMPDAG_KIND_W) continue;
        int32_t t = ompdag_condag_node_task(g, v), cnt;
        tsp[t] = 1;
        ompdag_condag_node_fsucc(g, v, &cnt);
        if (t == root && k == OMPDAG_KIND_T && cnt > 0) out->root_waits = true;
    }
    for (int32_t t = 0; t < nt; ++t) {
        if (t == root || !ompdag_condag_task_is_tied(g, t)) continue;
        ++out->tied;
        if (tsp[t]) ++out->tied_suspending;
    }
    free(tsp);
    return OMPDAG_OK;
}

/* Under root_creation_never_suspends (docs/tied.md §4b) the root can wait to
 * resume only before a W node that some earlier root T node's task may still
 * hold up: true when a root W node is reachable from a root T node along
 * root F-edges.  One backward pass over the root in reverse topological
 * order (w_after[p]: a W node follows p).  Compact graphs answer true: a
 * loop's back edge is not an F-edge, so a W in the next iteration would be
 * missed; their G_r' is computed on the unfolding anyway. */
static ompdag_status root_may_wait_at_w(const ompdag_condag *g, bool *out, ompdag_error *err)
{
    *out = true;
    if (g->compact) return OMPDAG_OK;
    int32_t n = ompdag_condag_node_count(g), root = ompdag_condag_root_task(g);
    uint8_t *w_after = calloc((size_t)n + 1, 1);
    if (!w_after) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    const int32_t *topo = ompdag_condag_topo_order(g);
    *out = false;
    for (int32_t i = n - 1; i >= 0; --i) {
        int32_t p = topo[i], cnt;
        if (ompdag_condag_node_task(g, p) != root) continue;
        const int32_t *s = ompdag_condag_node_fsucc(g, p, &cnt);
        for (int32_t k = 0; k < cnt; ++k)
            if (ompdag_condag_node_kind(g, s[k]) == OMPDAG_KIND_W || w_after[s[k]]) w_after[p] = 1;
        if (w_after[p] && ompdag_condag_node_kind(g, p) == OMPDAG_KIND_T) *out = true;
    }
    free(w_after);
    return OMPDAG_OK;
}

static ompdag_status exact_bound(const ompdag_condag *g, const ompdag_rta_options *opt, int32_t m,
                                 int64_t *bound_times_m, ompdag_error *err)
{
    ompdag_rta_options o = *opt;
    o.m = m;
    o.bound_only = true;
    if (!o.blocking_m) o.blocking_m = opt->m; /* the other threads still spin (docs/mutex.md) */
    /* At m = 1 the migration overhead stays: the volume argument counts every
     * busy instant, and an untied task that migrates on m threads spends O.
     * It also charges every node's dispatch delay, not only the chain's. */
    if (m == 1) o.fold_delays = true;
    ompdag_rta_result *res;
    ompdag_status st = ompdag_rta_run(g, OMPDAG_ALG_EXACT, &o, &res, err);
    if (st) return st;
    *bound_times_m = ompdag_rta_result_bound_times_m(res);
    ompdag_rta_result_destroy(res);
    return OMPDAG_OK;
}

/* ---- rule ROOT: the longest path of G_r ------------------------------------
 * G_r adds, for each T node t of the root with F-successor s, an edge y -> s
 * from every node y of the tasks t's child and its descendants (the nodes
 * "under t").  Every non-root node lies under exactly one root T node, so
 * G_r has at most n extra edges; docs/tied.md §4 shows it is acyclic.
 *
 * Rule ROOT_WAITS (docs/tied.md §4b) adds instead y -> w for every root W
 * node w that is *first* after t: reachable from t along root F-edges
 * without passing another W node.  With branches t may have many first W's,
 * and many T nodes share them, so listing the edges could be quadratic.
 * Instead every root node p gets a virtual node p' of weight 0 ("the first
 * W's after p"): p' -> s for each F-successor s of p that is a W node, and
 * p' -> s' for every other one; y goes to under(y)'.  A path through the
 * virtual nodes reaches exactly the first W's, so the longest path is the
 * same as with the explicit edges, and G_r' has at most n + F-edges more
 * edges.  Virtual node of p is n + p. */

typedef struct root_graph {
    const ompdag_condag *g;
    int32_t n;             /* real nodes */
    int32_t total;         /* nodes of G_r: n, or 2n with ROOT_WAITS's virtual nodes */
    bool waits;            /* ROOT_WAITS: jumps go to the first W's, not to F-succ(t) */
    int32_t *under;        /* root T node a node lies under, -1 for root nodes */
    int32_t *indeg;        /* predecessors over F, T, W, D and G_r's edges */
    int32_t *doff, *dsucc; /* D-edges of every flow (union), CSR */
    int32_t *queue;
    int64_t *len_end;   /* longest path of G_r ending at the node, its WCET + D included */
    int64_t *chain_end; /* the same with weights (m−1)·WCET + m·D (chain-only delays) */
    int32_t m;
} root_graph;

/* Both longest paths of G_r: folded (Σ WCET + D) and chain-only
 * (Σ (m−1)·WCET + m·D; docs/tied.md §4, "dispatch delays"). */
typedef struct root_paths {
    int64_t folded, chain;
} root_paths;

static void root_graph_free(root_graph *r)
{
    free(r->under), free(r->indeg), free(r->doff), free(r->dsucc), free(r->queue);
    free(r->len_end);
    free(r->chain_end);
}

/* The extra edge of real node y: F-succ(under[y]) for ROOT, the virtual
 * node of under[y] for ROOT_WAITS; -1 for root nodes and a T node that ends
 * the root (nothing of the root after it can wait for y). */
static int32_t root_edge(const root_graph *r, int32_t y)
{
    if (r->under[y] < 0) return -1;
    int32_t cnt;
    const int32_t *s = ompdag_condag_node_fsucc(r->g, r->under[y], &cnt);
    if (cnt == 0) return -1;
    return r->waits ? r->n + r->under[y] : s[0];
}

/* ROOT_WAITS: where the first-W walk from root node p goes after F-successor
 * s: s itself when it is a W node, else on to s's virtual node. */
static int32_t first_w_step(const root_graph *r, int32_t s)
{
    return ompdag_condag_node_kind(r->g, s) == OMPDAG_KIND_W ? s : r->n + s;
}

/* Runs BODY with x bound to every successor of v in G_r (union over flows);
 * v >= n is a virtual node (ROOT_WAITS), whose successors follow its root
 * node's F-edges (non-root virtual nodes have none). */
#define FOR_EACH_RSUCC(R, v, x, BODY)                                                              \
    do {                                                                                           \
        int32_t cnt_;                                                                              \
        if ((v) >= (R)->n) {                                                                       \
            int32_t p_ = (v) - (R)->n;                                                             \
            const int32_t *ps_ = ompdag_condag_node_fsucc((R)->g, p_, &cnt_);                      \
            for (int32_t k_ = 0; k_ < cnt_ && (R)->under[p_] < 0; ++k_) {                          \
                int32_t x = first_w_step(R, ps_[k_]);                                              \
                BODY;                                                                              \
            }                                                                                      \
            break;                                                                                 \
        }                                                                                          \
        const int32_t *fs_ = ompdag_condag_node_fsucc((R)->g, v, &cnt_);                           \
        for (int32_t k_ = 0; k_ < cnt_; ++k_) {                                                    \
            int32_t x = fs_[k_];                                                                   \
            BODY;                                                                                  \
        }                                                                                          \
        const int32_t *ws_ = ompdag_condag_node_wsucc((R)->g, v, &cnt_);                           \
        for (int32_t k_ = 0; k_ < cnt_; ++k_) {                                                    \
            int32_t x = ws_[k_];                                                                   \
            BODY;                                                                                  \
        }                                                                                          \
        int32_t ct_ = ompdag_condag_node_creates((R)->g, v);                                       \
        if (ct_ >= 0) {                                                                            \
            int32_t x = ompdag_condag_task_source((R)->g, ct_);                                    \
            BODY;                                                                                  \
        }                                                                                          \
        for (int32_t k_ = (R)->doff[v]; k_ < (R)->doff[(v) + 1]; ++k_) {                           \
            int32_t x = (R)->dsucc[k_];                                                            \
            BODY;                                                                                  \
        }                                                                                          \
        int32_t re_ = root_edge(R, v);                                                             \
        if (re_ >= 0) {                                                                            \
            int32_t x = re_;                                                                       \
            BODY;                                                                                  \
        }                                                                                          \
    } while (0)

/* under[]: in topological order a T node precedes its child's nodes, so the
 * creator's task is labelled before the child is. */
static void label_under(root_graph *r)
{
    int32_t root = ompdag_condag_root_task(r->g);
    int32_t nt = ompdag_condag_task_count(r->g);
    int32_t *task_under = r->queue; /* scratch, n + 1 >= tasks */
    for (int32_t t = 0; t < nt; ++t)
        task_under[t] = -1;
    const int32_t *topo = ompdag_condag_topo_order(r->g);
    for (int32_t i = 0; i < r->n; ++i) {
        int32_t v = topo[i], t = ompdag_condag_node_task(r->g, v);
        int32_t ct = ompdag_condag_node_creates(r->g, v);
        if (ct >= 0) task_under[ct] = t == root ? v : task_under[t];
    }
    for (int32_t v = 0; v < r->n; ++v)
        r->under[v] = task_under[ompdag_condag_node_task(r->g, v)];
}

/* Union D-edges, with the waits of partial taskwaits (docs/depend.md), as a
 * CSR indexed by node. */
static ompdag_status depend_csr(root_graph *r, ompdag_error *err)
{
    int32_t *from = NULL, *to = NULL;
    int64_t cnt = 0;
    ompdag_status st = ompdag_condag_order_edges(r->g, &from, &to, &cnt, err);
    if (st) return st;
    r->doff = calloc((size_t)r->n + 1, sizeof *r->doff);
    r->dsucc = malloc(((size_t)cnt + 1) * sizeof *r->dsucc);
    if (!r->doff || !r->dsucc) {
        free(from), free(to);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    for (int64_t k = 0; k < cnt; ++k)
        ++r->doff[from[k] + 1];
    for (int32_t v = 0; v < r->n; ++v)
        r->doff[v + 1] += r->doff[v];
    int32_t *fill = r->queue; /* scratch */
    for (int32_t v = 0; v < r->n; ++v)
        fill[v] = r->doff[v];
    for (int64_t k = 0; k < cnt; ++k)
        r->dsucc[fill[from[k]]++] = to[k];
    free(from), free(to);
    return OMPDAG_OK;
}

/* The weights of v on G_r's two paths: WCET + D, and (m−1)·WCET + m·D;
 * false on overflow. */
static bool root_weights(const root_graph *r, int32_t v, int64_t *folded, int64_t *chain)
{
    if (v >= r->n) { /* a virtual node of ROOT_WAITS */
        *folded = *chain = 0;
        return true;
    }
    int64_t c = ompdag_condag_node_wcet(r->g, v), d = ompdag_condag_node_delay(r->g, v), a, b;
    return !__builtin_add_overflow(c, d, folded) &&
           !__builtin_mul_overflow(c, (int64_t)(r->m - 1), &a) &&
           !__builtin_mul_overflow(d, (int64_t)r->m, &b) && !__builtin_add_overflow(a, b, chain);
}

/* Lr: Kahn's order over G_r, longest paths ending at each node. */
static ompdag_status longest_root_path(root_graph *r, root_paths *lr, ompdag_error *err)
{
    for (int32_t v = 0; v < r->total; ++v)
        FOR_EACH_RSUCC(r, v, x, ++r->indeg[x]);
    int32_t head = 0, tail = 0;
    for (int32_t v = 0; v < r->total; ++v)
        if (!r->indeg[v]) r->queue[tail++] = v;
    root_paths best = {0, 0};
    while (head < tail) {
        int32_t v = r->queue[head++];
        int64_t wf, wc, here, chain;
        if (!root_weights(r, v, &wf, &wc) || __builtin_add_overflow(r->len_end[v], wf, &here) ||
            __builtin_add_overflow(r->chain_end[v], wc, &chain))
            return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW, "tied bound: a path overflows int64");
        r->len_end[v] = here, r->chain_end[v] = chain;
        if (here > best.folded) best.folded = here;
        if (chain > best.chain) best.chain = chain;
        FOR_EACH_RSUCC(r, v, x, {
            if (here > r->len_end[x]) r->len_end[x] = here;
            if (chain > r->chain_end[x]) r->chain_end[x] = chain;
            if (--r->indeg[x] == 0) r->queue[tail++] = x;
        });
    }
    if (tail != r->total) /* docs/tied.md §4, §4b: cannot happen on a valid graph */
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "tied bound: the root-tied graph has a cycle (%d of %d nodes "
                                "ordered); please report this graph",
                                (int)tail, (int)r->total);
    *lr = best;
    return OMPDAG_OK;
}

/* Both paths of a plain graph at m; `waits` builds G_r' (ROOT_WAITS). */
static ompdag_status root_paths_of(const ompdag_condag *g, int32_t m, bool waits, root_paths *lr,
                                   ompdag_error *err)
{
    root_graph r = {.g = g, .n = ompdag_condag_node_count(g), .m = m, .waits = waits};
    if (waits && r.n > INT32_MAX / 2)
        return ompdag_error_set(err, OMPDAG_ERR_LIMIT, "tied bound: %d nodes are too many",
                                (int)r.n);
    r.total = waits ? 2 * r.n : r.n;
    size_t n1 = (size_t)r.total + (size_t)ompdag_condag_task_count(g) + 1;
    r.under = malloc(n1 * sizeof *r.under);
    r.indeg = calloc(n1, sizeof *r.indeg);
    r.queue = malloc(n1 * sizeof *r.queue);
    r.len_end = calloc(n1, sizeof *r.len_end);
    r.chain_end = calloc(n1, sizeof *r.chain_end);
    ompdag_status st = OMPDAG_OK;
    if (!r.under || !r.indeg || !r.queue || !r.len_end || !r.chain_end)
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!st) label_under(&r);
    if (!st) st = depend_csr(&r, err);
    if (!st) st = longest_root_path(&r, lr, err);
    root_graph_free(&r);
    return st;
}

ompdag_status ompdag_rta_tied_root_path(const ompdag_condag *g, int64_t *lr, ompdag_error *err)
{
    if (!g || !lr || !ompdag_condag_is_finalized(g))
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "tied bound: bad arguments");
    if (g->compact)
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                "tied bound: the root-tied path is not defined on compact graphs");
    root_paths p;
    ompdag_status st = root_paths_of(g, 2, false, &p, err);
    if (!st) *lr = p.folded;
    return st;
}

/* Compact graphs: G_r's extra edges join task instances, so Lr is computed
 * on the unfolding when it has at most this many nodes (recursion at the
 * inputs BOTS runs unfolds to a few thousand); past it, VOLUME stands. */
enum { TIED_UNFOLD_LIMIT = 1000000 };

/* Lr of g at m, on its unfolding for a compact graph; *have is false when
 * the unfolding is too large (the caller keeps VOLUME). */
static ompdag_status root_path_any(const ompdag_condag *g, int32_t m, bool waits, root_paths *lr,
                                   bool *have, ompdag_error *err)
{
    *have = false;
    if (!g->compact) {
        ompdag_status st = root_paths_of(g, m, waits, lr, err);
        *have = st == OMPDAG_OK;
        return st;
    }
    if (ompdag_compact_expanded_node_count(g) > TIED_UNFOLD_LIMIT) return OMPDAG_OK;
    ompdag_condag *x = NULL;
    ompdag_status st = ompdag_compact_expand(g, TIED_UNFOLD_LIMIT, &x, err);
    if (!st) st = root_paths_of(x, m, waits, lr, err);
    ompdag_condag_destroy(x);
    *have = st == OMPDAG_OK;
    return st;
}

/* max_e vol(e) without dispatch delays: Alg1 at m = 1 on g with its delays
 * left out (a shallow copy: the analysis only reads the graph). */
static ompdag_status bare_volume(const ompdag_condag *g, const ompdag_rta_options *opt,
                                 int64_t *vol, ompdag_error *err)
{
    ompdag_condag bare = *g;
    bare.delay = NULL;
    bare.total_delay = 0;
    return exact_bound(&bare, opt, 1, vol, err);
}

/* vol + (m−1)·Lr, checked. */
static ompdag_status root_rule_value(int64_t vol, int64_t lr, int32_t m, int64_t *out,
                                     ompdag_error *err)
{
    int64_t t;
    if (__builtin_mul_overflow(lr, (int64_t)(m - 1), &t) || __builtin_add_overflow(t, vol, out))
        return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                "tied bound: vol + (m-1)·Lr overflows int64 (m = %d)", (int)m);
    return OMPDAG_OK;
}

/* The rules in order; `all_untied` reads every explicit task as untied. */
static ompdag_status tied_bound(const ompdag_condag *g, const ompdag_rta_options *opt,
                                bool all_untied, int64_t *bound_times_m, ompdag_tied_rule *rule,
                                ompdag_error *err)
{
    if (!g || !opt || !bound_times_m || !rule || opt->m < 1)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "tied bound: bad arguments");
    int64_t untied;
    ompdag_status st = exact_bound(g, opt, opt->m, &untied, err);
    if (st) return st;
    tied_scan sc = {0};
    if ((st = scan_tasks(g, &sc, err))) return st;
    if (all_untied) sc.tied = sc.tied_suspending = 0;
    /* §4b: when no creation point suspends the root, it waits to resume
     * only at a W node after one of its T nodes; with none, §3 holds */
    bool waits = opt->root_creation_never_suspends;
    if (waits && sc.root_waits && (st = root_may_wait_at_w(g, &sc.root_waits, err))) return st;
    if (!sc.tied_suspending && !sc.root_waits) { /* §3: Theorem 1 as is */
        *rule = sc.tied ? OMPDAG_TIED_NEVER_SUSPENDS : OMPDAG_TIED_NONE;
        *bound_times_m = untied;
        return OMPDAG_OK;
    }
    int64_t vol, mvol;
    if ((st = exact_bound(g, opt, 1, &vol, err))) return st;
    if (__builtin_mul_overflow(vol, (int64_t)opt->m, &mvol))
        return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                "tied bound: m·vol overflows int64 (m = %d)", (int)opt->m);
    *rule = OMPDAG_TIED_VOLUME;
    *bound_times_m = mvol;
    /* §4 (§4b) needs the root to be the only task that can wait to resume; it is
     * not derived with migration overhead (the chain would have to carry
     * it), where VOLUME stands; compact graphs are unfolded for Lr.  Nor with
     * locks: Lr is a path of WCETs without the blocking term (docs/mutex.md). */
    if (!sc.tied_suspending && opt->migration_overhead == 0 && !ompdag_condag_has_locks(g)) {
        root_paths lr = {0, 0};
        int64_t r = 0, bare = 0, chain;
        bool have = false;
        if ((st = root_path_any(g, opt->m, waits, &lr, &have, err))) return st;
        if (have && (st = root_rule_value(vol, lr.folded, opt->m, &r, err))) return st;
        /* docs/tied.md §4 with the delays on the chain only: vol without
         * delays + the chain-weighted Lr; both forms hold, take the finer */
        if (have && (st = bare_volume(g, opt, &bare, err))) return st;
        if (have && __builtin_add_overflow(bare, lr.chain, &chain))
            return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                    "tied bound: vol + Lr overflows int64 (m = %d)", (int)opt->m);
        if (have && (opt->delays_on_chain_only || chain < r)) r = chain;
        if (have && r <= mvol) /* the finer one */
            *rule = waits ? OMPDAG_TIED_ROOT_WAITS : OMPDAG_TIED_ROOT, *bound_times_m = r;
    }
    /* Theorem 1 is a lower bound of both (vol ≥ len, Lr ≥ len): clamp. */
    if (*bound_times_m < untied) *bound_times_m = untied;
    return OMPDAG_OK;
}

ompdag_status ompdag_rta_tied_bound(const ompdag_condag *g, const ompdag_rta_options *opt,
                                    int64_t *bound_times_m, ompdag_tied_rule *rule,
                                    ompdag_error *err)
{
    return tied_bound(g, opt, false, bound_times_m, rule, err);
}

ompdag_status ompdag_rta_tied_bound_if_untied(const ompdag_condag *g, const ompdag_rta_options *opt,
                                              int64_t *bound_times_m, ompdag_tied_rule *rule,
                                              ompdag_error *err)
{
    return tied_bound(g, opt, true, bound_times_m, rule, err);
}
