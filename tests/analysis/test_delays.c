/* tests/analysis/test_delays.c — dispatch delays charged on the critical
 * chain only (docs/overheads.md, issue 23 item 1).
 *
 * Property tests over thousands of random enumerable graphs with random
 * per-node delays D(v), for m in {1, 2, 3, 4, 16}:
 *   exact == enumerate, and both equal the closed form
 *       vol(e) + max over paths p of e of Σ_{v∈p} ((m−1)·c(v) + m·D(v))
 *   recomputed here on the witness flow (independently of the library);
 *   the witness re-evaluates to the bound, its path weighs len = Σ (c + D);
 *   chain-only <= folded (fold_delays), strictly on some graphs; folded ==
 *   the exact bound of the graph with WCET + D; alg0 >= exact;
 *   depend graphs: depend == enumerate with delays;
 * plus the file format ("delays" extension), overflow, the tied volume bound
 * and ompdag/overhead.h (the three classes, stored or folded). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/overhead.h"
#include "support.h"

static const int32_t thread_counts[] = {1, 2, 3, 4, 16};
#define N_M (sizeof thread_counts / sizeof thread_counts[0])

typedef struct tally {
    long graphs, chain_below_fold, with_delays;
} tally;

static ompdag_rta_result *run_ok(const ompdag_condag *g, ompdag_algorithm alg, int32_t m, bool fold)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    opt.fold_delays = fold;
    ompdag_rta_result *r = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_rta_run(g, alg, &opt, &r, &err), OMPDAG_OK, "%s: %s",
                 ompdag_algorithm_name(alg), err.message);
    return r;
}

/* Random delays in [0, 60] on about 60% of the nodes. */
static void random_delays(ompdag_condag *g, ompdag_rng *r)
{
    ompdag_error err;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_rng_unit(r) < 0.6)
            cr_assert_eq(ompdag_condag_assign_delay(g, v, ompdag_rng_range(r, 0, 60), &err),
                         OMPDAG_OK, "%s", err.message);
}

/* The closed form on one flow, from the public accessors only: the volume
 * of c over the executed nodes plus the heaviest path (F, T and W edges) by
 * (m−1)·c + m·D.  Graphs without depend clauses. */
static int64_t closed_form(const ompdag_condag *g, const uint8_t *executed, int32_t m)
{
    int32_t n = ompdag_condag_node_count(g);
    const int32_t *topo = ompdag_condag_topo_order(g);
    int64_t *best = calloc((size_t)n, sizeof *best), vol = 0, heaviest = 0;
    for (int32_t i = 0; i < n; ++i) {
        int32_t v = topo[i];
        if (!executed[v]) continue;
        int64_t c = ompdag_condag_node_wcet(g, v), d = ompdag_condag_node_delay(g, v);
        vol += c;
        int64_t here = best[v] + (int64_t)(m - 1) * c + (int64_t)m * d;
        heaviest = here > heaviest ? here : heaviest;
        int32_t cnt, t = ompdag_condag_node_creates(g, v);
        const int32_t *s = ompdag_condag_node_fsucc(g, v, &cnt);
        for (int32_t k = 0; k < cnt; ++k)
            if (best[s[k]] < here) best[s[k]] = here;
        s = ompdag_condag_node_wsucc(g, v, &cnt);
        for (int32_t k = 0; k < cnt; ++k)
            if (best[s[k]] < here) best[s[k]] = here;
        if (t >= 0 && best[ompdag_condag_task_source(g, t)] < here)
            best[ompdag_condag_task_source(g, t)] = here;
    }
    free(best);
    return vol + heaviest;
}

/* The witness re-evaluates to the bound; its path weighs Σ (c + D) = len. */
static void check_witness(const ompdag_condag *g, const ompdag_rta_result *r, int32_t m)
{
    int32_t *choice = ompdag_rta_result_choices_copy(r, g);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    ompdag_flow_eval e;
    ompdag_error err;
    cr_assert_eq(ompdag_flow_evaluate(g, choice, &opt, &e, NULL, NULL, &err), OMPDAG_OK, "%s",
                 err.message);
    cr_assert_eq(e.bound_times_m, ompdag_rta_result_bound_times_m(r));
    cr_assert_eq(e.vol, ompdag_rta_result_vol(r));
    cr_assert_eq(e.len, ompdag_rta_result_len(r));
    int32_t n;
    const int32_t *path = ompdag_rta_result_critical_path(r, &n);
    int64_t sum = 0, extra = 0;
    for (int32_t i = 0; i < n; ++i) {
        int64_t c = ompdag_condag_node_wcet(g, path[i]), d = ompdag_condag_node_delay(g, path[i]);
        sum += c + d;
        extra += (int64_t)(m - 1) * c + (int64_t)m * d;
    }
    cr_assert_eq(sum, e.len, "critical path weighs %lld, len %lld", (long long)sum,
                 (long long)e.len);
    cr_assert_eq(e.vol + extra, e.bound_times_m, "the reported path is not a heaviest one");
    if (!ompdag_condag_has_depend(g)) {
        uint8_t *executed = malloc((size_t)ompdag_condag_node_count(g));
        cr_assert_eq(ompdag_flow_mark(g, choice, executed, &err), OMPDAG_OK);
        cr_assert_eq(closed_form(g, executed, m), e.bound_times_m,
                     "closed form %lld, library %lld (m=%d)",
                     (long long)closed_form(g, executed, m), (long long)e.bound_times_m, m);
        free(executed);
    }
    free(choice);
}

/* g with WCET + D and no delays: what annotate wrote before (the fold). */
static ompdag_condag_set *folded_copy(const ompdag_condag *g, ompdag_rng *r)
{
    ompdag_condag_set *s = shuffled_copy(g, r); /* also checks the file round trip */
    ompdag_condag *f = ompdag_condag_set_graph(s, 0);
    ompdag_error err;
    for (int32_t v = 0; v < ompdag_condag_node_count(f); ++v) {
        int32_t u = ompdag_condag_find_node(g, ompdag_condag_node_id(f, v));
        cr_assert_eq(ompdag_condag_node_delay(f, v), ompdag_condag_node_delay(g, u),
                     "the delay of %s was not saved and loaded", ompdag_condag_node_id(f, v));
        int64_t d = ompdag_condag_node_delay(f, v);
        cr_assert_eq(ompdag_condag_assign_wcet(f, v, ompdag_condag_node_wcet(f, v) + d, &err),
                     OMPDAG_OK);
        cr_assert_eq(ompdag_condag_assign_delay(f, v, 0, &err), OMPDAG_OK);
    }
    cr_assert_not(ompdag_condag_has_delays(f));
    return s;
}

static void check_graph(ompdag_condag *g, ompdag_rng *r, tally *t)
{
    for (size_t k = 0; k < N_M; ++k) { /* without delays the fold changes nothing */
        ompdag_rta_result *fo = run_ok(g, OMPDAG_ALG_EXACT, thread_counts[k], true);
        cr_assert_eq(bound_of(g, OMPDAG_ALG_EXACT, thread_counts[k]),
                     ompdag_rta_result_bound_times_m(fo));
        ompdag_rta_result_destroy(fo);
    }
    random_delays(g, r);
    t->with_delays += ompdag_condag_has_delays(g);
    ompdag_condag_set *fs = folded_copy(g, r);
    const ompdag_condag *f = ompdag_condag_set_graph(fs, 0);
    bool dep = ompdag_condag_has_depend(g);
    for (size_t k = 0; k < N_M; ++k) {
        int32_t m = thread_counts[k];
        ompdag_rta_result *ex = run_ok(g, OMPDAG_ALG_EXACT, m, false),
                          *en = run_ok(g, OMPDAG_ALG_ENUMERATE, m, false),
                          *fo = run_ok(g, OMPDAG_ALG_EXACT, m, true);
        int64_t bx = ompdag_rta_result_bound_times_m(ex), be = ompdag_rta_result_bound_times_m(en),
                bf = ompdag_rta_result_bound_times_m(fo);
        if (ompdag_rta_result_is_exact(ex))
            cr_assert_eq(bx, be, "exact %lld != enumerate %lld (m=%d)", (long long)bx,
                         (long long)be, m);
        else
            cr_assert_geq(bx, be);
        cr_assert_leq(bx, bf, "chain-only %lld above folded %lld (m=%d)", (long long)bx,
                      (long long)bf, m);
        t->chain_below_fold += bx < bf;
        cr_assert_eq(bf, bound_of(f, OMPDAG_ALG_EXACT, m), "fold_delays != WCET + D (m=%d)", m);
        if (!dep) {
            int64_t b0 = bound_of(g, OMPDAG_ALG_ALG0, m);
            cr_assert_geq(b0, bf, "alg0 %lld below the folded exact %lld", (long long)b0,
                          (long long)bf);
            cr_assert_eq(b0, bound_of(f, OMPDAG_ALG_ALG0, m), "alg0 does not fold");
        }
        check_witness(g, en, m);
        if (ompdag_rta_result_is_exact(ex)) check_witness(g, ex, m);
        ompdag_rta_result_destroy(ex);
        ompdag_rta_result_destroy(en);
        ompdag_rta_result_destroy(fo);
    }
    ompdag_condag_set_destroy(fs);
    t->graphs++;
}

static ompdag_condag *seed_graph(ompdag_rng *r, int i, double p_dep)
{
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    p.seed = (uint64_t)i;
    p.tasks = (int32_t)ompdag_rng_range(r, 1, 6);
    p.nodes_min = 1;
    p.nodes_max = (int32_t)ompdag_rng_range(r, 1, 9);
    p.p_if = 0.05 + 0.45 * ompdag_rng_unit(r);
    p.p_cre = 0.05 + 0.45 * ompdag_rng_unit(r);
    p.p_wait = 0.05 + 0.45 * ompdag_rng_unit(r);
    p.wcet_min = 0;
    p.wcet_max = (int64_t)ompdag_rng_range(r, 1, 50);
    p.p_dep = p_dep;
    p.dep_vars = (int32_t)ompdag_rng_range(r, 1, 3);
    ompdag_condag *g;
    ompdag_error err;
    cr_assert_eq(ompdag_gen_random(&p, &g, &err), OMPDAG_OK, "%s", err.message);
    return g;
}

Test(delays, chain_only_equals_enumeration_and_stays_below_the_fold, .timeout = 240)
{
    tally t = {0};
    ompdag_rng r;
    ompdag_rng_seed(&r, 20261126);
    for (int i = 0; i < 4000; ++i) {
        ompdag_condag *g = seed_graph(&r, i, 0.0);
        check_graph(g, &r, &t);
        ompdag_condag_destroy(g);
    }
    for (int i = 0; i < 3000; ++i) {
        ompdag_condag *g = random_structured(&r);
        check_graph(g, &r, &t);
        ompdag_condag_destroy(g);
    }
    cr_expect_eq(t.graphs, 7000);
    cr_expect_gt(t.with_delays, 6000);
    cr_expect_gt(t.chain_below_fold, 10000, "chain-only is rarely tighter than the fold (%ld)",
                 t.chain_below_fold);
    cr_log_info("%ld graphs x %zu m: chain-only below the fold on %ld", t.graphs, N_M,
                t.chain_below_fold);
}

Test(delays, depend_graphs_with_delays_match_enumeration, .timeout = 240)
{
    tally t = {0};
    ompdag_rng r;
    ompdag_rng_seed(&r, 4242);
    int with_dep = 0;
    for (int i = 0; i < 2000; ++i) {
        ompdag_condag *g = seed_graph(&r, i, 0.7);
        with_dep += ompdag_condag_has_depend(g);
        check_graph(g, &r, &t);
        ompdag_condag_destroy(g);
    }
    cr_expect_gt(with_dep, 400, "only %d graphs with depend clauses", with_dep);
    cr_expect_gt(t.chain_below_fold, 0);
}

/* ---- the format -------------------------------------------------------------- */

#define DELAYED                                                                                    \
    "'nodes': [{'id': 'a', 'task': 'r', 'kind': 'T', 'wcet': 5, 'creates': 'c', 'delay': 2},"      \
    " {'id': 'b', 'task': 'r', 'kind': 'W', 'wcet': 3, 'delay': 7},"                               \
    " {'id': 'x', 'task': 'c', 'kind': 'N', 'wcet': 10, 'delay': 4}],"                             \
    " 'edges': [['a', 'b']]}"

Test(delays, file_needs_the_extension_and_round_trips)
{
    ompdag_error err;
    ompdag_condag *g =
        load_graph("{'format': 'ompdag-condag', 'version': 1, " DELAYED, &err); /* no extension */
    cr_assert_null(g);
    cr_assert(strstr(err.message, "'a'") && strstr(err.message, "extensions"), "%s", err.message);
    ompdag_condag_set *s =
        load_set_ok("{'format': 'ompdag-condag', 'version': 1, 'extensions': ['delays'], " DELAYED);
    ompdag_condag *h = ompdag_condag_set_graph(s, 0);
    cr_assert_eq(ompdag_condag_node_delay(h, node_index(h, "b")), 7);
    cr_assert_eq(ompdag_condag_total_delay(h), 13);
    cr_assert_eq(ompdag_condag_total_wcet(h), 18);
    /* m = 2: vol 18; the heaviest path a -> x -> b: (c + m·D) summed */
    cr_assert_eq(bound_of(h, OMPDAG_ALG_EXACT, 2), 18 + (5 + 4) + (10 + 8) + (3 + 14));
    cr_assert_eq(bound_of(h, OMPDAG_ALG_ENUMERATE, 2), 18 + (5 + 4) + (10 + 8) + (3 + 14));
    json_t *j = ompdag_condag_to_json(h);
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "extensions"), 0)),
                     "delays");
    cr_assert_eq(json_integer_value(
                     json_object_get(json_array_get(json_object_get(j, "nodes"), 2), "delay")),
                 4);
    json_decref(j);
    ompdag_condag_set_destroy(s);
    /* A graph without delays writes no extension. */
    s = load_set_ok("{'format': 'ompdag-condag', 'version': 1, 'extensions': ['delays'], "
                    "'nodes': [{'id': 'a', 'task': 'r', 'kind': 'N', 'wcet': 5}], 'edges': []}");
    j = ompdag_condag_to_json(ompdag_condag_set_graph(s, 0));
    cr_assert_null(json_object_get(j, "extensions"));
    json_decref(j);
    ompdag_condag_set_destroy(s);
}

Test(delays, bad_delays_are_errors_naming_the_node)
{
    const char *bad[] = {"-1", "1.5", "'3'"};
    for (size_t i = 0; i < 3; ++i) {
        char text[512];
        snprintf(text, sizeof text,
                 "{'format': 'ompdag-condag', 'version': 1, 'extensions': ['delays'], "
                 "'nodes': [{'id': 'a', 'task': 'r', 'kind': 'N', 'wcet': 5, 'delay': %s}], "
                 "'edges': []}",
                 bad[i]);
        ompdag_error err;
        cr_assert_null(load_graph(text, &err), "%s accepted", bad[i]);
        cr_assert(strstr(err.message, "'a'") && strstr(err.message, "delay"), "%s", err.message);
    }
    ompdag_condag_set *s = load_set_ok(
        "{'format': 'ompdag-condag', 'version': 1, 'extensions': ['delays', 'compact'], "
        "'nodes': [{'id': 'a', 'task': 'r', 'kind': 'N', 'wcet': 5, 'delay': 1}], 'edges': []}");
    ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    ompdag_error err;
    cr_assert_eq(ompdag_condag_assign_delay(g, 0, -3, &err), OMPDAG_ERR_INVALID);
    cr_assert(strstr(err.message, "'a'"), "%s", err.message);
    ompdag_condag_set_destroy(s);
}

Test(delays, overflow_is_an_error)
{
    ompdag_condag_set *s = load_set_ok(
        "{'format': 'ompdag-condag', 'version': 1, 'extensions': ['delays'], "
        "'nodes': [{'id': 'a', 'task': 'r', 'kind': 'N', 'wcet': 5, 'delay': 2305843009213693952}],"
        " 'edges': []}"); /* 2^61: 2·m·(c + D) overflows at m = 4 */
    ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 4);
    ompdag_rta_result *r;
    ompdag_error err;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_ERR_OVERFLOW);
    cr_assert(strstr(err.message, "delay"), "%s", err.message);
    cr_assert_eq(ompdag_condag_assign_delay(g, 0, INT64_MAX, &err), OMPDAG_OK);
    cr_assert_eq(ompdag_condag_assign_delay(g, 0, 1, &err), OMPDAG_OK); /* replaces: no sum */
    ompdag_condag_set_destroy(s);
}

/* The tied-task volume bound (R <= vol(e)) needs every node's delay in the
 * volume: m·Σ (c + D), not m·(Σ c + the chain's D). */
Test(delays, tied_volume_bound_folds_the_delays)
{
    ompdag_condag_set *s =
        load_set_ok("{'format': 'ompdag-condag', 'version': 1, 'extensions': ['delays'], "
                    "'nodes': [{'id': 'a', 'task': 'r', 'kind': 'T', 'wcet': 5, 'creates': 'c', "
                    "'untied': false},"
                    " {'id': 'b', 'task': 'r', 'kind': 'W', 'wcet': 3, 'delay': 7},"
                    " {'id': 'x', 'task': 'c', 'kind': 'N', 'wcet': 10, 'delay': 4},"
                    " {'id': 'y', 'task': 'r', 'kind': 'N', 'wcet': 1, 'delay': 9}],"
                    " 'edges': [['a', 'y'], ['y', 'b']]}");
    ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 2);
    int64_t b;
    ompdag_tied_rule rule;
    ompdag_error err;
    cr_assert_eq(ompdag_rta_tied_bound(g, &opt, &b, &rule, &err), OMPDAG_OK, "%s", err.message);
    /* the tied leaf never suspends, but the root waits: rule ROOT, m·vol + ... here
     * vol + (m - 1)·Lr with both folded; either way every delay is charged */
    cr_assert(rule == OMPDAG_TIED_VOLUME || rule == OMPDAG_TIED_ROOT, "rule %d", (int)rule);
    cr_assert_geq(b, 2 * (5 + 3 + 7 + 10 + 4 + 1 + 9), "tied bound %lld", (long long)b);
    ompdag_condag_set_destroy(s);
}

/* ompdag/overhead.h: per-node D from the three classes; stored on the nodes
 * (chain only) or added to the WCETs (fold), the two routes give the
 * chain-only and the folded bound of the same delays. */
Test(delays, overheads_store_or_fold_the_same_delays)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 77);
    for (int i = 0; i < 300; ++i) {
        ompdag_condag *g = random_structured(&r);
        ompdag_condag_set *copy = shuffled_copy(g, &r);
        ompdag_condag *f = ompdag_condag_set_graph(copy, 0);
        ompdag_overheads o = {.start_delay = ompdag_rng_range(&r, 0, 30),
                              .wake_delay = ompdag_rng_range(&r, 0, 30),
                              .cont_delay = ompdag_rng_range(&r, 0, 30)};
        int32_t n = ompdag_condag_node_count(g);
        int64_t *d = malloc(sizeof *d * (size_t)n);
        ompdag_error err;
        cr_assert_eq(ompdag_overheads_node_delays(g, &o, d, &err), OMPDAG_OK);
        for (int32_t v = 0; v < n; ++v) {
            cr_assert_eq(ompdag_overhead_of_node(g, v, &o), d[v]);
            bool after_t = false;
            for (int32_t u = 0; u < n; ++u) {
                int32_t cnt;
                const int32_t *s = ompdag_condag_node_fsucc(g, u, &cnt);
                for (int32_t k = 0; k < cnt; ++k)
                    after_t |= s[k] == v && ompdag_condag_node_kind(g, u) == OMPDAG_KIND_T;
            }
            int32_t t = ompdag_condag_node_task(g, v);
            int64_t want = ompdag_condag_node_kind(g, v) == OMPDAG_KIND_W ? o.wake_delay
                           : t != ompdag_condag_root_task(g) && ompdag_condag_task_source(g, t) == v
                               ? o.start_delay
                               : 0;
            cr_assert_eq(d[v], want + (after_t ? o.cont_delay : 0), "node %s",
                         ompdag_condag_node_id(g, v));
        }
        cr_assert_eq(ompdag_condag_assign_overheads(g, &o, &err), OMPDAG_OK);
        cr_assert_eq(ompdag_condag_add_overheads(f, &o, &err), OMPDAG_OK);
        cr_assert_not(ompdag_condag_has_delays(f));
        for (int32_t m = 1; m <= 4; ++m) {
            ompdag_rta_result *fold = run_ok(g, OMPDAG_ALG_EXACT, m, true);
            cr_assert_eq(ompdag_rta_result_bound_times_m(fold), bound_of(f, OMPDAG_ALG_EXACT, m));
            cr_assert_leq(bound_of(g, OMPDAG_ALG_EXACT, m), bound_of(f, OMPDAG_ALG_EXACT, m));
            ompdag_rta_result_destroy(fold);
        }
        o.wake_delay = -1;
        cr_assert_eq(ompdag_condag_assign_overheads(g, &o, &err), OMPDAG_ERR_ARGUMENT);
        free(d);
        ompdag_condag_set_destroy(copy);
        ompdag_condag_destroy(g);
    }
}

/* The graph setters' old names (ompdag_condag_set_*, deprecated for one
 * release) still link and do what their ompdag_condag_assign_* do. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
Test(delays, the_deprecated_setter_names_still_work)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 11);
    ompdag_condag *g = seed_graph(&r, 3, 0.0);
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_wcet(g, 0, 1234, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_condag_set_delay(g, 0, 56, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_condag_node_wcet(g, 0), 1234);
    cr_assert_eq(ompdag_condag_node_delay(g, 0), 56);
    cr_assert_neq(ompdag_condag_set_wcet(g, 0, -1, &err), OMPDAG_OK, "refused as by the new name");
    cr_assert_eq(ompdag_condag_set_name(g, "renamed"), OMPDAG_OK);
    cr_assert_str_eq(ompdag_condag_name(g), "renamed");
    ompdag_condag_set_threads(g, 7);
    cr_assert_eq(ompdag_condag_threads(g), 7);
    ompdag_condag_destroy(g);
}
#pragma GCC diagnostic pop
