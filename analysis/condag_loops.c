/*
 * analysis/condag_loops.c — compact loops: the "loops" extension of compact
 * con-DAGs (docs/compact.md, "Compact loops"; issue 29).
 *
 * A loop whose body creates tasks or waits is described once: a loop test
 * C node carries "repeat": K, its first F-successor starts the body, the
 * other is the exit J node, and the body's last node leads to that J.  The
 * meaning is the at-most unrolling plugin/fe_loop.c writes for a loop_bound
 * (0..K iterations, a "loop test" C node before each).  This file checks
 * the shape (single entry, single exit, proper nesting) and derives what
 * the analysis needs: each node's innermost loop, copies per task instance,
 * and per loop the nodes its closure is computed from (analysis/rta_loop.c).
 * All walks are iterative; counts saturate at UINT64_MAX.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "condag_loops.h"
#include "ompdag/compact.h"

#define NOMEM(err) ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory")
#define REPEAT_KEY "repeat"

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t p;
    return __builtin_mul_overflow(a, b, &p) ? OMPDAG_COMPACT_MANY : p;
}

static json_t *repeat_field(const ompdag_condag *g, int32_t v)
{
    return g->extra && g->extra[v] ? json_object_get(g->extra[v], REPEAT_KEY) : NULL;
}

void condag_loops_free(condag_loops *l)
{
    if (!l) return;
    void *arrays[] = {l->test, l->repeat,  l->body,    l->end,      l->exit, l->outer,
                      l->mult, l->loop_of, l->test_of, l->list_off, l->list};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
        free(arrays[i]);
    free(l);
}

ompdag_status condag_loops_refuse_plain(const ompdag_condag *g, ompdag_error *err)
{
    for (int32_t v = 0; v < g->n; ++v)
        if (repeat_field(g, v))
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "node '%s' has \"" REPEAT_KEY "\" (a compact loop) but the "
                                    "graph does not declare \"extensions\": [\"loops\"]; read as "
                                    "one iteration it would give a bound too low (docs/compact.md)",
                                    node_name(g, v));
    return OMPDAG_OK;
}

static bool alloc_loops(condag_loops *l, int32_t nloops, int32_t n)
{
    size_t k = (size_t)nloops;
    l->n = nloops;
    l->test = malloc(sizeof *l->test * k), l->repeat = malloc(sizeof *l->repeat * k);
    l->body = malloc(sizeof *l->body * k), l->end = malloc(sizeof *l->end * k);
    l->exit = malloc(sizeof *l->exit * k), l->outer = malloc(sizeof *l->outer * k);
    l->mult = malloc(sizeof *l->mult * k);
    l->list_off = calloc(k + 1, sizeof *l->list_off);
    l->loop_of = malloc(sizeof *l->loop_of * (size_t)n);
    l->test_of = malloc(sizeof *l->test_of * (size_t)n);
    l->list = malloc(sizeof *l->list * (size_t)(n ? n : 1));
    if (!l->test || !l->repeat || !l->body || !l->end || !l->exit || !l->outer || !l->mult ||
        !l->list_off || !l->loop_of || !l->test_of || !l->list)
        return false;
    memset(l->loop_of, 0xff, sizeof *l->loop_of * (size_t)n);
    memset(l->test_of, 0xff, sizeof *l->test_of * (size_t)n);
    return true;
}

static int32_t fsucc_count(const ompdag_condag *g, int32_t v)
{
    return g->fsucc_off[v + 1] - g->fsucc_off[v];
}

/* "repeat": an integer >= 1 on a C node with two F-successors. */
static ompdag_status read_test(const ompdag_condag *g, int32_t v, int64_t *k, ompdag_error *err)
{
    json_t *r = repeat_field(g, v);
    if (!json_is_integer(r) || json_integer_value(r) < 1)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "node '%s': \"" REPEAT_KEY "\" must be an integer >= 1 (the most "
                                "iterations of the loop it tests)",
                                node_name(g, v));
    if (g->kind[v] != OMPDAG_KIND_C || fsucc_count(g, v) != 2)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "node '%s': a loop test (\"" REPEAT_KEY "\") must be a C node "
                                "with two F-successors, the body and the exit",
                                node_name(g, v));
    *k = json_integer_value(r);
    return OMPDAG_OK;
}

/* The exit x: the second F-successor, a J node whose F-predecessors are the
 * test and the body's end e (indeg counts F-predecessors). */
static ompdag_status find_exit(const ompdag_condag *g, const int32_t *indeg, condag_loops *l,
                               int32_t i, ompdag_error *err)
{
    int32_t t = l->test[i];
    l->body[i] = g->fsucc[g->fsucc_off[t]];
    l->exit[i] = g->fsucc[g->fsucc_off[t] + 1];
    l->end[i] = -1;
    if (g->kind[l->exit[i]] != OMPDAG_KIND_J || indeg[l->exit[i]] != 2 || indeg[l->body[i]] != 1)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "loop test '%s': its second F-successor '%s' must be the loop's "
                                "exit, a J node reached only from the test and the body's end, "
                                "and its first, '%s', the body's entry, reached only from the test",
                                node_name(g, t), node_name(g, l->exit[i]),
                                node_name(g, l->body[i]));
    return OMPDAG_OK;
}

/* Marks the body of loop i (the nodes reached from b before x), checks that
 * it is entered only at b and left only from e to x, and records the nodes
 * as held by loop i (inner loops, later in topological order, take theirs
 * back).  stack, mark and seen are scratch of n entries; mark holds a stamp. */
static ompdag_status mark_body(const ompdag_condag *g, const int32_t *indeg, condag_loops *l,
                               int32_t i, int32_t *stack, int32_t *mark, int32_t *seen,
                               int32_t *nseen, ompdag_error *err)
{
    *nseen = 0;
    int32_t t = l->test[i], x = l->exit[i], top = 0, outer = l->loop_of[t];
    int64_t in_edges = 0, out_edges = 0;
    stack[top++] = l->body[i];
    mark[l->body[i]] = i + 1;
    while (top) {
        int32_t u = stack[--top];
        seen[(*nseen)++] = u;
        if (u == t || l->loop_of[u] != outer)
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "loop test '%s': its body reaches '%s', which is %s",
                                    node_name(g, t), node_name(g, u),
                                    u == t ? "the test itself" : "outside the enclosing loop");
        if (fsucc_count(g, u) == 0)
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "loop test '%s': the body reaches the task's end at '%s' "
                                    "without passing the exit '%s'",
                                    node_name(g, t), node_name(g, u), node_name(g, x));
        in_edges += indeg[u];
        for (int32_t k = g->fsucc_off[u]; k < g->fsucc_off[u + 1]; ++k) {
            int32_t s = g->fsucc[k];
            ++out_edges;
            if (s == x) {
                if (l->end[i] >= 0 || fsucc_count(g, u) != 1)
                    return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                            "loop test '%s': the body leaves to the exit '%s' "
                                            "from '%s' as well as from its last node (break is "
                                            "not supported in a compact loop)",
                                            node_name(g, t), node_name(g, x), node_name(g, u));
                l->end[i] = u;
            } else if (mark[s] != i + 1) {
                mark[s] = i + 1;
                stack[top++] = s;
            }
        }
    }
    /* in_edges counts test -> b and the inner edges, out_edges the inner
     * edges and e -> x: equal when no edge enters the body from elsewhere */
    if (l->end[i] < 0 || in_edges != out_edges)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "loop test '%s': the body must be entered only at '%s' and left "
                                "only from its last node to the exit '%s'",
                                node_name(g, t), node_name(g, l->body[i]), node_name(g, x));
    return OMPDAG_OK;
}

/* The body's nodes (seen[0..nseen)) now belong to loop i. */
static void claim_body(condag_loops *l, int32_t i, const int32_t *seen, int32_t nseen)
{
    for (int32_t k = 0; k < nseen; ++k)
        l->loop_of[seen[k]] = i;
}

static int32_t list_owner(const condag_loops *l, int32_t u)
{
    return l->test_of[u] >= 0 ? l->outer[l->test_of[u]] : l->loop_of[u];
}

/* Per loop, in topological order: its own body nodes and its direct inner
 * tests (CSR; fill is scratch of n + 1 entries). */
static void build_lists(const ompdag_condag *g, condag_loops *l, int32_t *fill)
{
    for (int32_t k = 0; k < g->n; ++k)
        if (list_owner(l, g->topo[k]) >= 0) l->list_off[list_owner(l, g->topo[k]) + 1]++;
    for (int32_t i = 0; i < l->n; ++i)
        l->list_off[i + 1] += l->list_off[i];
    memcpy(fill, l->list_off, sizeof *fill * (size_t)l->n);
    for (int32_t k = 0; k < g->n; ++k)
        if (list_owner(l, g->topo[k]) >= 0) l->list[fill[list_owner(l, g->topo[k])]++] = g->topo[k];
}

static ompdag_status derive_loops(ompdag_condag *g, condag_loops *l, ompdag_error *err)
{
    int32_t *indeg = calloc((size_t)g->n, sizeof *indeg);
    int32_t *stack = malloc(sizeof *stack * (size_t)g->n);
    int32_t *mark = calloc((size_t)g->n, sizeof *mark);
    int32_t *seen = malloc(sizeof *seen * (size_t)g->n), nseen = 0;
    ompdag_status st = indeg && stack && mark && seen ? OMPDAG_OK : NOMEM(err);
    for (int32_t k = 0; !st && k < g->fsucc_off[g->n]; ++k)
        indeg[g->fsucc[k]]++;
    int32_t nl = 0;
    for (int32_t k = 0; !st && k < g->n; ++k) { /* tests in topological order: outer first */
        int32_t v = g->topo[k];
        if (!repeat_field(g, v)) continue;
        l->test[nl] = v;
        l->test_of[v] = nl;
        st = read_test(g, v, &l->repeat[nl], err);
        if (!st) st = find_exit(g, indeg, l, nl, err);
        if (!st) st = mark_body(g, indeg, l, nl, stack, mark, seen, &nseen, err);
        if (st) break;
        l->outer[nl] = l->loop_of[v];
        l->mult[nl] =
            sat_mul((uint64_t)l->repeat[nl], l->outer[nl] >= 0 ? l->mult[l->outer[nl]] : 1);
        claim_body(l, nl, seen, nseen);
        l->loop_of[v] = nl;
        ++nl;
    }
    if (!st) build_lists(g, l, stack);
    free(indeg), free(stack), free(mark), free(seen);
    return st;
}

ompdag_status condag_loops_derive(ompdag_condag *g, ompdag_error *err)
{
    int32_t nloops = 0;
    for (int32_t v = 0; v < g->n; ++v)
        nloops += repeat_field(g, v) != NULL;
    if (!nloops) return OMPDAG_OK;
    if (!g->loops_declared) return condag_loops_refuse_plain(g, err);
    condag_loops *l = calloc(1, sizeof *l);
    if (!l || !alloc_loops(l, nloops, g->n)) {
        condag_loops_free(l);
        return NOMEM(err);
    }
    ompdag_status st = derive_loops(g, l, err);
    if (st) {
        condag_loops_free(l);
        return st;
    }
    g->loops = l;
    return OMPDAG_OK;
}

void condag_loops_name_largest(const ompdag_condag *g, char *buf, size_t cap)
{
    const condag_loops *l = g->loops;
    buf[0] = 0;
    if (!l || !l->n) return;
    int32_t best = 0;
    for (int32_t i = 1; i < l->n; ++i)
        if (l->mult[i] > l->mult[best]) best = i;
    ompdag_loc loc = ompdag_condag_node_loc(g, l->test[best]);
    char where[160] = "";
    if (loc.file) snprintf(where, sizeof where, " at %s:%d", loc.file, loc.line);
    snprintf(buf, cap, "; the loop tested by node '%s'%s repeats up to %lld times",
             node_name(g, l->test[best]), where, (long long)l->repeat[best]);
}
