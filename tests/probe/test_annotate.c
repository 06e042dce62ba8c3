/*
 * tests/probe/test_annotate.c — WCET annotation of a hand-made con-DAG
 * (data/tasks.json, the graph of progs/tasks.c) from real traces:
 * every T and W node gets samples, the attribution rule is safe (checked by
 * an independent path enumeration), unobserved nodes and mismatched graphs
 * are errors, and the EVT estimator fits and refuses as documented.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>

#include "ompdag/overhead.h"
#include "ompdag/rta.h"
#include "probe/probe_expect.h"
#include "probe/probe_util.h"

static char g_t1[128], g_t0[128], g_dir[64];

/* Traces of progs/tasks with the branch taken (t1) and not taken (t0). */
static void make_traces(void)
{
    if (g_t1[0]) return;
    cr_assert(probe_tmpdir(g_dir, sizeof g_dir));
    snprintf(g_t1, sizeof g_t1, "%s/b1.trace", g_dir);
    snprintf(g_t0, sizeof g_t0, "%s/b0.trace", g_dir);
    const char *a1[] = {"1", "5", NULL}, *a0[] = {"0", "5", NULL};
    int s1 = probe_run("tasks", a1, 2, g_t1, NULL, NULL);
    int s0 = probe_run("tasks", a0, 2, g_t0, NULL, NULL);
    cr_assert(WIFEXITED(s1) && WEXITSTATUS(s1) == 0 && WIFEXITED(s0) && WEXITSTATUS(s0) == 0);
}

static ompdag_annotation *annotate(ompdag_condag_set *set, const ompdag_annotate_options *opt,
                                   const char *t1, const char *t0)
{
    ompdag_annotation *a;
    ompdag_error err;
    cr_assert_eq(ompdag_annotation_create(set, opt, &a, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_annotation_add_trace(a, t1, &err), OMPDAG_OK, "%s", err.message);
    if (t0) cr_assert_eq(ompdag_annotation_add_trace(a, t0, &err), OMPDAG_OK, "%s", err.message);
    return a;
}

/* ---- an independent check of the safety property ------------------------------- */

/* Minimum, over every F-path from point (sk, sn) to point (ek, en) of `task`
 * that crosses no other scheduling point, of the sum of WCETs on it.  Written
 * from the model (condag.md §1), not from annotate.c: a path starts at the
 * task's source (begin), at the F-successor of T node sn (after its
 * directive), or at W node sn (after its taskwait); it ends at the sink
 * (end), at T node en (its directive), or just before W node en; it passes
 * through no T node and enters no W node on the way.  An empty path (a T node
 * followed by a taskwait or by the task's end, a task starting with a
 * taskwait) counts the adjacent node it is charged to. */
static int64_t best;
static bool found;

static bool ends_here(const ompdag_condag *g, int32_t x, ompdag_point ek, int32_t en, int32_t task)
{
    if (ek == OMPDAG_POINT_END) return x == ompdag_condag_task_sink(g, task);
    if (ek == OMPDAG_POINT_CREATE) return x == en;
    int32_t c;
    const int32_t *s = ompdag_condag_node_fsucc(g, x, &c);
    for (int32_t i = 0; i < c; ++i)
        if (s[i] == en) return true;
    return false;
}

static void dfs(const ompdag_condag *g, int32_t x, int64_t sum, ompdag_point ek, int32_t en,
                int32_t task)
{
    sum += ompdag_condag_node_wcet(g, x);
    if (ends_here(g, x, ek, en, task)) {
        if (!found || sum < best) best = sum;
        found = true;
    }
    if (ompdag_condag_node_kind(g, x) == OMPDAG_KIND_T) return;
    int32_t c;
    const int32_t *s = ompdag_condag_node_fsucc(g, x, &c);
    for (int32_t i = 0; i < c; ++i)
        if (ompdag_condag_node_kind(g, s[i]) != OMPDAG_KIND_W) dfs(g, s[i], sum, ek, en, task);
}

static int64_t min_path_sum(const ompdag_condag *g, const ompdag_segment_class *k)
{
    found = false;
    best = 0;
    if (k->start_kind == OMPDAG_POINT_BEGIN && k->end_kind == OMPDAG_POINT_WAIT &&
        k->end_node == ompdag_condag_task_source(g, k->task)) { /* starts with a taskwait */
        best = ompdag_condag_node_wcet(g, k->end_node);
        found = true;
    } else if (k->start_kind == OMPDAG_POINT_BEGIN) {
        dfs(g, ompdag_condag_task_source(g, k->task), 0, k->end_kind, k->end_node, k->task);
    } else if (k->start_kind == OMPDAG_POINT_WAIT) {
        dfs(g, k->start_node, 0, k->end_kind, k->end_node, k->task);
    } else {
        int32_t c;
        const int32_t *s = ompdag_condag_node_fsucc(g, k->start_node, &c);
        if (c == 0 && k->end_kind == OMPDAG_POINT_END) { /* t is the sink: [t] */
            best = ompdag_condag_node_wcet(g, k->start_node);
            found = true;
        }
        for (int32_t i = 0; i < c; ++i) {
            if (ompdag_condag_node_kind(g, s[i]) != OMPDAG_KIND_W)
                dfs(g, s[i], 0, k->end_kind, k->end_node, k->task);
            else if (k->end_kind == OMPDAG_POINT_WAIT && s[i] == k->end_node) {
                int64_t w = ompdag_condag_node_wcet(g, s[i]);
                best = found && best < w ? best : w;
                found = true;
            }
        }
    }
    cr_assert(found, "class has no path between its points");
    return best;
}

static void assert_safe(const ompdag_condag_set *set, const ompdag_annotation *a)
{
    size_t n = ompdag_annotation_class_count(a);
    cr_assert_gt(n, 0);
    for (size_t i = 0; i < n; ++i) {
        ompdag_segment_class k;
        ompdag_annotation_class(a, i, &k);
        const ompdag_condag *g = ompdag_condag_set_graph(set, k.graph);
        int64_t sum = min_path_sum(g, &k);
        cr_assert_geq(sum, k.max_ns,
                      "class %zu (%d:%d -> %d:%d): WCETs on a path sum to %lld < observed %lld", i,
                      k.start_kind, k.start_node, k.end_kind, k.end_node, (long long)sum,
                      (long long)k.max_ns);
    }
}

static int32_t node(const ompdag_condag *g, const char *id)
{
    int32_t v = ompdag_condag_find_node(g, id);
    cr_assert_geq(v, 0, "node %s", id);
    return v;
}

static int64_t extra_int(const ompdag_condag *g, int32_t v, const char *key)
{
    json_t *ex = ompdag_condag_extra(g, v);
    cr_assert(ex && json_is_number(json_object_get(ex, key)), "node %d has no '%s'", v, key);
    return (int64_t)json_number_value(json_object_get(ex, key));
}

Test(annotate, both_branches_cover_every_node_safely)
{
    make_traces();
    ompdag_condag_set *set = load_graphs("tasks.json");
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    ompdag_annotation *a = annotate(set, &opt, g_t1, g_t0);
    ompdag_error err;
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_OK, "%s", err.message);
    const ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        int64_t samples = extra_int(g, v, "samples");
        cr_assert_gt(samples, 0, "node %s has no samples", ompdag_condag_node_id(g, v));
        int64_t mx = extra_int(g, v, "observed_max");
        /* the measured dispatch delay is the node's own field, charged on the
         * critical chain only (docs/overheads.md), not part of the WCET */
        int64_t want = (int64_t)ceil((double)mx * 1.2 - 1e-9);
        cr_assert(ompdag_condag_node_wcet(g, v) >= mx &&
                      llabs(ompdag_condag_node_wcet(g, v) - want) <= 1,
                  "node %s: wcet %lld, observed max %lld", ompdag_condag_node_id(g, v),
                  (long long)ompdag_condag_node_wcet(g, v), (long long)mx);
    }
    /* Each node's delay is its class's calibrated maximum (issue 23). */
    const json_t *gex = ompdag_condag_extra(g, -1), *ro = json_object_get(gex, "runtime_overheads");
    cr_assert_str_eq(
        json_string_value(json_object_get(json_object_get(gex, "wcet_method"), "overheads")),
        "chain");
    ompdag_overheads o = {.start_delay = json_integer_value(json_object_get(ro, "start_delay_ns")),
                          .wake_delay = json_integer_value(json_object_get(ro, "wake_delay_ns")),
                          .cont_delay = json_integer_value(json_object_get(ro, "cont_delay_ns")),
                          .formation = json_integer_value(json_object_get(ro, "formation_ns")),
                          .threads = (int32_t)json_integer_value(json_object_get(ro, "threads"))};
    cr_assert(json_is_integer(json_object_get(ro, "cont_delay_ns")));
    int64_t *d = malloc(sizeof *d * (size_t)ompdag_condag_node_count(g));
    cr_assert_eq(ompdag_overheads_node_delays(g, &o, d, &err), OMPDAG_OK);
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        cr_assert_eq(ompdag_condag_node_delay(g, v), d[v], "node %s", ompdag_condag_node_id(g, v));
    cr_assert_gt(ompdag_condag_total_delay(g), 0, "no delay was measured");
    free(d);
    /* The taken branch runs 5 times, the other 5 times, each T/W 5 or 10. */
    cr_assert_eq(extra_int(g, node(g, "r4"), "samples"), 5);
    cr_assert_eq(extra_int(g, node(g, "n1"), "samples"), 5);
    cr_assert_eq(extra_int(g, node(g, "r1"), "samples"), 10);
    assert_safe(set, a);

    /* Where the rule charges: after a taskwait -> the W node; before a task
     * directive -> the T node; T then taskwait (empty) -> the W node. */
    size_t checked = 0;
    for (size_t i = 0; i < ompdag_annotation_class_count(a); ++i) {
        ompdag_segment_class k;
        ompdag_annotation_class(a, i, &k);
        if (k.start_kind == OMPDAG_POINT_WAIT) {
            cr_assert_eq(k.charged, k.start_node);
            ++checked;
        } else if (k.end_kind == OMPDAG_POINT_CREATE) {
            cr_assert_eq(k.charged, k.end_node);
            ++checked;
        } else if (k.start_kind == OMPDAG_POINT_CREATE && k.start_node == node(g, "r2")) {
            cr_assert_eq(k.charged, node(g, "w1"), "empty segment r2 -> taskwait");
            ++checked;
        } else if (k.start_kind == OMPDAG_POINT_CREATE && k.start_node == node(g, "r4")) {
            cr_assert_eq(k.charged, node(g, "j1"));
            ++checked;
        }
    }
    cr_assert_geq(checked, 6);

    json_t *gx = ompdag_condag_extra(g, -1);
    json_t *resp = json_object_get(gx, "observed_response_ns");
    cr_assert_eq(json_array_size(resp), 10, "one response per region run");
    cr_assert_str_eq(
        json_string_value(json_object_get(json_object_get(gx, "wcet_method"), "estimator")), "max");
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
}

Test(annotate, unobserved_branch_is_an_error_naming_the_line)
{
    make_traces();
    ompdag_condag_set *set = load_graphs("tasks.json");
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    ompdag_annotation *a = annotate(set, &opt, g_t1, NULL);
    ompdag_error err;
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_ERR_INVALID);
    cr_assert(strstr(err.message, "tasks.c:31") && strstr(err.message, "n1"), "%s", err.message);
    ompdag_annotation_destroy(a);

    opt.unobserved = OMPDAG_UNOBSERVED_ZERO;
    a = annotate(set, &opt, g_t1, NULL);
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_OK, "%s", err.message);
    const ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    int32_t n1 = node(g, "n1");
    cr_assert_eq(ompdag_condag_node_wcet(g, n1), 0);
    cr_assert(json_is_true(json_object_get(ompdag_condag_extra(g, n1), "unobserved")));
    cr_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(ompdag_condag_extra(g, -1), "wcet_method"), "unobserved")),
                     "zero");
    assert_safe(set, a);
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
}

static char *dump_set(const ompdag_condag_set *set)
{
    json_t *j = ompdag_condag_to_json(ompdag_condag_set_graph(set, 0));
    cr_assert(j);
    char *s = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(j);
    return s;
}

/* apply is all-or-nothing (issue 16): whichever step refuses, the graphs are
 * byte for byte what they were. */
Test(annotate, failed_apply_changes_nothing)
{
    make_traces();
    ompdag_condag_set *set = load_graphs("tasks.json");
    char *before = dump_set(set);
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    ompdag_error err;
    ompdag_annotation *a = annotate(set, &opt, g_t1, NULL); /* a branch never taken */
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_ERR_INVALID);
    char *after = dump_set(set);
    cr_assert_str_eq(after, before, "an unobserved-node refusal rewrote the graph");
    free(after);
    ompdag_annotation_destroy(a);
    opt.estimator = OMPDAG_ESTIMATOR_EVT; /* 5 samples per class: too few */
    a = annotate(set, &opt, g_t1, g_t0);
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_ERR_LIMIT);
    after = dump_set(set);
    cr_assert_str_eq(after, before, "an evt refusal rewrote the graph");
    free(after);
    ompdag_annotation_destroy(a);
    free(before);
    ompdag_condag_set_destroy(set);
}

Test(annotate, graph_that_does_not_match_the_program_is_an_error)
{
    make_traces();
    ompdag_condag_set *set = load_graphs("tasks_wrong.json");
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    ompdag_annotation *a = annotate(set, &opt, g_t1, g_t0);
    uint64_t seg, mapped, unmapped;
    ompdag_annotation_counts(a, &seg, &mapped, &unmapped);
    cr_assert_gt(unmapped, 0);
    ompdag_error err;
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_ERR_INVALID);
    cr_assert(strstr(err.message, "fit no path"), "%s", err.message);
    /* Points are named, never "point kind N" or "?:0" (issue 12 §5). */
    cr_assert(!strstr(err.message, "point kind") && !strstr(err.message, "?:0"), "%s", err.message);
    cr_assert(strstr(err.message, "taskwait") || strstr(err.message, "task creation") ||
                  strstr(err.message, "task end") || strstr(err.message, "task begin"),
              "%s", err.message);
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
}

/* Gumbel(mu, beta) samples by inverse CDF from a fixed LCG: deterministic. */
static void gumbel_samples(int64_t *x, size_t n, double mu, double beta)
{
    uint64_t s = 42;
    for (size_t i = 0; i < n; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double u = ((double)(s >> 11) + 0.5) / 9007199254740992.0;
        x[i] = (int64_t)llround(mu - beta * log(-log(u)));
    }
}

Test(annotate, evt_recovers_a_gumbel_and_refuses_few_samples)
{
    /* Maxima of 10 Gumbel(mu, beta) samples are Gumbel(mu + beta ln 10, beta). */
    size_t n = 20000;
    int64_t *x = malloc(n * sizeof *x);
    gumbel_samples(x, n, 100000, 2000);
    double pw, mu, beta;
    ompdag_error err;
    cr_assert_eq(ompdag_evt_gumbel_pwcet(x, n, 10, 20, 1e-9, &pw, &mu, &beta, &err), OMPDAG_OK);
    cr_assert(fabs(beta - 2000) < 200, "beta %g", beta);
    cr_assert(fabs(mu - (100000 + 2000 * log(10.0))) < 300, "mu %g", mu);
    /* The exact per-sample quantile at 1e-9 is mu - beta ln(-ln(1 - 1e-9)). */
    double exact = 100000 - 2000 * log(-log1p(-1e-9));
    cr_assert(fabs(pw - exact) / exact < 0.05, "pwcet %g vs %g", pw, exact);
    cr_assert_eq(ompdag_evt_gumbel_pwcet(x, 199, 10, 20, 1e-9, &pw, &mu, &beta, &err),
                 OMPDAG_ERR_LIMIT);
    cr_assert(strstr(err.message, "200 samples"), "%s", err.message);
    free(x);
}

Test(annotate, evt_on_traces_refuses_then_fits)
{
    make_traces();
    ompdag_condag_set *set = load_graphs("tasks.json");
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    opt.estimator = OMPDAG_ESTIMATOR_EVT;
    ompdag_annotation *a = annotate(set, &opt, g_t1, g_t0);
    ompdag_error err;
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_ERR_LIMIT, "5 samples per class");
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);

    /* 250 runs per branch: 250 samples per class, 25 blocks of 10. */
    char t1[160], t0[160];
    snprintf(t1, sizeof t1, "%s/e1.trace", g_dir);
    snprintf(t0, sizeof t0, "%s/e0.trace", g_dir);
    const char *a1[] = {"1", "250", NULL}, *a0[] = {"0", "250", NULL};
    cr_assert_eq(probe_run("tasks", a1, 2, t1, NULL, NULL), 0);
    cr_assert_eq(probe_run("tasks", a0, 2, t0, NULL, NULL), 0);
    set = load_graphs("tasks.json");
    opt.margin_pct = 0;
    a = annotate(set, &opt, t1, t0);
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_OK, "%s", err.message);
    for (size_t i = 0; i < ompdag_annotation_class_count(a); ++i) {
        ompdag_segment_class k;
        ompdag_annotation_class(a, i, &k);
        cr_assert_geq(k.estimate_ns, k.max_ns, "pWCET never below the observed maximum");
    }
    assert_safe(set, a);
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
}

Test(annotate, annotated_graph_is_analysable)
{
    make_traces();
    ompdag_condag_set *set = load_graphs("tasks.json");
    ompdag_annotation *a = annotate(set, NULL, g_t1, g_t0);
    ompdag_error err;
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_OK, "%s", err.message);
    const ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    ompdag_rta_options ro;
    ompdag_rta_options_init(&ro, 2);
    ompdag_rta_result *exact, *enumr;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &ro, &exact, &err), OMPDAG_OK, "%s",
                 err.message);
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_ENUMERATE, &ro, &enumr, &err), OMPDAG_OK);
    cr_assert_eq(ompdag_rta_result_bound_times_m(exact), ompdag_rta_result_bound_times_m(enumr));
    /* The bound covers at least the root's own work plus the longest child. */
    cr_assert_gt(ompdag_rta_result_bound_times_m(exact), 0);
    ompdag_rta_result_destroy(exact);
    ompdag_rta_result_destroy(enumr);

    /* Round trip through the file format keeps the extras. */
    char out[160];
    snprintf(out, sizeof out, "%s/out.json", g_dir);
    cr_assert_eq(ompdag_condag_set_save_file(set, out, true, &err), OMPDAG_OK, "%s", err.message);
    ompdag_condag_set *back;
    cr_assert_eq(ompdag_condag_set_load_file(out, &back, &err), OMPDAG_OK, "%s", err.message);
    const ompdag_condag *gb = ompdag_condag_set_graph(back, 0);
    cr_assert_eq(ompdag_condag_total_wcet(gb), ompdag_condag_total_wcet(g));
    cr_assert(json_object_get(ompdag_condag_extra(gb, -1), "observed_response_ns"));
    ompdag_condag_set_destroy(back);
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
}

Test(annotate, unrolled_loop_maps_occurrence_by_occurrence)
{
    char trace[160];
    make_traces();
    snprintf(trace, sizeof trace, "%s/loop.trace", g_dir);
    const char *args[] = {"4", NULL};
    cr_assert_eq(probe_run("loop", args, 2, trace, NULL, NULL), 0);
    ompdag_condag_set *set = load_graphs("loop.json");
    ompdag_annotation *a = annotate(set, NULL, trace, NULL);
    ompdag_error err;
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_OK, "%s", err.message);
    const ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    /* Three T nodes share line 23: the k-th creation of each run is r_k, and
     * the task it creates is a_k (whose own child is b_k), 4 runs each. */
    const char *once[] = {"r1", "r2", "r3", "b1n", "b2n", "b3n", "dn"};
    for (size_t i = 0; i < sizeof once / sizeof *once; ++i)
        cr_assert_eq(extra_int(g, node(g, once[i]), "samples"), 4, "%s: %lld samples", once[i],
                     (long long)extra_int(g, node(g, once[i]), "samples"));
    /* T nodes that end their task: the segment up to the directive and the
     * empty one after it (charged to the same node) both count. */
    const char *twice[] = {"a1t", "a2t", "a3t", "r4"};
    for (size_t i = 0; i < sizeof twice / sizeof *twice; ++i)
        cr_assert_eq(extra_int(g, node(g, twice[i]), "samples"), 8, "%s: %lld samples", twice[i],
                     (long long)extra_int(g, node(g, twice[i]), "samples"));
    /* a_k runs work(1000 k), a_3 work(30000), before its directive: the chain keeps
     * them apart.  Half the samples are the empty segments after the directive,
     * so the median is about half the fastest real run: robust to preemption. */
    cr_assert_lt(extra_int(g, node(g, "a1t"), "observed_median"),
                 extra_int(g, node(g, "a3t"), "observed_median"));
    assert_safe(set, a);
    uint64_t seg, mapped, unmapped;
    ompdag_annotation_counts(a, &seg, &mapped, &unmapped);
    cr_assert_eq(unmapped, 0);
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
}

/* Issue 17, item 4: a trace of a rebuilt or different binary was read as
 * "nodes never observed" (and with --unobserved zero every WCET became 0).
 * The traced executable is copied, traced, then "rebuilt" (its build-id note
 * changed in place): annotating must refuse, naming the cause. */
Test(annotate, trace_of_a_rebuilt_binary_is_refused)
{
    make_traces();
    char exe[256], trace[256], src[4096];
    snprintf(exe, sizeof exe, "%s/tasks_copy", g_dir);
    snprintf(trace, sizeof trace, "%s/copy.trace", g_dir);
    snprintf(src, sizeof src, "%s/tasks", OMPDAG_PROBE_PROGS);
    FILE *in = fopen(src, "rb");
    cr_assert_not_null(in);
    fseek(in, 0, SEEK_END);
    long n = ftell(in);
    rewind(in);
    unsigned char *bin = malloc((size_t)n);
    cr_assert_eq(fread(bin, 1, (size_t)n, in), (size_t)n);
    fclose(in);
    FILE *out = fopen(exe, "wb");
    cr_assert_eq(fwrite(bin, 1, (size_t)n, out), (size_t)n);
    cr_assert_eq(fclose(out), 0);
    cr_assert_eq(chmod(exe, 0755), 0);
    const char *args[] = {"1", "5", NULL};
    int status = probe_run(exe, args, 2, trace, NULL, NULL);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    /* unchanged, the copy annotates */
    ompdag_condag_set *set = load_graphs("tasks.json");
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    opt.unobserved = OMPDAG_UNOBSERVED_ZERO;
    ompdag_annotation *a;
    ompdag_error err;
    cr_assert_eq(ompdag_annotation_create(set, &opt, &a, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_annotation_add_trace(a, trace, &err), OMPDAG_OK, "%s", err.message);
    ompdag_annotation_destroy(a);

    /* "rebuild": change one byte of the build-id the trace recorded */
    ompdag_trace_reader *r;
    cr_assert_eq(ompdag_trace_reader_open(trace, &r, &err), OMPDAG_OK, "%s", err.message);
    const char *hex = ompdag_trace_reader_build_id(r);
    size_t idlen = strlen(hex) / 2;
    cr_assert_gt(idlen, 4, "the test program has no build-id");
    unsigned char id[64];
    for (size_t i = 0; i < idlen; ++i)
        sscanf(hex + 2 * i, "%2hhx", &id[i]);
    ompdag_trace_reader_destroy(r);
    unsigned char *at = memmem(bin, (size_t)n, id, idlen);
    cr_assert_not_null(at, "build-id not found in the binary");
    at[0] ^= 0xff;
    out = fopen(exe, "wb");
    cr_assert_eq(fwrite(bin, 1, (size_t)n, out), (size_t)n);
    cr_assert_eq(fclose(out), 0);
    free(bin);

    cr_assert_eq(ompdag_annotation_create(set, &opt, &a, &err), OMPDAG_OK, "%s", err.message);
    cr_expect_eq(ompdag_annotation_add_trace(a, trace, &err), OMPDAG_ERR_INVALID);
    cr_expect(strstr(err.message, "rebuilt since the trace was taken") != NULL, "%s", err.message);
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
}

/* Issue 17, item 5: each region run was found by a linear search, so a
 * trace of N runs of one `parallel` (a time-step loop) cost O(N^2): 200k runs
 * took 15.5 s and 10^6 did not finish in 600 s.  A real trace gets 400,000
 * more runs of its region (begin/end pairs on a thread of their own, the
 * footer and checksums updated); annotating it must stay linear. */
static void reseal_all(unsigned char *buf, size_t len, size_t first)
{
    uint64_t h = ompdag_trace_hash_bytes(OMPDAG_TRACE_HASH_SEED, buf, first);
    for (size_t off = first; off < len;) {
        ompdag_trace_chunk *ch = (ompdag_trace_chunk *)(buf + off);
        ch->check = ompdag_trace_chunk_check(h, ch->thread, ch->count, buf + off + sizeof *ch);
        off += sizeof *ch + ch->count * sizeof(ompdag_trace_rec);
    }
}

Test(annotate, many_region_runs_are_linear, .timeout = 40)
{
    make_traces();
    FILE *in = fopen(g_t1, "rb");
    cr_assert_not_null(in);
    fseek(in, 0, SEEK_END);
    size_t len = (size_t)ftell(in);
    rewind(in);
    enum { RUNS = 400000 };
    size_t extra = sizeof(ompdag_trace_chunk) + 2 * RUNS * sizeof(ompdag_trace_rec);
    unsigned char *buf = malloc(len + extra);
    cr_assert_eq(fread(buf, 1, len, in), len);
    fclose(in);
    /* the first chunk's offset, the footer chunk (last), and a region's records */
    ompdag_trace_reader *r;
    ompdag_error err;
    cr_assert_eq(ompdag_trace_reader_open_buffer(buf, len, "t", &r, &err), OMPDAG_OK);
    size_t first = sizeof(ompdag_trace_header);
    first +=
        (strlen(ompdag_trace_reader_exe(r)) + strlen(ompdag_trace_reader_build_id(r)) / 2 + 7) &
        ~(size_t)7;
    for (size_t i = 0; i < ompdag_trace_reader_module_count(r); ++i)
        first += sizeof(ompdag_trace_module) +
                 ((strlen(ompdag_trace_reader_module_path(r, i)) +
                   strlen(ompdag_trace_reader_module_build_id(r, i)) / 2 + 7) &
                  ~(size_t)7);
    ompdag_trace_reader_destroy(r);
    ompdag_trace_rec begin = {0}, end = {0};
    uint32_t max_thread = 0;
    size_t footer_at = 0;
    for (size_t off = first; off < len;) {
        ompdag_trace_chunk *ch = (ompdag_trace_chunk *)(buf + off);
        ompdag_trace_rec *recs = (ompdag_trace_rec *)(buf + off + sizeof *ch);
        if (ch->thread == UINT32_MAX)
            footer_at = off;
        else if (ch->thread > max_thread)
            max_thread = ch->thread;
        for (uint32_t i = 0; i < ch->count; ++i) {
            if (recs[i].type == OMPDAG_REC_REGION_BEGIN && !begin.type && recs[i].cp_region)
                begin = recs[i];
            if (recs[i].type == OMPDAG_REC_REGION_END && begin.type && !end.type &&
                recs[i].id == begin.id)
                end = recs[i];
        }
        off += sizeof *ch + ch->count * sizeof(ompdag_trace_rec);
    }
    cr_assert(begin.type && end.type && footer_at, "no region in the trace");
    /* the new chunk goes before the footer's */
    ompdag_trace_chunk footer_ch = *(ompdag_trace_chunk *)(buf + footer_at);
    ompdag_trace_rec footer = *(ompdag_trace_rec *)(buf + footer_at + sizeof footer_ch);
    uint32_t t = max_thread + 1;
    ompdag_trace_chunk *ch = (ompdag_trace_chunk *)(buf + footer_at);
    *ch = (ompdag_trace_chunk){OMPDAG_TRACE_CHUNK_MAGIC, t, 2 * RUNS, 0};
    ompdag_trace_rec *recs = (ompdag_trace_rec *)(buf + footer_at + sizeof *ch);
    uint64_t time = footer.time;
    for (uint32_t k = 0; k < RUNS; ++k) {
        uint64_t id = ((uint64_t)(t + 1) << 40) | (k + 1);
        recs[2 * k] = begin, recs[2 * k + 1] = end;
        recs[2 * k].thread = recs[2 * k + 1].thread = t;
        recs[2 * k].id = recs[2 * k + 1].id = id;
        recs[2 * k].time = ++time;
        recs[2 * k + 1].time = (time += 10);
    }
    footer.id += 2 * RUNS;
    footer.time = time + 1;
    size_t at = footer_at + sizeof *ch + 2 * RUNS * sizeof *recs;
    memcpy(buf + at, &footer_ch, sizeof footer_ch);
    memcpy(buf + at + sizeof footer_ch, &footer, sizeof footer);
    size_t total = at + sizeof footer_ch + sizeof footer;
    reseal_all(buf, total, first);
    char path[256];
    snprintf(path, sizeof path, "%s/many.trace", g_dir);
    FILE *out = fopen(path, "wb");
    cr_assert_eq(fwrite(buf, 1, total, out), total);
    cr_assert_eq(fclose(out), 0);
    free(buf);

    ompdag_condag_set *set = load_graphs("tasks.json");
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    ompdag_annotation *a;
    cr_assert_eq(ompdag_annotation_create(set, &opt, &a, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_annotation_add_trace(a, path, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_annotation_add_trace(a, g_t0, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_OK, "%s", err.message);
    json_t *x = ompdag_condag_extra(ompdag_condag_set_graph(set, 0), -1);
    cr_expect_geq(json_array_size(json_object_get(x, "observed_response_ns")), RUNS);
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
}

/* Issue 17, item 7 (UBSan): a trace with no segment of any graph sorted a
 * NULL array (qsort(NULL, 0)); the sanitizer build aborts on it.  Since
 * issue 22 such a trace is refused before it is read (the program does not
 * contain the graph's source). */
Test(annotate, a_trace_of_another_program_sorts_nothing)
{
    make_traces();
    char path[4096];
    snprintf(path, sizeof path, "%s/../../../examples/condag/fib.json", OMPDAG_PROBE_DATA);
    ompdag_condag_set *set;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file(path, &set, &err), OMPDAG_OK, "%s", err.message);
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    ompdag_annotation *a;
    cr_assert_eq(ompdag_annotation_create(set, &opt, &a, &err), OMPDAG_OK, "%s", err.message);
    cr_expect_eq(ompdag_annotation_add_trace(a, g_t1, &err), OMPDAG_ERR_INVALID);
    cr_expect_neq(ompdag_annotation_apply(a, &err), OMPDAG_OK);
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
}
