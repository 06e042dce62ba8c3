/*
 * analysis/condag_loop_depend.h — depend clauses indexed by a compact loop's
 * iteration (condag_loop_depend.c; docs/compact.md), internal to the
 * analysis library.  Reading and checking are declared in internal.h, since
 * condag_depend.c calls them.
 */
#ifndef OMPDAG_CONDAG_LOOP_DEPEND_H
#define OMPDAG_CONDAG_LOOP_DEPEND_H

#include "internal.h"

/* The var that clause i of T node v names in copy k of v (k numbers the
 * iterations of v's loops as condag_loops_unroll does, innermost digit
 * last): "var[c]" with c = (iteration of the index's loop) + offset for an
 * indexed clause, the plain var otherwise; into buf (cap bytes).  Errors
 * name the node (an int64 overflow of the cell, a name too long). */
ompdag_status condag_loop_depend_cell(const ompdag_condag *g, int32_t v, int32_t i, uint64_t k,
                                      char *buf, size_t cap, ompdag_error *err);

#endif
