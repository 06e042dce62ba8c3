/*
 * analysis/rta_loop_depend_pass.c — the pass of the closure of loops with
 * depend clauses (rta_loop_depend.c): nodes outside loop bodies on vectors
 * in reverse serial order, each loop's body on matrices and its closure by
 * doubling, as rta_loop.c's rta_loop_tables does for Alg1.
 *
 * Source: docs/compact.md, "depend clauses in compact loops" (the recurrence
 * Y_p = D ⊗ (x ⊕ M ⊗ Sh ⊗ Y_{p+1}) and why it is rta_depend.c on the
 * unrolling); the node step is rta_loop_depend_step.c.
 */
#include <stdio.h>
#include <string.h>

#include "condag_loops.h"
#include "rta_loop.h"
#include "rta_loop_depend_internal.h"

#define LD_MAX_CELLS ((int64_t)1 << 24) /* matrix cells of one loop body */

typedef struct rta_ld_pass {
    const ompdag_condag *g;
    const ompdag_rta_options *opt;
    rta_ld_keys k;
    int64_t *voff, *vec; /* per node: its state (dim of its task) outside loop bodies */
    int64_t *mat;        /* per slot of the current loop's list: dim² */
    int32_t *slot;
    int64_t *S, *X, *Y, *P, *C, *scratch; /* dim², scratch 4·dim² */
    int32_t *jk;
    uint8_t *met;
    bool bad;
} rta_ld_pass;

static int32_t dim_of(const rta_ld_pass *p, int32_t task)
{
    return QCOUNT + 2 * rta_ld_nkeys(&p->k, task);
}

/* What node v's step needs: weights, the child's values, keys jumped and met. */
static rta_ld_node node_in(rta_ld_pass *p, int32_t v)
{
    const ompdag_condag *g = p->g;
    int32_t nj = g->creates[v] >= 0 ? ompdag_condag_node_depend_count(g, v) : 0;
    for (int32_t i = 0; i < nj; ++i) /* a partial taskwait's items jump with nothing */
        p->jk[i] = rta_ld_jump_key(g, &p->k, v, i);
    rta_ld_met(g, &p->k, v, p->met);
    int32_t child = g->creates[v] >= 0 ? g->task_source[g->creates[v]] : -1;
    return (rta_ld_node){(char)g->kind[v],
                         condag_is_partial_wait(g, v),
                         rta_c(g, p->opt, v) + rta_penalty(g, p->opt, v),
                         rta_mc(g, p->opt, v),
                         rta_ld_nkeys(&p->k, g->node_task[v]),
                         child >= 0 ? p->vec + p->voff[child] : NULL,
                         p->jk,
                         nj,
                         p->met};
}

/* Node v outside loop bodies: its successors' states (max), then the step. */
static void eval_vector(rta_ld_pass *p, int32_t v)
{
    const ompdag_condag *g = p->g;
    int32_t dim = dim_of(p, g->node_task[v]);
    for (int32_t k = 0; k < dim; ++k) /* no successor: V = A = B = 0, the rest −∞ */
        p->S[k] = g->fsucc_off[v + 1] > g->fsucc_off[v] || k > QB ? NEG_INF : 0;
    for (int32_t e = g->fsucc_off[v]; e < g->fsucc_off[v + 1]; ++e)
        for (int32_t k = 0; k < dim; ++k)
            p->S[k] = max2(p->S[k], p->vec[p->voff[g->fsucc[e]] + k]);
    rta_ld_node in = node_in(p, v);
    rta_ld_step(&in, p->S, 1, p->vec + p->voff[v], p->X, p->Y, &p->bad);
}

/* Body node u of loop i on matrices: after the body's last node the state
 * is the continuation itself (the identity). */
static void eval_matrix(rta_ld_pass *p, int32_t i, int32_t u, int32_t dim)
{
    const ompdag_condag *g = p->g;
    int64_t cells = (int64_t)dim * dim;
    for (int64_t c = 0; c < cells; ++c)
        p->S[c] = u == g->loops->end[i] && c / dim == c % dim ? 0 : NEG_INF;
    for (int32_t e = g->fsucc_off[u]; e < g->fsucc_off[u + 1] && u != g->loops->end[i]; ++e) {
        const int64_t *m = p->mat + p->slot[g->fsucc[e]] * cells;
        for (int64_t c = 0; c < cells; ++c)
            p->S[c] = max2(p->S[c], m[c]);
    }
    rta_ld_node in = node_in(p, u);
    rta_ld_step(&in, p->S, dim, p->mat + p->slot[u] * cells, p->X, p->Y, &p->bad);
}

/* Column j of M ⊗ Sh reads column shift_src(j) of M: a window key r of
 * iteration p is r − 1 of iteration p + 1; −1 past the window. */
static int32_t shift_src(const rta_ld_pass *p, int32_t task, int32_t j)
{
    int32_t q = rta_ld_nkeys(&p->k, task);
    if (j < QCOUNT) return j;
    int32_t kk = (j - QCOUNT) % q, base = j - kk, g = p->k.koff[task] + kk;
    if (!p->k.kwin[g]) return j;
    return p->k.knext[g] >= 0 ? base + p->k.knext[g] : -1;
}

/* Loop i: its body on matrices, P = D ⊗ M ⊗ Sh, the doubling, Y_0 = S ⊗ x. */
static void close_loop(rta_ld_pass *p, int32_t i)
{
    const ompdag_condag *g = p->g;
    const condag_loops *l = g->loops;
    int32_t t = l->test[i], task = g->node_task[t], dim = dim_of(p, task);
    int32_t b = l->list_off[i], e = l->list_off[i + 1];
    for (int32_t k = b; k < e; ++k)
        p->slot[l->list[k]] = k - b;
    for (int32_t k = e - 1; k >= b; --k) /* reverse topological order */
        eval_matrix(p, i, l->list[k], dim);
    const int64_t *M = p->mat + p->slot[l->body[i]] * (int64_t)dim * dim;
    int64_t c = rta_c(g, p->opt, t) + rta_penalty(g, p->opt, t), mc = rta_mc(g, p->opt, t);
    int64_t d[LD_MAX_DIM];
    for (int32_t k = 0; k < dim; ++k)
        d[k] = k == QA || k == QB ? mc : c;
    for (int32_t k = 0; k < dim; ++k)
        for (int32_t j = 0; j < dim; ++j) {
            int32_t src = shift_src(p, task, j);
            p->P[k * dim + j] = src < 0 ? NEG_INF : rta_ld_add(d[k], M[k * dim + src], &p->bad);
        }
    rta_ld_close(p->P, d, l->repeat[i], dim, p->C, p->scratch, &p->bad);
    int64_t *y = p->vec + p->voff[t];
    const int64_t *x = p->vec + p->voff[l->exit[i]];
    for (int32_t k = 0; k < dim; ++k) {
        int64_t best = NEG_INF;
        for (int32_t j = 0; j < dim; ++j)
            best = max2(best, rta_ld_add(p->C[k * dim + j], x[j], &p->bad));
        bool win =
            k >= QCOUNT && p->k.kwin[p->k.koff[task] + (k - QCOUNT) % rta_ld_nkeys(&p->k, task)];
        y[k] = win ? NEG_INF : best; /* before the loop nothing meets its cells */
    }
}

/* Overflow at node v: the loop around it (rta_loop.c's message), or the node. */
static ompdag_status overflow_error(const ompdag_condag *g, int32_t v, ompdag_error *err)
{
    int32_t i = g->loops->loop_of[v];
    if (i >= 0) return rta_loop_overflow_error(g, i, err);
    return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                            "node '%s': m·R does not fit in int64 ns; use a coarser time unit",
                            node_name(g, v));
}

/* Buffers; false when a loop's matrices exceed LD_MAX_CELLS (then unroll). */
static bool alloc_pass(rta_ld_pass *p, bool *nomem)
{
    const ompdag_condag *g = p->g;
    const condag_loops *l = g->loops;
    int64_t at = 0, most = 1;
    p->voff = malloc(sizeof *p->voff * (size_t)g->n);
    p->slot = malloc(sizeof *p->slot * (size_t)g->n);
    int32_t maxc = 1;
    for (int32_t v = 0; p->voff && v < g->n; ++v) {
        p->voff[v] = at, at += dim_of(p, g->node_task[v]);
        maxc = max2(maxc, ompdag_condag_node_depend_count(g, v));
    }
    for (int32_t i = 0; i < l->n; ++i) {
        int64_t dim = dim_of(p, g->node_task[l->test[i]]);
        most = max2(most, (l->list_off[i + 1] - l->list_off[i]) * dim * dim);
    }
    if (most > LD_MAX_CELLS) return false;
    size_t sq = (size_t)LD_MAX_DIM * LD_MAX_DIM;
    p->vec = malloc(sizeof *p->vec * (size_t)(at ? at : 1));
    p->mat = malloc(sizeof *p->mat * (size_t)most);
    p->S = malloc(sizeof *p->S * sq), p->X = malloc(sizeof *p->X * LD_MAX_DIM);
    p->Y = malloc(sizeof *p->Y * LD_MAX_DIM), p->P = malloc(sizeof *p->P * sq);
    p->C = malloc(sizeof *p->C * sq), p->scratch = malloc(sizeof *p->scratch * 4 * sq);
    p->jk = malloc(sizeof *p->jk * (size_t)maxc), p->met = malloc(LD_MAX_DIM);
    *nomem = !p->voff || !p->slot || !p->vec || !p->mat || !p->S || !p->X || !p->Y || !p->P ||
             !p->C || !p->scratch || !p->jk || !p->met;
    return !*nomem;
}

static void free_pass(rta_ld_pass *p)
{
    rta_ld_keys_free(&p->k);
    free(p->voff), free(p->vec), free(p->mat), free(p->slot), free(p->S), free(p->X);
    free(p->Y), free(p->P), free(p->C), free(p->scratch), free(p->jk), free(p->met);
}

ompdag_status rta_ld_closure_bound(const ompdag_condag *g, const ompdag_rta_options *opt,
                                   ompdag_rta_result *r, bool *closed, ompdag_error *err)
{
    rta_ld_pass p = {.g = g, .opt = opt};
    const char *why = NULL;
    bool nomem = false;
    *closed = rta_ld_keys_build(g, &p.k, &why, &nomem) && alloc_pass(&p, &nomem);
    ompdag_status st = nomem ? ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory") : OMPDAG_OK;
    for (int32_t k = g->n - 1; k >= 0 && *closed && !st; --k) {
        int32_t v = g->topo[k], i = g->loops->test_of[v];
        if (i >= 0)
            close_loop(&p, i);
        else if (g->loops->loop_of[v] < 0)
            eval_vector(&p, v);
        if (p.bad) st = overflow_error(g, v, err);
    }
    if (*closed && !st) {
        r->bound_times_m = p.vec[p.voff[g->task_source[g->root]] + QA];
        r->exact = true;
    }
    free_pass(&p);
    return st;
}
