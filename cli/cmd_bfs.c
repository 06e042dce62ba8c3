/*
 * cli/cmd_bfs.c — `ompdag bfs`: Graph500-style BFS measurement with the
 * engines of cuda-offload/bfs (seed 003, Enterprise; Beamer's
 * direction-optimizing CPU BFS).  Per engine it runs --sources searches from
 * random keys of degree >= 1, optionally validates each (Graph500 rules), and
 * prints TEPS per search, their min / quartiles / max / harmonic mean, and
 * the levels with the direction used at each.  Under mpirun with more than
 * one rank (a build with MPI), the graph is split over the ranks and the
 * distributed engine of bfs_mpi.c runs instead (issue 30).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_opts.h"
#include "ompdag/bfs.h"
#include "ompdag/fileio.h"
#include "ompdag/graph.h"
#ifdef OMPDAG_HAVE_MPI
#include <mpi.h>

#include "ompdag/bfs_mpi.h"
#endif

#define MAX_ENGINES 8
#define DIRECTIONS_SHOWN 64

typedef struct bfs_cli {
    const char *graph_spec;
    ompdag_bfs_engine engines[MAX_ENGINES];
    int engine_count;
    int sources;
    bool validate, json, directed, show_levels;
    bool distributed;         /* --distributed: the MPI engine even on one rank */
    bool partition_2d;        /* --partition 2d|RxC: the 2-D engine (bfs_mpi_2d.c) */
    int grid_rows, grid_cols; /* its grid; 0 x 0: the squarest */
    int64_t seed;             /* >= 0 */
    int edge_factor;
    const char *save;     /* --save FILE: write the built graph */
    int64_t max_vertices; /* file readers' cap; 0: by file size */
    ompdag_bfs_options opts;
} bfs_cli;

static bool parse_engines(const char *list, bfs_cli *c, ompdag_error *err)
{
    char *copy = strdup(list), *save = NULL;
    if (!copy) return false;
    c->engine_count = 0;
    bool ok = true;
    for (char *tok = strtok_r(copy, ",", &save); tok && ok; tok = strtok_r(NULL, ",", &save)) {
        if (c->engine_count == MAX_ENGINES ||
            ompdag_bfs_engine_parse(tok, &c->engines[c->engine_count], err) != OMPDAG_OK)
            ok = false;
        else
            ++c->engine_count;
    }
    free(copy);
    return ok && c->engine_count > 0;
}

static bool parse_double(const char *s, double lo, double *out)
{
    char *end;
    double x = strtod(s, &end);
    if (end == s || *end || !(x >= lo)) return false;
    *out = x;
    return true;
}

static int set_engines(const char *arg, void *dest)
{
    ompdag_error err = {0};
    if (!parse_engines(arg, dest, &err))
        return cli_usage_error("bfs", "bad --engine '%s': %s", arg,
                               err.message[0] ? err.message : "empty list");
    return 0;
}

static int set_format(const char *arg, void *dest)
{
    if (strcmp(arg, "json") && strcmp(arg, "text"))
        return cli_usage_error("bfs", "--format is text or json, not '%s'", arg);
    *(bool *)dest = !strcmp(arg, "json");
    return 0;
}

static int set_alpha(const char *arg, void *dest)
{
    return parse_double(arg, 1e-9, dest)
               ? 0
               : cli_usage_error("bfs", "--alpha needs a positive number");
}

static int set_beta(const char *arg, void *dest)
{
    return parse_double(arg, 1e-9, dest) ? 0
                                         : cli_usage_error("bfs", "--beta needs a positive number");
}

static int set_gamma(const char *arg, void *dest)
{
    return parse_double(arg, 0, dest)
               ? 0
               : cli_usage_error("bfs", "--gamma needs a non-negative number");
}

static int set_loop(const char *arg, void *dest)
{
    ompdag_error err = {0};
    return ompdag_bfs_loop_parse(arg, dest, &err) ? cli_usage_error("bfs", "%s", err.message) : 0;
}

static int set_switch(const char *arg, void *dest)
{
    ompdag_error err = {0};
    return ompdag_bfs_switch_parse(arg, dest, &err) ? cli_usage_error("bfs", "%s", err.message) : 0;
}

/* --partition 1d, 2d (the squarest grid) or RxC (that grid). */
static int set_partition(const char *arg, void *dest)
{
    bfs_cli *c = dest;
    int rows = 0, cols = 0, used = 0;
    c->partition_2d = strcmp(arg, "1d") != 0;
    c->grid_rows = c->grid_cols = 0;
    if (!strcmp(arg, "1d") || !strcmp(arg, "2d")) return 0;
    if (sscanf(arg, "%dx%d%n", &rows, &cols, &used) != 2 || arg[used] || rows < 1 || cols < 1)
        return cli_usage_error("bfs", "--partition is 1d, 2d or a grid RxC (such as 2x3), not '%s'",
                               arg);
    c->grid_rows = rows;
    c->grid_cols = cols;
    return 0;
}

/* --tau's default in its help text, spelled from bfs.h's value */
#define BFS_STR(x) #x
#define BFS_XSTR(x) BFS_STR(x)

enum { BFS_GRAPH_NOPTS = 10, BFS_NOPTS = 26 };

/* bfs's options for the graph and the searches, in --help's order. */
static void bfs_graph_rows(bfs_cli *c, cli_opt t[BFS_GRAPH_NOPTS])
{
    const cli_opt rows[BFS_GRAPH_NOPTS] = {
        {"graph", 0, CLI_ARG_REQUIRED, "--graph G",
         "kron:SCALE (Graph500 Kronecker), uniform:SCALE, or a file\n"
         "(.csr binary, .mtx Matrix Market, else an edge list \"u v\")",
         CLI_OPT_STRING, &c->graph_spec},
        {"engine", 0, CLI_ARG_REQUIRED, "--engine LIST",
         "comma-separated: cpu-topdown, cpu, gpu, gpu-sim (default cpu)", CLI_OPT_CALL, c, NULL,
         set_engines},
        {"sources", 0, CLI_ARG_REQUIRED, "--sources N",
         "searches per engine from random keys of degree >= 1 (64)", CLI_OPT_INT, &c->sources,
         .typed = {1, 1 << 20, "--sources needs an integer in [1, 1048576]"}},
        {"validate", 0, CLI_ARG_NONE, "--validate",
         "check every search against the Graph500 rules; exit 1 on failure", CLI_OPT_FLAG,
         &c->validate},
        {"format", 0, CLI_ARG_REQUIRED, "--format F", "text (default) or json", CLI_OPT_CALL,
         &c->json, NULL, set_format},
        {"seed", 0, CLI_ARG_REQUIRED, "--seed S", "generator and key seed (1)", CLI_OPT_INT64,
         &c->seed, .typed = {0, INT64_MAX, "--seed needs a non-negative integer"}},
        {"edge-factor", 0, CLI_ARG_REQUIRED, "--edge-factor EF",
         "edges per vertex of generated graphs (16)", CLI_OPT_INT, &c->edge_factor,
         .typed = {1, 1024, "--edge-factor needs an integer in [1, 1024]"}},
        {"directed", 0, CLI_ARG_NONE, "--directed",
         "keep an edge-list/Matrix Market file directed (default: undirected,\n"
         "self-loops and duplicate edges removed)",
         CLI_OPT_FLAG, &c->directed},
        {"max-vertices", 0, CLI_ARG_REQUIRED, "--max-vertices N",
         "refuse a file whose ids ask for more than N vertices\n"
         "(default 2^20 + 16 per byte of the file)",
         CLI_OPT_INT64, &c->max_vertices,
         .typed = {1, INT64_MAX - 2, "--max-vertices needs a positive integer"}},
        {"threads", 0, CLI_ARG_REQUIRED, "--threads T",
         "OpenMP threads of the cpu engine (default: all)", CLI_OPT_INT, &c->opts.threads,
         .typed = {1, 4096, "--threads needs an integer in [1, 4096]"}},
    };
    memcpy(t, rows, sizeof rows);
}

/* bfs's options for the engines and the output, in --help's order. */
static void bfs_engine_rows(bfs_cli *c, cli_opt t[BFS_NOPTS - BFS_GRAPH_NOPTS])
{
    ompdag_bfs_options *o = &c->opts;
    const cli_opt rows[BFS_NOPTS - BFS_GRAPH_NOPTS] = {
        {"alpha", 0, CLI_ARG_REQUIRED, "--alpha A --beta B",
         "direction-optimizing thresholds (15, 18)", CLI_OPT_CALL, &o->alpha, NULL, set_alpha},
        {"beta", 0, CLI_ARG_REQUIRED, NULL, NULL, CLI_OPT_CALL, &o->beta, NULL, set_beta},
        {"tau", 0, CLI_ARG_REQUIRED, "--tau T",
         "gpu: hub threshold τ, out-degree > τ (" BFS_XSTR(OMPDAG_BFS_DEFAULT_TAU) ")",
         CLI_OPT_INT64, &o->tau, .typed = {0, INT64_MAX, "--tau needs a non-negative integer"}},
        {"gamma", 0, CLI_ARG_REQUIRED, "--gamma G", "gpu: go bottom-up when γ = Fh/Th > G (0.30)",
         CLI_OPT_CALL, &o->gamma, NULL, set_gamma},
        {"devices", 0, CLI_ARG_REQUIRED, "--devices D",
         "gpu-sim: simulated devices; gpu: CUDA devices; 1-D partitioned (1..8, 1)", CLI_OPT_INT,
         &o->devices, .typed = {1, 8, "--devices needs an integer in [1, 8]"}},
        {"hub-cache", 0, CLI_ARG_NONE, "--hub-cache",
         "gpu: switch the hub-vertex cache on (off by default: measured slower)", CLI_OPT_FLAG,
         &o->hub_cache},
        {"no-hub-cache", 0, CLI_ARG_NONE, "--no-hub-cache", "gpu: switch the hub-vertex cache off",
         CLI_OPT_CLEAR, &o->hub_cache},
        {"loop", 0, CLI_ARG_REQUIRED, "--loop L",
         "gpu, gpu-sim: device (one cooperative kernel per search, the default on\n"
         "one device), host (one launch + host sync per phase), enterprise (the\n"
         "seed's host-driven pipeline; the default with --devices > 1)",
         CLI_OPT_CALL, &o->loop, NULL, set_loop},
        {"switch", 0, CLI_ARG_REQUIRED, "--switch R",
         "gpu device/host loops: top-down -> bottom-up rule gamma (Enterprise,\n"
         "default), alpha (Beamer) or none (top-down only)",
         CLI_OPT_CALL, &o->direction, NULL, set_switch},
        {"bitmap", 0, CLI_ARG_NONE, "--bitmap",
         "gpu device/host loops: bottom-up reads a bitmap of the frontier\n"
         "(default: the status array, measured 3-4% faster on an H100)",
         CLI_OPT_FLAG, &o->bitmap},
        {"no-bitmap", 0, CLI_ARG_NONE, "--no-bitmap",
         "gpu device/host loops: bottom-up reads the status array", CLI_OPT_CLEAR, &o->bitmap},
        {"no-balance", 0, CLI_ARG_NONE, "--no-balance",
         "gpu device/host loops: one thread per vertex, no degree classes", CLI_OPT_CLEAR,
         &o->balance},
        {"save", 0, CLI_ARG_REQUIRED, "--save FILE",
         "write the built graph (.csr binary, .mtx Matrix Market, else an\n"
         "edge list) so another BFS code can run on the same graph",
         CLI_OPT_STRING, &c->save},
        {"levels", 0, CLI_ARG_NONE, "--levels", "text: print every level of the first search",
         CLI_OPT_FLAG, &c->show_levels},
        {"distributed", 0, CLI_ARG_NONE, "--distributed",
         "under mpirun: run the distributed engine even on one rank", CLI_OPT_FLAG,
         &c->distributed},
        {"partition", 0, CLI_ARG_REQUIRED, "--partition P",
         "under mpirun: 1d (by vertex, default), 2d (top-down on the squarest\n"
         "R x C grid of the ranks, even on one rank) or RxC (that grid)",
         CLI_OPT_CALL, c, NULL, set_partition},
    };
    memcpy(t, rows, sizeof rows);
}

/* bfs's option table, writing into *c. */
static cli_opts bfs_table(bfs_cli *c, cli_opt t[BFS_NOPTS])
{
    bfs_graph_rows(c, t);
    bfs_engine_rows(c, t + BFS_GRAPH_NOPTS);
    return (cli_opts){"bfs", t, BFS_NOPTS, .quiet_getopt = true, .help_col = 21};
}

void cmd_bfs_help(FILE *out)
{
    bfs_cli c;
    cli_opt t[BFS_NOPTS];
    cli_opts table = bfs_table(&c, t);
    fprintf(out, "usage: ompdag bfs --graph kron:SCALE|uniform:SCALE|FILE [options]\n\n"
                 "Breadth-first search with TEPS measurement and Graph500 validation.\n\n");
    cli_opts_help(&table, out);
    fprintf(out,
            "\nUnder mpirun -np N (N > 1, a build with MPI) the graph is split 1-D by vertex over\n"
            "the ranks, each rank runs the cpu engine on its part and the frontier is exchanged\n"
            "every level; the report gives the ranks and the bytes sent per level.  With\n"
            "--engine gpu each rank runs its bottom-up levels on a GPU of its node.  With\n"
            "--partition 2d the arcs are split over an R x C grid of the ranks (top-down only).\n"
            "The gpu engine needs a CUDA build and a device; without one it stops with the "
            "reason.\n"
            "gpu-sim runs the same kernel logic on the host (its times are host times).\n");
}

/* The defaults, then the options of argv; 0 or the exit code of a refusal. */
static int bfs_parse(int argc, char **argv, bfs_cli *c)
{
    memset(c, 0, sizeof *c);
    c->engines[0] = OMPDAG_BFS_CPU;
    c->engine_count = 1;
    c->sources = 64;
    c->seed = 1;
    c->edge_factor = 16;
    ompdag_bfs_options_init(&c->opts);
    cli_opt t[BFS_NOPTS];
    cli_opts table = bfs_table(c, t);
    int first, rc = cli_opts_parse(&table, argc, argv, &first);
    if (rc) return rc;
    if (first < argc) return cli_usage_error("bfs", "unexpected argument '%s'", argv[first]);
    if (!c->graph_spec)
        return cli_usage_error("bfs", "--graph is required (kron:SCALE, uniform:SCALE or a file)");
    return CLI_EXIT_OK;
}

/* kron:SCALE or uniform:SCALE: 1 with *kron and *scale set; a file: 0; a bad
 * scale: -1 with err set. */
static int parse_generated(const char *spec, bool *kron, int *scale, ompdag_error *err)
{
    *kron = strncmp(spec, "kron:", 5) == 0;
    bool uni = strncmp(spec, "uniform:", 8) == 0;
    if (!*kron && !uni) return 0;
    int64_t s;
    if (!cli_parse_i64(spec + (*kron ? 5 : 8), 1, 40, &s)) {
        if (err) {
            err->code = OMPDAG_ERR_ARGUMENT;
            snprintf(err->message, sizeof err->message, "bad scale in --graph %s (1..40)", spec);
        }
        return -1;
    }
    *scale = (int)s;
    return 1;
}

static unsigned file_flags(const bfs_cli *c)
{
    return c->directed ? 0u : (unsigned)OMPDAG_GRAPH_UNDIRECTED_SIMPLE;
}

static ompdag_status load_graph(const bfs_cli *c, ompdag_graph **g, int *scale, ompdag_error *err)
{
    *scale = -1;
    bool kron;
    int s, gen = parse_generated(c->graph_spec, &kron, &s, err);
    if (gen < 0) return OMPDAG_ERR_ARGUMENT;
    if (gen) {
        *scale = s;
        return kron ? ompdag_graph_kronecker(s, c->edge_factor, c->seed, g, err)
                    : ompdag_graph_uniform(s, c->edge_factor, c->seed, g, err);
    }
    return ompdag_graph_read_limited(c->graph_spec, OMPDAG_GRAPH_FORMAT_AUTO, file_flags(c),
                                     c->max_vertices, g, err);
}

static void direction_string(const ompdag_bfs_result *r, char *buf, size_t size)
{
    int L = ompdag_bfs_result_level_count(r), k = 0;
    for (int i = 1; i < L && (size_t)k + 4 < size; ++i) {
        if (k == DIRECTIONS_SHOWN) {
            snprintf(buf + k, size - (size_t)k, "...");
            return;
        }
        buf[k++] = ompdag_bfs_result_level(r, i)->direction == OMPDAG_BFS_BOTTOM_UP ? 'B' : 'T';
    }
    buf[k] = '\0';
}

static void print_levels(FILE *out, const ompdag_bfs_result *r)
{
    static const char *const wf[] = {"-",      "interleaved", "contiguous", "shrink",
                                     "sparse", "append",      "convert"};
    fprintf(out,
            "  level  dir  visited   small  middle  large  extreme  hubs  gamma   hc_hits/probes  "
            "next-queue  launches  syncs  barriers\n");
    for (int i = 1; i < ompdag_bfs_result_level_count(r); ++i) {
        const ompdag_bfs_level *l = ompdag_bfs_result_level(r, i);
        fprintf(out,
                "  %5d  %s  %9lld  %6lld  %6lld  %5lld  %7lld  %4lld  %5.3f  %lld/%lld  %s  %lld  "
                "%lld  %lld\n",
                i, l->direction == OMPDAG_BFS_BOTTOM_UP ? "BU" : "TD", (long long)l->visited,
                (long long)l->queue[0], (long long)l->queue[1], (long long)l->queue[2],
                (long long)l->queue[3], (long long)l->hubs, l->gamma, (long long)l->hc_hits,
                (long long)l->hc_probes, wf[l->workflow >= 0 && l->workflow <= 6 ? l->workflow : 0],
                (long long)l->launches, (long long)l->host_syncs, (long long)l->barriers);
    }
}

/* What the per-search callback of the trial harness prints with. */
typedef struct trial_out {
    const bfs_cli *c;
    const char *name;
} trial_out;

static void print_trial(void *ctx, const ompdag_bfs_trial *t, const ompdag_bfs_result *r,
                        const ompdag_error *verr)
{
    const trial_out *o = ctx;
    FILE *out = stdout;
    const char *valid = t->valid < 0 ? "-" : t->valid ? "yes" : "no";
    if (verr)
        fprintf(stderr, "ompdag bfs: %s, search %d from %lld: %s\n", o->name, t->index,
                (long long)t->source, verr->message);
    char dirs[DIRECTIONS_SHOWN + 8];
    direction_string(r, dirs, sizeof dirs);
    if (o->c->json) {
        fprintf(out, "%s\n  {\"source\": %lld, \"teps\": %.6g, \"time_s\": %.9f, \"levels\": %d, ",
                t->index ? "," : "", (long long)t->source, t->teps, t->seconds, t->levels);
        if (t->valid >= 0)
            fprintf(out, "\"valid\": %s, ", t->valid ? "true" : "false");
        else
            fprintf(out, "\"valid\": null, ");
        fprintf(out, "\"launches\": %lld, \"host_syncs\": %lld, \"directions\": \"%s\"}",
                (long long)ompdag_bfs_result_launches(r),
                (long long)ompdag_bfs_result_host_syncs(r), dirs);
    } else {
        fprintf(out, "  %6d  %10lld  %12.4g  %10.6f  %6d  %5s  %s\n", t->index,
                (long long)t->source, t->teps, t->seconds, t->levels, valid, dirs);
        if (t->index == 0 && o->c->show_levels) print_levels(out, r);
    }
}

/* Runs all searches of one engine through the shared trial harness; returns
 * the number of invalid ones, or -1 when the engine could not run. */
static int run_engine(const bfs_cli *c, const ompdag_graph *g, int scale, ompdag_bfs_engine engine,
                      const int64_t *keys, int nkeys, bool first_json)
{
    FILE *out = stdout;
    ompdag_error err = {0};
    char why[256];
    if (engine == OMPDAG_BFS_GPU && !ompdag_bfs_gpu_available(why, sizeof why)) {
        fprintf(stderr, "ompdag bfs: engine gpu cannot run here: %s\n", why);
        return -1;
    }
    const char *name = ompdag_bfs_engine_name(engine);
    if (c->json) {
        fprintf(out, "%s{\"engine\": \"%s\", ", first_json ? "" : ",\n", name);
        if (scale >= 0)
            fprintf(out, "\"scale\": %d, ", scale);
        else {
            fprintf(out, "\"graph\": ");
            ompdag_json_write_string(out, c->graph_spec);
            fprintf(out, ", ");
        }
        fprintf(out, "\"vertices\": %lld, \"edges\": %lld, \"searches\": [",
                (long long)ompdag_graph_vertices(g), (long long)ompdag_graph_edges(g));
    } else {
        fprintf(out, "engine %s: %d searches\n", name, nkeys);
        fprintf(out, "  %6s  %10s  %12s  %10s  %6s  %5s  %s\n", "search", "source", "TEPS",
                "time_s", "levels", "valid", "directions (T top-down, B bottom-up)");
    }
    trial_out o = {c, name};
    ompdag_bfs_trials_summary s;
    const bool gpu = engine == OMPDAG_BFS_GPU;
    if (ompdag_bfs_run_trials(g, engine, &c->opts, keys, nkeys, c->validate, gpu, print_trial, &o,
                              &s, &err) != OMPDAG_OK) {
        if (c->json) fprintf(out, "]}\n");
        cli_fail("bfs", &err);
        return -1;
    }
    /* The device and host loops count their launches and synchronisations;
     * the enterprise pipeline is not instrumented (its counts stay 0). */
    const bool counted =
        (engine == OMPDAG_BFS_GPU || engine == OMPDAG_BFS_GPU_SIM) && s.launches > 0;
    if (c->json) {
        fprintf(
            out,
            "\n], \"harmonic_mean_teps\": %.6g, \"min_teps\": %.6g, \"first_quartile_teps\": %.6g, "
            "\"median_teps\": %.6g, \"third_quartile_teps\": %.6g, \"max_teps\": %.6g, "
            "\"mean_time_s\": %.9f, \"min_time_s\": %.9f, \"max_time_s\": %.9f",
            s.teps.harmonic_mean, s.teps.min, s.teps.first_quartile, s.teps.median,
            s.teps.third_quartile, s.teps.max, s.mean_s, s.min_s, s.max_s);
        if (counted)
            fprintf(out,
                    ", \"launches_per_search\": %.2f, \"host_syncs_per_search\": %.2f, "
                    "\"grid_barriers_per_search\": %.2f",
                    s.launches, s.host_syncs, s.barriers);
        fprintf(out, ", \"invalid\": %d}", s.invalid);
    } else {
        fprintf(out,
                "  TEPS min %.4g  q1 %.4g  median %.4g  q3 %.4g  max %.4g  harmonic mean %.4g\n",
                s.teps.min, s.teps.first_quartile, s.teps.median, s.teps.third_quartile, s.teps.max,
                s.teps.harmonic_mean);
        fprintf(out, "  time per search: mean %.6f s  min %.6f  max %.6f  (max/min %.2f)\n",
                s.mean_s, s.min_s, s.max_s, s.min_s > 0 ? s.max_s / s.min_s : 0.0);
        if (counted)
            fprintf(out,
                    "  per search: %.2f kernel launches, %.2f host syncs, %.2f grid barriers (%s "
                    "loop)\n",
                    s.launches, s.host_syncs, s.barriers,
                    ompdag_bfs_loop_name(c->opts.loop == OMPDAG_BFS_LOOP_AUTO
                                             ? (c->opts.devices == 1 ? OMPDAG_BFS_LOOP_DEVICE
                                                                     : OMPDAG_BFS_LOOP_ENTERPRISE)
                                             : c->opts.loop));
        if (c->validate)
            fprintf(out, "  validation: %d of %d searches valid\n", nkeys - s.invalid, nkeys);
    }
    return s.invalid;
}

#ifdef OMPDAG_HAVE_MPI
/* ---- the distributed run (issue 30): every rank calls these; rank 0 prints ---- */

/* What rank 0 prints a distributed search with. */
typedef struct mpi_out {
    const bfs_cli *c;
    bool root;
} mpi_out;

static void mpi_directions(const ompdag_dbfs_result *r, char *buf, size_t size)
{
    int L = ompdag_dbfs_result_level_count(r), k = 0;
    for (int i = 1; i < L && (size_t)k + 4 < size; ++i) {
        if (k == DIRECTIONS_SHOWN) {
            snprintf(buf + k, size - (size_t)k, "...");
            return;
        }
        buf[k++] = ompdag_dbfs_result_level(r, i)->direction == OMPDAG_BFS_BOTTOM_UP ? 'B' : 'T';
    }
    buf[k] = '\0';
}

/* The first search's level records, printed after the table. */
typedef struct mpi_levels {
    ompdag_dbfs_level *lv;
    int count;
} mpi_levels;

/* Without memory for the copy, the table is left out (count 0). */
static void mpi_keep_levels(const ompdag_dbfs_result *r, mpi_levels *keep)
{
    keep->count = ompdag_dbfs_result_level_count(r);
    keep->lv = malloc((size_t)keep->count * sizeof *keep->lv);
    if (!keep->lv) keep->count = 0;
    for (int i = 1; i < keep->count; ++i)
        keep->lv[i] = *ompdag_dbfs_result_level(r, i);
}

static void mpi_print_levels(FILE *out, const mpi_levels *keep, int ranks)
{
    fprintf(out, "  levels of search 0, with the bytes sent between the %d ranks to find each:\n",
            ranks);
    fprintf(out, "  %5s  %3s  %10s  %12s\n", "level", "dir", "visited", "bytes");
    for (int i = 1; i < keep->count; ++i) {
        const ompdag_dbfs_level *l = &keep->lv[i];
        fprintf(out, "  %5d  %3s  %10lld  %12lld\n", i,
                l->direction == OMPDAG_BFS_BOTTOM_UP ? "BU" : "TD", (long long)l->visited,
                (long long)l->bytes);
    }
}

static void mpi_print_search(const mpi_out *o, int index, int64_t source,
                             const ompdag_dbfs_result *r, int valid)
{
    if (!o->root) return;
    char dirs[DIRECTIONS_SHOWN + 8];
    mpi_directions(r, dirs, sizeof dirs);
    const int L = ompdag_dbfs_result_level_count(r);
    if (o->c->json) {
        printf("%s\n  {\"source\": %lld, \"teps\": %.6g, \"time_s\": %.9f, \"levels\": %d, "
               "\"valid\": %s, \"directions\": \"%s\", \"comm_bytes\": %lld, \"level_bytes\": [",
               index ? "," : "", (long long)source, ompdag_dbfs_result_teps(r),
               ompdag_dbfs_result_seconds(r), L,
               valid < 0 ? "null"
               : valid   ? "true"
                         : "false",
               dirs, (long long)ompdag_dbfs_result_bytes(r));
        for (int i = 1; i < L; ++i)
            printf("%s%lld", i > 1 ? ", " : "", (long long)ompdag_dbfs_result_level(r, i)->bytes);
        printf("]}");
    } else {
        printf("  %6d  %10lld  %12.4g  %10.6f  %6d  %5s  %12lld  %s\n", index, (long long)source,
               ompdag_dbfs_result_teps(r), ompdag_dbfs_result_seconds(r), L,
               valid < 0 ? "-"
               : valid   ? "yes"
                         : "no",
               (long long)ompdag_dbfs_result_bytes(r), dirs);
    }
}

/* Builds this rank's part: generated in parallel, or read in parallel from
 * the file (each rank its byte range, bfs_mpi_read.c). */
static ompdag_status mpi_load(const bfs_cli *c, ompdag_dgraph **dg, int *scale, ompdag_error *err)
{
    bool kron;
    *scale = -1;
    int gen = parse_generated(c->graph_spec, &kron, scale, err);
    if (gen < 0) return ompdag_mpi_agree(OMPDAG_ERR_ARGUMENT, err);
    if (gen)
        return ompdag_dgraph_generate(kron ? OMPDAG_DGRAPH_KRONECKER : OMPDAG_DGRAPH_UNIFORM,
                                      *scale, c->edge_factor, c->seed, c->opts.threads, dg, err);
    return ompdag_dgraph_read(c->graph_spec, file_flags(c), c->max_vertices, c->opts.threads, dg,
                              err);
}

/* Runs every search; returns the number of invalid ones, -1 on an error. */
static int mpi_searches(const bfs_cli *c, const ompdag_dgraph *dg, const int64_t *keys, int nkeys,
                        ompdag_bfs_trials_summary *sum, double *mean_bytes, mpi_levels *first,
                        ompdag_error *err)
{
    const mpi_out o = {c, ompdag_dgraph_rank(dg) == 0};
    ompdag_dbfs_result *r;
    if (ompdag_mpi_agree(ompdag_dbfs_result_create(&r, err), err) != OMPDAG_OK) return -1;
    double *teps = malloc((size_t)nkeys * sizeof *teps);
    int64_t bytes = 0;
    memset(sum, 0, sizeof *sum);
    ompdag_status st = OMPDAG_OK;
    for (int i = 0; i < nkeys && st == OMPDAG_OK && teps; ++i) {
        if ((st = ompdag_dbfs_run(dg, keys[i], &c->opts, r, err)) != OMPDAG_OK) break;
        int valid = -1;
        ompdag_error verr = {0};
        if (c->validate) {
            valid = ompdag_dbfs_validate(dg, r, NULL, NULL, &verr) == OMPDAG_OK;
            sum->invalid += !valid;
            if (!valid && o.root)
                fprintf(stderr, "ompdag bfs: search %d from %lld: %s\n", i, (long long)keys[i],
                        verr.message);
        }
        mpi_print_search(&o, i, keys[i], r, valid);
        const double t = ompdag_dbfs_result_seconds(r);
        teps[i] = ompdag_dbfs_result_teps(r);
        sum->mean_s += t;
        if (i == 0 || t < sum->min_s) sum->min_s = t;
        if (t > sum->max_s) sum->max_s = t;
        bytes += ompdag_dbfs_result_bytes(r);
        sum->searches = i + 1;
        if (i == 0 && o.root) mpi_keep_levels(r, first); /* only rank 0 prints them */
    }
    if (sum->searches > 0) {
        sum->mean_s /= sum->searches;
        ompdag_bfs_teps_summarize(teps, sum->searches, &sum->teps, NULL);
        *mean_bytes = (double)bytes / sum->searches;
    }
    free(teps);
    ompdag_dbfs_result_destroy(r);
    return st == OMPDAG_OK ? sum->invalid : -1;
}

static void mpi_print_header(const bfs_cli *c, const ompdag_dgraph *dg, int scale, int nkeys)
{
    const int ranks = ompdag_dgraph_ranks(dg), threads = ompdag_dgraph_threads(dg);
    const char *engine = c->engines[0] == OMPDAG_BFS_GPU ? "gpu" : "cpu";
    if (c->json) {
        printf("{\"engine\": \"%s\", \"ranks\": %d, \"threads_per_rank\": %d, ", engine, ranks,
               threads);
        int rows, cols;
        int64_t moved;
        if (ompdag_dgraph_grid(dg, &rows, &cols, &moved))
            printf("\"grid_rows\": %d, \"grid_cols\": %d, \"grid_moved_bytes\": %lld, ", rows, cols,
                   (long long)moved);
        if (scale >= 0)
            printf("\"scale\": %d, ", scale);
        else {
            printf("\"graph\": ");
            ompdag_json_write_string(stdout, c->graph_spec);
            printf(", ");
        }
        printf("\"vertices\": %lld, \"edges\": %lld, \"searches\": [",
               (long long)ompdag_dgraph_vertices(dg), (long long)ompdag_dgraph_edges(dg));
        return;
    }
    printf("graph %s: %lld vertices, %lld edges, split over %d MPI ranks (1-D by vertex, %lld "
           "vertices on rank 0, %d thread%s per rank)\n",
           c->graph_spec, (long long)ompdag_dgraph_vertices(dg), (long long)ompdag_dgraph_edges(dg),
           ranks, (long long)ompdag_dgraph_local_vertices(dg), threads, threads == 1 ? "" : "s");
    int rows, cols;
    int64_t moved;
    if (ompdag_dgraph_grid(dg, &rows, &cols, &moved))
        printf("2-D partition: a %d x %d grid of the ranks (R x C), top-down only, one thread per "
               "rank; %lld bytes moved to make the blocks\n",
               rows, cols, (long long)moved);
    const int64_t file_bytes = ompdag_dgraph_file_bytes(dg);
    if (file_bytes > 0)
        printf("file read in parallel: rank 0 read %lld bytes of it\n", (long long)file_bytes);
    else if (file_bytes < 0)
        printf("file read whole by every rank (Matrix Market, a pipe, or ranks given different "
               "files)\n");
    printf("engine %s on %d ranks: %d searches%s\n", engine, ranks, nkeys,
           c->engines[0] == OMPDAG_BFS_GPU ? " (bottom-up levels on each rank's GPU)" : "");
    printf("  %6s  %10s  %12s  %10s  %6s  %5s  %12s  %s\n", "search", "source", "TEPS", "time_s",
           "levels", "valid", "comm_bytes", "directions (T top-down, B bottom-up)");
}

static void mpi_print_summary(const bfs_cli *c, const ompdag_bfs_trials_summary *s,
                              double mean_bytes, int nkeys)
{
    if (c->json) {
        printf("\n], \"harmonic_mean_teps\": %.6g, \"min_teps\": %.6g, \"first_quartile_teps\": "
               "%.6g, \"median_teps\": %.6g, \"third_quartile_teps\": %.6g, \"max_teps\": %.6g, "
               "\"mean_time_s\": %.9f, \"min_time_s\": %.9f, \"max_time_s\": %.9f, "
               "\"mean_comm_bytes\": %.0f, \"invalid\": %d}\n",
               s->teps.harmonic_mean, s->teps.min, s->teps.first_quartile, s->teps.median,
               s->teps.third_quartile, s->teps.max, s->mean_s, s->min_s, s->max_s, mean_bytes,
               s->invalid);
        return;
    }
    printf("  TEPS min %.4g  q1 %.4g  median %.4g  q3 %.4g  max %.4g  harmonic mean %.4g\n",
           s->teps.min, s->teps.first_quartile, s->teps.median, s->teps.third_quartile, s->teps.max,
           s->teps.harmonic_mean);
    printf("  time per search: mean %.6f s  min %.6f  max %.6f  (max/min %.2f)\n", s->mean_s,
           s->min_s, s->max_s, s->min_s > 0 ? s->max_s / s->min_s : 0.0);
    printf("  communication: %.0f bytes per search between ranks\n", mean_bytes);
    if (c->validate) printf("  validation: %d of %d searches valid\n", nkeys - s->invalid, nkeys);
}

/* The checks that need the rank count, made on every rank, printed once. */
static int mpi_check_options(const bfs_cli *c, bool root)
{
    const char *why = NULL;
    if (c->engine_count != 1 ||
        (c->engines[0] != OMPDAG_BFS_CPU && c->engines[0] != OMPDAG_BFS_GPU))
        why = "with several MPI ranks the engine is cpu, or gpu (each rank's bottom-up levels on "
              "its GPU); give one of them";
    else if (c->partition_2d && c->engines[0] != OMPDAG_BFS_CPU)
        why = "--partition 2d runs on the cpu (top-down only); leave out --engine gpu";
    else if (c->save)
        why = "--save writes a whole graph, which no rank holds under mpirun; run it in one "
              "process";
    if (!why) return CLI_EXIT_OK;
    return root ? cli_usage_error("bfs", "%s", why) : CLI_EXIT_USAGE;
}

/* Every rank must take the same path through the collectives: ranks given
 * different graph kinds, scales or search options (an MPMD launch) would
 * wait for each other forever.  File names may differ (each rank reads its
 * own; the graphs are compared after reading). */
static bool mpi_same_options(const bfs_cli *c, bool root)
{
    bool kron;
    int scale = 0, gen = parse_generated(c->graph_spec, &kron, &scale, NULL);
    enum { FIELDS = 9 };
    const int64_t mine[FIELDS] = {gen,
                                  kron,
                                  scale,
                                  c->edge_factor,
                                  (int64_t)c->seed,
                                  c->sources,
                                  c->validate * 2 + c->json,
                                  c->engine_count * 16 + c->engines[0] * 2 + (c->save != NULL),
                                  ((int64_t)c->grid_rows << 32) + c->grid_cols * 2 +
                                      c->partition_2d};
    int64_t lo[FIELDS], hi[FIELDS];
    MPI_Allreduce(mine, lo, FIELDS, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(mine, hi, FIELDS, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (!memcmp(lo, hi, sizeof lo)) return true;
    if (root)
        fprintf(stderr, "ompdag bfs: the ranks were given different --graph kinds, scales, "
                        "--edge-factor, --seed, --sources, --validate, --format, --engine or "
                        "--save or --partition; give every "
                        "rank the same options\n");
    return false;
}

/* The whole distributed command on one rank. */
static int bfs_mpi_run(const bfs_cli *c, bool root)
{
    /* agreed first: a usage error on some ranks only would leave the others waiting */
    if (!mpi_same_options(c, root)) return CLI_EXIT_USAGE;
    int rc = mpi_check_options(c, root);
    if (rc != CLI_EXIT_OK) return rc;
    ompdag_error err = {0};
    ompdag_dgraph *dg = NULL;
    int scale;
    if (mpi_load(c, &dg, &scale, &err) != OMPDAG_OK) return root ? cli_fail("bfs", &err) : 1;
    if (c->partition_2d &&
        ompdag_dgraph_partition_2d(dg, c->grid_rows, c->grid_cols, &err) != OMPDAG_OK) {
        ompdag_dgraph_destroy(dg);
        return root ? cli_fail("bfs", &err) : 1;
    }
    if (c->engines[0] == OMPDAG_BFS_GPU && ompdag_dgraph_use_gpu(dg, &err) != OMPDAG_OK) {
        ompdag_dgraph_destroy(dg);
        return root ? cli_fail("bfs", &err) : 1;
    }
    int64_t *keys = malloc((size_t)c->sources * sizeof *keys);
    int nkeys = keys ? ompdag_dgraph_pick_sources(dg, c->sources, c->seed, keys) : 0;
    if (nkeys == 0) {
        if (root)
            fprintf(stderr, "ompdag bfs: the graph has no edge, so no search key of degree >= 1\n");
        free(keys);
        ompdag_dgraph_destroy(dg);
        return CLI_EXIT_FAIL;
    }
    if (root) mpi_print_header(c, dg, scale, nkeys);
    ompdag_bfs_trials_summary s;
    double mean_bytes = 0;
    mpi_levels first = {NULL, 0};
    int bad = mpi_searches(c, dg, keys, nkeys, &s, &mean_bytes, &first, &err);
    if (bad < 0) {
        if (root && c->json) printf("]}\n");
        rc = root ? cli_fail("bfs", &err) : CLI_EXIT_FAIL;
    } else {
        if (root) mpi_print_summary(c, &s, mean_bytes, nkeys);
        if (root && !c->json) mpi_print_levels(stdout, &first, ompdag_dgraph_ranks(dg));
        rc = bad > 0 ? CLI_EXIT_FAIL : CLI_EXIT_OK;
    }
    free(first.lv);
    free(keys);
    ompdag_dgraph_destroy(dg);
    return root ? cli_flush_stdout("bfs", rc) : rc;
}

/* Starts MPI, runs the distributed command and stops MPI.  Returns -1 (MPI
 * already stopped) on one rank without --distributed: that run is a
 * one-process run. */
static int bfs_mpi(const bfs_cli *c)
{
    int provided, rank, size;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* A rank that lost its launcher comes up alone (a singleton): running
     * the whole search in each of N such processes would mislead. */
    const char *launched = getenv("OMPI_COMM_WORLD_SIZE");
    if (!launched) launched = getenv("PMI_SIZE");
    if (launched && atoi(launched) != size) {
        fprintf(stderr,
                "ompdag bfs: the launcher started %s ranks but MPI sees %d; check the MPI "
                "installation (mpirun and the library must come from the same MPI)\n",
                launched, size);
        MPI_Finalize();
        return CLI_EXIT_FAIL;
    }
    if (size == 1 && !c->distributed && !c->partition_2d) {
        MPI_Finalize();
        return -1;
    }
    int rc = bfs_mpi_run(c, rank == 0);
    /* Every rank leaves with the same status (the failures above are agreed). */
    MPI_Finalize();
    return rc;
}
#endif

/* Under mpirun: the distributed run, or -1 when this process runs the
 * one-process search (one rank without --distributed, or no MPI build). */
static int bfs_launch(const bfs_cli *c)
{
#ifdef OMPDAG_HAVE_MPI
    if (ompdag_mpi_launched()) return bfs_mpi(c);
    if (c->distributed)
        return cli_usage_error("bfs",
                               "--distributed runs under mpirun (mpirun -np N ompdag bfs ...)");
    if (c->partition_2d)
        return cli_usage_error("bfs", "--partition 2d runs under mpirun (mpirun -np N ompdag bfs "
                                      "...)");
#else
    if (c->partition_2d)
        return cli_usage_error("bfs", "--partition 2d needs a build with MPI (and mpirun)");
    if (c->distributed)
        return cli_usage_error("bfs", "--distributed needs a build with MPI "
                                      "(scripts/install-deps.sh installs Open MPI; then rebuild)");
    if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE"))
        fprintf(stderr, "ompdag bfs: warning: this ompdag was built without MPI, so every rank "
                        "runs the whole search on its own\n");
#endif
    return -1;
}

/* --save: writes the built graph (undirected, simple unless --directed), so
 * that any other BFS code can be run on exactly this graph.  0, or the exit
 * code after saying why. */
static int save_graph(const bfs_cli *c, const ompdag_graph *g)
{
    ompdag_error err = {0};
    if (ompdag_graph_write(g, c->save, OMPDAG_GRAPH_FORMAT_AUTO, &err) != OMPDAG_OK)
        return cli_fail("bfs", &err);
    /* with --save -, the graph was standard output: the report goes to
     * standard error from here on, so the two never mix */
    if (!strcmp(c->save, "-") && (fflush(stdout) || dup2(STDERR_FILENO, STDOUT_FILENO) < 0))
        return CLI_EXIT_FAIL;
    if (!c->json) printf("saved %s\n", c->save);
    return 0;
}

int cmd_bfs(int argc, char **argv)
{
    bfs_cli c;
    int rc = bfs_parse(argc, argv, &c);
    if (rc) return rc;
    if ((rc = bfs_launch(&c)) >= 0) return rc;
    ompdag_error err = {0};
    ompdag_graph *g = NULL;
    int scale;
    if (load_graph(&c, &g, &scale, &err) != OMPDAG_OK) return cli_fail("bfs", &err);
    if (c.save && (rc = save_graph(&c, g))) {
        ompdag_graph_destroy(g);
        return rc;
    }
    int64_t *keys = malloc((size_t)c.sources * sizeof *keys);
    if (!keys) {
        ompdag_graph_destroy(g);
        return CLI_EXIT_FAIL;
    }
    int nkeys = ompdag_bfs_pick_sources(g, c.sources, c.seed, keys);
    if (nkeys == 0) {
        fprintf(stderr, "ompdag bfs: the graph has no edge, so no search key of degree >= 1\n");
        free(keys);
        ompdag_graph_destroy(g);
        return CLI_EXIT_FAIL;
    }
    if (!c.json)
        printf("graph %s: %lld vertices, %lld edges, %.1f bytes/edge of CSR\n", c.graph_spec,
               (long long)ompdag_graph_vertices(g), (long long)ompdag_graph_edges(g),
               (double)ompdag_graph_memory_bytes(g) /
                   (double)(ompdag_graph_edges(g) > 0 ? ompdag_graph_edges(g) : 1));
    else if (c.engine_count > 1)
        printf("[\n");
    int status = CLI_EXIT_OK;
    for (int e = 0; e < c.engine_count; ++e) {
        int bad = run_engine(&c, g, scale, c.engines[e], keys, nkeys, e == 0);
        if (bad < 0) {
            status = CLI_EXIT_FAIL;
            break;
        }
        if (bad > 0) status = CLI_EXIT_FAIL;
    }
    if (c.json) printf(c.engine_count > 1 ? "\n]\n" : "\n");
    free(keys);
    ompdag_graph_destroy(g);
    return cli_flush_stdout("bfs", status);
}
