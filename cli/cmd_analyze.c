/* cli/cmd_analyze.c — `ompdag analyze`: bounds of every graph in a file, for
 * each requested m and algorithm (include/ompdag/rta.h). */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
#include "ompdag/compact.h"
#include "ompdag/condag_gpu.h"
#include "ompdag/rta.h"
#ifdef OMPDAG_HAVE_MPI
#include <mpi.h>

#include "ompdag/bfs_mpi.h" /* ompdag_mpi_launched, ompdag_mpi_agree */
#endif

typedef struct analyze_opts {
    const char *file;
    char **files; /* --device: all FILEs */
    int file_count;
    bool batch;
    ompdag_eval_device device;
    cli_int_list threads;
    ompdag_algorithm algs[4];
    int alg_count;
    bool json;
    bool all; /* --algorithm all: skip alg0 on graphs it refuses (depend) */
    ompdag_rta_options rta;
} analyze_opts;

/* "all", or a comma-separated list such as "exact,alg0". */
static int parse_algorithms(const char *s, analyze_opts *o)
{
    o->all = !strcmp(s, "all");
    if (o->all)
        s = "exact,alg0,enumerate";
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    o->alg_count = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (o->alg_count == 4 || !ompdag_algorithm_parse(tok, &o->algs[o->alg_count]))
            return cli_usage_error(
                "analyze", "unknown algorithm list '%s' (exact, alg0, enumerate, depend, all)", s);
        o->alg_count++;
    }
    return o->alg_count ? 0 : cli_usage_error("analyze", "--algorithm needs a value");
}

static int set_algorithms(const char *arg, void *dest)
{
    return parse_algorithms(arg, dest);
}

static int set_format(const char *arg, void *dest)
{
    *(bool *)dest = !strcmp(arg, "json");
    if (!*(bool *)dest && strcmp(arg, "text"))
        return cli_usage_error("analyze", "--format is text or json, got '%s'", arg);
    return 0;
}

static int set_migration_model(const char *arg, void *dest)
{
    if (strcmp(arg, "wfs") && strcmp(arg, "bfs"))
        return cli_usage_error("analyze", "--migration-model is wfs or bfs");
    *(ompdag_migration_model *)dest =
        strcmp(arg, "bfs") ? OMPDAG_MIGRATION_WFS : OMPDAG_MIGRATION_BFS;
    return 0;
}

static int set_device(const char *arg, void *dest)
{
    analyze_opts *o = dest;
    o->batch = true;
    if (!ompdag_eval_device_parse(arg, &o->device))
        return cli_usage_error(
            "analyze",
            "--device is cpu, cpu-par, gpu-sim, gpu, gpu-sim-graphs or gpu-graphs, got '%s'", arg);
    return 0;
}

enum { ANALYZE_NOPTS = 7 };

/* analyze's options, in --help's order, writing into *o. */
static cli_opts analyze_table(analyze_opts *o, cli_opt t[ANALYZE_NOPTS])
{
    const cli_opt rows[ANALYZE_NOPTS] = {
        {"threads", 0, CLI_ARG_REQUIRED, "--threads M[,M...]",
         "thread counts (default: the file's \"threads\")", CLI_OPT_INT_LIST, &o->threads,
         .typed = {1, 1 << 20, "--threads wants integers in [1, 1048576], got '%s'"}},
        {"algorithm", 0, CLI_ARG_REQUIRED, "--algorithm A[,A...]",
         "exact (default), alg0, enumerate, depend, or all\n"
         "(a graph with depend clauses: exact runs depend, which\n"
         "says whether its figure is exact; alg0 refuses it)",
         CLI_OPT_CALL, o, NULL, set_algorithms},
        {"format", 0, CLI_ARG_REQUIRED, "--format text|json", "output format (default text)",
         CLI_OPT_CALL, &o->json, NULL, set_format},
        {"max-flows", 0, CLI_ARG_REQUIRED, "--max-flows N", "enumeration limit (default 1000000)",
         CLI_OPT_INT64, &o->rta.max_flows,
         .typed = {1, INT64_MAX, "--max-flows wants a positive integer"}},
        {"migration-overhead", 0, CLI_ARG_REQUIRED, "--migration-overhead O",
         "charge O per migration, counted on the flow", CLI_OPT_INT64, &o->rta.migration_overhead,
         .typed = {0, INT64_MAX, "--migration-overhead wants an integer >= 0"}},
        {"migration-model", 0, CLI_ARG_REQUIRED, "--migration-model wfs|bfs",
         "WFS: one per T node (default); BFS: one per W node", CLI_OPT_CALL,
         &o->rta.migration_model, NULL, set_migration_model},
        {"device", 0, CLI_ARG_REQUIRED, "--device DEVICE",
         "batch mode: exact bounds of every graph of every FILE\n"
         "at once, level-synchronously (gpu-sim runs the GPU\n"
         "kernel's code on the CPU); no witness; several FILEs allowed;\n"
         "DEVICE: cpu, cpu-par (OpenMP over graphs), gpu / gpu-sim\n"
         "(one launch per height level), gpu-graphs / gpu-sim-graphs\n"
         "(one launch, a thread per graph)",
         CLI_OPT_CALL, o, NULL, set_device},
    };
    memcpy(t, rows, sizeof rows);
    return (cli_opts){"analyze", t, ANALYZE_NOPTS, .quiet_getopt = true, .help_col = 25};
}

void cmd_analyze_help(FILE *out)
{
    analyze_opts o;
    cli_opt t[ANALYZE_NOPTS];
    cli_opts table = analyze_table(&o, t);
    fprintf(out, "usage: ompdag analyze FILE [options]\n"
                 "       ompdag analyze --device DEVICE FILE... [--threads M,...] [--format F]\n\n"
                 "Computes the response-time bound of every con-DAG in FILE (\"-\" = stdin):\n"
                 "  R <= max over flows of len + (vol - len)/m, exactly, as the integer m*R.\n\n"
                 "options:\n");
    cli_opts_help(&table, out);
    fprintf(out, "exit status: 0 ok, 1 bad input or analysis error, 2 usage error\n");
}

static int parse_args(int argc, char **argv, analyze_opts *o)
{
    ompdag_rta_options_init(&o->rta, 1);
    o->algs[0] = OMPDAG_ALG_EXACT, o->alg_count = 1;
    cli_opt t[ANALYZE_NOPTS];
    cli_opts table = analyze_table(o, t);
    int first, rc = cli_opts_parse(&table, argc, argv, &first);
    if (!rc && o->batch && (o->alg_count != 1 || o->algs[0] != OMPDAG_ALG_EXACT))
        rc = cli_usage_error("analyze", "--device computes the exact bound only");
    if (!rc && o->batch && o->rta.migration_overhead)
        rc = cli_usage_error("analyze", "--device does not support --migration-overhead");
    if (!rc && (o->batch ? first >= argc : first != argc - 1))
        rc = cli_usage_error("analyze",
                             o->batch ? "expected at least one FILE" : "expected exactly one FILE");
    if (!rc) {
        o->file = argv[first];
        o->files = argv + first;
        o->file_count = argc - first;
    }
    return rc;
}

/* Text output stays readable on huge graphs; --format json lists everything. */
enum { TEXT_MAX_CHOICES = 20 };

static void print_text_choices(FILE *out, const ompdag_condag *g, const ompdag_rta_result *r)
{
    char a[256], b[256];
    int32_t total = 0;
    ompdag_choice_group *gr = ompdag_rta_result_choice_groups(r, g, &total);
    for (int32_t i = 0; i < total && i < TEXT_MAX_CHOICES; ++i) {
        const char *label = ompdag_condag_node_label(g, gr[i].succ);
        fprintf(out, "%s    branch at %s takes %s%s%s%s", i ? "" : "  worst flow:\n",
                ompdag_condag_node_place(g, gr[i].node, a, sizeof a),
                ompdag_condag_node_place(g, gr[i].succ, b, sizeof b), label ? " (" : "",
                label ? label : "", label ? ")" : "");
        ompdag_choice_group_write_note(out, g, &gr[i]);
        fputc('\n', out);
    }
    free(gr);
    if (total <= 0)
        fprintf(out, "  worst flow: %s\n", total ? "(out of memory)" : "no branches");
    else if (total > TEXT_MAX_CHOICES)
        fprintf(out, "    ... and %d more branch choices (--format json lists all)\n",
                total - TEXT_MAX_CHOICES);
}

/* A graph whose every WCET is 0 was never annotated (a freshly extracted one):
 * its "bound 0 ns" would read as a result (issue 22 item 1).  Nonzero WCETs,
 * measured or written by hand, get their bound. */
static bool not_annotated(const ompdag_condag *g)
{
    return ompdag_condag_total_wcet(g) == 0;
}

static void print_text(FILE *out, const ompdag_condag *g, const ompdag_rta_result *r)
{
    const char *unit = ompdag_condag_time_unit(g);
    int32_t m = ompdag_rta_result_m(r);
    int64_t btm = ompdag_rta_result_bound_times_m(r);
    if (not_annotated(g)) {
        fprintf(out,
                "  m=%-3d %-9s not annotated: every WCET is 0, so there is no bound yet (run the "
                "program under `ompdag run --trace T`, then `ompdag annotate` this graph with T)\n",
                m, ompdag_algorithm_name(ompdag_rta_result_algorithm(r)));
        return;
    }
    fprintf(out, "  m=%-3d %-9s bound %.3f %s  (m*R = %" PRId64 ")", m,
            ompdag_algorithm_name(ompdag_rta_result_algorithm(r)), ompdag_rta_result_bound(r), unit,
            btm);
    if (ompdag_rta_result_vol(r) >= 0) /* compact loops above the path's limit: no path */
        fprintf(out, "  vol %" PRId64 "  len %" PRId64, ompdag_rta_result_vol(r),
                ompdag_rta_result_len(r));
    if (ompdag_rta_result_algorithm(r) == OMPDAG_ALG_ENUMERATE)
        fprintf(out, "  flows %" PRIu64, ompdag_rta_result_flow_count(r));
    if (ompdag_condag_has_depend(g) || ompdag_rta_result_algorithm(r) == OMPDAG_ALG_DEPEND)
        fprintf(out, "  %s", ompdag_rta_result_is_exact(r) ? "exact" : "sound, not exact");
    fputc('\n', out);
    ompdag_algorithm alg = ompdag_rta_result_algorithm(r);
    if (ompdag_rta_result_has_witness(r) && (alg == OMPDAG_ALG_EXACT || alg == OMPDAG_ALG_DEPEND)) {
        print_text_choices(out, g, r);
        fputs("  ", out);
        ompdag_rta_result_write_path(r, g, out);
    }
}

static void print_graph_header(const ompdag_condag *g, size_t i)
{
    char title[256];
    ompdag_loc loc = ompdag_condag_region_loc(g);
    printf("%s", ompdag_condag_title(g, i, title, sizeof title));
    if (loc.file) printf(" (%s:%d)", loc.file, loc.line);
    printf(": %d nodes, %d tasks", ompdag_condag_node_count(g), ompdag_condag_task_count(g));
    if (ompdag_compact_is_compact(g)) {
        uint64_t n = ompdag_compact_expanded_node_count(g);
        int64_t total;
        if (n == OMPDAG_COMPACT_MANY)
            printf(" (compact: 2^64 or more nodes unfolded)");
        else
            printf(" (compact: %" PRIu64 " nodes unfolded)", n);
        if (ompdag_compact_expanded_total(g, 0, 0, &total))
            printf(", total WCET %" PRId64 " %s unfolded\n", total, ompdag_condag_time_unit(g));
        else
            printf(", total WCET unfolded overflows int64\n");
        return;
    }
    printf(", total WCET %" PRId64 " %s", ompdag_condag_total_wcet(g), ompdag_condag_time_unit(g));
    if (ompdag_condag_has_depend(g))
        printf(", depend clauses on %d vars", ompdag_condag_depend_var_count(g));
    putchar('\n');
}

static json_t *result_json(const ompdag_condag *g, size_t i, const ompdag_rta_result *r)
{
    json_t *o = rta_result_to_json(r, g);
    char title[256];
    json_object_set_new(o, "graph", json_string(ompdag_condag_title(g, i, title, sizeof title)));
    if (ompdag_condag_function(g))
        json_object_set_new(o, "function", json_string(ompdag_condag_function(g)));
    json_object_set_new(o, "annotated", json_boolean(!not_annotated(g)));
    if (not_annotated(g))
        json_object_set_new(o, "note", json_string("not annotated: every WCET is 0; the bound "
                                                   "means nothing until `ompdag annotate`"));
    return o;
}

/* alg0 and enumerate are defined per instance: they run on the unfolding of a
 * compact graph (made once, up to UNFOLD_LIMIT nodes), and say so. */
enum { UNFOLD_LIMIT = 1000000 };

static const ompdag_condag *unfolded_for(const ompdag_condag *g, ompdag_condag **cache,
                                         const analyze_opts *o, ompdag_error *err)
{
    if (*cache) return *cache;
    if (ompdag_compact_expand(g, UNFOLD_LIMIT, cache, err)) return NULL;
    fprintf(stderr, "ompdag analyze: %s: alg0 and enumerate run on the unfolded graph (%d nodes)\n",
            o->file, ompdag_condag_node_count(*cache));
    return *cache;
}

/* Analyses one graph for every m and algorithm; false on an analysis error. */
static bool analyze_graph(const analyze_opts *o, const ompdag_condag *g, size_t i, json_t *results)
{
    const int32_t *ms;
    int nm;
    int32_t own;
    if (!cli_threads_for(g, o->threads.v, o->threads.n, &ms, &nm, &own)) {
        fprintf(stderr, "ompdag analyze: %s: graph %zu has no \"threads\"; pass --threads M\n",
                o->file, i);
        return false;
    }
    if (!o->json) print_graph_header(g, i);
    ompdag_condag *unfolded = NULL;
    for (int k = 0; k < nm; ++k)
        for (int a = 0; a < o->alg_count; ++a) {
            ompdag_rta_options opt = o->rta;
            opt.m = ms[k];
            if (o->all && o->algs[a] == OMPDAG_ALG_ALG0 && ompdag_condag_has_depend(g))
                continue; /* alg0 does not model depend clauses */
            ompdag_rta_result *r;
            ompdag_error err = {0};
            const ompdag_condag *on = g;
            if (ompdag_compact_is_compact(g) && o->algs[a] != OMPDAG_ALG_EXACT &&
                !(on = unfolded_for(g, &unfolded, o, &err))) {
                fprintf(stderr, "ompdag analyze: %s: %s\n", o->file, err.message);
                return false;
            }
            if (ompdag_rta_run(on, o->algs[a], &opt, &r, &err)) {
                fprintf(stderr, "ompdag analyze: %s: %s\n", o->file, err.message);
                ompdag_condag_destroy(unfolded);
                return false;
            }
            if (o->json)
                json_array_append_new(results, result_json(on, i, r));
            else
                print_text(stdout, on, r);
            ompdag_rta_result_destroy(r);
        }
    ompdag_condag_destroy(unfolded);
    return true;
}

/* ---- batch mode (--device) ------------------------------------------------ */

typedef struct batch_input {
    ompdag_condag_set **sets;
    const ompdag_condag **graphs;
    const char **origin; /* file of each graph */
    size_t count;
} batch_input;

static void batch_input_free(batch_input *in, int files)
{
    for (int i = 0; i < files; ++i)
        ompdag_condag_set_destroy(in->sets[i]);
    free(in->sets), free(in->graphs), free(in->origin);
}

static bool batch_load(const analyze_opts *o, batch_input *in)
{
    in->sets = calloc((size_t)o->file_count, sizeof *in->sets);
    size_t cap = 0;
    for (int f = 0; in->sets && f < o->file_count; ++f) {
        if (!(in->sets[f] = cli_load_graphs("analyze", o->files[f])))
            return false;
        size_t k = ompdag_condag_set_count(in->sets[f]);
        in->graphs = realloc(in->graphs, sizeof *in->graphs * (cap += k));
        in->origin = realloc(in->origin, sizeof *in->origin * cap);
        if (!in->graphs || !in->origin)
            return false;
        for (size_t i = 0; i < k; ++i, ++in->count) {
            in->graphs[in->count] = ompdag_condag_set_graph(in->sets[f], i);
            in->origin[in->count] = o->files[f];
        }
    }
    return in->sets != NULL;
}

static void batch_print(const analyze_opts *o, const batch_input *in, int32_t m,
                        const int64_t *btm, json_t *results)
{
    for (size_t i = 0; i < in->count; ++i) {
        char title[256];
        const ompdag_condag *g = in->graphs[i];
        ompdag_condag_title(g, i, title, sizeof title);
        if (!o->json) {
            printf("%s: %s: m=%-3d exact (%s) bound %.3f %s  (m*R = %" PRId64 ")\n", in->origin[i],
                   title, m, ompdag_eval_device_name(o->device), (double)btm[i] / m,
                   ompdag_condag_time_unit(g), btm[i]);
            continue;
        }
        json_array_append_new(results,
                              json_pack("{s:s,s:s,s:i,s:s,s:s,s:f,s:I,s:s}", "file", in->origin[i],
                                        "graph", title, "m", m, "algorithm", "exact", "device",
                                        ompdag_eval_device_name(o->device), "bound",
                                        (double)btm[i] / m, "bound_times_m", (json_int_t)btm[i],
                                        "time_unit", ompdag_condag_time_unit(g)));
    }
}

/* Rank and ranks of the batch under mpirun (0 and 1 otherwise). */
static int batch_rank, batch_ranks = 1;

/* Exact bounds of every graph of the batch into btm.  Under mpirun (issue
 * 30 item 2) each rank bounds a contiguous share and rank 0 gathers them in
 * order; a failure on any rank stops all with its message. */
static ompdag_status batch_bounds(const batch_input *in, int32_t m, ompdag_eval_device device,
                                  int64_t *btm, ompdag_error *err)
{
    if (batch_ranks == 1)
        return ompdag_exact_batch(in->graphs, in->count, m, device, btm, err);
#ifdef OMPDAG_HAVE_MPI
    const size_t lo = in->count * (size_t)batch_rank / (size_t)batch_ranks;
    const size_t hi = in->count * (size_t)(batch_rank + 1) / (size_t)batch_ranks;
    ompdag_status st = OMPDAG_OK;
    if (hi > lo)
        st = ompdag_exact_batch(in->graphs + lo, hi - lo, m, device, btm + lo, err);
    int *counts = malloc(sizeof *counts * 2 * (size_t)batch_ranks);
    if (!st && !counts)
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if ((st = ompdag_mpi_agree(st, err))) {
        free(counts);
        return st;
    }
    for (int r = 0; r < batch_ranks; ++r) {
        counts[batch_ranks + r] = (int)(in->count * (size_t)r / (size_t)batch_ranks);
        counts[r] = (int)(in->count * (size_t)(r + 1) / (size_t)batch_ranks) - counts[batch_ranks + r];
    }
    MPI_Gatherv(batch_rank == 0 ? MPI_IN_PLACE : btm + lo, (int)(hi - lo), MPI_INT64_T, btm, counts,
                counts + batch_ranks, MPI_INT64_T, 0, MPI_COMM_WORLD);
    free(counts);
    return OMPDAG_OK;
#else
    return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED, "built without MPI");
#endif
}

static int analyze_batch(const analyze_opts *o)
{
    batch_input in = {0};
    int rc = batch_load(o, &in) ? CLI_EXIT_OK : CLI_EXIT_FAIL;
#ifdef OMPDAG_HAVE_MPI
    if (batch_ranks > 1) { /* a rank that could not load must not leave the others waiting */
        ompdag_error e = {0};
        ompdag_status st = rc ? ompdag_error_set(&e, OMPDAG_ERR_IO, "cannot load the files") : OMPDAG_OK;
        if (ompdag_mpi_agree(st, &e))
            rc = CLI_EXIT_FAIL;
    }
#endif
    int64_t *btm = malloc(sizeof *btm * (in.count ? in.count : 1));
    json_t *results = json_array();
    for (int k = 0; !rc && btm && k < (o->threads.n ? o->threads.n : 1); ++k) {
        /* without --threads, the first graph's "threads" holds for the batch */
        int32_t m = o->threads.n ? o->threads.v[k] : 0;
        for (size_t i = 0; !m && i < in.count; ++i)
            m = ompdag_condag_threads(in.graphs[i]);
        ompdag_error err = {0};
        if (m <= 0)
            rc = cli_usage_error("analyze", "pass --threads M (the files have no \"threads\")");
        else if (batch_bounds(&in, m, o->device, btm, &err))
            rc = batch_rank == 0 ? cli_fail("analyze", &err) : CLI_EXIT_FAIL;
        else if (batch_rank == 0)
            batch_print(o, &in, m, btm, results);
    }
    bool ok = !rc && btm;
    if (ok && o->json && batch_rank == 0) {
        json_dumpf(results, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        fputc('\n', stdout);
    }
    json_decref(results);
    free(btm);
    batch_input_free(&in, o->file_count);
    return ok ? CLI_EXIT_OK : rc ? rc : CLI_EXIT_FAIL;
}

int cmd_analyze(int argc, char **argv)
{
    analyze_opts o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return free(o.threads.v), rc;
    if (o.batch) {
#ifdef OMPDAG_HAVE_MPI
        /* under mpirun the batch's graphs are split over the ranks */
        const bool mpi = ompdag_mpi_launched();
        if (mpi) {
            MPI_Init(NULL, NULL);
            MPI_Comm_rank(MPI_COMM_WORLD, &batch_rank);
            MPI_Comm_size(MPI_COMM_WORLD, &batch_ranks);
        }
        rc = analyze_batch(&o);
        if (mpi)
            MPI_Finalize();
#else
        rc = analyze_batch(&o);
#endif
        free(o.threads.v);
        return rc;
    }
    ompdag_condag_set *s = cli_load_graphs("analyze", o.file);
    if (!s)
        return free(o.threads.v), CLI_EXIT_FAIL;
    json_t *results = json_array();
    bool ok = true;
    for (size_t i = 0; i < ompdag_condag_set_count(s) && ok; ++i)
        ok = analyze_graph(&o, ompdag_condag_set_graph(s, i), i, results);
    if (ok && o.json) {
        json_t *shown = json_array_size(results) == 1 ? json_array_get(results, 0) : results;
        json_dumpf(shown, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        fputc('\n', stdout);
    }
    json_decref(results);
    ompdag_condag_set_destroy(s);
    free(o.threads.v);
    return ok ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
