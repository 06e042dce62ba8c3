/* tests/analysis/test_slurp.c — the tests' shared file reader
 * (tests/test_slurp.h): every byte of a file larger than its first buffer,
 * NUL bytes included, and input that cannot seek (a FIFO: the per-file
 * copies it replaced used fseek/ftell, which read nothing there). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_slurp.h"
#include "test_tmpdir.h"

/* A path in this test's own temp dir. */
static const char *tmp_path(const char *name)
{
    static char path[1024];
    const char *dir = test_tmpdir();
    cr_assert_not_null(dir, "mkdtemp failed");
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

/* n bytes of a pattern that holds NUL bytes and never repeats with period
 * 4096 (so a lost or doubled buffer would show). */
static void fill(char *buf, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        buf[i] = (char)((i * 7 + i / 4099) % 251);
}

Test(slurp, reads_every_byte_of_a_large_file_with_nul_bytes)
{
    size_t n = 3 * 1024 * 1024 + 17;
    char *want = malloc(n);
    cr_assert_not_null(want);
    fill(want, n);
    const char *path = tmp_path("big.bin");
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(want, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);

    size_t len = 0;
    char *got = test_slurp_n(path, &len);
    cr_assert_not_null(got);
    cr_assert_eq(len, n);
    cr_assert_eq(memcmp(got, want, n), 0);
    cr_assert_eq(got[n], '\0', "the buffer is NUL-terminated");
    free(got);
    free(want);
}

Test(slurp, reads_an_empty_file)
{
    const char *path = tmp_path("empty");
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fclose(f);
    size_t len = 99;
    char *got = test_slurp(path);
    cr_assert_str_eq(got, "");
    free(got);
    got = test_slurp_n(path, &len);
    cr_assert_eq(len, 0);
    free(got);
}

Test(slurp, reads_a_fifo)
{
    const char *path = tmp_path("fifo");
    cr_assert_eq(mkfifo(path, 0600), 0, "%s", strerror(errno));
    size_t n = 100000;
    char *want = malloc(n);
    cr_assert_not_null(want);
    fill(want, n);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) { /* the writer */
        int fd = open(path, O_WRONLY);
        size_t done = 0;
        while (fd >= 0 && done < n) {
            ssize_t w = write(fd, want + done, n - done);
            if (w <= 0) break;
            done += (size_t)w;
        }
        _exit(done == n ? 0 : 1);
    }
    size_t len = 0;
    char *got = test_slurp_n(path, &len);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the writer failed");
    cr_assert_not_null(got, "a FIFO cannot seek, but it can be read: %s", strerror(errno));
    cr_assert_eq(len, n);
    cr_assert_eq(memcmp(got, want, n), 0);
    free(got);
    free(want);
}

Test(slurp, a_missing_file_is_null_with_errno)
{
    errno = 0;
    size_t len = 7;
    cr_assert_null(test_slurp_n(tmp_path("no-such-file"), &len));
    cr_assert_eq(errno, ENOENT);
    cr_assert_eq(len, 7, "len is left alone on failure");
}
