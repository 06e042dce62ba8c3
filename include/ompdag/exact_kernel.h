/*
 * ompdag/exact_kernel.h — the per-node step of the exact bound (Sun et al.
 * 2020, Alg1, docs/condag.md §3), as one function that the C library
 * (analysis/rta_exact.c), the GPU kernel (cuda-offload/condag/eval_gpu.cu) and the
 * GPU simulator all compile, so every evaluator runs the same recurrence.
 *
 * For node v (c = WCET, mc = m·WCET, plus m·O at a migration site in both;
 * with dispatch delays D on the critical chain only, mc = m·(WCET + D) while
 * c stays WCET — analysis/rta_exact.c, docs/overheads.md — and the GPU batch,
 * which has one weight per node, folds: c = WCET + D),
 * over "D-flows" from v, five values scaled by m (−∞ where impossible):
 *   V  max volume;  A  path from v;  B  path from v to its task's sink;
 *   Cw / Dw  path from the first W node at-or-after v (to anywhere / to the sink).
 * The caller guarantees that the successors' rows are final (reverse
 * topological order, or a lower level of a level-synchronous sweep).
 */
#ifndef OMPDAG_EXACT_KERNEL_H
#define OMPDAG_EXACT_KERNEL_H

#include <stdint.h>

#ifdef __CUDACC__
#define OMPDAG_HD __host__ __device__
#else
#define OMPDAG_HD
#endif

enum { OMPDAG_QV, OMPDAG_QA, OMPDAG_QB, OMPDAG_QCW, OMPDAG_QDW, OMPDAG_QCOUNT };

/* The five values of one node, side by side: one cache line per visit. */
typedef struct ompdag_exact_row {
    int64_t q[OMPDAG_QCOUNT];
} ompdag_exact_row;

#define OMPDAG_NEG_INF INT64_MIN

static inline OMPDAG_HD int64_t ompdag_add_ninf(int64_t a, int64_t b)
{
    return (a == OMPDAG_NEG_INF || b == OMPDAG_NEG_INF) ? OMPDAG_NEG_INF : a + b;
}

static inline OMPDAG_HD int64_t ompdag_max2(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* The values of "the F-successor" s, or of an empty continuation at a sink. */
static inline OMPDAG_HD ompdag_exact_row ompdag_exact_succ(const ompdag_exact_row *rows, int32_t s)
{
    ompdag_exact_row r;
    if (s < 0) {
        r.q[OMPDAG_QV] = r.q[OMPDAG_QA] = r.q[OMPDAG_QB] = 0;
        r.q[OMPDAG_QCW] = r.q[OMPDAG_QDW] = OMPDAG_NEG_INF;
        return r;
    }
    return rows[s];
}

/* Evaluates node v: kind is 'N','T','W','C' or 'J'; succ[0..nsucc) its
 * F-successors; child the source node of the task it creates, or -1. */
static inline OMPDAG_HD void ompdag_exact_eval_node(ompdag_exact_row *rows, int32_t v, char kind,
                                                    int64_t c, int64_t mc, const int32_t *succ,
                                                    int32_t nsucc, int32_t child)
{
    ompdag_exact_row *o = &rows[v];
    if (kind == 'C') {
        ompdag_exact_row b = rows[succ[0]];
        for (int32_t i = 1; i < nsucc; ++i)
            for (int k = 0; k < OMPDAG_QCOUNT; ++k)
                b.q[k] = ompdag_max2(b.q[k], rows[succ[i]].q[k]);
        o->q[OMPDAG_QV] = c + b.q[OMPDAG_QV];
        o->q[OMPDAG_QA] = mc + b.q[OMPDAG_QA];
        o->q[OMPDAG_QB] = mc + b.q[OMPDAG_QB];
        o->q[OMPDAG_QCW] = ompdag_add_ninf(c, b.q[OMPDAG_QCW]);
        o->q[OMPDAG_QDW] = ompdag_add_ninf(c, b.q[OMPDAG_QDW]);
        return;
    }
    ompdag_exact_row s = ompdag_exact_succ(rows, nsucc ? succ[0] : -1);
    if (child >= 0) { /* T: skip the child, end in it, or return at the next W */
        ompdag_exact_row j = rows[child];
        o->q[OMPDAG_QV] = c + s.q[OMPDAG_QV] + j.q[OMPDAG_QV];
        o->q[OMPDAG_QA] = mc + ompdag_max2(ompdag_max2(s.q[OMPDAG_QA] + j.q[OMPDAG_QV],
                                                       j.q[OMPDAG_QA] + s.q[OMPDAG_QV]),
                                           ompdag_add_ninf(j.q[OMPDAG_QB], s.q[OMPDAG_QCW]));
        o->q[OMPDAG_QB] = mc + ompdag_max2(s.q[OMPDAG_QB] + j.q[OMPDAG_QV],
                                           ompdag_add_ninf(j.q[OMPDAG_QB], s.q[OMPDAG_QDW]));
        o->q[OMPDAG_QCW] = ompdag_add_ninf(c + j.q[OMPDAG_QV], s.q[OMPDAG_QCW]);
        o->q[OMPDAG_QDW] = ompdag_add_ninf(c + j.q[OMPDAG_QV], s.q[OMPDAG_QDW]);
        return;
    }
    o->q[OMPDAG_QV] = c + s.q[OMPDAG_QV];
    o->q[OMPDAG_QA] = mc + s.q[OMPDAG_QA];
    o->q[OMPDAG_QB] = mc + s.q[OMPDAG_QB];
    if (kind == 'W') { /* a path may start here */
        o->q[OMPDAG_QCW] = o->q[OMPDAG_QA];
        o->q[OMPDAG_QDW] = o->q[OMPDAG_QB];
    } else {
        o->q[OMPDAG_QCW] = ompdag_add_ninf(c, s.q[OMPDAG_QCW]);
        o->q[OMPDAG_QDW] = ompdag_add_ninf(c, s.q[OMPDAG_QDW]);
    }
}

#endif
