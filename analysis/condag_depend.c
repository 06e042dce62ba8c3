/*
 * analysis/condag_depend.c — sibling dependences, shared/spec/condag.md §6
 * (the `depend` extension of format v1).
 *
 * Clauses live on T nodes (the task a T node creates carries them).  This file
 * loads them from the node key "depend", checks them, and derives D-edges:
 *
 *  - per flow ("Rule 3", extended to the set types in docs/depend.md): a
 *    task's clauses on var x give it a *mode*: in, set (inoutset), mutex
 *    (mutexinoutset), or write (out, inout, or two different modes on x).
 *    Consecutive siblings with one non-write mode on x form a *group* that
 *    runs concurrently; a write is a group of its own.  Walk each task's
 *    executed T nodes in F-order; per var keep the current group, its mode,
 *    and the group before it.  A task of the current group's (non-write)
 *    mode joins it and gets an edge from the sink of every task of the group
 *    before; any other task gets an edge from every task of the current
 *    group and starts a new group.  For in/out/inout alone this is the
 *    original rule (the last writer, or the readers since it).  OpenMP 5.1
 *    §15.9.5 orders each task after *every* earlier sibling whose clause on
 *    x conflicts (modes differ, or one writes): each such pair lies in two
 *    different groups, joined by a chain of these edges, so the longest
 *    paths are the same.  A task's own clauses never order it after itself:
 *    all its edges are derived from the state before it, then the state is
 *    updated.
 *  - partial taskwaits (`taskwait depend`, docs/depend.md): a W node with
 *    items waits for the earlier siblings an implied task with those items
 *    would depend on (OpenMP 5.1 §15.5): the same rule at the W node, with
 *    edges ending at the W node itself, and no change to the groups (the
 *    implied task completes before the parent goes on).  A mutexinoutset
 *    item counts as a write (condag_wait_mode).  The file key on a W node
 *    needs the "taskwait-depend" extension;
 *  - as a union over flows, for drawings: a backward walk over the creating
 *    task's F-graph from each clause, stopping at writers of the var.
 *
 * With clauses present the graph's topological order becomes the *serial*
 * order (each created task runs to completion at its T node).  It respects
 * F-, T- and W-edges, and D-edges too: a D-edge joins siblings τa, τb whose
 * creators satisfy ta →F* tb, and the serial order emits all of τa right
 * after ta, hence before tb and τb.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "ompdag/locks.h"

#define NOMEM(err) ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory")

const char *ompdag_dep_type_name(ompdag_dep_type t)
{
    switch (t) {
    case OMPDAG_DEP_IN:
        return "in";
    case OMPDAG_DEP_OUT:
        return "out";
    case OMPDAG_DEP_INOUT:
        return "inout";
    case OMPDAG_DEP_INOUTSET:
        return "inoutset";
    case OMPDAG_DEP_MUTEXINOUTSET:
        return "mutexinoutset";
    }
    return "?";
}

bool ompdag_dep_type_parse(const char *name, ompdag_dep_type *out)
{
    for (int t = OMPDAG_DEP_IN; t <= OMPDAG_DEP_MUTEXINOUTSET; ++t)
        if (name && !strcmp(name, ompdag_dep_type_name((ompdag_dep_type)t)))
            return *out = (ompdag_dep_type)t, true;
    return false;
}

void condag_depend_free(condag_dep *d)
{
    if (!d) return;
    free(d->node), free(d->type), free(d->var), free(d->off), free(d->cvar), free(d->ctype);
    free(d->var_name), free(d->iloop), free(d->ioff), free(d->corig);
    idmap_free(&d->var_map);
    free(d);
}

static int32_t intern_var(ompdag_condag *g, condag_dep *d, const char *var)
{
    int32_t x = idmap_find(&d->var_map, &g->pool, d->var_name, var);
    if (x >= 0) return x;
    if (!grow_array((void **)&d->var_name, sizeof *d->var_name, &d->var_cap, (int64_t)d->nvar + 1))
        return -1;
    int64_t off = strpool_add(&g->pool, var);
    if (off < 0) return -1;
    d->var_name[d->nvar] = off;
    if (!idmap_insert(&d->var_map, &g->pool, d->var_name, d->nvar)) return -1;
    return d->nvar++;
}

ompdag_status ompdag_condag_add_depend(ompdag_condag *g, int32_t v, ompdag_dep_type type,
                                       const char *var, ompdag_error *err)
{
    if (g->finalized)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "graph is finalized; cannot add clauses");
    if (v < 0 || v >= g->n)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "node index %d out of range", v);
    if (g->kind[v] != OMPDAG_KIND_T && g->kind[v] != OMPDAG_KIND_W)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "node '%s': 'depend' is only allowed on T nodes and on W nodes "
                                "(a partial taskwait) (kind is %c)",
                                node_name(g, v), (char)g->kind[v]);
    if (type < OMPDAG_DEP_IN || type > OMPDAG_DEP_MUTEXINOUTSET)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "node '%s': unknown dependence type %d",
                                node_name(g, v), (int)type);
    if (!var || !*var)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "node '%s': a depend clause has an empty var", node_name(g, v));
    if (!g->dep && !(g->dep = calloc(1, sizeof *g->dep))) return NOMEM(err);
    condag_dep *d = g->dep;
    int64_t cap = d->cap;
    int32_t x = intern_var(g, d, var);
    if (x < 0 || !grow_array((void **)&d->node, sizeof *d->node, &cap, d->n + 1) ||
        !grow_array((void **)&d->type, sizeof *d->type, &(int64_t){d->cap}, d->n + 1) ||
        !grow_array((void **)&d->var, sizeof *d->var, &d->cap, d->n + 1))
        return NOMEM(err);
    d->node[d->n] = v, d->type[d->n] = (uint8_t)type, d->var[d->n] = x;
    d->n++;
    return OMPDAG_OK;
}

/* ---- the file key "depend" ------------------------------------------------ */

static ompdag_status refuse_type(const ompdag_condag *g, int32_t v, size_t i, const char *type,
                                 ompdag_error *err)
{
    static const char *const later[] = {"depobj"};
    for (size_t k = 0; k < sizeof later / sizeof *later; ++k)
        if (!strcmp(type, later[k]))
            return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                    "node '%s': depend[%zu]: dependence type '%s' is not modelled "
                                    "(the front end resolves depobj to the clauses it holds)",
                                    node_name(g, v), i, type);
    return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                            "node '%s': depend[%zu]: unknown dependence type '%s' (expected in, "
                            "out, inout, inoutset or mutexinoutset)",
                            node_name(g, v), i, type);
}

/* A W node's "depend" (a partial taskwait) needs the "taskwait-depend"
 * extension: a reader that knows only §6 would otherwise wait for every
 * child there (sound) or, worse, drop the key; and a partial wait on nothing
 * is no wait at all, so it is refused rather than read as a full one. */
static ompdag_status check_wait_items(const ompdag_condag *g, int32_t v, const json_t *arr,
                                      ompdag_error *err)
{
    if (g->kind[v] != OMPDAG_KIND_W) return OMPDAG_OK;
    if (!g->twdep_declared)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "node '%s': 'depend' on a W node (a partial taskwait) needs the "
                                "graph key \"extensions\": [\"taskwait-depend\"] (older readers "
                                "must refuse the file, not read it as another wait)",
                                node_name(g, v));
    if (json_is_array(arr) && json_array_size(arr) == 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "node '%s': a W node's 'depend' must name at least one item (leave "
                                "the key out for a taskwait that waits for every child)",
                                node_name(g, v));
    return OMPDAG_OK;
}

static ompdag_status read_clauses(ompdag_condag *g, int32_t v, const json_t *arr, ompdag_error *err)
{
    ompdag_status wst = check_wait_items(g, v, arr, err);
    if (wst) return wst;
    if (!json_is_array(arr))
        return ompdag_error_set(
            err, OMPDAG_ERR_INVALID,
            "node '%s': 'depend' must be an array of {\"type\", \"var\"} objects", node_name(g, v));
    size_t i;
    const json_t *c;
    json_array_foreach(arr, i, c)
    {
        const json_t *type = json_object_get(c, "type"), *var = json_object_get(c, "var");
        if (!json_is_object(c) || !json_is_string(type) || !json_is_string(var))
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "node '%s': depend[%zu] needs string fields 'type' and 'var'",
                                    node_name(g, v), i);
        ompdag_dep_type t;
        if (!ompdag_dep_type_parse(json_string_value(type), &t))
            return refuse_type(g, v, i, json_string_value(type), err);
        if (!*json_string_value(var))
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "node '%s': depend[%zu] has an empty var", node_name(g, v), i);
        ompdag_status st = ompdag_condag_add_depend(g, v, t, json_string_value(var), err);
        if (!st) st = condag_loop_depend_read_index(g, v, i, c, err); /* condag_loop_depend.c */
        if (st) return st;
    }
    return OMPDAG_OK;
}

static ompdag_status build_csr(ompdag_condag *g, ompdag_error *err);

/* Reads the key, then builds the CSR by node at once: Rule 2's W-edges
 * (condag_validate.c) pass over partial taskwaits, so they must be known
 * before the structural derivations. */
ompdag_status condag_depend_from_extras(ompdag_condag *g, ompdag_error *err)
{
    ompdag_status lst = condag_locks_from_extras(g, err); /* the "locks" key (docs/mutex.md) */
    if (lst) return lst;
    for (int32_t v = 0; g->extra && v < g->n; ++v) {
        const json_t *arr = g->extra[v] ? json_object_get(g->extra[v], "depend") : NULL;
        if (!arr) continue;
        ompdag_status st = read_clauses(g, v, arr, err);
        if (st) return st;
        /* The clauses are the truth from now on; the extras may be shared with
         * the caller, so drop the key from a copy. */
        json_t *rest = json_copy(g->extra[v]);
        if (!rest) return NOMEM(err);
        json_object_del(rest, "depend");
        json_decref(g->extra[v]);
        g->extra[v] = json_object_size(rest) ? rest : (json_decref(rest), NULL);
    }
    return g->dep && !g->dep->off ? build_csr(g, err) : OMPDAG_OK;
}

/* ---- finalize: CSR and the serial order ----------------------------------- */

static ompdag_status build_csr(ompdag_condag *g, ompdag_error *err)
{
    condag_dep *d = g->dep;
    d->off = calloc((size_t)g->n + 1, sizeof *d->off);
    d->cvar = malloc(sizeof *d->cvar * (size_t)d->n);
    d->ctype = malloc((size_t)d->n);
    d->corig = malloc(sizeof *d->corig * (size_t)d->n);
    if (!d->off || !d->cvar || !d->ctype || !d->corig) return NOMEM(err);
    for (int64_t i = 0; i < d->n; ++i)
        d->off[d->node[i] + 1]++;
    for (int32_t v = 0; v < g->n; ++v)
        d->off[v + 1] += d->off[v];
    int32_t *fill = malloc(sizeof *fill * (size_t)g->n);
    if (!fill) return NOMEM(err);
    memcpy(fill, d->off, sizeof *fill * (size_t)g->n);
    for (int64_t i = 0; i < d->n; ++i) {
        int32_t k = fill[d->node[i]]++;
        d->cvar[k] = d->var[i], d->ctype[k] = d->type[i], d->corig[k] = (int32_t)i;
    }
    free(fill);
    return OMPDAG_OK;
}

/* Each task's nodes in F-topological order (the F+T+W order filtered). */
static bool nodes_by_task(const ompdag_condag *g, int32_t *toff, int32_t *tnodes)
{
    memset(toff, 0, sizeof *toff * ((size_t)g->nt + 1));
    for (int32_t v = 0; v < g->n; ++v)
        toff[g->node_task[v] + 1]++;
    for (int32_t t = 0; t < g->nt; ++t)
        toff[t + 1] += toff[t];
    int32_t *fill = malloc(sizeof *fill * ((size_t)g->nt + 1));
    if (!fill) return false;
    memcpy(fill, toff, sizeof *fill * ((size_t)g->nt + 1));
    for (int32_t i = 0; i < g->n; ++i)
        tnodes[fill[g->node_task[g->topo[i]]]++] = g->topo[i];
    free(fill);
    return true;
}

/* The serial order: depth-first over creation, with an explicit stack. */
static ompdag_status serial_order(ompdag_condag *g, ompdag_error *err)
{
    int32_t *toff = malloc(sizeof *toff * ((size_t)g->nt + 1));
    int32_t *tnodes = malloc(sizeof *tnodes * (size_t)g->n);
    int32_t *stack_t = malloc(sizeof *stack_t * (size_t)g->nt);
    int32_t *stack_i = malloc(sizeof *stack_i * (size_t)g->nt);
    int32_t *order = malloc(sizeof *order * (size_t)g->n);
    ompdag_status st = OMPDAG_OK;
    if (!toff || !tnodes || !stack_t || !stack_i || !order || !nodes_by_task(g, toff, tnodes)) {
        st = NOMEM(err);
        goto done;
    }
    int32_t top = 0, seen = 0;
    stack_t[top] = g->root, stack_i[top++] = toff[g->root];
    while (top) {
        int32_t t = stack_t[top - 1];
        if (stack_i[top - 1] == toff[t + 1]) {
            --top;
            continue;
        }
        int32_t v = tnodes[stack_i[top - 1]++];
        order[seen++] = v;
        if (g->creates[v] >= 0) {
            int32_t c = g->creates[v];
            stack_t[top] = c, stack_i[top++] = toff[c];
        }
    }
    assert(seen == g->n); /* every task is reachable (checked before) */
    free(g->topo);
    g->topo = order, order = NULL;
done:
    free(toff), free(tnodes), free(stack_t), free(stack_i), free(order);
    return st;
}

/* mutexinoutset siblings on var x exclude each other (OpenMP 5.0 §2.17.11)
 * for their whole body: each such task holds the lock "mutexinoutset(x)"
 * while it runs, and the blocking term charges its wait (docs/mutex.md), so
 * a graph with the clause gets the term whoever wrote it.  The body must be
 * one node: a scheduling point inside would let the holder wait while it
 * holds the lock.  The count is unbounded (the runtime defers a task whose
 * lock is taken instead of queueing it in order, so only the count-free
 * term holds). */
static ompdag_status mutex_locks(ompdag_condag *g, ompdag_error *err)
{
    const condag_dep *d = g->dep;
    for (int32_t t = 0; t < g->n; ++t)
        for (int32_t k = d->off[t]; k < d->off[t + 1]; ++k) {
            /* a partial taskwait's implied task has no body: no lock to hold */
            if (d->ctype[k] != OMPDAG_DEP_MUTEXINOUTSET || g->kind[t] != OMPDAG_KIND_T) continue;
            int32_t c = g->creates[t], s = g->task_source[c];
            if (s != g->task_sink[c])
                return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                        "node '%s': the task it creates has a mutexinoutset clause "
                                        "and a task scheduling point inside; it holds the mutual "
                                        "exclusion for its whole body, so it must be one node "
                                        "(docs/mutex.md)",
                                        node_name(g, t));
            if (condag_locks_other_than(g, s, "mutexinoutset("))
                return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                        "node '%s': the task it creates has a mutexinoutset clause "
                                        "and takes another lock inside; nested mutual exclusion "
                                        "is not modelled (docs/mutex.md)",
                                        node_name(g, t));
            char name[512];
            snprintf(name, sizeof name, "mutexinoutset(%s)",
                     strpool_get(&g->pool, d->var_name[d->cvar[k]]));
            ompdag_status st = ompdag_condag_add_lock(g, s, name, OMPDAG_LOCK_UNBOUNDED, err);
            if (st) return st;
        }
    return OMPDAG_OK;
}

ompdag_status condag_depend_finalize(ompdag_condag *g, ompdag_error *err)
{
    ompdag_status lst = condag_loop_depend_check(g, err); /* indexed cells, compact loops */
    if (lst) return lst;
    if (g->dep && g->compact && !g->loops && !g->dep_unrolled)
        /* a shared body's clauses would stand for several sibling sets */
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                "node '%s': depend clauses in a compact graph (shared task bodies) "
                                "are not modelled; unfold it with `ompdag expand`",
                                node_name(g, g->dep->node[0]));
    ompdag_status st = g->dep && !g->dep_unrolled
                           ? serial_order(g, err)
                           : OMPDAG_OK; /* CSR: from_extras; unrolled: unfolded next */
    if (!st && g->dep) st = mutex_locks(g, err);
    return st ? st : condag_locks_finalize(g, err); /* docs/mutex.md */
}

/* ---- accessors -------------------------------------------------------------- */

bool condag_depend_has_partial_wait(const ompdag_condag *g)
{
    for (int64_t i = 0; g->dep && i < g->dep->n; ++i)
        if (g->kind[g->dep->node[i]] == OMPDAG_KIND_W) return true;
    return false;
}

bool ompdag_condag_has_depend(const ompdag_condag *g)
{
    return g->dep && g->dep->n > 0;
}

int32_t ompdag_condag_node_depend_count(const ompdag_condag *g, int32_t v)
{
    CONDAG_ASSERT_NODE(g, v);
    return g->dep && g->dep->off ? g->dep->off[v + 1] - g->dep->off[v] : 0;
}
ompdag_dep_type ompdag_condag_node_depend_type(const ompdag_condag *g, int32_t v, int32_t i)
{
    assert(i >= 0 && i < ompdag_condag_node_depend_count(g, v));
    return (ompdag_dep_type)g->dep->ctype[g->dep->off[v] + i];
}
int32_t ompdag_condag_node_depend_var(const ompdag_condag *g, int32_t v, int32_t i)
{
    assert(i >= 0 && i < ompdag_condag_node_depend_count(g, v));
    return g->dep->cvar[g->dep->off[v] + i];
}
int32_t ompdag_condag_depend_var_count(const ompdag_condag *g)
{
    return g->dep ? g->dep->nvar : 0;
}
const char *ompdag_condag_depend_var_name(const ompdag_condag *g, int32_t x)
{
    assert(x >= 0 && x < ompdag_condag_depend_var_count(g));
    return strpool_get(&g->pool, g->dep->var_name[x]);
}

ompdag_status ompdag_condag_refuse_depend(const ompdag_condag *g, const char *what,
                                          ompdag_error *err)
{
    if (!ompdag_condag_has_depend(g)) return OMPDAG_OK;
    int32_t v = g->dep->node[0];
    return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                            "%s does not honour depend clauses (node '%s' has some); ignoring them "
                            "could lower the bound, so the graph is refused",
                            what, node_name(g, v));
}

/* ---- D-edges of one flow (Rule 3) ------------------------------------------ */

bool condag_dflow_init(condag_dflow *f, const ompdag_condag *g)
{
    *f = (condag_dflow){0};
    int64_t k = g->dep ? g->dep->n : 0;
    size_t nx = g->dep ? (size_t)g->dep->nvar : 0;
    f->off = calloc((size_t)g->n + 1, sizeof *f->off);
    f->group = malloc(sizeof *f->group * ((size_t)g->n + (size_t)g->nt + 1));
    f->last_out = malloc(sizeof *f->last_out * (nx + 1));
    f->in_head = malloc(sizeof *f->in_head * (nx + 1));
    f->in_next = malloc(sizeof *f->in_next * ((size_t)k + 1));
    f->in_task = malloc(sizeof *f->in_task * ((size_t)k + 1));
    f->mark = malloc(sizeof *f->mark * ((size_t)g->nt + 1));
    f->cur_mode = malloc(nx + 1);
    f->ecap = 2 * k + 1;
    f->efrom = malloc(sizeof *f->efrom * (size_t)f->ecap);
    f->eto = malloc(sizeof *f->eto * (size_t)f->ecap);
    f->succ = malloc(sizeof *f->succ * (size_t)f->ecap);
    if (!f->off || !f->group || !f->last_out || !f->in_head || !f->in_next || !f->in_task ||
        !f->mark || !f->efrom || !f->eto || !f->succ || !f->cur_mode)
        return false;
    for (size_t x = 0; x <= nx; ++x)
        f->last_out[x] = f->in_head[x] = -1, f->cur_mode[x] = CONDAG_MODE_NONE;
    return true;
}

void condag_dflow_free(condag_dflow *f)
{
    free(f->off), free(f->succ), free(f->group), free(f->last_out), free(f->in_head);
    free(f->in_next), free(f->in_task), free(f->mark), free(f->efrom), free(f->eto);
    free(f->cur_mode);
    *f = (condag_dflow){0};
}

typedef struct dflow_state {
    const ompdag_condag *g;
    condag_dflow *f;
    int64_t ne, nin;
    bool oom;
} dflow_state;

/* Room for one more edge: the buffers start at 2·clauses + 1 and double (a
 * group of k concurrent siblings followed by another gives k² edges). */
static bool edge_room(dflow_state *s)
{
    condag_dflow *f = s->f;
    if (s->ne < f->ecap) return true;
    int64_t cap = f->ecap, c2 = f->ecap, c3 = f->ecap;
    if (!grow_array((void **)&f->efrom, sizeof *f->efrom, &cap, s->ne + 1) ||
        !grow_array((void **)&f->eto, sizeof *f->eto, &c2, s->ne + 1) ||
        !grow_array((void **)&f->succ, sizeof *f->succ, &c3, s->ne + 1))
        return false;
    f->ecap = cap < c2 ? (cap < c3 ? cap : c3) : (c2 < c3 ? c2 : c3);
    return true;
}

/* An edge from the sink of task a to node `to` (a later sibling's source, or
 * a partial taskwait), once per pair. */
static void emit(dflow_state *s, int32_t a, int32_t to)
{
    if (a < 0 || to == s->g->task_source[a] || s->f->mark[a] == to) return;
    if (!edge_room(s)) {
        s->oom = true;
        return;
    }
    s->f->mark[a] = to;
    s->f->efrom[s->ne] = a, s->f->eto[s->ne] = to;
    s->ne++;
}

/* Node t's mode on var x (docs/depend.md): in, write, set or mutex; for a
 * partial taskwait the mode of its items (condag_wait_mode). */
static int task_mode(const condag_dep *d, int32_t t, int32_t x, bool wait)
{
    int mode = -1;
    for (int32_t k = d->off[t]; k < d->off[t + 1]; ++k)
        if (d->cvar[k] == x) {
            int c = wait ? condag_wait_mode(d->ctype[k]) : condag_dep_mode(d->ctype[k]);
            mode = mode < 0 || mode == c ? c : CONDAG_MODE_WRITE;
        }
    return mode;
}

static int node_mode(const ompdag_condag *g, int32_t v, int32_t x)
{
    return task_mode(g->dep, v, x, g->kind[v] == OMPDAG_KIND_W);
}

/* Clause k of t is the first one of t on its var (the task's mode on the var
 * is applied once). */
static bool first_on_var(const condag_dep *d, int32_t t, int32_t k)
{
    for (int32_t j = d->off[t]; j < k; ++j)
        if (d->cvar[j] == d->cvar[k]) return false;
    return true;
}

static void emit_list(dflow_state *s, int32_t head, int32_t to)
{
    for (int32_t e = head; e >= 0; e = s->f->in_next[e])
        emit(s, s->f->in_task[e], to);
}

/* Rule 3 for node t, from the state before it: a task of the current group's
 * mode follows the group before; any other follows the current group.  For
 * a T node the edges end at the created task's source; for a partial
 * taskwait, at the W node itself: it waits for exactly the earlier siblings
 * an implied task with its items would depend on (OpenMP 5.1 §15.5). */
static void rule3_edges(dflow_state *s, int32_t t)
{
    const condag_dep *d = s->g->dep;
    condag_dflow *f = s->f;
    int32_t to = s->g->kind[t] == OMPDAG_KIND_W ? t : s->g->task_source[s->g->creates[t]];
    for (int32_t k = d->off[t]; k < d->off[t + 1]; ++k) {
        if (!first_on_var(d, t, k)) continue;
        int32_t x = d->cvar[k];
        int mode = node_mode(s->g, t, x);
        bool joins = mode != CONDAG_MODE_WRITE && f->cur_mode[x] == mode;
        emit_list(s, joins ? f->last_out[x] : f->in_head[x], to);
    }
}

/* The created task joins or starts its groups.  A partial taskwait changes
 * no group: its implied task completes before the parent goes on, so an
 * edge from it to a later sibling would follow the W node's own F-path
 * (docs/analysis.md, "Partial taskwaits"). */
static void rule3_update(dflow_state *s, int32_t t)
{
    const condag_dep *d = s->g->dep;
    condag_dflow *f = s->f;
    if (s->g->kind[t] != OMPDAG_KIND_T) return;
    int32_t b = s->g->creates[t];
    for (int32_t k = d->off[t]; k < d->off[t + 1]; ++k) {
        if (!first_on_var(d, t, k)) continue;
        int32_t x = d->cvar[k];
        int mode = node_mode(s->g, t, x);
        if (mode == CONDAG_MODE_WRITE || f->cur_mode[x] != mode) { /* a new group */
            f->last_out[x] = f->in_head[x];
            f->in_head[x] = -1;
            f->cur_mode[x] = (uint8_t)mode;
        }
        f->in_task[s->nin] = b, f->in_next[s->nin] = f->in_head[x];
        f->in_head[x] = (int32_t)s->nin++;
    }
}

static void reset_vars(dflow_state *s, int32_t t)
{
    const condag_dep *d = s->g->dep;
    for (int32_t k = d->off[t]; k < d->off[t + 1]; ++k) {
        int32_t x = d->cvar[k];
        s->f->last_out[x] = s->f->in_head[x] = -1;
        s->f->cur_mode[x] = CONDAG_MODE_NONE;
    }
}

/* Executed T nodes with clauses and partial taskwaits, grouped by their
 * task, in F-order: f->group, with the offsets per task at f->group + n. */
static void group_by_task(const ompdag_condag *g, const uint8_t *executed, condag_dflow *f)
{
    const condag_dep *d = g->dep;
    int32_t *goff = f->group + g->n, nt = g->nt;
    memset(goff, 0, sizeof *goff * ((size_t)nt + 1));
    for (int32_t v = 0; v < g->n; ++v)
        if (executed[v] && d->off[v + 1] > d->off[v]) goff[g->node_task[v] + 1]++;
    for (int32_t t = 0; t < nt; ++t)
        goff[t + 1] += goff[t];
    for (int32_t i = 0; i < g->n; ++i) {
        int32_t v = g->topo[i];
        if (executed[v] && d->off[v + 1] > d->off[v]) f->group[goff[g->node_task[v]]++] = v;
    }
    for (int32_t t = nt; t > 0; --t) /* undo the fill shift */
        goff[t] = goff[t - 1];
    goff[0] = 0;
}

bool condag_dflow_derive(const ompdag_condag *g, const uint8_t *executed, condag_dflow *f)
{
    memset(f->off, 0, sizeof *f->off * ((size_t)g->n + 1));
    if (!ompdag_condag_has_depend(g)) return true;
    group_by_task(g, executed, f);
    const int32_t *goff = f->group + g->n;
    memset(f->mark, 0xff, sizeof *f->mark * (size_t)g->nt);
    dflow_state s = {g, f, 0, 0, false};
    for (int32_t p = 0; p < g->nt; ++p) {
        s.nin = 0;
        for (int32_t i = goff[p]; i < goff[p + 1]; ++i) {
            rule3_edges(&s, f->group[i]);
            rule3_update(&s, f->group[i]);
        }
        for (int32_t i = goff[p]; i < goff[p + 1]; ++i)
            reset_vars(&s, f->group[i]);
    }
    /* CSR from the predecessor's sink to the target node. */
    for (int64_t e = 0; e < s.ne; ++e)
        f->off[g->task_sink[f->efrom[e]] + 1]++;
    for (int32_t v = 0; v < g->n; ++v)
        f->off[v + 1] += f->off[v];
    for (int64_t e = 0; e < s.ne; ++e) /* fill, shifting off by one slot */
        f->succ[f->off[g->task_sink[f->efrom[e]]]++] = f->eto[e];
    for (int32_t v = g->n; v > 0; --v)
        f->off[v] = f->off[v - 1];
    f->off[0] = 0;
    return !s.oom;
}

/* Drops the edges into W nodes (partial taskwaits' waits) from a CSR, in
 * place: what ompdag_condag_flow_depend_edges gave before partial waits. */
static void drop_waits(const ompdag_condag *g, int32_t *off, int32_t *succ)
{
    int32_t out = 0;
    for (int32_t v = 0; v < g->n; ++v) {
        int32_t b = off[v], e = off[v + 1];
        off[v] = out;
        for (int32_t k = b; k < e; ++k)
            if (g->kind[succ[k]] != OMPDAG_KIND_W) succ[out++] = succ[k];
    }
    off[g->n] = out;
}

static ompdag_status flow_edges(const ompdag_condag *g, const uint8_t *executed, bool waits,
                                int32_t **off, int32_t **succ, ompdag_error *err)
{
    condag_dflow f;
    *off = *succ = NULL;
    if (!condag_dflow_init(&f, g) || !condag_dflow_derive(g, executed, &f)) {
        condag_dflow_free(&f);
        return NOMEM(err);
    }
    if (!waits) drop_waits(g, f.off, f.succ);
    *off = f.off, *succ = f.succ;
    f.off = f.succ = NULL;
    condag_dflow_free(&f);
    return OMPDAG_OK;
}

ompdag_status ompdag_condag_flow_depend_edges(const ompdag_condag *g, const uint8_t *executed,
                                              int32_t **off, int32_t **succ, ompdag_error *err)
{
    return flow_edges(g, executed, false, off, succ, err);
}

ompdag_status ompdag_condag_flow_order_edges(const ompdag_condag *g, const uint8_t *executed,
                                             int32_t **off, int32_t **succ, ompdag_error *err)
{
    return flow_edges(g, executed, true, off, succ, err);
}

/* ---- D-edges of some flow (union), for drawings ---------------------------- */

typedef struct edge_list {
    int32_t *from, *to;
    int64_t n, cap;
} edge_list;

static bool edge_push(edge_list *l, int32_t a, int32_t b)
{
    int64_t cap = l->cap;
    if (!grow_array((void **)&l->from, sizeof *l->from, &cap, l->n + 1) ||
        !grow_array((void **)&l->to, sizeof *l->to, &l->cap, l->n + 1))
        return false;
    l->from[l->n] = a, l->to[l->n] = b;
    l->n++;
    return true;
}

/* T node t's mode on var x plus one: 0 when it has no clause on x. */
static int clause_on(const condag_dep *d, int32_t t, int32_t x)
{
    return task_mode(d, t, x, false) + 1;
}

typedef struct back_walk {
    int32_t *poff, *pred, *stack, *stamp;
    int32_t stamp_now;
    int32_t *pos;   /* per node: its place in topological order */
    int32_t *first; /* per var: the earliest place of a T node with a clause on it */
} back_walk;

/* Pushes u unless it was seen, or lies before every T node on x: nothing
 * there or above it (all earlier in topological order) holds a clause on x,
 * so the walk stops there.  Without this cut a clause on a var no earlier
 * task names walked back to the root: quadratic on an unrolled loop. */
static void walk_push(back_walk *w, int32_t *top, int32_t u, int32_t x)
{
    if (w->stamp[u] == w->stamp_now || w->pos[u] < w->first[x]) return;
    w->stamp[u] = w->stamp_now, w->stack[(*top)++] = u;
}

/* From node tb's clause on x (tb's mode on x; tb a T node or a partial
 * taskwait), walks F-predecessors back, collecting every earlier task on x
 * whose mode conflicts with it, and stopping at writers (everything before a
 * writer is ordered before it). */
static bool walk_clause(const ompdag_condag *g, back_walk *w, edge_list *out, int32_t tb, int32_t x,
                        int mode)
{
    const condag_dep *d = g->dep;
    int32_t top = 0, to = g->kind[tb] == OMPDAG_KIND_W ? tb : g->task_source[g->creates[tb]];
    ++w->stamp_now;
    for (int32_t i = w->poff[tb]; i < w->poff[tb + 1]; ++i)
        walk_push(w, &top, w->pred[i], x);
    while (top) {
        int32_t v = w->stack[--top];
        int c = g->kind[v] == OMPDAG_KIND_T && d->off ? clause_on(d, v, x) : 0;
        if (c && condag_dep_conflict(c - 1, mode) &&
            !edge_push(out, g->task_sink[g->creates[v]], to))
            return false;
        if (c && c - 1 == CONDAG_MODE_WRITE) continue; /* the last writer on this path */
        for (int32_t i = w->poff[v]; i < w->poff[v + 1]; ++i)
            walk_push(w, &top, w->pred[i], x);
    }
    return true;
}

/* The places of walk_push's cut: pos from the topological order, first[x]
 * over the T nodes with a clause on x (INT32_MAX: none). */
static bool walk_places(const ompdag_condag *g, back_walk *w)
{
    const int32_t *topo = ompdag_condag_topo_order(g);
    w->pos = malloc(sizeof(int32_t) * ((size_t)g->n + 1));
    w->first = malloc(sizeof(int32_t) * ((size_t)g->dep->nvar + 1));
    if (!topo || !w->pos || !w->first) return false;
    for (int32_t i = 0; i < g->n; ++i)
        w->pos[topo[i]] = i;
    for (int32_t x = 0; x < g->dep->nvar; ++x)
        w->first[x] = INT32_MAX;
    for (int32_t v = 0; v < g->n; ++v)
        for (int32_t k = g->dep->off[v]; k < g->dep->off[v + 1] && g->kind[v] == OMPDAG_KIND_T; ++k)
            if (w->pos[v] < w->first[g->dep->cvar[k]]) w->first[g->dep->cvar[k]] = w->pos[v];
    return true;
}

static int cmp_pair(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The union over flows of the D-edges, and with `waits` of the partial
 * taskwaits' waits too. */
static ompdag_status union_edges(const ompdag_condag *g, bool waits, int32_t **from, int32_t **to,
                                 int64_t *count, ompdag_error *err)
{
    *from = *to = NULL, *count = 0;
    if (!ompdag_condag_has_depend(g)) return OMPDAG_OK;
    back_walk w = {calloc((size_t)g->n + 1, sizeof(int32_t)),
                   malloc(sizeof(int32_t) * ((size_t)g->fsucc_off[g->n] + 1)),
                   malloc(sizeof(int32_t) * (size_t)g->n),
                   calloc((size_t)g->n, sizeof(int32_t)),
                   0,
                   NULL,
                   NULL};
    edge_list l = {0};
    ompdag_status st = OMPDAG_OK;
    if (!w.poff || !w.pred || !w.stack || !w.stamp || !walk_places(g, &w)) {
        st = NOMEM(err);
        goto done;
    }
    for (int32_t v = 0; v < g->n; ++v)
        for (int32_t i = g->fsucc_off[v]; i < g->fsucc_off[v + 1]; ++i)
            w.poff[g->fsucc[i] + 1]++;
    for (int32_t v = 0; v < g->n; ++v)
        w.poff[v + 1] += w.poff[v];
    for (int32_t v = 0; v < g->n; ++v)
        for (int32_t i = g->fsucc_off[v]; i < g->fsucc_off[v + 1]; ++i)
            w.pred[w.poff[g->fsucc[i]] + w.stamp[g->fsucc[i]]++] = v; /* stamp: fill count */
    memset(w.stamp, 0, sizeof(int32_t) * (size_t)g->n);
    for (int32_t v = 0; v < g->n && !st; ++v)
        for (int32_t k = g->dep->off[v];
             k < g->dep->off[v + 1] && !st && (waits || g->kind[v] == OMPDAG_KIND_T); ++k)
            if (!walk_clause(g, &w, &l, v, g->dep->cvar[k], node_mode(g, v, g->dep->cvar[k])))
                st = NOMEM(err);
    if (st) goto done;
    /* Sort and drop duplicates (a pair found through several clauses). */
    int64_t *key = malloc(sizeof *key * (size_t)(l.n ? l.n : 1));
    if (!key) {
        st = NOMEM(err);
        goto done;
    }
    for (int64_t i = 0; i < l.n; ++i)
        key[i] = (int64_t)l.from[i] << 32 | (uint32_t)l.to[i];
    qsort(key, (size_t)l.n, sizeof *key, cmp_pair);
    int64_t u = 0;
    for (int64_t i = 0; i < l.n; ++i)
        if (!i || key[i] != key[i - 1])
            l.from[u] = (int32_t)(key[i] >> 32), l.to[u] = (int32_t)(uint32_t)key[i], u++;
    free(key);
    *from = l.from, *to = l.to, *count = u;
    l.from = l.to = NULL;
done:
    free(w.poff), free(w.pred), free(w.stack), free(w.stamp), free(w.pos), free(w.first);
    free(l.from), free(l.to);
    return st;
}

ompdag_status ompdag_condag_depend_edges(const ompdag_condag *g, int32_t **from, int32_t **to,
                                         int64_t *count, ompdag_error *err)
{
    return union_edges(g, false, from, to, count, err);
}

ompdag_status ompdag_condag_order_edges(const ompdag_condag *g, int32_t **from, int32_t **to,
                                        int64_t *count, ompdag_error *err)
{
    return union_edges(g, true, from, to, count, err);
}
