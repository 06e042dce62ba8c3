/* cli/cli_common.c — argument parsing, error printing and progress shared by
 * every subcommand. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "ompdag/condag.h"
#include "ompdag/internal/clock.h"
#include "ompdag/report.h"

int cli_fail(const char *cmd, const ompdag_error *err)
{
    const char *msg = err && err->message[0] ? err->message : "failed";
    size_t n = strlen(cmd); /* a library message may already name the command */
    if (!strncmp(msg, cmd, n) && msg[n] == ':' && msg[n + 1] == ' ') msg += n + 2;
    fprintf(stderr, "ompdag %s: %s\n", cmd, msg);
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

int cli_option_error(const char *cmd, char **argv, const struct option *longopts,
                     const char *shortopts)
{
    const char *a = argv[optind - 1];
    if (a[0] == '-' && a[1] == '-') {
        const char *name = a + 2;
        size_t len = strcspn(name, "=");
        /* glibc sets optopt to a long option's val when its argument is missing */
        for (const struct option *o = longopts; o && o->name && !name[len]; ++o)
            if (o->has_arg == required_argument && optopt && o->val == optopt &&
                !strncmp(o->name, name, len))
                return cli_usage_error(cmd, "option '--%s' needs an argument", o->name);
        return cli_usage_error(cmd, "unknown option '%.*s'", (int)(len + 2), a);
    }
    const char *s = optopt && shortopts ? strchr(shortopts, optopt) : NULL;
    if (s && s[1] == ':') return cli_usage_error(cmd, "option '-%c' needs an argument", optopt);
    if (optopt) return cli_usage_error(cmd, "unknown option '-%c'", optopt);
    return cli_usage_error(cmd, "unknown option '%s'", a);
}

int cli_flush_stdout(const char *cmd, int rc)
{
    errno = 0;
    int failed = fflush(stdout) != 0, e = errno;
    if (!failed && !ferror(stdout)) return rc;
    fprintf(stderr, "ompdag %s: cannot write standard output: %s\n", cmd,
            failed && e ? strerror(e) : "an earlier write failed");
    return rc ? rc : CLI_EXIT_FAIL;
}

bool cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return false;
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
    if (!vals || !copy) goto fail;
    int k = 0;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int64_t v;
        if (!cli_parse_i64(tok, lo, hi, &v)) goto fail;
        vals[k++] = (int32_t)v;
    }
    if (k != n) goto fail;
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
    if (!dots) return false;
    char left[32];
    size_t n = (size_t)(dots - s);
    if (n == 0 || n >= sizeof left) return false;
    memcpy(left, s, n);
    left[n] = '\0';
    return cli_parse_i64(left, lo, hi, a) && cli_parse_i64(dots + 2, lo, hi, b) && *a <= *b;
}

bool cli_parse_prob(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 0.0 && v <= 1.0)) return false;
    *out = v;
    return true;
}

bool cli_stderr_is_tty(void)
{
    return isatty(STDERR_FILENO) != 0;
}

void cli_progress(const char *label, uint64_t done, uint64_t total)
{
    if (!cli_stderr_is_tty() || total == 0) return;
    enum { WIDTH = 40 };
    int filled = (int)(done * WIDTH / total);
    fprintf(stderr, "\r%s [%.*s%*s] %" PRIu64 "/%" PRIu64, label, filled,
            "########################################", WIDTH - filled, "", done, total);
    if (done >= total) fputc('\n', stderr);
    fflush(stderr);
}

bool cli_exe_dir(char *dir, size_t size)
{
    if (size < 2) return false;
    ssize_t len = readlink("/proc/self/exe", dir, size - 1);
    if (len <= 0 || (size_t)len >= size - 1) return false;
    dir[len] = 0;
    char *slash = strrchr(dir, '/');
    if (!slash) return false;
    *slash = 0;
    return true;
}

int64_t cli_now_ns(void)
{
    return ompdag_now_ns();
}

int cli_pipe_through(const char *const argv[], const char *input, size_t len, FILE *out,
                     ompdag_error *err)
{
    return cli_pipe_through_limited(argv, input, len, out, 0, err);
}

/* Waits for pid, killing it once timeout_ns (> 0) has passed; the status, or
 * CLI_PIPE_TIMED_OUT. */
static int wait_limited(pid_t pid, int64_t timeout_ns)
{
    int status;
    int64_t until = timeout_ns > 0 ? cli_now_ns() + timeout_ns : INT64_MAX;
    for (;;) {
        pid_t w = waitpid(pid, &status, timeout_ns > 0 ? WNOHANG : 0);
        if (w == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
        if (w < 0 && errno != EINTR) return 128;
        if (cli_now_ns() >= until) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return CLI_PIPE_TIMED_OUT;
        }
        struct timespec nap = {0, 2000000}; /* 2 ms */
        nanosleep(&nap, NULL);
    }
}

int cli_pipe_through_limited(const char *const argv[], const char *input, size_t len, FILE *out,
                             int64_t timeout_ns, ompdag_error *err)
{
    int fds[2];
    fflush(out);
    if (pipe(fds) != 0) {
        ompdag_error_set(err, OMPDAG_ERR_IO, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        ompdag_error_set(err, OMPDAG_ERR_IO, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        dup2(fds[0], STDIN_FILENO);
        dup2(fileno(out), STDOUT_FILENO);
        close(fds[0]), close(fds[1]);
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "ompdag: cannot run '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fds[0]);
    /* SIGPIPE would kill us if the child dies early; ignore it for the write. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigaction(SIGPIPE, &ign, &old);
    for (size_t done = 0; done < len;) {
        ssize_t n = write(fds[1], input + done, len - done);
        if (n <= 0) break;
        done += (size_t)n;
    }
    close(fds[1]);
    sigaction(SIGPIPE, &old, NULL);
    int code = wait_limited(pid, timeout_ns);
    char limit[32];
    if (code == CLI_PIPE_TIMED_OUT)
        ompdag_error_set(err, OMPDAG_ERR_LIMIT, "'%s' took longer than %s and was stopped", argv[0],
                         ompdag_duration_format((double)timeout_ns, limit, sizeof limit));
    else if (code == 127)
        ompdag_error_set(err, OMPDAG_ERR_IO, "'%s' is not installed (run scripts/install-deps.sh)",
                         argv[0]);
    else if (code != 0)
        ompdag_error_set(err, OMPDAG_ERR_IO, "'%s' failed with status %d", argv[0], code);
    return code;
}

ompdag_condag_set *cli_load_graphs(const char *cmd, const char *path)
{
    ompdag_condag_set *s = NULL;
    ompdag_error err = {0};
    if (ompdag_condag_set_load_file(path, &s, &err) != OMPDAG_OK) {
        cli_fail(cmd, &err);
        return NULL;
    }
    return s;
}

bool cli_threads_for(const ompdag_condag *g, const int32_t *list, int count, const int32_t **out,
                     int *out_count, int32_t *scratch)
{
    if (count > 0) {
        *out = list, *out_count = count;
        return true;
    }
    if (ompdag_condag_threads(g) <= 0) return false;
    *scratch = ompdag_condag_threads(g);
    *out = scratch, *out_count = 1;
    return true;
}
