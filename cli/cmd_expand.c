/* cli/cmd_expand.c — `ompdag expand`: unfolds compact graphs (docs/compact.md)
 * into plain ompdag-condag v1 graphs, or (--share) the inverse. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
#include "ompdag/compact.h"

typedef struct expand_opts {
    const char *file, *out;
    int64_t limit;
    bool share;
} expand_opts;

enum { EXPAND_NOPTS = 3 };

/* expand's options, in --help's order, writing into *o; every refusal is
 * "bad option or value". */
static cli_opts expand_table(expand_opts *o, cli_opt t[EXPAND_NOPTS])
{
    const cli_opt rows[EXPAND_NOPTS] = {
        {NULL, 'o', CLI_ARG_REQUIRED, "-o OUT", "output file (\"-\": stdout), written atomically",
         CLI_OPT_STRING, &o->out},
        {"node-limit", 0, CLI_ARG_REQUIRED, "--node-limit N",
         "refuse an unfolding of more than N nodes (default 10000000)", CLI_OPT_INT64, &o->limit,
         .typed = {1, INT32_MAX}},
        {"share", 0, CLI_ARG_NONE, "--share",
         "the inverse: merge structurally identical task subtrees into\n"
         "shared bodies and write compact graphs",
         CLI_OPT_FLAG, &o->share},
    };
    memcpy(t, rows, sizeof rows);
    return (cli_opts){
        "expand", t, EXPAND_NOPTS, .quiet_getopt = true, .unknown_as_value = true, .help_col = 19};
}

void cmd_expand_help(FILE *out)
{
    expand_opts o;
    cli_opt t[EXPAND_NOPTS];
    cli_opts table = expand_table(&o, t);
    fprintf(out,
            "usage: ompdag expand FILE -o OUT [--node-limit N] [--share]\n\n"
            "Unfolds every compact graph of FILE (shared task bodies, docs/compact.md) into a\n"
            "plain ompdag-condag v1 graph, for other tools and for checking: each instance of\n"
            "a body gets its own nodes; instance k > 0 of an id gets the suffix \"#k\".\n"
            "Plain graphs are copied unchanged, depend clauses included; --share copies a\n"
            "graph with depend clauses without sharing (compact graphs cannot carry them).\n\n");
    cli_opts_help(&table, out);
    fprintf(out, "exit status: 0 written, 1 error (e.g. over the node limit), 2 usage error\n");
}

static int parse_expand_args(int argc, char **argv, expand_opts *o)
{
    o->limit = 10000000;
    cli_opt t[EXPAND_NOPTS];
    cli_opts table = expand_table(o, t);
    int first, rc = cli_opts_parse(&table, argc, argv, &first);
    if (rc) return rc;
    if (first != argc - 1) return cli_usage_error("expand", "expected exactly one FILE");
    if (!o->out) return cli_usage_error("expand", "expected -o OUT");
    o->file = argv[first];
    return 0;
}

int cmd_expand(int argc, char **argv)
{
    expand_opts o = {0};
    int rc = parse_expand_args(argc, argv, &o);
    if (rc) return rc;
    ompdag_condag_set *in = cli_load_graphs("expand", o.file);
    if (!in) return CLI_EXIT_FAIL;
    ompdag_condag_set *out = ompdag_condag_set_create();
    ompdag_error err = {0};
    ompdag_status st = out ? OMPDAG_OK : ompdag_error_set(&err, OMPDAG_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < ompdag_condag_set_count(in) && !st; ++i) {
        const ompdag_condag *g = ompdag_condag_set_graph(in, i);
        ompdag_condag *x = NULL;
        ompdag_error inner;
        st = o.share ? ompdag_compact_share(g, &x, &inner)
                     : ompdag_compact_expand(g, o.limit, &x, &inner);
        char title[128];
        if (st) {
            ompdag_error_set(&err, st, "%s: %s: %s", o.file,
                             ompdag_condag_title(g, i, title, sizeof title), inner.message);
            break;
        }
        fprintf(stderr, "%s: %d nodes -> %d nodes%s\n",
                ompdag_condag_title(g, i, title, sizeof title), ompdag_condag_node_count(g),
                ompdag_condag_node_count(x), o.share ? " (shared bodies)" : " (unfolded)");
        st = ompdag_condag_set_add(out, x, &err);
    }
    if (!st) st = ompdag_condag_set_save_file(out, o.out, !ompdag_condag_set_was_single(in), &err);
    ompdag_condag_set_destroy(in);
    ompdag_condag_set_destroy(out);
    return st ? cli_fail("expand", &err) : CLI_EXIT_OK;
}
