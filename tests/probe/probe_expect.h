/*
 * tests/probe/probe_expect.h — Criterion helpers shared by the probe tests
 * (include after <criterion/criterion.h>).
 */
#ifndef OMPDAG_PROBE_EXPECT_H
#define OMPDAG_PROBE_EXPECT_H

#include <stdio.h>

#include "ompdag/condag.h"

/* Loads tests/probe/data/<name>, which must load; the set is the caller's. */
static inline ompdag_condag_set *load_graphs(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", OMPDAG_PROBE_DATA, name);
    ompdag_condag_set *set;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file(path, &set, &err), OMPDAG_OK, "%s", err.message);
    return set;
}

#endif
