/* tests/report/test_report_verdict.c — issue 22, a verdict you can trust:
 * unmeasured and unsafe regions never pass, hand-written WCETs are labelled,
 * tied tasks are judged by the bound that holds, runs are compared by team
 * size, and every format shows the bound that decides the verdict. */
#include <inttypes.h>

#include "report_util.h"

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
    cr_expect_eq(
        json_integer_value(json_object_get(json_object_get(root, "summary"), "unmeasured")), 1);
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
    cr_expect(strstr(r.out, "main: unmeasured: annotate saw no run") != NULL, "%s", r.out);
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
    cr_expect_eq(
        json_integer_value(json_object_get(json_object_get(row, "input_assumptions"), "n")), 20);
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
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &ro, &res, &err), OMPDAG_OK, "%s",
                 err.message);
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
    cr_expect_float_eq(json_number_value(json_object_get(row, "bound_ns")), tied * 1000.0 / 2,
                       1e-6);
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
    cr_expect(
        strstr(r.out,
               "adding `untied` to the task directive at t.c:4, t.c:5, t.c:6, t.c:9 and 1 more "
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
    const ompdag_report_row *m1 = ompdag_report_row_get(rep, 0),
                            *m2 = ompdag_report_row_get(rep, 1),
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
    cr_expect(strstr(r.out,
                     "runs by team size: 1 thread(s): 1 run(s) (1 clean, 0 interfered), max "
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
    ompdag_condag_set *s =
        load_with_fork_join("[1000000, 1300000, 800000]", "[1200000, 1500000, 900000]");
    ompdag_condag_set_destroy(s); /* it wrote TMPDIR/fork_join.json */
    char file[1024];
    snprintf(file, sizeof file, "%s/fork_join.json", tmpdir());
    struct {
        const char *deadline, *text_deadline, *slack, *verdict;
        double slack_ns;
    } cases[] = {
        {"main=2.5ms", "2.5 ms", "-320 us", "fail", -320000}, /* the task system alone passes */
        {"main=2.82ms", "2.82 ms", "0 ns", "pass", 0},        /* boundary */
        {"main=5ms", "5 ms", "2.18 ms", "pass", 2180000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        bool pass = !strcmp(cases[i].verdict, "pass");
        /* text: one line holds deadline, bound, slack and verdict */
        run_result r = sh("ompdag report %s --threads 4 --deadline %s", file, cases[i].deadline);
        char want[256];
        snprintf(want, sizeof want,
                 "deadline %s (--deadline %s): bound 2.82 ms (whole region), "
                 "slack %s -> %s",
                 cases[i].text_deadline, cases[i].deadline, cases[i].slack, pass ? "PASS" : "FAIL");
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
        r = sh("ompdag report %s --threads 4 --deadline %s --format sarif", file,
               cases[i].deadline);
        json_t *log = json_loads(r.out, 0, NULL);
        cr_assert_not_null(log, "%s", r.out);
        json_t *res = find_result(log, "ompdag-deadline", 10);
        cr_assert_not_null(res, "case %zu: %s", i, r.out);
        json_t *props = json_object_get(res, "properties");
        cr_expect_float_eq(json_number_value(json_object_get(props, "verdict_bound_ns")), 2820000.0,
                           1e-6);
        cr_expect_float_eq(json_number_value(json_object_get(props, "slack_ns")), cases[i].slack_ns,
                           1e-6);
        cr_expect_str_eq(json_string_value(json_object_get(props, "verdict")), cases[i].verdict);
        cr_expect_str_eq(json_string_value(json_object_get(res, "level")), pass ? "none" : "error");
        const char *msg =
            json_string_value(json_object_get(json_object_get(res, "message"), "text"));
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
