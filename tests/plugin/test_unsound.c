/*
 * tests/plugin/test_unsound.c — issue 25: the unsound acceptances and the
 * refusals that help.  depend(…: omp_all_memory) in the idiom of the OpenMP
 * Examples' task_dep.13.c (its D-edges, and the bound against a hand-built
 * graph); lock polling, spin waits and direct runtime calls refused by
 * name; refusals judged per region; task-free regions; one run naming the
 * construct past a missing bound; sections, scope and `parallel single`.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_test.h"
#include "ompdag/rta.h"

static ompdag_condag *extract_one_graph(const char *src, ompdag_condag_set **set)
{
    ompdag_frontend *fe = NULL;
    ompdag_status st = fe_test_extract_source(src, set, &fe, NULL);
    if (st != OMPDAG_OK) ompdag_frontend_print_diags(fe, stderr);
    cr_assert_eq(st, OMPDAG_OK, "%s", ompdag_status_name(st));
    cr_assert_eq(ompdag_condag_set_count(*set), 1);
    ompdag_frontend_destroy(fe);
    return ompdag_condag_set_graph(*set, 0);
}

/* Extracts src, expects a refusal with `needle` at `line`; returns the
 * number of graphs the other regions gave. */
static size_t refused_at(const char *src, int line, const char *needle)
{
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    ompdag_status st = fe_test_extract_source(src, &set, &fe, NULL);
    if (!fe_test_has_diag(fe, line, needle)) ompdag_frontend_print_diags(fe, stderr);
    cr_assert_eq(st, OMPDAG_ERR_UNSUPPORTED, "%s", ompdag_status_name(st));
    cr_assert(fe_test_has_diag(fe, line, needle), "no diagnostic at line %d with '%s'", line,
              needle);
    size_t n = set ? ompdag_condag_set_count(set) : 0;
    ompdag_condag_set_destroy(set);
    ompdag_frontend_destroy(fe);
    return n;
}

/* ---- omp_all_memory ------------------------------------------------------------------ */

/* task_dep.13.c's idiom: tasks on named variables around tasks that depend
 * on all memory, a task without depend clauses, and readers after them. */
static const char *const all_memory_src =
    "void work(int);\n"
    "void f(void) {\n"
    "  int a = 0, b = 0, c = 0, d = 0;\n"
    "#pragma omp parallel\n"
    "#pragma omp single\n"
    "  {\n"
    "#pragma omp task depend(out: a, d)\n" /* 7 */
    "    work(1);\n"
    "#pragma omp task depend(out: b)\n" /* 9 */
    "    work(2);\n"
    "#pragma omp task depend(inout: omp_all_memory)\n" /* 11 */
    "    work(3);\n"
    "#pragma omp task depend(in: d)\n" /* 13 */
    "    work(4);\n"
    "#pragma omp task depend(out: c)\n" /* 15 */
    "    work(5);\n"
    "#pragma omp task\n" /* 17: no depend clause */
    "    work(6);\n"
    "#pragma omp task depend(out: omp_all_memory)\n" /* 19 */
    "    work(7);\n"
    "#pragma omp task depend(in: a)\n" /* 21 */
    "    work(8);\n"
    "  }\n"
    "}\n";

/* The lines of the task directives, in creation order, and their WCETs. */
static const int all_memory_lines[8] = {7, 9, 11, 13, 15, 17, 19, 21};
static const int64_t all_memory_wcet[8] = {5, 7, 11, 13, 17, 19, 23, 29};

/* The OpenMP order of those tasks (OpenMP 5.1 §15.9.5), by hand: "7>11"
 * is the edge from the task created at line 7 to the one created at 11. */
static const char *const all_memory_edges = "7>11,7>13,7>21,9>11,11>13,11>15,11>19,13>19,15>19,"
                                            "19>21";

static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

/* "from>to" lines of the creators of the D-edges' tasks, sorted. */
static const char *depend_edges(const ompdag_condag *g, char *buf, size_t size)
{
    int32_t *from = NULL, *to = NULL;
    int64_t n = 0;
    cr_assert_eq(ompdag_condag_depend_edges(g, &from, &to, &n, NULL), OMPDAG_OK);
    int *pairs = calloc(2 * (size_t)n + 2, sizeof *pairs);
    for (int64_t i = 0; i < n; ++i) {
        int32_t tf = ompdag_condag_task_creator(g, ompdag_condag_node_task(g, from[i]));
        int32_t tt = ompdag_condag_task_creator(g, ompdag_condag_node_task(g, to[i]));
        pairs[2 * i] = ompdag_condag_node_loc(g, tf).line;
        pairs[2 * i + 1] = ompdag_condag_node_loc(g, tt).line;
    }
    qsort(pairs, (size_t)n, 2 * sizeof *pairs, cmp_pair);
    size_t len = 0;
    buf[0] = 0;
    for (int64_t i = 0; i < n && len < size; ++i)
        len += (size_t)snprintf(buf + len, size - len, "%s%d>%d", i ? "," : "", pairs[2 * i],
                                pairs[2 * i + 1]);
    free(pairs), free(from), free(to);
    return buf;
}

Test(all_memory, orders_against_every_sibling_with_a_depend_clause)
{
    ompdag_condag_set *set;
    ompdag_condag *g = extract_one_graph(all_memory_src, &set);
    char buf[512];
    cr_assert_str_eq(depend_edges(g, buf, sizeof buf), all_memory_edges);
    ompdag_condag_set_destroy(set);
}

/* Sets the WCET of every node of the task created at all_memory_lines[i]
 * to all_memory_wcet[i], and of τ1's nodes to 0. */
static void weigh_extracted(ompdag_condag *g)
{
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        int32_t creator = ompdag_condag_task_creator(g, ompdag_condag_node_task(g, v));
        int64_t w = 0;
        for (int i = 0; creator >= 0 && i < 8; ++i)
            if (ompdag_condag_node_loc(g, creator).line == all_memory_lines[i])
                w = all_memory_wcet[i];
        cr_assert_eq(ompdag_condag_assign_wcet(g, v, w, NULL), OMPDAG_OK);
    }
}

/* τ1 creates the 8 tasks in order (T nodes of WCET 0); each task is one N
 * node; each edge of all_memory_edges is its own var, out on the earlier
 * task, in on the later one. */
static ompdag_condag *hand_built(void)
{
    ompdag_condag *g = ompdag_condag_create();
    char id[16], task[16];
    int32_t t[8];
    for (int i = 0; i < 8; ++i) {
        snprintf(id, sizeof id, "T%d", i);
        snprintf(task, sizeof task, "c%d", i);
        ompdag_node_spec s = {id, "root", OMPDAG_KIND_T, 0, task, {NULL, 0, 0}, NULL};
        cr_assert_eq(ompdag_condag_add_node(g, &s, &t[i], NULL), OMPDAG_OK);
        if (i) cr_assert_eq(ompdag_condag_add_edge(g, t[i - 1], t[i], NULL), OMPDAG_OK);
    }
    for (int i = 0; i < 8; ++i) {
        snprintf(id, sizeof id, "N%d", i);
        snprintf(task, sizeof task, "c%d", i);
        ompdag_node_spec s = {id,   task,         OMPDAG_KIND_N, all_memory_wcet[i],
                              NULL, {NULL, 0, 0}, NULL};
        cr_assert_eq(ompdag_condag_add_node(g, &s, NULL, NULL), OMPDAG_OK);
    }
    for (const char *p = all_memory_edges; *p;) {
        int a, b, used;
        cr_assert_eq(sscanf(p, "%d>%d%n", &a, &b, &used), 2);
        p += used + (p[used] == ',');
        int ia = 0, ib = 0;
        while (all_memory_lines[ia] != a)
            ++ia;
        while (all_memory_lines[ib] != b)
            ++ib;
        char var[32];
        snprintf(var, sizeof var, "e%d_%d", a, b);
        cr_assert_eq(ompdag_condag_add_depend(g, t[ia], OMPDAG_DEP_OUT, var, NULL), OMPDAG_OK);
        cr_assert_eq(ompdag_condag_add_depend(g, t[ib], OMPDAG_DEP_IN, var, NULL), OMPDAG_OK);
    }
    cr_assert_eq(ompdag_condag_finalize(g, NULL), OMPDAG_OK);
    return g;
}

static void bound_of(const ompdag_condag *g, int32_t m, int64_t *rm, int64_t *len)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    ompdag_rta_result *r;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, NULL), OMPDAG_OK);
    cr_assert(ompdag_rta_result_is_exact(r));
    *rm = ompdag_rta_result_bound_times_m(r);
    *len = ompdag_rta_result_len(r);
    ompdag_rta_result_destroy(r);
}

Test(all_memory, bound_equals_the_hand_built_graph)
{
    ompdag_condag_set *set;
    ompdag_condag *g = extract_one_graph(all_memory_src, &set);
    weigh_extracted(g);
    ompdag_condag *h = hand_built();
    for (int32_t m = 1; m <= 8; m *= 2) {
        int64_t rm_g, len_g, rm_h, len_h;
        bound_of(g, m, &rm_g, &len_g);
        bound_of(h, m, &rm_h, &len_h);
        cr_assert_eq(len_g, len_h, "m=%d: len %lld, hand-built %lld", m, (long long)len_g,
                     (long long)len_h);
        cr_assert_eq(rm_g, rm_h, "m=%d", m);
    }
    /* the chain 9 -> 11 -> 15 -> 19 -> 21 */
    int64_t rm, len;
    bound_of(h, 4, &rm, &len);
    cr_assert_eq(len, 7 + 11 + 17 + 23 + 29);
    ompdag_condag_destroy(h);
    ompdag_condag_set_destroy(set);
}

Test(all_memory, in_is_refused_by_name)
{
    refused_at("void work(int);\n"
               "void f(void) {\n"
               "#pragma omp parallel\n"
               "#pragma omp single\n"
               "  {\n"
               "#pragma omp task depend(in: omp_all_memory)\n"
               "    work(1);\n"
               "  }\n"
               "}\n",
               6, "omp_all_memory is only allowed with out or inout");
}

/* ---- lock polling, spin waits, runtime calls ------------------------------------------ */

Test(unsound, lock_polling_is_refused_in_a_helper_and_in_task_code)
{
    refused_at("#include <omp.h>\n"
               "void work(int);\n"
               "omp_lock_t lock;\n"
               "omp_nest_lock_t nest;\n"
               "static void take(void) {\n"
               "  while (!omp_test_lock(&lock)) {\n"
               "  }\n"
               "}\n"
               "void f(int n) {\n"
               "#pragma omp parallel\n"
               "#pragma omp single\n"
               "  {\n"
               "#pragma omp task\n"
               "    {\n"
               "      take();\n"
               "      work(n);\n"
               "      omp_unset_lock(&lock);\n"
               "    }\n"
               "#pragma omp task\n"
               "    if (omp_test_nest_lock(&nest)) work(n);\n"
               "  }\n"
               "}\n",
               6, "'omp_test_lock' in task code (in 'take')");
    refused_at("#include <omp.h>\n"
               "void work(int);\n"
               "omp_nest_lock_t nest;\n"
               "void f(int n) {\n"
               "#pragma omp parallel\n"
               "#pragma omp single\n"
               "  {\n"
               "#pragma omp task\n"
               "    if (omp_test_nest_lock(&nest)) work(n);\n"
               "  }\n"
               "}\n",
               9, "'omp_test_nest_lock' in task code");
}

Test(unsound, spin_waits_on_a_flag_are_refused)
{
    const char *head = "void work(int);\n"
                       "int flag;\n"
                       "void f(volatile int *done) {\n"
                       "#pragma omp parallel\n"
                       "#pragma omp single\n"
                       "  {\n"
                       "#pragma omp task\n"
                       "    flag = 1;\n"
                       "#pragma omp task\n"
                       "    {\n";
    char src[2048];
    snprintf(src, sizeof src,
             "%s      while (!flag) {\n"
             "#pragma omp taskyield\n"
             "      }\n"
             "      work(1);\n"
             "    }\n  }\n}\n",
             head);
    refused_at(src, 11, "spin-wait loop on 'flag'");
    snprintf(src, sizeof src, "%s      while (*done == 0)\n        ;\n    }\n  }\n}\n", head);
    refused_at(src, 11, "spin-wait loop on 'done'");
    /* a loop that changes its own condition is plain code */
    snprintf(src, sizeof src,
             "%s      int i = 0;\n      while (i < 4) i++;\n      work(i);\n    }\n  }\n}\n", head);
    ompdag_condag_set *set;
    extract_one_graph(src, &set);
    ompdag_condag_set_destroy(set);
}

Test(unsound, direct_runtime_calls_are_refused_by_name)
{
    refused_at("void work(int);\n"
               "void *__kmpc_omp_task_alloc(void *, int, int, unsigned long, unsigned long, "
               "void *);\n"
               "int __kmpc_omp_task(void *, int, void *);\n"
               "void f(void *fn) {\n"
               "#pragma omp parallel\n"
               "#pragma omp single\n"
               "  {\n"
               "    void *t = __kmpc_omp_task_alloc(0, 0, 1, 64, 0, fn);\n"
               "    __kmpc_omp_task(0, 0, t);\n"
               "  }\n"
               "}\n",
               8,
               "direct call to the OpenMP runtime (__kmpc_omp_task_alloc): the model cannot "
               "see the tasks it creates");
    refused_at("void GOMP_task(void (*)(void *), void *, void (*)(void *, void *), long, long, "
               "_Bool, unsigned);\n"
               "static void body(void *p) { (void)p; }\n"
               "static void spawn(void) { GOMP_task(body, 0, 0, 0, 1, 1, 0); }\n"
               "void f(void) {\n"
               "#pragma omp parallel\n"
               "#pragma omp single\n"
               "  spawn();\n"
               "}\n",
               3, "direct call to the OpenMP runtime (GOMP_task) (in 'spawn')");
}

/* ---- refusals per region ---------------------------------------------------------------- */

Test(per_region, a_refusal_in_a_shared_helper_refuses_every_region_that_reaches_it)
{
    size_t graphs = refused_at("void work(int);\n"
                               "void helper(int n) {\n"
                               "#pragma omp task\n"
                               "  {\n"
                               "#pragma omp ordered\n"
                               "    work(n);\n"
                               "  }\n"
                               "}\n"
                               "void f(int n) {\n"
                               "#pragma omp parallel\n"
                               "#pragma omp single\n"
                               "  helper(n);\n"
                               "#pragma omp parallel\n"
                               "#pragma omp single\n"
                               "  helper(n + 1);\n"
                               "#pragma omp parallel\n"
                               "#pragma omp single\n"
                               "  {\n"
                               "#pragma omp task\n"
                               "    work(n);\n"
                               "  }\n"
                               "}\n",
                               5, "ordered");
    cr_assert_eq(graphs, 1, "only the third region extracts, got %zu graphs", graphs);
}

Test(per_region, task_free_worksharing_and_nested_parallel_regions_are_not_refused)
{
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    ompdag_status st = fe_test_extract_source("void work(int);\n"
                                              "void f(int n, int *a) {\n"
                                              "#pragma omp parallel\n"
                                              "  {\n"
                                              "#pragma omp for\n"
                                              "    for (int i = 0; i < n; ++i) a[i] = i;\n"
                                              "  }\n"
                                              "#pragma omp parallel\n"
                                              "  {\n"
                                              "#pragma omp parallel for\n"
                                              "    for (int i = 0; i < n; ++i) a[i] += i;\n"
                                              "#pragma omp sections\n"
                                              "    {\n"
                                              "#pragma omp section\n"
                                              "      work(1);\n"
                                              "    }\n"
                                              "  }\n"
                                              "#pragma omp parallel\n"
                                              "#pragma omp single\n"
                                              "  {\n"
                                              "#pragma omp task\n"
                                              "    work(2);\n"
                                              "  }\n"
                                              "}\n",
                                              &set, &fe, NULL);
    if (st != OMPDAG_OK) ompdag_frontend_print_diags(fe, stderr);
    cr_assert_eq(st, OMPDAG_OK, "%s", ompdag_status_name(st));
    cr_assert_eq(ompdag_frontend_diag_count(fe), 0);
    cr_assert_eq(ompdag_condag_set_count(set), 1);
    cr_assert_eq(ompdag_condag_region_loc(ompdag_condag_set_graph(set, 0)).line, 18);
    ompdag_condag_set_destroy(set);
    ompdag_frontend_destroy(fe);
    /* a worksharing loop before the single of a region with tasks is still
     * refused, for what it is; the other region extracts */
    size_t graphs = refused_at("void work(int);\n"
                               "void f(int n, int *a) {\n"
                               "#pragma omp parallel\n"
                               "  {\n"
                               "#pragma omp scope\n"
                               "    { a[0] = n; }\n"
                               "#pragma omp single\n"
                               "    {\n"
                               "#pragma omp task\n"
                               "      work(1);\n"
                               "    }\n"
                               "  }\n"
                               "#pragma omp parallel master\n"
                               "  {\n"
                               "#pragma omp task\n"
                               "    work(2);\n"
                               "  }\n"
                               "}\n",
                               5, "a worksharing construct before the barrier");
    cr_assert_eq(graphs, 1);
    /* a region without single whose tasks the model cannot see is no
     * task-free region: still refused */
    refused_at("int __kmpc_omp_task(void *, int, void *);\n"
               "void f(int n, int *a, void *t) {\n"
               "#pragma omp parallel\n"
               "  {\n"
               "#pragma omp for\n"
               "    for (int i = 0; i < n; ++i) a[i] = i;\n"
               "    __kmpc_omp_task(0, 0, t);\n"
               "  }\n"
               "}\n",
               5, "worksharing loop");
}

Test(per_region, one_run_names_the_construct_past_a_missing_bound)
{
    const char *src = "void work(int);\n"
                      "void f(int n) {\n"
                      "#pragma omp parallel\n"
                      "#pragma omp single\n"
                      "  {\n"
                      "    while (n > 0) {\n"
                      "#pragma omp task\n"
                      "      {\n"
                      "#pragma omp ordered\n"
                      "        work(n);\n"
                      "      }\n"
                      "      n--;\n"
                      "    }\n"
                      "#pragma omp cancel taskgroup\n"
                      "  }\n"
                      "}\n";
    refused_at(src, 6, "loop_bound(N)");
    refused_at(src, 9, "'#pragma omp ordered' is not supported");
    refused_at(src, 14, "'#pragma omp cancel");
}

Test(per_region, parallel_sections_is_refused_for_what_it_is)
{
    refused_at("void work(int);\n"
               "void f(void) {\n"
               "#pragma omp parallel sections\n"
               "  {\n"
               "#pragma omp section\n"
               "    {\n"
               "#pragma omp task\n"
               "      work(1);\n"
               "    }\n"
               "  }\n"
               "}\n",
               3, "constant num_threads(N)"); /* modelled with one (fe_team.c) */
}

Test(per_region, openmp_6_parallel_single_and_5_1_masked_spellings)
{
    ompdag_condag_set *set;
    ompdag_condag *g = extract_one_graph("void work(int);\n"
                                         "void f(void) {\n"
                                         "#pragma omp parallel single\n"
                                         "  {\n"
                                         "#pragma omp task\n"
                                         "    work(1);\n"
                                         "#pragma omp task\n"
                                         "    work(2);\n"
                                         "  }\n"
                                         "}\n",
                                         &set);
    cr_assert_eq(ompdag_condag_task_count(g), 3);
    ompdag_condag_set_destroy(set);
    g = extract_one_graph("void work(int);\n"
                          "void f(void) {\n"
                          "#pragma omp parallel masked filter(0)\n"
                          "  {\n"
                          "#pragma omp task\n"
                          "    work(1);\n"
                          "  }\n"
                          "}\n",
                          &set);
    cr_assert_eq(ompdag_condag_task_count(g), 2);
    ompdag_condag_set_destroy(set);
}
