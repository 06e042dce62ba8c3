/* cli/cmd_dot.c — `ompdag dot`: Graphviz drawing of a con-DAG
 * (include/ompdag/dot.h), optionally rendered to SVG by graphviz's `dot`. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
#include "ompdag/dot.h"
#include "ompdag/fileio.h"
#include "ompdag/report.h"

typedef struct dot_opts {
    const char *file, *out;
    int64_t graph, threads;
    bool flow, svg;
    int64_t layout_timeout_ns; /* 0: none */
} dot_opts;

/* --flow worst (the only flow drawn) */
static int set_flow(const char *arg, void *dest)
{
    if (strcmp(arg, "worst"))
        return cli_usage_error("dot", "bad option or value '%s'", cli_opts_word());
    *(bool *)dest = true;
    return 0;
}

/* --layout-timeout D: a duration, 0 for no limit. */
static int set_layout_timeout(const char *arg, void *dest)
{
    ompdag_error err = {0};
    if (!strcmp(arg, "0"))
        *(int64_t *)dest = 0;
    else if (ompdag_duration_parse(arg, dest, &err) != OMPDAG_OK)
        return cli_usage_error("dot", "--layout-timeout: %s", err.message);
    return 0;
}

enum { DOT_NOPTS = 6 };

/* dot's options, in --help's order, writing into *o. */
static cli_opts dot_table(dot_opts *o, cli_opt t[DOT_NOPTS])
{
    const cli_opt rows[DOT_NOPTS] = {
        {"graph", 0, CLI_ARG_REQUIRED, "--graph I", "which graph of a set (default 0)",
         CLI_OPT_INT64, &o->graph, .typed = {0, INT32_MAX}},
        {"flow", 0, CLI_ARG_REQUIRED, "--flow worst",
         "fill the exact worst-case flow, critical path in red", CLI_OPT_CALL, &o->flow, NULL,
         set_flow},
        {"threads", 0, CLI_ARG_REQUIRED, "--threads M",
         "m for --flow (default: the file's \"threads\")", CLI_OPT_INT64, &o->threads,
         .typed = {1, 1 << 20}},
        {"svg", 0, CLI_ARG_NONE, "--svg", "render with graphviz's dot to SVG", CLI_OPT_FLAG,
         &o->svg},
        {"layout-timeout", 0, CLI_ARG_REQUIRED, "--layout-timeout D",
         "stop graphviz after D (default 8s; 0 = no limit): exit 1\n"
         "naming the limit, nothing written (the DOT text without\n"
         "--svg needs no layout)",
         CLI_OPT_CALL, &o->layout_timeout_ns, NULL, set_layout_timeout},
        {NULL, 'o', CLI_ARG_REQUIRED, "-o OUT", "output file (default stdout), written atomically",
         CLI_OPT_STRING, &o->out},
    };
    memcpy(t, rows, sizeof rows);
    return (cli_opts){"dot", t, DOT_NOPTS, .quiet_getopt = true, .help_col = 21};
}

void cmd_dot_help(FILE *out)
{
    dot_opts o;
    cli_opt t[DOT_NOPTS];
    cli_opts table = dot_table(&o, t);
    fprintf(out,
            "usage: ompdag dot FILE [--graph I] [--flow worst --threads M] [--svg] [-o OUT]\n\n"
            "Draws a con-DAG: C diamonds, J triangles, F-edges dotted, T-edges dashed,\n"
            "W-edges solid, one cluster per task (Sun et al. 2020, Figure 4); D-edges of depend\n"
            "clauses (condag.md §6) bold blue with a hollow head.\n\n");
    cli_opts_help(&table, out);
}

static int parse_dot_args(int argc, char **argv, dot_opts *o)
{
    o->out = "-";
    o->layout_timeout_ns = CLI_LAYOUT_TIMEOUT_NS;
    cli_opt t[DOT_NOPTS];
    cli_opts table = dot_table(o, t);
    int first, rc = cli_opts_parse(&table, argc, argv, &first);
    if (rc) return rc;
    if (first != argc - 1) return cli_usage_error("dot", "expected exactly one FILE");
    o->file = argv[first];
    return 0;
}

/* Renders the drawing into memory so --svg can pipe it through `dot`. */
static ompdag_status draw(const dot_opts *o, const ompdag_condag *g, char **text, size_t *len,
                          ompdag_error *err)
{
    ompdag_rta_result *r = NULL;
    if (o->flow) {
        int32_t m = o->threads ? (int32_t)o->threads : ompdag_condag_threads(g);
        if (m <= 0)
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                    "--flow worst needs --threads (the file has no \"threads\")");
        ompdag_rta_options opt;
        ompdag_rta_options_init(&opt, m);
        ompdag_status st = ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, err);
        if (st) return st;
    }
    FILE *mem = open_memstream(text, len);
    ompdag_status st = mem ? ompdag_dot_write(mem, g, r, err)
                           : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (mem) fclose(mem);
    ompdag_rta_result_destroy(r);
    return st;
}

int cmd_dot(int argc, char **argv)
{
    dot_opts o = {0};
    int rc = parse_dot_args(argc, argv, &o);
    if (rc) return rc;
    ompdag_condag_set *s = cli_load_graphs("dot", o.file);
    if (!s) return CLI_EXIT_FAIL;
    ompdag_error err = {0};
    char *text = NULL;
    size_t len = 0;
    ompdag_atomic_file *af = NULL;
    ompdag_status st = OMPDAG_OK;
    const ompdag_condag *g = ompdag_condag_set_graph(s, (size_t)o.graph);
    if (!g)
        st = ompdag_error_set(&err, OMPDAG_ERR_ARGUMENT, "%s has %zu graph(s); no --graph %lld",
                              o.file, ompdag_condag_set_count(s), (long long)o.graph);
    if (!st) st = draw(&o, g, &text, &len, &err);
    if (!st) st = ompdag_atomic_file_open(o.out, &af, &err);
    if (!st) {
        FILE *f = ompdag_atomic_file_stream(af);
        const char *const dot_argv[] = {"dot", "-Tsvg", NULL};
        if (o.svg ? cli_pipe_through_limited(dot_argv, text, len, f, o.layout_timeout_ns, &err) != 0
                  : fwrite(text, 1, len, f) != len) {
            st = err.code ? err.code : ompdag_error_set(&err, OMPDAG_ERR_IO, "write failed");
            ompdag_atomic_file_abort(af);
        } else {
            st = ompdag_atomic_file_commit(af, &err);
        }
    }
    free(text);
    ompdag_condag_set_destroy(s);
    return st ? cli_fail("dot", &err) : CLI_EXIT_OK;
}
