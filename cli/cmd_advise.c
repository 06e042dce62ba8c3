/* cli/cmd_advise.c — `ompdag advise`: the task-granularity advisor (Ma
 * 2018's KNN over program features, docs/advise.md). */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
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

typedef struct advise_args {
    int32_t threads;
    const char *model, *out, *build;
    bool json, validate, trace_stats;
    int first; /* argv's first operand */
} advise_args;

static int set_format(const char *arg, void *dest)
{
    if (strcmp(arg, "text") && strcmp(arg, "json"))
        return cli_usage_error("advise", "--format is text or json; got '%s'", arg);
    *(bool *)dest = !strcmp(arg, "json");
    return 0;
}

/* -h, --help: the help on stdout, then -1 (exit 0, nothing run). */
static int print_help(const char *arg, void *dest)
{
    cmd_advise_help(stdout);
    return -1;
}

enum { ADVISE_NOPTS = 8, ADVISE_MODEL_ROW = 1 };

/* advise's options, in --help's order, writing into *a; the --model row's
 * help names the default path, which cmd_advise_help fills in. */
static cli_opts advise_table(advise_args *a, cli_opt t[ADVISE_NOPTS])
{
    const cli_opt rows[ADVISE_NOPTS] = {
        {"threads", 0, CLI_ARG_REQUIRED, "--threads M",
         "m for the parallelism feature (default: the graph's, else\n"
         "the model's training thread count)",
         CLI_OPT_INT, &a->threads,
         .typed = {1, 1 << 20, "--threads wants an integer >= 1, got '%s'"}},
        [ADVISE_MODEL_ROW] = {"model", 0, CLI_ARG_REQUIRED, "--model FILE", NULL, CLI_OPT_STRING,
                              &a->model},
        {"format", 0, CLI_ARG_REQUIRED, "--format F", "text (default) or json", CLI_OPT_CALL,
         &a->json, NULL, set_format},
        {NULL, 'o', CLI_ARG_REQUIRED, "-o OUT", "write there instead of stdout", CLI_OPT_STRING,
         &a->out},
        {"validate", 0, CLI_ARG_NONE, "--validate",
         "leave-one-out: error per threshold, and the speed of the\n"
         "predicted setting against the best and the default",
         CLI_OPT_FLAG, &a->validate},
        {"trace-stats", 0, CLI_ARG_NONE, "--trace-stats",
         "per trace: regions, fastest region ns, tasks per region,\n"
         "mean task ns (tab-separated; used by make advisor-model)",
         CLI_OPT_FLAG, &a->trace_stats},
        {"build-model", 0, CLI_ARG_REQUIRED, "--build-model M",
         "build the model from the training manifest M", CLI_OPT_STRING, &a->build},
        {"help", 'h', CLI_ARG_NONE, NULL, NULL, CLI_OPT_CALL, NULL, NULL, print_help},
    };
    memcpy(t, rows, sizeof rows);
    return (cli_opts){"advise", t, ADVISE_NOPTS, .quiet_getopt = true, .help_col = 21};
}

void cmd_advise_help(FILE *out)
{
    advise_args a;
    cli_opt t[ADVISE_NOPTS];
    cli_opts table = advise_table(&a, t);
    char model_help[4096];
    snprintf(model_help, sizeof model_help,
             "the advisor model (default: $OMPDAG_ADVISOR_MODEL, else\n%s)",
             ompdag_advise_default_model_path());
    t[ADVISE_MODEL_ROW].help = model_help;
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
        "too-coarse) and a suggested change.\n\n");
    cli_opts_help(&table, out);
    fprintf(out, "\nexit status: 0 ok, 1 bad input, 2 usage error\n");
}

/* The options, then which mode the operands fit: 0, -1 after --help, or
 * the exit code of a refusal. */
static int parse_args(int argc, char **argv, advise_args *a)
{
    cli_opt t[ADVISE_NOPTS];
    cli_opts table = advise_table(a, t);
    int first, rc = cli_opts_parse(&table, argc, argv, &first);
    if (rc) return rc;
    a->first = first;
    int modes = a->validate + a->trace_stats + (a->build != NULL);
    if (modes > 1)
        return cli_usage_error("advise", "--validate, --trace-stats and --build-model exclude "
                                         "each other");
    if (a->build && (!a->out || first != argc))
        return cli_usage_error("advise", "--build-model MANIFEST wants -o MODEL and no file");
    if (a->validate && first != argc) return cli_usage_error("advise", "--validate takes no file");
    if (a->trace_stats && first >= argc)
        return cli_usage_error("advise", "--trace-stats wants at least one TRACE");
    if (!modes && first != argc - 1)
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
    for (int i = a->first; i < argc; ++i) {
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
        s = cli_load_graphs("advise", argv[a.first]);
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
