/*
 * analysis/rta_loop_depend_step.c — the max-plus kernels of the closure of
 * loops with depend clauses (rta_loop_depend.c).
 *
 * Source: the depend recurrence of docs/analysis.md ("Sibling dependences",
 * analysis/rta_depend.c's eval_branch / eval_creation / eval_plain) written
 * on rows of nc columns: with nc = 1 a row is a node's value, with nc = dim
 * it is the row of a max-plus matrix, the value as a function of the state
 * after a loop body (rta_loop.c's step_matrix, extended by the E and F keys).
 * Every value of the recurrence is a maximum of terms "constant + one value
 * of the successor", so the same code serves both.  A partial taskwait (a W
 * node with items, rta_depend.c's eval_plain) starts no Cw/Dw; a child whose
 * key it meets may resume there: E_k = max(c + E_k(s), A), F_k likewise.  The doubling is
 * rta_loop.c's close_loop on dim×dim matrices.
 */
#include <string.h>

#include "rta_loop_depend_internal.h"

/* out[j] = max(out[j], base + s[j]) for every column. */
static void row_term(int64_t *out, int64_t base, const int64_t *s, int32_t nc, bool *bad)
{
    for (int32_t j = 0; j < nc; ++j)
        out[j] = max2(out[j], rta_ld_add(base, s[j], bad));
}

static void fill(int64_t *m, int64_t cells, int64_t value)
{
    for (int64_t i = 0; i < cells; ++i)
        m[i] = value;
}

/* X (path from the created child's source) and Y (… ending at the sink of
 * the creating task): rta_depend.c's path_from_child. */
static void child_paths(const rta_ld_node *in, const int64_t *S, int32_t nc, int64_t *X, int64_t *Y,
                        bool *bad)
{
    const int64_t *J = in->J;
#define SROW(k) (S + (int64_t)(k)*nc)
    fill(X, nc, NEG_INF), fill(Y, nc, NEG_INF);
    row_term(X, J[QA], SROW(QV), nc, bad);
    row_term(X, J[QB], SROW(QCW), nc, bad);
    row_term(Y, J[QB], SROW(QDW), nc, bad);
    for (int32_t c = 0; c < in->njk; ++c) { /* a later sibling that conflicts */
        row_term(X, J[QB], SROW(QCOUNT + in->jk[c]), nc, bad);
        row_term(Y, J[QB], SROW(QCOUNT + in->q + in->jk[c]), nc, bad);
    }
}

static void step_creation(const rta_ld_node *in, const int64_t *S, int32_t nc, int64_t *O,
                          int64_t *X, int64_t *Y, bool *bad)
{
    const int64_t *J = in->J;
    int64_t cv = rta_ld_add(in->c1, J[QV], bad), mv = rta_ld_add(in->mc, J[QV], bad);
#define OROW(k) (O + (int64_t)(k)*nc)
    child_paths(in, S, nc, X, Y, bad);
    row_term(OROW(QV), cv, SROW(QV), nc, bad);
    row_term(OROW(QA), mv, SROW(QA), nc, bad);
    row_term(OROW(QA), in->mc, X, nc, bad);
    row_term(OROW(QB), mv, SROW(QB), nc, bad);
    row_term(OROW(QB), in->mc, Y, nc, bad);
    row_term(OROW(QCW), cv, SROW(QCW), nc, bad);
    row_term(OROW(QDW), cv, SROW(QDW), nc, bad);
    for (int32_t k = 0; k < in->q; ++k) {
        int32_t e = QCOUNT + k, f = QCOUNT + in->q + k;
        row_term(OROW(e), cv, SROW(e), nc, bad);
        row_term(OROW(f), cv, SROW(f), nc, bad);
        if (!in->met[k]) continue;
        row_term(OROW(e), in->c1, X, nc, bad);
        row_term(OROW(f), in->c1, Y, nc, bad);
    }
}

void rta_ld_step(const rta_ld_node *in, const int64_t *S, int32_t nc, int64_t *O, int64_t *X,
                 int64_t *Y, bool *bad)
{
    int32_t dim = QCOUNT + 2 * in->q;
    fill(O, (int64_t)dim * nc, NEG_INF);
    if (in->J) return step_creation(in, S, nc, O, X, Y, bad);
    for (int32_t k = 0; k < dim; ++k) /* C nodes (S is the max over successors) and the rest */
        row_term(OROW(k), k == QA || k == QB ? in->mc : in->c1, SROW(k), nc, bad);
    if (in->kind == 'W' && !in->partial) { /* a path may start here: Cw = A, Dw = B */
        memcpy(OROW(QCW), OROW(QA), sizeof *O * (size_t)nc);
        memcpy(OROW(QDW), OROW(QB), sizeof *O * (size_t)nc);
    }
    for (int32_t k = 0; in->partial && k < in->q; ++k) { /* a met child resumes here */
        if (!in->met[k]) continue;
        row_term(OROW(QCOUNT + k), 0, OROW(QA), nc, bad);
        row_term(OROW(QCOUNT + in->q + k), 0, OROW(QB), nc, bad);
    }
#undef SROW
#undef OROW
}

/* out = x ⊗ y on dim×dim (out may not alias). */
static void mat_mul(const int64_t *x, const int64_t *y, int32_t dim, int64_t *out, bool *bad)
{
    fill(out, (int64_t)dim * dim, NEG_INF);
    for (int32_t k = 0; k < dim; ++k)
        for (int32_t i = 0; i < dim; ++i) {
            int64_t a = x[(int64_t)k * dim + i];
            if (a != NEG_INF) row_term(out + (int64_t)k * dim, a, y + (int64_t)i * dim, dim, bad);
        }
}

static void mat_max(int64_t *acc, const int64_t *y, int32_t dim)
{
    for (int64_t i = 0; i < (int64_t)dim * dim; ++i)
        acc[i] = max2(acc[i], y[i]);
}

static void mat_identity(int64_t *m, int32_t dim)
{
    fill(m, (int64_t)dim * dim, NEG_INF);
    for (int32_t k = 0; k < dim; ++k)
        m[(int64_t)k * dim + k] = 0;
}

/* (Pn, Sn) = (P^n, ⊕_{i<n} P^i), high bit of K first: n -> 2n: Sn ⊕ Pn⊗Sn,
 * Pn⊗Pn; n -> n+1: I ⊕ P⊗Sn, P⊗Pn.  Then S = Sn ⊗ D ⊕ Pn. */
void rta_ld_close(const int64_t *P, const int64_t *d, int64_t K, int32_t dim, int64_t *S,
                  int64_t *scratch, bool *bad)
{
    int64_t cells = (int64_t)dim * dim;
    int64_t *pn = scratch, *sn = scratch + cells, *t = scratch + 2 * cells,
            *u = scratch + 3 * cells;
    mat_identity(pn, dim);
    fill(sn, cells, NEG_INF);
    for (int bit = 63 - __builtin_clzll((unsigned long long)K); bit >= 0; --bit) { /* K >= 1 */
        mat_mul(pn, sn, dim, t, bad);                                              /* doubling */
        mat_max(sn, t, dim);
        mat_mul(pn, pn, dim, u, bad);
        memcpy(pn, u, sizeof *u * (size_t)cells);
        if (!((K >> bit) & 1)) continue;
        mat_mul(P, sn, dim, t, bad); /* one more */
        mat_identity(sn, dim);
        mat_max(sn, t, dim);
        mat_mul(P, pn, dim, u, bad);
        memcpy(pn, u, sizeof *u * (size_t)cells);
    }
    for (int32_t k = 0; k < dim; ++k) /* Sn ⊗ D: column j gains d_j */
        for (int32_t j = 0; j < dim; ++j)
            S[(int64_t)k * dim + j] = rta_ld_add(sn[(int64_t)k * dim + j], d[j], bad);
    mat_max(S, pn, dim);
}
