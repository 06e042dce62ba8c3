/* tests/report/test_report.c — `ompdag report`: durations, values and
 * verdicts against hand-computed bounds, deadline precedence, the golden
 * text/JSON reports (OMPDAG_UPDATE_GOLDEN=1 ctest -R "^test_report$"
 * rewrites them), usage errors and the offload split.  The other subjects
 * have their own files: test_report_formats.c (JSON, CSV, SARIF, HTML),
 * test_report_check.c (check and the plugin's violations),
 * test_report_verdict.c (issue 22's verdicts) and test_report_pipeline.c
 * (the real pipeline, simulate); report_util.h holds what they share. */
#include "report_util.h"

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
    cr_assert_eq(ompdag_condag_assign_extra(g, 0, extra), OMPDAG_OK);
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

/* Clauses in a compact loop give the bound only (rta_loop_depend.c): the
 * worst flow line must say vol and len are unknown, not "exact" beside
 * "vol -1" as it did when the loop witness's wording was used for them. */
Test(report, loop_depend_worst_flow_says_vol_and_len_are_unknown)
{
    char path[512];
    snprintf(path, sizeof path, "%s/loop_depend.json", tmpdir());
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("{\"format\": \"ompdag-condag\", \"version\": 1, \"extensions\": [\"loops\"],"
          " \"nodes\": [{\"id\": \"a\", \"task\": \"main\", \"kind\": \"N\", \"wcet\": 3},"
          " {\"id\": \"L\", \"task\": \"main\", \"kind\": \"C\", \"wcet\": 1, \"repeat\": 100000},"
          " {\"id\": \"t\", \"task\": \"main\", \"kind\": \"T\", \"wcet\": 2, \"creates\": \"k\","
          " \"depend\": [{\"type\": \"in\", \"var\": \"a\", \"index\": {\"loop\": \"L\", "
          "\"offset\": 0}}, {\"type\": \"out\", \"var\": \"a\", \"index\": {\"loop\": \"L\", "
          "\"offset\": 1}}]},"
          " {\"id\": \"e\", \"task\": \"main\", \"kind\": \"J\", \"wcet\": 0},"
          " {\"id\": \"x\", \"task\": \"main\", \"kind\": \"J\", \"wcet\": 0},"
          " {\"id\": \"w\", \"task\": \"main\", \"kind\": \"W\", \"wcet\": 5},"
          " {\"id\": \"k\", \"task\": \"k\", \"kind\": \"N\", \"wcet\": 10}],"
          " \"edges\": [[\"a\",\"L\"], [\"L\",\"t\"], [\"L\",\"x\"], [\"t\",\"e\"], [\"e\",\"x\"],"
          " [\"x\",\"w\"]]}\n",
          f);
    fclose(f);
    run_result r = sh("ompdag report %s --threads 2", path);
    cr_assert_eq(r.status, 0, "%s", r.err);
    /* tied tasks (no "untied"), rule tied-root: m·R = m·vol, vol = 3 + K·(1 + 2 + 10) + 5 */
    cr_expect(strstr(r.out, "m*R = 2600016 ns"), "%s", r.out);
    cr_expect(strstr(r.out, "depend clauses in compact loops give the bound only"), "%s", r.out);
    cr_expect(strstr(r.out, "vol and len are unknown (-1)"), "%s", r.out);
    cr_expect(!strstr(r.out, "vol and len are exact"), "%s", r.out);
    done(r);
}
