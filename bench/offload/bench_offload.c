/*
 * bench/offload/bench_offload.c — the region runtime against its baselines,
 * all in this one process on the same inputs (seed 000's comparison).
 *
 *   A. CPU only: the overhead of ompdag_offload_for under dtsa (and gss, dss,
 *      static) against OpenMP schedule(dynamic) over 256-iteration blocks and
 *      schedule(guided) over 16-iteration blocks
 *      on the same T threads, on uniform kernels and a skewed loop
 *      (iteration i costs 1 + skew·i/n), with the reported imbalance.
 *   B. CPU + simulated GPU: dtsa, gss and dss against the static baseline
 *      (Qilin-like: the GPU share measured beforehand by a training run, as
 *      ompdag_offload_report_gpu_share() of a dtsa run).  The simulated GPU
 *      runs the body on its own thread and holds each completion to model a
 *      device of --sim-speed CPU threads with --sim-latency; on a machine
 *      with few cores it competes with the CPU threads for cores, so these
 *      figures are about the policies, not about a GPU.
 *
 *   bench_offload [--part cpu|gpu|cuda|all] [--reps R] [--threads T] [--quick]
 *                 [--sim-speed S] [--sim-latency SECONDS]
 *
 * Times are medians over R repetitions, through the module's one timer.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels.h"
#include "kernels_gpu.h"
#include "offload_internal.h"
#include "ompdag/internal/stats.h"

typedef struct workload {
    const char *name;
    int64_t n;
    ompdag_offload_cpu_fn body;
    void *ctx;
} workload;

typedef struct bench_cfg {
    int reps, threads;
    bool quick, part_cpu, part_gpu, part_cuda;
    double sim_speed, sim_latency;
} bench_cfg;

static double median(double *v, int n)
{
    return ompdag_median_double(v, (size_t)n);
}

typedef enum omp_kind { OMP_DYNAMIC, OMP_GUIDED } omp_kind;

/* OpenMP over blocks, so the body is called per block as ompdag calls it
 * per chunk: dynamic hands out blocks of 256 iterations, guided shrinking
 * runs of 16-iteration blocks. */
static double run_omp(const workload *w, omp_kind k, int threads)
{
    double t0 = ompdag_now_s();
    if (k == OMP_DYNAMIC) {
        int64_t nb = (w->n + 255) / 256;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
        for (int64_t b = 0; b < nb; ++b)
            w->body(256 * b, 256 * b + 256 < w->n ? 256 * b + 256 : w->n, w->ctx);
    } else {
        int64_t nb = (w->n + 15) / 16;
#pragma omp parallel for schedule(guided) num_threads(threads)
        for (int64_t b = 0; b < nb; ++b)
            w->body(16 * b, 16 * b + 16 < w->n ? 16 * b + 16 : w->n, w->ctx);
    }
    return ompdag_now_s() - t0;
}

typedef struct result {
    double wall, imbalance, profiling, gpu_share;
} result;

static result run_policy_with(const workload *w, ompdag_offload_gpu_fn gpu,
                              const ompdag_offload_opts *o)
{
    ompdag_offload_report *r = NULL;
    ompdag_error err = {0};
    if (ompdag_offload_for(w->n, w->body, gpu, w->ctx, o, &r, &err) != OMPDAG_OK) {
        fprintf(stderr, "bench_offload: %s: %s\n", w->name, err.message);
        exit(1);
    }
    result res = {ompdag_offload_report_wall_s(r), ompdag_offload_report_imbalance_s(r),
                  ompdag_offload_report_profiling_share(r), ompdag_offload_report_gpu_share(r)};
    ompdag_offload_report_destroy(r);
    return res;
}

static result run_policy(const workload *w, const ompdag_offload_opts *o)
{
    return run_policy_with(w, NULL, o);
}

static result run_policy_gpu(const workload *w, const ompdag_offload_opts *o)
{
    return run_policy_with(w, kern_gpu_body, o);
}

/* Median over reps of a policy run; the other fields from the median run. */
static result median_policy_with(const workload *w, ompdag_offload_gpu_fn gpu,
                                 const ompdag_offload_opts *o, int reps)
{
    result *rs = calloc((size_t)reps, sizeof *rs);
    double *walls = calloc((size_t)reps, sizeof *walls);
    for (int i = 0; i < reps; ++i) {
        rs[i] = run_policy_with(w, gpu, o);
        walls[i] = rs[i].wall;
    }
    double m = median(walls, reps);
    result best = rs[0];
    for (int i = 0; i < reps; ++i)
        if (fabs(rs[i].wall - m) < fabs(best.wall - m)) best = rs[i];
    best.wall = m;
    free(rs);
    free(walls);
    return best;
}

static result median_policy(const workload *w, const ompdag_offload_opts *o, int reps)
{
    return median_policy_with(w, NULL, o, reps);
}

static result median_policy_gpu(const workload *w, const ompdag_offload_opts *o, int reps)
{
    return median_policy_with(w, kern_gpu_body, o, reps);
}

static void part_cpu(const workload *ws, int nw, const bench_cfg *c)
{
    printf("\n== A. CPU only, %d threads: overhead against OpenMP (median of %d) ==\n", c->threads,
           c->reps);
    printf("%-10s %-16s %10s %10s %12s %10s\n", "kernel", "schedule", "wall_ms", "vs_dyn",
           "imbalance_ms", "prof_%");
    double *t = calloc((size_t)c->reps, sizeof *t);
    for (int k = 0; k < nw; ++k) {
        const workload *w = &ws[k];
        w->body(0, w->n, w->ctx); /* warm the caches and pages */
        for (int i = 0; i < c->reps; ++i) {
            double t0 = ompdag_now_s();
            w->body(0, w->n, w->ctx);
            t[i] = ompdag_now_s() - t0;
        }
        double serial = median(t, c->reps);
        for (int i = 0; i < c->reps; ++i)
            t[i] = run_omp(w, OMP_DYNAMIC, c->threads);
        double dyn = median(t, c->reps);
        for (int i = 0; i < c->reps; ++i)
            t[i] = run_omp(w, OMP_GUIDED, c->threads);
        double guided = median(t, c->reps);
        printf("%-10s %-16s %10.2f %10.2f %12s %10s\n", w->name, "serial", 1e3 * serial,
               serial / dyn, "-", "-");
        printf("%-10s %-16s %10.2f %10.2f %12s %10s\n", w->name, "omp dynamic/256", 1e3 * dyn, 1.0,
               "-", "-");
        printf("%-10s %-16s %10.2f %10.2f %12s %10s\n", w->name, "omp guided/16", 1e3 * guided,
               guided / dyn, "-", "-");
        for (int p = 0; p < OMPDAG_OFFLOAD_POLICY_COUNT; ++p) {
            ompdag_offload_opts o;
            ompdag_offload_opts_init(&o);
            o.policy = (ompdag_offload_policy)p;
            o.cpu_threads = c->threads;
            o.log_chunks = false;
            result r = median_policy(w, &o, c->reps);
            char name[32];
            snprintf(name, sizeof name, "ompdag %s", ompdag_offload_policy_name(o.policy));
            printf("%-10s %-16s %10.2f %10.2f %12.3f %10.1f\n", w->name, name, 1e3 * r.wall,
                   r.wall / dyn, 1e3 * r.imbalance, 100 * r.profiling);
        }
    }
    free(t);
}

static void part_gpu(const workload *ws, int nw, const bench_cfg *c)
{
    int cpu = c->threads > 1 ? c->threads - 1 : 1;
    printf("\n== B. %d CPU thread(s) + 1 simulated GPU (speed %.2g CPU threads, latency %.3g ms):"
           " policies against static (median of %d) ==\n",
           cpu, c->sim_speed, 1e3 * c->sim_latency, c->reps);
    printf("%-10s %-8s %10s %12s %12s %10s %10s\n", "kernel", "policy", "wall_ms", "speedup_vs_st",
           "imbalance_ms", "prof_%", "gpu_share");
    for (int k = 0; k < nw; ++k) {
        const workload *w = &ws[k];
        ompdag_offload_opts o;
        ompdag_offload_opts_init(&o);
        o.cpu_threads = cpu;
        o.sim_gpus = 1;
        o.sim_speed = c->sim_speed;
        o.sim_latency_s = c->sim_latency;
        o.gpu_quantum = 64;
        o.log_chunks = false;
        /* Qilin's training run: the GPU share measured beforehand. */
        o.policy = OMPDAG_OFFLOAD_DTSA;
        double beta = run_policy(w, &o).gpu_share;
        o.policy = OMPDAG_OFFLOAD_STATIC;
        o.static_gpu_share = beta;
        result st = median_policy(w, &o, c->reps);
        printf("%-10s %-8s %10.2f %12.2f %12.3f %10s %10.3f\n", w->name, "static", 1e3 * st.wall,
               1.0, 1e3 * st.imbalance, "-", beta);
        const ompdag_offload_policy others[3] = {OMPDAG_OFFLOAD_DTSA, OMPDAG_OFFLOAD_GSS,
                                                 OMPDAG_OFFLOAD_DSS};
        for (int p = 0; p < 3; ++p) {
            o.policy = others[p];
            result r = median_policy(w, &o, c->reps);
            printf("%-10s %-8s %10.2f %12.2f %12.3f %10.1f %10.3f\n", w->name,
                   ompdag_offload_policy_name(o.policy), 1e3 * r.wall, st.wall / r.wall,
                   1e3 * r.imbalance, 100 * r.profiling, r.gpu_share);
        }
    }
}

/* C. CPU + a real CUDA GPU (kernels_gpu.cu): the seed's comparison on the
 * compute-bound kernels — dtsa, gss and dss against static, whose GPU share
 * comes from a dtsa training run (Qilin).  Run only where a device exists. */
static void part_cuda(kern_region *regions, int nr, const char *const *names, const int64_t *ns,
                      const bench_cfg *c)
{
    char why[256] = "";
    int cpu = c->threads > 1 ? c->threads - 1 : 1;
    printf("\n== C. %d CPU thread(s) + CUDA GPU 0: policies against static (median of %d) ==\n",
           cpu, c->reps);
    for (int k = 0; k < nr; ++k) {
        kern_region *r = &regions[k];
        r->gpu = kern_gpu_open(r->kind, r, 0, why, sizeof why);
        if (!r->gpu) {
            printf("not run: %s (the CUDA bodies are built; they await a GPU)\n", why);
            return;
        }
        if (k == 0)
            printf("%-10s %-8s %10s %12s %12s %10s %10s\n", "kernel", "policy", "wall_ms",
                   "speedup_vs_st", "imbalance_ms", "prof_%", "gpu_share");
        workload w = {names[k], ns[k], kern_cpu_body(r->kind), r};
        ompdag_offload_opts o;
        ompdag_offload_opts_init(&o);
        o.cpu_threads = cpu;
        o.cuda_devices = 1;
        o.gpu_quantum = 256;
        o.log_chunks = false;
        o.policy = OMPDAG_OFFLOAD_DTSA;
        double beta = run_policy_gpu(&w, &o).gpu_share;
        o.policy = OMPDAG_OFFLOAD_STATIC;
        o.static_gpu_share = beta;
        result st = median_policy_gpu(&w, &o, c->reps);
        printf("%-10s %-8s %10.2f %12.2f %12.3f %10s %10.3f\n", w.name, "static", 1e3 * st.wall,
               1.0, 1e3 * st.imbalance, "-", beta);
        const ompdag_offload_policy others[3] = {OMPDAG_OFFLOAD_DTSA, OMPDAG_OFFLOAD_GSS,
                                                 OMPDAG_OFFLOAD_DSS};
        for (int p = 0; p < 3; ++p) {
            o.policy = others[p];
            result res = median_policy_gpu(&w, &o, c->reps);
            printf("%-10s %-8s %10.2f %12.2f %12.3f %10.1f %10.3f\n", w.name,
                   ompdag_offload_policy_name(o.policy), 1e3 * res.wall, st.wall / res.wall,
                   1e3 * res.imbalance, 100 * res.profiling, res.gpu_share);
        }
        kern_gpu_close(r->gpu);
        r->gpu = NULL;
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_offload [--part cpu|gpu|cuda|all] [--reps R] [--threads T] "
                    "[--quick] [--sim-speed S] [--sim-latency SECONDS]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    bench_cfg c = {.reps = 3,
                   .threads = 2,
                   .part_cpu = true,
                   .part_gpu = true,
                   .part_cuda = true,
                   .sim_speed = 2.0,
                   .sim_latency = 50e-6};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick")) {
            c.quick = true;
        } else if (!strcmp(a, "--part") && v) {
            c.part_cpu = !strcmp(v, "cpu") || !strcmp(v, "all");
            c.part_gpu = !strcmp(v, "gpu") || !strcmp(v, "all");
            c.part_cuda = !strcmp(v, "cuda") || !strcmp(v, "all");
            if (!c.part_cpu && !c.part_gpu && !c.part_cuda) usage();
            ++i;
        } else if (!strcmp(a, "--reps") && v && atoi(v) > 0) {
            c.reps = atoi(v), ++i;
        } else if (!strcmp(a, "--threads") && v && atoi(v) > 0) {
            c.threads = atoi(v), ++i;
        } else if (!strcmp(a, "--sim-speed") && v && atof(v) > 0) {
            c.sim_speed = atof(v), ++i;
        } else if (!strcmp(a, "--sim-latency") && v && atof(v) >= 0) {
            c.sim_latency = atof(v), ++i;
        } else {
            usage();
        }
    }
    int64_t scale = c.quick ? 4 : 1;
    /* Inputs (deterministic). */
    int64_t nv = 4000000 / scale;
    float *x = malloc(nv * sizeof *x), *y0 = malloc(nv * sizeof *y0), *y = malloc(nv * sizeof *y);
    kern_fill(x, nv, 1, -1, 1);
    kern_fill(y0, nv, 2, -1, 1);
    kern_saxpy saxpy = {nv, 2.5f, x, y0, y};
    int64_t nb = 4000 / (c.quick ? 2 : 1);
    float *pos = malloc(4 * nb * sizeof *pos), *acc = malloc(3 * nb * sizeof *acc);
    kern_fill(pos, 4 * nb, 3, 0.1f, 1);
    kern_nbody nbody = {nb, pos, acc};
    int64_t side = 1024 / (c.quick ? 2 : 1), nh = side * side;
    float *temp = malloc(nh * sizeof *temp), *power = malloc(nh * sizeof *power),
          *out = malloc(nh * sizeof *out);
    kern_fill(temp, nh, 4, 320, 340);
    kern_fill(power, nh, 5, 0, 0.5f);
    kern_hotspot hot = {side, side, temp, power, out};
    int64_t nk = 400000 / scale;
    float *pts = malloc(nk * 8 * sizeof *pts), *cen = malloc(16 * 8 * sizeof *cen);
    int32_t *mem = malloc(nk * sizeof *mem);
    kern_fill(pts, nk * 8, 6, 0, 10);
    kern_fill(cen, 16 * 8, 7, 0, 10);
    kern_kmeans km = {nk, 16, 8, pts, cen, mem};
    int64_t ns = 200000 / scale;
    double *so = malloc(ns * sizeof *so);
    kern_skew skew = {ns, 8.0, 40, so};
    const workload ws[] = {
        {"saxpy", nv, kern_saxpy_body, &saxpy},   {"nbody", nb, kern_nbody_body, &nbody},
        {"hotspot", nh, kern_hotspot_body, &hot}, {"kmeans", nk, kern_kmeans_body, &km},
        {"skew8", ns, kern_skew_body, &skew},
    };
    int nw = (int)(sizeof ws / sizeof *ws);
    printf("bench_offload: %ld online CPUs, %d threads, OpenMP max %d\n",
           (long)sysconf(_SC_NPROCESSORS_ONLN), c.threads, omp_get_max_threads());
    if (c.part_cpu) part_cpu(ws, nw, &c);
    if (c.part_gpu) part_gpu(ws, nw, &c);
    if (c.part_cuda) { /* the same inputs as A and B, as GPU regions */
        kern_region regions[3] = {
            {.kind = KERN_GPU_NBODY}, {.kind = KERN_GPU_HOTSPOT}, {.kind = KERN_GPU_KMEANS}};
        regions[0].k.nbody = nbody;
        regions[1].k.hotspot = hot;
        regions[2].k.kmeans = km;
        const char *const names[3] = {"nbody", "hotspot", "kmeans"};
        const int64_t sizes[3] = {nb, nh, nk};
        part_cuda(regions, 3, names, sizes, &c);
    }
    free(x), free(y0), free(y), free(pos), free(acc), free(temp), free(power), free(out);
    free(pts), free(cen), free(mem), free(so);
    return 0;
}
