/*
 * tests/plugin/test_depend_fe.c — depend clauses in the front end
 * (plugin/fe_depend.c, condag.md §6): clause parsing onto T nodes, the
 * aliasing rule, the refusals by name, and the bound the clauses produce.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "fe_test.h"
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
        for (int32_t i = 0; i < ompdag_condag_node_depend_count(g, v); ++i) {
            size_t len = strlen(buf);
            snprintf(buf + len, size - len, "%s%s:%s", i ? " " : "",
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
    /* c[0] and c[1] might be p[n..] too: all memory-based items share a var,
     * and the named a may be reached through q, so it joins it too */
    cr_assert_str_eq(clauses_at(g, 7, buf, sizeof buf), "out:[memory]");
    cr_assert_str_eq(clauses_at(g, 9, buf, sizeof buf), "in:[memory] in:[memory]");
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
    refused_depend(HEAD "#pragma omp task depend(mutexinoutset: a)\n    work(1);\n" TAIL, 7,
                   "mutexinoutset");
    refused_depend(HEAD "#pragma omp task depend(inoutset: a)\n    work(1);\n" TAIL, 7, "inoutset");
    refused_depend(HEAD "#pragma omp task depend(depobj: a)\n    work(1);\n" TAIL, 7, "depobj");
    refused_depend(HEAD "#pragma omp task depend(iterator(i=0:2), in: c[i])\n    work(1);\n" TAIL,
                   7, "iterator");
    refused_depend(HEAD "#pragma omp task\n    work(1);\n"
                        "#pragma omp taskwait depend(in: a)\n" TAIL,
                   9, "taskwait depend");
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
        cr_assert_eq(ompdag_condag_set_wcet(
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
