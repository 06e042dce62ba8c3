/*
 * tests/test_slurp.h — the one "read a whole file" helper of the tests.
 *
 * Eight test files carried their own copy (fseek to the end, ftell, one
 * fread), which fails on anything that cannot seek: a FIFO or a pipe gives
 * ftell() == -1 and the copy read nothing, or asserted.  This one reads in a
 * loop into a buffer that doubles, so files, FIFOs and pipes all work, and
 * the result is NUL-terminated with its length returned (traces and other
 * binary files may hold NUL bytes).
 *
 *   test_slurp_n(path, &len)  NULL with errno set when the file cannot be read
 *   test_slurp(path)          the same, but a Criterion assertion names the
 *                             file instead of returning NULL (Criterion tests)
 *
 * The caller frees the buffer.
 */
#ifndef OMPDAG_TEST_SLURP_H
#define OMPDAG_TEST_SLURP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads all of `path` into a new NUL-terminated buffer; *len (may be NULL)
 * gets the byte count.  NULL (errno set) when it cannot be opened or read. */
static inline char *test_slurp_n(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - 1 - n, f);
        if (n < cap - 1) break; /* end of file or an error: ferror() says which */
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) free(buf);
        buf = bigger;
        cap *= 2;
    }
    int failed = !buf || ferror(f), saved = buf ? EIO : ENOMEM;
    fclose(f);
    if (failed) {
        free(buf);
        errno = saved;
        return NULL;
    }
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

#ifdef CRITERION_H_
/* test_slurp_n() for Criterion tests: a file that cannot be read fails the
 * test with its name and the reason. */
static inline char *test_slurp(const char *path)
{
    char *buf = test_slurp_n(path, NULL);
    cr_assert_not_null(buf, "cannot read %s: %s", path, strerror(errno));
    return buf;
}
#endif

#endif
