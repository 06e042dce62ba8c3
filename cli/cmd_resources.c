/* cli/cmd_resources.c — `ompdag resources`: the machine's resource table
 * (DISPAR's StreamMAP discovery, seed 001): CPU topology from hwloc and CUDA
 * devices from the CUDA runtime (include/ompdag/offload.h).  Zero GPUs is a
 * normal answer. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ompdag/fileio.h"
#include "ompdag/offload.h"

void cmd_resources_help(FILE *out)
{
    fprintf(out, "usage: ompdag resources [--format text|json] [-o OUT]\n\n"
                 "Lists this machine's resources: CPU packages, NUMA nodes, cores, PUs,\n"
                 "caches and memory (hwloc), and CUDA devices with their SMs, memory and\n"
                 "compute capability (when ompdag is built with CUDA).  No GPU is not an\n"
                 "error: the GPU list is empty and a note says why.  Also lists the mapping\n"
                 "targets (CO: one per NUMA node; CG: one per GPU) used to map regions.\n\n"
                 "  --format F   text (default) or json\n"
                 "  -o OUT       output file (default stdout), written atomically\n");
}

enum { OPT_FORMAT = 256 };

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

int cmd_resources(int argc, char **argv)
{
    static const struct option longopts[] = {{"format", required_argument, 0, OPT_FORMAT},
                                             {0, 0, 0, 0}};
    const char *path = "-";
    bool json = false;
    int c;
    opterr = 0;
    optind = 0; /* glibc: full re-initialisation, so the handler can run twice */
    while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
        if (c == 'o')
            path = optarg;
        else if (c == OPT_FORMAT && !strcmp(optarg, "json"))
            json = true;
        else if (c == OPT_FORMAT && !strcmp(optarg, "text"))
            json = false;
        else if (c == '?')
            return cli_option_error("resources", argv, longopts, "o:");
        else
            return cli_usage_error("resources", "bad option or value '%s'", argv[optind - 1]);
    }
    if (optind != argc)
        return cli_usage_error("resources", "unexpected argument '%s'", argv[optind]);

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
