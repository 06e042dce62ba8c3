/*
 * report/report_write.c — a report as text (people), JSON (tools) and CSV (one
 * row per region and m, for spreadsheets).  Every value comes from the rows
 * built in report.c and the exact results behind them; nothing is recomputed.
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/compact.h"
#include "ompdag/fileio.h"
#include "report_internal.h"

size_t report_first_row(const ompdag_report *r, size_t gi)
{
    for (size_t i = 0; i < r->n; ++i)
        if (r->rows[i].graph == gi) return i;
    return r->n;
}

/* A value in the graph's unit, as a duration when the unit is a time. */
static const char *in_unit(const ompdag_condag *g, double v, char *buf, size_t size)
{
    int64_t u = ompdag_time_unit_ns(ompdag_condag_time_unit(g));
    if (u) return ompdag_duration_format(v * (double)u, buf, size);
    snprintf(buf, size, "%.6g %s", v, ompdag_condag_time_unit(g));
    return buf;
}

/* ---- text ------------------------------------------------------------------ */

enum { TEXT_MAX_CHOICES = 20, TEXT_MAX_NODES = 60 };

static void text_flow(FILE *out, const ompdag_condag *g, const ompdag_rta_result *res)
{
    char a[512], b[512], br[32];
    if (report_no_loop_witness(out, g, res)) return;
    int32_t total = 0;
    ompdag_choice_group *gr = ompdag_rta_result_choice_groups(res, g, &total);
    for (int32_t i = 0; i < total && i < TEXT_MAX_CHOICES; ++i) {
        int32_t v = gr[i].node, s = gr[i].succ;
        const char *label = ompdag_condag_node_label(g, s);
        if (report_loop_iterations(g, res, v, b, sizeof b)) { /* a compact loop: its count */
            fprintf(out, "%s      loop at %s runs %s\n", i ? "" : "    worst flow:\n",
                    ompdag_condag_node_place(g, v, a, sizeof a), b);
            continue;
        }
        fprintf(out, "%s      %s takes %s -> %s%s%s%s", i ? "" : "    worst flow:\n",
                ompdag_condag_node_place(g, v, a, sizeof a),
                report_branch_name(g, v, s, br, sizeof br),
                ompdag_condag_node_place(g, s, b, sizeof b), label ? " (" : "", label ? label : "",
                label ? ")" : "");
        ompdag_choice_group_write_note(out, g, &gr[i]);
        fputc('\n', out);
    }
    free(gr);
    if (total <= 0)
        fprintf(out, "    worst flow: no branches\n");
    else if (total > TEXT_MAX_CHOICES)
        fprintf(out, "      ... and %d more branch choices (--format json lists all)\n",
                total - TEXT_MAX_CHOICES);
    fputs("    ", out);
    ompdag_rta_result_write_path(res, g, out);
}

/* One kind of measured overhead: "max 12 us over 40 samples (median 3 us)". */
static void text_sample(FILE *out, const char *what, const json_t *k)
{
    char a[64], b[64];
    json_int_t n = json_integer_value(json_object_get(k, "samples"));
    if (!n) return;
    fprintf(out, "; %s max %s over %" JSON_INTEGER_FORMAT " (median %s)", what,
            report_dur((double)json_integer_value(json_object_get(k, "max_ns")), a, sizeof a), n,
            report_dur((double)json_integer_value(json_object_get(k, "median_ns")), b, sizeof b));
}

/* The runtime overheads annotate measured and added (docs/overheads.md). */
static void text_overheads(FILE *out, const json_t *o)
{
    char a[64], b[64];
    if (!json_is_object(o)) {
        fprintf(out, "    runtime overheads: not measured (annotated before issue 12): the "
                     "bound excludes task dispatch and taskwait wake-up delays\n");
        return;
    }
    /* chain-only delays (issue 23) state a third class; older files folded two */
    json_t *cont = json_object_get(o, "cont_delay_ns");
    char c[64];
    fprintf(
        out,
        "    runtime overheads (%s, docs/overheads.md): start delay %s per task, wake "
        "delay %s per taskwait%s%s%s",
        json_string_value(json_object_get(o, "source")),
        report_dur((double)json_integer_value(json_object_get(o, "start_delay_ns")), a, sizeof a),
        report_dur((double)json_integer_value(json_object_get(o, "wake_delay_ns")), b, sizeof b),
        cont ? ", continuation delay " : "",
        cont ? report_dur((double)json_integer_value(cont), c, sizeof c) : "",
        cont ? " per task creation, on the critical chain only" : ", in the WCETs");
    json_t *fm = json_object_get(o, "formation_ns");
    if (fm) /* issue 23: threads joining late, charged once on the root's source */
        fprintf(out, ", team formation %s once (%s on the root's source)",
                report_dur((double)json_integer_value(fm), a, sizeof a),
                report_dur((double)json_integer_value(json_object_get(o, "formation_delay_ns")), b,
                           sizeof b));
    fprintf(out, "\n      samples at %" JSON_INTEGER_FORMAT " threads",
            json_integer_value(json_object_get(o, "threads")));
    text_sample(out, "start", json_object_get(o, "start"));
    text_sample(out, "wake", json_object_get(o, "wake"));
    if (cont) text_sample(out, "continuation", json_object_get(o, "cont"));
    if (fm) text_sample(out, "formation", json_object_get(o, "formation"));
    text_sample(out, "fork", json_object_get(o, "fork_warm"));
    text_sample(out, "cold fork", json_object_get(o, "fork_cold"));
    text_sample(out, "join", json_object_get(o, "join"));
    fputc('\n', out);
}

static void text_assumptions(FILE *out, const ompdag_report *r, const ompdag_condag *g)
{
    char buf[512];
    int32_t tcount = 0;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        tcount += ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T;
    int32_t tied = report_tied_tasks(g);
    if (!tied)
        fprintf(out,
                "  assumptions: work-conserving scheduling of untied tasks (%d task directives, "
                "none tied)\n",
                tcount);
    else
        fprintf(out,
                "  assumptions: %d of %d task directives tied (OpenMP's default): the bound is "
                "the one that holds under the task scheduling constraint (docs/tied.md); the "
                "worst flow and critical path are Graham's (untied)\n",
                tied, tcount);
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T &&
            json_is_false(json_object_get(ompdag_condag_extra(g, v), "untied")))
            fprintf(out, "    the task at %s is tied\n",
                    ompdag_condag_node_place(g, v, buf, sizeof buf));
    json_t *wm = json_object_get(ompdag_condag_extra(g, -1), "wcet_method");
    if (json_is_object(wm)) {
        const char *est = json_string_value(json_object_get(wm, "estimator"));
        json_t *margin = json_object_get(wm, "margin_pct");
        fprintf(out, "    WCETs: %s", est ? est : "?");
        if (json_is_number(margin)) fprintf(out, " + %.3g%% margin", json_number_value(margin));
        json_t *tr = json_object_get(wm, "traces"), *seg = json_object_get(wm, "segments");
        if (json_is_integer(tr))
            fprintf(out, ", %" JSON_INTEGER_FORMAT " trace(s)", json_integer_value(tr));
        if (json_is_integer(seg))
            fprintf(out, ", %" JSON_INTEGER_FORMAT " segments", json_integer_value(seg));
        const char *unobs = json_string_value(json_object_get(wm, "unobserved"));
        if (unobs) fprintf(out, ", unobserved nodes: %s", unobs);
        fputc('\n', out);
        text_overheads(out, json_object_get(ompdag_condag_extra(g, -1), "runtime_overheads"));
    } else {
        fprintf(out, "    WCETs: %s (no \"wcet_method\")\n",
                ompdag_condag_total_wcet(g) ? "given in the file, not measured by ompdag"
                                            : "not measured (every WCET is 0)");
    }
    if (r->migration_overhead)
        fprintf(out, "    migration overhead: %" PRId64 " %s per %s, counted on the flow\n",
                r->migration_overhead, ompdag_condag_time_unit(g),
                r->migration_model == OMPDAG_MIGRATION_BFS ? "W node (BFS)" : "T node (WFS)");
    else
        fprintf(out, "    migration overhead: none\n");
}

/* An offloaded loop in the node (cuda-offload, measured by the probe): how
 * the largest run split across devices. */
static void text_offload(FILE *out, const json_t *split)
{
    size_t i;
    json_t *d;
    char a[64];
    if (!json_is_array(split) || !json_array_size(split)) return;
    fputs("           offloaded loop:", out);
    json_array_foreach(split, i, d)
    {
        const char *kind = json_string_value(json_object_get(d, "kind"));
        fprintf(
            out, "%s %s#%" JSON_INTEGER_FORMAT " %" JSON_INTEGER_FORMAT " it in %s", i ? "," : "",
            kind ? kind : "?", json_integer_value(json_object_get(d, "device")),
            json_integer_value(json_object_get(d, "iterations_max")),
            report_dur((double)json_integer_value(json_object_get(d, "busy_ns_max")), a, sizeof a));
    }
    fputc('\n', out);
}

static void text_nodes(FILE *out, const ompdag_condag *g)
{
    char place[512];
    int32_t n = ompdag_condag_node_count(g);
    fprintf(out, "  node WCETs (%s):\n    %-6s %-4s %-24s %12s %8s %12s  %s\n",
            ompdag_condag_time_unit(g), "id", "kind", "place", "wcet", "samples", "observed_max",
            "label");
    for (int32_t v = 0; v < n && v < TEXT_MAX_NODES; ++v) {
        json_t *x = ompdag_condag_extra(g, v);
        json_t *samples = json_object_get(x, "samples"), *omax = json_object_get(x, "observed_max");
        char sbuf[32] = "-", obuf[32] = "-";
        if (json_is_integer(samples))
            snprintf(sbuf, sizeof sbuf, "%" JSON_INTEGER_FORMAT, json_integer_value(samples));
        if (json_is_integer(omax))
            snprintf(obuf, sizeof obuf, "%" JSON_INTEGER_FORMAT, json_integer_value(omax));
        const char *label = ompdag_condag_node_label(g, v);
        bool unobserved = json_is_true(json_object_get(x, "unobserved"));
        fprintf(out, "    %-6s %-4c %-24s %12" PRId64 " %8s %12s%s%s%s\n",
                ompdag_condag_node_id(g, v), (char)ompdag_condag_node_kind(g, v),
                ompdag_condag_node_place(g, v, place, sizeof place), ompdag_condag_node_wcet(g, v),
                sbuf, obuf, label || unobserved ? "  " : "", label ? label : "",
                unobserved ? " [unobserved]" : "");
        text_offload(out, json_object_get(x, "offload"));
    }
    if (n > TEXT_MAX_NODES)
        fprintf(out, "    ... and %d more nodes (--format json lists all)\n", n - TEXT_MAX_NODES);
}

/* The bound line of a row: the bound that holds, or "not annotated". */
static void text_bound(FILE *out, const ompdag_report_row *row, const ompdag_condag *g)
{
    char a[64], b[64], c[64];
    if (row->unmeasured_reason && row->bound_times_m == 0) {
        fprintf(out, "  m=%d: not annotated, no bound (every WCET is 0)\n", row->m);
        return;
    }
    fprintf(out, "  m=%d: bound %s (m*R = %" PRId64 " %s); vol %s, len %s%s%s%s\n", row->m,
            in_unit(g, row->bound, a, sizeof a), row->bound_times_m, ompdag_condag_time_unit(g),
            in_unit(g, (double)row->vol, b, sizeof b), in_unit(g, (double)row->len, c, sizeof c),
            !row->depend ? ""
            : row->exact ? "; depend: exact"
                         : "; depend: sound, not exact",
            row->tied_rule != OMPDAG_TIED_NONE ? "; rule " : "",
            row->tied_rule != OMPDAG_TIED_NONE ? ompdag_tied_rule_name(row->tied_rule) : "");
    if (row->unmeasured_reason)
        fprintf(out, "    (nothing measured backs these WCETs: this bound proves nothing)\n");
}

/* Which rule gives the bound for tied tasks, and what `untied` would give. */
static void text_tied(FILE *out, const ompdag_report_row *row, const ompdag_condag *g)
{
    char a[64], places[1024];
    if (row->tied_rule == OMPDAG_TIED_NONE) return;
    fprintf(out,
            "    tied tasks: the bound holds under OpenMP's task scheduling constraint by rule "
            "%s (docs/tied.md)",
            ompdag_tied_rule_name(row->tied_rule));
    if (row->untied_bound_times_m < row->bound_times_m)
        fprintf(out, "; adding `untied` to the task directive at %s tightens the bound to %s",
                report_tied_places(g, places, sizeof places),
                in_unit(g, (double)row->untied_bound_times_m / row->m, a, sizeof a));
    fputc('\n', out);
}

/* The deadline line: the bound that decides the verdict, the deadline, the
 * slack and the verdict, side by side (issue 22 item 6). */
static void text_deadline(FILE *out, const ompdag_report_row *row)
{
    char a[64], b[64], c[64];
    if (row->deadline_ns >= 0 && row->deadline_from && row->unmeasured_reason &&
        row->bound_times_m == 0)
        fprintf(out, "    deadline %s (%s%s): no bound (not annotated) -> %s\n",
                report_dur((double)row->deadline_ns, a, sizeof a),
                strcmp(row->deadline_from, "pragma") ? "--deadline " : "", row->deadline_from,
                report_verdict_upper(row->verdict));
    else if (row->deadline_ns >= 0 && row->deadline_from)
        fprintf(out, "    deadline %s (%s%s): bound %s%s, slack %s%s -> %s\n",
                report_dur((double)row->deadline_ns, a, sizeof a),
                strcmp(row->deadline_from, "pragma") ? "--deadline " : "", row->deadline_from,
                report_dur(row->verdict_bound_ns, c, sizeof c),
                row->region_bound_ns >= 0 ? " (whole region)" : "", row->slack_ns < 0 ? "-" : "",
                report_dur(fabs(row->slack_ns), b, sizeof b), report_verdict_upper(row->verdict));
    else
        fprintf(out, "    deadline: none%s%s\n",
                row->verdict != OMPDAG_VERDICT_NO_DEADLINE ? " -> " : "",
                row->verdict != OMPDAG_VERDICT_NO_DEADLINE ? report_verdict_upper(row->verdict)
                                                           : "");
}

static void text_row(FILE *out, const ompdag_report *r, size_t i)
{
    const ompdag_report_row *row = &r->rows[i];
    const ompdag_condag *g = ompdag_condag_set_graph(r->set, row->graph);
    char a[64], b[64];
    text_bound(out, row, g);
    text_tied(out, row, g);
    if (row->region_bound_ns >= 0)
        fprintf(out,
                "    whole region: bound %s (task system + fork/join %s, measured with the "
                "WCET margin)%s\n",
                report_dur(row->region_bound_ns, a, sizeof a),
                report_dur((double)row->fork_join_ns, b, sizeof b),
                row->deadline_ns >= 0 ? "; the deadline applies to it" : "");
    if (row->input_bound_ns >= 0) {
        fprintf(out, "    for this input: bound %s (%s; delays: %s)",
                report_dur(row->input_bound_ns, a, sizeof a),
                row->input_claim ? row->input_claim : "recorded by annotate",
                row->input_delay_model ? row->input_delay_model : "instance maxima");
        if (row->input_graham_times_m >= 0 && row->input_graham_times_m < row->input_bound_times_m)
            fprintf(out, "; Graham's bound of the same DAG %s: the tied rule %s costs %.3g×",
                    report_dur(row->input_bound_ns * (double)row->input_graham_times_m /
                                   (double)row->input_bound_times_m,
                               b, sizeof b),
                    ompdag_tied_rule_name(row->input_tied_rule),
                    (double)row->input_bound_times_m / (double)row->input_graham_times_m);
        fputc('\n', out);
        if (row->input_root_creation[0])
            fprintf(out, "    for this input: %s\n", row->input_root_creation);
    } else if (row->input_why)
        fprintf(out, "    for this input: no bound recorded: %s\n", row->input_why);
    if (row->observed_max_ns >= 0 && row->bound_ns >= 0) {
        fprintf(out, "    observed max %s over %" PRId64 " clean run(s)",
                report_dur(row->observed_max_ns, a, sizeof a), row->runs - row->runs_interfered);
        if (row->team_size_recorded)
            fprintf(out, " of %d thread(s)", row->m);
        else
            fputs(" (team size not recorded)", out);
        if (row->observed_region_max_ns >= 0 && row->observed_region_max_ns != row->observed_max_ns)
            fprintf(out, " (task system; whole region with fork/join %s)",
                    report_dur(row->observed_region_max_ns, b, sizeof b));
        fprintf(out, "; bound / observed = %.3g",
                row->observed_max_ns > 0 ? row->bound_ns / row->observed_max_ns : INFINITY);
        if (row->input_bound_ns >= 0 && row->observed_max_ns > 0)
            fprintf(out, ", for this input %.3g", row->input_bound_ns / row->observed_max_ns);
        fputc('\n', out);
    } else if (row->team_size_recorded && row->observation_count) {
        fprintf(out, "    no clean run of %d thread(s): nothing observed to compare with\n",
                row->m);
    }
    if (row->observation_count && row->team_size_recorded) {
        fputs("    ", out);
        report_observations_line(out, row);
        fputc('\n', out);
    }
    if (row->runs_interfered > 0)
        fprintf(out,
                "    %" PRId64 " interfered run(s) (threads preempted or migrated), max %s: "
                "not compared with the bound\n",
                row->runs_interfered, report_dur(row->observed_interfered_max_ns, a, sizeof a));
    report_breakdown_text(out, row);
    if (row->unmeasured_reason) fprintf(out, "    UNMEASURED: %s\n", row->unmeasured_reason);
    if (row->verdict == OMPDAG_VERDICT_REFUTED && !row->refuted_by_region)
        fprintf(out,
                "    REFUTED: a clean run took %s, longer than the bound %s; the bound does "
                "not hold for this program (a cost the model misses, or WCETs too low)\n",
                report_dur(row->observed_max_ns, a, sizeof a),
                report_dur(row->bound_ns, b, sizeof b));
    else if (row->verdict == OMPDAG_VERDICT_REFUTED)
        fprintf(out,
                "    REFUTED: a clean run of the whole region took %s, longer than its bound "
                "%s; fork/join cost more than the traces measured\n",
                report_dur(row->observed_region_max_ns, a, sizeof a),
                report_dur(row->region_bound_ns, b, sizeof b));
    if (row->unsafe_reason)
        fprintf(out, "    UNSAFE: %s; this bound proves nothing\n", row->unsafe_reason);
    if (row->depend_pairs >= 0)
        fprintf(out,
                "    runtime dependence order: %" PRId64 " enforced pair(s), %" PRId64
                " disagreement(s) with the D-edges, %" PRId64 " extra D-edge(s) (safe)\n",
                row->depend_pairs, row->depend_disagreements, row->depend_extra);
    text_deadline(out, row);
    text_flow(out, g, r->results[i]);
}

/* " (T tasks, N nodes, total WCET W unit)", with the unfolded size of a
 * compact graph (docs/compact.md). */
static void text_size(FILE *out, const ompdag_condag *g, const ompdag_report_row *row)
{
    int64_t total = ompdag_condag_total_wcet(g);
    fprintf(out, " (%d tasks, %d nodes", row->tasks, row->nodes);
    if (ompdag_compact_is_compact(g)) {
        uint64_t n = ompdag_compact_expanded_node_count(g);
        if (n == OMPDAG_COMPACT_MANY)
            fprintf(out, "; compact: 2^64 or more nodes unfolded");
        else
            fprintf(out, "; compact: %" PRIu64 " nodes unfolded", n);
        if (!ompdag_compact_expanded_total(g, 0, 0, &total)) {
            fprintf(out, ", total WCET overflows int64)\n");
            return;
        }
    }
    fprintf(out, ", total WCET %" PRId64 " %s)\n", total, ompdag_condag_time_unit(g));
}

ompdag_status report_write_text(const ompdag_report *r, FILE *out, ompdag_error *err)
{
    size_t pass = 0, fail = 0, none = 0, regions = 0, refuted = 0, unsafe = 0, unmeasured = 0;
    for (size_t i = 0; i < r->n; ++i) {
        const ompdag_report_row *row = &r->rows[i];
        const ompdag_condag *g = ompdag_condag_set_graph(r->set, row->graph);
        if (i == 0 || r->rows[i - 1].graph != row->graph) {
            ++regions;
            fprintf(out, "%s%s", i ? "\n" : "", row->function);
            if (row->loc.file) fprintf(out, " — region %s:%d", row->loc.file, row->loc.line);
            text_size(out, g, row);
            char covers[512];
            fprintf(out, "  covers: %s\n", report_covers(g, covers, sizeof covers));
            size_t runs = 0, truns = 0;
            report_observed_max(g, "observed_response_ns", &runs);
            report_observed_max(g, "observed_task_response_ns", &truns);
            if (runs || truns)
                fprintf(out, "  observed: %zu run(s) of the region\n", runs > truns ? runs : truns);
        }
        text_row(out, r, i);
        pass += row->verdict == OMPDAG_VERDICT_PASS;
        fail += row->verdict == OMPDAG_VERDICT_FAIL;
        none += row->verdict == OMPDAG_VERDICT_NO_DEADLINE;
        refuted += row->verdict == OMPDAG_VERDICT_REFUTED;
        unsafe += row->verdict == OMPDAG_VERDICT_UNSAFE;
        unmeasured += row->verdict == OMPDAG_VERDICT_UNMEASURED;
        if (i + 1 == r->n || r->rows[i + 1].graph != row->graph) {
            text_assumptions(out, r, g);
            text_nodes(out, g);
            report_advice_text(r, row->graph, out);
        }
    }
    fprintf(out, "\n%zu region(s), %zu check(s): %zu pass, %zu fail, %zu without deadline", regions,
            r->n, pass, fail, none);
    if (refuted || unsafe)
        fprintf(out, ", %zu refuted by measurements, %zu unsafe", refuted, unsafe);
    if (unmeasured) fprintf(out, ", %zu unmeasured (not annotated)", unmeasured);
    fputc('\n', out);
    return ferror(out) ? ompdag_error_set(err, OMPDAG_ERR_IO, "write error") : OMPDAG_OK;
}

/* ---- JSON ------------------------------------------------------------------ */

static json_t *loc_json(ompdag_loc loc)
{
    if (!loc.file && !loc.line) return json_null();
    return json_pack("{s:s?,s:i,s:i}", "file", loc.file, "line", (json_int_t)loc.line, "col",
                     (json_int_t)loc.col);
}

/* A figure, or null where it is unknown (negative). */
static json_t *real_or_null(double v)
{
    return v < 0 ? json_null() : json_real(v);
}

static json_t *flow_json(const ompdag_condag *g, const ompdag_rta_result *res)
{
    char a[512], br[32];
    json_t *choices = json_array(), *path = json_array();
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        int32_t s = ompdag_rta_result_choice(res, v);
        if (s < 0) continue;
        json_t *c = json_pack("{s:s,s:s,s:s,s:s}", "node", ompdag_condag_node_id(g, v), "at",
                              ompdag_condag_node_place(g, v, a, sizeof a), "takes",
                              report_branch_name(g, v, s, br, sizeof br), "successor",
                              ompdag_condag_node_id(g, s));
        json_object_set_new(c, "successor_at",
                            json_string(ompdag_condag_node_place(g, s, a, sizeof a)));
        if (ompdag_condag_node_label(g, s))
            json_object_set_new(c, "label", json_string(ompdag_condag_node_label(g, s)));
        int64_t lo, hi;
        if (ompdag_rta_result_loop_iterations(res, v, &lo, &hi)) /* a compact loop's count */
            json_object_set_new(c, "iterations",
                                json_pack("{s:I,s:I,s:I}", "min", (json_int_t)lo, "max",
                                          (json_int_t)hi, "at_most",
                                          (json_int_t)ompdag_compact_loop_repeat(g, v)));
        json_array_append_new(choices, c);
    }
    int32_t n;
    const int32_t *p = ompdag_rta_result_critical_path(res, &n);
    for (int32_t i = 0; i < n; ++i)
        json_array_append_new(path,
                              json_pack("{s:s,s:s}", "node", ompdag_condag_node_id(g, p[i]), "at",
                                        ompdag_condag_node_place(g, p[i], a, sizeof a)));
    json_t *flow = json_pack("{s:o,s:o}", "choices", choices, "critical_path", path);
    const int32_t *pn;
    const ompdag_path_piece *pc = ompdag_rta_result_path_pieces(res, &n, &pn);
    if (pc) { /* compact loops in runs: critical_path is a prefix, the runs are whole */
        json_t *runs = json_array();
        for (int32_t k = 0; k < n; ++k) { /* pre-order: a group repeats the next pieces */
            if (pc[k].at < 0) {
                json_array_append_new(runs, json_pack("{s:I,s:I}", "repeat_next_pieces",
                                                      (json_int_t)pc[k].len, "times",
                                                      (json_int_t)pc[k].times));
                continue;
            }
            json_t *nodes = json_array();
            for (int32_t a2 = 0; a2 < pc[k].len; ++a2)
                json_array_append_new(nodes,
                                      json_string(ompdag_condag_node_id(g, pn[pc[k].at + a2])));
            json_array_append_new(
                runs, json_pack("{s:o,s:I}", "nodes", nodes, "times", (json_int_t)pc[k].times));
        }
        json_object_set_new(flow, "critical_path_runs", runs);
    }
    if (report_loop_path_missing(g, res, a, sizeof a)) /* vol and len only */
        json_object_set_new(flow, "not_computed", json_string(a));
    return flow;
}

static json_t *assumptions_json(const ompdag_report *r, const ompdag_condag *g,
                                const ompdag_report_row *row)
{
    int32_t m = row->m;
    char a[512];
    json_t *tied = json_array();
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T &&
            json_is_false(json_object_get(ompdag_condag_extra(g, v), "untied")))
            json_array_append_new(tied, json_string(ompdag_condag_node_place(g, v, a, sizeof a)));
    json_t *wm = json_object_get(ompdag_condag_extra(g, -1), "wcet_method");
    json_t *ro = json_object_get(ompdag_condag_extra(g, -1), "runtime_overheads");
    return json_pack("{s:i,s:s,s:b,s:o,s:O,s:O,s:I,s:s}", "m", (json_int_t)m, "scheduling",
                     row->tied_rule == OMPDAG_TIED_NONE
                         ? "work-conserving, untied tasks"
                         : "tied tasks under OpenMP's task scheduling constraint (tied_rule)",
                     "untied", json_array_size(tied) == 0, "tied_tasks", tied, "wcet_method",
                     wm ? wm : json_null(), "runtime_overheads", ro ? ro : json_null(),
                     "migration_overhead", (json_int_t)r->migration_overhead, "migration_model",
                     r->migration_model == OMPDAG_MIGRATION_BFS ? "bfs" : "wfs");
}

/* One object per team size seen: {"threads" (null: not recorded), "runs",
 * "clean", "interfered", "max_ns", "region_max_ns", "interfered_max_ns"}. */
static json_t *observations_json(const ompdag_report_row *row)
{
    json_t *arr = json_array();
    for (size_t k = 0; k < row->observation_count; ++k) {
        const ompdag_report_observation *x = &row->observations[k];
        json_t *o = json_object();
        json_object_set_new(o, "threads", x->threads ? json_integer(x->threads) : json_null());
        json_object_set_new(o, "runs", json_integer(x->runs));
        json_object_set_new(o, "clean", json_integer(x->clean));
        json_object_set_new(o, "interfered", json_integer(x->interfered));
        json_object_set_new(o, "max_ns", real_or_null(x->max_ns));
        json_object_set_new(o, "region_max_ns", real_or_null(x->region_max_ns));
        json_object_set_new(o, "interfered_max_ns", real_or_null(x->interfered_max_ns));
        json_array_append_new(arr, o);
    }
    return arr;
}

/* A figure, or null when it is not known (-1). */
static json_t *int_or_null(int64_t v)
{
    return v < 0 ? json_null() : json_integer(v);
}

/* "breakdown" of a row (report_breakdown.c, docs/report.md). */
static json_t *breakdown_json(const ompdag_report_row *row)
{
    const ompdag_report_breakdown *b = &row->breakdown;
    json_t *o = json_object(), *outl = json_array(), *fl = json_object(), *fa = json_object();
    for (int32_t k = 0; k < b->outlier_count; ++k)
        json_array_append_new(outl,
                              json_pack("{s:s,s:f,s:f,s:f}", "place", b->outliers[k].place,
                                        "max_ns", b->outliers[k].max_ns, "median_ns",
                                        b->outliers[k].median_ns, "ratio", b->outliers[k].ratio));
    json_object_set_new(o, "flow_tasks", int_or_null(b->flow_tasks));
    json_object_set_new(o, "observed_tasks", int_or_null(b->observed_tasks));
    json_object_set_new(o, "vol_ns", real_or_null(b->vol_ns));
    json_object_set_new(o, "observed_work_ns", real_or_null(b->observed_work_ns));
    json_object_set_new(o, "delay_ns", real_or_null(b->delay_ns));
    json_object_set_new(o, "delay_share", real_or_null(b->delay_share));
    json_object_set_new(o, "formation_ns", real_or_null(b->formation_ns));
    json_object_set_new(o, "delays_folded", json_boolean(b->delays_folded));
    json_object_set_new(o, "margin_pct", real_or_null(b->margin_pct));
    json_object_set_new(o, "outliers", outl);
    json_object_set_new(fl, "runs", json_integer(b->floor_runs));
    json_object_set_new(fl, "min", real_or_null(b->floor_min));
    json_object_set_new(fl, "median", real_or_null(b->floor_median));
    json_object_set_new(fl, "max", real_or_null(b->floor_max));
    json_object_set_new(fl, "below_one", json_integer(b->floor_below_one));
    json_object_set_new(o, "floor", fl);
    json_object_set_new(o, "bound_over_observed", real_or_null(b->bound_over_observed));
    json_object_set_new(fa, "graph", real_or_null(b->factor_graph));
    json_object_set_new(fa, "wcets", real_or_null(b->factor_wcets));
    json_object_set_new(fa, "delays", real_or_null(b->factor_delays));
    json_object_set_new(fa, "margin", real_or_null(b->factor_margin));
    json_object_set_new(fa, "floor", real_or_null(b->floor_median));
    json_object_set_new(o, "factors", fa);
    json_object_set_new(o, "largest", b->largest ? json_string(b->largest) : json_null());
    return o;
}

/* The bound for the input the traces ran (report_input.c), on the row. */
static void input_json(json_t *o, const ompdag_report_row *row)
{
    json_object_set_new(o, "input_bound_ns", real_or_null(row->input_bound_ns));
    json_object_set_new(o, "input_bound_times_m",
                        row->input_bound_times_m >= 0 ? json_integer(row->input_bound_times_m)
                                                      : json_null());
    if (row->input_bound_times_m >= 0)
        json_object_set_new(o, "input_tied_rule",
                            json_string(ompdag_tied_rule_name(row->input_tied_rule)));
    if (row->input_root_creation[0])
        json_object_set_new(o, "input_root_creation", json_string(row->input_root_creation));
    json_object_set_new(o, "input_claim",
                        row->input_claim ? json_string(row->input_claim) : json_null());
    json_object_set_new(o, "input_why", row->input_why ? json_string(row->input_why) : json_null());
    json_object_set_new(o, "input_delay_model",
                        row->input_delay_model ? json_string(row->input_delay_model) : json_null());
    json_object_set_new(o, "input_graham_times_m",
                        row->input_graham_times_m >= 0 ? json_integer(row->input_graham_times_m)
                                                       : json_null());
    json_object_set_new(o, "judged_for_input", json_boolean(row->judged_for_input));
    json_object_set_new(o, "refuted_input", json_boolean(row->refuted_input));
    json_object_set_new(o, "input_bound_over_observed",
                        row->observed_max_ns > 0 && row->input_bound_ns >= 0
                            ? json_real(row->input_bound_ns / row->observed_max_ns)
                            : json_null());
}

json_t *report_row_json(const ompdag_report *r, size_t i)
{
    const ompdag_report_row *row = &r->rows[i];
    const ompdag_condag *g = ompdag_condag_set_graph(r->set, row->graph);
    int64_t u = ompdag_time_unit_ns(ompdag_condag_time_unit(g));
    json_t *key = json_object_get(ompdag_condag_extra(g, -1), "region_key");
    char dl[64];
    json_t *o = json_object();
    json_object_set_new(o, "graph", json_integer((json_int_t)row->graph));
    json_object_set_new(o, "function", json_string(row->function));
    if (ompdag_condag_name(g)) json_object_set_new(o, "name", json_string(ompdag_condag_name(g)));
    json_object_set_new(o, "loc", loc_json(row->loc));
    json_object_set(o, "region_key", key ? key : json_null());
    json_object_set_new(o, "m", json_integer(row->m));
    json_object_set_new(o, "time_unit", json_string(ompdag_condag_time_unit(g)));
    json_object_set_new(o, "bound", json_real(row->bound));
    json_object_set_new(o, "bound_times_m", json_integer(row->bound_times_m));
    json_object_set_new(o, "bound_ns", real_or_null(row->bound_ns));
    json_object_set_new(o, "untied_bound_times_m", json_integer(row->untied_bound_times_m));
    json_object_set_new(o, "untied_bound_ns", real_or_null(row->untied_bound_ns));
    json_object_set_new(o, "tied_rule", json_string(ompdag_tied_rule_name(row->tied_rule)));
    if (row->depend) /* §6: the one case where the figure may be sound but not exact */
        json_object_set_new(o, "exact", json_boolean(row->exact));
    json_object_set_new(o, "vol", json_integer(row->vol));
    json_object_set_new(o, "len", json_integer(row->len));
    json_object_set_new(o, "vol_ns", u ? json_integer(row->vol * u) : json_null());
    json_object_set_new(o, "len_ns", u ? json_integer(row->len * u) : json_null());
    json_object_set_new(o, "tasks", json_integer(row->tasks));
    json_object_set_new(o, "nodes", json_integer(row->nodes));
    json_object_set_new(o, "fork_join_ns",
                        row->fork_join_ns >= 0 ? json_integer(row->fork_join_ns) : json_null());
    json_object_set_new(o, "region_bound_ns", real_or_null(row->region_bound_ns));
    json_object_set_new(o, "verdict_bound_ns", real_or_null(row->verdict_bound_ns));
    json_object_set_new(o, "wcets", json_string(report_wcet_source(row)));
    json_object_set_new(o, "unmeasured",
                        row->unmeasured_reason ? json_string(row->unmeasured_reason) : json_null());
    json_object_set_new(o, "observed_max_ns", real_or_null(row->observed_max_ns));
    json_object_set_new(o, "observed_region_max_ns", real_or_null(row->observed_region_max_ns));
    /* the runs compared with this row: its team size m, or an unrecorded one
     * ("observations" lists every team size) */
    json_object_set_new(o, "observed_runs", json_integer(row->runs));
    json_object_set_new(o, "runs_interfered", json_integer(row->runs_interfered));
    json_object_set_new(o, "observed_interfered_max_ns",
                        real_or_null(row->observed_interfered_max_ns));
    json_object_set_new(o, "team_size_recorded", json_boolean(row->team_size_recorded));
    json_object_set_new(o, "observations", observations_json(row));
    json_object_set_new(o, "refuted", json_boolean(row->verdict == OMPDAG_VERDICT_REFUTED));
    json_object_set_new(o, "unsafe",
                        row->unsafe_reason ? json_string(row->unsafe_reason) : json_null());
    if (row->depend_pairs >= 0)
        json_object_set_new(o, "depend_check",
                            json_pack("{s:I,s:I,s:I,s:O}", "runtime_pairs",
                                      (json_int_t)row->depend_pairs, "disagreements",
                                      (json_int_t)row->depend_disagreements, "extra_dedges",
                                      (json_int_t)row->depend_extra, "list",
                                      report_depend_list(g) ? report_depend_list(g) : json_null()));
    input_json(o, row);
    json_object_set_new(o, "bound_over_observed",
                        row->observed_max_ns > 0 && row->bound_ns >= 0
                            ? json_real(row->bound_ns / row->observed_max_ns)
                            : json_null());
    bool has = row->deadline_ns >= 0 && row->deadline_from;
    json_object_set_new(o, "deadline_ns", has ? json_integer(row->deadline_ns) : json_null());
    json_object_set_new(
        o, "deadline",
        has ? json_string(ompdag_duration_format((double)row->deadline_ns, dl, sizeof dl))
            : json_null());
    json_object_set_new(o, "deadline_from", has ? json_string(row->deadline_from) : json_null());
    json_object_set_new(o, "slack_ns", has ? json_real(row->slack_ns) : json_null());
    json_object_set_new(o, "verdict", json_string(ompdag_verdict_name(row->verdict)));
    if (row->breakdown.has_floor) json_object_set_new(o, "breakdown", breakdown_json(row));
    json_object_set_new(o, "worst_flow", flow_json(g, r->results[i]));
    json_object_set_new(o, "assumptions", assumptions_json(r, g, row));
    char covers[512];
    json_t *input = json_object_get(ompdag_condag_extra(g, -1), "assumptions");
    json_object_set_new(o, "covers", json_string(report_covers(g, covers, sizeof covers)));
    json_object_set_new(o, "input_assumptions",
                        json_is_object(input) ? json_deep_copy(input) : json_null());
    return o;
}

/* Streaming JSON: each region's object is built by jansson, its node list
 * (most of the volume: one line per node) is written directly, so 10^4
 * regions of 10^6 nodes stay fast and need one region in memory at a time. */
static void put_json_scalar(FILE *out, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_STRING:
        ompdag_json_write_string(out, json_string_value(v));
        break;
    case JSON_INTEGER:
        fprintf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        fprintf(out, "%.17g", json_real_value(v));
        break;
    case JSON_TRUE:
        fputs("true", out);
        break;
    case JSON_FALSE:
        fputs("false", out);
        break;
    default:
        fputs("null", out);
    }
}

static void write_node_wcets(FILE *out, const ompdag_condag *g)
{
    static const char *keys[] = {"samples",    "observed_max", "observed_median", "estimator",
                                 "margin_pct", "unobserved",   "untied"};
    char a[512];
    int32_t n = ompdag_condag_node_count(g);
    fputs("      \"node_wcets\": [", out);
    for (int32_t v = 0; v < n; ++v) {
        fputs(v ? ",\n        {\"id\": " : "\n        {\"id\": ", out);
        ompdag_json_write_string(out, ompdag_condag_node_id(g, v));
        fprintf(out, ", \"kind\": \"%c\", \"task\": ", (char)ompdag_condag_node_kind(g, v));
        ompdag_json_write_string(out, ompdag_condag_task_id(g, ompdag_condag_node_task(g, v)));
        fputs(", \"at\": ", out);
        ompdag_json_write_string(out, ompdag_condag_node_place(g, v, a, sizeof a));
        fprintf(out, ", \"wcet\": %" PRId64, ompdag_condag_node_wcet(g, v));
        if (ompdag_condag_node_label(g, v)) {
            fputs(", \"label\": ", out);
            ompdag_json_write_string(out, ompdag_condag_node_label(g, v));
        }
        json_t *x = ompdag_condag_extra(g, v);
        for (size_t k = 0; x && k < sizeof keys / sizeof keys[0]; ++k) {
            json_t *val = json_object_get(x, keys[k]);
            if (!val || json_is_object(val) || json_is_array(val)) continue;
            fprintf(out, ", \"%s\": ", keys[k]);
            put_json_scalar(out, val);
        }
        json_t *split = json_object_get(x, "offload");
        if (json_is_array(split)) { /* an offloaded loop's split by device */
            fputs(", \"offload\": ", out);
            json_dumpf(split, out, JSON_COMPACT);
        }
        fputc('}', out);
    }
    fputs(n ? "\n      ]\n" : "]\n", out);
}

static ompdag_status report_write_json(const ompdag_report *r, FILE *out, ompdag_error *err)
{
    size_t count[OMPDAG_VERDICT_UNMEASURED + 1] = {0};
    for (size_t i = 0; i < r->n; ++i)
        ++count[r->rows[i].verdict];
    fputs("{\n  \"format\": \"ompdag-report\",\n  \"version\": 1,\n  \"input\": ", out);
    ompdag_json_write_string(out, r->input_name);
    fprintf(out,
            ",\n  \"summary\": {\"pass\": %zu, \"fail\": %zu, \"no_deadline\": %zu, "
            "\"refuted\": %zu, \"unsafe\": %zu, \"unmeasured\": %zu},\n  \"regions\": [",
            count[OMPDAG_VERDICT_PASS], count[OMPDAG_VERDICT_FAIL],
            count[OMPDAG_VERDICT_NO_DEADLINE], count[OMPDAG_VERDICT_REFUTED],
            count[OMPDAG_VERDICT_UNSAFE], count[OMPDAG_VERDICT_UNMEASURED]);
    for (size_t i = 0; i < r->n; ++i) {
        json_t *o = report_row_json(r, i);
        if (o) report_advice_json(r, r->rows[i].graph, o);
        char *text = o ? json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) : NULL;
        json_decref(o);
        char *close = text ? strrchr(text, '\n') : NULL; /* before the final '}' */
        if (!close) {
            free(text);
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        }
        fputs(i ? ",\n    " : "\n    ", out);
        for (char *p = text; p < close; ++p) {
            fputc(*p, out);
            if (*p == '\n') fputs("    ", out);
        }
        free(text);
        fputs(",\n", out);
        write_node_wcets(out, ompdag_condag_set_graph(r->set, r->rows[i].graph));
        fputs("    }", out);
    }
    fputs(r->n ? "\n  ]\n}\n" : "]\n}\n", out);
    return ferror(out) ? ompdag_error_set(err, OMPDAG_ERR_IO, "write error") : OMPDAG_OK;
}

/* ---- CSV (RFC 4180 quoting) ---------------------------------------------- */

static void csv_field(FILE *out, const char *s, bool last)
{
    if (s && strpbrk(s, ",\"\r\n")) {
        fputc('"', out);
        for (; *s; ++s) {
            if (*s == '"') fputc('"', out);
            fputc(*s, out);
        }
        fputc('"', out);
    } else if (s) {
        fputs(s, out);
    }
    fputs(last ? "\r\n" : ",", out);
}

static void csv_num(FILE *out, double v, bool present, bool last)
{
    char buf[64] = "";
    if (present) snprintf(buf, sizeof buf, "%.17g", v);
    csv_field(out, buf, last);
}

static void csv_int(FILE *out, int64_t v, bool present)
{
    char buf[32] = "";
    if (present) snprintf(buf, sizeof buf, "%" PRId64, v);
    csv_field(out, buf, false);
}

ompdag_status report_write_csv(const ompdag_report *r, FILE *out, ompdag_error *err)
{
    fputs("function,name,file,line,m,time_unit,bound,bound_times_m,bound_ns,vol,len,tasks,nodes,"
          "observed_max_ns,observed_region_max_ns,bound_over_observed,deadline_ns,slack_ns,verdict,"
          "tied_tasks,"
          "runs,runs_interfered,observed_interfered_max_ns,unsafe,untied_bound_times_m,"
          "untied_bound_ns,tied_rule,fork_join_ns,region_bound_ns,verdict_bound_ns,unmeasured,"
          "wcets,team_size_recorded\r\n",
          out);
    for (size_t i = 0; i < r->n; ++i) {
        const ompdag_report_row *row = &r->rows[i];
        const ompdag_condag *g = ompdag_condag_set_graph(r->set, row->graph);
        bool has = row->deadline_ns >= 0 && row->deadline_from;
        csv_field(out, row->function, false);
        csv_field(out, ompdag_condag_name(g), false);
        csv_field(out, row->loc.file, false);
        csv_int(out, row->loc.line, row->loc.line > 0);
        csv_int(out, row->m, true);
        csv_field(out, ompdag_condag_time_unit(g), false);
        csv_num(out, row->bound, true, false);
        csv_int(out, row->bound_times_m, true);
        csv_num(out, row->bound_ns, row->bound_ns >= 0, false);
        csv_int(out, row->vol, true);
        csv_int(out, row->len, true);
        csv_int(out, row->tasks, true);
        csv_int(out, row->nodes, true);
        csv_num(out, row->observed_max_ns, row->observed_max_ns >= 0, false);
        csv_num(out, row->observed_region_max_ns, row->observed_region_max_ns >= 0, false);
        csv_num(out, row->observed_max_ns > 0 ? row->bound_ns / row->observed_max_ns : 0,
                row->observed_max_ns > 0 && row->bound_ns >= 0, false);
        csv_int(out, row->deadline_ns, has);
        csv_num(out, row->slack_ns, has, false);
        csv_field(out, ompdag_verdict_name(row->verdict), false);
        char t[16];
        snprintf(t, sizeof t, "%d", row->tied_tasks);
        csv_field(out, t, false);
        csv_int(out, row->runs, true);
        csv_int(out, row->runs_interfered, true);
        csv_num(out, row->observed_interfered_max_ns, row->observed_interfered_max_ns >= 0, false);
        csv_field(out, row->unsafe_reason, false);
        csv_int(out, row->untied_bound_times_m, true);
        csv_num(out, row->untied_bound_ns, row->untied_bound_ns >= 0, false);
        csv_field(out, ompdag_tied_rule_name(row->tied_rule), false);
        csv_int(out, row->fork_join_ns, row->fork_join_ns >= 0);
        csv_num(out, row->region_bound_ns, row->region_bound_ns >= 0, false);
        csv_num(out, row->verdict_bound_ns, row->verdict_bound_ns >= 0, false);
        csv_field(out, row->unmeasured_reason, false);
        csv_field(out, report_wcet_source(row), false);
        csv_field(out, row->team_size_recorded ? "true" : "false", true);
    }
    return ferror(out) ? ompdag_error_set(err, OMPDAG_ERR_IO, "write error") : OMPDAG_OK;
}

/* ---- dispatch ---------------------------------------------------------------- */

ompdag_status ompdag_report_write(const ompdag_report *r, ompdag_report_format fmt, FILE *out,
                                  ompdag_svg_renderer render, void *render_ctx, ompdag_error *err)
{
    if (!r || !out) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "report: nothing to write");
    switch (fmt) {
    case OMPDAG_REPORT_TEXT:
        return report_write_text(r, out, err);
    case OMPDAG_REPORT_CSV:
        return report_write_csv(r, out, err);
    case OMPDAG_REPORT_SARIF:
        return report_write_sarif(r, out, err);
    case OMPDAG_REPORT_HTML:
        return report_write_html(r, out, render, render_ctx, err);
    case OMPDAG_REPORT_JSON:
        return report_write_json(r, out, err);
    }
    return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "report: unknown format %d", (int)fmt);
}
