/*
 * analysis/condag_validate.c — the structural rules of docs/condag.md
 * §1 and §5, and the derived edges of seed 004 §3 (Rule 2).
 *
 * Every check is iterative (no recursion whose depth follows the graph) and
 * reports the node or task at fault.  Order matters: later checks rely on
 * earlier ones (e.g. the W-edge derivation walks an acyclic F-graph).
 */
#include <string.h>

#include "condag_loops.h"
#include "internal.h"

#define NOMEM(err) ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory")

/* Resolves each T node's `creates` to a task; a task is created at most once. */
static ompdag_status resolve_creates(ompdag_condag *g, ompdag_error *err)
{
    g->creates = malloc(sizeof *g->creates * (size_t)g->n);
    g->task_creator = malloc(sizeof *g->task_creator * (size_t)g->nt);
    if (!g->creates || !g->task_creator) return NOMEM(err);
    for (int32_t t = 0; t < g->nt; ++t)
        g->task_creator[t] = -1;
    for (int32_t v = 0; v < g->n; ++v) {
        g->creates[v] = -1;
        if (g->kind[v] != OMPDAG_KIND_T) continue;
        const char *child = strpool_get(&g->pool, g->creates_str[v]);
        int32_t t = idmap_find(&g->task_map, &g->pool, g->task_id, child);
        if (t < 0)
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "node '%s': creates task '%s', which has no nodes",
                                    node_name(g, v), child);
        if (g->task_creator[t] >= 0 && !g->compact)
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "task '%s' is created twice (by nodes '%s' and '%s'); a shared "
                                    "body needs \"extensions\": [\"compact\"] (docs/compact.md)",
                                    child, node_name(g, g->task_creator[t]), node_name(g, v));
        g->creates[v] = t;
        if (g->task_creator[t] < 0) g->task_creator[t] = v; /* compact: the first creator */
    }
    free(g->creates_str);
    g->creates_str = NULL;
    return OMPDAG_OK;
}

/* Turns the edge list into CSR (file order kept) and checks degrees. */
static ompdag_status build_fsucc(ompdag_condag *g, int32_t *indeg, ompdag_error *err)
{
    g->fsucc_off = calloc((size_t)g->n + 1, sizeof *g->fsucc_off);
    g->fsucc = malloc(sizeof *g->fsucc * (size_t)(g->ne ? g->ne : 1));
    if (!g->fsucc_off || !g->fsucc) return NOMEM(err);
    for (int64_t e = 0; e < g->ne; ++e) {
        g->fsucc_off[g->edge_from[e] + 1]++;
        indeg[g->edge_to[e]]++;
    }
    for (int32_t v = 0; v < g->n; ++v)
        g->fsucc_off[v + 1] += g->fsucc_off[v];
    int32_t *fill = malloc(sizeof *fill * (size_t)g->n);
    if (!fill) return NOMEM(err);
    memcpy(fill, g->fsucc_off, sizeof *fill * (size_t)g->n);
    for (int64_t e = 0; e < g->ne; ++e)
        g->fsucc[fill[g->edge_from[e]]++] = g->edge_to[e];
    free(fill);
    free(g->edge_from);
    free(g->edge_to);
    g->edge_from = g->edge_to = NULL;
    return OMPDAG_OK;
}

static ompdag_status check_duplicate_edges(const ompdag_condag *g, int32_t v, ompdag_error *err)
{
    int32_t k = g->fsucc_off[v + 1] - g->fsucc_off[v];
    if (k < 2) return OMPDAG_OK;
    int32_t *tmp = malloc(sizeof *tmp * (size_t)k);
    if (!tmp) return NOMEM(err);
    memcpy(tmp, g->fsucc + g->fsucc_off[v], sizeof *tmp * (size_t)k);
    qsort(tmp, (size_t)k, sizeof *tmp, ompdag_cmp_i32);
    int32_t dup = -1;
    for (int32_t i = 1; i < k && dup < 0; ++i)
        if (tmp[i] == tmp[i - 1]) dup = tmp[i];
    free(tmp);
    if (dup >= 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "edge '%s' -> '%s' is listed twice",
                                node_name(g, v), node_name(g, dup));
    return OMPDAG_OK;
}

static ompdag_status check_degrees(const ompdag_condag *g, const int32_t *indeg, ompdag_error *err)
{
    for (int32_t v = 0; v < g->n; ++v) {
        int32_t out = g->fsucc_off[v + 1] - g->fsucc_off[v];
        ompdag_status st = check_duplicate_edges(g, v, err);
        if (st) return st;
        if (g->kind[v] == OMPDAG_KIND_C && out < 2)
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "C node '%s' has %d F-successor%s; a branch needs at least 2",
                                    node_name(g, v), out, out == 1 ? "" : "s");
        if (g->kind[v] != OMPDAG_KIND_C && out > 1)
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "%c node '%s' has %d F-successors; only C nodes may branch",
                                    (char)g->kind[v], node_name(g, v), out);
        if (g->kind[v] != OMPDAG_KIND_J && indeg[v] > 1)
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "%c node '%s' has %d F-predecessors; only J nodes may join",
                                    (char)g->kind[v], node_name(g, v), indeg[v]);
    }
    return OMPDAG_OK;
}

/* Kahn's algorithm over F-edges; on a cycle, names a node on it. */
static ompdag_status check_f_acyclic(const ompdag_condag *g, const int32_t *indeg_in,
                                     int32_t *order, ompdag_error *err)
{
    int32_t *indeg = malloc(sizeof *indeg * (size_t)g->n);
    int32_t *stack = malloc(sizeof *stack * (size_t)g->n);
    if (!indeg || !stack) return free(indeg), free(stack), NOMEM(err);
    memcpy(indeg, indeg_in, sizeof *indeg * (size_t)g->n);
    int32_t top = 0, seen = 0;
    for (int32_t v = 0; v < g->n; ++v)
        if (!indeg[v]) stack[top++] = v;
    while (top) {
        int32_t v = stack[--top];
        order[seen++] = v;
        for (int32_t i = g->fsucc_off[v]; i < g->fsucc_off[v + 1]; ++i)
            if (--indeg[g->fsucc[i]] == 0) stack[top++] = g->fsucc[i];
    }
    ompdag_status st = OMPDAG_OK;
    if (seen < g->n) {
        int32_t v = 0;
        while (indeg[v] == 0)
            ++v;
        st = ompdag_error_set(err, OMPDAG_ERR_INVALID,
                              "F-edges form a cycle through node '%s' (task '%s')", node_name(g, v),
                              task_name(g, g->node_task[v]));
    }
    free(indeg);
    free(stack);
    return st;
}

/* Each task has exactly one source (no F-in-edge) and one sink (no F-out-edge). */
static ompdag_status find_sources_and_sinks(ompdag_condag *g, const int32_t *indeg,
                                            ompdag_error *err)
{
    g->task_source = malloc(sizeof *g->task_source * (size_t)g->nt);
    g->task_sink = malloc(sizeof *g->task_sink * (size_t)g->nt);
    if (!g->task_source || !g->task_sink) return NOMEM(err);
    for (int32_t t = 0; t < g->nt; ++t)
        g->task_source[t] = g->task_sink[t] = -1;
    for (int32_t v = 0; v < g->n; ++v) {
        int32_t t = g->node_task[v];
        if (indeg[v] == 0) {
            if (g->task_source[t] >= 0)
                return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                        "task '%s' has several sources ('%s' and '%s' have no "
                                        "F-predecessor)",
                                        task_name(g, t), node_name(g, g->task_source[t]),
                                        node_name(g, v));
            g->task_source[t] = v;
        }
        if (g->fsucc_off[v + 1] == g->fsucc_off[v]) {
            if (g->task_sink[t] >= 0)
                return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                        "task '%s' has several sinks ('%s' and '%s' have no "
                                        "F-successor)",
                                        task_name(g, t), node_name(g, g->task_sink[t]),
                                        node_name(g, v));
            g->task_sink[t] = v;
        }
    }
    /* An acyclic task always has a source and a sink, so none missing here. */
    return OMPDAG_OK;
}

/* Exactly one task is uncreated (the root) and every task descends from it. */
static ompdag_status check_task_tree(ompdag_condag *g, ompdag_error *err)
{
    ompdag_status root = condag_find_root(g, err);
    if (root) return root;
    /* Walking creator links upward must reach the root; a walk longer than
     * nt steps is a creation cycle.  Memoised, so O(nt) overall. */
    int8_t *state = calloc((size_t)g->nt, 1); /* 0 unknown, 1 on current walk, 2 reaches root */
    if (!state) return NOMEM(err);
    state[g->root] = 2;
    ompdag_status st = OMPDAG_OK;
    for (int32_t t = 0; t < g->nt && !st; ++t) {
        int32_t u = t;
        while (state[u] == 0) {
            state[u] = 1;
            u = g->node_task[g->task_creator[u]];
        }
        if (state[u] == 1)
            st = ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                  "task '%s' is unreachable from the root task '%s' (its creators "
                                  "form a cycle)",
                                  task_name(g, t), task_name(g, g->root));
        for (u = t; state[u] == 1; u = g->node_task[g->task_creator[u]])
            state[u] = 2;
    }
    free(state);
    return st;
}

/*
 * W-edges (seed 004 Rule 2): for a T node t creating τj, an edge from the
 * sink of τj to every W node reachable from t along F-edges without passing
 * another W node.  FW(v), that set for the F-successors of v, is computed in
 * reverse F-topological order:
 *     FW(v) = ∪ over F-successors s of ( {s} if s is W, else FW(s) ).
 * A node with one non-W successor shares its successor's set, so chains of
 * T/N nodes cost nothing; only C nodes merge.
 *
 * A partial taskwait (a W node with depend items, docs/depend.md) counts as
 * no W here: it awaits only the children whose clauses conflict with its
 * items, which condag_depend.c derives per flow, so the next full taskwait
 * still awaits every child created before it.
 */
static bool full_wait(const ompdag_condag *g, int32_t v)
{
    return g->kind[v] == OMPDAG_KIND_W && !condag_is_partial_wait(g, v);
}

typedef struct fw_sets {
    int32_t *buf;
    int64_t len, cap;
    int64_t *off;
    int32_t *count;
} fw_sets;

static bool fw_append(fw_sets *f, int32_t x)
{
    if (!grow_array((void **)&f->buf, sizeof *f->buf, &f->cap, f->len + 1)) return false;
    f->buf[f->len++] = x;
    return true;
}

/* Appends the union of the successors' sets, then sorts and dedups it. */
static bool fw_merge(const ompdag_condag *g, fw_sets *f, int32_t v)
{
    int64_t start = f->len;
    for (int32_t i = g->fsucc_off[v]; i < g->fsucc_off[v + 1]; ++i) {
        int32_t s = g->fsucc[i];
        if (full_wait(g, s)) {
            if (!fw_append(f, s)) return false;
            continue;
        }
        for (int32_t k = 0; k < f->count[s]; ++k)
            if (!fw_append(f, f->buf[f->off[s] + k])) /* buf may move: index, never pointer */
                return false;
    }
    int64_t n = f->len - start, u = 0;
    int32_t *set = n ? f->buf + start : NULL;
    if (n > 1) qsort(set, (size_t)n, sizeof *set, ompdag_cmp_i32);
    for (int64_t i = 0; i < n; ++i)
        if (u == 0 || set[i] != set[u - 1]) set[u++] = set[i];
    f->len = start + u;
    f->off[v] = start;
    f->count[v] = (int32_t)u;
    return true;
}

static bool fw_compute(const ompdag_condag *g, const int32_t *forder, fw_sets *f)
{
    for (int32_t i = g->n - 1; i >= 0; --i) {
        int32_t v = forder[i];
        int32_t k = g->fsucc_off[v + 1] - g->fsucc_off[v];
        int32_t s = k ? g->fsucc[g->fsucc_off[v]] : -1;
        if (k == 1 && !full_wait(g, s)) {
            f->off[v] = f->off[s];
            f->count[v] = f->count[s];
        } else if (!fw_merge(g, f, v)) {
            return false;
        }
    }
    return true;
}

static ompdag_status derive_wsucc(ompdag_condag *g, const int32_t *forder, ompdag_error *err)
{
    fw_sets f = {0};
    f.off = calloc((size_t)g->n, sizeof *f.off);
    f.count = calloc((size_t)g->n, sizeof *f.count);
    g->wsucc_off = calloc((size_t)g->n + 1, sizeof *g->wsucc_off);
    ompdag_status st = OMPDAG_OK;
    if (g->no_wsucc && g->wsucc_off) { /* none: an internal graph that never reads them */
        g->wsucc = malloc(sizeof *g->wsucc);
        if (!g->wsucc) st = NOMEM(err);
        goto done;
    }
    if (!f.off || !f.count || !g->wsucc_off || !fw_compute(g, forder, &f)) {
        st = NOMEM(err);
        goto done;
    }
    int64_t total = 0; /* a compact graph's shared sink gathers every creator's W nodes */
    for (int32_t v = 0; v < g->n; ++v)
        if (g->creates[v] >= 0) {
            g->wsucc_off[g->task_sink[g->creates[v]] + 1] += f.count[v];
            total += f.count[v];
        }
    if (total > INT32_MAX) {
        st = ompdag_error_set(err, OMPDAG_ERR_LIMIT, "more than %d derived W-edges", INT32_MAX);
        goto done;
    }
    for (int32_t v = 0; v < g->n; ++v)
        g->wsucc_off[v + 1] += g->wsucc_off[v];
    g->wsucc = malloc(sizeof *g->wsucc * (size_t)(total ? total : 1));
    if (!g->wsucc) {
        st = NOMEM(err);
        goto done;
    }
    int32_t *fill = malloc(sizeof *fill * (size_t)g->n);
    if (!fill) {
        st = NOMEM(err);
        goto done;
    }
    memcpy(fill, g->wsucc_off, sizeof *fill * (size_t)g->n);
    for (int32_t v = 0; v < g->n; ++v)
        if (g->creates[v] >= 0 && f.count[v] > 0) {
            int32_t sink = g->task_sink[g->creates[v]];
            memcpy(g->wsucc + fill[sink], f.buf + f.off[v], sizeof *g->wsucc * (size_t)f.count[v]);
            fill[sink] += f.count[v];
        }
    free(fill);
done:
    free(f.buf);
    free(f.off);
    free(f.count);
    return st;
}

/* Topological order over F-, T- and W-edges together (Kahn's algorithm).  A
 * compact graph's W-edges gather several parents' and may close cycles that
 * no instance has, so it is ordered by F- and T-edges only (docs/compact.md). */
static ompdag_status derive_topo(ompdag_condag *g, ompdag_error *err)
{
    int32_t *indeg = calloc((size_t)g->n, sizeof *indeg);
    int32_t *stack = malloc(sizeof *stack * (size_t)g->n);
    g->topo = malloc(sizeof *g->topo * (size_t)g->n);
    if (!indeg || !stack || !g->topo) return free(indeg), free(stack), NOMEM(err);
    for (int32_t v = 0; v < g->n; ++v) {
        for (int32_t i = g->fsucc_off[v]; i < g->fsucc_off[v + 1]; ++i)
            indeg[g->fsucc[i]]++;
        for (int32_t i = g->wsucc_off[v]; i < g->wsucc_off[v + 1] && !g->compact; ++i)
            indeg[g->wsucc[i]]++;
        if (g->creates[v] >= 0) indeg[g->task_source[g->creates[v]]]++;
    }
    int32_t top = 0, seen = 0;
    for (int32_t v = 0; v < g->n; ++v)
        if (!indeg[v]) stack[top++] = v;
#define RELEASE(u)                                                                                 \
    do {                                                                                           \
        if (--indeg[u] == 0) stack[top++] = (u);                                                   \
    } while (0)
    while (top) {
        int32_t v = stack[--top];
        g->topo[seen++] = v;
        for (int32_t i = g->fsucc_off[v]; i < g->fsucc_off[v + 1]; ++i)
            RELEASE(g->fsucc[i]);
        for (int32_t i = g->wsucc_off[v]; i < g->wsucc_off[v + 1] && !g->compact; ++i)
            RELEASE(g->wsucc[i]);
        if (g->creates[v] >= 0) RELEASE(g->task_source[g->creates[v]]);
    }
#undef RELEASE
    free(indeg);
    free(stack);
    /* Tree-shaped creation and acyclic tasks make this impossible; keep the
     * check so a future rule change cannot yield a silently partial order. */
    if (seen != g->n)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "T- and W-edges close a cycle; the graph is not a DAG");
    assert(g->topo[0] == g->task_source[g->root]);
    return OMPDAG_OK;
}

ompdag_status condag_validate_and_derive(ompdag_condag *g, ompdag_error *err)
{
    int32_t *indeg = calloc((size_t)g->n, sizeof *indeg);
    int32_t *forder = malloc(sizeof *forder * (size_t)g->n);
    ompdag_status st = indeg && forder ? OMPDAG_OK : NOMEM(err);
    if (!st) st = condag_depend_from_extras(g, err);
    if (!st) st = resolve_creates(g, err);
    if (!st) st = build_fsucc(g, indeg, err);
    if (!st) st = check_degrees(g, indeg, err);
    if (!st) st = check_f_acyclic(g, indeg, forder, err);
    if (!st) st = find_sources_and_sinks(g, indeg, err);
    if (!st) st = g->compact ? condag_compact_check_tasks(g, err) : check_task_tree(g, err);
    if (!st) st = derive_wsucc(g, forder, err);
    if (!st) st = derive_topo(g, err);
    if (!st && g->compact) st = condag_compact_derive(g, err);
    if (!st && !g->compact) st = condag_loops_refuse_plain(g, err);
    if (!st) st = condag_depend_finalize(g, err);
    free(indeg);
    free(forder);
    return st;
}
