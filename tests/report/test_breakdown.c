/*
 * tests/report/test_breakdown.c — the per-row breakdown of the bound (issue 23
 * item 6; report/report_breakdown.c, docs/report.md "breakdown") on a
 * hand-made annotated graph whose every figure is computed by hand below:
 * tasks in the worst flow vs run, volume vs observed work, the delays' share
 * of Graham's bound (chain-only and folded), margin, outliers by
 * max ÷ median, the floor over clean runs at m, and a floor below 1 reported
 * loudly.  Text, JSON and HTML show it.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/report.h"

/* Root t1: s -> a (creates t2) -> w (taskwait) -> e; t2: x.  Time unit ns,
 * m = 2.  Graham with delays on the chain only, weight (m−1)·c + m·D:
 * s 100, a 10, x 200 + 2·10 = 220, w 20 + 2·5 = 30, e 30; the longest path
 * s a x w e = 390, vol = 360, so m·R = 750, R = 375.  Σ_chain D = 15, whose
 * part of m·R is 2·15 = 30: delay 15 ns, share 30/750 = 0.04. */
static const char *graph_json(const char *floor_runs)
{
    static char buf[8192];
    snprintf(buf, sizeof buf,
             "{\"format\": \"ompdag-condag-set\", \"version\": 1, \"graphs\": [{"
             "\"name\": \"main:10\", \"function\": \"main\", \"threads\": 2, \"time_unit\": \"ns\","
             "\"extensions\": [\"delays\"],"
             "\"loc\": {\"file\": \"b.c\", \"line\": 10, \"col\": 1},"
             "\"observed_task_response_ns\": [300, 200, 400],"
             "\"observed_task_response_ns_interfered\": [false, false, true],"
             "\"observed_task_response_threads\": [2, 2, 2],"
             "\"wcet_method\": {\"estimator\": \"max\", \"margin_pct\": 20.0, \"traces\": 1,"
             "  \"segments\": 9, \"unobserved\": \"error\"},"
             "%s"
             "\"nodes\": ["
             "{\"id\": \"s\", \"task\": \"t1\", \"kind\": \"N\", \"wcet\": 100, \"samples\": 3,"
             "  \"observed_max\": 100, \"observed_median\": 10, \"loc\": {\"file\": \"b.c\", "
             "\"line\": 11}},"
             "{\"id\": \"a\", \"task\": \"t1\", \"kind\": \"T\", \"wcet\": 10, \"creates\": \"t2\","
             "  \"untied\": true, \"samples\": 3, \"observed_max\": 10, \"observed_median\": 8,"
             "  \"loc\": {\"file\": \"b.c\", \"line\": 12}},"
             "{\"id\": \"w\", \"task\": \"t1\", \"kind\": \"W\", \"wcet\": 20, \"delay\": 5, "
             "\"samples\": 3,"
             "  \"observed_max\": 20, \"observed_median\": 4, \"loc\": {\"file\": \"b.c\", "
             "\"line\": 14}},"
             "{\"id\": \"e\", \"task\": \"t1\", \"kind\": \"N\", \"wcet\": 30, \"samples\": 3,"
             "  \"observed_max\": 30, \"observed_median\": 20, \"loc\": {\"file\": \"b.c\", "
             "\"line\": 15}},"
             "{\"id\": \"x\", \"task\": \"t2\", \"kind\": \"N\", \"wcet\": 200, \"delay\": 10,"
             "  \"samples\": 3, \"observed_max\": 200, \"observed_median\": 100,"
             "  \"loc\": {\"file\": \"b.c\", \"line\": 13}}],"
             "\"edges\": [[\"s\", \"a\"], [\"a\", \"w\"], [\"w\", \"e\"]]}]}",
             floor_runs);
    return buf;
}

/* Clean runs at m = 2: 660/(2·300) = 1.1 and 500/(2·200) = 1.25; an
 * interfered one at 700/(2·400) = 0.875 (below 1); one of 4 threads, which
 * the row at m = 2 ignores. */
static const char *FLOOR =
    "\"floor\": {\"runs\": ["
    "{\"run\": 0, \"threads\": 2, \"response_ns\": 300, \"own_graham_m_ns\": 660, \"tasks\": 1,"
    " \"work_ns\": 250, \"clean\": true},"
    "{\"run\": 1, \"threads\": 2, \"response_ns\": 200, \"own_graham_m_ns\": 500, \"tasks\": 1,"
    " \"work_ns\": 300, \"clean\": true},"
    "{\"run\": 2, \"threads\": 2, \"response_ns\": 400, \"own_graham_m_ns\": 700, \"tasks\": 1,"
    " \"work_ns\": 900, \"clean\": false},"
    "{\"run\": 3, \"threads\": 4, \"response_ns\": 100, \"own_graham_m_ns\": 4000, \"tasks\": 7,"
    " \"work_ns\": 5000, \"clean\": true}]},";

static ompdag_report *make_report(const char *text, ompdag_condag_set **set)
{
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_buffer(text, strlen(text), "b", set, &err), OMPDAG_OK, "%s",
                 err.message);
    ompdag_report *r;
    cr_assert_eq(ompdag_report_create(*set, NULL, &r, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_report_row_count(r), 1);
    return r;
}

static char *written(const ompdag_report *r, ompdag_report_format fmt)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    ompdag_error err;
    cr_assert_eq(ompdag_report_write(r, fmt, mem, NULL, NULL, &err), OMPDAG_OK, "%s", err.message);
    fclose(mem);
    return text;
}

Test(breakdown, every_term_is_computed_by_hand)
{
    ompdag_condag_set *set;
    ompdag_report *r = make_report(graph_json(FLOOR), &set);
    const ompdag_report_row *row = ompdag_report_row_get(r, 0);
    const ompdag_report_breakdown *b = &row->breakdown;
    cr_assert_eq(row->untied_bound_times_m, 750);
    cr_expect_eq(b->flow_tasks, 2);
    cr_expect_eq(b->observed_tasks, 2); /* one explicit task + the root, at m = 2 */
    cr_expect_eq(b->vol_ns, 360);
    cr_expect_eq(b->observed_work_ns, 300); /* clean runs only */
    cr_expect_eq(b->delay_ns, 15);
    cr_expect_float_eq(b->delay_share, 0.04, 1e-12);
    cr_expect_not(b->delays_folded);
    cr_expect_float_eq(b->margin_pct, 20, 1e-12);
    cr_assert_eq(b->outlier_count, 3);
    cr_expect_str_eq(b->outliers[0].place, "b.c:11"); /* 100 ÷ 10 */
    cr_expect_float_eq(b->outliers[0].ratio, 10, 1e-12);
    cr_expect_str_eq(b->outliers[1].place, "b.c:14"); /* 20 ÷ 4 */
    cr_expect_str_eq(b->outliers[2].place, "b.c:13"); /* 200 ÷ 100; b.c:15 1.5, b.c:12 1.25 */
    cr_expect_eq(b->floor_runs, 2);
    cr_expect_float_eq(b->floor_min, 1.1, 1e-12);
    cr_expect_float_eq(b->floor_max, 1.25, 1e-12);
    cr_expect_float_eq(b->floor_median, 1.175, 1e-12);
    cr_expect_eq(b->floor_below_one, 1);
    cr_expect_float_eq(b->bound_over_observed, 375.0 / 300.0, 1e-12);
    cr_expect_float_eq(b->factor_graph, 1, 1e-12);
    cr_expect_float_eq(b->factor_wcets, 360.0 / 300.0 / 1.2, 1e-12);
    cr_expect_float_eq(b->factor_delays, 1 / 0.96, 1e-12);
    cr_expect_float_eq(b->factor_margin, 1.2, 1e-12);
    cr_expect_str_eq(b->largest, "margin"); /* 1.2 > floor 1.175 > delays 1.04 */
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(set);
}

Test(breakdown, text_json_and_html_show_it)
{
    ompdag_condag_set *set;
    ompdag_report *r = make_report(graph_json(FLOOR), &set);
    char *text = written(r, OMPDAG_REPORT_TEXT);
    cr_expect(strstr(text, "breakdown: 2 task(s) in the worst flow vs 2 run"), "%s", text);
    cr_expect(strstr(text, "= 4.0% of Graham's bound"), "%s", text);
    cr_expect(strstr(text, "outliers (max ÷ median): b.c:11 10×"), "%s", text);
    cr_expect(strstr(text, "floor 1.1 / 1.18 / 1.25 (min / median / max over 2 clean run(s)"), "%s",
              text);
    cr_expect(strstr(text, "vs bound ÷ observed 1.25×"), "%s", text);
    cr_expect(strstr(text, "attack first: margin"), "%s", text);
    cr_expect(strstr(text, "FLOOR BELOW 1 in 1 run(s)"), "%s", text);
    free(text);
    char *js = written(r, OMPDAG_REPORT_JSON);
    json_error_t je;
    json_t *doc = json_loads(js, 0, &je);
    cr_assert(doc, "%s", je.text);
    json_t *region = json_array_get(json_object_get(doc, "regions"), 0);
    json_t *b = json_object_get(region, "breakdown");
    cr_assert(json_is_object(b), "%s", js);
    const char *keys[] = {"flow_tasks", "observed_tasks",      "vol_ns",     "observed_work_ns",
                          "delay_ns",   "delay_share",         "margin_pct", "outliers",
                          "floor",      "bound_over_observed", "factors",    "largest"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k)
        cr_expect(json_object_get(b, keys[k]), "no breakdown.%s", keys[k]);
    json_t *fl = json_object_get(b, "floor");
    cr_expect_float_eq(json_real_value(json_object_get(fl, "min")), 1.1, 1e-12);
    cr_expect_eq(json_integer_value(json_object_get(fl, "below_one")), 1);
    cr_expect_eq(json_array_size(json_object_get(b, "outliers")), 3);
    json_decref(doc);
    free(js);
    char *html = written(r, OMPDAG_REPORT_HTML);
    cr_expect(strstr(html, "<pre class=\"fail\">"), "the floor below 1 is shown in red");
    cr_expect(strstr(html, "breakdown: 2 task(s)"));
    free(html);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(set);
}

/* Without annotate's "floor" (a file annotated before it) nothing is
 * invented: the figures that need it are unknown, and the reports stay as
 * they were (no breakdown in text, HTML or JSON). */
Test(breakdown, no_floor_is_said_not_invented)
{
    ompdag_condag_set *set;
    ompdag_report *r = make_report(graph_json(""), &set);
    const ompdag_report_breakdown *b = &ompdag_report_row_get(r, 0)->breakdown;
    cr_expect_not(b->has_floor);
    cr_expect_eq(b->floor_runs, 0);
    cr_expect_eq(b->floor_min, -1);
    cr_expect_eq(b->observed_work_ns, -1);
    cr_expect_eq(b->factor_wcets, -1);
    cr_expect_float_eq(b->delay_share, 0.04, 1e-12); /* what needs no run is still there */
    char *text = written(r, OMPDAG_REPORT_TEXT);
    cr_expect(!strstr(text, "breakdown:"), "%s", text);
    free(text);
    char *js = written(r, OMPDAG_REPORT_JSON);
    cr_expect(!strstr(js, "\"breakdown\""), "%s", js);
    free(js);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(set);
}

/* A floor with no clean run at m: the line says so. */
Test(breakdown, no_clean_run_at_m_is_said)
{
    ompdag_condag_set *set;
    ompdag_report *r =
        make_report(graph_json("\"floor\": {\"runs\": [{\"threads\": 4, \"response_ns\": 100, "
                               "\"own_graham_m_ns\": 4000, \"tasks\": 1, \"work_ns\": 50, "
                               "\"clean\": true}]},"),
                    &set);
    const ompdag_report_breakdown *b = &ompdag_report_row_get(r, 0)->breakdown;
    cr_expect(b->has_floor);
    cr_expect_eq(b->floor_runs, 0);
    char *text = written(r, OMPDAG_REPORT_TEXT);
    cr_expect(strstr(text, "floor: n/a (no clean run at this m)"), "%s", text);
    cr_expect(!strstr(text, "FLOOR BELOW 1"), "%s", text);
    free(text);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(set);
}
