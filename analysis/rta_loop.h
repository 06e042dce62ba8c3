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

/* The worst flow of a graph with compact loops, for r (whose bound is set):
 * the loops are unrolled (condag_loops_unroll, bodies stay shared) and the
 * compact witness (analysis/rta_compact.c) runs on that graph, then every
 * copy is mapped back to its node: vol, len, migrations, the critical path
 * (a node per copy on it, so an iteration repeated k times shows as a block
 * "(…) xk"), the branch choices (first copy met, another copy's in
 * choice_alt) and the iterations of each loop test (rta_loop_iterations).
 * Above RTA_LOOP_WITNESS_LIMIT unrolled nodes the witness is left out
 * (r->has_witness false, vol and len −1): the bound stays exact. */
#define RTA_LOOP_WITNESS_LIMIT 200000
ompdag_status rta_loop_witness(const ompdag_condag *g, const ompdag_rta_options *opt,
                               ompdag_rta_result *r, ompdag_error *err);

#endif
