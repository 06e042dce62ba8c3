/* tests/advise/tmpdir.h — each test's own temporary directory (mkdtemp),
 * removed after the test; nothing is written anywhere else. */
#ifndef OMPDAG_TESTS_ADVISE_TMPDIR_H
#define OMPDAG_TESTS_ADVISE_TMPDIR_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

static char tmp[64];

static inline void make_tmp(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/ompdag-advise-XXXXXX");
    cr_assert_not_null(mkdtemp(tmp));
}

static inline void rm_tmp(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    cr_assert_eq(system(cmd), 0);
}

#endif
