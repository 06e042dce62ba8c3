/*
 * cli/cmd_annotate.c — `ompdag annotate GRAPHS.json TRACE... [-o OUT.json]`:
 * fills every node's WCET from probe traces with the safe attribution rule of
 * docs/probe.md (library: ompdag_trace, runtime-probe/annotate.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ompdag/compact.h"
#include "ompdag/trace.h"

void cmd_annotate_help(FILE *out)
{
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
            "that the run did not respect, marks the graph \"unsafe\" (check fails it).\n\n"
            "  -o, --output FILE     where to write (default: stdout)\n"
            "  --margin PCT          WCET = estimate * (1 + PCT/100), rounded up (default 20)\n"
            "  --estimator max|evt   max: high-water mark (default); evt: Gumbel fit of block\n"
            "                        maxima by PWM, pWCET at --exceedance (never below the max)\n"
            "  --exceedance P        evt: per-segment exceedance probability (default 1e-9)\n"
            "  --block N             evt: block size (default 10; at least 20 blocks needed)\n"
            "  --unobserved POLICY   error (default): nodes no segment covered are an error;\n"
            "                        zero: give them WCET 0 (marks every graph \"unsafe\")\n"
            "  --allow-unmapped      segments that fit no path of their graph only warn\n"
            "                        (marks every graph \"unsafe\")\n"
            "  --no-overheads        leave the measured dispatch delays out of the WCETs\n"
            "                        (marks every graph \"unsafe\": bounds below observed runs)\n"
            "  --depend-strict       also mark the graph unsafe for a D-edge the run did not\n"
            "                        respect when the runtime's depend lists show it is an\n"
            "                        extra edge of the aliasing rule (safe by default)\n"
            "  --per-instance[=NODES] unfold compact graphs first (up to NODES nodes each,\n"
            "                        default 10^6), so that WCETs and dispatch delays are kept\n"
            "                        per task instance and the input's DAG can be recorded\n"
            "  --quiet               no report on stderr\n\n"
            "The input's DAG (docs/probe.md#input): when every run reached the same nodes,\n"
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
 * marks every graph annotated "unsafe" (runtime-probe/annotate_apply.c),
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

int cmd_annotate(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"margin", required_argument, NULL, 'm'},
                                         {"estimator", required_argument, NULL, 'e'},
                                         {"exceedance", required_argument, NULL, 'x'},
                                         {"block", required_argument, NULL, 'b'},
                                         {"unobserved", required_argument, NULL, 'u'},
                                         {"allow-unmapped", no_argument, NULL, 'a'},
                                         {"no-overheads", no_argument, NULL, 'N'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"depend-strict", no_argument, NULL, 'D'},
                                         {"per-instance", optional_argument, NULL, 'I'},
                                         {NULL, 0, NULL, 0}};
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    const char *output = "-";
    bool quiet = false;
    int c;
    int64_t block, per_instance = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:q", opts, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'm':
            if (!parse_double(optarg, 0, 1000, &opt.margin_pct))
                return cli_usage_error("annotate", "--margin takes a percentage in [0, 1000]");
            break;
        case 'e':
            if (!strcmp(optarg, "max"))
                opt.estimator = OMPDAG_ESTIMATOR_MAX;
            else if (!strcmp(optarg, "evt"))
                opt.estimator = OMPDAG_ESTIMATOR_EVT;
            else
                return cli_usage_error("annotate", "--estimator is max or evt");
            break;
        case 'x':
            if (!parse_double(optarg, 1e-300, 0.5, &opt.exceedance))
                return cli_usage_error("annotate", "--exceedance takes a probability in (0, 0.5]");
            break;
        case 'b':
            if (!cli_parse_i64(optarg, 1, 1000000, &block))
                return cli_usage_error("annotate", "--block takes an integer in [1, 10^6]");
            opt.evt_block = (int32_t)block;
            break;
        case 'u':
            if (!strcmp(optarg, "error"))
                opt.unobserved = OMPDAG_UNOBSERVED_ERROR;
            else if (!strcmp(optarg, "zero"))
                opt.unobserved = OMPDAG_UNOBSERVED_ZERO;
            else
                return cli_usage_error("annotate", "--unobserved is error or zero");
            break;
        case 'a': opt.allow_unmapped = true; break;
        case 'N': opt.no_overheads = true; break;
        case 'q': quiet = true; break;
        case 'D': opt.depend_strict = true; break;
        case 'I':
            per_instance = 1000000;
            if (optarg && !cli_parse_i64(optarg, 1, INT32_MAX, &per_instance))
                return cli_usage_error("annotate", "--per-instance takes a node limit >= 1");
            break;
        default: return cli_option_error("annotate", argv, opts, "o:q");
        }
    }
    if (argc - optind < 2)
        return cli_usage_error("annotate", "needs GRAPHS.json and at least one TRACE");

    ompdag_error err;
    ompdag_condag_set *set = NULL;
    ompdag_annotation *a = NULL;
    int rc = CLI_EXIT_OK;
    if (ompdag_condag_set_load_file(argv[optind], &set, &err) ||
        (per_instance && unfold_compact(&set, per_instance, argv[optind], &err)) ||
        ompdag_annotation_create(set, &opt, &a, &err)) {
        rc = cli_fail("annotate", &err);
        goto done;
    }
    for (int i = optind + 1; i < argc; ++i)
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
