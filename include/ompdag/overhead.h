/*
 * ompdag/overhead.h — the OpenMP runtime's own costs in the bound: dispatch
 * delays.  The proof is docs/overheads.md; in short (Graham 1966, with the
 * delays of a non-ideal dispatcher):
 *
 * A node of a con-DAG becomes ready when its last predecessor completes.  A
 * real runtime does not start it at once even when a thread is free: a new
 * task waits to be picked up (creation -> start), a taskwait waits to be woken
 * (last child's end -> the waiting task resumes), and the creator of a task
 * may itself resume late after the directive (libomp's switch pair around the
 * creation of an untied task).  Let D(v) bound the time during which node v is
 * ready, not started, and NOT every thread is busy running graph code
 * ("non-full" time: the part of the delay that Graham's argument cannot
 * charge to the volume):
 *
 *   D(v) = start_delay  when v is the source of a task other than the root
 *                        (ready when the T node that creates it completes),
 *          wake_delay   when v is a W node (ready when its in-task
 *                        predecessor and every joined task's sink completed),
 *          cont_delay   when v follows a T node in its task (an F-successor of
 *                        a T node: the creator's continuation), added to
 *                        wake_delay when v is also a W node,
 *          0            otherwise (v follows its in-task predecessor inside
 *                        one segment of the same thread),
 *   plus, on the root task's source only, ceil(F / m0): team formation.  In
 *   a cold region the team's other threads join after the root began: thread
 *   j is absent for its lateness a_j and idles at most a_j, so F = Σ_j a_j
 *   (thread-ns, measured at team size m0) is charged once, on the node every
 *   critical chain starts at, and D above is measured as if absent threads
 *   were busy (docs/overheads.md, "Team formation").
 *
 * Then for every flow e and every schedule of it (the critical chain z)
 *     m·R  <=  vol(e) + Σ_{v∈z} ((m − 1)·WCET(v) + m·D(v))
 *          <=  the exact bound with D(v) on the chain only (ompdag_condag_assign_overheads
 *              stores D in the graph; ompdag_rta_run charges it on the path)
 *          <=  the exact bound of the graph with WCET + D (ompdag_condag_add_overheads,
 *              the older, looser fold).
 * Everything is exact int64 arithmetic; overflow is an error.
 */
#ifndef OMPDAG_OVERHEAD_H
#define OMPDAG_OVERHEAD_H

#include <stdint.h>

#include "ompdag/condag.h"
#include "ompdag/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ompdag_overheads {
    int64_t start_delay; /* task creation -> its first node starts (non-full part), >= 0 */
    int64_t wake_delay;  /* last predecessor of a W node done -> the wait returns, >= 0 */
    int64_t cont_delay;  /* a T node done -> the creator's next node starts, >= 0 */
    int64_t formation;   /* team formation F = Σ_j a_j: thread-ns the team's threads joined
                            after the root began (cold region), >= 0; charged once */
    int32_t threads;     /* m0, the team size F was measured at: the root's source gets
                            ceil(F / m0), so m·D >= F at m >= m0 (0 is taken as 1) */
} ompdag_overheads;

/* ceil(o->formation / o->threads), the delay team formation puts on the
 * root task's source (o->threads 0 is taken as 1). */
int64_t ompdag_overheads_formation_delay(const ompdag_overheads *o);

/* D(v) of node v of the finalized graph g from the classes of o (see
 * above), given whether an F-predecessor of v is a T node: *d; false when
 * the sum overflows int64.  The rule itself, for callers that choose each
 * class's value per node (the input's DAG, annotate/annotate_input.c). */
bool ompdag_overheads_delay_of(const ompdag_condag *g, int32_t v, bool after_create,
                               const ompdag_overheads *o, int64_t *d);

/* Which delay D(v) applies to node v of the finalized graph g (see above).
 * O(nodes) per call (it looks for a T node among v's F-predecessors): for
 * every node at once use ompdag_overheads_node_delays(). */
int64_t ompdag_overhead_of_node(const ompdag_condag *g, int32_t v, const ompdag_overheads *o);

/* D(v) of every node of the finalized g into delay[0..node_count), an array
 * owned by the caller, in O(nodes + edges).  Fails with OMPDAG_ERR_ARGUMENT
 * on a negative delay and OMPDAG_ERR_OVERFLOW when a node's D (wake + cont)
 * or the sum over the graph would overflow int64. */
ompdag_status ompdag_overheads_node_delays(const ompdag_condag *g, const ompdag_overheads *o,
                                           int64_t *delay, ompdag_error *err);

/* Stores D(v) as each node's dispatch delay (ompdag_condag_assign_delay), so
 * the bound charges it on the critical chain only.  Fails like
 * ompdag_overheads_node_delays, or when a WCET plus its delay would
 * overflow; on failure g is unchanged. */
ompdag_status ompdag_condag_assign_overheads(ompdag_condag *g, const ompdag_overheads *o,
                                             ompdag_error *err);

/* Adds D(v) to every node's WCET of the finalized graph g (the fold: sound,
 * looser than ompdag_condag_assign_overheads by Σ_{v∉chain} D(v) / m).  Fails
 * like ompdag_overheads_node_delays, or when a WCET or the sum of WCETs would
 * overflow int64; on failure g is unchanged. */
ompdag_status ompdag_condag_add_overheads(ompdag_condag *g, const ompdag_overheads *o,
                                          ompdag_error *err);

/* Deprecated name (one release): ompdag_condag_assign_overheads. */
OMPDAG_DEPRECATED("use ompdag_condag_assign_overheads")
ompdag_status ompdag_condag_set_overheads(ompdag_condag *g, const ompdag_overheads *o,
                                          ompdag_error *err);

#ifdef __cplusplus
}
#endif
#endif
