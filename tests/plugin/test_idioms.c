/*
 * tests/plugin/test_idioms.c — the idioms of real OpenMP task programs
 * (issue 10, written after the BOTS sources but not copied from them):
 * stacked directives, code after the single's barrier, constant-expression
 * pragma arguments, default and at-most loop bounds, goto to the end of a
 * task, locks reached through helpers, several refusals in one run, a
 * two-file project through -p (compile_commands.json in the arguments form,
 * response files), and at-most loops annotated from shorter runs.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "fe_test.h"

static char buf[4096];
#define LINES(g, k) fe_test_lines(g, k, buf, sizeof buf)

/* Extracts `src` (its own temp dir) with default loop/recursion bounds. */
static ompdag_status extract_with(const char *src, int loop_bound, int recursion_bound,
                                  ompdag_condag_set **set, ompdag_frontend **fe_out)
{
    char path[128];
    cr_assert(fe_test_write(src, "src.c", path));
    ompdag_frontend *fe = ompdag_frontend_create();
    ompdag_error err;
    if (loop_bound >= 0) cr_assert_eq(ompdag_frontend_set_loop_bound(fe, loop_bound, &err), 0);
    if (recursion_bound > 0)
        cr_assert_eq(ompdag_frontend_set_recursion_bound(fe, recursion_bound, &err), 0);
    ompdag_status st = ompdag_frontend_extract(fe, path, NULL, 0, set, &err);
    fe_test_remove(path);
    if (st != OMPDAG_OK && st != OMPDAG_ERR_UNSUPPORTED) ompdag_frontend_print_diags(fe, stderr);
    if (fe_out)
        *fe_out = fe;
    else
        ompdag_frontend_destroy(fe);
    return st;
}

static ompdag_condag *ok_graph(const char *src, int loop_bound, ompdag_condag_set **set)
{
    ompdag_frontend *fe = NULL;
    ompdag_status st = extract_with(src, loop_bound, 0, set, &fe);
    if (st != OMPDAG_OK) ompdag_frontend_print_diags(fe, stderr);
    cr_assert_eq(st, OMPDAG_OK, "%s", ompdag_status_name(st));
    cr_assert_eq(ompdag_condag_set_count(*set), 1);
    ompdag_frontend_destroy(fe);
    return ompdag_condag_set_graph(*set, 0);
}

static void refused(const char *src, int loop_bound, int line, const char *needle)
{
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    ompdag_status st = extract_with(src, loop_bound, 0, &set, &fe);
    if (!fe_test_has_diag(fe, line, needle)) ompdag_frontend_print_diags(fe, stderr);
    cr_assert_eq(st, OMPDAG_ERR_UNSUPPORTED, "%s", ompdag_status_name(st));
    cr_assert(fe_test_has_diag(fe, line, needle), "no diagnostic at line %d with '%s'", line,
              needle);
    cr_assert_eq(ompdag_condag_set_count(set), 0, "a refused region has no graph");
    ompdag_condag_set_destroy(set);
    ompdag_frontend_destroy(fe);
}

/* ---- stacked directives ---------------------------------------------------------- */

Test(stacked, parallel_single_task_on_one_call)
{
    ompdag_condag_set *set;
    ompdag_condag *g = ok_graph("void solve(int);\n"
                                "void run(int n) {\n"
                                "#pragma omp parallel\n"
                                "#pragma omp single\n"
                                "#pragma omp task untied\n"
                                "  solve(n);\n"
                                "}\n",
                                -1, &set);
    cr_assert_eq(ompdag_condag_task_count(g), 2);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "5");
    ompdag_condag_set_destroy(set);
}

Test(stacked, single_nowait_task_in_a_parallel_block)
{
    ompdag_condag_set *set;
    ompdag_condag *g = ok_graph("void solve(int);\n"
                                "void run(int n) {\n"
                                "#pragma omp parallel\n"
                                "  {\n"
                                "#pragma omp single nowait\n"
                                "#pragma omp task\n"
                                "    solve(n);\n"
                                "  }\n"
                                "}\n",
                                -1, &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "6");
    ompdag_condag_set_destroy(set);
}

Test(stacked, parallel_master_taskgroup)
{
    ompdag_condag_set *set;
    ompdag_condag *g = ok_graph("void solve(int);\n"
                                "void run(int n) {\n"
                                "#pragma omp parallel master\n"
                                "#pragma omp taskgroup\n"
                                "  {\n"
                                "#pragma omp task\n"
                                "    solve(n);\n"
                                "  }\n"
                                "}\n",
                                -1, &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "6");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "4");
    ompdag_condag_set_destroy(set);
}

/* A case that falls through leaves two tails open (the previous case's and
 * the switch's own); the next node hangs from a J created on demand.  That J
 * used to be numbered after the node it precedes, and the taskgroup's "every
 * task awaits its children" test (which reads a task's nodes in reverse
 * creation order) then saw the children created in the cases as unawaited
 * and refused a program whose task does wait. */
Test(stacked, taskgroup_task_waits_after_a_switch)
{
    ompdag_condag_set *set;
    ompdag_condag *g = ok_graph("void work(int);\n"
                                "void run(int mode) {\n"
                                "#pragma omp parallel master\n"
                                "#pragma omp taskgroup\n"
                                "  {\n"
                                "#pragma omp task\n"
                                "    {\n"
                                "      switch (mode) {\n"
                                "      case 0:\n"
                                "#pragma omp task\n"
                                "        work(1);\n"
                                "      case 1:\n" /* case 0 falls through: two tails */
                                "#pragma omp task\n"
                                "        work(2);\n"
                                "      }\n"
                                "#pragma omp taskwait\n"
                                "    }\n"
                                "  }\n"
                                "}\n",
                                -1, &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "6,10,13");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "4,16");
    ompdag_condag_set_destroy(set);
}

Test(stacked, task_on_parallel_without_single_is_refused)
{
    refused("void solve(int);\n"
            "void run(int n) {\n"
            "#pragma omp parallel\n"
            "#pragma omp task\n"
            "  solve(n);\n"
            "}\n",
            -1, 4, "put it inside single or master");
}

/* ---- where a region's graph ends --------------------------------------------------- */

Test(barrier, critical_after_the_single_is_outside_the_graph)
{
    ompdag_condag_set *set;
    ompdag_condag *g = ok_graph("void solve(int);\n"
                                "int total, mine;\n"
                                "void run(int n) {\n"
                                "#pragma omp parallel\n"
                                "  {\n"
                                "    mine = 0;\n"
                                "#pragma omp single\n"
                                "#pragma omp task untied\n"
                                "    {\n"
                                "      solve(n);\n"
                                "    }\n"
                                "#pragma omp critical\n"
                                "    total += mine;\n"
                                "#pragma omp atomic\n"
                                "    total += 1;\n"
                                "  }\n"
                                "}\n",
                                -1, &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "8");
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        cr_assert_lt(ompdag_condag_node_loc(g, v).line, 12, "node after the barrier");
    ompdag_condag_set_destroy(set);
}

Test(barrier, critical_after_master_without_barrier_is_refused)
{
    refused("void solve(int);\n"
            "int total;\n"
            "void run(int n) {\n"
            "#pragma omp parallel\n"
            "  {\n"
            "#pragma omp master\n"
            "#pragma omp task\n"
            "    solve(n);\n"
            "#pragma omp critical\n"
            "    total += 1;\n"
            "  }\n"
            "}\n",
            -1, 9, "outside single/master");
}

/* Tasks after the single's barrier are created by every thread: a team graph
 * (plugin/fe_team_single.c; test_team_loop.c builds it with num_threads),
 * which needs the team's size. */
Test(barrier, tasks_after_the_barrier_make_a_team_that_needs_its_size)
{
    refused("void solve(int);\n"
            "void run(int n) {\n"
            "#pragma omp parallel\n"
            "  {\n"
            "#pragma omp single\n"
            "#pragma omp task\n"
            "    solve(n);\n"
            "#pragma omp task\n"
            "    solve(n);\n"
            "  }\n"
            "}\n",
            -1, 3, "constant num_threads(N)");
}

/* ---- constant expressions --------------------------------------------------------- */

Test(constants, macros_products_and_sizeof_in_pragma_arguments)
{
    ompdag_condag_set *set;
    ompdag_condag *g = ok_graph("#define NB 2\n"
                                "#define TEAM 3\n"
                                "void solve(int);\n"
                                "void run(int n) {\n"
                                "#pragma omp parallel num_threads(TEAM + 1)\n"
                                "#pragma omp single\n"
                                "  {\n"
                                "#pragma ompdag loop_bound(NB * 2)\n"
                                "    while (n-- > 0) {\n"
                                "#pragma omp task\n"
                                "      solve(n);\n"
                                "    }\n"
                                "#pragma ompdag loop_bound(sizeof(short))\n"
                                "    while (n++ < 0) {\n"
                                "#pragma omp task\n"
                                "      solve(n);\n"
                                "    }\n"
                                "  }\n"
                                "}\n",
                                -1, &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "10,10,10,10,15,15");
    cr_assert_eq(ompdag_condag_threads(g), 4);
    ompdag_condag_set_destroy(set);
}

Test(constants, recursion_bound_from_a_macro)
{
    ompdag_condag_set *set;
    ompdag_condag *g = ok_graph("#define DEPTH 2\n"
                                "void leaf(int);\n"
                                "#pragma ompdag recursion_bound(DEPTH)\n"
                                "void rec(int n) {\n"
                                "  if (n < 2) { leaf(n); return; }\n"
                                "#pragma omp task\n"
                                "  rec(n - 1);\n"
                                "#pragma omp taskwait\n"
                                "}\n"
                                "void run(int n) {\n"
                                "#pragma omp parallel\n"
                                "#pragma omp single\n"
                                "  rec(n);\n"
                                "}\n",
                                -1, &set);
    /* two active calls of rec: each creates its task; the third call (in
     * the second rec's task) is asserted not to happen */
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "6,6");
    ompdag_condag_set_destroy(set);
}

Test(constants, a_variable_is_no_constant_and_the_pragma_is_named)
{
    refused("void solve(int);\n"
            "void run(int n) {\n"
            "#pragma omp parallel\n"
            "#pragma omp single\n"
            "  {\n"
            "#pragma ompdag loop_bound(n)\n"
            "    while (n-- > 0) {\n"
            "#pragma omp task\n"
            "      solve(n);\n"
            "    }\n"
            "  }\n"
            "}\n",
            -1, 6, "'#pragma ompdag loop_bound(n)' needs a constant expression");
}

Test(constants, messages_quote_the_ompdag_pragma_as_written)
{
    refused("void solve(int);\n"
            "void run(int n) {\n"
            "#pragma omp parallel\n"
            "#pragma omp single\n"
            "  {\n"
            "#pragma ompdag loop_bound(2)\n"
            "#pragma omp taskwait\n"
            "    solve(n);\n"
            "  }\n"
            "}\n",
            -1, 6, "'#pragma ompdag loop_bound' must be followed by a statement");
}

/* ---- loops: default bound, at most N --------------------------------------------- */

#define WHILE_LOOP                                                                                 \
    "void solve(int);\n"                                                                           \
    "void run(int n) {\n"                                                                          \
    "#pragma omp parallel\n"                                                                       \
    "#pragma omp single\n"                                                                         \
    "  {\n"                                                                                        \
    "    while (n-- > 0) {\n"                                                                      \
    "#pragma omp task\n"                                                                           \
    "      solve(n);\n"                                                                            \
    "    }\n"                                                                                      \
    "#pragma omp taskwait\n"                                                                       \
    "  }\n"                                                                                        \
    "}\n"

Test(loops, default_loop_bound_applies_without_a_pragma)
{
    ompdag_condag_set *set;
    ompdag_condag *g = ok_graph(WHILE_LOOP, 3, &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "7,7,7");
    ompdag_condag_set_destroy(set);
    refused(WHILE_LOOP, -1, 6, "--loop-bound N");
}

Test(loops, at_most_n_iterations_every_count_is_a_flow)
{
    ompdag_condag_set *set;
    ompdag_condag *g = ok_graph(WHILE_LOOP, 3, &set);
    /* one loop test per iteration: continue, or leave for the taskwait */
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_C), "6,6,6");
    int32_t w = -1;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_W) w = v;
    cr_assert_geq(w, 0);
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_C) continue;
        int32_t n = 0;
        const int32_t *s = ompdag_condag_node_fsucc(g, v, &n);
        cr_assert_eq(n, 2);
        /* one successor is a task creation, the other leads to the taskwait
         * through the loop's exit join */
        bool to_t = false, to_exit = false;
        for (int32_t k = 0; k < n; ++k) {
            to_t = to_t || ompdag_condag_node_kind(g, s[k]) == OMPDAG_KIND_T;
            int32_t m = 0;
            const int32_t *j = ompdag_condag_node_fsucc(g, s[k], &m);
            to_exit = to_exit ||
                      (ompdag_condag_node_kind(g, s[k]) == OMPDAG_KIND_J && m == 1 && j[0] == w);
        }
        cr_assert(to_t && to_exit, "loop test %d", v);
    }
    ompdag_condag_set_destroy(set);
}

/* ---- goto, locks, several refusals ------------------------------------------------- */

Test(jumps, goto_to_the_end_of_a_task_is_a_return)
{
    ompdag_condag_set *set;
    ompdag_condag *g = ok_graph("int fits(int);\n"
                                "void solve(int);\n"
                                "void run(int n) {\n"
                                "#pragma omp parallel\n"
                                "#pragma omp single\n"
                                "#pragma omp task\n"
                                "  {\n"
                                "    if (!fits(n)) {\n"
                                "      goto done;\n"
                                "    }\n"
                                "#pragma omp task\n"
                                "    solve(n);\n"
                                "#pragma omp taskwait\n"
                                "done:;\n"
                                "  }\n"
                                "}\n",
                                -1, &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "6,11");
    /* the goto skips the task: a branch with the early exit */
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_C), "8");
    ompdag_condag_set_destroy(set);
}

Test(jumps, goto_elsewhere_is_refused_at_the_goto)
{
    refused("void solve(int);\n"
            "void run(int n) {\n"
            "#pragma omp parallel\n"
            "#pragma omp single\n"
            "#pragma omp task\n"
            "  {\n"
            "    if (n) goto mid;\n"
            "#pragma omp task\n"
            "    solve(n);\n"
            "  mid:\n"
            "    solve(0);\n"
            "  }\n"
            "}\n",
            -1, 7, "goto");
}

Test(sync, lock_in_a_helper_is_refused_at_the_lock)
{
    refused("#include <omp.h>\n" /* omp_set_lock is modelled (test_mutex.c); nest locks not */
            "omp_nest_lock_t lk;\n"
            "int shared_count;\n"
            "static void bump(void) {\n"
            "  omp_set_nest_lock(&lk);\n"
            "  shared_count++;\n"
            "  omp_unset_nest_lock(&lk);\n"
            "}\n"
            "void run(int n) {\n"
            "#pragma omp parallel\n"
            "#pragma omp single\n"
            "#pragma omp task\n"
            "  bump();\n"
            "}\n",
            -1, 5, "'omp_set_nest_lock' in task code (in 'bump')");
}

Test(sync, the_atomic_is_named_and_the_critical_is_modelled)
{
    const char *src = "int best, count;\n"
                      "int place(int);\n"
                      "int explore(int n) {\n"
                      "  int r = 0;\n"
                      "  if (n <= 0) return 0;\n"
                      "#pragma omp task\n"
                      "  {\n"
                      "#pragma omp critical\n"
                      "    if (n < best) best = n;\n"
                      "#pragma omp atomic\n"
                      "    count += explore(n - 1);\n"
                      "  }\n"
                      "#pragma omp taskwait\n"
                      "  return r;\n"
                      "}\n"
                      "void run(int n) {\n"
                      "#pragma omp parallel\n"
                      "#pragma omp single\n"
                      "  explore(n);\n"
                      "}\n";
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    cr_assert_eq(extract_with(src, -1, 2, &set, &fe), OMPDAG_ERR_UNSUPPORTED);
    cr_assert(!fe_test_has_diag(fe, 8, "critical"), "the critical has no scheduling point inside");
    cr_assert(fe_test_has_diag(fe, 10, "'#pragma omp atomic'"));
    ompdag_condag_set_destroy(set);
    ompdag_frontend_destroy(fe);
}

/* ---- a two-file project ------------------------------------------------------------- */

static const char *const project_main = "void spawn_all(int n);\n"
                                        "void run(int n) {\n"
                                        "#pragma omp parallel\n"
                                        "#pragma omp single\n"
                                        "  {\n"
                                        "    spawn_all(n);\n"
                                        "  }\n"
                                        "}\n";
static const char *const project_lib = "void solve(int);\n"
                                       "void spawn_all(int n) {\n"
                                       "  for (int i = 0; i < 3; ++i) {\n"
                                       "#pragma omp task\n"
                                       "    solve(i + n);\n"
                                       "  }\n"
                                       "#pragma omp taskwait\n"
                                       "}\n";

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

static void remove_tree(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(project, single_file_refuses_a_call_into_a_file_with_tasks)
{
    char dir[] = "/tmp/ompdag_proj_XXXXXX", path[600];
    cr_assert_not_null(mkdtemp(dir));
    write_file(dir, "main.c", project_main);
    write_file(dir, "lib.c", project_lib);
    snprintf(path, sizeof path, "%s/main.c", dir);
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    cr_assert_eq(fe_test_extract(path, NULL, 0, 0, &set, &fe), OMPDAG_ERR_UNSUPPORTED);
    cr_assert(fe_test_has_diag(fe, 6, "call to 'spawn_all'") &&
                  fe_test_has_diag(fe, 6, "-p BUILD_DIR"),
              "refused at the call line");
    ompdag_condag_set_destroy(set);
    ompdag_frontend_destroy(fe);
    remove_tree(dir);
}

Test(project, p_inlines_task_functions_of_other_files)
{
    char dir[] = "/tmp/ompdag_proj_XXXXXX", json[4096], out[600], rsp[600];
    cr_assert_not_null(mkdtemp(dir));
    mkdir(strcat(strcpy(rsp, dir), "/build"), 0700);
    write_file(dir, "main.c", project_main);
    write_file(dir, "lib.c", project_lib);
    write_file(dir, "flags.rsp", "-DUNUSED=1 -O2");
    /* bear's form: "arguments", the source spelled relative, an absolute
     * "file", a relative -o, and a response file */
    snprintf(json, sizeof json,
             "[{\"directory\": \"%s\", \"file\": \"%s/main.c\", \"arguments\": [\"cc\", \"-c\", "
             "\"-fopenmp\", \"@flags.rsp\", \"-o\", \"build/main.o\", \"main.c\"]},\n"
             " {\"directory\": \"%s\", \"file\": \"lib.c\", \"command\": \"cc -c -fopenmp "
             "-obuild/lib.o lib.c\"}]\n",
             dir, dir, dir);
    snprintf(out, sizeof out, "%s/build", dir);
    write_file(out, "compile_commands.json", json);
    snprintf(out, sizeof out, "%s/out.json", dir);
    char bdir[600];
    snprintf(bdir, sizeof bdir, "%s/build", dir);
    const char *argv[] = {"extract", "-p", bdir, "-o", out};
    cr_assert_eq(cmd_extract(5, (char **)argv), 0);
    ompdag_condag_set *set = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file(out, &set, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_condag_set_count(set), 1, "one region, from main.c");
    const ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "4,4,4");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "7");
    ompdag_condag_set_destroy(set);
    remove_tree(dir);
}

/* ---- at-most loops annotate from shorter runs ----------------------------------------- */

#if defined(OMPDAG_CLI_BIN) && defined(OMPDAG_PROBE_LIB_PATH) && defined(OMPDAG_CLANG_PATH)
static int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

Test(loops, runs_with_fewer_iterations_annotate, .timeout = 120)
{
    char dir[] = "/tmp/ompdag_atmost_XXXXXX", cmd[8192];
    cr_assert_not_null(mkdtemp(dir));
    const char *src = fe_test_path("examples/loop_tasks.c");
    snprintf(cmd, sizeof cmd,
             "cd %s && %s -fopenmp -g -O1 -o prog %s && %s extract %s -o g.json && "
             "for a in 0 2 6; do OMPDAG_PROBE_LIB=%s OMP_NUM_THREADS=2 %s run --quiet --trace "
             "t$a.trace -- ./prog $a >/dev/null || exit 1; done && "
             "%s annotate g.json t0.trace t2.trace t6.trace -o a.json 2>err.txt",
             dir, OMPDAG_CLANG_PATH, src, OMPDAG_CLI_BIN, src, OMPDAG_PROBE_LIB_PATH,
             OMPDAG_CLI_BIN, OMPDAG_CLI_BIN);
    /* budget 0, 2 and 6: the loop_bound(3) loop runs 0, 1 and 3 times */
    cr_assert_eq(sh(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "grep -q ' 0 unmapped' %s/err.txt", dir);
    cr_assert_eq(sh(cmd), 0, "every segment maps onto the graph");
    remove_tree(dir);
}
#endif
