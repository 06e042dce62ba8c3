/*
 * analysis/condag_compact_expand.c — the two transformations of compact
 * con-DAGs (include/ompdag/compact.h, docs/compact.md):
 *
 *   expand  the tree unfolding of the creation DAG, as a plain v1 graph: every
 *           instance of a T node creates a fresh instance of its body (ids
 *           of instance k > 0 get the suffix "#k");
 *   share   its inverse: tasks whose subtrees are structurally identical
 *           (same nodes, WCETs, places, labels, extras, F-edges and created
 *           classes) become one body — hash-consing, children before parents.
 *
 * Both read a finalized graph (internal.h) and its instance counts
 * (condag_compact.c, the checking side) and build a new graph through the
 * builder calls of condag.h; nothing in condag_compact.c calls back here.
 * Expand walks a queue of task instances and share visits tasks children
 * first in reverse topological order, so no recursion depth follows the input.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "condag_loop_depend.h"
#include "condag_loops.h"
#include "internal.h"
#include "ompdag/compact.h"
#include "ompdag/locks.h"

#define NOMEM(err) ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory")

/* ---- expand: the unfolding ------------------------------------------------ */

/* Nodes of each task, in graph order (CSR). */
typedef struct task_nodes {
    int32_t *off, *node, *pos; /* pos[v]: v's place in its task's list */
} task_nodes;

static bool task_nodes_build(const ompdag_condag *g, task_nodes *tn)
{
    tn->off = calloc((size_t)g->nt + 1, sizeof *tn->off);
    tn->node = malloc(sizeof *tn->node * (size_t)g->n);
    tn->pos = malloc(sizeof *tn->pos * (size_t)g->n);
    if (!tn->off || !tn->node || !tn->pos) return false;
    for (int32_t v = 0; v < g->n; ++v)
        tn->off[g->node_task[v] + 1]++;
    for (int32_t t = 0; t < g->nt; ++t)
        tn->off[t + 1] += tn->off[t];
    int32_t *fill = malloc(sizeof *fill * ((size_t)g->nt + 1));
    if (!fill) return false;
    memcpy(fill, tn->off, sizeof *fill * ((size_t)g->nt + 1));
    for (int32_t v = 0; v < g->n; ++v) {
        tn->pos[v] = fill[g->node_task[v]] - tn->off[g->node_task[v]];
        tn->node[fill[g->node_task[v]]++] = v;
    }
    free(fill);
    return true;
}

static void task_nodes_free(task_nodes *tn)
{
    free(tn->off), free(tn->node), free(tn->pos);
}

/* "id" for instance 0, "id#k" after. */
static const char *instance_id(char **buf, size_t *cap, const char *id, uint64_t k)
{
    size_t need = strlen(id) + 24;
    if (need > *cap) {
        char *nb = realloc(*buf, need);
        if (!nb) return NULL;
        *buf = nb, *cap = need;
    }
    if (k)
        snprintf(*buf, *cap, "%s#%llu", id, (unsigned long long)k);
    else
        snprintf(*buf, *cap, "%s", id);
    return *buf;
}

static ompdag_status copy_meta(const ompdag_condag *g, ompdag_condag *x)
{
    if (ompdag_condag_assign_name(x, ompdag_condag_name(g)) ||
        ompdag_condag_assign_function(x, ompdag_condag_function(g)) ||
        (g->time_unit >= 0 && ompdag_condag_assign_time_unit(x, ompdag_condag_time_unit(g))) ||
        ompdag_condag_assign_region_loc(x, ompdag_condag_region_loc(g)))
        return OMPDAG_ERR_NOMEM;
    ompdag_condag_assign_threads(x, g->threads);
    if (g->graph_extra) return ompdag_condag_assign_extra(x, -1, g->graph_extra);
    return OMPDAG_OK;
}

/* The depend clauses of copy k of T node v (condag.md §6) onto node nv of x:
 * every instance keeps its task's clauses (D-edges join siblings only, so
 * instances of different parents never meet).  Dropping them lowered bounds.
 * A clause indexed by a loop's iteration names its cell in copy k
 * (condag_loop_depend.c); outside loops k is 0 and every clause is plain. */
static ompdag_status copy_depend(const ompdag_condag *g, int32_t v, uint64_t k, ompdag_condag *x,
                                 int32_t nv, ompdag_error *err)
{
    for (int32_t i = 0; i < ompdag_condag_node_depend_count(g, v); ++i) {
        char var[1024];
        ompdag_status st = condag_loop_depend_cell(g, v, i, k, var, sizeof var, err);
        if (!st)
            st = ompdag_condag_add_depend(x, nv, ompdag_condag_node_depend_type(g, v, i), var, err);
        if (st) return st;
    }
    return OMPDAG_OK;
}

/* The locks node v acquires (docs/mutex.md) onto node nv of x: every
 * instance runs the node's code, so it takes the same locks. */
static ompdag_status copy_locks(const ompdag_condag *g, int32_t v, ompdag_condag *x, int32_t nv,
                                ompdag_error *err)
{
    for (int32_t i = 0; i < ompdag_condag_node_lock_count(g, v); ++i) {
        ompdag_status st =
            ompdag_condag_add_lock(x, nv, ompdag_condag_node_lock_name(g, v, i),
                                   ompdag_condag_node_lock_acquisitions(g, v, i), err);
        if (st) return st;
    }
    return OMPDAG_OK;
}

typedef struct inst_item {
    int32_t task;
    uint64_t k;
} inst_item;

typedef struct expander {
    const ompdag_condag *g;
    ompdag_condag *x;
    task_nodes tn;
    uint64_t *next; /* next instance number per task */
    char *b1, *b2;
    size_t c1, c2;
} expander;

/* Adds one instance of a task (nodes, then F-edges); its T nodes' children
 * are queued by the caller from `kids`. */
static ompdag_status expand_instance(expander *e, inst_item it, inst_item *kids, int32_t *nkids,
                                     ompdag_error *err)
{
    const ompdag_condag *g = e->g;
    int32_t base = e->x->n;
    const char *tid = task_name(g, it.task);
    *nkids = 0;
    for (int32_t i = e->tn.off[it.task]; i < e->tn.off[it.task + 1]; ++i) {
        int32_t v = e->tn.node[i];
        ompdag_node_spec s = {.kind = (ompdag_kind)g->kind[v],
                              .wcet = g->wcet[v],
                              .loc = ompdag_condag_node_loc(g, v),
                              .label = ompdag_condag_node_label(g, v)};
        s.id = instance_id(&e->b1, &e->c1, node_name(g, v), it.k);
        char *task = s.id ? strdup(instance_id(&e->b2, &e->c2, tid, it.k)) : NULL;
        s.task = task;
        if (g->creates[v] >= 0) {
            int32_t c = g->creates[v];
            inst_item kid = {c, e->next[c]++};
            kids[(*nkids)++] = kid;
            s.creates = instance_id(&e->b2, &e->c2, task_name(g, c), kid.k);
        }
        if (!s.id || !task || !s.creates == (g->creates[v] >= 0)) {
            free(task);
            return NOMEM(err);
        }
        int32_t nv;
        ompdag_status st = ompdag_condag_add_node(e->x, &s, &nv, err);
        free(task);
        if (!st && g->delay) st = ompdag_condag_assign_delay(e->x, nv, g->delay[v], err);
        if (st) return st;
        if (g->extra && g->extra[v] && ompdag_condag_assign_extra(e->x, nv, g->extra[v]))
            return NOMEM(err);
        if ((st = copy_depend(g, v, 0, e->x, nv, err))) return st;
        if ((st = copy_locks(g, v, e->x, nv, err))) return st;
    }
    for (int32_t i = e->tn.off[it.task]; i < e->tn.off[it.task + 1]; ++i) {
        int32_t v = e->tn.node[i];
        for (int32_t k = g->fsucc_off[v]; k < g->fsucc_off[v + 1]; ++k) {
            ompdag_status st = ompdag_condag_add_edge(e->x, base + e->tn.pos[v],
                                                      base + e->tn.pos[g->fsucc[k]], err);
            if (st) return st;
        }
    }
    return OMPDAG_OK;
}

static ompdag_status expand_all(expander *e, ompdag_error *err)
{
    const ompdag_condag *g = e->g;
    uint64_t total_tasks = 0;
    for (int32_t t = 0; t < g->nt; ++t)
        total_tasks += ompdag_compact_task_instances(g, t); /* bounded by the node limit */
    inst_item *queue = malloc(sizeof *queue * (size_t)total_tasks);
    inst_item *kids = malloc(sizeof *kids * (size_t)(g->n ? g->n : 1));
    if (!queue || !kids) {
        free(queue), free(kids);
        return NOMEM(err);
    }
    size_t head = 0, tail = 0;
    queue[tail++] = (inst_item){g->root, e->next[g->root]++};
    ompdag_status st = OMPDAG_OK;
    while (head < tail && !st) {
        int32_t nk = 0;
        st = expand_instance(e, queue[head++], kids, &nk, err);
        for (int32_t i = 0; i < nk && !st; ++i)
            queue[tail++] = kids[i];
    }
    free(queue), free(kids);
    return st;
}

/* ---- compact loops: the front end's at-most unrolling --------------------- */

/* Node v's copy k (k indexes the iterations of v's loops, outermost digit
 * first, innermost last) is "v" for k = 0 and "v~i1~i2…" after. */
static const char *copy_id(char **buf, size_t *cap, const ompdag_condag *g, int32_t v, uint64_t k)
{
    const condag_loops *l = g->loops;
    char digits[512] = "";
    size_t len = 0;
    for (int32_t i = l->loop_of[v]; k && i >= 0; i = l->outer[i]) { /* innermost first */
        char d[24];
        int n = snprintf(d, sizeof d, "~%llu", (unsigned long long)(k % (uint64_t)l->repeat[i]));
        k /= (uint64_t)l->repeat[i];
        if (len + (size_t)n + 1 > sizeof digits) return NULL;
        memmove(digits + n, digits, len + 1);
        memcpy(digits, d, (size_t)n);
        len += (size_t)n;
    }
    size_t need = strlen(node_name(g, v)) + len + 1;
    if (need > *cap) {
        char *nb = realloc(*buf, need);
        if (!nb) return NULL;
        *buf = nb, *cap = need;
    }
    snprintf(*buf, *cap, "%s%s", node_name(g, v), len ? digits : "");
    return *buf;
}

/* Copy k of node v; a loop test's copies lose "repeat" (they are plain C nodes). */
static ompdag_status add_copy(const ompdag_condag *g, int32_t v, uint64_t k, ompdag_condag *x,
                              char **buf, size_t *cap, ompdag_error *err)
{
    ompdag_node_spec s = {.kind = (ompdag_kind)g->kind[v],
                          .wcet = g->wcet[v],
                          .task = task_name(g, g->node_task[v]),
                          .creates = g->creates[v] >= 0 ? task_name(g, g->creates[v]) : NULL,
                          .loc = ompdag_condag_node_loc(g, v),
                          .label = ompdag_condag_node_label(g, v),
                          .id = copy_id(buf, cap, g, v, k)};
    int32_t nv;
    ompdag_status st = s.id ? ompdag_condag_add_node(x, &s, &nv, err) : NOMEM(err);
    if (!st && g->delay) st = ompdag_condag_assign_delay(x, nv, g->delay[v], err);
    if (st) return st;
    if (g->extra && g->extra[v]) {
        json_t *e = json_deep_copy(g->extra[v]);
        if (!e) return NOMEM(err);
        json_object_del(e, "repeat");
        bool bad = json_object_size(e) && ompdag_condag_assign_extra(x, nv, e);
        json_decref(e);
        if (bad) return NOMEM(err);
    }
    return copy_depend(g, v, k, x, nv, err);
}

/* The copy of w that copy k of u leads to along the F-edge u -> w. */
static int64_t edge_target(const ompdag_condag *g, const int64_t *base, int32_t u, int32_t w,
                           uint64_t k)
{
    const condag_loops *l = g->loops;
    int32_t i = l->loop_of[u];
    if (i >= 0 && w == l->exit[i]) { /* leaving loop i: from its test or its body's end */
        uint64_t it = k % (uint64_t)l->repeat[i];
        if (u == l->end[i] && it + 1 < (uint64_t)l->repeat[i])
            return base[l->test[i]] + (int64_t)k + 1; /* the next iteration's test */
        return base[w] + (int64_t)(k / (uint64_t)l->repeat[i]);
    }
    if (l->test_of[w] >= 0) /* entering loop test_of[w]: its first test */
        return base[w] + (int64_t)(k * (uint64_t)l->repeat[l->test_of[w]]);
    return base[w] + (int64_t)k; /* inside the same loops */
}

/* g with every compact loop unrolled as plugin/fe_loop.c does for a
 * loop_bound: a compact graph without loops (bodies stay shared), *out owned
 * by the caller.  The caller has checked the unfolded size. */
ompdag_status condag_loops_unroll(const ompdag_condag *g, bool wsucc, ompdag_condag **out,
                                  ompdag_error *err)
{
    ompdag_condag *x = ompdag_condag_create();
    if (x) x->no_wsucc = !wsucc;
    if (x) x->dep_unrolled = ompdag_condag_has_depend(g); /* clauses for the unfolding only */
    int64_t *base = malloc(sizeof *base * ((size_t)g->n + 1));
    char *buf = NULL;
    size_t cap = 0;
    ompdag_status st = x && base ? OMPDAG_OK : NOMEM(err);
    if (!st && (copy_meta(g, x) || ompdag_compact_enable(x, err))) st = NOMEM(err);
    for (int32_t v = 0; v < g->n && !st; ++v) {
        base[v] = x->n;
        for (uint64_t k = 0; k < condag_loops_mult(g, v) && !st; ++k)
            st = add_copy(g, v, k, x, &buf, &cap, err);
    }
    for (int32_t u = 0; u < g->n && !st; ++u)
        for (uint64_t k = 0; k < condag_loops_mult(g, u) && !st; ++k)
            for (int32_t e = g->fsucc_off[u]; e < g->fsucc_off[u + 1] && !st; ++e)
                st = ompdag_condag_add_edge(x, (int32_t)(base[u] + (int64_t)k),
                                            (int32_t)edge_target(g, base, u, g->fsucc[e], k), err);
    ompdag_error inner;
    if (!st && (st = ompdag_condag_finalize(x, &inner)))
        ompdag_error_set(err, st, "unrolled loops: %s", inner.message);
    free(base), free(buf);
    if (st) {
        ompdag_condag_destroy(x);
        return st;
    }
    *out = x;
    return OMPDAG_OK;
}

ompdag_status ompdag_compact_expand(const ompdag_condag *g, int64_t node_limit, ompdag_condag **out,
                                    ompdag_error *err)
{
    if (!g->finalized) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "graph is not finalized");
    if (node_limit <= 0) node_limit = 10000000;
    uint64_t size = ompdag_compact_expanded_node_count(g);
    if (size > (uint64_t)node_limit || size > INT32_MAX) {
        char n[32];
        if (size == OMPDAG_COMPACT_MANY)
            snprintf(n, sizeof n, "more than 2^64");
        else
            snprintf(n, sizeof n, "%llu", (unsigned long long)size);
        return ompdag_error_set(err, OMPDAG_ERR_LIMIT,
                                "the unfolded graph has %s nodes, above the limit of %lld "
                                "(raise --node-limit, or analyse the compact graph directly)",
                                n, (long long)node_limit);
    }
    if (g->loops) { /* unroll the loops, then unfold the bodies */
        ompdag_condag *mid = NULL;
        ompdag_status st = condag_loops_unroll(g, false, &mid, err); /* unfolded next */
        if (!st) st = ompdag_compact_expand(mid, node_limit, out, err);
        ompdag_condag_destroy(mid);
        return st;
    }
    expander e = {.g = g, .x = ompdag_condag_create()};
    e.next = calloc((size_t)g->nt, sizeof *e.next);
    ompdag_status st = e.x && e.next && task_nodes_build(g, &e.tn) ? OMPDAG_OK : NOMEM(err);
    if (!st && copy_meta(g, e.x)) st = NOMEM(err);
    if (!st) st = expand_all(&e, err);
    ompdag_error inner;
    if (!st && (st = ompdag_condag_finalize(e.x, &inner)))
        ompdag_error_set(err, st, "unfolded graph: %s", inner.message);
    task_nodes_free(&e.tn);
    free(e.next), free(e.b1), free(e.b2);
    if (st) {
        ompdag_condag_destroy(e.x);
        return st;
    }
    *out = e.x;
    return OMPDAG_OK;
}

/* ---- share: merge identical subtrees ------------------------------------- */

/* A task's signature: its nodes (kind, WCET, place, label, extras and the
 * class of the task a T node creates) and F-edges by local position.  Two
 * tasks with equal signatures have identical unfoldings. */
typedef struct sig_buf {
    char *s;
    int64_t len, cap; /* cap: ompdag_grow_array */
} sig_buf;

static bool sig_put(sig_buf *b, const char *text)
{
    size_t n = strlen(text);
    if (n >= (size_t)(INT64_MAX - b->len) ||
        !ompdag_grow_array((void **)&b->s, 1, &b->cap, b->len + (int64_t)n + 1))
        return false;
    memcpy(b->s + b->len, text, n + 1);
    b->len += (int64_t)n;
    return true;
}

static bool sig_str(sig_buf *b, const char *text)
{
    char num[24];
    if (!text) return sig_put(b, "-|");
    snprintf(num, sizeof num, "%zu:", strlen(text));
    return sig_put(b, num) && sig_put(b, text) && sig_put(b, "|");
}

static bool task_signature(const ompdag_condag *g, const task_nodes *tn, const int32_t *cls,
                           int32_t t, sig_buf *b)
{
    b->len = 0;
    bool ok = sig_put(b, "");
    for (int32_t i = tn->off[t]; i < tn->off[t + 1] && ok; ++i) {
        int32_t v = tn->node[i];
        ompdag_loc l = ompdag_condag_node_loc(g, v);
        char head[128];
        snprintf(head, sizeof head, "%c%lld,%lld,%d,%d,%d,", (char)g->kind[v],
                 (long long)g->wcet[v], (long long)(g->delay ? g->delay[v] : 0), l.line, l.col,
                 g->creates[v] >= 0 ? cls[g->creates[v]] : -1);
        ok = sig_put(b, head) && sig_str(b, l.file) && sig_str(b, ompdag_condag_node_label(g, v));
        if (ok && g->extra && g->extra[v]) {
            char *x = json_dumps(g->extra[v], JSON_COMPACT | JSON_SORT_KEYS);
            ok = x && sig_str(b, x);
            free(x);
        }
        for (int32_t k = g->fsucc_off[v]; k < g->fsucc_off[v + 1] && ok; ++k) {
            snprintf(head, sizeof head, ">%d", tn->pos[g->fsucc[k]]);
            ok = sig_put(b, head);
        }
        ok = ok && sig_put(b, ";");
    }
    return ok;
}

/* Classes of identical tasks, children before parents (reverse F+T order of
 * the task sources); cls[t] is the first member met, the representative. */
static ompdag_status classify(const ompdag_condag *g, const task_nodes *tn, int32_t *cls,
                              ompdag_error *err)
{
    strpool pool = {0};
    idmap map = {0};
    int64_t *keys = malloc(sizeof *keys * (size_t)g->nt);
    sig_buf b = {0};
    ompdag_status st = keys ? OMPDAG_OK : NOMEM(err);
    for (int32_t i = g->n - 1; i >= 0 && !st; --i) {
        int32_t v = g->topo[i], t = g->node_task[v];
        if (v != g->task_source[t]) continue;
        if (!task_signature(g, tn, cls, t, &b)) {
            st = NOMEM(err);
            break;
        }
        int32_t same = idmap_find(&map, &pool, keys, b.s);
        if (same >= 0) {
            cls[t] = same;
            continue;
        }
        keys[t] = strpool_add(&pool, b.s);
        if (keys[t] < 0 || !idmap_insert(&map, &pool, keys, t)) st = NOMEM(err);
        cls[t] = t;
    }
    free(keys), free(b.s);
    idmap_free(&map);
    strpool_free(&pool);
    return st;
}

static ompdag_status build_shared(const ompdag_condag *g, const int32_t *cls, ompdag_condag *x,
                                  ompdag_error *err)
{
    if (copy_meta(g, x) || ompdag_compact_enable(x, err)) return NOMEM(err);
    int32_t *map = malloc(sizeof *map * (size_t)g->n);
    if (!map) return NOMEM(err);
    ompdag_status st = OMPDAG_OK;
    for (int32_t v = 0; v < g->n && !st; ++v) {
        map[v] = -1;
        if (cls[g->node_task[v]] != g->node_task[v]) continue;
        ompdag_node_spec s = {.id = node_name(g, v),
                              .task = task_name(g, g->node_task[v]),
                              .kind = (ompdag_kind)g->kind[v],
                              .wcet = g->wcet[v],
                              .loc = ompdag_condag_node_loc(g, v),
                              .label = ompdag_condag_node_label(g, v)};
        if (g->creates[v] >= 0) s.creates = task_name(g, cls[g->creates[v]]);
        st = ompdag_condag_add_node(x, &s, &map[v], err);
        if (!st && g->delay) st = ompdag_condag_assign_delay(x, map[v], g->delay[v], err);
        if (!st && g->extra && g->extra[v] && ompdag_condag_assign_extra(x, map[v], g->extra[v]))
            st = NOMEM(err);
    }
    for (int32_t v = 0; v < g->n && !st; ++v)
        for (int32_t k = g->fsucc_off[v]; k < g->fsucc_off[v + 1] && map[v] >= 0 && !st; ++k)
            st = ompdag_condag_add_edge(x, map[v], map[g->fsucc[k]], err);
    free(map);
    ompdag_error inner;
    if (!st && (st = ompdag_condag_finalize(x, &inner)))
        ompdag_error_set(err, st, "shared graph: %s", inner.message);
    return st;
}

ompdag_status ompdag_compact_share(const ompdag_condag *g, ompdag_condag **out, ompdag_error *err)
{
    if (!g->finalized) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "graph is not finalized");
    /* Compact graphs cannot carry depend clauses (condag.md §6 is defined on
     * plain graphs), and the task signature ignores them: a graph with clauses
     * is copied, clauses included, and never shared. */
    if (ompdag_condag_has_depend(g) || ompdag_condag_has_locks(g)) /* locks: docs/mutex.md */
        return ompdag_compact_expand(g, INT32_MAX, out, err);
    task_nodes tn = {0};
    int32_t *cls = malloc(sizeof *cls * (size_t)g->nt);
    ompdag_condag *x = ompdag_condag_create();
    ompdag_status st = cls && x && task_nodes_build(g, &tn) ? OMPDAG_OK : NOMEM(err);
    if (!st) st = classify(g, &tn, cls, err);
    if (!st) st = build_shared(g, cls, x, err);
    task_nodes_free(&tn);
    free(cls);
    if (st) {
        ompdag_condag_destroy(x);
        return st;
    }
    *out = x;
    return OMPDAG_OK;
}
