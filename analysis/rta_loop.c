/*
 * analysis/rta_loop.c — the exact bound of a graph with compact loops
 * (docs/compact.md, "Compact loops"; issue 29), without unrolling them.
 *
 * Source: Alg1 of Sun et al. (Chinese Journal of Computers 2020), cleaned up
 * in docs/condag.md §3, applied to the at-most unrolling of every loop
 * (plugin/fe_loop.c); the idea of a dynamic program over the loop structure
 * whose cost does not follow the trip count is that of Sun, Guan et al.,
 * "Calculating worst-case response time bounds for OpenMP programs with loop
 * structures" (RTSS 2021).  Here it is carried out in the max-plus semiring:
 *
 * Each of Alg1's five values (V, A, B, Cw, Dw) of a node is a maximum of sums
 * that hold exactly one value of its F-successor each (the created child's
 * values are constants), so the values at the start of a loop body are a
 * max-plus linear function of the values after it: a 5×5 matrix M, found by
 * running the recurrences over the body once on matrices (the "continuation"
 * after the body's last node is the identity).  With d the loop test's own
 * weights (c, m·c, m·c, c, c) and D = diag(d), the unrolled tests satisfy
 *     Y_0 = x (the exit's values),   Y_k = D ⊗ (x ⊕ M ⊗ Y_{k−1}),
 * so with P = D ⊗ M the test with K iterations left has
 *     Y_K = S ⊗ x,   S = (⊕_{i<K} P^i) ⊗ D ⊕ P^K,
 * computed by doubling in O(5³·log K).  Max and + on integers are exact and
 * associative, so Y_K equals Alg1 on the unrolled graph bit for bit; the
 * maximum over 0..K iterations is in S by construction (every shorter run is
 * a flow through one of the tests' exits).  Inner loops are closed first
 * (their tests come later in topological order) and enter the outer body as
 * their matrix S; a body is evaluated once per loop, O(5²) per node.
 * Every sum is checked: overflow is an error naming the loop.
 */
#include <stdio.h>
#include <string.h>

#include "condag_loops.h"
#include "rta_loop.h"

typedef struct mat5 {
    int64_t a[QCOUNT][QCOUNT]; /* a[k][j]: value k given the continuation's value j */
} mat5;

typedef struct loop_pass {
    const ompdag_condag *g;
    const ompdag_rta_options *opt;
    const ompdag_exact_row *row; /* the vector pass's rows (created children) */
    mat5 *mat;                   /* per slot of the current loop's list */
    int32_t *slot;               /* per node: its slot in the current list */
    mat5 *closure;               /* per loop: S */
    bool overflow;
} loop_pass;

/* a + b with −∞ absorbing; sets *bad on int64 overflow. */
static int64_t add_chk(int64_t a, int64_t b, bool *bad)
{
    int64_t s;
    if (a == NEG_INF || b == NEG_INF) return NEG_INF;
    if (__builtin_add_overflow(a, b, &s)) *bad = true;
    return s;
}

static void mat_fill(mat5 *m, bool identity)
{
    for (int k = 0; k < QCOUNT; ++k)
        for (int j = 0; j < QCOUNT; ++j)
            m->a[k][j] = identity && k == j ? 0 : NEG_INF;
}

/* out = x ⊗ y (out may not alias). */
static void mat_mul(const mat5 *x, const mat5 *y, mat5 *out, bool *bad)
{
    for (int k = 0; k < QCOUNT; ++k)
        for (int j = 0; j < QCOUNT; ++j) {
            int64_t best = NEG_INF;
            for (int i = 0; i < QCOUNT; ++i)
                best = max2(best, add_chk(x->a[k][i], y->a[i][j], bad));
            out->a[k][j] = best;
        }
}

static void mat_max(mat5 *acc, const mat5 *y)
{
    for (int k = 0; k < QCOUNT; ++k)
        for (int j = 0; j < QCOUNT; ++j)
            acc->a[k][j] = max2(acc->a[k][j], y->a[k][j]);
}

/* out[k] = max(out[k], base + s[j]) for every column: one term of a recurrence. */
static void row_term(int64_t *out, int64_t base, const int64_t *s, bool *bad)
{
    for (int j = 0; j < QCOUNT; ++j)
        out[j] = max2(out[j], add_chk(base, s[j], bad));
}

/* ompdag_exact_eval_node on matrices: s is the F-successor's matrix (the
 * maximum over a C node's successors), j the created child's row or NULL. */
static void step_matrix(char kind, int64_t c, int64_t mc, const mat5 *s, const ompdag_exact_row *j,
                        mat5 *o, bool *bad)
{
    mat_fill(o, false);
    if (j) { /* T: skip the child, end in it, or return at the next W */
        int64_t cv = add_chk(c, j->q[QV], bad);
        row_term(o->a[QV], cv, s->a[QV], bad);
        row_term(o->a[QA], add_chk(mc, j->q[QV], bad), s->a[QA], bad);
        row_term(o->a[QA], add_chk(mc, j->q[QA], bad), s->a[QV], bad);
        row_term(o->a[QA], add_chk(mc, j->q[QB], bad), s->a[QCW], bad);
        row_term(o->a[QB], add_chk(mc, j->q[QV], bad), s->a[QB], bad);
        row_term(o->a[QB], add_chk(mc, j->q[QB], bad), s->a[QDW], bad);
        row_term(o->a[QCW], cv, s->a[QCW], bad);
        row_term(o->a[QDW], cv, s->a[QDW], bad);
        return;
    }
    row_term(o->a[QV], c, s->a[QV], bad);
    row_term(o->a[QA], mc, s->a[QA], bad);
    row_term(o->a[QB], mc, s->a[QB], bad);
    if (kind == 'W') { /* a path may start here */
        memcpy(o->a[QCW], o->a[QA], sizeof o->a[QA]);
        memcpy(o->a[QDW], o->a[QB], sizeof o->a[QB]);
    } else {
        row_term(o->a[QCW], c, s->a[QCW], bad);
        row_term(o->a[QDW], c, s->a[QDW], bad);
    }
}

/* The matrix of F-successor s of a node of loop i: the identity after the
 * body's last node (the continuation itself). */
static const mat5 *succ_matrix(const loop_pass *p, int32_t i, int32_t u, int32_t s,
                               const mat5 *identity)
{
    return u == p->g->loops->end[i] ? identity : &p->mat[p->slot[s]];
}

/* One node of loop i's list, on matrices; an inner test applies its closure. */
static void eval_list_node(loop_pass *p, int32_t i, int32_t u, const mat5 *identity)
{
    const ompdag_condag *g = p->g;
    const condag_loops *l = g->loops;
    mat5 *o = &p->mat[p->slot[u]];
    if (l->test_of[u] >= 0) {
        int32_t inner = l->test_of[u];
        mat_mul(&p->closure[inner], &p->mat[p->slot[l->exit[inner]]], o, &p->overflow);
        return;
    }
    mat5 s = *succ_matrix(p, i, u, g->fsucc[g->fsucc_off[u]], identity);
    for (int32_t k = g->fsucc_off[u] + 1; k < g->fsucc_off[u + 1]; ++k)
        mat_max(&s, succ_matrix(p, i, u, g->fsucc[k], identity));
    int64_t pen = rta_penalty(g, p->opt, u);
    const ompdag_exact_row *j = g->creates[u] >= 0 ? &p->row[g->task_source[g->creates[u]]] : NULL;
    step_matrix((char)g->kind[u], rta_c(g, p->opt, u) + pen, rta_mc(g, p->opt, u), &s, j, o,
                &p->overflow);
}

/* S = (⊕_{i<K} P^i) ⊗ D ⊕ P^K by doubling over K's bits, high bit first:
 * (Pn, Sn) = (P^n, ⊕_{i<n} P^i);  n -> 2n: Sn ⊕ Pn⊗Sn, Pn⊗Pn;
 * n -> n+1: I ⊕ P⊗Sn, P⊗Pn. */
static void close_loop(const mat5 *P, const int64_t d[QCOUNT], int64_t K, mat5 *S, bool *bad)
{
    mat5 pn, sn, t, u;
    mat_fill(&pn, true);
    mat_fill(&sn, false);
    for (int bit = 62; bit >= 0; --bit) {
        mat_mul(&pn, &sn, &t, bad); /* doubling */
        mat_max(&sn, &t);
        mat_mul(&pn, &pn, &u, bad);
        pn = u;
        if (!((K >> bit) & 1)) continue;
        mat_mul(P, &sn, &t, bad); /* one more */
        mat_fill(&sn, true);
        mat_max(&sn, &t);
        mat_mul(P, &pn, &u, bad);
        pn = u;
    }
    for (int k = 0; k < QCOUNT; ++k) /* Sn ⊗ D: column j gains d_j */
        for (int j = 0; j < QCOUNT; ++j)
            S->a[k][j] = add_chk(sn.a[k][j], d[j], bad);
    mat_max(S, &pn);
}

/* Loop i's closure: its body on matrices, then the doubling. */
static void closure_of(loop_pass *p, int32_t i)
{
    const ompdag_condag *g = p->g;
    const condag_loops *l = g->loops;
    mat5 identity;
    mat_fill(&identity, true);
    int32_t b = l->list_off[i], e = l->list_off[i + 1];
    for (int32_t k = b; k < e; ++k)
        p->slot[l->list[k]] = k - b;
    for (int32_t k = e - 1; k >= b; --k) /* reverse topological order */
        eval_list_node(p, i, l->list[k], &identity);
    int32_t t = l->test[i];
    int64_t c = rta_c(g, p->opt, t) + rta_penalty(g, p->opt, t), mc = rta_mc(g, p->opt, t);
    int64_t d[QCOUNT] = {[QV] = c, [QA] = mc, [QB] = mc, [QCW] = c, [QDW] = c};
    mat5 P;
    const mat5 *M = &p->mat[p->slot[l->body[i]]];
    for (int k = 0; k < QCOUNT; ++k)
        for (int j = 0; j < QCOUNT; ++j)
            P.a[k][j] = add_chk(d[k], M->a[k][j], &p->overflow);
    close_loop(&P, d, l->repeat[i], &p->closure[i], &p->overflow);
}

ompdag_status rta_loop_overflow_error(const ompdag_condag *g, int32_t i, ompdag_error *err)
{
    const condag_loops *l = g->loops;
    ompdag_loc loc = ompdag_condag_node_loc(g, l->test[i]);
    char where[256] = "";
    if (loc.file) snprintf(where, sizeof where, " at %s:%d", loc.file, loc.line);
    return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                            "the loop tested by node '%s'%s (repeat %lld): m·R does not fit in "
                            "int64 ns; lower the loop bound or use a coarser time unit",
                            node_name(g, l->test[i]), where, (long long)l->repeat[i]);
}

ompdag_status rta_loop_tables(const ompdag_condag *g, const ompdag_rta_options *opt,
                              ompdag_exact_row *row, ompdag_error *err)
{
    const condag_loops *l = g->loops;
    int32_t longest = 1;
    for (int32_t i = 0; i < l->n; ++i)
        longest = max2(longest, l->list_off[i + 1] - l->list_off[i]);
    loop_pass p = {g,
                   opt,
                   row,
                   malloc(sizeof *p.mat * (size_t)longest),
                   malloc(sizeof *p.slot * (size_t)g->n),
                   malloc(sizeof *p.closure * (size_t)l->n),
                   false};
    ompdag_status st = p.mat && p.slot && p.closure
                           ? OMPDAG_OK
                           : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    for (int32_t k = g->n - 1; k >= 0 && !st; --k) {
        int32_t v = g->topo[k], i = l->test_of[v];
        if (i < 0) {
            int32_t child = g->creates[v] >= 0 ? g->task_source[g->creates[v]] : -1;
            ompdag_exact_eval_node(row, v, (char)g->kind[v],
                                   rta_c(g, opt, v) + rta_penalty(g, opt, v), rta_mc(g, opt, v),
                                   g->fsucc + g->fsucc_off[v],
                                   g->fsucc_off[v + 1] - g->fsucc_off[v], child);
            continue;
        }
        closure_of(&p, i);
        for (int q = 0; q < QCOUNT; ++q) { /* Y_K = S ⊗ x */
            int64_t best = NEG_INF;
            for (int j = 0; j < QCOUNT; ++j)
                best = max2(best, add_chk(p.closure[i].a[q][j], row[l->exit[i]].q[j], &p.overflow));
            row[v].q[q] = best;
        }
        if (p.overflow) st = rta_loop_overflow_error(g, i, err);
    }
    free(p.mat), free(p.slot), free(p.closure);
    return st;
}

/* ---- the worst flow: on the unrolled loops, mapped back ------------------ */

/* Unrolled nodes: every node times its copies per instance of its task. */
static uint64_t unrolled_size(const ompdag_condag *g)
{
    uint64_t n = 0;
    for (int32_t v = 0; v < g->n; ++v)
        if (__builtin_add_overflow(n, condag_loops_mult(g, v), &n)) return UINT64_MAX;
    return n;
}

/* orig[x] = the node of g that node x of the unrolled graph copies
 * (condag_loops_unroll adds v's copies in a row, in node order). */
static int32_t *copy_origins(const ompdag_condag *g, const ompdag_condag *x)
{
    int32_t *orig = malloc(sizeof *orig * (size_t)x->n);
    if (!orig) return NULL;
    int32_t at = 0;
    for (int32_t v = 0; v < g->n; ++v)
        for (uint64_t k = 0; k < condag_loops_mult(g, v); ++k)
            orig[at++] = v;
    assert(at == x->n);
    return orig;
}

/* Alg1's rows on the unrolled graph (the pass of rta_exact.c). */
static void unrolled_tables(const ompdag_condag *x, const ompdag_rta_options *opt,
                            ompdag_exact_row *row)
{
    for (int32_t i = x->n - 1; i >= 0; --i) {
        int32_t v = x->topo[i];
        int32_t child = x->creates[v] >= 0 ? x->task_source[x->creates[v]] : -1;
        ompdag_exact_eval_node(row, v, (char)x->kind[v], rta_c(x, opt, v) + rta_penalty(x, opt, v),
                               rta_mc(x, opt, v), x->fsucc + x->fsucc_off[v],
                               x->fsucc_off[v + 1] - x->fsucc_off[v], child);
    }
}

/* Copies the unrolled witness xr onto r, node by node through orig. */
static ompdag_status map_back(const ompdag_condag *g, const ompdag_condag *x, const int32_t *orig,
                              ompdag_rta_result *xr, ompdag_rta_result *r, ompdag_error *err)
{
    r->choice_alt = malloc(sizeof *r->choice_alt * (size_t)g->n);
    r->reached = calloc((size_t)g->n, 1);
    r->path = malloc(sizeof *r->path * (size_t)(xr->path_len ? xr->path_len : 1));
    if (!r->choice_alt || !r->reached || !r->path)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    memset(r->choice_alt, 0xff, sizeof *r->choice_alt * (size_t)g->n);
    for (int32_t u = 0; u < x->n; ++u) { /* copies in order: the first copy's choice first */
        int32_t v = orig[u];
        r->reached[v] |= xr->reached[u];
        int32_t alts[2] = {xr->choice[u], xr->choice_alt ? xr->choice_alt[u] : -1};
        for (int a = 0; a < 2; ++a) {
            if (alts[a] < 0) continue;
            int32_t c = orig[alts[a]];
            if (r->choice[v] < 0)
                r->choice[v] = c;
            else if (c != r->choice[v] && r->choice_alt[v] < 0)
                r->choice_alt[v] = c;
        }
    }
    for (int32_t k = 0; k < xr->path_len; ++k)
        r->path[k] = orig[xr->path[k]];
    r->path_len = xr->path_len;
    r->path_nodes = xr->path_nodes;
    r->vol = xr->vol, r->len = xr->len, r->migrations = xr->migrations;
    r->compact = true;
    return OMPDAG_OK;
}

/* Iterations of loop i's instance o (copies o·K .. o·K + K − 1 of its test,
 * from base u0): the fewest run where some instance takes the exit at copy
 * k (k iterations), the most where one takes the body at copy k (k + 1). */
static void instance_iterations(const ompdag_condag *g, const ompdag_rta_result *xr,
                                const int32_t *orig, int32_t i, int32_t u0, int64_t *lo,
                                int64_t *hi)
{
    const condag_loops *l = g->loops;
    int64_t K = l->repeat[i], first_exit = K, last_body = 0;
    for (int64_t k = 0; k < K; ++k) {
        int32_t u = u0 + (int32_t)k;
        if (!xr->reached[u]) continue;
        int32_t takes[2] = {xr->choice[u], xr->choice_alt ? xr->choice_alt[u] : -1};
        for (int a = 0; a < 2; ++a) {
            if (takes[a] < 0) continue;
            if (orig[takes[a]] == l->exit[i])
                first_exit = first_exit < k ? first_exit : k;
            else
                last_body = k + 1;
        }
    }
    *lo = *lo < first_exit ? *lo : first_exit;
    *hi = *hi > last_body ? *hi : last_body;
}

/* r->loop_lo/hi: over the reached instances of every loop test. */
static ompdag_status loop_iterations(const ompdag_condag *g, const ompdag_rta_result *xr,
                                     const int32_t *orig, ompdag_rta_result *r, ompdag_error *err)
{
    const condag_loops *l = g->loops;
    r->loop_lo = malloc(sizeof *r->loop_lo * (size_t)g->n);
    r->loop_hi = malloc(sizeof *r->loop_hi * (size_t)g->n);
    if (!r->loop_lo || !r->loop_hi) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    for (int32_t v = 0; v < g->n; ++v)
        r->loop_lo[v] = r->loop_hi[v] = -1;
    int32_t base = 0;
    for (int32_t v = 0; v < g->n; base += (int32_t)condag_loops_mult(g, v), ++v) {
        int32_t i = l->test_of[v];
        if (i < 0 || !r->reached[v]) continue;
        int64_t lo = INT64_MAX, hi = 0, K = l->repeat[i];
        for (uint64_t o = 0; o * (uint64_t)K < condag_loops_mult(g, v); ++o)
            if (xr->reached[base + (int32_t)(o * (uint64_t)K)]) /* instance o entered the loop */
                instance_iterations(g, xr, orig, i, base + (int32_t)(o * (uint64_t)K), &lo, &hi);
        r->loop_lo[v] = lo, r->loop_hi[v] = hi;
    }
    return OMPDAG_OK;
}

bool ompdag_rta_result_loop_iterations(const ompdag_rta_result *r, int32_t v, int64_t *lo,
                                       int64_t *hi)
{
    if (!r->loop_lo || v < 0 || v >= r->n || r->loop_lo[v] < 0) return false;
    *lo = r->loop_lo[v], *hi = r->loop_hi[v];
    return true;
}

/* The witness of the unrolled graph x, whose bound must be r's. */
static ompdag_status unrolled_witness(const ompdag_condag *x, const ompdag_rta_options *opt,
                                      int64_t bound_times_m, ompdag_rta_result **out,
                                      ompdag_error *err)
{
    ompdag_exact_row *row = malloc(sizeof *row * (size_t)x->n);
    ompdag_rta_result *xr = rta_result_new(x, OMPDAG_ALG_EXACT, opt->m, true);
    ompdag_status st =
        row && xr ? OMPDAG_OK : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!st) {
        unrolled_tables(x, opt, row);
        xr->bound_times_m = row[x->task_source[x->root]].q[QA];
        if (xr->bound_times_m != bound_times_m) /* the closure and the unrolling must agree */
            st = ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                  "internal error: the loop closure gives %lld, the unrolled "
                                  "loops %lld",
                                  (long long)bound_times_m, (long long)xr->bound_times_m);
    }
    if (!st) st = rta_compact_witness(x, opt, row, xr, err);
    free(row);
    if (st) {
        ompdag_rta_result_destroy(xr);
        return st;
    }
    *out = xr;
    return OMPDAG_OK;
}

static uint64_t witness_limit = RTA_LOOP_WITNESS_LIMIT;

void rta_loop_set_witness_limit(uint64_t nodes)
{
    witness_limit = nodes ? nodes : RTA_LOOP_WITNESS_LIMIT;
}

ompdag_status rta_loop_witness(const ompdag_condag *g, const ompdag_rta_options *opt,
                               ompdag_rta_result *r, ompdag_error *err)
{
    if (unrolled_size(g) > witness_limit) /* replayed in runs of iterations */
        return rta_loop_replay_witness(g, opt, r, err);
    ompdag_condag *x = NULL;
    ompdag_rta_result *xr = NULL;
    int32_t *orig = NULL;
    ompdag_status st = condag_loops_unroll(g, false, &x, err); /* W-edges unread */
    if (!st)
        st = (orig = copy_origins(g, x)) ? OMPDAG_OK
                                         : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!st) st = unrolled_witness(x, opt, r->bound_times_m, &xr, err);
    if (!st) st = map_back(g, x, orig, xr, r, err);
    if (!st) st = loop_iterations(g, xr, orig, r, err);
    ompdag_rta_result_destroy(xr);
    ompdag_condag_destroy(x);
    free(orig);
    return st;
}
