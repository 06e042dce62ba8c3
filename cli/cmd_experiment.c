/*
 * cli/cmd_experiment.c — `ompdag experiment`: the random-graph study of Sun
 * et al. 2020, §7 (docs/condag.md §4).  For each point of one parameter sweep
 * it draws G graphs with the paper's defaults elsewhere (m=4, n=10,
 * P_if=P_wait=P_cre=0.3), runs alg0 and exact on each, and writes
 *   DIR/<sweep>-graphs.csv   one row per graph
 *   DIR/<sweep>-summary.csv  mean bounds, gap percentiles, mean run times
 *   DIR/<sweep>.gp, DIR/<sweep>.png, DIR/<sweep>.svg  figures (gnuplot)
 * The gap of a graph is (alg0 − exact) / exact, in percent.  The tightness
 * of a graph is its longest simulated response (WFS and BFS work-conserving
 * schedules of the worst flow and two random flows, report/sim.c) divided by
 * the exact bound: at most 1 whenever the bound holds.  Under mpirun the
 * graphs of each point are split over the ranks and rank 0 writes the same
 * files (issue 30 item 2).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_opts.h"
#include "ompdag/fileio.h"
#include "ompdag/gen.h"
#include "ompdag/internal/stats.h"
#include "ompdag/report.h"
#include "ompdag/rta.h"
#ifdef OMPDAG_HAVE_MPI
#include <mpi.h>

#include "ompdag/bfs_mpi.h" /* ompdag_mpi_launched, ompdag_mpi_agree */
#endif

void cmd_experiment_help(FILE *out)
{
    fprintf(out,
            "usage: ompdag experiment --sweep threads|tasks|p-if|p-cre|p-wait|p-dep --out DIR\n"
            "                         [--graphs 1000] [--seed S] [--no-plot]\n"
            "                         [--p-dep P] [--dep-vars K]\n\n"
            "Reproduces section 7 of Sun et al. 2020: for 10 points of the swept parameter,\n"
            "generates --graphs random con-DAGs (the paper's defaults elsewhere: m=4, n=10,\n"
            "P=0.3), runs alg0 and exact on each, and writes per-graph and summary CSV plus\n"
            "PNG/SVG figures.\n"
            "Sweeps: threads m=4..40, tasks n=2..20, p-if/p-cre/p-wait 0.05..0.50,\n"
            "p-dep 0.1..1.0.\n\n"
            "Dependences (condag.md section 6): --p-dep P gives each task depend clauses\n"
            "with probability P on --dep-vars K vars (default 4).  With P > 0 (or the\n"
            "p-dep sweep) the baseline column is the bound of the same graph WITHOUT its\n"
            "clauses (alg0 does not model them), 'gap' is the effect of the dependences,\n"
            "and two columns are added: exact (1 when the depend bound says it is exact)\n"
            "and enum_gap_pct (depend vs enumeration, where at most 10^5 flows; else empty).\n");
}

typedef enum sweep_kind { SW_THREADS, SW_TASKS, SW_PIF, SW_PCRE, SW_PWAIT, SW_PDEP } sweep_kind;
static const char *const sweep_names[] = {"threads", "tasks", "p-if", "p-cre", "p-wait", "p-dep"};
#define SWEEPS 6
#define POINTS 10

typedef struct point_stats {
    double x;
    double sum_alg0, sum_exact, sum_t_alg0, sum_t_exact;
    double *gaps;
    double sum_tight, min_tight, max_tight;
    long n;
    long exact_claims, enumerated; /* depend mode */
    double sum_enum_gap, max_enum_gap;
} point_stats;

static double point_value(sweep_kind k, int i)
{
    switch (k) {
    case SW_THREADS: return 4.0 * (i + 1);
    case SW_TASKS: return 2.0 * (i + 1);
    case SW_PDEP: return 0.1 * (i + 1);
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
    case SW_PDEP: p->p_dep = x; break;
    }
}

/* Runs one algorithm and returns m·R; the elapsed ns go to *ns, whether the
 * figure is exact to *exact (optional). */
static ompdag_status timed_bound_x(const ompdag_condag *g, ompdag_algorithm alg, int32_t m,
                                   int64_t *btm, int64_t *ns, bool *exact, ompdag_error *err)
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
        if (exact)
            *exact = ompdag_rta_result_is_exact(r);
        ompdag_rta_result_destroy(r);
    }
    return st;
}

static ompdag_status timed_bound(const ompdag_condag *g, ompdag_algorithm alg, int32_t m,
                                 int64_t *btm, int64_t *ns, ompdag_error *err)
{
    return timed_bound_x(g, alg, m, btm, ns, NULL, err);
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
    int64_t graphs;
    int64_t seed; /* >= 0 */
    const char *dir;
    bool plot;
    double p_dep;     /* --p-dep */
    int32_t dep_vars; /* --dep-vars */
    bool dep_mode;    /* p_dep > 0 or the p-dep sweep */
} experiment;

/* Depend mode, one graph: the baseline is the same graph without its clauses
 * (the generator draws them from their own stream), and the oracle's gap
 * where the graph has at most 10^5 flows (-1 otherwise). */
static ompdag_status depend_bounds(const ompdag_gen_params *p, const ompdag_condag *g, int32_t m,
                                   int64_t *b0, int64_t *t0, int64_t *bx, int64_t *tx, bool *exact,
                                   double *enum_gap, ompdag_error *err)
{
    ompdag_gen_params plain = *p;
    plain.p_dep = 0;
    ompdag_condag *g0;
    ompdag_status st = ompdag_gen_random(&plain, &g0, err);
    if (!st) {
        st = timed_bound(g0, OMPDAG_ALG_EXACT, m, b0, t0, err);
        ompdag_condag_destroy(g0);
    }
    if (!st)
        st = timed_bound_x(g, OMPDAG_ALG_EXACT, m, bx, tx, exact, err);
    *enum_gap = -1;
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    opt.max_flows = 100000;
    ompdag_rta_result *r;
    if (!st && ompdag_rta_run(g, OMPDAG_ALG_ENUMERATE, &opt, &r, NULL) == OMPDAG_OK) {
        int64_t be = ompdag_rta_result_bound_times_m(r);
        *enum_gap = be ? 100.0 * (double)(*bx - be) / (double)be : 0.0;
        ompdag_rta_result_destroy(r);
    }
    return st;
}

/* One graph's figures: one row of <sweep>-graphs.csv.  Plain data, so that
 * ranks can send rows to rank 0 as bytes (split_rows). */
typedef struct graph_row {
    long k;
    uint64_t seed;
    int nodes, tasks;
    int32_t m;
    int64_t b0, bx, t0, tx;
    int exact;
    double enum_gap, tight;
} graph_row;

/* Draws graph k of point i (value x) and computes its row. */
static ompdag_status compute_row(const experiment *e, int i, double x, long k, graph_row *row,
                                 ompdag_error *err)
{
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    int32_t m;
    p.p_dep = e->p_dep, p.dep_vars = e->dep_vars;
    apply_point(e->kind, x, &p, &m);
    /* The threads sweep analyses the same graphs at every m, so its
     * curve shows the effect of m alone. */
    uint64_t salt = e->kind == SW_THREADS ? 0 : (uint64_t)i * 1000003u;
    p.seed = e->seed + salt + (uint64_t)k;
    ompdag_condag *g = NULL;
    ompdag_status st = ompdag_gen_random(&p, &g, err);
    bool exact = true;
    *row = (graph_row){.k = k, .seed = p.seed, .m = m, .enum_gap = -1};
    if (!st && e->dep_mode)
        st = depend_bounds(&p, g, m, &row->b0, &row->t0, &row->bx, &row->tx, &exact,
                           &row->enum_gap, err);
    if (!st && !e->dep_mode)
        st = timed_bound(g, OMPDAG_ALG_ALG0, m, &row->b0, &row->t0, err);
    if (!st && !e->dep_mode)
        st = timed_bound(g, OMPDAG_ALG_EXACT, m, &row->bx, &row->tx, err);
    if (!st)
        st = ompdag_sim_tightness(g, m, 2, p.seed, &row->tight, NULL, err);
    if (!st) {
        row->nodes = ompdag_condag_node_count(g);
        row->tasks = ompdag_condag_task_count(g);
    }
    row->exact = exact;
    ompdag_condag_destroy(g);
    return st;
}

/* Writes a row and adds it to the point's statistics, in graph order. */
static void record_row(const experiment *e, const graph_row *r, point_stats *ps, FILE *csv)
{
    const int32_t m = r->m;
    const int64_t b0 = r->b0, bx = r->bx;
    const double tight = r->tight, enum_gap = r->enum_gap;
    /* alg0 over exact; in depend mode, depend over the clause-free bound */
    double gap = e->dep_mode ? (b0 ? 100.0 * (double)(bx - b0) / (double)b0 : 0.0)
                             : (bx ? 100.0 * (double)(b0 - bx) / (double)bx : 0.0);
    fprintf(csv, "%s,%g,%ld,%" PRIu64 ",%d,%d,%d,%.4f,%.4f,%.6f,%.3f,%.3f,%.6f",
            sweep_names[e->kind], ps->x, r->k, r->seed, r->nodes, r->tasks, m, (double)b0 / m,
            (double)bx / m, gap, r->t0 / 1e3, r->tx / 1e3, tight);
    if (e->dep_mode && enum_gap >= 0)
        fprintf(csv, ",%d,%.6f", r->exact, enum_gap);
    else if (e->dep_mode)
        fprintf(csv, ",%d,", r->exact);
    fputc('\n', csv);
    ps->exact_claims += r->exact;
    if (enum_gap >= 0) {
        ps->enumerated++, ps->sum_enum_gap += enum_gap;
        ps->max_enum_gap = enum_gap > ps->max_enum_gap ? enum_gap : ps->max_enum_gap;
    }
    ps->sum_tight += tight;
    ps->min_tight = r->k == 0 || tight < ps->min_tight ? tight : ps->min_tight;
    ps->max_tight = tight > ps->max_tight ? tight : ps->max_tight;
    ps->sum_alg0 += (double)b0 / m, ps->sum_exact += (double)bx / m;
    ps->sum_t_alg0 += (double)r->t0, ps->sum_t_exact += (double)r->tx;
    ps->gaps[ps->n++] = gap;
}

#ifdef OMPDAG_HAVE_MPI
/* Under mpirun (issue 30 item 2): rank r computes graphs r, r+N, ...; rank 0
 * gathers every row and records them in graph order, so the CSV is the one
 * process's (timing columns aside).  A failure on any rank stops all. */
static int exp_rank, exp_size = 1;

static ompdag_status split_rows(const experiment *e, int i, double x, graph_row *rows,
                                ompdag_error *err)
{
    long mine = 0;
    ompdag_status st = OMPDAG_OK;
    graph_row *part = malloc(sizeof *part * (size_t)(e->graphs / exp_size + 1));
    if (!part)
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    for (long k = exp_rank; !st && k < e->graphs; k += exp_size)
        st = compute_row(e, i, x, k, &part[mine++], err);
    if ((st = ompdag_mpi_agree(st, err)) != OMPDAG_OK) {
        free(part);
        return st;
    }
    int bytes = (int)(mine * (long)sizeof *part), *counts = NULL, *displs = NULL;
    graph_row *all = NULL;
    if (exp_rank == 0) {
        counts = malloc(sizeof *counts * 2 * (size_t)exp_size);
        all = malloc(sizeof *all * (size_t)e->graphs);
        if (!counts || !all)
            MPI_Abort(MPI_COMM_WORLD, 1); /* rank 0 cannot hold the rows it writes */
        displs = counts + exp_size;
    }
    MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int r = 0, at = 0; exp_rank == 0 && r < exp_size; at += counts[r++])
        displs[r] = at;
    MPI_Gatherv(part, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    for (long j = 0; exp_rank == 0 && j < e->graphs; ++j)
        rows[all[j].k] = all[j]; /* rank order is not graph order */
    free(all);
    free(counts);
    free(part);
    return OMPDAG_OK;
}
#endif

/* Every row of point i into rows[0..graphs), on rank 0 under MPI. */
static ompdag_status compute_rows(const experiment *e, int i, double x, graph_row *rows,
                                  ompdag_error *err)
{
#ifdef OMPDAG_HAVE_MPI
    if (exp_size > 1)
        return split_rows(e, i, x, rows, err);
#endif
    for (long k = 0; k < e->graphs; ++k) {
        ompdag_status st = compute_row(e, i, x, k, &rows[k], err);
        if (st)
            return st;
        cli_progress(sweep_names[e->kind], (uint64_t)(i * e->graphs + k + 1),
                     (uint64_t)(POINTS * e->graphs));
    }
    return OMPDAG_OK;
}

/* csv is NULL on ranks other than 0, which only compute. */
static ompdag_status run_point(const experiment *e, int i, point_stats *ps, FILE *csv,
                               ompdag_error *err)
{
    ps->x = point_value(e->kind, i);
    ps->gaps = malloc(sizeof *ps->gaps * (size_t)e->graphs);
    graph_row *rows = malloc(sizeof *rows * (size_t)e->graphs);
    ompdag_status st = ps->gaps && rows ? compute_rows(e, i, ps->x, rows, err)
                                        : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    for (long k = 0; !st && csv && k < e->graphs; ++k)
        record_row(e, &rows[k], ps, csv);
    free(rows);
    if (!st && csv)
        qsort(ps->gaps, (size_t)ps->n, sizeof *ps->gaps, ompdag_cmp_double);
    return st;
}

static void write_summary_row(FILE *f, const point_stats *ps, bool dep_mode)
{
    double n = (double)ps->n, mean_gap = 0;
    for (long i = 0; i < ps->n; ++i)
        mean_gap += ps->gaps[i] / n;
    fprintf(f, "%g,%ld,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f,%.3f,%.4f,%.4f,%.4f", ps->x, ps->n,
            ps->sum_alg0 / n, ps->sum_exact / n, mean_gap, percentile(ps->gaps, ps->n, 0.5),
            percentile(ps->gaps, ps->n, 0.9), percentile(ps->gaps, ps->n, 0.99),
            ps->gaps[ps->n - 1], (double)(ps->gaps[0]), ps->sum_t_exact / n / 1e3,
            ps->sum_t_alg0 / n / 1e3, ps->sum_t_alg0 > 0 ? ps->sum_t_exact / ps->sum_t_alg0 : NAN,
            ps->sum_tight / n, ps->min_tight, ps->max_tight);
    if (dep_mode)
        fprintf(f, ",%.4f,%ld,%.6f,%.6f", (double)ps->exact_claims / n, ps->enumerated,
                ps->enumerated ? ps->sum_enum_gap / (double)ps->enumerated : 0.0,
                ps->max_enum_gap);
    fputc('\n', f);
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
    "set multiplot layout 1,2 title 'Sun et al. 2020 sweep: %s (%ld graphs per point)'\n"
    "set ylabel 'mean bound'\n"
    "plot '%s' using 1:3 skip 1 with linespoints title '%s', \\\n"
    "     '' using 1:4 skip 1 with linespoints title '%s'\n"
    "set ylabel '%s'\n"
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
                summary, e->dep_mode ? "without depend clauses" : "alg0 (RTAS19)",
                e->dep_mode ? "depend (section 6)" : "exact (Alg1)",
                e->dep_mode ? "effect of depend (depend - nodep)/nodep, %" : "gap (alg0 - exact)/exact, %",
                summary);
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
    bool root = true; /* under MPI only rank 0 writes */
#ifdef OMPDAG_HAVE_MPI
    root = exp_rank == 0;
#endif
    ompdag_status st = OMPDAG_OK;
    if (root)
        st = open_out(e, "-graphs.csv", &gf, graphs_path, sizeof graphs_path, err);
    if (!st && root)
        st = open_out(e, "-summary.csv", &sf, summary_path, sizeof summary_path, err);
#ifdef OMPDAG_HAVE_MPI
    if (exp_size > 1)
        st = ompdag_mpi_agree(st, err);
#endif
    if (!st && !root) {
        for (int i = 0; i < POINTS && !st; ++i)
            st = run_point(e, i, &ps[i], NULL, err);
    } else if (!st) {
        FILE *g = ompdag_atomic_file_stream(gf), *s = ompdag_atomic_file_stream(sf);
        /* depend mode: "alg0" is the bound without clauses, "exact" the depend bound */
        const char *base = e->dep_mode ? "nodep" : "alg0", *ours = e->dep_mode ? "depend" : "exact";
        fprintf(g, "sweep,x,graph,seed,nodes,tasks,m,%s_bound,%s_bound,gap_pct,%s_us,%s_us,"
                   "sim_over_bound%s\n",
                base, ours, base, ours, e->dep_mode ? ",exact,enum_gap_pct" : "");
        fprintf(s, "x,graphs,mean_%s_bound,mean_%s_bound,mean_gap_pct,p50_gap_pct,"
                   "p90_gap_pct,p99_gap_pct,max_gap_pct,min_gap_pct,mean_%s_us,mean_%s_us,"
                   "%s_over_%s_time,mean_sim_over_bound,min_sim_over_bound,"
                   "max_sim_over_bound%s\n",
                base, ours, ours, base, ours, base,
                e->dep_mode ? ",exact_share,enumerated,mean_enum_gap_pct,max_enum_gap_pct" : "");
        for (int i = 0; i < POINTS && !st; ++i)
            if (!(st = run_point(e, i, &ps[i], g, err)))
                write_summary_row(s, &ps[i], e->dep_mode);
    }
    if (!st && root)
        st = ompdag_atomic_file_commit(gf, err), gf = NULL;
    if (!st && root)
        st = ompdag_atomic_file_commit(sf, err), sf = NULL;
    ompdag_atomic_file_abort(gf);
    ompdag_atomic_file_abort(sf);
    for (int i = 0; i < POINTS; ++i)
        free(ps[i].gaps);
    if (!st && e->plot && root)
        st = plot(e, summary_path, err);
    if (!st && root)
        fprintf(stderr, "ompdag experiment: wrote %s and %s\n", graphs_path, summary_path);
    return st;
}

/* --sweep NAME: a name not known leaves the sweep unset, refused after
 * parsing ("--sweep must be ..."). */
static int set_sweep(const char *arg, void *dest)
{
    for (int k = 0; k < SWEEPS; ++k)
        if (!strcmp(arg, sweep_names[k])) *(sweep_kind *)dest = (sweep_kind)k;
    return 0;
}

enum { EXPERIMENT_NOPTS = 7 };

/* experiment's options, writing into *e.  --help describes them in its
 * prose (no labels); a value refused is named as given. */
static cli_opts experiment_table(experiment *e, cli_opt t[EXPERIMENT_NOPTS])
{
    const cli_opt rows[EXPERIMENT_NOPTS] = {
        {"sweep", 0, CLI_ARG_REQUIRED, NULL, NULL, CLI_OPT_CALL, &e->kind, NULL, set_sweep},
        {"graphs", 0, CLI_ARG_REQUIRED, NULL, NULL, CLI_OPT_INT64, &e->graphs,
         .typed = {1, 100000000}},
        {"seed", 0, CLI_ARG_REQUIRED, NULL, NULL, CLI_OPT_INT64, &e->seed, .typed = {0, INT64_MAX}},
        {"out", 0, CLI_ARG_REQUIRED, NULL, NULL, CLI_OPT_STRING, &e->dir},
        {"no-plot", 0, CLI_ARG_NONE, NULL, NULL, CLI_OPT_CLEAR, &e->plot},
        {"p-dep", 0, CLI_ARG_REQUIRED, NULL, NULL, CLI_OPT_PROB, &e->p_dep},
        {"dep-vars", 0, CLI_ARG_REQUIRED, NULL, NULL, CLI_OPT_INT, &e->dep_vars,
         .typed = {1, 1 << 20}},
    };
    memcpy(t, rows, sizeof rows);
    return (cli_opts){"experiment", t, EXPERIMENT_NOPTS, .quiet_getopt = true};
}

int cmd_experiment(int argc, char **argv)
{
    experiment e = {.kind = (sweep_kind)-1, .graphs = 1000, .seed = 1, .plot = true, .dep_vars = 4};
    cli_opt t[EXPERIMENT_NOPTS];
    cli_opts table = experiment_table(&e, t);
    int first, rc = cli_opts_parse(&table, argc, argv, &first);
    if (rc) return rc;
    if ((int)e.kind < 0)
        return cli_usage_error("experiment",
                               "--sweep must be threads, tasks, p-if, p-cre, p-wait or p-dep");
    e.dep_mode = e.kind == SW_PDEP || e.p_dep > 0;
    if (!e.dir) return cli_usage_error("experiment", "--out DIR is required");
    if (first != argc)
        return cli_usage_error("experiment", "unexpected argument '%s'", argv[first]);
    ompdag_error err = {0};
    if (mkdir(e.dir, 0777) != 0 && errno != EEXIST) {
        ompdag_error_set(&err, OMPDAG_ERR_IO, "%s: cannot create directory", e.dir);
        return cli_fail("experiment", &err);
    }
#ifdef OMPDAG_HAVE_MPI
    if (ompdag_mpi_launched()) {
        MPI_Init(NULL, NULL);
        MPI_Comm_rank(MPI_COMM_WORLD, &exp_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &exp_size);
        if (exp_rank == 0 && exp_size > 1)
            fprintf(stderr, "ompdag experiment: the graphs of each point split over %d ranks\n",
                    exp_size);
        /* rank 0's commit and plot errors are its own: tell the others */
        ompdag_status st = run_experiment(&e, &err);
        if (exp_size > 1)
            st = ompdag_mpi_agree(st, &err);
        MPI_Finalize();
        if (st)
            return exp_rank == 0 ? cli_fail("experiment", &err) : CLI_EXIT_FAIL;
        return CLI_EXIT_OK;
    }
#endif
    return run_experiment(&e, &err) ? cli_fail("experiment", &err) : CLI_EXIT_OK;
}
