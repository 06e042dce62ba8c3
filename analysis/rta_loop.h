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

#endif
