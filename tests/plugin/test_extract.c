/*
 * tests/plugin/test_extract.c — the extracted structure of every example in
 * examples/ (tasks; T and W nodes by line; W-edges as task line > taskwait
 * line; branch nodes) and the refusal message of every examples/refuse/ file.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_test.h"
#include "ompdag/compact.h"
#include "ompdag/rta.h"

static char buf[4096];

/* Extracts one example that must succeed with exactly one region. */
/* The unfolding of a compact graph (owned by the caller). */
static ompdag_condag *unfolded(const ompdag_condag *g)
{
    ompdag_condag *x = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_compact_expand(g, 0, &x, &err), OMPDAG_OK, "%s", err.message);
    return x;
}

static ompdag_condag_set *one_region(const char *rel, int recursion_bound)
{
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    ompdag_status st = fe_test_extract(fe_test_path(rel), NULL, 0, recursion_bound, &set, &fe);
    if (st != OMPDAG_OK) ompdag_frontend_print_diags(fe, stderr);
    cr_assert_eq(st, OMPDAG_OK, "%s: %s", rel, ompdag_status_name(st));
    cr_assert_eq(ompdag_frontend_diag_count(fe), 0);
    cr_assert_eq(ompdag_condag_set_count(set), 1, "%s", rel);
    ompdag_frontend_destroy(fe);
    return set;
}

#define LINES(g, k) fe_test_lines(g, k, buf, sizeof buf)
#define WEDGES(g) fe_test_wedges(g, buf, sizeof buf)

static const char *extra_str(const ompdag_condag *g, int32_t node, const char *key)
{
    return json_string_value(json_object_get(ompdag_condag_extra(g, node), key));
}

Test(examples, fig2_branch_sync_is_the_seed_figure_2b)
{
    ompdag_condag_set *set = one_region("examples/fig2_branch_sync.c", 0);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    cr_assert_str_eq(ompdag_condag_function(g), "region");
    cr_assert_eq(ompdag_condag_region_loc(g).line, 13);
    cr_assert_eq(ompdag_condag_threads(g), 4);
    const char *key = extra_str(g, -1, "region_key");
    cr_assert(key && strstr(key, "examples/fig2_branch_sync.c:13"), "region_key %s", key);
    cr_assert_eq(ompdag_condag_task_count(g), 4);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "16,19,24");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "22,29");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_C), "21");
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_J), 1);
    /* code21's task is awaited on both arms; code31's after the join */
    cr_assert_str_eq(WEDGES(g), "19>22,19>29,24>29");
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        cr_assert(ompdag_condag_node_loc(g, v).line > 0);
        cr_assert(ompdag_condag_node_label(g, v) != NULL);
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T) {
            json_t *u = json_object_get(ompdag_condag_extra(g, v), "untied");
            cr_assert(json_is_false(u), "tied tasks carry \"untied\": false");
        }
        cr_assert_eq(ompdag_condag_node_wcet(g, v), 0);
    }
    ompdag_condag_set_destroy(set);
}

Test(examples, fig3_nested_is_the_seed_figure_3)
{
    ompdag_condag_set *set = one_region("examples/fig3_nested.c", 0);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    cr_assert_eq(ompdag_condag_task_count(g), 5);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "18,21,25,28");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "33,36");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_C), "23");
    /* τ2 (line 21) has two W-edges; τ4 (line 28) belongs to τ3: none */
    cr_assert_str_eq(WEDGES(g), "21>33,21>36,25>36");
    ompdag_condag_set_destroy(set);
}

Test(examples, constant_loop_is_unrolled_and_loop_bound_applies)
{
    ompdag_condag_set *set = one_region("examples/loop_tasks.c", 0);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    cr_assert_eq(ompdag_condag_task_count(g), 1 + 4 + 3);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "17,17,17,17,24,24,24");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "20,28");
    cr_assert_str_eq(WEDGES(g), "17>20,17>20,17>20,17>20,24>28,24>28,24>28");
    /* the constant loop runs exactly 4 times; loop_bound(3) means at most 3:
     * a loop test before each iteration may leave the loop (0..3 runs) */
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_C), "23,23,23");
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_C) {
            int32_t n = 0;
            ompdag_condag_node_fsucc(g, v, &n);
            cr_assert_eq(n, 2);
        }
    ompdag_condag_set_destroy(set);
}

Test(examples, switch_cases_fall_through_and_break)
{
    ompdag_condag_set *set = one_region("examples/switch_tasks.c", 0);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_C), "16");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "18,22,29");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "33");
    cr_assert_str_eq(WEDGES(g), "18>33,22>33,29>33");
    /* the C node picks case 0, case 1, case 2 or no case at all */
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_C) {
            int32_t n = 0;
            ompdag_condag_node_fsucc(g, v, &n);
            cr_assert_eq(n, 4);
        }
    /* case 0 falls through: its T node reaches case 1's T node */
    int32_t t18 = -1, t22 = -1;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_T) continue;
        if (ompdag_condag_node_loc(g, v).line == 18) t18 = v;
        if (ompdag_condag_node_loc(g, v).line == 22) t22 = v;
    }
    int32_t n = 0;
    const int32_t *s = ompdag_condag_node_fsucc(g, t18, &n);
    cr_assert_eq(n, 1);
    const int32_t *s2 = ompdag_condag_node_fsucc(g, s[0], &n);
    cr_assert_eq(ompdag_condag_node_kind(g, s[0]), OMPDAG_KIND_J);
    cr_assert_eq(s2[0], t22);
    ompdag_condag_set_destroy(set);
}

Test(examples, helper_tasks_are_inlined_into_the_calling_task)
{
    ompdag_condag_set *set = one_region("examples/helper_tasks.c", 0);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "12,16,22,32");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "36,41");
    /* 14: the helper's `if (n > 50) return;` skips the task at 16 — a branch */
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_C), "14,39");
    cr_assert_str_eq(WEDGES(g), "12>36,16>36,22>41,32>41");
    /* the helper's tasks are children of the task created at line 32 */
    for (int32_t t = 0; t < ompdag_condag_task_count(g); ++t) {
        int32_t c = ompdag_condag_task_creator(g, t);
        if (c >= 0 && ompdag_condag_node_loc(g, c).line == 12) {
            int32_t parent = ompdag_condag_node_task(g, c);
            int32_t pc = ompdag_condag_task_creator(g, parent);
            cr_assert_eq(ompdag_condag_node_loc(g, pc).line, 32);
        }
    }
    ompdag_condag_set_destroy(set);
}

Test(examples, fib_recursion_is_unrolled_to_its_bound)
{
    ompdag_condag_set *set = one_region("examples/fib.c", 0);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    /* four levels: 1 + 2 + 4 + 8 calls make 2 tasks each and wait once;
     * below the first level the bodies are shared (docs/compact.md) */
    cr_assert(ompdag_compact_is_compact(g));
    cr_assert_lt(ompdag_condag_task_count(g), 31);
    ompdag_condag *x = unfolded(g);
    cr_assert_eq(ompdag_condag_task_count(x), 31);
    cr_assert_eq(fe_test_count(x, OMPDAG_KIND_T), 30);
    cr_assert_eq(fe_test_count(x, OMPDAG_KIND_W), 15);
    ompdag_condag_destroy(x);
    cr_assert_str_eq(extra_str(g, -1, "deadline"), "5ms");
    cr_assert_str_eq(ompdag_condag_function(g), "main");
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T)
            cr_assert(json_is_true(json_object_get(ompdag_condag_extra(g, v), "untied")));
    ompdag_condag_set_destroy(set);
}

Test(examples, undeferred_final_and_taskgroup)
{
    ompdag_condag_set *set = one_region("examples/clauses.c", 0);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    cr_assert_eq(ompdag_condag_task_count(g), 7);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "17,19,21,24,29,31");
    /* if(0), if(n > 2) and the child of the final task wait in place;
     * the taskgroup ends with a W node at its directive */
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "17,19,24,27,33");
    cr_assert_str_eq(WEDGES(g), "17>17,19>19,21>27,24>24,29>27,31>33");
    ompdag_condag_set_destroy(set);
}

/* ---- refusals ------------------------------------------------------------------ */

static void refused(const char *rel, int line, const char *needle)
{
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    ompdag_status st = fe_test_extract(fe_test_path(rel), NULL, 0, 0, &set, &fe);
    cr_assert_eq(st, OMPDAG_ERR_UNSUPPORTED, "%s: %s", rel, ompdag_status_name(st));
    cr_assert(fe_test_has_diag(fe, line, needle), "%s: no diagnostic at line %d with '%s'", rel,
              line, needle);
    const ompdag_frontend_diag *d = ompdag_frontend_diag_at(fe, 0);
    cr_assert(strstr(d->loc.file, rel) != NULL, "diagnostic names the file: %s", d->loc.file);
    cr_assert_eq(d->severity, OMPDAG_DIAG_ERROR);
    cr_assert_eq(ompdag_condag_set_count(set), 0, "a refused region yields no graph");
    ompdag_condag_set_destroy(set);
    ompdag_frontend_destroy(fe);
}

Test(refusals, depend_clause)
{
    refused("examples/refuse/depend.c", 16, "depend(iterator(int i = 0:a), in: a)");
}
Test(refusals, goto_across_taskwait)
{
    refused("examples/refuse/goto.c", 13, "goto");
}
Test(refusals, unbounded_loop)
{
    refused("examples/refuse/unbounded_loop.c", 13, "loop_bound");
}
Test(refusals, taskgroup_with_unawaited_grandchild)
{
    refused("examples/refuse/taskgroup.c", 11, "line 15");
}
Test(refusals, recursion_without_bound)
{
    refused("examples/refuse/recursion.c", 13, "recursion_bound");
}
Test(refusals, tasks_created_by_every_thread)
{
    /* modelled with a constant num_threads (fe_team.c); without one, refused */
    refused("examples/refuse/all_threads.c", 7, "constant num_threads(N)");
}
Test(refusals, task_inside_a_critical_section)
{
    refused("examples/refuse/critical_task.c", 12, "inside '#pragma omp critical'");
}
Test(refusals, lock_held_across_a_taskwait)
{
    refused("examples/refuse/lock_across_taskwait.c", 17, "held across");
}

Test(examples, stacked_directives_macro_bound_and_critical_after_the_barrier)
{
    ompdag_condag_set *set = one_region("examples/stacked_tasks.c", 0);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    /* τ1 creates one task (line 40); it runs explore(): at most 4 tasks */
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "23,23,23,23,40");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_C), "22,22,22,22");
    /* the critical after the single's barrier is not in the graph */
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        cr_assert_neq(ompdag_condag_node_loc(g, v).line, 42);
    ompdag_condag_set_destroy(set);
}

Test(refusals, recursion_bound_option_lifts_the_refusal)
{
    ompdag_condag_set *set = one_region("examples/refuse/recursion.c", 3);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    /* three active calls of tree(): 2 + 4 + 8 tasks, bodies shared below
     * the first level */
    cr_assert(ompdag_compact_is_compact(g));
    ompdag_condag *x = unfolded(g);
    cr_assert_eq(ompdag_condag_task_count(x), 15);
    cr_assert_eq(fe_test_count(x, OMPDAG_KIND_W), 7);
    cr_assert_lt(ompdag_condag_task_count(g), 15);
    ompdag_condag_destroy(x);
    ompdag_condag_set_destroy(set);
}

/* Recursion 40 deep: the bodies are built once per depth (fe_share.c), so
 * the graph is linear in the depth while it stands for 2^41 - 2 tasks. */
Test(refusals, deep_recursion_extracts_compact)
{
    ompdag_condag_set *set = one_region("examples/refuse/recursion.c", 40);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    cr_assert(ompdag_compact_is_compact(g));
    cr_assert_lt(ompdag_condag_node_count(g), 40 * 20);
    uint64_t tasks = 0;
    for (int32_t t = 0; t < ompdag_condag_task_count(g); ++t)
        tasks += ompdag_compact_task_instances(g, t);
    cr_assert_eq(tasks, ((uint64_t)1 << 41) - 1, "tasks %llu", (unsigned long long)tasks);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 4);
    ompdag_rta_result *r = NULL;
    ompdag_error err;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        cr_assert_eq(ompdag_condag_assign_wcet(g, v, 1, &err), OMPDAG_OK);
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_gt(ompdag_rta_result_vol(r), (int64_t)1 << 41);
    ompdag_rta_result_destroy(r);
    ompdag_condag_set_destroy(set);
}

/* The extracted graphs are valid inputs for every algorithm: with WCETs
 * derived from the source lines, exact == enumerate <= alg0 (condag.md §3). */

static void bounds_agree(const char *rel)
{
    ompdag_condag_set *set = one_region(rel, 0);
    ompdag_condag *c = ompdag_condag_set_graph(set, 0);
    ompdag_error err;
    for (int32_t v = 0; v < ompdag_condag_node_count(c); ++v)
        cr_assert_eq(
            ompdag_condag_assign_wcet(c, v, 1 + ompdag_condag_node_loc(c, v).line % 17, &err),
            OMPDAG_OK);
    /* a compact graph (recursion): alg0 and enumerate run on its unfolding,
     * and the memoised exact bound must equal exact there */
    ompdag_condag *g = ompdag_compact_is_compact(c) ? unfolded(c) : c;
    for (int32_t m = 1; m <= 4 && g != c; m *= 2) {
        ompdag_rta_options opt;
        ompdag_rta_options_init(&opt, m);
        ompdag_rta_result *a = NULL, *b = NULL;
        cr_assert_eq(ompdag_rta_run(c, OMPDAG_ALG_EXACT, &opt, &a, &err), OMPDAG_OK);
        cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &b, &err), OMPDAG_OK);
        cr_assert_eq(ompdag_rta_result_bound_times_m(a), ompdag_rta_result_bound_times_m(b),
                     "%s m=%d", rel, m);
        ompdag_rta_result_destroy(a), ompdag_rta_result_destroy(b);
    }
    for (int32_t m = 1; m <= 4; m *= 2) {
        ompdag_rta_options opt;
        ompdag_rta_options_init(&opt, m);
        ompdag_rta_result *r[3] = {NULL, NULL, NULL};
        for (int a = 0; a < 3; ++a)
            cr_assert_eq(ompdag_rta_run(g, (ompdag_algorithm)a, &opt, &r[a], &err), OMPDAG_OK,
                         "%s: %s", rel, err.message);
        int64_t exact = ompdag_rta_result_bound_times_m(r[OMPDAG_ALG_EXACT]);
        cr_assert_eq(exact, ompdag_rta_result_bound_times_m(r[OMPDAG_ALG_ENUMERATE]), "%s m=%d",
                     rel, m);
        cr_assert_leq(exact, ompdag_rta_result_bound_times_m(r[OMPDAG_ALG_ALG0]));
        cr_assert_geq(exact, m * (int64_t)1, "a non-empty graph has a positive bound");
        for (int a = 0; a < 3; ++a)
            ompdag_rta_result_destroy(r[a]);
    }
    if (g != c) ompdag_condag_destroy(g);
    ompdag_condag_set_destroy(set);
}

Test(bounds, examples_exact_equals_enumerate)
{
    bounds_agree("examples/fig2_branch_sync.c");
    bounds_agree("examples/fig3_nested.c");
    bounds_agree("examples/loop_tasks.c");
    bounds_agree("examples/switch_tasks.c");
    bounds_agree("examples/helper_tasks.c");
    bounds_agree("examples/clauses.c");
    bounds_agree("examples/fib.c");
    bounds_agree("examples/fig5_counterexample.c");
}

Test(bounds, fig5_counterexample_gives_the_seed_values)
{
    ompdag_condag_set *set = one_region("examples/fig5_counterexample.c", 0);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    const int64_t m = 2, L = 4;
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_C), "23");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "24");
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_T), 1 + m * L);
    cr_assert_eq(ompdag_condag_node_count(g), 1 + 1 + 1 + 1 + 2 * m * L + 1);
    /* WCETs of the figure: the W node L, each one-unit task 1, the rest 0 */
    ompdag_error err;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        int64_t c = 0;
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_W)
            c = L;
        else if (ompdag_condag_node_loc(g, v).line == 29)
            c = 1;
        cr_assert_eq(ompdag_condag_assign_wcet(g, v, c, &err), OMPDAG_OK);
    }
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, (int32_t)m);
    ompdag_rta_result *exact = NULL, *alg0 = NULL;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &exact, &err), OMPDAG_OK);
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_ALG0, &opt, &alg0, &err), OMPDAG_OK);
    cr_assert_eq(ompdag_rta_result_bound_times_m(exact), m * L + m - 1);
    cr_assert_eq(ompdag_rta_result_bound_times_m(alg0), m * L + L * (m - 1));
    ompdag_rta_result_destroy(exact);
    ompdag_rta_result_destroy(alg0);
    ompdag_condag_set_destroy(set);
}

/* Issue 26 item 19: an expression of 50,000 terms overflowed libclang's
 * 8 MiB parse thread and `extract` died with SIGSEGV.  The extraction now
 * runs on a thread with a large stack; the region comes out whole. */
Test(examples, an_expression_of_50000_terms_extracts, .timeout = 120)
{
    enum { TERMS = 50000 };
    static const char head[] = "static int f(int x)\n{\n    return x";
    static const char tail[] = ";\n}\n"
                               "int main(void)\n{\n"
                               "#pragma omp parallel\n#pragma omp single\n    {\n"
                               "#pragma omp task\n        f(1);\n    }\n    return 0;\n}\n";
    size_t cap = sizeof head + sizeof tail + 4 * (size_t)TERMS;
    char *src = malloc(cap), *p = src;
    cr_assert_not_null(src);
    p += sprintf(p, "%s", head);
    for (int i = 1; i < TERMS; ++i)
        p += sprintf(p, " + x");
    sprintf(p, "%s", tail);
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    const char *path;
    ompdag_status st = fe_test_extract_source(src, &set, &fe, &path);
    free(src);
    cr_assert_eq(st, OMPDAG_OK);
    cr_assert_eq(ompdag_condag_set_count(set), 1);
    cr_expect_eq(fe_test_count(ompdag_condag_set_graph(set, 0), OMPDAG_KIND_T), 1);
    ompdag_condag_set_destroy(set);
    ompdag_frontend_destroy(fe);
}

/* Issue 26 item 16: `#pragma ompdag deadline(-5ms)` (and 5xs, 1e400s, an
 * empty one, 20 digits of ns) were accepted by extract; `check` then failed
 * without naming the .c file and line.  Each is refused at its line. */
Test(examples, a_bad_deadline_is_refused_at_its_line)
{
    const char *bad[] = {"-5ms", "5xs", "1e400s", "", "99999999999999999999ns", "1.5ns"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char src[512];
        snprintf(
            src, sizeof src,
            "int main(void)\n{\n#pragma ompdag deadline(%s)\n#pragma omp parallel\n"
            "#pragma omp single\n    {\n#pragma omp task\n        ;\n    }\n    return 0;\n}\n",
            bad[i]);
        ompdag_condag_set *set = NULL;
        ompdag_frontend *fe = NULL;
        const char *path;
        ompdag_status st = fe_test_extract_source(src, &set, &fe, &path);
        cr_expect_neq(st, OMPDAG_OK, "deadline(%s) was accepted", bad[i]);
        cr_expect(fe_test_has_diag(fe, 3, "deadline"), "deadline(%s): no diagnostic at line 3",
                  bad[i]);
        ompdag_condag_set_destroy(set);
        ompdag_frontend_destroy(fe);
    }
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    const char *path;
    cr_expect_eq(fe_test_extract_source("int main(void)\n{\n#pragma ompdag deadline(2.5ms)\n"
                                        "#pragma omp parallel\n#pragma omp single\n    {\n"
                                        "#pragma omp task\n        ;\n    }\n    return 0;\n}\n",
                                        &set, &fe, &path),
                 OMPDAG_OK);
    ompdag_condag_set_destroy(set);
    ompdag_frontend_destroy(fe);
}
