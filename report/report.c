/*
 * report/report.c — the rows of a timing report: for every region (graph) and
 * thread count m, the exact bound of seed 004 (Alg1, Theorem 1:
 * m·R = max over flows e of vol(e) + (m−1)·len(e)), the observations the probe
 * recorded, and the deadline verdict.  Also durations and --deadline specs.
 *
 * Verdicts compare integers: pass iff bound_times_m · unit_ns <= deadline_ns · m
 * (128-bit products), so a bound equal to its deadline passes and no rounding
 * can flip a verdict.
 */
#include <ctype.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* ---- durations ------------------------------------------------------------- */

int64_t ompdag_time_unit_ns(const char *unit)
{
    if (!unit || !strcmp(unit, "ns")) return 1;
    if (!strcmp(unit, "us")) return 1000;
    if (!strcmp(unit, "ms")) return 1000000;
    if (!strcmp(unit, "s")) return 1000000000;
    return 0;
}

ompdag_status ompdag_duration_parse(const char *text, int64_t *ns, ompdag_error *err)
{
    const char *p = text ? text : "";
    unsigned __int128 whole = 0, frac = 0, frac_scale = 1;
    int digits = 0;
    for (; isdigit((unsigned char)*p); ++p, ++digits)
        if ((whole = whole * 10 + (unsigned)(*p - '0')) > (unsigned __int128)INT64_MAX)
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "duration '%s' is too large", text);
    if (*p == '.') {
        for (++p; isdigit((unsigned char)*p); ++p, ++digits) {
            if (frac_scale > (unsigned __int128)1000000000000000000ULL)
                return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                        "duration '%s' has too many decimals", text);
            frac = frac * 10 + (unsigned)(*p - '0');
            frac_scale *= 10;
        }
    }
    while (*p == ' ')
        ++p;
    int64_t unit = *p ? ompdag_time_unit_ns(p) : 0;
    if (!digits || !unit)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "bad duration '%s' (want a number and a unit: ns, us, ms, s; "
                                "e.g. 5ms or 10.7us)",
                                text ? text : "");
    unsigned __int128 f = frac * (unsigned)unit;
    if (f % frac_scale)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "duration '%s' is finer than 1 ns", text);
    unsigned __int128 total = whole * (unsigned)unit + f / frac_scale;
    if (total > (unsigned __int128)INT64_MAX)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "duration '%s' is too large", text);
    *ns = (int64_t)total;
    return OMPDAG_OK;
}

const char *ompdag_duration_format(double ns, char *buf, size_t size)
{
    static const struct {
        double scale;
        const char *name;
    } units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
    size_t u = 0;
    while (u + 1 < sizeof units / sizeof units[0] && fabs(ns) < units[u].scale * 0.9995)
        ++u;
    snprintf(buf, size, "%.3g %s", ns / units[u].scale, units[u].name);
    if (strchr(buf, 'e')) snprintf(buf, size, "%.0f %s", ns / units[u].scale, units[u].name);
    return buf;
}

/* ---- --deadline specs ------------------------------------------------------ */

ompdag_deadlines *ompdag_deadlines_create(void)
{
    return calloc(1, sizeof(ompdag_deadlines));
}

void ompdag_deadlines_destroy(ompdag_deadlines *d)
{
    if (!d) return;
    for (size_t i = 0; i < d->n; ++i)
        free(d->v[i].spec), free(d->v[i].function), free(d->v[i].file);
    free(d->v);
    free(d);
}

ompdag_status ompdag_deadlines_add(ompdag_deadlines *d, const char *spec, ompdag_error *err)
{
    const char *eq = spec ? strrchr(spec, '=') : NULL;
    if (!eq || eq == spec)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "bad --deadline '%s' (want FUNCTION=5ms or FILE:LINE=800us)",
                                spec ? spec : "");
    ompdag_deadline_entry e = {0};
    if (ompdag_duration_parse(eq + 1, &e.ns, err)) return err ? err->code : OMPDAG_ERR_ARGUMENT;
    size_t keylen = (size_t)(eq - spec);
    /* the LAST colon splits FILE:LINE, so a file name may contain ':'; a
     * qualified C++ name "ns::f" is a function */
    const char *colon = memrchr(spec, ':', keylen);
    if (colon && colon > spec && colon[-1] == ':' && colon + 1 < eq &&
        !strchr("+-0123456789", colon[1]))
        colon = NULL;
    if (colon) {
        char *end;
        long line = strtol(colon + 1, &end, 10);
        if (colon == spec || end != eq || line <= 0 || line > INT32_MAX)
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                    "bad --deadline '%s': FILE:LINE wants a positive line", spec);
        e.file = strndup(spec, (size_t)(colon - spec));
        e.line = (int32_t)line;
    } else {
        e.function = strndup(spec, keylen);
    }
    e.spec = strdup(spec);
    if (!e.spec || (!e.file && !e.function)) goto nomem;
    if (!ompdag_grow_array((void **)&d->v, sizeof *d->v, &d->cap, (int64_t)d->n + 1)) goto nomem;
    d->v[d->n++] = e;
    return OMPDAG_OK;
nomem:
    free(e.spec), free(e.file), free(e.function);
    return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
}

/* "dir/fib.c" and "fib.c" name the same file: one is a suffix of the other at
 * a path-component boundary. */
bool report_same_file(const char *a, const char *b)
{
    if (!a || !b) return false;
    size_t la = strlen(a), lb = strlen(b);
    if (la < lb) {
        const char *t = a;
        a = b, b = t;
        size_t tl = la;
        la = lb, lb = tl;
    }
    return !strcmp(a + la - lb, b) && (la == lb || a[la - lb - 1] == '/');
}

/* The region's file:line: its "region_key" when present, else its loc. */
bool report_region_place(const ompdag_condag *g, char *file, size_t size, int32_t *line)
{
    json_t *key = json_object_get(ompdag_condag_extra(g, -1), "region_key");
    const char *k = json_string_value(key);
    const char *colon = k ? strrchr(k, ':') : NULL;
    if (colon && colon > k) {
        char *end;
        long l = strtol(colon + 1, &end, 10);
        if (!*end && l > 0 && l <= INT32_MAX) {
            snprintf(file, size, "%.*s", (int)(colon - k), k);
            *line = (int32_t)l;
            return true;
        }
    }
    ompdag_loc loc = ompdag_condag_region_loc(g);
    if (loc.file && loc.line > 0) {
        snprintf(file, size, "%s", loc.file);
        *line = loc.line;
        return true;
    }
    return false;
}

/* The deadline that applies to g: FILE:LINE beats FUNCTION beats the graph's
 * own "deadline".  *from says which; matched[i] marks the entries used. */
static ompdag_status find_deadline(const ompdag_condag *g, const ompdag_deadlines *d, bool *matched,
                                   int64_t *ns, const char **from, ompdag_error *err)
{
    *ns = -1, *from = NULL;
    char file[4096];
    int32_t line = 0;
    bool placed = report_region_place(g, file, sizeof file, &line);
    ompdag_loc loc = ompdag_condag_region_loc(g);
    const char *fn = ompdag_condag_function(g);
    bool file_hit = false;
    for (size_t i = 0; d && i < d->n; ++i) {
        const ompdag_deadline_entry *e = &d->v[i];
        bool hit =
            e->file ? (placed && line == e->line && report_same_file(file, e->file)) ||
                          (loc.file && loc.line == e->line && report_same_file(loc.file, e->file))
                    : fn && !strcmp(fn, e->function);
        if (!hit) continue;
        matched[i] = true;
        /* the first FILE:LINE match wins; else the first FUNCTION match */
        if (!*from || (e->file && !file_hit)) {
            *ns = e->ns;
            *from = e->spec;
            file_hit = e->file != NULL;
        }
    }
    if (*from) return OMPDAG_OK;
    json_t *dl = json_object_get(ompdag_condag_extra(g, -1), "deadline");
    if (!dl) return OMPDAG_OK;
    if (json_is_integer(dl) && json_integer_value(dl) >= 0) {
        *ns = json_integer_value(dl);
    } else if (json_is_string(dl)) {
        ompdag_error e2 = {0};
        if (ompdag_duration_parse(json_string_value(dl), ns, &e2))
            return ompdag_error_set(err, OMPDAG_ERR_INVALID, "graph %s: \"deadline\": %s",
                                    ompdag_condag_name(g) ? ompdag_condag_name(g) : "?",
                                    e2.message);
    } else {
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "graph %s: \"deadline\" must be a duration string like \"5ms\"",
                                ompdag_condag_name(g) ? ompdag_condag_name(g) : "?");
    }
    *from = "pragma";
    return OMPDAG_OK;
}

/* ---- report rows ----------------------------------------------------------- */

const char *ompdag_verdict_name(ompdag_verdict v)
{
    switch (v) {
    case OMPDAG_VERDICT_PASS:
        return "pass";
    case OMPDAG_VERDICT_FAIL:
        return "fail";
    case OMPDAG_VERDICT_REFUTED:
        return "refuted";
    case OMPDAG_VERDICT_UNSAFE:
        return "unsafe";
    default:
        return "no-deadline";
    }
}

const char *report_verdict_upper(ompdag_verdict v)
{
    switch (v) {
    case OMPDAG_VERDICT_PASS:
        return "PASS";
    case OMPDAG_VERDICT_FAIL:
        return "FAIL";
    case OMPDAG_VERDICT_REFUTED:
        return "REFUTED";
    case OMPDAG_VERDICT_UNSAFE:
        return "UNSAFE";
    default:
        return "NO DEADLINE";
    }
}

bool ompdag_report_format_parse(const char *name, ompdag_report_format *out)
{
    static const char *names[] = {"text", "json", "csv", "sarif", "html"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (name && !strcmp(name, names[i])) {
            *out = (ompdag_report_format)i;
            return true;
        }
    return false;
}

void ompdag_report_options_init(ompdag_report_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->migration_model = OMPDAG_MIGRATION_WFS;
    opt->input_name = "-";
}

json_t *report_depend_list(const ompdag_condag *g)
{
    json_t *dc = json_object_get(ompdag_condag_extra(g, -1), "depend_check");
    json_t *l = json_object_get(dc, "disagreements");
    return json_is_array(l) && json_array_size(l) ? l : NULL;
}

int32_t report_tied_tasks(const ompdag_condag *g)
{
    int32_t n = 0;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T &&
            json_is_false(json_object_get(ompdag_condag_extra(g, v), "untied")))
            ++n;
    return n;
}

/* Max and count of the graph's observed response times: key
 * "observed_task_response_ns" (task system) or "observed_response_ns"
 * (region); -1 when absent. */
double report_observed_max(const ompdag_condag *g, const char *key, size_t *runs)
{
    json_t *arr = json_object_get(ompdag_condag_extra(g, -1), key);
    double best = -1;
    size_t i, n = 0;
    json_t *x;
    json_array_foreach(arr, i, x)
    {
        if (!json_is_number(x)) continue;
        ++n;
        if (json_number_value(x) > best) best = json_number_value(x);
    }
    if (runs) *runs = n;
    return best;
}

/* The observed response times under `key`, split by the parallel array
 * `key`_interfered (1: the run's threads were preempted or migrated).  Runs
 * without a flag count as clean, so an old file refutes rather than excuses.
 * Values are integers (ns). */
void report_observations(const ompdag_condag *g, const char *key, report_obs *out)
{
    char fkey[96];
    snprintf(fkey, sizeof fkey, "%s_interfered", key);
    json_t *gx = ompdag_condag_extra(g, -1);
    json_t *arr = json_object_get(gx, key), *flags = json_object_get(gx, fkey);
    *out = (report_obs){.clean_max = -1, .interfered_max = -1};
    size_t i;
    json_t *x;
    json_array_foreach(arr, i, x)
    {
        if (!json_is_integer(x)) continue;
        int64_t v = json_integer_value(x);
        if (json_is_true(json_array_get(flags, i)) ||
            json_integer_value(json_array_get(flags, i)) > 0) {
            ++out->interfered;
            out->interfered_max = v > out->interfered_max ? v : out->interfered_max;
        } else {
            ++out->clean;
            out->clean_max = v > out->clean_max ? v : out->clean_max;
        }
    }
}

void ompdag_report_destroy(ompdag_report *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->n; ++i) {
        ompdag_rta_result_destroy(r->results[i]);
        free(r->titles[i]);
        free(r->froms[i]);
    }
    free(r->rows);
    free(r->results);
    free(r->titles);
    free(r->froms);
    free(r->input_name);
    free(r);
}

static ompdag_status add_row(ompdag_report *r, const ompdag_report_row *row, ompdag_rta_result *res,
                             ompdag_error *err)
{
    /* Four parallel arrays of one capacity: each grows from the same old
     * capacity, and r->cap moves only when all four have. */
    const int64_t need = (int64_t)r->n + 1;
    int64_t cap = r->cap;
    if (!ompdag_grow_array((void **)&r->rows, sizeof *r->rows, &(int64_t){r->cap}, need) ||
        !ompdag_grow_array((void **)&r->results, sizeof *r->results, &(int64_t){r->cap}, need) ||
        !ompdag_grow_array((void **)&r->titles, sizeof *r->titles, &(int64_t){r->cap}, need) ||
        !ompdag_grow_array((void **)&r->froms, sizeof *r->froms, &cap, need)) {
        ompdag_rta_result_destroy(res);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    r->cap = cap;
    char buf[512];
    char *title = strdup(ompdag_condag_title(ompdag_condag_set_graph(r->set, row->graph),
                                             row->graph, buf, sizeof buf));
    char *from = row->deadline_from ? strdup(row->deadline_from) : NULL;
    if (!title || (row->deadline_from && !from)) {
        free(title), free(from);
        ompdag_rta_result_destroy(res);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    r->rows[r->n] = *row;
    r->rows[r->n].function = title;
    r->titles[r->n] = title;
    r->rows[r->n].deadline_from = from;
    r->froms[r->n] = from;
    r->results[r->n] = res;
    ++r->n;
    return OMPDAG_OK;
}

/* The sample maximum of one runtime_overheads entry ("fork_warm", ...); 0 when
 * absent. */
static int64_t overhead_max(const json_t *o, const char *key)
{
    json_t *v = json_object_get(json_object_get(o, key), "max_ns");
    return json_is_integer(v) && json_integer_value(v) > 0 ? json_integer_value(v) : 0;
}

/* Fork (parallel begin -> root begin, the cold first region included) and join
 * (last task end -> parallel end) lie outside the task system that Theorem 1
 * bounds; annotate measures them (docs/overheads.md).  The whole region's
 * bound adds their maxima with the WCETs' margin, rounded up.  Returns -1
 * when they were not measured, -2 on overflow. */
int64_t report_fork_join_ns(const ompdag_condag *g)
{
    const json_t *extra = ompdag_condag_extra(g, -1);
    const json_t *o = json_object_get(extra, "runtime_overheads");
    if (!json_is_object(o) || !json_object_get(o, "join")) return -1;
    int64_t warm = overhead_max(o, "fork_warm"), cold = overhead_max(o, "fork_cold");
    __int128 fj = (__int128)(warm > cold ? warm : cold) + overhead_max(o, "join");
    json_t *pct = json_object_get(json_object_get(extra, "wcet_method"), "margin_pct");
    double margin = json_is_number(pct) && json_number_value(pct) > 0 ? json_number_value(pct) : 0;
    if (margin > 1e6) return -2;
    __int128 hundredths = (__int128)llround(margin * 100.0);
    fj = (fj * (10000 + hundredths) + 9999) / 10000;
    return fj > INT64_MAX ? -2 : (int64_t)fj;
}

static ompdag_status report_graph(ompdag_report *r, size_t gi, const ompdag_report_options *opt,
                                  bool *matched, ompdag_error *err)
{
    const ompdag_condag *g = ompdag_condag_set_graph(r->set, gi);
    char title[512];
    ompdag_condag_title(g, gi, title, sizeof title);
    int32_t own = ompdag_condag_threads(g) > 0 ? ompdag_condag_threads(g) : opt->default_threads;
    const int32_t *ms = opt->thread_count > 0 ? opt->threads : &own;
    int nm = opt->thread_count > 0 ? opt->thread_count : 1;
    if (nm == 1 && ms[0] <= 0)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "%s: region %s has no \"threads\"; pass --threads M",
                                opt->input_name ? opt->input_name : "-", title);
    int64_t deadline;
    const char *from;
    ompdag_status st = find_deadline(g, opt->deadlines, matched, &deadline, &from, err);
    if (st) return st;
    int64_t unit_ns = ompdag_time_unit_ns(ompdag_condag_time_unit(g));
    if (deadline >= 0 && !unit_ns)
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                "region %s has a deadline but its time unit \"%s\" is not a time "
                                "(ns, us, ms, s)",
                                title, ompdag_condag_time_unit(g));
    for (int k = 0; k < nm; ++k) {
        ompdag_rta_options ro;
        ompdag_rta_options_init(&ro, ms[k]);
        ro.migration_overhead = opt->migration_overhead;
        ro.migration_model = opt->migration_model;
        ompdag_rta_result *res;
        if ((st = ompdag_rta_run(g, OMPDAG_ALG_EXACT, &ro, &res, err))) return st;
        ompdag_report_row row = {.graph = gi, .loc = ompdag_condag_region_loc(g), .m = ms[k]};
        row.bound_times_m = ompdag_rta_result_bound_times_m(res);
        row.bound = ompdag_rta_result_bound(res);
        row.bound_ns = unit_ns ? (double)row.bound_times_m * (double)unit_ns / ms[k] : -1;
        row.vol = ompdag_rta_result_vol(res);
        row.len = ompdag_rta_result_len(res);
        row.tasks = ompdag_condag_task_count(g);
        row.nodes = ompdag_condag_node_count(g);
        report_obs region, tasks;
        report_observations(g, "observed_response_ns", &region);
        report_observations(g, "observed_task_response_ns", &tasks);
        const report_obs *o = tasks.clean + tasks.interfered ? &tasks : &region;
        row.observed_region_max_ns = (double)region.clean_max;
        row.observed_max_ns = (double)o->clean_max;
        row.runs = o->clean + o->interfered;
        row.runs_interfered = o->interfered;
        row.observed_interfered_max_ns = (double)o->interfered_max;
        json_t *unsafe = json_object_get(ompdag_condag_extra(g, -1), "unsafe");
        row.unsafe_reason = json_is_string(unsafe) ? json_string_value(unsafe)
                            : unsafe ? "the WCETs were annotated with dropped segments"
                                     : NULL;
        row.deadline_ns = deadline;
        row.deadline_from = from;
        row.tied_tasks = report_tied_tasks(g);
        row.depend = ompdag_condag_has_depend(g);
        row.exact = ompdag_rta_result_is_exact(res);
        json_t *dc = json_object_get(ompdag_condag_extra(g, -1), "depend_check");
        row.depend_pairs = row.depend_disagreements = row.depend_extra = -1;
        if (json_is_object(dc)) {
            row.depend_pairs = json_integer_value(json_object_get(dc, "runtime_pairs"));
            row.depend_disagreements =
                json_integer_value(json_object_get(dc, "unsafe_disagreements"));
            row.depend_extra = json_integer_value(json_object_get(dc, "dedges_extra"));
        }
        row.fork_join_ns = unit_ns ? report_fork_join_ns(g) : -1;
        if (row.fork_join_ns == -2) {
            ompdag_rta_result_destroy(res);
            return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                    "region %s: fork + join overheads overflow int64 ns", title);
        }
        row.region_bound_ns = row.fork_join_ns >= 0 ? row.bound_ns + (double)row.fork_join_ns : -1;
        /* The whole region's m·R in ns: m·R·unit + m·(fork + join); exact. */
        __int128 whole = (__int128)row.bound_times_m * unit_ns +
                         (__int128)(row.fork_join_ns > 0 ? row.fork_join_ns : 0) * ms[k];
        if (deadline >= 0) {
            __int128 rhs = (__int128)deadline * ms[k];
            row.verdict = whole <= rhs ? OMPDAG_VERDICT_PASS : OMPDAG_VERDICT_FAIL;
            row.slack_ns =
                (double)deadline - (row.region_bound_ns >= 0 ? row.region_bound_ns : row.bound_ns);
        }
        /* Measurements outrank the proof: observed > bound, decided exactly
         * (observed · m > m·R · unit); the whole region's runs against the
         * whole region's bound when fork/join were measured. */
        if (unit_ns && o->clean_max >= 0 &&
            (__int128)o->clean_max * ms[k] > (__int128)row.bound_times_m * unit_ns)
            row.verdict = OMPDAG_VERDICT_REFUTED;
        else if (unit_ns && row.fork_join_ns >= 0 && region.clean_max >= 0 &&
                 (__int128)region.clean_max * ms[k] > whole)
            row.verdict = OMPDAG_VERDICT_REFUTED, row.refuted_by_region = true;
        else if (row.unsafe_reason)
            row.verdict = OMPDAG_VERDICT_UNSAFE;
        if ((st = add_row(r, &row, res, err))) return st;
    }
    return OMPDAG_OK;
}

ompdag_status ompdag_report_create(const ompdag_condag_set *set, const ompdag_report_options *opt,
                                   ompdag_report **out, ompdag_error *err)
{
    ompdag_report_options defaults;
    if (!opt) {
        ompdag_report_options_init(&defaults);
        opt = &defaults;
    }
    if (!set || !out) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "report: no graphs");
    for (int k = 0; k < opt->thread_count; ++k)
        if (opt->threads[k] <= 0)
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "report: m must be >= 1");
    ompdag_report *r = calloc(1, sizeof *r);
    size_t nd = opt->deadlines ? opt->deadlines->n : 0;
    bool *matched = calloc(nd + 1, sizeof *matched);
    if (!r || !matched || !(r->input_name = strdup(opt->input_name ? opt->input_name : "-"))) {
        free(matched);
        ompdag_report_destroy(r);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    r->set = set;
    r->migration_overhead = opt->migration_overhead;
    r->migration_model = opt->migration_model;
    r->advice = opt->advice;
    ompdag_status st = OMPDAG_OK;
    for (size_t gi = 0; gi < ompdag_condag_set_count(set) && !st; ++gi)
        st = report_graph(r, gi, opt, matched, err);
    for (size_t i = 0; i < nd && !st; ++i)
        if (!matched[i])
            st = ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                  "--deadline %s matches no region of %s (FUNCTION is the "
                                  "function's name, FILE:LINE the `parallel` line)",
                                  opt->deadlines->v[i].spec, r->input_name);
    free(matched);
    if (st) {
        ompdag_report_destroy(r);
        return st;
    }
    *out = r;
    return OMPDAG_OK;
}

size_t ompdag_report_row_count(const ompdag_report *r)
{
    return r ? r->n : 0;
}

const ompdag_report_row *ompdag_report_row_get(const ompdag_report *r, size_t i)
{
    return r && i < r->n ? &r->rows[i] : NULL;
}

const ompdag_rta_result *ompdag_report_row_result(const ompdag_report *r, size_t i)
{
    return r && i < r->n ? r->results[i] : NULL;
}

size_t ompdag_report_fail_count(const ompdag_report *r)
{
    size_t n = 0;
    for (size_t i = 0; r && i < r->n; ++i)
        n += r->rows[i].verdict == OMPDAG_VERDICT_FAIL ||
             r->rows[i].verdict == OMPDAG_VERDICT_REFUTED ||
             r->rows[i].verdict == OMPDAG_VERDICT_UNSAFE;
    return n;
}
