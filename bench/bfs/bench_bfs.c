/*
 * bench/bfs/bench_bfs.c — Graph500-style BFS benchmark (seed 003 §5 metric:
 * TEPS = edges of the traversed component / search time, harmonic mean over
 * random keys of degree >= 1).  Every engine runs the same keys of the same
 * graph in this one process, and its harmonic-mean TEPS is reported as a
 * ratio to cpu-topdown, the named baseline.
 *
 *   bench_bfs [--scales A..B] [--step S] [--sources N] [--engines LIST]
 *             [--threads T] [--validate] [--gapbs PATH]
 *
 * With --gapbs PATH (or GAPBS_BFS=PATH in the environment) the GAP
 * benchmark suite's bfs runs on the same graph (written as Matrix Market)
 * with the same number of searches and threads, and every engine's mean
 * search time is given as a ratio to it.
 *   bench_bfs --tau-sweep [--scales A..B]   (how the default τ was chosen)
 *
 * Unless OMP_WAIT_POLICY is set, the benchmark sets it to passive.
 *
 * The τ sweep runs gpu-sim and counts random status loads per search: the
 * out-edges of top-down frontiers plus the bottom-up neighbour checks that
 * the hub cache did not answer.  Those loads are what Enterprise's design
 * minimises (§4.3); on this GPU-less machine they stand in for GPU time.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ompdag/bfs.h"
#include "ompdag/graph.h"
#include "ompdag/internal/clock.h"

#define MAX_ENGINES 4

typedef struct bench_opts {
    int scale_lo, scale_hi, step, sources, threads;
    bool validate, tau_sweep;
    const char *gapbs; /* a GAP `bfs` binary to compare with (GAPBS_BFS or --gapbs) */
    ompdag_bfs_engine engines[MAX_ENGINES];
    int engine_count;
} bench_opts;

static void die(const char *what, const ompdag_error *err)
{
    fprintf(stderr, "bench_bfs: %s: %s\n", what, err ? err->message : "");
    exit(1);
}

/* One engine through the shared trial harness (ompdag_bfs_run_trials, the
 * one TEPS definition); false when it cannot run. */
static bool run_engine(const ompdag_graph *g, ompdag_bfs_engine e, const ompdag_bfs_options *o,
                       const int64_t *keys, int nkeys, bool validate, int *invalid,
                       ompdag_bfs_trials_summary *s)
{
    ompdag_error err = {0};
    if (ompdag_bfs_run_trials(g, e, o, keys, nkeys, validate, e == OMPDAG_BFS_GPU, NULL, NULL, s,
                              &err) != OMPDAG_OK) {
        fprintf(stderr, "bench_bfs: %s: %s\n", ompdag_bfs_engine_name(e), err.message);
        return false;
    }
    *invalid += s->invalid;
    return true;
}

/* The peer: a GAP benchmark suite `bfs` binary (GAPBS_BFS or --gapbs) run on
 * the very graph the engines ran on, written as Matrix Market into a
 * private temporary folder.  Returns its "Average Time" in seconds, or 0. */
static double run_gapbs(const char *bin, const ompdag_graph *g, int sources, int threads)
{
    char dir[] = "/tmp/bench_bfs_XXXXXX", path[64], cmd[512], line[256];
    if (!mkdtemp(dir)) return 0;
    snprintf(path, sizeof path, "%s/g.mtx", dir);
    double avg = 0;
    ompdag_error err = {0};
    if (ompdag_graph_write(g, path, OMPDAG_GRAPH_FORMAT_MATRIX_MARKET, &err) == OMPDAG_OK) {
        char env[32] = "";
        if (threads > 0) snprintf(env, sizeof env, "OMP_NUM_THREADS=%d ", threads);
        snprintf(cmd, sizeof cmd, "%s'%s' -f '%s' -s -n %d", env, bin, path, sources);
        FILE *p = popen(cmd, "r");
        while (p && fgets(line, sizeof line, p))
            if (sscanf(line, "Average Time: %lf", &avg) == 1) break;
        while (p && fgets(line, sizeof line, p))
            ;
        if (p) pclose(p);
    } else {
        fprintf(stderr, "bench_bfs: writing the graph for gapbs: %s\n", err.message);
    }
    unlink(path);
    rmdir(dir);
    return avg;
}

static int bench_engines(const bench_opts *b)
{
    int invalid = 0;
    printf("%-5s %9s %10s %8s %7s  %-12s %12s %10s %8s %8s %8s %9s %7s\n", "scale", "vertices",
           "edges", "gen_s", "B/edge", "engine", "hmean_TEPS", "mean_ms", "max/min", "vs_base",
           "vs_cpu", "vs_gapbs", "syncs");
    for (int scale = b->scale_lo; scale <= b->scale_hi; scale += b->step) {
        ompdag_graph *g;
        ompdag_error err = {0};
        double t0 = ompdag_now_s();
        if (ompdag_graph_kronecker(scale, 16, 1, &g, &err) != OMPDAG_OK) die("kronecker", &err);
        double gen = ompdag_now_s() - t0;
        int64_t keys[64];
        int nkeys = ompdag_bfs_pick_sources(g, b->sources, 2, keys);
        ompdag_bfs_options o;
        ompdag_bfs_options_init(&o);
        o.threads = b->threads;
        double gapbs = b->gapbs ? run_gapbs(b->gapbs, g, nkeys, b->threads) : 0;
        if (b->gapbs)
            printf("%-5d %9lld %10lld %8.2f %7s  %-12s %12s %10.3f %8s %8s %8s %9s %7s\n", scale,
                   (long long)ompdag_graph_vertices(g), (long long)ompdag_graph_edges(g), gen, "-",
                   "gapbs", "-", 1e3 * gapbs, "-", "-", "-", gapbs > 0 ? "1.00x" : "failed", "-");
        /* every engine first, then the rows: each ratio needs its baseline's run */
        double base = 0, cpu_mean = 0;
        ompdag_bfs_trials_summary sum[MAX_ENGINES];
        bool ran[MAX_ENGINES] = {false};
        for (int k = 0; k < b->engine_count; ++k) {
            ran[k] = run_engine(g, b->engines[k], &o, keys, nkeys, b->validate, &invalid, &sum[k]);
            if (ran[k] && b->engines[k] == OMPDAG_BFS_CPU_TOPDOWN) base = sum[k].teps.harmonic_mean;
            if (ran[k] && b->engines[k] == OMPDAG_BFS_CPU) cpu_mean = sum[k].mean_s;
        }
        for (int k = 0; k < b->engine_count; ++k) {
            if (!ran[k]) continue;
            const ompdag_bfs_trials_summary s = sum[k];
            const double hm = s.teps.harmonic_mean;
            char ratio[32] = "-", vs[32] = "-", syncs[32] = "-", vcpu[32] = "-";
            if (base > 0 && hm > 0) snprintf(ratio, sizeof ratio, "%.2fx", hm / base);
            if (cpu_mean > 0 && s.mean_s > 0)
                snprintf(vcpu, sizeof vcpu, "%.2fx", cpu_mean / s.mean_s);
            if (gapbs > 0 && s.mean_s > 0) snprintf(vs, sizeof vs, "%.2fx", gapbs / s.mean_s);
            if (b->engines[k] == OMPDAG_BFS_GPU || b->engines[k] == OMPDAG_BFS_GPU_SIM)
                snprintf(syncs, sizeof syncs, "%.1f", s.host_syncs);
            printf("%-5d %9lld %10lld %8.2f %7.2f  %-12s %12.4g %10.3f %8.2f %8s %8s %9s %7s\n",
                   scale, (long long)ompdag_graph_vertices(g), (long long)ompdag_graph_edges(g),
                   gen, (double)ompdag_graph_memory_bytes(g) / (double)ompdag_graph_edges(g),
                   ompdag_bfs_engine_name(b->engines[k]), hm, 1e3 * s.mean_s,
                   s.min_s > 0 ? s.max_s / s.min_s : 0.0, ratio, vcpu, vs, syncs);
        }
        fflush(stdout);
        ompdag_graph_destroy(g);
    }
    if (b->validate) printf("validation: %s\n", invalid ? "FAILED" : "every search valid");
    printf(
        "# vs_base: harmonic-mean TEPS / cpu-topdown's; vs_cpu: the cpu engine's mean time / this "
        "mean time; vs_gapbs: gapbs mean time / this mean time (same graph, same keys count); "
        "syncs: host synchronisations per search\n");
    return invalid ? 1 : 0;
}

/* Random status loads of one gpu-sim search, and its bottom-up levels. */
static void sweep_one(const ompdag_graph *g, int64_t key, int64_t tau, ompdag_bfs_result *r,
                      double *loads, double *hits, double *probes, int *bu, double *secs)
{
    ompdag_bfs_options o;
    ompdag_bfs_options_init(&o);
    o.tau = tau;
    ompdag_error err = {0};
    if (ompdag_bfs_run(g, key, OMPDAG_BFS_GPU_SIM, &o, r, &err) != OMPDAG_OK) die("gpu-sim", &err);
    for (int i = 1; i < ompdag_bfs_result_level_count(r); ++i) {
        const ompdag_bfs_level *l = ompdag_bfs_result_level(r, i);
        *loads += (double)(l->edges - l->hc_hits);
        *hits += (double)l->hc_hits;
        *probes += (double)l->hc_probes;
        *bu += l->direction == OMPDAG_BFS_BOTTOM_UP;
    }
    *secs += ompdag_bfs_result_seconds(r);
}

static int bench_tau(const bench_opts *b)
{
    static const int64_t taus[] = {8, 16, 32, 64, 128, 256, 512, 1024, 4096};
    const int ntau = (int)(sizeof taus / sizeof *taus);
    printf("%-5s %6s %14s %10s %9s %8s %10s\n", "scale", "tau", "loads/search", "vs_best",
           "hc_hit%", "BU_lvls", "sim_s");
    double total[sizeof taus / sizeof *taus] = {0};
    for (int scale = b->scale_lo; scale <= b->scale_hi; scale += b->step) {
        ompdag_graph *g;
        ompdag_error err = {0};
        if (ompdag_graph_kronecker(scale, 16, 1, &g, &err) != OMPDAG_OK) die("kronecker", &err);
        int64_t keys[64];
        int nkeys = ompdag_bfs_pick_sources(g, b->sources, 2, keys);
        ompdag_bfs_result *r;
        ompdag_bfs_result_create(&r, NULL);
        double loads[sizeof taus / sizeof *taus], best = 0;
        double hits[sizeof taus / sizeof *taus], probes[sizeof taus / sizeof *taus];
        double secs[sizeof taus / sizeof *taus];
        int bu[sizeof taus / sizeof *taus];
        for (int t = 0; t < ntau; ++t) {
            loads[t] = hits[t] = probes[t] = secs[t] = 0;
            bu[t] = 0;
            for (int i = 0; i < nkeys; ++i)
                sweep_one(g, keys[i], taus[t], r, &loads[t], &hits[t], &probes[t], &bu[t],
                          &secs[t]);
            loads[t] /= nkeys;
            if (t == 0 || loads[t] < best) best = loads[t];
        }
        for (int t = 0; t < ntau; ++t) {
            total[t] += loads[t] / best;
            printf("%-5d %6lld %14.0f %9.3fx %8.1f%% %8.1f %10.3f\n", scale, (long long)taus[t],
                   loads[t], loads[t] / best, probes[t] > 0 ? 100.0 * hits[t] / probes[t] : 0.0,
                   (double)bu[t] / nkeys, secs[t]);
        }
        fflush(stdout);
        ompdag_bfs_result_destroy(r);
        ompdag_graph_destroy(g);
    }
    int arg = 0;
    for (int t = 1; t < ntau; ++t)
        if (total[t] < total[arg]) arg = t;
    printf("best τ over these scales (mean loads relative to each scale's best): %lld\n",
           (long long)taus[arg]);
    return 0;
}

static bool parse_range(const char *s, int *lo, int *hi)
{
    if (sscanf(s, "%d..%d", lo, hi) == 2) return *lo >= 1 && *hi >= *lo && *hi <= 30;
    if (sscanf(s, "%d", lo) == 1) {
        *hi = *lo;
        return *lo >= 1 && *lo <= 30;
    }
    return false;
}

int main(int argc, char **argv)
{
    /* On a loaded 2-core box, OpenMP threads that spin while waiting measure
     * the neighbours' load, not the BFS.  libgomp reads the policy when it
     * loads, so set it and start again unless the caller chose one. */
    if (!getenv("OMP_WAIT_POLICY")) {
        setenv("OMP_WAIT_POLICY", "passive", 1);
        execv("/proc/self/exe", argv);
    }
    printf("# OMP_WAIT_POLICY=%s\n", getenv("OMP_WAIT_POLICY"));
    bench_opts b = {.scale_lo = 16, .scale_hi = 20, .step = 2, .sources = 8, .threads = 0};
    b.engines[0] = OMPDAG_BFS_CPU_TOPDOWN;
    b.engines[1] = OMPDAG_BFS_CPU;
    b.engines[2] = OMPDAG_BFS_GPU_SIM;
    b.engine_count = 3;
    b.gapbs = getenv("GAPBS_BFS") && *getenv("GAPBS_BFS") ? getenv("GAPBS_BFS") : NULL;
    char why[256];
    if (ompdag_bfs_gpu_available(why, sizeof why)) b.engines[b.engine_count++] = OMPDAG_BFS_GPU;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--scales") && v) {
            if (!parse_range(v, &b.scale_lo, &b.scale_hi)) die("--scales A..B", NULL);
            ++i;
        } else if (!strcmp(a, "--step") && v) {
            b.step = atoi(v) > 0 ? atoi(v) : 1;
            ++i;
        } else if (!strcmp(a, "--sources") && v) {
            b.sources = atoi(v);
            if (b.sources < 1 || b.sources > 64) die("--sources must be in [1, 64]", NULL);
            ++i;
        } else if (!strcmp(a, "--threads") && v) {
            b.threads = atoi(v);
            ++i;
        } else if (!strcmp(a, "--engines") && v) {
            b.engine_count = 0;
            char *copy = strdup(v), *save = NULL;
            for (char *t = strtok_r(copy, ",", &save); t && b.engine_count < MAX_ENGINES;
                 t = strtok_r(NULL, ",", &save)) {
                ompdag_error err = {0};
                if (ompdag_bfs_engine_parse(t, &b.engines[b.engine_count++], &err) != OMPDAG_OK)
                    die("--engines", &err);
            }
            free(copy);
            ++i;
        } else if (!strcmp(a, "--gapbs") && v) {
            b.gapbs = v;
            ++i;
        } else if (!strcmp(a, "--validate")) {
            b.validate = true;
        } else if (!strcmp(a, "--tau-sweep")) {
            b.tau_sweep = true;
        } else {
            fprintf(stderr,
                    "usage: bench_bfs [--scales A..B] [--step S] [--sources N] "
                    "[--engines LIST] [--threads T] [--validate] [--tau-sweep] [--gapbs BFS]\n");
            return 2;
        }
    }
    if (!b.tau_sweep && !ompdag_bfs_gpu_available(why, sizeof why))
        printf("# gpu engine not run: %s\n", why);
    return b.tau_sweep ? bench_tau(&b) : bench_engines(&b);
}
