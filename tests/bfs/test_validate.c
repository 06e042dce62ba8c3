/* Graph500 validation catches each kind of corrupted tree, naming the rule
 * and the vertex. */
#include <stdio.h>
#include <string.h>

#include "bfs_test_util.h"

static void expect_rule(const ompdag_graph *g, const ompdag_bfs_result *r, ompdag_bfs_rule want,
                        int64_t want_vertex)
{
    ompdag_bfs_rule rule;
    int64_t v;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_bfs_validate(g, r, &rule, &v, &err), OMPDAG_ERR_INVALID,
                 "corruption not caught (want rule %d)", (int)want);
    cr_assert_eq(rule, want, "rule %d reported, %d wanted: %s", (int)rule, (int)want, err.message);
    if (want_vertex >= 0) cr_assert_eq(v, want_vertex, "%s", err.message);
    char needle[64];
    snprintf(needle, sizeof needle, "rule %d (%s) failed at vertex %lld", (int)want,
             ompdag_bfs_rule_name(want), (long long)v);
    cr_assert_not_null(strstr(err.message, needle), "%s", err.message);
}

/* A vertex that is nobody's parent, with level >= 2. */
static int64_t find_leaf(const ompdag_graph *g, const ompdag_bfs_result *r)
{
    int64_t n = ompdag_graph_vertices(g);
    const int64_t *p = ompdag_bfs_result_parents(r);
    const int32_t *l = ompdag_bfs_result_levels(r);
    char *is_parent = calloc((size_t)n, 1);
    for (int64_t v = 0; v < n; ++v)
        if (p[v] >= 0 && p[v] != v) is_parent[p[v]] = 1;
    int64_t leaf = -1;
    for (int64_t v = 0; v < n && leaf < 0; ++v)
        if (!is_parent[v] && l[v] >= 2) leaf = v;
    free(is_parent);
    cr_assert_geq(leaf, 0);
    return leaf;
}

static ompdag_bfs_result *fresh(const ompdag_graph *g, int64_t src)
{
    ompdag_bfs_result *r;
    ompdag_bfs_result_create(&r, NULL);
    tu_run_check(g, src, OMPDAG_BFS_CPU_TOPDOWN, NULL, r, NULL);
    return r;
}

Test(validate, each_rule_is_caught)
{
    ompdag_graph *g = tu_kron(10, 21);
    int64_t src;
    ompdag_bfs_pick_sources(g, 1, 3, &src);
    int64_t n = ompdag_graph_vertices(g);

    /* rule 1: the source is not its own parent */
    ompdag_bfs_result *r = fresh(g, src);
    ompdag_bfs_result_parents_mut(r)[src] = ompdag_graph_neighbor(g, src, 0);
    expect_rule(g, r, OMPDAG_BFS_RULE_TREE, src);
    ompdag_bfs_result_destroy(r);

    /* rule 1: a parent cycle that misses the source */
    r = fresh(g, src);
    int64_t leaf = find_leaf(g, r);
    int64_t *p = ompdag_bfs_result_parents_mut(r);
    int64_t up = p[leaf];
    p[up] = leaf; /* leaf -> up -> leaf */
    expect_rule(g, r, OMPDAG_BFS_RULE_TREE, -1);
    ompdag_bfs_result_destroy(r);

    /* rule 1: a parent without a level */
    r = fresh(g, src);
    leaf = find_leaf(g, r);
    ompdag_bfs_result_levels_mut(r)[leaf] = -1;
    expect_rule(g, r, OMPDAG_BFS_RULE_TREE, leaf);
    ompdag_bfs_result_destroy(r);

    /* rule 2: a level one too deep */
    r = fresh(g, src);
    leaf = find_leaf(g, r);
    ompdag_bfs_result_levels_mut(r)[leaf] += 1;
    expect_rule(g, r, OMPDAG_BFS_RULE_TREE_LEVELS, leaf);
    ompdag_bfs_result_destroy(r);

    /* rule 5: a parent one level up that is not a neighbour */
    r = fresh(g, src);
    leaf = find_leaf(g, r);
    const int32_t *l = ompdag_bfs_result_levels(r);
    int64_t fake = -1;
    for (int64_t v = 0; v < n && fake < 0; ++v) {
        if (l[v] != l[leaf] - 1) continue;
        bool adjacent = false;
        for (int64_t i = 0; i < ompdag_graph_degree(g, leaf); ++i)
            adjacent |= ompdag_graph_neighbor(g, leaf, i) == v;
        if (!adjacent) fake = v;
    }
    cr_assert_geq(fake, 0);
    ompdag_bfs_result_parents_mut(r)[leaf] = fake;
    expect_rule(g, r, OMPDAG_BFS_RULE_PARENT_EDGE, leaf);
    ompdag_bfs_result_destroy(r);

    /* rule 4: a reached vertex's neighbour left out of the tree */
    r = fresh(g, src);
    leaf = find_leaf(g, r);
    ompdag_bfs_result_levels_mut(r)[leaf] = -1;
    ompdag_bfs_result_parents_mut(r)[leaf] = -1;
    expect_rule(g, r, OMPDAG_BFS_RULE_SPANS, leaf);
    ompdag_bfs_result_destroy(r);

    ompdag_graph_destroy(g);
}

Test(validate, edge_levels_rule)
{
    /* path 0-1-2-3 plus the chord 0-3: a tree along the path puts 3 at level 3 */
    int64_t s[] = {0, 1, 2, 0}, d[] = {1, 2, 3, 3};
    ompdag_graph *g = tu_graph(4, 4, s, d, OMPDAG_GRAPH_UNDIRECTED_SIMPLE);
    ompdag_bfs_result *r = fresh(g, 0);
    cr_assert_eq(ompdag_bfs_result_levels(r)[3], 1);
    ompdag_bfs_result_parents_mut(r)[3] = 2;
    ompdag_bfs_result_levels_mut(r)[3] = 3;
    expect_rule(g, r, OMPDAG_BFS_RULE_EDGE_LEVELS, 3);
    ompdag_bfs_result_destroy(r);
    ompdag_graph_destroy(g);
}

Test(validate, rule_names)
{
    cr_assert_str_eq(ompdag_bfs_rule_name(OMPDAG_BFS_RULE_TREE), "tree");
    cr_assert_str_eq(ompdag_bfs_rule_name(OMPDAG_BFS_RULE_PARENT_EDGE), "parent-edge");
    cr_assert_str_eq(ompdag_bfs_rule_name((ompdag_bfs_rule)99), "unknown");
}
