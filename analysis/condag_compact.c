/*
 * analysis/condag_compact.c — compact con-DAGs (include/ompdag/compact.h,
 * docs/compact.md): task bodies shared by several T nodes, an extension of
 * the `ompdag-condag` v1 format of docs/condag.md §5.
 *
 * A compact graph means its unfolding: the creation relation is a DAG whose
 * tree unfolding gives every T node instance a fresh instance of the body it
 * creates.  Seed 004's Alg1 values of a node depend only on its own task and
 * what that task creates (condag.md §3, "D-flows from v"), never on who
 * created it, so every instance of a body has the same values: the reason
 * rta_exact.c runs unchanged on a compact graph (memoisation for free).
 *
 * This file holds the checking side: the format hooks, validation of the
 * creation DAG and instance counts.  The unfolding (expand) and its inverse
 * (share) are in condag_compact_expand.c.  All walks are iterative.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "condag_loops.h"
#include "internal.h"
#include "ompdag/compact.h"
#include "ompdag/locks.h"

#define NOMEM(err) ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory")
#define EXTENSION "compact"

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t s;
    return __builtin_add_overflow(a, b, &s) ? OMPDAG_COMPACT_MANY : s;
}

ompdag_status ompdag_compact_enable(ompdag_condag *g, ompdag_error *err)
{
    if (g->finalized || g->creates)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "the compact extension is set before finalize");
    g->compact = true;
    return OMPDAG_OK;
}

bool ompdag_compact_is_compact(const ompdag_condag *g)
{
    return g->compact;
}

uint64_t ompdag_compact_task_instances(const ompdag_condag *g, int32_t t)
{
    return g->task_inst && t >= 0 && t < g->nt ? g->task_inst[t] : 1;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t p;
    return __builtin_mul_overflow(a, b, &p) ? OMPDAG_COMPACT_MANY : p;
}

/* A node inside compact loops has one copy per iteration of each (condag_loops.c). */
uint64_t ompdag_compact_node_instances(const ompdag_condag *g, int32_t v)
{
    if (v < 0 || v >= g->n) return 0;
    return sat_mul(ompdag_compact_task_instances(g, g->node_task[v]), condag_loops_mult(g, v));
}

ompdag_status ompdag_compact_enable_loops(ompdag_condag *g, ompdag_error *err)
{
    ompdag_status st = ompdag_compact_enable(g, err);
    if (!st) g->loops_declared = true;
    return st;
}

ompdag_status ompdag_compact_set_repeat(ompdag_condag *g, int32_t v, int64_t repeat,
                                        ompdag_error *err)
{
    if (g->finalized || !g->loops_declared || v < 0 || v >= g->n || repeat < 1)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "a loop's repeat (>= 1) is set on an existing node of a graph "
                                "with the loops extension, before finalize");
    json_t *old = ompdag_condag_extra(g, v);
    json_t *o = old ? json_deep_copy(old) : json_object(); /* extras may be shared */
    if (!o || json_object_set_new(o, "repeat", json_integer(repeat)) ||
        ompdag_condag_assign_extra(g, v, o)) {
        json_decref(o);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    json_decref(o);
    return OMPDAG_OK;
}

bool ompdag_compact_has_loops(const ompdag_condag *g)
{
    return g->loops != NULL;
}

int64_t ompdag_compact_loop_repeat(const ompdag_condag *g, int32_t v)
{
    if (!g->loops || v < 0 || v >= g->n || g->loops->test_of[v] < 0) return 0;
    return g->loops->repeat[g->loops->test_of[v]];
}

uint64_t ompdag_compact_expanded_node_count(const ompdag_condag *g)
{
    uint64_t n = 0;
    for (int32_t v = 0; v < g->n; ++v)
        n = sat_add(n, ompdag_compact_node_instances(g, v));
    return n;
}

bool ompdag_compact_expanded_total(const ompdag_condag *g, int64_t overhead, char site_kind,
                                   int64_t *out)
{
    int64_t total = 0;
    for (int32_t v = 0; v < g->n; ++v) {
        uint64_t k = ompdag_compact_node_instances(g, v);
        int64_t c = g->wcet[v], part;
        if (g->delay && __builtin_add_overflow(c, g->delay[v], &c)) return false;
        if (site_kind && g->kind[v] == (uint8_t)site_kind &&
            __builtin_add_overflow(c, overhead, &c))
            return false;
        if (c == 0) continue; /* k may be saturated (OMPDAG_COMPACT_MANY): 0·k is still 0 */
        if (k > INT64_MAX || __builtin_mul_overflow(c, (int64_t)k, &part) ||
            __builtin_add_overflow(total, part, &total))
            return false;
    }
    *out = total;
    return true;
}

/* ---- the format hooks (called by condag_json.c) ------------------------- */

ompdag_status condag_compact_read_meta(ompdag_condag *g, const json_t *obj, const char *where,
                                       ompdag_error *err)
{
    json_t *ext = json_object_get(obj, "extensions");
    if (!ext) return OMPDAG_OK;
    if (!json_is_array(ext))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'extensions' must be an array of strings", where);
    size_t i;
    json_t *e;
    json_array_foreach(ext, i, e)
    {
        if (!json_is_string(e))
            return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: extensions[%zu] must be a string",
                                    where, i);
        if (!strcmp(json_string_value(e), "delays")) { /* docs/overheads.md: node "delay" */
            g->delays_declared = true;
            continue;
        }
        if (!strcmp(json_string_value(e), "locks")) { /* docs/mutex.md: node "locks" */
            g->locks_declared = true;
            continue;
        }
        if (!strcmp(json_string_value(e), "taskwait-depend")) { /* docs/depend.md: W "depend" */
            g->twdep_declared = true;
            continue;
        }
        if (!strcmp(json_string_value(e), "loops")) { /* compact loops, node "repeat" */
            g->loops_declared = g->compact = true;
            continue;
        }
        if (strcmp(json_string_value(e), EXTENSION))
            return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                    "%s: unsupported extension '%s' (this ompdag knows "
                                    "\"" EXTENSION "\", \"loops\", \"delays\", \"locks\" and "
                                    "\"taskwait-depend\")",
                                    where, json_string_value(e));
        g->compact = true;
    }
    return OMPDAG_OK;
}

void condag_compact_write_meta(const ompdag_condag *g, json_t *o)
{
    json_t *ext = json_array();
    if (g->compact) json_array_append_new(ext, json_string(EXTENSION));
    if (g->loops_declared) json_array_append_new(ext, json_string("loops"));
    if (g->total_delay > 0) json_array_append_new(ext, json_string("delays"));
    if (ompdag_condag_has_locks(g)) json_array_append_new(ext, json_string("locks"));
    if (condag_depend_has_partial_wait(g))
        json_array_append_new(ext, json_string("taskwait-depend"));
    if (json_array_size(ext))
        json_object_set_new(o, "extensions", ext);
    else
        json_decref(ext);
}

/* ---- validation hooks ---------------------------------------------------- */

/* Exactly one uncreated task (the root) and an acyclic creation relation, so
 * every task is reached from the root (Kahn's algorithm over tasks). */
ompdag_status condag_compact_check_tasks(ompdag_condag *g, ompdag_error *err)
{
    ompdag_status root = condag_find_root(g, err);
    if (root) return root;
    int32_t *indeg = calloc((size_t)g->nt, sizeof *indeg);
    int32_t *stack = malloc(sizeof *stack * (size_t)g->nt);
    int32_t *first = malloc(sizeof *first * ((size_t)g->nt + 1)); /* CSR of T nodes by task */
    int32_t *tnodes = malloc(sizeof *tnodes * (size_t)(g->n ? g->n : 1));
    ompdag_status st = OMPDAG_OK;
    if (!indeg || !stack || !first || !tnodes) {
        st = NOMEM(err);
        goto done;
    }
    memset(first, 0, sizeof *first * ((size_t)g->nt + 1));
    for (int32_t v = 0; v < g->n; ++v)
        if (g->creates[v] >= 0) {
            indeg[g->creates[v]]++;
            first[g->node_task[v] + 1]++;
        }
    for (int32_t t = 0; t < g->nt; ++t)
        first[t + 1] += first[t];
    int32_t *fill = stack; /* borrowed as scratch before the walk */
    memcpy(fill, first, sizeof *fill * (size_t)g->nt);
    for (int32_t v = 0; v < g->n; ++v)
        if (g->creates[v] >= 0) tnodes[fill[g->node_task[v]]++] = v;
    int32_t top = 0, seen = 0;
    stack[top++] = g->root;
    while (top) {
        int32_t t = stack[--top];
        ++seen;
        for (int32_t i = first[t]; i < first[t + 1]; ++i)
            if (--indeg[g->creates[tnodes[i]]] == 0) stack[top++] = g->creates[tnodes[i]];
    }
    if (seen < g->nt) {
        int32_t t = 0;
        while (indeg[t] == 0)
            ++t;
        st = ompdag_error_set(err, OMPDAG_ERR_INVALID,
                              "task '%s' creates itself through its descendants (a creation "
                              "cycle); a compact graph unfolds to a finite tree only when "
                              "creation is acyclic — give each recursion depth its own body",
                              task_name(g, t));
    }
done:
    free(indeg), free(stack), free(first), free(tnodes);
    return st;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Two creators in one parent may reach the same W node: keep each W-edge once. */
static void dedup_wsucc(ompdag_condag *g)
{
    int32_t out = 0;
    for (int32_t v = 0; v < g->n; ++v) {
        int32_t b = g->wsucc_off[v], e = g->wsucc_off[v + 1];
        qsort(g->wsucc + b, (size_t)(e - b), sizeof *g->wsucc, cmp_i32);
        g->wsucc_off[v] = out;
        for (int32_t i = b; i < e; ++i)
            if (i == b || g->wsucc[i] != g->wsucc[i - 1]) g->wsucc[out++] = g->wsucc[i];
    }
    g->wsucc_off[g->n] = out;
}

/* Instances per task: each creator instance (one per instance of its task
 * and iteration of its loops) creates one, in F+T order (every creator
 * precedes the created task's source, and its own task's source). */
ompdag_status condag_compact_derive(ompdag_condag *g, ompdag_error *err)
{
    dedup_wsucc(g);
    ompdag_status st = condag_loops_derive(g, err);
    if (st) return st;
    g->task_inst = calloc((size_t)g->nt, sizeof *g->task_inst);
    if (!g->task_inst) return NOMEM(err);
    g->task_inst[g->root] = 1;
    for (int32_t i = 0; i < g->n; ++i) {
        int32_t v = g->topo[i];
        if (g->creates[v] >= 0)
            g->task_inst[g->creates[v]] =
                sat_add(g->task_inst[g->creates[v]], ompdag_compact_node_instances(g, v));
    }
    return OMPDAG_OK;
}
