/*
 * tests/report/test_report_input.c — the bound for the input the traces ran
 * (report/report_input.c, docs/probe.md#input) on hand-written graphs whose
 * figures can be checked by hand:
 *
 *   root: r1 (T, 10) creates a (N, 100); c1 (C, 0) takes r2 (T, 10) creating
 *   b (N, 300), or n1 (N, 5); j1 (J, 0); w1 (W, 20).
 *
 * At m = 2 the root (tied, the implicit task) resumes after r1, so the
 * tied ROOT rule decides (docs/tied.md §4): m·R <= max vol(e) + Lr, Lr the
 * longest path with the resumption edges a1 -> c1 and b1 -> j1.  The flow
 * through r2: vol 440, Lr = r1 a1 c1 r2 b1 j1 w1 = 440, so 880 (Graham's
 * 780 is below it).  The input's nodes below leave out r2 and b1: vol 135,
 * Lr = r1 a1 c1 n1 j1 w1 = 135, so 270.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "ompdag/report.h"

#define NODES                                                                                      \
    "\"nodes\": ["                                                                                 \
    "{\"id\": \"r1\", \"task\": \"root\", \"kind\": \"T\", \"wcet\": 10, \"creates\": \"a\", "     \
    "\"untied\": true},"                                                                           \
    "{\"id\": \"c1\", \"task\": \"root\", \"kind\": \"C\", \"wcet\": 0},"                          \
    "{\"id\": \"r2\", \"task\": \"root\", \"kind\": \"T\", \"wcet\": 10, \"creates\": \"b\", "     \
    "\"untied\": true},"                                                                           \
    "{\"id\": \"n1\", \"task\": \"root\", \"kind\": \"N\", \"wcet\": 5},"                          \
    "{\"id\": \"j1\", \"task\": \"root\", \"kind\": \"J\", \"wcet\": 0},"                          \
    "{\"id\": \"w1\", \"task\": \"root\", \"kind\": \"W\", \"wcet\": 20},"                         \
    "{\"id\": \"a1\", \"task\": \"a\", \"kind\": \"N\", \"wcet\": 100},"                           \
    "{\"id\": \"b1\", \"task\": \"b\", \"kind\": \"N\", \"wcet\": 300}],"                          \
    "\"edges\": [[\"r1\", \"c1\"], [\"c1\", \"r2\"], [\"c1\", \"n1\"], [\"r2\", \"j1\"], "         \
    "[\"n1\", \"j1\"], [\"j1\", \"w1\"]]"

static ompdag_condag_set *graph_with(const char *extra)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"format\": \"ompdag-condag\", \"version\": 1, \"function\": \"main\", "
             "\"time_unit\": \"ns\", %s%s}",
             NODES, extra);
    ompdag_condag_set *s = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_buffer(text, strlen(text), "test", &s, &err), OMPDAG_OK,
                 "%s", err.message);
    return s;
}

static const char *INPUT = ", \"input\": {\"recorded\": true, \"runs\": 3, "
                           "\"claim\": \"the task structure of these 3 runs\", "
                           "\"nodes\": [\"r1\", \"c1\", \"n1\", \"j1\", \"w1\", \"a1\"]}";

/* The report's only row at m = 2, with an optional deadline for main. */
static ompdag_report *report_at_2(const ompdag_condag_set *s, const char *deadline, bool for_input)
{
    ompdag_report_options opt;
    ompdag_report_options_init(&opt);
    int32_t m = 2;
    opt.threads = &m, opt.thread_count = 1, opt.for_input = for_input;
    ompdag_deadlines *d = ompdag_deadlines_create();
    ompdag_error err = {0};
    if (deadline)
        cr_assert_eq(ompdag_deadlines_add(d, deadline, &err), OMPDAG_OK, "%s", err.message);
    opt.deadlines = d;
    ompdag_report *r = NULL;
    cr_assert_eq(ompdag_report_create(s, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    ompdag_deadlines_destroy(d);
    return r;
}

Test(input_bound, the_pruned_flow_is_bounded_by_hand)
{
    ompdag_condag_set *s = graph_with(INPUT);
    ompdag_report *r = report_at_2(s, NULL, false);
    const ompdag_report_row *row = ompdag_report_row_get(r, 0);
    cr_expect_eq(row->bound_times_m, 880);
    cr_expect_eq(row->input_bound_times_m, 270, "got %lld", (long long)row->input_bound_times_m);
    cr_expect_str_eq(row->input_claim, "the task structure of these 3 runs");
    /* Graham's of the pruned DAG: vol 135 + the path r1 a1 w1 = 130 */
    cr_expect_eq(row->input_graham_times_m, 265);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
}

Test(input_bound, input_wcets_and_delays_replace_the_graphs)
{
    /* a1 at 60 instead of 100, and a delay of 7 on a1 (a task source):
     * vol 95 without delays, and the ROOT path r1 a1 c1 n1 j1 w1 weighted
     * (m−1)·c + m·D = 10 + (60 + 14) + 5 + 20 = 109: 204 (the folded form
     * gives 102 + 102 = 204 too; Graham's chain-only 199 is below) */
    ompdag_condag_set *s = graph_with(
        ", \"input\": {\"recorded\": true, \"runs\": 1, \"claim\": \"one run\", "
        "\"nodes\": [\"r1\", \"c1\", \"n1\", \"j1\", \"w1\", \"a1\"], \"wcets\": {\"a1\": 60}, "
        "\"delays\": {\"a1\": 7}}");
    ompdag_report *r = report_at_2(s, NULL, false);
    cr_expect_eq(ompdag_report_row_get(r, 0)->input_bound_times_m, 204);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
}

Test(input_bound, deadlines_are_judged_by_the_input_only_when_asked)
{
    ompdag_condag_set *s = graph_with(INPUT);
    /* 200 ns: above the input's 135, below the graph's 440 */
    ompdag_report *r = report_at_2(s, "main=200ns", false);
    cr_expect_eq(ompdag_report_row_get(r, 0)->verdict, OMPDAG_VERDICT_FAIL);
    ompdag_report_destroy(r);
    r = report_at_2(s, "main=200ns", true);
    const ompdag_report_row *row = ompdag_report_row_get(r, 0);
    cr_expect(row->judged_for_input);
    cr_expect_eq(row->verdict, OMPDAG_VERDICT_PASS);
    cr_expect_float_eq(row->verdict_bound_ns, 135.0, 1e-9);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
}

Test(input_bound, a_clean_run_above_the_inputs_bound_refutes_it)
{
    /* 200 ns observed: within the graph's 440, above the input's 135 */
    ompdag_condag_set *s =
        graph_with(", \"observed_task_response_ns\": [200], \"input\": {\"recorded\": true, "
                   "\"runs\": 1, \"claim\": \"one run\", "
                   "\"nodes\": [\"r1\", \"c1\", \"n1\", \"j1\", \"w1\", \"a1\"]}");
    ompdag_report *r = report_at_2(s, NULL, false);
    const ompdag_report_row *row = ompdag_report_row_get(r, 0);
    cr_expect_eq(row->verdict, OMPDAG_VERDICT_REFUTED);
    cr_expect(row->refuted_input && !row->refuted_by_region);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
}

Test(input_bound, runs_that_differ_give_no_bound_and_say_why)
{
    ompdag_condag_set *s = graph_with(", \"input\": {\"recorded\": false, \"runs\": 2, "
                                      "\"why\": \"node r2 ran in 1 of 2 runs\"}");
    ompdag_report *r = report_at_2(s, "main=200ns", true);
    const ompdag_report_row *row = ompdag_report_row_get(r, 0);
    cr_expect_eq(row->input_bound_times_m, -1);
    cr_expect_str_eq(row->input_why, "node r2 ran in 1 of 2 runs");
    cr_expect(!row->judged_for_input, "no input: the graph's bound decides");
    cr_expect_eq(row->verdict, OMPDAG_VERDICT_FAIL);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
}

Test(input_bound, an_unknown_node_is_an_error_naming_the_fix)
{
    ompdag_condag_set *s = graph_with(", \"input\": {\"recorded\": true, \"runs\": 1, "
                                      "\"nodes\": [\"r1\", \"zz\"]}");
    ompdag_report_options opt;
    ompdag_report_options_init(&opt);
    int32_t m = 2;
    opt.threads = &m, opt.thread_count = 1;
    ompdag_report *r = NULL;
    ompdag_error err = {0};
    cr_assert_neq(ompdag_report_create(s, &opt, &r, &err), OMPDAG_OK);
    cr_expect(strstr(err.message, "annotate the graph again"), "%s", err.message);
    ompdag_condag_set_destroy(s);
}

Test(input_bound, the_smaller_delay_model_decides_and_is_named)
{
    /* instance maxima put 50 on a1 (2·50 on the ROOT path: 135 + 235 = 370);
     * medians put 5 on a1 plus a run excess of 20 on the root's source r1
     * (135 + 135 + 2·5 + 2·20 = 320) */
    const char *both = ", \"input\": {\"recorded\": true, \"runs\": 2, \"claim\": \"two runs\", "
                       "\"nodes\": [\"r1\", \"c1\", \"n1\", \"j1\", \"w1\", \"a1\"], "
                       "\"delays\": {\"a1\": 50}, "
                       "\"delays_median\": {\"a1\": 5, \"r1\": 20}}";
    ompdag_condag_set *s = graph_with(both);
    ompdag_report *r = report_at_2(s, NULL, false);
    const ompdag_report_row *row = ompdag_report_row_get(r, 0);
    cr_expect_eq(row->input_bound_times_m, 320, "got %lld", (long long)row->input_bound_times_m);
    cr_expect_str_eq(row->input_delay_model, "instance medians + the largest run excess");
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
    /* the other way round: maxima decide */
    s = graph_with(", \"input\": {\"recorded\": true, \"runs\": 2, \"claim\": \"two runs\", "
                   "\"nodes\": [\"r1\", \"c1\", \"n1\", \"j1\", \"w1\", \"a1\"], "
                   "\"delays\": {\"a1\": 10}, \"delays_median\": {\"a1\": 5, \"r1\": 20}}");
    r = report_at_2(s, NULL, false);
    row = ompdag_report_row_get(r, 0);
    cr_expect_eq(row->input_bound_times_m, 290, "got %lld", (long long)row->input_bound_times_m);
    cr_expect_str_eq(row->input_delay_model, "instance maxima");
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
}

Test(input_bound, an_input_without_the_regions_end_is_damaged)
{
    /* w1 is the root's sink: every run ends there */
    ompdag_condag_set *s = graph_with(", \"input\": {\"recorded\": true, \"runs\": 1, "
                                      "\"nodes\": [\"r1\", \"c1\", \"n1\", \"j1\"]}");
    ompdag_report_options opt;
    ompdag_report_options_init(&opt);
    int32_t m = 2;
    opt.threads = &m, opt.thread_count = 1;
    ompdag_report *r = NULL;
    ompdag_error err = {0};
    cr_assert_neq(ompdag_report_create(s, &opt, &r, &err), OMPDAG_OK);
    cr_expect(strstr(err.message, "last node"), "%s", err.message);
    ompdag_condag_set_destroy(s);
}

/* The same run excess charged along the rule's chain ("run_excess_paths",
 * annotate_input_budget.c): the root's source gets the path's excess (6 on
 * G_r, rule tied-root) plus the WCET excess spread over m (ceil(2 / 2) = 1)
 * instead of the all-node 20: 135 + 135 + 2·5 + 2·7 = 294, and the model
 * says so.  Without the rule's path the all-node charge stays. */
Test(input_bound, the_run_excess_along_the_chain_is_charged_for_chain_rules)
{
    const char *paths = ", \"input\": {\"recorded\": true, \"runs\": 2, \"claim\": \"two runs\", "
                        "\"nodes\": [\"r1\", \"c1\", \"n1\", \"j1\", \"w1\", \"a1\"], "
                        "\"delays\": {\"a1\": 50}, "
                        "\"delays_median\": {\"a1\": 5, \"r1\": 20}, \"run_excess_ns\": 20, "
                        "\"run_excess_paths\": {\"graham\": 3, \"tied-root-waits\": 4, "
                        "\"tied-root\": 6, \"work\": 2}}";
    ompdag_condag_set *s = graph_with(paths);
    ompdag_report *r = report_at_2(s, NULL, false);
    const ompdag_report_row *row = ompdag_report_row_get(r, 0);
    cr_expect_eq(row->input_bound_times_m, 294, "got %lld", (long long)row->input_bound_times_m);
    cr_expect_str_eq(row->input_delay_model,
                     "instance medians + the largest run excess along the chain");
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
    /* no path for the rule that applies: the all-node charge, 320 */
    s = graph_with(", \"input\": {\"recorded\": true, \"runs\": 2, \"claim\": \"two runs\", "
                   "\"nodes\": [\"r1\", \"c1\", \"n1\", \"j1\", \"w1\", \"a1\"], "
                   "\"delays\": {\"a1\": 50}, "
                   "\"delays_median\": {\"a1\": 5, \"r1\": 20}, \"run_excess_ns\": 20, "
                   "\"run_excess_paths\": {\"graham\": 3, \"work\": 2}}");
    r = report_at_2(s, NULL, false);
    row = ompdag_report_row_get(r, 0);
    cr_expect_eq(row->input_bound_times_m, 320, "got %lld", (long long)row->input_bound_times_m);
    cr_expect_str_eq(row->input_delay_model, "instance medians + the largest run excess");
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
}

/* The HTML page shows the input's bound as the text report does. */
Test(input_bound, the_html_page_shows_the_bound_for_the_input)
{
    ompdag_condag_set *s =
        graph_with(", \"input\": {\"recorded\": true, \"runs\": 2, \"claim\": \"two <runs>\", "
                   "\"nodes\": [\"r1\", \"c1\", \"n1\", \"j1\", \"w1\", \"a1\"], "
                   "\"delays\": {\"a1\": 50}}");
    ompdag_report *r = report_at_2(s, NULL, false);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    ompdag_error err = {0};
    cr_assert_eq(ompdag_report_write(r, OMPDAG_REPORT_HTML, mem, NULL, NULL, &err), OMPDAG_OK, "%s",
                 err.message);
    fclose(mem);
    cr_expect(strstr(text, "for this input: bound 185 ns (two &lt;runs&gt;; rule <code>"),
              "%.2000s", strstr(text, "for this input") ? strstr(text, "for this input") : text);
    free(text);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
}
