/* gpu-sim: the Enterprise kernel logic (enterprise_kernels.h) — degree
 * classification, the three queue-generation workflows, direction decisions,
 * hub-cache hits and the multi-device bitmap exchange. */
#include <string.h>

#include "../../cuda-offload/bfs/enterprise_kernels.h"
#include "bfs_test_util.h"

Test(gpu_sim, class_boundaries)
{
    cr_assert_eq(ent_class(0), 0);
    cr_assert_eq(ent_class(31), 0);
    cr_assert_eq(ent_class(32), 1);
    cr_assert_eq(ent_class(256), 1);
    cr_assert_eq(ent_class(257), 2);
    cr_assert_eq(ent_class(65536), 2);
    cr_assert_eq(ent_class(65537), 3);
}

/* Runs one workflow with T threads over the per-thread functions, the
 * prefix sum and the scatter, exactly as the drivers do. */
static int64_t run_gen(ent_graph g, int kind, const int32_t *status, const int64_t *prev,
                       int64_t len, int64_t T, int32_t level, int64_t *q, int64_t *hc)
{
    int64_t bins[64], binlen[8], counts[4 * 8];
    int64_t chunk = (len + T - 1) / T;
    for (int64_t t = 0; t < T; ++t) {
        ent_counts k;
        int64_t *bin = bins + t * chunk;
        if (kind == 0)
            binlen[t] = ent_gen_interleaved(g, status, 0, len, t, T, level, 100, bin, &k);
        else if (kind == 1)
            binlen[t] = ent_gen_contiguous(g, status, 0, len, t, chunk, level, 0, bin, hc, &k);
        else
            binlen[t] = ent_gen_shrink(g, status, prev, len, t, chunk, 0, bin, hc, &k);
        for (int c = 0; c < 4; ++c)
            counts[c * T + t] = k.c[c];
    }
    int64_t sum = 0;
    for (int64_t i = 0; i < 4 * T; ++i) {
        int64_t x = counts[i];
        counts[i] = sum;
        sum += x;
    }
    for (int64_t t = 0; t < T; ++t)
        ent_scatter(g, bins + t * chunk, binlen[t], counts, t, T, q);
    return sum;
}

/* The seed's Figure 7 example: 10 vertices, two threads. */
Test(gpu_sim, figure7_workflows)
{
    int64_t s[] = {0, 1, 2, 3, 4, 5, 6, 7, 8}, d[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    ompdag_graph *gg = tu_graph(10, 9, s, d, OMPDAG_GRAPH_UNDIRECTED_SIMPLE);
    int64_t *off = malloc(11 * sizeof *off);
    int64_t *adj = malloc(18 * sizeof *adj);
    off[0] = 0;
    for (int64_t v = 0; v < 10; ++v) {
        off[v + 1] = off[v] + ompdag_graph_degree(gg, v);
        for (int64_t i = 0; i < ompdag_graph_degree(gg, v); ++i)
            adj[off[v] + i] = ompdag_graph_neighbor(gg, v, i);
    }
    ent_graph g = {10, off, NULL, adj};
    int64_t q[10], hc[ENT_HC_SIZE];
    /* top-down, interleaved: thread 0 checks 0,2,4,..; thread 1 checks 1,3,..:
     * frontier {1, 4} comes out as {4, 1} */
    int32_t st[10] = {0, 1, 2, -1, 1, -1, -1, -1, -1, -1};
    cr_assert_eq(run_gen(g, 0, st, NULL, 10, 2, 1, q, NULL), 2);
    cr_assert_eq(q[0], 4);
    cr_assert_eq(q[1], 1);
    /* switch level, contiguous: the unvisited {3,5,6,8,9} come out sorted,
     * and the vertices found at the level go to the hub cache (τ = 0) */
    int32_t st2[10] = {0, 1, 2, -1, 1, -1, -1, 2, -1, -1};
    for (int i = 0; i < ENT_HC_SIZE; ++i)
        hc[i] = -1;
    cr_assert_eq(run_gen(g, 1, st2, NULL, 10, 2, 2, q, hc), 5);
    int64_t want[] = {3, 5, 6, 8, 9};
    for (int i = 0; i < 5; ++i)
        cr_assert_eq(q[i], want[i]);
    cr_assert_eq(hc[ent_hc_hash(2)], 2);
    cr_assert_eq(hc[ent_hc_hash(7)], 7);
    cr_assert_neq(hc[ent_hc_hash(3)], 3); /* unvisited vertices are never cached */
    /* bottom-up, shrink: {3,5,6,8,9} minus the newly found {3,5,8} */
    int64_t prev[] = {3, 5, 6, 8, 9};
    int32_t st3[10] = {0, 1, 2, 3, 1, 3, -1, 2, 3, -1};
    cr_assert_eq(run_gen(g, 2, st3, prev, 5, 2, 3, q, hc), 2);
    cr_assert_eq(q[0], 6);
    cr_assert_eq(q[1], 9);
    free(off);
    free(adj);
    ompdag_graph_destroy(gg);
}

/* Source 0 joined to seven vertices whose degrees straddle the class limits;
 * vertex 7 also reaches an extreme vertex X through its last leaf. */
static ompdag_graph *class_graph(int64_t *x_out)
{
    static const int64_t degree[] = {5, 31, 32, 256, 257, 65536, 65537};
    int64_t n = 8, m = 0, cap = 300000;
    int64_t *s = malloc((size_t)cap * sizeof *s), *d = malloc((size_t)cap * sizeof *d);
    for (int k = 0; k < 7; ++k) {
        s[m] = 0;
        d[m++] = k + 1;
        for (int64_t i = 1; i < degree[k]; ++i) {
            s[m] = k + 1;
            d[m++] = n++;
        }
    }
    int64_t x = n++, last = -1;
    for (int64_t i = 0; i < 70000; ++i) {
        s[m] = x;
        d[m++] = last = n++;
    }
    s[m] = 1; /* vertex 1 (degree 5, now 6) -> the last leaf of X */
    d[m++] = last;
    ompdag_graph *g = tu_graph(n, m, s, d, OMPDAG_GRAPH_UNDIRECTED_SIMPLE);
    free(s);
    free(d);
    *x_out = x;
    return g;
}

Test(gpu_sim, degree_classification, .timeout = 60)
{
    int64_t x;
    ompdag_graph *g = class_graph(&x);
    ompdag_bfs_result *ref, *r;
    ompdag_bfs_result_create(&ref, NULL);
    ompdag_bfs_result_create(&r, NULL);
    tu_run_check(g, 0, OMPDAG_BFS_CPU_TOPDOWN, NULL, ref, NULL);
    ompdag_bfs_options o;
    ompdag_bfs_options_init(&o);
    o.loop = OMPDAG_BFS_LOOP_ENTERPRISE; /* the seed's per-level queues */
    o.gamma = 2.0;                       /* top-down throughout */
    tu_run_check(g, 0, OMPDAG_BFS_GPU_SIM, &o, r, ref);
    const ompdag_bfs_level *l2 = ompdag_bfs_result_level(r, 2);
    cr_assert_not_null(l2);
    cr_assert_eq(l2->direction, OMPDAG_BFS_TOP_DOWN);
    /* the level-1 frontier {1..7}: degrees 5, 31 | 32, 256 | 257, 65536 | 65537 */
    cr_assert_eq(l2->queue[0], 2);
    cr_assert_eq(l2->queue[1], 2);
    cr_assert_eq(l2->queue[2], 2);
    cr_assert_eq(l2->queue[3], 1);
    /* bottom-up from level 2 on (γ = 0, τ = 0): X is checked by the grid kernel */
    o.gamma = 0.0;
    o.tau = 0;
    for (int dev = 1; dev <= 3; ++dev) {
        o.devices = dev;
        tu_run_check(g, 0, OMPDAG_BFS_GPU_SIM, &o, r, ref);
        cr_assert_eq(ompdag_bfs_result_level(r, 2)->direction, OMPDAG_BFS_BOTTOM_UP);
        const ompdag_bfs_level *l3 = ompdag_bfs_result_level(r, 3);
        cr_assert_eq(l3->direction, OMPDAG_BFS_BOTTOM_UP);
        cr_assert_eq(l3->queue[3], 1); /* X waits in the ExtremeQueue */
        cr_assert_eq(l3->visited, 1);
    }
    cr_assert_eq(ompdag_bfs_result_levels(r)[x], 3);
    ompdag_bfs_result_destroy(ref);
    ompdag_bfs_result_destroy(r);
    ompdag_graph_destroy(g);
}

Test(gpu_sim, forced_directions_still_exact)
{
    ompdag_graph *gs[] = {tu_kron(12, 4), tu_uniform(11, 4), tu_path(3000)};
    ompdag_bfs_result *ref, *r;
    ompdag_bfs_result_create(&ref, NULL);
    ompdag_bfs_result_create(&r, NULL);
    for (int k = 0; k < 3; ++k) {
        int64_t src;
        ompdag_bfs_pick_sources(gs[k], 1, 7, &src);
        tu_run_check(gs[k], src, OMPDAG_BFS_CPU_TOPDOWN, NULL, ref, NULL);
        ompdag_bfs_options o;
        ompdag_bfs_options_init(&o);
        o.gamma = 0.0;
        o.tau = 0;
        o.beta = 1e18; /* n / β < 1: never back to top-down */
        for (int dev = 1; dev <= 4; dev += 3) {
            o.devices = dev;
            tu_run_check(gs[k], src, OMPDAG_BFS_GPU_SIM, &o, r, ref);
            for (int i = 2; i < ompdag_bfs_result_level_count(r); ++i)
                cr_assert_eq(ompdag_bfs_result_level(r, i)->direction, OMPDAG_BFS_BOTTOM_UP);
        }
        o.gamma = 10.0; /* never bottom-up */
        o.devices = 1;
        tu_run_check(gs[k], src, OMPDAG_BFS_GPU_SIM, &o, r, ref);
        for (int i = 1; i < ompdag_bfs_result_level_count(r); ++i)
            cr_assert_eq(ompdag_bfs_result_level(r, i)->direction, OMPDAG_BFS_TOP_DOWN);
        ompdag_graph_destroy(gs[k]);
    }
    ompdag_bfs_result_destroy(ref);
    ompdag_bfs_result_destroy(r);
}

Test(gpu_sim, direction_decisions_follow_gamma)
{
    ompdag_graph *g = tu_kron(14, 9);
    const int64_t n = ompdag_graph_vertices(g);
    ompdag_bfs_options o;
    ompdag_bfs_options_init(&o);
    o.loop = OMPDAG_BFS_LOOP_ENTERPRISE; /* its workflows are checked below */
    int64_t Th = 0;
    for (int64_t v = 0; v < n; ++v)
        Th += ompdag_graph_degree(g, v) > o.tau;
    cr_assert_gt(Th, 0);
    int64_t keys[3];
    ompdag_bfs_pick_sources(g, 3, 5, keys);
    ompdag_bfs_result *r;
    ompdag_bfs_result_create(&r, NULL);
    for (int s = 0; s < 3; ++s) {
        tu_run_check(g, keys[s], OMPDAG_BFS_GPU_SIM, &o, r, NULL);
        const int32_t *lev = ompdag_bfs_result_levels(r);
        int L = ompdag_bfs_result_level_count(r);
        int bottom_up = 0;
        cr_assert_eq(ompdag_bfs_result_level(r, 1)->direction, OMPDAG_BFS_TOP_DOWN);
        for (int i = 1; i < L; ++i) {
            const ompdag_bfs_level *a = ompdag_bfs_result_level(r, i);
            /* Fh and γ as the seed defines them, recounted from the levels */
            int64_t hubs = 0, found = 0;
            for (int64_t v = 0; v < n; ++v)
                if (lev[v] == i) {
                    ++found;
                    hubs += ompdag_graph_degree(g, v) > o.tau;
                }
            cr_assert_eq(a->visited, found);
            cr_assert_eq(a->hubs, hubs);
            cr_assert_float_eq(a->gamma, (double)hubs / (double)Th, 1e-12);
            bottom_up += a->direction == OMPDAG_BFS_BOTTOM_UP;
            if (i + 1 >= L) break;
            const ompdag_bfs_level *b = ompdag_bfs_result_level(r, i + 1);
            if (a->direction == OMPDAG_BFS_TOP_DOWN) {
                bool switch_now = a->gamma > o.gamma;
                cr_assert_eq(b->direction == OMPDAG_BFS_BOTTOM_UP, switch_now, "level %d γ=%g", i,
                             a->gamma);
                if (switch_now)
                    cr_assert_eq(a->workflow, OMPDAG_BFS_WORKFLOW_CONTIGUOUS);
                else
                    cr_assert(a->workflow == OMPDAG_BFS_WORKFLOW_SPARSE ||
                              a->workflow == OMPDAG_BFS_WORKFLOW_INTERLEAVED);
            } else {
                const ompdag_bfs_level *prev = ompdag_bfs_result_level(r, i - 1);
                bool back = a->visited < prev->visited && (double)a->visited < (double)n / o.beta;
                cr_assert_eq(b->direction == OMPDAG_BFS_TOP_DOWN, back, "level %d", i);
                cr_assert_eq(a->workflow,
                             back ? OMPDAG_BFS_WORKFLOW_INTERLEAVED : OMPDAG_BFS_WORKFLOW_SHRINK);
            }
        }
        cr_assert_gt(bottom_up, 0, "a Kronecker search never went bottom-up");
    }
    /* the decisions are global: the same on 1..4 simulated devices */
    ompdag_bfs_result *r1;
    ompdag_bfs_result_create(&r1, NULL);
    tu_run_check(g, keys[0], OMPDAG_BFS_GPU_SIM, &o, r1, NULL);
    for (int dev = 2; dev <= 4; ++dev) {
        o.devices = dev;
        tu_run_check(g, keys[0], OMPDAG_BFS_GPU_SIM, &o, r, r1);
        for (int i = 1; i < ompdag_bfs_result_level_count(r); ++i)
            cr_assert_eq(ompdag_bfs_result_level(r, i)->direction,
                         ompdag_bfs_result_level(r1, i)->direction);
    }
    ompdag_bfs_result_destroy(r1);
    ompdag_bfs_result_destroy(r);
    ompdag_graph_destroy(g);
}

Test(gpu_sim, hub_cache_hits)
{
    ompdag_graph *g = tu_kron(14, 13);
    int64_t keys[2];
    ompdag_bfs_pick_sources(g, 2, 17, keys);
    ompdag_bfs_options on, off;
    ompdag_bfs_options_init(&on);
    ompdag_bfs_options_init(&off);
    on.loop = off.loop = OMPDAG_BFS_LOOP_ENTERPRISE;
    on.hub_cache = true;
    off.hub_cache = false;
    ompdag_bfs_result *a, *b;
    ompdag_bfs_result_create(&a, NULL);
    ompdag_bfs_result_create(&b, NULL);
    for (int s = 0; s < 2; ++s) {
        tu_run_check(g, keys[s], OMPDAG_BFS_GPU_SIM, &off, b, NULL);
        tu_run_check(g, keys[s], OMPDAG_BFS_GPU_SIM, &on, a, b);
        int64_t hits = 0, probes = 0;
        for (int i = 1; i < ompdag_bfs_result_level_count(a); ++i) {
            const ompdag_bfs_level *la = ompdag_bfs_result_level(a, i),
                                   *lb = ompdag_bfs_result_level(b, i);
            /* a hit answers exactly what the status array would: the same
             * checks are made, only their source differs */
            cr_assert_eq(la->hc_probes, lb->hc_probes, "level %d", i);
            cr_assert_eq(lb->hc_hits, 0);
            cr_assert_leq(la->hc_hits, la->hc_probes);
            if (la->direction == OMPDAG_BFS_TOP_DOWN) cr_assert_eq(la->hc_probes, 0);
            hits += la->hc_hits;
            probes += la->hc_probes;
        }
        cr_assert_gt(probes, 0);
        cr_assert_gt(hits, 0, "the hub cache never hit on a Kronecker graph");
    }
    ompdag_bfs_result_destroy(a);
    ompdag_bfs_result_destroy(b);
    ompdag_graph_destroy(g);
}

Test(gpu_sim, long_diameter_uses_the_sparse_workflow)
{
    ompdag_graph *g = tu_path(5000);
    ompdag_bfs_result *r;
    ompdag_bfs_result_create(&r, NULL);
    ompdag_bfs_options o;
    ompdag_bfs_options_init(&o);
    o.loop = OMPDAG_BFS_LOOP_ENTERPRISE;
    tu_run_check(g, 0, OMPDAG_BFS_GPU_SIM, &o, r, NULL);
    cr_assert_eq(ompdag_bfs_result_level_count(r), 5000);
    for (int i = 1; i < 5000; ++i) {
        cr_assert_eq(ompdag_bfs_result_level(r, i)->workflow, OMPDAG_BFS_WORKFLOW_SPARSE);
        cr_assert_eq(ompdag_bfs_result_level(r, i)->visited, 1);
    }
    ompdag_bfs_result_destroy(r);
    ompdag_graph_destroy(g);
}
