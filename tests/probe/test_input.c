/*
 * tests/probe/test_input.c — the input's DAG recorded from traces (issue 23
 * items 4 and 5; runtime-probe/annotate_input.c, report/report_input.c,
 * docs/probe.md#input) on real runs of progs/tasks, whose argument decides
 * whether a branch creates a third task:
 *
 * - runs that all take the branch: every node that can run is recorded, and
 *   without dispatch delays the input's bound equals the graph's (the
 *   recorded DAG equals the graph when every instance is observed);
 * - runs that all skip it: the branch and its task are pruned, and the bound
 *   equals the bound of the graph pruned by hand (data/tasks_nobranch.json)
 *   annotated with the same traces;
 * - runs that differ: nothing is recorded, and the reason names the node;
 * - with delays (the default), the input's bound lies between every clean
 *   run's response and the graph's bound.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "ompdag/report.h"
#include "probe/probe_expect.h"
#include "probe/probe_util.h"

/* Traces of progs/tasks, one per branch argument ("0"/"1"), at 2 threads. */
static void run_tasks(const char *const *branches, int n, char traces[][128])
{
    static char dir[64];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    for (int k = 0; k < n; ++k) {
        snprintf(traces[k], 128, "%s/%d.trace", dir, k);
        const char *args[] = {branches[k], NULL};
        int s = probe_run("tasks", args, 2, traces[k], NULL, NULL);
        cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 0, "tasks did not run");
    }
}

/* `graphs` annotated with the traces; unobserved nodes get 0 (the pruned
 * branch is never observed), and delays are left out when !overheads. */
static ompdag_condag_set *annotated(const char *graphs, char traces[][128], int n, bool overheads)
{
    ompdag_condag_set *set = load_graphs(graphs);
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    opt.unobserved = OMPDAG_UNOBSERVED_ZERO;
    opt.no_overheads = !overheads;
    ompdag_annotation *a;
    ompdag_error err;
    cr_assert_eq(ompdag_annotation_create(set, &opt, &a, &err), OMPDAG_OK, "%s", err.message);
    for (int k = 0; k < n; ++k)
        cr_assert_eq(ompdag_annotation_add_trace(a, traces[k], &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_OK, "%s", err.message);
    ompdag_annotation_destroy(a);
    return set;
}

static json_t *input_of(const ompdag_condag_set *set)
{
    json_t *in = json_object_get(ompdag_condag_extra(ompdag_condag_set_graph(set, 0), -1), "input");
    cr_assert(json_is_object(in), "annotate wrote no \"input\"");
    return in;
}

static bool recorded_node(const json_t *in, const char *id)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(in, "nodes"), i,
                       v) if (!strcmp(json_string_value(v), id)) return true;
    return false;
}

/* The report's row at m = 2 (owned by *r). */
static const ompdag_report_row *row_at_2(const ompdag_condag_set *set, ompdag_report **r)
{
    ompdag_report_options opt;
    ompdag_report_options_init(&opt);
    int32_t m = 2;
    opt.threads = &m, opt.thread_count = 1;
    ompdag_error err;
    cr_assert_eq(ompdag_report_create(set, &opt, r, &err), OMPDAG_OK, "%s", err.message);
    return ompdag_report_row_get(*r, 0);
}

Test(input, every_instance_observed_gives_the_graphs_bound)
{
    const char *b[] = {"1", "1", "1"};
    char traces[3][128];
    run_tasks(b, 3, traces);
    ompdag_condag_set *set = annotated("tasks.json", traces, 3, false);
    json_t *in = input_of(set);
    cr_assert(json_is_true(json_object_get(in, "recorded")), "%s",
              json_string_value(json_object_get(in, "why")));
    cr_expect_eq(json_integer_value(json_object_get(in, "runs")), 3);
    cr_expect(recorded_node(in, "r4") && recorded_node(in, "c2"), "the branch ran: kept");
    cr_expect(!recorded_node(in, "n1"), "the branch's other side never ran: pruned");
    ompdag_report *r;
    const ompdag_report_row *row = row_at_2(set, &r);
    cr_expect_eq(row->input_bound_times_m, row->bound_times_m);
    cr_expect_str_eq(row->input_claim, "the task structure of these 3 runs");
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(set);
}

Test(input, a_branch_no_run_took_is_pruned_as_by_hand)
{
    const char *b[] = {"0", "0", "0"};
    char traces[3][128];
    run_tasks(b, 3, traces);
    ompdag_condag_set *set = annotated("tasks.json", traces, 3, false);
    ompdag_condag_set *hand = annotated("tasks_nobranch.json", traces, 3, false);
    json_t *in = input_of(set);
    cr_assert(json_is_true(json_object_get(in, "recorded")));
    cr_expect(!recorded_node(in, "r4") && !recorded_node(in, "c2"));
    /* the never observed task got 0: give it a cost, so that a bound that
     * kept it would differ */
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_wcet(g, ompdag_condag_find_node(g, "c2"), 1000000000, &err),
                 OMPDAG_OK);
    ompdag_report *r, *rh;
    const ompdag_report_row *row = row_at_2(set, &r), *hrow = row_at_2(hand, &rh);
    cr_expect_eq(row->input_bound_times_m, hrow->bound_times_m,
                 "recorded %lld, pruned by hand %lld", (long long)row->input_bound_times_m,
                 (long long)hrow->bound_times_m);
    cr_expect_lt(row->input_bound_times_m, row->bound_times_m, "the pruned task costs 1 s");
    ompdag_report_destroy(r), ompdag_report_destroy(rh);
    ompdag_condag_set_destroy(set), ompdag_condag_set_destroy(hand);
}

Test(input, runs_of_different_structure_are_not_recorded)
{
    const char *b[] = {"0", "1"};
    char traces[2][128];
    run_tasks(b, 2, traces);
    ompdag_condag_set *set = annotated("tasks.json", traces, 2, true);
    json_t *in = input_of(set);
    cr_expect(json_is_false(json_object_get(in, "recorded")));
    const char *why = json_string_value(json_object_get(in, "why"));
    cr_assert(why);
    cr_expect(strstr(why, "do not share one task structure") && strstr(why, "1 of 2 runs"), "%s",
              why);
    ompdag_report *r;
    const ompdag_report_row *row = row_at_2(set, &r);
    cr_expect_eq(row->input_bound_times_m, -1);
    cr_expect_str_eq(row->input_why, why);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(set);
}

Test(input, with_delays_the_bound_covers_every_clean_run)
{
    const char *b[] = {"1", "1", "1", "1"};
    char traces[4][128];
    run_tasks(b, 4, traces);
    ompdag_condag_set *set = annotated("tasks.json", traces, 4, true);
    json_t *in = input_of(set);
    cr_assert(json_is_true(json_object_get(in, "recorded")));
    ompdag_report *r;
    const ompdag_report_row *row = row_at_2(set, &r);
    /* per-instance delays come from clean runs only; on a loaded machine
     * every run may be interfered, and then every node keeps the graph's */
    json_int_t own = json_integer_value(json_object_get(in, "nodes_with_own_delays"));
    if (row->runs > row->runs_interfered)
        cr_expect_gt(own, 0);
    else
        cr_expect_eq(own, 0);
    /* the second model (annotate_input_budget.c): medians and one run excess */
    cr_expect(json_is_object(json_object_get(in, "delays_median")));
    cr_expect_geq(json_integer_value(json_object_get(in, "run_excess_ns")), 0);
    cr_expect(row->input_delay_model != NULL);
    cr_assert_geq(row->input_bound_times_m, 0);
    cr_expect_leq(row->input_bound_times_m, row->bound_times_m);
    if (row->observed_max_ns > 0)
        cr_expect_geq(row->input_bound_ns, row->observed_max_ns,
                      "a clean run above the input's bound: %g > %g", row->observed_max_ns,
                      row->input_bound_ns);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(set);
}
