/*
 * analysis/condag_loops.h — the "loops" extension of compact con-DAGs
 * (docs/compact.md, "Compact loops"): internal to the analysis library.
 *
 * A loop test is a C node with the key "repeat": K (1 <= K).  Its first
 * F-successor b starts the loop body, the other, x, is the loop's exit: a J
 * node whose only other F-predecessor is the body's last node e.  The file
 * shows one iteration; the meaning is the front end's at-most unrolling
 * (plugin/fe_loop.c): K copies of (test C_i -> body_i), C_i -> x, body_i's
 * e -> C_{i+1}, and body_K's e -> x, so every run of 0..K iterations is a
 * flow.  Bodies are single-entry, single-exit and nest properly.
 */
#ifndef OMPDAG_CONDAG_LOOPS_H
#define OMPDAG_CONDAG_LOOPS_H

#include "internal.h"

typedef struct condag_loops {
    int32_t n;       /* loops, in topological order of their tests after finalize */
    int32_t *test;   /* the loop test (C node) */
    int64_t *repeat; /* K: at most K iterations */
    int32_t *body;   /* first node of the body (b) */
    int32_t *end;    /* last node of the body (e) */
    int32_t *exit;   /* the J node after the loop (x) */
    int32_t *outer;  /* the loop whose body holds this loop's test, or -1 */
    uint64_t *mult;  /* copies of one body node per instance of its task (saturating) */
    /* per node */
    int32_t *loop_of; /* innermost loop holding the node (a test holds itself), or -1 */
    int32_t *test_of; /* the loop a test node tests, or -1 */
    /* per loop, CSR: the nodes the loop's closure is computed from, in
     * topological order: its body nodes that no inner loop holds, and the
     * tests of the loops directly inside it */
    int32_t *list_off, *list;
} condag_loops;

/* Reads "repeat" from the nodes' extras, checks every loop and derives the
 * fields above (g->loops, NULL when the graph has no loop).  Called by
 * condag_compact_derive, after the topological order. */
ompdag_status condag_loops_derive(ompdag_condag *g, ompdag_error *err);

/* A plain (non-compact) graph may not carry "repeat": read as one iteration
 * it would give a bound too low. */
ompdag_status condag_loops_refuse_plain(const ompdag_condag *g, ompdag_error *err);

void condag_loops_free(condag_loops *l);

/* g with every loop unrolled as plugin/fe_loop.c does for a loop_bound: a
 * compact graph without loops whose bodies stay shared (*out owned by the
 * caller, destroy with ompdag_condag_destroy).  Node v's copies are added in
 * order, v's first, so copy k of v has index base(v) + k, base(v) being the
 * sum of condag_loops_mult over the nodes before v.  The caller checks the
 * size (analysis/condag_compact_expand.c).  Without wsucc the W-edges are
 * left out (g->no_wsucc): unrolled they can grow with K², and neither the
 * unfolding nor the compact witness reads them. */
ompdag_status condag_loops_unroll(const ompdag_condag *g, bool wsucc, ompdag_condag **out,
                                  ompdag_error *err);

/* Names the loop with the most copies of its body, for overflow messages:
 * "; the loop tested by node 'L' at f.c:4 repeats up to K times" (empty
 * when the graph has no loop).  Always NUL-terminates buf. */
void condag_loops_name_largest(const ompdag_condag *g, char *buf, size_t cap);

/* Copies of node v per instance of its task: 1 outside loops. */
static inline uint64_t condag_loops_mult(const ompdag_condag *g, int32_t v)
{
    return g->loops && g->loops->loop_of[v] >= 0 ? g->loops->mult[g->loops->loop_of[v]] : 1;
}

/* The last node of the body of the loop tested by v (v must be a test). */
static inline int32_t condag_loops_end(const ompdag_condag *g, int32_t v)
{
    return g->loops->end[g->loops->test_of[v]];
}

#endif
