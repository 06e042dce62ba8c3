/* The cpu engine's per-graph state: the highest-degree neighbour it probes
 * first bottom-up, and the reuse of one result across graphs. */
#include "bfs_test_util.h"

/* Source 0 reaches vertex 1 and the hub H (the last id); every middle vertex
 * 2..H-1 has the row [1, H], and H also has leaves of its own, so H has the
 * highest degree.  A huge α makes level 2 bottom-up, where a row scan would
 * take 1 and the hub probe takes H. */
enum { HUB_MIDDLE = 40, HUB_LEAVES = 10 };

static ompdag_graph *hub_graph(int64_t *hub)
{
    const int64_t h = 2 + HUB_MIDDLE + HUB_LEAVES;
    int64_t src[2 + 2 * HUB_MIDDLE + HUB_LEAVES], dst[2 + 2 * HUB_MIDDLE + HUB_LEAVES];
    int64_t m = 0;
    src[m] = 0, dst[m++] = 1;
    src[m] = 0, dst[m++] = h;
    for (int64_t v = 2; v < 2 + HUB_MIDDLE; ++v) {
        src[m] = v, dst[m++] = 1;
        src[m] = v, dst[m++] = h;
    }
    for (int64_t v = 2 + HUB_MIDDLE; v < h; ++v)
        src[m] = v, dst[m++] = h;
    *hub = h;
    return tu_graph(h + 1, m, src, dst, OMPDAG_GRAPH_UNDIRECTED_SIMPLE);
}

Test(cpu_do, bottom_up_probes_the_highest_degree_neighbour_first)
{
    int64_t hub;
    ompdag_graph *g = hub_graph(&hub);
    ompdag_bfs_result *ref, *r;
    cr_assert_eq(ompdag_bfs_result_create(&ref, NULL), OMPDAG_OK);
    cr_assert_eq(ompdag_bfs_result_create(&r, NULL), OMPDAG_OK);
    tu_run_check(g, 0, OMPDAG_BFS_CPU_TOPDOWN, NULL, ref, NULL);
    ompdag_bfs_options o;
    ompdag_bfs_options_init(&o);
    o.alpha = 1e9; /* m_f > m_u / α from the first level: bottom-up throughout */
    o.threads = 2;
    tu_run_check(g, 0, OMPDAG_BFS_CPU, &o, r, ref);
    cr_assert_eq(ompdag_bfs_result_level(r, 2)->direction, OMPDAG_BFS_BOTTOM_UP);
    const int64_t *parent = ompdag_bfs_result_parents(r);
    for (int64_t v = 2; v < 2 + HUB_MIDDLE; ++v)
        cr_assert_eq(parent[v], hub, "vertex %lld: parent %lld, not the hub %lld", (long long)v,
                     (long long)parent[v], (long long)hub);
    ompdag_bfs_result_destroy(ref);
    ompdag_bfs_result_destroy(r);
    ompdag_graph_destroy(g);
}

/* One result searched on graph after graph of the same size: the probe table
 * belongs to the graph it was built for, so each search must stay valid and
 * give the reference's levels (a stale table names non-neighbours as parents). */
Test(cpu_do, one_result_across_graphs_of_the_same_size)
{
    ompdag_graph *graphs[3] = {tu_kron(12, 1), tu_uniform(12, 2), tu_kron(12, 3)};
    ompdag_bfs_result *ref, *r;
    cr_assert_eq(ompdag_bfs_result_create(&ref, NULL), OMPDAG_OK);
    cr_assert_eq(ompdag_bfs_result_create(&r, NULL), OMPDAG_OK);
    ompdag_bfs_options o;
    ompdag_bfs_options_init(&o);
    o.threads = 2;
    for (int round = 0; round < 2; ++round)
        for (int k = 0; k < 3; ++k) {
            int64_t key;
            cr_assert_eq(ompdag_bfs_pick_sources(graphs[k], 1, (uint64_t)(7 + k), &key), 1);
            tu_run_check(graphs[k], key, OMPDAG_BFS_CPU_TOPDOWN, NULL, ref, NULL);
            tu_run_check(graphs[k], key, OMPDAG_BFS_CPU, &o, r, ref);
        }
    for (int k = 0; k < 3; ++k)
        ompdag_graph_destroy(graphs[k]);
    ompdag_bfs_result_destroy(ref);
    ompdag_bfs_result_destroy(r);
}

/* Two stars (hub and ring) joined by a path: bottom-up in the first star,
 * top-down along the path, bottom-up again in the second star.  Bottom-up
 * keeps the unvisited vertices as a bitmap within a phase; the second phase
 * must take them afresh from the levels (the path was found top-down). */
enum { STAR = 200, PATH = 30 };

static void add_star(int64_t hub, int64_t *src, int64_t *dst, int64_t *m)
{
    for (int64_t i = 1; i < STAR; ++i) {
        src[*m] = hub, dst[(*m)++] = hub + i;
        src[*m] = hub + i, dst[(*m)++] = hub + 1 + i % (STAR - 1);
    }
}

Test(cpu_do, bottom_up_again_after_top_down)
{
    static int64_t src[4 * STAR + PATH + 2], dst[4 * STAR + PATH + 2];
    int64_t m = 0;
    add_star(0, src, dst, &m);
    src[m] = STAR - 1, dst[m++] = STAR; /* the path STAR .. STAR + PATH - 1 */
    for (int64_t v = STAR; v < STAR + PATH - 1; ++v)
        src[m] = v, dst[m++] = v + 1;
    src[m] = STAR + PATH - 1, dst[m++] = STAR + PATH; /* to the second hub */
    add_star(STAR + PATH, src, dst, &m);
    ompdag_graph *g = tu_graph(2 * STAR + PATH, m, src, dst, OMPDAG_GRAPH_UNDIRECTED_SIMPLE);
    ompdag_bfs_result *ref, *r;
    cr_assert_eq(ompdag_bfs_result_create(&ref, NULL), OMPDAG_OK);
    cr_assert_eq(ompdag_bfs_result_create(&r, NULL), OMPDAG_OK);
    tu_run_check(g, 0, OMPDAG_BFS_CPU_TOPDOWN, NULL, ref, NULL);
    ompdag_bfs_options o;
    ompdag_bfs_options_init(&o);
    for (int t = 1; t <= 2; ++t) {
        o.threads = t;
        tu_run_check(g, 0, OMPDAG_BFS_CPU, &o, r, ref);
        char dirs[64] = {0};
        for (int i = 1; i < ompdag_bfs_result_level_count(r) && i < 63; ++i)
            dirs[i - 1] =
                ompdag_bfs_result_level(r, i)->direction == OMPDAG_BFS_BOTTOM_UP ? 'B' : 'T';
        cr_assert(strstr(dirs, "BT") && strstr(strstr(dirs, "BT"), "TB"),
                  "directions %s: no bottom-up phase after a top-down one", dirs);
    }
    ompdag_bfs_result_destroy(ref);
    ompdag_bfs_result_destroy(r);
    ompdag_graph_destroy(g);
}
