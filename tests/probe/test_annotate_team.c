/*
 * tests/probe/test_annotate_team.c — team graphs measured on real runs
 * (docs/probe.md "Team graphs", annotate/annotate_team.c): progs/team_phases
 * (num_threads(2); a worksharing loop creating tasks, a task per thread, an
 * explicit barrier, a task per thread) is extracted as a team graph, run
 * under the probe at 2 threads, several regions per process, and annotated:
 * no segment unmapped, every node measured, the bound at m = 2 at least
 * every clean run's response recomputed here from the raw records, `check`
 * passing only with the measurements; a run of a team of 3, a binary with a
 * barrier the graph lacks, a trace without the implicit tasks' thread
 * numbers and one that gives two of them one number are refused by name,
 * writing nothing.
 */
#include <criterion/criterion.h>
#include <jansson.h>

#include "probe/probe_util.h"
#include "probe/team_util.h"
#include "probe/trace_edit.h"
#include "test_tmpdir.h"

#define PROCS 3 /* processes */

/* The team graph of progs/team_phases.c, extracted once. */
static const char *graph(void)
{
    static char g[600];
    if (g[0]) return g;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s extract %s/progs/team_phases.c -o %s", OMPDAG_CLI_PATH,
             OMPDAG_PROBE_SRC, tmp("g.json", g, sizeof g));
    cr_assert_eq(sh(cmd), 0, "%s", cmd);
    return g;
}

/* annotate_graph on the team graph of progs/team_phases.c. */
static int annotate(const char *traces, const char *out, char *msg, size_t n)
{
    return annotate_graph(graph(), traces, out, msg, n);
}

/* Every node measured: a sample on every node, and τ1's (no code) WCET 0. */
static void expect_every_node_measured(json_t *g)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(g, "nodes"), i, v)
    {
        const char *id = json_string_value(json_object_get(v, "id"));
        cr_expect(json_integer_value(json_object_get(v, "samples")) > 0, "node %s: no sample", id);
        cr_expect_null(json_object_get(v, "unobserved"), "node %s unobserved", id);
        /* measured by its own thread's phase, not borrowed from a node at
         * the same line (each thread's code is mapped by thread number) */
        cr_expect_null(json_object_get(v, "wcet_from"), "node %s borrowed its WCET", id);
        if (!strcmp(json_string_value(json_object_get(v, "task")), "t1"))
            cr_expect_eq(json_integer_value(json_object_get(v, "wcet")), 0, "τ1 node %s", id);
    }
}

Test(annotate_team, a_team_graph_is_measured_and_bounds_every_clean_run, .timeout = 300)
{
    char traces[PROCS * 620] = "", tr[600], out[600], msg[4096];
    int64_t resp[PROCS * 64];
    size_t nresp = 0;
    for (int p = 0; p < PROCS; ++p) {
        char name[32];
        snprintf(name, sizeof name, "t%d.trace", p);
        run_prog("team_phases", tmp(name, tr, sizeof tr));
        nresp += responses(tr, resp + nresp, 64);
        strcat(strcat(traces, " "), tr);
    }
    cr_assert_eq(nresp, (size_t)PROCS * atoi(ROUNDS), "one response per region run");
    cr_assert_eq(annotate(traces, tmp("a.json", out, sizeof out), msg, sizeof msg), 0, "%s", msg);
    cr_expect(strstr(msg, ", 0 unmapped"), "every segment maps: %s", msg);
    json_t *g = graph_json(out);
    cr_assert_eq(json_integer_value(json_object_get(g, "team")), 2);
    expect_every_node_measured(g);
    /* annotate's responses are the ones recomputed here, run by run */
    json_t *obs = json_object_get(g, "observed_task_response_ns");
    json_t *intf = json_object_get(g, "observed_task_response_ns_interfered");
    cr_assert_eq(json_array_size(obs), nresp);
    double bound = report_bound(out), worst = 0;
    size_t clean = 0;
    for (size_t i = 0; i < nresp; ++i) {
        int64_t o = json_integer_value(json_array_get(obs, i));
        bool found = false;
        for (size_t k = 0; k < nresp && !found; ++k)
            found = resp[k] == o;
        cr_expect(found, "annotate's response %lld is no run's", (long long)o);
        if (json_is_true(json_array_get(intf, i))) continue;
        ++clean;
        cr_expect_geq(bound, (double)o, "a clean run of %lld ns above the bound %.0f ns",
                      (long long)o, bound);
        worst = (double)o > worst ? (double)o : worst;
    }
    if (!clean && !rt_allowed()) /* every run preempted: nothing the bound claims */
        cr_skip_test("no clean run without SCHED_FIFO (a loaded machine): nothing to compare");
    cr_assert_gt(clean, 0, "no clean run to compare under SCHED_FIFO");
    /* a start sample per task source a clean run ran: its 8 explicit tasks,
     * and each thread's phase after each of the 2 barriers (the barrier's
     * release, annotate_overhead.c); phase 1's lateness goes to formation */
    json_t *start = json_object_get(json_object_get(g, "runtime_overheads"), "start");
    cr_expect_eq(json_integer_value(json_object_get(start, "samples")), (json_int_t)clean * 12);
    fprintf(stderr,
            "team graph, 2 threads%s: %zu runs, %zu clean; bound %.0f ns, clean max %.0f ns, "
            "bound / observed %.2f\n",
            rt_allowed() ? " (SCHED_FIFO)" : "", nresp, clean, bound, worst, bound / worst);
    json_decref(g);
    /* check passes with the measurements, and calls the graph unmeasured
     * without them */
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s check %s --quiet >/dev/null 2>&1", OMPDAG_CLI_PATH, out);
    cr_expect_eq(sh(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "%s check %s 2>&1 | grep -q ompdag-unmeasured", OMPDAG_CLI_PATH,
             graph());
    cr_expect_eq(sh(cmd), 0, "%s", cmd);
    /* the report says why a team graph has no floor, not "no clean run" */
    snprintf(cmd, sizeof cmd,
             "%s report %s --threads 2 | grep -q 'floor: n/a (not computed for a team graph'",
             OMPDAG_CLI_PATH, out);
    cr_expect_eq(sh(cmd), 0, "%s", cmd);
}

Test(annotate_team, a_run_of_another_team_size_is_refused_by_name, .timeout = 120)
{
    char tr[600], out[600], msg[4096], cmd[4096];
    snprintf(cmd, sizeof cmd,
             "OMPDAG_PROBE_LIB=%s %s run --quiet --trace %s -- %s/team_phases3 2 >/dev/null",
             OMPDAG_PROBE_LIB_PATH, OMPDAG_CLI_PATH, tmp("t3.trace", tr, sizeof tr),
             OMPDAG_PROBE_PROGS);
    cr_assert_eq(sh(cmd), 0, "%s", cmd);
    cr_assert_eq(annotate(tr, tmp("a3.json", out, sizeof out), msg, sizeof msg), 1, "%s", msg);
    cr_expect(strstr(msg, "team of 3 threads") && strstr(msg, "--team-size 3"), "%s", msg);
    cr_expect_neq(access(out, F_OK), 0, "nothing is written");
}

Test(annotate_team, a_barrier_the_graph_lacks_is_refused_by_name, .timeout = 120)
{
    char tr[600], out[600], msg[4096];
    run_prog("team_phases_extra", tmp("tx.trace", tr, sizeof tr));
    cr_assert_eq(annotate(tr, tmp("ax.json", out, sizeof out), msg, sizeof msg), 1, "%s", msg);
    cr_expect(strstr(msg, "passed 4 barrier(s)") && strstr(msg, "3 phase(s)"), "%s", msg);
    cr_expect_neq(access(out, F_OK), 0, "nothing is written");
}

/* A trace without OMPDAG_REC_IMPLICIT (an older probe): made from a real
 * one by turning those records into harmless ones. */
static void hide_implicit(ompdag_trace_rec *r)
{
    if (r->type != OMPDAG_REC_IMPLICIT) return;
    uint64_t time = r->time;
    uint32_t thread = r->thread;
    memset(r, 0, sizeof *r); /* an offload record of no task: annotate skips it */
    r->type = OMPDAG_REC_OFFLOAD;
    r->time = time, r->thread = thread;
}

Test(annotate_team, a_trace_without_thread_numbers_is_refused_by_name, .timeout = 120)
{
    char tr[600], old[600], out[600], msg[4096];
    run_prog("team_phases", tmp("tn.trace", tr, sizeof tr));
    cr_assert(trace_edit(tr, tmp("old.trace", old, sizeof old), hide_implicit));
    cr_assert_eq(annotate(old, tmp("an.json", out, sizeof out), msg, sizeof msg), 1, "%s", msg);
    cr_expect(strstr(msg, "does not say which thread ran implicit task"), "%s", msg);
    cr_expect_neq(access(out, F_OK), 0, "nothing is written");
}

/* A trace naming both implicit tasks of each run thread 1: a corrupt trace,
 * never one thread's phases mapped onto the other's tasks. */
static void one_thread_number(ompdag_trace_rec *r)
{
    if (r->type == OMPDAG_REC_IMPLICIT) r->cp_start = 0;
}

Test(annotate_team, two_implicit_tasks_of_one_thread_number_are_refused, .timeout = 120)
{
    char tr[600], bad[600], out[600], msg[4096];
    run_prog("team_phases", tmp("td.trace", tr, sizeof tr));
    cr_assert(trace_edit(tr, tmp("dup.trace", bad, sizeof bad), one_thread_number));
    cr_assert_eq(annotate(bad, tmp("ad.json", out, sizeof out), msg, sizeof msg), 1, "%s", msg);
    cr_expect(strstr(msg, "as thread 1 of its team: a corrupt trace"), "%s", msg);
    cr_expect_neq(access(out, F_OK), 0, "nothing is written");
}
