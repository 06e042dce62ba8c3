/* Every engine, on Kronecker and uniform graphs and on edge cases, passes
 * Graph500 validation and gives the serial reference's levels. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bfs_test_util.h"
#include "test_tmpdir.h"

static const int sim_devices[] = {1, 2, 3, 4};

/* cpu (1 and 2 threads) and gpu-sim (1..4 devices) against cpu-topdown. */
static void check_all_engines(const ompdag_graph *g, int64_t source)
{
    ompdag_bfs_result *ref, *r;
    cr_assert_eq(ompdag_bfs_result_create(&ref, NULL), OMPDAG_OK);
    cr_assert_eq(ompdag_bfs_result_create(&r, NULL), OMPDAG_OK);
    tu_run_check(g, source, OMPDAG_BFS_CPU_TOPDOWN, NULL, ref, NULL);
    ompdag_bfs_options o;
    ompdag_bfs_options_init(&o);
    for (int t = 1; t <= 2; ++t) {
        o.threads = t;
        tu_run_check(g, source, OMPDAG_BFS_CPU, &o, r, ref);
    }
    ompdag_bfs_options_init(&o);
    for (size_t k = 0; k < sizeof sim_devices / sizeof *sim_devices; ++k) {
        o.devices = sim_devices[k];
        tu_run_check(g, source, OMPDAG_BFS_GPU_SIM, &o, r, ref);
    }
    ompdag_bfs_result_destroy(ref);
    ompdag_bfs_result_destroy(r);
}

static void check_sources(const ompdag_graph *g, int count, uint64_t seed)
{
    int64_t keys[8];
    cr_assert_eq(ompdag_bfs_pick_sources(g, count, seed, keys), count);
    for (int i = 0; i < count; ++i) {
        cr_assert_gt(ompdag_graph_degree(g, keys[i]), 0);
        check_all_engines(g, keys[i]);
    }
}

Test(engines, kronecker_scales_10_to_14)
{
    for (int scale = 10; scale <= 14; scale += 2) {
        ompdag_graph *g = tu_kron(scale, (uint64_t)scale);
        check_sources(g, 3, 11);
        ompdag_graph_destroy(g);
    }
}

Test(engines, kronecker_scale_16, .timeout = 120)
{
    ompdag_graph *g = tu_kron(16, 5);
    check_sources(g, 1, 3);
    ompdag_graph_destroy(g);
}

Test(engines, uniform_scales_10_to_16, .timeout = 120)
{
    for (int scale = 10; scale <= 16; scale += 3) {
        ompdag_graph *g = tu_uniform(scale, (uint64_t)scale + 100);
        check_sources(g, scale < 16 ? 2 : 1, 5);
        ompdag_graph_destroy(g);
    }
}

Test(engines, isolated_source)
{
    ompdag_graph *g = tu_kron(10, 2);
    int64_t iso = -1;
    for (int64_t v = 0; v < ompdag_graph_vertices(g) && iso < 0; ++v)
        if (ompdag_graph_degree(g, v) == 0) iso = v;
    cr_assert_geq(iso, 0);
    check_all_engines(g, iso);
    ompdag_bfs_result *r;
    ompdag_bfs_result_create(&r, NULL);
    for (int e = 0; e < OMPDAG_BFS_ENGINE_COUNT; ++e) {
        if (e == OMPDAG_BFS_GPU) continue;
        cr_assert_eq(ompdag_bfs_run(g, iso, (ompdag_bfs_engine)e, NULL, r, NULL), OMPDAG_OK);
        cr_assert_eq(ompdag_bfs_result_reached(r), 1);
        cr_assert_eq(ompdag_bfs_result_edges(r), 0);
        cr_assert_eq(ompdag_bfs_result_level_count(r), 1);
    }
    ompdag_bfs_result_destroy(r);
    ompdag_graph_destroy(g);
}

Test(engines, self_loops_and_duplicates_kept)
{
    /* a multigraph with loops and repeated arcs, built without cleaning */
    int64_t s[] = {0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 5}, d[] = {0, 1, 1, 1, 2, 3, 3, 3, 4, 5, 5, 0};
    ompdag_graph *g = tu_graph(7, 12, s, d, OMPDAG_GRAPH_SYMMETRIZE);
    for (int64_t src = 0; src < 7; ++src)
        check_all_engines(g, src);
    ompdag_graph_destroy(g);
}

Test(engines, directed_graph)
{
    /* 0 -> 1 -> 2 -> 0 and 3 -> 0: from 0, vertex 3 stays unreached */
    int64_t s[] = {0, 1, 2, 3}, d[] = {1, 2, 0, 0};
    ompdag_graph *g = tu_graph(4, 4, s, d, 0);
    check_all_engines(g, 0);
    ompdag_bfs_result *r;
    ompdag_bfs_result_create(&r, NULL);
    cr_assert_eq(ompdag_bfs_run(g, 0, OMPDAG_BFS_CPU, NULL, r, NULL), OMPDAG_OK);
    cr_assert_eq(ompdag_bfs_result_levels(r)[2], 2);
    cr_assert_eq(ompdag_bfs_result_levels(r)[3], -1);
    ompdag_bfs_result_destroy(r);
    ompdag_graph_destroy(g);
}

Test(engines, disconnected_components)
{
    /* two Kronecker copies side by side: vertices of the other copy stay unreached */
    ompdag_graph *k = tu_kron(10, 4);
    int64_t n = ompdag_graph_vertices(k), m = 0;
    int64_t *s = malloc((size_t)(2 * ompdag_graph_arcs(k)) * sizeof *s);
    int64_t *d = malloc((size_t)(2 * ompdag_graph_arcs(k)) * sizeof *d);
    for (int copy = 0; copy < 2; ++copy)
        for (int64_t v = 0; v < n; ++v)
            for (int64_t i = 0; i < ompdag_graph_degree(k, v); ++i) {
                s[m] = v + copy * n;
                d[m++] = ompdag_graph_neighbor(k, v, i) + copy * n;
            }
    ompdag_graph *g = tu_graph(2 * n, m, s, d, 0);
    free(s);
    free(d);
    int64_t key;
    cr_assert_eq(ompdag_bfs_pick_sources(k, 1, 9, &key), 1);
    check_all_engines(g, key);
    check_all_engines(g, key + n);
    ompdag_bfs_result *r;
    ompdag_bfs_result_create(&r, NULL);
    cr_assert_eq(ompdag_bfs_run(g, key + n, OMPDAG_BFS_GPU_SIM, NULL, r, NULL), OMPDAG_OK);
    for (int64_t v = 0; v < n; ++v)
        cr_assert_eq(ompdag_bfs_result_levels(r)[v], -1);
    ompdag_bfs_result_destroy(r);
    ompdag_graph_destroy(g);
    ompdag_graph_destroy(k);
}

Test(engines, path_of_a_million_vertices, .timeout = 120)
{
    const int64_t n = 1000000;
    ompdag_graph *g = tu_path(n);
    ompdag_bfs_result *ref, *r;
    ompdag_bfs_result_create(&ref, NULL);
    ompdag_bfs_result_create(&r, NULL);
    tu_run_check(g, 0, OMPDAG_BFS_CPU_TOPDOWN, NULL, ref, NULL);
    cr_assert_eq(ompdag_bfs_result_level_count(ref), n);
    cr_assert_eq(ompdag_bfs_result_levels(ref)[n - 1], n - 1);
    tu_run_check(g, 0, OMPDAG_BFS_CPU, NULL, r, ref);
    tu_run_check(g, 0, OMPDAG_BFS_GPU_SIM, NULL, r, ref);
    /* from the middle: two fronts */
    tu_run_check(g, n / 2, OMPDAG_BFS_CPU_TOPDOWN, NULL, ref, NULL);
    tu_run_check(g, n / 2, OMPDAG_BFS_GPU_SIM, NULL, r, ref);
    ompdag_bfs_result_destroy(ref);
    ompdag_bfs_result_destroy(r);
    ompdag_graph_destroy(g);
}

Test(engines, bad_arguments)
{
    ompdag_graph *g = tu_path(5);
    ompdag_bfs_result *r;
    ompdag_bfs_result_create(&r, NULL);
    ompdag_error err = {0};
    cr_assert_eq(ompdag_bfs_run(g, 5, OMPDAG_BFS_CPU, NULL, r, &err), OMPDAG_ERR_ARGUMENT);
    cr_assert_not_null(strstr(err.message, "source 5"));
    ompdag_bfs_options o;
    ompdag_bfs_options_init(&o);
    o.devices = 9;
    cr_assert_eq(ompdag_bfs_run(g, 0, OMPDAG_BFS_GPU_SIM, &o, r, &err), OMPDAG_ERR_ARGUMENT);
    ompdag_bfs_engine e;
    cr_assert_eq(ompdag_bfs_engine_parse("gpu-sim", &e, NULL), OMPDAG_OK);
    cr_assert_eq(e, OMPDAG_BFS_GPU_SIM);
    cr_assert_eq(ompdag_bfs_engine_parse("tpu", &e, &err), OMPDAG_ERR_ARGUMENT);
    ompdag_bfs_result_destroy(r);
    ompdag_graph_destroy(g);
}

Test(engines, gpu_engine_without_a_device_says_why)
{
    char why[256] = "";
    if (ompdag_bfs_gpu_available(why, sizeof why)) {
        /* a machine with a GPU: the real engine must pass like the others */
        ompdag_graph *g = tu_kron(12, 1);
        ompdag_bfs_result *ref, *r;
        ompdag_bfs_result_create(&ref, NULL);
        ompdag_bfs_result_create(&r, NULL);
        int64_t keys[4];
        ompdag_bfs_pick_sources(g, 4, 1, keys);
        for (int i = 0; i < 4; ++i) {
            tu_run_check(g, keys[i], OMPDAG_BFS_CPU_TOPDOWN, NULL, ref, NULL);
            tu_run_check(g, keys[i], OMPDAG_BFS_GPU, NULL, r, ref);
        }
        ompdag_bfs_result_destroy(ref);
        ompdag_bfs_result_destroy(r);
        ompdag_graph_destroy(g);
        return;
    }
    cr_assert_gt(strlen(why), 10);
    ompdag_graph *g = tu_path(4);
    ompdag_bfs_result *r;
    ompdag_bfs_result_create(&r, NULL);
    ompdag_error err = {0};
    cr_assert_eq(ompdag_bfs_run(g, 0, OMPDAG_BFS_GPU, NULL, r, &err), OMPDAG_ERR_UNSUPPORTED);
    cr_assert_not_null(strstr(err.message, "engine gpu cannot run here"), "%s", err.message);
    ompdag_bfs_result_destroy(r);
    ompdag_graph_destroy(g);
}

Test(engines, teps_summary_and_sources)
{
    double t[] = {4, 1, 2, 4};
    ompdag_bfs_teps_summary s;
    cr_assert_eq(ompdag_bfs_teps_summarize(t, 4, &s, NULL), OMPDAG_OK);
    cr_assert_float_eq(s.min, 1, 1e-12);
    cr_assert_float_eq(s.max, 4, 1e-12);
    cr_assert_float_eq(s.median, 3, 1e-12);
    cr_assert_float_eq(s.first_quartile, 1.75, 1e-12);
    cr_assert_float_eq(s.harmonic_mean, 4.0 / (0.25 + 1 + 0.5 + 0.25), 1e-12);
    cr_assert_eq(ompdag_bfs_teps_summarize(t, 0, &s, NULL), OMPDAG_ERR_ARGUMENT);
    ompdag_graph *g = tu_kron(10, 1);
    int64_t keys[64];
    cr_assert_eq(ompdag_bfs_pick_sources(g, 64, 42, keys), 64);
    for (int i = 0; i < 64; ++i) {
        cr_assert_gt(ompdag_graph_degree(g, keys[i]), 0);
        for (int j = 0; j < i; ++j)
            cr_assert_neq(keys[i], keys[j]);
    }
    ompdag_graph_destroy(g);
}

Test(engines, wide_ids_path)
{
    /* the int64-id layout graphs above 2^31 vertices use, forced on a small graph */
    ompdag_graph *k = tu_kron(11, 6);
    int64_t n = ompdag_graph_vertices(k), m = 0;
    int64_t *s = malloc((size_t)ompdag_graph_arcs(k) * sizeof *s);
    int64_t *d = malloc((size_t)ompdag_graph_arcs(k) * sizeof *d);
    for (int64_t v = 0; v < n; ++v)
        for (int64_t i = 0; i < ompdag_graph_degree(k, v); ++i) {
            s[m] = v;
            d[m++] = ompdag_graph_neighbor(k, v, i);
        }
    ompdag_graph *g = tu_graph(n, m, s, d, OMPDAG_GRAPH_WIDE_IDS);
    free(s);
    free(d);
    cr_assert_eq(ompdag_graph_id_bytes(g), 8);
    cr_assert(ompdag_graph_is_symmetric(g));
    int64_t keys[2];
    ompdag_bfs_pick_sources(g, 2, 4, keys);
    check_all_engines(g, keys[0]);
    check_all_engines(g, keys[1]);
    char path[640];
    snprintf(path, sizeof path, "%s", test_tmp("wide.csr"));
    ompdag_error err = {0};
    cr_assert_eq(ompdag_graph_write(g, path, OMPDAG_GRAPH_FORMAT_AUTO, &err), OMPDAG_OK, "%s",
                 err.message);
    ompdag_graph *h = NULL;
    cr_assert_eq(ompdag_graph_read(path, OMPDAG_GRAPH_FORMAT_AUTO, 0, &h, &err), OMPDAG_OK, "%s",
                 err.message);
    unlink(path);
    cr_assert_eq(ompdag_graph_id_bytes(h), 8);
    cr_assert_eq(ompdag_graph_arcs(h), ompdag_graph_arcs(k));
    for (int64_t v = 0; v < n; ++v)
        for (int64_t i = 0; i < ompdag_graph_degree(k, v); ++i)
            cr_assert_eq(ompdag_graph_neighbor(h, v, i), ompdag_graph_neighbor(k, v, i));
    ompdag_graph_destroy(h);
    ompdag_graph_destroy(g);
    ompdag_graph_destroy(k);
}
