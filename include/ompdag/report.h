/*
 * ompdag/report.h — per-region timing reports, deadline verdicts, and a
 * schedule simulator that checks every bound independently.
 *
 * Reports: for every graph of an annotated con-DAG set and every thread count
 * m, the bound that holds — the exact bound of Sun et al. 2020 (Theorem 1 with Alg1,
 * include/ompdag/rta.h), or with tied tasks the bound under OpenMP's task
 * scheduling constraint (ompdag_rta_tied_bound) with Graham's beside it —,
 * its worst-case flow and critical path by source location, the observed
 * response times the probe recorded (per team size), whether the WCETs were
 * measured at all, and the verdict against a deadline
 * (`#pragma ompdag deadline(5ms)`, carried as the graph key "deadline", or
 * given on the command line).  Written as text, JSON, CSV, SARIF 2.1.0 or one
 * self-contained HTML page.
 *
 * Verdicts are exact: bound ≤ deadline is decided on integers,
 * bound_times_m · unit_ns ≤ deadline_ns · m, never on rounded doubles.
 *
 * Simulator: a discrete-event simulation of work-conserving list scheduling of
 * untied tasks on m threads, work-first (WFS) or breadth-first (BFS).  Graham's
 * argument behind Theorem 1 says every such schedule of a flow e finishes within
 * len(e) + (vol(e) − len(e))/m; the simulator shares no code with the bound, so
 * "simulated ≤ bound" on random graphs is a second, independent check.
 */
#ifndef OMPDAG_REPORT_H
#define OMPDAG_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ompdag/condag.h"
#include "ompdag/error.h"
#include "ompdag/rta.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- durations ------------------------------------------------------------- */

/* Parses a duration "5ms", "10.7us", "800 us", "2s", "150ns" into nanoseconds.
 * Units ns, us, ms, s are required; decimals are allowed down to 1 ns (a value
 * finer than 1 ns, e.g. "1.5ns", is refused rather than rounded). */
ompdag_status ompdag_duration_parse(const char *text, int64_t *ns, ompdag_error *err);

/* Formats ns for people: "6.2 ms", "800 us", "12 ns" (3 significant digits).
 * Writes into buf (always NUL-terminated) and returns buf. */
const char *ompdag_duration_format(double ns, char *buf, size_t size);

/* Nanoseconds per unit of a graph's "time_unit" ("ns", "us", "ms", "s");
 * 0 when the unit is not a time (e.g. "cycles"). */
int64_t ompdag_time_unit_ns(const char *unit);

/* ---- deadlines given on the command line ----------------------------------- */

typedef struct ompdag_deadlines ompdag_deadlines;

/* Creates an empty list.  NULL on allocation failure.  Free with
 * ompdag_deadlines_destroy(). */
ompdag_deadlines *ompdag_deadlines_create(void);
void ompdag_deadlines_destroy(ompdag_deadlines *d); /* NULL is a no-op */

/* Adds "FUNCTION=5ms" or "FILE:LINE=800us".  FILE:LINE names the region's
 * `parallel` line (FILE matches by path suffix); FUNCTION names every region
 * of that function.  A FILE:LINE entry wins over a FUNCTION entry, and both
 * win over the graph's own "deadline".  The spec is copied. */
ompdag_status ompdag_deadlines_add(ompdag_deadlines *d, const char *spec, ompdag_error *err);

/* ---- reports ----------------------------------------------------------------- */

typedef enum ompdag_verdict {
    OMPDAG_VERDICT_NO_DEADLINE = 0, /* "no-deadline" */
    OMPDAG_VERDICT_PASS = 1,        /* "pass": bound <= deadline */
    OMPDAG_VERDICT_FAIL = 2,        /* "fail": bound > deadline */
    OMPDAG_VERDICT_REFUTED = 3,     /* "refuted": a clean observed run took longer than the
                                       bound, whatever the deadline (the measurements say the
                                       bound is wrong: an unmodelled cost, or a WCET too low) */
    OMPDAG_VERDICT_UNSAFE = 4,      /* "unsafe": the graph says why its bound proves nothing
                                       (graph key "unsafe": dropped segments, a dependence
                                       order the runtime disagreed with, an escape hatch of
                                       annotate such as --unobserved zero or --no-overheads;
                                       or "wcet_method" of an older annotate saying
                                       "unobserved": "zero" or "overheads": "none") */
    OMPDAG_VERDICT_UNMEASURED = 5   /* "unmeasured": the WCETs were never measured (no
                                       "wcet_method" and total WCET 0: not annotated), or the
                                       annotation mapped no segment or saw no run of the
                                       region; nothing backs the bound */
} ompdag_verdict;

const char *ompdag_verdict_name(ompdag_verdict v);

typedef enum ompdag_report_format {
    OMPDAG_REPORT_TEXT = 0,
    OMPDAG_REPORT_JSON,
    OMPDAG_REPORT_CSV,
    OMPDAG_REPORT_SARIF,
    OMPDAG_REPORT_HTML
} ompdag_report_format;

/* Parses "text", "json", "csv", "sarif" or "html"; false otherwise. */
bool ompdag_report_format_parse(const char *name, ompdag_report_format *out);

/* Fill with ompdag_report_options_init() before setting fields, never with = {0} or a
 * braced list: later versions add fields at the end, and the init function
 * gives them their defaults, so a caller keeps compiling and meaning the same. */
typedef struct ompdag_report_options {
    const int32_t *threads; /* m values; NULL/0: each graph's own "threads" */
    int thread_count;
    int32_t default_threads; /* used for graphs without "threads" when the list is empty; 0: none
                                (error) */
    const ompdag_deadlines *deadlines; /* borrowed, may be NULL */
    int64_t migration_overhead;        /* per migration, in each graph's unit (rta.h) */
    ompdag_migration_model migration_model;
    const char *input_name; /* shown in reports ("-" for stdin); borrowed */
    const struct ompdag_advice
        *advice;    /* borrowed, NULL: none; granularity advice to show (advise.h) */
    bool for_input; /* judge deadlines by the bound for the input the traces ran where annotate
                       recorded one (input_bound_ns, docs/probe.md#input); else the graph's */
} ompdag_report_options;

/* Fills defaults: threads from the file, no deadlines, no overhead, WFS. */
void ompdag_report_options_init(ompdag_report_options *opt);

/* The observed runs of one team size (annotate's "observed_*_threads"
 * arrays, docs/report.md).  Maxima are in ns, -1 when there is no such run. */
typedef struct ompdag_report_observation {
    int32_t threads; /* team size of these runs; 0: not recorded (older files) */
    int64_t runs;    /* clean + interfered */
    int64_t clean, interfered;
    double max_ns;            /* max over the clean runs (task system when recorded, else
                                 the whole region: the quantity observed_max_ns uses) */
    double region_max_ns;     /* max over the clean runs of "observed_response_ns" */
    double interfered_max_ns; /* max over the interfered runs */
} ompdag_report_observation;

/* Why the bound is what it is (issue 23 item 6; docs/report.md, "breakdown"):
 * each factor between the bound and the observed runs, and the floor — per
 * clean run, Graham's bound of that run's own DAG with its own times and
 * delays, over its response (annotate's graph key "floor", docs/probe.md).
 * -1 (or 0 outliers) where a figure is not available. */
#define OMPDAG_REPORT_OUTLIERS 3
typedef struct ompdag_report_outlier {
    char place[160]; /* "fib.c:12 (T node n3)": ompdag_condag_node_place */
    double max_ns, median_ns;
    double ratio; /* max ÷ median of the node's samples */
} ompdag_report_outlier;

typedef struct ompdag_report_breakdown {
    bool has_floor;          /* the graph carries annotate's "floor" (annotated since issue
                                23): only then do the text, HTML and JSON reports show the
                                breakdown (older files keep their reports unchanged) */
    int64_t flow_tasks;      /* tasks the worst flow runs (root included); -1: compact graph */
    int64_t observed_tasks;  /* most tasks one run ran (root included), over runs at m */
    double vol_ns;           /* the worst flow's volume (WCETs, ns) */
    double observed_work_ns; /* most work one clean run at m did: its segment times summed */
    double delay_ns;         /* dispatch delays in Graham's m·R, divided by m (ns) */
    double delay_share;      /* delay_ns ÷ Graham's bound, 0..1 */
    double formation_ns;     /* team formation's part of delay_ns (ns): ceil(F / m0) on the
                                root's source (docs/overheads.md); -1 when not stated */
    bool delays_folded;      /* delays are folded into the WCETs (older annotate) */
    double margin_pct;       /* the WCET margin annotate applied */
    int32_t outlier_count;   /* locations in outliers[], largest max ÷ median first */
    ompdag_report_outlier outliers[OMPDAG_REPORT_OUTLIERS];
    int64_t floor_runs; /* clean runs at m with a floor */
    double floor_min, floor_median, floor_max;
    int64_t floor_below_one;    /* runs at m (any) whose floor is below 1: a measurement bug */
    double bound_over_observed; /* bound ÷ observed max, beside the floor */
    /* The factors that multiply to bound ÷ observed (docs/report.md#breakdown),
     * each -1 when unknown: graph = flow_tasks ÷ observed_tasks; wcets =
     * vol_ns ÷ observed_work_ns ÷ graph ÷ margin (one WCET per location, its
     * maximum over every instance); delays = 1 ÷ (1 − delay_share); margin =
     * 1 + margin_pct/100; floor = floor_median. */
    double factor_graph, factor_wcets, factor_delays, factor_margin;
    const char *largest; /* the factor to attack first: "graph larger than the run",
                            "one WCET per code location" (for a compact graph, whose
                            flow's tasks are not counted, "graph larger than the run or
                            one WCET per code location (not told apart: compact
                            graph)"), "dispatch delays", "margin", "Graham (the floor)";
                            NULL when unknown.  Static text. */
    const char *floor_why; /* annotate's reason for not computing the floor (a team graph:
                              a run's own DAG has no barrier edges), borrowed from the set;
                              NULL when it gave none */
} ompdag_report_breakdown;

/* One (region, m) pair of a report.  Every field is read-only; strings are
 * borrowed from the report (and its set). */
typedef struct ompdag_report_row {
    size_t graph;         /* index in the set */
    const char *function; /* the graph's "function", else its "name", else "graph N" */
    ompdag_loc loc;       /* the region's `parallel` directive (may be unknown) */
    int32_t m;
    int64_t bound_times_m; /* m·R of the bound that holds, in the graph's unit: Graham's
                              exact bound, or with tied tasks the bound under the task
                              scheduling constraint (ompdag_rta_tied_bound, tied_rule) */
    double bound;          /* bound_times_m / m, graph's unit */
    double bound_ns;       /* -1 when the unit is not a time */
    int64_t vol, len;      /* of the worst flow, graph's unit */
    int32_t tasks, nodes;
    double observed_max_ns;        /* max over clean (not interfered) runs at this m (team size m,
                                      or not recorded) of
                                      "observed_task_response_ns" (root begin -> last task end, what
                                      Theorem 1 bounds), else of "observed_response_ns"; -1 when
                                      absent */
    double observed_region_max_ns; /* max of "observed_response_ns" (parallel begin -> end,
                                      fork/join included); -1 when absent */
    int64_t deadline_ns;           /* -1 when none */
    const char *deadline_from; /* "pragma", or the --deadline spec ("main=5ms"); NULL when none */
    double slack_ns;           /* deadline − bound; meaningful only with a deadline */
    ompdag_verdict verdict;
    int32_t tied_tasks;                /* T nodes marked "untied": false */
    int64_t runs;                      /* observed runs behind observed_max_ns (clean + interfered),
                                          those of team size m where team sizes were recorded */
    int64_t runs_interfered;           /* runs whose threads were preempted or migrated (probe) */
    double observed_interfered_max_ns; /* max over those runs; -1 when none */
    const char *unsafe_reason;         /* why the bound is unsafe (graph key "unsafe"), else NULL */
    bool depend;                       /* the graph has depend clauses (condag.md §6) */
    bool exact;                        /* the bound is exact (always without depend) */
    int64_t fork_join_ns;   /* the measured fork + join overheads (max over the traces, cold
                               fork included, WCET margin applied); -1 when not measured */
    double region_bound_ns; /* bound_ns + fork_join_ns: the whole parallel region (parallel
                               begin -> end); -1 when fork/join were not measured.  Deadlines
                               and the region's observed runs are judged against it. */
    bool refuted_by_region; /* verdict refuted because a clean whole-region run exceeded
                               region_bound_ns while the task system stayed within bound_ns
                               (decided exactly, like the verdict) */
    /* The runtime's dependence order against the D-edges (annotate's
     * "depend_check", docs/probe.md#depend); -1 each when not checked. */
    int64_t depend_pairs;         /* dependences the runtime enforced */
    int64_t depend_disagreements; /* that make the bound unsafe (also in unsafe_reason) */
    int64_t depend_extra;         /* D-edges the runtime did not need (safe); the list of
                                     disagreements stays in the graph's "depend_check" */
    /* Tied tasks (issue 22): the bound above is the one that holds; Graham's
     * exact bound, what `untied` on every task directive would give, is here.
     * The worst flow, vol and len stay those of Graham's exact result. */
    int64_t untied_bound_times_m; /* Graham's exact m·R (== bound_times_m when untied) */
    double untied_bound_ns;       /* -1 when the unit is not a time */
    ompdag_tied_rule tied_rule;   /* the rule behind bound_times_m */
    /* Why nothing backs the bound (verdict unmeasured), else NULL; static text. */
    const char *unmeasured_reason;
    bool wcets_given;        /* nonzero WCETs without "wcet_method": given in the file,
                                not measured by ompdag */
    double verdict_bound_ns; /* the bound deadlines are judged against: region_bound_ns
                                when fork/join were measured, else bound_ns (-1: none) */
    bool team_size_recorded; /* the runs carry their team size; false: every run is
                                compared with every m (pooled, the conservative side) */
    const ompdag_report_observation *observations; /* per team size seen, ascending (0, "not
                                                      recorded", first); borrowed */
    size_t observation_count;
    ompdag_report_breakdown breakdown; /* why the bound is what it is (report_breakdown.c) */
    /* The bound for the input the traces ran (docs/probe.md#input): the graph
     * pruned to the task instances and branches every run took, with each
     * instance's own dispatch delays.  -1 when annotate recorded no input;
     * then input_why says why (NULL: annotated before inputs were recorded).
     * Never above bound_times_m.  Strings are borrowed from the graph. */
    int64_t input_bound_times_m;
    double input_bound_ns;
    int64_t input_graham_times_m; /* Graham's exact bound of the same DAG (what the bound would
                                     be if no task, the root included, were tied); -1: none */
    ompdag_tied_rule input_tied_rule;
    /* Why the input's tied rule may assume, or may not, that no task creation
     * suspends the root (docs/tied.md §4b), from the runtime annotate
     * recorded; "" when it recorded none (then it does not). */
    char input_root_creation[192];
    const char *input_claim;       /* "the task structure of these 15 runs" */
    const char *input_delay_model; /* which delay model gave input_bound (docs/probe.md#input):
                                      "instance maxima" or "instance medians + the largest run
                                      excess"; static text */
    const char *input_why;
    bool judged_for_input; /* options.for_input and an input was recorded: verdict_bound_ns
                              and the deadline's verdict rest on input_bound_times_m */
    bool refuted_input;    /* verdict refuted because a clean run exceeded the input's bound */
} ompdag_report_row;

typedef struct ompdag_report ompdag_report;

/* Analyses every graph of `set` for every m (exact algorithm) and applies
 * deadlines.  The report borrows `set` (it must outlive the report) and copies
 * everything else.  Fails when a graph has no thread count, when a deadline
 * applies to a graph whose time unit is not a time, when a --deadline entry
 * matches no region, or when the analysis fails (overflow).  On success *out
 * owns a new report: free it with ompdag_report_destroy(). */
ompdag_status ompdag_report_create(const ompdag_condag_set *set, const ompdag_report_options *opt,
                                   ompdag_report **out, ompdag_error *err);
void ompdag_report_destroy(ompdag_report *r); /* NULL is a no-op */

size_t ompdag_report_row_count(const ompdag_report *r);
/* Borrowed from the report; NULL when i is out of range. */
const ompdag_report_row *ompdag_report_row_get(const ompdag_report *r, size_t i);
/* The exact result behind row i (witness choices, critical path); borrowed. */
const ompdag_rta_result *ompdag_report_row_result(const ompdag_report *r, size_t i);
/* Rows whose verdict is fail, refuted, unsafe or unmeasured. */
size_t ompdag_report_fail_count(const ompdag_report *r);

/* Renders a Graphviz DOT text to SVG (HTML reports).  On success *svg is a new
 * malloc'ed, NUL-terminated string the report frees.  The library never runs
 * programs itself; the CLI passes one that pipes through `dot -Tsvg`. */
typedef ompdag_status (*ompdag_svg_renderer)(const char *dot, size_t len, char **svg, void *ctx,
                                             ompdag_error *err);

/* Writes the report in one format.  `render` (HTML only) may be NULL: the page
 * then has no drawings.  `out` is only written to. */
ompdag_status ompdag_report_write(const ompdag_report *r, ompdag_report_format fmt, FILE *out,
                                  ompdag_svg_renderer render, void *render_ctx, ompdag_error *err);

/* ---- deadline diagnostics for the compiler plugin --------------------------- */

typedef struct ompdag_deadline_violation {
    ompdag_loc loc;    /* the region (file borrowed from the graphs) */
    char message[256]; /* "bound 6.2 ms on 4 threads exceeds deadline 5 ms [ompdag-deadline]" */
    int64_t bound_times_m;
    int32_t m;
    int64_t deadline_ns;
} ompdag_deadline_violation;

/* For the plugin's -fplugin-arg-ompdag-wcet=FILE: `current` holds the graphs
 * just extracted from the source being compiled (WCET 0, current locations and
 * deadlines) and `wcet_db` the annotated graphs of earlier runs.  Each current
 * graph with a deadline is matched to a db graph with the same "region_key"
 * (else the same region file:line); the db graph's WCETs are analysed with
 * m = `threads` (0: the graph's own "threads"; regions without one are skipped)
 * against the current deadline.  `current` may be NULL: the db graphs are then
 * checked against their own deadlines.  *out gets a new array of *count
 * violations (free with free(); NULL when none); locations are those of the
 * current graphs, whose strings stay valid while `current` (or the db) lives. */
ompdag_status ompdag_deadline_violations(const ompdag_condag_set *current,
                                         const ompdag_condag_set *wcet_db, int32_t threads,
                                         ompdag_deadline_violation **out, size_t *count,
                                         ompdag_error *err);

/* ---- simulator ---------------------------------------------------------------- */

typedef enum ompdag_scheduler {
    OMPDAG_SCHED_WFS =
        0,               /* work-first: the creator runs the child, its continuation is stealable */
    OMPDAG_SCHED_BFS = 1 /* breadth-first: the creator continues, children go to a FIFO queue */
} ompdag_scheduler;

/* Parses "wfs" or "bfs"; false otherwise. */
bool ompdag_scheduler_parse(const char *name, ompdag_scheduler *out);
const char *ompdag_scheduler_name(ompdag_scheduler s);

typedef struct ompdag_sim ompdag_sim;

/* Prepares a simulator for one finalized graph, which it borrows (the graph
 * must outlive it).  *out owns it: free with ompdag_sim_destroy(). */
ompdag_status ompdag_sim_create(const ompdag_condag *g, ompdag_sim **out, ompdag_error *err);
void ompdag_sim_destroy(ompdag_sim *s); /* NULL is a no-op */

typedef struct ompdag_sim_result {
    int64_t makespan; /* response time: last completion, the root source starting at 0 */
    int64_t events;   /* node completions processed */
    int64_t steals;   /* WFS: nodes taken from another thread's deque */
    int64_t busy;     /* sum of execution times (= volume actually run) */
    int32_t executed; /* nodes of the flow */
} ompdag_sim_result;

/* Simulates one flow.  `choice` fixes the branch at every executed C node
 * (as in ompdag_flow_evaluate); `exec` gives each node's execution time
 * (0 <= exec[v] <= WCET; NULL: exactly the WCETs).  `seed` picks steal
 * victims (WFS).  The run checks its own invariants (never idle while work is
 * ready, every node runs once after all its predecessors) and fails with
 * OMPDAG_ERR_INVALID naming the broken one. */
ompdag_status ompdag_sim_run(ompdag_sim *s, const int32_t *choice, const int64_t *exec, int32_t m,
                             ompdag_scheduler sched, uint64_t seed, ompdag_sim_result *out,
                             ompdag_error *err);

/* ompdag_sim_run with dispatch delays (docs/overheads.md): node v, once all
 * its predecessors completed at time r, joins the ready set at r + delay[v]
 * (threads may idle meanwhile); delay NULL is ompdag_sim_run.  delay[v] >= 0.
 * With delay[v] <= D(v) of include/ompdag/overhead.h, every response stays
 * within the exact bound with D on the critical chain only (the graph's
 * node delays, ompdag_condag_assign_overheads), hence within the folded one. */
ompdag_status ompdag_sim_run_delayed(ompdag_sim *s, const int32_t *choice, const int64_t *exec,
                                     const int64_t *delay, int32_t m, ompdag_scheduler sched,
                                     uint64_t seed, ompdag_sim_result *out, ompdag_error *err);

/* The tightness of the exact bound on g for m threads, for experiments: the
 * largest simulated response time (WFS and BFS, WCET execution times, the
 * exact worst flow plus `random_flows` random flows drawn from `seed`) divided
 * by the bound, in [0, 1] when the bound holds.  *max_response gets that
 * response (may be NULL).  Fails like ompdag_rta_run / ompdag_sim_run, and
 * with OMPDAG_ERR_INVALID if a response exceeds the bound. */
ompdag_status ompdag_sim_tightness(const ompdag_condag *g, int32_t m, int32_t random_flows,
                                   uint64_t seed, double *ratio, int64_t *max_response,
                                   ompdag_error *err);

/* Draws a uniformly random branch at every C node into choice[] (one entry
 * per node, -1 for non-C nodes), from the generator's PRNG (gen.h). */
struct ompdag_rng;
void ompdag_sim_random_choice(const ompdag_condag *g, struct ompdag_rng *rng, int32_t *choice);

/* Steps choice[] to the next distinct flow in a fixed order over the C nodes
 * that flow executes (start from every C at its first successor); returns
 * false after the last one.  `executed` is scratch of node_count bytes. */
bool ompdag_sim_next_flow(const ompdag_condag *g, int32_t *choice, uint8_t *executed);

/* ompdag_sim_next_flow on s's graph, same order and flows, in time linear in
 * the nodes the flow executes (plus the C nodes after the one it steps), not
 * in the graph: for sweeps over the flows of wide branches. */
bool ompdag_sim_next(ompdag_sim *s, int32_t *choice);

/* The nodes of the flow last marked, in ascending index order; *count of
 * them: after ompdag_sim_run the flow it ran, after ompdag_sim_next the flow
 * it stepped from.  Owned by s, valid until its next run, step or destroy. */
const int32_t *ompdag_sim_flow_nodes(const ompdag_sim *s, int32_t *count);

#ifdef __cplusplus
}
#endif
#endif
