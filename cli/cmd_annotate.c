/*
 * cli/cmd_annotate.c — `ompdag annotate GRAPHS.json TRACE... [-o OUT.json]`:
 * fills every node's WCET from probe traces with the safe attribution rule of
 * docs/probe.md (library: ompdag_trace, runtime-probe/annotate.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
#include "ompdag/compact.h"
#include "ompdag/trace.h"

/* Where annotate's options go (annotate_table's destinations). */
typedef struct annotate_args {
    ompdag_annotate_options opt;
    const char *output;
    bool quiet;
    int64_t per_instance; /* 0: graphs as given */
} annotate_args;

static int set_margin(const char *arg, void *dest);
static int set_estimator(const char *arg, void *dest);
static int set_exceedance(const char *arg, void *dest);
static int set_block(const char *arg, void *dest);
static int set_unobserved(const char *arg, void *dest);
static int set_per_instance(const char *arg, void *dest);

enum { ANNOTATE_NOPTS = 11 };

/* annotate's options (cli_opts.h), in --help's order, writing into *a. */
static void annotate_table(annotate_args *a, cli_opt t[ANNOTATE_NOPTS])
{
    const cli_opt opts[ANNOTATE_NOPTS] = {
        {"output", 'o', CLI_ARG_REQUIRED, "-o, --output FILE",
         "where to write (default: stdout)", CLI_OPT_STRING, &a->output, NULL, NULL},
        {"margin", 0, CLI_ARG_REQUIRED, "--margin PCT",
         "WCET = estimate * (1 + PCT/100), rounded up (default 20)", CLI_OPT_CALL,
         &a->opt.margin_pct, NULL, set_margin},
        {"estimator", 0, CLI_ARG_REQUIRED, "--estimator max|evt",
         "max: high-water mark (default); evt: Gumbel fit of block\n"
         "maxima by PWM, pWCET at --exceedance (never below the max)",
         CLI_OPT_CALL, &a->opt.estimator, NULL, set_estimator},
        {"exceedance", 0, CLI_ARG_REQUIRED, "--exceedance P",
         "evt: per-segment exceedance probability (default 1e-9)", CLI_OPT_CALL,
         &a->opt.exceedance, NULL, set_exceedance},
        {"block", 0, CLI_ARG_REQUIRED, "--block N",
         "evt: block size (default 10; at least 20 blocks needed)", CLI_OPT_CALL,
         &a->opt.evt_block, NULL, set_block},
        {"unobserved", 0, CLI_ARG_REQUIRED, "--unobserved POLICY",
         "error (default): nodes no segment covered are an error;\n"
         "zero: give them WCET 0 (marks every graph \"unsafe\")",
         CLI_OPT_CALL, &a->opt.unobserved, NULL, set_unobserved},
        {"allow-unmapped", 0, CLI_ARG_NONE, "--allow-unmapped",
         "segments that fit no path of their graph only warn\n"
         "(marks every graph \"unsafe\")",
         CLI_OPT_FLAG, &a->opt.allow_unmapped, NULL, NULL},
        {"no-overheads", 0, CLI_ARG_NONE, "--no-overheads",
         "leave the measured dispatch delays out of the WCETs\n"
         "(marks every graph \"unsafe\": bounds below observed runs)",
         CLI_OPT_FLAG, &a->opt.no_overheads, NULL, NULL},
        {"depend-strict", 0, CLI_ARG_NONE, "--depend-strict",
         "also mark the graph unsafe for a D-edge the run did not\n"
         "respect when the runtime's depend lists show it is an\n"
         "extra edge of the aliasing rule (safe by default)",
         CLI_OPT_FLAG, &a->opt.depend_strict, NULL, NULL},
        {"per-instance", 0, CLI_ARG_OPTIONAL, "--per-instance[=NODES]",
         "unfold compact graphs first (up to NODES nodes each,\n"
         "default 10^6), so that WCETs and dispatch delays are kept\n"
         "per task instance and the input's DAG can be recorded",
         CLI_OPT_CALL, &a->per_instance, NULL, set_per_instance},
        {"quiet", 'q', CLI_ARG_NONE, "--quiet", "no report on stderr", CLI_OPT_FLAG, &a->quiet,
         NULL, NULL},
    };
    memcpy(t, opts, sizeof opts);
}

void cmd_annotate_help(FILE *out)
{
    annotate_args a;
    cli_opt t[ANNOTATE_NOPTS];
    annotate_table(&a, t);
    fprintf(out,
            "usage: ompdag annotate GRAPHS.json TRACE... [-o OUT.json] [--margin PCT]\n"
            "                       [--estimator max|evt] [--exceedance P] [--block N]\n"
            "                       [--unobserved error|zero] [--allow-unmapped] [--no-overheads]\n"
            "                       [--depend-strict] [--per-instance[=NODES]] [--quiet]\n\n"
            "Maps each traced segment (own time between two scheduling points) to the\n"
            "con-DAG nodes between those points, charges it to one node on every such\n"
            "path (docs/probe.md), and writes the graphs with `wcet` filled in, per node\n"
            "\"samples\", \"observed_max\", \"observed_median\", \"margin_pct\", and per graph\n"
            "\"observed_response_ns\" and \"wcet_method\".\n\n"
            "The runtime's own costs between segments (a created task waiting to start, a\n"
            "taskwait waiting to be woken, while some thread is not running graph code) are\n"
            "measured from the same traces and added to the WCETs of task sources and taskwait\n"
            "nodes (docs/overheads.md); \"runtime_overheads\" states them with their samples.\n"
            "Runs whose threads were preempted or migrated are flagged (\"..._interfered\").\n\n"
            "Programs with depend clauses: the runtime's dependence order (OMPT) is checked\n"
            "against the graph's D-edges (\"depend_check\", docs/probe.md#depend).  A pair the\n"
            "runtime enforced that the graph does not imply, or a D-edge both sides declare\n"
            "that the run did not respect, marks the graph \"unsafe\" (check fails it).\n\n");
    cli_opts_help(&(cli_opts){"annotate", t, ANNOTATE_NOPTS, false}, out);
    fprintf(out,
            "\nThe input's DAG (docs/probe.md#input): when every run reached the same nodes,\n"
            "the graph extra \"input\" lists them with per-instance delays, and `report`\n"
            "gives input_bound_ns, the bound for the task structure of these runs, beside\n"
            "the bound for every input the graph covers.  Runs that differ are named.\n\n"
            "--unobserved zero, --allow-unmapped and --no-overheads give figures for\n"
            "exploration: `check` fails every graph they annotate.  A trace of another\n"
            "program, or of one built without -g, is refused.\n");
}

/* --per-instance: *set with every compact graph unfolded (at most `limit`
 * nodes each), so that each node is one task instance's segment. */
static ompdag_status unfold_compact(ompdag_condag_set **set, int64_t limit, const char *file,
                                    ompdag_error *err)
{
    ompdag_condag_set *out = ompdag_condag_set_create();
    ompdag_status st = out ? OMPDAG_OK : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < ompdag_condag_set_count(*set) && !st; ++i) {
        const ompdag_condag *g = ompdag_condag_set_graph(*set, i);
        ompdag_condag *x = NULL;
        ompdag_error inner;
        char title[128];
        if (ompdag_compact_expand(g, limit, &x, &inner)) {
            st = ompdag_error_set(err, inner.code, "%s: %s: --per-instance: %s", file,
                                  ompdag_condag_title(g, i, title, sizeof title), inner.message);
            break;
        }
        st = ompdag_condag_set_add(out, x, err);
    }
    if (st) {
        ompdag_condag_set_destroy(out);
        return st;
    }
    ompdag_condag_set_destroy(*set);
    *set = out;
    return OMPDAG_OK;
}

static bool parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end || !(v >= lo && v <= hi))
        return false;
    *out = v;
    return true;
}

/* The escape hatches give figures for exploration only: each one given
 * marks every graph annotated "unsafe" (annotate/annotate_apply.c),
 * which `check` fails; say so where the user sees it (issue 22). */
static void warn_escape_hatches(const ompdag_annotate_options *opt, uint64_t unmapped)
{
    static const char *const tail = "; every graph annotated is marked \"unsafe\" and `ompdag "
                                    "check` will fail it";
    if (opt->unobserved == OMPDAG_UNOBSERVED_ZERO)
        fprintf(stderr,
                "ompdag annotate: warning: --unobserved zero gives nodes no run observed WCET 0, "
                "so bounds may be too low%s\n",
                tail);
    if (opt->no_overheads)
        fprintf(stderr,
                "ompdag annotate: warning: --no-overheads leaves the runtime's dispatch delays "
                "out of the WCETs (such bounds were measured below observed runs)%s\n",
                tail);
    if (opt->allow_unmapped)
        fprintf(stderr,
                "ompdag annotate: warning: --allow-unmapped: %llu segments fit no path of their "
                "graph and were dropped%s\n",
                (unsigned long long)unmapped, tail);
}

static int set_margin(const char *arg, void *dest)
{
    if (!parse_double(arg, 0, 1000, dest))
        return cli_usage_error("annotate", "--margin takes a percentage in [0, 1000]");
    return 0;
}

static int set_estimator(const char *arg, void *dest)
{
    ompdag_estimator *e = dest;
    if (!strcmp(arg, "max"))
        *e = OMPDAG_ESTIMATOR_MAX;
    else if (!strcmp(arg, "evt"))
        *e = OMPDAG_ESTIMATOR_EVT;
    else
        return cli_usage_error("annotate", "--estimator is max or evt");
    return 0;
}

static int set_exceedance(const char *arg, void *dest)
{
    if (!parse_double(arg, 1e-300, 0.5, dest))
        return cli_usage_error("annotate", "--exceedance takes a probability in (0, 0.5]");
    return 0;
}

static int set_block(const char *arg, void *dest)
{
    int64_t block;
    if (!cli_parse_i64(arg, 1, 1000000, &block))
        return cli_usage_error("annotate", "--block takes an integer in [1, 10^6]");
    *(int32_t *)dest = (int32_t)block;
    return 0;
}

static int set_unobserved(const char *arg, void *dest)
{
    ompdag_unobserved_policy *u = dest;
    if (!strcmp(arg, "error"))
        *u = OMPDAG_UNOBSERVED_ERROR;
    else if (!strcmp(arg, "zero"))
        *u = OMPDAG_UNOBSERVED_ZERO;
    else
        return cli_usage_error("annotate", "--unobserved is error or zero");
    return 0;
}

/* --per-instance[=NODES]: the node limit, 10^6 when none is given. */
static int set_per_instance(const char *arg, void *dest)
{
    int64_t *limit = dest;
    *limit = 1000000;
    if (arg && !cli_parse_i64(arg, 1, INT32_MAX, limit))
        return cli_usage_error("annotate", "--per-instance takes a node limit >= 1");
    return 0;
}

int cmd_annotate(int argc, char **argv)
{
    annotate_args args = {.output = "-"};
    ompdag_annotate_options_init(&args.opt);
    cli_opt table[ANNOTATE_NOPTS];
    annotate_table(&args, table);
    int first, rc = cli_opts_parse(&(cli_opts){"annotate", table, ANNOTATE_NOPTS, false}, argc,
                                   argv, &first);
    if (rc)
        return rc;
    if (argc - first < 2)
        return cli_usage_error("annotate", "needs GRAPHS.json and at least one TRACE");
    ompdag_annotate_options opt = args.opt;
    const char *output = args.output;
    bool quiet = args.quiet;
    int64_t per_instance = args.per_instance;

    ompdag_error err;
    ompdag_condag_set *set = NULL;
    ompdag_annotation *a = NULL;
    if (ompdag_condag_set_load_file(argv[first], &set, &err) ||
        (per_instance && unfold_compact(&set, per_instance, argv[first], &err)) ||
        ompdag_annotation_create(set, &opt, &a, &err)) {
        rc = cli_fail("annotate", &err);
        goto done;
    }
    for (int i = first + 1; i < argc; ++i)
        if (ompdag_annotation_add_trace(a, argv[i], &err)) {
            rc = cli_fail("annotate", &err);
            goto done;
        }
    uint64_t segments, mapped, unmapped;
    ompdag_annotation_counts(a, &segments, &mapped, &unmapped);
    warn_escape_hatches(&opt, unmapped);
    uint64_t dep_unsafe, dep_all;
    ompdag_annotation_depend_counts(a, &dep_unsafe, &dep_all);
    if (dep_unsafe)
        fprintf(stderr,
                "ompdag annotate: warning: %llu disagreements between the runtime's dependence "
                "order and the graphs' D-edges; the affected graphs are marked \"unsafe\" (check "
                "fails them); see \"depend_check\"\n",
                (unsigned long long)dep_unsafe);
    else if (dep_all && !quiet)
        fprintf(stderr,
                "ompdag annotate: note: %llu D-edges were not needed by the runtime (extra edges "
                "of the aliasing rule: safe); see \"depend_check\"\n",
                (unsigned long long)dep_all);
    if (ompdag_annotation_apply(a, &err)) {
        rc = cli_fail("annotate", &err);
        goto done;
    }
    if (!quiet)
        ompdag_annotation_print_report(a, stderr);
    if (ompdag_condag_set_save_file(set, output, false, &err))
        rc = cli_fail("annotate", &err);
done:
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
    return rc;
}
