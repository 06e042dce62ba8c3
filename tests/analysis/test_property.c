/* tests/analysis/test_property.c — property tests over thousands of random
 * enumerable graphs, for m in {1, 2, 3, 4, 16}:
 *   exact == enumerate;  alg0 >= exact (and > on some graphs);
 *   each witness flow re-evaluates, independently, to the bound;
 *   shuffling node and edge order in the file changes nothing. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "support.h"

static const int32_t thread_counts[] = {1, 2, 3, 4, 16};
#define N_M (sizeof thread_counts / sizeof thread_counts[0])

typedef struct tally {
    long graphs, alg0_strictly_above;
} tally;

/* Re-evaluates r's witness with ompdag_flow_evaluate and checks it
 * reproduces the bound, vol, len, and that the reported path is a path of
 * that length. */
static void check_witness(const ompdag_condag *g, const ompdag_rta_result *r,
                          const ompdag_rta_options *opt)
{
    int32_t *choice = ompdag_rta_result_choices_copy(r, g);
    cr_assert_not_null(choice);
    ompdag_flow_eval e;
    ompdag_error err;
    cr_assert_eq(ompdag_flow_evaluate(g, choice, opt, &e, NULL, NULL, &err), OMPDAG_OK, "%s",
                 err.message);
    cr_assert_eq(e.bound_times_m, ompdag_rta_result_bound_times_m(r), "%s: witness %lld != %lld",
                 ompdag_algorithm_name(ompdag_rta_result_algorithm(r)), (long long)e.bound_times_m,
                 (long long)ompdag_rta_result_bound_times_m(r));
    cr_assert_eq(e.vol, ompdag_rta_result_vol(r));
    cr_assert_eq(e.len, ompdag_rta_result_len(r));
    int32_t n;
    const int32_t *path = ompdag_rta_result_critical_path(r, &n);
    int64_t sum = 0;
    for (int32_t i = 0; i < n; ++i)
        sum += ompdag_condag_node_wcet(g, path[i]);
    cr_assert_eq(sum, e.len, "critical path weighs %lld, flow's longest path %lld", (long long)sum,
                 (long long)e.len);
    cr_assert_eq(path[0], ompdag_condag_task_source(g, ompdag_condag_root_task(g)));
    free(choice);
}

static void check_graph(const ompdag_condag *g, tally *t)
{
    for (size_t k = 0; k < N_M; ++k) {
        ompdag_rta_options opt;
        ompdag_rta_options_init(&opt, thread_counts[k]);
        ompdag_rta_result *ex, *en, *a0;
        ompdag_error err;
        cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &ex, &err), OMPDAG_OK, "%s",
                     err.message);
        cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_ENUMERATE, &opt, &en, &err), OMPDAG_OK, "%s",
                     err.message);
        cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_ALG0, &opt, &a0, &err), OMPDAG_OK, "%s",
                     err.message);
        int64_t bx = ompdag_rta_result_bound_times_m(ex), be = ompdag_rta_result_bound_times_m(en),
                b0 = ompdag_rta_result_bound_times_m(a0);
        cr_assert_eq(bx, be, "exact %lld != enumerate %lld (m=%d, graph %s)", (long long)bx,
                     (long long)be, opt.m, ompdag_condag_name(g));
        cr_assert_geq(b0, bx, "alg0 %lld < exact %lld (m=%d)", (long long)b0, (long long)bx, opt.m);
        t->alg0_strictly_above += b0 > bx;
        check_witness(g, ex, &opt);
        check_witness(g, en, &opt);
        ompdag_rta_result_destroy(ex);
        ompdag_rta_result_destroy(en);
        ompdag_rta_result_destroy(a0);
    }
    t->graphs++;
}

static void check_shuffle_invariance(const ompdag_condag *g, ompdag_rng *r)
{
    ompdag_condag_set *s = shuffled_copy(g, r);
    const ompdag_condag *h = ompdag_condag_set_graph(s, 0);
    for (size_t k = 0; k < N_M; ++k)
        for (int a = OMPDAG_ALG_EXACT; a <= OMPDAG_ALG_ALG0; ++a)
            cr_assert_eq(bound_of(h, (ompdag_algorithm)a, thread_counts[k]),
                         bound_of(g, (ompdag_algorithm)a, thread_counts[k]), "shuffling changed %s",
                         ompdag_algorithm_name((ompdag_algorithm)a));
    ompdag_condag_set_destroy(s);
}

Test(property, seed_generator_graphs, .timeout = 240)
{
    tally t = {0};
    ompdag_rng r;
    ompdag_rng_seed(&r, 20261122);
    for (int i = 0; i < 10000; ++i) {
        ompdag_gen_params p;
        ompdag_gen_params_init(&p);
        p.seed = (uint64_t)i;
        p.tasks = (int32_t)ompdag_rng_range(&r, 1, 6);
        p.nodes_min = 1;
        p.nodes_max = (int32_t)ompdag_rng_range(&r, 1, 9);
        p.p_if = 0.05 + 0.45 * ompdag_rng_unit(&r);
        p.p_cre = 0.05 + 0.45 * ompdag_rng_unit(&r);
        p.p_wait = 0.05 + 0.45 * ompdag_rng_unit(&r);
        p.wcet_min = 0;
        p.wcet_max = (int64_t)ompdag_rng_range(&r, 1, 50);
        ompdag_condag *g;
        ompdag_error err;
        cr_assert_eq(ompdag_gen_random(&p, &g, &err), OMPDAG_OK, "%s", err.message);
        check_graph(g, &t);
        if (i % 10 == 0) check_shuffle_invariance(g, &r);
        ompdag_condag_destroy(g);
    }
    cr_expect_eq(t.graphs, 10000);
    cr_expect_gt(t.alg0_strictly_above, 0, "alg0 never exceeded exact: the property is vacuous");
}

Test(property, structured_graphs_with_wide_branches, .timeout = 240)
{
    tally t = {0};
    ompdag_rng r;
    ompdag_rng_seed(&r, 7);
    for (int i = 0; i < 10000; ++i) {
        ompdag_condag *g = random_structured(&r);
        check_graph(g, &t);
        if (i % 10 == 0) check_shuffle_invariance(g, &r);
        ompdag_condag_destroy(g);
    }
    cr_expect_eq(t.graphs, 10000);
    cr_expect_gt(t.alg0_strictly_above, 0);
}

Test(property, migration_overhead_keeps_exact_equal_to_enumerate, .timeout = 120)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 99);
    for (int i = 0; i < 1000; ++i) {
        ompdag_condag *g = random_structured(&r);
        ompdag_rta_options opt;
        ompdag_rta_options_init(&opt, (int32_t)ompdag_rng_range(&r, 1, 8));
        opt.migration_overhead = ompdag_rng_range(&r, 1, 20);
        opt.migration_model =
            ompdag_rng_unit(&r) < 0.5 ? OMPDAG_MIGRATION_WFS : OMPDAG_MIGRATION_BFS;
        ompdag_rta_result *ex, *en, *a0;
        cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &ex, NULL), OMPDAG_OK);
        cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_ENUMERATE, &opt, &en, NULL), OMPDAG_OK);
        cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_ALG0, &opt, &a0, NULL), OMPDAG_OK);
        cr_assert_eq(ompdag_rta_result_bound_times_m(ex), ompdag_rta_result_bound_times_m(en));
        cr_assert_geq(ompdag_rta_result_bound_times_m(a0), ompdag_rta_result_bound_times_m(ex));
        check_witness(g, ex, &opt);
        ompdag_rta_result_destroy(ex);
        ompdag_rta_result_destroy(en);
        ompdag_rta_result_destroy(a0);
        ompdag_condag_destroy(g);
    }
}
