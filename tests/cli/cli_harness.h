/*
 * tests/cli/cli_harness.h — runs `ompdag ARGS` as a user would (from the
 * source directory, through /bin/sh), with stdout and stderr captured in the
 * test's own temp directory (tests/test_tmpdir.h).  '@' in ARGS and in the
 * prefix stands for that directory.
 */
#ifndef OMPDAG_TESTS_CLI_HARNESS_H
#define OMPDAG_TESTS_CLI_HARNESS_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "test_slurp.h"
#include "test_tmpdir.h"

typedef struct cli_result {
    int status; /* exit status; -1 when killed by a signal */
    char *out;  /* stdout, owned (cli_result_free) */
    char *err;  /* stderr, owned */
} cli_result;

/* `s` with each '@' replaced by the test's temp directory, into dst. */
static inline void cli_expand_tmp(char *dst, size_t n, const char *s)
{
    const char *dir = test_tmpdir();
    cr_assert_not_null(dir, "mkdtemp failed");
    size_t k = 0;
    for (const char *p = s; *p && k + 1 < n; ++p)
        k += (size_t)snprintf(dst + k, n - k, *p == '@' ? "%s" : "%.1s", *p == '@' ? dir : p);
    cr_assert_lt(k + 1, n, "command too long");
}

/* Runs `PREFIX ompdag ARGS` (PREFIX: shell words before the command, such
 * as "ulimit -r 0 && exec setpriv ... ", or ""). */
static inline cli_result cli_run_with(const char *prefix, const char *args)
{
    const char *build = getenv("OMPDAG_BUILD_DIR"), *src = getenv("OMPDAG_SOURCE_DIR");
    cr_assert(build && src, "run through ctest");
    static char line[16384], pre[2048], expanded[8192];
    cli_expand_tmp(pre, sizeof pre, prefix);
    cli_expand_tmp(expanded, sizeof expanded, args);
    snprintf(line, sizeof line, "cd '%s' && %s'%s/cli/ompdag' %s >'%s' 2>'%s'", src, pre, build,
             expanded, test_tmp("stdout"), test_tmp("stderr"));
    int st = system(line);
    return (cli_result){WIFEXITED(st) ? WEXITSTATUS(st) : -1, test_slurp(test_tmp("stdout")),
                        test_slurp(test_tmp("stderr"))};
}

static inline cli_result cli_run(const char *args)
{
    return cli_run_with("", args);
}

static inline void cli_result_free(cli_result r)
{
    free(r.out), free(r.err);
}

#endif
