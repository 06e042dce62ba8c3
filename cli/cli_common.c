/* cli/cli_common.c — argument parsing, error printing and progress shared by
 * every subcommand. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_fail(const char *cmd, const ompdag_error *err)
{
    fprintf(stderr, "ompdag %s: %s\n", cmd, err && err->message[0] ? err->message : "failed");
    return CLI_EXIT_FAIL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ompdag %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see 'ompdag %s --help')\n", cmd);
    va_end(ap);
    return CLI_EXIT_USAGE;
}

bool cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool cli_parse_i32_list(const char *s, int32_t lo, int32_t hi, int32_t **out, int *count)
{
    int n = 1;
    for (const char *p = s; *p; ++p)
        n += *p == ',';
    int32_t *vals = malloc(sizeof *vals * (size_t)n);
    char *copy = strdup(s);
    if (!vals || !copy)
        goto fail;
    int k = 0;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int64_t v;
        if (!cli_parse_i64(tok, lo, hi, &v))
            goto fail;
        vals[k++] = (int32_t)v;
    }
    if (k != n)
        goto fail;
    free(copy);
    *out = vals;
    *count = k;
    return true;
fail:
    free(vals);
    free(copy);
    return false;
}

bool cli_parse_i64_range(const char *s, int64_t lo, int64_t hi, int64_t *a, int64_t *b)
{
    const char *dots = strstr(s, "..");
    if (!dots)
        return false;
    char left[32];
    size_t n = (size_t)(dots - s);
    if (n == 0 || n >= sizeof left)
        return false;
    memcpy(left, s, n);
    left[n] = '\0';
    return cli_parse_i64(left, lo, hi, a) && cli_parse_i64(dots + 2, lo, hi, b) && *a <= *b;
}

bool cli_parse_prob(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 0.0 && v <= 1.0))
        return false;
    *out = v;
    return true;
}

bool cli_stderr_is_tty(void)
{
    return isatty(STDERR_FILENO) != 0;
}

void cli_progress(const char *label, uint64_t done, uint64_t total)
{
    if (!cli_stderr_is_tty() || total == 0)
        return;
    enum { WIDTH = 40 };
    int filled = (int)(done * WIDTH / total);
    fprintf(stderr, "\r%s [%.*s%*s] %" PRIu64 "/%" PRIu64, label, filled,
            "########################################", WIDTH - filled, "", done, total);
    if (done >= total)
        fputc('\n', stderr);
    fflush(stderr);
}
