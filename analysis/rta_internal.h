/*
 * analysis/rta_internal.h — what the three bound algorithms and the flow
 * evaluator share: the result object, overflow guard and −∞ arithmetic.
 */
#ifndef OMPDAG_RTA_INTERNAL_H
#define OMPDAG_RTA_INTERNAL_H

#include "internal.h"
#include "ompdag/exact_kernel.h"
#include "ompdag/locks.h"
#include "ompdag/rta.h"

/* The per-node quantities of the exact step, shared with the GPU evaluators
 * (ompdag/exact_kernel.h), under the short names the algorithms use. */
enum {
    QV = OMPDAG_QV,
    QA = OMPDAG_QA,
    QB = OMPDAG_QB,
    QCW = OMPDAG_QCW,
    QDW = OMPDAG_QDW,
    QCOUNT = OMPDAG_QCOUNT
};

/* −∞ for "no such path": absorbing under addition. */
#define NEG_INF INT64_MIN

static inline int64_t add_ninf(int64_t a, int64_t b)
{
    return (a == NEG_INF || b == NEG_INF) ? NEG_INF : a + b;
}
static inline int64_t max2(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

struct ompdag_rta_result {
    ompdag_algorithm alg;
    int32_t m;
    int64_t bound_times_m;
    bool has_witness;
    int64_t vol, len, migrations;
    int32_t n;       /* nodes in the graph */
    bool exact;      /* the figure equals the enumeration oracle's (proven, not measured) */
    int32_t *choice; /* per node: chosen F-successor of an executed C node, else -1 */
    int32_t *path;
    int32_t path_len;
    uint64_t flows;
    /* a compact graph's witness (rta_compact.c) */
    bool compact;
    uint64_t path_nodes; /* nodes on the whole critical path (path holds a prefix) */
    int32_t *choice_alt; /* per node: another choice some instances make, else -1 */
    uint8_t *reached;    /* per node: 1 when some instance runs in the worst flow */
    /* a graph with compact loops (rta_loop.c): per node, for a reached loop
     * test, the fewest and most iterations its instances run, else -1 */
    int64_t *loop_lo, *loop_hi;
    /* compact loops replayed in runs (rta_loop_path.c): the critical path as
     * pieces over piece_node, or npieces 0; why the path is missing, or NULL */
    ompdag_path_piece *piece;
    int32_t npieces;
    int32_t *piece_node;
    const char *no_path;
};

/* Nodes piece_node[at .. at + len) repeated `times` times in a row. */
typedef ompdag_path_piece rta_path_piece;

/* Checks m and the graph, and that 2m·(total WCET + O·(migration sites))
 * fits in int64.  Exact values stay below m·total; alg0's below 2m·total (its
 * path, its volume terms and one extra (m−1)·Ls at a sink each fit in total). */
ompdag_status rta_check_inputs(const ompdag_condag *g, const ompdag_rta_options *opt,
                               ompdag_error *err);

/* Extra volume charged on a flow for node v: m·O at each migration site. */
static inline int64_t rta_penalty(const ompdag_condag *g, const ompdag_rta_options *opt, int32_t v)
{
    if (!opt->migration_overhead) return 0;
    ompdag_kind site = opt->migration_model == OMPDAG_MIGRATION_WFS ? OMPDAG_KIND_T : OMPDAG_KIND_W;
    return g->kind[v] == site ? (int64_t)opt->m * opt->migration_overhead : 0;
}

/* Dispatch delays (docs/overheads.md): node v's weights in the bound.
 * Off the path it counts its volume term rta_c (seed's c); on the path
 * rta_mc = m·(WCET + D) + m·O.  Chain-only: rta_c = WCET, so D enters only on
 * the path; folded (opt->fold_delays): rta_c = WCET + D.  Without delays
 * both reduce to Alg1's c and m·c. */
static inline int64_t rta_delay(const ompdag_condag *g, int32_t v)
{
    return g->delay ? g->delay[v] : 0;
}
/* Lock blocking B(v, m) (docs/mutex.md): spinning is busy time, so the
 * algorithms see c(v) + B(v, m) wherever they see a WCET (rta_wcet). */
static inline int64_t rta_wcet(const ompdag_condag *g, const ompdag_rta_options *opt, int32_t v)
{
    if (!g->locks) return g->wcet[v];
    return g->wcet[v] +
           ompdag_condag_node_blocking(g, v, opt->blocking_m ? opt->blocking_m : opt->m);
}
static inline int64_t rta_c(const ompdag_condag *g, const ompdag_rta_options *opt, int32_t v)
{
    return rta_wcet(g, opt, v) + (opt->fold_delays ? rta_delay(g, v) : 0);
}
static inline int64_t rta_mc(const ompdag_condag *g, const ompdag_rta_options *opt, int32_t v)
{
    return (int64_t)opt->m * (rta_wcet(g, opt, v) + rta_delay(g, v)) + rta_penalty(g, opt, v);
}
/* What being on the path adds to a node's volume term: (m−1)·c + m·D
 * chain-only, (m−1)·(c + D) folded. */
static inline int64_t rta_path_extra(const ompdag_condag *g, const ompdag_rta_options *opt,
                                     int32_t v)
{
    return rta_mc(g, opt, v) - rta_penalty(g, opt, v) - rta_c(g, opt, v);
}

/* A new result with every choice -1; NULL on ENOMEM. */
ompdag_rta_result *rta_result_new(const ompdag_condag *g, ompdag_algorithm alg, int32_t m,
                                  bool witness);

/* Shared by enumerate and ompdag_flow_evaluate: executed set of a flow.
 * Returns the node at fault (>= 0) when an executed C node lacks a valid
 * choice, else -1. */
int32_t rta_mark_executed(const ompdag_condag *g, const int32_t *choice, uint8_t *executed);

/* vol, len and longest path of the flow `executed`; path_out (n-sized
 * scratch, optional) receives the path, returning its length.  False when
 * the flow's D-edges did not fit in memory (only with depend clauses): *out
 * is then incomplete and must not be used. */
typedef struct rta_scratch {
    int64_t *dist; /* heaviest path ending before v, by rta_path_extra */
    int64_t *plen; /* its Σ (WCET + D), the tie-breaker (m = 1 without delays) */
    int32_t *pred;
    condag_dflow dflow; /* D-edges of the flow being measured (§6) */
} rta_scratch;
bool rta_scratch_init(rta_scratch *s, const ompdag_condag *g);
void rta_scratch_free(rta_scratch *s);
bool rta_measure_flow(const ompdag_condag *g, const ompdag_rta_options *opt,
                      const uint8_t *executed, rta_scratch *s, ompdag_flow_eval *out,
                      int32_t *path_out, int32_t *path_len);

/* The worst flow of a compact graph from Alg1's rows, without unfolding. */
ompdag_status rta_compact_witness(const ompdag_condag *g, const ompdag_rta_options *opt,
                                  const struct ompdag_exact_row *row, ompdag_rta_result *r,
                                  ompdag_error *err);

ompdag_status rta_exact(const ompdag_condag *g, const ompdag_rta_options *opt,
                        ompdag_rta_result **out, ompdag_error *err);
ompdag_status rta_alg0(const ompdag_condag *g, const ompdag_rta_options *opt,
                       ompdag_rta_result **out, ompdag_error *err);
/* Graphs with depend clauses (§6): rta_depend.c.  `exact` and `depend` on
 * such a graph both land here. */
ompdag_status rta_depend(const ompdag_condag *g, const ompdag_rta_options *opt,
                         ompdag_rta_result **out, ompdag_error *err);
/* Test hook: the largest number of (node, key) cells the exact keyed tables
 * may use before vars are merged into fewer classes (sound, not exact).
 * 0 restores the default. */
void rta_depend_set_cell_budget(int64_t cells);

ompdag_status rta_enumerate(const ompdag_condag *g, const ompdag_rta_options *opt,
                            ompdag_rta_result **out, ompdag_error *err);

#endif
