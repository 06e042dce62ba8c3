/* tests/analysis/test_depend_sets.c — the OpenMP 5.x dependence types
 * inoutset and mutexinoutset (docs/depend.md, docs/mutex.md; issue 25 items
 * 3 and 4).
 *
 *  - rules on hand graphs: a run of inoutset (or mutexinoutset) siblings is
 *    concurrent and ordered against in/out/inout on both sides; in after a
 *    set and a set after ins; two different set types order each other;
 *    mutexinoutset siblings get the lock "mutexinoutset(x)" and its
 *    blocking term;
 *  - the oracle: on random flows of random graphs with every type, the
 *    library's per-flow D-edges (condag_depend.c's group rule, through
 *    ompdag_flow_evaluate) give the same m·R as a literal reading of OpenMP
 *    5.1 §15.9.5 written here (every earlier executed sibling with a
 *    conflicting clause on a common var is a predecessor);
 *  - the bound: depend >= enumerate on every graph, equal where it claims
 *    exact, and its witness re-evaluates to it. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "depend_oracle.h"
#include "ompdag/locks.h"
#include "support.h"

#define HDR "{'format':'ompdag-condag','version':1,'nodes':["

static int64_t bound(const char *json, int32_t m, ompdag_algorithm alg)
{
    ompdag_error err;
    ompdag_condag *g = load_graph(json, &err);
    cr_assert_not_null(g, "%s", err.message);
    int64_t b = bound_of(g, alg, m);
    ompdag_condag_destroy(g);
    return b;
}

/* Root creates tasks a, b, c, d (one node each, WCETs 10, 20, 40, 80) with
 * the given clause types on var x. */
static const char *four(const char *ta, const char *tb, const char *tc, const char *td)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             HDR "{'id':'r1','task':'r','kind':'T','wcet':0,'creates':'a','depend':[{'type':'%s',"
                 "'var':'x'}]},"
                 "{'id':'r2','task':'r','kind':'T','wcet':0,'creates':'b','depend':[{'type':'%s',"
                 "'var':'x'}]},"
                 "{'id':'r3','task':'r','kind':'T','wcet':0,'creates':'c','depend':[{'type':'%s',"
                 "'var':'x'}]},"
                 "{'id':'r4','task':'r','kind':'T','wcet':0,'creates':'d','depend':[{'type':'%s',"
                 "'var':'x'}]},"
                 "{'id':'a1','task':'a','kind':'N','wcet':10},"
                 "{'id':'b1','task':'b','kind':'N','wcet':20},"
                 "{'id':'c1','task':'c','kind':'N','wcet':40},"
                 "{'id':'d1','task':'d','kind':'N','wcet':80}],"
                 "'edges':[['r1','r2'],['r2','r3'],['r3','r4']]}",
             ta, tb, tc, td);
    return buf;
}

/* len of the four-task graph at m = 2: m·R − vol (vol = 150). */
static int64_t len_of(const char *ta, const char *tb, const char *tc, const char *td)
{
    int64_t b = bound(four(ta, tb, tc, td), 2, OMPDAG_ALG_EXACT);
    cr_assert_eq(b, bound(four(ta, tb, tc, td), 2, OMPDAG_ALG_ENUMERATE));
    return b - 150;
}

Test(depend_sets, a_run_of_inoutset_is_concurrent_and_ordered_on_both_sides)
{
    /* out a; inoutset b, c; in d: a → {b, c} → d, b ∥ c: 10 + 40 + 80 */
    cr_assert_eq(len_of("out", "inoutset", "inoutset", "in"), 130);
    /* in a; inoutset b, c; out d: same shape */
    cr_assert_eq(len_of("in", "inoutset", "inoutset", "out"), 130);
    /* ins and sets alternate: every step is ordered: 10 + 20 + 40 + 80 */
    cr_assert_eq(len_of("in", "inoutset", "in", "inoutset"), 150);
    /* four inoutset: all concurrent: the longest task */
    cr_assert_eq(len_of("inoutset", "inoutset", "inoutset", "inoutset"), 80);
    /* a set after ins follows every in of the run: in a, in b, set c: 20 + 40 + 80 */
    cr_assert_eq(len_of("in", "in", "inoutset", "inoutset"), 20 + 80);
    /* the two set types order each other */
    cr_assert_eq(len_of("inoutset", "mutexinoutset", "inoutset", "out"), 150);
}

Test(depend_sets, mutexinoutset_siblings_take_a_lock_with_its_blocking_term)
{
    ompdag_error err;
    ompdag_condag *g =
        load_graph(four("mutexinoutset", "mutexinoutset", "mutexinoutset", "in"), &err);
    cr_assert_not_null(g, "%s", err.message);
    int32_t c1 = node_index(g, "c1"), d1 = node_index(g, "d1");
    cr_assert_eq(ompdag_condag_node_lock_count(g, c1), 1);
    cr_assert_str_eq(ompdag_condag_node_lock_name(g, c1, 0), "mutexinoutset(x)");
    cr_assert_eq(ompdag_condag_node_lock_acquisitions(g, c1, 0), OMPDAG_LOCK_UNBOUNDED);
    cr_assert_eq(ompdag_condag_node_lock_count(g, d1), 0);
    /* c waits for a and b's sections (30), b for 50, a for 60 (count-free term) */
    cr_assert_eq(ompdag_condag_node_blocking(g, c1, 2), 30);
    /* m = 2: c' = 10+60, 20+50, 40+30 = 70, 70, 70; vol = 210 + 80; len = 70 + 80 */
    cr_assert_eq(bound_of(g, OMPDAG_ALG_EXACT, 2), 290 + 150);
    cr_assert_eq(bound_of(g, OMPDAG_ALG_ENUMERATE, 2), 290 + 150);
    /* saved with the locks extension, and reloaded to the same bound */
    json_t *j = ompdag_condag_to_json(g);
    ompdag_condag *h = NULL;
    cr_assert_eq(condag_from_json(j, "copy", &h, &err), OMPDAG_OK, "%s", err.message);
    json_decref(j);
    cr_assert_eq(bound_of(h, OMPDAG_ALG_EXACT, 2), 440);
    ompdag_condag_destroy(g);
    ompdag_condag_destroy(h);
    /* a mutexinoutset task that takes another lock inside: nested, refused */
    cr_assert_null(load_graph("{'format':'ompdag-condag','version':1,'extensions':['locks'],"
                              "'nodes':[{'id':'r1','task':'r','kind':'T','wcet':0,'creates':'a',"
                              "'depend':[{'type':'mutexinoutset','var':'x'}]},"
                              "{'id':'a1','task':'a','kind':'N','wcet':1,"
                              "'locks':[{'lock':'critical','count':1}]}],'edges':[]}",
                              &err));
    cr_assert(strstr(err.message, "nested"), "%s", err.message);
}

/* A random graph with random clauses of all five types (mutexinoutset only
 * on tasks of one node). */
static ompdag_condag *random_sets(uint64_t seed, ompdag_rng *r)
{
    static const char *const types[] = {"in", "out", "inout", "inoutset", "mutexinoutset"};
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    p.seed = seed;
    p.tasks = (int32_t)ompdag_rng_range(r, 3, 10);
    p.nodes_min = 1;
    p.nodes_max = (int32_t)ompdag_rng_range(r, 1, 6);
    p.p_if = 0.25 * ompdag_rng_unit(r);
    p.p_cre = 0.3 + 0.4 * ompdag_rng_unit(r);
    p.p_wait = 0.2 * ompdag_rng_unit(r);
    p.wcet_min = 0;
    p.wcet_max = (int64_t)ompdag_rng_range(r, 1, 50);
    ompdag_condag *g0;
    ompdag_error err;
    cr_assert_eq(ompdag_gen_random(&p, &g0, &err), OMPDAG_OK, "%s", err.message);
    json_t *j = ompdag_condag_to_json(g0);
    int vars = (int)ompdag_rng_range(r, 1, 3);
    size_t i;
    json_t *node;
    json_array_foreach(json_object_get(j, "nodes"), i, node)
    {
        int32_t v = node_index(g0, json_string_value(json_object_get(node, "id")));
        if (ompdag_condag_node_kind(g0, v) != OMPDAG_KIND_T || ompdag_rng_unit(r) < 0.15) continue;
        int32_t c = ompdag_condag_node_creates(g0, v);
        bool one_node = ompdag_condag_task_source(g0, c) == ompdag_condag_task_sink(g0, c);
        json_t *arr = json_array();
        for (int64_t k = ompdag_rng_range(r, 1, 2); k > 0; --k) {
            char var[8];
            snprintf(var, sizeof var, "v%d", (int)ompdag_rng_range(r, 0, vars - 1));
            int t = (int)ompdag_rng_range(r, 0, one_node ? 4 : 3);
            json_array_append_new(arr, json_pack("{s:s,s:s}", "type", types[t], "var", var));
        }
        json_object_set_new(node, "depend", arr);
    }
    ompdag_condag *g = NULL;
    cr_assert_eq(condag_from_json(j, "sets", &g, &err), OMPDAG_OK, "%s", err.message);
    json_decref(j);
    ompdag_condag_destroy(g0);
    return g;
}

Test(depend_sets, the_group_rule_equals_the_literal_rule_on_random_flows, .timeout = 240)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 2025);
    long flows = 0;
    for (uint64_t seed = 1; seed <= 1500; ++seed) {
        ompdag_condag *g = random_sets(seed, &r);
        int32_t n = ompdag_condag_node_count(g);
        int32_t *choice = malloc(sizeof *choice * (size_t)n);
        for (int f = 0; f < 8; ++f) {
            random_choice(g, &r, choice);
            for (int32_t m = 1; m <= 4; m += 3) {
                ompdag_rta_options opt;
                ompdag_rta_options_init(&opt, m);
                ompdag_flow_eval e;
                ompdag_error err;
                cr_assert_eq(ompdag_flow_evaluate(g, choice, &opt, &e, NULL, NULL, &err), OMPDAG_OK,
                             "%s", err.message);
                int64_t lit = literal_flow(g, choice, m);
                cr_assert_eq(e.bound_times_m, lit, "seed %llu m %d: group rule %lld, literal %lld",
                             (unsigned long long)seed, m, (long long)e.bound_times_m,
                             (long long)lit);
                flows++;
            }
        }
        free(choice);
        ompdag_condag_destroy(g);
    }
    cr_log_info("set types: %ld flows, group rule = literal rule", flows);
}

Test(depend_sets, depend_is_sound_and_exact_where_it_says_so, .timeout = 240)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 77);
    long graphs = 0, exact = 0, with_sets = 0, with_mutex = 0;
    for (uint64_t seed = 1; seed <= 1500; ++seed) {
        ompdag_condag *g = random_sets(seed, &r);
        bool sets = false;
        for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
            for (int32_t i = 0; i < ompdag_condag_node_depend_count(g, v); ++i)
                sets = sets || ompdag_condag_node_depend_type(g, v, i) >= OMPDAG_DEP_INOUTSET;
        with_sets += sets;
        with_mutex += ompdag_condag_has_locks(g);
        for (int32_t m = 1; m <= 4; ++m) {
            ompdag_rta_options opt;
            ompdag_rta_options_init(&opt, m);
            opt.max_flows = 20000;
            ompdag_rta_result *d = NULL, *en = NULL;
            ompdag_error err;
            if (ompdag_rta_run(g, OMPDAG_ALG_ENUMERATE, &opt, &en, &err) == OMPDAG_ERR_LIMIT) break;
            cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_DEPEND, &opt, &d, &err), OMPDAG_OK, "%s",
                         err.message);
            int64_t bd = ompdag_rta_result_bound_times_m(d),
                    be = ompdag_rta_result_bound_times_m(en);
            cr_assert_geq(bd, be, "seed %llu m %d: depend %lld < enumerate %lld: UNSOUND",
                          (unsigned long long)seed, m, (long long)bd, (long long)be);
            if (ompdag_rta_result_is_exact(d)) {
                cr_assert_eq(bd, be, "seed %llu m %d: exact claimed, %lld != %lld",
                             (unsigned long long)seed, m, (long long)bd, (long long)be);
                exact++;
            }
            int32_t *choice = ompdag_rta_result_choices_copy(d, g);
            ompdag_flow_eval e;
            cr_assert_eq(ompdag_flow_evaluate(g, choice, &opt, &e, NULL, NULL, &err), OMPDAG_OK);
            if (ompdag_rta_result_is_exact(d)) cr_assert_eq(e.bound_times_m, bd);
            free(choice);
            ompdag_rta_result_destroy(d);
            ompdag_rta_result_destroy(en);
            graphs++;
        }
        ompdag_condag_destroy(g);
    }
    cr_log_info("set types: %ld (graph, m) pairs, %ld exact claims; %ld graphs with a set type, "
                "%ld with mutexinoutset locks",
                graphs, exact, with_sets, with_mutex);
    cr_assert_gt(with_sets, 500);
    cr_assert_gt(with_mutex, 100);
}
