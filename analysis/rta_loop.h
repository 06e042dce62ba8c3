/*
 * analysis/rta_loop.h — Alg1's values on a graph with compact loops
 * (analysis/rta_loop.c), internal to the analysis library.
 */
#ifndef OMPDAG_RTA_LOOP_H
#define OMPDAG_RTA_LOOP_H

#include "ompdag/exact_kernel.h"
#include "rta_internal.h"

/* Fills row[v] for every node outside loop bodies (and every loop test) with
 * the values Alg1 gives the corresponding node of the unrolled graph; rows of
 * nodes inside bodies are scratch.  OMPDAG_ERR_OVERFLOW names the loop. */
ompdag_status rta_loop_tables(const ompdag_condag *g, const ompdag_rta_options *opt,
                              ompdag_exact_row *row, ompdag_error *err);

/* The worst flow of a graph with compact loops, for r (whose bound is set).
 * vol, len and migrations come from rta_loop_flow_sums at every size.  Up to
 * the path limit (RTA_LOOP_WITNESS_LIMIT unrolled nodes, or the test hook's)
 * the loops are unrolled (condag_loops_unroll, bodies stay shared) and the
 * compact witness (analysis/rta_compact.c) runs on that graph, then every
 * copy is mapped back to its node: vol, len, migrations, the critical path
 * (a node per copy on it, so an iteration repeated k times shows as a block
 * "(…) xk"), the branch choices (first copy met, another copy's in
 * choice_alt) and the iterations of each loop test (rta_loop_iterations).
 * Above the limit r->has_witness is false (no path, choices or counts) and
 * vol, len and migrations are rta_loop_flow_sums's: exact, at any K. */
#define RTA_LOOP_WITNESS_LIMIT 200000
ompdag_status rta_loop_witness(const ompdag_condag *g, const ompdag_rta_options *opt,
                               ompdag_rta_result *r, ompdag_error *err);

/* vol, len and migrations of a worst flow and its critical path, in
 * O(nodes·5² + loops·5³·log K) whatever the trip counts
 * (analysis/rta_loop_witness.c): sets r->vol, r->len, r->migrations; the
 * parts must add up to r->bound_times_m (an internal error otherwise).
 * OMPDAG_ERR_OVERFLOW names the loop.  On a graph without loops it is the
 * plain pass on tuples (the tests' reference on the unrolling). */
ompdag_status rta_loop_flow_sums(const ompdag_condag *g, const ompdag_rta_options *opt,
                                 ompdag_rta_result *r, ompdag_error *err);

/* The worst flow's path, branches and loop counts without unrolling, in
 * runs of equal iterations checked against the tuples (analysis/
 * rta_loop_flow.c, rta_loop_replay.c, rta_loop_path.c); also sets vol, len
 * and migrations.  When the replay gives up (runs that do not settle or do
 * not add up, loops nested deeper than 8), r->has_witness is false and
 * r->no_path says why (vol, len and migrations stay). */
ompdag_status rta_loop_replay_witness(const ompdag_condag *g, const ompdag_rta_options *opt,
                                      ompdag_rta_result *r, ompdag_error *err);

/* The error for a sum over loop i (an index into g->loops) that overflows
 * int64: names the loop's test node, its place and its repeat. */
ompdag_status rta_loop_overflow_error(const ompdag_condag *g, int32_t i, ompdag_error *err);

/* Test hook: the runs per loop entry before the replay gives up (0 or
 * anything above restores 64). */
void rta_loop_set_runs_cap(int32_t runs);

/* Test hook: the path limit in unrolled nodes (0 restores
 * RTA_LOOP_WITNESS_LIMIT; 1 leaves every graph with loops to
 * rta_loop_flow_sums alone). */
void rta_loop_set_witness_limit(uint64_t nodes);

#endif
