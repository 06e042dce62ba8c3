/* cli/cmd_expand.c — `ompdag expand`: unfolds compact graphs (docs/compact.md)
 * into plain ompdag-condag v1 graphs, or (--share) the inverse. */
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "ompdag/compact.h"

void cmd_expand_help(FILE *out)
{
    fprintf(out,
            "usage: ompdag expand FILE -o OUT [--node-limit N] [--share]\n\n"
            "Unfolds every compact graph of FILE (shared task bodies, docs/compact.md) into a\n"
            "plain ompdag-condag v1 graph, for other tools and for checking: each instance of\n"
            "a body gets its own nodes; instance k > 0 of an id gets the suffix \"#k\".\n"
            "Plain graphs are copied unchanged, depend clauses included; --share copies a\n"
            "graph with depend clauses without sharing (compact graphs cannot carry them).\n\n"
            "  -o OUT           output file (\"-\": stdout), written atomically\n"
            "  --node-limit N   refuse an unfolding of more than N nodes (default 10000000)\n"
            "  --share          the inverse: merge structurally identical task subtrees into\n"
            "                   shared bodies and write compact graphs\n"
            "exit status: 0 written, 1 error (e.g. over the node limit), 2 usage error\n");
}

typedef struct expand_opts {
    const char *file, *out;
    int64_t limit;
    bool share;
} expand_opts;

enum { OPT_LIMIT = 256, OPT_SHARE };

static int parse_expand_args(int argc, char **argv, expand_opts *o)
{
    static const struct option longopts[] = {{"node-limit", required_argument, 0, OPT_LIMIT},
                                             {"share", no_argument, 0, OPT_SHARE},
                                             {0, 0, 0, 0}};
    int c;
    opterr = 0;
    o->limit = 10000000;
    while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
        if (c == 'o')
            o->out = optarg;
        else if (c == OPT_LIMIT && cli_parse_i64(optarg, 1, INT32_MAX, &o->limit))
            continue;
        else if (c == OPT_SHARE)
            o->share = true;
        else
            return cli_usage_error("expand", "bad option or value '%s'", argv[optind - 1]);
    }
    if (optind != argc - 1) return cli_usage_error("expand", "expected exactly one FILE");
    if (!o->out) return cli_usage_error("expand", "expected -o OUT");
    o->file = argv[optind];
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
