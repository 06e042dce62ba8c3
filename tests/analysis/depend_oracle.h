/* tests/analysis/depend_oracle.h — the literal reading of OpenMP's sibling
 * dependences (5.1 §15.9.5) and of `taskwait depend` (§15.5), shared by
 * test_depend_sets.c and test_depend_wait.c: for one flow, an edge from each
 * earlier executed conflicting sibling's sink to a later sibling or partial
 * taskwait, and from every earlier child's sink to a full taskwait (edges from
 * children an earlier taskwait already awaited change no longest path).  It
 * uses none of the library's D- or W-edges, so the library's group rule
 * (condag_depend.c) is checked against it. */
#ifndef OMPDAG_TESTS_DEPEND_ORACLE_H
#define OMPDAG_TESTS_DEPEND_ORACLE_H

#include <stdlib.h>
#include <string.h>

#include "ompdag/locks.h"
#include "support.h"

static inline int mode_of(ompdag_dep_type t, bool wait)
{
    switch (t) {
    case OMPDAG_DEP_IN:
        return 0;
    case OMPDAG_DEP_INOUTSET:
        return 2;
    case OMPDAG_DEP_MUTEXINOUTSET:
        return wait ? 1 : 3; /* a wait's exclusion may wait for a running sibling */
    default:
        return 1;
    }
}

/* OpenMP 5.1 §15.9.5 and §15.5, literally: the clauses of the task created by
 * T node a conflict with those of node b (a T node, or a W node's items). */
static inline bool conflict(const ompdag_condag *g, int32_t a, int32_t b)
{
    bool wait = ompdag_condag_node_kind(g, b) == OMPDAG_KIND_W;
    for (int32_t i = 0; i < ompdag_condag_node_depend_count(g, a); ++i)
        for (int32_t k = 0; k < ompdag_condag_node_depend_count(g, b); ++k) {
            if (ompdag_condag_node_depend_var(g, a, i) != ompdag_condag_node_depend_var(g, b, k))
                continue;
            int x = mode_of(ompdag_condag_node_depend_type(g, a, i), false);
            int y = mode_of(ompdag_condag_node_depend_type(g, b, k), wait);
            if (x == 1 || y == 1 || x != y) return true;
        }
    return false;
}

static inline void mark(const ompdag_condag *g, const int32_t *choice, uint8_t *ex)
{
    int32_t n = ompdag_condag_node_count(g);
    memset(ex, 0, (size_t)n);
    const int32_t *topo = ompdag_condag_topo_order(g);
    ex[ompdag_condag_task_source(g, ompdag_condag_root_task(g))] = 1;
    for (int32_t i = 0; i < n; ++i) {
        int32_t v = topo[i], k;
        if (!ex[v]) continue;
        const int32_t *s = ompdag_condag_node_fsucc(g, v, &k);
        for (int32_t j = 0; j < k; ++j)
            if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_C || s[j] == choice[v]) ex[s[j]] = 1;
        if (ompdag_condag_node_creates(g, v) >= 0)
            ex[ompdag_condag_task_source(g, ompdag_condag_node_creates(g, v))] = 1;
    }
}

static inline void raise_to(int64_t *best, int32_t v, int64_t here)
{
    if (here > best[v]) best[v] = here;
}

/* The sink of the task created by T node a is done: its edges to every later
 * executed node b of the same parent that waits for it (seq: the parent's
 * executed T and W nodes in order).  A full W waits for every earlier child,
 * a partial W and a later sibling for the conflicting ones.  No W-edge of the
 * library is used. */
static inline void sibling_edges(const ompdag_condag *g, const int32_t *seq, int32_t nseq,
                                 int32_t a, int64_t here, int64_t *best)
{
    bool after = false;
    for (int32_t q = 0; q < nseq; ++q) {
        int32_t b = seq[q];
        if (b == a) after = true;
        if (b == a || !after || ompdag_condag_node_task(g, b) != ompdag_condag_node_task(g, a))
            continue;
        bool w = ompdag_condag_node_kind(g, b) == OMPDAG_KIND_W;
        if (w && (!ompdag_condag_node_depend_count(g, b) || conflict(g, a, b)))
            raise_to(best, b, here);
        else if (!w && conflict(g, a, b))
            raise_to(best, ompdag_condag_task_source(g, ompdag_condag_node_creates(g, b)), here);
    }
}

/* m·R of one flow: vol + (m−1)·len over F, T and the literal sibling and wait
 * edges, each node weighing c + its blocking term. */
static inline int64_t literal_flow(const ompdag_condag *g, const int32_t *choice, int32_t m)
{
    int32_t n = ompdag_condag_node_count(g);
    uint8_t *ex = malloc((size_t)n);
    int64_t *best = calloc((size_t)n, sizeof *best), vol = 0, len = 0;
    int32_t *seq = malloc(sizeof *seq * (size_t)n), nseq = 0;
    mark(g, choice, ex);
    const int32_t *topo = ompdag_condag_topo_order(g);
    for (int32_t i = 0; i < n; ++i) {
        ompdag_kind k = ompdag_condag_node_kind(g, topo[i]);
        if (ex[topo[i]] && (k == OMPDAG_KIND_T || k == OMPDAG_KIND_W)) seq[nseq++] = topo[i];
    }
    for (int32_t i = 0; i < n; ++i) {
        int32_t v = topo[i], k;
        if (!ex[v]) continue;
        int64_t c = ompdag_condag_node_wcet(g, v) + ompdag_condag_node_blocking(g, v, m);
        vol += c;
        int64_t here = best[v] + c;
        if (here > len) len = here;
        const int32_t *s = ompdag_condag_node_fsucc(g, v, &k);
        for (int32_t j = 0; j < k; ++j)
            if (ex[s[j]]) raise_to(best, s[j], here);
        int32_t ct = ompdag_condag_node_creates(g, v);
        if (ct >= 0) raise_to(best, ompdag_condag_task_source(g, ct), here);
        int32_t task = ompdag_condag_node_task(g, v);
        if (ompdag_condag_task_sink(g, task) == v && task != ompdag_condag_root_task(g))
            sibling_edges(g, seq, nseq, ompdag_condag_task_creator(g, task), here, best);
    }
    free(ex), free(best), free(seq);
    return vol + (int64_t)(m - 1) * len;
}

static inline void random_choice(const ompdag_condag *g, ompdag_rng *r, int32_t *choice)
{
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        int32_t k;
        const int32_t *s = ompdag_condag_node_fsucc(g, v, &k);
        choice[v] = ompdag_condag_node_kind(g, v) == OMPDAG_KIND_C && k
                        ? s[ompdag_rng_range(r, 0, k - 1)]
                        : -1;
    }
}

#endif
