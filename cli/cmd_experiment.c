/*
 * cli/cmd_experiment.c — `ompdag experiment`: the random-graph study of seed
 * 004 §7 (shared/spec/condag.md §4).  For each point of one parameter sweep
 * it draws G graphs with the seed's defaults elsewhere (m=4, n=10,
 * P_if=P_wait=P_cre=0.3), runs alg0 and exact on each, and writes
 *   DIR/<sweep>-graphs.csv   one row per graph
 *   DIR/<sweep>-summary.csv  mean bounds, gap percentiles, mean run times
 *   DIR/<sweep>.gp, DIR/<sweep>.png, DIR/<sweep>.svg  figures (gnuplot)
 * The gap of a graph is (alg0 − exact) / exact, in percent.  The tightness
 * of a graph is its longest simulated response (WFS and BFS work-conserving
 * schedules of the worst flow and two random flows, report/sim.c) divided by
 * the exact bound: at most 1 whenever the bound holds.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "ompdag/fileio.h"
#include "ompdag/gen.h"
#include "ompdag/internal/stats.h"
#include "ompdag/report.h"
#include "ompdag/rta.h"

void cmd_experiment_help(FILE *out)
{
    fprintf(out,
            "usage: ompdag experiment --sweep threads|tasks|p-if|p-cre|p-wait --out DIR\n"
            "                         [--graphs 1000] [--seed S] [--no-plot]\n\n"
            "Reproduces seed 004 section 7: for 10 points of the swept parameter, generates\n"
            "--graphs random con-DAGs (seed defaults elsewhere: m=4, n=10, P=0.3), runs alg0\n"
            "and exact on each, and writes per-graph and summary CSV plus PNG/SVG figures.\n"
            "Sweeps: threads m=4..40, tasks n=2..20, p-if/p-cre/p-wait 0.05..0.50.\n");
}

typedef enum sweep_kind { SW_THREADS, SW_TASKS, SW_PIF, SW_PCRE, SW_PWAIT } sweep_kind;
static const char *const sweep_names[] = {"threads", "tasks", "p-if", "p-cre", "p-wait"};
#define POINTS 10

typedef struct point_stats {
    double x;
    double sum_alg0, sum_exact, sum_t_alg0, sum_t_exact;
    double *gaps;
    double sum_tight, min_tight, max_tight;
    long n;
} point_stats;

static double point_value(sweep_kind k, int i)
{
    switch (k) {
    case SW_THREADS: return 4.0 * (i + 1);
    case SW_TASKS: return 2.0 * (i + 1);
    default: return 0.05 * (i + 1);
    }
}

static void apply_point(sweep_kind k, double x, ompdag_gen_params *p, int32_t *m)
{
    *m = 4;
    switch (k) {
    case SW_THREADS: *m = (int32_t)x; break;
    case SW_TASKS: p->tasks = (int32_t)x; break;
    case SW_PIF: p->p_if = x; break;
    case SW_PCRE: p->p_cre = x; break;
    case SW_PWAIT: p->p_wait = x; break;
    }
}

/* Runs one algorithm and returns m·R; the elapsed ns go to *ns. */
static ompdag_status timed_bound(const ompdag_condag *g, ompdag_algorithm alg, int32_t m,
                                 int64_t *btm, int64_t *ns, ompdag_error *err)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    opt.bound_only = true; /* the sweep compares bounds; no witness needed */
    ompdag_rta_result *r;
    int64_t t0 = cli_now_ns();
    ompdag_status st = ompdag_rta_run(g, alg, &opt, &r, err);
    *ns = cli_now_ns() - t0;
    if (!st) {
        *btm = ompdag_rta_result_bound_times_m(r);
        ompdag_rta_result_destroy(r);
    }
    return st;
}

static double percentile(const double *sorted, long n, double q)
{
    if (n == 0)
        return NAN;
    long i = (long)ceil(q * (double)n) - 1;
    return sorted[i < 0 ? 0 : i >= n ? n - 1 : i];
}

typedef struct experiment {
    sweep_kind kind;
    long graphs;
    uint64_t seed;
    const char *dir;
    bool plot;
} experiment;

static ompdag_status run_point(const experiment *e, int i, point_stats *ps, FILE *csv,
                               ompdag_error *err)
{
    ps->x = point_value(e->kind, i);
    ps->gaps = malloc(sizeof *ps->gaps * (size_t)e->graphs);
    if (!ps->gaps)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    for (long k = 0; k < e->graphs; ++k) {
        ompdag_gen_params p;
        ompdag_gen_params_init(&p);
        int32_t m;
        apply_point(e->kind, ps->x, &p, &m);
        /* The threads sweep analyses the same graphs at every m, so its
         * curve shows the effect of m alone. */
        uint64_t salt = e->kind == SW_THREADS ? 0 : (uint64_t)i * 1000003u;
        p.seed = e->seed + salt + (uint64_t)k;
        ompdag_condag *g;
        ompdag_status st = ompdag_gen_random(&p, &g, err);
        int64_t b0 = 0, bx = 0, t0 = 0, tx = 0;
        if (!st)
            st = timed_bound(g, OMPDAG_ALG_ALG0, m, &b0, &t0, err);
        if (!st)
            st = timed_bound(g, OMPDAG_ALG_EXACT, m, &bx, &tx, err);
        double tight = 0;
        if (!st)
            st = ompdag_sim_tightness(g, m, 2, p.seed, &tight, NULL, err);
        if (st)
            return st;
        double gap = bx ? 100.0 * (double)(b0 - bx) / (double)bx : 0.0;
        fprintf(csv, "%s,%g,%ld,%" PRIu64 ",%d,%d,%d,%.4f,%.4f,%.6f,%.3f,%.3f,%.6f\n",
                sweep_names[e->kind], ps->x, k, p.seed, ompdag_condag_node_count(g),
                ompdag_condag_task_count(g), m, (double)b0 / m, (double)bx / m, gap, t0 / 1e3,
                tx / 1e3, tight);
        ps->sum_tight += tight;
        ps->min_tight = k == 0 || tight < ps->min_tight ? tight : ps->min_tight;
        ps->max_tight = tight > ps->max_tight ? tight : ps->max_tight;
        ps->sum_alg0 += (double)b0 / m, ps->sum_exact += (double)bx / m;
        ps->sum_t_alg0 += (double)t0, ps->sum_t_exact += (double)tx;
        ps->gaps[ps->n++] = gap;
        ompdag_condag_destroy(g);
        cli_progress(sweep_names[e->kind], (uint64_t)(i * e->graphs + k + 1),
                     (uint64_t)(POINTS * e->graphs));
    }
    qsort(ps->gaps, (size_t)ps->n, sizeof *ps->gaps, ompdag_cmp_double);
    return OMPDAG_OK;
}

static void write_summary_row(FILE *f, const point_stats *ps)
{
    double n = (double)ps->n, mean_gap = 0;
    for (long i = 0; i < ps->n; ++i)
        mean_gap += ps->gaps[i] / n;
    fprintf(f, "%g,%ld,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f,%.3f,%.4f,%.4f,%.4f\n", ps->x, ps->n,
            ps->sum_alg0 / n, ps->sum_exact / n, mean_gap, percentile(ps->gaps, ps->n, 0.5),
            percentile(ps->gaps, ps->n, 0.9), percentile(ps->gaps, ps->n, 0.99),
            ps->gaps[ps->n - 1], (double)(ps->gaps[0]), ps->sum_t_exact / n / 1e3,
            ps->sum_t_alg0 / n / 1e3, ps->sum_t_alg0 > 0 ? ps->sum_t_exact / ps->sum_t_alg0 : NAN,
            ps->sum_tight / n, ps->min_tight, ps->max_tight);
}

static ompdag_status open_out(const experiment *e, const char *suffix, ompdag_atomic_file **af,
                              char *path, size_t size, ompdag_error *err)
{
    snprintf(path, size, "%s/%s%s", e->dir, sweep_names[e->kind], suffix);
    return ompdag_atomic_file_open(path, af, err);
}

static const char *gnuplot_script =
    "set datafile separator ','\n"
    "set key top left\n"
    "set grid\n"
    "set xlabel '%s'\n"
    "set multiplot layout 1,2 title 'seed 004 sweep: %s (%ld graphs per point)'\n"
    "set ylabel 'mean bound'\n"
    "plot '%s' using 1:3 skip 1 with linespoints title 'alg0 (RTAS19)', \\\n"
    "     '' using 1:4 skip 1 with linespoints title 'exact (Alg1)'\n"
    "set ylabel 'gap (alg0 - exact)/exact, %%'\n"
    "plot '%s' using 1:5 skip 1 with linespoints title 'mean', \\\n"
    "     '' using 1:7 skip 1 with linespoints title 'p90', \\\n"
    "     '' using 1:9 skip 1 with linespoints title 'max'\n"
    "unset multiplot\n";

/* Writes DIR/<sweep>.gp and runs gnuplot for PNG and SVG. */
static ompdag_status plot(const experiment *e, const char *summary, ompdag_error *err)
{
    const char *term[][2] = {{"pngcairo size 1100,450", ".png"}, {"svg size 1100,450", ".svg"}};
    for (int i = 0; i < 2; ++i) {
        char path[4096], *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        snprintf(path, sizeof path, "%s/%s%s", e->dir, sweep_names[e->kind], term[i][1]);
        fprintf(mem, "set terminal %s\nset output '%s'\n", term[i][0], path);
        fprintf(mem, gnuplot_script, sweep_names[e->kind], sweep_names[e->kind], e->graphs,
                summary, summary);
        fclose(mem);
        const char *const argv[] = {"gnuplot", NULL};
        int rc = cli_pipe_through(argv, text, len, stdout, err);
        free(text);
        if (rc != 0)
            return OMPDAG_ERR_IO;
    }
    return OMPDAG_OK;
}

static ompdag_status run_experiment(const experiment *e, ompdag_error *err)
{
    char graphs_path[4096], summary_path[4096];
    ompdag_atomic_file *gf = NULL, *sf = NULL;
    point_stats ps[POINTS] = {{0}};
    ompdag_status st = open_out(e, "-graphs.csv", &gf, graphs_path, sizeof graphs_path, err);
    if (!st)
        st = open_out(e, "-summary.csv", &sf, summary_path, sizeof summary_path, err);
    if (!st) {
        FILE *g = ompdag_atomic_file_stream(gf), *s = ompdag_atomic_file_stream(sf);
        fprintf(g, "sweep,x,graph,seed,nodes,tasks,m,alg0_bound,exact_bound,gap_pct,"
                   "alg0_us,exact_us,sim_over_bound\n");
        fprintf(s, "x,graphs,mean_alg0_bound,mean_exact_bound,mean_gap_pct,p50_gap_pct,"
                   "p90_gap_pct,p99_gap_pct,max_gap_pct,min_gap_pct,mean_exact_us,mean_alg0_us,"
                   "exact_over_alg0_time,mean_sim_over_bound,min_sim_over_bound,"
                   "max_sim_over_bound\n");
        for (int i = 0; i < POINTS && !st; ++i)
            if (!(st = run_point(e, i, &ps[i], g, err)))
                write_summary_row(s, &ps[i]);
    }
    if (!st)
        st = ompdag_atomic_file_commit(gf, err), gf = NULL;
    if (!st)
        st = ompdag_atomic_file_commit(sf, err), sf = NULL;
    ompdag_atomic_file_abort(gf);
    ompdag_atomic_file_abort(sf);
    for (int i = 0; i < POINTS; ++i)
        free(ps[i].gaps);
    if (!st && e->plot)
        st = plot(e, summary_path, err);
    if (!st)
        fprintf(stderr, "ompdag experiment: wrote %s and %s\n", graphs_path, summary_path);
    return st;
}

int cmd_experiment(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"sweep", required_argument, 0, 's'}, {"graphs", required_argument, 0, 'g'},
        {"seed", required_argument, 0, 'S'},  {"out", required_argument, 0, 'o'},
        {"no-plot", no_argument, 0, 'P'},     {0, 0, 0, 0}};
    experiment e = {.kind = (sweep_kind)-1, .graphs = 1000, .seed = 1, .plot = true};
    int c;
    int64_t v;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 's') {
            for (int k = 0; k < 5; ++k)
                if (!strcmp(optarg, sweep_names[k]))
                    e.kind = (sweep_kind)k;
        } else if (c == 'g' && cli_parse_i64(optarg, 1, 100000000, &v)) {
            e.graphs = (long)v;
        } else if (c == 'S' && cli_parse_i64(optarg, 0, INT64_MAX, &v)) {
            e.seed = (uint64_t)v;
        } else if (c == 'o') {
            e.dir = optarg;
        } else if (c == 'P') {
            e.plot = false;
        } else if (c == '?') {
            return cli_option_error("experiment", argv, longopts, "");
        } else {
            return cli_usage_error("experiment", "bad option or value '%s'", argv[optind - 1]);
        }
    }
    if ((int)e.kind < 0)
        return cli_usage_error("experiment", "--sweep must be threads, tasks, p-if, p-cre or p-wait");
    if (!e.dir)
        return cli_usage_error("experiment", "--out DIR is required");
    if (optind != argc)
        return cli_usage_error("experiment", "unexpected argument '%s'", argv[optind]);
    ompdag_error err = {0};
    if (mkdir(e.dir, 0777) != 0 && errno != EEXIST) {
        ompdag_error_set(&err, OMPDAG_ERR_IO, "%s: cannot create directory", e.dir);
        return cli_fail("experiment", &err);
    }
    return run_experiment(&e, &err) ? cli_fail("experiment", &err) : CLI_EXIT_OK;
}
