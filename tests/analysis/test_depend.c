/* tests/analysis/test_depend.c — sibling dependences (condag.md §6): the
 * `depend` key, Rule 3's D-edges, and the depend algorithm (rta_depend.c)
 * against the enumeration oracle on random graphs, for m in {1, 2, 4, 16}:
 *   depend >= enumerate; equal without C nodes and wherever "exact" is
 *   claimed; the witness re-evaluates to the bound; the critical path weighs
 *   len.  Hand cases for each §6 rule. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/compact.h"
#include "rta_internal.h"
#include "support.h"

static const int32_t dep_threads[] = {1, 2, 4, 16};
#define N_DM (sizeof dep_threads / sizeof dep_threads[0])

static bool has_c_node(const ompdag_condag *g)
{
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_C) return true;
    return false;
}

static void check_dep_witness(const ompdag_condag *g, const ompdag_rta_result *r,
                              const ompdag_rta_options *opt, bool must_equal)
{
    int32_t *choice = ompdag_rta_result_choices_copy(r, g);
    cr_assert_not_null(choice);
    ompdag_flow_eval e;
    ompdag_error err;
    cr_assert_eq(ompdag_flow_evaluate(g, choice, opt, &e, NULL, NULL, &err), OMPDAG_OK, "%s",
                 err.message);
    if (must_equal)
        cr_assert_eq(e.bound_times_m, ompdag_rta_result_bound_times_m(r), "witness %lld != %lld",
                     (long long)e.bound_times_m, (long long)ompdag_rta_result_bound_times_m(r));
    else
        cr_assert_leq(e.bound_times_m, ompdag_rta_result_bound_times_m(r));
    cr_assert_eq(e.len, ompdag_rta_result_len(r));
    int32_t n;
    const int32_t *path = ompdag_rta_result_critical_path(r, &n);
    int64_t sum = 0;
    for (int32_t i = 0; i < n; ++i)
        sum += ompdag_condag_node_wcet(g, path[i]);
    cr_assert_eq(sum, e.len, "critical path weighs %lld, flow's longest path %lld", (long long)sum,
                 (long long)e.len);
    free(choice);
}

typedef struct dep_tally {
    long graphs, with_dep, exact_claims, inexact, branchy, d_changed;
    double gap_sum; /* (depend - enumerate) / enumerate over inexact results */
} dep_tally;

/* depend vs the oracle for every m; returns false when enumeration is over
 * its limit (the graph is skipped). */
static bool check_dep_graph(const ompdag_condag *g, dep_tally *t)
{
    bool branchy = has_c_node(g);
    for (size_t k = 0; k < N_DM; ++k) {
        ompdag_rta_options opt;
        ompdag_rta_options_init(&opt, dep_threads[k]);
        opt.max_flows = 20000;
        ompdag_rta_result *d, *en;
        ompdag_error err;
        if (ompdag_rta_run(g, OMPDAG_ALG_ENUMERATE, &opt, &en, &err) == OMPDAG_ERR_LIMIT)
            return false;
        cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &d, &err), OMPDAG_OK, "%s",
                     err.message);
        int64_t bd = ompdag_rta_result_bound_times_m(d), be = ompdag_rta_result_bound_times_m(en);
        cr_assert_geq(bd, be, "depend %lld < enumerate %lld (m=%d, %s): UNSOUND", (long long)bd,
                      (long long)be, opt.m, ompdag_condag_name(g));
        bool exact = ompdag_rta_result_is_exact(d);
        if (!branchy) cr_assert(exact, "a graph without C nodes must be analysed exactly");
        if (exact)
            cr_assert_eq(bd, be, "depend claims exact: %lld != enumerate %lld (m=%d, %s)",
                         (long long)bd, (long long)be, opt.m, ompdag_condag_name(g));
        else
            t->inexact++, t->gap_sum += (double)(bd - be) / (double)(be ? be : 1);
        t->exact_claims += exact;
        check_dep_witness(g, d, &opt, exact);
        check_dep_witness(g, en, &opt, true);
        if (ompdag_condag_has_depend(g) && k == N_DM - 1) {
            /* Does any dependence matter here?  Compare with Alg1 (no D-edges). */
            ompdag_rta_result *a1;
            ompdag_rta_options plain = opt;
            plain.bound_only = true;
            cr_assert_eq(rta_exact(g, &plain, &a1, &err), OMPDAG_OK, "%s", err.message);
            cr_assert_leq(ompdag_rta_result_bound_times_m(a1), be);
            t->d_changed += ompdag_rta_result_bound_times_m(a1) < be;
            ompdag_rta_result_destroy(a1);
        }
        ompdag_rta_result_destroy(d);
        ompdag_rta_result_destroy(en);
    }
    t->graphs++;
    t->with_dep += ompdag_condag_has_depend(g);
    t->branchy += branchy;
    return true;
}

static ompdag_condag *gen_dep(ompdag_rng *r, int i, double p_if)
{
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    p.seed = (uint64_t)i;
    p.tasks = (int32_t)ompdag_rng_range(r, 3, 12);
    p.nodes_min = 1;
    p.nodes_max = (int32_t)ompdag_rng_range(r, 2, 8);
    p.p_if = p_if;
    p.p_cre = 0.2 + 0.5 * ompdag_rng_unit(r);
    p.p_wait = 0.3 * ompdag_rng_unit(r);
    if (p.p_cre + p.p_wait > 1) p.p_wait = 1 - p.p_cre;
    p.wcet_min = 0;
    p.wcet_max = (int64_t)ompdag_rng_range(r, 1, 50);
    p.p_dep = 0.3 + 0.7 * ompdag_rng_unit(r);
    p.dep_vars = (int32_t)ompdag_rng_range(r, 1, 3);
    ompdag_condag *g;
    ompdag_error err;
    cr_assert_eq(ompdag_gen_random(&p, &g, &err), OMPDAG_OK, "%s", err.message);
    return g;
}

Test(depend_property, branchy_seed_graphs_sound_and_exact, .timeout = 240)
{
    dep_tally t = {0};
    ompdag_rng r;
    ompdag_rng_seed(&r, 613);
    for (int i = 0; i < 3000; ++i) {
        ompdag_condag *g = gen_dep(&r, i, 0.05 + 0.45 * ompdag_rng_unit(&r));
        check_dep_graph(g, &t);
        ompdag_condag_destroy(g);
    }
    cr_expect_gt(t.graphs, 2500);
    cr_expect_gt(t.with_dep, t.graphs / 2);
    cr_expect_gt(t.branchy, t.graphs / 3);
    cr_expect_gt(t.d_changed, t.graphs / 10); /* else dependences never changed a bound: vacuous */
    fprintf(stderr, "depend: %ld changed by D-edges\n", t.d_changed);
    fprintf(stderr, "depend: %ld graphs, %ld exact claims, %ld inexact (mean gap %.4f%%)\n",
            t.graphs, t.exact_claims, t.inexact,
            t.inexact ? 100 * t.gap_sum / (double)t.inexact : 0.0);
}

Test(depend_property, branch_free_graphs_are_exact, .timeout = 240)
{
    dep_tally t = {0};
    ompdag_rng r;
    ompdag_rng_seed(&r, 614);
    for (int i = 0; i < 3000; ++i) {
        ompdag_condag *g = gen_dep(&r, 100000 + i, 0.0);
        cr_assert(!has_c_node(g));
        cr_assert(check_dep_graph(g, &t));
        ompdag_condag_destroy(g);
    }
    cr_expect_eq(t.inexact, 0);
    cr_expect_gt(t.d_changed, t.graphs / 10);
}

/* Adds random clauses to the T nodes of g through the file format. */
static ompdag_condag *with_random_depend(const ompdag_condag *g, ompdag_rng *r, int vars)
{
    static const char *const types[] = {"in", "out", "inout"};
    json_t *j = ompdag_condag_to_json(g);
    size_t i;
    json_t *node;
    json_array_foreach(json_object_get(j, "nodes"), i, node)
    {
        if (strcmp(json_string_value(json_object_get(node, "kind")), "T") ||
            ompdag_rng_unit(r) < 0.2)
            continue;
        json_t *arr = json_array();
        for (int64_t k = ompdag_rng_range(r, 1, 3); k > 0; --k) {
            char var[8];
            snprintf(var, sizeof var, "v%d", (int)ompdag_rng_range(r, 0, vars - 1));
            json_array_append_new(
                arr, json_pack("{s:s,s:s}", "type", types[ompdag_rng_range(r, 0, 2)], "var", var));
        }
        json_object_set_new(node, "depend", arr);
    }
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    ompdag_condag_set *s = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_buffer(text, strlen(text), "dep", &s, &err), OMPDAG_OK,
                 "%s", err.message);
    free(text);
    json_t *copy = ompdag_condag_to_json(ompdag_condag_set_graph(s, 0));
    ompdag_condag *out = NULL;
    cr_assert_eq(condag_from_json(copy, "copy", &out, &err), OMPDAG_OK, "%s", err.message);
    json_decref(copy);
    ompdag_condag_set_destroy(s);
    return out;
}

Test(depend_property, structured_graphs_with_clauses, .timeout = 240)
{
    dep_tally t = {0};
    ompdag_rng r;
    ompdag_rng_seed(&r, 615);
    for (int i = 0; i < 2000; ++i) {
        ompdag_condag *g0 = random_structured(&r);
        ompdag_condag *g = with_random_depend(g0, &r, (int)ompdag_rng_range(&r, 1, 3));
        check_dep_graph(g, &t);
        ompdag_condag_destroy(g0);
        ompdag_condag_destroy(g);
    }
    cr_expect_gt(t.graphs, 1500);
    cr_expect_eq(t.inexact, 0);
}

Test(depend_property, merged_vars_stay_sound, .timeout = 240)
{
    dep_tally t = {0};
    ompdag_rng r;
    ompdag_rng_seed(&r, 616);
    rta_depend_set_cell_budget(1); /* the smallest: forces vars into fewer classes */
    for (int i = 0; i < 1500; ++i) {
        ompdag_condag *g = gen_dep(&r, 200000 + i, 0.05 + 0.4 * ompdag_rng_unit(&r));
        check_dep_graph(g, &t);
        ompdag_condag_destroy(g);
    }
    rta_depend_set_cell_budget(0);
    cr_expect_gt(t.inexact, 0); /* else the budget never forced a merge: vacuous */
    fprintf(stderr, "merged vars: %ld inexact results, mean gap %.4f%%\n", t.inexact,
            t.inexact ? 100 * t.gap_sum / (double)t.inexact : 0.0);
}

Test(depend_property, no_clause_equals_alg1, .timeout = 120)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 617);
    for (int i = 0; i < 2000; ++i) {
        ompdag_condag *g = random_structured(&r);
        for (size_t k = 0; k < N_DM; ++k)
            cr_assert_eq(bound_of(g, OMPDAG_ALG_DEPEND, dep_threads[k]),
                         bound_of(g, OMPDAG_ALG_EXACT, dep_threads[k]));
        ompdag_condag_destroy(g);
    }
}

/* ---- hand cases: each rule of §6 ---------------------------------------- */

#define HDR "{'format':'ompdag-condag','version':1,'nodes':["

static int64_t dep_bound(const char *json, int32_t m, ompdag_algorithm alg)
{
    ompdag_condag_set *s = load_set_ok(json);
    int64_t b = bound_of(ompdag_condag_set_graph(s, 0), alg, m);
    ompdag_condag_set_destroy(s);
    return b;
}

/* Root creates a (c=10) then b (c=10), then waits; m=2: with an edge a->b the
 * longest path is 1+10+10+1 = 22, vol 22: 22 + 22 = 44; without: 22 + 12 = 34. */
#define TWO(ta, tb)                                                                                \
    HDR "{'id':'r1','task':'r','kind':'T','wcet':1,'creates':'a','depend':[" ta "]},"              \
        "{'id':'r2','task':'r','kind':'T','wcet':0,'creates':'b','depend':[" tb "]},"              \
        "{'id':'r3','task':'r','kind':'W','wcet':1},"                                              \
        "{'id':'a1','task':'a','kind':'N','wcet':10},{'id':'b1','task':'b','kind':'N','wcet':10}]" \
        ","                                                                                        \
        "'edges':[['r1','r2'],['r2','r3']]}"
#define IN(x) "{'type':'in','var':'" x "'}"
#define OUT(x) "{'type':'out','var':'" x "'}"
#define INOUT(x) "{'type':'inout','var':'" x "'}"

Test(depend_rules, in_after_out_and_the_other_pairs)
{
    cr_assert_eq(dep_bound(TWO(OUT("x"), IN("x")), 2, OMPDAG_ALG_EXACT), 44);
    cr_assert_eq(dep_bound(TWO(IN("x"), OUT("x")), 2, OMPDAG_ALG_EXACT), 44);
    cr_assert_eq(dep_bound(TWO(INOUT("x"), INOUT("x")), 2, OMPDAG_ALG_EXACT), 44);
    cr_assert_eq(dep_bound(TWO(OUT("x"), OUT("x")), 2, OMPDAG_ALG_EXACT), 44);
    cr_assert_eq(dep_bound(TWO(IN("x"), IN("x")), 2, OMPDAG_ALG_EXACT), 34, "in after in: none");
    cr_assert_eq(dep_bound(TWO(OUT("x"), IN("y")), 2, OMPDAG_ALG_EXACT), 34, "other var: none");
    cr_assert_eq(dep_bound(TWO(OUT("x"), IN("x")), 2, OMPDAG_ALG_ENUMERATE), 44);
}

/* Three readers of x (c=10 each) then a writer (c=5): the writer waits for
 * all three, and they run in parallel after the first writer w0 (c=7). */
Test(depend_rules, out_after_several_ins)
{
    const char *j = HDR "{'id':'r0','task':'r','kind':'T','wcet':0,'creates':'w0','depend':[" OUT(
        "x") "]},"
             "{'id':'r1','task':'r','kind':'T','wcet':0,'creates':'i1','depend':[" IN(
                 "x") "]},"
                      "{'id':'r2','task':'r','kind':'T','wcet':0,'creates':'i2','depend':[" IN(
                          "x") "]},"
                               "{'id':'r3','task':'r','kind':'T','wcet':0,'creates':'i3','depend':"
                               "[" IN("x") "]},"
                                           "{'id':'r4','task':'r','kind':'T','wcet':0,'creates':'"
                                           "w1','depend':[" OUT(
                                               "x") "]},"
                                                    "{'id':'r5','task':'r','kind':'W','wcet':0},"
                                                    "{'id':'w0n','task':'w0','kind':'N','wcet':7},{"
                                                    "'id':'i1n','task':'i1','kind':'N','wcet':10},"
                                                    "{'id':'i2n','task':'i2','kind':'N','wcet':11},"
                                                    "{'id':'i3n','task':'i3','kind':'N','wcet':10},"
                                                    "{'id':'w1n','task':'w1','kind':'N','wcet':5}],"
                                                    "'edges':[['r0','r1'],['r1','r2'],['r2','r3'],["
                                                    "'r3','r4'],['r4','r5']]}";
    /* vol 43; longest path w0 -> i2 -> w1 = 7 + 11 + 5 = 23; m=4: 43 + 3*23 = 112 */
    cr_assert_eq(dep_bound(j, 4, OMPDAG_ALG_EXACT), 112);
    cr_assert_eq(dep_bound(j, 4, OMPDAG_ALG_ENUMERATE), 112);
}

/* An inout chain a -> b -> c orders all three. */
Test(depend_rules, inout_chain)
{
    const char *j = HDR "{'id':'r1','task':'r','kind':'T','wcet':0,'creates':'a','depend':[" INOUT(
        "x") "]},"
             "{'id':'r2','task':'r','kind':'T','wcet':0,'creates':'b','depend':[" INOUT(
                 "x") "]},"
                      "{'id':'r3','task':'r','kind':'T','wcet':0,'creates':'c','depend':[" INOUT(
                          "x") "]},"
                               "{'id':'a1','task':'a','kind':'N','wcet':3},{'id':'b1','task':'b','"
                               "kind':'N','wcet':4},"
                               "{'id':'c1','task':'c','kind':'N','wcet':5}],"
                               "'edges':[['r1','r2'],['r2','r3']]}";
    /* the root's sink r3 creates c: path a->b->c = 12 = vol: m*R = 12*m */
    for (int m = 1; m <= 16; m *= 2) {
        cr_assert_eq(dep_bound(j, m, OMPDAG_ALG_EXACT), 12 * m);
        cr_assert_eq(dep_bound(j, m, OMPDAG_ALG_ENUMERATE), 12 * m);
    }
}

/* The writer is created in one arm of a branch; the reader after the join.
 * Worst flow: the arm with the writer (its edge makes the long path). */
Test(depend_rules, predecessor_in_an_untaken_branch)
{
    const char *j = HDR
        "{'id':'c','task':'r','kind':'C','wcet':0},"
        "{'id':'t1','task':'r','kind':'T','wcet':0,'creates':'a','depend':[" OUT(
            "x") "]},"
                 "{'id':'n1','task':'r','kind':'N','wcet':12},"
                 "{'id':'jn','task':'r','kind':'J','wcet':0},"
                 "{'id':'t2','task':'r','kind':'T','wcet':0,'creates':'b','depend':[" IN(
                     "x") "]},"
                          "{'id':'a1','task':'a','kind':'N','wcet':10},{'id':'b1','task':'b','kind'"
                          ":'N','wcet':10}],"
                          "'edges':[['c','t1'],['c','n1'],['t1','jn'],['n1','jn'],['jn','t2']]}";
    /* arm t1: vol 20, path a->b = 20: m=2 -> 40.  arm n1: vol 22, path 12+10 = 22: 44.
     * m=4: arm t1 20 + 3*20 = 80; arm n1: 22 + 3*22 = 88.  The untaken arm's
     * writer must not order b: in the n1 flow, b starts after n1 only. */
    cr_assert_eq(dep_bound(j, 2, OMPDAG_ALG_ENUMERATE), 44);
    cr_assert_eq(dep_bound(j, 2, OMPDAG_ALG_EXACT), 44);
    cr_assert_eq(dep_bound(j, 4, OMPDAG_ALG_EXACT), 88);
    /* Make the writer's arm heavier: now its D-edge decides. */
    char *k = strdup(j);
    char *w = strstr(k, "'wcet':10},{'id':'b1'");
    memcpy(w, "'wcet':30", 9);
    /* arm t1: vol 40, path 30+10 = 40: m=2 -> 80; arm n1: vol 22, path 22 -> 44 */
    cr_assert_eq(dep_bound(k, 2, OMPDAG_ALG_EXACT), 80);
    cr_assert_eq(dep_bound(k, 2, OMPDAG_ALG_ENUMERATE), 80);
    free(k);
}

/* a (out x) ; taskwait ; b (in x): the D-edge is implied by the W-edge. */
Test(depend_rules, dependence_across_a_taskwait)
{
    const char *j = HDR "{'id':'r1','task':'r','kind':'T','wcet':0,'creates':'a','depend':[" OUT(
        "x") "]},"
             "{'id':'r2','task':'r','kind':'W','wcet':2},"
             "{'id':'r3','task':'r','kind':'T','wcet':0,'creates':'b','depend':[" IN(
                 "x") "]},"
                      "{'id':'a1','task':'a','kind':'N','wcet':10},{'id':'b1','task':'b','kind':'N'"
                      ",'wcet':10}],"
                      "'edges':[['r1','r2'],['r2','r3']]}";
    const char *plain = HDR
        "{'id':'r1','task':'r','kind':'T','wcet':0,'creates':'a'},"
        "{'id':'r2','task':'r','kind':'W','wcet':2},"
        "{'id':'r3','task':'r','kind':'T','wcet':0,'creates':'b'},"
        "{'id':'a1','task':'a','kind':'N','wcet':10},{'id':'b1','task':'b','kind':'N','wcet':10}],"
        "'edges':[['r1','r2'],['r2','r3']]}";
    for (int m = 1; m <= 4; ++m) {
        cr_assert_eq(dep_bound(j, m, OMPDAG_ALG_EXACT), dep_bound(plain, m, OMPDAG_ALG_EXACT));
        cr_assert_eq(dep_bound(j, m, OMPDAG_ALG_ENUMERATE), 22 * m);
    }
}

/* Dependences are among siblings only: a grandchild's clause does not order
 * it after its parent's sibling. */
Test(depend_rules, only_siblings_are_ordered)
{
    const char *j = HDR "{'id':'r1','task':'r','kind':'T','wcet':0,'creates':'a','depend':[" OUT(
        "x") "]},"
             "{'id':'r2','task':'r','kind':'T','wcet':0,'creates':'b'},"
             "{'id':'a1','task':'a','kind':'N','wcet':10},"
             "{'id':'b1','task':'b','kind':'T','wcet':0,'creates':'c','depend':[" IN(
                 "x") "]},"
                      "{'id':'c1','task':'c','kind':'N','wcet':10}],"
                      "'edges':[['r1','r2']]}";
    cr_assert_eq(dep_bound(j, 2, OMPDAG_ALG_EXACT), 20 + 10);
    cr_assert_eq(dep_bound(j, 2, OMPDAG_ALG_ENUMERATE), 30);
}

/* ---- the format ------------------------------------------------------------- */

static void expect_load_error(const char *json, ompdag_status code, const char *needle)
{
    ompdag_error err = {0};
    ompdag_condag *g = load_graph(json, &err);
    cr_assert_null(g, "loaded a bad graph");
    cr_assert_eq(err.code, code, "%s", err.message);
    cr_assert(strstr(err.message, needle), "message '%s' lacks '%s'", err.message, needle);
}

#define ONE(kind, extra, dep)                                                                      \
    HDR "{'id':'r1','task':'r','kind':'" kind "','wcet':1" extra ",'depend':" dep "},"             \
        "{'id':'a1','task':'a','kind':'N','wcet':1}],'edges':[]}"

Test(depend_format, errors_name_the_node)
{
    expect_load_error(ONE("T", ",'creates':'a'", "[{'type':'sideways','var':'x'}]"),
                      OMPDAG_ERR_INVALID, "node 'r1'");
    /* a mutexinoutset task holds its exclusion for its whole body: one node (docs/mutex.md) */
    expect_load_error(HDR "{'id':'r1','task':'r','kind':'T','wcet':1,'creates':'a','depend':"
                          "[{'type':'mutexinoutset','var':'x'}]},"
                          "{'id':'a1','task':'a','kind':'N','wcet':1},"
                          "{'id':'a2','task':'a','kind':'W','wcet':1}],'edges':[['a1','a2']]}",
                      OMPDAG_ERR_UNSUPPORTED, "must be one node");
    expect_load_error(ONE("T", ",'creates':'a'", "[{'type':'depobj','var':'x'}]"),
                      OMPDAG_ERR_UNSUPPORTED, "depobj");
    expect_load_error(ONE("T", ",'creates':'a'", "[{'type':'in','var':''}]"), OMPDAG_ERR_INVALID,
                      "empty var");
    expect_load_error(ONE("T", ",'creates':'a'", "[{'type':'in'}]"), OMPDAG_ERR_INVALID, "'r1'");
    expect_load_error(ONE("T", ",'creates':'a'", "{'type':'in','var':'x'}"), OMPDAG_ERR_INVALID,
                      "must be an array");
    expect_load_error(HDR
                      "{'id':'r1','task':'r','kind':'N','wcet':1,'depend':[" IN("x") "]}],"
                                                                                     "'edges':[]}",
                      OMPDAG_ERR_INVALID, "only allowed on T nodes");
}

/* Compact graphs (shared bodies) stand for several sibling sets: refused. */
Test(depend_format, compact_graphs_with_clauses_are_refused)
{
    expect_load_error("{'format':'ompdag-condag','version':1,'extensions':['compact'],'nodes':["
                      "{'id':'r1','task':'r','kind':'T','wcet':1,'creates':'a','depend':[" OUT(
                          "x") "]},"
                               "{'id':'a1','task':'a','kind':'N','wcet':1}],'edges':[]}",
                      OMPDAG_ERR_UNSUPPORTED, "compact");
}

Test(depend_format, round_trip_keeps_the_clauses)
{
    ompdag_condag_set *s = load_set_ok(TWO(OUT("x") "," IN("y"), INOUT("x")));
    ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    int32_t r1 = node_index(g, "r1");
    cr_assert_eq(ompdag_condag_node_depend_count(g, r1), 2);
    cr_assert_eq(ompdag_condag_node_depend_type(g, r1, 0), OMPDAG_DEP_OUT);
    cr_assert_str_eq(ompdag_condag_depend_var_name(g, ompdag_condag_node_depend_var(g, r1, 1)),
                     "y");
    cr_assert_null(ompdag_condag_extra(g, r1), "'depend' must leave the extras");
    json_t *j = ompdag_condag_to_json(g);
    char *text = json_dumps(j, JSON_COMPACT);
    cr_assert(strstr(text, "\"depend\": [{\"type\": \"out\", \"var\": \"x\"}") ||
                  strstr(text, "\"depend\":[{\"type\":\"out\",\"var\":\"x\"}"),
              "%s", text);
    ompdag_condag *h = NULL;
    ompdag_error err;
    cr_assert_eq(condag_from_json(j, "copy", &h, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_condag_node_depend_count(h, node_index(h, "r2")), 1);
    cr_assert_eq(bound_of(h, OMPDAG_ALG_EXACT, 2), 44);
    free(text);
    json_decref(j);
    ompdag_condag_destroy(h);
    ompdag_condag_set_destroy(s);
}

Test(depend_format, alg0_refuses_and_says_why)
{
    ompdag_condag_set *s = load_set_ok(TWO(OUT("x"), IN("x")));
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 2);
    ompdag_rta_result *r = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_rta_run(ompdag_condag_set_graph(s, 0), OMPDAG_ALG_ALG0, &opt, &r, &err),
                 OMPDAG_ERR_UNSUPPORTED);
    cr_assert(strstr(err.message, "depend") && strstr(err.message, "r1"), "%s", err.message);
    ompdag_condag_set_destroy(s);
}

Test(depend_format, union_of_d_edges_for_drawings)
{
    /* the branch test: a (out x) in one arm, b (in x) after the join */
    const char *j = HDR
        "{'id':'c','task':'r','kind':'C','wcet':0},"
        "{'id':'t1','task':'r','kind':'T','wcet':0,'creates':'a','depend':[" OUT(
            "x") "]},"
                 "{'id':'n1','task':'r','kind':'N','wcet':12},"
                 "{'id':'jn','task':'r','kind':'J','wcet':0},"
                 "{'id':'t2','task':'r','kind':'T','wcet':0,'creates':'b','depend':[" IN(
                     "x") "]},"
                          "{'id':'t3','task':'r','kind':'T','wcet':0,'creates':'d','depend':[" OUT(
                              "x") "]},"
                                   "{'id':'a1','task':'a','kind':'N','wcet':10},{'id':'b1','task':'"
                                   "b','kind':'N','wcet':10},"
                                   "{'id':'d1','task':'d','kind':'N','wcet':1}],"
                                   "'edges':[['c','t1'],['c','n1'],['t1','jn'],['n1','jn'],['jn','"
                                   "t2'],['t2','t3']]}";
    ompdag_condag_set *s = load_set_ok(j);
    ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    int32_t *from, *to;
    int64_t n;
    cr_assert_eq(ompdag_condag_depend_edges(g, &from, &to, &n, NULL), OMPDAG_OK);
    /* a->b, a->d (on the path through t1, a is d's last writer... b reads in
     * between, so a->d and b->d) */
    cr_assert_eq(n, 3);
    int found = 0;
    for (int64_t i = 0; i < n; ++i) {
        const char *f = ompdag_condag_node_id(g, from[i]), *t = ompdag_condag_node_id(g, to[i]);
        found += (!strcmp(f, "a1") && !strcmp(t, "b1")) + (!strcmp(f, "a1") && !strcmp(t, "d1")) +
                 (!strcmp(f, "b1") && !strcmp(t, "d1"));
    }
    cr_assert_eq(found, 3);
    free(from), free(to);
    ompdag_condag_set_destroy(s);
}

/* Issue 26 item 1: `expand` and `expand --share` copied plain graphs without
 * their depend clauses, so the copy's bound dropped (m·R 130 -> 76) and
 * `check` passed the copy while failing the original.  Both must keep every
 * clause and every bound, on random graphs with clauses. */
static int64_t exact_times_m(const ompdag_condag *g, int32_t m)
{
    ompdag_rta_options o;
    ompdag_rta_options_init(&o, m);
    ompdag_rta_result *res;
    ompdag_error err;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &o, &res, &err), OMPDAG_OK, "%s", err.message);
    int64_t b = ompdag_rta_result_bound_times_m(res);
    ompdag_rta_result_destroy(res);
    return b;
}

static void assert_same_clauses(const ompdag_condag *g, const ompdag_condag *x)
{
    cr_assert_eq(ompdag_condag_node_count(x), ompdag_condag_node_count(g));
    cr_assert_eq(ompdag_condag_has_depend(x), ompdag_condag_has_depend(g));
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        const char *id = ompdag_condag_node_id(g, v);
        int32_t w = ompdag_condag_find_node(x, id); /* a plain graph's copy keeps its ids */
        cr_assert_geq(w, 0, "node %s missing from the copy", id);
        int32_t n = ompdag_condag_node_depend_count(g, v);
        cr_assert_eq(ompdag_condag_node_depend_count(x, w), n, "node %s", id);
        for (int32_t i = 0; i < n; ++i) {
            cr_assert_eq(ompdag_condag_node_depend_type(x, w, i),
                         ompdag_condag_node_depend_type(g, v, i));
            cr_assert_str_eq(
                ompdag_condag_depend_var_name(x, ompdag_condag_node_depend_var(x, w, i)),
                ompdag_condag_depend_var_name(g, ompdag_condag_node_depend_var(g, v, i)));
        }
    }
}

Test(depend_property, expand_and_share_keep_clauses_and_bounds, .timeout = 240)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 2601);
    long with_dep = 0;
    for (int i = 0; i < 1500; ++i) {
        ompdag_condag *g = gen_dep(&r, 200000 + i, 0.3 * ompdag_rng_unit(&r));
        with_dep += ompdag_condag_has_depend(g);
        ompdag_condag *x = NULL, *s = NULL;
        ompdag_error err;
        cr_assert_eq(ompdag_compact_expand(g, 0, &x, &err), OMPDAG_OK, "%s", err.message);
        cr_assert_eq(ompdag_compact_share(g, &s, &err), OMPDAG_OK, "%s", err.message);
        assert_same_clauses(g, x);
        for (size_t k = 0; k < sizeof dep_threads / sizeof dep_threads[0]; ++k) {
            int64_t b = exact_times_m(g, dep_threads[k]);
            cr_assert_eq(exact_times_m(x, dep_threads[k]), b, "graph %d m=%d: expand", i,
                         dep_threads[k]);
            cr_assert_eq(exact_times_m(s, dep_threads[k]), b, "graph %d m=%d: share", i,
                         dep_threads[k]);
        }
        ompdag_condag_destroy(x), ompdag_condag_destroy(s), ompdag_condag_destroy(g);
    }
    cr_expect_gt(with_dep, 700, "only %ld graphs carry clauses", with_dep);
}
