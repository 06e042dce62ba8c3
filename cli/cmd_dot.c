/* cli/cmd_dot.c — `ompdag dot`: Graphviz drawing of a con-DAG
 * (include/ompdag/dot.h), optionally rendered to SVG by graphviz's `dot`. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ompdag/dot.h"
#include "ompdag/fileio.h"
#include "ompdag/report.h"

void cmd_dot_help(FILE *out)
{
    fprintf(out,
            "usage: ompdag dot FILE [--graph I] [--flow worst --threads M] [--svg] [-o OUT]\n\n"
            "Draws a con-DAG: C diamonds, J triangles, F-edges dotted, T-edges dashed,\n"
            "W-edges solid, one cluster per task (Sun et al. 2020, Figure 4); D-edges of depend\n"
            "clauses (condag.md §6) bold blue with a hollow head.\n\n"
            "  --graph I          which graph of a set (default 0)\n"
            "  --flow worst       fill the exact worst-case flow, critical path in red\n"
            "  --threads M        m for --flow (default: the file's \"threads\")\n"
            "  --svg              render with graphviz's dot to SVG\n"
            "  --layout-timeout D stop graphviz after D (default 8s; 0 = no limit): exit 1\n"
            "                     naming the limit, nothing written (the DOT text without\n"
            "                     --svg needs no layout)\n"
            "  -o OUT             output file (default stdout), written atomically\n");
}

typedef struct dot_opts {
    const char *file, *out;
    int64_t graph, threads;
    bool flow, svg;
    int64_t layout_timeout_ns; /* 0: none */
} dot_opts;

enum { OPT_GRAPH = 256, OPT_FLOW, OPT_THREADS, OPT_SVG, OPT_LAYOUT_TIMEOUT };

static int parse_dot_args(int argc, char **argv, dot_opts *o)
{
    static const struct option longopts[] = {
        {"graph", required_argument, 0, OPT_GRAPH},
        {"flow", required_argument, 0, OPT_FLOW},
        {"threads", required_argument, 0, OPT_THREADS},
        {"svg", no_argument, 0, OPT_SVG},
        {"layout-timeout", required_argument, 0, OPT_LAYOUT_TIMEOUT},
        {0, 0, 0, 0}};
    int c;
    opterr = 0;
    o->out = "-";
    o->layout_timeout_ns = CLI_LAYOUT_TIMEOUT_NS;
    ompdag_error err = {0};
    while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
        if (c == 'o')
            o->out = optarg;
        else if (c == OPT_GRAPH && cli_parse_i64(optarg, 0, INT32_MAX, &o->graph))
            continue;
        else if (c == OPT_THREADS && cli_parse_i64(optarg, 1, 1 << 20, &o->threads))
            continue;
        else if (c == OPT_FLOW && !strcmp(optarg, "worst"))
            o->flow = true;
        else if (c == OPT_SVG)
            o->svg = true;
        else if (c == OPT_LAYOUT_TIMEOUT && !strcmp(optarg, "0"))
            o->layout_timeout_ns = 0;
        else if (c == OPT_LAYOUT_TIMEOUT &&
                 ompdag_duration_parse(optarg, &o->layout_timeout_ns, &err) == OMPDAG_OK)
            continue;
        else if (c == OPT_LAYOUT_TIMEOUT)
            return cli_usage_error("dot", "--layout-timeout: %s", err.message);
        else if (c == '?')
            return cli_option_error("dot", argv, longopts, "o:");
        else
            return cli_usage_error("dot", "bad option or value '%s'", argv[optind - 1]);
    }
    if (optind != argc - 1) return cli_usage_error("dot", "expected exactly one FILE");
    o->file = argv[optind];
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
