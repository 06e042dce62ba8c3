/*
 * tests/probe/team_util.h — running team-graph test programs under the probe
 * and reading what annotate and report make of them, shared by
 * test_annotate_team.c and test_annotate_team_single.c (docs/probe.md
 * "Team graphs").  Needs OMPDAG_CLI_PATH, OMPDAG_PROBE_LIB_PATH and
 * OMPDAG_PROBE_PROGS.
 */
#ifndef TEAM_UTIL_H
#define TEAM_UTIL_H

#include <criterion/criterion.h>
#include <jansson.h>

#include "probe/probe_util.h"
#include "test_tmpdir.h"

#ifndef ROUNDS
#define ROUNDS "4" /* regions per process */
#endif

static inline int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* A file of the test's directory. */
static inline const char *tmp(const char *name, char *buf, size_t n)
{
    const char *d = test_tmpdir();
    cr_assert_not_null(d);
    snprintf(buf, n, "%s/%s", d, name);
    return buf;
}

/* SCHED_FIFO runs (`ompdag run --rt`) where permitted: on a shared machine
 * the other runs are mostly interfered, and those are never compared. */
static inline bool rt_allowed(void)
{
    static int known = -1;
    char t[600], cmd[2048];
    if (known >= 0) return known;
    snprintf(cmd, sizeof cmd,
             "OMPDAG_PROBE_LIB=%s %s run --quiet --rt --threads 2 --trace %s -- %s/team_phases 1 "
             ">/dev/null 2>&1",
             OMPDAG_PROBE_LIB_PATH, OMPDAG_CLI_PATH, tmp("rt.trace", t, sizeof t),
             OMPDAG_PROBE_PROGS);
    known = sh(cmd) == 0;
    return known;
}

/* Runs progs/PROG (ROUNDS regions) under `ompdag run` at 2 threads. */
static inline void run_prog(const char *prog, const char *trace)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "OMPDAG_PROBE_LIB=%s %s run --quiet %s --threads 2 --trace %s -- %s/%s " ROUNDS
             " >/dev/null",
             OMPDAG_PROBE_LIB_PATH, OMPDAG_CLI_PATH, rt_allowed() ? "--rt" : "", trace,
             OMPDAG_PROBE_PROGS, prog);
    cr_assert_eq(sh(cmd), 0, "%s", cmd);
}

/* `ompdag annotate GRAPH TRACES --margin 0 -o OUT`: its exit status; its
 * standard output and error in msg. */
static inline int annotate_graph(const char *graph, const char *traces, const char *out, char *msg,
                                 size_t n)
{
    char cmd[8192], log[600];
    snprintf(cmd, sizeof cmd, "%s annotate %s %s --margin 0 -o %s >%s 2>&1", OMPDAG_CLI_PATH, graph,
             traces, out, tmp("annotate.log", log, sizeof log));
    int rc = sh(cmd);
    FILE *f = fopen(log, "r");
    size_t got = f ? fread(msg, 1, n - 1, f) : 0;
    msg[got] = 0;
    if (f) fclose(f);
    return rc;
}

/* ---- the observed response, from the raw records ---- */

/* One region run as the model times it: τ1 begins with the first implicit
 * task; the graph ends when every thread reached the region's last barrier
 * and every explicit task ended. */
typedef struct run_time {
    uint64_t region, begin, end;
} run_time;

static inline run_time *run_of(run_time *runs, size_t *n, uint64_t region)
{
    for (size_t i = 0; i < *n; ++i)
        if (runs[i].region == region) return &runs[i];
    cr_assert_lt(*n, 64);
    runs[*n] = (run_time){region, UINT64_MAX, 0};
    return &runs[(*n)++];
}

/* The responses of every region run of `trace` into resp[], their count. */
static inline size_t responses(const char *trace, int64_t *resp, size_t cap)
{
    ompdag_trace_rec *recs = NULL, footer;
    size_t n = 0, nruns = 0;
    ompdag_error err;
    cr_assert_eq(probe_load(trace, &recs, &n, &footer, &err), OMPDAG_OK, "%s", err.message);
    run_time runs[64];
    for (size_t i = 0; i < n; ++i) {
        const ompdag_trace_rec *r = &recs[i];
        bool implicit_begin = r->type == OMPDAG_REC_IMPLICIT;
        bool at_barrier = r->type == OMPDAG_REC_SEGMENT && (r->flags & OMPDAG_RECF_IMPLICIT) &&
                          r->end_kind == OMPDAG_PT_BARRIER;
        bool task_end = r->type == OMPDAG_REC_SEGMENT && !(r->flags & OMPDAG_RECF_IMPLICIT) &&
                        r->end_kind == OMPDAG_PT_TASK_END;
        if (!implicit_begin && !at_barrier && !task_end) continue;
        run_time *x = run_of(runs, &nruns, r->aux);
        if (implicit_begin && r->time < x->begin) x->begin = r->time;
        if (!implicit_begin && r->time > x->end) x->end = r->time;
    }
    free(recs);
    cr_assert_leq(nruns, cap);
    for (size_t i = 0; i < nruns; ++i) {
        cr_assert(runs[i].begin < runs[i].end, "run %zu has no response", i);
        resp[i] = (int64_t)(runs[i].end - runs[i].begin);
    }
    return nruns;
}

static inline json_t *graph_json(const char *path)
{
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    cr_assert_not_null(j, "%s: %s", path, je.text);
    json_t *g = json_array_get(json_object_get(j, "graphs"), 0);
    cr_assert_not_null(g);
    json_incref(g);
    json_decref(j);
    return g;
}

/* The report's bound at m = 2 (ns). */
static inline double report_bound(const char *annotated)
{
    char out[600], cmd[4096];
    snprintf(cmd, sizeof cmd, "%s report %s --format json > %s", OMPDAG_CLI_PATH, annotated,
             tmp("report.json", out, sizeof out));
    cr_assert_eq(sh(cmd), 0, "%s", cmd);
    json_error_t je;
    json_t *j = json_load_file(out, 0, &je);
    cr_assert_not_null(j, "%s", je.text);
    json_t *r = json_array_get(json_object_get(j, "regions"), 0);
    cr_assert_eq(json_integer_value(json_object_get(r, "m")), 2);
    cr_assert_not(json_is_true(json_object_get(r, "refuted")),
                  "refuted: a clean run above the bound");
    double bound = json_number_value(json_object_get(r, "bound_ns"));
    json_decref(j);
    return bound;
}

#endif
