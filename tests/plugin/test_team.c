/*
 * tests/plugin/test_team.c — tasks created by every thread of a team (issue
 * 25 item 2, plugin/fe_team.c): the implicit tasks, the phases a barrier
 * cuts, worksharing loops as each thread's at-most share under its schedule,
 * sections as run-here-or-not branches, the "team" graph key, and the
 * refusals by name.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fe_expect.h"

static char buf[4096];
#define LINES(g, k) fe_test_lines(g, k, buf, sizeof buf)

/* Number of T nodes at `line`. */
static int created_at(const ompdag_condag *g, int line)
{
    int n = 0;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        n += ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T &&
             ompdag_condag_node_loc(g, v).line == line;
    return n;
}

/* The graph key "team" (0 when absent). */
static long long team_of(const ompdag_condag *g)
{
    json_t *extra = ompdag_condag_extra(g, -1);
    return extra ? json_integer_value(json_object_get(extra, "team")) : 0;
}

Test(team, every_thread_creates_the_task)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel num_threads(3)\n"
                                       "  {\n"
                                       "    work(0);\n"
                                       "#pragma omp task\n"
                                       "    work(1);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    /* tau1 creates 3 implicit tasks (line 3), each creates the task */
    cr_assert_eq(created_at(g, 3), 3);
    cr_assert_eq(created_at(g, 6), 3);
    cr_assert_eq(ompdag_condag_task_count(g), 1 + 3 + 3);
    cr_assert_eq(ompdag_condag_threads(g), 3);
    cr_assert_eq(team_of(g), 3);
    ompdag_condag_set_destroy(set);
}

Test(team, a_barrier_cuts_phases_and_waits_for_every_thread)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel num_threads(2)\n"
                                       "  {\n"
                                       "#pragma omp task\n"
                                       "    work(1);\n"
                                       "#pragma omp barrier\n"
                                       "#pragma omp task\n"
                                       "    work(2);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    /* 2 threads x 2 phases; each phase task waits for its own child (W at
     * the barrier's line 7 and at the region's end), tau1 waits at line 7 */
    cr_assert_eq(created_at(g, 3), 4);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "7,7,7,10,10");
    ompdag_condag_set_destroy(set);
}

Test(team, static_schedule_gives_each_thread_its_share)
{
    ompdag_condag_set *set;
    ompdag_condag *g =
        fe_expect_graph("void work(int);\n"
                        "void f(void) {\n"
                        "#pragma omp parallel for num_threads(2) schedule(static, 1)\n"
                        "  for (int i = 0; i < 3; i++) {\n"
                        "#pragma omp task\n"
                        "    work(i);\n"
                        "  }\n"
                        "}\n",
                        &set);
    /* chunks of 1 round-robin: thread 1 runs at most 2, thread 2 at most 1 */
    cr_assert_eq(created_at(g, 5), 3);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 3);
    ompdag_condag_set_destroy(set);
}

Test(team, dynamic_schedule_lets_every_thread_run_every_iteration)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel num_threads(2)\n"
                                       "  {\n"
                                       "#pragma omp for schedule(dynamic)\n"
                                       "    for (int i = 0; i < 3; i++) {\n"
                                       "#pragma omp task\n"
                                       "      work(i);\n"
                                       "    }\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_eq(created_at(g, 7), 6);
    ompdag_condag_set_destroy(set);
}

Test(team, a_worksharing_barrier_ends_a_phase_and_nowait_does_not)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel num_threads(2)\n"
                                       "  {\n"
                                       "#pragma omp for schedule(static) nowait\n"
                                       "    for (int i = 0; i < 2; i++) {\n"
                                       "#pragma omp task\n"
                                       "      work(i);\n"
                                       "    }\n"
                                       "#pragma omp for schedule(static)\n"
                                       "    for (int i = 0; i < 2; i++) {\n"
                                       "#pragma omp task\n"
                                       "      work(i);\n"
                                       "    }\n"
                                       "    work(5);\n"
                                       "#pragma omp task\n"
                                       "    work(6);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    /* phase 1: both loops (the first has no barrier); phase 2: the rest */
    cr_assert_eq(created_at(g, 3), 4);
    cr_assert_eq(created_at(g, 16), 2);
    ompdag_condag_set_destroy(set);
}

Test(team, sections_are_run_here_or_not_by_each_thread)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel sections num_threads(2)\n"
                                       "  {\n"
                                       "#pragma omp section\n"
                                       "    {\n"
                                       "#pragma omp task\n"
                                       "      work(1);\n"
                                       "    }\n"
                                       "#pragma omp section\n"
                                       "    work(2);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_eq(created_at(g, 7), 2);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_C), "6,6");
    ompdag_condag_set_destroy(set);
}

Test(team, a_single_region_is_no_team)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel num_threads(2)\n"
                                       "#pragma omp single\n"
                                       "  {\n"
                                       "#pragma omp task\n"
                                       "    work(1);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_eq(team_of(g), 0);
    cr_assert_eq(ompdag_condag_task_count(g), 2);
    ompdag_condag_set_destroy(set);
}

/* ---- refusals --------------------------------------------------------------------------- */

Test(team, no_constant_num_threads_is_refused_by_name)
{
    fe_expect_refused("void work(int);\n"
                      "void f(int n) {\n"
                      "#pragma omp parallel num_threads(n)\n"
                      "  {\n"
                      "#pragma omp task\n"
                      "    work(1);\n"
                      "  }\n"
                      "}\n",
                      3, "constant num_threads(N)");
}

Test(team, one_run_names_num_threads_and_what_else_the_team_holds)
{
    const char *src = "void work(int);\n"
                      "void f(void) {\n"
                      "#pragma omp parallel\n"
                      "  {\n"
                      "    int ev;\n"
                      "#pragma omp task detach(ev)\n"
                      "    work(1);\n"
                      "  }\n"
                      "}\n";
    fe_expect_refused(src, 3, "constant num_threads(N)");
    fe_expect_refused(src, 6, "detach");
}

Test(team, an_if_clause_on_the_parallel_is_refused)
{
    fe_expect_refused("void work(int);\n"
                      "void f(int n) {\n"
                      "#pragma omp parallel for num_threads(2) if(n > 8) schedule(static)\n"
                      "  for (int i = 0; i < 4; i++) {\n"
                      "#pragma omp task\n"
                      "    work(i);\n"
                      "  }\n"
                      "}\n",
                      3, "the team may be a single thread");
}

Test(team, a_barrier_inside_a_branch_is_refused)
{
    fe_expect_refused("void work(int);\n"
                      "void f(int n) {\n"
                      "#pragma omp parallel num_threads(2)\n"
                      "  {\n"
                      "#pragma omp task\n"
                      "    work(1);\n"
                      "    if (n) {\n"
                      "#pragma omp barrier\n"
                      "      work(2);\n"
                      "    }\n"
                      "  }\n"
                      "}\n",
                      8, "barrier inside a branch");
}

Test(team, a_nested_worksharing_loop_without_nowait_is_refused)
{
    fe_expect_refused("void work(int);\n"
                      "void f(int n) {\n"
                      "#pragma omp parallel num_threads(2)\n"
                      "  {\n"
                      "    if (n) {\n"
                      "#pragma omp for\n"
                      "      for (int i = 0; i < 2; i++) {\n"
                      "#pragma omp task\n"
                      "        work(i);\n"
                      "      }\n"
                      "    }\n"
                      "  }\n"
                      "}\n",
                      6, "without nowait inside a branch");
}

Test(team, a_grandchild_not_awaited_before_a_barrier_is_refused)
{
    fe_expect_refused("void work(int);\n"
                      "void f(void) {\n"
                      "#pragma omp parallel num_threads(2)\n"
                      "  {\n"
                      "#pragma omp task\n"
                      "    {\n"
                      "#pragma omp task\n"
                      "      work(1);\n"
                      "    }\n"
                      "#pragma omp barrier\n"
                      "    work(2);\n"
                      "  }\n"
                      "}\n",
                      10, "the barrier waits for every task of the team");
}

Test(team, a_nested_parallel_for_stacked_on_the_team_is_no_worksharing_loop)
{
    fe_expect_refused("void work(int);\n"
                      "void f(void) {\n"
                      "#pragma omp parallel num_threads(2)\n"
                      "#pragma omp parallel for\n"
                      "  for (int i = 0; i < 2; i++) {\n"
                      "#pragma omp task\n"
                      "    work(i);\n"
                      "  }\n"
                      "}\n",
                      4, "directly on '#pragma omp parallel'");
}

Test(team, collapse_is_refused_by_name)
{
    fe_expect_refused("void work(int);\n"
                      "void f(void) {\n"
                      "#pragma omp parallel for num_threads(2) collapse(2)\n"
                      "  for (int i = 0; i < 2; i++)\n"
                      "    for (int j = 0; j < 2; j++) {\n"
                      "#pragma omp task\n"
                      "      work(i);\n"
                      "    }\n"
                      "}\n",
                      3, "collapse");
}

/* ---- a real run ------------------------------------------------------------------------ */

#if defined(OMPDAG_CLI_BIN) && defined(OMPDAG_PROBE_LIB_PATH) && defined(OMPDAG_CLANG_PATH)
static int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* annotate maps a team's implicit tasks phase by phase (annotate/annotate_team.c;
 * tests/probe/test_annotate_team.c checks the figures): the graph of this
 * program annotates with no segment unmapped and writes its WCETs. */
Test(team, annotate_maps_a_team_graph, .timeout = 120)
{
    char dir[] = "/tmp/ompdag_team_XXXXXX", cmd[8192];
    cr_assert_not_null(mkdtemp(dir));
    const char *src = fe_test_path("tests/probe/progs/team.c");
    snprintf(cmd, sizeof cmd,
             "cd %s && %s -fopenmp -g -O1 -o prog %s && %s extract %s -o g.json && "
             "OMPDAG_PROBE_LIB=%s OMP_NUM_THREADS=2 %s run --quiet --trace t.trace -- ./prog "
             ">/dev/null && %s annotate g.json t.trace -o a.json >out.txt 2>&1 && "
             "grep -q ', 0 unmapped' out.txt && test -s a.json",
             dir, OMPDAG_CLANG_PATH, src, OMPDAG_CLI_BIN, src, OMPDAG_PROBE_LIB_PATH,
             OMPDAG_CLI_BIN, OMPDAG_CLI_BIN);
    cr_assert_eq(sh(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
}
#endif

/* --team-size N (ompdag_frontend_set_team_size) stands for a missing
 * constant num_threads: the team graph holds N implicit tasks, m = N. */
Test(team, a_team_size_option_stands_for_a_missing_num_threads)
{
    char path[128];
    cr_assert(fe_test_write("void work(int);\n"
                            "void f(int n) {\n"
                            "#pragma omp parallel\n"
                            "  {\n"
                            "#pragma omp task\n"
                            "    work(1);\n"
                            "  }\n"
                            "}\n",
                            "team_size.c", path));
    ompdag_frontend *fe = ompdag_frontend_create();
    ompdag_error err = {0};
    cr_assert_neq(ompdag_frontend_set_team_size(fe, 4097, &err), OMPDAG_OK);
    cr_assert_eq(ompdag_frontend_set_team_size(fe, 2, &err), OMPDAG_OK, "%s", err.message);
    ompdag_condag_set *set = NULL;
    ompdag_status st = ompdag_frontend_extract(fe, path, NULL, 0, &set, &err);
    if (st) ompdag_frontend_print_diags(fe, stderr);
    cr_assert_eq(st, OMPDAG_OK);
    const ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    cr_expect_eq(created_at(g, 3), 2, "two implicit tasks");
    cr_expect_eq(created_at(g, 5), 2);
    cr_expect_eq(ompdag_condag_threads(g), 2);
    cr_expect_eq(team_of(g), 2);
    ompdag_condag_set_destroy(set);
    ompdag_frontend_destroy(fe);
    fe_test_remove(path);
}
