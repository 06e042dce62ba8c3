/*
 * report/report_breakdown.c — why a region's bound is what it is (issue 23
 * item 6).  The decomposition is ../shared/spec/tightness.md's ("Four factors
 * multiply to today's ratio"): bound ÷ observed = (a) a graph larger than
 * the run × (b) one WCET per code location × (c1) dispatch delays × (c2) the
 * margin × the floor, where the floor is Graham's bound of each clean run's
 * own DAG over its response (annotate_floor.c, docs/probe.md "The floor").
 * Each figure comes from what annotate wrote (node extras observed_max /
 * observed_median, graph keys "floor" and "wcet_method", node "delay") and
 * from Graham's exact result of the row; docs/report.md, "breakdown".
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/compact.h"
#include "report_internal.h"

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* Tasks the worst flow runs: its executed T nodes plus the root (plain graphs). */
static int64_t flow_tasks(const ompdag_condag *g, const ompdag_rta_result *res)
{
    int32_t n = ompdag_condag_node_count(g);
    if (ompdag_compact_is_compact(g) || !ompdag_rta_result_has_witness(res)) return -1;
    uint8_t *ran = calloc((size_t)n + 1, 1);
    if (!ran || ompdag_rta_result_mark_flow(res, g, ran, NULL)) {
        free(ran);
        return -1;
    }
    int64_t t = 1;
    for (int32_t v = 0; v < n; ++v)
        t += ran[v] && ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T;
    free(ran);
    return t;
}

/* The dispatch delays' part of Graham's m·R, in the graph's unit: m·R = vol +
 * (m−1)·Σ_chain WCET + m·Σ_chain D (+ m·O·migrations) and len = Σ_chain
 * (WCET + D) (ompdag_rta_result_len), so Σ_chain D = m·R − vol − (m−1)·len
 * (− m·O·migrations), and the part is m·Σ_chain D. */
static int64_t chain_delays(const ompdag_rta_result *res, int32_t m, int64_t overhead)
{
    int64_t vol = ompdag_rta_result_vol(res), len = ompdag_rta_result_len(res);
    if (vol < 0 || len < 0) return -1;
    __int128 d = (__int128)ompdag_rta_result_bound_times_m(res) - vol - (__int128)(m - 1) * len -
                 (__int128)m * overhead * ompdag_rta_result_migrations(res);
    d *= m;
    return d >= 0 && d <= INT64_MAX ? (int64_t)d : -1;
}

/* An older annotate folded "dispatch_delay" (node extra) into the WCETs: its
 * part of m·R is Σ_flow D + (m−1)·Σ_chain D (plain graphs). */
static int64_t folded_delays(const ompdag_condag *g, const ompdag_rta_result *res, int32_t m)
{
    int32_t n = ompdag_condag_node_count(g), count = 0;
    uint8_t *ran = calloc((size_t)n + 1, 1);
    const int32_t *path = ompdag_rta_result_critical_path(res, &count);
    if (!ran || ompdag_compact_is_compact(g) || ompdag_rta_result_mark_flow(res, g, ran, NULL)) {
        free(ran);
        return -1;
    }
    __int128 d = 0;
    for (int32_t v = 0; v < n; ++v)
        if (ran[v])
            d += json_integer_value(json_object_get(ompdag_condag_extra(g, v), "dispatch_delay"));
    for (int32_t k = 0; path && k < count; ++k)
        d += (__int128)(m - 1) *
             json_integer_value(json_object_get(ompdag_condag_extra(g, path[k]), "dispatch_delay"));
    free(ran);
    return d <= INT64_MAX ? (int64_t)d : -1;
}

static void delays(const ompdag_condag *g, const ompdag_rta_result *res,
                   const ompdag_report_row *row, int64_t overhead, double unit_ns,
                   ompdag_report_breakdown *b)
{
    bool chain = false, folded = false;
    for (int32_t v = 0; v < ompdag_condag_node_count(g) && !chain; ++v) {
        chain = ompdag_condag_node_delay(g, v) > 0;
        folded = folded || json_object_get(ompdag_condag_extra(g, v), "dispatch_delay");
    }
    int64_t part = chain    ? chain_delays(res, row->m, overhead)
                   : folded ? folded_delays(g, res, row->m)
                            : 0;
    int64_t bm = ompdag_rta_result_bound_times_m(res);
    if (part < 0 || bm <= 0) return;
    b->delays_folded = !chain && folded;
    b->delay_ns = (double)part * unit_ns / row->m;
    b->delay_share = (double)part / (double)bm;
    /* team formation: on the root's source, on every chain, m·D ÷ m of R */
    const json_t *fd = json_object_get(
        json_object_get(ompdag_condag_extra(g, -1), "runtime_overheads"), "formation_delay_ns");
    if (chain && json_is_integer(fd)) b->formation_ns = (double)json_integer_value(fd);
}

/* Keeps the OMPDAG_REPORT_OUTLIERS locations of largest max ÷ median, one
 * entry per place (its largest ratio), largest first. */
static void outlier_offer(ompdag_report_breakdown *b, const ompdag_condag *g, int32_t v,
                          double max_ns, double median_ns)
{
    double ratio = max_ns / median_ns;
    int32_t last = b->outlier_count - 1;
    if (b->outlier_count == OMPDAG_REPORT_OUTLIERS && ratio <= b->outliers[last].ratio) return;
    char place[sizeof b->outliers[0].place];
    ompdag_condag_node_place(g, v, place, sizeof place);
    int32_t at = b->outlier_count;
    for (int32_t k = 0; k < b->outlier_count; ++k)
        if (!strcmp(b->outliers[k].place, place)) at = k;
    if (at < b->outlier_count && ratio <= b->outliers[at].ratio) return;
    if (at == b->outlier_count)
        at = b->outlier_count < OMPDAG_REPORT_OUTLIERS ? b->outlier_count++ : last;
    ompdag_report_outlier *o = &b->outliers[at];
    snprintf(o->place, sizeof o->place, "%s", place);
    o->max_ns = max_ns, o->median_ns = median_ns, o->ratio = ratio;
    for (int32_t k = at; k > 0 && b->outliers[k].ratio > b->outliers[k - 1].ratio; --k) {
        ompdag_report_outlier t = b->outliers[k];
        b->outliers[k] = b->outliers[k - 1];
        b->outliers[k - 1] = t;
    }
}

static void outliers(const ompdag_condag *g, double unit_ns, ompdag_report_breakdown *b)
{
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        json_t *x = ompdag_condag_extra(g, v);
        json_int_t mx = json_integer_value(json_object_get(x, "observed_max")),
                   md = json_integer_value(json_object_get(x, "observed_median"));
        if (mx > 0 && md > 0) outlier_offer(b, g, v, (double)mx * unit_ns, (double)md * unit_ns);
    }
}

/* The floor at m: min, median and max over the clean runs of team size m;
 * also the most tasks and work a run at m saw. */
static void floor_at(const ompdag_condag *g, int32_t m, ompdag_report_breakdown *b)
{
    json_t *fl = json_object_get(ompdag_condag_extra(g, -1), "floor");
    json_t *runs = json_object_get(fl, "runs");
    b->has_floor = json_is_object(fl);
    b->floor_why = json_string_value(json_object_get(fl, "why"));
    size_t n = json_array_size(runs), k = 0, i;
    double *r = malloc((n + 1) * sizeof *r);
    json_t *x;
    json_array_foreach(runs, i, x)
    {
        json_int_t t = json_integer_value(json_object_get(x, "threads")),
                   resp = json_integer_value(json_object_get(x, "response_ns")),
                   mg = json_integer_value(json_object_get(x, "own_graham_m_ns")),
                   tasks = json_integer_value(json_object_get(x, "tasks")),
                   work = json_integer_value(json_object_get(x, "work_ns"));
        if (t != m || resp <= 0) continue;
        if ((__int128)mg < (__int128)resp * t) ++b->floor_below_one;
        if (tasks + 1 > b->observed_tasks) b->observed_tasks = tasks + 1;
        if (!json_is_true(json_object_get(x, "clean"))) continue;
        if ((double)work > b->observed_work_ns) b->observed_work_ns = (double)work;
        if (r) r[k++] = (double)mg / ((double)t * (double)resp);
    }
    if (k) {
        qsort(r, k, sizeof *r, cmp_double);
        b->floor_runs = (int64_t)k;
        b->floor_min = r[0], b->floor_max = r[k - 1];
        b->floor_median = k % 2 ? r[k / 2] : (r[k / 2 - 1] + r[k / 2]) / 2;
    }
    free(r);
}

/* The factors of tightness.md and the largest of them. */
static void factors(ompdag_report_breakdown *b)
{
    if (b->flow_tasks > 0 && b->observed_tasks > 0)
        b->factor_graph = (double)b->flow_tasks / (double)b->observed_tasks;
    if (b->margin_pct >= 0) b->factor_margin = 1 + b->margin_pct / 100;
    if (b->delay_share >= 0 && b->delay_share < 1) b->factor_delays = 1 / (1 - b->delay_share);
    if (b->vol_ns > 0 && b->observed_work_ns > 0 && b->factor_margin > 0)
        b->factor_wcets = b->vol_ns / b->observed_work_ns /
                          (b->factor_graph > 0 ? b->factor_graph : 1) / b->factor_margin;
    static const char *names[] = {"graph larger than the run", "one WCET per code location",
                                  "dispatch delays", "margin", "Graham (the floor)"};
    /* a compact graph's flow is not counted in tasks: vol ÷ work holds both */
    const char *wcets = b->factor_graph > 0 ? names[1]
                                            : "graph larger than the run or one WCET per code "
                                              "location (not told apart: compact graph)";
    double f[] = {b->factor_graph, b->factor_wcets, b->factor_delays, b->factor_margin,
                  b->floor_median};
    double best = 1;
    for (size_t k = 0; k < sizeof f / sizeof f[0]; ++k)
        if (f[k] > best) best = f[k], b->largest = k == 1 ? wcets : names[k];
}

void report_breakdown(const ompdag_condag *g, const ompdag_rta_result *res,
                      const ompdag_report_row *row, int64_t migration_overhead, int64_t unit_ns,
                      ompdag_report_breakdown *b)
{
    *b = (ompdag_report_breakdown){.flow_tasks = -1,
                                   .observed_tasks = -1,
                                   .vol_ns = -1,
                                   .observed_work_ns = -1,
                                   .delay_ns = -1,
                                   .delay_share = -1,
                                   .formation_ns = -1,
                                   .margin_pct = -1,
                                   .floor_min = -1,
                                   .floor_median = -1,
                                   .floor_max = -1,
                                   .bound_over_observed = -1,
                                   .factor_graph = -1,
                                   .factor_wcets = -1,
                                   .factor_delays = -1,
                                   .factor_margin = -1};
    if (!unit_ns) return; /* not a time: nothing to compare with runs */
    double u = (double)unit_ns;
    b->flow_tasks = flow_tasks(g, res);
    if (row->vol >= 0) b->vol_ns = (double)row->vol * u;
    delays(g, res, row, migration_overhead, u, b);
    json_t *pct =
        json_object_get(json_object_get(ompdag_condag_extra(g, -1), "wcet_method"), "margin_pct");
    if (json_is_number(pct)) b->margin_pct = json_number_value(pct);
    outliers(g, u, b);
    floor_at(g, row->m, b);
    if (row->observed_max_ns > 0 && row->bound_ns >= 0)
        b->bound_over_observed = row->bound_ns / row->observed_max_ns;
    factors(b);
}

/* ---- compact loops in the worst flow (docs/compact.md, "The worst flow") ---- */

bool report_loop_iterations(const ompdag_condag *g, const ompdag_rta_result *res, int32_t v,
                            char *buf, size_t size)
{
    int64_t lo, hi, K = ompdag_compact_loop_repeat(g, v);
    if (K <= 0 || !ompdag_rta_result_loop_iterations(res, v, &lo, &hi)) return false;
    if (lo == hi)
        snprintf(buf, size, "%" PRId64 " iterations (at most %" PRId64 ")", hi, K);
    else
        snprintf(buf, size, "%" PRId64 " to %" PRId64 " iterations (at most %" PRId64 ")", lo, hi,
                 K);
    return true;
}

bool report_loop_path_missing(const ompdag_condag *g, const ompdag_rta_result *res, char *buf,
                              size_t size)
{
    if (ompdag_rta_result_has_witness(res) || !ompdag_compact_has_loops(g)) return false;
    /* vol and len are exact (rta_loop_witness.c); the replay in runs that
     * names the path, the branches and the loop counts gave up. */
    const char *why = ompdag_rta_result_path_missing(res);
    bool sums = ompdag_rta_result_vol(res) >= 0; /* rta_loop_depend gives the bound alone */
    snprintf(buf, size,
             "critical path, branches and loop counts: not computed: %s (docs/compact.md, \"The "
             "worst flow\"); %s",
             why ? why : "no witness was asked for",
             sums ? "vol and len are exact" : "vol and len are unknown (-1)");
    return true;
}

bool report_no_loop_witness(FILE *out, const ompdag_condag *g, const ompdag_rta_result *res)
{
    char why[512];
    if (!report_loop_path_missing(g, res, why, sizeof why)) return false;
    fprintf(out, "    worst flow: %s\n", why);
    return true;
}
