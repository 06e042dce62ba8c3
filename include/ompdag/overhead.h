/*
 * ompdag/overhead.h — the OpenMP runtime's own costs in the bound: dispatch
 * delays.  The proof is docs/overheads.md; in short (Graham 1966, with the
 * delays of a non-ideal dispatcher):
 *
 * A node of a con-DAG becomes ready when its last predecessor completes.  A
 * real runtime does not start it at once even when a thread is free: a new
 * task waits to be picked up (creation -> start), a taskwait waits to be woken
 * (last child's end -> the waiting task resumes).  Let D(v) bound the time
 * during which node v is ready, not started, and NOT every thread is busy
 * running graph code ("non-full" time: the part of the delay that Graham's
 * argument cannot charge to the volume):
 *
 *   D(v) = start_delay  when v is the source of a task other than the root
 *                        (ready when the T node that creates it completes),
 *          wake_delay   when v is a W node (ready when its in-task
 *                        predecessor and every joined task's sink completed),
 *          0            otherwise (v follows its in-task predecessor inside
 *                        one segment of the same thread).
 *
 * Then for every flow e and every schedule of it,
 *     m·R  <=  vol'(e) + (m − 1)·len'(e)      with WCET'(v) = WCET(v) + D(v),
 * so the exact bound of the graph with WCETs WCET + D covers the delays.
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
} ompdag_overheads;

/* Which delay D(v) applies to node v of the finalized graph g (see above). */
int64_t ompdag_overhead_of_node(const ompdag_condag *g, int32_t v, const ompdag_overheads *o);

/* Adds D(v) to every node's WCET of the finalized graph g.  Fails with
 * OMPDAG_ERR_ARGUMENT on a negative delay and OMPDAG_ERR_OVERFLOW when a WCET
 * or the sum of WCETs would overflow int64; on failure g is unchanged. */
ompdag_status ompdag_condag_add_overheads(ompdag_condag *g, const ompdag_overheads *o,
                                          ompdag_error *err);

#ifdef __cplusplus
}
#endif
#endif
