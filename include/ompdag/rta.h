/*
 * ompdag/rta.h — response-time analysis of a con-DAG on m threads.
 *
 * Theorem 1 of Sun et al. 2020 (Graham 1966, Serrano et al. 2015): under
 * work-conserving scheduling of untied tasks,
 *     R <= max over flows e of  len(e) + (vol(e) - len(e)) / m.
 * Everything is exact integer arithmetic on   m·R = vol(e) + (m-1)·len(e).
 *
 * Three algorithms (docs/condag.md §3), which satisfy
 *     enumerate == exact <= alg0,
 * and for graphs with depend clauses (§6) a fourth, OMPDAG_ALG_DEPEND
 * (enumerate <= depend, equal when the result says it is exact); alg0
 * refuses such graphs:
 *   OMPDAG_ALG_EXACT      Alg1 of Sun et al. 2020, one reverse-topological pass, O(V+E)
 *   OMPDAG_ALG_ALG0       the RTAS'19 baseline (pessimistic)
 *   OMPDAG_ALG_ENUMERATE  the oracle: every flow, up to a limit
 */
#ifndef OMPDAG_RTA_H
#define OMPDAG_RTA_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ompdag/condag.h"
#include "ompdag/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ompdag_algorithm {
    OMPDAG_ALG_EXACT = 0,
    OMPDAG_ALG_ALG0 = 1,
    OMPDAG_ALG_ENUMERATE = 2,
    OMPDAG_ALG_DEPEND = 3 /* §6: sibling dependences; `exact` on a graph with
                             depend clauses runs this one */
} ompdag_algorithm;

/* Which scheduler the migration overhead is charged for (Sun et al. 2020, §3.4):
 * WFS migrates at most once per T node, BFS at most once per W node. */
typedef enum ompdag_migration_model {
    OMPDAG_MIGRATION_WFS = 0,
    OMPDAG_MIGRATION_BFS = 1
} ompdag_migration_model;

#define OMPDAG_DEFAULT_MAX_FLOWS 1000000ULL

/* Fill with ompdag_rta_options_init() before setting fields, never with = {0} or a
 * braced list: later versions add fields at the end, and the init function
 * gives them their defaults, so a caller keeps compiling and meaning the same. */
typedef struct ompdag_rta_options {
    int32_t m;                  /* threads, >= 1 */
    uint64_t max_flows;         /* enumerate only; 0 means OMPDAG_DEFAULT_MAX_FLOWS */
    int64_t migration_overhead; /* O >= 0 per migration, in the graph's unit; 0: none */
    ompdag_migration_model migration_model;
    bool bound_only; /* exact: skip rebuilding the worst flow (no witness) */
    /* Dispatch delays D(v) of the graph (ompdag_condag_node_delay,
     * docs/overheads.md).  false (default): on the critical chain only,
     *     m·R <= max over flows e, paths p of e of
     *            vol(e) + Σ_{v∈p} ((m−1)·WCET(v) + m·D(v)),
     * computed exactly by exact, depend and enumerate.  true: folded, WCET + D
     * everywhere (the older, looser figure; what a volume argument such as the
     * tied-task bound needs).  alg0 and the GPU batch always fold (sound). */
    bool fold_delays;
    /* Lock blocking (ompdag/locks.h, docs/mutex.md): the thread count the
     * term B(v, m) is charged for; 0 (default) means m.  A caller that runs
     * the algorithm at another m for a volume (the tied bound at m = 1) keeps
     * the real team size here, since the other threads still spin. */
    int32_t blocking_m;
    /* Tied bound (ompdag_rta_tied_bound) only.  true: the caller knows that
     * no task-creation point of the root suspends the root; after each of
     * its T nodes the root's thread goes on with the root at once.  That is
     * libomp with at most 256 explicit tasks per flow (or task throttling
     * off) and KMP_TASKING at its default (docs/tied.md §4b).  An undeferred
     * task (if(0)) is still a T node followed by a W node, and the root still
     * suspends at that W.  The root rule then becomes OMPDAG_TIED_ROOT_WAITS.
     * false (default): any creation point may suspend the root. */
    bool root_creation_never_suspends;
    /* Tied bound only.  true: the rules ROOT and ROOT_WAITS take their
     * chain-only form (docs/tied.md §4, "Dispatch delays") even where the
     * folded one is smaller, because the caller's delays hold on one chain
     * only (the input's run budget along a path, docs/probe.md#input);
     * VOLUME still folds, and a caller with such delays must not use a
     * VOLUME result.  false (default): the smaller of the two forms. */
    bool delays_on_chain_only;
} ompdag_rta_options;

/* Fills defaults: max_flows = 10^6, no migration overhead, WFS, witness on,
 * delays on the chain only. */
void ompdag_rta_options_init(ompdag_rta_options *opt, int32_t m);

typedef struct ompdag_rta_result ompdag_rta_result;

/* Runs one algorithm.  On success *out owns a new result; free it with
 * ompdag_rta_result_destroy().  Fails with OMPDAG_ERR_OVERFLOW when 2m times
 * the graph's total WCET plus delays does not fit in int64 (so no value can wrap), and (enumerate)
 * with OMPDAG_ERR_LIMIT, naming the number of flows, above opt->max_flows. */
ompdag_status ompdag_rta_run(const ompdag_condag *g, ompdag_algorithm alg,
                             const ompdag_rta_options *opt, ompdag_rta_result **out,
                             ompdag_error *err);

void ompdag_rta_result_destroy(ompdag_rta_result *r);

ompdag_algorithm ompdag_rta_result_algorithm(const ompdag_rta_result *r);
int32_t ompdag_rta_result_m(const ompdag_rta_result *r);
/* The exact integer m·R (migration overhead included when asked for). */
int64_t ompdag_rta_result_bound_times_m(const ompdag_rta_result *r);
/* bound_times_m / m as a double, for display only. */
double ompdag_rta_result_bound(const ompdag_rta_result *r);

/* True when the figure is the exact right-hand side of Theorem 1 (what
 * enumerate would give): always for exact and enumerate, for depend unless it
 * had to merge vars (see docs/analysis.md), never for alg0. */
bool ompdag_rta_result_is_exact(const ompdag_rta_result *r);

/* True for exact, enumerate and depend: the result carries a worst-case flow. */
bool ompdag_rta_result_has_witness(const ompdag_rta_result *r);
/* The worst flow's volume (WCETs; WCET + D when delays are folded) and its
 * critical path's length with the path's delays, Σ (WCET + D).  Without
 * delays bound_times_m = vol + (m−1)·len (+ migrations); with chain-only
 * delays it is vol + Σ_path ((m−1)·WCET + m·D).  -1 without witness. */
int64_t ompdag_rta_result_vol(const ompdag_rta_result *r);
int64_t ompdag_rta_result_len(const ompdag_rta_result *r);
/* Number of migrations charged on the worst flow (0 when no overhead). */
int64_t ompdag_rta_result_migrations(const ompdag_rta_result *r);
/* Chosen F-successor of C node v in the worst flow; -1 when v is not a C
 * node or is not executed in that flow. */
int32_t ompdag_rta_result_choice(const ompdag_rta_result *r, int32_t v);
/* The critical path of the worst flow, source of the root task first.
 * Borrowed from the result. */
const int32_t *ompdag_rta_result_critical_path(const ompdag_rta_result *r, int32_t *count);
/* Compact graphs (ompdag/compact.h, docs/compact.md): the witness covers
 * every instance of a shared body.  The critical path holds body nodes, at
 * most 65536 of them; path_nodes is the whole path's node count (saturating
 * at UINT64_MAX); for a plain graph it is the path's length.  A C node's
 * choice is that of its first instances met; choice_alt is another branch
 * some of its instances take in the same worst flow, or -1. */
bool ompdag_rta_result_is_compact(const ompdag_rta_result *r);
uint64_t ompdag_rta_result_path_nodes(const ompdag_rta_result *r);
int32_t ompdag_rta_result_choice_alt(const ompdag_rta_result *r, int32_t v);
/* Compact loops (docs/compact.md, "Compact loops"): when v is a loop test
 * that the worst flow reaches, the fewest and most iterations its instances
 * run there (equal when every instance runs the same count), and true;
 * false otherwise (then *lo and *hi are untouched). */
bool ompdag_rta_result_loop_iterations(const ompdag_rta_result *r, int32_t v, int64_t *lo,
                                       int64_t *hi);

/* Compact loops replayed in runs (docs/compact.md, "The worst flow"): the
 * critical path as pieces in path order (pre-order): a piece with at >= 0 is
 * nodes[at .. at + len) repeated `times` times in a row; a piece with
 * at == -1 is a group that repeats the `len` pieces after it (groups inside
 * included) `times` times.  `nodes` counts a piece's nodes, repetitions
 * included (saturating).  NULL with *count 0 when the path is a plain list
 * (ompdag_rta_result_critical_path has it whole, or its prefix).  Borrowed
 * from the result, as *nodes. */
typedef struct ompdag_path_piece {
    int32_t at, len;
    uint64_t times;
    uint64_t nodes;
} ompdag_path_piece;
const ompdag_path_piece *ompdag_rta_result_path_pieces(const ompdag_rta_result *r, int32_t *count,
                                                       const int32_t **nodes);

/* Compact loops whose worst flow has vol and len but no path, branches or
 * loop counts (has_witness false): why, as a phrase ("its iterations do not
 * settle into runs"); NULL otherwise.  Borrowed from the result. */
const char *ompdag_rta_result_path_missing(const ompdag_rta_result *r);

/* Flows enumerated (enumerate only, else 0). */
uint64_t ompdag_rta_result_flow_count(const ompdag_rta_result *r);

/* The number of execution flows of finalized g, counted in O(nodes + edges)
 * without visiting them (C nodes add their branches, T nodes multiply by the
 * child's); saturates at UINT64_MAX.  *approx (required) gets a floating
 * estimate for messages when it saturates. */
uint64_t ompdag_condag_flow_count(const ompdag_condag *g, double *approx);

/* ---- independent evaluation of one flow ----------------------------------- */

typedef struct ompdag_flow_eval {
    int64_t vol;           /* sum of WCETs of executed nodes (+ D when folded) */
    int64_t len;           /* Σ (WCET + D) on the critical path (F, T, W and D edges) */
    int64_t migrations;    /* migrations charged (T or W nodes executed), if overhead */
    int64_t bound_times_m; /* vol + max over paths Σ (m·(WCET + D) − vol term) + m·O·migrations;
                              without delays vol + (m-1)·len + m·O·migrations */
    int32_t executed;      /* number of executed nodes */
} ompdag_flow_eval;

/* Evaluates the flow fixed by `choice` (indexed by node; for every executed C
 * node, one of its F-successors) without using any bound algorithm: it walks
 * the flow, then runs a longest-path pass over it.  Fails, naming the node,
 * when an executed C node has no valid choice.  `path` (optional) receives a
 * new array with the longest path, to be freed with free(); `path_len` its size. */
ompdag_status ompdag_flow_evaluate(const ompdag_condag *g, const int32_t *choice,
                                   const ompdag_rta_options *opt, ompdag_flow_eval *out,
                                   int32_t **path, int32_t *path_len, ompdag_error *err);

/* Many flows of one graph (simulate): ompdag_flow_evaluate's figures (no
 * path) at a cost per flow that follows the flow's nodes, not the graph's
 * (graphs with depend clauses still pay the whole graph per flow).  Create
 * once per graph and m: *out owns a new evaluator, which borrows g and copies
 * opt; free it with ompdag_flow_evaluator_destroy() (NULL is a no-op). */
typedef struct ompdag_flow_evaluator ompdag_flow_evaluator;
ompdag_status ompdag_flow_evaluator_create(const ompdag_condag *g, const ompdag_rta_options *opt,
                                           ompdag_flow_evaluator **out, ompdag_error *err);
ompdag_status ompdag_flow_evaluator_run(ompdag_flow_evaluator *ev, const int32_t *choice,
                                        ompdag_flow_eval *out, ompdag_error *err);
void ompdag_flow_evaluator_destroy(ompdag_flow_evaluator *ev);

/* Writes "critical path (N nodes): file.c:12 -> ... -> file.c:30\n" to out.
 * A block of places repeated along the path (recursion or loop unrolled:
 * the same call context depth after depth) is printed once as
 * "(a -> b) xK"; of a path of more than 12 such items the first 8 and last 4
 * are kept (the JSON output lists every node).  Places come from
 * ompdag_condag_node_place(). */
void ompdag_rta_result_write_path(const ompdag_rta_result *r, const ompdag_condag *g, FILE *out);

/* The worst flow's branch choices, grouped: C nodes at the same place whose
 * choices have the same place and label (the same branch of an unrolled loop
 * or recursion, one node per copy) form one group, listed in graph order of
 * their first node.  Returns a new array (free()) and *count; NULL when there
 * are none (count 0) or on ENOMEM (count -1). */
typedef struct ompdag_choice_group {
    int32_t node;  /* the group's first C node */
    int32_t succ;  /* the successor it takes */
    int32_t alt;   /* compact graphs: another successor some instances take, else -1 */
    int32_t nodes; /* C nodes in the group */
} ompdag_choice_group;
ompdag_choice_group *ompdag_rta_result_choice_groups(const ompdag_rta_result *r,
                                                     const ompdag_condag *g, int32_t *count);
/* Writes what a group adds to its branch: " [N copies]" and "; other
 * instances take PLACE" (nothing for a single plain node). */
void ompdag_choice_group_write_note(FILE *out, const ompdag_condag *g,
                                    const ompdag_choice_group *gr);

/* Marks the nodes the worst flow executes (in at least one instance, for a
 * compact graph): executed[v] = 1 or 0, for an array of
 * ompdag_condag_node_count(g) bytes owned by the caller.  Fails when the
 * result has no witness. */
ompdag_status ompdag_rta_result_mark_flow(const ompdag_rta_result *r, const ompdag_condag *g,
                                          uint8_t *executed, ompdag_error *err);

/* Copies a result's witness choices into a new array indexed by node (-1 for
 * no choice), for ompdag_flow_evaluate().  Free with free(); NULL on failure
 * or when the result has no witness. */
int32_t *ompdag_rta_result_choices_copy(const ompdag_rta_result *r, const ompdag_condag *g);

/* Marks the nodes a flow executes: executed[v] = 1 or 0, for an array of
 * ompdag_condag_node_count(g) bytes owned by the caller.  Fails, naming the
 * node, when an executed C node has no valid choice. */
ompdag_status ompdag_flow_mark(const ompdag_condag *g, const int32_t *choice, uint8_t *executed,
                               ompdag_error *err);

/* ---- tied tasks (OpenMP's default) -------------------------------------------
 *
 * Theorem 1 needs a work-conserving scheduler.  Under OpenMP's task scheduling
 * constraint a thread holding a suspended tied task may only start that task's
 * descendants, and a suspended tied task resumes only on its own thread, so a
 * thread can idle while work is ready.  The region's root task (the implicit
 * task running the `single`) is always tied: even with every explicit task
 * untied, its continuation after a `task` directive may wait for its own
 * thread.  ompdag_rta_tied_bound() gives the bound that holds for the graph as
 * written (analysis/rta_tied.c, proofs in docs/tied.md); the rule says which
 * argument it rests on. */
typedef enum ompdag_tied_rule {
    OMPDAG_TIED_NONE = 0,           /* no explicit tied task, and the root never waits to resume
                                       (none of its T nodes has an F-successor): Theorem 1 */
    OMPDAG_TIED_NEVER_SUSPENDS = 1, /* every explicit tied task is free of scheduling points
                                       and the root never waits: Theorem 1 holds */
    OMPDAG_TIED_VOLUME = 2,         /* some thread always makes progress: R <= vol(e) */
    OMPDAG_TIED_ROOT = 3,           /* no explicit tied task suspends, the root may wait:
                                       m·R <= max vol + (m−1)·Lr (docs/tied.md §4) */
    OMPDAG_TIED_ROOT_WAITS = 4      /* as ROOT, with root_creation_never_suspends: the root
                                       waits only at its W nodes, Lr on G_r' (docs/tied.md §4b) */
} ompdag_tied_rule;

/* "untied", "tied-never-suspends", "tied-volume", "tied-root" or
 * "tied-root-waits". */
const char *ompdag_tied_rule_name(ompdag_tied_rule rule);

/* True when task t of finalized g is tied: the root task always (it is the
 * region's implicit task); another task when the extra key "untied" of its
 * creating T node is false (the front end writes it; a graph without the key
 * is untied). */
bool ompdag_condag_task_is_tied(const ompdag_condag *g, int32_t t);

/* The bound that holds under the task scheduling constraint, as m·R in the
 * graph's unit (*bound_times_m), and the rule behind it (*rule).  It is never
 * below the untied bound of ompdag_rta_run(g, OMPDAG_ALG_EXACT, opt) and never
 * above m times the worst flow's volume.  Dispatch delays must be folded into
 * the WCETs of every node (docs/tied.md §2).  Fails like ompdag_rta_run, and
 * with OMPDAG_ERR_OVERFLOW when m·vol does not fit in int64. */
ompdag_status ompdag_rta_tied_bound(const ompdag_condag *g, const ompdag_rta_options *opt,
                                    int64_t *bound_times_m, ompdag_tied_rule *rule,
                                    ompdag_error *err);

/* What ompdag_rta_tied_bound() would give if every explicit task were marked
 * `untied` (the root stays tied: it is the implicit task): Theorem 1 when the
 * root never waits to resume (rule NONE), else rule ROOT (ROOT_WAITS) or
 * VOLUME.  This, not ompdag_rta_run's Graham bound, is what adding `untied`
 * can reach. */
ompdag_status ompdag_rta_tied_bound_if_untied(const ompdag_condag *g, const ompdag_rta_options *opt,
                                              int64_t *bound_times_m, ompdag_tied_rule *rule,
                                              ompdag_error *err);

/* Lr of rule OMPDAG_TIED_ROOT (not ROOT_WAITS's Lr'): the longest path (sum
 * of WCETs) of g plus, for every T node t of the root with F-successor s, an
 * edge to s from every node of the tasks created under t; F-, T-, W- and
 * every flow's D-edges (union).
 * O(nodes + edges + D-edges).  Refuses compact graphs (OMPDAG_ERR_UNSUPPORTED). */
ompdag_status ompdag_rta_tied_root_path(const ompdag_condag *g, int64_t *lr, ompdag_error *err);

const char *ompdag_algorithm_name(ompdag_algorithm alg);
/* Parses "exact", "alg0", "enumerate" or "depend"; returns false otherwise. */
bool ompdag_algorithm_parse(const char *name, ompdag_algorithm *out);

#ifdef __cplusplus
}
#endif
#endif
