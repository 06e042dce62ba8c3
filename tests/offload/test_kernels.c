/*
 * test_kernels.c — real regions give results bit-identical to the serial
 * loop under every policy, on CPU threads only (gpu_body NULL) and with a
 * CPU-speed group of simulated GPUs: vector ops, n-body, hotspot, k-means
 * and BFS as a region (one region per level); the CPU bodies against
 * double-precision references; the CUDA bodies against the CPU bodies
 * where a device is present.
 */
#include <math.h>

#include "kernels.h"
#include "kernels_gpu.h"
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
            cr_assert_eq(memcmp(acc, ref, 3 * n * sizeof *acc), 0, "nbody policy %d config %d", p,
                         c);
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
            cr_assert_eq(memcmp(out, ref, n * sizeof *out), 0, "hotspot policy %d config %d", p, c);
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
            cr_assert_eq(memcmp(mem, ref, n * sizeof *mem), 0, "kmeans policy %d config %d", p, c);
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
        if (!changed) break;
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
        if (ref[v] > maxlevel) maxlevel = ref[v];
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

/* ---- the CPU bodies against independent double-precision references ---- */

Test(kernels, nbody_body_matches_a_double_reference)
{
    int64_t n = 300;
    float *pos = malloc(4 * n * sizeof *pos), *acc = malloc(3 * n * sizeof *acc);
    kern_fill(pos, 4 * n, 11, 0.1f, 1);
    kern_nbody k = {n, pos, acc};
    kern_nbody_body(0, n, &k);
    for (int64_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) {
            double sum = 0, mag = 0;
            for (int64_t j = 0; j < n; ++j) {
                double d[3];
                for (int x = 0; x < 3; ++x)
                    d[x] = (double)pos[4 * j + x] - (double)pos[4 * i + x];
                double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + 1e-3;
                double term = d[c] * pos[4 * j + 3] / (r2 * sqrt(r2));
                sum += term;
                mag += fabs(term);
            }
            cr_assert_leq(fabs(acc[3 * i + c] - sum), 1e-5 * mag + 1e-6,
                          "body %lld axis %d: %g, reference %g", (long long)i, c, acc[3 * i + c],
                          sum);
        }
    free(pos), free(acc);
}

Test(kernels, hotspot_body_matches_a_double_reference)
{
    int64_t rows = 41, cols = 37, n = rows * cols;
    float *temp = malloc(n * sizeof *temp), *power = malloc(n * sizeof *power),
          *out = malloc(n * sizeof *out);
    kern_fill(temp, n, 12, 320, 340);
    kern_fill(power, n, 13, 0, 0.5f);
    kern_hotspot k = {rows, cols, temp, power, out};
    kern_hotspot_body(0, n, &k);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
            int64_t i = r * cols + c;
            double t = temp[i];
            double N = r ? temp[i - cols] : t, S = r + 1 < rows ? temp[i + cols] : t;
            double W = c ? temp[i - 1] : t, E = c + 1 < cols ? temp[i + 1] : t;
            /* Rodinia: Cap 0.5, Rx = Ry = 0.15, Rz = 0.3, ambient 80, step 0.01 */
            double ref = t + (0.01 / 0.5) * (power[i] + (S + N - 2 * t) / 0.15 +
                                             (E + W - 2 * t) / 0.15 + (80 - t) / 0.3);
            cr_assert_leq(fabs(out[i] - ref), 1e-3, "cell (%lld,%lld): %g, reference %g",
                          (long long)r, (long long)c, out[i], ref);
        }
    free(temp), free(power), free(out);
}

Test(kernels, kmeans_body_matches_a_double_reference)
{
    int64_t n = 5000;
    int K = 9, D = 6;
    float *pts = malloc(n * D * sizeof *pts), *cen = malloc(K * D * sizeof *cen);
    int32_t *mem = malloc(n * sizeof *mem);
    kern_fill(pts, n * D, 14, 0, 10);
    kern_fill(cen, K * D, 15, 0, 10);
    kern_kmeans k = {n, K, D, pts, cen, mem};
    kern_kmeans_body(0, n, &k);
    int compared = 0;
    for (int64_t i = 0; i < n; ++i) {
        double best = INFINITY, second = INFINITY;
        int at = -1;
        for (int c = 0; c < K; ++c) {
            double d2 = 0;
            for (int j = 0; j < D; ++j) {
                double x = (double)pts[i * D + j] - (double)cen[c * D + j];
                d2 += x * x;
            }
            if (d2 < best)
                second = best, best = d2, at = c;
            else if (d2 < second)
                second = d2;
        }
        if (second - best > 1e-3 * second) { /* not a near-tie that float may order otherwise */
            cr_assert_eq(mem[i], at, "point %lld: %d, reference %d", (long long)i, mem[i], at);
            ++compared;
        }
    }
    cr_assert_gt(compared, n * 9 / 10);
    free(pts), free(cen), free(mem);
}

/* ---- the CUDA bodies (kernels_gpu.cu) give the CPU bodies' bits ----
 * Run only where a CUDA device is present; elsewhere kern_gpu_open must say
 * why, and the CPU bodies above stand checked. */

static void gpu_region_equals_cpu(kern_region *r, void *out, size_t bytes, int64_t n,
                                  const void *ref)
{
    char why[256] = "";
    r->gpu = kern_gpu_open(r->kind, r, 0, why, sizeof why);
    if (!r->gpu) {
        cr_expect(why[0] != '\0', "kern_gpu_open gives a reason");
        cr_log_info("no GPU here (%s): CUDA body of kernel %d not run", why, (int)r->kind);
        return;
    }
    for (int p = 0; p < OMPDAG_OFFLOAD_POLICY_COUNT; ++p) {
        memset(out, 0xff, bytes);
        ompdag_offload_opts o;
        ompdag_offload_opts_init(&o);
        o.policy = (ompdag_offload_policy)p;
        o.cpu_threads = 1;
        o.cuda_devices = 1;
        o.gpu_quantum = 64;
        ompdag_offload_report *rep = NULL;
        ompdag_error err = {0};
        cr_assert_eq(
            ompdag_offload_for(n, kern_cpu_body(r->kind), kern_gpu_body, r, &o, &rep, &err),
            OMPDAG_OK, "%s", err.message);
        ompdag_offload_report_destroy(rep);
        cr_expect_eq(memcmp(out, ref, bytes), 0, "kernel %d, policy %d: GPU bits differ",
                     (int)r->kind, p);
    }
    kern_gpu_close(r->gpu);
    r->gpu = NULL;
}

Test(kernels, cuda_bodies_give_the_cpu_bits_or_say_why)
{
    int64_t nb = 1024;
    float *pos = malloc(4 * nb * sizeof *pos), *acc = malloc(3 * nb * sizeof *acc),
          *aref = malloc(3 * nb * sizeof *aref);
    kern_fill(pos, 4 * nb, 21, 0.1f, 1);
    kern_region r = {.kind = KERN_GPU_NBODY};
    r.k.nbody = (kern_nbody){nb, pos, aref};
    kern_nbody_body(0, nb, &r.k.nbody);
    r.k.nbody.acc = acc;
    gpu_region_equals_cpu(&r, acc, 3 * nb * sizeof *acc, nb, aref);

    int64_t rows = 128, cols = 96, nh = rows * cols;
    float *temp = malloc(nh * sizeof *temp), *power = malloc(nh * sizeof *power),
          *hout = malloc(nh * sizeof *hout), *href = malloc(nh * sizeof *href);
    kern_fill(temp, nh, 22, 320, 340);
    kern_fill(power, nh, 23, 0, 0.5f);
    r = (kern_region){.kind = KERN_GPU_HOTSPOT};
    r.k.hotspot = (kern_hotspot){rows, cols, temp, power, href};
    kern_hotspot_body(0, nh, &r.k.hotspot);
    r.k.hotspot.out = hout;
    gpu_region_equals_cpu(&r, hout, nh * sizeof *hout, nh, href);

    int64_t nk = 30000;
    int K = 16, D = 8;
    float *pts = malloc(nk * D * sizeof *pts), *cen = malloc(K * D * sizeof *cen);
    int32_t *mem = malloc(nk * sizeof *mem), *mref = malloc(nk * sizeof *mref);
    kern_fill(pts, nk * D, 24, 0, 10);
    kern_fill(cen, K * D, 25, 0, 10);
    r = (kern_region){.kind = KERN_GPU_KMEANS};
    r.k.kmeans = (kern_kmeans){nk, K, D, pts, cen, mref};
    kern_kmeans_body(0, nk, &r.k.kmeans);
    r.k.kmeans.member = mem;
    gpu_region_equals_cpu(&r, mem, nk * sizeof *mem, nk, mref);

    /* The CPU body of each kind is the kernels.c body. */
    cr_expect(kern_cpu_body(KERN_GPU_NBODY) == kern_nbody_body);
    cr_expect(kern_cpu_body(KERN_GPU_HOTSPOT) == kern_hotspot_body);
    cr_expect(kern_cpu_body(KERN_GPU_KMEANS) == kern_kmeans_body);
    free(pos), free(acc), free(aref), free(temp), free(power), free(hout), free(href);
    free(pts), free(cen), free(mem), free(mref);
}
