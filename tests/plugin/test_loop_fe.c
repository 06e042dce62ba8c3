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
#include <stdlib.h>
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

/* Refused by line: no closed form (an unsigned variable and !=). */
Test(compact_loops, long_constant_loops_without_a_closed_form_are_refused)
{
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    cr_assert_eq(
        fe_test_extract_source(CONST_SRC("unsigned i = 0; i != 100000u; i++"), &set, &fe, NULL),
        OMPDAG_ERR_UNSUPPORTED);
    cr_assert(fe_test_has_diag(fe, 7, "closed form"));
    ompdag_condag_set_destroy(set);
    ompdag_frontend_destroy(fe);
}

/* ---- depend items that follow the iteration (docs/compact.md) ------------ */

/* A chain a[i-1] -> a[i] of N - 1 tasks (line 8, body line 9) and a
 * taskwait at line 14: a constant count, unrolled up to 4096 iterations,
 * compact above with indexed cells. */
#define CHAIN_SRC(N)                                                                               \
    "double a[" N "];\n"                                                                           \
    "void work(int);\n"                                                                            \
    "void f(void) {\n"                                                                             \
    "#pragma omp parallel\n"                                                                       \
    "#pragma omp single\n"                                                                         \
    "  {\n"                                                                                        \
    "    for (int i = 1; i < " N "; i++) {\n"                                                      \
    "#pragma omp task depend(in: a[i - 1]) depend(out: a[i])\n"                                    \
    "      work(i);\n"                                                                             \
    "    }\n"                                                                                      \
    "    {}\n"                                                                                     \
    "\n"                                                                                           \
    "\n"                                                                                           \
    "#pragma omp taskwait\n"                                                                       \
    "  }\n"                                                                                        \
    "}\n"

/* The vars of the clauses of the T nodes of g, in node order, as "a[0] a[1];…". */
static char *clause_vars(const ompdag_condag *g, int32_t most)
{
    size_t cap = 64 + (size_t)most * 32, n = 0;
    char *s = malloc(cap);
    cr_assert_not_null(s);
    s[0] = 0;
    for (int32_t v = 0, t = 0; v < ompdag_condag_node_count(g) && t < most; ++v) {
        if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_T) continue;
        for (int32_t i = 0; i < ompdag_condag_node_depend_count(g, v); ++i)
            n += (size_t)snprintf(
                s + n, cap - n, "%s ",
                ompdag_condag_depend_var_name(g, ompdag_condag_node_depend_var(g, v, i)));
        n += (size_t)snprintf(s + n, cap - n, ";"), ++t;
    }
    return s;
}

/* Above the limit the items follow the iteration: the expansion names the
 * cells as the unrolled front end does, and the bound continues the
 * unrolled ones (affine in the trip count) exactly. */
Test(compact_loops, depend_items_follow_the_iteration)
{
    ompdag_condag *c = extract_timed(CHAIN_SRC("5000"));
    cr_assert(ompdag_compact_has_loops(c));
    cr_assert_eq(the_repeat(c), 4999);
    int32_t t = -1, loop;
    int64_t off;
    for (int32_t v = 0; v < ompdag_condag_node_count(c); ++v)
        if (ompdag_condag_node_kind(c, v) == OMPDAG_KIND_T) t = v;
    cr_assert(ompdag_condag_node_depend_index(c, t, 0, &loop, &off)); /* a[i - 1], i = 1 + k */
    cr_assert_eq(off, 0);
    cr_assert_eq(ompdag_compact_loop_repeat(c, loop), 4999);
    cr_assert(ompdag_condag_node_depend_index(c, t, 1, &loop, &off)); /* a[i] */
    cr_assert_eq(off, 1);
    ompdag_condag *lo = extract_timed(CHAIN_SRC("4096")), *hi = extract_timed(CHAIN_SRC("4097"));
    cr_assert_not(ompdag_compact_has_loops(hi), "4096 iterations are still unrolled");
    ompdag_condag *x = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_compact_expand(c, 0, &x, &err), OMPDAG_OK, "%s", err.message);
    char *ux = clause_vars(x, 4096), *uh = clause_vars(hi, 4096);
    cr_assert(strstr(uh, "a[4095] a[4096] ;"), "%.80s", uh + strlen(uh) - 40);
    cr_assert_str_eq(ux, uh, "the expansion names the cells as the unrolled front end");
    free(ux), free(uh);
    for (int32_t m = 1; m <= 4; ++m) {
        int64_t step = bound(hi, m) - bound(lo, m);
        cr_assert_gt(step, 0);
        cr_assert_eq(bound(c, m), bound(hi, m) + step * (4999 - 4096), "m=%d", m);
        cr_assert_eq(bound(c, m), bound(x, m), "m=%d: the expansion's bound", m);
    }
    ompdag_condag_destroy(x), ompdag_condag_destroy(lo), ompdag_condag_destroy(hi);
    ompdag_condag_destroy(c);
}

/* A KASTORS-like blocked loop under loop_bound(100000): each block reads the
 * one before and updates its own; every 64th also writes the next one.  It
 * stays compact, its items are cells of the iteration, the bound is exact
 * without unrolling, and the same graph at 300 iterations equals its
 * expansion. */
#define BLOCKED_SRC                                                                                \
    "double blk[100002];\n"                                                                        \
    "void work(int);\n"                                                                            \
    "void f(int n) {\n"                                                                            \
    "#pragma omp parallel\n"                                                                       \
    "#pragma omp single\n"                                                                         \
    "  {\n"                                                                                        \
    "#pragma ompdag loop_bound(100000)\n"                                                          \
    "    for (int i = 1; i < n; i++) {\n"                                                          \
    "#pragma omp task depend(in: blk[i - 1]) depend(inout: blk[i])\n"                              \
    "      work(i);\n"                                                                             \
    "      if (i % 64 == 0) {\n"                                                                   \
    "#pragma omp task depend(in: blk[i]) depend(out: blk[i + 1])\n"                                \
    "        work(-i);\n"                                                                          \
    "      }\n"                                                                                    \
    "    }\n"                                                                                      \
    "#pragma omp taskwait\n"                                                                       \
    "  }\n"                                                                                        \
    "}\n"

Test(compact_loops, a_blocked_loop_with_depend_stays_compact_and_exact)
{
    ompdag_condag *g = extract_timed(BLOCKED_SRC);
    cr_assert(ompdag_compact_has_loops(g));
    cr_assert_eq(the_repeat(g), 100000);
    int indexed = 0;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        for (int32_t i = 0; i < ompdag_condag_node_depend_count(g, v); ++i) {
            int32_t loop;
            int64_t off;
            indexed += ompdag_condag_node_depend_index(g, v, i, &loop, &off);
        }
    cr_assert_eq(indexed, 4, "blk[i - 1], blk[i], blk[i], blk[i + 1]");
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 4);
    ompdag_rta_result *r = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    cr_assert(ompdag_rta_result_is_exact(r));
    int64_t big = ompdag_rta_result_bound_times_m(r);
    ompdag_rta_result_destroy(r);
    /* 300 iterations: the compact bound against its expansion */
    json_t *o = ompdag_condag_to_json(g);
    size_t i;
    json_t *nd;
    json_array_foreach(json_object_get(o, "nodes"), i, nd) if (json_object_get(nd, "repeat"))
        json_object_set_new(nd, "repeat", json_integer(300));
    ompdag_condag *s = NULL, *x = NULL;
    cr_assert_eq(condag_from_json(o, "small", &s, &err), OMPDAG_OK, "%s", err.message);
    json_decref(o);
    cr_assert_eq(ompdag_compact_expand(s, 0, &x, &err), OMPDAG_OK, "%s", err.message);
    for (int32_t m = 1; m <= 4; ++m)
        cr_assert_eq(bound(s, m), bound(x, m), "m=%d", m);
    cr_assert_gt(big, bound(s, 4), "the chain grows with the trip count");
    ompdag_condag_destroy(x), ompdag_condag_destroy(s), ompdag_condag_destroy(g);
}

/* Any other use of a compact loop's variable in an item is refused by the
 * directive's line: 2*i, b[i], n - i, a 2-D cell, a step of 2, a cell that
 * may leave the array. */
Test(compact_loops, other_uses_of_the_loop_variable_in_depend_are_refused)
{
    static const char *const items[] = {"a[2 * i]", "a[b[i]]", "a[100 - i]", "c[i][0]",
                                        "a[i + 100001]"};
    static const char *const why[] = {"coefficient 1", "coefficient 1", "coefficient 1",
                                      "multi-dimensional", "bounds"};
    for (int k = 0; k < 6; ++k) {
        char src[1024];
        snprintf(src, sizeof src,
                 "double a[200000], c[200000][2];\n"
                 "int b[200000];\n"
                 "void work(int);\n"
                 "void f(void) {\n"
                 "#pragma omp parallel\n"
                 "#pragma omp single\n"
                 "  for (int i = 0; i < 100000; i += %d) {\n"
                 "#pragma omp task depend(inout: %s)\n"
                 "    work(i);\n"
                 "  }\n"
                 "}\n",
                 k < 5 ? 1 : 2, k < 5 ? items[k] : "a[i]");
        ompdag_condag_set *set = NULL;
        ompdag_frontend *fe = NULL;
        cr_assert_eq(fe_test_extract_source(src, &set, &fe, NULL), OMPDAG_ERR_UNSUPPORTED, "%s",
                     src);
        cr_assert(fe_test_has_diag(fe, 8, k < 5 ? why[k] : "step is not 1"), "item %d", k);
        cr_assert(fe_test_has_diag(fe, 8, "compact loop at line 7"), "item %d", k);
        ompdag_condag_set_destroy(set);
        ompdag_frontend_destroy(fe);
    }
}
