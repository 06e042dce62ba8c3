/*
 * analysis/rta_alg0.c — the baseline bound of Sun, Guan, Sun, Chi, RTAS 2019
 * ("Alg0" in Sun et al. 2020), as stated in docs/condag.md §3.
 *
 * Pessimistic by design: at a task sink it may combine the longest path of
 * one branch with the largest volume of another.  Per node v (c = WCET):
 *   V(v)  max volume of D-flows from v (as in the exact algorithm)
 *   Ls(v) longest path from v over F-, T- and W-edges (C: the max branch)
 *   G(v)  C node:  m·c + max G(si)
 *         else:    m·c + max( V(s)+V(j), G(s)+V(j), G(j)+V(s),
 *                             (m−1)·Ls(w)+V(s)+V(j) for each W-successor w )
 * with missing terms 0.  Result: G(source of τ1).  No witness flow exists.
 */
#include "rta_internal.h"

typedef struct alg0_tables {
    int64_t *V, *Ls, *G;
} alg0_tables;

static int64_t value_or_zero(const int64_t *a, int32_t v)
{
    return v >= 0 ? a[v] : 0;
}

static void eval_node(const ompdag_condag *g, const ompdag_rta_options *opt, alg0_tables *t,
                      int32_t v)
{
    int64_t p = rta_penalty(g, opt, v);
    /* dispatch delays folded (WCET + D everywhere): sound, never below exact */
    int64_t c = rta_wcet(g, opt, v) + rta_delay(g, v), mc = (int64_t)opt->m * c + p;
    int64_t ls = 0;
    for (int32_t k = g->fsucc_off[v]; k < g->fsucc_off[v + 1]; ++k)
        ls = max2(ls, t->Ls[g->fsucc[k]]);
    for (int32_t k = g->wsucc_off[v]; k < g->wsucc_off[v + 1]; ++k)
        ls = max2(ls, t->Ls[g->wsucc[k]]);
    int32_t j = g->creates[v] >= 0 ? g->task_source[g->creates[v]] : -1;
    if (j >= 0) ls = max2(ls, t->Ls[j]);
    t->Ls[v] = c + ls;

    if (g->kind[v] == OMPDAG_KIND_C) {
        int64_t bv = 0, bg = 0;
        for (int32_t k = g->fsucc_off[v]; k < g->fsucc_off[v + 1]; ++k) {
            bv = max2(bv, t->V[g->fsucc[k]]);
            bg = max2(bg, t->G[g->fsucc[k]]);
        }
        t->V[v] = c + p + bv;
        t->G[v] = mc + bg;
        return;
    }
    int32_t s = g->fsucc_off[v + 1] > g->fsucc_off[v] ? g->fsucc[g->fsucc_off[v]] : -1;
    int64_t Vs = value_or_zero(t->V, s), Vj = value_or_zero(t->V, j);
    int64_t Gs = value_or_zero(t->G, s), Gj = value_or_zero(t->G, j);
    int64_t best = max2(Vs + Vj, max2(Gs + Vj, Gj + Vs));
    for (int32_t k = g->wsucc_off[v]; k < g->wsucc_off[v + 1]; ++k)
        best = max2(best, (int64_t)(opt->m - 1) * t->Ls[g->wsucc[k]] + Vs + Vj);
    t->V[v] = c + p + Vs + Vj;
    t->G[v] = mc + best;
}

ompdag_status rta_alg0(const ompdag_condag *g, const ompdag_rta_options *opt,
                       ompdag_rta_result **out, ompdag_error *err)
{
    alg0_tables t = {malloc(sizeof(int64_t) * (size_t)g->n), malloc(sizeof(int64_t) * (size_t)g->n),
                     malloc(sizeof(int64_t) * (size_t)g->n)};
    ompdag_rta_result *r = rta_result_new(g, OMPDAG_ALG_ALG0, opt->m, false);
    ompdag_status st = OMPDAG_OK;
    if (!t.V || !t.Ls || !t.G || !r) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        ompdag_rta_result_destroy(r);
    } else {
        for (int32_t i = g->n - 1; i >= 0; --i)
            eval_node(g, opt, &t, g->topo[i]);
        r->bound_times_m = t.G[g->task_source[g->root]];
        *out = r;
    }
    free(t.V), free(t.Ls), free(t.G);
    return st;
}
