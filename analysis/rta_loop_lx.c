/*
 * analysis/rta_loop_lx.c — the lexicographic max-plus semiring of the loops'
 * worst flow (docs/compact.md, "The worst flow"; used by rta_loop_witness.c
 * and rta_loop_replay.c).
 *
 * Source: Alg1 of Sun et al. (Chinese Journal of Computers 2020), cleaned up
 * in docs/condag.md §3, term for term as the kernel's ompdag_exact_eval_node,
 * on tuples (val, vol, len, mig, pw) ordered lexicographically: ⊕ keeps the
 * larger tuple, ⊗ adds componentwise.  The doubling is rta_loop.c's.
 */
#include "rta_loop_lx.h"

const lx rta_lx_neg = {{NEG_INF, 0, 0, 0, 0}};
const lx rta_lx_zero = {{0, 0, 0, 0, 0}};

lx rta_lx_add(lx a, lx b, bool *bad)
{
    if (a.c[LX_VAL] == NEG_INF || b.c[LX_VAL] == NEG_INF) return rta_lx_neg;
    lx s;
    for (int k = 0; k < LX_N; ++k)
        if (__builtin_add_overflow(a.c[k], b.c[k], &s.c[k])) *bad = true;
    return s;
}

/* a < b lexicographically, −∞ below everything. */
bool rta_lx_less(const lx *a, const lx *b)
{
    for (int k = 0; k < LX_N; ++k)
        if (a->c[k] != b->c[k]) return a->c[k] < b->c[k];
    return false;
}

void rta_lx_max_into(lx *acc, lx y)
{
    if (rta_lx_less(acc, &y)) *acc = y;
}

weights rta_lx_weights(const ompdag_condag *g, const ompdag_rta_options *opt, int32_t v)
{
    int64_t c = rta_c(g, opt, v), pen = rta_penalty(g, opt, v), site = pen != 0;
    return (weights){.off = {{c + pen, c, 0, site, 0}},
                     .on = {{rta_mc(g, opt, v), c, g->wcet[v] + rta_delay(g, v), site,
                             rta_path_extra(g, opt, v)}}};
}

/* One node's values from its F-successor's s (the maximum over a C node's
 * successors) and the created child's row j (NULL unless T): Alg1's step,
 * term for term the kernel's ompdag_exact_eval_node. */
void rta_lx_step_col(char kind, const weights *w, const lx s[QCOUNT], const lrow *j, lx o[QCOUNT],
                     bool *bad)
{
    if (j) { /* T: skip the child, end in it, or return at the next W */
        lx a = rta_lx_add(s[QA], j->q[QV], bad), b = rta_lx_add(s[QB], j->q[QV], bad);
        rta_lx_max_into(&a, rta_lx_add(j->q[QA], s[QV], bad));
        rta_lx_max_into(&a, rta_lx_add(j->q[QB], s[QCW], bad));
        rta_lx_max_into(&b, rta_lx_add(j->q[QB], s[QDW], bad));
        lx offj = rta_lx_add(w->off, j->q[QV], bad);
        o[QV] = rta_lx_add(offj, s[QV], bad);
        o[QA] = rta_lx_add(w->on, a, bad);
        o[QB] = rta_lx_add(w->on, b, bad);
        o[QCW] = rta_lx_add(offj, s[QCW], bad);
        o[QDW] = rta_lx_add(offj, s[QDW], bad);
        return;
    }
    o[QV] = rta_lx_add(w->off, s[QV], bad);
    o[QA] = rta_lx_add(w->on, s[QA], bad);
    o[QB] = rta_lx_add(w->on, s[QB], bad);
    bool wait = kind == 'W'; /* a path may start here */
    o[QCW] = wait ? o[QA] : rta_lx_add(w->off, s[QCW], bad);
    o[QDW] = wait ? o[QB] : rta_lx_add(w->off, s[QDW], bad);
}

void rta_lx_mat_fill(lmat *m, bool identity)
{
    for (int k = 0; k < QCOUNT; ++k)
        for (int j = 0; j < QCOUNT; ++j)
            m->a[k][j] = identity && k == j ? rta_lx_zero : rta_lx_neg;
}

/* out = x ⊗ y (out may not alias). */
void rta_lx_mat_mul(const lmat *x, const lmat *y, lmat *out, bool *bad)
{
    for (int k = 0; k < QCOUNT; ++k)
        for (int j = 0; j < QCOUNT; ++j) {
            lx best = rta_lx_neg;
            for (int i = 0; i < QCOUNT; ++i)
                rta_lx_max_into(&best, rta_lx_add(x->a[k][i], y->a[i][j], bad));
            out->a[k][j] = best;
        }
}

void rta_lx_mat_max(lmat *acc, const lmat *y)
{
    for (int k = 0; k < QCOUNT; ++k)
        for (int j = 0; j < QCOUNT; ++j)
            rta_lx_max_into(&acc->a[k][j], y->a[k][j]);
}

/* out = x ⊗ y for a vector y. */
void rta_lx_mat_apply(const lmat *x, const lrow *y, lrow *out, bool *bad)
{
    for (int k = 0; k < QCOUNT; ++k) {
        lx best = rta_lx_neg;
        for (int i = 0; i < QCOUNT; ++i)
            rta_lx_max_into(&best, rta_lx_add(x->a[k][i], y->q[i], bad));
        out->q[k] = best;
    }
}

/* step_col on every column of the successor's matrix s. */
void rta_lx_step_matrix(char kind, const weights *w, const lmat *s, const lrow *j, lmat *o,
                        bool *bad)
{
    for (int col = 0; col < QCOUNT; ++col) {
        lx sc[QCOUNT], oc[QCOUNT];
        for (int k = 0; k < QCOUNT; ++k)
            sc[k] = s->a[k][col];
        rta_lx_step_col(kind, w, sc, j, oc, bad);
        for (int k = 0; k < QCOUNT; ++k)
            o->a[k][col] = oc[k];
    }
}

/* S = (⊕_{i<K} P^i) ⊗ D ⊕ P^K by doubling over K's bits, high bit first, as
 * rta_loop.c's close_loop: (Pn, Sn) = (P^n, ⊕_{i<n} P^i); n -> 2n:
 * Sn ⊕ Pn⊗Sn, Pn⊗Pn; n -> n+1: I ⊕ P⊗Sn, P⊗Pn. */
void rta_lx_close_loop(const lmat *P, const lx d[QCOUNT], int64_t K, lmat *S, bool *bad)
{
    lmat pn, sn, t, u;
    rta_lx_mat_fill(&pn, true);
    rta_lx_mat_fill(&sn, false);
    for (int bit = 62; bit >= 0; --bit) {
        rta_lx_mat_mul(&pn, &sn, &t, bad); /* doubling */
        rta_lx_mat_max(&sn, &t);
        rta_lx_mat_mul(&pn, &pn, &u, bad);
        pn = u;
        if (!((K >> bit) & 1)) continue;
        rta_lx_mat_mul(P, &sn, &t, bad); /* one more */
        rta_lx_mat_fill(&sn, true);
        rta_lx_mat_max(&sn, &t);
        rta_lx_mat_mul(P, &pn, &u, bad);
        pn = u;
    }
    for (int k = 0; k < QCOUNT; ++k) /* Sn ⊗ D: column j gains d_j */
        for (int j = 0; j < QCOUNT; ++j)
            S->a[k][j] = rta_lx_add(sn.a[k][j], d[j], bad);
    rta_lx_mat_max(S, &pn);
}
