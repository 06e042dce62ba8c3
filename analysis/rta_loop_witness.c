/*
 * analysis/rta_loop_witness.c — the worst flow's volume, critical-path length
 * and migrations on a graph with compact loops, in time independent of the
 * trip counts (docs/compact.md, "The worst flow").
 *
 * Source: Alg1 of Sun et al. (Chinese Journal of Computers 2020), cleaned up
 * in docs/condag.md §3, on the loops' at-most unrolling, computed without
 * unrolling as analysis/rta_loop.c does (max-plus 5×5 matrices per body, the
 * closure S = (⊕_{i<K} P^i) ⊗ D ⊕ P^K by doubling), but in a lexicographic
 * max-plus semiring.  Each value is a tuple
 *     (val, vol, len, mig, pw)
 * whose first component is Alg1's value and whose others split it for one
 * (flow, path) pair attaining it: the flow's volume, the path's Σ (WCET + D),
 * the flow's migration sites and the path's weight Σ ((m−1)·c + m·D), so that
 * val = vol + pw + m·O·mig.  ⊕ keeps the lexicographically larger tuple, ⊗
 * adds componentwise; the order on Z^5 is total and translation invariant, so
 * ⊕ and ⊗ are associative, ⊗ distributes over ⊕, and the matrices and the
 * doubling carry over unchanged.  The constant of each of Alg1's terms splits
 * as the witness replay of rta_exact.c (build_witness, then rta_measure_flow)
 * counts it: a node off the path adds (c + m·O, c, 0, [site], 0), a node on it
 * (m·(c + D) + m·O, c, c + D, [site], (m−1)·c + m·D); children's rows are
 * tuples too.  So val is Alg1's value bit for bit (the first component
 * decides every ⊕), and the other components belong to a worst flow and a
 * heaviest path of it: among the pairs attaining the bound the largest
 * volume, then the longest path.  Where several worst flows tie they may
 * differ from the unrolled witness's, which breaks ties by successor order.
 * Every sum is checked: overflow is an error naming the loop.
 */
#include <stdio.h>
#include <string.h>

#include "condag_loops.h"
#include "rta_loop.h"
#include "rta_loop_lx.h"

typedef struct lx_pass {
    const ompdag_condag *g;
    const ompdag_rta_options *opt;
    lrow *row;      /* per node outside loop bodies (and top-level tests) */
    lmat *mat;      /* per slot of the current loop's list */
    int32_t *slot;  /* per node: its slot in the current list */
    lmat *closure;  /* per loop: S */
    int32_t failed; /* the loop whose sums overflowed (n: after the loops), or -1 */
    bool bad;
    lx_tables *keep; /* for the path's replay: body matrices, P and d, or NULL */
} lx_pass;

static const lrow *child_row(const lx_pass *p, int32_t v)
{
    return p->g->creates[v] >= 0 ? &p->row[p->g->task_source[p->g->creates[v]]] : NULL;
}

/* A node outside loop bodies, on vectors; a sink continues into nothing. */
static void eval_row(lx_pass *p, int32_t v)
{
    const ompdag_condag *g = p->g;
    lrow s = {{rta_lx_zero, rta_lx_zero, rta_lx_zero, rta_lx_neg, rta_lx_neg}};
    if (g->fsucc_off[v + 1] > g->fsucc_off[v]) s = p->row[g->fsucc[g->fsucc_off[v]]];
    for (int32_t k = g->fsucc_off[v] + 1; k < g->fsucc_off[v + 1]; ++k)
        for (int q = 0; q < QCOUNT; ++q)
            rta_lx_max_into(&s.q[q], p->row[g->fsucc[k]].q[q]);
    weights w = rta_lx_weights(g, p->opt, v);
    rta_lx_step_col((char)g->kind[v], &w, s.q, child_row(p, v), p->row[v].q, &p->bad);
}

/* The matrix of F-successor s of a node of loop i: the identity after the
 * body's last node (the continuation itself). */
static const lmat *succ_matrix(const lx_pass *p, int32_t i, int32_t u, int32_t s,
                               const lmat *identity)
{
    return u == p->g->loops->end[i] ? identity : &p->mat[p->slot[s]];
}

/* One node of loop i's list, on matrices; an inner test applies its closure. */
static void eval_list_node(lx_pass *p, int32_t i, int32_t u, const lmat *identity)
{
    const ompdag_condag *g = p->g;
    const condag_loops *l = g->loops;
    lmat *o = &p->mat[p->slot[u]];
    if (l->test_of[u] >= 0) {
        int32_t inner = l->test_of[u];
        rta_lx_mat_mul(&p->closure[inner], &p->mat[p->slot[l->exit[inner]]], o, &p->bad);
        return;
    }
    lmat s = *succ_matrix(p, i, u, g->fsucc[g->fsucc_off[u]], identity);
    for (int32_t k = g->fsucc_off[u] + 1; k < g->fsucc_off[u + 1]; ++k)
        rta_lx_mat_max(&s, succ_matrix(p, i, u, g->fsucc[k], identity));
    weights w = rta_lx_weights(g, p->opt, u);
    rta_lx_step_matrix((char)g->kind[u], &w, &s, child_row(p, u), o, &p->bad);
}

/* Loop i's closure: its body on matrices, then the doubling. */
static void closure_of(lx_pass *p, int32_t i)
{
    const ompdag_condag *g = p->g;
    const condag_loops *l = g->loops;
    lmat identity;
    rta_lx_mat_fill(&identity, true);
    int32_t b = l->list_off[i], e = l->list_off[i + 1];
    for (int32_t k = b; k < e; ++k)
        p->slot[l->list[k]] = k - b;
    for (int32_t k = e - 1; k >= b; --k) /* reverse topological order */
        eval_list_node(p, i, l->list[k], &identity);
    weights w = rta_lx_weights(g, p->opt, l->test[i]);
    lx d[QCOUNT] = {[QV] = w.off, [QA] = w.on, [QB] = w.on, [QCW] = w.off, [QDW] = w.off};
    lmat P;
    const lmat *M = &p->mat[p->slot[l->body[i]]];
    for (int k = 0; k < QCOUNT; ++k)
        for (int j = 0; j < QCOUNT; ++j)
            P.a[k][j] = rta_lx_add(d[k], M->a[k][j], &p->bad);
    rta_lx_close_loop(&P, d, l->repeat[i], &p->closure[i], &p->bad);
    if (!p->keep) return;
    for (int32_t k = b; k < e; ++k) /* body nodes relative to this loop's continuation */
        if (p->keep->body_slot[l->list[k]] >= 0)
            p->keep->body[p->keep->body_slot[l->list[k]]] = p->mat[k - b];
    p->keep->P[i] = P;
    memcpy(p->keep->d[i], d, sizeof d);
}

static ompdag_status overflow_error(const ompdag_condag *g, int32_t i, ompdag_error *err)
{
    const condag_loops *l = g->loops;
    if (!l || i == l->n) {
        char largest[512];
        condag_loops_name_largest(g, largest, sizeof largest);
        return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                "the worst flow does not fit in int64 ns%s; lower the loop bound "
                                "or use a coarser time unit",
                                largest);
    }
    ompdag_loc loc = ompdag_condag_node_loc(g, l->test[i]);
    char where[256] = "";
    if (loc.file) snprintf(where, sizeof where, " at %s:%d", loc.file, loc.line);
    return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                            "the worst flow of the loop tested by node '%s'%s (repeat %lld) does "
                            "not fit in int64 ns; lower the loop bound or use a coarser time unit",
                            node_name(g, l->test[i]), where, (long long)l->repeat[i]);
}

/* The pass in reverse topological order: vectors outside loop bodies, a
 * closure at every loop test (inner loops first: their tests come later). */
static void run_pass(lx_pass *p)
{
    const ompdag_condag *g = p->g;
    const condag_loops *l = g->loops;
    for (int32_t k = g->n - 1; k >= 0 && p->failed < 0; --k) {
        int32_t v = g->topo[k], i = l ? l->test_of[v] : -1;
        if (i < 0) {
            if (!l || l->loop_of[v] < 0) eval_row(p, v); /* body nodes live in matrices */
            if (p->bad) p->failed = l ? l->n : 0;        /* not in a loop: name the largest */
            continue;
        }
        closure_of(p, i);
        if (l->outer[i] < 0) /* Y_K = S ⊗ x */
            rta_lx_mat_apply(&p->closure[i], &p->row[l->exit[i]], &p->row[v], &p->bad);
        if (p->bad) p->failed = i;
    }
}

/* The root's tuple on r: its value must be Alg1's, and its parts must add
 * up to it (the identity build_witness checks on plain graphs). */
static ompdag_status take_root(const ompdag_condag *g, const ompdag_rta_options *opt, lx root,
                               ompdag_rta_result *r, ompdag_error *err)
{
    int64_t mo = (int64_t)opt->m * opt->migration_overhead, parts = NEG_INF;
    bool bad = false;
    if (root.c[LX_VAL] != NEG_INF) {
        int64_t mig;
        bad |= __builtin_mul_overflow(mo, root.c[LX_MIG], &mig);
        bad |= __builtin_add_overflow(root.c[LX_VOL], root.c[LX_PW], &parts);
        bad |= __builtin_add_overflow(parts, mig, &parts);
    }
    if (bad || root.c[LX_VAL] != r->bound_times_m || parts != r->bound_times_m)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "internal error: the loops' worst flow gives %lld (its parts add "
                                "up to %lld), the loop closure %lld",
                                (long long)root.c[LX_VAL], (long long)parts,
                                (long long)r->bound_times_m);
    r->vol = root.c[LX_VOL];
    r->len = root.c[LX_LEN];
    r->migrations = opt->migration_overhead ? root.c[LX_MIG] : 0;
    return OMPDAG_OK;
}

ompdag_status rta_loop_flow_sums(const ompdag_condag *g, const ompdag_rta_options *opt,
                                 ompdag_rta_result *r, ompdag_error *err)
{
    return rta_loop_lx_tables(g, opt, r, NULL, err);
}

ompdag_status rta_loop_lx_tables(const ompdag_condag *g, const ompdag_rta_options *opt,
                                 ompdag_rta_result *r, lx_tables *keep, ompdag_error *err)
{
    const condag_loops *l = g->loops;
    int32_t longest = 1, loops = l ? l->n : 0;
    for (int32_t i = 0; i < loops; ++i)
        longest = max2(longest, l->list_off[i + 1] - l->list_off[i]);
    lx_pass p = {g,
                 opt,
                 malloc(sizeof *p.row * (size_t)g->n),
                 malloc(sizeof *p.mat * (size_t)longest),
                 malloc(sizeof *p.slot * (size_t)g->n),
                 malloc(sizeof *p.closure * (size_t)(loops ? loops : 1)),
                 -1,
                 false,
                 keep};
    ompdag_status st = p.row && p.mat && p.slot && p.closure
                           ? OMPDAG_OK
                           : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!st) run_pass(&p);
    if (!st && p.failed >= 0) st = overflow_error(g, p.failed, err);
    if (!st) st = take_root(g, opt, p.row[g->task_source[g->root]].q[QA], r, err);
    if (keep && !st) keep->row = p.row, p.row = NULL; /* rows of nodes outside loop bodies */
    free(p.row), free(p.mat), free(p.slot), free(p.closure);
    return st;
}
