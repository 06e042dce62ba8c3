/*
 * cli/cmd_map.c — `ompdag map`: assigns the task regions of con-DAG files to
 * this machine's resources with DISPAR's greedy StreamMAP rules (seed 001;
 * include/ompdag/offload.h): CG regions (graph key "resource_class", set by
 * the front end) only to CG resources, adjacent regions co-located, else the
 * least-loaded resource.  A region's load is its total WCET; regions that
 * follow each other in one function are adjacent.  Under mpirun the targets
 * of every node are gathered (named HOST:TARGET) and rank 0 maps over all of
 * them with the same rules, first to nodes then within each node, so that
 * neighbours are co-located per node (ompdag_map_over_nodes; issue 30
 * item 3).
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cli_opts.h"
#include "ompdag/compact.h"
#include "ompdag/offload.h"
#ifdef OMPDAG_HAVE_MPI
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#include "ompdag/bfs_mpi.h" /* ompdag_mpi_launched, ompdag_mpi_agree */
#endif

/* Where map's options go. */
typedef struct map_args {
    const char *out;
    int64_t assumed; /* --assume-gpus */
} map_args;

enum { MAP_NOPTS = 2 };

/* map's options, in --help's order, writing into *a. */
static cli_opts map_table(map_args *a, cli_opt t[MAP_NOPTS])
{
    const cli_opt rows[MAP_NOPTS] = {
        {NULL, 'o', CLI_ARG_REQUIRED, "-o FILE",
         "mapping file (JSON, written atomically; default stdout)", CLI_OPT_STRING, &a->out},
        {"assume-gpus", 0, CLI_ARG_REQUIRED, "--assume-gpus N",
         "plan for N more GPUs than this machine has (CG resources)", CLI_OPT_INT64, &a->assumed,
         .typed = {0, 64}},
    };
    memcpy(t, rows, sizeof rows);
    return (cli_opts){"map", t, MAP_NOPTS, .quiet_getopt = true, .help_col = 20};
}

void cmd_map_help(FILE *out)
{
    map_args a;
    cli_opt t[MAP_NOPTS];
    cli_opts table = map_table(&a, t);
    fprintf(out,
            "usage: ompdag map GRAPHS.json [-o MAPPING.json] [--assume-gpus N]\n\n"
            "Maps each task region to a resource of this machine (ompdag resources): CG\n"
            "regions (they launch GPU work, see the graph's \"resource_class\") to GPUs only,\n"
            "neighbouring regions of one function together, otherwise the least-loaded\n"
            "resource (Sheng et al. 2015, StreamMAP).  Load = the region's total WCET.\n\n");
    cli_opts_help(&table, out);
    fprintf(out, "exit status: 0 mapped, 1 bad input or no resource for a CG region, 2 usage\n");
}

typedef struct map_input {
    ompdag_condag_set *set;
    ompdag_map_region *regions;
    int32_t *edges;
    int nregions, nedges;
    char **names;
} map_input;

static void map_input_free(map_input *in)
{
    for (int r = 0; r < in->nregions; ++r)
        free(in->names[r]);
    free(in->names), free(in->regions), free(in->edges);
    ompdag_condag_set_destroy(in->set);
}

static bool same_function(const ompdag_condag *a, const ompdag_condag *b)
{
    const char *fa = ompdag_condag_function(a), *fb = ompdag_condag_function(b);
    return fa && fb && !strcmp(fa, fb);
}

/* A region's work: its total WCET, unfolded for a compact graph
 * (docs/compact.md).  A load is a weight for balancing, so a total past
 * int64 is summed in long double; past 2^64 instances of a costly node the
 * count itself is unknown, and the region cannot be weighed (it used to get
 * a saturated 9.22e18 without a word). */
static ompdag_status region_work(const ompdag_condag *g, const char *title, double *work,
                                 ompdag_error *err)
{
    int64_t total;
    if (!ompdag_compact_is_compact(g)) {
        *work = (double)ompdag_condag_total_wcet(g);
        return OMPDAG_OK;
    }
    if (ompdag_compact_expanded_total(g, 0, 0, &total)) {
        *work = (double)total;
        return OMPDAG_OK;
    }
    long double sum = 0;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        uint64_t k = ompdag_compact_node_instances(g, v);
        int64_t c = ompdag_condag_node_wcet(g, v);
        if (c && k == OMPDAG_COMPACT_MANY)
            return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                    "%s: node '%s' runs more than 2^64 times unfolded; its load "
                                    "cannot be weighed (lower the recursion bound)",
                                    title, ompdag_condag_node_id(g, v));
        sum += (long double)c * (long double)k;
    }
    *work = (double)sum;
    return OMPDAG_OK;
}

static ompdag_status regions_of(map_input *in, ompdag_error *err)
{
    int n = (int)ompdag_condag_set_count(in->set);
    in->regions = calloc((size_t)(n ? n : 1), sizeof *in->regions);
    in->names = calloc((size_t)(n ? n : 1), sizeof *in->names);
    in->edges = malloc(sizeof *in->edges * 2 * (size_t)(n ? n : 1));
    if (!in->regions || !in->names || !in->edges)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    for (int r = 0; r < n; ++r, ++in->nregions) {
        const ompdag_condag *g = ompdag_condag_set_graph(in->set, (size_t)r);
        json_t *cls = json_object_get(ompdag_condag_extra(g, -1), "resource_class");
        json_t *key = json_object_get(ompdag_condag_extra(g, -1), "region_key");
        char title[256];
        ompdag_condag_title(g, (size_t)r, title, sizeof title);
        size_t len = strlen(title) + (json_is_string(key) ? strlen(json_string_value(key)) : 0) + 4;
        if (!(in->names[r] = malloc(len)))
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        snprintf(in->names[r], len, "%s%s%s", title, json_is_string(key) ? " @" : "",
                 json_is_string(key) ? json_string_value(key) : "");
        double work = 0;
        ompdag_status st = region_work(g, title, &work, err);
        if (st) return st;
        in->regions[r] = (ompdag_map_region){
            in->names[r],
            json_is_string(cls) && !strcmp(json_string_value(cls), "CG") ? OMPDAG_REGION_CG
                                                                         : OMPDAG_REGION_CO,
            work};
        if (r > 0 && same_function(ompdag_condag_set_graph(in->set, (size_t)r - 1), g)) {
            in->edges[2 * in->nedges] = r - 1;
            in->edges[2 * in->nedges + 1] = r;
            in->nedges++;
        }
    }
    return OMPDAG_OK;
}

/* This machine's targets, plus `assumed` CG resources named "gpuK (assumed)". */
static ompdag_status targets(const ompdag_resources *res, int assumed, ompdag_map_resource **out,
                             int *count, char (*names)[32], ompdag_error *err)
{
    ompdag_status st = ompdag_resources_map_targets(res, out, count, err);
    if (st || assumed <= 0) return st;
    ompdag_map_resource *grown = realloc(*out, sizeof **out * (size_t)(*count + assumed));
    if (!grown) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    *out = grown;
    for (int k = 0; k < assumed; ++k) {
        snprintf(names[k], sizeof names[k], "gpu%d (assumed)", ompdag_resources_gpus(res) + k);
        grown[(*count)++] = (ompdag_map_resource){names[k], OMPDAG_REGION_CG, 1.0};
    }
    return OMPDAG_OK;
}

#ifdef OMPDAG_HAVE_MPI
/* Rank 0: the gathered "name\tkind\tcapacity" lines (rank r's bytes from
 * counts[size + r], counts[r] long: one node per rank that sent any) as
 * targets whose names point into text, cut in place. */
static ompdag_status parse_targets(char *text, const int *counts, int size,
                                   ompdag_map_resource **out, int **node, int *count,
                                   ompdag_error *err)
{
    for (char *p = text; *p; p = strchr(p, '\n') + 1)
        ++*count;
    *out = malloc(sizeof **out * (size_t)(*count ? *count : 1));
    *node = malloc(sizeof **node * (size_t)(*count ? *count : 1));
    if (!*out || !*node) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    int i = 0, k = 0;
    for (int r = 0; r < size; ++r) {
        if (!counts[r]) continue;
        for (char *line = text + counts[size + r]; line < text + counts[size + r] + counts[r];
             ++i) {
            char *tab = strchr(line, '\t'), *end = strchr(line, '\n');
            *tab = *end = '\0';
            int kind = 0;
            double capacity = 1;
            sscanf(tab + 1, "%d\t%lg", &kind, &capacity);
            (*out)[i] = (ompdag_map_resource){line, (ompdag_region_class)kind, capacity};
            (*node)[i] = k;
            line = end + 1;
        }
        ++k;
    }
    return OMPDAG_OK;
}

/* Under mpirun: every node's targets, named HOST:TARGET, on rank 0 (the
 * first rank of each node describes it as "name\tkind\tcapacity" lines),
 * and (*node_of)[t], the node of target t (numbered in rank order).
 * *text keeps the names alive; the caller frees it, *out and *node_of. */
static ompdag_status node_targets(ompdag_map_resource **out, int **node_of, int *count, char **text,
                                  ompdag_error *err)
{
    int rank, size, local;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    char *mine = NULL, host[200] = "?";
    size_t len = 0;
    gethostname(host, sizeof host - 1);
    ompdag_resources *res = NULL;
    ompdag_map_resource *t = NULL;
    int n = 0;
    ompdag_status st = OMPDAG_OK;
    if (local == 0 && !(st = ompdag_resources_discover(&res, err)))
        st = ompdag_resources_map_targets(res, &t, &n, err);
    FILE *mem = !st && local == 0 ? open_memstream(&mine, &len) : NULL;
    for (int i = 0; mem && i < n; ++i)
        fprintf(mem, "%s:%s\t%d\t%.17g\n", host, t[i].name, (int)t[i].kind, t[i].capacity);
    if (mem) fclose(mem);
    free(t);
    ompdag_resources_destroy(res);
    if ((st = ompdag_mpi_agree(st, err)) != OMPDAG_OK) {
        free(mine);
        return st;
    }
    int bytes = (int)len, *counts = rank == 0 ? calloc(2 * (size_t)size, sizeof *counts) : NULL;
    MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    long total = 0;
    for (int r = 0; rank == 0 && r < size; ++r)
        counts[size + r] = (int)total, total += counts[r];
    *text = rank == 0 ? calloc((size_t)total + 1, 1) : NULL;
    MPI_Gatherv(mine, bytes, MPI_CHAR, *text, counts, counts ? counts + size : NULL, MPI_CHAR, 0,
                MPI_COMM_WORLD);
    free(mine);
    *out = NULL;
    *node_of = NULL;
    *count = 0;
    ompdag_status st2 =
        rank == 0 ? parse_targets(*text, counts, size, out, node_of, count, err) : OMPDAG_OK;
    free(counts);
    return st2;
}

/* The whole command under mpirun: rank 0 maps the regions of the graphs
 * over every node's targets and writes the mapping. */
static int map_mpi(const char *graphs, const char *out, int64_t assumed)
{
    int rank;
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ompdag_error err = {0};
    ompdag_map_resource *targ = NULL;
    int ntarg = 0, *node = NULL;
    char *text = NULL;
    ompdag_status st = assumed > 0 ? ompdag_error_set(&err, OMPDAG_ERR_ARGUMENT,
                                                      "--assume-gpus is for one machine; under "
                                                      "mpirun every node's GPUs are discovered")
                                   : OMPDAG_OK;
    if ((st = ompdag_mpi_agree(st, &err)) == OMPDAG_OK)
        st = node_targets(&targ, &node, &ntarg, &text, &err);
    map_input in = {0};
    int32_t *assign = NULL;
    if (!st && rank == 0) {
        if (!(in.set = cli_load_graphs("map", graphs))) st = OMPDAG_ERR_IO, err.message[0] = '\0';
        if (!st) st = regions_of(&in, &err);
        if (!st && !(assign = malloc(sizeof *assign * (size_t)(in.nregions ? in.nregions : 1))))
            st = ompdag_error_set(&err, OMPDAG_ERR_NOMEM, "out of memory");
        if (!st)
            st = ompdag_map_over_nodes(in.regions, in.nregions, in.edges, in.nedges, targ, node,
                                       ntarg, assign, &err);
        if (!st) st = ompdag_map_write(out, in.regions, in.nregions, targ, ntarg, assign, &err);
    }
    int rc = st ? CLI_EXIT_FAIL : CLI_EXIT_OK;
    if (st && rank == 0 && err.message[0]) rc = cli_fail("map", &err);
    free(assign), free(targ), free(node), free(text);
    map_input_free(&in);
    MPI_Finalize();
    return rc;
}
#endif

int cmd_map(int argc, char **argv)
{
    map_args args = {"-", 0};
    cli_opt t[MAP_NOPTS];
    cli_opts table = map_table(&args, t);
    int first, rc = cli_opts_parse(&table, argc, argv, &first);
    if (rc) return rc;
    if (first != argc - 1) return cli_usage_error("map", "expected exactly one GRAPHS.json");
    const char *out = args.out;
    int64_t assumed = args.assumed;
#ifdef OMPDAG_HAVE_MPI
    if (ompdag_mpi_launched()) return map_mpi(argv[first], out, assumed);
#endif
    map_input in = {0};
    if (!(in.set = cli_load_graphs("map", argv[first]))) return CLI_EXIT_FAIL;
    ompdag_error err = {0};
    ompdag_resources *res = NULL;
    ompdag_map_resource *targ = NULL;
    int ntarg = 0;
    char(*names)[32] = calloc((size_t)assumed + 1, sizeof *names);
    int32_t *assign = NULL;
    ompdag_status st =
        names ? regions_of(&in, &err) : ompdag_error_set(&err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!st) st = ompdag_resources_discover(&res, &err);
    if (!st) st = targets(res, (int)assumed, &targ, &ntarg, names, &err);
    if (!st && !(assign = malloc(sizeof *assign * (size_t)(in.nregions ? in.nregions : 1))))
        st = ompdag_error_set(&err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!st)
        st = ompdag_map_regions(in.regions, in.nregions, in.edges, in.nedges, targ, ntarg, assign,
                                &err);
    if (!st) st = ompdag_map_write(out, in.regions, in.nregions, targ, ntarg, assign, &err);
    free(assign), free(targ), free(names);
    ompdag_resources_destroy(res);
    map_input_free(&in);
    return st ? cli_fail("map", &err) : CLI_EXIT_OK;
}
