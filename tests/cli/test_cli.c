/* tests/cli/test_cli.c — the `ompdag` command end to end: values, exit codes
 * and messages, run as a user would run it. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_slurp.h"
#include "test_tmpdir.h"

typedef struct run_result {
    int status;
    char *out; /* stdout */
    char *err; /* stderr */
} run_result;

/* ARGS with each '@' replaced by this test process's own temp directory. */
static void expand_tmp(char *dst, size_t n, const char *args)
{
    const char *dir = test_tmpdir();
    cr_assert_not_null(dir, "mkdtemp failed");
    size_t k = 0;
    for (const char *p = args; *p && k + 1 < n; ++p)
        k += (size_t)snprintf(dst + k, n - k, *p == '@' ? "%s" : "%.1s", *p == '@' ? dir : p);
    cr_assert_lt(k + 1, n, "arguments too long");
}

/* The shell line running `ompdag ARGS` from the source directory, stderr
 * (and stdout unless it is left alone) captured in the temp directory. */
static void command_line(char *cmd, size_t n, const char *args, bool capture_stdout)
{
    const char *build = getenv("OMPDAG_BUILD_DIR"), *src = getenv("OMPDAG_SOURCE_DIR");
    cr_assert(build && src, "run through ctest");
    char expanded[6144], out[700] = "";
    expand_tmp(expanded, sizeof expanded, args);
    if (capture_stdout) snprintf(out, sizeof out, " >'%s'", test_tmp("stdout"));
    snprintf(cmd, n, "cd '%s' && exec '%s/cli/ompdag' %s%s 2>'%s'", src, build, expanded, out,
             test_tmp("stderr"));
}

/* Runs `ompdag ARGS` from the source directory; '@' in ARGS stands for this
 * test's temp directory, where stdout and stderr are captured too. */
static run_result ompdag(const char *args)
{
    char cmd[8192];
    command_line(cmd, sizeof cmd, args, true);
    int st = system(cmd);
    return (run_result){WIFEXITED(st) ? WEXITSTATUS(st) : -1, test_slurp(test_tmp("stdout")),
                        test_slurp(test_tmp("stderr"))};
}

static void done(run_result r)
{
    free(r.out), free(r.err);
}

Test(cli, analyze_figure5_all_algorithms_json)
{
    run_result r = ompdag("analyze examples/condag/figure5.json --algorithm all --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_error_t e;
    json_t *arr = json_loads(r.out, 0, &e);
    cr_assert(json_is_array(arr) && json_array_size(arr) == 3, "%s", r.out);
    /* m = 4, L = 3: exact m·L + m − 1 = 15, alg0 m·L + L·(m − 1) = 21 */
    const char *alg[] = {"exact", "alg0", "enumerate"};
    long long want[] = {15, 21, 15};
    for (size_t i = 0; i < 3; ++i) {
        json_t *o = json_array_get(arr, i);
        cr_expect_str_eq(json_string_value(json_object_get(o, "algorithm")), alg[i]);
        cr_expect_eq(json_integer_value(json_object_get(o, "bound_times_m")), want[i]);
        cr_expect_eq(json_integer_value(json_object_get(o, "m")), 4);
        cr_expect_float_eq(json_real_value(json_object_get(o, "bound")), want[i] / 4.0, 1e-12);
    }
    json_t *wf = json_object_get(json_array_get(arr, 0), "worst_flow");
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(wf, "choices"), "c")), "k0");
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(arr, 0), "vol")), 12);
    json_decref(arr);
    done(r);
}

Test(cli, analyze_text_names_branches_by_location)
{
    run_result r = ompdag("analyze examples/condag/fib.json --threads 4");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "branch at fib.c:8 takes fib.c:10") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "m*R = 2920") != NULL, "%s", r.out);
    done(r);
}

Test(cli, bad_input_exits_1_with_message)
{
    FILE *f = fopen(test_tmp("bad.json"), "w");
    fputs("{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":[{\"id\":\"a\",\"task\":\"t\","
          "\"kind\":\"Q\",\"wcet\":1}]}",
          f);
    fclose(f);
    run_result r = ompdag("analyze @/bad.json --threads 2");
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "node 'a'") && strstr(r.err, "'kind'"), "%s", r.err);
    cr_expect_str_eq(r.out, "");
    done(r);
    r = ompdag("analyze /nonexistent.json --threads 2");
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "/nonexistent.json: cannot open") != NULL, "%s", r.err);
    done(r);
}

Test(cli, usage_errors_exit_2)
{
    const char *cases[] = {"analyze",
                           "analyze examples/condag/fib.json --threads 0",
                           "analyze examples/condag/fib.json --algorithm fast",
                           "gen --p-if 2",
                           "frobnicate",
                           "experiment --sweep nope --out @/x"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        run_result r = ompdag(cases[i]);
        cr_expect_eq(r.status, 2, "'%s' exited %d", cases[i], r.status);
        cr_expect(r.err[0] != '\0', "'%s' printed no message", cases[i]);
        done(r);
    }
}

Test(cli, threads_required_without_file_default)
{
    run_result r = ompdag("gen --seed 5 --threads 0 -o @/nothreads.json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    done(r);
    r = ompdag("analyze @/nothreads.json");
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "--threads") != NULL, "%s", r.err);
    done(r);
}

Test(cli, every_command_has_help)
{
    run_result r = ompdag("--help");
    cr_assert_eq(r.status, 0);
    /* every listed command answers --help and `help CMD` with status 0 */
    char *list = strdup(r.out);
    done(r);
    int seen = 0;
    for (char *line = strtok(strstr(list, "commands:\n"), "\n"); line; line = strtok(NULL, "\n")) {
        char name[64];
        if (sscanf(line, "  %63s", name) != 1 || line[0] != ' ') continue;
        char args[128];
        snprintf(args, sizeof args, "%s --help", name);
        run_result h = ompdag(args);
        cr_expect_eq(h.status, 0, "%s --help exited %d", name, h.status);
        cr_expect(strstr(h.out, "usage") != NULL, "%s --help prints no usage", name);
        done(h);
        seen++;
    }
    free(list);
    cr_expect_geq(seen, 5);
    r = ompdag("--version");
    cr_expect_eq(r.status, 0);
    cr_expect(strncmp(r.out, "ompdag ", 7) == 0);
    done(r);
}

Test(cli, gen_is_deterministic_and_valid)
{
    run_result a = ompdag("gen --seed 9 --tasks 6 -o @/a.json");
    run_result b = ompdag("gen --seed 9 --tasks 6 -o @/b.json");
    cr_assert_eq(a.status, 0, "%s", a.err);
    cr_assert_eq(b.status, 0);
    char *x = test_slurp(test_tmp("a.json")), *y = test_slurp(test_tmp("b.json"));
    cr_expect_str_eq(x, y);
    free(x), free(y), done(a), done(b);
    run_result v = ompdag("validate @/a.json");
    cr_expect_eq(v.status, 0);
    cr_expect(strstr(v.out, "valid") != NULL);
    done(v);
}

Test(cli, dot_uses_figure4_conventions)
{
    run_result r = ompdag("dot examples/condag/figure5.json --flow worst");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "shape=diamond") && strstr(r.out, "shape=triangle"));
    cr_expect(strstr(r.out, "style=dotted") && strstr(r.out, "style=dashed") &&
              strstr(r.out, "style=solid"));
    cr_expect(strstr(r.out, "color=red") != NULL, "critical path not highlighted");
    done(r);
}

Test(cli, experiment_writes_summary_rows)
{
    run_result r = ompdag("experiment --sweep p-if --graphs 5 --no-plot --out @/exp");
    cr_assert_eq(r.status, 0, "%s", r.err);
    done(r);
    char *csv = test_slurp(test_tmp("exp/p-if-summary.csv"));
    int lines = 0;
    for (char *p = csv; *p; ++p)
        lines += *p == '\n';
    cr_expect_eq(lines, 11); /* header + 10 points */
    cr_expect(strncmp(csv, "x,graphs,mean_alg0_bound", 24) == 0);
    free(csv);
    csv = test_slurp(test_tmp("exp/p-if-graphs.csv"));
    lines = 0;
    for (char *p = csv; *p; ++p)
        lines += *p == '\n';
    cr_expect_eq(lines, 51);
    free(csv);
}

Test(cli, analyze_device_batch_matches_exact)
{
    run_result r = ompdag("analyze --device gpu-sim examples/condag/figure5.json "
                          "examples/condag/fib.json --threads 4 --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *arr = json_loads(r.out, 0, NULL);
    cr_assert(json_is_array(arr) && json_array_size(arr) == 2, "%s", r.out);
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(arr, 0), "bound_times_m")), 15);
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(arr, 1), "bound_times_m")),
                 2920);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(arr, 1), "device")),
                     "gpu-sim");
    json_decref(arr);
    done(r);
    r = ompdag("analyze --device gpu-sim examples/condag/fib.json --algorithm alg0 --threads 2");
    cr_expect_eq(r.status, 2);
    done(r);
}

Test(cli, map_sends_cg_regions_to_gpus_only)
{
    FILE *f = fopen(test_tmp("map.c"), "w");
    fputs("void work(int);\n"
          "void f(void) {\n"
          "#pragma ompdag resource(gpu)\n"
          "#pragma omp parallel\n#pragma omp single\n  {\n#pragma omp task\n    work(1);\n  }\n"
          "#pragma omp parallel\n#pragma omp single\n  {\n#pragma omp task\n    work(2);\n  }\n"
          "}\n",
          f);
    fclose(f);
    run_result r = ompdag("extract @/map.c -o @/map.json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    done(r);
    /* this machine has no GPU: a CG region has nowhere to go */
    r = ompdag("map @/map.json");
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "CG") != NULL, "%s", r.err);
    done(r);
    r = ompdag("map @/map.json --assume-gpus 1 -o @/mapping.json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    done(r);
    json_t *m = json_load_file(test_tmp("mapping.json"), 0, NULL);
    json_t *regions = json_object_get(m, "regions");
    cr_assert_eq(json_array_size(regions), 2);
    json_t *cg = json_array_get(regions, 0), *co = json_array_get(regions, 1);
    cr_expect_str_eq(json_string_value(json_object_get(cg, "class")), "CG");
    cr_expect_str_eq(json_string_value(json_object_get(cg, "resource")), "gpu0 (assumed)");
    cr_expect_str_eq(json_string_value(json_object_get(co, "class")), "CO");
    json_decref(m);
}

/* Regression (reliability issue, item 1): `report -o FIFO` renamed a temp file
 * over the FIFO, and `run --trace FIFO` unlinked it.  The FIFO lives in this
 * test's own directory; nothing here touches a system path. */
static void *drain(void *path)
{
    FILE *in = fopen(path, "r");
    static char buf[1 << 16];
    size_t n = in ? fread(buf, 1, sizeof buf - 1, in) : 0;
    buf[n] = '\0';
    if (in) fclose(in);
    return buf;
}

Test(cli, report_into_a_fifo_writes_through_and_run_refuses_a_fifo_trace)
{
    char fifo[640];
    snprintf(fifo, sizeof fifo, "%s", test_tmp("pipe"));
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    pthread_t reader;
    pthread_create(&reader, NULL, drain, fifo);
    run_result r = ompdag("report examples/condag/fib.json --threads 2 -o @/pipe");
    void *got;
    pthread_join(reader, &got);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr((char *)got, "fib") != NULL, "report did not reach the FIFO");
    done(r);
    r = ompdag("run --trace @/pipe -- true");
    cr_expect_eq(r.status, 1, "%s", r.err); /* bad input, as `-o DIR` elsewhere */
    cr_expect(strstr(r.err, "not a regular file") != NULL, "%s", r.err);
    done(r);
    struct stat st;
    cr_assert_eq(lstat(fifo, &st), 0);
    cr_expect(S_ISFIFO(st.st_mode), "the FIFO was replaced");
}

/* Runs `ompdag ARGS` with stdout a pipe whose reader is already closed and
 * SIGPIPE ignored, so every write fails with EPIPE (a stand-in for a full
 * disk that needs no system path); stderr is captured. */
static run_result ompdag_closed_stdout(const char *args)
{
    char cmd[8192];
    command_line(cmd, sizeof cmd, args, false);
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    close(fds[0]);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        signal(SIGPIPE, SIG_IGN);
        dup2(fds[1], STDOUT_FILENO);
        close(fds[1]);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    return (run_result){WIFEXITED(st) ? WEXITSTATUS(st) : -1, strdup(""),
                        test_slurp(test_tmp("stderr"))};
}

/* Issue 17, item 6: with stdout unwritable, analyze, validate, simulate,
 * check and bfs exited 0 with their output lost. */
Test(cli, every_command_fails_when_stdout_cannot_be_written)
{
    const char *cases[] = {
        "analyze examples/condag/fib.json --threads 2",
        "analyze examples/condag/fib.json --threads 2 --format json",
        "validate examples/condag/fib.json",
        "simulate examples/condag/fib.json --threads 2",
        "check tests/report/data/deadline.json",
        "report examples/condag/fib.json --threads 2",
        "dot examples/condag/fib.json",
        "gen --seed 3 --tasks 4",
        "bfs --graph kron:4 --sources 1",
        "resources",
        "--version",
        "--help",
        "analyze --help",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        run_result r = ompdag_closed_stdout(cases[i]);
        cr_expect_eq(r.status, 1, "'%s' exited %d: %s", cases[i], r.status, r.err);
        cr_expect(strstr(r.err, "standard output") != NULL, "'%s': %s", cases[i], r.err);
        done(r);
    }
}

/* Issue 17, item 2: m·O wrapped to 0 and the deadline passed. */
Test(cli, huge_migration_overhead_is_an_error_not_a_pass)
{
    run_result r = ompdag("report examples/condag/fib.json --threads 8 --migration-overhead "
                          "2305843009213693952 --deadline fib=1us");
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, "migration overhead") != NULL, "%s", r.err);
    cr_expect(strstr(r.out, "PASS") == NULL, "%s", r.out);
    done(r);
}

static void write_file(const char *name, const char *text)
{
    FILE *f = fopen(test_tmp(name), "w");
    cr_assert_not_null(f);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

/* Issue 17, item 8: each message names the real problem. */
Test(cli, messages_name_the_real_problem)
{
    /* JSON nested past jansson's depth, and 1e400, under an unknown key */
    size_t depth = 2100;
    char *deep = malloc(2 * depth + 256);
    int k = sprintf(deep, "{\"format\":\"ompdag-condag\",\"version\":1,\"x\":");
    for (size_t i = 0; i < depth; ++i)
        deep[k++] = '[';
    for (size_t i = 0; i < depth; ++i)
        deep[k++] = ']';
    sprintf(deep + k, ",\"nodes\":[{\"id\":\"a\",\"task\":\"t\",\"kind\":\"N\",\"wcet\":1}]}");
    write_file("deep.json", deep);
    free(deep);
    write_file("huge.json", "{\"format\":\"ompdag-condag\",\"version\":1,\"x\":1e400,"
                            "\"nodes\":[{\"id\":\"a\",\"task\":\"t\",\"kind\":\"N\",\"wcet\":1}]}");
    write_file("v2.json",
               "{\"format\":\"ompdag-condag-set\",\"version\":1,\"graphs\":[{\"version\":2,"
               "\"nodes\":[{\"id\":\"a\",\"task\":\"t\",\"kind\":\"N\",\"wcet\":1}]}]}");
    struct {
        const char *args;
        int status;
        const char *want, *not_want;
    } cases[] = {
        {"validate @/deep.json", 1, "depth", "duplicate"},
        {"validate @/huge.json", 1, "overflow", "duplicate"},
        {"validate @/v2.json", 1, "version", NULL},
        {"analyze examples/condag/fib.json --threads", 2, "'--threads' needs an argument",
         "unknown"},
        {"report examples/condag/fib.json --deadline", 2, "'--deadline' needs an argument",
         "unknown"},
        {"dot examples/condag/fib.json -o", 2, "'-o' needs an argument", NULL},
        {"analyze examples/condag/fib.json --no-such", 2, "unknown option '--no-such'", NULL},
        {"analyze examples/condag/fib.json --threads 2147483647", 2, "[1, 1048576]", "positive"},
        {"validate --no-such-flag", 2, "unknown option '--no-such-flag'", "cannot open"},
        {"report examples/condag/fib.json --threads 8 --migration-overhead 4611686018427387904", 1,
         "migration overhead", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        run_result r = ompdag(cases[i].args);
        cr_expect_eq(r.status, cases[i].status, "'%s' exited %d: %s", cases[i].args, r.status,
                     r.err);
        if (cases[i].want)
            cr_expect(strstr(r.err, cases[i].want) != NULL, "'%s': %s", cases[i].args, r.err);
        if (cases[i].not_want)
            cr_expect(strstr(r.err, cases[i].not_want) == NULL, "'%s': %s", cases[i].args, r.err);
        cr_expect(strstr(r.err, "annotate: annotate:") == NULL, "%s", r.err);
        done(r);
    }
}

/* Issue 17, item 8: a file name containing ':' works with --deadline FILE:LINE
 * (the last colon splits), and a C++ name "ns::f" is a function. */
Test(cli, deadline_file_names_may_contain_colons)
{
    write_file("a:b.json", "{\"format\":\"ompdag-condag\",\"version\":1,\"threads\":2,"
                           "\"time_unit\":\"ns\",\"function\":\"ns::f\","
                           "\"loc\":{\"file\":\"dir/we:ird.c\",\"line\":7},"
                           "\"nodes\":[{\"id\":\"a\",\"task\":\"t\",\"kind\":\"N\",\"wcet\":10}]}");
    run_result r = ompdag("check '@/a:b.json' --deadline we:ird.c:7=15ns");
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    done(r);
    r = ompdag("check '@/a:b.json' --deadline we:ird.c:7=5ns");
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    done(r);
    r = ompdag("check '@/a:b.json' --deadline ns::f=15ns --require-deadline");
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    done(r);
}

/* Issue 17, item 5: simulate ran 100,000 flows before saying there were too
 * many; it counts them first (2^17 here) and refuses at once. */
Test(cli, simulate_counts_flows_before_simulating)
{
    FILE *f = fopen(test_tmp("flows.json"), "w");
    cr_assert_not_null(f);
    fputs("{\"format\":\"ompdag-condag\",\"version\":1,\"threads\":2,\"nodes\":[", f);
    enum { K = 17 };
    for (int i = 0; i < K; ++i)
        fprintf(f,
                "%s{\"id\":\"c%d\",\"task\":\"t\",\"kind\":\"C\",\"wcet\":1},"
                "{\"id\":\"a%d\",\"task\":\"t\",\"kind\":\"N\",\"wcet\":1},"
                "{\"id\":\"b%d\",\"task\":\"t\",\"kind\":\"N\",\"wcet\":2},"
                "{\"id\":\"j%d\",\"task\":\"t\",\"kind\":\"J\",\"wcet\":0}",
                i ? "," : "", i, i, i, i);
    fputs("],\"edges\":[", f);
    for (int i = 0; i < K; ++i)
        fprintf(f, "%s[\"c%d\",\"a%d\"],[\"c%d\",\"b%d\"],[\"a%d\",\"j%d\"],[\"b%d\",\"j%d\"]%s",
                i ? "," : "", i, i, i, i, i, i, i, i, i + 1 < K ? "" : "");
    for (int i = 0; i + 1 < K; ++i)
        fprintf(f, ",[\"j%d\",\"c%d\"]", i, i + 1);
    fputs("]}", f);
    cr_assert_eq(fclose(f), 0);
    run_result r = ompdag("simulate @/flows.json");
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "131072 flows") != NULL, "%s", r.err);
    done(r);
}

/* condag.md §6 on the command line: exact flag, refusals, drawing, generator
 * and sweep parameters.  Outputs go to a private temp dir. */
Test(cli, depend_clauses_end_to_end)
{
    char dir[] = "/tmp/ompdag-cli-dep-XXXXXX", args[4096];
    cr_assert_not_null(mkdtemp(dir));
    run_result r = ompdag("analyze examples/condag/depend.json --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_error_t e;
    json_t *o = json_loads(r.out, 0, &e);
    cr_assert(json_is_object(o), "%s", r.out);
    cr_expect_str_eq(json_string_value(json_object_get(o, "algorithm")), "depend");
    cr_expect(json_is_true(json_object_get(o, "exact")));
    /* the writer's arm: vol 43, path t1 a1 b1 w = 42: 43 + 42 = 85 */
    cr_expect_eq(json_integer_value(json_object_get(o, "bound_times_m")), 85);
    json_decref(o);
    done(r);
    r = ompdag("analyze examples/condag/depend.json --algorithm all");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "exact") && strstr(r.out, "enumerate") && !strstr(r.out, "alg0"));
    done(r);
    r = ompdag("analyze examples/condag/depend.json --algorithm alg0");
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "depend") && strstr(r.err, "t1"), "%s", r.err);
    done(r);
    r = ompdag("analyze --device cpu examples/condag/depend.json");
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "depend") != NULL, "%s", r.err);
    done(r);
    r = ompdag("dot examples/condag/depend.json --flow worst");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "arrowhead=empty") && strstr(r.out, "(exact)"), "%s", r.out);
    done(r);
    snprintf(args, sizeof args, "gen --seed 3 --tasks 8 --p-dep 1 --dep-vars 2 -o %s/g.json", dir);
    r = ompdag(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    done(r);
    snprintf(args, sizeof args, "%s/g.json", dir);
    char *g = test_slurp(args);
    cr_expect(strstr(g, "\"depend\"") != NULL);
    free(g);
    /* partial taskwaits: W nodes with items, under their extension */
    snprintf(args, sizeof args,
             "gen --seed 3 --tasks 8 --p-dep 1 --p-wait 0.6 --p-wait-dep 1 -o %s/w.json", dir);
    r = ompdag(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    done(r);
    snprintf(args, sizeof args, "%s/w.json", dir);
    g = test_slurp(args);
    cr_expect(strstr(g, "\"taskwait-depend\"") != NULL, "%.400s", g);
    free(g);
    snprintf(args, sizeof args, "analyze %s/w.json --threads 2", dir);
    r = ompdag(args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    done(r);
    r = ompdag("gen --p-wait-dep 2");
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, "--p-wait-dep is a number in [0, 1]") != NULL, "%s", r.err);
    done(r);
    snprintf(args, sizeof args, "experiment --sweep p-dep --graphs 3 --no-plot --out %s", dir);
    r = ompdag(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    done(r);
    snprintf(args, sizeof args, "%s/p-dep-summary.csv", dir);
    char *csv = test_slurp(args);
    cr_expect(strncmp(csv, "x,graphs,mean_nodep_bound,mean_depend_bound", 43) == 0, "%s", csv);
    cr_expect(strstr(csv, "exact_share") != NULL);
    free(csv);
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    cr_expect_eq(system(args), 0);
}
