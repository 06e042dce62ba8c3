/*
 * analysis/rta_loop_lx.h — the lexicographic max-plus semiring of the loops'
 * worst flow (analysis/rta_loop_lx.c; docs/compact.md, "The worst flow"),
 * internal to the analysis library: tuples (val, vol, len, mig, pw), 5×5
 * matrices, Alg1's step on them and the closure's doubling.
 */
#ifndef OMPDAG_RTA_LOOP_LX_H
#define OMPDAG_RTA_LOOP_LX_H

#include "rta_internal.h"

enum { LX_VAL, LX_VOL, LX_LEN, LX_MIG, LX_PW, LX_N };

typedef struct lx {
    int64_t c[LX_N]; /* c[LX_VAL] == NEG_INF: −∞, the other components unused */
} lx;

typedef struct lrow {
    lx q[QCOUNT];
} lrow;

typedef struct lmat {
    lx a[QCOUNT][QCOUNT]; /* a[k][j]: value k given the continuation's value j */
} lmat;

typedef struct weights {
    lx off, on; /* a node's term off the path (V, Cw, Dw) and on it (A, B) */
} weights;

extern const lx rta_lx_neg;  /* −∞ */
extern const lx rta_lx_zero; /* the unit of ⊗ */

/* a ⊗ b (componentwise +, −∞ absorbing); sets *bad on int64 overflow. */
lx rta_lx_add(lx a, lx b, bool *bad);
/* a < b lexicographically, −∞ below everything. */
bool rta_lx_less(const lx *a, const lx *b);
/* *acc = *acc ⊕ y, keeping *acc on ties. */
void rta_lx_max_into(lx *acc, lx y);
/* Node v's terms off and on the path (docs/compact.md, "The worst flow"). */
weights rta_lx_weights(const ompdag_condag *g, const ompdag_rta_options *opt, int32_t v);
/* Alg1's step of one node on one column: s the F-successor's values (the
 * maximum over a C node's successors), j the created child's row or NULL. */
void rta_lx_step_col(char kind, const weights *w, const lx s[QCOUNT], const lrow *j, lx o[QCOUNT],
                     bool *bad);
void rta_lx_step_matrix(char kind, const weights *w, const lmat *s, const lrow *j, lmat *o,
                        bool *bad);
void rta_lx_mat_fill(lmat *m, bool identity);
void rta_lx_mat_mul(const lmat *x, const lmat *y, lmat *out, bool *bad); /* out may not alias */
void rta_lx_mat_max(lmat *acc, const lmat *y);
void rta_lx_mat_apply(const lmat *x, const lrow *y, lrow *out, bool *bad);
/* S = (⊕_{i<K} P^i) ⊗ D ⊕ P^K by doubling (D = diag(d)); K = 0 gives I. */
void rta_lx_close_loop(const lmat *P, const lx d[QCOUNT], int64_t K, lmat *S, bool *bad);

/* What the path's replay (rta_loop_replay.c) needs from the tuple pass, on a
 * graph whose loops do not nest: rows outside loop bodies, each body node's
 * matrix (its values given the continuation after its loop's body), and per
 * loop P = D ⊗ M and the test's weights d.  Filled by rta_loop_lx_tables;
 * the caller allocates body (one per node with body_slot >= 0), P and d,
 * and frees everything, row included, with lx_tables_free. */
typedef struct lx_tables {
    lrow *row;
    lmat *body;
    int32_t *body_slot; /* per node: its index in body, or -1 */
    lmat *P;
    lx (*d)[QCOUNT];
} lx_tables;

/* rta_loop_flow_sums, keeping the tables for the replay when keep != NULL. */
ompdag_status rta_loop_lx_tables(const ompdag_condag *g, const ompdag_rta_options *opt,
                                 ompdag_rta_result *r, lx_tables *keep, ompdag_error *err);

#endif
