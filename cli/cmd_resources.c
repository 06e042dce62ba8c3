/* cli/cmd_resources.c — `ompdag resources`: the machine's resource table
 * (DISPAR's StreamMAP discovery, seed 001): CPU topology from hwloc and CUDA
 * devices from the CUDA runtime (include/ompdag/offload.h).  Zero GPUs is a
 * normal answer.  Under mpirun, one table per node: the first rank of each
 * node discovers its node and rank 0 writes them all (issue 30 item 3). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
#include "ompdag/fileio.h"
#include "ompdag/offload.h"
#ifdef OMPDAG_HAVE_MPI
#include <mpi.h>
#include <unistd.h>

#include "ompdag/bfs_mpi.h" /* ompdag_mpi_launched, ompdag_mpi_agree */
#endif

/* Where resources' options go. */
typedef struct resources_args {
    const char *path;
    bool json;
} resources_args;

/* --format text|json; anything else is "bad option or value 'WORD'". */
static int set_format(const char *arg, void *dest)
{
    if (strcmp(arg, "json") && strcmp(arg, "text"))
        return cli_usage_error("resources", "bad option or value '%s'", cli_opts_word());
    *(bool *)dest = !strcmp(arg, "json");
    return 0;
}

enum { RESOURCES_NOPTS = 2 };

/* resources' options, in --help's order, writing into *a. */
static cli_opts resources_table(resources_args *a, cli_opt t[RESOURCES_NOPTS])
{
    const cli_opt rows[RESOURCES_NOPTS] = {
        {"format", 0, CLI_ARG_REQUIRED, "--format F", "text (default) or json", CLI_OPT_CALL,
         &a->json, NULL, set_format},
        {NULL, 'o', CLI_ARG_REQUIRED, "-o OUT", "output file (default stdout), written atomically",
         CLI_OPT_STRING, &a->path},
    };
    memcpy(t, rows, sizeof rows);
    return (cli_opts){"resources", t, RESOURCES_NOPTS, .quiet_getopt = true, .help_col = 15};
}

void cmd_resources_help(FILE *out)
{
    resources_args a;
    cli_opt t[RESOURCES_NOPTS];
    cli_opts table = resources_table(&a, t);
    fprintf(out, "usage: ompdag resources [--format text|json] [-o OUT]\n\n"
                 "Lists this machine's resources: CPU packages, NUMA nodes, cores, PUs,\n"
                 "caches and memory (hwloc), and CUDA devices with their SMs, memory and\n"
                 "compute capability (when ompdag is built with CUDA).  No GPU is not an\n"
                 "error: the GPU list is empty and a note says why.  Also lists the mapping\n"
                 "targets (CO: one per NUMA node; CG: one per GPU) used to map regions.\n\n");
    cli_opts_help(&table, out);
}

static int write_targets(FILE *out, const ompdag_resources *res, bool json, ompdag_error *err)
{
    ompdag_map_resource *t = NULL;
    int n = 0;
    if (ompdag_resources_map_targets(res, &t, &n, err) != OMPDAG_OK) return -1;
    if (!json) {
        fprintf(out, "mapping targets:");
        for (int i = 0; i < n; ++i)
            fprintf(out, " %s[%s, capacity %g]", t[i].name,
                    t[i].kind == OMPDAG_REGION_CG ? "CG" : "CO", t[i].capacity);
        fprintf(out, "\n");
    }
    free(t);
    return 0;
}

#ifdef OMPDAG_HAVE_MPI
/* This process's resource table and mapping targets, as text or JSON. */
static ompdag_status describe(bool json, char **text, size_t *len, ompdag_error *err)
{
    ompdag_resources *res = NULL;
    ompdag_status st = ompdag_resources_discover(&res, err);
    FILE *mem = open_memstream(text, len);
    if (!st && !mem) st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!st) st = ompdag_resources_write(res, mem, json, err);
    if (!st && write_targets(mem, res, json, err) != 0) st = err->code;
    if (mem) fclose(mem);
    ompdag_resources_destroy(res);
    return st;
}

/* Under mpirun: the first rank of each node describes it, rank 0 gathers the
 * descriptions (MPI_Gatherv of text) and writes one entry per node. */
static int resources_mpi(const char *path, bool json)
{
    int rank, size, local = 0;
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    int node_ranks = 1;
    MPI_Comm_size(node, &node_ranks);
    MPI_Comm_free(&node);
    ompdag_error err = {0};
    char *text = NULL, host[256] = "?";
    size_t len = 0;
    gethostname(host, sizeof host - 1);
    ompdag_status st = local == 0 ? describe(json, &text, &len, &err) : OMPDAG_OK;
    char *entry = NULL;
    size_t elen = 0;
    FILE *mem = st == OMPDAG_OK && local == 0 ? open_memstream(&entry, &elen) : NULL;
    if (mem) {
        if (json)
            fprintf(mem,
                    "{\"host\": \"%s\", \"first_rank\": %d, \"ranks\": %d, \"resources\": %.*s}",
                    host, rank, node_ranks, (int)len, text);
        else
            fprintf(mem, "node %s (%d rank%s, the first is rank %d):\n%.*s", host, node_ranks,
                    node_ranks == 1 ? "" : "s", rank, (int)len, text);
        fclose(mem);
    }
    free(text);
    if ((st = ompdag_mpi_agree(st, &err)) != OMPDAG_OK) {
        free(entry);
        MPI_Finalize();
        return rank == 0 ? cli_fail("resources", &err) : CLI_EXIT_FAIL;
    }
    int mine = entry ? (int)elen : 0,
        *counts = rank == 0 ? calloc(2 * (size_t)size, sizeof *counts) : NULL;
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char *all = NULL;
    if (rank == 0) {
        long total = 0;
        for (int r = 0; r < size; ++r)
            counts[size + r] = (int)total, total += counts[r];
        all = malloc((size_t)total + 1);
    }
    MPI_Gatherv(entry, mine, MPI_CHAR, all, counts, counts ? counts + size : NULL, MPI_CHAR, 0,
                MPI_COMM_WORLD);
    free(entry);
    int rc = CLI_EXIT_OK;
    if (rank == 0) {
        ompdag_atomic_file *f = NULL;
        if (ompdag_atomic_file_open(path, &f, &err) != OMPDAG_OK) {
            rc = cli_fail("resources", &err);
        } else {
            FILE *out = ompdag_atomic_file_stream(f);
            int nodes = 0;
            if (json) fputs("{\"nodes\": [", out);
            for (int r = 0; r < size; ++r)
                if (counts[r] > 0)
                    fprintf(out, "%s%.*s", json && nodes++ ? ", " : "", counts[r],
                            all + counts[size + r]);
            if (json) fputs("]}\n", out);
            if (ompdag_atomic_file_commit(f, &err) != OMPDAG_OK) rc = cli_fail("resources", &err);
        }
    }
    free(all);
    free(counts);
    MPI_Finalize();
    return rc;
}
#endif

int cmd_resources(int argc, char **argv)
{
    resources_args a = {"-", false};
    cli_opt t[RESOURCES_NOPTS];
    cli_opts table = resources_table(&a, t);
    int first, rc = cli_opts_parse(&table, argc, argv, &first);
    if (rc) return rc;
    if (first != argc) return cli_usage_error("resources", "unexpected argument '%s'", argv[first]);
    const char *path = a.path;
    bool json = a.json;

#ifdef OMPDAG_HAVE_MPI
    if (ompdag_mpi_launched()) return resources_mpi(path, json);
#endif
    ompdag_error err = {0};
    ompdag_resources *res = NULL;
    if (ompdag_resources_discover(&res, &err) != OMPDAG_OK) return cli_fail("resources", &err);
    ompdag_atomic_file *f = NULL;
    if (ompdag_atomic_file_open(path, &f, &err) != OMPDAG_OK) {
        ompdag_resources_destroy(res);
        return cli_fail("resources", &err);
    }
    FILE *out = ompdag_atomic_file_stream(f);
    ompdag_status st = ompdag_resources_write(res, out, json, &err);
    if (st == OMPDAG_OK && write_targets(out, res, json, &err) != 0) st = err.code;
    ompdag_resources_destroy(res);
    if (st != OMPDAG_OK) {
        ompdag_atomic_file_abort(f);
        return cli_fail("resources", &err);
    }
    if (ompdag_atomic_file_commit(f, &err) != OMPDAG_OK) return cli_fail("resources", &err);
    return CLI_EXIT_OK;
}
