/*
 * tests/probe/test_floor.c — the floor (issue 23 item 6;
 * annotate/annotate_floor.c, docs/probe.md "The floor") on real traces
 * of clang-built programs: per run, Graham's bound of the run's own DAG with
 * its own segment times and dispatch delays, over its response.
 *
 * - progs/tasks (two children, a taskwait, a branch): every run's floor is
 *   >= 1 (the check on the delay measurement), and on clean runs the run's
 *   own Graham bound is within the graph's bound at the same m (so the floor
 *   is at most bound ÷ that run's response); the report's breakdown carries
 *   the floor.
 * - progs/chain (create, wait, three times): the run's DAG is one path, so
 *   Graham of it is the response itself, up to the root's few instructions
 *   between a creation and its taskwait: the floor is 1 within 5 %.
 */
#include <criterion/criterion.h>
#include <jansson.h>

#include "ompdag/report.h"
#include "ompdag/rta.h"
#include "probe/probe_expect.h"
#include "probe/probe_util.h"

/* Runs prog with each argument list (2 threads) under the probe and
 * annotates `graphs` with the traces; returns the annotated set. */
static ompdag_condag_set *annotated(const char *prog, const char *graphs,
                                    const char *const *const *args)
{
    static char dir[64];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    ompdag_condag_set *set = load_graphs(graphs);
    ompdag_annotation *a;
    ompdag_error err;
    cr_assert_eq(ompdag_annotation_create(set, NULL, &a, &err), OMPDAG_OK, "%s", err.message);
    for (int k = 0; args[k]; ++k) {
        char trace[128];
        snprintf(trace, sizeof trace, "%s/%d.trace", dir, k);
        int s = probe_run(prog, args[k], 2, trace, NULL, NULL);
        cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 0, "%s did not run", prog);
        cr_assert_eq(ompdag_annotation_add_trace(a, trace, &err), OMPDAG_OK, "%s", err.message);
    }
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_OK, "%s", err.message);
    ompdag_annotation_destroy(a);
    return set;
}

/* The graph's "floor" runs, checked for the keys every run carries. */
static json_t *floor_runs(const ompdag_condag *g, size_t expect)
{
    json_t *fl = json_object_get(ompdag_condag_extra(g, -1), "floor");
    cr_assert(json_is_object(fl), "annotate wrote no \"floor\"");
    json_t *runs = json_object_get(fl, "runs");
    cr_assert_eq(json_array_size(runs), expect, "one floor per run with a response");
    const char *keys[] = {"run",   "threads", "response_ns", "own_graham_ns",
                          "ratio", "clean",   "work_ns",     "tasks"};
    size_t i;
    json_t *x;
    json_array_foreach(runs, i, x) for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k)
        cr_assert(json_object_get(x, keys[k]), "run %zu has no %s", i, keys[k]);
    /* the range is over clean runs: absent when a loaded machine left none */
    bool clean = json_integer_value(json_object_get(fl, "clean_runs")) > 0;
    cr_expect_eq(json_object_get(fl, "min_ratio") != NULL, clean);
    cr_expect_eq(json_object_get(fl, "max_ratio") != NULL, clean);
    cr_expect_eq(json_integer_value(json_object_get(fl, "below_one")), 0);
    return runs;
}

/* m·G >= m·R exactly: Graham's bound of a run's own DAG holds for it. */
static void expect_at_least_one(const json_t *x, size_t i)
{
    json_int_t m = json_integer_value(json_object_get(x, "threads")),
               mg = json_integer_value(json_object_get(x, "own_graham_m_ns")),
               resp = json_integer_value(json_object_get(x, "response_ns"));
    cr_expect_eq(m, 2, "run %zu: team %lld", i, (long long)m);
    cr_expect_geq(mg, m * resp, "run %zu: floor %g below 1 (m·G %lld, m·R %lld)", i,
                  json_real_value(json_object_get(x, "ratio")), (long long)mg,
                  (long long)(m * resp));
}

Test(floor, every_run_is_at_least_one_and_within_the_bound)
{
    const char *b1[] = {"1", "6", NULL}, *b0[] = {"0", "6", NULL};
    const char *const *args[] = {b1, b0, NULL};
    ompdag_condag_set *set = annotated("tasks", "tasks.json", args);
    const ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    json_t *runs = floor_runs(g, 12);
    ompdag_rta_options ro;
    ompdag_rta_options_init(&ro, 2);
    ompdag_rta_result *res;
    ompdag_error err;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &ro, &res, &err), OMPDAG_OK, "%s",
                 err.message);
    int64_t bound_m = ompdag_rta_result_bound_times_m(res); /* ns: annotate's unit */
    ompdag_rta_result_destroy(res);
    size_t i, clean = 0;
    json_t *x;
    json_array_foreach(runs, i, x)
    {
        expect_at_least_one(x, i);
        if (!json_is_true(json_object_get(x, "clean"))) continue;
        ++clean;
        cr_expect_leq(json_integer_value(json_object_get(x, "own_graham_m_ns")), bound_m,
                      "run %zu: its own DAG's Graham bound exceeds the graph's", i);
    }
    /* the report carries the floor of the clean runs at m = 2 */
    ompdag_report_options opt;
    ompdag_report_options_init(&opt);
    int32_t m = 2;
    opt.threads = &m, opt.thread_count = 1;
    ompdag_report *r;
    cr_assert_eq(ompdag_report_create(set, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    const ompdag_report_breakdown *b = &ompdag_report_row_get(r, 0)->breakdown;
    cr_expect_eq(b->floor_runs, (int64_t)clean);
    if (clean) cr_expect_geq(b->floor_min, 1.0);
    cr_expect_eq(b->floor_below_one, 0);
    cr_expect_eq(b->observed_tasks, 4); /* the root and three children (branch taken) */
    cr_expect_eq(b->flow_tasks, 4);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(set);
}

Test(floor, a_chain_is_one_within_the_roots_gaps)
{
    const char *a[] = {"8", NULL};
    const char *const *args[] = {a, NULL};
    ompdag_condag_set *set = annotated("chain", "chain.json", args);
    json_t *runs = floor_runs(ompdag_condag_set_graph(set, 0), 8);
    size_t i;
    json_t *x;
    json_array_foreach(runs, i, x)
    {
        expect_at_least_one(x, i);
        cr_expect_eq(json_integer_value(json_object_get(x, "tasks")), 3);
        if (json_is_true(json_object_get(x, "clean")))
            /* 1.004-1.016 measured; the margin is for a loaded machine (CI runs the
             * suite on 2 cores at -j2), whose jitter is not interference */
            cr_expect_leq(json_real_value(json_object_get(x, "ratio")), 1.5,
                          "run %zu: a chain's floor is 1 within the root's gaps (ratio %g)", i,
                          json_real_value(json_object_get(x, "ratio")));
    }
    ompdag_condag_set_destroy(set);
}

/* Sibling tasks ordered by depend clauses (progs/depend, KASTORS idioms):
 * the runtime's dependence pairs are edges of the run's DAG.  Without them
 * the chain misses the waits and the floor fell to 0.989-0.991 (checked by
 * dropping them from annotate_floor.c). */
Test(floor, dependences_are_edges_of_the_runs_dag)
{
    const char *const *args[] = {(const char *[]){NULL}, (const char *[]){NULL},
                                 (const char *[]){NULL}, NULL};
    ompdag_condag_set *set = annotated("depend", "depend.json", args);
    json_t *runs = floor_runs(ompdag_condag_set_graph(set, 0), 3);
    size_t i;
    json_t *x;
    json_array_foreach(runs, i, x) expect_at_least_one(x, i);
    ompdag_condag_set_destroy(set);
}
