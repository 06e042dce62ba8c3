/*
 * tests/plugin/test_constructs.c — single constructs on small inline
 * sources: loops (trip counts, break/continue), ?:, pragma placement,
 * skipped #if blocks, refusals, and graphs the model must accept.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fe_expect.h"

static char buf[4096];
#define LINES(g, k) fe_test_lines(g, k, buf, sizeof buf)
#define WEDGES(g) fe_test_wedges(g, buf, sizeof buf)

#define REGION_HEAD                                                                                \
    "void work(int);\n"                                                                            \
    "void f(int n) {\n"                                                                            \
    "#pragma omp parallel\n"                                                                       \
    "#pragma omp single\n"                                                                         \
    "  {\n"
/* line 6 is the first line of the single block */
#define REGION_TAIL "  }\n}\n"

Test(loops, step_and_inclusive_bound)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "    for (int i = 10; i >= 0; i -= 3) {\n"
                                                   "#pragma omp task\n"
                                                   "      work(i);\n"
                                                   "    }\n" REGION_TAIL,
                                       &set);
    /* i = 10, 7, 4, 1 */
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "7,7,7,7");
    ompdag_condag_set_destroy(set);
}

Test(loops, variable_written_in_body_is_not_constant)
{
    fe_expect_refused(REGION_HEAD "    for (int i = 0; i < 4; ++i) {\n"
                                  "#pragma omp task\n"
                                  "      work(i);\n"
                                  "      i += n;\n"
                                  "    }\n" REGION_TAIL,
                      6, "loop_bound");
}

Test(loops, break_and_continue_in_unrolled_loop)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "    for (int i = 0; i < 3; ++i) {\n"
                                                   "#pragma omp task\n"
                                                   "      work(i);\n"
                                                   "      if (n == i) {\n"
                                                   "#pragma omp taskwait\n"
                                                   "        break;\n"
                                                   "      }\n"
                                                   "      if (n > i) {\n"
                                                   "#pragma omp taskwait\n"
                                                   "        continue;\n"
                                                   "      }\n"
                                                   "    }\n"
                                                   "#pragma omp taskwait\n" REGION_TAIL,
                                       &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "7,7,7");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_C), "9,9,9,13,13,13");
    /* taskwait at line 10 of iteration k waits for the task of iteration k;
     * the final taskwait (line 18) is reached by every path */
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "10,10,10,14,14,14,18");
    ompdag_condag_set_destroy(set);
}

Test(loops, zero_trip_loop_makes_no_task)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "    for (int i = 0; i < 0; ++i) {\n"
                                                   "#pragma omp task\n"
                                                   "      work(i);\n"
                                                   "    }\n"
                                                   "    work(1);\n" REGION_TAIL,
                                       &set);
    cr_assert_eq(ompdag_condag_task_count(g), 1);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_T), 0);
    ompdag_condag_set_destroy(set);
}

Test(loops, loop_bound_must_precede_a_loop)
{
    fe_expect_refused(REGION_HEAD "#pragma ompdag loop_bound(3)\n"
                                  "    work(1);\n"
                                  "#pragma omp task\n"
                                  "    work(2);\n" REGION_TAIL,
                      6, "must precede a loop");
}

Test(branches, plain_branches_fold_into_one_node)
{
    ompdag_condag_set *set;
    ompdag_condag *g =
        fe_expect_graph(REGION_HEAD "    if (n) work(1); else { work(2); work(3); }\n"
                                    "    for (int i = 0; i < n; ++i) work(i);\n"
                                    "#pragma omp task\n"
                                    "    work(4);\n" REGION_TAIL,
                        &set);
    /* everything before the task is one T node; the task body one N node */
    cr_assert_eq(ompdag_condag_node_count(g), 2);
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_C), 0);
    ompdag_condag_set_destroy(set);
}

Test(branches, if_without_else_and_task_in_then)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "    if (n > 1)\n"
                                                   "#pragma omp task\n"
                                                   "      work(1);\n"
                                                   "#pragma omp taskwait\n" REGION_TAIL,
                                       &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_C), "6");
    cr_assert_str_eq(WEDGES(g), "7>9");
    ompdag_condag_set_destroy(set);
}

Test(pragmas, skipped_if0_blocks_are_ignored)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "#if 0\n"
                                                   "#pragma omp task depend(in: n)\n"
                                                   "#endif\n"
                                                   "#pragma omp task\n"
                                                   "    work(1);\n" REGION_TAIL,
                                       &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "9");
    ompdag_condag_set_destroy(set);
}

Test(pragmas, openmp_macro_is_defined)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "#ifdef _OPENMP\n"
                                                   "#pragma omp task\n"
                                                   "    work(1);\n"
                                                   "#endif\n" REGION_TAIL,
                                       &set);
    cr_assert_eq(ompdag_condag_task_count(g), 2);
    ompdag_condag_set_destroy(set);
}

Test(pragmas, underscore_pragma_is_refused)
{
    fe_expect_refused(REGION_HEAD "    _Pragma(\"omp task\") work(1);\n" REGION_TAIL, 6, "_Pragma");
}

Test(pragmas, unknown_ompdag_directive_is_refused)
{
    fe_expect_refused("#pragma ompdag wcet(5)\nvoid f(void) {}\n", 1, "unknown directive");
}

Test(regions, parallel_for_without_tasks_has_no_graph)
{
    ompdag_condag_set *set = NULL;
    ompdag_status st = fe_test_extract_source("void f(int *a) {\n"
                                              "#pragma omp parallel for\n"
                                              "  for (int i = 0; i < 8; ++i) a[i] = i;\n"
                                              "}\n",
                                              &set, NULL, NULL);
    cr_assert_eq(st, OMPDAG_OK);
    cr_assert_eq(ompdag_condag_set_count(set), 0);
    ompdag_condag_set_destroy(set);
}

Test(regions, two_regions_two_graphs)
{
    ompdag_condag_set *set = NULL;
    ompdag_status st = fe_test_extract_source("void work(int);\n"
                                              "void f(void) {\n"
                                              "#pragma omp parallel master\n"
                                              "  {\n"
                                              "#pragma omp task\n"
                                              "    work(1);\n"
                                              "  }\n"
                                              "#pragma omp parallel\n"
                                              "  {\n"
                                              "    work(0);\n"
                                              "#pragma omp masked\n"
                                              "    work(2);\n"
                                              "  }\n"
                                              "}\n",
                                              &set, NULL, NULL);
    cr_assert_eq(st, OMPDAG_OK);
    cr_assert_eq(ompdag_condag_set_count(set), 2);
    cr_assert_eq(ompdag_condag_region_loc(ompdag_condag_set_graph(set, 0)).line, 3);
    cr_assert_eq(ompdag_condag_region_loc(ompdag_condag_set_graph(set, 1)).line, 8);
    cr_assert_eq(ompdag_condag_task_count(ompdag_condag_set_graph(set, 0)), 2);
    ompdag_condag_set_destroy(set);
}

Test(regions, nested_parallel_is_refused)
{
    fe_expect_refused(REGION_HEAD "#pragma omp parallel\n"
                                  "    work(1);\n" REGION_TAIL,
                      6, "nested");
}

Test(regions, return_out_of_a_task_is_refused)
{
    fe_expect_refused(REGION_HEAD "#pragma omp task\n"
                                  "    {\n"
                                  "#pragma omp task\n"
                                  "      work(1);\n"
                                  "      return;\n"
                                  "    }\n" REGION_TAIL,
                      10, "leaves a task body");
}

Test(regions, parse_errors_are_reported)
{
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    ompdag_status st = fe_test_extract_source("void f(void) { int x = ; }\n", &set, &fe, NULL);
    cr_assert_eq(st, OMPDAG_ERR_PARSE);
    cr_assert_null(set);
    cr_assert(ompdag_frontend_diag_count(fe) >= 1);
    cr_assert_eq(ompdag_frontend_diag_at(fe, 0)->loc.line, 1);
    ompdag_frontend_destroy(fe);
}

Test(regions, compiler_arguments_reach_the_parser)
{
    const char *src = REGION_HEAD "#if TASKS\n"
                                  "#pragma omp task\n"
                                  "    work(1);\n"
                                  "#endif\n" REGION_TAIL;
    ompdag_condag_set *set = NULL;
    const char *args[] = {"-DTASKS=1", "-fopenmp", "-c", "-o", "x.o"};
    char path[128];
    cr_assert(fe_test_write(src, "src.c", path));
    ompdag_status st = fe_test_extract(path, args, 5, 0, &set, NULL);
    cr_assert_eq(st, OMPDAG_OK);
    cr_assert_eq(ompdag_condag_task_count(ompdag_condag_set_graph(set, 0)), 2);
    ompdag_condag_set_destroy(set);
    st = fe_test_extract(path, NULL, 0, 0, &set, NULL);
    cr_assert_eq(ompdag_condag_task_count(ompdag_condag_set_graph(set, 0)), 1);
    ompdag_condag_set_destroy(set);
    fe_test_remove(path);
}

Test(regions, openmp_version_sets_the_macro)
{
    const char *src = REGION_HEAD "#if _OPENMP >= 201811\n"
                                  "#pragma omp task\n"
                                  "    work(1);\n"
                                  "#endif\n" REGION_TAIL;
    char path[128];
    cr_assert(fe_test_write(src, "src.c", path));
    ompdag_condag_set *set = NULL;
    const char *v45[] = {"-fopenmp", "-fopenmp-version=45"};
    cr_assert_eq(fe_test_extract(path, v45, 2, 0, &set, NULL), OMPDAG_OK);
    cr_assert_eq(ompdag_condag_task_count(ompdag_condag_set_graph(set, 0)), 1);
    ompdag_condag_set_destroy(set);
    cr_assert_eq(fe_test_extract(path, NULL, 0, 0, &set, NULL), OMPDAG_OK);
    cr_assert_eq(ompdag_condag_task_count(ompdag_condag_set_graph(set, 0)), 2);
    ompdag_condag_set_destroy(set);
    fe_test_remove(path);
}

Test(regions, function_deadline_and_masked)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "#pragma ompdag deadline(250us)\n"
                                       "void f(int n) {\n"
                                       "#pragma omp parallel num_threads(8)\n"
                                       "#pragma omp masked\n"
                                       "  {\n"
                                       "#pragma omp task\n"
                                       "    work(n);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_str_eq(json_string_value(json_object_get(ompdag_condag_extra(g, -1), "deadline")),
                     "250us");
    cr_assert_eq(ompdag_condag_threads(g), 8);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "7");
    ompdag_condag_set_destroy(set);
}

Test(loops, do_while_with_loop_bound)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "#pragma ompdag loop_bound(2)\n"
                                                   "    do {\n"
                                                   "#pragma omp task\n"
                                                   "      work(n);\n"
                                                   "    } while (--n > 0);\n"
                                                   "#pragma omp taskwait\n" REGION_TAIL,
                                       &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "8,8");
    cr_assert_str_eq(WEDGES(g), "8>11,8>11");
    ompdag_condag_set_destroy(set);
}

Test(branches, conditional_operator_with_task_creating_calls)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "static int spawn(int x) {\n"
                                       "#pragma omp task\n"
                                       "  work(x);\n"
                                       "  return x;\n"
                                       "}\n"
                                       "void f(int n) {\n"
                                       "#pragma omp parallel\n"
                                       "#pragma omp single\n"
                                       "  {\n"
                                       "    int r = n ? spawn(1) : spawn(2);\n"
                                       "#pragma omp taskwait\n"
                                       "    work(r);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_C), "11");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "3,3");
    cr_assert_eq(fe_test_count(g, OMPDAG_KIND_J), 1);
    cr_assert_str_eq(WEDGES(g), "3>12,3>12");
    ompdag_condag_set_destroy(set);
}

Test(calls, helper_in_a_header_is_inlined)
{
    char dir[] = "/tmp/ompdag_fe_hdr_XXXXXX", path[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/helper.h", dir);
    FILE *h = fopen(path, "w");
    fputs("void work(int);\n"
          "static inline void two(int n) {\n"
          "#pragma omp task\n"
          "  work(n);\n"
          "#pragma omp task\n"
          "  work(n + 1);\n"
          "}\n",
          h);
    fclose(h);
    snprintf(path, sizeof path, "%s/main.c", dir);
    FILE *c = fopen(path, "w");
    fputs("#include \"helper.h\"\n"
          "void f(int n) {\n"
          "#pragma omp parallel\n"
          "#pragma omp single\n"
          "  {\n"
          "    two(n);\n"
          "#pragma omp taskwait\n"
          "  }\n"
          "}\n",
          c);
    fclose(c);
    ompdag_condag_set *set = NULL;
    cr_assert_eq(fe_test_extract(path, NULL, 0, 0, &set, NULL), OMPDAG_OK);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "3,5");
    cr_assert_str_eq(WEDGES(g), "3>7,5>7");
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T)
            cr_assert(strstr(ompdag_condag_node_loc(g, v).file, "helper.h"),
                      "T nodes point into the header");
    ompdag_condag_set_destroy(set);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(calls, recursion_beyond_the_bound_is_dropped)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "#pragma ompdag recursion_bound(2)\n"
                                       "static void r(int n) {\n"
                                       "#pragma omp task\n"
                                       "  r(n - 1);\n"
                                       "}\n"
                                       "void f(int n) {\n"
                                       "#pragma omp parallel\n"
                                       "#pragma omp single\n"
                                       "  r(n);\n"
                                       "}\n",
                                       &set);
    /* r in τ1 creates t2, whose r creates t3, whose call is the third */
    cr_assert_eq(ompdag_condag_task_count(g), 3);
    ompdag_condag_set_destroy(set);
}

Test(refusals_inline, nowait_on_taskwait_and_unknown_clause)
{
    /* taskwait depend is modelled (test_depend_fe.c); with nowait it is no wait */
    fe_expect_refused(REGION_HEAD "#pragma omp task\n"
                                  "    work(1);\n"
                                  "#pragma omp taskwait depend(in: n) nowait\n" REGION_TAIL,
                      8, "taskwait with a nowait clause");
    fe_expect_refused(REGION_HEAD "#pragma omp task bogus(3)\n"
                                  "    work(1);\n" REGION_TAIL,
                      6, "unsupported task clause 'bogus'");
}

Test(refusals_inline, loop_with_task_calls_in_its_condition)
{
    fe_expect_refused("void work(int);\n"
                      "static int more(int n) {\n"
                      "#pragma omp task\n"
                      "  work(n);\n"
                      "  return n > 0;\n"
                      "}\n"
                      "void f(int n) {\n"
                      "#pragma omp parallel\n"
                      "#pragma omp single\n"
                      "  while (more(n)) n--;\n"
                      "}\n",
                      10, "loop condition");
}

Test(calls, function_pointer_to_a_task_creating_function_is_refused)
{
    fe_expect_refused("void work(int);\n"
                      "static void spawn(int n) {\n"
                      "#pragma omp task\n"
                      "  work(n);\n"
                      "}\n"
                      "void (*fp)(int) = spawn;\n"
                      "void f(int n) {\n"
                      "#pragma omp parallel\n"
                      "#pragma omp single\n"
                      "  fp(n);\n"
                      "}\n",
                      10, "function pointer");
}

Test(calls, function_pointer_to_plain_code_is_plain)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "static void quiet(int n) { work(n); }\n"
                                       "static void spawn(int n) {\n"
                                       "#pragma omp task\n"
                                       "  work(n);\n"
                                       "}\n"
                                       "void (*fp)(int) = quiet;\n"
                                       "void f(int n) {\n"
                                       "#pragma omp parallel\n"
                                       "#pragma omp single\n"
                                       "  {\n"
                                       "    fp(n);\n"
                                       "    spawn(n);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "4");
    ompdag_condag_set_destroy(set);
}

Test(regions, code_after_the_single_barrier_is_outside_the_graph)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(int n) {\n"
                                       "#pragma omp parallel\n"
                                       "  {\n"
                                       "    work(0);\n"
                                       "#pragma omp single\n"
                                       "    {\n"
                                       "#pragma omp task\n"
                                       "      work(1);\n"
                                       "    }\n"
                                       "    work(2);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "8");
    /* the graph ends at the single's barrier: work(2) runs after every task,
     * on the implicit tasks, and is not part of the con-DAG */
    cr_assert_str_eq(WEDGES(g), "");
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_W), "");
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        cr_assert_neq(ompdag_condag_node_loc(g, v).line, 11);
    ompdag_condag_set_destroy(set);
}

Test(regions, code_after_master_without_barrier_is_refused)
{
    fe_expect_refused("void work(int);\n"
                      "void f(int n) {\n"
                      "#pragma omp parallel\n"
                      "  {\n"
                      "#pragma omp master\n"
                      "    {\n"
                      "#pragma omp task\n"
                      "      work(1);\n"
                      "    }\n"
                      "    work(2);\n"
                      "  }\n"
                      "}\n",
                      10, "master/masked");
}

Test(regions, code_after_single_with_unawaited_grandchild_is_accepted)
{
    /* the barrier completes every task, grandchildren included: the graph
     * ends there, so no task needs to await its own children */
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("void work(int);\n"
                                       "void f(int n) {\n"
                                       "#pragma omp parallel\n"
                                       "  {\n"
                                       "#pragma omp single\n"
                                       "    {\n"
                                       "#pragma omp task\n"
                                       "      {\n"
                                       "#pragma omp task\n"
                                       "        work(1);\n"
                                       "      }\n"
                                       "    }\n"
                                       "    work(2);\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "7,9");
    ompdag_condag_set_destroy(set);
}

Test(loops, unsigned_wraparound_never_ends)
{
    /* i >= 0 always holds for an unsigned variable: no constant trip count */
    fe_expect_refused(REGION_HEAD "    for (unsigned i = 3; i >= 0; i--) {\n"
                                  "#pragma omp task\n"
                                  "      work(1);\n"
                                  "    }\n" REGION_TAIL,
                      6, "more than 4096");
    fe_expect_refused(REGION_HEAD "    for (unsigned char c = 0; c < 300; c++) {\n"
                                  "#pragma omp task\n"
                                  "      work(1);\n"
                                  "    }\n" REGION_TAIL,
                      6, "more than 4096");
}

Test(loops, unsigned_counter_down_to_zero)
{
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "    for (unsigned long i = 3; i > 0; --i) {\n"
                                                   "#pragma omp task\n"
                                                   "      work(1);\n"
                                                   "    }\n" REGION_TAIL,
                                       &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "7,7,7");
    ompdag_condag_set_destroy(set);
}

Test(refusals_inline, nest_lock_inside_a_task)
{
    /* omp_set_lock is modelled (tests/plugin/test_mutex.c); nest locks are not */
    fe_expect_refused("#include <omp.h>\n"
                      "void work(int);\n"
                      "omp_nest_lock_t lock;\n"
                      "void f(int n) {\n"
                      "#pragma omp parallel\n"
                      "#pragma omp single\n"
                      "  {\n"
                      "#pragma omp task\n"
                      "    {\n"
                      "      omp_set_nest_lock(&lock);\n"
                      "      work(n);\n"
                      "      omp_unset_nest_lock(&lock);\n"
                      "    }\n"
                      "  }\n"
                      "}\n",
                      10, "'omp_set_nest_lock' in task code");
}

Test(pragmas, omp_h_parses_without_openmp)
{
    /* clang's omp.h has declare-variant blocks that only parse with
     * -fopenmp; the front end reads it as OpenMP 4.5 */
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph("#include <omp.h>\n"
                                       "void work(int);\n"
                                       "void f(void) {\n"
                                       "#pragma omp parallel\n"
                                       "#pragma omp single\n"
                                       "  {\n"
                                       "#pragma omp task\n"
                                       "    work(omp_get_thread_num() + omp_is_initial_device());\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "7");
    ompdag_condag_set_destroy(set);
}

Test(pragmas, continued_lines_and_comments)
{
    /* the clause on the continuation line belongs to the directive */
    fe_expect_refused(REGION_HEAD "  #  pragma   omp task /* spawn */ \\\n"
                                  "        shared(n) \\\n"
                                  "        depend(iterator(i = 0:n), in: n)\n"
                                  "    work(n); // the task\n" REGION_TAIL,
                      6, "depend(iterator(i = 0:n), in: n): the iterator's range");
    ompdag_condag_set *set;
    ompdag_condag *g = fe_expect_graph(REGION_HEAD "#pragma omp task \\\n"
                                                   "    untied // comment\n"
                                                   "    work(n);\n" REGION_TAIL,
                                       &set);
    cr_assert_str_eq(LINES(g, OMPDAG_KIND_T), "6");
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T)
            cr_assert(json_is_true(json_object_get(ompdag_condag_extra(g, v), "untied")));
    ompdag_condag_set_destroy(set);
}

/* DISPAR region classes (seed 001) for `ompdag map`: CG when the region says
 * so, launches a kernel, or offloads with a GPU body; CO otherwise. */
static const char *region_class_of(const char *src)
{
    ompdag_condag_set *set = NULL;
    ompdag_condag *g = fe_expect_graph(src, &set);
    static char cls[8];
    const char *c =
        json_string_value(json_object_get(ompdag_condag_extra(g, -1), "resource_class"));
    cr_assert_not_null(c, "no resource_class on the graph");
    snprintf(cls, sizeof cls, "%s", c);
    ompdag_condag_set_destroy(set);
    return cls;
}

#define OFFLOAD_DECL                                                                               \
    "typedef struct ompdag_offload_opts ompdag_offload_opts;\n"                                    \
    "int ompdag_offload_for(long, void (*)(long, long, void *), void *, void *, "                  \
    "ompdag_offload_opts *, void *, void *);\n"                                                    \
    "void cpu_body(long, long, void *);\n"                                                         \
    "void gpu_body(long, long, void *, void *);\n"

Test(classes, resource_pragma_and_offload_calls)
{
    cr_expect_str_eq(region_class_of(REGION_HEAD "#pragma omp task\n    work(1);\n" REGION_TAIL),
                     "CO");
    cr_expect_str_eq(
        region_class_of("void work(int);\nvoid f(int n) {\n#pragma ompdag resource(gpu)\n"
                        "#pragma omp parallel\n#pragma omp single\n  {\n"
                        "#pragma omp task\n    work(1);\n" REGION_TAIL),
        "CG");
    cr_expect_str_eq(
        region_class_of(OFFLOAD_DECL REGION_HEAD
                        "#pragma omp task\n"
                        "    ompdag_offload_for(n, cpu_body, gpu_body, 0, 0, 0, 0);\n" REGION_TAIL),
        "CG");
    cr_expect_str_eq(
        region_class_of(OFFLOAD_DECL REGION_HEAD
                        "#pragma omp task\n"
                        "    ompdag_offload_for(n, cpu_body, 0, 0, 0, 0, 0);\n" REGION_TAIL),
        "CO");
}
