/*
 * analysis/rta_loop_depend.h — the bound of a graph with compact loops and
 * depend clauses (analysis/rta_loop_depend.c), internal to the analysis
 * library.
 */
#ifndef OMPDAG_RTA_LOOP_DEPEND_H
#define OMPDAG_RTA_LOOP_DEPEND_H

#include "rta_internal.h"

/* Unrolled nodes up to which the bound is computed on the unrolling. */
#define RTA_LOOP_DEPEND_LIMIT 1000000
/* Up to this many unrolled nodes a closed graph's worst flow (vol, len) is
 * taken from the unrolling (rta_loop_depend.c, closure_flow). */
#define RTA_LOOP_DEPEND_FLOW_LIMIT 200000

/* The exact depend bound (rta_depend.c) of the at-most unrolling of g's
 * loops, bit for bit that of `ompdag expand`'s graph.  *out (owned by the
 * caller, ompdag_rta_result_destroy) has the bound and "exact"; unless
 * opt->bound_only, a bound found on the unrolling also has the worst flow's
 * vol, len and migrations (checked), and its path is left out (no witness).
 * OMPDAG_ERR_LIMIT names the limit and the largest loop above
 * RTA_LOOP_DEPEND_LIMIT unrolled nodes. */
ompdag_status rta_loop_depend(const ompdag_condag *g, const ompdag_rta_options *opt,
                              ompdag_rta_result **out, ompdag_error *err);

#endif
