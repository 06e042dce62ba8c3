/*
 * cli/cli.h — what every `ompdag` subcommand shares: the command table's
 * handler signature, argument helpers and error printing.
 */
#ifndef OMPDAG_CLI_H
#define OMPDAG_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ompdag/condag.h"
#include "ompdag/error.h"
#include "ompdag/internal/condag_json.h"

#define OMPDAG_COMMAND(name, summary)                                                              \
    int cmd_##name(int argc, char **argv);                                                         \
    void cmd_##name##_help(FILE *out);
#include "commands.def"
#undef OMPDAG_COMMAND

/* Exit codes shared by all subcommands. */
enum { CLI_EXIT_OK = 0, CLI_EXIT_FAIL = 1, CLI_EXIT_USAGE = 2 };

/* Prints "ompdag CMD: message" to stderr and returns CLI_EXIT_FAIL. */
int cli_fail(const char *cmd, const ompdag_error *err);
/* Prints "ompdag CMD: <formatted>" plus a --help hint; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* For getopt_long's '?': "option '--X' needs an argument" when argv[optind-1]
 * is a known option missing its value, else "unknown option 'ARG'"; returns
 * CLI_EXIT_USAGE. */
struct option;
int cli_option_error(const char *cmd, char **argv, const struct option *longopts,
                     const char *shortopts);

/* Flushes stdout; when that or any earlier write to it failed, prints
 * "ompdag CMD: cannot write standard output: CAUSE" and returns
 * CLI_EXIT_FAIL in place of a 0 `rc` (a non-zero rc is kept). */
int cli_flush_stdout(const char *cmd, int rc);

/* Parses a decimal int64 in [lo, hi]; false on junk or range error. */
bool cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);
/* Parses a comma-separated list of ints in [lo, hi] into a new array. */
bool cli_parse_i32_list(const char *s, int32_t lo, int32_t hi, int32_t **out, int *count);
/* Parses "A..B" into lo/hi. */
bool cli_parse_i64_range(const char *s, int64_t lo, int64_t hi, int64_t *a, int64_t *b);
/* Parses a probability in [0, 1]. */
bool cli_parse_prob(const char *s, double *out);

/* True when stderr is a terminal (progress bars go there only then). */
bool cli_stderr_is_tty(void);
/* Draws "label [#####     ] done/total" on stderr when it is a terminal. */
void cli_progress(const char *label, uint64_t done, uint64_t total);

/* Monotonic time in ns: every duration the CLI prints goes through this. */
int64_t cli_now_ns(void);

/* Runs argv[0] (searched in PATH) with `input` on its stdin and its stdout
 * on `out`; returns the exit status, or -1 (with err) when it cannot run. */
int cli_pipe_through(const char *const argv[], const char *input, size_t len, FILE *out,
                     ompdag_error *err);

/* cli_pipe_through, stopping the child (SIGKILL) once timeout_ns > 0 has
 * passed: then it returns CLI_PIPE_TIMED_OUT with err naming the limit.
 * Graphviz's layout can take minutes on a few hundred nodes (issue 26). */
enum { CLI_PIPE_TIMED_OUT = 1000 };
int cli_pipe_through_limited(const char *const argv[], const char *input, size_t len, FILE *out,
                             int64_t timeout_ns, ompdag_error *err);

/* The default limit on a graphviz layout (--layout-timeout). */
#define CLI_LAYOUT_TIMEOUT_NS INT64_C(8000000000)

/* Writes the directory of the running executable (from /proc/self/exe) to
 * dir; false when it cannot be read.  Tools find their shared objects
 * relative to it, never through a compiled-in absolute path. */
bool cli_exe_dir(char *dir, size_t size);

/* Makes the libclang front end (include/ompdag/frontend.h) callable: loads
 * libompdag_frontend.so on first use (cli/frontend_load.c).  False, with a
 * message saying why and what to install, when it is not available. */
bool cli_frontend_load(ompdag_error *err);

/* Granularity advice for a loaded set (cmd_advise.c): loads MODEL (NULL: the
 * default), fills *out (free with ompdag_advice_destroy); prints the error
 * and returns CLI_EXIT_FAIL on failure. */
struct ompdag_advice;
int cli_advice_for(const char *cmd, const ompdag_condag_set *s, const char *model, int32_t threads,
                   struct ompdag_advice **out);

/* Loads a con-DAG file (or set); prints the error and returns NULL on failure. */
struct ompdag_condag_set *cli_load_graphs(const char *cmd, const char *path);

/* Parses "--threads 4,8" style lists; the graph's own `threads` is used when
 * the option is absent.  Returns false when neither is available. */
bool cli_threads_for(const struct ompdag_condag *g, const int32_t *list, int count,
                     const int32_t **out, int *out_count, int32_t *scratch);

#endif
