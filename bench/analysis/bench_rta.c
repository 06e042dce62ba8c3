/*
 * bench/analysis/bench_rta.c — speed of the bound algorithms.
 *
 *  1. In memory: nodes per second of exact and alg0 on random graphs of 10^3
 *     to 10^7 nodes (seed 004 generator, scaled up by task count).  Baseline:
 *     alg0, run in the same process on the same graph.
 *  2. End to end: `ompdag analyze` of a 10^6-node file (load, validate,
 *     derive, exact, print), timed as a subprocess.
 *  4. (with cuda-offload/condag) batch evaluation of 10,000 graphs: cpu-par,
 *     gpu-sim (host preparation and the GPU design's counts) and gpu (when a
 *     device is present) against cpu, one core.
 *  3. The five seed sweeps (10 points x 1000 graphs, both algorithms) through
 *     `ompdag experiment --no-plot`; per-graph exact time against the 14.3 ms
 *     the seed reports for its Python code (a published figure, not rerun).
 *
 * usage: bench_rta OMPDAG_BINARY [--quick | --batch-only GRAPHS]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "ompdag/condag.h"
#ifdef OMPDAG_BENCH_BATCH
#include "ompdag/condag_gpu.h"
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
#include "ompdag/gen.h"
#include "ompdag/internal/clock.h"
#include "ompdag/rta.h"

static double now_s(void)
{
    return ompdag_now_s();
}

/* Best of `reps` runs, in seconds. */
static double time_alg(const ompdag_condag *g, ompdag_algorithm alg, int reps, bool witness)
{
    double best = 1e30;
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 4);
    opt.bound_only = !witness;
    for (int i = 0; i < reps; ++i) {
        ompdag_rta_result *r;
        ompdag_error err;
        double t0 = now_s();
        if (ompdag_rta_run(g, alg, &opt, &r, &err)) {
            fprintf(stderr, "bench: %s\n", err.message);
            exit(1);
        }
        double t = now_s() - t0;
        ompdag_rta_result_destroy(r);
        best = t < best ? t : best;
    }
    return best;
}

/* Copies seed graph `part` into g under prefix `pre`; returns its root source. */
static int32_t copy_into(ompdag_condag *g, const ompdag_condag *part, const char *pre)
{
    int32_t base = ompdag_condag_node_count(g), n = ompdag_condag_node_count(part);
    for (int32_t v = 0; v < n; ++v) {
        char id[96], task[96], child[96];
        int32_t c = ompdag_condag_node_creates(part, v);
        snprintf(id, sizeof id, "%s%s", pre, ompdag_condag_node_id(part, v));
        snprintf(task, sizeof task, "%s%s", pre,
                 ompdag_condag_task_id(part, ompdag_condag_node_task(part, v)));
        if (c >= 0) snprintf(child, sizeof child, "%s%s", pre, ompdag_condag_task_id(part, c));
        ompdag_node_spec s = {.id = id,
                              .task = task,
                              .kind = ompdag_condag_node_kind(part, v),
                              .wcet = ompdag_condag_node_wcet(part, v),
                              .creates = c >= 0 ? child : NULL};
        ompdag_condag_add_node(g, &s, NULL, NULL);
    }
    for (int32_t v = 0; v < n; ++v) {
        int32_t k;
        const int32_t *succ = ompdag_condag_node_fsucc(part, v, &k);
        for (int32_t i = 0; i < k; ++i)
            ompdag_condag_add_edge(g, base + v, base + succ[i], NULL);
    }
    return base + ompdag_condag_task_source(part, ompdag_condag_root_task(part));
}

/* Seed-generator graphs stay small (random adoption leaves most tasks
 * unreachable), so large inputs are forests of them: a root task whose chain
 * of T nodes creates the root task of one seed graph each. */
static ompdag_condag *graph_of_about(long nodes)
{
    ompdag_condag *g = ompdag_condag_create();
    int32_t prev = -1;
    for (uint64_t seed = 1; ompdag_condag_node_count(g) < nodes; ++seed) {
        ompdag_gen_params p;
        ompdag_gen_params_init(&p);
        p.seed = seed;
        ompdag_condag *part;
        char pre[32], id[32], task[32];
        snprintf(pre, sizeof pre, "g%llu.", (unsigned long long)seed);
        snprintf(id, sizeof id, "root%llu", (unsigned long long)seed);
        if (ompdag_gen_random(&p, &part, NULL)) exit(1);
        snprintf(task, sizeof task, "%s%s", pre,
                 ompdag_condag_task_id(part, ompdag_condag_root_task(part)));
        ompdag_node_spec t = {
            .id = id, .task = "root", .kind = OMPDAG_KIND_T, .wcet = 1, .creates = task};
        int32_t v;
        ompdag_condag_add_node(g, &t, &v, NULL);
        if (prev >= 0) ompdag_condag_add_edge(g, prev, v, NULL);
        prev = v;
        copy_into(g, part, pre);
        ompdag_condag_destroy(part);
    }
    ompdag_error err;
    if (ompdag_condag_finalize(g, &err)) {
        fprintf(stderr, "bench: %s\n", err.message);
        exit(1);
    }
    return g;
}

static void in_memory(long max_nodes)
{
    printf("## in-memory throughput (m=4, best of 3)\n");
    printf("%10s %10s %14s %20s %14s %18s\n", "nodes", "tasks", "exact Mnode/s",
           "exact+witness Mn/s", "alg0 Mnode/s", "exact/alg0 time");
    for (long n = 1000; n <= max_nodes; n *= 10) {
        ompdag_condag *g = graph_of_about(n);
        int reps = n >= 10000000 ? 1 : 3;
        double tx = time_alg(g, OMPDAG_ALG_EXACT, reps, false),
               tw = time_alg(g, OMPDAG_ALG_EXACT, reps, true),
               t0 = time_alg(g, OMPDAG_ALG_ALG0, reps, false);
        double nodes = ompdag_condag_node_count(g);
        printf("%10.0f %10d %14.1f %20.1f %14.1f %17.2fx\n", nodes, ompdag_condag_task_count(g),
               nodes / tx / 1e6, nodes / tw / 1e6, nodes / t0 / 1e6, tx / t0);
        ompdag_condag_destroy(g);
    }
}

static double run_timed(const char *cmd)
{
    double t0 = now_s();
    int rc = system(cmd);
    double t = now_s() - t0;
    if (rc != 0) {
        fprintf(stderr, "bench: '%s' failed (%d)\n", cmd, rc);
        exit(1);
    }
    return t;
}

static void end_to_end(const char *ompdag)
{
    ompdag_condag *g = graph_of_about(1000000);
    const char *path = "/tmp/ompdag-bench-1m.json";
    ompdag_error err;
    if (ompdag_condag_save_file(g, path, &err)) {
        fprintf(stderr, "bench: %s\n", err.message);
        exit(1);
    }
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s analyze %s --threads 4 > /dev/null", ompdag, path);
    double t = run_timed(cmd);
    printf("\n## end to end: ompdag analyze of %d nodes: %.2f s (target < 3 s)\n",
           ompdag_condag_node_count(g), t);
    snprintf(cmd, sizeof cmd, "%s validate %s > /dev/null", ompdag, path);
    printf("   of which load+validate alone: %.2f s\n", run_timed(cmd));
    remove(path);
    ompdag_condag_destroy(g);
}

/* Mean of column `col` (0-based) over the summary CSV rows. */
static double summary_mean(const char *path, int col)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    double sum = 0;
    int rows = 0;
    if (!f) return -1;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        char *tok = strtok(line, ",");
        for (int i = 0; tok && i < col; ++i)
            tok = strtok(NULL, ",");
        if (tok) sum += atof(tok), rows++;
    }
    fclose(f);
    return rows ? sum / rows : -1;
}

static void sweeps(const char *ompdag, int graphs)
{
    const char *names[] = {"threads", "tasks", "p-if", "p-cre", "p-wait"};
    printf("\n## seed 004 sweeps: 10 points x %d graphs, alg0 + exact (target < 60 s total)\n",
           graphs);
    printf("%8s %9s %16s %16s %12s %18s\n", "sweep", "time s", "exact us/graph", "alg0 us/graph",
           "mean gap %", "seed 14.3ms / ours");
    double total = 0;
    for (int i = 0; i < 5; ++i) {
        char cmd[4096], summary[256];
        snprintf(cmd, sizeof cmd,
                 "%s experiment --sweep %s --graphs %d --no-plot --out /tmp/ompdag-bench-sweeps "
                 "2>/dev/null",
                 ompdag, names[i], graphs);
        double t = run_timed(cmd);
        total += t;
        snprintf(summary, sizeof summary, "/tmp/ompdag-bench-sweeps/%s-summary.csv", names[i]);
        double ex = summary_mean(summary, 10), a0 = summary_mean(summary, 11),
               gap = summary_mean(summary, 4);
        printf("%8s %9.2f %16.1f %16.1f %12.2f %17.0fx\n", names[i], t, ex, a0, gap, 14300.0 / ex);
    }
    printf("%8s %9.2f\n", "total", total);
}

#ifdef OMPDAG_BENCH_BATCH
/* 4. Batches: `graphs` seed-default graphs, m=4, evaluated by every device
 *    in this process.  Baseline: cpu, the exact algorithm graph by graph on
 *    one core.  cpu-par spreads the same over OpenMP threads.  For gpu-sim
 *    and gpu the host preparation (flatten, heights, level buckets; OpenMP
 *    over graphs) is timed separately: it is the host's share of a gpu run,
 *    so cpu / prepare is the most a GPU could reach over one core here.
 *    gpu-sim's evaluate time is the host running the kernel's code, not a
 *    GPU; its counts are the GPU design's. */
static int omp_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static void batches(int graphs)
{
    ompdag_condag **g = malloc(sizeof *g * (size_t)graphs);
    int64_t *out = malloc(sizeof *out * (size_t)graphs);
    int64_t *ref = malloc(sizeof *ref * (size_t)graphs);
    for (int i = 0; i < graphs; ++i) {
        ompdag_gen_params p;
        ompdag_gen_params_init(&p);
        p.seed = (uint64_t)i + 1;
        if (ompdag_gen_random(&p, &g[i], NULL)) exit(1);
    }
    enum { DEVICES = 6, REPS = 5 };
    const ompdag_eval_device order[DEVICES] = {
        OMPDAG_EVAL_CPU, OMPDAG_EVAL_CPU_PAR,        OMPDAG_EVAL_GPU_SIM,
        OMPDAG_EVAL_GPU, OMPDAG_EVAL_GPU_SIM_GRAPHS, OMPDAG_EVAL_GPU_GRAPHS};
    ompdag_batch_stats best[DEVICES];
    bool ran[DEVICES] = {false};
    char why[DEVICES][sizeof(((ompdag_error *)0)->message)] = {{0}};
    for (int rep = 0; rep < REPS; ++rep)
        for (int d = 0; d < DEVICES; ++d) {
            ompdag_error err;
            ompdag_batch_stats st;
            if (ompdag_exact_batch_stats((const ompdag_condag *const *)g, (size_t)graphs, 4,
                                         order[d], d == 0 ? ref : out, &st, &err)) {
                snprintf(why[d], sizeof why[d], "%s", err.message);
                continue;
            }
            if (d > 0 && memcmp(out, ref, sizeof *out * (size_t)graphs)) {
                fprintf(stderr, "bench: %s differs from cpu\n", ompdag_eval_device_name(order[d]));
                exit(1);
            }
            if (!ran[d] || st.total_seconds < best[d].total_seconds) best[d] = st;
            ran[d] = true;
        }
    printf("\n## batch of %d seed-default graphs, m=4 (best of %d; baseline: cpu, one core; "
           "%d OpenMP threads)\n",
           graphs, REPS, omp_threads());
    printf("%14s %10s %11s %11s %9s %9s %6s %10s %11s\n", "device", "total_ms", "prepare_ms",
           "evaluate_ms", "vs_cpu", "cpu/prep", "levels", "launches", "up_bytes");
    const double cpu = ran[0] ? best[0].total_seconds : 0;
    for (int d = 0; d < DEVICES; ++d) {
        const char *name = ompdag_eval_device_name(order[d]);
        if (!ran[d]) {
            printf("%14s not run: %s\n", name, why[d]);
            continue;
        }
        const ompdag_batch_stats *b = &best[d];
        char prep[32] = "-", ratio_prep[32] = "-";
        if (d >= 2) { /* the GPU designs and their simulations */
            snprintf(prep, sizeof prep, "%.2f", 1e3 * b->prepare_seconds);
            snprintf(ratio_prep, sizeof ratio_prep, "%.1fx", cpu / b->prepare_seconds);
        }
        printf("%14s %10.2f %11s %11.2f %8.2fx %9s %6lld %10lld %11lld\n", name,
               1e3 * b->total_seconds, prep, 1e3 * b->evaluate_seconds, cpu / b->total_seconds,
               ratio_prep, (long long)b->levels, (long long)b->launches, (long long)b->bytes_up);
    }
    for (int d = 2; d < DEVICES; d += 2)
        if (ran[d])
            printf("%s design (%s counts): %lld nodes, %lld upload(s) of %lld bytes, %lld "
                   "launches, %lld host sync(s), %lld bytes down\n",
                   ompdag_eval_device_name(order[d + 1]), ompdag_eval_device_name(order[d]),
                   (long long)best[d].nodes, (long long)best[d].uploads,
                   (long long)best[d].bytes_up, (long long)best[d].launches,
                   (long long)best[d].host_syncs, (long long)best[d].bytes_down);
    for (int i = 0; i < graphs; ++i)
        ompdag_condag_destroy(g[i]);
    free(g), free(out), free(ref);
}
#endif

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_rta OMPDAG_BINARY [--quick]\n");
        return 2;
    }
    bool quick = argc > 2 && !strcmp(argv[2], "--quick");
#ifdef OMPDAG_BENCH_BATCH
    if (argc > 3 && !strcmp(argv[2], "--batch-only")) { /* bench_rta BIN --batch-only N */
        batches(atoi(argv[3]) > 0 ? atoi(argv[3]) : 10000);
        return 0;
    }
#endif
    in_memory(quick ? 100000 : 10000000);
    end_to_end(argv[1]);
    sweeps(argv[1], quick ? 100 : 1000);
#ifdef OMPDAG_BENCH_BATCH
    batches(quick ? 1000 : 10000);
#endif
    return 0;
}
