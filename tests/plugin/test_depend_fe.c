/*
 * tests/plugin/test_depend_fe.c — depend clauses in the front end
 * (plugin/fe_depend.c, condag.md §6): clause parsing onto T nodes, the
 * aliasing rule, the refusals by name, and the bound the clauses produce.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_test.h"
#include "ompdag/locks.h"
#include "ompdag/rta.h"

#define HEAD                                                                                       \
    "void work(int);\n"                                                                            \
    "void f(int n, int *p, int *q) {\n"                                                            \
    "  int a = 0, b = 0, c[4];\n"                                                                  \
    "#pragma omp parallel\n"                                                                       \
    "#pragma omp single\n"                                                                         \
    "  {\n"
/* line 7 is the first line of the single block */
#define TAIL "  }\n}\n"

static ompdag_condag *extract_ok(const char *src, ompdag_condag_set **set)
{
    ompdag_frontend *fe = NULL;
    ompdag_status st = fe_test_extract_source(src, set, &fe, NULL);
    if (st != OMPDAG_OK) ompdag_frontend_print_diags(fe, stderr);
    cr_assert_eq(st, OMPDAG_OK, "%s", ompdag_status_name(st));
    ompdag_frontend_destroy(fe);
    return ompdag_condag_set_graph(*set, 0);
}

/* "type:var type:var" of the T node at `line` (clauses in order). */
static const char *clauses_at(const ompdag_condag *g, int line, char *buf, size_t size)
{
    buf[0] = 0;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_T ||
            ompdag_condag_node_loc(g, v).line != line)
            continue;
        if (buf[0]) { /* several T nodes on the line (an unrolled loop) */
            size_t len = strlen(buf);
            snprintf(buf + len, size - len, " |");
        }
        for (int32_t i = 0; i < ompdag_condag_node_depend_count(g, v); ++i) {
            size_t len = strlen(buf);
            snprintf(buf + len, size - len, "%s%s:%s", buf[0] ? " " : "",
                     ompdag_dep_type_name(ompdag_condag_node_depend_type(g, v, i)),
                     ompdag_condag_depend_var_name(g, ompdag_condag_node_depend_var(g, v, i)));
        }
    }
    return buf;
}

Test(depend_fe, named_items_keep_their_own_vars)
{
    ompdag_condag_set *set;
    ompdag_condag *g = extract_ok(HEAD "#pragma omp task depend(out: a)\n"
                                       "    work(1);\n"
                                       "#pragma omp task depend(in: a) depend(out: b)\n"
                                       "    work(2);\n"
                                       "#pragma omp task depend(inout: a, b)\n"
                                       "    work(3);\n" TAIL,
                                  &set);
    char buf[256];
    cr_assert_str_eq(clauses_at(g, 7, buf, sizeof buf), "out:a");
    cr_assert_str_eq(clauses_at(g, 9, buf, sizeof buf), "in:a out:b");
    cr_assert_str_eq(clauses_at(g, 11, buf, sizeof buf), "inout:a inout:b");
    cr_assert(ompdag_condag_has_depend(g));
    ompdag_condag_set_destroy(set);
}

Test(depend_fe, memory_items_share_one_var_and_pull_names_in)
{
    ompdag_condag_set *set;
    ompdag_condag *g = extract_ok(HEAD "#pragma omp task depend(out: c[0])\n"
                                       "    work(1);\n"
                                       "#pragma omp task depend(in: c[1], p[n:2])\n"
                                       "    work(2);\n"
                                       "#pragma omp task depend(in: *q) depend(out: a)\n"
                                       "    work(3);\n" TAIL,
                                  &set);
    char buf[256];
    /* p[n..] and *q are memory-based: they share a var; the array cells
     * c[0], c[1] and the named a may be reached through p or q, so they
     * join it too (beside their own vars) */
    cr_assert_str_eq(clauses_at(g, 7, buf, sizeof buf), "out:c[0] out:[memory]");
    cr_assert_str_eq(clauses_at(g, 9, buf, sizeof buf), "in:c[1] in:[memory] in:[memory]");
    cr_assert_str_eq(clauses_at(g, 11, buf, sizeof buf), "in:[memory] out:a out:[memory]");
    ompdag_condag_set_destroy(set);
}

Test(depend_fe, struct_members_use_the_base_name)
{
    ompdag_condag_set *set;
    ompdag_condag *g = extract_ok("struct s { int x, y; };\nvoid work(int);\n"
                                  "void f(void) {\n  struct s v;\n"
                                  "#pragma omp parallel\n#pragma omp single\n  {\n"
                                  "#pragma omp task depend(out: v.x)\n    work(1);\n"
                                  "#pragma omp task depend(in: v . y)\n    work(2);\n" TAIL,
                                  &set);
    char buf[256];
    cr_assert_str_eq(clauses_at(g, 8, buf, sizeof buf), "out:v");
    cr_assert_str_eq(clauses_at(g, 10, buf, sizeof buf), "in:v");
    ompdag_condag_set_destroy(set);
}

static void refused_depend(const char *src, int line, const char *needle)
{
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    ompdag_status st = fe_test_extract_source(src, &set, &fe, NULL);
    if (!fe_test_has_diag(fe, line, needle)) ompdag_frontend_print_diags(fe, stderr);
    cr_assert_eq(st, OMPDAG_ERR_UNSUPPORTED, "%s", ompdag_status_name(st));
    cr_assert(fe_test_has_diag(fe, line, needle), "no diagnostic at line %d with '%s'", line,
              needle);
    ompdag_condag_set_destroy(set);
    ompdag_frontend_destroy(fe);
}

Test(depend_fe, refusals_by_name)
{
    /* mutexinoutset: the task holds the exclusion for its whole body */
    refused_depend(HEAD "#pragma omp task depend(mutexinoutset: a)\n"
                        "    {\n"
                        "#pragma omp task\n"
                        "      work(1);\n"
                        "    }\n" TAIL,
                   7, "depend(mutexinoutset: ...) clause and a task scheduling point inside");
    refused_depend(HEAD "#pragma omp task depend(mutexinoutset: a)\n"
                        "    {\n"
                        "#pragma omp critical\n"
                        "      work(1);\n"
                        "    }\n" TAIL,
                   7, "takes a lock inside");
    /* a depend object whose initialisation is not visible here */
    refused_depend(HEAD "#pragma omp task depend(depobj: a)\n    work(1);\n" TAIL, 7,
                   "initialisation ('#pragma omp depobj(...) depend(...)') is not visible");
    /* an iterator whose range is not a constant */
    refused_depend(HEAD "#pragma omp task depend(iterator(i=0:n), in: c[i])\n    work(1);\n" TAIL,
                   7, "the iterator's range is not a constant expression");
    refused_depend(HEAD "#pragma omp task\n    work(1);\n"
                        "#pragma omp taskwait depend(in: a) nowait\n" TAIL,
                   9, "taskwait with a nowait clause");
}

/* mutexinoutset: ordered like inoutset, and the siblings exclude each other:
 * the analysis gives each task's node the lock "mutexinoutset(x)". */
Test(depend_fe, mutexinoutset_tasks_are_a_group_that_takes_a_lock)
{
    ompdag_condag_set *set = NULL;
    ompdag_condag *g = extract_ok(HEAD "#pragma omp task depend(mutexinoutset: a)\n" /* 7 */
                                       "    work(1);\n"
                                       "#pragma omp task depend(mutexinoutset: a)\n" /* 9 */
                                       "    work(2);\n"
                                       "#pragma omp task depend(in: a)\n" /* 11 */
                                       "    work(3);\n" TAIL,
                                  &set);
    char buf[256];
    cr_assert_str_eq(clauses_at(g, 9, buf, sizeof buf), "mutexinoutset:a");
    int locked = 0;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_lock_count(g, v) == 1) {
            cr_assert_str_eq(ompdag_condag_node_lock_name(g, v, 0), "mutexinoutset(a)");
            ++locked;
        }
    cr_assert_eq(locked, 2);
    ompdag_condag_set_destroy(set);
}

/* depend(iterator(i = b : e : s), type: items) is the clause once per value
 * (OpenMP 5.1 §3.9), each item evaluated with i bound. */
Test(depend_fe, a_constant_iterator_expands_into_one_item_per_value)
{
    ompdag_condag_set *set = NULL;
    ompdag_condag *g =
        extract_ok(HEAD "#pragma omp task depend(iterator(int i = 0:4:2), out: c[i])\n"
                        "    work(1);\n" /* 7 */
                        "#pragma omp task depend(in: c[2])\n"
                        "    work(2);\n" /* 9 */
                        "#pragma omp task depend(iterator(j=3:0:-1), in: c[j])\n"
                        "    work(3);\n" TAIL, /* 11 */
                   &set);
    char buf[256];
    cr_assert_str_eq(clauses_at(g, 7, buf, sizeof buf), "out:c[0] out:c[2]");
    cr_assert_str_eq(clauses_at(g, 9, buf, sizeof buf), "in:c[2]");
    cr_assert_str_eq(clauses_at(g, 11, buf, sizeof buf), "in:c[3] in:c[2] in:c[1]");
    ompdag_condag_set_destroy(set);
}

/* depend(depobj: o) takes the clause of the visible `depobj(o) depend(...)`. */
Test(depend_fe, a_depobj_is_its_visible_initialisation)
{
    ompdag_condag_set *set = NULL;
    ompdag_condag *g = extract_ok("#include <omp.h>\n"
                                  "void work(int);\n"
                                  "void f(void) {\n"
                                  "  int a = 0, b = 0;\n"
                                  "  omp_depend_t o;\n"
                                  "#pragma omp depobj(o) depend(inout: a)\n"
                                  "#pragma omp parallel\n"
                                  "#pragma omp single\n"
                                  "  {\n"
                                  "#pragma omp task depend(out: a)\n" /* 10 */
                                  "    work(1);\n"
                                  "#pragma omp task depend(depobj: o) depend(in: b)\n" /* 12 */
                                  "    work(2);\n"
                                  "  }\n"
                                  "#pragma omp depobj(o) destroy\n"
                                  "}\n",
                                  &set);
    char buf[256];
    cr_assert_str_eq(clauses_at(g, 12, buf, sizeof buf), "inout:a in:b");
    ompdag_condag_set_destroy(set);
    /* an update makes the object's clause unknown at the task */
    refused_depend("#include <omp.h>\n"
                   "void work(int);\n"
                   "void f(void) {\n"
                   "  int a = 0;\n"
                   "  omp_depend_t o;\n"
                   "#pragma omp depobj(o) depend(in: a)\n"
                   "#pragma omp depobj(o) update(out)\n"
                   "#pragma omp parallel\n"
                   "#pragma omp single\n"
                   "  {\n"
                   "#pragma omp task depend(depobj: o)\n" /* 11 */
                   "    work(2);\n"
                   "  }\n"
                   "}\n",
                   11, "or an update");
}

/* taskwait depend(...) (OpenMP 5.1 §15.5) waits for the earlier siblings
 * whose clauses conflict with its items only: a partial W node carrying the
 * items, with no W-edge of Rule 2 (its waits are derived per flow). */
Test(depend_fe, taskwait_depend_is_a_partial_wait)
{
    ompdag_condag_set *set = NULL;
    ompdag_condag *g = extract_ok(HEAD "#pragma omp task depend(out: a)\n"
                                       "    work(1);\n"
                                       "#pragma omp taskwait depend(in: a)\n" /* 9 */
                                       "    work(2);\n" TAIL,
                                  &set);
    char buf[256];
    cr_assert_str_eq(fe_test_lines(g, OMPDAG_KIND_W, buf, sizeof buf), "9");
    cr_assert_str_eq(fe_test_wedges(g, buf, sizeof buf), "");
    int32_t w = -1;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_W) w = v;
    cr_assert_eq(ompdag_condag_node_depend_count(g, w), 1);
    cr_assert_eq(ompdag_condag_node_depend_type(g, w, 0), OMPDAG_DEP_IN);
    cr_assert_str_eq(ompdag_condag_depend_var_name(g, ompdag_condag_node_depend_var(g, w, 0)), "a");
    /* the item is evaluated like a task's: a constant cell of c */
    ompdag_condag_set_destroy(set);
    g = extract_ok(HEAD "#pragma omp task depend(out: c[1])\n"
                        "    work(1);\n"
                        "#pragma omp taskwait depend(in: c[1])\n" TAIL,
                   &set);
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_W) w = v;
    cr_assert_str_eq(ompdag_condag_depend_var_name(g, ompdag_condag_node_depend_var(g, w, 0)),
                     "c[1]");
    ompdag_condag_set_destroy(set);
}

/* m·R at m = 2 of `task depend(out: a)`, `task depend(out: b)`, then the
 * taskwait `wait` and a call: the tasks weigh 10 and 100, the root's W node
 * 50, every other node 0. */
static int64_t two_tasks_then(const char *wait)
{
    char src[1024];
    snprintf(src, sizeof src,
             HEAD "#pragma omp task depend(out: a)\n" /* 7 */
                  "    work(1);\n"
                  "#pragma omp task depend(out: b)\n" /* 9 */
                  "    work(2);\n"
                  "%s\n" /* 11 */
                  "    work(3);\n" TAIL,
             wait);
    ompdag_condag_set *set = NULL;
    ompdag_condag *g = extract_ok(src, &set);
    ompdag_error err;
    int32_t root = ompdag_condag_root_task(g);
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        int32_t t = ompdag_condag_node_task(g, v);
        int32_t line =
            t != root ? ompdag_condag_node_loc(g, ompdag_condag_task_creator(g, t)).line : 0;
        int64_t c = t != root                                        ? (line == 7 ? 10 : 100)
                    : ompdag_condag_node_kind(g, v) == OMPDAG_KIND_W ? 50
                                                                     : 0;
        cr_assert_eq(ompdag_condag_assign_wcet(g, v, c, &err), OMPDAG_OK, "%s", err.message);
    }
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 2);
    ompdag_rta_result *r = NULL;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    int64_t b = ompdag_rta_result_bound_times_m(r);
    ompdag_rta_result_destroy(r);
    ompdag_condag_set_destroy(set);
    return b;
}

Test(depend_fe, a_partial_taskwait_lowers_the_bound)
{
    /* vol 160.  taskwait depend(in: a) waits for a only: len = max(a→W 60,
     * b 100): 160 + 100.  A plain taskwait waits for b too: b→W 150. */
    cr_assert_eq(two_tasks_then("#pragma omp taskwait depend(in: a)"), 260);
    cr_assert_eq(two_tasks_then("#pragma omp taskwait"), 310);
    cr_assert_eq(two_tasks_then("#pragma omp taskwait depend(in: b)"), 310);
    cr_assert_eq(two_tasks_then("#pragma omp taskwait depend(inout: a, b)"), 310);
}

/* inoutset (OpenMP 5.1): a run of inoutset tasks is concurrent, ordered
 * against the in/out tasks around it (docs/depend.md). */
Test(depend_fe, inoutset_keeps_its_type_and_orders_a_concurrent_group)
{
    ompdag_condag_set *set = NULL;
    ompdag_condag *g = extract_ok(HEAD "#pragma omp task depend(out: a)\n" /* 7 */
                                       "    work(1);\n"
                                       "#pragma omp task depend(inoutset: a)\n" /* 9 */
                                       "    work(2);\n"
                                       "#pragma omp task depend(inoutset: a)\n" /* 11 */
                                       "    work(3);\n"
                                       "#pragma omp task depend(in: a)\n" /* 13 */
                                       "    work(4);\n" TAIL,
                                  &set);
    char buf[256];
    cr_assert_str_eq(clauses_at(g, 9, buf, sizeof buf), "inoutset:a");
    /* WCETs 1, 10, 100, 1000 on the four tasks: out → {set, set} → in */
    int64_t w[4] = {1, 10, 100, 1000};
    int k = 0;
    ompdag_error err;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_task(g, v) != ompdag_condag_root_task(g))
            cr_assert_eq(ompdag_condag_assign_wcet(g, v, w[k++], &err), OMPDAG_OK);
    cr_assert_eq(k, 4);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 2);
    ompdag_rta_result *r = NULL;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    /* vol 1111, len 1 + 100 + 1000 (the two sets are concurrent) */
    cr_assert_eq(ompdag_rta_result_bound_times_m(r), 1111 + 1101);
    ompdag_rta_result_destroy(r);
    ompdag_condag_set_destroy(set);
}

Test(depend_fe, clauses_order_the_tasks_in_the_bound)
{
    /* three tasks, each one 'work' call; WCETs are 0 after extraction, so
     * give every node 1 and compare with and without the chain */
    ompdag_condag_set *set;
    ompdag_condag *g = extract_ok(HEAD "#pragma omp task depend(out: a)\n"
                                       "    work(1);\n"
                                       "#pragma omp task depend(inout: a)\n"
                                       "    work(2);\n"
                                       "#pragma omp task depend(in: a)\n"
                                       "    work(3);\n" TAIL,
                                  &set);
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        cr_assert_eq(ompdag_condag_assign_wcet(
                         g, v, ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T ? 0 : 10, NULL),
                     OMPDAG_OK);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 8);
    ompdag_rta_result *r;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, NULL), OMPDAG_OK);
    /* the three task bodies (10 each) are a chain: len >= 30 */
    cr_assert_geq(ompdag_rta_result_len(r), 30);
    cr_assert(ompdag_rta_result_is_exact(r));
    ompdag_rta_result_destroy(r);
    ompdag_condag_set_destroy(set);
}

/* ---- constant-index disjointness (fe_depend.c, docs/plugin.md) ------------------------ */

#define HEAD2                                                                                      \
    "void work(int);\n"                                                                            \
    "double A[8], M[4][4];\n"                                                                      \
    "void f(int n, double *p) {\n"                                                                 \
    "#pragma omp parallel\n"                                                                       \
    "#pragma omp single\n"                                                                         \
    "  {\n"
/* line 7 is the first line of the single block */

static ompdag_condag *extract2(const char *body, ompdag_condag_set **set)
{
    char src[4096];
    snprintf(src, sizeof src, "%s%s%s", HEAD2, body, TAIL);
    return extract_ok(src, set);
}

Test(depend_fe, disjoint_constant_indices_get_their_own_vars)
{
    ompdag_condag_set *set;
    ompdag_condag *g = extract2("#pragma omp task depend(out: A[0])\n    work(1);\n"
                                "#pragma omp task depend(out: A[1])\n    work(2);\n"
                                "#pragma omp task depend(in: A[0], A[2 * 3 - 5])\n    work(3);\n",
                                &set);
    char buf[256];
    cr_assert_str_eq(clauses_at(g, 7, buf, sizeof buf), "out:A[0]");
    cr_assert_str_eq(clauses_at(g, 9, buf, sizeof buf), "out:A[1]");
    cr_assert_str_eq(clauses_at(g, 11, buf, sizeof buf), "in:A[0] in:A[1]");
    /* A[0] and A[1] are independent: the two writers are not ordered */
    int32_t *from, *to;
    int64_t n;
    cr_assert_eq(ompdag_condag_depend_edges(g, &from, &to, &n, NULL), OMPDAG_OK);
    cr_assert_eq(n, 2, "only the reader waits, once per writer");
    free(from), free(to);
    ompdag_condag_set_destroy(set);
}

Test(depend_fe, equal_constant_indices_share_a_var)
{
    ompdag_condag_set *set;
    ompdag_condag *g = extract2("#pragma omp task depend(out: A[3])\n    work(1);\n"
                                "#pragma omp task depend(inout: A[1 + 2])\n    work(2);\n",
                                &set);
    char buf[256];
    cr_assert_str_eq(clauses_at(g, 7, buf, sizeof buf), "out:A[3]");
    cr_assert_str_eq(clauses_at(g, 9, buf, sizeof buf), "inout:A[3]");
    ompdag_condag_set_destroy(set);
}

Test(depend_fe, a_non_constant_index_makes_the_whole_array_one_var)
{
    ompdag_condag_set *set;
    ompdag_condag *g = extract2("#pragma omp task depend(out: A[0])\n    work(1);\n"
                                "#pragma omp task depend(out: A[n])\n    work(2);\n"
                                "#pragma omp task depend(in: A[5])\n    work(3);\n",
                                &set);
    char buf[256];
    /* A[n] may be A[0] or A[5]: every item on A shares "A" */
    cr_assert_str_eq(clauses_at(g, 7, buf, sizeof buf), "out:A");
    cr_assert_str_eq(clauses_at(g, 9, buf, sizeof buf), "out:A");
    cr_assert_str_eq(clauses_at(g, 11, buf, sizeof buf), "in:A");
    ompdag_condag_set_destroy(set);
}

Test(depend_fe, sections_share_a_var_exactly_when_they_overlap)
{
    ompdag_condag_set *set;
    ompdag_condag *g = extract2("#pragma omp task depend(out: A[0:4])\n    work(1);\n"
                                "#pragma omp task depend(out: A[2:4])\n    work(2);\n"
                                "#pragma omp task depend(out: A[6:2])\n    work(3);\n"
                                "#pragma omp task depend(in: A[4:])\n    work(4);\n",
                                &set);
    char buf[256];
    /* [0,4) meets [2,6); [2,6) and [6,8) both meet [4,8) (A[4:] runs to the end) */
    cr_assert_str_eq(clauses_at(g, 7, buf, sizeof buf), "out:A[0:4] out:A[0:4]^A[2:4]");
    cr_assert_str_eq(clauses_at(g, 9, buf, sizeof buf),
                     "out:A[0:4]^A[2:4] out:A[2:4] out:A[2:4]^A[4:4]");
    cr_assert_str_eq(clauses_at(g, 11, buf, sizeof buf), "out:A[6:2] out:A[6:2]^A[4:4]");
    cr_assert_str_eq(clauses_at(g, 13, buf, sizeof buf),
                     "in:A[2:4]^A[4:4] in:A[6:2]^A[4:4] in:A[4:4]");
    ompdag_condag_set_destroy(set);
}

Test(depend_fe, pointer_bases_stay_conservative)
{
    ompdag_condag_set *set;
    ompdag_condag *g = extract2("#pragma omp task depend(out: p[0])\n    work(1);\n"
                                "#pragma omp task depend(out: p[1])\n    work(2);\n",
                                &set);
    char buf[256];
    /* p may point anywhere (into A too): memory-based, one var */
    cr_assert_str_eq(clauses_at(g, 7, buf, sizeof buf), "out:[memory]");
    cr_assert_str_eq(clauses_at(g, 9, buf, sizeof buf), "out:[memory]");
    ompdag_condag_set_destroy(set);
}

Test(depend_fe, two_dimensional_cells)
{
    ompdag_condag_set *set;
    ompdag_condag *g = extract2("#pragma omp task depend(out: M[0][1])\n    work(1);\n"
                                "#pragma omp task depend(out: M[1][1])\n    work(2);\n"
                                "#pragma omp task depend(in: M[0][0:2])\n    work(3);\n"
                                "#pragma omp task depend(in: M[1])\n    work(4);\n",
                                &set);
    char buf[256];
    /* different rows are disjoint; row 0's cells 0..1 meet M[0][1]; the
     * whole row M[1] meets M[1][1] */
    cr_assert_str_eq(clauses_at(g, 7, buf, sizeof buf), "out:M[0][1] out:M[0][1]^M[0][0:2]");
    cr_assert_str_eq(clauses_at(g, 9, buf, sizeof buf), "out:M[1][1] out:M[1][1]^M[1][0:4]");
    cr_assert_str_eq(clauses_at(g, 11, buf, sizeof buf), "in:M[0][1]^M[0][0:2] in:M[0][0:2]");
    cr_assert_str_eq(clauses_at(g, 13, buf, sizeof buf), "in:M[1][1]^M[1][0:4] in:M[1][0:4]");
    ompdag_condag_set_destroy(set);
}

Test(depend_fe, unrolled_loop_variables_are_constants_per_instance)
{
    ompdag_condag_set *set;
    ompdag_condag *g = extract2("    for (int i = 1; i < 4; i++) {\n"
                                "#pragma omp task depend(in: A[i - 1]) depend(inout: A[i])\n"
                                "      work(i);\n"
                                "    }\n",
                                &set);
    char buf[256];
    /* three instances of the directive at line 8: a chain A[0]->A[1]->A[2]->A[3] */
    cr_assert_str_eq(clauses_at(g, 8, buf, sizeof buf),
                     "in:A[0] inout:A[1] | in:A[1] inout:A[2] | in:A[2] inout:A[3]");
    ompdag_condag_set_destroy(set);
}

Test(depend_fe, a_shadowed_loop_variable_is_not_a_constant)
{
    ompdag_condag_set *set;
    ompdag_condag *g = extract2("    for (int i = 0; i < 2; i++) {\n"
                                "      int j = i;\n"
                                "      { int i = 5; work(i); }\n"
                                "#pragma omp task depend(inout: A[i])\n"
                                "      work(j);\n"
                                "    }\n",
                                &set);
    char buf[256];
    /* the body declares another i: which one the directive means is not
     * followed, so A[i] is not constant and A is one var */
    cr_assert_str_eq(clauses_at(g, 10, buf, sizeof buf), "inout:A | inout:A");
    ompdag_condag_set_destroy(set);
}

Test(depend_fe, a_refusal_names_the_file_and_line)
{
    ompdag_condag_set *set = NULL;
    ompdag_frontend *fe = NULL;
    const char *path = NULL;
    char src[1024];
    snprintf(src, sizeof src, "%s%s%s", HEAD2, "#pragma omp task depend(depobj: A)\n    work(1);\n",
             TAIL);
    ompdag_status st = fe_test_extract_source(src, &set, &fe, &path);
    cr_assert_eq(st, OMPDAG_ERR_UNSUPPORTED);
    cr_assert_geq(ompdag_frontend_diag_count(fe), 1);
    const ompdag_frontend_diag *d = ompdag_frontend_diag_at(fe, 0);
    cr_assert_not_null(d->loc.file);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    cr_assert(strstr(d->loc.file, base), "diagnostic file %s, source %s", d->loc.file, path);
    cr_assert_eq(d->loc.line, 7);
    cr_assert(strstr(d->message, "depobj"), "%s", d->message);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    ompdag_frontend_print_diags(fe, mem);
    fclose(mem);
    char where[256];
    snprintf(where, sizeof where, "%s:7:", base);
    cr_assert(strstr(text, where), "printed: %s", text);
    free(text);
    ompdag_condag_set_destroy(set);
    ompdag_frontend_destroy(fe);
}
