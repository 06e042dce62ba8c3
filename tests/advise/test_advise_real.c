/*
 * tests/advise/test_advise_real.c — the advisor on real measured runs, with
 * the model kept in the repository: a binary tree of ~2 µs tasks must be
 * flagged too-fine, the same tree of ~100 µs tasks must not be.
 *
 * examples/advisor/tree_walk.c (depth 6, every node but the root a task of
 * WORK units, ~0.5 us each at -O1: 4 and 200 units) is built with
 * clang -fopenmp -g -O1, extracted, run under the probe on 2 threads (5
 * regions), annotated, then `ompdag advise --format json`.  The grain is the
 * sum of node medians, so a loaded machine (preemption inflating a few
 * segments) does not move it much; the two cases are 50x apart and the
 * model's grain minimum lies between them (docs/advise.md).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tmpdir.h"

/* Runs a shell line in tmp with $OMPDAG, $SRC and $PROG set; 0 on success. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char line[4096], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && OMPDAG='%s' SRC='%s' PROG='%s' OMP_NUM_THREADS=2 "
             "OMPDAG_PROBE_LIB='%s' sh -c '%s' >out 2>err",
             tmp, OMPDAG_CLI_PATH, getenv("OMPDAG_SOURCE_DIR"), OMPDAG_TREE_PROG,
             OMPDAG_PROBE_LIB_PATH, line);
    int st = system(cmd);
    if (st != 0) {
        char err[256];
        snprintf(err, sizeof err, "cat '%s/err' >&2", tmp);
        (void)!system(err);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Extracts, runs tree_walk 6 5 WORK 5, annotates, advises; returns the
 * advice JSON (caller decrefs). */
static json_t *advise_tree(int work)
{
    cr_assert_eq(sh("\"$OMPDAG\" extract \"$SRC/examples/advisor/tree_walk.c\" -o g.json"), 0);
    cr_assert_eq(sh("\"$OMPDAG\" run --trace t.trace -- \"$PROG\" 6 5 %d 5", work), 0);
    cr_assert_eq(sh("\"$OMPDAG\" annotate g.json t.trace --unobserved zero -o a.json"), 0);
    cr_assert_eq(sh("\"$OMPDAG\" advise a.json --format json -o advice.json"), 0);
    cr_assert_eq(sh("\"$OMPDAG\" report a.json --threads 2 --advise --format sarif -o sarif.json"),
                 0);
    char path[128];
    snprintf(path, sizeof path, "%s/advice.json", tmp);
    json_t *j = json_load_file(path, 0, NULL);
    cr_assert_not_null(j);
    return j;
}

static int count_rule(const char *rule)
{
    char path[128];
    snprintf(path, sizeof path, "%s/sarif.json", tmp);
    json_t *log = json_load_file(path, 0, NULL);
    cr_assert_not_null(log);
    json_t *results = json_object_get(json_array_get(json_object_get(log, "runs"), 0), "results");
    int n = 0;
    for (size_t i = 0; i < json_array_size(results); ++i)
        n +=
            !strcmp(json_string_value(json_object_get(json_array_get(results, i), "ruleId")), rule);
    json_decref(log);
    return n;
}

/* Every task directive of the region, with its verdict and grain. */
static int check_tasks(json_t *advice, const char *want, bool equal, double *grain)
{
    json_t *tasks = json_object_get(json_array_get(json_object_get(advice, "regions"), 0), "tasks");
    cr_assert_eq(json_array_size(tasks), 2, "tree_walk has two task directives");
    for (size_t i = 0; i < 2; ++i) {
        json_t *t = json_array_get(tasks, i);
        const char *v = json_string_value(json_object_get(t, "verdict"));
        grain[i] = json_number_value(json_object_get(t, "grain_ns"));
        double lo =
            json_number_value(json_object_get(json_object_get(t, "predicted"), "grain_min_ns"));
        if (equal)
            cr_assert_str_eq(v, want, "task %zu: grain %.0f ns, predicted minimum %.0f ns", i,
                             grain[i], lo);
        else
            cr_assert_str_neq(v, want, "task %zu: grain %.0f ns, predicted minimum %.0f ns", i,
                              grain[i], lo);
        cr_assert_str_eq(json_string_value(json_object_get(t, "shape")), "recursive");
    }
    return (int)json_array_size(tasks);
}

Test(real, tree_of_2us_tasks_is_too_fine, .init = make_tmp, .fini = rm_tmp, .timeout = 120)
{
    json_t *a = advise_tree(4);
    double grain[2];
    check_tasks(a, "too-fine", true, grain);
    for (int i = 0; i < 2; ++i)
        cr_assert_lt(grain[i], 20000, "a ~2 us task measured %.0f ns", grain[i]);
    cr_assert_eq(count_rule("ompdag-too-fine"), 2, "SARIF warns at both directives");
    json_decref(a);
}

Test(real, tree_of_100us_tasks_is_not_flagged, .init = make_tmp, .fini = rm_tmp, .timeout = 120)
{
    json_t *a = advise_tree(200);
    double grain[2];
    check_tasks(a, "ok", true, grain);
    for (int i = 0; i < 2; ++i)
        cr_assert_gt(grain[i], 50000, "a ~100 us task measured %.0f ns", grain[i]);
    cr_assert_eq(count_rule("ompdag-too-fine"), 0);
    json_decref(a);
}

/* The front end's static features of a task directive, counted by hand:
 * the task's block and the function it calls (sq), callees followed once. */
Test(real, static_features_on_the_t_node, .init = make_tmp, .fini = rm_tmp, .timeout = 60)
{
    char path[128];
    snprintf(path, sizeof path, "%s/f.c", tmp);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("static int sq(int x) { return x * x; }\n"
          "void f(int n)\n"
          "{\n"
          "#pragma omp parallel\n"
          "#pragma omp single\n"
          "    {\n"
          "#pragma omp task\n"
          "        {\n"
          "            int s = 0;\n"
          "            for (int i = 0; i < n; ++i)\n"
          "                if (i % 2) s += sq(i);\n"
          "            (void)s;\n"
          "        }\n"
          "    }\n"
          "}\n",
          f);
    fclose(f);
    cr_assert_eq(sh("\"$OMPDAG\" extract f.c -o g.json"), 0);
    char out[128];
    snprintf(out, sizeof out, "%s/g.json", tmp);
    json_t *g = json_load_file(out, 0, NULL);
    cr_assert_not_null(g);
    json_t *nodes = json_object_get(json_array_get(json_object_get(g, "graphs"), 0), "nodes");
    if (!nodes) nodes = json_object_get(g, "nodes");
    json_t *feat = NULL;
    for (size_t i = 0; i < json_array_size(nodes); ++i)
        if (!strcmp(json_string_value(json_object_get(json_array_get(nodes, i), "kind")), "T"))
            feat = json_object_get(json_array_get(nodes, i), "features");
    cr_assert(json_is_object(feat), "the T node carries \"features\"");
    /* stmts: int s; for; int i (its init); if; (void)s; and sq's return */
    struct {
        const char *key;
        int want;
    } want[] = {{"stmts", 6},  {"branches", 1}, {"loops", 1},  {"calls", 1},
                {"addsub", 2}, {"muldiv", 2},   {"blocks", 5}, {"recursion", 0}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i)
        cr_assert_eq(json_integer_value(json_object_get(feat, want[i].key)), want[i].want,
                     "%s: %lld", want[i].key,
                     (long long)json_integer_value(json_object_get(feat, want[i].key)));
    json_decref(g);
}
