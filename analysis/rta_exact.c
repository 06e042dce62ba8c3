/*
 * analysis/rta_exact.c — the exact response-time bound, Sun et al. (Chinese
 * Journal of Computers 2020) Algorithm 1, as cleaned up in docs/condag.md §3.
 *
 * For node v of task τi, over "D-flows" from v (v, the rest of τi after v,
 * and every task created after v with its descendants), five values scaled by
 * m, −∞ where impossible:
 *   V(v)   max volume, no path
 *   A(v)   volume + (m−1)·path, path from v to anywhere
 *   B(v)   … path from v to the sink of τi
 *   Cw(v)  … path from the first W node at-or-after v in τi to anywhere
 *   Dw(v)  … path from that W node to the sink of τi
 * One pass in reverse topological order, O(V+E), then a forward walk of the
 * argmax decisions rebuilds the worst flow and its critical path.
 * Migration overhead (seed §3.4), counted on the flow, adds m·O at each
 * migration site to every value, since it is volume-like.
 * Dispatch delays D(v) (docs/overheads.md, "Delays on the chain only") enter
 * the on-path weight only: A and B add m·(c + D), while V, Cw and Dw keep c
 * (c + D everywhere when opt->fold_delays).  A W node's Cw = A starts the path
 * there, so it carries the W node's m·(c + D) too, as it must.
 */
#include <string.h>

#include "ompdag/exact_kernel.h"
#include "rta_internal.h"
#include "rta_loop.h"

typedef struct exact_tables {
    ompdag_exact_row *row;
} exact_tables;

static void succ_values(const exact_tables *t, int32_t s, int64_t out[QCOUNT])
{
    ompdag_exact_row r = ompdag_exact_succ(t->row, s);
    for (int k = 0; k < QCOUNT; ++k)
        out[k] = r.q[k];
}

static int32_t first_fsucc(const ompdag_condag *g, int32_t v)
{
    return g->fsucc_off[v + 1] > g->fsucc_off[v] ? g->fsucc[g->fsucc_off[v]] : -1;
}

static void compute_tables(const ompdag_condag *g, const ompdag_rta_options *opt, exact_tables *t)
{
    for (int32_t i = g->n - 1; i >= 0; --i) {
        int32_t v = g->topo[i];
        int64_t p = rta_penalty(g, opt, v);
        int32_t child = g->creates[v] >= 0 ? g->task_source[g->creates[v]] : -1;
        ompdag_exact_eval_node(t->row, v, (char)g->kind[v], rta_c(g, opt, v) + p, rta_mc(g, opt, v),
                               g->fsucc + g->fsucc_off[v], g->fsucc_off[v + 1] - g->fsucc_off[v],
                               child);
    }
}

/* ---- witness: replay the argmax decisions from the root ---------------- */

typedef struct walk_item {
    int32_t v;
    int32_t q;
} walk_item;

typedef struct walk {
    walk_item *stack;
    int32_t top;
} walk;

static void walk_push(walk *w, int32_t v, int q)
{
    if (v >= 0) w->stack[w->top++] = (walk_item){v, (int32_t)q};
}

/* A C node in quantity q: the first successor attaining the maximum. */
static int32_t branch_argmax(const ompdag_condag *g, const exact_tables *t, int32_t v, int q)
{
    int32_t best = -1;
    for (int32_t i = g->fsucc_off[v]; i < g->fsucc_off[v + 1]; ++i)
        if (best < 0 || t->row[g->fsucc[i]].q[q] > t->row[best].q[q]) best = g->fsucc[i];
    return best;
}

/* A T node in quantity A or B: which split of the path produced the value. */
static void expand_task_creation(const ompdag_condag *g, const exact_tables *t, walk *w, int32_t v,
                                 int q, int64_t rest)
{
    int32_t sn = first_fsucc(g, v), jn = g->task_source[g->creates[v]];
    int64_t s[QCOUNT], j[QCOUNT];
    succ_values(t, sn, s);
    succ_values(t, jn, j);
    int same = q == QA ? QA : QB, wait = q == QA ? QCW : QDW;
    if (s[same] + j[QV] == rest) {
        walk_push(w, sn, same), walk_push(w, jn, QV);
    } else if (q == QA && j[QA] + s[QV] == rest) {
        walk_push(w, jn, QA), walk_push(w, sn, QV);
    } else {
        assert(add_ninf(j[QB], s[wait]) == rest);
        walk_push(w, jn, QB), walk_push(w, sn, wait);
    }
}

static void expand(const ompdag_condag *g, const ompdag_rta_options *opt, const exact_tables *t,
                   walk *w, int32_t *choice, walk_item it)
{
    int32_t v = it.v;
    int q = it.q;
    if (g->kind[v] == OMPDAG_KIND_W && (q == QCW || q == QDW))
        q = q == QCW ? QA : QB; /* the path starts here */
    if (g->kind[v] == OMPDAG_KIND_C) {
        choice[v] = branch_argmax(g, t, v, q);
        walk_push(w, choice[v], q);
        return;
    }
    int32_t jn = g->creates[v] >= 0 ? g->task_source[g->creates[v]] : -1;
    if (jn >= 0 && (q == QA || q == QB)) {
        expand_task_creation(g, t, w, v, q, t->row[v].q[q] - rta_mc(g, opt, v));
        return;
    }
    walk_push(w, first_fsucc(g, v), q);
    walk_push(w, jn, QV);
}

/* Replays the decisions to fix the worst flow's choices, then measures that
 * flow directly.  Its longest path is the critical path: for m > 1 any path
 * attaining the bound is a longest one, and for m = 1 the bound says nothing
 * about paths, so measuring is the only way to report a meaningful one. */
static ompdag_status build_witness(const ompdag_condag *g, const ompdag_rta_options *opt,
                                   const exact_tables *t, ompdag_rta_result *r, ompdag_error *err)
{
    walk w = {malloc(sizeof *w.stack * (size_t)g->n), 0};
    uint8_t *executed = calloc((size_t)g->n, 1);
    rta_scratch s = {0};
    r->path = malloc(sizeof *r->path * (size_t)g->n);
    ompdag_status st = OMPDAG_OK;
    if (!w.stack || !executed || !r->path || !rta_scratch_init(&s, g)) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        goto done;
    }
    walk_push(&w, g->task_source[g->root], QA);
    while (w.top) {
        walk_item it = w.stack[--w.top];
        assert(!executed[it.v]); /* every node is reached by one decision only */
        executed[it.v] = 1;
        expand(g, opt, t, &w, r->choice, it);
    }
    ompdag_flow_eval e;
    rta_measure_flow(g, opt, executed, &s, &e, r->path, &r->path_len);
    r->vol = e.vol, r->len = e.len, r->migrations = e.migrations;
    /* The recurrences and the direct measurement must agree on the flow. */
    assert(e.bound_times_m == r->bound_times_m);
done:
    free(w.stack), free(executed);
    rta_scratch_free(&s);
    return st;
}

ompdag_status rta_exact(const ompdag_condag *g, const ompdag_rta_options *opt,
                        ompdag_rta_result **out, ompdag_error *err)
{
    exact_tables t = {malloc(sizeof *t.row * (size_t)g->n)};
    ompdag_rta_result *r = rta_result_new(g, OMPDAG_ALG_EXACT, opt->m, !opt->bound_only);
    ompdag_status st =
        r && t.row ? OMPDAG_OK : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!st && g->loops) { /* compact loops (analysis/rta_loop.c) */
        st = rta_loop_tables(g, opt, t.row, err);
        if (!st) r->bound_times_m = t.row[g->task_source[g->root]].q[QA];
        if (!st && !opt->bound_only) st = rta_loop_witness(g, opt, r, err);
    } else if (!st) {
        compute_tables(g, opt, &t);
        r->bound_times_m = t.row[g->task_source[g->root]].q[QA];
        if (!opt->bound_only)
            st = g->compact ? rta_compact_witness(g, opt, t.row, r, err)
                            : build_witness(g, opt, &t, r, err);
    }
    free(t.row);
    if (st) {
        ompdag_rta_result_destroy(r);
        return st;
    }
    *out = r;
    return OMPDAG_OK;
}
