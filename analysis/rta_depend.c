/*
 * analysis/rta_depend.c — the response-time bound of Theorem 1 (seed 004,
 * shared/spec/condag.md §2) for graphs whose sibling tasks are ordered by
 * `depend` clauses (§6).  Seed 004's Alg1 (rta_exact.c) extended with one
 * more kind of path step; the proof is in docs/analysis.md, "Sibling
 * dependences".
 *
 * Two facts make a per-node recurrence possible.
 *  (1) Static D-edges.  In any flow, replacing Rule 3's D-edges by "every pair
 *      of executed siblings τa, τb, τa created first, with conflicting clauses
 *      on a common var (not both `in`)" leaves the longest path unchanged:
 *      each such pair is joined by a chain of Rule-3 edges through the
 *      writers in between, and WCETs are ≥ 0.  So a D-edge is present in a
 *      flow exactly when both creators run, like T- and W-edges.
 *  (2) Tasks stay modules.  A path enters a task's subtree only at its source
 *      (T-edge, or D-edge from an earlier sibling) and leaves only from its
 *      sink (W-edge, or D-edge to a later sibling), so A(j), B(j), V(j) of the
 *      child's source summarise it as in Alg1.
 *
 * For node v of task τi, on top of Alg1's V, A, B, Cw, Dw, two values per key
 * k = (var x, mode) among τi's children's clauses, the mode being in, write
 * (out/inout), set (inoutset) or mutex (mutexinoutset); a key is met by a
 * later sibling whose clause on x conflicts with its mode (the modes differ,
 * or one writes; docs/depend.md: "in" keys are met by writers and sets, write
 * keys by any clause on x):
 *   E_k(v)  volume + (m−1)·path, the path starting at the source of a child
 *           created at-or-after v that meets k, ending anywhere
 *   F_k(v)  … ending at the sink of τi
 * At a T node t creating τj (clauses K_j, keys κ(K_j)), successor s:
 *   X = max( A(j)+V(s),  B(j)+Cw(s),  B(j)+E_κ(s) for κ in κ(K_j) )  — path from τj's source
 *   Y = max( B(j)+Dw(s), B(j)+F_κ(s) for κ in κ(K_j) )              — … to τi's sink
 *   A = m·c + max(A(s)+V(j), X);   B = m·c + max(B(s)+V(j), Y)
 *   E_k = c + max(E_k(s)+V(j), X if τj meets k);  F_k = c + max(F_k(s)+V(j), Y if τj meets k)
 * C nodes take the max over successors, other nodes add c (or m·c) to their
 * successor's values.  A partial taskwait w (a W node with depend items,
 * docs/analysis.md "Partial taskwaits") is one more place a child's path may
 * resume: for each key k it meets (an item conflicts with k),
 * E_k(w) = max(c + E_k(s), A(w)) and F_k(w) = max(c + F_k(s), B(w)); it does
 * not start Cw/Dw, which follow Rule 2 to the next full W.  Cost O(Σ nodes of τi × keys of τi);
 * above a cell budget vars are merged into classes (more edges: sound, and the result says it is
 * not exact; a graph without C nodes then falls back to measuring its single flow, which is exact).
 */
#include <string.h>

#include "ompdag/exact_kernel.h"
#include "rta_internal.h"

#define DEFAULT_CELLS ((int64_t)1 << 22)
static int64_t cell_budget = 0; /* 0: default */

void rta_depend_set_cell_budget(int64_t cells)
{
    cell_budget = cells;
}

typedef struct dep_key {
    int32_t task, x; /* x: var class */
    int32_t mode;    /* CONDAG_MODE_*: met by the clauses that conflict with it */
} dep_key;

typedef struct dep_tables {
    const ompdag_condag *g;
    const condag_dep *d;
    ompdag_exact_row *row;
    int32_t *koff; /* per task: its keys are koff[t] .. koff[t+1]-1 */
    dep_key *keys;
    int32_t *jkey; /* per clause (CSR index): the key τj jumps with, local to its task */
    int32_t *meet; /* per clause c and mode k, [c·CONDAG_MODES + k]: local index of the key
                      (x, k) when the clause meets it (conflicts), else -1 */
    int64_t *coff; /* per node: first E/F cell */
    int64_t *E, *F;
    int32_t *met;    /* per local key: stamp of the T node that meets it */
    int32_t classes; /* var classes: nvar when exact */
} dep_tables;

static int cmp_key(const void *a, const void *b)
{
    const dep_key *x = a, *y = b;
    if (x->task != y->task) return (x->task > y->task) - (x->task < y->task);
    if (x->x != y->x) return (x->x > y->x) - (x->x < y->x);
    return (x->mode > y->mode) - (x->mode < y->mode);
}

static int32_t nkeys(const dep_tables *t, int32_t task)
{
    return t->koff[task + 1] - t->koff[task];
}

/* Number of E/F cells the tables would need with `classes` var classes. */
static int64_t count_cells(const ompdag_condag *g, const condag_dep *d, int32_t classes,
                           dep_key *scratch, int32_t *per_task)
{
    int64_t k = 0;
    for (int32_t v = 0; v < g->n; ++v)
        for (int32_t c = d->off[v]; c < d->off[v + 1] && g->kind[v] == OMPDAG_KIND_T; ++c)
            scratch[k++] =
                (dep_key){g->node_task[v], d->cvar[c] % classes, condag_dep_mode(d->ctype[c])};
    qsort(scratch, (size_t)k, sizeof *scratch, cmp_key);
    memset(per_task, 0, sizeof *per_task * (size_t)g->nt);
    for (int64_t i = 0; i < k; ++i)
        if (!i || cmp_key(&scratch[i], &scratch[i - 1])) per_task[scratch[i].task]++;
    int64_t cells = 0, *tn = calloc((size_t)g->nt, sizeof *tn);
    if (!tn) return INT64_MAX;
    for (int32_t v = 0; v < g->n; ++v)
        tn[g->node_task[v]]++;
    for (int32_t t = 0; t < g->nt; ++t)
        cells += tn[t] * per_task[t];
    free(tn);
    return cells;
}

static int32_t find_key(const dep_tables *t, int32_t task, int32_t x, int32_t mode)
{
    dep_key k = {task, x, mode};
    const dep_key *base = t->keys + t->koff[task];
    const dep_key *hit = bsearch(&k, base, (size_t)nkeys(t, task), sizeof k, cmp_key);
    return hit ? (int32_t)(hit - base) : -1;
}

/* Keys per task, each clause's keys, and the cell offsets. */
static bool build_keys(dep_tables *t, int64_t budget)
{
    const ompdag_condag *g = t->g;
    const condag_dep *d = t->d;
    int64_t nc = d->n;
    dep_key *all = malloc(sizeof *all * (size_t)(nc ? nc : 1));
    int32_t *per_task = malloc(sizeof *per_task * (size_t)g->nt);
    if (!all || !per_task) return free(all), free(per_task), false;
    t->classes = d->nvar > 1 ? d->nvar : 1;
    while (t->classes > 1 && count_cells(g, d, t->classes, all, per_task) > budget)
        t->classes = (t->classes + 1) / 2;
    count_cells(g, d, t->classes, all, per_task); /* leaves `all` sorted for these classes */
    t->koff = malloc(sizeof *t->koff * ((size_t)g->nt + 1));
    t->keys = malloc(sizeof *t->keys * (size_t)(nc ? nc : 1));
    t->jkey = malloc(sizeof *t->jkey * (size_t)(nc ? nc : 1));
    t->meet = malloc(sizeof *t->meet * CONDAG_MODES * (size_t)(nc ? nc : 1));
    t->coff = malloc(sizeof *t->coff * ((size_t)g->n + 1));
    bool ok = t->koff && t->keys && t->jkey && t->meet && t->coff;
    if (ok) {
        t->koff[0] = 0;
        for (int32_t k = 0; k < g->nt; ++k)
            t->koff[k + 1] = t->koff[k] + per_task[k];
        int32_t u = 0;
        for (int64_t i = 0; i < nc; ++i)
            if (!i || cmp_key(&all[i], &all[i - 1])) t->keys[u++] = all[i];
        for (int32_t v = 0; v < g->n; ++v) {
            int32_t task = g->node_task[v];
            bool wait = g->kind[v] == OMPDAG_KIND_W; /* a partial taskwait only meets keys */
            for (int32_t c = d->off[v]; c < d->off[v + 1]; ++c) {
                int32_t x = d->cvar[c] % t->classes;
                int mode = wait ? condag_wait_mode(d->ctype[c]) : condag_dep_mode(d->ctype[c]);
                for (int k = 0; k < CONDAG_MODES; ++k)
                    t->meet[c * CONDAG_MODES + k] =
                        condag_dep_conflict(mode, k) ? find_key(t, task, x, k) : -1;
                t->jkey[c] = wait ? -1 : find_key(t, task, x, mode);
                assert(wait || t->jkey[c] >= 0);
            }
        }
        t->coff[0] = 0;
        for (int32_t v = 0; v < g->n; ++v)
            t->coff[v + 1] = t->coff[v] + nkeys(t, g->node_task[v]);
    }
    free(all), free(per_task);
    return ok;
}

/* ---- the recurrence --------------------------------------------------------- */

static const ompdag_exact_row NO_SUCC = {{0, 0, 0, NEG_INF, NEG_INF}};

static ompdag_exact_row succ_row(const dep_tables *t, int32_t s)
{
    return s >= 0 ? t->row[s] : NO_SUCC;
}
static int64_t succ_E(const dep_tables *t, int32_t s, int32_t k)
{
    return s >= 0 ? t->E[t->coff[s] + k] : NEG_INF;
}
static int64_t succ_F(const dep_tables *t, int32_t s, int32_t k)
{
    return s >= 0 ? t->F[t->coff[s] + k] : NEG_INF;
}
static int32_t first_fsucc(const ompdag_condag *g, int32_t v)
{
    return g->fsucc_off[v + 1] > g->fsucc_off[v] ? g->fsucc[g->fsucc_off[v]] : -1;
}

/* X and Y of T node v: the path starts at the created task's source. */
static int64_t path_from_child(const dep_tables *t, int32_t v, int32_t s, bool to_sink)
{
    ompdag_exact_row S = succ_row(t, s), J = t->row[t->g->task_source[t->g->creates[v]]];
    int64_t best = to_sink ? add_ninf(J.q[QB], S.q[QDW])
                           : max2(add_ninf(J.q[QA], S.q[QV]), add_ninf(J.q[QB], S.q[QCW]));
    for (int32_t c = t->d->off[v]; c < t->d->off[v + 1]; ++c) {
        int64_t later = to_sink ? succ_F(t, s, t->jkey[c]) : succ_E(t, s, t->jkey[c]);
        best = max2(best, add_ninf(J.q[QB], later));
    }
    return best;
}

static void eval_branch(dep_tables *t, int32_t v, int64_t c1, int64_t mc, int32_t q)
{
    const ompdag_condag *g = t->g;
    ompdag_exact_row r = {{NEG_INF, NEG_INF, NEG_INF, NEG_INF, NEG_INF}};
    int64_t *E = t->E + t->coff[v], *F = t->F + t->coff[v];
    for (int32_t k = 0; k < q; ++k)
        E[k] = F[k] = NEG_INF;
    for (int32_t i = g->fsucc_off[v]; i < g->fsucc_off[v + 1]; ++i) {
        int32_t s = g->fsucc[i];
        for (int k = 0; k < QCOUNT; ++k)
            r.q[k] = max2(r.q[k], t->row[s].q[k]);
        for (int32_t k = 0; k < q; ++k)
            E[k] = max2(E[k], succ_E(t, s, k)), F[k] = max2(F[k], succ_F(t, s, k));
    }
    r.q[QV] += c1, r.q[QA] += mc, r.q[QB] += mc;
    r.q[QCW] = add_ninf(r.q[QCW], c1), r.q[QDW] = add_ninf(r.q[QDW], c1);
    for (int32_t k = 0; k < q; ++k)
        E[k] = add_ninf(E[k], c1), F[k] = add_ninf(F[k], c1);
    t->row[v] = r;
}

/* Marks the local keys that the task created by T node v meets. */
static void mark_met(dep_tables *t, int32_t v)
{
    for (int32_t c = t->d->off[v]; c < t->d->off[v + 1]; ++c) {
        for (int k = 0; k < CONDAG_MODES; ++k)
            if (t->meet[c * CONDAG_MODES + k] >= 0) t->met[t->meet[c * CONDAG_MODES + k]] = v;
    }
}

static void eval_creation(dep_tables *t, int32_t v, int64_t c1, int64_t mc, int32_t q)
{
    const ompdag_condag *g = t->g;
    int32_t s = first_fsucc(g, v);
    ompdag_exact_row S = succ_row(t, s), J = t->row[g->task_source[g->creates[v]]], r;
    int64_t X = path_from_child(t, v, s, false), Y = path_from_child(t, v, s, true);
    r.q[QV] = c1 + S.q[QV] + J.q[QV];
    r.q[QA] = mc + max2(S.q[QA] + J.q[QV], X);
    r.q[QB] = mc + max2(add_ninf(S.q[QB], J.q[QV]), Y);
    r.q[QCW] = add_ninf(S.q[QCW], c1 + J.q[QV]);
    r.q[QDW] = add_ninf(S.q[QDW], c1 + J.q[QV]);
    t->row[v] = r;
    mark_met(t, v);
    int64_t *E = t->E + t->coff[v], *F = t->F + t->coff[v];
    for (int32_t k = 0; k < q; ++k) {
        bool met = t->met[k] == v;
        E[k] = add_ninf(max2(add_ninf(succ_E(t, s, k), J.q[QV]), met ? X : NEG_INF), c1);
        F[k] = add_ninf(max2(add_ninf(succ_F(t, s, k), J.q[QV]), met ? Y : NEG_INF), c1);
    }
}

/* N, J and W nodes.  A full taskwait starts Cw and Dw (Alg1).  A partial
 * one (docs/analysis.md, "Partial taskwaits") is a later target for the
 * children whose keys it meets: for such a key the path may start here,
 * E_k = max(A, c + E_k(s)); for the others, and for Cw, it is plain code. */
static void eval_plain(dep_tables *t, int32_t v, int64_t c1, int64_t mc, int32_t q)
{
    int32_t s = first_fsucc(t->g, v);
    ompdag_exact_row S = succ_row(t, s), r;
    r.q[QV] = c1 + S.q[QV];
    r.q[QA] = mc + S.q[QA];
    r.q[QB] = mc + S.q[QB];
    bool partial = condag_is_partial_wait(t->g, v);
    bool w = t->g->kind[v] == OMPDAG_KIND_W && !partial;
    r.q[QCW] = w ? r.q[QA] : add_ninf(S.q[QCW], c1);
    r.q[QDW] = w ? r.q[QB] : add_ninf(S.q[QDW], c1);
    t->row[v] = r;
    if (partial) mark_met(t, v);
    int64_t *E = t->E + t->coff[v], *F = t->F + t->coff[v];
    for (int32_t k = 0; k < q; ++k) {
        E[k] = add_ninf(succ_E(t, s, k), c1), F[k] = add_ninf(succ_F(t, s, k), c1);
        if (partial && t->met[k] == v) E[k] = max2(E[k], r.q[QA]), F[k] = max2(F[k], r.q[QB]);
    }
}

static void compute_tables(dep_tables *t, const ompdag_rta_options *opt)
{
    const ompdag_condag *g = t->g;
    for (int32_t i = g->n - 1; i >= 0; --i) {
        int32_t v = g->topo[i]; /* the serial order: D-edges respected too */
        int64_t p = rta_penalty(g, opt, v);
        int64_t c1 = rta_c(g, opt, v) + p, mc = rta_mc(g, opt, v); /* chain-only delays: mc */
        int32_t q = nkeys(t, g->node_task[v]);
        if (g->kind[v] == OMPDAG_KIND_C)
            eval_branch(t, v, c1, mc, q);
        else if (g->creates[v] >= 0)
            eval_creation(t, v, c1, mc, q);
        else
            eval_plain(t, v, c1, mc, q);
    }
}

/* ---- witness: replay the argmax decisions ------------------------------------
 * States: QV..QDW, then E_k = QCOUNT + 2k, F_k = QCOUNT + 2k + 1. */

static int64_t value(const dep_tables *t, int32_t v, int32_t st)
{
    if (st < QCOUNT) return t->row[v].q[st];
    int32_t k = (st - QCOUNT) / 2;
    return (st - QCOUNT) % 2 ? t->F[t->coff[v] + k] : t->E[t->coff[v] + k];
}
static int32_t state_E(int32_t k)
{
    return QCOUNT + 2 * k;
}
static int32_t state_F(int32_t k)
{
    return QCOUNT + 2 * k + 1;
}

typedef struct walk {
    int32_t *v, *st;
    int32_t top;
} walk;

static void push(walk *w, int32_t v, int32_t st)
{
    if (v >= 0) w->v[w->top] = v, w->st[w->top++] = st;
}

/* Which option produced X (to_sink false) or Y (to_sink true) at T node v. */
static void expand_child_path(const dep_tables *t, walk *w, int32_t v, int32_t s, int64_t want,
                              bool to_sink)
{
    int32_t jn = t->g->task_source[t->g->creates[v]];
    ompdag_exact_row S = succ_row(t, s), J = t->row[jn];
    if (!to_sink && add_ninf(J.q[QA], S.q[QV]) == want) return push(w, jn, QA), push(w, s, QV);
    if (add_ninf(J.q[QB], S.q[to_sink ? QDW : QCW]) == want)
        return push(w, jn, QB), push(w, s, to_sink ? QDW : QCW);
    for (int32_t c = t->d->off[v]; c < t->d->off[v + 1]; ++c) {
        int32_t k = t->jkey[c];
        int64_t later = to_sink ? succ_F(t, s, k) : succ_E(t, s, k);
        if (add_ninf(J.q[QB], later) == want)
            return push(w, jn, QB), push(w, s, to_sink ? state_F(k) : state_E(k));
    }
    assert(!"no option of the T-node recurrence attains its value");
}

/* Partial taskwait v meets local key k: a child with k conflicts with an item. */
static bool wait_meets(const dep_tables *t, int32_t v, int32_t k)
{
    for (int32_t c = t->d->off[v]; c < t->d->off[v + 1]; ++c)
        for (int m = 0; m < CONDAG_MODES; ++m)
            if (t->meet[c * CONDAG_MODES + m] == k) return true;
    return false;
}

/* The state in which v's own path starts, when it starts at v: a full
 * taskwait starts Cw/Dw; a partial one starts E_k/F_k of a key it meets
 * when that option attains the value (eval_plain). */
static int32_t start_state(const dep_tables *t, int32_t v, int32_t st)
{
    const ompdag_condag *g = t->g;
    if (g->kind[v] != OMPDAG_KIND_W) return st;
    if (!condag_is_partial_wait(g, v))
        return st == QCW ? QA : st == QDW ? QB : st; /* the path starts here */
    if (st < QCOUNT || !wait_meets(t, v, (st - QCOUNT) / 2)) return st;
    int32_t here = (st - QCOUNT) % 2 ? QB : QA;
    return value(t, v, st) == t->row[v].q[here] ? here : st;
}

static void expand(const dep_tables *t, const ompdag_rta_options *opt, walk *w, int32_t *choice,
                   int32_t v, int32_t st)
{
    const ompdag_condag *g = t->g;
    st = start_state(t, v, st);
    if (g->kind[v] == OMPDAG_KIND_C) {
        int32_t best = -1;
        for (int32_t i = g->fsucc_off[v]; i < g->fsucc_off[v + 1]; ++i)
            if (best < 0 || value(t, g->fsucc[i], st) > value(t, best, st)) best = g->fsucc[i];
        choice[v] = best;
        return push(w, best, st);
    }
    int32_t s = first_fsucc(g, v);
    if (g->creates[v] < 0) return push(w, s, st);
    int32_t jn = g->task_source[g->creates[v]];
    int64_t p = rta_penalty(g, opt, v), jv = t->row[jn].q[QV];
    bool on_path = st == QA || st == QB;
    bool later = st >= QCOUNT; /* E_k or F_k: the path starts at a later child, or here */
    if (!on_path && !later) return push(w, s, st), push(w, jn, QV);
    int64_t rest = value(t, v, st) - (on_path ? rta_mc(g, opt, v) : rta_c(g, opt, v) + p);
    int64_t skip = s >= 0 ? add_ninf(value(t, s, st), jv)
                          : (on_path ? jv : NEG_INF); /* A, B of no successor are 0 */
    if (skip == rest) return push(w, s, st), push(w, jn, QV);
    bool to_sink = st == QB || (later && (st - QCOUNT) % 2);
    expand_child_path(t, w, v, s, rest, to_sink);
}

static ompdag_status build_witness(const dep_tables *t, const ompdag_rta_options *opt,
                                   ompdag_rta_result *r, bool must_match, ompdag_error *err)
{
    const ompdag_condag *g = t->g;
    walk w = {malloc(sizeof(int32_t) * (size_t)g->n), malloc(sizeof(int32_t) * (size_t)g->n), 0};
    uint8_t *executed = calloc((size_t)g->n, 1);
    rta_scratch s = {0};
    r->path = malloc(sizeof *r->path * (size_t)g->n);
    ompdag_status st = OMPDAG_OK;
    if (!w.v || !w.st || !executed || !r->path || !rta_scratch_init(&s, g)) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        goto done;
    }
    push(&w, g->task_source[g->root], QA);
    while (w.top) {
        --w.top;
        int32_t v = w.v[w.top], q = w.st[w.top];
        assert(!executed[v]); /* every node is reached by one decision only */
        executed[v] = 1;
        expand(t, opt, &w, r->choice, v, q);
    }
    ompdag_flow_eval e;
    if (!rta_measure_flow(g, opt, executed, &s, &e, r->path, &r->path_len)) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        goto done;
    }
    r->vol = e.vol, r->len = e.len, r->migrations = e.migrations;
    if (must_match && e.bound_times_m != r->bound_times_m)
        st = ompdag_error_set(err, OMPDAG_ERR_INVALID,
                              "internal error: the depend bound (%lld) and its witness flow (%lld) "
                              "disagree; please report this graph",
                              (long long)r->bound_times_m, (long long)e.bound_times_m);
done:
    free(w.v), free(w.st), free(executed);
    rta_scratch_free(&s);
    return st;
}

/* ---- driver ---------------------------------------------------------------- */

static bool has_branch(const ompdag_condag *g)
{
    for (int32_t v = 0; v < g->n; ++v)
        if (g->kind[v] == OMPDAG_KIND_C) return true;
    return false;
}

/* Without C nodes there is one flow: measure it (exact, O(V+E+clauses)). */
static ompdag_status single_flow(const ompdag_condag *g, const ompdag_rta_options *opt,
                                 ompdag_rta_result *r, ompdag_error *err)
{
    uint8_t *executed = malloc((size_t)g->n);
    int32_t *path = malloc(sizeof *path * (size_t)g->n);
    rta_scratch s = {0};
    ompdag_status st = OMPDAG_OK;
    if (!executed || !path || !rta_scratch_init(&s, g)) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    } else {
        memset(executed, 1, (size_t)g->n);
        ompdag_flow_eval e;
        int32_t len = 0;
        if (!rta_measure_flow(g, opt, executed, &s, &e, path, &len)) {
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        } else {
            r->bound_times_m = e.bound_times_m;
            r->exact = true;
        }
        if (!st && r->has_witness) {
            r->vol = e.vol, r->len = e.len, r->migrations = e.migrations;
            r->path = path, path = NULL, r->path_len = len;
        }
    }
    free(executed), free(path);
    rta_scratch_free(&s);
    return st;
}

ompdag_status rta_depend(const ompdag_condag *g, const ompdag_rta_options *opt,
                         ompdag_rta_result **out, ompdag_error *err)
{
    ompdag_rta_result *r = rta_result_new(g, OMPDAG_ALG_DEPEND, opt->m, !opt->bound_only);
    if (!r) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    int64_t budget = cell_budget; /* a test's; else the default, which one class always fits */
    if (!budget) budget = DEFAULT_CELLS > 4 * (int64_t)g->n ? DEFAULT_CELLS : 4 * (int64_t)g->n;
    condag_dep shell = {0}; /* no clause: every key table is empty */
    int32_t *empty_off = NULL;
    dep_tables t = {.g = g, .d = g->dep};
    ompdag_status st = OMPDAG_OK;
    if (!ompdag_condag_has_depend(g)) {
        shell.off = empty_off = calloc((size_t)g->n + 1, sizeof *empty_off);
        t.d = &shell;
    }
    t.row = malloc(sizeof *t.row * (size_t)g->n);
    if (!t.row || !t.d->off || !build_keys(&t, budget)) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        goto done;
    }
    bool merged = t.d->nvar > 0 && t.classes < t.d->nvar;
    if (merged && !has_branch(g)) {
        st = single_flow(g, opt, r, err);
        goto done;
    }
    int32_t maxq = 1;
    for (int32_t k = 0; k < g->nt; ++k)
        maxq = nkeys(&t, k) > maxq ? nkeys(&t, k) : maxq;
    t.E = malloc(sizeof *t.E * (size_t)(t.coff[g->n] ? t.coff[g->n] : 1));
    t.F = malloc(sizeof *t.F * (size_t)(t.coff[g->n] ? t.coff[g->n] : 1));
    t.met = malloc(sizeof *t.met * (size_t)maxq);
    if (!t.E || !t.F || !t.met) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        goto done;
    }
    memset(t.met, 0xff, sizeof *t.met * (size_t)maxq);
    compute_tables(&t, opt);
    r->bound_times_m = t.row[g->task_source[g->root]].q[QA];
    r->exact = !merged;
    if (r->has_witness) st = build_witness(&t, opt, r, !merged, err);
done:
    free(t.row), free(t.koff), free(t.keys), free(t.jkey), free(t.meet);
    free(t.coff), free(t.E), free(t.F), free(t.met), free(empty_off);
    if (st) {
        ompdag_rta_result_destroy(r);
        return st;
    }
    *out = r;
    return OMPDAG_OK;
}
