/*
 * analysis/condag_loop_depend.c — depend clauses whose cell follows a compact
 * loop's iteration (docs/compact.md, "depend clauses in compact loops").
 *
 * A compact loop (condag_loops.c) describes K iterations by one body; a task
 * created in it that depends on a[i−1] and a[i] names another cell in every
 * iteration.  Such a clause carries an index: in iteration k (0-based) of the
 * loop tested by node L it names the cell k + offset of array var, which the
 * at-most unrolling (condag_compact_expand.c) writes as the plain var
 * "var[k+offset]" — the name plugin/fe_depend.c gives a constant cell of an
 * unrolled loop, so the expansion of a compact graph is the graph the front
 * end would have written by unrolling.  The meaning is that unrolling:
 * condag.md §6 on the expanded graph.
 *
 * This file stores the index beside the clause (condag_dep's iloop/ioff),
 * reads it from the file key, checks it at finalize and names the cell of a
 * copy.  Clauses of graphs with loops must sit in tasks created by one T node
 * (no shared recursion bodies): the serial order of condag_depend.c needs a
 * creation tree.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "condag_loop_depend.h"
#include "condag_loops.h"
#include "ompdag/compact.h"

#define NOMEM(err) ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory")

/* Makes clause c (order added) indexed by loop test `loop` with `offset`. */
static ompdag_status set_index(condag_dep *d, int64_t c, int32_t loop, int64_t offset,
                               ompdag_error *err)
{
    int64_t old = d->icap;
    if (!grow_array((void **)&d->iloop, sizeof *d->iloop, &(int64_t){d->icap}, c + 1) ||
        !grow_array((void **)&d->ioff, sizeof *d->ioff, &d->icap, c + 1))
        return NOMEM(err);
    for (int64_t j = old; j < d->icap; ++j) /* plain until set */
        d->iloop[j] = -1, d->ioff[j] = 0;
    d->iloop[c] = loop, d->ioff[c] = offset;
    return OMPDAG_OK;
}

ompdag_status ompdag_condag_add_depend_indexed(ompdag_condag *g, int32_t v, ompdag_dep_type type,
                                               const char *var, int32_t loop_test, int64_t offset,
                                               ompdag_error *err)
{
    if (loop_test < 0 || loop_test >= g->n)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "loop test index %d out of range",
                                loop_test);
    ompdag_status st = ompdag_condag_add_depend(g, v, type, var, err);
    return st ? st : set_index(g->dep, g->dep->n - 1, loop_test, offset, err);
}

bool ompdag_condag_node_depend_index(const ompdag_condag *g, int32_t v, int32_t i,
                                     int32_t *loop_test, int64_t *offset)
{
    const condag_dep *d = g->dep;
    if (!d || !d->iloop || !d->corig || i < 0 || i >= ompdag_condag_node_depend_count(g, v))
        return false;
    int32_t c = d->corig[d->off[v] + i];
    if (c >= d->icap || d->iloop[c] < 0) return false;
    *loop_test = d->iloop[c], *offset = d->ioff[c];
    return true;
}

ompdag_status condag_loop_depend_read_index(ompdag_condag *g, int32_t v, size_t i, const json_t *c,
                                            ompdag_error *err)
{
    const json_t *ix = json_object_get(c, "index");
    if (!ix) return OMPDAG_OK;
    const json_t *loop = json_object_get(ix, "loop"), *off = json_object_get(ix, "offset");
    if (!json_is_object(ix) || json_object_size(ix) != 2 || !json_is_string(loop) ||
        !json_is_integer(off))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "node '%s': depend[%zu].index must be {\"loop\": \"<id of the loop "
                                "test>\", \"offset\": <integer>} (docs/compact.md)",
                                node_name(g, v), i);
    int32_t t = ompdag_condag_find_node(g, json_string_value(loop));
    if (t < 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "node '%s': depend[%zu].index.loop '%s' is not a node of the graph",
                                node_name(g, v), i, json_string_value(loop));
    return set_index(g->dep, g->dep->n - 1, t, (int64_t)json_integer_value(off), err);
}

/* The position of clause c (order added) among its node's clauses. */
static int64_t clause_pos(const condag_dep *d, int64_t c)
{
    int64_t k = 0;
    for (int64_t j = 0; j < c; ++j)
        k += d->node[j] == d->node[c];
    return k;
}

/* True when the loop tested by node t holds node v in its body (at any depth). */
static bool loop_holds(const ompdag_condag *g, int32_t t, int32_t v)
{
    const condag_loops *l = g->loops;
    if (!l || l->test_of[t] < 0 || v == t) return false;
    for (int32_t j = l->loop_of[v]; j >= 0; j = l->outer[j])
        if (l->test[j] == t) return true;
    return false;
}

static ompdag_status check_index(const ompdag_condag *g, int64_t c, ompdag_error *err)
{
    const condag_dep *d = g->dep;
    int32_t v = d->node[c], t = d->iloop[c];
    long long pos = (long long)clause_pos(d, c);
    if (!g->loops_declared)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "node '%s': depend[%lld] has an \"index\" (one cell per iteration "
                                "of a compact loop) but the graph does not declare \"extensions\": "
                                "[\"loops\"]; read without its loop it would name one cell for "
                                "every iteration (docs/compact.md)",
                                node_name(g, v), pos);
    if (!g->loops || g->loops->test_of[t] < 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "node '%s': depend[%lld].index.loop '%s' is not a loop test (a C "
                                "node with \"repeat\")",
                                node_name(g, v), pos, node_name(g, t));
    if (!loop_holds(g, t, v))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "node '%s': depend[%lld].index.loop '%s' tests a loop whose body "
                                "does not hold the node; an index follows an enclosing loop",
                                node_name(g, v), pos, node_name(g, t));
    return OMPDAG_OK;
}

/* Clauses in a graph with loops: each task is created by one T node at most. */
static ompdag_status check_unshared(const ompdag_condag *g, ompdag_error *err)
{
    int32_t *creator = malloc(sizeof *creator * (size_t)g->nt);
    if (!creator) return NOMEM(err);
    memset(creator, 0xff, sizeof *creator * (size_t)g->nt);
    ompdag_status st = OMPDAG_OK;
    for (int32_t v = 0; v < g->n && !st; ++v) {
        int32_t c = g->creates[v];
        if (c < 0) continue;
        if (creator[c] < 0 && c != g->root) {
            creator[c] = v;
            continue;
        }
        st = ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                              "node '%s': depend clauses in a compact graph whose task '%s' is "
                              "created by several T nodes (a shared body or recursion) are not "
                              "modelled; unfold it with `ompdag expand`",
                              node_name(g, g->dep->node[0]), task_name(g, c));
    }
    free(creator);
    return st;
}

ompdag_status condag_loop_depend_check(const ompdag_condag *g, ompdag_error *err)
{
    const condag_dep *d = g->dep;
    if (!d || !d->n) return OMPDAG_OK;
    for (int64_t c = 0; d->iloop && c < d->n && c < d->icap; ++c) {
        ompdag_status st = d->iloop[c] >= 0 ? check_index(g, c, err) : OMPDAG_OK;
        if (st) return st;
    }
    return g->loops && !g->dep_unrolled ? check_unshared(g, err) : OMPDAG_OK;
}

ompdag_status condag_loop_depend_cell(const ompdag_condag *g, int32_t v, int32_t i, uint64_t k,
                                      char *buf, size_t cap, ompdag_error *err)
{
    const char *var = ompdag_condag_depend_var_name(g, ompdag_condag_node_depend_var(g, v, i));
    int32_t t;
    int64_t off;
    if (!ompdag_condag_node_depend_index(g, v, i, &t, &off)) {
        snprintf(buf, cap, "%s", var);
        return OMPDAG_OK;
    }
    const condag_loops *l = g->loops;
    uint64_t digit = 0;
    for (int32_t j = l->loop_of[v]; j >= 0; j = l->outer[j]) { /* innermost digit first */
        digit = k % (uint64_t)l->repeat[j];
        k /= (uint64_t)l->repeat[j];
        if (l->test[j] == t) break;
    }
    int64_t cell;
    if (__builtin_add_overflow((int64_t)digit, off, &cell))
        return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                "node '%s': the cell %llu + %lld of its depend clause on '%s' does "
                                "not fit in int64",
                                node_name(g, v), (unsigned long long)digit, (long long)off, var);
    if ((size_t)snprintf(buf, cap, "%s[%lld]", var, (long long)cell) >= cap)
        return ompdag_error_set(err, OMPDAG_ERR_LIMIT,
                                "node '%s': the var name '%s' of a depend clause is too long",
                                node_name(g, v), var);
    return OMPDAG_OK;
}
