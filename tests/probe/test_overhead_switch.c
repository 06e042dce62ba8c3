/*
 * tests/probe/test_overhead_switch.c — the calibration of the runtime's
 * overheads reflects the runtime (issue 23 item 3; docs/overheads.md):
 *
 *  - libomp 14 switches an untied task to its scheduling parent and straight
 *    back (X -> parent -> X) when it starts and after each `task` directive
 *    in it; the probe must not mark the segments around those pairs
 *    suspended (a suspended segment never counts as busy, so its busy time
 *    became "delay" for everything queued meanwhile);
 *  - threads that join a region after its root began (team formation) are
 *    measured per run, charged once on the root's source, and enter the
 *    bound exactly there.
 */
#include <criterion/criterion.h>
#include <jansson.h>

#include "ompdag/overhead.h"
#include "ompdag/report.h"
#include "ompdag/rta.h"
#include "probe/probe_util.h"

static void load(const char *trace, ompdag_trace_rec **recs, size_t *n)
{
    ompdag_error err = {0};
    cr_assert_eq(probe_load(trace, recs, n, NULL, &err), OMPDAG_OK, "%s", err.message);
}

static const ompdag_trace_rec *creation_of(const ompdag_trace_rec *r, size_t n, uint64_t id)
{
    for (size_t i = 0; i < n; ++i)
        if (r[i].type == OMPDAG_REC_TASK_CREATE && r[i].id == id) return &r[i];
    return NULL;
}

/* progs/untied_creator: 20 untied tasks, each creating 8 tied children in a
 * row.  Each untied task's segments before its taskwait (begin -> task,
 * task -> task, task -> taskwait) hold only switch pairs: libomp's entry
 * switch, and the pair after each creation.  Before issue 23 every one of
 * them was marked suspended (measured: 200 of 200 untied segments); now the
 * pairs leave them one busy interval, unless the runtime really moved the
 * task to another thread in between (rare: a thief takes the oldest task of
 * a deque, the child just created, not the creator behind it). */
Test(overhead, untied_switch_pairs_are_not_suspensions, .timeout = 60)
{
    char dir[64], trace[128];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(trace, sizeof trace, "%s/uc.trace", dir);
    const char *args[] = {"8", "20", NULL};
    int status = probe_run("untied_creator", args, 2, trace, NULL, NULL);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %x", status);
    ompdag_trace_rec *r;
    size_t n;
    load(trace, &r, &n);
    size_t before_wait = 0, suspended = 0, first = 0;
    for (size_t i = 0; i < n; ++i) {
        const ompdag_trace_rec *s = &r[i];
        if (s->type != OMPDAG_REC_SEGMENT || !(s->flags & OMPDAG_RECF_UNTIED) ||
            s->start_kind == OMPDAG_PT_TASKWAIT)
            continue;
        ++before_wait;
        suspended += (s->flags & OMPDAG_RECF_SUSPENDED) != 0;
        if (s->start_kind != OMPDAG_PT_TASK_BEGIN || (s->flags & OMPDAG_RECF_SUSPENDED)) continue;
        /* an unsuspended first segment starts exactly: end − own time, after
         * the task was created (the entry switch is its wait, not its time) */
        const ompdag_trace_rec *c = creation_of(r, n, s->id);
        cr_assert(c, "task %llx was never created", (unsigned long long)s->id);
        cr_assert_geq(s->time - s->dur, c->time, "task %llx starts before its creation",
                      (unsigned long long)s->id);
        ++first;
    }
    cr_assert_eq(before_wait, 20 * 9, "9 segments before the taskwait per untied task, got %zu",
                 before_wait);
    cr_assert_leq(suspended, before_wait / 2,
                  "%zu of %zu untied segments before the taskwait are marked suspended: the "
                  "switch pairs (X -> parent -> X) are taken for suspensions",
                  suspended, before_wait);
    cr_assert_gt(first, 0);
    cr_log_info("untied segments before the taskwait: %zu, suspended %zu", before_wait, suspended);
    free(r);
}

/* ---- team formation ------------------------------------------------------------ */

/* Per region run of a trace (id = the segments' aux), the formation of
 * docs/overheads.md recomputed here from the records alone, by brute force:
 * F = ∫ over [root begin, last task end) of (threads absent at t) when every
 * thread present at t runs graph code (a segment of the root or an explicit
 * task that was not suspended), a thread being present from the end of its
 * implicit task's first segment. */
enum { MAX_SEGS = 256, TEAM = 2 };

typedef struct formation_run {
    uint64_t run, root, end;
    uint64_t arrive[TEAM];
    uint64_t lo[MAX_SEGS], hi[MAX_SEGS];
    size_t nseg;
} formation_run;

static int64_t brute_formation(const formation_run *x)
{
    uint64_t pts[2 * MAX_SEGS + TEAM + 2];
    size_t np = 0;
    pts[np++] = x->root, pts[np++] = x->end;
    for (size_t k = 0; k < x->nseg; ++k)
        pts[np++] = x->lo[k], pts[np++] = x->hi[k];
    for (int t = 0; t < TEAM; ++t)
        pts[np++] = x->arrive[t];
    int64_t f = 0;
    for (size_t a = 0; a < np; ++a) { /* each elementary interval [p, next point) */
        uint64_t p = pts[a], q = UINT64_MAX;
        for (size_t b = 0; b < np; ++b)
            if (pts[b] > p && pts[b] < q) q = pts[b];
        bool dup = false;
        for (size_t b = 0; b < a; ++b)
            dup |= pts[b] == p;
        if (dup || p < x->root || q > x->end || q == UINT64_MAX) continue;
        int busy = 0, absent = 0;
        for (size_t k = 0; k < x->nseg; ++k)
            busy += x->lo[k] <= p && p < x->hi[k];
        for (int t = 0; t < TEAM; ++t)
            absent += x->arrive[t] > p;
        if (busy >= TEAM - absent) f += (int64_t)(q - p) * absent;
    }
    return f;
}

static size_t formation_values(const char *trace, int64_t *out, size_t cap)
{
    ompdag_trace_rec *r;
    size_t n, nruns = 0;
    load(trace, &r, &n);
    static formation_run runs[8];
    memset(runs, 0, sizeof runs);
    for (size_t i = 0; i < n; ++i) {
        const ompdag_trace_rec *s = &r[i];
        if (s->type != OMPDAG_REC_SEGMENT || !s->aux) continue;
        size_t k = 0;
        while (k < nruns && runs[k].run != s->aux)
            ++k;
        if (k == nruns) {
            cr_assert_lt(nruns, 8);
            runs[nruns++].run = s->aux;
        }
        formation_run *x = &runs[k];
        bool graph = (s->flags & OMPDAG_RECF_ROOT) || !(s->flags & OMPDAG_RECF_IMPLICIT);
        if (s->end_kind == OMPDAG_PT_ROOT_BEGIN) x->root = s->time;
        if (!graph && s->start_kind == OMPDAG_PT_TASK_BEGIN && s->thread < TEAM)
            x->arrive[s->thread] = s->time;
        if (graph && (s->end_kind == OMPDAG_PT_ROOT_END || s->end_kind == OMPDAG_PT_TASK_END) &&
            s->time > x->end)
            x->end = s->time;
        if (graph && !(s->flags & OMPDAG_RECF_SUSPENDED) && s->dur <= s->time) {
            cr_assert_lt(x->nseg, MAX_SEGS);
            x->lo[x->nseg] = s->time - s->dur, x->hi[x->nseg++] = s->time;
        }
    }
    size_t m = 0;
    for (size_t k = 0; k < nruns && m < cap; ++k) {
        cr_assert(runs[k].root && runs[k].end > runs[k].root, "run %llx has no task system",
                  (unsigned long long)runs[k].run);
        out[m++] = brute_formation(&runs[k]);
    }
    free(r);
    return m;
}

static int64_t exact_times_m(const ompdag_condag *g, int32_t m)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    ompdag_rta_result *res;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &res, &err), OMPDAG_OK, "%s",
                 err.message);
    int64_t b = ompdag_rta_result_bound_times_m(res);
    ompdag_rta_result_destroy(res);
    return b;
}

/* progs/tasks, 5 regions per process (the first cold), 2 threads, 3 traces
 * (its branch taken in two): the team's second thread joins each region
 * after its root began.  annotate states the formation F (the max over the
 * calibrating runs, at margin 0: one of the values recomputed from the
 * records by brute force), puts ceil(F / m0)
 * on the root task's source and nowhere else, and the exact bound at m0 grows
 * by exactly m0 · ceil(F / m0) for it.  Before issue 23 there was no
 * formation: the late thread's absence was inside the start delays. */
Test(overhead, team_formation_is_measured_and_charged_once_on_the_root, .timeout = 60)
{
    char dir[64], trace[3][128];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    int64_t values[64];
    size_t nv = 0;
    for (int i = 0; i < 3; ++i) {
        snprintf(trace[i], sizeof trace[i], "%s/t%d.trace", dir, i);
        const char *args[] = {i == 2 ? "0" : "1", "5", NULL}; /* both sides of its branch */
        int status = probe_run("tasks", args, 2, trace[i], NULL, NULL);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        nv += formation_values(trace[i], values + nv, 64 - nv);
    }
    cr_assert_eq(nv, 15, "5 region runs per trace");
    int64_t most = 0;
    for (size_t k = 0; k < nv; ++k)
        most = values[k] > most ? values[k] : most;
    cr_assert_gt(most, 0,
                 "no thread joined a region late while the root's thread ran graph code (cold "
                 "fork)");

    char path[512];
    snprintf(path, sizeof path, "%s/tasks.json", OMPDAG_PROBE_DATA);
    ompdag_condag_set *set;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_file(path, &set, &err), OMPDAG_OK, "%s", err.message);
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    opt.margin_pct = 0;
    ompdag_annotation *a;
    cr_assert_eq(ompdag_annotation_create(set, &opt, &a, &err), OMPDAG_OK, "%s", err.message);
    for (int i = 0; i < 3; ++i)
        cr_assert_eq(ompdag_annotation_add_trace(a, trace[i], &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_OK, "%s", err.message);
    ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    const json_t *ro = json_object_get(ompdag_condag_extra(g, -1), "runtime_overheads");
    int64_t f = json_integer_value(json_object_get(ro, "formation_ns"));
    int32_t m0 = (int32_t)json_integer_value(json_object_get(ro, "threads"));
    const json_t *samples = json_object_get(json_object_get(ro, "formation"), "samples");
    cr_assert_eq(m0, 2);
    cr_assert(json_is_integer(samples) && json_integer_value(samples) >= 1,
              "runtime_overheads states no formation samples");
    bool seen = false;
    for (size_t k = 0; k < nv; ++k)
        seen |= values[k] == f;
    cr_assert(seen, "formation_ns %lld is none of the runs' formations recomputed from the records",
              (long long)f);
    if (json_integer_value(samples) == (json_int_t)nv) /* every run calibrates: the maximum */
        cr_assert_eq(f, most);

    /* D(v) of every node: the classes, plus ceil(F / m0) on the root's source */
    ompdag_overheads o = {.start_delay = json_integer_value(json_object_get(ro, "start_delay_ns")),
                          .wake_delay = json_integer_value(json_object_get(ro, "wake_delay_ns")),
                          .cont_delay = json_integer_value(json_object_get(ro, "cont_delay_ns"))},
                     with = o;
    with.formation = f, with.threads = m0;
    int64_t fd = (f + m0 - 1) / m0;
    cr_assert_eq(ompdag_overheads_formation_delay(&with), fd);
    cr_assert_eq(json_integer_value(json_object_get(ro, "formation_delay_ns")), fd);
    int32_t n = ompdag_condag_node_count(g), root = ompdag_condag_root_task(g);
    int32_t src = ompdag_condag_task_source(g, root);
    int64_t *d = malloc(sizeof *d * (size_t)n);
    cr_assert_eq(ompdag_overheads_node_delays(g, &o, d, &err), OMPDAG_OK, "%s", err.message);
    for (int32_t v = 0; v < n; ++v)
        cr_assert_eq(ompdag_condag_node_delay(g, v), d[v] + (v == src ? fd : 0), "node %s",
                     ompdag_condag_node_id(g, v));
    /* the report's breakdown names it (text and JSON through the same row) */
    ompdag_report_options ropt;
    ompdag_report_options_init(&ropt);
    ropt.threads = &m0, ropt.thread_count = 1;
    ompdag_report *rep;
    cr_assert_eq(ompdag_report_create(set, &ropt, &rep, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_report_row_get(rep, 0)->breakdown.formation_ns, (double)fd);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    cr_assert_eq(ompdag_report_write(rep, OMPDAG_REPORT_TEXT, mem, NULL, NULL, &err), OMPDAG_OK);
    fclose(mem);
    cr_assert(fd == 0 || strstr(text, "team formation"), "%s", text);
    free(text);
    ompdag_report_destroy(rep);
    /* it enters the bound once: every critical chain starts at the root's source */
    int64_t with_f = exact_times_m(g, m0);
    cr_assert_eq(ompdag_condag_assign_delay(g, src, d[src], &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(with_f - exact_times_m(g, m0), (int64_t)m0 * fd);
    cr_assert_geq((int64_t)m0 * fd, f);
    free(d);
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
}
