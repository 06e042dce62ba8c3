/*
 * analysis/rta_compact.c — the worst flow of Alg1 (Sun et al.
 * 2020; docs/condag.md §3) on a compact graph (docs/compact.md),
 * without unfolding it.
 *
 * rta_exact.c's values of a shared body are computed once, since they do not
 * depend on the creator.  Its argmax replay (build_witness) reaches every
 * node instance through exactly one "state" (v, q) — the node and the value
 * q ∈ {V, A, B, Cw, Dw} it was entered for — and the decisions depend on the
 * state only.  So the worst flow of the unfolded graph is described by at
 * most 5 states per distinct node:
 *   1. a forward pass (F+T order) marks the reached states and counts their
 *      instances (saturating);
 *   2. a backward pass measures each state's fixed sub-flow directly: its
 *      volume, migrations and longest paths of four kinds (from v anywhere /
 *      to the task's sink / from the first W at-or-after v, anywhere / to the
 *      sink), with no maximum over choices;
 *   3. vol + path weight + m·O·migrations of the root state (the weight is
 *      (m−1)·len without delays, Σ ((m−1)·c + m·D) with chain-only ones) must equal A(root)
 *      of Alg1 — the same check as build_witness's direct measurement;
 *   4. the critical path is replayed from the root, up to a cap, with its
 *      exact node count from the memoised counts.
 * Cost O(5·(distinct nodes + edges)); no recursion (explicit stacks).
 */
#include <string.h>

#include "ompdag/exact_kernel.h"
#include "rta_internal.h"

enum { XA, XB, XCW, XDW, XCOUNT }; /* the four kinds of path */

/* Path nodes kept in the result; the count beyond is exact (path_nodes). */
#define COMPACT_PATH_CAP 65536

typedef struct state {
    int32_t v;
    int8_t q;
} state;

typedef struct node_memo {
    uint64_t cnt[QCOUNT];           /* instances of the state in the worst flow */
    int64_t vol[QCOUNT];            /* volume of the state's sub-flow */
    int64_t mig[QCOUNT];            /* migration sites in it */
    int64_t len[QCOUNT][XCOUNT];    /* heaviest paths of each kind (by rta_path_extra: (m−1)·c,
                                       plus m·D with chain-only delays), NEG_INF when none */
    int64_t plen[QCOUNT][XCOUNT];   /* their Σ (WCET + D): the tie-breaker and the reported len */
    uint64_t nodes[QCOUNT][XCOUNT]; /* nodes on the chosen longest path (saturating) */
} node_memo;

typedef struct compact_ctx {
    const ompdag_condag *g;
    const ompdag_rta_options *opt;
    const ompdag_exact_row *row;
    node_memo *memo;
} compact_ctx;

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t s;
    return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

static int32_t first_fsucc(const ompdag_condag *g, int32_t v)
{
    return g->fsucc_off[v + 1] > g->fsucc_off[v] ? g->fsucc[g->fsucc_off[v]] : -1;
}

static int32_t child_source(const ompdag_condag *g, int32_t v)
{
    return g->creates[v] >= 0 ? g->task_source[g->creates[v]] : -1;
}

/* A W node entered for Cw/Dw starts the path: it is entered for A/B. */
static int normal_q(const ompdag_condag *g, int32_t v, int q)
{
    if (g->kind[v] == OMPDAG_KIND_W && (q == QCW || q == QDW)) return q == QCW ? QA : QB;
    return q;
}

/* Step 1's decisions: the states of the sub-flow of (v, q), as rta_exact.c's
 * build_witness takes them.  *s is the F-successor's state (v = -1 when v is
 * a sink), *j the created child's (v = -1 unless T). */
static void flow_decide(const compact_ctx *c, int32_t v, int q, state *s, state *j)
{
    const ompdag_condag *g = c->g;
    const ompdag_exact_row *row = c->row;
    q = normal_q(g, v, q);
    *j = (state){-1, 0};
    if (g->kind[v] == OMPDAG_KIND_C) {
        int32_t best = -1;
        for (int32_t i = g->fsucc_off[v]; i < g->fsucc_off[v + 1]; ++i)
            if (best < 0 || row[g->fsucc[i]].q[q] > row[best].q[q]) best = g->fsucc[i];
        *s = (state){best, (int8_t)q};
        return;
    }
    int32_t sn = first_fsucc(g, v), jn = child_source(g, v);
    *s = (state){sn, (int8_t)q};
    if (jn < 0) return;
    *j = (state){jn, QV};
    if (q != QA && q != QB) return;
    ompdag_exact_row sr = ompdag_exact_succ(row, sn), jr = row[jn];
    int64_t rest = row[v].q[q] - rta_mc(g, c->opt, v);
    int same = q == QA ? QA : QB, wait = q == QA ? QCW : QDW;
    if (sr.q[same] + jr.q[QV] == rest) {
        *s = (state){sn, (int8_t)same}, *j = (state){jn, QV};
    } else if (q == QA && jr.q[QA] + sr.q[QV] == rest) {
        *s = (state){sn, QV}, *j = (state){jn, QA};
    } else {
        assert(add_ninf(jr.q[QB], sr.q[wait]) == rest);
        *s = (state){sn, (int8_t)wait}, *j = (state){jn, QB};
    }
}

/* Step 2's values of a sub-state; an absent F-successor is an empty rest. */
static int64_t len_of(const compact_ctx *c, state s, int x)
{
    if (s.v < 0) return x == XA || x == XB ? 0 : NEG_INF;
    return c->memo[s.v].len[s.q][x];
}

static int64_t plen_of(const compact_ctx *c, state s, int x)
{
    return s.v < 0 ? 0 : c->memo[s.v].plen[s.q][x];
}

/* Paths compare by weight, then by length (so m = 1 without delays still
 * reports a longest path). */
static bool heavier(int64_t w, int64_t l, int64_t best_w, int64_t best_l)
{
    return w > best_w || (w == best_w && w != NEG_INF && l > best_l);
}

static uint64_t nodes_of(const compact_ctx *c, state s, int x)
{
    return s.v < 0 ? 0 : c->memo[s.v].nodes[s.q][x];
}

/* The kind of path once at v: a W node turns Cw/Dw into A/B (it is on it). */
static int normal_x(const ompdag_condag *g, int32_t v, int x)
{
    if (g->kind[v] == OMPDAG_KIND_W && (x == XCW || x == XDW)) return x == XCW ? XA : XB;
    return x;
}

/* Which continuation the heaviest path of kind x from v takes (first
 * maximum): 0 along the F-successor (same kind), 1 into the child to
 * anywhere, 2 into the child to its sink and back at the next W.  *value gets
 * its weight and *length its Σ (WCET + D) (without v's own). */
static int path_option(const compact_ctx *c, int32_t v, int x, state s, state j, int64_t *value,
                       int64_t *length)
{
    x = normal_x(c->g, v, x);
    int64_t best = len_of(c, s, x), best_l = plen_of(c, s, x);
    int opt = 0;
    if (j.v >= 0 && (x == XA || x == XB)) {
        if (x == XA && heavier(len_of(c, j, XA), plen_of(c, j, XA), best, best_l))
            best = len_of(c, j, XA), best_l = plen_of(c, j, XA), opt = 1;
        int wx = x == XA ? XCW : XDW;
        int64_t back = add_ninf(len_of(c, j, XB), len_of(c, s, wx));
        int64_t back_l = plen_of(c, j, XB) + plen_of(c, s, wx);
        if (heavier(back, back_l, best, best_l)) best = back, best_l = back_l, opt = 2;
    }
    *value = best;
    *length = best == NEG_INF ? 0 : best_l;
    return opt;
}

static bool on_path(const ompdag_condag *g, int32_t v, int x)
{
    x = normal_x(g, v, x);
    return x == XA || x == XB;
}

/* Step 2 for one reached state (its sub-states are done: later in order). */
static void measure_state(compact_ctx *c, int32_t v, int q)
{
    const ompdag_condag *g = c->g;
    node_memo *m = &c->memo[v];
    state s, j;
    flow_decide(c, v, q, &s, &j);
    m->vol[q] = rta_c(g, c->opt, v) + (s.v >= 0 ? c->memo[s.v].vol[s.q] : 0) +
                (j.v >= 0 ? c->memo[j.v].vol[j.q] : 0);
    if (c->opt->migration_overhead) /* then m·O·migrations fits, as part of the total */
        m->mig[q] = (rta_penalty(g, c->opt, v) != 0) + (s.v >= 0 ? c->memo[s.v].mig[s.q] : 0) +
                    (j.v >= 0 ? c->memo[j.v].mig[j.q] : 0);
    for (int x = 0; x < XCOUNT; ++x) {
        int64_t rest, rest_len;
        int opt = path_option(c, v, x, s, j, &rest, &rest_len);
        bool here = on_path(g, v, x);
        int nx = normal_x(g, v, x);
        m->len[q][x] = here ? add_ninf(rta_path_extra(g, c->opt, v), rest) : rest;
        m->plen[q][x] = rest == NEG_INF ? 0 : rest_len + (here ? g->wcet[v] + rta_delay(g, v) : 0);
        uint64_t n = opt == 0   ? nodes_of(c, s, nx)
                     : opt == 1 ? nodes_of(c, j, XA)
                                : sat_add(nodes_of(c, j, XB), nodes_of(c, s, nx == XA ? XCW : XDW));
        m->nodes[q][x] = rest == NEG_INF ? 0 : sat_add(n, here);
    }
}

/* Step 1: reached states and their instance counts, in F+T order. */
static void count_states(compact_ctx *c)
{
    const ompdag_condag *g = c->g;
    c->memo[g->task_source[g->root]].cnt[QA] = 1;
    for (int32_t i = 0; i < g->n; ++i) {
        int32_t v = g->topo[i];
        for (int q = 0; q < QCOUNT; ++q) {
            uint64_t k = c->memo[v].cnt[q];
            if (!k) continue;
            state s, j;
            flow_decide(c, v, q, &s, &j);
            if (s.v >= 0) c->memo[s.v].cnt[s.q] = sat_add(c->memo[s.v].cnt[s.q], k);
            if (j.v >= 0) c->memo[j.v].cnt[j.q] = sat_add(c->memo[j.v].cnt[j.q], k);
        }
    }
}

/* C nodes' choices: the first reached state's (A, B, Cw, Dw, V order), and
 * another choice some instances make, if any. */
static void record_choices(const compact_ctx *c, ompdag_rta_result *r)
{
    static const int order[QCOUNT] = {QA, QB, QCW, QDW, QV};
    for (int32_t v = 0; v < c->g->n; ++v) {
        if (c->g->kind[v] != OMPDAG_KIND_C) continue;
        for (int i = 0; i < QCOUNT; ++i) {
            if (!c->memo[v].cnt[order[i]]) continue;
            state s, j;
            flow_decide(c, v, order[i], &s, &j);
            if (r->choice[v] < 0)
                r->choice[v] = s.v;
            else if (s.v != r->choice[v] && r->choice_alt[v] < 0)
                r->choice_alt[v] = s.v;
        }
    }
}

typedef struct path_frame {
    state st;
    int8_t x;
} path_frame;

/* Step 4: replays the longest path of the root state, keeping the first
 * COMPACT_PATH_CAP nodes.  Continuations after a child's sink wait on a
 * stack, as deep as the nesting. */
static ompdag_status replay_path(const compact_ctx *c, ompdag_rta_result *r, ompdag_error *err)
{
    const ompdag_condag *g = c->g;
    int64_t cap = 16, top = 0;
    path_frame *stack = malloc(sizeof *stack * (size_t)cap);
    r->path = malloc(sizeof *r->path * COMPACT_PATH_CAP);
    if (!stack || !r->path)
        return free(stack), ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    path_frame cur = {{g->task_source[g->root], QA}, XA};
    r->path_len = 0;
    while (cur.st.v >= 0 && r->path_len < COMPACT_PATH_CAP) {
        int32_t v = cur.st.v;
        state s, j;
        flow_decide(c, v, cur.st.q, &s, &j);
        int64_t rest, rest_len;
        int opt = path_option(c, v, cur.x, s, j, &rest, &rest_len);
        int nx = normal_x(g, v, cur.x);
        if (on_path(g, v, cur.x)) r->path[r->path_len++] = v;
        path_frame next = {s, (int8_t)nx};
        if (opt == 1) {
            next = (path_frame){j, XA};
        } else if (opt == 2) {
            if (top == cap && !grow_array((void **)&stack, sizeof *stack, &cap, top + 1)) {
                free(stack);
                return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
            }
            stack[top++] = (path_frame){s, (int8_t)(nx == XA ? XCW : XDW)};
            next = (path_frame){j, XB};
        }
        if (next.st.v < 0 && top) /* a child's sink: back to the parent's next W */
            next = stack[--top];
        cur = next;
    }
    free(stack);
    return OMPDAG_OK;
}

ompdag_status rta_compact_witness(const ompdag_condag *g, const ompdag_rta_options *opt,
                                  const ompdag_exact_row *row, ompdag_rta_result *r,
                                  ompdag_error *err)
{
    compact_ctx c = {g, opt, row, calloc((size_t)g->n, sizeof(node_memo))};
    r->choice_alt = malloc(sizeof *r->choice_alt * (size_t)g->n);
    r->reached = calloc((size_t)g->n, 1);
    if (!c.memo || !r->choice_alt || !r->reached) {
        free(c.memo);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    memset(r->choice_alt, 0xff, sizeof *r->choice_alt * (size_t)g->n);
    count_states(&c);
    for (int32_t i = g->n - 1; i >= 0; --i)
        for (int q = 0; q < QCOUNT; ++q)
            if (c.memo[g->topo[i]].cnt[q]) measure_state(&c, g->topo[i], q);
    record_choices(&c, r);
    for (int32_t v = 0; r->reached && v < g->n; ++v)
        for (int q = 0; q < QCOUNT; ++q)
            r->reached[v] |= c.memo[v].cnt[q] != 0;
    const node_memo *root = &c.memo[g->task_source[g->root]];
    r->vol = root->vol[QA];
    r->len = root->plen[QA][XA];
    r->migrations = opt->migration_overhead ? root->mig[QA] : 0;
    r->path_nodes = root->nodes[QA][XA];
    r->compact = true;
    int64_t direct =
        r->vol + root->len[QA][XA] + (int64_t)opt->m * opt->migration_overhead * r->migrations;
    ompdag_status st = replay_path(&c, r, err);
    free(c.memo);
    if (!st && direct != r->bound_times_m)
        st = ompdag_error_set(err, OMPDAG_ERR_INVALID,
                              "internal error: the compact worst flow measures %lld, Alg1 gives "
                              "%lld",
                              (long long)direct, (long long)r->bound_times_m);
    return st;
}
