/*
 * report/report_phrases.c — the phrases every report format shares: a
 * branch's name, durations and ratios as text, what a bound covers, the
 * observations line and the breakdown (report_write.c's text and
 * report_html.c's page both print them, so they live here, not in either).
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/compact.h"
#include "report_internal.h"

const char *report_branch_name(const ompdag_condag *g, int32_t c, int32_t s, char *buf, size_t size)
{
    int32_t n;
    const int32_t *succ = ompdag_condag_node_fsucc(g, c, &n);
    int32_t k = 0;
    while (k < n && succ[k] != s)
        ++k;
    if (n == 2)
        snprintf(buf, size, "%s", k == 0 ? "then" : "else");
    else
        snprintf(buf, size, "case %d of %d", k + 1, n);
    return buf;
}

const char *report_dur(double ns, char *buf, size_t size)
{
    return ns < 0 ? "n/a" : ompdag_duration_format(ns, buf, size);
}

void report_observations_line(FILE *out, const ompdag_report_row *row)
{
    char a[64];
    if (!row->observation_count) return;
    fputs(row->team_size_recorded ? "runs by team size: "
                                  : "team size not recorded (every run is compared with every m): ",
          out);
    for (size_t k = 0; k < row->observation_count; ++k) {
        const ompdag_report_observation *o = &row->observations[k];
        if (row->team_size_recorded) fprintf(out, "%s%d thread(s): ", k ? "; " : "", o->threads);
        fprintf(out, "%" PRId64 " run(s) (%" PRId64 " clean, %" PRId64 " interfered), max %s",
                o->runs, o->clean, o->interfered, report_dur(o->max_ns, a, sizeof a));
    }
}

/* "1.2×", or "n/a" for a factor that is not known (-1). */
const char *report_times(double f, char *buf, size_t size)
{
    if (f < 0) return "n/a";
    snprintf(buf, size, "%.3g×", f);
    return buf;
}

/* Why the bound is what it is (report_breakdown.c, docs/report.md
 * "breakdown"): the terms, the outliers, the floor, and which factor to
 * attack first. */
void report_breakdown_text(FILE *out, const ompdag_report_row *row)
{
    const ompdag_report_breakdown *b = &row->breakdown;
    char a[64], c[64], f[5][32];
    if (b->vol_ns < 0 || !b->has_floor) return; /* not a time; annotated before the floor */
    fputs("    breakdown: ", out);
    if (b->flow_tasks >= 0)
        fprintf(out, "%" PRId64 " task(s) in the worst flow", b->flow_tasks);
    else
        fputs("tasks in the worst flow n/a (compact graph)", out);
    if (b->observed_tasks >= 0) fprintf(out, " vs %" PRId64 " run", b->observed_tasks);
    fprintf(out, "; volume %s vs work %s per clean run", report_dur(b->vol_ns, a, sizeof a),
            report_dur(b->observed_work_ns, c, sizeof c));
    if (b->delay_share >= 0)
        fprintf(out, "; dispatch delays %s = %.1f%% of Graham's bound%s",
                report_dur(b->delay_ns, a, sizeof a), 100 * b->delay_share,
                b->delays_folded ? " (folded into the WCETs)" : "");
    if (b->delay_share >= 0 && b->formation_ns > 0)
        fprintf(out, " (team formation %s of it)", report_dur(b->formation_ns, a, sizeof a));
    if (b->margin_pct >= 0) fprintf(out, "; margin %.3g%%", b->margin_pct);
    fputc('\n', out);
    if (b->outlier_count) {
        fputs("    outliers (max ÷ median):", out);
        for (int32_t k = 0; k < b->outlier_count; ++k)
            fprintf(out, "%s %s %.3g× (%s ÷ %s)", k ? "," : "", b->outliers[k].place,
                    b->outliers[k].ratio, report_dur(b->outliers[k].max_ns, a, sizeof a),
                    report_dur(b->outliers[k].median_ns, c, sizeof c));
        fputc('\n', out);
    }
    if (b->floor_runs > 0)
        fprintf(out,
                "    floor %.3g / %.3g / %.3g (min / median / max over %" PRId64
                " clean run(s): Graham of each run's own DAG ÷ its response) vs bound ÷ observed "
                "%s\n",
                b->floor_min, b->floor_median, b->floor_max, b->floor_runs,
                report_times(b->bound_over_observed, f[0], sizeof f[0]));
    else if (b->floor_why)
        fprintf(out, "    floor: n/a (%s)\n", b->floor_why);
    else
        fputs("    floor: n/a (no clean run at this m)\n", out);
    fprintf(out, "    factors: graph %s, WCETs per location %s, delays %s, margin %s, floor %s",
            report_times(b->factor_graph, f[0], sizeof f[0]),
            report_times(b->factor_wcets, f[1], sizeof f[1]),
            report_times(b->factor_delays, f[2], sizeof f[2]),
            report_times(b->factor_margin, f[3], sizeof f[3]),
            report_times(b->floor_median, f[4], sizeof f[4]));
    if (b->largest) fprintf(out, " -> attack first: %s", b->largest);
    fputc('\n', out);
    if (b->floor_below_one)
        fprintf(out,
                "    FLOOR BELOW 1 in %" PRId64
                " run(s): Graham's bound of a run's own DAG is below its response, so a dispatch "
                "delay was measured short — a bug in the probe or annotate: please report it with "
                "the trace\n",
                b->floor_below_one);
}

/* What the bound covers (issue 23 item 5): the input the graph was extracted
 * for (`extract --assume`, the graph key "assumptions"), else every input
 * whose recursion and loops stay within the bounds it was extracted with.
 * Written into buf, which is returned. */
const char *report_covers(const ompdag_condag *g, char *buf, size_t size)
{
    json_t *as = json_object_get(ompdag_condag_extra(g, -1), "assumptions");
    if (!json_is_object(as) || !json_object_size(as)) {
        snprintf(buf, size,
                 "every input within the recursion and loop bounds the graph was "
                 "extracted with");
        return buf;
    }
    size_t len = (size_t)snprintf(buf, size, "the input with ");
    const char *name;
    json_t *v;
    const char *sep = "";
    json_object_foreach(as, name, v)
    {
        if (len >= size) break;
        len += (size_t)snprintf(buf + len, size - len, "%s%s=%lld", sep, name,
                                (long long)json_integer_value(v));
        sep = ", ";
    }
    if (len < size) snprintf(buf + len, size - len, " (extract --assume)");
    return buf;
}
