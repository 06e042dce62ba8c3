/* tests/condag_gpu/test_condag_gpu.c — level-synchronous batch evaluation:
 * gpu-sim (the GPU kernel's per-thread code run on the CPU) must equal the
 * exact algorithm on thousands of random graphs, batched; the gpu device
 * either agrees too or says clearly why it cannot run. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/compact.h"
#include "ompdag/condag_gpu.h"
#include "ompdag/gen.h"
#include "ompdag/rta.h"

#define GRAPHS 3000
#define BATCH 250

static ompdag_condag *random_graph(ompdag_rng *r, uint64_t seed)
{
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    p.seed = seed;
    p.tasks = (int32_t)ompdag_rng_range(r, 1, 12);
    p.nodes_min = 1;
    p.nodes_max = (int32_t)ompdag_rng_range(r, 1, 30);
    p.p_if = 0.5 * ompdag_rng_unit(r);
    p.p_cre = 0.5 * ompdag_rng_unit(r);
    p.p_wait = 0.5 * ompdag_rng_unit(r);
    p.wcet_min = 0;
    p.wcet_max = ompdag_rng_range(r, 1, 1000);
    ompdag_condag *g;
    ompdag_error err;
    cr_assert_eq(ompdag_gen_random(&p, &g, &err), OMPDAG_OK, "%s", err.message);
    return g;
}

static int64_t exact_of(const ompdag_condag *g, int32_t m)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    ompdag_rta_result *r;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, NULL), OMPDAG_OK);
    int64_t b = ompdag_rta_result_bound_times_m(r);
    ompdag_rta_result_destroy(r);
    return b;
}

Test(condag_gpu, gpu_sim_equals_exact_on_random_batches, .timeout = 120)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 404);
    const int32_t ms[] = {1, 2, 4, 16};
    ompdag_condag *batch[BATCH];
    int64_t sim[BATCH], cpu[BATCH], par[BATCH], pg[BATCH];
    long compared = 0;
    for (int first = 0; first < GRAPHS; first += BATCH) {
        for (int i = 0; i < BATCH; ++i)
            batch[i] = random_graph(&r, (uint64_t)(first + i));
        for (size_t k = 0; k < sizeof ms / sizeof ms[0]; ++k) {
            ompdag_error err;
            cr_assert_eq(ompdag_exact_batch((const ompdag_condag *const *)batch, BATCH, ms[k],
                                            OMPDAG_EVAL_GPU_SIM, sim, &err),
                         OMPDAG_OK, "%s", err.message);
            cr_assert_eq(ompdag_exact_batch((const ompdag_condag *const *)batch, BATCH, ms[k],
                                            OMPDAG_EVAL_CPU, cpu, &err),
                         OMPDAG_OK, "%s", err.message);
            cr_assert_eq(ompdag_exact_batch((const ompdag_condag *const *)batch, BATCH, ms[k],
                                            OMPDAG_EVAL_CPU_PAR, par, &err),
                         OMPDAG_OK, "%s", err.message);
            cr_assert_eq(ompdag_exact_batch((const ompdag_condag *const *)batch, BATCH, ms[k],
                                            OMPDAG_EVAL_GPU_SIM_GRAPHS, pg, &err),
                         OMPDAG_OK, "%s", err.message);
            for (int i = 0; i < BATCH; ++i, ++compared) {
                cr_assert_eq(par[i], cpu[i], "graph %d, m=%d: cpu-par %lld, cpu %lld", first + i,
                             ms[k], (long long)par[i], (long long)cpu[i]);
                cr_assert_eq(sim[i], cpu[i], "graph %d, m=%d: gpu-sim %lld, cpu %lld", first + i,
                             ms[k], (long long)sim[i], (long long)cpu[i]);
                cr_assert_eq(pg[i], cpu[i], "graph %d, m=%d: gpu-sim-graphs %lld, cpu %lld",
                             first + i, ms[k], (long long)pg[i], (long long)cpu[i]);
                cr_assert_eq(cpu[i], exact_of(batch[i], ms[k]));
            }
        }
        for (int i = 0; i < BATCH; ++i)
            ompdag_condag_destroy(batch[i]);
    }
    cr_expect_eq(compared, (long)GRAPHS * 4);
}

Test(condag_gpu, gpu_device_agrees_or_says_why)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 5);
    ompdag_condag *g[3] = {random_graph(&r, 1), random_graph(&r, 2), random_graph(&r, 3)};
    int64_t out[3];
    ompdag_error err = {0};
    ompdag_status st =
        ompdag_exact_batch((const ompdag_condag *const *)g, 3, 4, OMPDAG_EVAL_GPU, out, &err);
    if (st == OMPDAG_OK) {
        for (int i = 0; i < 3; ++i)
            cr_expect_eq(out[i], exact_of(g[i], 4));
    } else {
        cr_expect_eq(st, OMPDAG_ERR_UNSUPPORTED);
        cr_expect(strstr(err.message, "device gpu") && strstr(err.message, "gpu-sim"), "%s",
                  err.message);
    }
    for (int i = 0; i < 3; ++i)
        ompdag_condag_destroy(g[i]);
}

/* The GPU design as gpu-sim counts it: one packed upload of exactly the
 * documented sections, one launch per GLOBAL height level (the deepest
 * graph's, not one per graph) plus one gather, one host synchronisation,
 * and a download of 8 bytes a graph. */
Test(condag_gpu, gpu_sim_counts_the_batch_design)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 77);
    ompdag_condag *batch[BATCH];
    int64_t out[BATCH], nodes = 0, edges = 0, deepest = 0;
    for (int i = 0; i < BATCH; ++i) {
        batch[i] = random_graph(&r, (uint64_t)(9000 + i));
        nodes += ompdag_condag_node_count(batch[i]);
        for (int32_t v = 0; v < ompdag_condag_node_count(batch[i]); ++v) {
            int32_t k;
            ompdag_condag_node_fsucc(batch[i], v, &k);
            edges += k;
        }
        ompdag_batch_stats one;
        const ompdag_condag *single[1] = {batch[i]};
        cr_assert_eq(ompdag_exact_batch_stats(single, 1, 4, OMPDAG_EVAL_GPU_SIM, out, &one, NULL),
                     OMPDAG_OK);
        cr_expect_eq(one.launches, one.levels + 1);
        deepest = one.levels > deepest ? one.levels : deepest;
    }
    ompdag_batch_stats s;
    ompdag_error err;
    cr_assert_eq(ompdag_exact_batch_stats((const ompdag_condag *const *)batch, BATCH, 4,
                                          OMPDAG_EVAL_GPU_SIM, out, &s, &err),
                 OMPDAG_OK, "%s", err.message);
    cr_expect_eq(s.levels, deepest, "global levels %lld, deepest graph %lld", (long long)s.levels,
                 (long long)deepest);
    cr_expect_eq(s.launches, deepest + 1);
    cr_expect_lt(s.launches, BATCH, "launches follow depth, not the graph count");
    cr_expect_eq(s.uploads, 1);
    cr_expect_eq(s.host_syncs, 1);
    cr_expect_eq(s.nodes, nodes);
    cr_expect_eq(s.edges, edges);
    cr_expect_eq(s.bytes_up, 21 * nodes + 4 + 4 * edges + 4 * BATCH);
    cr_expect_eq(s.bytes_down, 8 * BATCH);
    cr_expect_gt(s.prepare_seconds, 0.0);
    cr_expect_geq(s.total_seconds, s.prepare_seconds);
    /* The CPU baselines move nothing and launch nothing. */
    ompdag_batch_stats c;
    cr_assert_eq(ompdag_exact_batch_stats((const ompdag_condag *const *)batch, BATCH, 4,
                                          OMPDAG_EVAL_CPU_PAR, out, &c, NULL),
                 OMPDAG_OK);
    cr_expect_eq(c.launches + c.uploads + c.host_syncs + c.bytes_up, 0);
    /* A GPU, where there is one, does what gpu-sim counted. */
    ompdag_batch_stats g;
    int64_t gout[BATCH], sout[BATCH];
    cr_assert_eq(ompdag_exact_batch((const ompdag_condag *const *)batch, BATCH, 4,
                                    OMPDAG_EVAL_GPU_SIM, sout, NULL),
                 OMPDAG_OK);
    if (ompdag_exact_batch_stats((const ompdag_condag *const *)batch, BATCH, 4, OMPDAG_EVAL_GPU,
                                 gout, &g, NULL) == OMPDAG_OK) {
        cr_expect_eq(g.launches, s.launches);
        cr_expect_eq(g.host_syncs, s.host_syncs);
        cr_expect_eq(g.uploads, s.uploads);
        cr_expect_eq(g.bytes_up, s.bytes_up);
        cr_expect_eq(g.bytes_down, s.bytes_down);
        for (int i = 0; i < BATCH; ++i)
            cr_expect_eq(gout[i], sout[i], "graph %d", i);
    }
    for (int i = 0; i < BATCH; ++i)
        ompdag_condag_destroy(batch[i]);
}

/* The per-graph design: each graph's own arrays in one packed upload of the
 * documented size, one launch, one host synchronisation. */
Test(condag_gpu, gpu_sim_graphs_counts_the_per_graph_design)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 78);
    ompdag_condag *batch[BATCH];
    int64_t out[BATCH], ref[BATCH], nodes = 0, edges = 0, tasks = 0;
    for (int i = 0; i < BATCH; ++i) {
        batch[i] = random_graph(&r, (uint64_t)(7000 + i));
        nodes += ompdag_condag_node_count(batch[i]);
        tasks += ompdag_condag_task_count(batch[i]);
        for (int32_t v = 0; v < ompdag_condag_node_count(batch[i]); ++v) {
            int32_t k;
            ompdag_condag_node_fsucc(batch[i], v, &k);
            edges += k;
        }
    }
    const ompdag_condag *const *b = (const ompdag_condag *const *)batch;
    ompdag_batch_stats s;
    ompdag_error err;
    cr_assert_eq(ompdag_exact_batch_stats(b, BATCH, 3, OMPDAG_EVAL_GPU_SIM_GRAPHS, out, &s, &err),
                 OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_exact_batch(b, BATCH, 3, OMPDAG_EVAL_CPU, ref, NULL), OMPDAG_OK);
    for (int i = 0; i < BATCH; ++i)
        cr_expect_eq(out[i], ref[i], "graph %d", i);
    cr_expect_eq(s.launches, 1);
    cr_expect_eq(s.uploads, 1);
    cr_expect_eq(s.host_syncs, 1);
    cr_expect_eq(s.nodes, nodes);
    cr_expect_eq(s.edges, edges);
    cr_expect_eq(s.bytes_up, 21 * nodes + 4 * edges + 4 * tasks + 20 * BATCH + 12);
    cr_expect_eq(s.bytes_down, 8 * BATCH);
    ompdag_eval_device d;
    cr_expect(ompdag_eval_device_parse("gpu-sim-graphs", &d) && d == OMPDAG_EVAL_GPU_SIM_GRAPHS);
    cr_expect(ompdag_eval_device_parse("gpu-graphs", &d) && d == OMPDAG_EVAL_GPU_GRAPHS);
    /* The CUDA path, where there is a device, counts and answers the same. */
    ompdag_batch_stats g;
    ompdag_error gerr = {0};
    ompdag_status st =
        ompdag_exact_batch_stats(b, BATCH, 3, OMPDAG_EVAL_GPU_GRAPHS, out, &g, &gerr);
    if (st == OMPDAG_OK) {
        cr_expect_eq(g.launches, 1);
        cr_expect_eq(g.host_syncs, 1);
        cr_expect_eq(g.bytes_up, s.bytes_up);
        for (int i = 0; i < BATCH; ++i)
            cr_expect_eq(out[i], ref[i], "graph %d on the GPU", i);
    } else {
        cr_expect_eq(st, OMPDAG_ERR_UNSUPPORTED);
        cr_expect(strstr(gerr.message, "gpu") != NULL, "%s", gerr.message);
    }
    for (int i = 0; i < BATCH; ++i)
        ompdag_condag_destroy(batch[i]);
}

Test(condag_gpu, errors_name_the_graph)
{
    ompdag_condag *g = ompdag_condag_create();
    ompdag_node_spec s = {.id = "a", .task = "t", .kind = OMPDAG_KIND_N, .wcet = INT64_MAX / 3};
    cr_assert_eq(ompdag_condag_add_node(g, &s, NULL, NULL), OMPDAG_OK);
    cr_assert_eq(ompdag_condag_finalize(g, NULL), OMPDAG_OK);
    const ompdag_condag *one[1] = {g};
    int64_t out[1];
    ompdag_error err;
    cr_expect_eq(ompdag_exact_batch(one, 1, 8, OMPDAG_EVAL_GPU_SIM, out, &err),
                 OMPDAG_ERR_OVERFLOW);
    ompdag_error perr = {0};
    cr_expect_neq(ompdag_exact_batch(one, 1, 8, OMPDAG_EVAL_CPU_PAR, out, &perr), OMPDAG_OK);
    cr_expect(perr.message[0] != '\0', "cpu-par names its error");
    ompdag_eval_device d;
    cr_expect(ompdag_eval_device_parse("cpu-par", &d) && d == OMPDAG_EVAL_CPU_PAR);
    cr_expect(strstr(err.message, "graph 0") != NULL, "%s", err.message);
    /* Sized in parallel, the lowest failing graph is still the one named. */
    ompdag_rng r;
    ompdag_rng_seed(&r, 3);
    ompdag_condag *fine = random_graph(&r, 1);
    const ompdag_condag *mixed[200];
    for (int i = 0; i < 200; ++i)
        mixed[i] = i == 57 || i == 190 ? g : fine;
    int64_t many[200];
    cr_expect_eq(ompdag_exact_batch(mixed, 200, 8, OMPDAG_EVAL_GPU_SIM, many, &err),
                 OMPDAG_ERR_OVERFLOW);
    cr_expect(strstr(err.message, "graph 57") != NULL, "%s", err.message);
    cr_expect_eq(ompdag_exact_batch(mixed, 200, 8, OMPDAG_EVAL_GPU_SIM_GRAPHS, many, &err),
                 OMPDAG_ERR_OVERFLOW);
    cr_expect(strstr(err.message, "graph 57") != NULL, "%s", err.message);
    ompdag_condag_destroy(fine);
    cr_expect_eq(ompdag_exact_batch(one, 1, 0, OMPDAG_EVAL_GPU_SIM, out, &err),
                 OMPDAG_ERR_ARGUMENT);
    cr_expect_eq(ompdag_exact_batch(one, 0, 2, OMPDAG_EVAL_GPU_SIM, out, &err), OMPDAG_OK);
    ompdag_condag_destroy(g);
}

/* A compact graph (docs/compact.md) whose unfolding is 2^40 copies of one
 * node: the batch equals exact, and a total that only overflows unfolded is
 * refused rather than wrapped. */
static ompdag_condag *doubling_chain(int depth, int64_t wcet)
{
    ompdag_condag *g = ompdag_condag_create();
    cr_assert_eq(ompdag_compact_enable(g, NULL), OMPDAG_OK);
    for (int d = 0; d < depth; ++d) {
        char task[16], child[16], a[16], b[16];
        snprintf(task, sizeof task, "t%d", d), snprintf(child, sizeof child, "t%d", d + 1);
        snprintf(a, sizeof a, "a%d", d), snprintf(b, sizeof b, "b%d", d);
        bool leaf = d + 1 == depth;
        ompdag_node_spec s1 = {.id = a,
                               .task = task,
                               .kind = leaf ? OMPDAG_KIND_N : OMPDAG_KIND_T,
                               .wcet = wcet,
                               .creates = leaf ? NULL : child};
        ompdag_node_spec s2 = {
            .id = b, .task = task, .kind = OMPDAG_KIND_T, .wcet = wcet, .creates = child};
        int32_t x, y;
        cr_assert_eq(ompdag_condag_add_node(g, &s1, &x, NULL), OMPDAG_OK);
        if (!leaf) {
            cr_assert_eq(ompdag_condag_add_node(g, &s2, &y, NULL), OMPDAG_OK);
            cr_assert_eq(ompdag_condag_add_edge(g, x, y, NULL), OMPDAG_OK);
        }
    }
    cr_assert_eq(ompdag_condag_finalize(g, NULL), OMPDAG_OK);
    return g;
}

Test(condag_gpu, compact_graphs_use_the_unfolded_total)
{
    ompdag_condag *g = doubling_chain(41, 3);
    const ompdag_condag *one[1] = {g};
    int64_t out[1];
    ompdag_error err;
    cr_assert_eq(ompdag_exact_batch(one, 1, 4, OMPDAG_EVAL_GPU_SIM, out, &err), OMPDAG_OK, "%s",
                 err.message);
    cr_expect_eq(out[0], exact_of(g, 4));
    cr_assert_eq(ompdag_exact_batch(one, 1, 4, OMPDAG_EVAL_GPU_SIM_GRAPHS, out, &err), OMPDAG_OK,
                 "%s", err.message);
    cr_expect_eq(out[0], exact_of(g, 4));
    ompdag_condag_destroy(g);
    g = doubling_chain(63, 3);
    one[0] = g;
    cr_expect_eq(ompdag_exact_batch(one, 1, 4, OMPDAG_EVAL_CPU, out, &err), OMPDAG_ERR_OVERFLOW);
    cr_expect(strstr(err.message, "unfolded") != NULL, "%s", err.message);
    ompdag_condag_destroy(g);
}

/* Dispatch delays (docs/overheads.md): the level step has one weight per
 * node, so every device folds them (WCET + D): all devices agree, equal the
 * library's fold_delays figure, and are never below its chain-only one. */
Test(condag_gpu, delays_are_folded_on_every_device)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 505);
    enum { N = 200 };
    ompdag_condag *batch[N];
    int64_t sim[N], cpu[N], pg[N];
    for (int i = 0; i < N; ++i) {
        batch[i] = random_graph(&r, (uint64_t)(9000 + i));
        ompdag_error err;
        for (int32_t v = 0; v < ompdag_condag_node_count(batch[i]); ++v)
            if (ompdag_rng_unit(&r) < 0.5)
                cr_assert_eq(
                    ompdag_condag_assign_delay(batch[i], v, ompdag_rng_range(&r, 0, 500), &err),
                    OMPDAG_OK);
    }
    long below = 0;
    for (int32_t m = 1; m <= 4; m *= 2) {
        ompdag_error err;
        const ompdag_condag *const *b = (const ompdag_condag *const *)batch;
        cr_assert_eq(ompdag_exact_batch(b, N, m, OMPDAG_EVAL_GPU_SIM, sim, &err), OMPDAG_OK);
        cr_assert_eq(ompdag_exact_batch(b, N, m, OMPDAG_EVAL_CPU, cpu, &err), OMPDAG_OK);
        cr_assert_eq(ompdag_exact_batch(b, N, m, OMPDAG_EVAL_GPU_SIM_GRAPHS, pg, &err), OMPDAG_OK);
        for (int i = 0; i < N; ++i) {
            ompdag_rta_options opt;
            ompdag_rta_options_init(&opt, m);
            opt.fold_delays = true;
            ompdag_rta_result *res;
            cr_assert_eq(ompdag_rta_run(batch[i], OMPDAG_ALG_EXACT, &opt, &res, NULL), OMPDAG_OK);
            int64_t fold = ompdag_rta_result_bound_times_m(res);
            ompdag_rta_result_destroy(res);
            cr_assert_eq(sim[i], fold, "graph %d m %d: gpu-sim %lld, folded %lld", i, m,
                         (long long)sim[i], (long long)fold);
            cr_assert_eq(cpu[i], fold);
            cr_assert_eq(pg[i], fold);
            cr_assert_geq(fold, exact_of(batch[i], m));
            below += exact_of(batch[i], m) < fold;
        }
    }
    cr_assert_gt(below, 0, "the chain-only bound is never below the fold here");
    for (int i = 0; i < N; ++i)
        ompdag_condag_destroy(batch[i]);
}
