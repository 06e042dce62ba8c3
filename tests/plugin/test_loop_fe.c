/*
 * tests/plugin/test_loop_fe.c — the front end keeps a loop_bound loop above
 * the unroll limit (4096) compact (plugin/fe_loop.c compact_loop,
 * docs/compact.md "Compact loops"): one body, a test with "repeat".
 *
 * Cross-check with the unrolled path: the same program at loop_bound(4095)
 * and (4096) is unrolled by the front end; with WCETs set by source line the
 * bound is affine in the bound there, and the compact graph at 100000 must
 * give exactly the extrapolated value.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "fe_test.h"
#include "ompdag/compact.h"
#include "ompdag/rta.h"

/* lines: 8 task, 9 its body, 11 a taskwait inside the loop (under a branch), 14 after it */
#define LOOP_SRC(BOUND)                                                                            \
    "void work(int);\n"                                                                            \
    "void f(int n) {\n"                                                                            \
    "#pragma omp parallel\n"                                                                       \
    "#pragma omp single\n"                                                                         \
    "  {\n"                                                                                        \
    "#pragma ompdag loop_bound(" BOUND ")\n"                                                       \
    "    for (int i = 0; i < n; i++) {\n"                                                          \
    "#pragma omp task\n"                                                                           \
    "      work(i);\n"                                                                             \
    "      if (i % 7 == 0) {\n"                                                                    \
    "#pragma omp taskwait\n"                                                                       \
    "      }\n"                                                                                    \
    "    }\n"                                                                                      \
    "#pragma omp taskwait\n"                                                                       \
    "  }\n"                                                                                        \
    "}\n"

/* Extracts src; the graph gets WCETs by source line (T 3, task body 7,
 * taskwaits 5 (line 11) and 11 (line 14), everything else 0) and is
 * returned reloaded. */
static ompdag_condag *extract_timed(const char *src)
{
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    ompdag_status st = fe_test_extract_source(src, &set, &fe, NULL);
    if (st) ompdag_frontend_print_diags(fe, stderr);
    cr_assert_eq(st, OMPDAG_OK, "%s", ompdag_status_name(st));
    ompdag_frontend_destroy(fe);
    json_t *o = ompdag_condag_to_json(ompdag_condag_set_graph(set, 0));
    ompdag_condag_set_destroy(set);
    size_t i;
    json_t *nd;
    json_array_foreach(json_object_get(o, "nodes"), i, nd)
    {
        int line = (int)json_integer_value(json_object_get(json_object_get(nd, "loc"), "line"));
        const char *kind = json_string_value(json_object_get(nd, "kind"));
        int64_t c = !strcmp(kind, "T")   ? 3
                    : line == 9          ? 7
                    : !strcmp(kind, "W") ? (line == 11 ? 5 : 11)
                                         : 0;
        json_object_set_new(nd, "wcet", json_integer(c));
    }
    ompdag_condag *g = NULL;
    ompdag_error err;
    cr_assert_eq(condag_from_json(o, "timed", &g, &err), OMPDAG_OK, "%s", err.message);
    json_decref(o);
    return g;
}

static int64_t bound(const ompdag_condag *g, int32_t m)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    opt.bound_only = true;
    ompdag_rta_result *r = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    int64_t b = ompdag_rta_result_bound_times_m(r);
    ompdag_rta_result_destroy(r);
    return b;
}

Test(compact_loops, above_the_unroll_limit_the_loop_stays_compact)
{
    ompdag_condag *g = extract_timed(LOOP_SRC("100000"));
    cr_assert(ompdag_compact_has_loops(g));
    cr_assert_lt(ompdag_condag_node_count(g), 20, "the body is described once");
    int32_t tests = 0;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_compact_loop_repeat(g, v)) {
            ++tests;
            cr_assert_eq(ompdag_compact_loop_repeat(g, v), 100000);
        }
    cr_assert_eq(tests, 1);
    ompdag_condag *lo = extract_timed(LOOP_SRC("4095")), *hi = extract_timed(LOOP_SRC("4096"));
    cr_assert_not(ompdag_compact_has_loops(hi), "4096 is still unrolled");
    for (int32_t m = 1; m <= 4; ++m) {
        int64_t step = bound(hi, m) - bound(lo, m);
        cr_assert_gt(step, 0);
        cr_assert_eq(bound(g, m), bound(hi, m) + step * (100000 - 4096), "m=%d", m);
    }
    ompdag_condag_destroy(lo);
    ompdag_condag_destroy(hi);
    ompdag_condag_destroy(g);
}

Test(compact_loops, nested_compact_loops_multiply)
{
    ompdag_condag *g = extract_timed("void work(int);\n"
                                     "void f(int n) {\n"
                                     "#pragma omp parallel\n"
                                     "#pragma omp single\n"
                                     "  {\n"
                                     "#pragma ompdag loop_bound(5000)\n"
                                     "    for (int i = 0; i < n; i++) {\n"
                                     "#pragma ompdag loop_bound(6000)\n"
                                     "      for (int j = 0; j < n; j++) {\n"
                                     "#pragma omp task\n"
                                     "        work(j);\n"
                                     "      }\n"
                                     "#pragma omp taskwait\n"
                                     "    }\n"
                                     "  }\n"
                                     "}\n");
    bool found = false;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T) {
            cr_assert_eq(ompdag_compact_node_instances(g, v), 30000000);
            found = true;
        }
    cr_assert(found);
    cr_assert_gt(bound(g, 2), 0);
    ompdag_condag_destroy(g);
}

/* Recursion inside a compact loop: each depth's body holds its own loop, so
 * the creations multiply: 1 + 5000 + 5000·4999 + … tasks, from a graph of a
 * few dozen nodes. */
Test(compact_loops, recursion_inside_a_compact_loop)
{
    ompdag_condag *g = extract_timed("void work(int);\n"
                                     "#pragma ompdag recursion_bound(3)\n"
                                     "void g(int d) {\n"
                                     "  if (d == 0) return;\n"
                                     "#pragma ompdag loop_bound(5000)\n"
                                     "  for (int i = 0; i < d; i++) {\n"
                                     "#pragma omp task\n"
                                     "    g(d - 1);\n"
                                     "  }\n"
                                     "#pragma omp taskwait\n"
                                     "}\n"
                                     "void f(int n) {\n"
                                     "#pragma omp parallel\n"
                                     "#pragma omp single\n"
                                     "  g(n);\n"
                                     "}\n");
    cr_assert(ompdag_compact_has_loops(g));
    cr_assert_lt(ompdag_condag_node_count(g), 100);
    uint64_t most = 0;
    for (int32_t t = 0; t < ompdag_condag_task_count(g); ++t)
        if (ompdag_compact_task_instances(g, t) > most) most = ompdag_compact_task_instances(g, t);
    cr_assert_geq(most, 5000ull * 5000ull, "the deepest body has %llu instances",
                  (unsigned long long)most);
    cr_assert_gt(bound(g, 2), 0);
    ompdag_condag_destroy(g);
}

/* A break that only shortens the loop is covered by the at-most reading; one
 * after a taskwait leaves the loop from inside the body: refused. */
Test(compact_loops, a_break_in_a_compact_loop_is_refused)
{
    static const char *src = "void work(int);\n"
                             "void f(int n) {\n"
                             "#pragma omp parallel\n"
                             "#pragma omp single\n"
                             "  {\n"
                             "#pragma ompdag loop_bound(%s)\n"
                             "    for (int i = 0; i < n; i++) {\n"
                             "#pragma omp task\n"
                             "      work(i);\n"
                             "      if (i == n / 2) {\n"
                             "#pragma omp taskwait\n"
                             "        break;\n"
                             "      }\n"
                             "    }\n"
                             "  }\n"
                             "}\n";
    char text[1024];
    snprintf(text, sizeof text, src, "10");
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    cr_assert_eq(fe_test_extract_source(text, &set, &fe, NULL), OMPDAG_OK, "unrolled: fine");
    ompdag_condag_set_destroy(set);
    ompdag_frontend_destroy(fe);
    snprintf(text, sizeof text, src, "10000");
    set = NULL, fe = NULL;
    cr_assert_eq(fe_test_extract_source(text, &set, &fe, NULL), OMPDAG_ERR_UNSUPPORTED);
    cr_assert(fe_test_has_diag(fe, 7, "kept compact"));
    ompdag_condag_set_destroy(set);
    ompdag_frontend_destroy(fe);
}

/* A constant trip count above the unroll limit: kept compact with that count
 * (the closed form of a signed variable stepping towards a constant bound),
 * the same graph and bound as loop_bound of that count; the lines match
 * LOOP_SRC's (its pragma line becomes a comment). */
#define CONST_SRC(HEADER)                                                                          \
    "void work(int);\n"                                                                            \
    "void f(int n) {\n"                                                                            \
    "#pragma omp parallel\n"                                                                       \
    "#pragma omp single\n"                                                                         \
    "  {\n"                                                                                        \
    "    /* no loop_bound */\n"                                                                    \
    "    for (" HEADER ") {\n"                                                                     \
    "#pragma omp task\n"                                                                           \
    "      work(i);\n"                                                                             \
    "      if (i % 7 == 0) {\n"                                                                    \
    "#pragma omp taskwait\n"                                                                       \
    "      }\n"                                                                                    \
    "    }\n"                                                                                      \
    "#pragma omp taskwait\n"                                                                       \
    "  }\n"                                                                                        \
    "}\n"

static int32_t the_repeat(const ompdag_condag *g)
{
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_compact_loop_repeat(g, v)) return (int32_t)ompdag_compact_loop_repeat(g, v);
    return 0;
}

Test(compact_loops, constant_trip_counts_above_the_limit_stay_compact)
{
    ompdag_condag *c = extract_timed(CONST_SRC("int i = 0; i < 100000; i++"));
    ompdag_condag *b = extract_timed(LOOP_SRC("100000"));
    cr_assert(ompdag_compact_has_loops(c));
    cr_assert_eq(the_repeat(c), 100000);
    for (int32_t m = 1; m <= 4; ++m)
        cr_assert_eq(bound(c, m), bound(b, m), "m=%d: as loop_bound(100000)", m);
    ompdag_condag_destroy(c);
    ompdag_condag_destroy(b);
    /* closed forms: a step of 3, <=, and counting down */
    c = extract_timed(CONST_SRC("int i = 0; i < 100000; i += 3"));
    cr_assert_eq(the_repeat(c), 33334);
    ompdag_condag_destroy(c);
    c = extract_timed(CONST_SRC("long i = 5; i <= 100004; i++"));
    cr_assert_eq(the_repeat(c), 100000);
    ompdag_condag_destroy(c);
    c = extract_timed(CONST_SRC("int i = 99999; i >= 0; i--"));
    cr_assert_eq(the_repeat(c), 100000);
    ompdag_condag_destroy(c);
}

/* Refused by line: no closed form (an unsigned variable and !=), and depend
 * items that would lose the loop variable's values. */
Test(compact_loops, long_constant_loops_without_a_closed_form_or_with_depend_are_refused)
{
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    cr_assert_eq(
        fe_test_extract_source(CONST_SRC("unsigned i = 0; i != 100000u; i++"), &set, &fe, NULL),
        OMPDAG_ERR_UNSUPPORTED);
    cr_assert(fe_test_has_diag(fe, 7, "closed form"));
    ompdag_condag_set_destroy(set);
    ompdag_frontend_destroy(fe);
    static const char *dep = "double a[100000];\n"
                             "void work(int);\n"
                             "void f(void) {\n"
                             "#pragma omp parallel\n"
                             "#pragma omp single\n"
                             "  for (int i = 1; i < 100000; i++) {\n"
                             "#pragma omp task depend(in: a[i - 1]) depend(out: a[i])\n"
                             "    work(i);\n"
                             "  }\n"
                             "}\n";
    set = NULL, fe = NULL;
    cr_assert_eq(fe_test_extract_source(dep, &set, &fe, NULL), OMPDAG_ERR_UNSUPPORTED);
    cr_assert(fe_test_has_diag(fe, 6, "depend items would lose"));
    ompdag_condag_set_destroy(set);
    ompdag_frontend_destroy(fe);
}
