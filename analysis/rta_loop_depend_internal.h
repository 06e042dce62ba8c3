/*
 * analysis/rta_loop_depend_internal.h — the parts of the closure of loops
 * whose tasks carry depend clauses (rta_loop_depend.c, _keys.c, _step.c):
 * the keys of each task and the max-plus kernels.  Internal to the analysis
 * library.
 */
#ifndef OMPDAG_RTA_LOOP_DEPEND_INTERNAL_H
#define OMPDAG_RTA_LOOP_DEPEND_INTERNAL_H

#include "rta_internal.h"

/* Largest state (5 + 2 keys) of a task whose loops are closed without
 * unrolling; above it the graph is bounded on its unrolling. */
#define LD_MAX_DIM 72

/* The keys of rta_depend.c, per task, for a graph whose loop iterations are
 * shift-invariant ("the closable class", rta_loop_depend_keys.c).  A plain
 * key is (var, mode); a window key (base, r, mode) stands, in iteration p
 * of the loop that indexes base, for the cell base[p + r], r in the
 * window [o_min, o_max] of the offsets of base's clauses. */
typedef struct rta_ld_keys {
    int32_t *koff;  /* per task: its keys are koff[t] .. koff[t+1]-1 (local index k - koff[t]) */
    int32_t *kvar;  /* var index (a window key: its base) */
    int64_t *kr;    /* window key: the cell relative to the iteration; 0 for a plain key */
    uint8_t *kmode; /* CONDAG_MODE_* of the clauses that jump with it */
    uint8_t *kwin;  /* 1: window key */
    int32_t *knext; /* window key: local index of (base, r + 1, mode), -1 past the window */
} rta_ld_keys;

/* True when g is in the closable class (docs/compact.md): loops do not nest,
 * each indexed base of a task is indexed by one loop and named by no plain
 * clause of that task as a cell ("base[…"), and every task's state has at
 * most LD_MAX_DIM entries.  Then *k holds the keys (free with
 * rta_ld_keys_free); false with *why set otherwise, or with *nomem on ENOMEM. */
bool rta_ld_keys_build(const ompdag_condag *g, rta_ld_keys *k, const char **why, bool *nomem);
void rta_ld_keys_free(rta_ld_keys *k);
static inline int32_t rta_ld_nkeys(const rta_ld_keys *k, int32_t task)
{
    return k->koff[task + 1] - k->koff[task];
}
/* The mode of clause i of v: its own for a T node, the wait mode of a
 * partial taskwait's item (condag_wait_mode). */
int rta_ld_mode(const ompdag_condag *g, int32_t v, int32_t i);
/* The local key clause i of T node v jumps with (its own var, cell, mode). */
int32_t rta_ld_jump_key(const ompdag_condag *g, const rta_ld_keys *k, int32_t v, int32_t i);
/* met[kk] = 1 for every local key of v's task that a clause of v (a T node,
 * or a partial taskwait) meets. */
void rta_ld_met(const ompdag_condag *g, const rta_ld_keys *k, int32_t v, uint8_t *met);

/* One node's recurrence (rta_depend.c's eval_*), on nc columns: S is the
 * F-successor's state (dim rows of nc), O the node's; J the created child's
 * five values (NULL: not a T node); jk its clauses' jump keys, met the keys
 * it meets; X and Y scratch of nc each.  Every sum is checked (*bad). */
typedef struct rta_ld_node {
    char kind;
    bool partial; /* a W node with items: no Cw/Dw start, a resume point for met keys */
    int64_t c1, mc;
    int32_t q;
    const int64_t *J;
    const int32_t *jk;
    int32_t njk;
    const uint8_t *met;
} rta_ld_node;
void rta_ld_step(const rta_ld_node *in, const int64_t *S, int32_t nc, int64_t *O, int64_t *X,
                 int64_t *Y, bool *bad);

/* S = (⊕_{i<K} P^i) ⊗ D ⊕ P^K on dim×dim matrices (rta_loop.c's doubling);
 * scratch holds 4·dim² cells. */
void rta_ld_close(const int64_t *P, const int64_t *d, int64_t K, int32_t dim, int64_t *S,
                  int64_t *scratch, bool *bad);
/* a + b with −∞ absorbing; *bad on overflow. */
static inline int64_t rta_ld_add(int64_t a, int64_t b, bool *bad)
{
    int64_t s;
    if (a == NEG_INF || b == NEG_INF) return NEG_INF;
    if (__builtin_add_overflow(a, b, &s)) *bad = true;
    return s;
}

/* The closure (rta_loop_depend_pass.c): when g is in the closable class,
 * sets r->bound_times_m and r->exact and *closed = true; else *closed =
 * false and r untouched.  OMPDAG_ERR_OVERFLOW names the loop. */
ompdag_status rta_ld_closure_bound(const ompdag_condag *g, const ompdag_rta_options *opt,
                                   ompdag_rta_result *r, bool *closed, ompdag_error *err);

#endif
