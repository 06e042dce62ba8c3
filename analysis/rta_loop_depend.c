/*
 * analysis/rta_loop_depend.c — the exact bound of a graph with compact loops
 * whose tasks carry depend clauses (docs/compact.md, "depend clauses in
 * compact loops").
 *
 * Source: the depend recurrence of rta_depend.c (docs/analysis.md, "Sibling
 * dependences"; condag.md §6) on the meaning of a compact loop, its at-most
 * unrolling (condag_loops_unroll, plugin/fe_loop.c), closed as rta_loop.c
 * closes Alg1 (Sun, Guan et al., RTSS 2021, for the idea of a dynamic
 * program over the loop whose cost does not follow the trip count).
 *
 * Each value of the depend recurrence (V, A, B, Cw, Dw, and E_k, F_k per key
 * k of the task) is a maximum of "constant + one value of the successor", so
 * a loop body is a max-plus matrix M from the state after it to the state
 * before it.  Keys that name a cell base[p + r] of iteration p are kept
 * relative to the iteration, r in a window [o_min, o_max]
 * (rta_loop_depend_keys.c); the next iteration sees them at r − 1, a shift
 * Sh.  With D the test's weights, the unrolled tests satisfy
 *     Y_K = x,   Y_p = D ⊗ (x ⊕ M ⊗ Sh ⊗ Y_{p+1})
 * (x, the exit's state, meets no cell, so Sh ⊗ x = x), the recurrence of
 * rta_loop.c with P = D ⊗ M ⊗ Sh: Y_0 = S ⊗ x, S = (⊕_{i<K} P^i) ⊗ D ⊕ P^K,
 * by doubling: O(nodes · dim² + loops · dim³ · log K), independent of K.
 * The class (no nested loops, a base indexed by one loop of its task, no plain clause naming one of
 * its cells, dim <= LD_MAX_DIM) and the proof are in docs/compact.md.  Outside it the bound is
 * rta_depend.c on the expansion `ompdag expand` writes, up to RTA_LOOP_DEPEND_LIMIT unrolled nodes,
 * and the graph is refused by name above: never less than exact.
 */
#include <stdio.h>
#include <string.h>

#include "condag_loops.h"
#include "ompdag/compact.h"
#include "rta_loop_depend.h"
#include "rta_loop_depend_internal.h"

static ompdag_status too_large(const ompdag_condag *g, uint64_t size, ompdag_error *err)
{
    char loop[512], n[32];
    condag_loops_name_largest(g, loop, sizeof loop);
    if (size == OMPDAG_COMPACT_MANY)
        snprintf(n, sizeof n, "more than 2^64");
    else
        snprintf(n, sizeof n, "%llu", (unsigned long long)size);
    return ompdag_error_set(err, OMPDAG_ERR_LIMIT,
                            "the graph has depend clauses inside compact loops; their exact bound "
                            "is computed on the unrolled loops, which have %s nodes, above the "
                            "limit of %d (RTA_LOOP_DEPEND_LIMIT)%s; lower the loop bound, or "
                            "drop the loop variable from the depend items",
                            n, RTA_LOOP_DEPEND_LIMIT, loop);
}

/* Why the report has no (complete) worst flow, per way the bound was found. */
static const char closure_only[] =
    "depend clauses in compact loops give the bound only above 200,000 unrolled nodes (the worst "
    "flow's vol, len and path are not computed there yet)";
static const char unrolled_path[] =
    "the bound of depend clauses in compact loops comes from their unrolling, and the critical "
    "path is not mapped back from the unrolling";
static const char closure_small_flow[] =
    "the worst flow's vol and len of depend clauses in compact loops come from the unrolling "
    "(whose bound equals the closure's), and the critical path is not mapped back from the "
    "unrolling";
static const char unrolled_merged[] =
    "the unrolling of depend clauses in compact loops has more cells than rta_depend.c keeps "
    "apart, so its bound is not exact and has no worst flow";

/* vol + (m−1)·len + m·O·migrations, or −1 on overflow: without dispatch
 * delays, the m·R of the flow with these parts (docs/analysis.md). */
static int64_t graham_sum(const ompdag_rta_options *opt, int64_t vol, int64_t len, int64_t mig)
{
    int64_t a, b, s;
    if (__builtin_mul_overflow((int64_t)opt->m - 1, len, &a) ||
        __builtin_mul_overflow((int64_t)opt->m * opt->migration_overhead, mig, &b) ||
        __builtin_add_overflow(vol, a, &s) || __builtin_add_overflow(s, b, &s))
        return -1;
    return s;
}

/* Takes the expansion's worst flow into r, after measuring it again on x
 * (rta_flow_eval.c, no bound algorithm): its m·R must be the bound and its
 * parts rta_depend's, and without delays vol + (m−1)·len + m·O·migrations
 * must add up to it; else an internal error, never a printed number. */
static ompdag_status take_flow(const ompdag_condag *x, const ompdag_rta_options *xo,
                               const ompdag_rta_result *xr, ompdag_rta_result *r, ompdag_error *err)
{
    ompdag_flow_eval e;
    ompdag_status st = ompdag_flow_evaluate(x, xr->choice, xo, &e, NULL, NULL, err);
    if (st) return st;
    bool parts = e.vol == xr->vol && e.len == xr->len && e.migrations == xr->migrations;
    bool sum = ompdag_condag_has_delays(x) ||
               graham_sum(xo, xr->vol, xr->len, xr->migrations) == xr->bound_times_m;
    if (e.bound_times_m != xr->bound_times_m || !parts || !sum)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "internal error: the unrolled loops' bound (%lld) and its worst "
                                "flow (%lld; vol %lld, len %lld) disagree; please report this "
                                "graph",
                                (long long)xr->bound_times_m, (long long)e.bound_times_m,
                                (long long)xr->vol, (long long)xr->len);
    r->vol = xr->vol, r->len = xr->len, r->migrations = xr->migrations;
    r->no_path = unrolled_path;
    return OMPDAG_OK;
}

/* The bound on the unrolling (rta_depend.c on `ompdag expand`'s graph), and
 * unless opt->bound_only its worst flow's vol and len: the flow is one of the
 * expansion, so its path names expansion nodes and is left out. */
static ompdag_status unrolled_bound(const ompdag_condag *g, const ompdag_rta_options *opt,
                                    ompdag_rta_result *r, ompdag_error *err)
{
    uint64_t size = ompdag_compact_expanded_node_count(g);
    if (size > RTA_LOOP_DEPEND_LIMIT) return too_large(g, size, err);
    ompdag_condag *x = NULL;
    ompdag_rta_result *xr = NULL;
    ompdag_status st = ompdag_compact_expand(g, RTA_LOOP_DEPEND_LIMIT, &x, err);
    if (!st) st = rta_depend(x, opt, &xr, err);
    if (!st) r->bound_times_m = xr->bound_times_m, r->exact = xr->exact;
    /* merged cells: the witness rta_depend.c builds need not reach the bound */
    if (!st && !xr->exact) r->no_path = unrolled_merged;
    if (!st && xr->exact && xr->has_witness) st = take_flow(x, opt, xr, r, err);
    ompdag_rta_result_destroy(xr);
    ompdag_condag_destroy(x);
    return st;
}

/* The closure gives the bound alone; up to RTA_LOOP_DEPEND_FLOW_LIMIT
 * unrolled nodes the unrolling's worst flow gives vol and len, after its
 * bound is checked equal to the closure's (bit for bit, docs/compact.md). */
static ompdag_status closure_flow(const ompdag_condag *g, const ompdag_rta_options *opt,
                                  ompdag_rta_result *r, ompdag_error *err)
{
    if (opt->bound_only || ompdag_compact_expanded_node_count(g) > RTA_LOOP_DEPEND_FLOW_LIMIT)
        return OMPDAG_OK;
    ompdag_condag *x = NULL;
    ompdag_rta_result *xr = NULL;
    ompdag_status st = ompdag_compact_expand(g, RTA_LOOP_DEPEND_FLOW_LIMIT, &x, err);
    if (!st) st = rta_depend(x, opt, &xr, err);
    if (!st && xr->exact && xr->bound_times_m != r->bound_times_m)
        st = ompdag_error_set(err, OMPDAG_ERR_INVALID,
                              "internal error: the closure of the compact loops' depend clauses "
                              "gives %lld, their unrolling %lld; please report this graph",
                              (long long)r->bound_times_m, (long long)xr->bound_times_m);
    if (!st && xr->exact && xr->has_witness) st = take_flow(x, opt, xr, r, err);
    if (!st && r->vol >= 0) r->no_path = closure_small_flow;
    ompdag_rta_result_destroy(xr);
    ompdag_condag_destroy(x);
    return st;
}

ompdag_status rta_loop_depend(const ompdag_condag *g, const ompdag_rta_options *opt,
                              ompdag_rta_result **out, ompdag_error *err)
{
    ompdag_rta_result *r = rta_result_new(g, OMPDAG_ALG_DEPEND, opt->m, false);
    if (!r) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    r->compact = true;
    /* The closure gives the bound only: vol and len stay -1 (unknown), and
     * the report says why; the unrolling fills them in (unrolled_bound). */
    r->no_path = closure_only;
    bool closed = false;
    ompdag_status st = rta_ld_closure_bound(g, opt, r, &closed, err);
    if (!st && !closed)
        st = unrolled_bound(g, opt, r, err);
    else if (!st)
        st = closure_flow(g, opt, r, err);
    if (st) {
        ompdag_rta_result_destroy(r);
        return st;
    }
    *out = r;
    return OMPDAG_OK;
}
