/*
 * ompdag/condag.h — the conditional DAG (con-DAG) model of an OpenMP task
 * system, and its file format `ompdag-condag` v1 / `ompdag-condag-set` v1.
 *
 * The contract is docs/condag.md (§1 model, §5 format), cleaned up from
 * Sun et al. 2020.  A graph is built either by loading a file or
 * through the builder calls below (add nodes, add F-edges, finalize).
 * ompdag_condag_finalize() enforces every rule of §5 and derives T-edges and
 * W-edges (Rule 2) once; after that the graph is read-only except for WCETs.
 *
 * Indices: nodes and tasks are numbered 0..n-1 (int32) in insertion order.
 * Ownership: every pointer returned by an accessor is borrowed from the graph
 * and stays valid until the graph is destroyed.
 */
#ifndef OMPDAG_CONDAG_H
#define OMPDAG_CONDAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ompdag/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ompdag_condag ompdag_condag;
typedef struct ompdag_condag_set ompdag_condag_set;

typedef enum ompdag_kind {
    OMPDAG_KIND_N = 'N', /* plain code segment */
    OMPDAG_KIND_T = 'T', /* segment ending with `#pragma omp task` creating a child */
    OMPDAG_KIND_W = 'W', /* segment starting right after a taskwait */
    OMPDAG_KIND_C = 'C', /* branch entry: exactly one F-successor runs */
    OMPDAG_KIND_J = 'J'  /* branch join */
} ompdag_kind;

typedef struct ompdag_loc {
    const char *file; /* NULL when unknown */
    int32_t line;     /* 0 when unknown */
    int32_t col;      /* 0 when unknown */
} ompdag_loc;

/* What the builder needs to add one node.  Strings are copied. */
typedef struct ompdag_node_spec {
    const char *id;      /* required, unique in the graph */
    const char *task;    /* required: id of the task whose code this is */
    ompdag_kind kind;    /* required */
    int64_t wcet;        /* >= 0, in the graph's time unit */
    const char *creates; /* task id; required on T, must be NULL elsewhere */
    ompdag_loc loc;      /* optional */
    const char *label;   /* optional */
} ompdag_node_spec;

/* ---- lifecycle and builder ------------------------------------------------ */

/* Creates an empty graph.  Returns NULL on allocation failure.
 * Free with ompdag_condag_destroy(). */
ompdag_condag *ompdag_condag_create(void);

/* Frees the graph and everything borrowed from it.  NULL is a no-op. */
void ompdag_condag_destroy(ompdag_condag *g);

/* Graph metadata; strings are copied, NULL clears. */
ompdag_status ompdag_condag_assign_name(ompdag_condag *g, const char *name);
ompdag_status ompdag_condag_assign_function(ompdag_condag *g, const char *function);
ompdag_status ompdag_condag_assign_time_unit(ompdag_condag *g, const char *unit);
ompdag_status ompdag_condag_assign_region_loc(ompdag_condag *g, ompdag_loc loc);
/* Default thread count m stored in the file; 0 means "none". */
void ompdag_condag_assign_threads(ompdag_condag *g, int32_t m);

/* Adds a node (before finalize only).  On success *index (if non-NULL) gets
 * the new node's index.  Fails on a duplicate id, a negative WCET, or a
 * `creates` on a non-T node / missing on a T node. */
ompdag_status ompdag_condag_add_node(ompdag_condag *g, const ompdag_node_spec *spec,
                                     int32_t *index, ompdag_error *err);

/* Looks a node up by id; returns -1 when absent. */
int32_t ompdag_condag_find_node(const ompdag_condag *g, const char *id);

/* Adds the F-edge from -> to (before finalize only). */
ompdag_status ompdag_condag_add_edge(ompdag_condag *g, int32_t from, int32_t to,
                                     ompdag_error *err);

/* Validates every rule of condag.md §5, derives T- and W-edges and a
 * topological order.  After success the structure is frozen. */
ompdag_status ompdag_condag_finalize(ompdag_condag *g, ompdag_error *err);

bool ompdag_condag_is_finalized(const ompdag_condag *g);

/* ---- accessors (valid after finalize unless noted) ------------------------ */

const char *ompdag_condag_name(const ompdag_condag *g);     /* may be NULL */
const char *ompdag_condag_function(const ompdag_condag *g); /* may be NULL */
const char *ompdag_condag_time_unit(const ompdag_condag *g); /* "ns" by default */
ompdag_loc ompdag_condag_region_loc(const ompdag_condag *g);
int32_t ompdag_condag_threads(const ompdag_condag *g); /* 0 when absent */
/* A title for messages: the function, else the name, else "graph INDEX"
 * (index = its place in a set).  Returns buf (caller-owned, `size` bytes). */
const char *ompdag_condag_title(const ompdag_condag *g, size_t index, char *buf, size_t size);

int32_t ompdag_condag_node_count(const ompdag_condag *g); /* valid before finalize too */
int32_t ompdag_condag_task_count(const ompdag_condag *g);
int64_t ompdag_condag_total_wcet(const ompdag_condag *g); /* sum over all nodes */

const char *ompdag_condag_node_id(const ompdag_condag *g, int32_t v);
ompdag_kind ompdag_condag_node_kind(const ompdag_condag *g, int32_t v);
int64_t ompdag_condag_node_wcet(const ompdag_condag *g, int32_t v);
int32_t ompdag_condag_node_task(const ompdag_condag *g, int32_t v);
/* Task created by a T node, -1 for other kinds. */
int32_t ompdag_condag_node_creates(const ompdag_condag *g, int32_t v);
ompdag_loc ompdag_condag_node_loc(const ompdag_condag *g, int32_t v);
const char *ompdag_condag_node_label(const ompdag_condag *g, int32_t v); /* may be NULL */
/* Writes where node v is, for messages: "file.c:12", "line 12", or its id
 * when it has no location.  Returns buf (caller-owned, `size` bytes). */
const char *ompdag_condag_node_place(const ompdag_condag *g, int32_t v, char *buf, size_t size);

/* F-successors of v, in file order.  *count receives their number. */
const int32_t *ompdag_condag_node_fsucc(const ompdag_condag *g, int32_t v, int32_t *count);
/* W-successors of v: non-empty only for a task's sink (the W nodes of the
 * parent that wait for this task, Rule 2). */
const int32_t *ompdag_condag_node_wsucc(const ompdag_condag *g, int32_t v, int32_t *count);

const char *ompdag_condag_task_id(const ompdag_condag *g, int32_t t);
int32_t ompdag_condag_task_source(const ompdag_condag *g, int32_t t);
int32_t ompdag_condag_task_sink(const ompdag_condag *g, int32_t t);
/* The T node that creates task t, -1 for the root task. */
int32_t ompdag_condag_task_creator(const ompdag_condag *g, int32_t t);
int32_t ompdag_condag_root_task(const ompdag_condag *g);

/* All nodes in a topological order of F-, T- and W-edges together. */
const int32_t *ompdag_condag_topo_order(const ompdag_condag *g);

/* Replaces a node's WCET (allowed after finalize).  Fails if negative or if
 * the graph's total would overflow int64. */
ompdag_status ompdag_condag_assign_wcet(ompdag_condag *g, int32_t v, int64_t wcet,
                                     ompdag_error *err);

/* ---- dispatch delays (docs/overheads.md, the "delays" format extension) ----
 * D(v) >= 0 bounds the time node v is ready but not started while some thread
 * is not running graph code.  The bound charges D on the critical chain only
 * (m·(WCET + D) on the path, WCET in the volume), unless the caller folds
 * (ompdag_rta_options.fold_delays).  In files: the node key "delay", allowed
 * only when the graph lists "delays" in "extensions" (a reader that ignored
 * it would compute a bound too low); saving writes both.  0 by default. */
/* Sets D(v) (before or after finalize).  Fails if negative or if the sum of
 * delays would overflow int64, naming the node. */
ompdag_status ompdag_condag_assign_delay(ompdag_condag *g, int32_t v, int64_t delay,
                                      ompdag_error *err);
int64_t ompdag_condag_node_delay(const ompdag_condag *g, int32_t v);
int64_t ompdag_condag_total_delay(const ompdag_condag *g); /* sum over all nodes */
/* True when some node has a delay > 0. */
bool ompdag_condag_has_delays(const ompdag_condag *g);

/* ---- sibling dependences (condag.md §6) -------------------------------------
 * A T node may carry the `depend` clauses of the task it creates.  `var` names
 * a storage class: list items that may overlap at run time share one var.
 * In files the clauses are the node key "depend": [{"type": "in", "var": "x"}].
 * Finalize reads that key, checks it, and removes it from the node's extras;
 * saving writes it back from the clauses. */

typedef enum ompdag_dep_type {
    OMPDAG_DEP_IN = 1,
    OMPDAG_DEP_OUT = 2,
    OMPDAG_DEP_INOUT = 3,
    /* OpenMP 5.0/5.1 (docs/depend.md): a set of consecutive siblings with the
     * same one of these types on a var runs concurrently, ordered against
     * every other type; mutexinoutset siblings also exclude each other (the
     * analysis charges it as a lock, docs/mutex.md). */
    OMPDAG_DEP_INOUTSET = 4,
    OMPDAG_DEP_MUTEXINOUTSET = 5
} ompdag_dep_type;

/* "in", "out", "inout", "inoutset", "mutexinoutset"; "?" otherwise. */
const char *ompdag_dep_type_name(ompdag_dep_type t);
/* Parses those names; false otherwise (depobj is resolved by the front end). */
bool ompdag_dep_type_parse(const char *name, ompdag_dep_type *out);

/* Adds a clause to T node v, or an item to W node v (which makes it a partial
 * taskwait, `taskwait depend`: docs/depend.md), before finalize only; var is
 * copied.  Fails on a node that is neither T nor W, an empty var or an
 * unknown type, naming the node. */
ompdag_status ompdag_condag_add_depend(ompdag_condag *g, int32_t v, ompdag_dep_type type,
                                       const char *var, ompdag_error *err);

/* True when some T node carries a clause or some W node an item. */
bool ompdag_condag_has_depend(const ompdag_condag *g);
/* Number of clauses on node v (T nodes) or items (partial W nodes); 0 for
 * other nodes. */
int32_t ompdag_condag_node_depend_count(const ompdag_condag *g, int32_t v);
/* Clause i of node v: its type and its var (index 0..var_count-1 and name). */
ompdag_dep_type ompdag_condag_node_depend_type(const ompdag_condag *g, int32_t v, int32_t i);
int32_t ompdag_condag_node_depend_var(const ompdag_condag *g, int32_t v, int32_t i);
int32_t ompdag_condag_depend_var_count(const ompdag_condag *g);
const char *ompdag_condag_depend_var_name(const ompdag_condag *g, int32_t var);

/* The D-edges of some flow (§6 Rule 3, union over flows): pairs (sink of the
 * earlier sibling, source of the later one).  Partial taskwaits' waits are
 * not among them (ompdag_condag_order_edges has both).  *from and *to are new arrays of
 * *count entries owned by the caller (free()); both NULL when count is 0.
 * Cost: a backward walk over the creating task per clause, for drawings. */
ompdag_status ompdag_condag_depend_edges(const ompdag_condag *g, int32_t **from, int32_t **to,
                                         int64_t *count, ompdag_error *err);

/* The D-edges (§6 Rule 3) of one flow, given the nodes it executes
 * (executed[v] = 1/0, e.g. from ompdag_flow_mark): a CSR indexed by node,
 * from task sinks to the sources of later siblings.  Partial taskwaits'
 * waits are not among them (ompdag_condag_flow_order_edges has both).  *off (node_count + 1
 * entries) and *succ are new arrays owned by the caller (free()). */
ompdag_status ompdag_condag_flow_depend_edges(const ompdag_condag *g, const uint8_t *executed,
                                              int32_t **off, int32_t **succ, ompdag_error *err);

/* Every ordering edge §6 derives, including the waits of partial taskwaits
 * (W nodes with depend items, docs/depend.md "taskwait depend"): pairs or
 * CSR from a task's sink to a later sibling's source or to a partial W node
 * of its parent that waits for it.  What a scheduler or a path bound must
 * follow besides F-, T- and W-edges.  Same ownership and cost as the two
 * functions above: ompdag_condag_order_edges is the union over flows,
 * ompdag_condag_flow_order_edges the edges of one flow. */
ompdag_status ompdag_condag_order_edges(const ompdag_condag *g, int32_t **from, int32_t **to,
                                        int64_t *count, ompdag_error *err);
ompdag_status ompdag_condag_flow_order_edges(const ompdag_condag *g, const uint8_t *executed,
                                             int32_t **off, int32_t **succ, ompdag_error *err);

/* A refusal for commands that do not honour §6 yet: OMPDAG_OK when g has no
 * clause, else OMPDAG_ERR_UNSUPPORTED with a message naming `what` (the
 * command or algorithm) and the first T node that carries a clause. */
ompdag_status ompdag_condag_refuse_depend(const ompdag_condag *g, const char *what,
                                          ompdag_error *err);

/* ---- files ------------------------------------------------------------------ */

/* Loads `ompdag-condag` v1 or `ompdag-condag-set` v1 from a file ("-" is
 * stdin), or from memory (`origin` names it in messages).  A single graph
 * becomes a set of one.  Every graph is finalized.  On success *out owns a
 * new set: free it with ompdag_condag_set_destroy(). */
ompdag_status ompdag_condag_set_load_file(const char *path, ompdag_condag_set **out,
                                          ompdag_error *err);
ompdag_status ompdag_condag_set_load_buffer(const char *text, size_t len, const char *origin,
                                            ompdag_condag_set **out, ompdag_error *err);

/* Writes atomically (temp file in the same directory, then rename); "-" is
 * stdout.  A set of exactly one graph loaded from a single-graph file is
 * written back in the single-graph format unless `force_set` is true. */
ompdag_status ompdag_condag_set_save_file(const ompdag_condag_set *s, const char *path,
                                          bool force_set, ompdag_error *err);
ompdag_status ompdag_condag_save_file(const ompdag_condag *g, const char *path,
                                      ompdag_error *err);

ompdag_condag_set *ompdag_condag_set_create(void);
void ompdag_condag_set_destroy(ompdag_condag_set *s);
size_t ompdag_condag_set_count(const ompdag_condag_set *s);
/* Borrowed; the set keeps ownership. */
ompdag_condag *ompdag_condag_set_graph(const ompdag_condag_set *s, size_t i);
/* The set takes ownership of g in every case (g is destroyed on failure);
 * g must be finalized. */
ompdag_status ompdag_condag_set_add(ompdag_condag_set *s, ompdag_condag *g, ompdag_error *err);
/* True when the set was loaded from a single-graph file. */
bool ompdag_condag_set_was_single(const ompdag_condag_set *s);

/* ---- deprecated names (kept for one release) --------------------------------
 * The graph's setters were ompdag_condag_set_*, which read like functions of
 * the collection above (ompdag_condag_set); they are ompdag_condag_assign_*
 * now.  The old names still link, do the same, and warn where they are used. */
#if defined(__GNUC__) || defined(__clang__)
#define OMPDAG_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define OMPDAG_DEPRECATED(msg)
#endif
OMPDAG_DEPRECATED("use ompdag_condag_assign_name")
ompdag_status ompdag_condag_set_name(ompdag_condag *g, const char *name);
OMPDAG_DEPRECATED("use ompdag_condag_assign_function")
ompdag_status ompdag_condag_set_function(ompdag_condag *g, const char *function);
OMPDAG_DEPRECATED("use ompdag_condag_assign_time_unit")
ompdag_status ompdag_condag_set_time_unit(ompdag_condag *g, const char *unit);
OMPDAG_DEPRECATED("use ompdag_condag_assign_region_loc")
ompdag_status ompdag_condag_set_region_loc(ompdag_condag *g, ompdag_loc loc);
OMPDAG_DEPRECATED("use ompdag_condag_assign_threads")
void ompdag_condag_set_threads(ompdag_condag *g, int32_t m);
OMPDAG_DEPRECATED("use ompdag_condag_assign_wcet")
ompdag_status ompdag_condag_set_wcet(ompdag_condag *g, int32_t v, int64_t wcet, ompdag_error *err);
OMPDAG_DEPRECATED("use ompdag_condag_assign_delay")
ompdag_status ompdag_condag_set_delay(ompdag_condag *g, int32_t v, int64_t delay,
                                      ompdag_error *err);

#ifdef __cplusplus
}
#endif
#endif
