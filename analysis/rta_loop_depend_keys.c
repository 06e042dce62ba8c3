/*
 * analysis/rta_loop_depend_keys.c — the keys of the closure of loops with
 * depend clauses (rta_loop_depend.c; docs/compact.md, "depend clauses in
 * compact loops"), and the test of the class it is exact for.
 *
 * rta_depend.c keeps two values per key (var, mode) of a task's children.
 * In the unrolling of a loop whose clauses name the cells base[p + o] in
 * iteration p, the cells are unbounded in number, but seen from iteration p
 * only r = cell − p in [o_min, o_max] matters: a clause of iteration p' ≥ p
 * names r = p' − p + o ≥ o_min, and the cells that earlier iterations named
 * and that a later clause can still meet have r ≤ o_max.  So a task's keys
 * are its plain keys (var, mode) and the window keys (base, r, mode) for r in
 * [o_min, o_max]; one iteration maps window key r to r − 1 of the next, the
 * shift the closure applies (knext).  The class: loops do not nest, a base is
 * indexed by one loop of its task and no plain clause of that task names one
 * of its cells ("base[…", the name of an unrolled cell), so after the loop
 * and before it nothing meets a window key.
 */
#include <stdlib.h>
#include <string.h>

#include "condag_loops.h"
#include "ompdag/compact.h"
#include "rta_loop_depend_internal.h"

typedef struct cand {
    int32_t task, var;
    uint8_t win, mode;
    int64_t r;
    uint8_t wait; /* an item of a partial taskwait: it meets keys, it makes none */
} cand;

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->task != y->task) return (x->task > y->task) - (x->task < y->task);
    if (x->win != y->win) return (x->win > y->win) - (x->win < y->win);
    if (x->var != y->var) return (x->var > y->var) - (x->var < y->var);
    if (x->r != y->r) return (x->r > y->r) - (x->r < y->r);
    return (x->mode > y->mode) - (x->mode < y->mode);
}

/* An indexed clause: its task, base, loop, offset and mode. */
typedef struct ixc {
    int32_t task, var, loop;
    int64_t off;
    uint8_t mode, wait;
} ixc;

static int cmp_ixc(const void *a, const void *b)
{
    const ixc *x = a, *y = b;
    if (x->task != y->task) return (x->task > y->task) - (x->task < y->task);
    return (x->var > y->var) - (x->var < y->var);
}

typedef struct gather {
    cand *c;
    int64_t nc;
    ixc *ix;
    int64_t ni;
} gather;

/* Every clause as a plain candidate key or an indexed clause; a partial
 * taskwait's items are marked (they only meet keys, in their wait mode). */
static void gather_clauses(const ompdag_condag *g, gather *ga)
{
    for (int32_t v = 0; v < g->n; ++v)
        for (int32_t i = 0; i < ompdag_condag_node_depend_count(g, v); ++i) {
            int32_t task = g->node_task[v], var = ompdag_condag_node_depend_var(g, v, i), loop;
            uint8_t wait = g->kind[v] == OMPDAG_KIND_W, mode = (uint8_t)rta_ld_mode(g, v, i);
            int64_t off;
            if (ompdag_condag_node_depend_index(g, v, i, &loop, &off))
                ga->ix[ga->ni++] = (ixc){task, var, loop, off, mode, wait};
            else
                ga->c[ga->nc++] = (cand){task, var, 0, mode, 0, wait};
        }
}

/* True when a plain clause of `task` names a cell of base ("base[…"). */
static bool plain_names_a_cell(const ompdag_condag *g, const gather *ga, int32_t task, int32_t base)
{
    const char *b = ompdag_condag_depend_var_name(g, base);
    size_t n = strlen(b);
    for (int64_t i = 0; i < ga->nc; ++i) {
        const char *x = ompdag_condag_depend_var_name(g, ga->c[i].var);
        if (ga->c[i].task == task && !strncmp(x, b, n) && x[n] == '[') return true;
    }
    return false;
}

/* The window keys of the indexed clauses ix[lo..hi) (one task, one base). */
static bool window_keys(const ompdag_condag *g, gather *ga, int64_t lo, int64_t hi,
                        const char **why)
{
    const ixc *f = &ga->ix[lo];
    int64_t omin = INT64_MAX, omax = INT64_MIN, width;
    unsigned mask = 0; /* the modes tasks jump with; a partial wait also meets r = its offset */
    for (int64_t i = lo; i < hi; ++i) {
        if (ga->ix[i].loop != f->loop) return *why = "a base indexed by two loops", false;
        omin = ga->ix[i].off < omin ? ga->ix[i].off : omin;
        if (ga->ix[i].wait) continue;
        omax = ga->ix[i].off > omax ? ga->ix[i].off : omax;
        mask |= 1u << ga->ix[i].mode;
    }
    if (!mask) return true; /* waits only: no key to meet */
    if (strchr(ompdag_condag_depend_var_name(g, f->var), '['))
        return *why = "an indexed base whose name holds '['", false;
    if (plain_names_a_cell(g, ga, f->task, f->var))
        return *why = "a plain clause names a cell of an indexed base", false;
    if (__builtin_sub_overflow(omax, omin, &width) || width >= LD_MAX_DIM / 2)
        return *why = "offsets too far apart for the window", false;
    for (int64_t r = omin; r <= omax; ++r)
        for (uint8_t m = 0; m < CONDAG_MODES; ++m)
            if (mask & (1u << m)) ga->c[ga->nc++] = (cand){f->task, f->var, 1, m, r, 0};
    return true;
}

/* Sorted, unique keys with per-task offsets; false when a task has too many. */
static bool store_keys(const ompdag_condag *g, gather *ga, rta_ld_keys *k, const char **why)
{
    int64_t u = 0;
    for (int64_t i = 0; i < ga->nc; ++i) /* a partial taskwait's items make no key */
        if (!ga->c[i].wait) ga->c[u++] = ga->c[i];
    qsort(ga->c, (size_t)u, sizeof *ga->c, cmp_cand);
    ga->nc = u, u = 0;
    for (int64_t i = 0; i < ga->nc; ++i)
        if (!i || cmp_cand(&ga->c[i], &ga->c[i - 1])) ga->c[u++] = ga->c[i];
    ga->nc = u;
    size_t n = (size_t)(u ? u : 1);
    k->koff = calloc((size_t)g->nt + 1, sizeof *k->koff);
    k->kvar = malloc(sizeof *k->kvar * n), k->kr = malloc(sizeof *k->kr * n);
    k->kmode = malloc(n), k->kwin = malloc(n), k->knext = malloc(sizeof *k->knext * n);
    if (!k->koff || !k->kvar || !k->kr || !k->kmode || !k->kwin || !k->knext) return false;
    for (int64_t i = 0; i < u; ++i) {
        const cand *c = &ga->c[i];
        k->koff[c->task + 1]++;
        k->kvar[i] = c->var, k->kr[i] = c->r, k->kmode[i] = c->mode, k->kwin[i] = c->win;
        cand next = {c->task, c->var, 1, c->mode, c->r + 1, 0};
        const cand *hit = c->win ? bsearch(&next, ga->c, (size_t)u, sizeof next, cmp_cand) : NULL;
        k->knext[i] = hit ? (int32_t)(hit - ga->c) : -1; /* global for now */
    }
    for (int32_t t = 0; t < g->nt; ++t)
        k->koff[t + 1] += k->koff[t];
    for (int64_t i = 0; i < u; ++i)
        if (k->knext[i] >= 0) k->knext[i] -= k->koff[ga->c[i].task];
    for (int32_t t = 0; t < g->nt && !*why; ++t)
        if (QCOUNT + 2 * rta_ld_nkeys(k, t) > LD_MAX_DIM) *why = "a task with too many keys";
    return true;
}

bool rta_ld_keys_build(const ompdag_condag *g, rta_ld_keys *k, const char **why, bool *nomem)
{
    *k = (rta_ld_keys){0};
    *why = NULL, *nomem = false;
    for (int32_t i = 0; i < g->loops->n; ++i)
        if (g->loops->outer[i] >= 0) return *why = "nested compact loops", false;
    int64_t n = g->dep->n;
    gather ga = {malloc(sizeof *ga.c * (size_t)(n * (1 + LD_MAX_DIM / 2 * CONDAG_MODES) + 1)), 0,
                 malloc(sizeof *ga.ix * (size_t)(n + 1)), 0};
    bool ok = ga.c && ga.ix;
    if (ok) {
        gather_clauses(g, &ga);
        qsort(ga.ix, (size_t)ga.ni, sizeof *ga.ix, cmp_ixc);
        for (int64_t lo = 0, hi; ok && !*why && lo < ga.ni; lo = hi) {
            for (hi = lo + 1; hi < ga.ni && !cmp_ixc(&ga.ix[lo], &ga.ix[hi]); ++hi)
                ;
            window_keys(g, &ga, lo, hi, why);
        }
        ok = *why || store_keys(g, &ga, k, why);
    }
    free(ga.c), free(ga.ix);
    *nomem = !ok;
    if (!ok || *why) rta_ld_keys_free(k);
    return ok && !*why;
}

void rta_ld_keys_free(rta_ld_keys *k)
{
    free(k->koff), free(k->kvar), free(k->kr), free(k->kmode), free(k->kwin), free(k->knext);
    *k = (rta_ld_keys){0};
}

int rta_ld_mode(const ompdag_condag *g, int32_t v, int32_t i)
{
    int type = ompdag_condag_node_depend_type(g, v, i);
    return g->kind[v] == OMPDAG_KIND_W ? condag_wait_mode(type) : condag_dep_mode(type);
}

/* Clause i of v as a key: (var, window?, r, mode). */
static cand clause_key(const ompdag_condag *g, int32_t v, int32_t i)
{
    int32_t loop;
    int64_t off = 0;
    bool win = ompdag_condag_node_depend_index(g, v, i, &loop, &off);
    return (cand){g->node_task[v],
                  ompdag_condag_node_depend_var(g, v, i),
                  win,
                  (uint8_t)rta_ld_mode(g, v, i),
                  off,
                  g->kind[v] == OMPDAG_KIND_W};
}

int32_t rta_ld_jump_key(const ompdag_condag *g, const rta_ld_keys *k, int32_t v, int32_t i)
{
    cand c = clause_key(g, v, i);
    int32_t t = c.task;
    for (int32_t kk = k->koff[t]; kk < k->koff[t + 1]; ++kk)
        if (k->kvar[kk] == c.var && k->kwin[kk] == c.win && k->kr[kk] == c.r &&
            k->kmode[kk] == c.mode)
            return kk - k->koff[t];
    assert(!"a clause without its key");
    return -1;
}

void rta_ld_met(const ompdag_condag *g, const rta_ld_keys *k, int32_t v, uint8_t *met)
{
    int32_t t = g->node_task[v];
    memset(met, 0, (size_t)rta_ld_nkeys(k, t));
    for (int32_t i = 0; i < ompdag_condag_node_depend_count(g, v); ++i) {
        cand c = clause_key(g, v, i);
        for (int32_t kk = k->koff[t]; kk < k->koff[t + 1]; ++kk)
            if (k->kvar[kk] == c.var && k->kwin[kk] == c.win && k->kr[kk] == c.r &&
                condag_dep_conflict(c.mode, k->kmode[kk]))
                met[kk - k->koff[t]] = 1;
    }
}
