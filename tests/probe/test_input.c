/*
 * tests/probe/test_input.c — the input's DAG recorded from traces (issue 23
 * items 4 and 5; annotate/annotate_input.c, report/report_input.c,
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

/* n traces of progs/PROG at 2 threads, run k with argument args[k] (NULL:
 * none) and the environment env ("K=V" list or NULL). */
static void run_prog(const char *prog, const char *const *args, const char *const *env, int n,
                     char traces[][128])
{
    static char dir[64];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    for (int k = 0; k < n; ++k) {
        snprintf(traces[k], 128, "%s/%s%d.trace", dir, prog, k);
        const char *argv[] = {args ? args[k] : NULL, NULL};
        int s = probe_run(prog, argv, 2, traces[k], env, NULL);
        cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 0, "%s did not run", prog);
    }
}

/* Traces of progs/tasks, one per branch argument ("0"/"1"), at 2 threads. */
static void run_tasks(const char *const *branches, int n, char traces[][128])
{
    run_prog("tasks", branches, NULL, n, traces);
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
    /* the median model may only be lower */
    cr_expect_leq(row->input_bound_times_m, row->bound_times_m);
    ompdag_report_destroy(r);
    /* the maxima alone (the same WCETs as the graph), and no runtime (the
     * same tied rule as the graph's): equal */
    json_object_del(in, "delays_median");
    json_object_del(in, "runtime");
    row = row_at_2(set, &r);
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
    cr_assert_eq(ompdag_condag_assign_wcet(g, ompdag_condag_find_node(g, "c2"), 1000000000, &err),
                 OMPDAG_OK);
    json_object_del(in, "delays_median"); /* the maxima model, as the hand-pruned graph's */
    json_object_del(in, "runtime");       /* and its tied rule */
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

/* The var of clause i of node `id` in "input"."depend". */
static const char *input_var(const json_t *in, const char *id, size_t i)
{
    const json_t *c = json_array_get(json_object_get(json_object_get(in, "depend"), id), i);
    cr_assert(c, "\"input\".depend has no clause %zu on %s", i, id);
    return json_string_value(json_object_get(c, "var"));
}

/* progs/rows: the graph names every row "[memory]" (pointer parameters);
 * the runs' addresses tell the rows apart, and the input's bound orders only
 * task i of the second sweep after task i of the first. */
Test(input, depend_items_are_told_apart_by_the_runtimes_addresses)
{
    char traces[3][128];
    run_prog("rows", NULL, NULL, 3, traces);
    ompdag_condag_set *set = annotated("rows.json", traces, 3, false);
    json_t *in = input_of(set);
    cr_assert(json_is_true(json_object_get(in, "recorded")), "%s",
              json_string_value(json_object_get(in, "why")));
    cr_assert(json_is_object(json_object_get(in, "depend")), "no depend: %s",
              json_string_value(json_object_get(in, "depend_why")));
    cr_expect_eq(json_object_size(json_object_get(in, "depend")), 8);
    /* n1 = sweep(a, b) row 0: in b[0], out a[0]; n9 = sweep(b, a) row 0 */
    cr_expect_str_eq(input_var(in, "n1", 1), input_var(in, "n9", 0), "a[0]");
    cr_expect_str_eq(input_var(in, "n1", 0), input_var(in, "n9", 1), "b[0]");
    cr_expect_str_neq(input_var(in, "n1", 1), input_var(in, "n3", 1), "a[0] is not a[1]");
    cr_expect(strstr(json_string_value(json_object_get(in, "claim")), "by address"));
    ompdag_report *r;
    const ompdag_report_row *row = row_at_2(set, &r);
    /* Graham's bound of the input's DAG (the tied root's rule may hide the
     * difference: it can serialise the root's children anyway) */
    int64_t by_address = row->input_graham_times_m;
    ompdag_report_destroy(r);
    /* without the addresses the input keeps the graph's chain of 8 tasks */
    json_object_del(in, "depend");
    row = row_at_2(set, &r);
    int64_t graph = row->input_graham_times_m;
    cr_expect_lt(by_address, graph, "%lld vs %lld", (long long)by_address, (long long)graph);
    /* two tasks per chain instead of eight: well under 3/4 of the chain */
    cr_expect_lt(by_address * 4, graph * 3, "%lld vs %lld", (long long)by_address,
                 (long long)graph);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(set);
}

Test(input, the_bound_by_address_covers_every_clean_run)
{
    char traces[4][128];
    run_prog("rows", NULL, NULL, 4, traces);
    ompdag_condag_set *set = annotated("rows.json", traces, 4, true);
    json_t *in = input_of(set);
    cr_assert(json_is_object(json_object_get(in, "depend")));
    ompdag_report *r;
    const ompdag_report_row *row = row_at_2(set, &r);
    cr_assert_geq(row->input_bound_times_m, 0);
    if (row->observed_max_ns > 0)
        cr_expect_geq(row->input_bound_ns, row->observed_max_ns,
                      "a clean run above the input's bound: %g > %g", row->observed_max_ns,
                      row->input_bound_ns);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(set);
}

/* A task whose graph node has no clause, though the runtime saw a list: the
 * graph's vars are kept, and why.  (A clause list that differs only in
 * length is not refused: the runtime's list is what it ordered by.) */
Test(input, depend_lists_that_do_not_match_the_graph_keep_its_vars)
{
    char traces[2][128];
    run_prog("rows", NULL, NULL, 2, traces);
    ompdag_condag_set *set = load_graphs("rows.json");
    json_t *root = ompdag_condag_to_json(ompdag_condag_set_graph(set, 0));
    ompdag_condag_set_destroy(set);
    size_t i;
    json_t *n;
    json_array_foreach(json_object_get(root, "nodes"), i, n)
    {
        if (!strcmp(json_string_value(json_object_get(n, "id")), "n3"))
            json_object_del(n, "depend");
    }
    char *text = json_dumps(root, 0);
    json_decref(root);
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_buffer(text, strlen(text), "rows+", &set, &err), OMPDAG_OK,
                 "%s", err.message);
    free(text);
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    opt.no_overheads = true;
    ompdag_annotation *a;
    cr_assert_eq(ompdag_annotation_create(set, &opt, &a, &err), OMPDAG_OK, "%s", err.message);
    for (int k = 0; k < 2; ++k)
        cr_assert_eq(ompdag_annotation_add_trace(a, traces[k], &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_OK, "%s", err.message);
    ompdag_annotation_destroy(a);
    json_t *in = input_of(set);
    cr_expect(!json_object_get(in, "depend"));
    const char *why = json_string_value(json_object_get(in, "depend_why"));
    cr_assert(why, "no depend_why");
    cr_expect(strstr(why, "node n3") && strstr(why, "0 depend clauses"), "%s", why);
    ompdag_condag_set_destroy(set);
}

/* OMPDAG_REC_RUNTIME: the runtime's name and its task-scheduler settings. */
Test(input, the_runtime_and_its_throttling_are_recorded)
{
    char traces[2][128];
    run_prog("rows", NULL, NULL, 1, traces);
    const char *off[] = {"KMP_ENABLE_TASK_THROTTLING=0", NULL};
    run_prog("rows", NULL, off, 1, traces + 1);
    ompdag_condag_set *set = annotated("rows.json", traces, 1, false);
    json_t *rt = json_object_get(input_of(set), "runtime");
    cr_assert(json_is_object(rt), "no runtime");
    cr_expect_str_eq(json_string_value(json_object_get(rt, "version")), "LLVM OMP");
    cr_expect(json_is_true(json_object_get(rt, "throttling")));
    cr_expect(json_is_true(json_object_get(rt, "tasking")));
    ompdag_condag_set_destroy(set);
    set = annotated("rows.json", traces + 1, 1, false);
    rt = json_object_get(input_of(set), "runtime");
    cr_expect(json_is_false(json_object_get(rt, "throttling")), "throttling was off");
    ompdag_condag_set_destroy(set);
    set = annotated("rows.json", traces, 2, false); /* one of two runs throttled */
    rt = json_object_get(input_of(set), "runtime");
    cr_expect(json_is_true(json_object_get(rt, "throttling")));
    ompdag_condag_set_destroy(set);
}
