/*
 * tests/plugin/test_mutex.c — mutual exclusion in task code (issue 25
 * item 3; plugin/fe_mutex.c, docs/mutex.md): critical sections (named and
 * unnamed) and omp_set_lock/omp_unset_lock become the locks of the node
 * that holds them, with a count (1, or unbounded in a loop or a helper);
 * the bound charges the blocking term; scheduling points inside a section,
 * a lock held across one, nested sections, nest locks and lock polling are
 * refused by name; the BOTS concom and health idioms extract.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_expect.h"
#include "ompdag/locks.h"
#include "ompdag/rta.h"

/* "name=count" of every lock of every node, sorted by node line: e.g.
 * "9:critical=1 12:omp_lock=unbounded". */
static const char *locks_of(const ompdag_condag *g, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    for (int line = 0; line < 200; ++line)
        for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
            if (ompdag_condag_node_loc(g, v).line != line) continue;
            for (int32_t i = 0; i < ompdag_condag_node_lock_count(g, v); ++i) {
                int64_t c = ompdag_condag_node_lock_acquisitions(g, v, i);
                char cnt[32];
                if (c == OMPDAG_LOCK_UNBOUNDED)
                    snprintf(cnt, sizeof cnt, "unbounded");
                else
                    snprintf(cnt, sizeof cnt, "%lld", (long long)c);
                n += (size_t)snprintf(buf + n, size - n, "%s%d:%s=%s", n ? " " : "", line,
                                      ompdag_condag_node_lock_name(g, v, i), cnt);
            }
        }
    return buf;
}

/* Gives every node WCET 10 and returns m·R at m. */
static int64_t bound_with_wcets(ompdag_condag *g, int32_t m)
{
    ompdag_error err;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        cr_assert_eq(ompdag_condag_assign_wcet(g, v, 10, &err), OMPDAG_OK);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    ompdag_rta_result *r = NULL;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    int64_t b = ompdag_rta_result_bound_times_m(r);
    ompdag_rta_result_destroy(r);
    return b;
}

#define HEAD                                                                                       \
    "#include <omp.h>\n"                                                                           \
    "void work(int);\n"                                                                            \
    "int hits, best;\n"                                                                            \
    "omp_lock_t lk;\n"                                                                             \
    "void f(int n) {\n"                                                                            \
    "#pragma omp parallel\n"                                                                       \
    "#pragma omp single\n"                                                                         \
    "  {\n"
/* line 9 is the first line of the single block */
#define TAIL "  }\n}\n"

Test(mutex, a_critical_section_in_two_tasks_is_a_lock_of_each_node_and_raises_the_bound)
{
    ompdag_condag_set *set = NULL;
    ompdag_condag *g = fe_expect_graph(HEAD "#pragma omp task\n"     /* 9 */
                                            "    {\n"                /* 10 */
                                            "      work(1);\n"       /* 11 */
                                            "#pragma omp critical\n" /* 12 */
                                            "      hits++;\n"        /* 13 */
                                            "    }\n"
                                            "#pragma omp task\n" /* 15 */
                                            "    {\n"
                                            "#pragma omp critical\n" /* 17 */
                                            "      hits++;\n"
                                            "    }\n" TAIL,
                                       &set);
    char buf[512];
    /* each task body is one node (loc: its opening brace) holding the lock once */
    cr_assert_str_eq(locks_of(g, buf, sizeof buf), "10:critical=1 16:critical=1");
    cr_assert(ompdag_condag_has_locks(g));
    /* m = 2, WCET 10 each: both task nodes wait at most min(1·1·10, 10) = 10 */
    int64_t with = bound_with_wcets(g, 2);
    json_t *j = ompdag_condag_to_json(g);
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "extensions"), 0)),
                     "locks", "old readers must refuse the file");
    json_decref(j);
    ompdag_condag_set_destroy(set);
    /* the same program without the critical sections */
    g = fe_expect_graph(HEAD "#pragma omp task\n"
                             "    {\n"
                             "      work(1);\n"
                             "      hits++;\n"
                             "    }\n"
                             "#pragma omp task\n"
                             "    {\n"
                             "      hits++;\n"
                             "    }\n" TAIL,
                        &set);
    cr_assert_not(ompdag_condag_has_locks(g));
    int64_t without = bound_with_wcets(g, 2);
    cr_assert_eq(with, without + 2 * 10 + 10, "two blocking terms of 10 (volume), one on the path");
    ompdag_condag_set_destroy(set);
}

Test(mutex, named_sections_are_distinct_locks)
{
    ompdag_condag_set *set = NULL;
    ompdag_condag *g = fe_expect_graph(HEAD "#pragma omp task\n"
                                            "    {\n"
                                            "#pragma omp critical(best)\n" /* 11 */
                                            "      best++;\n"
                                            "#pragma omp critical\n"
                                            "      hits++;\n"
                                            "    }\n" TAIL,
                                       &set);
    char buf[512];
    cr_assert_str_eq(locks_of(g, buf, sizeof buf), "10:critical(best)=1 10:critical=1");
    ompdag_condag_set_destroy(set);
    /* a hint may select a lock that is not FIFO: only the count-free term */
    g = fe_expect_graph(HEAD "#pragma omp task\n"
                             "    {\n"
                             "#pragma omp critical(best) hint(omp_sync_hint_contended)\n"
                             "      best++;\n"
                             "    }\n" TAIL,
                        &set);
    cr_assert_str_eq(locks_of(g, buf, sizeof buf), "10:critical(best)=unbounded");
    ompdag_condag_set_destroy(set);
}

Test(mutex, sections_in_loops_and_helpers_have_an_unbounded_count)
{
    ompdag_condag_set *set = NULL;
    ompdag_condag *g = fe_expect_graph("#include <omp.h>\n"
                                       "int hits;\n"
                                       "omp_lock_t lk;\n"
                                       "static void bump(void) {\n"
                                       "  omp_set_lock(&lk);\n"
                                       "  hits++;\n"
                                       "  omp_unset_lock(&lk);\n"
                                       "}\n"
                                       "void f(int n) {\n"
                                       "#pragma omp parallel\n"
                                       "#pragma omp single\n"
                                       "  {\n"
                                       "#pragma omp task\n"                  /* 13 */
                                       "    for (int i = 0; i < n; ++i) {\n" /* 14 */
                                       "#pragma omp critical\n"
                                       "      hits++;\n"
                                       "    }\n"
                                       "#pragma omp task\n" /* 18 */
                                       "    bump();\n"      /* 19 */
                                       "#pragma omp task\n"
                                       "    {\n"
                                       "      omp_set_lock(&lk);\n" /* 22 */
                                       "      hits++;\n"
                                       "      omp_unset_lock(&lk);\n"
                                       "    }\n"
                                       "  }\n"
                                       "}\n",
                                       &set);
    char buf[512];
    cr_assert_str_eq(locks_of(g, buf, sizeof buf),
                     "14:critical=unbounded 19:omp_lock=unbounded 21:omp_lock=1");
    ompdag_condag_set_destroy(set);
}

/* A call through a function pointer may reach any function whose address is
 * taken: their locks are the call's (unbounded). */
Test(mutex, a_call_through_a_pointer_takes_the_locks_of_address_taken_functions)
{
    ompdag_condag_set *set = NULL;
    ompdag_condag *g = fe_expect_graph("#include <omp.h>\n"
                                       "int hits;\n"
                                       "omp_lock_t lk;\n"
                                       "static void bump(void) {\n"
                                       "  omp_set_lock(&lk);\n"
                                       "  hits++;\n"
                                       "  omp_unset_lock(&lk);\n"
                                       "}\n"
                                       "void (*op)(void) = bump;\n"
                                       "void f(int n) {\n"
                                       "#pragma omp parallel\n"
                                       "#pragma omp single\n"
                                       "  {\n"
                                       "#pragma omp task\n" /* 14 */
                                       "    op();\n"        /* 15 */
                                       "  }\n"
                                       "}\n",
                                       &set);
    char buf[512];
    cr_assert_str_eq(locks_of(g, buf, sizeof buf), "15:omp_lock=unbounded");
    ompdag_condag_set_destroy(set);
}

Test(mutex, the_examples_extract_with_their_locks)
{
    const char *const args[] = {"-I", fe_test_path("examples")};
    ompdag_condag_set *set = NULL;
    cr_assert_eq(fe_test_extract(fe_test_path("examples/mutex/critical.c"), args, 2, 0, &set, NULL),
                 OMPDAG_OK);
    char buf[512];
    cr_assert_str_eq(locks_of(ompdag_condag_set_graph(set, 0), buf, sizeof buf),
                     "15:critical=1 15:critical=1");
    ompdag_condag_set_destroy(set);
    cr_assert_eq(
        fe_test_extract(fe_test_path("examples/mutex/lock_helper.c"), args, 2, 0, &set, NULL),
        OMPDAG_OK);
    cr_assert_str_eq(locks_of(ompdag_condag_set_graph(set, 0), buf, sizeof buf),
                     "26:omp_lock=unbounded 26:omp_lock=unbounded");
    ompdag_condag_set_destroy(set);
}

/* ---- refusals ------------------------------------------------------------------------- */

Test(mutex_refusals, a_task_or_taskwait_inside_a_critical_section)
{
    fe_expect_refused(HEAD "#pragma omp critical\n" /* 9 */
                           "    {\n"
                           "#pragma omp task\n"
                           "      work(1);\n"
                           "    }\n" TAIL,
                      9,
                      "task scheduling point (task creation, taskwait or blocking call) inside "
                      "'#pragma omp critical'");
    fe_expect_refused(HEAD "#pragma omp task\n"
                           "    work(1);\n"
                           "#pragma omp critical\n" /* 11 */
                           "    {\n"
                           "#pragma omp taskwait\n"
                           "    }\n" TAIL,
                      11, "inside '#pragma omp critical'");
}

Test(mutex_refusals, a_lock_held_across_a_scheduling_point)
{
    fe_expect_refused(HEAD "    omp_set_lock(&lk);\n" /* 9 */
                           "#pragma omp task\n"
                           "    work(1);\n"
                           "    omp_unset_lock(&lk);\n" TAIL,
                      9, "held across");
    fe_expect_refused(HEAD "#pragma omp task\n"
                           "    {\n"
                           "      omp_set_lock(&lk);\n" /* 11 */
                           "      work(1);\n"
                           "    }\n" TAIL,
                      11, "omp_set_lock without its omp_unset_lock");
}

Test(mutex_refusals, nested_sections)
{
    fe_expect_refused(HEAD "#pragma omp task\n"
                           "    {\n"
                           "#pragma omp critical(a)\n"
                           "      {\n"
                           "#pragma omp critical(b)\n" /* 13 */
                           "        hits++;\n"
                           "      }\n"
                           "    }\n" TAIL,
                      13, "lock acquired while 'critical(a)' is held");
    fe_expect_refused(HEAD "#pragma omp task\n"
                           "    {\n"
                           "      omp_set_lock(&lk);\n"
                           "#pragma omp critical\n" /* 12 */
                           "      hits++;\n"
                           "      omp_unset_lock(&lk);\n"
                           "    }\n" TAIL,
                      12, "lock acquired while 'omp_lock' is held");
}

Test(mutex_refusals, polling_and_nest_locks_stay_refused)
{
    fe_expect_refused(HEAD "#pragma omp task\n"
                           "    {\n"
                           "      while (!omp_test_lock(&lk)) ;\n" /* 11 */
                           "      hits++;\n"
                           "      omp_unset_lock(&lk);\n"
                           "    }\n" TAIL,
                      11, "'omp_test_lock'");
}

/* ---- BOTS idioms ------------------------------------------------------------------------ */

/* concom's CC_par: a recursive task function with a critical section; the
 * recursion is shared (compact) while walking, and unfolded on output so the
 * blocking term counts every instance. */
Test(mutex_bots, concom_recursion_with_a_critical_section)
{
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    const char *src = "int visited[64], components[64], nb[64][4], deg[64];\n"
                      "#pragma ompdag recursion_bound(3)\n"
                      "void CC_par(int i, int cc) {\n"
                      "  if (visited[i] == 0) {\n"
                      "#pragma omp critical\n"
                      "    {\n"
                      "      visited[i] = 1;\n" /* 7 */
                      "      components[cc]++;\n"
                      "    }\n"
                      "    for (int j = 0; j < 2; j++) {\n"
                      "      int n = nb[i][j];\n"
                      "#pragma omp task untied firstprivate(i, cc)\n"
                      "      CC_par(n, cc);\n"
                      "    }\n"
                      "#pragma omp taskwait\n"
                      "  }\n"
                      "}\n"
                      "void cc_par(void) {\n"
                      "#pragma omp parallel\n"
                      "#pragma omp single\n"
                      "  CC_par(0, 0);\n"
                      "}\n";
    ompdag_status st = fe_test_extract_source(src, &set, &fe, NULL);
    if (st) ompdag_frontend_print_diags(fe, stderr);
    cr_assert_eq(st, OMPDAG_OK);
    ompdag_frontend_destroy(fe);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    int locked = 0;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        locked += ompdag_condag_node_lock_count(g, v) == 1 &&
                  ompdag_condag_node_lock_acquisitions(g, v, 0) == 1;
    /* depth 3 of a binary recursion: 1 + 2 + 4 activations take the lock */
    cr_assert_eq(locked, 7, "%d nodes take the critical section", locked);
    json_t *j = ompdag_condag_to_json(g);
    json_t *ext = json_object_get(j, "extensions");
    cr_assert_eq(json_array_size(ext), 1, "unfolded: no compact extension, only locks");
    json_decref(j);
    bound_with_wcets(g, 4); /* the bound is computed (not refused as compact) */
    ompdag_condag_set_destroy(set);
}

/* health's check_patients_assess_par: a lock taken in a helper inside a
 * loop over a list, called from a recursive task function. */
Test(mutex_bots, health_lock_in_a_list_loop_of_a_helper)
{
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    const char *src = "#include <omp.h>\n"
                      "struct patient { struct patient *next; int t; };\n"
                      "struct village { struct village *child[2]; struct patient *list;\n"
                      "                 omp_lock_t lock; int n; };\n"
                      "static void assess(struct village *v) {\n"
                      "  for (struct patient *p = v->list; p; p = p->next)\n"
                      "    if (p->t > 3) {\n"
                      "      omp_set_lock(&v->lock);\n"
                      "      v->n++;\n"
                      "      omp_unset_lock(&v->lock);\n"
                      "    }\n"
                      "}\n"
                      "#pragma ompdag recursion_bound(2)\n"
                      "void sim(struct village *v) {\n"
                      "  for (int i = 0; i < 2; i++) {\n"
                      "#pragma omp task untied\n"
                      "    sim(v->child[i]);\n"
                      "  }\n"
                      "#pragma omp taskwait\n"
                      "  assess(v);\n"
                      "}\n"
                      "void run(struct village *top) {\n"
                      "#pragma omp parallel\n"
                      "#pragma omp single\n"
                      "#pragma omp task untied\n"
                      "  sim(top);\n"
                      "}\n";
    ompdag_status st = fe_test_extract_source(src, &set, &fe, NULL);
    if (st) ompdag_frontend_print_diags(fe, stderr);
    cr_assert_eq(st, OMPDAG_OK);
    ompdag_frontend_destroy(fe);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    int locked = 0;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        locked += ompdag_condag_node_lock_count(g, v) == 1 &&
                  ompdag_condag_node_lock_acquisitions(g, v, 0) == OMPDAG_LOCK_UNBOUNDED;
    cr_assert_eq(locked, 3, "%d nodes take the lock", locked);
    bound_with_wcets(g, 4);
    ompdag_condag_set_destroy(set);
}
