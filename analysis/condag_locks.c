/*
 * analysis/condag_locks.c — locks acquired by nodes and the spin-blocking
 * term of the bound (ompdag/locks.h, docs/mutex.md; the "locks" extension).
 *
 * Source of the term: spin-lock blocking analyses of parallel real-time
 * tasks (Dinh, Li, Agrawal, Gill, Lu, "Blocking analysis for spin locks in
 * real-time parallel tasks", IEEE TPDS 29(4), 2018; before them MSRP, Gai,
 * Lipari, Di Natale, RTSS 2001).  A request to a FIFO spin lock, made by a
 * thread that is not preempted and holds no other lock, waits at most for
 * one critical section of each of the other m − 1 threads:  k·(m−1)·Cmax.
 * Whatever the lock's queueing order, the requests of node v together wait
 * at most for every other node's critical sections on that lock, each of
 * which runs once and lasts at most its node's WCET:  S(L) − c(v).  B(v, m)
 * takes the smaller of the two per lock and the analysis adds it to c(v)
 * (rta_internal.h): spinning is busy time, so it counts in the volume and on
 * the path.
 *
 * Storage: (node, lock, count) entries merged per (node, lock), a CSR by
 * node after finalize, and per lock S(L) and Cmax(L), kept current by
 * ompdag_condag_assign_wcet (condag_locks_wcet_changed).
 */
#include <jansson.h>
#include <string.h>

#include "internal.h"
#include "ompdag/locks.h"

#define NOMEM(err) ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory")

struct condag_locks {
    int64_t n, cap; /* entries, in the order they were added */
    int32_t *node;  /* node of entry i */
    int32_t *lock;  /* lock index of entry i */
    int64_t *count; /* acquisitions, OMPDAG_LOCK_UNBOUNDED when unknown */
    int32_t *off;   /* after finalize: CSR by node into ord */
    int32_t *ord;   /* entry indices grouped by node */
    int32_t nlock;  /* distinct locks; names in the graph's pool */
    int64_t lock_cap;
    int64_t *name;
    idmap map;
    int64_t *sum; /* S(L): Σ WCET of the nodes acquiring L */
    int64_t *max; /* Cmax(L): max WCET of a node acquiring L */
};

void condag_locks_free(condag_locks *l)
{
    if (!l) return;
    free(l->node), free(l->lock), free(l->count), free(l->off), free(l->ord);
    free(l->name), free(l->sum), free(l->max);
    idmap_free(&l->map);
    free(l);
}

static int32_t intern_lock(ompdag_condag *g, condag_locks *l, const char *name)
{
    int32_t x = idmap_find(&l->map, &g->pool, l->name, name);
    if (x >= 0) return x;
    if (!grow_array((void **)&l->name, sizeof *l->name, &l->lock_cap, (int64_t)l->nlock + 1))
        return -1;
    int64_t off = strpool_add(&g->pool, name);
    if (off < 0) return -1;
    l->name[l->nlock] = off;
    if (!idmap_insert(&l->map, &g->pool, l->name, l->nlock)) return -1;
    return l->nlock++;
}

ompdag_status ompdag_condag_add_lock(ompdag_condag *g, int32_t v, const char *lock, int64_t count,
                                     ompdag_error *err)
{
    if (g->finalized)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "graph is finalized; cannot add locks");
    if (v < 0 || v >= g->n)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "node index %d out of range", v);
    if (!lock || !*lock)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "node '%s': a lock has an empty name",
                                node_name(g, v));
    if (count < 1 && count != OMPDAG_LOCK_UNBOUNDED)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "node '%s': lock '%s' acquired %lld times (a count is >= 1, or "
                                "\"unbounded\")",
                                node_name(g, v), lock, (long long)count);
    if (!g->locks && !(g->locks = calloc(1, sizeof *g->locks))) return NOMEM(err);
    condag_locks *l = g->locks;
    int32_t x = intern_lock(g, l, lock);
    if (x < 0) return NOMEM(err);
    for (int64_t i = 0; i < l->n; ++i) /* merge: few entries per graph in practice */
        if (l->node[i] == v && l->lock[i] == x) {
            if (count == OMPDAG_LOCK_UNBOUNDED || l->count[i] == OMPDAG_LOCK_UNBOUNDED ||
                __builtin_add_overflow(l->count[i], count, &l->count[i]))
                l->count[i] = OMPDAG_LOCK_UNBOUNDED;
            return OMPDAG_OK;
        }
    int64_t cap = l->cap;
    if (!grow_array((void **)&l->node, sizeof *l->node, &cap, l->n + 1) ||
        !grow_array((void **)&l->lock, sizeof *l->lock, &(int64_t){l->cap}, l->n + 1) ||
        !grow_array((void **)&l->count, sizeof *l->count, &l->cap, l->n + 1))
        return NOMEM(err);
    l->node[l->n] = v, l->lock[l->n] = x, l->count[l->n] = count;
    l->n++;
    return OMPDAG_OK;
}

bool condag_locks_other_than(const ompdag_condag *g, int32_t v, const char *prefix)
{
    const condag_locks *l = g->locks;
    for (int64_t i = 0; l && i < l->n; ++i)
        if (l->node[i] == v &&
            strncmp(strpool_get(&g->pool, l->name[l->lock[i]]), prefix, strlen(prefix)))
            return true;
    return false;
}

/* ---- the file key "locks" ------------------------------------------------------ */

static ompdag_status read_locks(ompdag_condag *g, int32_t v, const json_t *arr, ompdag_error *err)
{
    if (!g->locks_declared)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "node '%s': 'locks' needs the graph key \"extensions\": "
                                "[\"locks\"] (older readers must refuse the file, not ignore "
                                "the blocking term)",
                                node_name(g, v));
    if (!json_is_array(arr))
        return ompdag_error_set(
            err, OMPDAG_ERR_INVALID,
            "node '%s': 'locks' must be an array of {\"lock\", \"count\"} objects",
            node_name(g, v));
    size_t i;
    const json_t *c;
    json_array_foreach(arr, i, c)
    {
        const json_t *name = json_object_get(c, "lock"), *count = json_object_get(c, "count");
        if (!json_is_object(c) || !json_is_string(name))
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "node '%s': locks[%zu] needs a string field 'lock'",
                                    node_name(g, v), i);
        int64_t k;
        if (json_is_integer(count) && json_integer_value(count) >= 1)
            k = json_integer_value(count);
        else if (json_is_string(count) && !strcmp(json_string_value(count), "unbounded"))
            k = OMPDAG_LOCK_UNBOUNDED;
        else
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "node '%s': locks[%zu].count must be an integer >= 1 or "
                                    "\"unbounded\"",
                                    node_name(g, v), i);
        ompdag_status st = ompdag_condag_add_lock(g, v, json_string_value(name), k, err);
        if (st) return st;
    }
    return OMPDAG_OK;
}

ompdag_status condag_locks_from_extras(ompdag_condag *g, ompdag_error *err)
{
    for (int32_t v = 0; g->extra && v < g->n; ++v) {
        const json_t *arr = g->extra[v] ? json_object_get(g->extra[v], "locks") : NULL;
        if (!arr) continue;
        ompdag_status st = read_locks(g, v, arr, err);
        if (st) return st;
        json_t *rest = json_copy(g->extra[v]); /* the extras may be shared: drop from a copy */
        if (!rest) return NOMEM(err);
        json_object_del(rest, "locks");
        json_decref(g->extra[v]);
        g->extra[v] = json_object_size(rest) ? rest : (json_decref(rest), NULL);
    }
    return OMPDAG_OK;
}

struct json_t *condag_locks_to_json(const ompdag_condag *g, int32_t v)
{
    int32_t k = ompdag_condag_node_lock_count(g, v);
    if (!k) return NULL;
    json_t *a = json_array();
    for (int32_t i = 0; i < k; ++i) {
        int64_t c = ompdag_condag_node_lock_acquisitions(g, v, i);
        json_array_append_new(
            a, json_pack("{s:s,s:o}", "lock", ompdag_condag_node_lock_name(g, v, i), "count",
                         c == OMPDAG_LOCK_UNBOUNDED ? json_string("unbounded") : json_integer(c)));
    }
    return a;
}

/* ---- finalize and WCET changes ------------------------------------------------- */

/* S(L) and Cmax(L) from scratch. */
static void lock_totals(const ompdag_condag *g, condag_locks *l)
{
    for (int32_t x = 0; x < l->nlock; ++x)
        l->sum[x] = l->max[x] = 0;
    for (int64_t i = 0; i < l->n; ++i) {
        int64_t c = g->wcet[l->node[i]];
        l->sum[l->lock[i]] += c; /* ≤ total WCET, which fits */
        if (c > l->max[l->lock[i]]) l->max[l->lock[i]] = c;
    }
}

ompdag_status condag_locks_finalize(ompdag_condag *g, ompdag_error *err)
{
    condag_locks *l = g->locks;
    if (!l || !l->n) return OMPDAG_OK;
    l->off = calloc((size_t)g->n + 1, sizeof *l->off);
    l->ord = malloc(sizeof *l->ord * (size_t)l->n);
    l->sum = malloc(sizeof *l->sum * (size_t)l->nlock);
    l->max = malloc(sizeof *l->max * (size_t)l->nlock);
    int32_t *fill = malloc(sizeof *fill * ((size_t)g->n + 1));
    if (!l->off || !l->ord || !l->sum || !l->max || !fill) return free(fill), NOMEM(err);
    for (int64_t i = 0; i < l->n; ++i)
        l->off[l->node[i] + 1]++;
    for (int32_t v = 0; v < g->n; ++v)
        l->off[v + 1] += l->off[v];
    memcpy(fill, l->off, sizeof *fill * ((size_t)g->n + 1));
    for (int64_t i = 0; i < l->n; ++i)
        l->ord[fill[l->node[i]]++] = (int32_t)i;
    free(fill);
    lock_totals(g, l);
    return OMPDAG_OK;
}

void condag_locks_wcet_changed(ompdag_condag *g, int32_t v, int64_t old)
{
    condag_locks *l = g->locks;
    if (!l || !l->off) return;
    bool lowered_max = false;
    for (int32_t k = l->off[v]; k < l->off[v + 1]; ++k) {
        int32_t x = l->lock[l->ord[k]];
        l->sum[x] += g->wcet[v] - old; /* every partial sum is ≤ the total, which fits */
        if (g->wcet[v] > l->max[x]) l->max[x] = g->wcet[v];
        if (old == l->max[x] && g->wcet[v] < old) lowered_max = true;
    }
    if (lowered_max) lock_totals(g, l); /* the maximum may have left: recount */
}

/* ---- accessors and the term ------------------------------------------------------- */

bool ompdag_condag_has_locks(const ompdag_condag *g)
{
    return g->locks && g->locks->n > 0;
}

int32_t ompdag_condag_node_lock_count(const ompdag_condag *g, int32_t v)
{
    CONDAG_ASSERT_NODE(g, v);
    return g->locks && g->locks->off ? g->locks->off[v + 1] - g->locks->off[v] : 0;
}

const char *ompdag_condag_node_lock_name(const ompdag_condag *g, int32_t v, int32_t i)
{
    assert(i >= 0 && i < ompdag_condag_node_lock_count(g, v));
    const condag_locks *l = g->locks;
    return strpool_get(&g->pool, l->name[l->lock[l->ord[l->off[v] + i]]]);
}

int64_t ompdag_condag_node_lock_acquisitions(const ompdag_condag *g, int32_t v, int32_t i)
{
    assert(i >= 0 && i < ompdag_condag_node_lock_count(g, v));
    const condag_locks *l = g->locks;
    return l->count[l->ord[l->off[v] + i]];
}

/* min(k·(m−1)·Cmax(L), S(L) − c(v)) for entry e of node v. */
static int64_t entry_blocking(const ompdag_condag *g, const condag_locks *l, int32_t e, int32_t v,
                              int32_t m)
{
    int32_t x = l->lock[e];
    int64_t others = l->sum[x] - g->wcet[v]; /* S(L) − c(v): the other nodes' sections */
    if (l->count[e] == OMPDAG_LOCK_UNBOUNDED) return others;
    int64_t fifo;
    if (__builtin_mul_overflow(l->count[e], (int64_t)(m - 1), &fifo) ||
        __builtin_mul_overflow(fifo, l->max[x], &fifo))
        return others;
    return fifo < others ? fifo : others;
}

int64_t ompdag_condag_node_blocking(const ompdag_condag *g, int32_t v, int32_t m)
{
    const condag_locks *l = g->locks;
    /* one thread: a holder never suspends inside its section, so no request
     * ever finds the lock taken */
    if (!l || !l->off || m <= 1) return 0;
    int64_t b = 0;
    for (int32_t k = l->off[v]; k < l->off[v + 1]; ++k)
        if (__builtin_add_overflow(b, entry_blocking(g, l, l->ord[k], v, m), &b)) return INT64_MAX;
    return b;
}

ompdag_status ompdag_condag_total_blocking(const ompdag_condag *g, int32_t m, int64_t *out,
                                           ompdag_error *err)
{
    *out = 0;
    if (!ompdag_condag_has_locks(g)) return OMPDAG_OK;
    if (g->compact) /* a shared body stands for several nodes: S(L) would undercount */
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                "node '%s': the lock blocking term is not computed on a compact "
                                "graph (shared task bodies); unfold it with `ompdag expand`",
                                node_name(g, g->locks->node[0]));
    for (int32_t v = 0; v < g->n; ++v) {
        int64_t b = ompdag_condag_node_blocking(g, v, m);
        if (b == INT64_MAX || __builtin_add_overflow(*out, b, out))
            return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                    "the lock blocking terms (docs/mutex.md) at m = %d do not fit "
                                    "in int64 (node '%s')",
                                    (int)m, node_name(g, v));
    }
    return OMPDAG_OK;
}

ompdag_status ompdag_condag_refuse_locks(const ompdag_condag *g, const char *what,
                                         ompdag_error *err)
{
    if (!ompdag_condag_has_locks(g)) return OMPDAG_OK;
    return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                            "%s does not charge the lock blocking term (node '%s' acquires a "
                            "lock); ignoring it could lower the bound, so the graph is refused",
                            what, node_name(g, g->locks->node[0]));
}
