/*
 * annotate/annotate_internal.h — shared types of annotate_*.c,
 * which go from measured segments to node WCETs
 * (`ompdag annotate`).  The rule and its safety argument are docs/probe.md;
 * in short:
 *
 * A segment is the own time of one task instance between two consecutive
 * scheduling points a and b (probe.c).  In the con-DAG (seed 004 §3, nodes
 * cut at scheduling points) the segment runs the nodes of one F-path P(a,b)
 * of its task that crosses no other scheduling point.  All segments of one
 * task with the same (a, b) form a class k, whose estimate E(k) (max, or
 * Gumbel pWCET) is charged to ONE node c(k) that lies on every such path:
 *
 *   1. a is the end of taskwait w        -> c = w          (first node of P)
 *   2. else b is the `task` directive of T node t  -> c = t (last node of P)
 *   3. else a is the task's begin        -> c = source      (first node of P)
 *           a is the `task` directive of t -> c = fsucc(t)  (first node of P;
 *           when P is empty, i.e. t is followed directly by the taskwait w=b,
 *           c = w, the node right after the segment; t itself if t is the sink)
 *
 *   WCET(v) = ceil( (1 + margin) * sum over groups G charged to v of max_{k in G} E(k) )
 *
 * Safety: for every class k and every path P(a,b), c(k) in P (or adjacent,
 * for the empty path), so sum_{u in P} WCET(u) >= WCET(c(k)) >= E(k) >= every
 * observed segment of k.  Classes charged to one node are summed, except
 * that classes sharing their start point (rules 1, 3) or their end point
 * (rule 2) are maximised: one task instance passes a scheduling point once,
 * so at most one of them occurs per instance.  A node is *observed* when some observed class's path
 * P covers it; the others are reported (--unobserved).
 *
 * The module is split by stage: annotate_paths.c (graphs and segment paths),
 * annotate_classes.c (lifecycle, segment classes), annotate_trace.c (the
 * entry: one trace, stage by stage) with annotate_read.c (reading the trace),
 * annotate_tasks.c (the task table), annotate_sort.c (sorting the segments),
 * annotate_map.c (mapping them) and annotate_alloc.c (large arrays),
 * annotate_offload.c (offloaded loops),
 * annotate_apply.c (WCETs written into the graphs).  Cross-file functions
 * carry the annot_ prefix.
 */
#ifndef OMPDAG_ANNOTATE_INTERNAL_H
#define OMPDAG_ANNOTATE_INTERNAL_H

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/internal/condag_json.h"
#include "ompdag/internal/hashmap.h"
#include "ompdag/trace.h"

#define MAX_CANDIDATES 64

typedef struct i64vec {
    int64_t *v;
    size_t n, cap;
} i64vec;

/* realloc of a block of old_bytes (NULL: out of memory, p kept); from 4 MiB
 * up, a copy into annot_alloc_big's huge pages: a trace of 10^6 tasks spent
 * seconds faulting realloc's 4 KiB pages in, and missing the TLB on them. */
void *annot_realloc_big(void *p, size_t old_bytes, size_t bytes);
/* Makes *p hold at least `need` elements of `size` bytes, doubling the
 * capacity *cap (from 64) through annot_realloc_big; false, with *p and
 * *cap kept, when memory runs out or the size would overflow.  The trace's
 * growing arrays (ompdag_grow_array's, but with huge pages past 4 MiB). */
bool annot_grow(void **p, size_t *cap, size_t need, size_t size);

static inline bool annot_i64vec_push(i64vec *a, int64_t x)
{
    if (a->n == a->cap && !annot_grow((void **)&a->v, &a->cap, a->n + 1, sizeof *a->v))
        return false;
    a->v[a->n++] = x;
    return true;
}

/* One region run's floor (annotate_floor.c): its own DAG's Graham bound. */
typedef struct annot_floor_run {
    int64_t trace;     /* which trace of the annotation (0, 1, ...) */
    int64_t threads;   /* m: the run's team */
    int64_t response;  /* root begin -> last task end */
    int64_t mg;        /* m·G: volume + the longest (m−1)·c + m·D path */
    int64_t work;      /* volume: the sum of the run's segment times */
    int64_t tasks;     /* explicit task instances that ran */
    int64_t unordered; /* predecessors met after their successor (a clock fault; 0) */
    bool clean;
} annot_floor_run;

typedef struct graph_info {
    ompdag_condag *g;
    const char *region_file; /* points into region_key_buf or the graph */
    char region_key_buf[512];
    int32_t region_line;
    int32_t n;
    int32_t *pred_start, *pred;       /* CSR of F-predecessors */
    int32_t *task_start, *task_nodes; /* CSR: the nodes of each task, so that a segment's
                                         paths cost its task's size, not the graph's */
    i64vec responses;                 /* parallel begin -> end, per run */
    i64vec task_responses;            /* root begin -> last task end, per run */
    i64vec responses_interfered, task_responses_interfered; /* 1: that run was interfered */
    i64vec response_threads, task_response_threads;         /* that run's team size (run_team) */
    uint64_t segments;
    uint64_t unmapped; /* segments of this graph that fit no path */
    /* Runtime overheads measured between segments (annotate_overhead.c). */
    i64vec start_delay; /* task creation -> first segment, non-full part, per task */
    i64vec wake_delay;  /* taskwait/taskgroup ready -> return, non-full part */
    i64vec start_delay_if, wake_delay_if; /* the same in interfered runs (fallback only) */
    i64vec cont_delay, cont_delay_if;     /* creator's segment end at a `task` -> its next start */
    i64vec formation, formation_if; /* per run: Σ over late threads of (arrival − root begin) */
    i64vec fork_warm, fork_cold; /* parallel begin -> root begin (cold: first region of a trace) */
    i64vec join;                 /* last task end -> parallel end */
    int32_t team;                /* largest team seen */
    /* The runtime's dependence order against the graph (annotate_depend.c). */
    uint64_t dep_items;           /* depend list items the runtime reported */
    uint64_t dep_pairs;           /* dependences it enforced, between two mapped tasks */
    uint64_t dep_pairs_implied;   /* ... that the graph orders too */
    uint64_t dep_pairs_unchecked; /* ... whose tasks did not both map to T nodes */
    uint64_t dep_edges;           /* derived D-edges between two tasks that both ran */
    uint64_t dep_edges_respected;
    uint64_t dep_edges_unchecked; /* a time was missing (start of an untied first segment) */
    uint64_t dep_edges_over;      /* not respected, and the runtime's lists do not conflict:
                                     the var merges storage the runtime keeps apart */
    uint64_t dep_unsafe;          /* disagreements that make the graph unsafe */
    json_t *dep_disagreements;    /* distinct disagreements (kind, nodes, message, runs) */
    /* The input's DAG (annotate_input.c): runs that mapped a segment, and
     * per node and delay kind (start, wake, cont) the clean runs' maximum
     * of that instance (-1: none; NULL: no sample yet). */
    uint64_t input_runs, input_trace, input_run;
    int64_t *inst_delay;
    struct annot_node_delay *ndel; /* every clean-run delay on its node (annotate_input_budget.c) */
    size_t nndel, ndel_cap;
    annot_floor_run *floor; /* per run, in reading order (annotate_floor.c) */
    size_t nfloor, floor_cap;
    struct annot_loops *loops; /* compact loops (annotate_paths.c), one block; NULL: none */
    /* A team graph (graph key "team", plugin/fe_team.c; annotate_team.c):
     * team_p threads, team_phases phases, and phase_task[j * team_p + k]
     * the graph task of phase j of thread k (0-based); team_p 0: none. */
    int32_t team_p, team_phases;
    int32_t *phase_task;
    /* The input's dependences by address (annotate_depend_input.c): the
     * first run's (T node, type, address number) triples, and whether every
     * run agreed (din_why says why not). */
    int din_state; /* DIN_NONE, DIN_AGREED, DIN_REFUSED */
    int32_t *din_sig;
    size_t din_n;
    char din_why[300];
} graph_info;

enum { DIN_NONE = 0, DIN_AGREED = 1, DIN_REFUSED = 2 };

/* A graph's compact loops (docs/compact.md "Compact loops"), for the path
 * matcher and the iteration check (annotate_paths.c), allocated as one
 * block.  One node stands for every iteration: a segment crossing a loop's
 * back edge (the body's last node -> its test) maps to the same nodes. */
typedef struct annot_loops {
    int32_t *back;    /* per node: the test a body's last node loops back to, else -1 */
    int32_t *in;      /* per node: the innermost test whose body holds it, else -1 */
    uint64_t *limit;  /* per node: runs allowed per instance of its task (Π repeats) */
    uint64_t *seen;   /* per node: runs in the task instance being mapped */
    int32_t *touched; /* nodes with seen > 0, to reset between instances */
    int32_t ntouched;
    int32_t over; /* the first node run more often than its limit, else -1 */
    uint64_t over_seen;
} annot_loops;

typedef struct seg_class {
    size_t graph;
    int32_t task;
    ompdag_point sk, ek;
    int32_t sn, en;
    int32_t charged;
    i64vec samples;    /* own times from clean runs */
    i64vec samples_if; /* from interfered runs: used only when no clean run has the class */
    int64_t max, median, estimate;
    json_t *offload;   /* device index -> its largest share of an offloaded loop */
    uint64_t borrowed; /* a twin (annotate_compact.c): the samples of the classes it copies */
    uint64_t hit_runs, hit_trace, hit_run; /* runs that reached it (annotate_input.c) */
} seg_class;

/* The samples a class's estimate comes from: clean runs, else interfered. */
static inline const i64vec *annot_class_samples(const seg_class *c)
{
    return c->samples.n ? &c->samples : &c->samples_if;
}

/* (graph, code address) -> T/W nodes whose loc is that address's line. */
typedef struct loc_entry {
    uint64_t cp;
    size_t graph;
    bool used, ok;
    int32_t count;
    int32_t nodes[MAX_CANDIDATES];
} loc_entry;

/* One region instance of the trace being read.  Records of different threads
 * arrive in chunk order, not time order, so instances are kept to the end. */
#define ANNOT_MAX_SCHED 32 /* threads per run whose OS counters are compared */

/* A thread's OS counters at its implicit task's begin (OMPDAG_REC_SCHED), and
 * when it joined the team: the end of its implicit task's first segment (its
 * first scheduling point, where it can take tasks), until then the begin. */
typedef struct sched_begin {
    uint32_t thread;
    uint64_t delay, nivcsw, cpu;
    uint64_t arrive;
    bool arrive_open; /* a team graph's first segment goes on after a single/masked point */
} sched_begin;

typedef struct region_run {
    uint64_t id;
    size_t graph;
    uint64_t begin, end;             /* parallel begin / end (0: not seen) */
    uint64_t tasks_begin, tasks_end; /* root (single) begin, last task or root end */
    uint32_t requested;              /* threads asked for at the fork */
    uint32_t implicit_begun;         /* implicit tasks begun: one per thread of the team */
    uint64_t thread_mask;            /* probe threads (< 64) that ran its segments */
    bool interfered;                 /* a thread was preempted, delayed or migrated */
    int32_t nsched;
    sched_begin sched[ANNOT_MAX_SCHED];
} region_run;

struct ompdag_annotation {
    ompdag_condag_set *set;
    ompdag_annotate_options opt;
    graph_info *graphs;
    size_t ngraphs;
    seg_class *classes;
    size_t nclasses, class_cap;
    ompdag_imap class_index; /* the classes by their points (annotate_classes.c) */
    uint64_t segments, mapped, unmapped, outside, traces;
    uint64_t dropped_records; /* the probe's footer: records it could not store */
    uint64_t by_structure;    /* end points matched by the graph's structure, not the line (-O2) */
    char first_unmapped[512];
    char unmapped_depth[200]; /* where recursion is involved: the depth of that segment's task */
    bool applied;
    /* OMPDAG_REC_RUNTIME over the traces (annot_runtime_record) */
    uint64_t rt_traces;      /* traces that named their runtime */
    uint64_t rt_name;        /* the first one's name; rt_mixed when another differs */
    uint64_t rt_unthrottled; /* traces run with task throttling off */
    bool rt_mixed, rt_tasking_set;
    struct annot_wsample *wsamp; /* clean runs' class samples of plain graphs (the budget) */
    size_t nwsamp, wsamp_cap;
    bool wsamp_lost; /* out of memory: no budget model (its WCET excess would be short) */
};

/* ---- reading traces: per-trace state ---- */

/* One buffered segment: 64 bytes, one cache line in annot_alloc_big's
 * aligned arrays, because sorting 10^7 of them moves each once at random
 * (80-byte records straddled two lines).  Its task's creator is in the task
 * table (annot_task_find), its code addresses are names in trace_ctx.cps. */
typedef struct pending_seg {
    uint64_t id, time, dur;
    uint64_t run;     /* region instance */
    uint64_t created; /* its task's creation time; 0 implicit, UINT64_MAX not in the trace */
    uint32_t cp_start, cp_end, cp_task; /* annot_cp(c, name) is the address */
    uint32_t graph;
    uint8_t sk, ek, flags;
} pending_seg;
_Static_assert(sizeof(pending_seg) == 64, "a pending segment is one cache line");

/* Distinct code addresses numbered in order of first sight (annot_cp_name). */
typedef struct cp_names {
    uint64_t *value; /* value[name] */
    uint32_t n;
    size_t cap;        /* of value (annot_grow) */
    ompdag_imap index; /* address -> name */
} cp_names;

/* One explicit task instance: who created it, where, and (once resolved)
 * which task of its graph it is.  A recursion the front end inlined puts the
 * same `task` line in several graph tasks; following the chain of creators
 * from the root picks the right one. */
typedef struct task_entry {
    uint64_t id; /* 0 = empty slot */
    uint64_t parent;
    uint64_t cp_task;
    uint64_t time;      /* creation time: equals the end time of the creator's
                           segment that ended at the `task` directive */
    int32_t task;       /* graph task; -2 unresolved, -1 none */
    uint32_t graph;     /* of its region */
    uint64_t run;       /* region instance (from its segments; 0: none seen) */
    uint64_t start;     /* first start (OMPDAG_REC_DEP_START), else 0 */
    uint64_t seg_start; /* its first segment's end - own time (exact unless suspended) */
    uint64_t end;       /* completion (its last segment), 0: not seen */
    uint64_t dep_ready; /* completion of its last runtime predecessor (DEP_PAIR), 0: none */
    bool seg_suspended;
    bool depend; /* the runtime reported a depend list for it */
} task_entry;

/* Runtime dependence facts of one trace (annotate_depend.c). */
typedef struct dep_item {
    uint64_t task, addr;
    uint8_t type;        /* ompt_dependence_type_t */
    uint32_t index, len; /* place in the task's list, and its length */
} dep_item;

typedef struct dep_pair {
    uint64_t pred, succ;
} dep_pair;

/* A T or W node reached by a mapped segment in region instance `run`. */
typedef struct exec_node {
    uint64_t run;
    uint32_t graph;
    int32_t node;
} exec_node;

/* (creator instance, time) -> the T node its mapped segment ended at. */
typedef struct creation_entry {
    uint64_t parent, time; /* parent 0 = empty slot */
    int32_t tnode;
} creation_entry;

/* Memo of find_end (annotate_map.c): where a segment that starts at
 * (task, ck, cn) and ends at a scheduling point of kind `rk` at code address
 * cp (its name in trace_ctx.cps) ends in the graph.  The answer depends on
 * nothing else, and a trace of 10^6 tasks asks the same few questions
 * millions of times. */
typedef struct end_memo {
    uint64_t cp;
    uint32_t graph;
    int32_t task, cn, en;
    uint8_t used, ck, rk, ek, ok, by_structure;
    const char *why;
} end_memo;

/* An implicit task of a region run (OMPDAG_REC_IMPLICIT): its thread number
 * in the team and the team's size (annotate_team.c). */
typedef struct annot_implicit {
    uint64_t id, run;
    uint32_t index, team;
} annot_implicit;

/* A dispatch delay measured before segment pend[seg] (annotate_input.c). */
typedef struct annot_delay_event {
    size_t seg;
    uint8_t kind; /* 0 start, 1 wake, 2 cont */
    int64_t value;
} annot_delay_event;

typedef struct trace_ctx {
    ompdag_annotation *a;
    ompdag_symbolizer *sym;
    loc_entry *locs;
    size_t loc_cap, loc_used;
    uint64_t *region_cp; /* cache: region code address -> graph + 1 (0: none) */
    size_t *region_graph;
    size_t region_n, region_cap;
    region_run *runs;
    size_t nruns, runs_cap;
    ompdag_imap run_index; /* run id -> its index in runs */
    pending_seg *pend;     /* segments of matched graphs, mapped per task instance */
    size_t npend, pend_cap;
    cp_names cps;      /* the code addresses pend names */
    task_entry *tasks; /* explicit task instances of matched regions (task_table) */
    size_t tasks_cap, tasks_used;
    task_entry *created; /* the TASK_CREATE records, before the table is sized */
    size_t ncreated, created_cap;
    void *spare; /* `created` once spent (task_table), for annot_sort_pending */
    size_t spare_bytes;
    ompdag_trace_rec *deferred; /* dependence records, until the task table is complete */
    size_t ndeferred, deferred_cap;
    /* Direct addressing of `tasks` (task_table): probe ids are
     * ((thread + 1) << 40) | per-thread sequence, dense, so the entry of id
     * is tasks[dbase[id >> 40] + (id & 2^40 - 1)] when that is below
     * dbase[(id >> 40) + 1]; NULL: `tasks` is a hash table. */
    size_t *dbase;
    size_t ndbase;        /* thread parts + 1 */
    task_entry dmiss;     /* returned (zeroed) for an id outside the direct table */
    creation_entry *made; /* T nodes reached by mapped segments */
    size_t made_cap, made_used;
    end_memo *ends; /* open addressing; power-of-two size */
    size_t ends_cap, ends_used;
    uint8_t *mark;
    int32_t *stack;
    uint64_t *interfered_runs; /* sorted ids of this trace's interfered runs */
    size_t ninterfered;
    ompdag_trace_rec *off; /* OMPDAG_REC_OFFLOAD records, sorted by (task, time) */
    size_t noff, off_cap;
    dep_item *items; /* OMPDAG_REC_DEPEND */
    size_t nitems, items_cap;
    dep_pair *pairs; /* OMPDAG_REC_DEP_PAIR */
    size_t npairs, pairs_cap;
    uint64_t *outside; /* tasks outside matched regions that have a depend list */
    size_t noutside, outside_cap;
    dep_pair *outside_pairs; /* pairs whose successor is no task of a matched region */
    size_t noutside_pairs, outside_pairs_cap;
    exec_node *exec; /* T/W nodes reached, per run (only when depend_on) */
    size_t nexec, exec_cap;
    bool depend_on;             /* a graph has clauses or the trace has dependence records */
    uint32_t *class_of;         /* per pending segment: its class + 1 (0: unmapped) */
    annot_delay_event *devents; /* clean runs' delays, for annot_input_resolve */
    size_t ndevents, devents_cap;
    annot_implicit *imp; /* OMPDAG_REC_IMPLICIT records of team graphs' runs, by id once
                            sorted (annot_team_sort) */
    size_t nimp, imp_cap;
} trace_ctx;

/* annotate_paths.c */
bool annot_same_file(const char *a, const char *b);
ompdag_status annot_graph_prepare(graph_info *gi, ompdag_condag *g, ompdag_error *err);
bool annot_undeferred_wait(const ompdag_condag *g, int32_t t, int32_t w);
/* The nodes of `task`: *count of them from the returned array. */
static inline const int32_t *annot_task_nodes(const graph_info *gi, int32_t task, int32_t *count)
{
    *count = gi->task_start[task + 1] - gi->task_start[task];
    return gi->task_nodes + gi->task_start[task];
}
/* annot_forward_set and annot_segment_path write mark[] for the nodes of
 * `task` only (every such node is set or cleared); the marks of other tasks'
 * nodes are left as they were, so callers read marks inside the task only. */
bool annot_forward_set(const graph_info *gi, int32_t task, ompdag_point sk, int32_t sn,
                       uint8_t *mark, int32_t *stack);
int32_t annot_segment_path(const graph_info *gi, int32_t task, ompdag_point sk, int32_t sn,
                           ompdag_point ek, int32_t en, uint8_t *mark, int32_t *stack);
/* Counts one run of node v in the current task instance; false (and
 * loops->over set) past its limit.  annot_loops_next_instance resets. */
bool annot_loops_count(annot_loops *l, int32_t v);
void annot_loops_next_instance(annot_loops *l);
int32_t annot_charged_node(const ompdag_condag *g, int32_t task, ompdag_point sk, int32_t sn,
                           ompdag_point ek, int32_t en);
bool annot_empty_segment(const ompdag_condag *g, int32_t task, ompdag_point sk, int32_t sn,
                         ompdag_point ek, int32_t en);

/* annotate_classes.c */
seg_class *annot_class_get(ompdag_annotation *a, size_t graph, int32_t task, ompdag_point sk,
                           int32_t sn, ompdag_point ek, int32_t en, uint8_t *mark, int32_t *stack,
                           bool *nomem);

/* The class with these points, or NULL (never creates one). */
const seg_class *annot_class_find(const ompdag_annotation *a, size_t graph, int32_t task,
                                  ompdag_point sk, int32_t sn, ompdag_point ek, int32_t en);

/* annotate_compact.c: compact graphs (docs/compact.md).  Each node takes
 * the maximum over the nodes at its code location (arrays indexed by node);
 * false on ENOMEM.  annot_graph_nesting: the deepest creation chain (explicit
 * task levels below the root). */
bool annot_share_by_location(const ompdag_condag *g, uint64_t *samples, int64_t *basis,
                             int64_t *omax, int64_t *omed);
int32_t annot_graph_nesting(const ompdag_condag *g);
/* The most T nodes at (file, line) on one creation chain of g: how deep the
 * tasks of that `task` directive nest in the graph. */
int32_t annot_graph_site_depth(const ompdag_condag *g, const char *file, int32_t line);

/* annotate_compact.c: plain graphs, WCETs by location for instances a run did
 * not reach (issue 22; the argument is in that file and docs/probe.md). */
typedef struct annot_locations {
    int32_t *id;              /* node -> location id (-1: no line) */
    int32_t *tstart, *tnodes; /* task -> its nodes, CSR */
} annot_locations;
bool annot_locations_build(const ompdag_condag *g, annot_locations *L); /* false: ENOMEM */
void annot_locations_free(annot_locations *L);

/* Classes borrowed by location ("twins"): classes that never get samples of
 * their own; an array owned by apply's plan. */
typedef struct annot_twins {
    seg_class *v;
    size_t n, cap;
} annot_twins;
/* Appends to tw the twins of graph's classes, one per class key (the
 * largest); false on ENOMEM. */
bool annot_location_twins(const ompdag_annotation *a, size_t graph, const annot_locations *L,
                          annot_twins *tw, uint8_t *mark, int32_t *stack);

/* One graph's per-node values in apply's plan (arrays indexed by node). */
typedef struct annot_node_values {
    uint64_t *samples;
    int64_t *basis, *omax, *omed;
    int64_t *cover;         /* largest estimate of a class whose path runs the node */
    uint8_t *from_location; /* set here: the node's values came by location */
} annot_node_values;
/* Step 2: every node no class covers whose location some covered node
 * shares takes cover + prefix (see the file). */
ompdag_status annot_fill_by_location(const ompdag_annotation *a, size_t graph,
                                     const annot_locations *L, const annot_twins *tw,
                                     annot_node_values *nv, uint8_t *mark, int32_t *stack,
                                     ompdag_error *err);

/* annotate_trace.c: the entry, ompdag_annotation_add_trace. */
/* Tests only: true makes annotate take its reference paths — qsort for
 * annot_sort_records, a hash table of tasks, find_end without its memo —
 * so that a test can check the fast paths give the same result. */
extern bool annot_reference_paths;

/* annotate_alloc.c */
/* malloc for arrays of up to 10^7 records: at 4 MiB and more, 2 MiB aligned
 * and marked for transparent huge pages (Linux), which cuts page faults and
 * TLB misses of the random accesses into them by up to 512x.  Free with free(). */
void *annot_alloc_big(size_t bytes);
/* annot_alloc_big, zeroed: the allocator of annotate's large hash tables. */
void *annot_zalloc_big(size_t bytes);

/* annotate_tasks.c: the task table and the creations reached by mapped segments. */
/* The task table as a hash table (hashmap.h): slots are task entries, id 0
 * empty, at most 7/10 full, sized once from 1024 slots. */
static inline uint64_t annot_task_hash(uint64_t id)
{
    return (id * 0x9e3779b97f4a7c15ull) >> 16;
}
static inline bool annot_task_empty(const void *slot)
{
    return !((const task_entry *)slot)->id;
}
static inline bool annot_task_holds(const void *ctx, const void *slot, const void *id)
{
    (void)ctx;
    return ((const task_entry *)slot)->id == *(const uint64_t *)id;
}
static inline uint64_t annot_task_slot_hash(const void *ctx, const void *slot)
{
    (void)ctx;
    return annot_task_hash(((const task_entry *)slot)->id);
}
static inline const ompdag_hmap_kind *annot_task_kind(void)
{
    static const ompdag_hmap_kind kind = {sizeof(task_entry),
                                          annot_task_empty,
                                          annot_task_holds,
                                          annot_task_slot_hash,
                                          70,
                                          1024,
                                          NULL};
    return &kind;
}
task_entry *annot_task_slot(trace_ctx *c, uint64_t id); /* tasks_cap > 0; id 0 = empty */
/* The entry of task `id`, or NULL; never writes (annot_task_slot zeroes
 * c->dmiss on a miss), so annot_overhead_collect may call it while
 * map_pending runs beside it. */
const task_entry *annot_task_find(const trace_ctx *c, uint64_t id);
/* Where task `id` is, or would go, in c->tasks: its direct slot, or where
 * its hash probe stops (an empty slot when absent); SIZE_MAX when the id
 * lies outside the direct table. */
static inline size_t annot_task_index(const trace_ctx *c, uint64_t id)
{
    if (c->dbase) {
        uint64_t t = id >> 40, seq = id & ((1ull << 40) - 1);
        return t + 1 < c->ndbase && seq < c->dbase[t + 1] - c->dbase[t] ? c->dbase[t] + seq
                                                                        : SIZE_MAX;
    }
    return ompdag_hmap_probe(annot_task_kind(), NULL, c->tasks, c->tasks_cap, annot_task_hash(id),
                             &id);
}

/* The hash of a creation (parent, time) in `made` (a hashmap.h table). */
static inline uint64_t annot_made_hash(uint64_t parent, uint64_t time)
{
    return ((parent * 0x9e3779b97f4a7c15ull) ^ (time * 0xff51afd7ed558ccdull)) >> 16;
}

/* Where the probe for (parent, time) in `made` starts. */
static inline const creation_entry *annot_made_slot_at(const trace_ctx *c, uint64_t parent,
                                                       uint64_t time)
{
    return &c->made[annot_made_hash(parent, time) & (c->made_cap - 1)];
}
/* The task table of the creation records c->created (a later record of one id
 * wins); they become c->spare.  false on ENOMEM. */
bool annot_task_table(trace_ctx *c);
/* Records that segment (parent, time) of a mapped chain created T node tnode. */
bool annot_made_insert(trace_ctx *c, uint64_t parent, uint64_t time, int32_t tnode);
int32_t annot_made_by(trace_ctx *c, uint64_t id); /* -1: unknown */

/* annotate_read.c: reading a trace into the context. */
/* One pass over the records of reader r (path: the trace file, for its
 * size): buffers segments, creations and dependence records, and gathers
 * the region runs. */
ompdag_status annot_read_records(trace_ctx *c, ompdag_trace_reader *r, const char *path,
                                 ompdag_error *err);
/* After annot_task_table: each buffered segment's creation time, and its
 * task's run, first start and completion. */
void annot_resolve_segments(trace_ctx *c);
/* Refuses a trace whose program holds none of the graphs' sources. */
ompdag_status annot_check_sources(trace_ctx *c, ompdag_error *err);
/* The response times of the runs read, each with its team size. */
ompdag_status annot_finish_runs(trace_ctx *c, ompdag_error *err);
/* The name of code address cp in t, given on first sight (0, 1, ...);
 * false: out of memory, or 2^32 - 1 distinct addresses. */
bool annot_cp_name(cp_names *t, uint64_t cp, uint32_t *name);
/* The address a pending segment's code-address name stands for. */
static inline uint64_t annot_cp(const trace_ctx *c, uint32_t name)
{
    return c->cps.value[name];
}

/* annotate_sort.c */
/* Sorts n records of `size` bytes by nkeys 64-bit keys, key_of(rec, 0)
 * most significant: LSD radix sort (16-bit digits, constant digits
 * skipped) on an index, then the records are permuted in place; qsort with
 * cmp (the same order) below 4096 records.  O(n) per key: the traces of
 * 10^6 tasks sort 10^7 records.  false on ENOMEM (base unchanged). */
bool annot_sort_records(void *base, size_t n, size_t size, int nkeys,
                        uint64_t (*key_of)(const void *rec, int k),
                        int (*cmp)(const void *, const void *));
/* annot_sort_records writing the sorted records to out[0..n) (which must not
 * overlap base; base is left as it was), or in place when out is NULL.
 * Out of place is several times faster on 10^7 records. */
bool annot_sort_records_to(void *base, void *out, size_t n, size_t size, int nkeys,
                           uint64_t (*key_of)(const void *rec, int k),
                           int (*cmp)(const void *, const void *));
/* Sorts a[0..n) ascending (LSD radix, 16-bit digits); false on ENOMEM. */
bool annot_sort_u64(uint64_t *a, size_t n);
/* The same with the caller's scratch b[0..n) (false: out of memory). */
bool annot_sort_u64_with(uint64_t *a, size_t n, uint64_t *b);
/* Sorts c->pend by (run, created, id, time): one region run's segments
 * together, each task instance's segments together in time order, task
 * instances in creation order (creators before the tasks they create).
 * false on ENOMEM. */
bool annot_sort_pending(trace_ctx *c);

/* annotate_map.c: mapping the sorted segments onto the graphs. */
/* Maps every buffered segment, one task instance at a time, creators
 * before the tasks they create; c->pend stays (annot_overhead_collect may
 * still read it). */
ompdag_status annot_map_pending(trace_ctx *c, ompdag_error *err);
const char *annot_point_name(uint8_t kind); /* "taskwait", "task creation", ... */

/* annotate_overhead.c */
/* Run-queue delay of one thread within a run above which the run counts as
 * interfered (ns); any involuntary context switch or migration counts too. */
#define ANNOT_RUNQ_DELAY_NS 50000
/* The sorted ids of the interfered runs (c->interfered_runs): before
 * annot_overhead_collect and map_pending, which both read them. */
ompdag_status annot_interfered_runs(trace_ctx *c, ompdag_error *err);
/* Reads c->pend, c->runs and the task table; writes only the graphs' delay,
 * fork/join vectors and team: safe beside map_pending (ompdag_annotation_add_trace). */
ompdag_status annot_overhead_collect(trace_ctx *c, ompdag_error *err);
void annot_sched_record(region_run *run, const ompdag_trace_rec *r);
/* A segment record of the run: the first segment of a thread's implicit task
 * sets that thread's arrival (team formation, docs/overheads.md); in a team
 * graph (team) one cut at a single/masked begin or end goes on to the next
 * piece. */
void annot_arrival_record(region_run *run, const ompdag_trace_rec *r, bool team);
bool annot_run_interfered(const trace_ctx *c, uint64_t run); /* after annot_interfered_runs */
/* c->runs by id, for annot_find_run: a new array (free()), NULL on ENOMEM. */
const region_run **annot_runs_by_id(const trace_ctx *c);
/* The run with this id among `sorted` (annot_runs_by_id), or NULL. */
const region_run *annot_find_run(const region_run *const *sorted, size_t n, uint64_t id);

/* The full intervals of a run's segments (annotate_overhead.c), for
 * annotate_floor.c: NULL on ENOMEM; annot_nonfull is the part of [a, b)
 * when not every one of the team's threads ran graph code. */
struct full_set;
struct full_set *annot_full_new(const pending_seg *seg, size_t n, int32_t team);
int64_t annot_nonfull(const struct full_set *f, uint64_t a, uint64_t b);
void annot_full_delete(struct full_set *f);

/* annotate_floor.c: per run, the Graham bound of the run's own DAG (the
 * floor; reads c->pend sorted, the task table and the runs, before
 * overhead_and_map releases them), and the graph extra "floor". */
ompdag_status annot_floor_collect(trace_ctx *c, ompdag_error *err);
json_t *annot_floor_json(const graph_info *g); /* NULL on ENOMEM */
/* annotate_read.c: a region run's team size (the m its run is judged at). */
int64_t annot_run_team(const region_run *run);

/* annotate_apply.c */
/* The k-th smallest of a[0..n) (k < n), reordering a so that a[0..k) are
 * no larger and a[k+1..n) no smaller: quickselect. */
int64_t annot_select_i64(int64_t *a, size_t n, size_t k);

/* annotate_input.c: the input's DAG (docs/probe.md#input).  annot_input_hit:
 * the segment that starts with pend[seg_index] (its first piece, where a
 * team graph joins pieces: annotate_map.c team_joint), of own time dur,
 * mapped to class k (map_chain).  annot_input_delay:
 * a clean run's delay before segment s, of kind 0 start, 1 wake, 2 cont
 * (annotate_overhead.c; false on ENOMEM).  annot_input_resolve: the delays
 * onto the nodes of their instances, once both are done.  annot_input_json:
 * the graph extra "input" (new reference; NULL on ENOMEM), o the graph's
 * delays with margin, input_basis[v] the charges of the reached classes
 * alone (before margin), wcet[v] the WCETs apply is about to write. */
/* One clean run's dispatch delay of one kind at one node. */
typedef struct annot_node_delay {
    int32_t node;
    uint8_t kind;
    uint32_t trace;
    uint64_t run;
    int64_t value;
} annot_node_delay;
/* annotate_input_budget.c: the second model of the input's DAG: per node
 * and kind the median delay over the clean runs (median[v * 3 + kind], -1:
 * none), and the largest excesses one clean run had over the delay medians
 * and its classes' WCET medians: summed over every node (all), along the
 * worst path of G_r (path), and the WCET part alone (work); depend is the
 * input's clauses by address (annot_depend_input_json, or NULL).  false on
 * ENOMEM. */
typedef struct annot_budget {
    int64_t all;        /* delay + WCET excesses over every node */
    int64_t path;       /* along the longest path of G (Graham's chain) */
    int64_t root_waits; /* of G_r' (rule tied-root-waits) */
    int64_t root;       /* of G_r (rule tied-root) */
    int64_t work;       /* WCET excesses over every node */
} annot_budget;
bool annot_input_budget(const ompdag_annotation *a, size_t graph, const json_t *depend,
                        int64_t *median, annot_budget *out);

/* annotate_input_paths.c: longest paths of node weights w (w[v] >= 0) in G
 * (F, T, W and the union of the D-edges) or, with root_waits, in the tied
 * ROOT_WAITS graph G_r' (docs/tied.md §4b).  create: NULL on ENOMEM or when
 * the root's walks are too long; longest: false on overflow. */
typedef struct annot_paths annot_paths;
annot_paths *annot_paths_create(const ompdag_condag *g);
void annot_paths_destroy(annot_paths *p);
bool annot_paths_longest(annot_paths *p, const int64_t *w, bool root_waits, int64_t *out);

/* One clean run's sample of a class (annot_input_hit), for the budget. */
typedef struct annot_wsample {
    uint32_t cls, trace;
    uint64_t run;
    int64_t dur;
} annot_wsample;
void annot_input_hit(trace_ctx *c, seg_class *k, size_t seg_index, int64_t dur, bool clean);
bool annot_input_delay(trace_ctx *c, const pending_seg *s, int kind, int64_t value);
ompdag_status annot_input_resolve(trace_ctx *c, ompdag_error *err);
struct ompdag_overheads;
json_t *annot_input_json(const ompdag_annotation *a, size_t graph, const struct ompdag_overheads *o,
                         const int64_t *input_basis, const int64_t *input_median,
                         const int64_t *wcet);
/* Notes a trace's OMPDAG_REC_RUNTIME record (annotate_read.c). */
void annot_runtime_record(ompdag_annotation *a, const ompdag_trace_rec *r);
/* annotate_margin.c: ceil(x · (1 + margin/100)); false when it does not fit. */
bool annot_with_margin(const ompdag_annotation *a, int64_t x, int64_t *out);

/* annotate_depend_input.c: the input's dependences by the runtime's
 * addresses.  _run notes one run of gi (at: T node -> its instance, dup: T
 * nodes with several); _json gives "input"."depend", or NULL when the runs
 * did not agree (gi->din_why) or reported nothing. */
ompdag_status annot_depend_input_run(const trace_ctx *c, graph_info *gi, task_entry *const *at,
                                     const uint8_t *dup, ompdag_error *err);
json_t *annot_depend_input_json(const graph_info *gi);

/* annotate_depend.c: the runtime's dependence order against the graph */
ompdag_status annot_depend_record(trace_ctx *c, const ompdag_trace_rec *r, ompdag_error *err);
/* The depend items of task `task` (*count of them) in c->items, which must
 * be sorted by task, then address (annot_depend_check sorts them). */
const dep_item *annot_dep_items_of(const trace_ctx *c, uint64_t task, size_t *count);
bool annot_exec_push(trace_ctx *c, uint64_t run, uint32_t graph, int32_t node);
ompdag_status annot_depend_check(trace_ctx *c, ompdag_error *err);
void annot_depend_ready(trace_ctx *c); /* before annot_overhead_collect */

/* annotate_map.c: maps the time-ordered segments seg[0..n) of one task
 * instance onto graph task `task` (annotate_team.c maps each phase of an
 * implicit task with it); the count mapped, SIZE_MAX on ENOMEM. */
size_t annot_map_chain(trace_ctx *c, int32_t task, const pending_seg *seg, size_t n, bool dry_run);

/* annotate_team.c: team graphs (docs/probe.md "Team graphs").  _prepare
 * reads the phase tasks from τ1 (gi->g, gi->n set; key "team" = P);
 * _record keeps an OMPDAG_REC_IMPLICIT record of a team graph's run (false
 * on ENOMEM); _sort orders them by id once the trace is read, refusing a
 * run with two implicit tasks of one thread number; _of finds an
 * implicit task's; _map maps one implicit task's segments, phase by phase,
 * or refuses the trace by name (team size, phase count, missing records). */
ompdag_status annot_team_prepare(graph_info *gi, int64_t team, ompdag_error *err);
bool annot_team_record(trace_ctx *c, const ompdag_trace_rec *r);
ompdag_status annot_team_sort(trace_ctx *c, ompdag_error *err);
const annot_implicit *annot_team_of(const trace_ctx *c, uint64_t id);
ompdag_status annot_team_map(trace_ctx *c, const pending_seg *seg, size_t n, ompdag_error *err);
/* The segment positions in seg[0..n) (one implicit task, time order) that
 * end at a barrier, into pos[0..cap); returns their count (may exceed cap). */
size_t annot_team_barriers(const pending_seg *seg, size_t n, size_t *pos, size_t cap);
/* Whether class c (of a team graph's phase task) shows that zero-code node
 * v ran: τ1's nodes (τ1 has no code: it creates the phase tasks and waits
 * at the barriers), and the phase's sink W when c ends there at the barrier
 * (the code after a barrier is the next phase's).  Their WCET stays 0,
 * exactly.  _cover adds c's n samples to samples[] and own[] (if samples),
 * and sets reached[] (if reached), indexed by node, for every such v. */
bool annot_team_ran(const graph_info *g, const seg_class *c, int32_t v);
void annot_team_cover(const graph_info *g, const seg_class *c, uint64_t n, uint64_t *samples,
                      uint64_t *own, uint8_t *reached);

/* annotate_offload.c */
bool annot_off_push(trace_ctx *c, const ompdag_trace_rec *r);
int annot_cmp_off(const void *x, const void *y);
bool annot_offload_fold(json_t *into, const char *dev, const json_t *e);
bool annot_offload_attach(trace_ctx *c, seg_class *k, uint64_t id, uint64_t from, uint64_t to);

#endif
