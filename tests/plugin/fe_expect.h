/*
 * tests/plugin/fe_expect.h — Criterion expectations shared by the front-end
 * tests (include after <criterion/criterion.h>): an inline source that must
 * extract to one graph, or be refused with a diagnostic at a line.
 */
#ifndef OMPDAG_FE_EXPECT_H
#define OMPDAG_FE_EXPECT_H

#include <stdio.h>

#include "fe_test.h"

/* Extracts `src`, which must give exactly one graph; *set is the caller's. */
static inline ompdag_condag *fe_expect_graph(const char *src, ompdag_condag_set **set)
{
    ompdag_frontend *fe = NULL;
    ompdag_status st = fe_test_extract_source(src, set, &fe, NULL);
    if (st != OMPDAG_OK) ompdag_frontend_print_diags(fe, stderr);
    cr_assert_eq(st, OMPDAG_OK, "%s", ompdag_status_name(st));
    cr_assert_eq(ompdag_condag_set_count(*set), 1);
    ompdag_frontend_destroy(fe);
    return ompdag_condag_set_graph(*set, 0);
}

/* Extracting `src` must be refused with a diagnostic at `line` holding `needle`. */
static inline void fe_expect_refused(const char *src, int line, const char *needle)
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

#endif
