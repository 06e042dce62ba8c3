/* `ompdag bfs`: text and JSON output, validation exit codes, errors. */
#include "bfs_test_util.h" /* criterion.h first: redirect.h alone breaks its asserts */

#include <criterion/redirect.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "test_tmpdir.h"

static void redirect_all(void)
{
    cr_redirect_stdout();
    cr_redirect_stderr();
}

static int run_bfs(const char *const *args)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)"bfs";
    for (; *args; ++args)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    int rc = cmd_bfs(argc, argv);
    fflush(stdout);
    fflush(stderr);
    return rc;
}

static char *slurp(FILE *f)
{
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    return buf;
}

static int count(const char *hay, const char *needle)
{
    int k = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        ++k;
    return k;
}

Test(cli, text_report_all_engines, .init = redirect_all)
{
    const char *args[] = {"--graph",   "kron:9", "--engine",   "cpu-topdown,cpu,gpu-sim",
                          "--sources", "4",      "--validate", "--levels",
                          NULL};
    cr_assert_eq(run_bfs(args), CLI_EXIT_OK);
    char *out = slurp(cr_get_redirected_stdout());
    cr_assert_eq(count(out, "harmonic mean"), 3, "%s", out);
    cr_assert_eq(count(out, "4 of 4 searches valid"), 3, "%s", out);
    cr_assert_not_null(strstr(out, "engine gpu-sim: 4 searches"));
    cr_assert_not_null(strstr(out, "level  dir  visited"));
}

Test(cli, json_report, .init = redirect_all)
{
    const char *args[] = {"--graph", "kron:8",   "--engine", "cpu",        "--sources",
                          "3",       "--format", "json",     "--validate", NULL};
    cr_assert_eq(run_bfs(args), CLI_EXIT_OK);
    char *out = slurp(cr_get_redirected_stdout());
    cr_assert_eq(
        strncmp(out, "{\"engine\": \"cpu\", \"scale\": 8, \"vertices\": 256, \"edges\": ", 55), 0,
        "%s", out);
    cr_assert_eq(count(out, "\"source\": "), 3, "%s", out);
    cr_assert_eq(count(out, "\"valid\": true"), 3, "%s", out);
    cr_assert_not_null(strstr(out, "\"harmonic_mean_teps\": "));
    cr_assert_not_null(strstr(out, "\"time_s\": "));
}

Test(cli, graph_file_and_malformed_file, .init = redirect_all)
{
    char path[640];
    snprintf(path, sizeof path, "%s", test_tmp("g.el"));
    FILE *f = fopen(path, "w");
    fputs("0 1\n1 2\n2 3\n3 0\n4 5\n", f);
    fclose(f);
    const char *args[] = {"--graph", path,       "--engine", "gpu-sim",    "--sources",
                          "2",       "--format", "json",     "--validate", NULL};
    cr_assert_eq(run_bfs(args), CLI_EXIT_OK);
    char *out = slurp(cr_get_redirected_stdout());
    cr_assert_not_null(strstr(out, "g.el\""), "%s", out);
    cr_assert_not_null(strstr(out, "\"vertices\": 6"), "%s", out);
    f = fopen(path, "w");
    fputs("0 1\n1 two\n", f);
    fclose(f);
    const char *bad[] = {"--graph", path, NULL};
    cr_assert_eq(run_bfs(bad), CLI_EXIT_FAIL);
    char *errs = slurp(cr_get_redirected_stderr());
    cr_assert_not_null(strstr(errs, ":2:"), "%s", errs);
    unlink(path);
}

/* --save writes the built graph; reading it back gives the same graph, and
 * the device loop's counts reach the JSON report. */
Test(cli, save_and_loop_options, .init = redirect_all)
{
    const char *ext[] = {"csr", "mtx", "el"};
    for (int k = 0; k < 3; ++k) {
        char name[16], path[640];
        snprintf(name, sizeof name, "k9.%s", ext[k]);
        snprintf(path, sizeof path, "%s", test_tmp(name));
        const char *save[] = {"--graph", "kron:9",   "--save", path, "--sources",
                              "1",       "--format", "json",   NULL};
        cr_assert_eq(run_bfs(save), CLI_EXIT_OK);
        ompdag_graph *a = tu_kron(9, 1), *b = NULL;
        cr_assert_eq(ompdag_graph_read(path, OMPDAG_GRAPH_FORMAT_AUTO,
                                       OMPDAG_GRAPH_UNDIRECTED_SIMPLE, &b, NULL),
                     OMPDAG_OK);
        cr_assert_eq(ompdag_graph_vertices(b), ompdag_graph_vertices(a));
        cr_assert_eq(ompdag_graph_arcs(b), ompdag_graph_arcs(a));
        for (int64_t v = 0; v < ompdag_graph_vertices(a); ++v)
            cr_assert_eq(ompdag_graph_degree(b, v), ompdag_graph_degree(a, v));
        ompdag_graph_destroy(a);
        ompdag_graph_destroy(b);
        unlink(path);
    }
    const char *loop[] = {"--graph",  "kron:8",   "--engine",   "gpu-sim",   "--loop",
                          "host",     "--switch", "alpha",      "--sources", "2",
                          "--format", "json",     "--validate", NULL};
    cr_assert_eq(run_bfs(loop), CLI_EXIT_OK);
    const char *bad[] = {"--graph", "kron:8", "--loop", "sideways", NULL};
    cr_assert_eq(run_bfs(bad), CLI_EXIT_USAGE);
    char *out = slurp(cr_get_redirected_stdout());
    cr_assert_not_null(strstr(out, "\"host_syncs_per_search\""), "%s", out);
    char *errs = slurp(cr_get_redirected_stderr());
    cr_assert_not_null(strstr(errs, "unknown level loop 'sideways'"), "%s", errs);
}

Test(cli, usage_errors, .init = redirect_all)
{
    const char *no_graph[] = {"--engine", "cpu", NULL};
    cr_assert_eq(run_bfs(no_graph), CLI_EXIT_USAGE);
    const char *bad_engine[] = {"--graph", "kron:5", "--engine", "cpu,tpu", NULL};
    cr_assert_eq(run_bfs(bad_engine), CLI_EXIT_USAGE);
    const char *bad_scale[] = {"--graph", "kron:x", NULL};
    cr_assert_eq(run_bfs(bad_scale), CLI_EXIT_FAIL);
    const char *bad_format[] = {"--graph", "kron:5", "--format", "xml", NULL};
    cr_assert_eq(run_bfs(bad_format), CLI_EXIT_USAGE);
    char *errs = slurp(cr_get_redirected_stderr());
    cr_assert_not_null(strstr(errs, "--graph is required"), "%s", errs);
    cr_assert_not_null(strstr(errs, "unknown BFS engine 'tpu'"), "%s", errs);
}

Test(cli, gpu_engine_reports_why, .init = redirect_all)
{
    if (ompdag_bfs_gpu_available(NULL, 0))
        return; /* a GPU machine runs the engine in test_engines instead */
    const char *args[] = {"--graph", "kron:6", "--engine", "gpu", "--sources", "1", NULL};
    cr_assert_eq(run_bfs(args), CLI_EXIT_FAIL);
    char *errs = slurp(cr_get_redirected_stderr());
    cr_assert_not_null(strstr(errs, "engine gpu cannot run here"), "%s", errs);
}

/* Issue 17, item 8: "ompdag annotate: annotate: ..." named the command twice
 * when the library's message already began with it. */
Test(cli, a_failure_names_the_command_once, .init = redirect_all)
{
    ompdag_error err = {0};
    ompdag_error_set(&err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    cr_assert_eq(cli_fail("annotate", &err), CLI_EXIT_FAIL);
    ompdag_error_set(&err, OMPDAG_ERR_IO, "annotated.json: cannot write: No space left on device");
    cli_fail("annotate", &err);
    fflush(stderr);
    char *errs = slurp(cr_get_redirected_stderr());
    cr_assert_str_eq(errs,
                     "ompdag annotate: out of memory\n"
                     "ompdag annotate: annotated.json: cannot write: No space left on device\n");
}

/* Issue 26 item 15: `--save -` created a file named "-" where every other
 * output means standard output.  The graph is standard output, and the
 * report moves to standard error so that the two never mix. */
Test(cli, save_dash_writes_the_graph_to_stdout_and_the_report_to_stderr, .init = redirect_all)
{
    const char *args[] = {"--graph", "kron:6", "--save", "-", "--sources", "1", NULL};
    cr_assert_eq(run_bfs(args), CLI_EXIT_OK);
    cr_expect_neq(access("-", F_OK), 0, "a file named '-' was created");
    char *out = slurp(cr_get_redirected_stdout());
    cr_expect_eq(strncmp(out, "# ompdag edge list", 18), 0, "%.200s", out);
    cr_expect_null(strstr(out, "saved"), "the report went into the graph");
    char *errs = slurp(cr_get_redirected_stderr());
    cr_expect_not_null(strstr(errs, "saved -"), "%s", errs);
}
