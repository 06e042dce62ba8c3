/*
 * tests/probe/test_annotate_team_single.c — team graphs with `single` and
 * `masked` blocks beside the tasks every thread creates, measured on real
 * runs (docs/probe.md "Team graphs", annotate/annotate_map.c team_joint).
 * progs/team_single.c (num_threads(2)): a single whose block creates a task
 * (its barrier ends phase 1), a single nowait creating one, an explicit
 * barrier, a masked block creating one, beside a task per thread in each
 * phase; and, with -DTASKLOOP, the OpenMP Examples' taskloop.2.c (a
 * taskloop in every thread, then single + taskloop).  Each is extracted, run
 * under the probe, several regions per process, and annotated: no segment
 * unmapped, each single's "runs" branch measured in exactly the threads the
 * trace shows running it (the probe's single/masked begin records), as many
 * times, the others' "skips" branch; the masked block in thread 1 alone;
 * every node measured, a block a thread never ran by location (its twin's
 * WCETs); annotate's responses the ones recomputed from the
 * raw records; the bound at m = 2 at least every clean run; `check` passing.
 * And a thread's arrival for team formation: the end of its first segment,
 * the pieces cut at a single/masked begin joined (annotate_overhead.c).
 */
#include <criterion/criterion.h>
#include <jansson.h>

#include "../../annotate/annotate_internal.h"
#include "probe/probe_util.h"
#include "probe/team_util.h"
#include "test_tmpdir.h"

#define PROCS 3 /* processes */
#define PHASES 3

/* ---- which thread ran which block, from the raw records ---- */

/* A segment of an implicit task: enough to place its end in its phase. */
typedef struct imp_seg {
    uint64_t id, time;
    uint8_t end_kind;
} imp_seg;

static int by_task_time(const void *x, const void *y)
{
    const imp_seg *a = x, *b = y;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return a->time < b->time ? -1 : a->time > b->time;
}

/* The thread index (0-based) of implicit task `id`, from its
 * OMPDAG_REC_IMPLICIT record. */
static int thread_of(const ompdag_trace_rec *recs, size_t n, uint64_t id)
{
    for (size_t i = 0; i < n; ++i)
        if (recs[i].type == OMPDAG_REC_IMPLICIT && recs[i].id == id) return (int)recs[i].cp_start;
    cr_assert_fail("implicit task %llu has no thread number", (unsigned long long)id);
    return -1;
}

/* ran[k][j] += the single/masked bodies thread k began in phase j (its
 * barriers before the begin) over the runs of `trace`. */
static void count_blocks(const char *trace, int ran[2][PHASES])
{
    ompdag_trace_rec *recs = NULL, footer;
    size_t n = 0, ns = 0;
    ompdag_error err;
    cr_assert_eq(probe_load(trace, &recs, &n, &footer, &err), OMPDAG_OK, "%s", err.message);
    imp_seg *s = calloc(n + 1, sizeof *s);
    cr_assert_not_null(s);
    for (size_t i = 0; i < n; ++i)
        if (recs[i].type == OMPDAG_REC_SEGMENT && (recs[i].flags & OMPDAG_RECF_IMPLICIT) &&
            recs[i].aux)
            s[ns++] = (imp_seg){recs[i].id, recs[i].time, recs[i].end_kind};
    qsort(s, ns, sizeof *s, by_task_time);
    int phase = 0;
    for (size_t i = 0; i < ns; ++i) {
        if (i == 0 || s[i].id != s[i - 1].id) phase = 0;
        if (s[i].end_kind == OMPDAG_PT_BARRIER) ++phase;
        if (s[i].end_kind != OMPDAG_PT_ROOT_BEGIN) continue;
        int k = thread_of(recs, n, s[i].id);
        cr_assert(k >= 0 && k < 2 && phase < PHASES, "thread %d, phase %d", k, phase + 1);
        ++ran[k][phase];
    }
    free(s);
    free(recs);
}

/* ---- the annotated graph ---- */

/* The node's thread (0-based) and phase (1-based): those of its task's
 * creator in τ1, "implicit task of thread K/2, phase J"; -1 for τ1's nodes
 * and for explicit tasks' nodes. */
static int thread_phase(json_t *g, json_t *v, int *phase)
{
    const char *task = json_string_value(json_object_get(v, "task"));
    size_t i;
    json_t *u;
    json_array_foreach(json_object_get(g, "nodes"), i, u)
    {
        const char *made = json_string_value(json_object_get(u, "creates"));
        int k, of, j;
        if (!made || strcmp(made, task)) continue;
        const char *label = json_string_value(json_object_get(u, "label"));
        if (sscanf(label, "implicit task of thread %d/%d, phase %d", &k, &of, &j) != 3) return -1;
        *phase = j;
        return k - 1;
    }
    return -1;
}

static json_int_t node_int(json_t *v, const char *key)
{
    return json_integer_value(json_object_get(v, key));
}

/* The `task` directive labelled `label` in the phase task of thread k (the
 * one at the largest line when `last`, else the smallest): its node. */
static json_t *directive_of(json_t *g, const char *label, int k, bool last)
{
    size_t i;
    json_t *v, *best = NULL;
    json_array_foreach(json_object_get(g, "nodes"), i, v)
    {
        int phase;
        const char *l = json_string_value(json_object_get(v, "label"));
        if (strcmp(l, label) || thread_phase(g, v, &phase) != k) continue;
        json_int_t line = json_integer_value(json_object_get(json_object_get(v, "loc"), "line"));
        json_int_t at =
            best ? json_integer_value(json_object_get(json_object_get(best, "loc"), "line")) : -1;
        if (!best || (last ? line > at : line < at)) best = v;
    }
    return best;
}

/* The block's `task` directive in thread k: measured by the runs of thread k
 * that ran the block (the C node's "runs" branch), exactly as many samples;
 * a thread that never ran it takes the WCET measured in the other thread at
 * the same code location ("wcet_from": "location"), or has no such node
 * (a masked block, in the filter's thread alone). */
static void expect_block(json_t *g, const char *label, bool last, int k, int ran)
{
    json_t *v = directive_of(g, label, k, last);
    if (!v) {
        cr_expect_eq(ran, 0, "thread %d ran the block of '%s', which its phase task lacks", k + 1,
                     label);
        return;
    }
    if (ran) {
        cr_expect_eq(node_int(v, "samples"), ran, "'%s' in thread %d: %lld samples, %d runs", label,
                     k + 1, (long long)node_int(v, "samples"), ran);
        cr_expect_null(json_object_get(v, "wcet_from"), "'%s' in thread %d borrowed", label, k + 1);
    } else {
        cr_expect_str_eq(json_string_value(json_object_get(v, "wcet_from")), "location",
                         "'%s' in thread %d, never run there", label, k + 1);
    }
    cr_expect_null(json_object_get(v, "unobserved"), "'%s' in thread %d unobserved", label, k + 1);
}

/* Every node measured: by its thread's own segments, or (a block the thread
 * never ran) by location; τ1's nodes run nothing (WCET 0); the C nodes
 * ("single run by this thread?") were passed in every run. */
static void expect_measured(json_t *g, int runs)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(g, "nodes"), i, v)
    {
        const char *id = json_string_value(json_object_get(v, "id"));
        const char *label = json_string_value(json_object_get(v, "label"));
        cr_expect_null(json_object_get(v, "unobserved"), "node %s unobserved", id);
        if (!strcmp(json_string_value(json_object_get(v, "task")), "t1"))
            cr_expect_eq(node_int(v, "wcet"), 0, "τ1 node %s", id);
        else if (!json_object_get(v, "wcet_from"))
            cr_expect_gt(node_int(v, "samples"), 0, "node %s: no sample", id);
        /* a path a thread never took borrows its twin's samples (by
         * location, annotate_compact.c): at least one per run */
        if (!strcmp(label, "single run by this thread?"))
            cr_expect_geq(node_int(v, "samples"), runs, "C node %s: %lld samples, %d runs", id,
                          (long long)node_int(v, "samples"), runs);
    }
}

/* ---- a program's runs ---- */

typedef struct measured {
    json_t *g; /* the annotated graph (owned) */
    int ran[2][PHASES];
    size_t runs, clean;
    double bound, worst;
} measured;

/* Extracts progs/team_single.c (with `flags` for the compiler), runs PROG
 * PROCS × ROUNDS regions at 2 threads, annotates, and checks what every
 * team graph must satisfy: no segment unmapped, annotate's responses the
 * raw records', the bound at m = 2 above every clean run, `check` passing. */
static measured measure(const char *prog, const char *flags)
{
    char g[600], cmd[4096], traces[PROCS * 620] = "", tr[600], out[600], msg[4096];
    measured m = {0};
    int64_t resp[PROCS * 64];
    snprintf(cmd, sizeof cmd, "%s extract %s/progs/team_single.c -o %s -- %s", OMPDAG_CLI_PATH,
             OMPDAG_PROBE_SRC, tmp("g.json", g, sizeof g), flags);
    cr_assert_eq(sh(cmd), 0, "%s", cmd);
    for (int p = 0; p < PROCS; ++p) {
        char name[32];
        snprintf(name, sizeof name, "%s%d.trace", prog, p);
        run_prog(prog, tmp(name, tr, sizeof tr));
        m.runs += responses(tr, resp + m.runs, 64);
        count_blocks(tr, m.ran);
        strcat(strcat(traces, " "), tr);
    }
    cr_assert_eq(m.runs, (size_t)PROCS * atoi(ROUNDS), "one response per region run");
    cr_assert_eq(annotate_graph(g, traces, tmp("a.json", out, sizeof out), msg, sizeof msg), 0,
                 "%s", msg);
    cr_expect(strstr(msg, ", 0 unmapped"), "every segment maps: %s", msg);
    m.g = graph_json(out);
    cr_assert_eq(json_integer_value(json_object_get(m.g, "team")), 2);
    json_t *obs = json_object_get(m.g, "observed_task_response_ns");
    json_t *intf = json_object_get(m.g, "observed_task_response_ns_interfered");
    cr_assert_eq(json_array_size(obs), m.runs);
    m.bound = report_bound(out);
    for (size_t i = 0; i < m.runs; ++i) {
        int64_t o = json_integer_value(json_array_get(obs, i));
        bool found = false;
        for (size_t k = 0; k < m.runs && !found; ++k)
            found = resp[k] == o;
        cr_expect(found, "annotate's response %lld is no run's", (long long)o);
        if (json_is_true(json_array_get(intf, i))) continue;
        ++m.clean;
        cr_expect_geq(m.bound, (double)o, "a clean run of %lld ns above the bound %.0f ns",
                      (long long)o, m.bound);
        m.worst = (double)o > m.worst ? (double)o : m.worst;
    }
    snprintf(cmd, sizeof cmd, "%s check %s --quiet >/dev/null 2>&1", OMPDAG_CLI_PATH, out);
    cr_expect_eq(sh(cmd), 0, "%s", cmd);
    fprintf(stderr,
            "%s, 2 threads%s: %zu runs, %zu clean; bound %.0f ns, clean max %.0f ns, "
            "bound / observed %.2f\n",
            prog, rt_allowed() ? " (SCHED_FIFO)" : "", m.runs, m.clean, m.bound, m.worst,
            m.worst > 0 ? m.bound / m.worst : 0);
    return m;
}

/* No clean run to compare: only allowed where SCHED_FIFO is not. */
static void expect_clean(const measured *m)
{
    if (!m->clean && !rt_allowed())
        cr_skip_test("no clean run without SCHED_FIFO (a loaded machine): nothing to compare");
    cr_assert_gt(m->clean, 0, "no clean run to compare under SCHED_FIFO");
}

Test(annotate_team_single, single_and_masked_blocks_map_by_the_thread_that_ran_them, .timeout = 300)
{
    measured m = measure("team_single", "");
    int runs = (int)m.runs;
    /* each single ran in one thread per run, the masked block in thread 0 */
    cr_expect_eq(m.ran[0][0] + m.ran[1][0], runs, "the single of phase 1, once per run");
    cr_expect_eq(m.ran[0][1] + m.ran[1][1], runs, "the single nowait of phase 2, once per run");
    cr_expect_eq(m.ran[0][2], runs, "masked: thread 0, every run");
    cr_expect_eq(m.ran[1][2], 0, "masked: never thread 1");
    for (int k = 0; k < 2; ++k) {
        expect_block(m.g, "task work(4000)", false, k, m.ran[k][0]);
        expect_block(m.g, "task work(2500)", false, k, m.ran[k][1]);
        expect_block(m.g, "task work(3500)", false, k, m.ran[k][2]);
    }
    expect_measured(m.g, runs);
    /* a start sample per task source a clean run ran: its 9 explicit tasks,
     * and each thread's phase after each of the 2 barriers (the single's
     * and the explicit one) */
    json_t *start = json_object_get(json_object_get(m.g, "runtime_overheads"), "start");
    if (m.clean)
        cr_expect_eq(json_integer_value(json_object_get(start, "samples")),
                     (json_int_t)m.clean * 13);
    expect_clean(&m);
    json_decref(m.g);
}

Test(annotate_team_single, taskloop_2_every_thread_and_a_single_run_taskloops, .timeout = 300)
{
    measured m = measure("team_single_taskloop", "-DTASKLOOP");
    int runs = (int)m.runs;
    cr_expect_eq(m.ran[0][0] + m.ran[1][0], runs, "the single, once per run");
    cr_expect_eq(m.ran[0][1] + m.ran[1][1] + m.ran[0][2] + m.ran[1][2], 0);
    for (int k = 0; k < 2; ++k) {
        /* every thread's taskloop (the first line), every run */
        json_t *v = directive_of(m.g, "taskloop chunk 1", k, false);
        cr_assert_not_null(v);
        cr_expect_eq(node_int(v, "samples"), runs, "thread %d's own taskloop", k + 1);
        /* the single's taskloop (the last line): in the threads that ran it */
        expect_block(m.g, "taskloop chunk 1", true, k, m.ran[k][0]);
    }
    expect_measured(m.g, runs);
    expect_clean(&m);
    json_decref(m.g);
}

/* ---- a thread's arrival ---- */

/* A segment of implicit task 7 on probe thread 1, from sk to ek, ending at
 * `end` (flags: OMPDAG_RECF_ROOT inside a single/masked body). */
static ompdag_trace_rec piece(uint8_t sk, uint8_t ek, uint8_t flags, uint64_t end)
{
    return (ompdag_trace_rec){.type = OMPDAG_REC_SEGMENT,
                              .start_kind = sk,
                              .end_kind = ek,
                              .flags = (uint8_t)(OMPDAG_RECF_IMPLICIT | flags),
                              .thread = 1,
                              .id = 7,
                              .time = end,
                              .dur = 10};
}

/* The arrival annot_arrival_record gives thread 1 after its implicit task's
 * first pieces: begin -> single begin at 110, body -> task directive at 120,
 * then -> barrier at 130. */
static uint64_t arrival(bool team)
{
    region_run run = {0};
    ompdag_trace_rec begin = {.type = OMPDAG_REC_SCHED, .thread = 1, .time = 100};
    annot_sched_record(&run, &begin);
    ompdag_trace_rec seq[] = {
        piece(OMPDAG_PT_TASK_BEGIN, OMPDAG_PT_ROOT_BEGIN, 0, 110),
        piece(OMPDAG_PT_ROOT_BEGIN, OMPDAG_PT_CREATE, OMPDAG_RECF_ROOT, 120),
        piece(OMPDAG_PT_CREATE, OMPDAG_PT_BARRIER, 0, 130),
    };
    for (size_t i = 0; i < sizeof seq / sizeof *seq; ++i)
        annot_arrival_record(&run, &seq[i], team);
    cr_assert_eq(run.nsched, 1);
    return run.sched[0].arrive;
}

/* A team graph's phase task has no scheduling point at a single's begin:
 * the thread can take tasks from the task directive on (120).  A
 * single/master region's τ1 begins there, so its thread arrives at 110. */
Test(annotate_team_single, a_threads_arrival_joins_the_pieces_of_its_first_segment)
{
    cr_expect_eq(arrival(true), 120);
    cr_expect_eq(arrival(false), 110);
}
