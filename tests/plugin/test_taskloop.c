/*
 * tests/plugin/test_taskloop.c — taskloop in the con-DAG (issue 25 item 1,
 * plugin/fe_taskloop.c): the chunk tasks (at most what grainsize, num_tasks
 * and the trip count allow), the implicit taskgroup's W node, the combined
 * forms, the refusals by name, and a real run under the probe annotated
 * with no segment unmapped and no run above the bound.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fe_expect.h"

static char buf[4096];
#define LINES(g, k) fe_test_lines(g, k, buf, sizeof buf)

#define REGION_HEAD                                                                                \
    "void work(int);\n"                                                                            \
    "void f(int n) {\n"                                                                            \
    "#pragma omp parallel\n"                                                                       \
    "#pragma omp single\n"                                                                         \
    "  {\n"
/* line 6 is the first line of the single block */
#define REGION_TAIL "  }\n}\n"

/* Number of tasks created by T nodes at `line`. */
static int created_at(const ompdag_condag *g, int line)
{
    int n = 0;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        n += ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T &&
             ompdag_condag_node_loc(g, v).line == line;
    return n;
}

/* ---- chunks ---------------------------------------------------------------------------- */

Test(taskloop, num_tasks_over_a_constant_trip_count_is_exact)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "    work(0);\n"
                                                   "#pragma omp taskloop num_tasks(3)\n"
                                                   "    for (int i = 0; i < 10; ++i)\n"
                                                   "      work(i);\n"
                                                   "    work(1);\n" REGION_TAIL,
                                       &set);
    /* min(3, 10) chunks, exactly: no C node; the implicit taskgroup waits */
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "7,7,7");
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 0);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "7");
    cr_assert_eq(ompdag_condag_task_count(g), 4);
    ompdag_condag_set_destroy(set);
}

Test(taskloop, num_tasks_above_the_trip_count_gives_one_chunk_per_iteration)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "#pragma omp taskloop num_tasks(8)\n"
                                                   "    for (int i = 0; i < 2; ++i)\n"
                                                   "      work(i);\n" REGION_TAIL,
                                       &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "6,6");
    ompdag_condag_set_destroy(set);
}

Test(taskloop, grainsize_gives_at_most_n_over_g_chunks)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "#pragma omp taskloop grainsize(4)\n"
                                                   "    for (int i = 0; i < 10; ++i)\n"
                                                   "      work(i);\n" REGION_TAIL,
                                       &set);
    /* every chunk holds at least 4 iterations: at most 2, each may be the last */
    cr_assert_eq(created_at(g, 6), 2);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 2);
    ompdag_condag_set_destroy(set);
}

Test(taskloop, strict_grainsize_is_exact_with_a_shorter_last_chunk)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "#pragma omp taskloop grainsize(strict: 4)\n"
                                                   "    for (int i = 0; i < 10; ++i)\n"
                                                   "      work(i);\n" REGION_TAIL,
                                       &set);
    cr_assert_eq(created_at(g, 6), 3); /* 4 + 4 + 2 */
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 0);
    ompdag_condag_set_destroy(set);
}

Test(taskloop, no_clause_gives_at_most_one_chunk_per_iteration)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "#pragma omp taskloop simd reduction(+: n)\n"
                                                   "    for (int i = 0; i < 5; ++i)\n"
                                                   "      n += i;\n" REGION_TAIL,
                                       &set);
    cr_assert_eq(created_at(g, 6), 5);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 5);
    ompdag_condag_set_destroy(set);
}

Test(taskloop, a_body_with_tasks_is_unrolled_as_at_most_the_chunk_size)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "#pragma omp taskloop num_tasks(2)\n"
                                                   "    for (int i = 0; i < 6; ++i) {\n"
                                                   "#pragma omp task\n"
                                                   "      work(i);\n"
                                                   "#pragma omp taskwait\n"
                                                   "    }\n" REGION_TAIL,
                                       &set);
    /* 2 chunks; a chunk holds at most 6 - 2 + 1 = 5 iterations (the spec does
     * not require balanced chunks) */
    cr_assert_eq(created_at(g, 6), 2);
    cr_assert_eq(created_at(g, 8), 10);
    cr_assert_eq(ompdag_condag_task_count(g), 1 + 2 + 10);
    ompdag_condag_set_destroy(set);
}

Test(taskloop, loop_bound_bounds_a_variable_trip_count)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "#pragma omp taskloop grainsize(2)\n"
                                                   "#pragma ompdag loop_bound(7)\n"
                                                   "    for (int i = 0; i < n; ++i)\n"
                                                   "      work(i);\n" REGION_TAIL,
                                       &set);
    cr_assert_eq(created_at(g, 6), 3); /* at most 7 / 2 */
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 3);
    ompdag_condag_set_destroy(set);
}

Test(taskloop, num_tasks_bounds_a_folding_body_without_a_trip_count)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "#pragma omp taskloop num_tasks(4)\n"
                                                   "    for (int i = 0; i < n; ++i)\n"
                                                   "      work(i);\n" REGION_TAIL,
                                       &set);
    cr_assert_eq(created_at(g, 6), 4);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 4); /* n may be below 4 */
    ompdag_condag_set_destroy(set);
}

Test(taskloop, clause_arguments_may_be_constant_expressions)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("#define NT 3\n"
                                       "void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel\n"
                                       "#pragma omp single\n"
                                       "#pragma omp taskloop num_tasks(NT * 2)\n"
                                       "  for (int i = 0; i < 10; ++i)\n"
                                       "    work(i);\n"
                                       "}\n",
                                       &set);
    cr_assert_eq(created_at(g, 6), 6);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 0);
    ompdag_condag_set_destroy(set);
}

/* ---- the implicit taskgroup, undeferred chunks ----------------------------------------- */

Test(taskloop, nogroup_has_no_wait)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "#pragma omp taskloop nogroup num_tasks(2)\n"
                                                   "    for (int i = 0; i < 4; ++i)\n"
                                                   "      work(i);\n"
                                                   "#pragma omp taskwait\n" REGION_TAIL,
                                       &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "9");
    ompdag_condag_set_destroy(set);
}

Test(taskloop, the_taskgroup_waits_for_every_chunk)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "#pragma omp taskloop num_tasks(2)\n"
                                                   "    for (int i = 0; i < 4; ++i)\n"
                                                   "      work(i);\n" REGION_TAIL,
                                       &set);
    cr_assert_str_eq(fe_test_wedges(g, buf, sizeof buf), "6>6,6>6");
    ompdag_condag_set_destroy(set);
}

Test(taskloop, if_false_makes_every_chunk_undeferred)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "#pragma omp taskloop num_tasks(2) if(n > 3)\n"
                                                   "    for (int i = 0; i < 4; ++i)\n"
                                                   "      work(i);\n" REGION_TAIL,
                                       &set);
    /* T W T W: each chunk's wait is also the taskgroup's (annotate could not
     * tell a W node of its own from the last chunk's: same line) */
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "6,6");
    ompdag_condag_set_destroy(set);
}

Test(taskloop, a_descendant_the_chunk_does_not_await_is_refused)
{
    fe_expect_refused(REGION_HEAD "#pragma omp taskloop num_tasks(2)\n"
                                  "    for (int i = 0; i < 4; ++i) {\n"
                                  "#pragma omp task\n"
                                  "      work(i);\n"
                                  "    }\n" REGION_TAIL,
                      6, "implicit taskgroup");
}

/* ---- combined forms -------------------------------------------------------------------- */

Test(taskloop, parallel_masked_taskloop_is_a_region)
{
    ompdag_condag_set *set;
    ompdag_condag *g =
        fe_expect_graph("void work(int);\n"
                        "void f(void) {\n"
                        "#pragma omp parallel masked taskloop num_tasks(2) num_threads(4)\n"
                        "  for (int i = 0; i < 8; ++i)\n"
                        "    work(i);\n"
                        "}\n",
                        &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "3,3");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "3");
    cr_assert_eq(ompdag_condag_threads(g), 4);
    ompdag_condag_set_destroy(set);
}

Test(taskloop, parallel_master_taskloop_simd_with_a_loop_bound)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(int n) {\n"
                                       "#pragma omp parallel master taskloop simd grainsize(2)\n"
                                       "#pragma ompdag loop_bound(4)\n"
                                       "  for (int i = 0; i < n; ++i)\n"
                                       "    work(i);\n"
                                       "}\n",
                                       &set);
    cr_assert_eq(created_at(g, 3), 2);
    ompdag_condag_set_destroy(set);
}

Test(taskloop, masked_taskloop_in_a_parallel_block)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel\n"
                                       "  {\n"
                                       "#pragma omp masked taskloop num_tasks(3)\n"
                                       "    for (int i = 0; i < 9; ++i)\n"
                                       "      work(i);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "5,5,5");
    ompdag_condag_set_destroy(set);
}

Test(taskloop, stacked_master_taskloop_on_the_parallel)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel\n"
                                       "#pragma omp master taskloop num_tasks(2)\n"
                                       "  for (int i = 0; i < 9; ++i)\n"
                                       "    work(i);\n"
                                       "}\n",
                                       &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "4,4");
    ompdag_condag_set_destroy(set);
}

Test(taskloop, taskloop_inside_a_task)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "#pragma omp task\n"
                                                   "    {\n"
                                                   "#pragma omp taskloop num_tasks(2)\n"
                                                   "      for (int i = 0; i < 4; ++i)\n"
                                                   "        work(i);\n"
                                                   "    }\n" REGION_TAIL,
                                       &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "6,8,8");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "8");
    ompdag_condag_set_destroy(set);
}

/* ---- refusals, by name ----------------------------------------------------------------- */

Test(taskloop, masked_taskloop_inside_a_task_region_is_refused)
{
    fe_expect_refused(REGION_HEAD "#pragma omp masked taskloop num_tasks(2)\n"
                                  "    for (int i = 0; i < 4; ++i)\n"
                                  "      work(i);\n" REGION_TAIL,
                      6, "master and masked may not be nested");
}

Test(taskloop, a_variable_trip_count_without_a_bound_names_loop_bound)
{
    fe_expect_refused(REGION_HEAD "#pragma omp taskloop grainsize(2)\n"
                                  "    for (int i = 0; i < n; ++i)\n"
                                  "      work(i);\n" REGION_TAIL,
                      7, "loop_bound(N)");
}

Test(taskloop, collapse_is_refused_by_name)
{
    fe_expect_refused(REGION_HEAD "#pragma omp taskloop collapse(2) num_tasks(2)\n"
                                  "    for (int i = 0; i < 4; ++i)\n"
                                  "      for (int j = 0; j < 4; ++j)\n"
                                  "        work(i + j);\n" REGION_TAIL,
                      6, "collapse");
}

Test(taskloop, an_unknown_clause_is_refused_by_name)
{
    fe_expect_refused(REGION_HEAD "#pragma omp taskloop num_tasks(2) bogus(3)\n"
                                  "    for (int i = 0; i < 4; ++i)\n"
                                  "      work(i);\n" REGION_TAIL,
                      6, "unsupported clause 'bogus'");
}

Test(taskloop, taskloop_run_by_every_thread_of_a_team)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel num_threads(2)\n"
                                       "  {\n"
                                       "#pragma omp taskloop num_tasks(2)\n"
                                       "    for (int i = 0; i < 4; ++i)\n"
                                       "      work(i);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    /* each of the 2 implicit tasks (fe_team.c) runs the taskloop */
    cr_assert_eq(created_at(g, 5), 4);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "5,5");
    ompdag_condag_set_destroy(set);
}

/* A taskloop every thread runs beside a single makes the region a team
 * graph (test_team_loop.c), which needs the team's size. */
Test(taskloop, taskloop_of_every_thread_beside_a_single_needs_the_team_size)
{
    fe_expect_refused("void work(int);\n"
                      "void f(void) {\n"
                      "#pragma omp parallel\n"
                      "  {\n"
                      "#pragma omp taskloop num_tasks(2)\n"
                      "    for (int i = 0; i < 4; ++i)\n"
                      "      work(i);\n"
                      "    work(9);\n"
                      "#pragma omp single\n"
                      "    work(0);\n"
                      "  }\n"
                      "}\n",
                      3, "constant num_threads(N)");
}

/* ---- a real run ------------------------------------------------------------------------ */

#if defined(OMPDAG_CLI_BIN) && defined(OMPDAG_PROBE_LIB_PATH) && defined(OMPDAG_CLANG_PATH)
static int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* tests/probe/progs/taskloop.c under the probe: every segment of the chunk
 * tasks maps onto the graph, and no run exceeds its bound (`check` names a
 * region whose clean observed response is above it [ompdag-refuted]; on a
 * loaded machine a region without a clean run is [ompdag-unmeasured], which
 * says nothing about the graph). */
Test(taskloop, real_runs_annotate_and_stay_below_the_bound, .timeout = 180)
{
    char dir[] = "/tmp/ompdag_taskloop_XXXXXX", cmd[8192];
    cr_assert_not_null(mkdtemp(dir));
    const char *src = fe_test_path("tests/probe/progs/taskloop.c");
    snprintf(cmd, sizeof cmd,
             "cd %s && %s -fopenmp -g -O1 -o prog %s && %s extract %s -o g.json && "
             "for a in 0 3 6; do for t in 2 3; do OMPDAG_PROBE_LIB=%s OMP_NUM_THREADS=$t %s run "
             "--quiet --trace t$a-$t.trace -- ./prog $a >/dev/null || exit 1; done; done && "
             "%s annotate g.json t*.trace -o a.json 2>err.txt && { %s check a.json --threads 2; "
             "%s check a.json --threads 3; } >check.txt 2>&1; ! grep ompdag-refuted check.txt",
             dir, OMPDAG_CLANG_PATH, src, OMPDAG_CLI_BIN, src, OMPDAG_PROBE_LIB_PATH,
             OMPDAG_CLI_BIN, OMPDAG_CLI_BIN, OMPDAG_CLI_BIN, OMPDAG_CLI_BIN);
    cr_assert_eq(sh(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "grep -q ' 0 unmapped' %s/err.txt", dir);
    cr_assert_eq(sh(cmd), 0, "every segment maps onto the graph");
    snprintf(cmd, sizeof cmd, "grep -c 'graph [0-9] main' %s/err.txt | grep -qx 3", dir);
    cr_assert_eq(sh(cmd), 0, "three regions annotated");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
}
#endif
