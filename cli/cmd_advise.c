/* cli/cmd_advise.c — `ompdag advise`: the task-granularity advisor (Ma
 * 2018's KNN over program features, docs/advise.md). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ompdag/advise.h"
#include "ompdag/fileio.h"
#include "ompdag/internal/advise_json.h"

/* The stream refused a write (the writer saw ferror and could only say "write
 * error"): drop the output and name its path and the failed write's errno. */
static ompdag_status write_failed(ompdag_atomic_file *af, const char *path, int e,
                                  ompdag_error *err)
{
    ompdag_atomic_file_abort(af);
    return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: cannot write: %s",
                            strcmp(path, "-") ? path : "standard output", strerror(e ? e : EIO));
}

void cmd_advise_help(FILE *out)
{
    fprintf(
        out,
        "usage: ompdag advise ANNOTATED.json [--threads M] [--model FILE] [--format text|json]\n"
        "                     [-o OUT]\n"
        "       ompdag advise --validate [--model FILE] [--format text|json]\n"
        "       ompdag advise --trace-stats TRACE... [-o OUT]\n"
        "       ompdag advise --build-model MANIFEST -o MODEL\n\n"
        "Per region and task directive of an annotated con-DAG (ompdag annotate): the\n"
        "features, the thresholds the K=10 nearest training examples predict (grain\n"
        "min/max, recursion cutoff depth or loop chunk), a verdict (too-fine, ok,\n"
        "too-coarse) and a suggested change.\n\n"
        "  --threads M        m for the parallelism feature (default: the graph's, else\n"
        "                     the model's training thread count)\n"
        "  --model FILE       the advisor model (default: $OMPDAG_ADVISOR_MODEL, else\n"
        "                     %s)\n"
        "  --format F         text (default) or json\n"
        "  -o OUT             write there instead of stdout\n"
        "  --validate         leave-one-out: error per threshold, and the speed of the\n"
        "                     predicted setting against the best and the default\n"
        "  --trace-stats      per trace: regions, fastest region ns, tasks per region,\n"
        "                     mean task ns (tab-separated; used by make advisor-model)\n"
        "  --build-model M    build the model from the training manifest M\n\n"
        "exit status: 0 ok, 1 bad input, 2 usage error\n",
        ompdag_advise_default_model_path());
}

enum { OPT_THREADS = 1, OPT_MODEL, OPT_FORMAT, OPT_VALIDATE, OPT_TRACE_STATS, OPT_BUILD };

typedef struct advise_args {
    int32_t threads;
    const char *model, *out, *build;
    bool json, validate, trace_stats;
} advise_args;

static int parse_args(int argc, char **argv, advise_args *a)
{
    static const struct option opts[] = {{"threads", required_argument, 0, OPT_THREADS},
                                         {"model", required_argument, 0, OPT_MODEL},
                                         {"format", required_argument, 0, OPT_FORMAT},
                                         {"validate", no_argument, 0, OPT_VALIDATE},
                                         {"trace-stats", no_argument, 0, OPT_TRACE_STATS},
                                         {"build-model", required_argument, 0, OPT_BUILD},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int c;
    int64_t v;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            cmd_advise_help(stdout);
            return -1;
        case 'o':
            a->out = optarg;
            break;
        case OPT_THREADS:
            if (!cli_parse_i64(optarg, 1, 1 << 20, &v))
                return cli_usage_error("advise", "--threads wants an integer >= 1, got '%s'",
                                       optarg);
            a->threads = (int32_t)v;
            break;
        case OPT_MODEL:
            a->model = optarg;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "text") && strcmp(optarg, "json"))
                return cli_usage_error("advise", "--format is text or json; got '%s'", optarg);
            a->json = !strcmp(optarg, "json");
            break;
        case OPT_VALIDATE:
            a->validate = true;
            break;
        case OPT_TRACE_STATS:
            a->trace_stats = true;
            break;
        case OPT_BUILD:
            a->build = optarg;
            break;
        default:
            return cli_option_error("advise", argv, opts, "o:h");
        }
    }
    int modes = a->validate + a->trace_stats + (a->build != NULL);
    if (modes > 1)
        return cli_usage_error("advise", "--validate, --trace-stats and --build-model exclude "
                                         "each other");
    if (a->build && (!a->out || optind != argc))
        return cli_usage_error("advise", "--build-model MANIFEST wants -o MODEL and no file");
    if (a->validate && optind != argc) return cli_usage_error("advise", "--validate takes no file");
    if (a->trace_stats && optind >= argc)
        return cli_usage_error("advise", "--trace-stats wants at least one TRACE");
    if (!modes && optind != argc - 1)
        return cli_usage_error("advise", "expected exactly one ANNOTATED.json");
    return 0;
}

/* One line per trace, to -o (atomically) or stdout: -o was once ignored
 * here, so exit 0 left no file behind. */
static int trace_stats(const advise_args *a, int argc, char **argv)
{
    ompdag_error err = {0};
    ompdag_atomic_file *af = NULL;
    if (ompdag_atomic_file_open(a->out ? a->out : "-", &af, &err)) return cli_fail("advise", &err);
    FILE *f = ompdag_atomic_file_stream(af);
    int rc = CLI_EXIT_OK;
    for (int i = optind; i < argc; ++i) {
        ompdag_advise_trace_stats s;
        if (ompdag_advise_trace_stats_read(argv[i], &s, &err)) {
            rc = cli_fail("advise", &err);
            continue;
        }
        fprintf(f, "%s\t%" PRIu64 "\t%" PRId64 "\t%.1f\t%.1f\n", argv[i], s.regions,
                s.min_region_ns, s.tasks_per_region, s.mean_task_ns);
    }
    if (ompdag_atomic_file_commit(af, &err)) rc = cli_fail("advise", &err);
    return rc;
}

int cli_advice_for(const char *cmd, const ompdag_condag_set *s, const char *model, int32_t threads,
                   ompdag_advice **out)
{
    ompdag_error err = {0};
    ompdag_advise_model *m = NULL;
    if (ompdag_advise_model_load(model ? model : ompdag_advise_default_model_path(), &m, &err) ||
        ompdag_advise_graphs(s, m, threads, out, &err)) {
        ompdag_advise_model_destroy(m);
        return cli_fail(cmd, &err);
    }
    ompdag_advise_model_destroy(m);
    return CLI_EXIT_OK;
}

/* Writes the advice or the validation to -o (atomically) or stdout. */
static int emit(const advise_args *a, const ompdag_advise_model *m, const ompdag_advice *adv)
{
    ompdag_error err = {0};
    ompdag_atomic_file *af = NULL;
    ompdag_status st = ompdag_atomic_file_open(a->out ? a->out : "-", &af, &err);
    if (st) return cli_fail("advise", &err);
    FILE *f = ompdag_atomic_file_stream(af);
    if (adv && a->json) {
        json_t *j = advise_advice_to_json(adv);
        if (!j || json_dumpf(j, f, JSON_INDENT(2) | JSON_REAL_PRECISION(6)))
            st = ompdag_error_set(&err, OMPDAG_ERR_IO, "write error");
        fputc('\n', f);
        json_decref(j);
    } else if (adv) {
        ompdag_advice_write_text(adv, f);
    } else {
        st = ompdag_advise_validate(m, a->json, f, &err);
    }
    int write_errno = errno; /* of the write that failed, if one did */
    if (st && ferror(f))
        st = write_failed(af, a->out ? a->out : "-", write_errno, &err);
    else if (st)
        ompdag_atomic_file_abort(af);
    if (st) return cli_fail("advise", &err);
    return ompdag_atomic_file_commit(af, &err) ? cli_fail("advise", &err) : CLI_EXIT_OK;
}

int cmd_advise(int argc, char **argv)
{
    advise_args a = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? CLI_EXIT_OK : rc;
    if (a.trace_stats) return trace_stats(&a, argc, argv);
    ompdag_error err = {0};
    if (a.build)
        return ompdag_advise_model_build(a.build, a.out, &err) ? cli_fail("advise", &err)
                                                               : CLI_EXIT_OK;
    ompdag_advise_model *m = NULL;
    if (ompdag_advise_model_load(a.model ? a.model : ompdag_advise_default_model_path(), &m, &err))
        return cli_fail("advise", &err);
    ompdag_condag_set *s = NULL;
    ompdag_advice *adv = NULL;
    if (!a.validate) {
        s = cli_load_graphs("advise", argv[optind]);
        if (!s)
            rc = CLI_EXIT_FAIL;
        else if (ompdag_advise_graphs(s, m, a.threads, &adv, &err))
            rc = cli_fail("advise", &err);
    }
    if (!rc) rc = emit(&a, m, adv);
    ompdag_advice_destroy(adv);
    ompdag_condag_set_destroy(s);
    ompdag_advise_model_destroy(m);
    return rc;
}
