/*
 * test_kernels.c — real regions give results bit-identical to the serial
 * loop under every policy, on CPU threads only (gpu_body NULL) and with a
 * CPU-speed group of simulated GPUs: vector ops, n-body, hotspot, k-means
 * and BFS as a region (one region per level).
 */
#include "kernels.h"
#include "offload_test_util.h"

typedef struct config {
    int cpu, sims;
    double speed;
} config;

static const config configs[] = {{2, 0, 1}, {1, 2, 1.0}, {2, 1, 3.0}};
#define NCONFIGS (int)(sizeof configs / sizeof *configs)

static void run_region(int64_t n, ompdag_offload_cpu_fn body, void *ctx, int policy, int cfg)
{
    ompdag_offload_opts o;
    ompdag_offload_opts_init(&o);
    o.policy = (ompdag_offload_policy)policy;
    o.cpu_threads = configs[cfg].cpu;
    o.sim_gpus = configs[cfg].sims;
    o.sim_speed = configs[cfg].speed;
    o.gpu_quantum = 16;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_offload_for(n, body, NULL, ctx, &o, NULL, &err), OMPDAG_OK, "%s",
                 err.message);
}

Test(kernels, saxpy_is_bit_identical)
{
    int64_t n = 100003;
    float *x = malloc(n * sizeof *x), *y0 = malloc(n * sizeof *y0);
    float *ref = malloc(n * sizeof *ref), *y = malloc(n * sizeof *y);
    kern_fill(x, n, 1, -1, 1);
    kern_fill(y0, n, 2, -1, 1);
    kern_saxpy k = {n, 2.5f, x, y0, ref};
    kern_saxpy_body(0, n, &k);
    k.y = y;
    for (int p = 0; p < OMPDAG_OFFLOAD_POLICY_COUNT; ++p)
        for (int c = 0; c < NCONFIGS; ++c) {
            memset(y, 0, n * sizeof *y);
            run_region(n, kern_saxpy_body, &k, p, c);
            cr_assert_eq(memcmp(y, ref, n * sizeof *y), 0, "saxpy policy %d config %d", p, c);
        }
    free(x), free(y0), free(ref), free(y);
}

Test(kernels, nbody_is_bit_identical)
{
    int64_t n = 700;
    float *pos = malloc(4 * n * sizeof *pos), *ref = malloc(3 * n * sizeof *ref),
          *acc = malloc(3 * n * sizeof *acc);
    kern_fill(pos, 4 * n, 3, 0.1f, 1);
    kern_nbody k = {n, pos, ref};
    kern_nbody_body(0, n, &k);
    k.acc = acc;
    for (int p = 0; p < OMPDAG_OFFLOAD_POLICY_COUNT; ++p)
        for (int c = 0; c < NCONFIGS; ++c) {
            memset(acc, 0xff, 3 * n * sizeof *acc);
            run_region(n, kern_nbody_body, &k, p, c);
            cr_assert_eq(memcmp(acc, ref, 3 * n * sizeof *acc), 0, "nbody policy %d config %d",
                         p, c);
        }
    free(pos), free(ref), free(acc);
}

Test(kernels, hotspot_is_bit_identical)
{
    int64_t rows = 97, cols = 131, n = rows * cols;
    float *temp = malloc(n * sizeof *temp), *power = malloc(n * sizeof *power);
    float *ref = malloc(n * sizeof *ref), *out = malloc(n * sizeof *out);
    kern_fill(temp, n, 4, 320, 340);
    kern_fill(power, n, 5, 0, 0.5f);
    kern_hotspot k = {rows, cols, temp, power, ref};
    kern_hotspot_body(0, n, &k);
    k.out = out;
    for (int p = 0; p < OMPDAG_OFFLOAD_POLICY_COUNT; ++p)
        for (int c = 0; c < NCONFIGS; ++c) {
            memset(out, 0, n * sizeof *out);
            run_region(n, kern_hotspot_body, &k, p, c);
            cr_assert_eq(memcmp(out, ref, n * sizeof *out), 0, "hotspot policy %d config %d", p,
                         c);
        }
    free(temp), free(power), free(ref), free(out);
}

Test(kernels, kmeans_is_bit_identical)
{
    int64_t n = 20011;
    int K = 7, D = 5;
    float *pts = malloc(n * D * sizeof *pts), *cen = malloc(K * D * sizeof *cen);
    int32_t *ref = malloc(n * sizeof *ref), *mem = malloc(n * sizeof *mem);
    kern_fill(pts, n * D, 6, 0, 10);
    kern_fill(cen, K * D, 7, 0, 10);
    kern_kmeans k = {n, K, D, pts, cen, ref};
    kern_kmeans_body(0, n, &k);
    k.member = mem;
    for (int p = 0; p < OMPDAG_OFFLOAD_POLICY_COUNT; ++p)
        for (int c = 0; c < NCONFIGS; ++c) {
            memset(mem, 0xff, n * sizeof *mem);
            run_region(n, kern_kmeans_body, &k, p, c);
            cr_assert_eq(memcmp(mem, ref, n * sizeof *mem), 0, "kmeans policy %d config %d", p,
                         c);
        }
    free(pts), free(cen), free(ref), free(mem);
}

/* Level-synchronous BFS from vertex 0; each level is one region (or a
 * serial loop when policy < 0). */
static int32_t *bfs_levels(int64_t n, const int64_t *off, const int64_t *adj, int policy, int cfg)
{
    int32_t *cur = malloc(n * sizeof *cur), *next = malloc(n * sizeof *next);
    for (int64_t v = 0; v < n; ++v)
        cur[v] = -1;
    cur[0] = 0;
    for (int32_t level = 0;; ++level) {
        memcpy(next, cur, n * sizeof *cur);
        kern_bfs k = {n, off, adj, cur, next, level};
        if (policy < 0)
            kern_bfs_body(0, n, &k);
        else
            run_region(n, kern_bfs_body, &k, policy, cfg);
        bool changed = memcmp(cur, next, n * sizeof *cur) != 0;
        int32_t *t = cur;
        cur = next;
        next = t;
        if (!changed)
            break;
    }
    free(next);
    return cur;
}

Test(kernels, bfs_as_a_region_is_bit_identical)
{
    int64_t n = 5000, *off = NULL, *adj = NULL;
    cr_assert_eq(kern_graph(n, 3, 8, &off, &adj), 0);
    int32_t *ref = bfs_levels(n, off, adj, -1, 0);
    int reached = 0, maxlevel = 0;
    for (int64_t v = 0; v < n; ++v) {
        reached += ref[v] >= 0;
        if (ref[v] > maxlevel)
            maxlevel = ref[v];
    }
    cr_assert_gt(reached, n / 2);
    cr_assert_gt(maxlevel, 3);
    for (int p = 0; p < OMPDAG_OFFLOAD_POLICY_COUNT; ++p)
        for (int c = 0; c < NCONFIGS; ++c) {
            int32_t *lv = bfs_levels(n, off, adj, p, c);
            cr_assert_eq(memcmp(lv, ref, n * sizeof *lv), 0, "bfs policy %d config %d", p, c);
            free(lv);
        }
    free(ref), free(off), free(adj);
}
