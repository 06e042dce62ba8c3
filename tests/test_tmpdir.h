/*
 * tests/test_tmpdir.h — one private temporary directory per test process
 * (mkdtemp under $TMPDIR, else /tmp), removed with its contents at exit, so
 * tests can run concurrently and never write outside their own directory.
 */
#ifndef OMPDAG_TEST_TMPDIR_H
#define OMPDAG_TEST_TMPDIR_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char test_tmpdir_path[512];

static int test_tmpdir_rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st, (void)flag, (void)f;
    return remove(p), 0;
}

static void test_tmpdir_cleanup(void)
{
    if (test_tmpdir_path[0]) nftw(test_tmpdir_path, test_tmpdir_rm_one, 8, FTW_DEPTH | FTW_PHYS);
    test_tmpdir_path[0] = '\0';
}

/* This process's directory, created on first use; NULL when mkdtemp fails.
 * A forked child re-creates its own (the parent's belongs to the parent). */
static inline const char *test_tmpdir(void)
{
    static pid_t owner;
    if (test_tmpdir_path[0] && owner == getpid()) return test_tmpdir_path;
    const char *base = getenv("TMPDIR");
    snprintf(test_tmpdir_path, sizeof test_tmpdir_path, "%s/ompdag-test-XXXXXX",
             base && base[0] ? base : "/tmp");
    if (!mkdtemp(test_tmpdir_path)) return test_tmpdir_path[0] = '\0', NULL;
    if (!owner) atexit(test_tmpdir_cleanup);
    owner = getpid();
    return test_tmpdir_path;
}

/* "DIR/name" in this process's directory, in a static rotating buffer (8 live). */
static inline const char *test_tmp(const char *name)
{
    static char bufs[8][640];
    static int next;
    char *b = bufs[next++ % 8];
    const char *d = test_tmpdir();
    snprintf(b, sizeof bufs[0], "%s/%s", d ? d : "/nonexistent-tmpdir", name);
    return b;
}

#endif
