/* report/report_internal.h — what the files of the report module share; not
 * installed, not part of the API (include/ompdag/report.h is). */
#ifndef OMPDAG_REPORT_INTERNAL_H
#define OMPDAG_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ompdag/internal/array.h"
#include "ompdag/internal/condag_json.h"
#include "ompdag/report.h"

typedef struct ompdag_deadline_entry {
    char *spec;     /* as given, "main=5ms" */
    char *function; /* FUNCTION=…, or NULL */
    char *file;     /* FILE:LINE=…, or NULL */
    int32_t line;
    int64_t ns;
} ompdag_deadline_entry;

struct ompdag_deadlines {
    ompdag_deadline_entry *v;
    size_t n;
    int64_t cap; /* ompdag_grow_array */
};

struct ompdag_report {
    const ompdag_condag_set *set; /* borrowed */
    char *input_name;
    ompdag_report_row *rows;
    ompdag_rta_result **results;
    char **titles;
    char **froms;                    /* copies of each row's deadline_from */
    ompdag_report_observation **obs; /* each row's observations (rows[i].observations) */
    size_t n;
    int64_t cap; /* of each of the five arrays (ompdag_grow_array) */
    int64_t migration_overhead;
    ompdag_migration_model migration_model;
    const struct ompdag_advice *advice; /* borrowed, may be NULL */
};

bool report_same_file(const char *a, const char *b);
bool report_region_place(const ompdag_condag *g, char *file, size_t size, int32_t *line);
int32_t report_tied_tasks(const ompdag_condag *g);
/* What the bound covers: the assumed input, or every input within the graph's
 * bounds (report_write.c); written into buf, returned. */
const char *report_covers(const ompdag_condag *g, char *buf, size_t size);
/* report_phrases.c: a duration in ns as text ("1.2 ms"), and a ratio ("3.1×"). */
const char *report_dur(double ns, char *buf, size_t size);
const char *report_times(double f, char *buf, size_t size);
/* The distinct disagreements annotate listed in the graph's "depend_check"
 * (docs/probe.md#depend), borrowed from the graph; NULL when none. */
struct json_t *report_depend_list(const ompdag_condag *g);
/* The measured fork + join maxima of g's runtime_overheads, WCET margin
 * applied (ns): what the whole region's bound adds to the task system's.  -1
 * when not measured, -2 on overflow (report.c). */
int64_t report_fork_join_ns(const ompdag_condag *g);
double report_observed_max(const ompdag_condag *g, const char *key, size_t *runs);

/* "PASS", "FAIL", "REFUTED", "UNSAFE", "UNMEASURED", "NO DEADLINE" (text reports). */
const char *report_verdict_upper(ompdag_verdict v);

/* Observed runs of one key, split into clean and interfered (report.c). */
typedef struct report_obs {
    int64_t clean, interfered;
    int64_t clean_max, interfered_max; /* -1 when no such run */
    bool team_recorded;                /* the key's "…_threads" array is present */
} report_obs;
/* The runs under `key` ("observed_response_ns" or "observed_task_response_ns")
 * that a row at m is compared with: team size m, or team size not recorded
 * (older files: every m, the conservative side).  m = 0 takes every run. */
void report_observations(const ompdag_condag *g, const char *key, int32_t m, report_obs *out);

/* The WCET provenance shown in every format: "measured by ompdag annotate",
 * "given in the file, not measured by ompdag", or "not measured". */
const char *report_wcet_source(const ompdag_report_row *row);

/* The tied task directives of g as "a.c:12, a.c:30" (at most a few, then
 * "..."), for "adding `untied` to the task directive at ..." (report.c). */
const char *report_tied_places(const ompdag_condag *g, char *buf, size_t size);

/* Fills row->breakdown's figures for graph g and Graham's exact result res
 * of the row (report_breakdown.c); the row's bound, vol and observations
 * must be set. */
/* report_input.c: row's input_* fields from the graph extra "input"
 * (row->m, graph and bound_times_m set). */
ompdag_status report_input_bound(const ompdag_condag *g, const ompdag_rta_options *ro,
                                 ompdag_report_row *row, ompdag_error *err);
void report_breakdown(const ompdag_condag *g, const ompdag_rta_result *res,
                      const ompdag_report_row *row, int64_t migration_overhead, int64_t unit_ns,
                      ompdag_report_breakdown *b);

/* The breakdown's lines of the text report, indented by 4 (report_write.c);
 * nothing when the graph's unit is not a time. */
void report_breakdown_text(FILE *out, const ompdag_report_row *row);

/* One line "team size 4: 3 run(s) (3 clean, 0 interfered), max 1.2 ms; ..." of
 * the row's observations, or "team size not recorded: ..." (report_write.c). */
void report_observations_line(FILE *out, const ompdag_report_row *row);

/* "then", "else", or "case 3 of 4": which F-successor of C node c is s. */
const char *report_branch_name(const ompdag_condag *g, int32_t c, int32_t s, char *buf,
                               size_t size);

/* For a compact loop's test v that the worst flow reaches: "5000 iterations"
 * or "3 to 5 iterations" (instances differ), with " (at most K)", in buf,
 * and true; false for any other node (report_breakdown.c). */
bool report_loop_iterations(const ompdag_condag *g, const ompdag_rta_result *res, int32_t v,
                            char *buf, size_t size);
/* Above the loop path's limit (docs/compact.md, "The worst flow") the
 * result has vol and len but no path: buf gets why, and true. */
bool report_loop_path_missing(const ompdag_condag *g, const ompdag_rta_result *res, char *buf,
                              size_t size);
/* The same, said on out as the text report's worst-flow line. */
bool report_no_loop_witness(FILE *out, const ompdag_condag *g, const ompdag_rta_result *res);

/* The rows of one graph are consecutive; the first row of graph gi, or n. */
size_t report_first_row(const ompdag_report *r, size_t gi);

/* Writers (report_write.c, report_sarif.c, report_html.c). */
ompdag_status report_write_text(const ompdag_report *r, FILE *out, ompdag_error *err);
ompdag_status report_write_csv(const ompdag_report *r, FILE *out, ompdag_error *err);
struct json_t *report_row_json(const ompdag_report *r, size_t i);
ompdag_status report_write_sarif(const ompdag_report *r, FILE *out, ompdag_error *err);
ompdag_status report_write_html(const ompdag_report *r, FILE *out, ompdag_svg_renderer render,
                                void *ctx, ompdag_error *err);

/* Granularity advice in reports (report_advice.c); no-ops without advice. */
struct json_t;
void report_advice_text(const ompdag_report *r, size_t graph, FILE *out);
void report_advice_json(const ompdag_report *r, size_t graph, struct json_t *region);
typedef void (*report_advice_fn)(ompdag_loc loc, const char *message, struct json_t *properties,
                                 void *ctx);
void report_advice_each_too_fine(const ompdag_report *r, size_t graph, report_advice_fn fn,
                                 void *ctx);

#endif
