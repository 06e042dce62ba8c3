/*
 * tests/plugin/test_assume.c — bounds for a given input (`extract --assume
 * NAME=VALUE`, plugin/fe_assume.c; issue 23 item 5): cutoff tests, trip
 * counts and base cases fold with the assumed values carried down calls;
 * written variables are not folded; the graph states its claim; bad input
 * is refused with the right exit status.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fe_test.h"
#include "ompdag/rta.h"
#include "test_tmpdir.h"

/* Extracts `src` with the assumptions (NULL-terminated) and bounds. */
static ompdag_status extract_assumed(const char *src, const char *const *assume,
                                     int recursion_bound, int loop_bound, ompdag_condag_set **set,
                                     ompdag_frontend **fe_out)
{
    char path[128];
    cr_assert(fe_test_write(src, "src.c", path));
    ompdag_frontend *fe = ompdag_frontend_create();
    ompdag_error err;
    if (recursion_bound > 0)
        cr_assert_eq(ompdag_frontend_set_recursion_bound(fe, recursion_bound, &err), 0);
    if (loop_bound > 0) cr_assert_eq(ompdag_frontend_set_loop_bound(fe, loop_bound, &err), 0);
    for (const char *const *a = assume; a && *a; ++a)
        cr_assert_eq(ompdag_frontend_assume(fe, *a, &err), OMPDAG_OK, "%s", err.message);
    *set = NULL;
    ompdag_status st = ompdag_frontend_extract(fe, path, NULL, 0, set, &err);
    fe_test_remove(path);
    if (fe_out)
        *fe_out = fe;
    else
        ompdag_frontend_destroy(fe);
    return st;
}

/* The only graph of a successful extraction. */
static ompdag_condag *graph_of(const char *src, const char *const *assume, int recursion_bound,
                               int loop_bound, ompdag_condag_set **set)
{
    ompdag_frontend *fe = NULL;
    ompdag_status st = extract_assumed(src, assume, recursion_bound, loop_bound, set, &fe);
    if (st != OMPDAG_OK) ompdag_frontend_print_diags(fe, stderr);
    ompdag_frontend_destroy(fe);
    cr_assert_eq(st, OMPDAG_OK, "%s", ompdag_status_name(st));
    cr_assert_eq(ompdag_condag_set_count(*set), 1);
    return ompdag_condag_set_graph(*set, 0);
}

/* The Graham bound m·R of g (m = 2) with every WCET set to 1, so graphs from
 * different sources compare by structure. */
static int64_t unit_bound(ompdag_condag *g)
{
    ompdag_error err;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        cr_assert_eq(ompdag_condag_assign_wcet(g, v, 1, &err), OMPDAG_OK, "%s", err.message);
    ompdag_rta_options opt = {0};
    opt.m = 2;
    ompdag_rta_result *r = NULL;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    int64_t b = ompdag_rta_result_bound_times_m(r);
    ompdag_rta_result_destroy(r);
    return b;
}

/* The value of "assumptions"."name" in g's extra keys, or -1. */
static long long assumed_value(const ompdag_condag *g, const char *name)
{
    json_t *x = ompdag_condag_extra(g, -1);
    json_t *a = x ? json_object_get(x, "assumptions") : NULL;
    json_t *v = a ? json_object_get(a, name) : NULL;
    return json_is_integer(v) ? json_integer_value(v) : -1;
}

/* fib with the cutoff a parameter of the region's function, passed down. */
static const char *const fib_param_src =
    "long fib_seq(int n) { return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2); }\n"
    "long fib(int n, int d, int cutoff)\n"
    "{\n"
    "    long x, y;\n"
    "    if (n < 2) return n;\n"
    "    if (d >= cutoff) return fib_seq(n);\n"
    "#pragma omp task shared(x)\n"
    "    x = fib(n - 1, d + 1, cutoff);\n"
    "#pragma omp task shared(y)\n"
    "    y = fib(n - 2, d + 1, cutoff);\n"
    "#pragma omp taskwait\n"
    "    return x + y;\n"
    "}\n"
    "long run(int n, int cutoff)\n"
    "{\n"
    "    long r;\n"
    "#pragma omp parallel\n"
    "#pragma omp single\n"
    "    r = fib(n, 0, cutoff);\n"
    "    return r;\n"
    "}\n";

Test(assume, fib_cutoff_parameter_folds_to_the_real_depth)
{
    ompdag_condag_set *set;
    const char *const a[] = {"n=20", "cutoff=3", NULL};
    ompdag_condag *g = graph_of(fib_param_src, a, 0, 0, &set);
    /* 2 + 4 + 8 tasks, no branch left: exactly the run's tasks */
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_T), 14);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 0);
    /* fib(17, 2) is reached from fib(19, 1) and fib(18, 1): the same
     * context (values included), so its two tasks are built once and shared
     * (docs/compact.md): 14 T nodes, 12 distinct child tasks and the root */
    cr_assert_eq(ompdag_condag_task_count(g), 13);
    cr_assert_eq(assumed_value(g, "n"), 20);
    cr_assert_eq(assumed_value(g, "cutoff"), 3);
    ompdag_condag_set_destroy(set);

    /* without assumptions: both branches at every depth, up to the bound */
    g = graph_of(fib_param_src, NULL, 5, 0, &set);
    cr_assert_gt(fe_test_count(g, OMPDAG_KIND_C), 0);
    cr_assert_gt(fe_test_count(g, OMPDAG_KIND_T), 14);
    cr_assert_eq(assumed_value(g, "n"), -1);
    ompdag_condag_set_destroy(set);
}

Test(assume, recursion_bound_is_an_upper_limit_the_input_must_not_pass)
{
    ompdag_condag_set *set;
    const char *const a[] = {"n=20", "cutoff=3", NULL};
    ompdag_condag *g = graph_of(fib_param_src, a, 3, 0, &set);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_T), 14); /* no task past depth 3 */
    ompdag_condag_set_destroy(set);

    ompdag_frontend *fe = NULL;
    cr_assert_eq(extract_assumed(fib_param_src, a, 2, 0, &set, &fe), OMPDAG_ERR_UNSUPPORTED);
    /* fib(18, 2) creates tasks at depth 3; fib(17, 3) only computes */
    cr_assert(fe_test_has_diag(fe, 8, "creates tasks at depth 3, beyond its recursion bound 2"));
    ompdag_frontend_destroy(fe);
    ompdag_condag_set_destroy(set);
}

/* BOTS style: the cutoff is a global set by the argument parser. */
static const char *const bots_src = "int bots_cutoff_value = 4;\n"
                                    "void work(int);\n"
                                    "void fib(int n, int d)\n"
                                    "{\n"
                                    "    if (n < 2) { work(n); return; }\n"
                                    "    if (d < bots_cutoff_value) {\n"
                                    "#pragma omp task\n"
                                    "        fib(n - 1, d + 1);\n"
                                    "#pragma omp task\n"
                                    "        fib(n - 2, d + 1);\n"
                                    "#pragma omp taskwait\n"
                                    "    } else {\n"
                                    "        fib(n - 1, d + 1);\n"
                                    "        fib(n - 2, d + 1);\n"
                                    "    }\n"
                                    "}\n"
                                    "void run(int n)\n"
                                    "{\n"
                                    "#pragma omp parallel\n"
                                    "#pragma omp single\n"
                                    "    fib(n, 0);\n"
                                    "}\n";

Test(assume, bots_global_cutoff)
{
    /* fib(4) with cutoff 2: tasks fib(3,1), fib(2,1), then under fib(3,1)
     * fib(2,2) and fib(1,2) run inline (d >= 2), as do those of fib(2,1). */
    ompdag_condag_set *set;
    const char *const a[] = {"n=4", "bots_cutoff_value=2", NULL};
    ompdag_condag *g = graph_of(bots_src, a, 0, 0, &set);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_T), 6);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 0);
    cr_assert_eq(assumed_value(g, "bots_cutoff_value"), 2);
    ompdag_condag_set_destroy(set);
}

Test(assume, global_written_by_the_region_is_not_folded)
{
    char src[4096];
    snprintf(src, sizeof src, "%s",
             "int g_cutoff = 1;\n"
             "void work(void);\n"
             "void run(void)\n"
             "{\n"
             "#pragma omp parallel\n"
             "#pragma omp single\n"
             "    {\n"
             "        g_cutoff = g_cutoff + 1;\n"
             "        if (g_cutoff > 1) {\n"
             "#pragma omp task\n"
             "            work();\n"
             "        }\n"
             "    }\n"
             "}\n");
    ompdag_condag_set *set;
    ompdag_frontend *fe = NULL;
    const char *const a[] = {"g_cutoff=1", NULL};
    cr_assert_eq(extract_assumed(src, a, 0, 0, &set, &fe), OMPDAG_OK);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 1); /* both branches kept */
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_T), 1);
    cr_assert(fe_test_has_diag(fe, 9, "global 'g_cutoff' is written by the region's code"));
    ompdag_frontend_destroy(fe);
    ompdag_condag_set_destroy(set);
}

/* strassen-like descent: n / 4 and n - n / 2 carried down the recursion. */
Test(assume, strassen_like_descent)
{
    const char *src = "void leaf(int);\n"
                      "void part(int n)\n"
                      "{\n"
                      "    if (n < 16) { leaf(n); return; }\n"
                      "#pragma omp task\n"
                      "    part(n / 4);\n"
                      "#pragma omp task\n"
                      "    part(n - n / 2);\n"
                      "#pragma omp taskwait\n"
                      "}\n"
                      "void run(int size)\n"
                      "{\n"
                      "#pragma omp parallel\n"
                      "#pragma omp single\n"
                      "    part(size);\n"
                      "}\n";
    /* part(64) -> 16, 32; part(16) -> 4, 8; part(32) -> 8, 16 -> 4, 8:
     * four calls with n >= 16, two tasks each */
    ompdag_condag_set *set;
    const char *const a[] = {"size=64", NULL};
    ompdag_condag *g = graph_of(src, a, 0, 0, &set);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_T), 8);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 0);
    ompdag_condag_set_destroy(set);
}

static const char *const loop_src = "void work(int);\n"
                                    "void run(int n)\n"
                                    "{\n"
                                    "#pragma omp parallel\n"
                                    "#pragma omp single\n"
                                    "    for (int i = 0; i < n; i++) {\n"
                                    "#pragma omp task\n"
                                    "        work(i);\n"
                                    "    }\n"
                                    "}\n";

Test(assume, loop_trip_count_from_the_input)
{
    ompdag_condag_set *set;
    const char *const a[] = {"n=100", NULL};
    ompdag_condag *g = graph_of(loop_src, a, 0, 0, &set);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_T), 100);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 0); /* exact: no loop tests */
    ompdag_condag_set_destroy(set);
    /* without it the trip count is unknown: refused without --loop-bound */
    ompdag_frontend *fe = NULL;
    cr_assert_eq(extract_assumed(loop_src, NULL, 0, 0, &set, &fe), OMPDAG_ERR_UNSUPPORTED);
    ompdag_frontend_destroy(fe);
    ompdag_condag_set_destroy(set);
}

Test(assume, reassigned_parameter_is_not_folded)
{
    const char *src = "void work(int);\n"
                      "void run(int n)\n"
                      "{\n"
                      "    if (n > 8) n = 8;\n"
                      "#pragma omp parallel\n"
                      "#pragma omp single\n"
                      "    {\n"
                      "        if (n < 2) {\n"
                      "#pragma omp task\n"
                      "            work(n);\n"
                      "        }\n"
                      "    }\n"
                      "}\n";
    ompdag_condag_set *set;
    ompdag_frontend *fe = NULL;
    const char *const a[] = {"n=1", NULL};
    cr_assert_eq(extract_assumed(src, a, 0, 0, &set, &fe), OMPDAG_OK);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 1);
    cr_assert(fe_test_has_diag(fe, 8, "parameter 'n' of 'run' is assigned in its body"));
    ompdag_frontend_destroy(fe);
    ompdag_condag_set_destroy(set);
}

Test(assume, switch_and_conditional_fold)
{
    const char *src = "void work(int);\n"
                      "void run(int mode)\n"
                      "{\n"
                      "#pragma omp parallel\n"
                      "#pragma omp single\n"
                      "    {\n"
                      "        switch (mode) {\n"
                      "        case 1:\n"
                      "#pragma omp task\n"
                      "            work(1);\n"
                      "        case 2:\n"
                      "#pragma omp task\n"
                      "            work(2);\n"
                      "            break;\n"
                      "        default:\n"
                      "#pragma omp task\n"
                      "            work(3);\n"
                      "        }\n"
                      "    }\n"
                      "}\n";
    ompdag_condag_set *set;
    char lines[256];
    const char *const one[] = {"mode=1", NULL}; /* falls through into case 2 */
    ompdag_condag *g = graph_of(src, one, 0, 0, &set);
    cr_assert_str_eq(fe_test_lines(g, OMPDAG_KIND_T, lines, sizeof lines), "9,12");
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 0);
    ompdag_condag_set_destroy(set);
    const char *const seven[] = {"mode=7", NULL}; /* default */
    g = graph_of(src, seven, 0, 0, &set);
    cr_assert_str_eq(fe_test_lines(g, OMPDAG_KIND_T, lines, sizeof lines), "16");
    ompdag_condag_set_destroy(set);

    const char *cond = "void work(int);\n"
                       "int spawn(int k)\n"
                       "{\n"
                       "#pragma omp task\n"
                       "    work(k);\n"
                       "    return k;\n"
                       "}\n"
                       "void run(int big)\n"
                       "{\n"
                       "#pragma omp parallel\n"
                       "#pragma omp single\n"
                       "    (void)(big > 2 ? spawn(1) : 0);\n"
                       "}\n";
    const char *const small[] = {"big=1", NULL}; /* the arm with the task is not taken */
    g = graph_of(cond, small, 1, 0, &set);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_T), 0);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 0);
    ompdag_condag_set_destroy(set);
    const char *const large[] = {"big=3", NULL};
    g = graph_of(cond, large, 1, 0, &set);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_T), 1);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 0);
    ompdag_condag_set_destroy(set);
}

/* The assumed graph of fib(6) with cutoff 2 is the unassumed graph with
 * every branch the input does not take removed; here that pruning is done
 * by hand in the source (the tests inlined, depth by depth). */
Test(assume, assumed_graph_equals_the_graph_pruned_by_hand)
{
    const char *pruned = "long fib_seq(int n) { return n < 2 ? n : fib_seq(n - 1) + "
                         "fib_seq(n - 2); }\n"
                         "long level1(int n)\n"
                         "{\n"
                         "    long x, y;\n"
                         "#pragma omp task shared(x)\n"
                         "    x = fib_seq(n - 1);\n"
                         "#pragma omp task shared(y)\n"
                         "    y = fib_seq(n - 2);\n"
                         "#pragma omp taskwait\n"
                         "    return x + y;\n"
                         "}\n"
                         "long run(int n, int cutoff)\n"
                         "{\n"
                         "    long r;\n"
                         "#pragma omp parallel\n"
                         "#pragma omp single\n"
                         "    {\n"
                         "        long x, y;\n"
                         "#pragma omp task shared(x)\n"
                         "        x = level1(n - 1);\n"
                         "#pragma omp task shared(y)\n"
                         "        y = level1(n - 2);\n"
                         "#pragma omp taskwait\n"
                         "        r = x + y;\n"
                         "    }\n"
                         "    return r;\n"
                         "}\n";
    ompdag_condag_set *sa, *sh, *su;
    const char *const a[] = {"n=6", "cutoff=2", NULL};
    ompdag_condag *assumed = graph_of(fib_param_src, a, 0, 0, &sa);
    ompdag_condag *hand = graph_of(pruned, NULL, 0, 0, &sh);
    ompdag_condag *all = graph_of(fib_param_src, NULL, 3, 0, &su);
    for (int k = 0; k < 5; ++k) {
        ompdag_kind kind = (ompdag_kind) "NTWCJ"[k];
        cr_assert_eq(fe_test_count(assumed, kind), fe_test_count(hand, kind), "kind %c",
                     "NTWCJ"[k]);
    }
    cr_assert_eq(ompdag_condag_task_count(assumed), ompdag_condag_task_count(hand));
    int64_t b_assumed = unit_bound(assumed), b_hand = unit_bound(hand), b_all = unit_bound(all);
    cr_assert_eq(b_assumed, b_hand);
    cr_assert_leq(b_assumed, b_all);
    cr_assert_lt(b_assumed, b_all); /* the unassumed graph keeps the deeper branches */
    ompdag_condag_set_destroy(sa);
    ompdag_condag_set_destroy(sh);
    ompdag_condag_set_destroy(su);
}

Test(assume, pragma_in_the_source)
{
    char src[4096];
    snprintf(src, sizeof src, "#pragma ompdag assume(n = 5)\n%s", loop_src);
    ompdag_condag_set *set;
    ompdag_condag *g = graph_of(src, NULL, 0, 0, &set);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_T), 5);
    cr_assert_eq(assumed_value(g, "n"), 5);
    ompdag_condag_set_destroy(set);
    /* the command line names the input actually run: it wins */
    const char *const a[] = {"n=3", NULL};
    g = graph_of(src, a, 0, 0, &set);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_T), 3);
    ompdag_condag_set_destroy(set);
}

Test(assume, bad_assumptions_are_argument_errors)
{
    ompdag_frontend *fe = ompdag_frontend_create();
    ompdag_error err;
    cr_assert_eq(ompdag_frontend_assume(fe, "3n=1", &err), OMPDAG_ERR_ARGUMENT);
    cr_assert(strstr(err.message, "'3n=1'"));
    cr_assert_eq(ompdag_frontend_assume(fe, "n", &err), OMPDAG_ERR_ARGUMENT);
    cr_assert_eq(ompdag_frontend_assume(fe, "n=ten", &err), OMPDAG_ERR_ARGUMENT);
    cr_assert_eq(ompdag_frontend_assume(fe, "n=99999999999999999999", &err), OMPDAG_ERR_ARGUMENT);
    cr_assert_eq(ompdag_frontend_assume(fe, "n = -4", &err), OMPDAG_OK);
    cr_assert_eq(ompdag_frontend_assume(fe, "n=5", &err), OMPDAG_ERR_ARGUMENT); /* twice */
    cr_assert(strstr(err.message, "assumed twice"));
    ompdag_frontend_destroy(fe);
}

static int run_extract(int argc, const char **argv)
{
    return cmd_extract(argc, (char **)argv);
}

Test(assume, cli_exit_status)
{
    const char *dir = test_tmpdir();
    cr_assert_not_null(dir);
    char src[600], out[600];
    snprintf(src, sizeof src, "%s/loop.c", dir);
    snprintf(out, sizeof out, "%s/loop.json", dir);
    FILE *f = fopen(src, "w");
    fputs(loop_src, f);
    fclose(f);
    const char *good[] = {"extract", src, "--assume", "n=7", "-o", out};
    cr_assert_eq(run_extract(6, good), 0);
    ompdag_condag_set *set = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file(out, &set, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(fe_test_count(ompdag_condag_set_graph(set, 0), OMPDAG_KIND_T), 7);
    cr_assert_eq(assumed_value(ompdag_condag_set_graph(set, 0), "n"), 7);
    ompdag_condag_set_destroy(set);
    unlink(out);
    /* a name that matches nothing: an extraction error, nothing written */
    const char *unknown[] = {"extract", src, "--assume", "m=7", "--loop-bound", "2", "-o", out};
    cr_assert_eq(run_extract(8, unknown), 1);
    cr_assert(access(out, F_OK) != 0);
    /* bad syntax: a usage error */
    const char *syntax[] = {"extract", src, "--assume", "n:7", "-o", out};
    cr_assert_eq(run_extract(6, syntax), 2);
    const char *value[] = {"extract", src, "--assume", "n=seven", "-o", out};
    cr_assert_eq(run_extract(6, value), 2);
}

#ifdef OMPDAG_PLUGIN_PATH
Test(assume, plugin_argument)
{
    const char *dir = test_tmpdir();
    cr_assert_not_null(dir);
    char src[600], cmd[4096], path[1200];
    snprintf(src, sizeof src, "%s/p.c", dir);
    FILE *f = fopen(src, "w");
    fputs(loop_src, f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "%s -fopenmp -fplugin=%s -fplugin-arg-ompdag-out=%s/out "
             "-fplugin-arg-ompdag-assume=n=9 -c %s -o %s/p.o",
             OMPDAG_CLANG_PATH, OMPDAG_PLUGIN_PATH, dir, src, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/out/p.o.condag.json", dir); /* the object below DIR's parent */
    ompdag_condag_set *set = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file(path, &set, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(fe_test_count(ompdag_condag_set_graph(set, 0), OMPDAG_KIND_T), 9);
    ompdag_condag_set_destroy(set);
    /* a malformed argument stops the compiler */
    snprintf(cmd, sizeof cmd,
             "%s -fopenmp -fplugin=%s -fplugin-arg-ompdag-assume=n -c %s -o %s/q.o 2>/dev/null",
             OMPDAG_CLANG_PATH, OMPDAG_PLUGIN_PATH, src, dir);
    cr_assert_neq(system(cmd), 0);
}
#endif

/* Loop over `limit` computed from the input: n / k, n * n, and a local
 * initialized from them. */
static ompdag_condag *loop_of(const char *limit, const char *const *assume, int loop_bound,
                              ompdag_condag_set **set)
{
    static char src[1024];
    snprintf(src, sizeof src,
             "void work(int);\n"
             "void run(int n, int k)\n"
             "{\n"
             "#pragma omp parallel\n"
             "#pragma omp single\n"
             "    {\n"
             "        int limit = %s;\n"
             "        for (int i = 0; i < limit; i++) {\n"
             "#pragma omp task\n"
             "            work(i);\n"
             "        }\n"
             "    }\n"
             "}\n",
             limit);
    return graph_of(src, assume, 0, loop_bound, set);
}

Test(assume, division_by_zero_and_overflow_leave_values_unknown)
{
    ompdag_condag_set *set;
    const char *const a[] = {"n=12", "k=4", NULL};
    ompdag_condag *g = loop_of("n / k - (n % 5)", a, 0, &set); /* a local: 3 - 2 */
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_T), 1);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 0);
    ompdag_condag_set_destroy(set);
    /* n / 0: unknown, so the loop bound (2) applies, with its loop tests */
    const char *const zero[] = {"n=12", "k=0", NULL};
    g = loop_of("n / k", zero, 2, &set);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_T), 2);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 2);
    ompdag_condag_set_destroy(set);
    /* n * k overflows int: unknown as well (never wrapped) */
    const char *const big[] = {"n=65536", "k=65536", NULL};
    g = loop_of("n * k", big, 2, &set);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 2);
    ompdag_condag_set_destroy(set);
    /* a value that does not fit the parameter's type is no value */
    const char *const wide[] = {"n=4294967296", "k=1", NULL};
    ompdag_frontend *fe = NULL;
    char src[512];
    snprintf(src, sizeof src, "%s", loop_src);
    cr_assert_eq(extract_assumed(src, wide, 0, 0, &set, &fe), OMPDAG_ERR_UNSUPPORTED);
    cr_assert(fe_test_has_diag(fe, 2, "does not fit the type of parameter 'n' of 'run'"));
    ompdag_frontend_destroy(fe);
    ompdag_condag_set_destroy(set);
}
