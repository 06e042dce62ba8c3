/*
 * bfs_validate.c — Graph500 validation of one search (Graph500 spec §8,
 * gpu.md "Validate every search"), shared by every engine, the CLI and the
 * tests (GAP's verifier role).  Rules, in the order they are checked:
 *   1. tree:        parent[source] = source, and every reached vertex's
 *                   parent chain reaches the source without a cycle;
 *   2. tree-levels: level[source] = 0 and level[v] = level[parent[v]] + 1;
 *   5. parent-edge: (parent[v], v) is an arc of the graph;
 *   3. edge-levels: every arc (u, w) out of a reached u has
 *                   level[w] <= level[u] + 1 (|Δ| <= 1 when undirected);
 *   4. spans:       every arc out of a reached vertex ends at a reached one,
 *                   so the tree spans the source's component.
 * The first failure is reported with its rule and vertex.
 */
#include <stdlib.h>

#include "bfs_internal.h"

static const char *const rule_names[] = {"ok", "tree", "tree-levels", "edge-levels", "spans",
                                         "parent-edge"};

const char *ompdag_bfs_rule_name(ompdag_bfs_rule rule)
{
    if ((unsigned)rule > OMPDAG_BFS_RULE_PARENT_EDGE)
        return "unknown";
    return rule_names[rule];
}

static ompdag_status violation(ompdag_bfs_rule rule, int64_t v, ompdag_bfs_rule *rule_out,
                               int64_t *vertex_out, ompdag_error *err, const char *why)
{
    if (rule_out)
        *rule_out = rule;
    if (vertex_out)
        *vertex_out = v;
    return ompdag_error_set(err, OMPDAG_ERR_INVALID, "Graph500 rule %d (%s) failed at vertex %lld: %s",
                    (int)rule, rule_names[rule], (long long)v, why);
}

/* Rule 1: follows parent pointers from every reached vertex.  depth[] marks
 * -2 unknown, -3 on the current walk (a cycle if met again), else the depth. */
static int64_t check_tree(const ompdag_graph *g, const int64_t *parent, int64_t source,
                          int64_t *depth, int64_t *stack, const char **why)
{
    for (int64_t v = 0; v < g->n; ++v)
        depth[v] = -2;
    depth[source] = 0;
    for (int64_t v = 0; v < g->n; ++v) {
        if (parent[v] < 0 || depth[v] >= 0)
            continue;
        int64_t top = 0, x = v;
        while (depth[x] == -2) {
            depth[x] = -3;
            stack[top++] = x;
            int64_t p = parent[x];
            if (p < 0 || p >= g->n) {
                *why = p < 0 ? "its parent chain reaches a vertex outside the tree"
                             : "its parent is not a vertex";
                return v;
            }
            x = p;
        }
        if (depth[x] == -3) {
            *why = "its parent chain runs into a cycle that misses the source";
            return v;
        }
        for (int64_t d = depth[x]; top > 0;)
            depth[stack[--top]] = ++d;
    }
    return -1;
}

ompdag_status ompdag_bfs_validate(const ompdag_graph *g, const ompdag_bfs_result *r,
                                  ompdag_bfs_rule *rule, int64_t *vertex, ompdag_error *err)
{
    if (rule)
        *rule = OMPDAG_BFS_RULE_OK;
    if (vertex)
        *vertex = -1;
    if (!g || !r || r->n != g->n || r->source < 0)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "validate: the result is not a search of this graph");
    const int64_t n = g->n, src = r->source;
    const int64_t *parent = r->parents;
    const int32_t *level = r->levels;
    if (parent[src] != src)
        return violation(OMPDAG_BFS_RULE_TREE, src, rule, vertex, err,
                         "the source is not its own parent");
    for (int64_t v = 0; v < n; ++v)
        if ((parent[v] < 0) != (level[v] < 0))
            return violation(OMPDAG_BFS_RULE_TREE, v, rule, vertex, err,
                             parent[v] < 0 ? "it has a level but no parent"
                                           : "it has a parent but no level");
    int64_t *depth = malloc((size_t)(n > 0 ? n : 1) * sizeof *depth);
    int64_t *stack = malloc((size_t)(n > 0 ? n : 1) * sizeof *stack);
    if (!depth || !stack) {
        free(depth);
        free(stack);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "validate: out of memory");
    }
    const char *why = NULL;
    int64_t bad = check_tree(g, parent, src, depth, stack, &why);
    free(depth);
    free(stack);
    if (bad >= 0)
        return violation(OMPDAG_BFS_RULE_TREE, bad, rule, vertex, err, why);
    if (level[src] != 0)
        return violation(OMPDAG_BFS_RULE_TREE_LEVELS, src, rule, vertex, err,
                         "the source's level is not 0");
    for (int64_t v = 0; v < n; ++v)
        if (v != src && parent[v] >= 0 && level[v] != level[parent[v]] + 1)
            return violation(OMPDAG_BFS_RULE_TREE_LEVELS, v, rule, vertex, err,
                             "its level is not its parent's level + 1");
    for (int64_t v = 0; v < n; ++v)
        if (v != src && parent[v] >= 0 && !graph_has_arc(g, parent[v], v))
            return violation(OMPDAG_BFS_RULE_PARENT_EDGE, v, rule, vertex, err,
                             "the edge from its parent is not in the graph");
    for (int64_t u = 0; u < n; ++u) {
        if (level[u] < 0)
            continue;
        for (int64_t e = g->offsets[u]; e < g->offsets[u + 1]; ++e) {
            int64_t w = csr_nbr(g, e);
            if (level[w] < 0)
                return violation(OMPDAG_BFS_RULE_SPANS, w, rule, vertex, err,
                                 "it is joined to a reached vertex but was not reached");
            if (level[w] > level[u] + 1)
                return violation(OMPDAG_BFS_RULE_EDGE_LEVELS, w, rule, vertex, err,
                                 "an edge joins it to a vertex more than one level above");
        }
    }
    return OMPDAG_OK;
}
