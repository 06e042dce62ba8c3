/*
 * analysis/rta_flow_eval.c — evaluates one execution flow directly from the
 * definitions of docs/condag.md §1–2, independently of the bound
 * recurrences: which nodes run, their volume, and the longest path among them
 * over F-, T- and W-edges, plus the D-edges that §6 Rule 3 derives for this
 * flow (condag_depend.c).  The oracle (enumerate) and the witness checks in
 * the tests both stand on this file, so it uses no value from rta_exact.c.
 */
#include <stdlib.h>
#include <string.h>

#include "rta_internal.h"

static bool is_fsucc(const ompdag_condag *g, int32_t v, int32_t s)
{
    for (int32_t i = g->fsucc_off[v]; i < g->fsucc_off[v + 1]; ++i)
        if (g->fsucc[i] == s) return true;
    return false;
}

int32_t rta_mark_executed(const ompdag_condag *g, const int32_t *choice, uint8_t *executed)
{
    memset(executed, 0, (size_t)g->n);
    executed[g->task_source[g->root]] = 1;
    for (int32_t i = 0; i < g->n; ++i) {
        int32_t v = g->topo[i];
        if (!executed[v]) continue;
        if (g->kind[v] == OMPDAG_KIND_C) {
            if (!is_fsucc(g, v, choice[v])) return v;
            executed[choice[v]] = 1;
            continue;
        }
        for (int32_t k = g->fsucc_off[v]; k < g->fsucc_off[v + 1]; ++k)
            executed[g->fsucc[k]] = 1;
        if (g->creates[v] >= 0) executed[g->task_source[g->creates[v]]] = 1;
    }
    return -1;
}

bool rta_scratch_init(rta_scratch *s, const ompdag_condag *g)
{
    s->dist = malloc(sizeof *s->dist * (size_t)g->n);
    s->plen = malloc(sizeof *s->plen * (size_t)g->n);
    s->pred = malloc(sizeof *s->pred * (size_t)g->n);
    bool ok = condag_dflow_init(&s->dflow, g);
    return s->dist && s->plen && s->pred && ok;
}

void rta_scratch_free(rta_scratch *s)
{
    free(s->dist);
    free(s->plen);
    free(s->pred);
    condag_dflow_free(&s->dflow);
}

/* Paths compare by their weight d (what being on the path adds to the
 * volume), then by their length l, so that without delays at m = 1 (every
 * weight 0) the reported path is still a longest one. */
static void relax(const uint8_t *executed, rta_scratch *s, int32_t from, int32_t to, int64_t d,
                  int64_t l)
{
    if (executed[to] &&
        (s->pred[to] < 0 || d > s->dist[to] || (d == s->dist[to] && l > s->plen[to]))) {
        s->dist[to] = d;
        s->plen[to] = l;
        s->pred[to] = from;
    }
}

bool rta_measure_flow(const ompdag_condag *g, const ompdag_rta_options *opt,
                      const uint8_t *executed, rta_scratch *s, ompdag_flow_eval *out,
                      int32_t *path_out, int32_t *path_len)
{
    *out = (ompdag_flow_eval){0};
    memset(s->dist, 0, sizeof *s->dist * (size_t)g->n);
    memset(s->plen, 0, sizeof *s->plen * (size_t)g->n);
    memset(s->pred, 0xff, sizeof *s->pred * (size_t)g->n);
    int32_t end = g->task_source[g->root];
    int64_t best = -1, best_len = -1;
    const condag_dflow *D = &s->dflow;
    /* §6 Rule 3 and the partial taskwaits; allocates only past 2·clauses edges */
    if (!condag_dflow_derive(g, executed, &s->dflow)) return false;
    /* docs/overheads.md: m·R <= vol(e) + max over paths p of Σ_{v∈p} x(v),
     * x(v) = (m−1)·WCET + m·D (chain-only delays), or (m−1)·(WCET + D) when
     * folded; without delays the heaviest path is the longest one. */
    for (int32_t i = 0; i < g->n; ++i) {
        int32_t v = g->topo[i];
        if (!executed[v]) continue;
        int64_t d = s->dist[v] + rta_path_extra(g, opt, v); /* heaviest path ending at v */
        int64_t l = s->plen[v] + rta_wcet(g, opt, v) + rta_delay(g, v);
        out->vol += rta_c(g, opt, v);
        out->executed++;
        out->migrations += rta_penalty(g, opt, v) != 0;
        if (d > best || (d == best && l > best_len)) best = d, best_len = l, end = v;
        for (int32_t k = g->fsucc_off[v]; k < g->fsucc_off[v + 1]; ++k)
            relax(executed, s, v, g->fsucc[k], d, l);
        for (int32_t k = g->wsucc_off[v]; k < g->wsucc_off[v + 1]; ++k)
            relax(executed, s, v, g->wsucc[k], d, l);
        if (g->creates[v] >= 0) relax(executed, s, v, g->task_source[g->creates[v]], d, l);
        for (int32_t k = D->off[v]; k < D->off[v + 1]; ++k)
            relax(executed, s, v, D->succ[k], d, l);
    }
    out->len = best_len;
    out->bound_times_m =
        out->vol + best + (int64_t)opt->m * opt->migration_overhead * out->migrations;
    if (!path_out) return true;
    int32_t k = 0;
    for (int32_t v = end; v >= 0; v = s->pred[v])
        path_out[k++] = v;
    for (int32_t a = 0, b = k - 1; a < b; ++a, --b) {
        int32_t tmp = path_out[a];
        path_out[a] = path_out[b];
        path_out[b] = tmp;
    }
    *path_len = k;
    return true;
}

ompdag_status ompdag_flow_evaluate(const ompdag_condag *g, const int32_t *choice,
                                   const ompdag_rta_options *opt, ompdag_flow_eval *out,
                                   int32_t **path, int32_t *path_len, ompdag_error *err)
{
    ompdag_status st = rta_check_inputs(g, opt, err);
    if (st) return st;
    if (g->compact)
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                "a flow of a compact graph is evaluated on its unfolding "
                                "(`ompdag expand`)");
    uint8_t *executed = malloc((size_t)g->n);
    int32_t *p = malloc(sizeof *p * (size_t)g->n);
    rta_scratch s;
    bool ok = rta_scratch_init(&s, g) && executed && p;
    if (!ok) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    } else {
        st = ompdag_flow_mark(g, choice, executed, err);
        if (!st) {
            int32_t k = 0;
            if (!rta_measure_flow(g, opt, executed, &s, out, p, &k))
                st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
            if (!st && path) {
                *path = p, p = NULL;
                *path_len = k;
            }
        }
    }
    rta_scratch_free(&s);
    free(executed);
    free(p);
    return st;
}

ompdag_status ompdag_flow_mark(const ompdag_condag *g, const int32_t *choice, uint8_t *executed,
                               ompdag_error *err)
{
    if (g->compact) /* one choice per node cannot describe every instance */
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                "a flow of a compact graph is marked on its unfolding "
                                "(`ompdag expand`)");
    int32_t bad = rta_mark_executed(g, choice, executed);
    if (bad >= 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "C node '%s' runs in this flow but has no valid choice",
                                node_name(g, bad));
    return OMPDAG_OK;
}

/* ---- many flows of one graph: cost per flow follows the flow ---------------------
 * `simulate` evaluates every flow of a graph; with ompdag_flow_evaluate each
 * call allocated, cleared and scanned the whole graph, so a 100,000-way
 * branch (100,000 flows of 3 nodes) was quadratic (issue 26 item 8).  The
 * evaluator allocates once, marks a flow by walking from the root, orders its
 * nodes by their topological position and resets only what it touched.  The
 * same definitions as rta_measure_flow; graphs with depend clauses take that
 * whole-graph path (their D-edges are derived per flow over every node). */
struct ompdag_flow_evaluator {
    const ompdag_condag *g;
    ompdag_rta_options opt;
    rta_scratch s;
    uint8_t *executed;
    int32_t *pos;  /* topological position of each node */
    int32_t *list; /* the flow's nodes */
    int32_t *cpos; /* per C node, where its last choice sat among its F-successors */
};

void ompdag_flow_evaluator_destroy(ompdag_flow_evaluator *ev)
{
    if (!ev) return;
    rta_scratch_free(&ev->s);
    free(ev->executed), free(ev->pos), free(ev->list), free(ev->cpos);
    free(ev);
}

ompdag_status ompdag_flow_evaluator_create(const ompdag_condag *g, const ompdag_rta_options *opt,
                                           ompdag_flow_evaluator **out, ompdag_error *err)
{
    ompdag_status st = rta_check_inputs(g, opt, err);
    if (st) return st;
    if (g->compact)
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                "a flow of a compact graph is evaluated on its unfolding "
                                "(`ompdag expand`)");
    ompdag_flow_evaluator *ev = calloc(1, sizeof *ev);
    size_t n = (size_t)(g->n ? g->n : 1);
    bool ok = ev && rta_scratch_init(&ev->s, g);
    if (ev) {
        ev->g = g, ev->opt = *opt;
        ev->executed = calloc(n, 1);
        ev->pos = malloc(n * sizeof *ev->pos);
        ev->list = malloc(n * sizeof *ev->list);
        ev->cpos = calloc(n, sizeof *ev->cpos);
    }
    if (!ok || !ev->executed || !ev->pos || !ev->list || !ev->cpos) {
        ompdag_flow_evaluator_destroy(ev);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    for (int32_t i = 0; i < g->n; ++i)
        ev->pos[g->topo[i]] = i;
    memset(ev->s.pred, 0xff, sizeof *ev->s.pred * n); /* the resting state run() restores */
    *out = ev;
    return OMPDAG_OK;
}

/* Is c an F-successor of C node v?  Flows are usually stepped through a
 * branch's successors in order (simulate), so the last position and the next
 * one are tried before a scan: a k-way branch costs O(1) per flow, not O(k). */
static bool is_choice(ompdag_flow_evaluator *ev, int32_t v, int32_t c)
{
    const ompdag_condag *g = ev->g;
    int32_t off = g->fsucc_off[v], cnt = g->fsucc_off[v + 1] - off, h = ev->cpos[v];
    for (int32_t k = h; k < h + 2 && k < cnt; ++k)
        if (g->fsucc[off + k] == c) return ev->cpos[v] = k, true;
    for (int32_t k = 0; k < cnt; ++k)
        if (g->fsucc[off + k] == c) return ev->cpos[v] = k, true;
    return false;
}

/* Marks the flow from the root (F-successors, a C node's choice, created
 * tasks' sources) into executed[] and list[]; the bad C node, or -1. */
static int32_t walk_flow(ompdag_flow_evaluator *ev, const int32_t *choice, int32_t *count)
{
    const ompdag_condag *g = ev->g;
    int32_t n = 0, bad = -1, root = g->task_source[g->root];
    ev->executed[root] = 1, ev->list[n++] = root;
    for (int32_t i = 0; i < n && bad < 0; ++i) {
        int32_t v = ev->list[i];
#define OMPDAG_VISIT(x)                                                                            \
    do {                                                                                           \
        int32_t x_ = (x);                                                                          \
        if (!ev->executed[x_]) ev->executed[x_] = 1, ev->list[n++] = x_;                           \
    } while (0)
        if (g->kind[v] == OMPDAG_KIND_C) {
            if (!is_choice(ev, v, choice[v]))
                bad = v;
            else
                OMPDAG_VISIT(choice[v]);
            continue;
        }
        for (int32_t k = g->fsucc_off[v]; k < g->fsucc_off[v + 1]; ++k)
            OMPDAG_VISIT(g->fsucc[k]);
        if (g->creates[v] >= 0) OMPDAG_VISIT(g->task_source[g->creates[v]]);
#undef OMPDAG_VISIT
    }
    *count = n;
    return bad;
}

static int cmp_pos(const void *a, const void *b, void *pos)
{
    int32_t x = ((const int32_t *)pos)[*(const int32_t *)a];
    int32_t y = ((const int32_t *)pos)[*(const int32_t *)b];
    return (x > y) - (x < y);
}

/* rta_measure_flow over the listed nodes only (no D-edges: no depend). */
static void measure_listed(ompdag_flow_evaluator *ev, const int32_t *choice, int32_t cnt,
                           ompdag_flow_eval *out)
{
    const ompdag_condag *g = ev->g;
    const ompdag_rta_options *opt = &ev->opt;
    rta_scratch *s = &ev->s;
    *out = (ompdag_flow_eval){0};
    int64_t best = -1, best_len = -1;
    for (int32_t i = 0; i < cnt; ++i) {
        int32_t v = ev->list[i];
        int64_t d = s->dist[v] + rta_path_extra(g, opt, v);
        int64_t l = s->plen[v] + rta_wcet(g, opt, v) + rta_delay(g, v);
        out->vol += rta_c(g, opt, v);
        out->executed++;
        out->migrations += rta_penalty(g, opt, v) != 0;
        if (d > best || (d == best && l > best_len)) best = d, best_len = l;
        if (g->kind[v] == OMPDAG_KIND_C) /* its one executed F-successor: not a scan of k */
            relax(ev->executed, s, v, choice[v], d, l);
        else
            for (int32_t k = g->fsucc_off[v]; k < g->fsucc_off[v + 1]; ++k)
                relax(ev->executed, s, v, g->fsucc[k], d, l);
        for (int32_t k = g->wsucc_off[v]; k < g->wsucc_off[v + 1]; ++k)
            relax(ev->executed, s, v, g->wsucc[k], d, l);
        if (g->creates[v] >= 0) relax(ev->executed, s, v, g->task_source[g->creates[v]], d, l);
    }
    out->len = best_len;
    out->bound_times_m =
        out->vol + best + (int64_t)opt->m * opt->migration_overhead * out->migrations;
}

ompdag_status ompdag_flow_evaluator_run(ompdag_flow_evaluator *ev, const int32_t *choice,
                                        ompdag_flow_eval *out, ompdag_error *err)
{
    const ompdag_condag *g = ev->g;
    if (ompdag_condag_has_depend(g)) { /* D-edges: the whole-graph definition */
        ompdag_status st = ompdag_flow_mark(g, choice, ev->executed, err);
        if (!st && !rta_measure_flow(g, &ev->opt, ev->executed, &ev->s, out, NULL, NULL))
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        memset(ev->executed, 0, (size_t)g->n);
        memset(ev->s.pred, 0xff, sizeof *ev->s.pred * (size_t)g->n);
        return st;
    }
    int32_t cnt;
    int32_t bad = walk_flow(ev, choice, &cnt);
    if (bad < 0) {
        qsort_r(ev->list, (size_t)cnt, sizeof *ev->list, cmp_pos, ev->pos);
        for (int32_t i = 0; i < cnt; ++i) {
            int32_t v = ev->list[i];
            ev->s.dist[v] = 0, ev->s.plen[v] = 0, ev->s.pred[v] = -1;
        }
        measure_listed(ev, choice, cnt, out);
    }
    for (int32_t i = 0; i < cnt; ++i) /* back to the resting state */
        ev->executed[ev->list[i]] = 0, ev->s.pred[ev->list[i]] = -1;
    if (bad >= 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "C node '%s' runs in this flow but has no valid choice",
                                node_name(g, bad));
    return OMPDAG_OK;
}

/* The worst flow of a result as executed[] (include/ompdag/rta.h): kept
 * beside ompdag_flow_mark, which it calls, so that the result object
 * (rta_shared.c) depends on no algorithm. */
ompdag_status ompdag_rta_result_mark_flow(const ompdag_rta_result *r, const ompdag_condag *g,
                                          uint8_t *executed, ompdag_error *err)
{
    if (!r->choice || r->n != g->n)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "the result has no worst flow");
    if (!r->compact) return ompdag_flow_mark(g, r->choice, executed, err);
    memcpy(executed, r->reached, (size_t)g->n);
    return OMPDAG_OK;
}
