/* tests/analysis/test_rta.c — hand-computed bounds: one case per recurrence
 * case of docs/condag.md §3, the Figure 5 family, and migration
 * overhead. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static ompdag_condag *must_load(const char *json)
{
    ompdag_error err = {0};
    ompdag_condag *g = load_graph(json, &err);
    cr_assert_not_null(g, "load failed: %s", err.message);
    return g;
}

static void expect_all(const char *json, int32_t m, int64_t exact, int64_t alg0)
{
    ompdag_condag *g = must_load(json);
    cr_expect_eq(bound_of(g, OMPDAG_ALG_EXACT, m), exact, "exact: got %lld, want %lld",
                 (long long)bound_of(g, OMPDAG_ALG_EXACT, m), (long long)exact);
    cr_expect_eq(bound_of(g, OMPDAG_ALG_ENUMERATE, m), exact, "enumerate");
    cr_expect_eq(bound_of(g, OMPDAG_ALG_ALG0, m), alg0, "alg0: got %lld, want %lld",
                 (long long)bound_of(g, OMPDAG_ALG_ALG0, m), (long long)alg0);
    ompdag_condag_destroy(g);
}

#define HDR "{'format':'ompdag-condag','version':1,"

Test(rta_cases, single_node)
{
    /* m·R = m·c */
    expect_all(HDR "'nodes':[{'id':'a','task':'t','kind':'N','wcet':5}]}", 3, 15, 15);
}

Test(rta_cases, plain_chain)
{
    /* vol 5, len 5: 5 + (2-1)*5 */
    expect_all(HDR "'nodes':[{'id':'a','task':'t','kind':'N','wcet':2},"
                   "{'id':'b','task':'t','kind':'N','wcet':3}],'edges':[['a','b']]}",
               2, 10, 10);
}

Test(rta_cases, branch_takes_heavier_arm)
{
    /* C(1) -> {N(4), N(2), N(3)} -> J(1); worst arm: vol = len = 6, m=2 -> 12 */
    const char *j = HDR "'nodes':[{'id':'c','task':'t','kind':'C','wcet':1},"
                        "{'id':'x','task':'t','kind':'N','wcet':4},"
                        "{'id':'y','task':'t','kind':'N','wcet':2},"
                        "{'id':'z','task':'t','kind':'N','wcet':3},"
                        "{'id':'j','task':'t','kind':'J','wcet':1}],"
                        "'edges':[['c','y'],['c','x'],['c','z'],['x','j'],['y','j'],['z','j']]}";
    expect_all(j, 2, 12, 12);
    ompdag_condag *g = must_load(j);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 2);
    ompdag_rta_result *r;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, NULL), OMPDAG_OK);
    cr_expect_eq(ompdag_rta_result_choice(r, node_index(g, "c")), node_index(g, "x"));
    int32_t n;
    const int32_t *path = ompdag_rta_result_critical_path(r, &n);
    cr_assert_eq(n, 3);
    cr_expect_eq(path[1], node_index(g, "x"));
    ompdag_rta_result_destroy(r);
    ompdag_condag_destroy(g);
}

/* T(1) creates u = [N(10)]; the creator continues with one more node. */
#define CHILD_THEN(kind, w)                                                                        \
    HDR "'nodes':[{'id':'t1','task':'p','kind':'T','wcet':1,'creates':'u'},"                       \
        "{'id':'c1','task':'u','kind':'N','wcet':10},"                                             \
        "{'id':'s','task':'p','kind':'" kind "','wcet':" #w "}],'edges':[['t1','s']]}"

Test(rta_cases, task_creation_path_ends_in_child)
{
    /* vol 13; len T->child = 11; A = 2 + max(4+10, 20+2, 20-inf) = 24 */
    expect_all(CHILD_THEN("N", 2), 2, 24, 24);
}

Test(rta_cases, task_creation_path_returns_at_taskwait)
{
    /* W-edge child -> s: len 1+10+3 = 14 = vol: 14 + 14 = 28 */
    expect_all(CHILD_THEN("W", 3), 2, 28, 28);
}

Test(rta_cases, task_creation_skips_child)
{
    /* Creator's own continuation is longest: T(1) -> N(50), child N(10).
     * vol 61, len 51: 61 + 2*51 = 163 on m=3 */
    expect_all(CHILD_THEN("N", 50), 3, 163, 163);
}

Test(rta_cases, task_sink_is_a_t_node)
{
    /* N(1) -> T(2) creating [N(5)]: vol = len = 8; m=3: 8 + 16 */
    expect_all(HDR "'nodes':[{'id':'a','task':'p','kind':'N','wcet':1},"
                   "{'id':'b','task':'p','kind':'T','wcet':2,'creates':'q'},"
                   "{'id':'c','task':'q','kind':'N','wcet':5}],'edges':[['a','b']]}",
               3, 24, 24);
}

Test(rta_cases, w_edge_only_to_first_taskwait)
{
    /* T(0)[child 10] -> W1(0) -> N(100) -> W2(0).  Rule 2 links the child
     * only to W1; the graph stays a DAG and the bound counts everything once. */
    ompdag_condag *g =
        must_load(HDR "'nodes':[{'id':'t','task':'p','kind':'T','wcet':0,'creates':'q'},"
                      "{'id':'c','task':'q','kind':'N','wcet':10},"
                      "{'id':'w1','task':'p','kind':'W','wcet':0},"
                      "{'id':'n','task':'p','kind':'N','wcet':100},"
                      "{'id':'w2','task':'p','kind':'W','wcet':0}],"
                      "'edges':[['t','w1'],['w1','n'],['n','w2']]}");
    int32_t k;
    const int32_t *ws = ompdag_condag_node_wsucc(g, node_index(g, "c"), &k);
    cr_assert_eq(k, 1);
    cr_expect_eq(ws[0], node_index(g, "w1"));
    /* vol 110, len 110 (t->c->w1->n->w2), m=2 */
    cr_expect_eq(bound_of(g, OMPDAG_ALG_EXACT, 2), 220);
    ompdag_condag_destroy(g);
}

Test(rta_cases, w_edges_into_each_branch)
{
    /* T[child 10] -> C -> {W(5), N(1)} -> J: the child is awaited in one arm
     * only (multi-sink).  Arm W: vol 15, len 15 -> m=4: 15+45 = 60.
     * Arm N: vol 11, len 10 -> 11+30 = 41. */
    ompdag_condag *g =
        must_load(HDR "'nodes':[{'id':'t','task':'p','kind':'T','wcet':0,'creates':'q'},"
                      "{'id':'c','task':'q','kind':'N','wcet':10},"
                      "{'id':'b','task':'p','kind':'C','wcet':0},"
                      "{'id':'w','task':'p','kind':'W','wcet':5},"
                      "{'id':'x','task':'p','kind':'N','wcet':1},"
                      "{'id':'j','task':'p','kind':'J','wcet':0}],"
                      "'edges':[['t','b'],['b','w'],['b','x'],['w','j'],['x','j']]}");
    int32_t k;
    ompdag_condag_node_wsucc(g, node_index(g, "c"), &k);
    cr_expect_eq(k, 1);
    cr_expect_eq(bound_of(g, OMPDAG_ALG_EXACT, 4), 60);
    cr_expect_eq(bound_of(g, OMPDAG_ALG_ENUMERATE, 4), 60);
    ompdag_condag_destroy(g);
}

/* Seed Figure 5: τi: T(0) creating τj = [N(0)], then C with arm 1 = W(L)
 * and arm 2 = a chain of m·L T nodes each creating a one-node task of cost
 * 1, then J.  Exact m·R = m·L + m − 1; alg0 = m·L + L·(m − 1). */
static ompdag_condag *figure5(int32_t m, int64_t L)
{
    ompdag_condag *g = ompdag_condag_create();
    ompdag_error err;
    int32_t v[4];
    ompdag_node_spec specs[] = {
        {.id = "t0", .task = "ti", .kind = OMPDAG_KIND_T, .creates = "tj"},
        {.id = "j0", .task = "tj", .kind = OMPDAG_KIND_N},
        {.id = "c", .task = "ti", .kind = OMPDAG_KIND_C},
        {.id = "w", .task = "ti", .kind = OMPDAG_KIND_W, .wcet = L},
    };
    for (int i = 0; i < 4; ++i)
        cr_assert_eq(ompdag_condag_add_node(g, &specs[i], &v[i], &err), OMPDAG_OK, "%s",
                     err.message);
    int32_t prev = v[2];
    for (int64_t i = 0; i < m * L; ++i) {
        char id[32], task[32], child[32];
        snprintf(id, sizeof id, "k%lld", (long long)i);
        snprintf(task, sizeof task, "u%lld", (long long)i);
        snprintf(child, sizeof child, "c%lld", (long long)i);
        ompdag_node_spec t = {.id = id, .task = "ti", .kind = OMPDAG_KIND_T, .creates = task};
        ompdag_node_spec c = {.id = child, .task = task, .kind = OMPDAG_KIND_N, .wcet = 1};
        int32_t tv;
        cr_assert_eq(ompdag_condag_add_node(g, &t, &tv, &err), OMPDAG_OK);
        cr_assert_eq(ompdag_condag_add_node(g, &c, NULL, &err), OMPDAG_OK);
        cr_assert_eq(ompdag_condag_add_edge(g, prev, tv, &err), OMPDAG_OK);
        prev = tv;
    }
    ompdag_node_spec js = {.id = "j", .task = "ti", .kind = OMPDAG_KIND_J};
    int32_t jv;
    cr_assert_eq(ompdag_condag_add_node(g, &js, &jv, &err), OMPDAG_OK);
    cr_assert_eq(ompdag_condag_add_edge(g, v[0], v[2], &err), OMPDAG_OK);
    cr_assert_eq(ompdag_condag_add_edge(g, v[2], v[3], &err), OMPDAG_OK);
    cr_assert_eq(ompdag_condag_add_edge(g, v[3], jv, &err), OMPDAG_OK);
    cr_assert_eq(ompdag_condag_add_edge(g, prev, jv, &err), OMPDAG_OK);
    cr_assert_eq(ompdag_condag_finalize(g, &err), OMPDAG_OK, "%s", err.message);
    return g;
}

Test(rta_figure5, family)
{
    int32_t ms[] = {1, 2, 3, 4, 8, 16};
    int64_t Ls[] = {1, 2, 5, 10, 25};
    for (size_t a = 0; a < sizeof ms / sizeof ms[0]; ++a)
        for (size_t b = 0; b < sizeof Ls / sizeof Ls[0]; ++b) {
            int32_t m = ms[a];
            int64_t L = Ls[b];
            ompdag_condag *g = figure5(m, L);
            cr_expect_eq(bound_of(g, OMPDAG_ALG_EXACT, m), m * L + m - 1, "m=%d L=%lld", m,
                         (long long)L);
            cr_expect_eq(bound_of(g, OMPDAG_ALG_ENUMERATE, m), m * L + m - 1);
            cr_expect_eq(bound_of(g, OMPDAG_ALG_ALG0, m), m * L + L * (m - 1), "alg0 m=%d L=%lld",
                         m, (long long)L);
            ompdag_condag_destroy(g);
        }
}

Test(rta_migration, charged_per_site_on_the_flow)
{
    ompdag_condag *g = must_load(CHILD_THEN("N", 2));
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 2);
    opt.migration_overhead = 10;
    ompdag_rta_result *r;
    for (int a = OMPDAG_ALG_EXACT; a <= OMPDAG_ALG_ENUMERATE; ++a) {
        opt.migration_model = OMPDAG_MIGRATION_WFS; /* one T node: +m·O = 20 */
        cr_assert_eq(ompdag_rta_run(g, (ompdag_algorithm)a, &opt, &r, NULL), OMPDAG_OK);
        cr_expect_eq(ompdag_rta_result_bound_times_m(r), 24 + 20, "alg %d", a);
        ompdag_rta_result_destroy(r);
        opt.migration_model = OMPDAG_MIGRATION_BFS; /* no W node: unchanged */
        cr_assert_eq(ompdag_rta_run(g, (ompdag_algorithm)a, &opt, &r, NULL), OMPDAG_OK);
        cr_expect_eq(ompdag_rta_result_bound_times_m(r), 24);
        ompdag_rta_result_destroy(r);
    }
    ompdag_condag_destroy(g);
}

Test(rta_limits, enumerate_names_flow_count)
{
    ompdag_condag *g = figure5(2, 1);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 2);
    opt.max_flows = 1;
    ompdag_rta_result *r;
    ompdag_error err;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_ENUMERATE, &opt, &r, &err), OMPDAG_ERR_LIMIT);
    cr_expect(strstr(err.message, "has 2 flows") != NULL, "%s", err.message);
    ompdag_condag_destroy(g);
}

Test(rta_limits, overflow_is_an_error)
{
    ompdag_condag *g =
        must_load(HDR "'nodes':[{'id':'a','task':'t','kind':'N','wcet':4611686018427387904}]}");
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 4);
    ompdag_rta_result *r;
    ompdag_error err;
    cr_expect_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_ERR_OVERFLOW);
    opt.m = 0;
    cr_expect_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_ERR_ARGUMENT);
    ompdag_condag_destroy(g);
}

/* Issue 17: m·O wrapped to 0 (8 · 2^61 = 2^64), so no site was counted and
 * the bound silently dropped the overhead.  Every algorithm and the flow
 * evaluator refuse, and the message blames the overhead, not the WCETs. */
Test(rta_limits, migration_overhead_overflow_is_an_error)
{
    ompdag_condag *g = must_load(CHILD_THEN("N", 2)); /* one T node: one WFS site */
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 8);
    opt.migration_overhead = INT64_C(2305843009213693952);
    ompdag_rta_result *r = NULL;
    ompdag_error err;
    for (int a = OMPDAG_ALG_EXACT; a <= OMPDAG_ALG_ENUMERATE; ++a) {
        cr_expect_eq(ompdag_rta_run(g, (ompdag_algorithm)a, &opt, &r, &err), OMPDAG_ERR_OVERFLOW,
                     "%s", ompdag_algorithm_name((ompdag_algorithm)a));
        cr_expect(strstr(err.message, "migration overhead") != NULL, "%s", err.message);
    }
    /* m·O fits, but 2·m·(total + O) does not: still blamed on the overhead */
    opt.m = 1;
    opt.migration_overhead = INT64_MAX / 2;
    cr_expect_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_ERR_OVERFLOW);
    cr_expect(strstr(err.message, "migration overhead") != NULL, "%s", err.message);
    /* a sane overhead still works (charged_per_site_on_the_flow's figure) */
    opt.m = 2;
    opt.migration_overhead = 10;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    cr_expect_eq(ompdag_rta_result_bound_times_m(r), 24 + 20);
    ompdag_rta_result_destroy(r);
    ompdag_condag_destroy(g);
}
