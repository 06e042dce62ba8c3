/*
 * analysis/rta_flow_eval.c — evaluates one execution flow directly from the
 * definitions of shared/spec/condag.md §1–2, independently of the bound
 * recurrences: which nodes run, their volume, and the longest path among them
 * over F-, T- and W-edges, plus the D-edges that §6 Rule 3 derives for this
 * flow (condag_depend.c).  The oracle (enumerate) and the witness checks in
 * the tests both stand on this file, so it uses no value from rta_exact.c.
 */
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

void rta_measure_flow(const ompdag_condag *g, const ompdag_rta_options *opt,
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
    condag_dflow_derive(g, executed, &s->dflow); /* §6 Rule 3; allocation-free */
    /* docs/overheads.md: m·R <= vol(e) + max over paths p of Σ_{v∈p} x(v),
     * x(v) = (m−1)·WCET + m·D (chain-only delays), or (m−1)·(WCET + D) when
     * folded; without delays the heaviest path is the longest one. */
    for (int32_t i = 0; i < g->n; ++i) {
        int32_t v = g->topo[i];
        if (!executed[v]) continue;
        int64_t d = s->dist[v] + rta_path_extra(g, opt, v); /* heaviest path ending at v */
        int64_t l = s->plen[v] + g->wcet[v] + rta_delay(g, v);
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
    if (!path_out) return;
    int32_t k = 0;
    for (int32_t v = end; v >= 0; v = s->pred[v])
        path_out[k++] = v;
    for (int32_t a = 0, b = k - 1; a < b; ++a, --b) {
        int32_t tmp = path_out[a];
        path_out[a] = path_out[b];
        path_out[b] = tmp;
    }
    *path_len = k;
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
            rta_measure_flow(g, opt, executed, &s, out, p, &k);
            if (path) {
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
