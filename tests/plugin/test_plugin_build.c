/*
 * tests/plugin/test_plugin_build.c — the -fplugin shim inside real clang
 * builds: for every example, the plugin's file equals what the front end
 * (= `ompdag extract`) writes for the same file, and the object code is
 * byte-identical to a build without the plugin.  Refusals become clang
 * warnings at the right line, errors with -fplugin-arg-ompdag-werror.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fe_test.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) {
        b[n] = 0;
        *len = (size_t)n;
    }
    return b;
}

static int run(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Compiles src with and without the plugin in a fresh directory. */
static void build_both(const char *src, const char *dir, const char *extra)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "%s -fopenmp -O2 -fplugin=%s -fplugin-arg-ompdag-out=%s/out %s -c %s -o %s/a.o "
             "2>%s/err.txt",
             OMPDAG_CLANG_PATH, OMPDAG_PLUGIN_PATH, dir, extra, src, dir, dir);
    cr_assert_eq(run(cmd), 0, "plugin build failed: %s", cmd);
    snprintf(cmd, sizeof cmd, "%s -fopenmp -O2 -c %s -o %s/b.o", OMPDAG_CLANG_PATH, src, dir);
    cr_assert_eq(run(cmd), 0, "plain build failed: %s", cmd);
}

static void same_as_extract_path(const char *file)
{
    const char *rel = file;
    char dir[] = "/tmp/ompdag_plugin_XXXXXX", path[8192];
    cr_assert_not_null(mkdtemp(dir));
    char src[4096];
    snprintf(src, sizeof src, "%s", file);
    build_both(src, dir, "");

    size_t la, lb, lp, lx;
    snprintf(path, sizeof path, "%s/a.o", dir);
    char *a = slurp(path, &la);
    snprintf(path, sizeof path, "%s/b.o", dir);
    char *b = slurp(path, &lb);
    cr_assert(a && b && la == lb && !memcmp(a, b, la), "%s: object code changed", rel);

    snprintf(path, sizeof path, "%s/out/a.o.condag.json", dir); /* DIR/<object below the top> */
    char *plugin_json = slurp(path, &lp);
    cr_assert_not_null(plugin_json, "%s: plugin wrote no %s", rel, path);

    ompdag_condag_set *set = NULL;
    cr_assert_eq(fe_test_extract(src, NULL, 0, 0, &set, NULL), OMPDAG_OK);
    snprintf(path, sizeof path, "%s/extract.json", dir);
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_save_file(set, path, true, &err), OMPDAG_OK);
    char *extract_json = slurp(path, &lx);
    cr_assert(lp == lx && !memcmp(plugin_json, extract_json, lp),
              "%s: plugin output differs from extract", rel);
    ompdag_condag_set_destroy(set);
    free(a);
    free(b);
    free(plugin_json);
    free(extract_json);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run(cmd);
}

static void same_as_extract(const char *rel)
{
    same_as_extract_path(fe_test_path(rel));
}

Test(plugin, fig2_branch_sync)
{
    same_as_extract("examples/fig2_branch_sync.c");
}
Test(plugin, fig3_nested)
{
    same_as_extract("examples/fig3_nested.c");
}
Test(plugin, loop_tasks)
{
    same_as_extract("examples/loop_tasks.c");
}
Test(plugin, switch_tasks)
{
    same_as_extract("examples/switch_tasks.c");
}
Test(plugin, helper_tasks)
{
    same_as_extract("examples/helper_tasks.c");
}
Test(plugin, fib)
{
    same_as_extract("examples/fib.c");
}
Test(plugin, clauses)
{
    same_as_extract("examples/clauses.c");
}
Test(plugin, stacked_tasks)
{
    same_as_extract("examples/stacked_tasks.c");
}
/* no pragma at all: the plugin skips the reparse but writes the same file */
Test(plugin, file_without_pragmas)
{
    char path[] = "/tmp/ompdag_plain_XXXXXX.c";
    int fd = mkstemps(path, 2);
    cr_assert(fd >= 0);
    const char *src = "#include <stdio.h>\nint add(int a, int b) { return a + b; }\n";
    cr_assert_eq(write(fd, src, strlen(src)), (ssize_t)strlen(src));
    close(fd);
    same_as_extract_path(path);
    unlink(path);
}

static void refusal_diag(bool werror)
{
    char dir[] = "/tmp/ompdag_plugin_XXXXXX", cmd[8192];
    cr_assert_not_null(mkdtemp(dir));
    const char *src = fe_test_path("examples/refuse/depend.c");
    snprintf(cmd, sizeof cmd,
             "%s -fopenmp -fplugin=%s -fplugin-arg-ompdag-out=%s/out %s -c %s -o %s/a.o "
             "2>%s/err.txt",
             OMPDAG_CLANG_PATH, OMPDAG_PLUGIN_PATH, dir, werror ? "-fplugin-arg-ompdag-werror" : "",
             src, dir, dir);
    int rc = run(cmd);
    cr_assert(werror ? rc != 0 : rc == 0, "rc %d", rc);
    size_t n;
    char path[8192];
    snprintf(path, sizeof path, "%s/err.txt", dir);
    char *err = slurp(path, &n);
    cr_assert_not_null(err);
    cr_assert(strstr(err, werror ? "depend.c:16:1: error: ompdag: task depend(iterator"
                                 : "depend.c:16:1: warning: ompdag: task depend(iterator"),
              "stderr: %s", err);
    snprintf(path, sizeof path, "%s/out/a.o.condag.json", dir); /* DIR/<object below the top> */
    cr_assert(access(path, F_OK) != 0, "no graph is written for a refused file");
    free(err);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run(cmd);
}

Test(plugin, refusal_is_a_warning)
{
    refusal_diag(false);
}
Test(plugin, refusal_is_an_error_with_werror)
{
    refusal_diag(true);
}

Test(plugin, same_flags_reach_the_front_end)
{
    /* -D and -I given to clang must reach the plugin's parse */
    char dir[] = "/tmp/ompdag_plugin_XXXXXX", path[1024], cmd[8192];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/inc", dir);
    cr_assert_eq(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/inc/cfg.h", dir);
    FILE *h = fopen(path, "w");
    fputs("#define SPAWN(x) work(x)\n", h);
    fclose(h);
    snprintf(path, sizeof path, "%s/m.c", dir);
    FILE *c = fopen(path, "w");
    fputs("#include \"cfg.h\"\nvoid work(int);\nvoid f(void) {\n#pragma omp parallel\n"
          "#pragma omp single\n  {\n#if TWO\n#pragma omp task\n    SPAWN(1);\n#endif\n"
          "#pragma omp task\n    SPAWN(2);\n#ifdef __OPTIMIZE__\n#pragma omp task\n"
          "    SPAWN(3);\n#endif\n  }\n}\n",
          c);
    fclose(c);
    char src[64];
    snprintf(src, sizeof src, "%.40s/m.c", dir);
    char extra[1024];
    snprintf(extra, sizeof extra, "-O2 -DTWO=1 -I%s/inc", dir);
    snprintf(cmd, sizeof cmd,
             "%s -fopenmp -fplugin=%s -fplugin-arg-ompdag-out=%s/out %s -c %s -o %s/a.o",
             OMPDAG_CLANG_PATH, OMPDAG_PLUGIN_PATH, dir, extra, src, dir);
    cr_assert_eq(run(cmd), 0);
    snprintf(path, sizeof path, "%s/out/a.o.condag.json", dir); /* DIR/<object below the top> */
    ompdag_condag_set *set = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file(path, &set, &err), OMPDAG_OK, "%s", err.message);
    /* τ1, SPAWN(1) under -DTWO, SPAWN(2), SPAWN(3) under -O2's __OPTIMIZE__ */
    cr_assert_eq(ompdag_condag_task_count(ompdag_condag_set_graph(set, 0)), 4);
    ompdag_condag_set_destroy(set);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run(cmd);
}

/* Every example is a real program: it builds with -fopenmp and runs. */
static void runs(const char *rel, const char *expect)
{
    char dir[] = "/tmp/ompdag_run_XXXXXX", cmd[8192], path[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "%s -fopenmp -O1 %s -o %s/prog && OMP_NUM_THREADS=2 %s/prog > %s/out.txt",
             OMPDAG_CLANG_PATH, fe_test_path(rel), dir, dir, dir);
    cr_assert_eq(run(cmd), 0, "%s", cmd);
    snprintf(path, sizeof path, "%s/out.txt", dir);
    size_t n;
    char *out = slurp(path, &n);
    cr_assert(out && strstr(out, expect), "%s printed: %s", rel, out ? out : "(nothing)");
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run(cmd);
}

Test(examples_run, all)
{
    runs("examples/fig2_branch_sync.c", "fig2_branch_sync: checksum");
    runs("examples/fig3_nested.c", "fig3_nested: checksum");
    runs("examples/loop_tasks.c", "loop_tasks: checksum");
    runs("examples/switch_tasks.c", "switch_tasks: checksum");
    runs("examples/helper_tasks.c", "helper_tasks: checksum");
    runs("examples/clauses.c", "clauses: checksum");
    runs("examples/fib.c", "fib(21) = 10946");
    runs("examples/fig5_counterexample.c", "fig5_counterexample: checksum");
    runs("examples/stacked_tasks.c", "stacked_tasks: checksum");
}

/* -fplugin-arg-ompdag-wcet=DB: a region whose bound, with the WCETs of DB,
 * misses its `#pragma ompdag deadline(5ms)` is reported at the `parallel`
 * line: a warning, or an error that fails the compile with werror. */
static void deadline_diag(bool werror)
{
    char dir[] = "/tmp/ompdag_plugin_XXXXXX", db[1024], cmd[8192], path[1024];
    cr_assert_not_null(mkdtemp(dir));
    const char *src = OMPDAG_TEST_SOURCE_DIR "/examples/fib.c";
    ompdag_condag_set *set = NULL;
    cr_assert_eq(fe_test_extract(src, NULL, 0, 0, &set, NULL), OMPDAG_OK);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) /* 10 ms a node: far over 5 ms */
        cr_assert_eq(ompdag_condag_assign_wcet(g, v, 10000000, NULL), OMPDAG_OK);
    snprintf(db, sizeof db, "%s/db.json", dir);
    cr_assert_eq(ompdag_condag_set_save_file(set, db, true, NULL), OMPDAG_OK);
    int line = ompdag_condag_region_loc(g).line;
    snprintf(cmd, sizeof cmd,
             "%s -fopenmp -O2 -fplugin=%s -fplugin-arg-ompdag-out=%s/out "
             "-fplugin-arg-ompdag-wcet=%s -fplugin-arg-ompdag-threads=4 %s -c %s -o %s/a.o "
             "2>%s/err.txt",
             OMPDAG_CLANG_PATH, OMPDAG_PLUGIN_PATH, dir, db,
             werror ? "-fplugin-arg-ompdag-werror" : "", src, dir, dir);
    int rc = run(cmd);
    cr_assert(werror ? rc != 0 : rc == 0, "rc %d", rc);
    size_t n;
    snprintf(path, sizeof path, "%s/err.txt", dir);
    char *err = slurp(path, &n), want[256];
    cr_assert_not_null(err);
    snprintf(want, sizeof want, "fib.c:%d:1: %s: ompdag: bound ", line,
             werror ? "error" : "warning");
    cr_assert(strstr(err, want), "no '%s' in stderr: %s", want, err);
    cr_assert(strstr(err, "on 4 threads exceeds deadline 5 ms [ompdag-deadline]"), "stderr: %s",
              err);
    free(err);
    ompdag_condag_set_destroy(set);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run(cmd);
}

Test(plugin, deadline_miss_is_a_warning_at_the_region)
{
    deadline_diag(false);
}
Test(plugin, deadline_miss_is_an_error_with_werror)
{
    deadline_diag(true);
}

/* One source compiled twice with different -D flags into two objects keeps
 * both graphs (one output per compilation, named after the object), and
 * -fplugin-arg-ompdag-loop-bound=N works like `extract --loop-bound N`;
 * without it, the hint names the plugin argument. */
Test(plugin, one_output_per_object_and_loop_bound_argument)
{
    char dir[] = "/tmp/ompdag_plugin_XXXXXX", path[1024], cmd[8192];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/v.c", dir);
    FILE *c = fopen(path, "w");
    fputs("void work(int);\nvoid f(int n) {\n#pragma omp parallel\n#pragma omp single\n"
          "  {\n    while (n-- > 0) {\n#if TWO\n#pragma omp task\n      work(n);\n#endif\n"
          "#pragma omp task\n      work(n);\n    }\n  }\n}\n",
          c);
    fclose(c);
    for (int two = 0; two < 2; ++two) {
        snprintf(cmd, sizeof cmd,
                 "cd %s && %s -fopenmp -fplugin=%s -fplugin-arg-ompdag-out=out "
                 "-fplugin-arg-ompdag-loop-bound=2 -fplugin-arg-ompdag-werror -DTWO=%d -c v.c "
                 "-o v%d.o",
                 dir, OMPDAG_CLANG_PATH, OMPDAG_PLUGIN_PATH, two, two);
        cr_assert_eq(run(cmd), 0, "%s", cmd);
    }
    for (int two = 0; two < 2; ++two) {
        snprintf(path, sizeof path, "%s/out/v%d.o.condag.json", dir, two);
        ompdag_condag_set *set = NULL;
        ompdag_error err;
        cr_assert_eq(ompdag_condag_set_load_file(path, &set, &err), OMPDAG_OK, "%s", err.message);
        /* τ1 and 2 iterations of 1 or 2 tasks */
        cr_assert_eq(ompdag_condag_task_count(ompdag_condag_set_graph(set, 0)), 1 + 2 * (1 + two));
        ompdag_condag_set_destroy(set);
    }
    snprintf(cmd, sizeof cmd,
             "cd %s && %s -fopenmp -fplugin=%s -fplugin-arg-ompdag-out=out -c v.c -o v.o "
             "2>err.txt",
             dir, OMPDAG_CLANG_PATH, OMPDAG_PLUGIN_PATH);
    cr_assert_eq(run(cmd), 0, "a refusal is a warning");
    snprintf(path, sizeof path, "%s/err.txt", dir);
    size_t n;
    char *err = slurp(path, &n);
    cr_assert(err && strstr(err, "pass -fplugin-arg-ompdag-loop-bound=N") &&
                  !strstr(err, "--loop-bound"),
              "stderr: %s", err ? err : "");
    free(err);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run(cmd);
}
