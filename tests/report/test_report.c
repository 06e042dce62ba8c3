/* tests/report/test_report.c — `ompdag report` and `ompdag check`: values and
 * verdicts against hand-computed bounds, deadline precedence, exit codes,
 * golden text/JSON reports, CSV, SARIF 2.1.0 structure, the HTML page in
 * headless Chromium, the plugin's violation list, and the real pipeline
 * (extract -> clang -> run -> annotate -> report/check) on an example. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ompdag/internal/condag_json.h"
#include "ompdag/report.h"
#include "test_slurp.h"
#include "test_tmpdir.h"

/* ---- helpers ---------------------------------------------------------------- */

typedef struct run_result {
    int status;
    char *out, *err;
} run_result;

static const char *tmpdir(void)
{
    const char *dir = test_tmpdir();
    cr_assert_not_null(dir, "mkdtemp failed");
    return dir;
}

static const char *src_dir(void)
{
    const char *s = getenv("OMPDAG_SOURCE_DIR");
    cr_assert(s, "run through ctest");
    return s;
}

/* Runs a shell command line from the source directory; `ompdag` is the
 * binary under test. */
static run_result sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static run_result sh(const char *fmt, ...)
{
    const char *build = getenv("OMPDAG_BUILD_DIR");
    cr_assert(build, "run through ctest");
    char line[8192], cmd[12288];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && ompdag() { '%s/cli/ompdag' \"$@\"; } && { %s ; } >%s/out 2>%s/err",
             src_dir(), build, line, tmpdir(), tmpdir());
    int st = system(cmd);
    char o[300], e[300];
    snprintf(o, sizeof o, "%s/out", tmpdir());
    snprintf(e, sizeof e, "%s/err", tmpdir());
    return (run_result){WIFEXITED(st) ? WEXITSTATUS(st) : -1, test_slurp(o), test_slurp(e)};
}

static void done(run_result r)
{
    free(r.out), free(r.err);
}

static ompdag_condag_set *load(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", src_dir(), rel);
    ompdag_condag_set *s = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_file(path, &s, &err), OMPDAG_OK, "%s", err.message);
    return s;
}

#define FIXTURE "tests/report/data/deadline.json"
#define FIG3 "tests/report/data/fig3_nested.annotated.json"

static const char *FIXTURE_PATH_BUF(void)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", src_dir(), FIXTURE);
    return path;
}

/* ---- durations -------------------------------------------------------------- */

Test(duration, parses_units_and_decimals)
{
    struct {
        const char *text;
        int64_t ns;
    } good[] = {{"5ms", 5000000},       {"800us", 800000},   {"10.7us", 10700},
                {"2s", 2000000000},     {"150ns", 150},      {"0.5s", 500000000},
                {"1.000001ms", 1000001}, {"3 ms", 3000000},  {"0ns", 0},
                {"9223372036854775807ns", INT64_MAX}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; ++i) {
        int64_t ns = -1;
        ompdag_error err = {0};
        cr_expect_eq(ompdag_duration_parse(good[i].text, &ns, &err), OMPDAG_OK, "%s: %s",
                     good[i].text, err.message);
        cr_expect_eq(ns, good[i].ns, "%s -> %lld", good[i].text, (long long)ns);
    }
    const char *bad[] = {"", "5", "ms", "5 m", "5min", "-5ms", "1.5ns", "5ms ", "1e3us",
                         "9223372036854775808ns", "10000000000s", "1..2ms", ".ms"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        int64_t ns = 0;
        ompdag_error err = {0};
        cr_expect_neq(ompdag_duration_parse(bad[i], &ns, &err), OMPDAG_OK, "'%s' accepted", bad[i]);
        cr_expect(err.message[0], "'%s': no message", bad[i]);
    }
}

Test(duration, formats_three_digits)
{
    char buf[64];
    cr_expect_str_eq(ompdag_duration_format(6.2e6, buf, sizeof buf), "6.2 ms");
    cr_expect_str_eq(ompdag_duration_format(5e6, buf, sizeof buf), "5 ms");
    cr_expect_str_eq(ompdag_duration_format(800e3, buf, sizeof buf), "800 us");
    cr_expect_str_eq(ompdag_duration_format(12, buf, sizeof buf), "12 ns");
    cr_expect_str_eq(ompdag_duration_format(2.5e9, buf, sizeof buf), "2.5 s");
    cr_expect_str_eq(ompdag_duration_format(999.9, buf, sizeof buf), "1 us");
}

/* ---- report values (library) ------------------------------------------------- */

/* deadline.json, graph "main" in us, worked by hand:
 *   flow then: vol 100+1000+50+2000 = 3150, len a->x->w = 2150
 *   flow else: vol 100+200+50+2000+300 = 2650, len 2150
 *   m·R = 3150 + (m−1)·2150: m=1 3150, m=2 5300, m=4 9600 (2.4 ms). */
static ompdag_report *make_report(ompdag_condag_set *s, const int32_t *ms, int nm,
                                  const char *const *deadlines, ompdag_error *err,
                                  ompdag_status *st)
{
    ompdag_deadlines *d = ompdag_deadlines_create();
    for (int i = 0; deadlines && deadlines[i]; ++i)
        cr_assert_eq(ompdag_deadlines_add(d, deadlines[i], err), OMPDAG_OK, "%s", err->message);
    ompdag_report_options opt;
    ompdag_report_options_init(&opt);
    opt.threads = ms, opt.thread_count = nm, opt.deadlines = d;
    ompdag_report *r = NULL;
    *st = ompdag_report_create(s, &opt, &r, err);
    ompdag_deadlines_destroy(d); /* the report copied what it needs */
    return r;
}

Test(report, bounds_and_verdicts_match_hand_computation)
{
    ompdag_condag_set *s = load(FIXTURE);
    const int32_t ms[] = {1, 2, 4};
    ompdag_error err = {0};
    ompdag_status st;
    ompdag_report *r = make_report(s, ms, 3, NULL, &err, &st);
    cr_assert_eq(st, OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_report_row_count(r), 6);
    const int64_t want[] = {3150, 5300, 9600};
    for (int k = 0; k < 3; ++k) {
        const ompdag_report_row *row = ompdag_report_row_get(r, (size_t)k);
        cr_expect_str_eq(row->function, "main");
        cr_expect_eq(row->m, ms[k]);
        cr_expect_eq(row->bound_times_m, want[k]);
        cr_expect_float_eq(row->bound_ns, want[k] * 1000.0 / ms[k], 1e-6);
        cr_expect_eq(row->vol, 3150);
        cr_expect_eq(row->len, 2150);
        cr_expect_eq(row->tasks, 4);
        cr_expect_eq(row->nodes, 9);
        cr_expect_float_eq(row->observed_max_ns, 1500000.0, 1e-6);
        cr_expect_eq(row->deadline_ns, 5000000);
        cr_expect_str_eq(row->deadline_from, "pragma");
        cr_expect_eq(row->verdict, OMPDAG_VERDICT_PASS);
        cr_expect_float_eq(row->slack_ns, 5e6 - want[k] * 1000.0 / ms[k], 1e-6);
        cr_expect_eq(row->loc.line, 10);
        cr_expect_eq(row->tied_tasks, 0);
    }
    const ompdag_report_row *w = ompdag_report_row_get(r, 5);
    cr_expect_str_eq(w->function, "worker");
    cr_expect_eq(w->verdict, OMPDAG_VERDICT_NO_DEADLINE);
    cr_expect_eq(w->deadline_ns, -1);
    cr_expect_eq(w->tied_tasks, 1);
    cr_expect_eq(w->bound_times_m, 35 + 3 * 35);
    cr_expect_eq(w->observed_max_ns, -1);
    cr_expect_eq(ompdag_report_fail_count(r), 0);
    cr_expect_null(ompdag_report_row_get(r, 6));
    /* the worst flow takes the `then` arm at line 15 */
    const ompdag_rta_result *res = ompdag_report_row_result(r, 0);
    const ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    cr_expect_eq(ompdag_rta_result_choice(res, ompdag_condag_find_node(g, "b")),
                 ompdag_condag_find_node(g, "c1"));
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
}

Test(report, deadline_precedence_and_exact_boundary)
{
    ompdag_condag_set *s = load(FIXTURE);
    const int32_t m4[] = {4};
    ompdag_error err = {0};
    ompdag_status st;
    struct {
        const char *d[3];
        int64_t ns;
        const char *from;
        ompdag_verdict v;
    } cases[] = {
        {{"main=2.4ms", NULL}, 2400000, "main=2.4ms", OMPDAG_VERDICT_PASS},      /* bound == deadline */
        {{"main=2399999ns", NULL}, 2399999, "main=2399999ns", OMPDAG_VERDICT_FAIL}, /* 1 ns short */
        {{"src/demo.c:10=1ms", "main=9ms", NULL}, 1000000, "src/demo.c:10=1ms", OMPDAG_VERDICT_FAIL},
        {{"main=9ms", "demo.c:10=1ms", NULL}, 1000000, "demo.c:10=1ms", OMPDAG_VERDICT_FAIL},
        {{"/abs/path/src/demo.c:10=3ms", NULL}, 3000000, "/abs/path/src/demo.c:10=3ms", OMPDAG_VERDICT_PASS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        ompdag_report *r = make_report(s, m4, 1, cases[i].d, &err, &st);
        cr_assert_eq(st, OMPDAG_OK, "case %zu: %s", i, err.message);
        const ompdag_report_row *row = ompdag_report_row_get(r, 0);
        cr_expect_eq(row->deadline_ns, cases[i].ns, "case %zu", i);
        cr_expect_str_eq(row->deadline_from, cases[i].from, "case %zu", i);
        cr_expect_eq(row->verdict, cases[i].v, "case %zu", i);
        cr_expect_eq(ompdag_report_fail_count(r), cases[i].v == OMPDAG_VERDICT_FAIL);
        ompdag_report_destroy(r);
    }
    /* a deadline that names nothing is an error, never silently ignored */
    const char *none[] = {"mian=5ms", NULL}, *wrong_line[] = {"src/demo.c:11=5ms", NULL};
    cr_expect_null(make_report(s, m4, 1, none, &err, &st));
    cr_expect_eq(st, OMPDAG_ERR_ARGUMENT);
    cr_expect(strstr(err.message, "mian=5ms") != NULL, "%s", err.message);
    cr_expect_null(make_report(s, m4, 1, wrong_line, &err, &st));
    /* bad specs */
    ompdag_deadlines *d = ompdag_deadlines_create();
    const char *bad[] = {"main", "=5ms", "main=5", "f.c:0=1ms", "f.c:x=1ms", ":3=1ms"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
        cr_expect_neq(ompdag_deadlines_add(d, bad[i], &err), OMPDAG_OK, "'%s' accepted", bad[i]);
    ompdag_deadlines_destroy(d);
    ompdag_condag_set_destroy(s);
}

/* FIXTURE with measured fork/join and per-run task-system and region
 * responses (ns): fork max(100 us warm, 300 us cold) + join 50 us, margin
 * 20 % -> 420 us on top of the task system's bound. */
static ompdag_condag_set *load_with_fork_join(const char *task_ns, const char *region_ns)
{
    char *text = test_slurp(FIXTURE_PATH_BUF());
    const char *old = "\"observed_response_ns\": [1200000, 1500000, 900000],";
    char *at = strstr(text, old);
    cr_assert_not_null(at);
    char path[1024];
    snprintf(path, sizeof path, "%s/fork_join.json", tmpdir());
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "%.*s\"observed_response_ns\": %s, \"observed_task_response_ns\": %s, "
               "\"runtime_overheads\": {\"start_delay_ns\": 0, \"wake_delay_ns\": 0, "
               "\"fork_warm\": {\"samples\": 2, \"max_ns\": 100000, \"median_ns\": 90000}, "
               "\"fork_cold\": {\"samples\": 1, \"max_ns\": 300000, \"median_ns\": 300000}, "
               "\"join\": {\"samples\": 3, \"max_ns\": 50000, \"median_ns\": 40000}},%s",
            (int)(at - text), text, region_ns, task_ns, at + strlen(old));
    fclose(f);
    free(text);
    ompdag_condag_set *s = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_file(path, &s, &err), OMPDAG_OK, "%s", err.message);
    return s;
}

/* The whole region (parallel begin -> end) is bounded by the task system's
 * bound plus the measured fork/join: deadlines apply to it, and a clean
 * region run above it refutes, even when the task system stayed within. */
Test(report, region_bound_adds_measured_fork_and_join)
{
    const int32_t m4[] = {4};
    ompdag_error err = {0};
    ompdag_status st;
    ompdag_condag_set *s = load_with_fork_join("[1000000, 1300000, 800000]",
                                               "[1200000, 1500000, 900000]");
    struct {
        const char *d[2];
        ompdag_verdict v;
    } cases[] = {
        {{NULL}, OMPDAG_VERDICT_PASS},                    /* the pragma's 5 ms */
        {{"main=2.82ms", NULL}, OMPDAG_VERDICT_PASS},     /* region bound == deadline */
        {{"main=2819999ns", NULL}, OMPDAG_VERDICT_FAIL},  /* 1 ns short of the region bound */
        {{"main=2.5ms", NULL}, OMPDAG_VERDICT_FAIL},      /* task system alone (2.4 ms) would pass */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        ompdag_report *r = make_report(s, m4, 1, cases[i].d[0] ? cases[i].d : NULL, &err, &st);
        cr_assert_eq(st, OMPDAG_OK, "case %zu: %s", i, err.message);
        const ompdag_report_row *row = ompdag_report_row_get(r, 0);
        cr_expect_float_eq(row->bound_ns, 2400000.0, 1e-6);
        cr_expect_eq(row->fork_join_ns, 420000, "case %zu", i);
        cr_expect_float_eq(row->region_bound_ns, 2820000.0, 1e-6, "case %zu", i);
        cr_expect_float_eq(row->observed_max_ns, 1300000.0, 1e-6);
        cr_expect_float_eq(row->observed_region_max_ns, 1500000.0, 1e-6);
        cr_expect_eq(row->verdict, cases[i].v, "case %zu: %s", i, ompdag_verdict_name(row->verdict));
        cr_expect(!row->refuted_by_region, "case %zu", i);
        ompdag_report_destroy(r);
    }
    ompdag_condag_set_destroy(s);
    /* 2.9 ms for the region (fork/join cost more than measured), 1.3 ms for
     * the task system: refuted by the region */
    s = load_with_fork_join("[1000000, 1300000, 800000]", "[1200000, 2900000, 900000]");
    ompdag_report *r = make_report(s, m4, 1, NULL, &err, &st);
    cr_assert_eq(st, OMPDAG_OK, "%s", err.message);
    cr_expect_eq(ompdag_report_row_get(r, 0)->verdict, OMPDAG_VERDICT_REFUTED);
    cr_expect(ompdag_report_row_get(r, 0)->refuted_by_region, "the task system held");
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
    run_result c = sh("ompdag check %s/fork_join.json --threads 4", tmpdir());
    cr_expect_eq(c.status, 1, "%s%s", c.out, c.err);
    cr_expect(strstr(c.out, "refuted: a clean observed run took 2.9 ms, longer than the bound "
                            "2.82 ms (region, with fork/join) on 4 threads") != NULL,
              "%s", c.out);
    done(c);
    /* without runtime_overheads there is no region bound */
    s = load(FIXTURE);
    r = make_report(s, m4, 1, NULL, &err, &st);
    cr_assert_eq(st, OMPDAG_OK, "%s", err.message);
    cr_expect_eq(ompdag_report_row_get(r, 0)->fork_join_ns, -1);
    cr_expect_float_eq(ompdag_report_row_get(r, 0)->region_bound_ns, -1.0, 1e-9);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
}

Test(report, deadline_needs_a_time_unit_and_threads)
{
    const char *cycles =
        "{\"format\":\"ompdag-condag\",\"version\":1,\"function\":\"f\",\"time_unit\":\"cycles\","
        "\"threads\":2,\"deadline\":\"1ms\",\"nodes\":[{\"id\":\"a\",\"task\":\"t\",\"kind\":\"N\","
        "\"wcet\":5}],\"edges\":[]}";
    ompdag_condag_set *s = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_buffer(cycles, strlen(cycles), "cycles", &s, &err), OMPDAG_OK);
    ompdag_report *r = NULL;
    cr_expect_eq(ompdag_report_create(s, NULL, &r, &err), OMPDAG_ERR_UNSUPPORTED);
    cr_expect(strstr(err.message, "cycles") != NULL, "%s", err.message);
    ompdag_condag_set_destroy(s);
    const char *nothreads = "{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":[{\"id\":\"a\","
                            "\"task\":\"t\",\"kind\":\"N\",\"wcet\":5}],\"edges\":[]}";
    cr_assert_eq(ompdag_condag_set_load_buffer(nothreads, strlen(nothreads), "x", &s, &err), OMPDAG_OK);
    cr_expect_eq(ompdag_report_create(s, NULL, &r, &err), OMPDAG_ERR_ARGUMENT);
    cr_expect(strstr(err.message, "--threads") != NULL, "%s", err.message);
    ompdag_condag_set_destroy(s);
}

/* ---- check: exit codes ------------------------------------------------------- */

Test(check, exit_codes)
{
    struct {
        const char *args;
        int status;
        const char *out; /* expected in stdout, or NULL */
    } cases[] = {
        {"check " FIXTURE, 0, "main: pass: bound 2.4 ms on 4 threads, deadline 5 ms"},
        {"check " FIXTURE " --deadline main=2ms", 1,
         "src/demo.c:10:1: error: main: bound 2.4 ms on 4 threads exceeds deadline 2 ms (main=2ms) by "
         "400 us [ompdag-deadline]"},
        {"check " FIXTURE " --deadline src/demo.c:10=2.4ms", 0, "slack 0 ns"},
        {"check " FIXTURE " --threads 1 --deadline main=3.15ms", 0, NULL},
        {"check " FIXTURE " --threads 1,4 --deadline main=3.1ms", 1, "on 1 threads exceeds"},
        {"check " FIXTURE " --require-deadline", 1, "worker: no deadline"},
        {"check " FIXTURE " --deadline worker=35ns --require-deadline", 0, NULL},
        {"check " FIXTURE " --deadline worker=34ns --quiet", 1, "worker: bound 35 ns"},
        {"check " FIXTURE " --deadline nosuch=1ms", 2, NULL},
        {"check " FIXTURE " --deadline main=5", 2, NULL},
        {"check " FIXTURE " --threads 0", 2, NULL},
        {"check " FIXTURE " --bogus", 2, NULL},
        {"check", 2, NULL},
        {"check /nonexistent/x.json", 1, NULL}, /* bad input: 1, as in every command */
        {"check " FIXTURE " --deadline main=", 2, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        run_result r = sh("ompdag %s", cases[i].args);
        cr_expect_eq(r.status, cases[i].status, "'%s' exited %d\n%s%s", cases[i].args, r.status,
                     r.out, r.err);
        if (cases[i].out)
            cr_expect(strstr(r.out, cases[i].out) != NULL, "'%s' stdout lacks '%s':\n%s",
                      cases[i].args, cases[i].out, r.out);
        if (cases[i].status == 2)
            cr_expect(r.err[0], "'%s' printed no message", cases[i].args);
        done(r);
    }
    /* the tied task of `worker` is warned about when it is checked */
    run_result r = sh("ompdag check " FIXTURE " --deadline worker=1ms");
    cr_expect(strstr(r.err, "src/demo.c:40:1: warning: worker: 1 tied task") != NULL, "%s", r.err);
    done(r);
    /* without any deadline: exit 0, with a note saying nothing was checked */
    r = sh("ompdag check examples/condag/figure5.json --threads 4");
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, "nothing was checked") != NULL, "%s", r.err);
    done(r);
    /* FIG3's stored runs (595 us) exceed its bound (227 us at m = 4): refuted
     * without any deadline */
    r = sh("ompdag check " FIG3 " --threads 4");
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "[ompdag-refuted]") != NULL, "%s", r.out);
    done(r);
}

/* Measurements outrank the proof (issue 12 §3): a clean observed run above the
 * bound is "refuted", and a file annotated with dropped segments "unsafe", in
 * every format and for check, whatever the deadline; interfered runs are
 * reported apart and refute nothing. */
Test(check, refuted_and_unsafe_whatever_the_deadline)
{
    const char *d = tmpdir();
    /* m = 4: bound 2.4 ms; a 3 ms clean run refutes it */
    run_result r = sh("sed 's/\\[1200000, 1500000, 900000\\]/[1200000, 3000000, 900000]/' " FIXTURE
                      " > %s/refuted.json && ompdag check %s/refuted.json --threads 4 "
                      "--deadline main=1s",
                      d, d);
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "src/demo.c:10:1: error: main: refuted: a clean observed run took 3 ms, "
                            "longer than the bound 2.4 ms on 4 threads [ompdag-refuted]") != NULL,
              "%s", r.out);
    done(r);
    r = sh("ompdag check %s/refuted.json --threads 8", d); /* no deadline at all */
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "[ompdag-refuted]") != NULL, "%s", r.out);
    done(r);
    r = sh("ompdag report %s/refuted.json --threads 4 --format json", d);
    cr_expect(strstr(r.out, "\"verdict\": \"refuted\"") && strstr(r.out, "\"refuted\": 1"), "%s",
              r.out);
    done(r);
    r = sh("ompdag report %s/refuted.json --threads 4 --format csv", d);
    cr_expect(strstr(r.out, ",refuted,") != NULL, "%s", r.out);
    done(r);
    r = sh("ompdag report %s/refuted.json --threads 4 --format sarif", d);
    cr_expect(strstr(r.out, "ompdag-refuted") != NULL, "%s", r.out);
    done(r);
    r = sh("ompdag report %s/refuted.json --threads 4", d);
    cr_expect(strstr(r.out, "REFUTED: a clean run took 3 ms") != NULL, "%s", r.out);
    done(r);
    r = sh("ompdag report %s/refuted.json --threads 4 --format html", d);
    cr_expect(strstr(r.out, "REFUTED") != NULL, "html");
    done(r);
    /* the same 3 ms run, flagged as interfered: reported apart, refutes nothing */
    r = sh("sed 's/\\[1200000, 1500000, 900000\\]/[1200000, 3000000, 900000], "
           "\"observed_response_ns_interfered\": [false, true, false]/' " FIXTURE
           " > %s/interfered.json && ompdag check %s/interfered.json --threads 4 && "
           "ompdag report %s/interfered.json --threads 4 --format json",
           d, d, d);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "\"runs_interfered\": 1") && strstr(r.out, "\"observed_max_ns\": 1200000") &&
                  strstr(r.out, "\"observed_interfered_max_ns\": 3000000"),
              "%s", r.out);
    done(r);
    /* dropped segments: unsafe everywhere, never passed */
    r = sh("sed 's/\"deadline\": \"5ms\",/\"deadline\": \"5ms\", \"unsafe\": \"3 measured "
           "segments fit no path and were dropped (annotate --allow-unmapped)\",/' " FIXTURE
           " > %s/unsafe.json && ompdag check %s/unsafe.json --threads 4",
           d, d);
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "error: main: unsafe bound 2.4 ms on 4 threads: 3 measured segments") &&
                  strstr(r.out, "[ompdag-unsafe]"),
              "%s", r.out);
    done(r);
    r = sh("ompdag report %s/unsafe.json --threads 4 --format json && ompdag report %s/unsafe.json "
           "--threads 4 --format sarif && ompdag report %s/unsafe.json --threads 4",
           d, d, d);
    cr_expect(strstr(r.out, "\"verdict\": \"unsafe\"") && strstr(r.out, "ompdag-unsafe") &&
                  strstr(r.out, "UNSAFE: 3 measured segments"),
              "%s", r.out);
    done(r);
}

/* ---- golden reports ---------------------------------------------------------- */

static void expect_golden(const char *args, const char *golden)
{
    run_result r = sh("ompdag %s", args);
    cr_assert_eq(r.status, 0, "'%s': %s", args, r.err);
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/report/golden/%s", src_dir(), golden);
    if (getenv("OMPDAG_UPDATE_GOLDEN")) {
        FILE *f = fopen(path, "w");
        fputs(r.out, f);
        fclose(f);
    }
    char *want = test_slurp(path);
    cr_expect_str_eq(r.out, want, "'%s' differs from %s", args, golden);
    free(want);
    done(r);
}

Test(golden, text_and_json)
{
    expect_golden("report " FIXTURE " --threads 1,2,4", "deadline.txt");
    expect_golden("report " FIXTURE " --threads 4 --deadline main=2ms --format json", "deadline.json");
    expect_golden("report " FIG3 " --threads 2,4 --deadline region=1ms", "fig3_nested.txt");
    expect_golden("report " FIG3 " --threads 4 --format json", "fig3_nested.json");
    expect_golden("report tests/report/data/switch_tasks.annotated.json --threads 2", "switch_tasks.txt");
}

Test(report, usage_and_output_errors)
{
    struct {
        const char *args;
        int status;
    } cases[] = {
        {"report " FIXTURE " --format pdf", 2},
        {"report " FIXTURE " --deadline main=5parsecs", 2},
        {"report " FIXTURE " a.json", 2},
        {"report " FIXTURE " -o /nonexistent-dir/r.txt", 1},
        {"report /nonexistent.json", 1},
        {"report " FIXTURE " --deadline nosuch=1ms", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        run_result r = sh("ompdag %s", cases[i].args);
        cr_expect_eq(r.status, cases[i].status, "'%s' exited %d: %s", cases[i].args, r.status, r.err);
        cr_expect(r.err[0], "'%s' printed no message", cases[i].args);
        cr_expect_str_eq(r.out, "", "'%s' wrote to stdout", cases[i].args);
        done(r);
    }
}

Test(report, json_has_the_documented_keys)
{
    run_result r = sh("ompdag report " FIXTURE " --threads 2,4 --deadline main=2ms --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_error_t je;
    json_t *root = json_loads(r.out, 0, &je);
    cr_assert_not_null(root, "%s", je.text);
    cr_expect_str_eq(json_string_value(json_object_get(root, "format")), "ompdag-report");
    json_t *regions = json_object_get(root, "regions");
    cr_assert_eq(json_array_size(regions), 4);
    const char *keys[] = {"function", "loc", "m", "bound_ns", "bound_times_m", "vol_ns", "len_ns",
                          "observed_max_ns", "deadline_ns", "verdict"};
    size_t i;
    json_t *o;
    json_array_foreach(regions, i, o) {
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k)
            cr_expect(json_object_get(o, keys[k]) != NULL, "region %zu lacks %s", i, keys[k]);
    }
    json_t *m4 = json_array_get(regions, 1);
    cr_expect_eq(json_integer_value(json_object_get(m4, "m")), 4);
    cr_expect_eq(json_integer_value(json_object_get(m4, "bound_times_m")), 9600);
    cr_expect_float_eq(json_real_value(json_object_get(m4, "bound_ns")), 2.4e6, 1e-6);
    cr_expect_eq(json_integer_value(json_object_get(m4, "vol_ns")), 3150000);
    cr_expect_eq(json_integer_value(json_object_get(m4, "len_ns")), 2150000);
    cr_expect_eq(json_integer_value(json_object_get(m4, "deadline_ns")), 2000000);
    cr_expect_str_eq(json_string_value(json_object_get(m4, "verdict")), "fail");
    json_t *w = json_array_get(regions, 3);
    cr_expect(json_is_null(json_object_get(w, "deadline_ns")));
    cr_expect(json_is_null(json_object_get(w, "observed_max_ns")));
    cr_expect_str_eq(json_string_value(json_object_get(w, "verdict")), "no-deadline");
    json_t *tied = json_object_get(json_object_get(w, "assumptions"), "tied_tasks");
    cr_expect_str_eq(json_string_value(json_array_get(tied, 0)), "src/demo.c:42");
    json_t *choice = json_array_get(json_object_get(json_object_get(m4, "worst_flow"), "choices"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(choice, "at")), "src/demo.c:15");
    cr_expect_str_eq(json_string_value(json_object_get(choice, "takes")), "then");
    json_t *nodes = json_object_get(m4, "node_wcets");
    cr_expect_eq(json_array_size(nodes), 9);
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(nodes, 7), "samples")), 3);
    json_decref(root);
    done(r);
}

Test(report, csv_one_row_per_region_and_m)
{
    run_result r = sh("ompdag report " FIXTURE " --threads 1,4 --deadline main=2ms --format csv -o %s/r.csv && cat %s/r.csv",
                      tmpdir(), tmpdir());
    cr_assert_eq(r.status, 0, "%s", r.err);
    int lines = 0;
    for (char *p = r.out; (p = strstr(p, "\r\n")); p += 2)
        ++lines;
    cr_expect_eq(lines, 1 + 4, "%s", r.out);
    cr_expect(strncmp(r.out, "function,name,file,line,m,", 26) == 0, "%s", r.out);
    cr_expect(strstr(r.out, "main,main:10,src/demo.c,10,4,us,2400,9600,2400000,3150,2150,4,9,") != NULL,
              "%s", r.out);
    /* issue 22: the columns after `unsafe` (Graham's bound, the tied rule, fork/join, the
     * bound that decides the verdict, unmeasured, the WCETs' provenance, team sizes) */
    cr_expect(strstr(r.out, ",2000000,-400000,fail,0,3,0,,,9600,2400000,untied,,,2400000,,"
                            "measured by ompdag annotate,false\r\n") != NULL,
              "%s", r.out);
    cr_expect(strstr(r.out, "worker,worker:40,src/demo.c,40,1,ns,35,35,35,35,35,2,3,,,,,,no-deadline,1,0,0,,,"
                            "35,35,tied-root,,,35,,\"given in the file, not measured by ompdag\",false\r\n") != NULL,
              "%s", r.out);
    done(r);
}

/* ---- SARIF 2.1.0 ------------------------------------------------------------- */

/* The parts of the SARIF 2.1.0 schema code-scanning tools rely on. */
static void validate_sarif(json_t *log)
{
    cr_assert(json_is_object(log));
    cr_expect_str_eq(json_string_value(json_object_get(log, "version")), "2.1.0");
    const char *schema = json_string_value(json_object_get(log, "$schema"));
    cr_expect(schema && strstr(schema, "sarif") && strstr(schema, "2.1.0"), "$schema %s", schema);
    json_t *runs = json_object_get(log, "runs");
    cr_assert(json_is_array(runs) && json_array_size(runs) == 1);
    json_t *run = json_array_get(runs, 0);
    json_t *driver = json_object_get(json_object_get(run, "tool"), "driver");
    cr_expect_str_eq(json_string_value(json_object_get(driver, "name")), "ompdag");
    json_t *rules = json_object_get(driver, "rules");
    cr_assert(json_is_array(rules));
    size_t i;
    json_t *x;
    json_array_foreach(rules, i, x) {
        cr_expect(json_is_string(json_object_get(x, "id")));
        cr_expect(json_is_string(json_object_get(json_object_get(x, "shortDescription"), "text")));
    }
    json_t *results = json_object_get(run, "results");
    cr_assert(json_is_array(results));
    json_array_foreach(results, i, x) {
        const char *rule = json_string_value(json_object_get(x, "ruleId"));
        json_int_t idx = json_integer_value(json_object_get(x, "ruleIndex"));
        cr_assert(rule && idx >= 0 && (size_t)idx < json_array_size(rules));
        cr_expect_str_eq(json_string_value(json_object_get(json_array_get(rules, (size_t)idx), "id")), rule);
        const char *level = json_string_value(json_object_get(x, "level"));
        cr_expect(level && (!strcmp(level, "error") || !strcmp(level, "warning") ||
                            !strcmp(level, "note") || !strcmp(level, "none")));
        cr_expect(json_is_string(json_object_get(json_object_get(x, "message"), "text")));
        json_t *loc = json_array_get(json_object_get(x, "locations"), 0);
        json_t *pl = json_object_get(loc, "physicalLocation");
        const char *uri = json_string_value(json_object_get(json_object_get(pl, "artifactLocation"), "uri"));
        cr_expect(uri && uri[0] && !strchr(uri, ' '), "result %zu: uri %s", i, uri);
        json_t *region = json_object_get(pl, "region");
        cr_expect(json_integer_value(json_object_get(region, "startLine")) >= 1);
        json_t *col = json_object_get(region, "startColumn");
        cr_expect(!col || json_integer_value(col) >= 1);
    }
}

static json_t *find_result(json_t *log, const char *rule, int line)
{
    json_t *results = json_object_get(json_array_get(json_object_get(log, "runs"), 0), "results");
    size_t i;
    json_t *x;
    json_array_foreach(results, i, x) {
        json_t *region = json_object_get(json_object_get(json_array_get(json_object_get(x, "locations"), 0),
                                                         "physicalLocation"), "region");
        if (!strcmp(json_string_value(json_object_get(x, "ruleId")), rule) &&
            json_integer_value(json_object_get(region, "startLine")) == line)
            return x;
    }
    return NULL;
}

Test(sarif, violations_and_tied_tasks_in_place)
{
    run_result r = sh("ompdag report " FIXTURE " --threads 2,4 --deadline main=2.5ms --format sarif");
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_error_t je;
    json_t *log = json_loads(r.out, 0, &je);
    cr_assert_not_null(log, "%s", je.text);
    validate_sarif(log);
    json_t *results = json_object_get(json_array_get(json_object_get(log, "runs"), 0), "results");
    /* m=2 fails (2.65 ms > 2.5 ms), m=4 passes (2.4 ms: a result of kind "pass" since
     * issue 22, so every verdict against a deadline shows its bound); one tied task */
    cr_expect_eq(json_array_size(results), 3, "%s", r.out);
    json_t *dl = find_result(log, "ompdag-deadline", 10);
    cr_assert_not_null(dl, "%s", r.out);
    cr_expect_str_eq(json_string_value(json_object_get(dl, "level")), "error");
    cr_expect(strstr(json_string_value(json_object_get(json_object_get(dl, "message"), "text")),
                     "bound 2.65 ms on 2 threads exceeds deadline 2.5 ms") != NULL);
    json_t *pl = json_object_get(json_array_get(json_object_get(dl, "locations"), 0), "physicalLocation");
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(pl, "artifactLocation"), "uri")),
                     "src/demo.c");
    json_t *pass = json_array_get(results, 1);
    cr_expect_str_eq(json_string_value(json_object_get(pass, "kind")), "pass");
    cr_expect_str_eq(json_string_value(json_object_get(pass, "level")), "none");
    cr_expect(strstr(json_string_value(json_object_get(json_object_get(pass, "message"), "text")),
                     "bound 2.4 ms on 4 threads within deadline 2.5 ms") != NULL);
    json_t *tied = find_result(log, "ompdag-tied-task", 42);
    cr_assert_not_null(tied);
    cr_expect_str_eq(json_string_value(json_object_get(tied, "level")), "warning");
    json_decref(log);
    done(r);
    /* a clean run is still a valid log, with no deadline results */
    r = sh("ompdag report " FIG3 " --threads 4 --format sarif -o %s/x.sarif && cat %s/x.sarif", tmpdir(), tmpdir());
    cr_assert_eq(r.status, 0, "%s", r.err);
    log = json_loads(r.out, 0, &je);
    validate_sarif(log);
    cr_expect_null(find_result(log, "ompdag-deadline", 14));
    cr_expect_not_null(find_result(log, "ompdag-tied-task", 18)); /* fig3's tasks are tied */
    cr_expect_not_null(find_result(log, "ompdag-unobserved", 33)); /* the taskwait never reached */
    json_decref(log);
    done(r);
}

/* ---- HTML -------------------------------------------------------------------- */

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        ++n;
    return n;
}

Test(html, self_contained_page_with_graph_and_sortable_table)
{
    run_result r = sh("ompdag report " FIXTURE " --threads 2,4 --deadline main=2.5ms --format html -o %s/r.html && cat %s/r.html",
                      tmpdir(), tmpdir());
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *h = r.out;
    cr_expect(strncmp(h, "<!DOCTYPE html>", 15) == 0);
    cr_expect_eq(count(h, "<svg"), 2, "one drawing per region");
    cr_expect_eq(count(h, "<g id=\"node"), 9 + 3, "every node drawn (graphviz g.node)");
    cr_expect(strstr(h, "<table class=\"sortable\" id=\"regions\">") != NULL);
    cr_expect_eq(count(h, "<td class=\"l fail\">fail</td>"), 1);
    cr_expect_eq(count(h, "<td class=\"l pass\">pass</td>"), 1);
    cr_expect_eq(count(h, "<tr class=\"node\""), 12);
    cr_expect(strstr(h, "id=\"ompdag-data\"") && strstr(h, "\"n6\":{") , "node detail data");
    /* self-contained: nothing loaded from elsewhere */
    cr_expect_null(strstr(h, "<link"));
    cr_expect_null(strstr(h, " src="));
    cr_expect_null(strstr(h, "url("));
    cr_expect_null(strstr(h, "@import"));
    cr_expect(strstr(h, "</script>\n</body></html>\n") != NULL);
    done(r);
}

/* Loads the page in headless Chromium: the script runs to its end (it marks
 * <body data-ompdag-ready>), the console shows no error, and a screenshot
 * of the page is written. */
Test(html, loads_in_headless_chromium, .timeout = 90)
{
    run_result w = sh("command -v chromium");
    cr_assert_eq(w.status, 0, "chromium is not installed (scripts/install-deps.sh installs it)");
    done(w);
    run_result r = sh("ompdag report " FIG3 " --threads 2,4 --deadline region=200us --format html -o %s/p.html", tmpdir());
    cr_assert_eq(r.status, 0, "%s", r.err);
    done(r);
    const char *flags = "--headless --no-sandbox --disable-gpu --disable-background-networking "
                        "--disable-component-update --disable-sync --no-first-run --hide-scrollbars "
                        "--enable-logging=stderr --v=0";
    r = sh("timeout 60 chromium %s --user-data-dir=$(mktemp -d) --dump-dom file://%s/p.html", flags, tmpdir());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "data-ompdag-ready=\"1\"") != NULL, "the page's script did not finish");
    cr_expect(strstr(r.out, "<svg") != NULL);
    cr_expect_null(strstr(r.err, "Uncaught"), "%s", r.err);
    cr_expect_null(strstr(r.err, ":ERROR:CONSOLE"), "%s", r.err);
    done(r);
    r = sh("timeout 60 chromium %s --user-data-dir=$(mktemp -d) --window-size=1280,1400 "
           "--screenshot=%s/p.png file://%s/p.html && test -s %s/p.png && head -c 8 %s/p.png | od -c | head -1",
           flags, tmpdir(), tmpdir(), tmpdir(), tmpdir());
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "P   N   G") != NULL, "no PNG screenshot: %s", r.out);
    done(r);
}

/* ---- plugin-side violations -------------------------------------------------- */

Test(violations, current_deadlines_against_wcet_database)
{
    ompdag_condag_set *db = load(FIXTURE);
    /* the freshly extracted graph: WCET 0, same region, a tighter deadline */
    const char *cur =
        "{\"format\":\"ompdag-condag-set\",\"version\":1,\"graphs\":["
        "{\"function\":\"main\",\"deadline\":\"2ms\",\"region_key\":\"src/demo.c:10\","
        "\"loc\":{\"file\":\"src/demo.c\",\"line\":10,\"col\":1},"
        "\"nodes\":[{\"id\":\"a\",\"task\":\"t\",\"kind\":\"N\",\"wcet\":0}],\"edges\":[]},"
        "{\"function\":\"other\",\"deadline\":\"1ns\",\"region_key\":\"src/other.c:3\","
        "\"nodes\":[{\"id\":\"a\",\"task\":\"t\",\"kind\":\"N\",\"wcet\":0}],\"edges\":[]}]}";
    ompdag_condag_set *current = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_buffer(cur, strlen(cur), "cur", &current, &err), OMPDAG_OK,
                 "%s", err.message);
    ompdag_deadline_violation *v = NULL;
    size_t n = 0;
    cr_assert_eq(ompdag_deadline_violations(current, db, 0, &v, &n, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(n, 1); /* `other` has no measurements: not checked */
    cr_expect_str_eq(v[0].message, "bound 2.4 ms on 4 threads exceeds deadline 2 ms [ompdag-deadline]");
    cr_expect_str_eq(v[0].loc.file, "src/demo.c");
    cr_expect_eq(v[0].loc.line, 10);
    cr_expect_eq(v[0].m, 4);
    cr_expect_eq(v[0].bound_times_m, 9600);
    free(v);
    /* m = 8: 3150 + 7·2150 = 18200 us / 8 = 2.275 ms, still above 2 ms */
    cr_assert_eq(ompdag_deadline_violations(current, db, 8, &v, &n, &err), OMPDAG_OK);
    cr_expect_eq(n, 1);
    cr_expect_str_eq(v[0].message, "bound 2.27 ms on 8 threads exceeds deadline 2 ms [ompdag-deadline]");
    free(v);
    /* the db against its own deadlines (5 ms): nothing */
    cr_assert_eq(ompdag_deadline_violations(NULL, db, 0, &v, &n, &err), OMPDAG_OK);
    cr_expect_eq(n, 0);
    cr_expect_null(v);
    ompdag_condag_set_destroy(current);
    ompdag_condag_set_destroy(db);
}

/* ---- the real pipeline ------------------------------------------------------- */

Test(pipeline, extract_build_run_annotate_report_check, .timeout = 90)
{
    const char *d = tmpdir();
    run_result w = sh("command -v clang-14");
    cr_assert_eq(w.status, 0, "clang-14 is needed");
    done(w);
    run_result r = sh("cd examples && ompdag extract fig3_nested.c -o %s/g.json && "
                      "clang-14 -fopenmp -g fig3_nested.c -o %s/prog && "
                      "ompdag run --rt --threads 2 --trace %s/t.trace -- %s/prog && "
                      "ompdag annotate %s/g.json %s/t.trace --unobserved zero -o %s/a.json",
                      d, d, d, d, d, d, d);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    done(r);
    /* `run --threads 2` caps fig3's num_threads(4) team at 2 (OMP_THREAD_LIMIT), and a
     * run is compared only with the bound for its own team size (issue 22 item 5) */
    r = sh("ompdag report %s/a.json --threads 2 --format json", d);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *root = json_loads(r.out, 0, NULL);
    json_t *row = json_array_get(json_object_get(root, "regions"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(row, "function")), "region");
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(row, "loc"), "line")), 14);
    cr_expect(json_real_value(json_object_get(row, "bound_ns")) > 0);
    /* observed: clean runs in observed_max_ns, interfered ones apart */
    cr_expect(json_integer_value(json_object_get(row, "observed_runs")) >= 1, "probe observations");
    cr_expect(json_number_value(json_object_get(row, "observed_max_ns")) > 0 ||
                  json_integer_value(json_object_get(row, "runs_interfered")) >= 1,
              "probe observations");
    json_t *n0 = json_array_get(json_object_get(row, "node_wcets"), 0);
    cr_expect(json_integer_value(json_object_get(n0, "samples")) >= 1);
    /* the deadline applies to the whole region's bound when fork/join were
     * measured (they were: the trace has them) */
    cr_expect(json_is_number(json_object_get(row, "region_bound_ns")), "fork/join measured");
    double bound = json_number_value(json_object_get(row, "region_bound_ns"));
    json_decref(root);
    done(r);
    /* fig3's taskwait at line 33 is never reached, so it needed --unobserved zero: an
     * escape hatch, so the graph is unsafe and fails check whatever the deadline (issue 22
     * item 3; before, a deadline twice the bound passed) */
    r = sh("ompdag check %s/a.json --threads 2 --deadline fig3_nested.c:14=%.0fns", d, bound * 2 + 1);
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "[ompdag-unsafe]") && strstr(r.out, "--unobserved zero"), "%s", r.out);
    done(r);
    /* `#pragma ompdag deadline(5ms)` reaches check through the front end; the freshly
     * extracted graph (WCETs 0) is unmeasured, never "pass: bound 0 ns" (issue 22 item 1) */
    r = sh("cd examples && ompdag extract fib.c -o %s/fib.json && ompdag check %s/fib.json --threads 4", d, d);
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "fib.c:39:1: error: main: unmeasured: not annotated") &&
                  strstr(r.out, "ompdag annotate") && strstr(r.out, "[ompdag-unmeasured]"),
              "%s", r.out);
    cr_expect_null(strstr(r.out, "pass"), "%s", r.out);
    done(r);
    /* fib annotates without an escape hatch: deadlines on both sides of its measured bound */
    r = sh("cd examples && clang-14 -fopenmp -g fib.c -o %s/fib && "
           "ompdag run --rt --threads 2 --trace %s/fib.trace -- %s/fib >/dev/null && "
           "ompdag annotate %s/fib.json %s/fib.trace -o %s/fib.a.json && "
           "ompdag report %s/fib.a.json --threads 2 --format json",
           d, d, d, d, d, d, d);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    root = json_loads(r.out, 0, NULL);
    row = json_array_get(json_object_get(root, "regions"), 0);
    cr_expect(json_is_null(json_object_get(row, "unsafe")), "%s", r.out);
    cr_expect(json_is_null(json_object_get(row, "unmeasured")), "%s", r.out);
    cr_expect_str_eq(json_string_value(json_object_get(row, "wcets")), "measured by ompdag annotate");
    cr_expect(json_array_size(json_object_get(row, "observations")) >= 1, "%s", r.out);
    double judged = json_number_value(json_object_get(row, "verdict_bound_ns"));
    cr_expect(judged > 0, "%s", r.out);
    const char *verdict = json_string_value(json_object_get(row, "verdict"));
    bool refuted = verdict && !strcmp(verdict, "refuted"); /* a busy machine may refute */
    json_decref(root);
    done(r);
    r = sh("ompdag check %s/fib.a.json --threads 2 --deadline fib.c:39=%.0fns", d, judged * 2 + 1);
    cr_expect_eq(r.status, refuted ? 1 : 0, "%s%s", r.out, r.err);
    if (!refuted) cr_expect(strstr(r.out, "main: pass: bound") != NULL, "%s", r.out);
    done(r);
    r = sh("ompdag check %s/fib.a.json --threads 2 --deadline main=%.0fns", d, judged / 2);
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "fib.c:39:1: error: main:") != NULL, "%s", r.out);
    done(r);
}

/* ---- simulate (CLI) ---------------------------------------------------------- */

Test(simulate, figure5_every_flow_within_the_bound)
{
    run_result r = sh("ompdag simulate examples/condag/figure5.json --threads 1,4 --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *arr = json_loads(r.out, 0, NULL);
    cr_assert(json_is_array(arr) && json_array_size(arr) == 4, "%s", r.out); /* 2 m x 2 schedulers */
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o) {
        /* figure 5 has one branch: 2 flows, plus the worst flow run first */
        cr_expect_eq(json_integer_value(json_object_get(o, "flows")), 3);
        cr_expect_eq(json_integer_value(json_object_get(o, "above_bound")), 0);
        cr_expect_leq(json_real_value(json_object_get(o, "max_over_bound")), 1.0);
        json_t *f;
        size_t k;
        json_array_foreach(json_object_get(o, "per_flow"), k, f)
            cr_expect_leq(json_integer_value(json_object_get(f, "response")) *
                              json_integer_value(json_object_get(o, "m")),
                          json_integer_value(json_object_get(f, "flow_bound_times_m")));
    }
    /* m = 1: the response of the worst flow is the bound, vol = 12 */
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(arr, 0), "max_response")), 12);
    json_decref(arr);
    done(r);
    r = sh("ompdag simulate examples/condag/fib.json --scheduler bfs --flows random:50 --exec random --seed 3");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "m=4   bfs: 51 flow runs") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "all within the bound") != NULL, "%s", r.out);
    done(r);
    const char *bad[] = {"simulate examples/condag/fib.json --scheduler lifo",
                         "simulate examples/condag/fib.json --flows some",
                         "simulate examples/condag/fib.json --threads 0",
                         "simulate examples/condag/fib.json --graph 3"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        r = sh("ompdag %s", bad[k]);
        cr_expect_eq(r.status, 2, "'%s' exited %d", bad[k], r.status);
        done(r);
    }
}

/* Labels and names with quotes, backslashes, control characters and UTF-8
 * survive every format that carries them (JSON written partly by hand). */
Test(report, odd_characters_round_trip)
{
    const char *text =
        "{\"format\":\"ompdag-condag\",\"version\":1,\"function\":\"f\\\"q\",\"threads\":2,"
        "\"loc\":{\"file\":\"dir with space/\u00e9t\u00e9.c\",\"line\":3},"
        "\"nodes\":[{\"id\":\"a\\\\b\",\"task\":\"t\",\"kind\":\"N\",\"wcet\":5,"
        "\"label\":\"printf(\\\"x\\\\n\\\")\\t<\\/script>\\u0001\"}],\"edges\":[]}";
    ompdag_condag_set *s = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_buffer(text, strlen(text), "odd", &s, &err), OMPDAG_OK, "%s", err.message);
    const ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    ompdag_report *r = NULL;
    cr_assert_eq(ompdag_report_create(s, NULL, &r, &err), OMPDAG_OK, "%s", err.message);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    cr_assert_eq(ompdag_report_write(r, OMPDAG_REPORT_JSON, mem, NULL, NULL, &err), OMPDAG_OK);
    fclose(mem);
    json_error_t je;
    json_t *root = json_loads(buf, 0, &je);
    cr_assert_not_null(root, "%s\n%s", je.text, buf);
    json_t *row = json_array_get(json_object_get(root, "regions"), 0);
    json_t *node = json_array_get(json_object_get(row, "node_wcets"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(node, "label")), ompdag_condag_node_label(g, 0));
    cr_expect_str_eq(json_string_value(json_object_get(node, "id")), "a\\b");
    cr_expect_str_eq(json_string_value(json_object_get(row, "function")), "f\"q");
    json_decref(root);
    free(buf);
    /* SARIF: the file name is a percent-encoded URI */
    buf = NULL;
    mem = open_memstream(&buf, &len);
    ompdag_report_destroy(r);
    ompdag_deadlines *d = ompdag_deadlines_create();
    cr_assert_eq(ompdag_deadlines_add(d, "f\"q=1ns", &err), OMPDAG_OK, "%s", err.message);
    ompdag_report_options opt;
    ompdag_report_options_init(&opt);
    opt.deadlines = d;
    cr_assert_eq(ompdag_report_create(s, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_report_write(r, OMPDAG_REPORT_SARIF, mem, NULL, NULL, &err), OMPDAG_OK);
    fclose(mem);
    cr_expect(strstr(buf, "\"uri\": \"dir%20with%20space/%C3%A9t%C3%A9.c\"") != NULL, "%s", buf);
    free(buf);
    /* HTML: no raw '<' from a label, and the embedded data cannot close its script */
    buf = NULL;
    mem = open_memstream(&buf, &len);
    cr_assert_eq(ompdag_report_write(r, OMPDAG_REPORT_HTML, mem, NULL, NULL, &err), OMPDAG_OK);
    fclose(mem);
    cr_expect_eq(count(buf, "</script>"), 2, "only the page's own two scripts end");
    cr_expect(strstr(buf, "&lt;/script&gt;") != NULL);
    free(buf);
    ompdag_report_destroy(r);
    ompdag_deadlines_destroy(d);
    ompdag_condag_set_destroy(s);
}

/* A node holding an offloaded loop (its "offload" split, from the probe)
 * shows the split under the node in text and keeps it in JSON. */
Test(report, offload_split_under_its_node)
{
    ompdag_condag_set *s = load(FIXTURE);
    ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    json_t *extra = json_deep_copy(ompdag_condag_extra(g, 0));
    if (!extra)
        extra = json_object();
    json_object_set_new(extra, "offload",
                        json_pack("[{s:i,s:s,s:i,s:i,s:i,s:i},{s:i,s:s,s:i,s:i,s:i,s:i}]", "device",
                                  0, "kind", "cpu", "iterations_max", 700, "busy_ns_max", 2000000,
                                  "chunks_max", 7, "loops", 1, "device", 1, "kind", "sim-gpu",
                                  "iterations_max", 300, "busy_ns_max", 1500000, "chunks_max", 1,
                                  "loops", 1));
    cr_assert_eq(ompdag_condag_set_extra(g, 0, extra), OMPDAG_OK);
    json_decref(extra);
    char path[512];
    snprintf(path, sizeof path, "%s/offload.json", tmpdir());
    cr_assert_eq(ompdag_condag_set_save_file(s, path, false, NULL), OMPDAG_OK);
    ompdag_condag_set_destroy(s);
    run_result r = sh("ompdag report %s --threads 2", path);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "offloaded loop: cpu#0 700 it in 2 ms, sim-gpu#1 300 it in 1.5 ms"),
              "%s", r.out);
    done(r);
    r = sh("ompdag report %s --threads 2 --format json", path);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\"offload\": [{") && strstr(r.out, "\"kind\":\"sim-gpu\""), "%s",
              r.out);
    done(r);
}

/* Issue 17, item 5: the HTML report ran graphviz once per region (30 ms
 * each: 1,000 regions took half a minute).  All drawings now go through one
 * renderer call; this fake renderer answers one <svg> per digraph. */
static int fake_render_calls;
static ompdag_status fake_render(const char *dot, size_t len, char **svg, void *ctx,
                                 ompdag_error *err)
{
    (void)ctx, (void)err;
    ++fake_render_calls;
    size_t graphs = 0;
    for (const char *p = dot; (p = strstr(p, "digraph")) && p < dot + len; p += 7)
        ++graphs;
    *svg = calloc(graphs + 1, 64);
    for (size_t k = 0; k < graphs; ++k)
        sprintf(*svg + strlen(*svg), "<?xml?>\n<svg id=\"fake%zu\"></svg>\n", k);
    return OMPDAG_OK;
}

Test(html, one_renderer_call_for_all_regions)
{
    enum { REGIONS = 300 };
    char *text = malloc(REGIONS * 256 + 128), *p = text;
    p += sprintf(p, "{\"format\":\"ompdag-condag-set\",\"version\":1,\"graphs\":[");
    for (int i = 0; i < REGIONS; ++i)
        p += sprintf(p, "%s{\"function\":\"f%d\",\"threads\":2,\"time_unit\":\"ns\",\"loc\":{\"file\":"
                        "\"a.c\",\"line\":%d},\"nodes\":[{\"id\":\"a\",\"task\":\"t\",\"kind\":\"N\","
                        "\"wcet\":%d}]}",
                     i ? "," : "", i, i + 1, i + 5);
    sprintf(p, "]}");
    ompdag_condag_set *s = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_buffer(text, strlen(text), "many", &s, &err), OMPDAG_OK, "%s",
                 err.message);
    free(text);
    ompdag_report *r = NULL;
    cr_assert_eq(ompdag_report_create(s, NULL, &r, &err), OMPDAG_OK, "%s", err.message);
    char *html = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&html, &len);
    fake_render_calls = 0;
    cr_assert_eq(ompdag_report_write(r, OMPDAG_REPORT_HTML, mem, fake_render, NULL, &err), OMPDAG_OK,
                 "%s", err.message);
    fclose(mem);
    cr_expect_eq(fake_render_calls, 1, "graphviz ran %d times", fake_render_calls);
    cr_expect_eq(count(html, "<svg id=\"fake"), REGIONS);
    /* each region gets its own drawing, in order */
    const char *a = strstr(html, "<svg id=\"fake0\""), *b = strstr(html, "<svg id=\"fake299\"");
    cr_expect(a && b && a < b);
    free(html);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
}

/* ---- issue 22: a verdict you can trust ----------------------------------------- */

/* Writes `text` to TMPDIR/name; returns the path (static buffer per call site). */
static const char *write_tmp(const char *name, const char *text, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", tmpdir(), name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
    return path;
}

/* FIXTURE with one replacement of `from` by `to` (the first occurrence). */
static const char *fixture_with(const char *name, const char *from, const char *to, char *path,
                                size_t size)
{
    char *text = test_slurp(FIXTURE_PATH_BUF());
    char *at = strstr(text, from);
    cr_assert_not_null(at, "FIXTURE lacks %s", from);
    size_t n = strlen(text) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    write_tmp(name, out, path, size);
    free(out), free(text);
    return path;
}

/* A freshly extracted graph: WCETs 0, no "wcet_method", a deadline pragma. */
static const char *EXTRACTED =
    "{\"format\":\"ompdag-condag-set\",\"version\":1,\"graphs\":[{\"function\":\"run\","
    "\"threads\":2,\"deadline\":\"5ms\",\"loc\":{\"file\":\"r.c\",\"line\":7,\"col\":1},"
    "\"nodes\":[{\"id\":\"a\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":0,\"creates\":\"t2\"},"
    "{\"id\":\"w\",\"task\":\"t1\",\"kind\":\"W\",\"wcet\":0},"
    "{\"id\":\"x\",\"task\":\"t2\",\"kind\":\"N\",\"wcet\":0}],\"edges\":[[\"a\",\"w\"]]}]}";

/* Item 1: a region whose WCETs were never measured never passes, whatever
 * its deadline; check names the cause and what to do. */
Test(verdict, unannotated_graph_is_unmeasured_not_pass)
{
    char path[1024];
    write_tmp("extracted.json", EXTRACTED, path, sizeof path);
    run_result r = sh("ompdag check %s --deadline run=1ns", path);
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "r.c:7:1: error: run: unmeasured: not annotated") &&
                  strstr(r.out, "ompdag annotate") && strstr(r.out, "[ompdag-unmeasured]"),
              "%s", r.out);
    cr_expect_null(strstr(r.out, "pass"), "%s", r.out);
    done(r);
    r = sh("ompdag check %s", path); /* no deadline at all: still not a pass */
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    done(r);
    r = sh("ompdag check %s --threads 1,2,4", path); /* one line per region, every m failed */
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect_eq(count(r.out, "[ompdag-unmeasured]"), 1, "%s", r.out);
    cr_expect(strstr(r.out, "3 failed") != NULL, "%s", r.out);
    done(r);
    /* report and analyze say "not annotated" instead of "bound 0 ns" */
    r = sh("ompdag report %s", path);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "m=2: not annotated") && strstr(r.out, "UNMEASURED: not annotated") &&
                  strstr(r.out, "-> UNMEASURED") && strstr(r.out, "1 unmeasured"),
              "%s", r.out);
    cr_expect_null(strstr(r.out, "bound 0 ns"), "%s", r.out);
    done(r);
    r = sh("ompdag analyze %s", path);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "not annotated") != NULL, "%s", r.out);
    cr_expect_null(strstr(r.out, "bound 0"), "%s", r.out);
    done(r);
    r = sh("ompdag report %s --format json", path);
    json_t *root = json_loads(r.out, 0, NULL);
    cr_assert_not_null(root, "%s", r.out);
    json_t *row = json_array_get(json_object_get(root, "regions"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(row, "verdict")), "unmeasured");
    const char *why = json_string_value(json_object_get(row, "unmeasured"));
    cr_expect(why && strstr(why, "not annotated"), "%s", r.out);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(root, "summary"), "unmeasured")),
                 1);
    json_decref(root);
    done(r);
    r = sh("ompdag report %s --format csv && ompdag report %s --format sarif && "
           "ompdag report %s --format html",
           path, path, path);
    cr_expect(strstr(r.out, ",unmeasured,") && strstr(r.out, "ompdag-unmeasured") &&
                  strstr(r.out, "UNMEASURED:"),
              "%s", r.out);
    done(r);
    /* the library counts it as a failure */
    ompdag_condag_set *s = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_file(path, &s, &err), OMPDAG_OK, "%s", err.message);
    ompdag_report *rep = NULL;
    cr_assert_eq(ompdag_report_create(s, NULL, &rep, &err), OMPDAG_OK, "%s", err.message);
    cr_expect_eq(ompdag_report_row_get(rep, 0)->verdict, OMPDAG_VERDICT_UNMEASURED);
    cr_expect_eq(ompdag_report_fail_count(rep), 1);
    cr_expect_str_eq(ompdag_verdict_name(OMPDAG_VERDICT_UNMEASURED), "unmeasured");
    ompdag_report_destroy(rep);
    ompdag_condag_set_destroy(s);
}

/* Item 1: an annotation that mapped no segment (a foreign trace, a binary
 * without -g) or saw no run of the region measured nothing either. */
Test(verdict, annotation_without_segments_or_runs_is_unmeasured)
{
    char path[1024];
    fixture_with("noseg.json", "\"segments\": 21", "\"segments\": 0", path, sizeof path);
    run_result r = sh("ompdag check %s --threads 4 --deadline main=1s", path);
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "main: unmeasured: annotate mapped no measured segment") &&
                  strstr(r.out, "-g"),
              "%s", r.out);
    done(r);
    fixture_with("noruns.json", "\"observed_response_ns\": [1200000, 1500000, 900000],", "", path,
                 sizeof path);
    r = sh("ompdag check %s --threads 4 --deadline main=1s", path);
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "main: unmeasured: annotate saw no run") != NULL, "%s",
              r.out);
    done(r);
    /* issue 23 item 3: dispatch delays calibrated from interfered runs only give no
     * verdict (they measure other processes' preemptions) */
    fixture_with("ifcal.json", "\"deadline\": \"5ms\",",
                 "\"deadline\": \"5ms\", \"runtime_overheads\": {\"source\": \"calibrated "
                 "from interfered runs (no clean run)\"},",
                 path, sizeof path);
    r = sh("ompdag check %s --threads 4 --deadline main=1s", path);
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "main: unmeasured: the dispatch delays were calibrated from "
                            "interfered runs") &&
                  strstr(r.out, "--rt"),
              "%s", r.out);
    done(r);
    /* the fixture itself (21 segments, 3 runs) passes the same deadline */
    r = sh("ompdag check " FIXTURE " --threads 4 --deadline main=1s");
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    done(r);
}

/* Issue 23 item 5: the report states what the bound covers: the input the
 * graph was extracted for (extract --assume writes "assumptions"), else every
 * input within the graph's recursion and loop bounds. */
Test(verdict, the_report_says_what_the_bound_covers)
{
    char path[1024];
    run_result r = sh("ompdag report " FIXTURE " --threads 4");
    cr_expect(strstr(r.out, "covers: every input within the recursion and loop bounds") != NULL,
              "%s", r.out);
    done(r);
    fixture_with("assumed.json", "\"deadline\": \"5ms\",",
                 "\"deadline\": \"5ms\", \"assumptions\": {\"n\": 20, \"cutoff\": 3},", path,
                 sizeof path);
    r = sh("ompdag report %s --threads 4", path);
    cr_expect(strstr(r.out, "covers: the input with n=20, cutoff=3 (extract --assume)") != NULL,
              "%s", r.out);
    done(r);
    r = sh("ompdag report %s --threads 4 --format json", path);
    json_t *root = json_loads(r.out, 0, NULL);
    json_t *row = json_array_get(json_object_get(root, "regions"), 0);
    cr_expect(strstr(json_string_value(json_object_get(row, "covers")), "n=20"), "%s", r.out);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(row, "input_assumptions"), "n")),
                 20);
    json_decref(root);
    done(r);
    r = sh("ompdag report %s --threads 4 --format html", path);
    cr_expect(strstr(r.out, "Covers: the input with n=20") != NULL, "html");
    done(r);
}

/* Item 1: nonzero hand-written WCETs without "wcet_method" may pass, but
 * every format says they were given, not measured. */
Test(verdict, hand_written_wcets_are_labelled)
{
    const char *given = "given in the file, not measured by ompdag";
    run_result r = sh("ompdag check " FIXTURE " --deadline worker=1ms");
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "worker: pass: bound") && strstr(r.out, given), "%s", r.out);
    done(r);
    const char *formats[] = {"text", "json", "csv", "html", "sarif"};
    for (size_t k = 0; k < sizeof formats / sizeof formats[0]; ++k) {
        r = sh("ompdag report " FIXTURE " --deadline worker=1ms --format %s", formats[k]);
        cr_expect_eq(r.status, 0, "%s", r.err);
        cr_expect(strstr(r.out, given) != NULL, "%s lacks the label", formats[k]);
        done(r);
    }
}

/* Item 3: the escape hatches of annotate make the graph unsafe in every
 * format, also in files of an older annotate that only recorded them in
 * "wcet_method". */
Test(verdict, escape_hatches_are_unsafe_everywhere)
{
    struct {
        const char *to, *why;
    } cases[] = {
        {"\"unobserved\": \"zero\"", "--unobserved zero"},
        {"\"unobserved\": \"error\", \"overheads\": \"none\"", "--no-overheads"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char path[1024];
        fixture_with("hatch.json", "\"unobserved\": \"error\"", cases[i].to, path, sizeof path);
        run_result r = sh("ompdag check %s --threads 4", path); /* pragma 5 ms, bound 2.4 ms */
        cr_expect_eq(r.status, 1, "case %zu: %s%s", i, r.out, r.err);
        cr_expect(strstr(r.out, "main: unsafe bound 2.4 ms on 4 threads") &&
                      strstr(r.out, cases[i].why) && strstr(r.out, "[ompdag-unsafe]"),
                  "case %zu: %s", i, r.out);
        done(r);
        r = sh("ompdag report %s --threads 4", path);
        cr_expect(strstr(r.out, "UNSAFE: annotated with") && strstr(r.out, "-> UNSAFE"), "%s",
                  r.out);
        done(r);
        r = sh("ompdag report %s --threads 4 --format json", path);
        cr_expect(strstr(r.out, "\"verdict\": \"unsafe\"") && strstr(r.out, cases[i].why), "%s",
                  r.out);
        done(r);
        r = sh("ompdag report %s --threads 4 --format csv", path);
        cr_expect(strstr(r.out, ",unsafe,") && strstr(r.out, cases[i].why), "%s", r.out);
        done(r);
        r = sh("ompdag report %s --threads 4 --format sarif", path);
        cr_expect(strstr(r.out, "ompdag-unsafe") && strstr(r.out, cases[i].why), "%s", r.out);
        done(r);
        r = sh("ompdag report %s --threads 4 --format html", path);
        cr_expect(strstr(r.out, "<b>UNSAFE:</b>") && strstr(r.out, cases[i].why), "html");
        done(r);
    }
}

/* Tied tasks that suspend (each creates a grandchild and waits for it), in
 * us, m = 2 by default: Graham's bound is 1.53 ms (vol 2035 + len 1025 =
 * 3060 us / 2); it needs untied tasks.  UNTIED is "false" or "true".  The
 * root (always tied: the implicit task) only creates t1 and ends, so with
 * every explicit task untied Graham's bound holds (docs/tied.md). */
static const char *tied_graph(const char *untied, const char *deadline, char *path, size_t size)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"format\":\"ompdag-condag-set\",\"version\":1,\"graphs\":[{\"function\":\"tied\","
             "\"threads\":2,\"time_unit\":\"us\",\"deadline\":\"%s\","
             "\"loc\":{\"file\":\"t.c\",\"line\":3,\"col\":1},"
             "\"observed_response_ns\":[1000000],"
             "\"wcet_method\":{\"estimator\":\"max\",\"segments\":9,\"unobserved\":\"error\"},"
             "\"nodes\":["
             "{\"id\":\"r\",\"task\":\"t0\",\"kind\":\"T\",\"wcet\":0,\"creates\":\"t1\","
             "\"untied\":%s,\"loc\":{\"file\":\"t.c\",\"line\":4}},"
             "{\"id\":\"a\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":10,\"creates\":\"t2\","
             "\"untied\":%s,\"loc\":{\"file\":\"t.c\",\"line\":5}},"
             "{\"id\":\"b\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":0,\"creates\":\"t3\","
             "\"untied\":%s,\"loc\":{\"file\":\"t.c\",\"line\":6}},"
             "{\"id\":\"w\",\"task\":\"t1\",\"kind\":\"W\",\"wcet\":5},"
             "{\"id\":\"c\",\"task\":\"t2\",\"kind\":\"T\",\"wcet\":10,\"creates\":\"t4\","
             "\"untied\":%s,\"loc\":{\"file\":\"t.c\",\"line\":9}},"
             "{\"id\":\"d\",\"task\":\"t2\",\"kind\":\"W\",\"wcet\":500},"
             "{\"id\":\"e\",\"task\":\"t3\",\"kind\":\"T\",\"wcet\":10,\"creates\":\"t5\","
             "\"untied\":%s,\"loc\":{\"file\":\"t.c\",\"line\":12}},"
             "{\"id\":\"f\",\"task\":\"t3\",\"kind\":\"W\",\"wcet\":500},"
             "{\"id\":\"x\",\"task\":\"t4\",\"kind\":\"N\",\"wcet\":500},"
             "{\"id\":\"y\",\"task\":\"t5\",\"kind\":\"N\",\"wcet\":500}],"
             "\"edges\":[[\"a\",\"b\"],[\"b\",\"w\"],[\"c\",\"d\"],[\"e\",\"f\"]]}]}",
             deadline, untied, untied, untied, untied, untied);
    return write_tmp("tied.json", text, path, size);
}

/* The bound that holds for the tied graph, from the analysis' own API. */
static int64_t tied_bound_times_m(const char *path, int32_t m, int64_t *untied)
{
    ompdag_condag_set *s = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_file(path, &s, &err), OMPDAG_OK, "%s", err.message);
    const ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    ompdag_rta_options ro;
    ompdag_rta_options_init(&ro, m);
    ompdag_rta_result *res = NULL;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &ro, &res, &err), OMPDAG_OK, "%s", err.message);
    *untied = ompdag_rta_result_bound_times_m(res);
    ompdag_rta_result_destroy(res);
    int64_t tied = -1;
    ompdag_tied_rule rule;
    cr_assert_eq(ompdag_rta_tied_bound(g, &ro, &tied, &rule, &err), OMPDAG_OK, "%s", err.message);
    ompdag_condag_set_destroy(s);
    return tied;
}

/* Item 4: with tied tasks, check judges by the bound that holds under the
 * task scheduling constraint; JSON gives it and Graham's; the text says what
 * `untied` would give; refutation is judged against the bound that holds. */
Test(verdict, tied_tasks_judged_by_the_bound_that_holds)
{
    char path[1024];
    int64_t untied = 0;
    tied_graph("false", "1s", path, sizeof path);
    int64_t tied = tied_bound_times_m(path, 2, &untied);
    cr_expect_eq(untied, 3060, "Graham's m*R by hand: vol 2035 + len 1025");
    cr_assert_gt(tied, untied, "the test needs a graph where the constraint costs something");
    /* a deadline between the two bounds (us; m = 2) */
    int64_t between_ns = (tied + untied) / 2 * 1000 / 2;
    char dl[64];
    snprintf(dl, sizeof dl, "%" PRId64 "ns", between_ns);
    tied_graph("false", dl, path, sizeof path);
    run_result r = sh("ompdag check %s", path);
    cr_expect_eq(r.status, 1, "Graham passes %s, the bound that holds does not: %s%s", dl, r.out,
                 r.err);
    cr_expect(strstr(r.out, "[ompdag-deadline]") != NULL, "%s", r.out);
    cr_expect(strstr(r.err, "tied task(s)") && strstr(r.err, "1.53 ms"), "%s", r.err);
    done(r);
    r = sh("ompdag report %s --format json", path);
    json_t *root = json_loads(r.out, 0, NULL);
    cr_assert_not_null(root, "%s", r.out);
    json_t *row = json_array_get(json_object_get(root, "regions"), 0);
    cr_expect_float_eq(json_number_value(json_object_get(row, "bound_ns")), tied * 1000.0 / 2, 1e-6);
    cr_expect_float_eq(json_number_value(json_object_get(row, "untied_bound_ns")), 1530000.0, 1e-6);
    cr_expect_eq(json_integer_value(json_object_get(row, "bound_times_m")), tied);
    cr_expect_eq(json_integer_value(json_object_get(row, "untied_bound_times_m")), 3060);
    cr_expect_str_neq(json_string_value(json_object_get(row, "tied_rule")), "untied");
    cr_expect_str_eq(json_string_value(json_object_get(row, "verdict")), "fail");
    /* the worst flow / critical path stay the exact (Graham) result's */
    cr_expect_eq(json_integer_value(json_object_get(row, "len")), 1025);
    json_decref(root);
    done(r);
    r = sh("ompdag report %s", path);
    cr_expect(strstr(r.out, "adding `untied` to the task directive at t.c:4, t.c:5, t.c:6, t.c:9 and 1 more "
                            "tightens the bound to 1.53 ms") != NULL,
              "%s", r.out);
    done(r);
    r = sh("ompdag report %s --format html", path);
    cr_expect(strstr(r.out, "tightens the bound to 1.53 ms") != NULL, "html");
    done(r);
    r = sh("ompdag report %s --format sarif", path);
    cr_expect(strstr(r.out, "tightens the bound to 1.53 ms on 2 threads") != NULL, "%s", r.out);
    done(r);
    /* the same graph with `untied` everywhere: Graham's bound holds and passes */
    tied_graph("true", dl, path, sizeof path);
    r = sh("ompdag check %s", path);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    done(r);
    /* a clean run between the two bounds does not refute the bound that holds */
    char run[64];
    snprintf(run, sizeof run, "[%" PRId64 "]", between_ns);
    tied_graph("false", "1s", path, sizeof path);
    char *text = test_slurp(path);
    char *at = strstr(text, "[1000000]");
    cr_assert_not_null(at);
    char *edited = malloc(strlen(text) + 64);
    sprintf(edited, "%.*s%s%s", (int)(at - text), text, run, at + strlen("[1000000]"));
    write_tmp("tied_run.json", edited, path, sizeof path);
    free(edited), free(text);
    r = sh("ompdag check %s", path);
    cr_expect_eq(r.status, 0, "a run of %" PRId64 " ns is within the bound that holds: %s%s",
                 between_ns, r.out, r.err);
    cr_expect_null(strstr(r.out, "refuted"), "%s", r.out);
    done(r);
}

/* FIXTURE's region with team sizes recorded: runs of `values` ns of team
 * sizes `threads` (both JSON arrays). */
static const char *fixture_with_teams(const char *values, const char *threads, char *path,
                                      size_t size)
{
    char to[512];
    snprintf(to, sizeof to, "\"observed_response_ns\": %s, \"observed_response_threads\": %s,",
             values, threads);
    return fixture_with("teams.json", "\"observed_response_ns\": [1200000, 1500000, 900000],", to,
                        path, size);
}

/* Item 5: a run of T threads is compared only with the row at m = T.  The
 * bounds: m = 1 3.15 ms, m = 2 2.65 ms, m = 4 2.4 ms. */
Test(verdict, one_team_size_per_comparison)
{
    char path[1024];
    /* a 1-thread run of 2.8 ms: above the m = 4 bound, below the m = 1 bound */
    fixture_with_teams("[1200000, 2800000, 900000]", "[4, 1, 4]", path, sizeof path);
    run_result r = sh("ompdag check %s --threads 1,2,4 --deadline main=1s", path);
    cr_expect_eq(r.status, 0, "the 1-thread run refutes nothing: %s%s", r.out, r.err);
    done(r);
    /* a 1-thread run of 3.3 ms refutes m = 1 only */
    fixture_with_teams("[1200000, 3300000, 900000]", "[4, 1, 4]", path, sizeof path);
    ompdag_condag_set *s = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_file(path, &s, &err), OMPDAG_OK, "%s", err.message);
    const int32_t ms[] = {1, 2, 4};
    ompdag_status st;
    ompdag_report *rep = make_report(s, ms, 3, NULL, &err, &st);
    cr_assert_eq(st, OMPDAG_OK, "%s", err.message);
    const ompdag_report_row *m1 = ompdag_report_row_get(rep, 0), *m2 = ompdag_report_row_get(rep, 1),
                            *m4 = ompdag_report_row_get(rep, 2);
    cr_expect_eq(m1->verdict, OMPDAG_VERDICT_REFUTED, "%s", ompdag_verdict_name(m1->verdict));
    cr_expect_eq(m2->verdict, OMPDAG_VERDICT_PASS, "%s", ompdag_verdict_name(m2->verdict));
    cr_expect_eq(m4->verdict, OMPDAG_VERDICT_PASS, "%s", ompdag_verdict_name(m4->verdict));
    cr_expect_float_eq(m1->observed_max_ns, 3300000.0, 1e-6);
    cr_expect_eq(m1->runs, 1);
    cr_expect_float_eq(m2->observed_max_ns, -1.0, 1e-9, "no 2-thread run");
    cr_expect_eq(m2->runs, 0);
    cr_expect_float_eq(m4->observed_max_ns, 1200000.0, 1e-6);
    cr_expect_eq(m4->runs, 2);
    cr_expect(m4->team_size_recorded);
    cr_assert_eq(m4->observation_count, 2);
    cr_expect_eq(m4->observations[0].threads, 1);
    cr_expect_eq(m4->observations[0].runs, 1);
    cr_expect_eq(m4->observations[1].threads, 4);
    cr_expect_eq(m4->observations[1].clean, 2);
    cr_expect_float_eq(m4->observations[1].max_ns, 1200000.0, 1e-6);
    ompdag_report_destroy(rep);
    ompdag_condag_set_destroy(s);
    r = sh("ompdag report %s --threads 4 --format json", path);
    json_t *root = json_loads(r.out, 0, NULL);
    cr_assert_not_null(root, "%s", r.out);
    json_t *row = json_array_get(json_object_get(root, "regions"), 0);
    json_t *obs = json_object_get(row, "observations");
    cr_assert_eq(json_array_size(obs), 2, "%s", r.out);
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(obs, 0), "threads")), 1);
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(obs, 1), "runs")), 2);
    cr_expect_float_eq(json_number_value(json_object_get(json_array_get(obs, 0), "max_ns")),
                       3300000.0, 1e-6);
    json_decref(root);
    done(r);
    r = sh("ompdag report %s --threads 4", path);
    cr_expect(strstr(r.out, "runs by team size: 1 thread(s): 1 run(s) (1 clean, 0 interfered), max "
                            "3.3 ms; 4 thread(s): 2 run(s) (2 clean, 0 interfered), max 1.2 ms") != NULL,
              "%s", r.out);
    done(r);
    r = sh("ompdag report %s --threads 4 --format html", path);
    cr_expect(strstr(r.out, "runs by team size: 1 thread(s)") != NULL, "html");
    done(r);
    /* without the thread arrays: pooled, the conservative side, and said so */
    fixture_with("pooled.json", "[1200000, 1500000, 900000]", "[1200000, 3300000, 900000]", path,
                 sizeof path);
    r = sh("ompdag check %s --threads 4 --deadline main=1s", path);
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "[ompdag-refuted]") != NULL, "%s", r.out);
    done(r);
    r = sh("ompdag report %s --threads 4", path);
    cr_expect(strstr(r.out, "team size not recorded") != NULL, "%s", r.out);
    done(r);
}

/* The CSV field of `column` (by header name) in data line `line` (1-based). */
static char *csv_field_of(const char *csv, int line, const char *column)
{
    char *copy = strdup(csv), *save = NULL, *lines[16] = {0};
    int n = 0;
    for (char *l = strtok_r(copy, "\r\n", &save); l && n < 16; l = strtok_r(NULL, "\r\n", &save))
        lines[n++] = l;
    cr_assert(line < n, "no CSV line %d", line);
    int col = -1, k = 0;
    for (char *h = lines[0], *end; h && col < 0; h = end ? end + 1 : NULL, ++k) {
        end = strchr(h, ',');
        if ((end ? (size_t)(end - h) : strlen(h)) == strlen(column) &&
            !strncmp(h, column, strlen(column)))
            col = k;
    }
    cr_assert(col >= 0, "no CSV column %s", column);
    char *p = lines[line];
    for (k = 0; k < col && p; ++k) { /* the fields checked hold no quoted comma */
        if (*p == '"') p = strchr(p + 1, '"');
        p = p ? strchr(p, ',') : NULL;
        if (p) ++p;
    }
    cr_assert_not_null(p);
    char *out = strndup(p, strcspn(p, ","));
    free(copy);
    return out;
}

/* The regions-table <tr> of the HTML page holding `needle`, as a new string. */
static char *html_row_with(const char *html, const char *needle)
{
    const char *table = strstr(html, "id=\"regions\"");
    cr_assert_not_null(table);
    for (const char *tr = strstr(table, "<tr>"); tr; tr = strstr(tr + 4, "<tr>")) {
        const char *end = strstr(tr, "</tr>");
        cr_assert_not_null(end);
        char *row = strndup(tr, (size_t)(end - tr));
        if (strstr(row, needle)) return row;
        free(row);
    }
    return NULL;
}

/* Item 6: every format shows the bound that decides the verdict (the whole
 * region's, with the measured fork/join) next to the deadline and the slack,
 * and no row contradicts its verdict.  Task system 2.4 ms, region 2.82 ms. */
Test(verdict, every_format_shows_the_deciding_bound)
{
    ompdag_condag_set *s = load_with_fork_join("[1000000, 1300000, 800000]",
                                               "[1200000, 1500000, 900000]");
    ompdag_condag_set_destroy(s); /* it wrote TMPDIR/fork_join.json */
    char file[1024];
    snprintf(file, sizeof file, "%s/fork_join.json", tmpdir());
    struct {
        const char *deadline, *text_deadline, *slack, *verdict;
        double slack_ns;
    } cases[] = {
        {"main=2.5ms", "2.5 ms", "-320 us", "fail", -320000},   /* the task system alone passes */
        {"main=2.82ms", "2.82 ms", "0 ns", "pass", 0},          /* boundary */
        {"main=5ms", "5 ms", "2.18 ms", "pass", 2180000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        bool pass = !strcmp(cases[i].verdict, "pass");
        /* text: one line holds deadline, bound, slack and verdict */
        run_result r = sh("ompdag report %s --threads 4 --deadline %s", file, cases[i].deadline);
        char want[256];
        snprintf(want, sizeof want, "deadline %s (--deadline %s): bound 2.82 ms (whole region), "
                 "slack %s -> %s", cases[i].text_deadline, cases[i].deadline, cases[i].slack,
                 pass ? "PASS" : "FAIL");
        cr_expect(strstr(r.out, want) != NULL, "case %zu: text lacks '%s':\n%s", i, want, r.out);
        done(r);
        /* JSON */
        r = sh("ompdag report %s --threads 4 --deadline %s --format json", file, cases[i].deadline);
        json_t *root = json_loads(r.out, 0, NULL);
        cr_assert_not_null(root, "%s", r.out);
        json_t *row = json_array_get(json_object_get(root, "regions"), 0);
        double vb = json_number_value(json_object_get(row, "verdict_bound_ns"));
        double dl = (double)json_integer_value(json_object_get(row, "deadline_ns"));
        cr_expect_float_eq(vb, 2820000.0, 1e-6, "case %zu", i);
        cr_expect_float_eq(json_number_value(json_object_get(row, "slack_ns")), dl - vb, 1e-6);
        cr_expect_eq(vb <= dl, pass, "case %zu", i);
        cr_expect_str_eq(json_string_value(json_object_get(row, "verdict")), cases[i].verdict);
        json_decref(root);
        done(r);
        /* CSV */
        r = sh("ompdag report %s --threads 4 --deadline %s --format csv", file, cases[i].deadline);
        char *f_vb = csv_field_of(r.out, 1, "verdict_bound_ns");
        char *f_dl = csv_field_of(r.out, 1, "deadline_ns");
        char *f_sl = csv_field_of(r.out, 1, "slack_ns");
        char *f_v = csv_field_of(r.out, 1, "verdict");
        cr_expect_float_eq(atof(f_vb), 2820000.0, 1e-6, "case %zu: %s", i, r.out);
        cr_expect_float_eq(atof(f_sl), atof(f_dl) - atof(f_vb), 1e-6, "case %zu", i);
        cr_expect_float_eq(atof(f_sl), cases[i].slack_ns, 1e-6, "case %zu", i);
        cr_expect_eq(atof(f_vb) <= atof(f_dl), pass, "case %zu", i);
        cr_expect_str_eq(f_v, cases[i].verdict);
        free(f_vb), free(f_dl), free(f_sl), free(f_v);
        done(r);
        /* SARIF: the deadline result (error, or kind pass) carries all four */
        r = sh("ompdag report %s --threads 4 --deadline %s --format sarif", file, cases[i].deadline);
        json_t *log = json_loads(r.out, 0, NULL);
        cr_assert_not_null(log, "%s", r.out);
        json_t *res = find_result(log, "ompdag-deadline", 10);
        cr_assert_not_null(res, "case %zu: %s", i, r.out);
        json_t *props = json_object_get(res, "properties");
        cr_expect_float_eq(json_number_value(json_object_get(props, "verdict_bound_ns")), 2820000.0,
                           1e-6);
        cr_expect_float_eq(json_number_value(json_object_get(props, "slack_ns")),
                           cases[i].slack_ns, 1e-6);
        cr_expect_str_eq(json_string_value(json_object_get(props, "verdict")), cases[i].verdict);
        cr_expect_str_eq(json_string_value(json_object_get(res, "level")), pass ? "none" : "error");
        const char *msg = json_string_value(json_object_get(json_object_get(res, "message"), "text"));
        cr_expect(msg && strstr(msg, "bound 2.82 ms") && strstr(msg, cases[i].text_deadline) &&
                      strstr(msg, cases[i].slack),
                  "case %zu: %s", i, msg);
        json_decref(log);
        done(r);
        /* HTML: the table row with the deadline holds the deciding bound */
        r = sh("ompdag report %s --threads 4 --deadline %s --format html", file, cases[i].deadline);
        char *tr = html_row_with(r.out, cases[i].text_deadline);
        cr_assert_not_null(tr, "case %zu: no row with the deadline", i);
        cr_expect(strstr(tr, ">2.82 ms<") && strstr(tr, cases[i].slack) &&
                      strstr(tr, pass ? ">pass<" : ">fail<"),
                  "case %zu: %s", i, tr);
        free(tr);
        done(r);
    }
}

/* Item 4 for the compiler plugin: a deadline between Graham's bound and the
 * bound that holds for tied tasks is a violation, as in `ompdag check`. */
Test(verdict, plugin_violations_use_the_bound_that_holds)
{
    char path[1024];
    int64_t untied = 0;
    tied_graph("false", "1s", path, sizeof path);
    int64_t tied = tied_bound_times_m(path, 2, &untied);
    cr_assert_gt(tied, untied, "the test needs a graph where the constraint costs something");
    char dl[64];
    snprintf(dl, sizeof dl, "%" PRId64 "ns", (tied + untied) / 2 * 1000 / 2);
    tied_graph("false", dl, path, sizeof path);
    ompdag_condag_set *db = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_file(path, &db, &err), OMPDAG_OK, "%s", err.message);
    ompdag_deadline_violation *v = NULL;
    size_t n = 0;
    cr_assert_eq(ompdag_deadline_violations(NULL, db, 0, &v, &n, &err), OMPDAG_OK, "%s",
                 err.message);
    cr_assert_eq(n, 1, "Graham's 1.53 ms is within %s, the bound that holds is not", dl);
    cr_expect_eq(v[0].bound_times_m, tied);
    free(v);
    ompdag_condag_set_destroy(db);
}
