/* tests/bfs/bfs_test_util.h — graphs and checks shared by the BFS tests. */
#ifndef OMPDAG_BFS_TEST_UTIL_H
#define OMPDAG_BFS_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/bfs.h"
#include "ompdag/graph.h"

static inline ompdag_graph *tu_graph(int64_t n, int64_t m, const int64_t *src, const int64_t *dst,
                                     unsigned flags)
{
    ompdag_graph *g = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_graph_from_edges(n, m, src, dst, flags, &g, &err), OMPDAG_OK, "%s",
                 err.message);
    return g;
}

static inline ompdag_graph *tu_kron(int scale, uint64_t seed)
{
    ompdag_graph *g = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_graph_kronecker(scale, 16, seed, &g, &err), OMPDAG_OK, "%s", err.message);
    return g;
}

static inline ompdag_graph *tu_uniform(int scale, uint64_t seed)
{
    ompdag_graph *g = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_graph_uniform(scale, 16, seed, &g, &err), OMPDAG_OK, "%s", err.message);
    return g;
}

/* An undirected path 0 - 1 - ... - (n-1). */
static inline ompdag_graph *tu_path(int64_t n)
{
    int64_t *s = malloc((size_t)n * sizeof *s), *d = malloc((size_t)n * sizeof *d);
    for (int64_t i = 0; i + 1 < n; ++i) {
        s[i] = i;
        d[i] = i + 1;
    }
    ompdag_graph *g = tu_graph(n, n - 1, s, d, OMPDAG_GRAPH_UNDIRECTED_SIMPLE);
    free(s);
    free(d);
    return g;
}

/* Runs engine from source, checks Graph500 validity, and when ref is not
 * NULL that every level equals ref's. */
static inline void tu_run_check(const ompdag_graph *g, int64_t source, ompdag_bfs_engine engine,
                                const ompdag_bfs_options *opts, ompdag_bfs_result *r,
                                const ompdag_bfs_result *ref)
{
    ompdag_error err = {0};
    cr_assert_eq(ompdag_bfs_run(g, source, engine, opts, r, &err), OMPDAG_OK, "%s: %s",
                 ompdag_bfs_engine_name(engine), err.message);
    ompdag_bfs_rule rule;
    int64_t v;
    cr_assert_eq(ompdag_bfs_validate(g, r, &rule, &v, &err), OMPDAG_OK, "%s from %lld: %s",
                 ompdag_bfs_engine_name(engine), (long long)source, err.message);
    if (ref) {
        const int32_t *a = ompdag_bfs_result_levels(r), *b = ompdag_bfs_result_levels(ref);
        int64_t n = ompdag_graph_vertices(g);
        for (int64_t i = 0; i < n; ++i)
            if (a[i] != b[i])
                cr_assert_fail("%s from %lld: level of %lld is %d, reference says %d",
                               ompdag_bfs_engine_name(engine), (long long)source, (long long)i,
                               a[i], b[i]);
        cr_assert_eq(ompdag_bfs_result_level_count(r), ompdag_bfs_result_level_count(ref));
        cr_assert_eq(ompdag_bfs_result_edges(r), ompdag_bfs_result_edges(ref));
    }
}

#endif
