/*
 * ompdag/compact.h — compact con-DAGs: the "compact" extension of the
 * `ompdag-condag` v1 format (docs/compact.md).
 *
 * In a compact graph a task body is described once and instantiated by
 * reference: several T nodes may create the same task.  Its meaning is the
 * unfolding of the creation DAG into a tree (every T node instance creates a
 * fresh instance of the body), the plain v1 graph ompdag_compact_expand()
 * writes out.  A file marks itself with "extensions": ["compact"]; a reader
 * that does not know the extension refuses it ("task created twice").
 *
 * Everything here works on finalized graphs.  Instance counts are exact up to
 * 2^64 − 1 and saturate there (OMPDAG_COMPACT_MANY).
 */
#ifndef OMPDAG_COMPACT_H
#define OMPDAG_COMPACT_H

#include <stdbool.h>
#include <stdint.h>

#include "ompdag/condag.h"
#include "ompdag/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A saturated instance count: "2^64 − 1 or more". */
#define OMPDAG_COMPACT_MANY UINT64_MAX

/* Marks a graph as compact (before finalize only): its tasks may then be
 * created by several T nodes.  The loader calls it for "extensions":
 * ["compact"]; builders call it before adding shared creations. */
ompdag_status ompdag_compact_enable(ompdag_condag *g, ompdag_error *err);

/* Compact loops (the "loops" extension, docs/compact.md "Compact loops"):
 * marks the graph compact and lets C nodes carry "repeat" (before finalize). */
ompdag_status ompdag_compact_enable_loops(ompdag_condag *g, ompdag_error *err);

/* Makes C node v a loop test of at most `repeat` (>= 1) iterations: its first
 * F-successor starts the body, its second is the exit J node, which the
 * body's last node also leads to.  Stored as the node's extra key "repeat"
 * (a copy of v's extras is made); finalize checks the loop's shape. */
ompdag_status ompdag_compact_set_repeat(ompdag_condag *g, int32_t v, int64_t repeat,
                                        ompdag_error *err);

/* A depend clause of T node v on one cell of array `var`, indexed by the
 * iteration of a compact loop around v (docs/compact.md, "depend clauses in
 * compact loops"): in iteration k (0-based) of the loop tested by node
 * loop_test, the clause names the cell k + offset, the var "var[k+offset]"
 * of the unrolled graph (the front end's name for a constant cell).  Added
 * like ompdag_condag_add_depend(); finalize checks that loop_test is a loop
 * test whose body holds v, in a graph that declares "loops". */
ompdag_status ompdag_condag_add_depend_indexed(ompdag_condag *g, int32_t v, ompdag_dep_type type,
                                               const char *var, int32_t loop_test, int64_t offset,
                                               ompdag_error *err);

/* For clause i of T node v (a finalized graph): true when it is indexed, with
 * its loop test and offset in *loop_test and *offset; false (outputs
 * untouched) for a plain var. */
bool ompdag_condag_node_depend_index(const ompdag_condag *g, int32_t v, int32_t i,
                                     int32_t *loop_test, int64_t *offset);

/* True when the finalized graph has at least one compact loop. */
bool ompdag_compact_has_loops(const ompdag_condag *g);

/* The repeat of loop test v, 0 when v is not one. */
int64_t ompdag_compact_loop_repeat(const ompdag_condag *g, int32_t v);

/* True when the graph uses the compact extension (whether or not some body
 * is actually shared). */
bool ompdag_compact_is_compact(const ompdag_condag *g);

/* Instances of task t in the unfolding (1 for every task of a plain graph),
 * and copies of node v (its task's instances times the iterations of the
 * compact loops holding it); both saturate at OMPDAG_COMPACT_MANY. */
uint64_t ompdag_compact_task_instances(const ompdag_condag *g, int32_t t);
uint64_t ompdag_compact_node_instances(const ompdag_condag *g, int32_t v);

/* Nodes of the unfolded graph (saturating). */
uint64_t ompdag_compact_expanded_node_count(const ompdag_condag *g);

/* Sum over the unfolding of WCET + dispatch delay, plus `overhead` at every node of kind
 * `site_kind` (0: no site).  False when it does not fit in int64. */
bool ompdag_compact_expanded_total(const ompdag_condag *g, int64_t overhead, char site_kind,
                                   int64_t *out);

/* Unfolds a compact graph into a new plain v1 graph (*out owned by the
 * caller).  The first instance of a task keeps its ids; instance k > 0 of a
 * node or task gets the suffix "#k".  Fails with OMPDAG_ERR_LIMIT, naming the
 * size, when the unfolding has more than node_limit nodes (0: 10^7), and
 * with OMPDAG_ERR_INVALID when a suffixed id collides with an existing one.
 * A plain graph is copied. */
ompdag_status ompdag_compact_expand(const ompdag_condag *g, int64_t node_limit, ompdag_condag **out,
                                    ompdag_error *err);

/* The inverse direction: merges structurally identical task subtrees
 * (same kinds, WCETs, locations, labels, F-edges and, recursively, identical
 * children) into one shared body, bottom-up.  The result is compact (marked
 * even when nothing was shared); ompdag_compact_expand() of it is the input
 * up to ids.  Node and task ids are those of each class's first member. */
ompdag_status ompdag_compact_share(const ompdag_condag *g, ompdag_condag **out, ompdag_error *err);

#ifdef __cplusplus
}
#endif
#endif
