/* The device-driven level loop (ent_loop.h) as gpu-sim runs it: valid and
 * equal to the serial reference under every switch, and the launch / host
 * synchronisation / grid-barrier counts of the design — one launch and one
 * host synchronisation per search, none per level — against the host loop,
 * which pays one of each per phase. */
#include "bfs_test_util.h"

static void loop_opts(ompdag_bfs_options *o, ompdag_bfs_loop loop)
{
    ompdag_bfs_options_init(o);
    o->loop = loop;
}

Test(gpu_loop, device_loop_counts)
{
    ompdag_graph *g = tu_kron(12, 3);
    int64_t keys[4];
    int nk = ompdag_bfs_pick_sources(g, 4, 9, keys);
    ompdag_bfs_result *ref, *d, *h;
    ompdag_bfs_result_create(&ref, NULL);
    ompdag_bfs_result_create(&d, NULL);
    ompdag_bfs_result_create(&h, NULL);
    ompdag_bfs_options od, oh;
    loop_opts(&od, OMPDAG_BFS_LOOP_DEVICE);
    loop_opts(&oh, OMPDAG_BFS_LOOP_HOST);
    od.bitmap = oh.bitmap = true; /* with the CONVERT phase at the switch */
    for (int s = 0; s < nk; ++s) {
        tu_run_check(g, keys[s], OMPDAG_BFS_CPU_TOPDOWN, NULL, ref, NULL);
        tu_run_check(g, keys[s], OMPDAG_BFS_GPU_SIM, &od, d, ref);
        tu_run_check(g, keys[s], OMPDAG_BFS_GPU_SIM, &oh, h, ref);
        /* device loop: one launch, one host sync per search, none per level */
        cr_assert_eq(ompdag_bfs_result_launches(d), 1);
        cr_assert_eq(ompdag_bfs_result_host_syncs(d), 1);
        const int L = ompdag_bfs_result_level_count(d);
        cr_assert_eq(L, ompdag_bfs_result_level_count(h));
        int64_t barriers = 2; /* INIT, and the last level that found nothing */
        int bottom_up = 0;
        for (int i = 1; i < L; ++i) {
            const ompdag_bfs_level *a = ompdag_bfs_result_level(d, i),
                                   *b = ompdag_bfs_result_level(h, i);
            cr_assert_eq(a->launches, 0, "level %d", i);
            cr_assert_eq(a->host_syncs, 0, "level %d", i);
            const int64_t phases = a->workflow == OMPDAG_BFS_WORKFLOW_CONVERT ? 2 : 1;
            cr_assert_eq(a->barriers, phases, "level %d", i);
            barriers += phases;
            /* the host loop: one launch and one host sync per phase, same decisions */
            cr_assert_eq(b->launches, phases, "level %d", i);
            cr_assert_eq(b->host_syncs, phases, "level %d", i);
            cr_assert_eq(b->barriers, 0);
            cr_assert_eq(a->direction, b->direction);
            cr_assert_eq(a->visited, b->visited);
            bottom_up += a->direction == OMPDAG_BFS_BOTTOM_UP;
        }
        cr_assert_gt(bottom_up, 0, "a Kronecker search never went bottom-up");
        cr_assert_eq(ompdag_bfs_result_barriers(d), barriers);
        cr_assert_eq(ompdag_bfs_result_launches(h), barriers);
        cr_assert_eq(ompdag_bfs_result_host_syncs(h), barriers);
        cr_assert_gt(ompdag_bfs_result_host_syncs(h), L,
                     "the host loop syncs at least once per level");
    }
    ompdag_bfs_result_destroy(ref);
    ompdag_bfs_result_destroy(d);
    ompdag_bfs_result_destroy(h);
    ompdag_graph_destroy(g);
}

/* Every technique switchable: bitmap, degree classes, hub cache, switch rule. */
Test(gpu_loop, every_switch_is_valid, .timeout = 120)
{
    ompdag_graph *gs[2] = {tu_kron(11, 21), tu_uniform(11, 22)};
    ompdag_bfs_result *ref, *r;
    ompdag_bfs_result_create(&ref, NULL);
    ompdag_bfs_result_create(&r, NULL);
    for (int k = 0; k < 2; ++k) {
        int64_t keys[3];
        int nk = ompdag_bfs_pick_sources(gs[k], 3, 4, keys);
        for (int s = 0; s < nk; ++s) {
            tu_run_check(gs[k], keys[s], OMPDAG_BFS_CPU_TOPDOWN, NULL, ref, NULL);
            for (int mask = 0; mask < 16; ++mask)
                for (int rule = 0; rule < 3; ++rule) {
                    ompdag_bfs_options o;
                    loop_opts(&o, (mask & 8) ? OMPDAG_BFS_LOOP_HOST : OMPDAG_BFS_LOOP_DEVICE);
                    o.bitmap = mask & 1;
                    o.balance = (mask & 2) != 0;
                    o.hub_cache = (mask & 4) != 0;
                    o.direction = (ompdag_bfs_switch)rule;
                    o.tau = 16; /* hubs on these small graphs */
                    tu_run_check(gs[k], keys[s], OMPDAG_BFS_GPU_SIM, &o, r, ref);
                    if (rule == OMPDAG_BFS_SWITCH_NONE)
                        for (int i = 1; i < ompdag_bfs_result_level_count(r); ++i)
                            cr_assert_eq(ompdag_bfs_result_level(r, i)->direction,
                                         OMPDAG_BFS_TOP_DOWN);
                }
        }
        ompdag_graph_destroy(gs[k]);
    }
    ompdag_bfs_result_destroy(ref);
    ompdag_bfs_result_destroy(r);
}

/* The γ decisions of the device loop, recounted from the levels. */
Test(gpu_loop, gamma_decisions_on_the_device)
{
    ompdag_graph *g = tu_kron(13, 5);
    const int64_t n = ompdag_graph_vertices(g);
    ompdag_bfs_options o;
    loop_opts(&o, OMPDAG_BFS_LOOP_DEVICE);
    o.bitmap = true;
    int64_t Th = 0;
    for (int64_t v = 0; v < n; ++v)
        Th += ompdag_graph_degree(g, v) > o.tau;
    int64_t keys[3];
    ompdag_bfs_pick_sources(g, 3, 8, keys);
    ompdag_bfs_result *r;
    ompdag_bfs_result_create(&r, NULL);
    for (int s = 0; s < 3; ++s) {
        tu_run_check(g, keys[s], OMPDAG_BFS_GPU_SIM, &o, r, NULL);
        const int L = ompdag_bfs_result_level_count(r);
        for (int i = 1; i + 1 < L; ++i) {
            const ompdag_bfs_level *a = ompdag_bfs_result_level(r, i),
                                   *b = ompdag_bfs_result_level(r, i + 1);
            cr_assert_float_eq(a->gamma, (double)a->hubs / (double)Th, 1e-12);
            if (a->direction == OMPDAG_BFS_TOP_DOWN) {
                const bool sw = (double)a->hubs > o.gamma * (double)Th;
                cr_assert_eq(b->direction == OMPDAG_BFS_BOTTOM_UP, sw, "level %d", i);
                cr_assert_eq(a->workflow == OMPDAG_BFS_WORKFLOW_CONVERT, sw, "level %d", i);
            } else {
                const ompdag_bfs_level *p = ompdag_bfs_result_level(r, i - 1);
                const bool back =
                    a->visited < p->visited && (double)a->visited < (double)n / o.beta;
                cr_assert_eq(b->direction == OMPDAG_BFS_TOP_DOWN, back, "level %d", i);
            }
        }
    }
    ompdag_bfs_result_destroy(r);
    ompdag_graph_destroy(g);
}

/* A long path: one launch for 2000 levels (2001 grid barriers), and the
 * directed graph stays top-down. */
Test(gpu_loop, long_path_one_launch)
{
    ompdag_graph *g = tu_path(2000);
    ompdag_bfs_result *r;
    ompdag_bfs_result_create(&r, NULL);
    tu_run_check(g, 0, OMPDAG_BFS_GPU_SIM, NULL, r, NULL);
    cr_assert_eq(ompdag_bfs_result_level_count(r), 2000);
    cr_assert_eq(ompdag_bfs_result_launches(r), 1);
    cr_assert_eq(ompdag_bfs_result_host_syncs(r), 1);
    cr_assert_eq(ompdag_bfs_result_barriers(r), 2001);
    ompdag_bfs_result_destroy(r);
    ompdag_graph_destroy(g);
}

Test(gpu_loop, option_errors)
{
    ompdag_graph *g = tu_kron(6, 1);
    ompdag_bfs_result *r;
    ompdag_bfs_result_create(&r, NULL);
    ompdag_bfs_options o;
    loop_opts(&o, OMPDAG_BFS_LOOP_DEVICE);
    o.devices = 2;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_bfs_run(g, 0, OMPDAG_BFS_GPU_SIM, &o, r, &err), OMPDAG_ERR_ARGUMENT);
    cr_assert_not_null(strstr(err.message, "one device"));
    loop_opts(&o, OMPDAG_BFS_LOOP_ENTERPRISE);
    o.direction = OMPDAG_BFS_SWITCH_ALPHA;
    cr_assert_eq(ompdag_bfs_run(g, 0, OMPDAG_BFS_GPU_SIM, &o, r, &err), OMPDAG_ERR_ARGUMENT);
    ompdag_bfs_loop l;
    cr_assert_eq(ompdag_bfs_loop_parse("device", &l, NULL), OMPDAG_OK);
    cr_assert_eq(l, OMPDAG_BFS_LOOP_DEVICE);
    cr_assert_eq(ompdag_bfs_loop_parse("sideways", &l, &err), OMPDAG_ERR_ARGUMENT);
    ompdag_bfs_switch sw;
    cr_assert_eq(ompdag_bfs_switch_parse("alpha", &sw, NULL), OMPDAG_OK);
    cr_assert_eq(sw, OMPDAG_BFS_SWITCH_ALPHA);
    cr_assert_eq(ompdag_bfs_switch_parse("x", &sw, &err), OMPDAG_ERR_ARGUMENT);
    ompdag_bfs_result_destroy(r);
    ompdag_graph_destroy(g);
}

/* The Enterprise loop through ent_driver.c, on 1 and 2 simulated devices:
 * the per-level launches and host synchronisations of bfs_gpu.cu's design,
 * written out here as numbers (not recomputed by the driver's functions).
 * One device: a top-down level is frontier edges (2 launches, 1 sync), the
 * expansion (one launch per non-empty class, 1 sync) and a generation
 * (4 launches, 1 sync); the switch level regenerates contiguous (4, 1, and
 * one launch more that clears the hub cache when it is on); a bottom-up
 * level is the expansion and a shrinking generation (4 + hub cache, 1), and
 * the level that switches back regenerates interleaved (4, 1).  Two devices add the exchange
 * (4 launches, 6 syncs) and double the rest.  The search adds one init
 * launch per device and a gather of 1 + D syncs. */
Test(gpu_loop, enterprise_driver_counts_the_gpu_design)
{
    ompdag_graph *g = tu_kron(12, 5);
    int64_t keys[3];
    int nk = ompdag_bfs_pick_sources(g, 3, 4, keys);
    ompdag_bfs_result *ref, *r;
    ompdag_bfs_result_create(&ref, NULL);
    ompdag_bfs_result_create(&r, NULL);
    for (int D = 1; D <= 2; ++D)
        for (int s = 0; s < 2 * nk; ++s) {
            ompdag_bfs_options o;
            loop_opts(&o, OMPDAG_BFS_LOOP_ENTERPRISE);
            o.devices = D;
            o.hub_cache = s >= nk; /* each key with the hub cache off, then on */
            const int64_t hc = o.hub_cache;
            tu_run_check(g, keys[s % nk], OMPDAG_BFS_CPU_TOPDOWN, NULL, ref, NULL);
            tu_run_check(g, keys[s % nk], OMPDAG_BFS_GPU_SIM, &o, r, ref);
            const int L = ompdag_bfs_result_level_count(r);
            int64_t launches = 0, syncs = 0, bu = 0;
            for (int i = 1; i < L; ++i) {
                const ompdag_bfs_level *lv = ompdag_bfs_result_level(r, i);
                int64_t classes = 0;
                for (int c = 0; c < 4; ++c)
                    classes += lv->queue[c] > 0;
                const int64_t ex_l = D == 2 ? 4 : 0, ex_s = D == 2 ? 6 : 0;
                int64_t want_l, want_s;
                if (lv->direction == OMPDAG_BFS_TOP_DOWN) {
                    const int sw = lv->workflow == OMPDAG_BFS_WORKFLOW_CONTIGUOUS;
                    want_l = D * (2 + 4 + (4 + hc) * sw) + classes + ex_l;
                    want_s = D * (1 + 1 + 1 + sw) + ex_s;
                } else {
                    const int back = lv->workflow == OMPDAG_BFS_WORKFLOW_INTERLEAVED;
                    want_l = D * (4 + hc + 4 * back) + classes + ex_l;
                    want_s = D * (1 + 1 + back) + ex_s;
                    ++bu;
                }
                /* a class queue can be non-empty on both devices: one launch on each */
                cr_assert(lv->launches >= want_l && lv->launches <= want_l + (D - 1) * classes,
                          "D=%d level %d: %lld launches, design %lld", D, i,
                          (long long)lv->launches, (long long)want_l);
                cr_assert_eq(lv->host_syncs, want_s, "D=%d level %d: %lld syncs, design %lld", D, i,
                             (long long)lv->host_syncs, (long long)want_s);
                launches += lv->launches;
                syncs += lv->host_syncs;
            }
            cr_assert_gt(bu, 0, "the search went bottom-up");
            /* the search: init, the recorded levels, the last (empty) level, the gather */
            cr_assert_gt(ompdag_bfs_result_launches(r), launches + D);
            cr_assert_gt(ompdag_bfs_result_host_syncs(r), syncs + 1 + D);
            cr_assert_geq(ompdag_bfs_result_host_syncs(r), 2 * L, "host-driven: syncs per level");
        }
    ompdag_bfs_result_destroy(ref);
    ompdag_bfs_result_destroy(r);
    ompdag_graph_destroy(g);
}
