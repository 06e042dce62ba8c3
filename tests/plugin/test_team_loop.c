/*
 * tests/plugin/test_team_loop.c — team graphs (docs/plugin.md "Team graphs:
 * tasks from every thread") with a `taskloop` every thread runs
 * (plugin/fe_taskloop.c inside each implicit task) and `single` / `masked`
 * blocks inside the team (plugin/fe_team_single.c): the OpenMP Examples'
 * taskloop.2.c shape, the phase a single's barrier cuts, grainsize and
 * nogroup, single nowait, masked with and without filter, the bound of a
 * small case against a hand computation, and the refusals by name.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "fe_expect.h"
#include "ompdag/rta.h"

static char buf[4096];
#define LINES(g, k) fe_test_lines(g, k, buf, sizeof buf)
#define WEDGES(g) fe_test_wedges(g, buf, sizeof buf)

/* Number of nodes of `kind` at `line`. */
static int nodes_at(const ompdag_condag *g, ompdag_kind kind, int line)
{
    int n = 0;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        n += ompdag_condag_node_kind(g, v) == kind && ompdag_condag_node_loc(g, v).line == line;
    return n;
}

/* The label of the implicit task ("implicit task of thread k/P, phase j")
 * whose code holds the T nodes at `line`; every one must be in the same
 * implicit task.  NULL when there is none. */
static const char *implicit_task_of(const ompdag_condag *g, int line)
{
    const char *label = NULL;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_T ||
            ompdag_condag_node_loc(g, v).line != line)
            continue;
        int32_t creator = ompdag_condag_task_creator(g, ompdag_condag_node_task(g, v));
        const char *l = ompdag_condag_node_label(g, creator);
        cr_assert(!label || !strcmp(label, l), "T nodes of line %d in '%s' and '%s'", line, label,
                  l);
        label = l;
    }
    return label;
}

/* taskloop.2.c (OpenMP Examples, tasking) with num_threads(2) and N = 3:
 * each thread runs the first taskloop (at most 3 chunks, C node before each,
 * W for the implicit taskgroup); the single + taskloop is run here or not
 * by each thread (C at line 8), its taskloop the same chain.  The single's
 * barrier ends phase 1; phase 2 is the (empty) code between it and the
 * region's own barrier, as the runtime counts them. */
Test(team_loop, taskloop_2_every_thread_runs_the_taskloop_and_maybe_the_single)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel num_threads(2)\n"
                                       "  {\n"
                                       "#pragma omp taskloop\n"
                                       "    for (int i = 0; i < 3; ++i)\n"
                                       "      work(i);\n"
                                       "#pragma omp single\n"
                                       "#pragma omp taskloop\n"
                                       "    for (int i = 0; i < 3; ++i)\n"
                                       "      work(i);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 3), 4, "two phases of 2 implicit tasks");
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 5), 6, "3 chunks per thread");
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 9), 6, "the single's taskloop in each thread");
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_C, 5), 6);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_C, 8), 2, "single run by this thread?");
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_C, 9), 6);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "5,5,8,9,9", "tau1 waits at the single's barrier");
    cr_assert_eq(ompdag_condag_task_count(g), 1 + 4 + 6 + 6);
    /* tau1's 4 T nodes and W; per thread 3 C + 3 T + J + W for the
     * taskloop, the single's C and J around the same; one node per chunk
     * task and per empty phase task */
    cr_assert_eq(ompdag_condag_node_count(g), 5 + 2 * (3 + 3 + 2 + 1 + 3 + 3 + 2 + 1) + 12 + 2);
    /* each chunk is awaited by its own taskloop's W node, phase 1 by tau1 */
    cr_assert_str_eq(WEDGES(g), "3>8,3>8,5>5,5>5,5>5,5>5,5>5,5>5,9>9,9>9,9>9,9>9,9>9,9>9");
    ompdag_condag_set_destroy(set);
}

/* A single without nowait ends a phase at its implicit barrier: its tasks
 * are awaited there, with the tasks created before it, before any thread
 * goes on. */
Test(team_loop, a_single_barrier_cuts_a_phase)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel num_threads(2)\n"
                                       "  {\n"
                                       "#pragma omp task\n"
                                       "    work(1);\n"
                                       "#pragma omp single\n"
                                       "    {\n"
                                       "#pragma omp task\n"
                                       "      work(2);\n"
                                       "    }\n"
                                       "#pragma omp task\n"
                                       "    work(3);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 3), 4, "2 threads x 2 phases");
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_C, 7), 2);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 9), 2);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "7,7,7,14,14");
    cr_assert_str_eq(WEDGES(g), "3>7,3>7,5>7,5>7,9>7,9>7,12>14,12>14");
    cr_assert_eq(ompdag_condag_task_count(g), 1 + 4 + 2 + 2 + 2);
    ompdag_condag_set_destroy(set);
}

/* grainsize(2) of 5 iterations: at most 2 chunks (each >= 2 iterations) */
Test(team_loop, taskloop_grainsize_in_every_thread)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel num_threads(2)\n"
                                       "  {\n"
                                       "#pragma omp taskloop grainsize(2)\n"
                                       "    for (int i = 0; i < 5; ++i)\n"
                                       "      work(i);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 5), 4);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_C, 5), 4);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "5,5");
    ompdag_condag_set_destroy(set);
}

/* nogroup: no implicit taskgroup; the taskwait after it waits for the
 * chunks; num_tasks(2) of 4 iterations: exactly 2 chunks, no C node */
Test(team_loop, taskloop_nogroup_then_taskwait_in_every_thread)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel num_threads(2)\n"
                                       "  {\n"
                                       "#pragma omp taskloop num_tasks(2) nogroup\n"
                                       "    for (int i = 0; i < 4; ++i)\n"
                                       "      work(i);\n"
                                       "#pragma omp taskwait\n"
                                       "    work(9);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 5), 4);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 0);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "8,8");
    cr_assert_str_eq(WEDGES(g), "5>8,5>8,5>8,5>8");
    ompdag_condag_set_destroy(set);
}

/* single nowait: run here or not, no barrier, so one phase; the tasks it
 * creates are awaited at the region's end with the thread's others */
Test(team_loop, single_nowait_is_run_here_or_not_without_a_phase)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel num_threads(2)\n"
                                       "  {\n"
                                       "#pragma omp single nowait\n"
                                       "    {\n"
                                       "#pragma omp task\n"
                                       "      work(1);\n"
                                       "    }\n"
                                       "#pragma omp task\n"
                                       "    work(2);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 3), 2, "one phase");
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_C, 5), 2);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 7), 2);
    cr_assert_str_eq(WEDGES(g), "7>12,7>12,10>12,10>12");
    ompdag_condag_set_destroy(set);
}

/* A single nowait in a loop of the body (walked through fe_stmt.c): one C
 * node per iteration per thread. */
Test(team_loop, single_nowait_inside_a_loop)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel num_threads(2)\n"
                                       "  {\n"
                                       "#pragma omp task\n"
                                       "    work(0);\n"
                                       "    for (int i = 0; i < 2; ++i) {\n"
                                       "#pragma omp single nowait\n"
                                       "      {\n"
                                       "#pragma omp task\n"
                                       "        work(i);\n"
                                       "      }\n"
                                       "    }\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_C, 8), 4);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 10), 4);
    ompdag_condag_set_destroy(set);
}

/* masked runs in thread 0's implicit task only (the graph's thread 1),
 * exactly: no C node; masked taskloop likewise */
Test(team_loop, masked_runs_in_the_primary_thread_only)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel num_threads(3)\n"
                                       "  {\n"
                                       "#pragma omp task\n"
                                       "    work(0);\n"
                                       "#pragma omp masked\n"
                                       "    {\n"
                                       "#pragma omp task\n"
                                       "      work(1);\n"
                                       "    }\n"
                                       "#pragma omp master taskloop num_tasks(2)\n"
                                       "    for (int i = 0; i < 4; ++i)\n"
                                       "      work(i);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 5), 3);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 9), 1);
    cr_assert_str_eq(implicit_task_of(g, 9), "implicit task of thread 1/3, phase 1");
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 12), 2);
    cr_assert_str_eq(implicit_task_of(g, 12), "implicit task of thread 1/3, phase 1");
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 0);
    ompdag_condag_set_destroy(set);
}

/* filter(1): OpenMP thread 1, the graph's thread 2; filter(7) names no
 * thread of the team; a filter that is no constant may pick any thread */
Test(team_loop, masked_filter_picks_the_thread)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(int n) {\n"
                                       "#pragma omp parallel num_threads(3)\n"
                                       "  {\n"
                                       "#pragma omp task\n"
                                       "    work(0);\n"
                                       "#pragma omp masked filter(1)\n"
                                       "    {\n"
                                       "#pragma omp task\n"
                                       "      work(1);\n"
                                       "    }\n"
                                       "#pragma omp masked filter(7)\n"
                                       "    {\n"
                                       "#pragma omp task\n"
                                       "      work(2);\n"
                                       "    }\n"
                                       "#pragma omp masked filter(n)\n"
                                       "    {\n"
                                       "#pragma omp task\n"
                                       "      work(3);\n"
                                       "    }\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_str_eq(implicit_task_of(g, 9), "implicit task of thread 2/3, phase 1");
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 9), 1);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 14), 0);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_C, 17), 3);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 19), 3);
    ompdag_condag_set_destroy(set);
}

/* Tasks after a single's barrier (a second task system before) are the
 * team's second phase. */
Test(team_loop, tasks_after_the_single_barrier_are_the_next_phase)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void solve(int);\n"
                                       "void run(int n) {\n"
                                       "#pragma omp parallel num_threads(2)\n"
                                       "  {\n"
                                       "#pragma omp single\n"
                                       "#pragma omp task\n"
                                       "    solve(n);\n"
                                       "#pragma omp task\n"
                                       "    solve(n);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 3), 4, "2 phases");
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 6), 2);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 8), 2);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "5,5,5,10,10");
    ompdag_condag_set_destroy(set);
}

/* A barrier after the block's last statement, then the region's own: the
 * runtime passes both, so the graph has an empty phase between them. */
Test(team_loop, a_trailing_barrier_leaves_an_empty_last_phase)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel num_threads(2)\n"
                                       "  {\n"
                                       "#pragma omp task\n"
                                       "    work(1);\n"
                                       "#pragma omp barrier\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 3), 4, "2 threads x 2 phases");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "7,7,7");
    cr_assert_eq(ompdag_condag_task_count(g), 1 + 4 + 2);
    ompdag_condag_set_destroy(set);
}

/* A grandchild its parent does not await in a single ending the block: no
 * W node may stand for the single's barrier, and the empty phase after it
 * has nothing to order, so it is left out (no refusal). */
Test(team_loop, an_unawaited_grandchild_drops_the_empty_last_phase)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel num_threads(2)\n"
                                       "  {\n"
                                       "#pragma omp task\n"
                                       "    work(0);\n"
                                       "#pragma omp single\n"
                                       "    {\n"
                                       "#pragma omp task\n"
                                       "      {\n"
                                       "#pragma omp task\n"
                                       "        work(1);\n"
                                       "      }\n"
                                       "    }\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 3), 2, "one phase");
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 11), 2);
    ompdag_condag_set_destroy(set);
}

/* The same grandchild before a single's barrier that code follows: refused. */
Test(team_loop, an_unawaited_grandchild_before_a_single_barrier_is_refused)
{
    fe_expect_refused("void work(int);\n"
                      "void f(void) {\n"
                      "#pragma omp parallel num_threads(2)\n"
                      "  {\n"
                      "#pragma omp single\n"
                      "    {\n"
                      "#pragma omp task\n"
                      "      {\n"
                      "#pragma omp task\n"
                      "        work(1);\n"
                      "      }\n"
                      "    }\n"
                      "#pragma omp task\n"
                      "    work(2);\n"
                      "  }\n"
                      "}\n",
                      5, "the barrier waits for every task of the team");
}

/* ---- the bound against a hand computation --------------------------------------------- */

/* WCETs by source line: the single's task body (line 8) 100, the task of
 * phase 2 (line 11) 10, everything else 0; m = 2. */
static int64_t single_then_task_bound(void)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel num_threads(2)\n"
                                       "  {\n"
                                       "#pragma omp single\n"
                                       "    {\n"
                                       "#pragma omp task\n"
                                       "      work(1);\n"
                                       "    }\n"
                                       "#pragma omp task\n"
                                       "    work(2);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    ompdag_error err;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        int line = ompdag_condag_node_loc(g, v).line;
        int64_t c = line == 8 ? 100 : line == 11 ? 10 : 0;
        cr_assert_eq(ompdag_condag_assign_wcet(g, v, c, &err), OMPDAG_OK, "%s", err.message);
    }
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_N, 8), 2, "the single's task in both threads");
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 2);
    ompdag_rta_result *r = NULL;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    int64_t b = ompdag_rta_result_bound_times_m(r);
    ompdag_rta_result_destroy(r);
    ompdag_condag_set_destroy(set);
    return b;
}

Test(team_loop, bound_of_a_single_then_tasks_by_hand)
{
    /* Worst flow: both threads run the single (the model's over-
     * approximation; the program runs it once: vol 120, len 110, 230).
     * vol = 100 + 100 + 10 + 10 = 220; the barrier orders phase 2 after
     * the single's tasks: len = 100 + 10 = 110.  m·R = 220 + (2-1)·110. */
    int64_t b = single_then_task_bound();
    cr_assert_eq(b, 330, "m·R = %lld", (long long)b);
}

/* ---- refusals, by name -------------------------------------------------------------------- */

Test(team_loop, a_single_without_nowait_in_a_branch_is_refused)
{
    fe_expect_refused("void work(int);\n"
                      "void f(int n) {\n"
                      "#pragma omp parallel num_threads(2)\n"
                      "  {\n"
                      "#pragma omp task\n"
                      "    work(0);\n"
                      "    if (n) {\n"
                      "#pragma omp single\n"
                      "      work(1);\n"
                      "    }\n"
                      "  }\n"
                      "}\n",
                      8, "'#pragma omp single' without nowait inside a branch");
}

Test(team_loop, a_single_inside_an_explicit_task_of_a_team_is_refused)
{
    fe_expect_refused("void work(int);\n"
                      "void f(void) {\n"
                      "#pragma omp parallel num_threads(2)\n"
                      "  {\n"
                      "#pragma omp task\n"
                      "    {\n"
                      "#pragma omp single nowait\n"
                      "      work(1);\n"
                      "    }\n"
                      "  }\n"
                      "}\n",
                      7, "may not be nested inside a task");
}

Test(team_loop, a_worksharing_loop_stacked_on_a_single_is_refused)
{
    fe_expect_refused("void work(int);\n"
                      "void f(void) {\n"
                      "#pragma omp parallel num_threads(2)\n"
                      "  {\n"
                      "#pragma omp task\n"
                      "    work(0);\n"
                      "#pragma omp single\n"
                      "#pragma omp for\n"
                      "    for (int i = 0; i < 2; ++i)\n"
                      "      work(i);\n"
                      "  }\n"
                      "}\n",
                      8, "closely nested");
}

Test(team_loop, an_unknown_single_clause_is_refused_by_name)
{
    fe_expect_refused("void work(int);\n"
                      "void f(void) {\n"
                      "#pragma omp parallel num_threads(2)\n"
                      "  {\n"
                      "#pragma omp task\n"
                      "    work(0);\n"
                      "#pragma omp single bogus(1)\n"
                      "    {\n"
                      "#pragma omp task\n"
                      "      work(1);\n"
                      "    }\n"
                      "  }\n"
                      "}\n",
                      7, "with a bogus clause");
}

/* OpenMP Examples taskloop.2.c (T = 16, N = 1024), with its own macros:
 * 16 implicit tasks, each with the taskloop's 1024 chunks and the single's
 * 1024 (at most N chunks without grainsize/num_tasks). */
Test(team_loop, the_examples_taskloop_2_extracts)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("#define T 16\n"
                                       "#define N 1024\n"
                                       "void parallel_work() {\n"
                                       "    int x1 = 0, x2 = 0;\n"
                                       "    #pragma omp parallel shared(x1,x2) num_threads(T)\n"
                                       "    {\n"
                                       "        #pragma omp taskloop\n"
                                       "        for (int i = 0; i < N; ++i) {\n"
                                       "            #pragma omp atomic\n"
                                       "            x1++;\n"
                                       "        }\n"
                                       "        #pragma omp single\n"
                                       "        #pragma omp taskloop\n"
                                       "        for (int i = 0; i < N; ++i) {\n"
                                       "            #pragma omp atomic\n"
                                       "            x2++;\n"
                                       "        }\n"
                                       "    }\n"
                                       "}\n",
                                       &set);
    cr_assert_eq(ompdag_condag_threads(g), 16);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 7), 16 * 1024);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_C, 12), 16);
    cr_assert_eq(nodes_at(g, OMPDAG_KIND_T, 13), 16 * 1024);
    cr_assert_eq(ompdag_condag_task_count(g), 1 + 2 * 16 + 2 * 16 * 1024);
    /* tau1's 2 x 16 T nodes and W; per thread two chains of 1024 C + 1024
     * T + J + W and the single's C and J; one node per chunk task and per
     * empty phase task (after the single's barrier) */
    cr_assert_eq(ompdag_condag_node_count(g),
                 2 * 16 + 1 + 16 * (2 * (1024 + 1024 + 2) + 2) + 2 * 16 * 1024 + 16);
    ompdag_condag_set_destroy(set);
}
