/*
 * ompdag/locks.h — mutual exclusion in task code and its blocking term
 * (docs/mutex.md; the "locks" format extension).
 *
 * A node may carry the locks its code acquires: `critical` sections (named or
 * not), omp_set_lock/omp_unset_lock pairs, each with the number of times the
 * node acquires it (or OMPDAG_LOCK_UNBOUNDED when the front end cannot count
 * them, e.g. inside a loop without a bound).  No task scheduling point lies
 * inside a critical section (the front end refuses one), so a waiting thread
 * spins: the bound charges node v the blocking term
 *
 *     B(v, m) = Σ over locks L of v of  min( k·(m−1)·Cmax(L),  S(L) − c(v) ),  B(v, 1) = 0
 *
 * (the second term alone when k is unbounded), where k is v's acquisitions of
 * L, Cmax(L) the largest WCET of a node acquiring L (a critical section is
 * part of its node's measured time, so the node's WCET bounds it) and S(L)
 * the sum of the WCETs of every node acquiring L.  The bound uses c(v) + B(v, m)
 * in place of c(v), in the volume and on the path (a spinning thread is busy).
 * Proof and assumptions (FIFO spin locks for the first term, none for the
 * second) in docs/mutex.md.
 *
 * In files: the node key "locks": [{"lock": "critical", "count": 1}, ...]
 * ("count": "unbounded" for an unknown count), allowed only when the graph
 * lists "locks" in "extensions", so a reader that does not know the term
 * refuses the file instead of dropping it.  A compact graph may carry locks,
 * but its bound is refused until it is unfolded (`ompdag expand`): a shared
 * body stands for several nodes, so S(L) would be undercounted.
 */
#ifndef OMPDAG_LOCKS_H
#define OMPDAG_LOCKS_H

#include <stdbool.h>
#include <stdint.h>

#include "ompdag/condag.h"
#include "ompdag/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An acquisition count the front end could not bound. */
#define OMPDAG_LOCK_UNBOUNDED ((int64_t)-1)

/* Records that node v acquires `lock` (copied) `count` times (>= 1, or
 * OMPDAG_LOCK_UNBOUNDED); a second call for the same (v, lock) adds to the
 * count.  Before finalize only.  Fails naming the node on a bad count or an
 * empty lock name. */
ompdag_status ompdag_condag_add_lock(ompdag_condag *g, int32_t v, const char *lock, int64_t count,
                                     ompdag_error *err);

/* True when some node acquires a lock. */
bool ompdag_condag_has_locks(const ompdag_condag *g);
/* Locks of node v (after finalize): how many, then each one's name (borrowed
 * from the graph) and acquisition count (OMPDAG_LOCK_UNBOUNDED when unknown). */
int32_t ompdag_condag_node_lock_count(const ompdag_condag *g, int32_t v);
const char *ompdag_condag_node_lock_name(const ompdag_condag *g, int32_t v, int32_t i);
int64_t ompdag_condag_node_lock_acquisitions(const ompdag_condag *g, int32_t v, int32_t i);

/* B(v, m) above (0 without locks); saturates at INT64_MAX, which
 * ompdag_condag_total_blocking reports as an overflow first. */
int64_t ompdag_condag_node_blocking(const ompdag_condag *g, int32_t v, int32_t m);
/* Σ over nodes of B(v, m) into *out; OMPDAG_ERR_OVERFLOW when it does not
 * fit in int64. */
ompdag_status ompdag_condag_total_blocking(const ompdag_condag *g, int32_t m, int64_t *out,
                                           ompdag_error *err);

/* OMPDAG_OK without locks, else OMPDAG_ERR_UNSUPPORTED naming `what` (a
 * command that does not charge the blocking term) and the first such node. */
ompdag_status ompdag_condag_refuse_locks(const ompdag_condag *g, const char *what,
                                         ompdag_error *err);

#ifdef __cplusplus
}
#endif

#endif
