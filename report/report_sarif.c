/*
 * report/report_sarif.c — SARIF 2.1.0 (OASIS Static Analysis Results
 * Interchange Format, §3.13 sarifLog, §3.14 run, §3.19 toolComponent, §3.27
 * result, §3.28 location, §3.30 region) so code-scanning tools show deadline
 * violations in place.  Results:
 *   ompdag-deadline   (error)    a region whose bound exceeds its deadline, at the region;
 *                                kind "pass" (level none) for one within its deadline, so
 *                                every verdict against a deadline carries its bound, deadline
 *                                and slack (SARIF §3.27.9 result.kind)
 *   ompdag-tied-task  (warning)  a tied task: the bound is the one that holds under the task
 *                                scheduling constraint, `untied` would tighten it, at the task
 *   ompdag-unobserved (note)     a node whose WCET no run observed (annotate --unobserved zero)
 *   ompdag-too-fine   (warning)  tasks finer than the advisor's grain minimum, at the directive
 *   ompdag-refuted, ompdag-unsafe, ompdag-unmeasured (error)  a bound that measurements
 *                                refute, that proves nothing, or that nothing measured backs
 */
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/version.h"
#include "report_internal.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"

static const struct {
    const char *id, *name, *level, *text;
} rules[] = {
    {"ompdag-deadline", "DeadlineExceeded", "error",
     "The response-time bound of an OpenMP task region exceeds its deadline."},
    {"ompdag-tied-task", "TiedTask", "warning",
     "A tied task: Graham's bound (Theorem 1 of seed 004) needs untied tasks, so the region is "
     "judged by the bound that holds under OpenMP's task scheduling constraint; `untied` on "
     "the directive may tighten it."},
    {"ompdag-unobserved", "UnobservedNode", "note",
     "No profiling run reached this code; its WCET was taken as 0."},
    {"ompdag-too-fine", "TaskTooFine", "warning",
     "Tasks below the grain the advisor predicts: their runtime overhead outweighs their work."},
    {"ompdag-refuted", "BoundRefuted", "error",
     "A clean measured run of the region took longer than its response-time bound."},
    {"ompdag-unsafe", "UnsafeBound", "error",
     "The bound proves nothing: annotate dropped segments or was run with an escape hatch "
     "(--allow-unmapped, --unobserved zero, --no-overheads), or the runtime's dependence order "
     "disagreed with the graph."},
    {"ompdag-depend-order", "DependOrderDisagrees", "error",
     "The OpenMP runtime's dependence order disagrees with the graph's D-edges (annotate's "
     "depend_check): the model misses an order the runtime imposes, or assumed one it did "
     "not give."},
    {"ompdag-depend-extra", "DependExtraEdge", "note",
     "A D-edge the runtime did not need: the aliasing rule merged storage the runtime keeps "
     "apart (an extra edge only raises the bound)."},
    {"ompdag-unmeasured", "UnmeasuredWcets", "error",
     "Nothing measured backs this bound: the graph was never annotated, or its annotation "
     "mapped no segment or saw no run of the region."},
};
enum {
    RULE_DEADLINE,
    RULE_TIED,
    RULE_UNOBSERVED,
    RULE_TOO_FINE,
    RULE_REFUTED,
    RULE_UNSAFE,
    RULE_DEPEND,
    RULE_DEPEND_EXTRA,
    RULE_UNMEASURED
};

/* A relative path stays a relative URI reference; an absolute one becomes a
 * file:// URI.  Characters outside RFC 3986's unreserved set and '/' are
 * percent-encoded. */
static json_t *uri_json(const char *path)
{
    size_t n = strlen(path);
    char *buf = malloc(3 * n + 8);
    if (!buf) return NULL;
    char *p = buf;
    if (path[0] == '/') p += sprintf(p, "file://");
    for (const unsigned char *s = (const unsigned char *)path; *s; ++s) {
        if (isalnum(*s) || strchr("-._~/", *s))
            *p++ = (char)*s;
        else
            p += sprintf(p, "%%%02X", *s);
    }
    *p = '\0';
    json_t *j = json_string(buf);
    free(buf);
    return j;
}

static json_t *location_json(ompdag_loc loc)
{
    json_t *region = json_pack("{s:i}", "startLine", (json_int_t)loc.line);
    if (loc.col > 0) json_object_set_new(region, "startColumn", json_integer(loc.col));
    return json_pack("[{s:{s:{s:o},s:o}}]", "physicalLocation", "artifactLocation", "uri",
                     uri_json(loc.file), "region", region);
}

static void add_result(json_t *results, int rule, ompdag_loc loc, const char *message,
                       json_t *properties)
{
    json_t *res = json_pack("{s:s,s:i,s:s,s:{s:s}}", "ruleId", rules[rule].id, "ruleIndex", rule,
                            "level", rules[rule].level, "message", "text", message);
    json_object_set_new(res, "locations",
                        loc.file && loc.line > 0 ? location_json(loc) : json_array());
    if (properties) json_object_set_new(res, "properties", properties);
    json_array_append_new(results, res);
}

static void add_too_fine(ompdag_loc loc, const char *message, json_t *properties, void *results)
{
    add_result(results, RULE_TOO_FINE, loc, message, properties);
}

/* A deadline verdict: error when the bound exceeds the deadline, a result of
 * kind "pass" otherwise; either way the bound that decides it (with fork/join
 * when measured) stands next to the deadline and the slack. */
static void add_deadline(json_t *results, const ompdag_report_row *row)
{
    char msg[1024], a[64], b[64], c[64];
    bool fail = row->verdict == OMPDAG_VERDICT_FAIL;
    snprintf(
        msg, sizeof msg, "%s: bound %s%s on %d threads %s deadline %s (%s), slack %s%s%s%s",
        row->function, ompdag_duration_format(row->verdict_bound_ns, a, sizeof a),
        row->region_bound_ns >= 0 ? " (whole region, with fork/join)" : "", row->m,
        fail ? "exceeds" : "within", ompdag_duration_format((double)row->deadline_ns, b, sizeof b),
        row->deadline_from, row->slack_ns < 0 ? "-" : "",
        ompdag_duration_format(row->slack_ns < 0 ? -row->slack_ns : row->slack_ns, c, sizeof c),
        row->wcets_given ? "; WCETs given in the file, not measured by ompdag" : "",
        fail ? " [ompdag-deadline]" : "");
    json_t *props = json_pack(
        "{s:i,s:I,s:f,s:f,s:I,s:f,s:s,s:I,s:s}", "m", (json_int_t)row->m, "bound_times_m",
        (json_int_t)row->bound_times_m, "bound_ns", row->bound_ns, "verdict_bound_ns",
        row->verdict_bound_ns, "deadline_ns", (json_int_t)row->deadline_ns, "slack_ns",
        row->slack_ns, "tied_rule", ompdag_tied_rule_name(row->tied_rule), "untied_bound_times_m",
        (json_int_t)row->untied_bound_times_m, "verdict", ompdag_verdict_name(row->verdict));
    json_object_set_new(props, "wcets", json_string(report_wcet_source(row)));
    json_object_set_new(props, "region_bound_ns",
                        row->region_bound_ns >= 0 ? json_real(row->region_bound_ns) : json_null());
    add_result(results, RULE_DEADLINE, row->loc, msg, props);
    if (!fail) { /* SARIF §3.27.9: a passed check is kind "pass" with level "none" */
        json_t *res = json_array_get(results, json_array_size(results) - 1);
        json_object_set_new(res, "kind", json_string("pass"));
        json_object_set_new(res, "level", json_string("none"));
    }
}

/* The tied-task finding: which rule the bound rests on, and what `untied`
 * would give (at the region's first m). */
static void tied_message(char *msg, size_t size, const ompdag_report_row *row, const char *place)
{
    char a[64];
    if (row->untied_bound_times_m < row->bound_times_m && row->untied_bound_ns >= 0)
        snprintf(msg, size,
                 "%s: the task at %s is tied; the bound that holds under the task scheduling "
                 "constraint is rule %s, and adding `untied` to this directive (every tied one "
                 "of the region) tightens the bound to %s on %d threads",
                 row->function, place, ompdag_tied_rule_name(row->tied_rule),
                 ompdag_duration_format(row->untied_bound_ns, a, sizeof a), row->m);
    else
        snprintf(msg, size,
                 "%s: the task at %s is tied; the bound holds under the task scheduling "
                 "constraint by rule %s",
                 row->function, place, ompdag_tied_rule_name(row->tied_rule));
}

ompdag_status report_write_sarif(const ompdag_report *r, FILE *out, ompdag_error *err)
{
    json_t *rule_arr = json_array(), *results = json_array();
    for (size_t k = 0; k < sizeof rules / sizeof rules[0]; ++k)
        json_array_append_new(rule_arr,
                              json_pack("{s:s,s:s,s:{s:s},s:{s:s}}", "id", rules[k].id, "name",
                                        rules[k].name, "shortDescription", "text", rules[k].text,
                                        "defaultConfiguration", "level", rules[k].level));
    char msg[1024], a[64], b[64], place[512];
    for (size_t i = 0; i < r->n; ++i) {
        const ompdag_report_row *row = &r->rows[i];
        const ompdag_condag *g = ompdag_condag_set_graph(r->set, row->graph);
        if (row->verdict == OMPDAG_VERDICT_FAIL || row->verdict == OMPDAG_VERDICT_PASS)
            add_deadline(results, row);
        if (row->verdict == OMPDAG_VERDICT_REFUTED) {
            /* the task system held and the whole region (fork/join) did not */
            bool whole = row->refuted_by_region;
            snprintf(
                msg, sizeof msg,
                "%s: a clean measured run took %s, longer than the %sbound %s on %d threads "
                "[ompdag-refuted]",
                row->function,
                ompdag_duration_format(whole ? row->observed_region_max_ns : row->observed_max_ns,
                                       a, sizeof a),
                whole ? "whole region's " : "",
                ompdag_duration_format(whole ? row->region_bound_ns : row->bound_ns, b, sizeof b),
                row->m);
            add_result(results, RULE_REFUTED, row->loc, msg,
                       json_pack("{s:i,s:I,s:f}", "m", (json_int_t)row->m, "bound_times_m",
                                 (json_int_t)row->bound_times_m, "observed_max_ns",
                                 row->observed_max_ns));
        }
        if (i > 0 && r->rows[i - 1].graph == row->graph)
            continue; /* node findings once per region */
        if (row->unsafe_reason) {
            snprintf(msg, sizeof msg, "%s: the bound is unsafe: %s [ompdag-unsafe]", row->function,
                     row->unsafe_reason);
            add_result(results, RULE_UNSAFE, row->loc, msg, NULL);
        }
        if (row->unmeasured_reason) {
            snprintf(msg, sizeof msg, "%s: unmeasured: %s [ompdag-unmeasured]", row->function,
                     row->unmeasured_reason);
            add_result(results, RULE_UNMEASURED, row->loc, msg, NULL);
        }
        size_t k;
        const json_t *d;
        json_array_foreach(report_depend_list(g), k, d)
        {
            bool bad = json_is_true(json_object_get(d, "unsafe"));
            const char *pred = json_string_value(json_object_get(d, "pred_node"));
            const char *succ = json_string_value(json_object_get(d, "succ_node"));
            int32_t v = ompdag_condag_find_node(g, succ);
            snprintf(msg, sizeof msg, "%s: %s [%s]", row->function,
                     json_string_value(json_object_get(d, "message")),
                     bad ? "ompdag-depend-order" : "ompdag-depend-extra");
            add_result(results, bad ? RULE_DEPEND : RULE_DEPEND_EXTRA,
                       v >= 0 ? ompdag_condag_node_loc(g, v) : row->loc, msg,
                       json_pack("{s:s,s:s}", "pred_node", pred, "succ_node", succ));
        }
        for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
            json_t *x = ompdag_condag_extra(g, v);
            if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T &&
                json_is_false(json_object_get(x, "untied"))) {
                tied_message(msg, sizeof msg, row,
                             ompdag_condag_node_place(g, v, place, sizeof place));
                add_result(results, RULE_TIED, ompdag_condag_node_loc(g, v), msg,
                           json_pack("{s:s,s:I,s:I}", "tied_rule",
                                     ompdag_tied_rule_name(row->tied_rule), "bound_times_m",
                                     (json_int_t)row->bound_times_m, "untied_bound_times_m",
                                     (json_int_t)row->untied_bound_times_m));
            }
            if (json_is_true(json_object_get(x, "unobserved"))) {
                snprintf(msg, sizeof msg,
                         "%s: node %s (%s) was never observed; its WCET is 0 in the bound",
                         row->function, ompdag_condag_node_id(g, v),
                         ompdag_condag_node_place(g, v, place, sizeof place));
                add_result(results, RULE_UNOBSERVED, ompdag_condag_node_loc(g, v), msg, NULL);
            }
        }
        report_advice_each_too_fine(r, row->graph, add_too_fine, results);
    }
    json_t *log = json_pack("{s:s,s:s,s:[{s:{s:{s:s,s:s,s:o}},s:o,s:[{s:b}]}]}", "$schema",
                            SARIF_SCHEMA, "version", "2.1.0", "runs", "tool", "driver", "name",
                            "ompdag", "version", OMPDAG_VERSION, "rules", rule_arr, "results",
                            results, "invocations", "executionSuccessful", 1);
    if (!log) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    int rc = json_dumpf(log, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(log);
    fputc('\n', out);
    return rc || ferror(out) ? ompdag_error_set(err, OMPDAG_ERR_IO, "write error") : OMPDAG_OK;
}
