/* cli/cmd_report.c — `ompdag report`: per-region timing reports with deadline
 * verdicts, as text, JSON, CSV, SARIF 2.1.0 or one self-contained HTML page
 * (include/ompdag/report.h). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ompdag/advise.h"
#include "ompdag/fileio.h"
#include "ompdag/report.h"

/* The stream refused a write (the writer saw ferror and could only say "write
 * error"): drop the output and name its path and the failed write's errno. */
static ompdag_status write_failed(ompdag_atomic_file *af, const char *path, int e,
                                  ompdag_error *err)
{
    ompdag_atomic_file_abort(af);
    return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: cannot write: %s",
                            strcmp(path, "-") ? path : "standard output", strerror(e ? e : EIO));
}

void cmd_report_help(FILE *out)
{
    fprintf(out,
            "usage: ompdag report ANNOTATED.json [options]\n\n"
            "Per function and parallel region: for each m the bound that holds (Graham's exact\n"
            "bound, or with tied tasks the bound under the task scheduling constraint, with\n"
            "Graham's beside it as what `untied` would give), vol and len, the worst-case flow\n"
            "(branch choices by file:line) and critical path, observed response times per team\n"
            "size and bound / observed, the bound that decides the verdict next to the deadline\n"
            "and slack, the verdict (pass, fail, no-deadline, refuted, unsafe, unmeasured), the\n"
            "assumptions (tied tasks, WCET method, migration overhead) and every node's WCET\n"
            "with its samples.  A region never annotated says so instead of giving a bound.\n\n"
            "options:\n"
            "  --threads M[,M...]      thread counts (default: the file's \"threads\")\n"
            "  --deadline SPEC         FUNCTION=5ms or FILE:LINE=800us (the `parallel` line);\n"
            "                          units ns, us, ms, s, decimals allowed; repeatable;\n"
            "                          overrides `#pragma ompdag deadline(...)`\n"
            "  --format F              text (default), json, csv, sarif, html\n"
            "  -o FILE                 output file (default stdout), written atomically\n"
            "  --migration-overhead O  charge O (graph time unit) per migration, on the flow\n"
            "  --migration-model wfs|bfs  WFS: one per T node (default); BFS: one per W node\n"
            "  --advise[=MODEL]        add task-granularity advice (ompdag advise); SARIF then\n"
            "                          warns `ompdag-too-fine` at each too-fine task directive\n"
            "  --for-input             judge deadlines by the bound for the input the traces\n"
            "                          ran (input_bound_ns: annotate recorded the runs' task\n"
            "                          structure, docs/probe.md#input), where there is one\n"
            "  --layout-timeout D      stop graphviz after D (default 8s; 0 = no limit): a\n"
            "                          drawing over the limit is replaced by a note, and the\n"
            "                          rest of the page is written\n"
            "html draws each region with graphviz's `dot` (inline SVG).\n"
            "exit status: 0 report written, 1 bad input or analysis error, 2 usage error\n");
}

typedef struct report_args {
    const char *file, *out;
    int32_t *threads;
    int thread_count;
    ompdag_report_format format;
    ompdag_deadlines *deadlines;
    int64_t overhead;
    ompdag_migration_model model;
    bool advise;
    const char *advise_model;  /* NULL: the default model */
    int64_t layout_timeout_ns; /* graphviz's limit per drawing; 0: none */
    bool for_input;
} report_args;

enum {
    OPT_THREADS = 256,
    OPT_DEADLINE,
    OPT_FORMAT,
    OPT_MIG,
    OPT_MIG_MODEL,
    OPT_ADVISE,
    OPT_LAYOUT_TIMEOUT,
    OPT_FOR_INPUT
};

static int parse_report_args(int argc, char **argv, report_args *o)
{
    static const struct option longopts[] = {
        {"threads", required_argument, 0, OPT_THREADS},
        {"deadline", required_argument, 0, OPT_DEADLINE},
        {"format", required_argument, 0, OPT_FORMAT},
        {"migration-overhead", required_argument, 0, OPT_MIG},
        {"migration-model", required_argument, 0, OPT_MIG_MODEL},
        {"advise", optional_argument, 0, OPT_ADVISE},
        {"layout-timeout", required_argument, 0, OPT_LAYOUT_TIMEOUT},
        {"for-input", no_argument, 0, OPT_FOR_INPUT},
        {0, 0, 0, 0}};
    o->out = "-";
    o->layout_timeout_ns = CLI_LAYOUT_TIMEOUT_NS;
    int c, rc = 0;
    opterr = 0;
    ompdag_error err = {0};
    while (!rc && (c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            o->out = optarg;
            break;
        case OPT_THREADS:
            free(o->threads);
            o->threads = NULL;
            if (!cli_parse_i32_list(optarg, 1, 1 << 20, &o->threads, &o->thread_count))
                rc = cli_usage_error("report", "--threads wants integers in [1, 1048576], got '%s'",
                                     optarg);
            break;
        case OPT_DEADLINE:
            if (ompdag_deadlines_add(o->deadlines, optarg, &err))
                rc = cli_usage_error("report", "%s", err.message);
            break;
        case OPT_FORMAT:
            if (!ompdag_report_format_parse(optarg, &o->format))
                rc = cli_usage_error(
                    "report", "--format is text, json, csv, sarif or html; got '%s'", optarg);
            break;
        case OPT_MIG:
            if (!cli_parse_i64(optarg, 0, INT64_MAX, &o->overhead))
                rc = cli_usage_error("report", "--migration-overhead wants an integer >= 0");
            break;
        case OPT_MIG_MODEL:
            if (strcmp(optarg, "wfs") && strcmp(optarg, "bfs"))
                rc = cli_usage_error("report", "--migration-model is wfs or bfs");
            o->model = strcmp(optarg, "bfs") ? OMPDAG_MIGRATION_WFS : OMPDAG_MIGRATION_BFS;
            break;
        case OPT_FOR_INPUT:
            o->for_input = true;
            break;
        case OPT_ADVISE:
            o->advise = true, o->advise_model = optarg;
            break;
        case OPT_LAYOUT_TIMEOUT:
            if (!strcmp(optarg, "0"))
                o->layout_timeout_ns = 0;
            else if (ompdag_duration_parse(optarg, &o->layout_timeout_ns, &err))
                rc = cli_usage_error("report", "--layout-timeout: %s", err.message);
            break;
        default:
            rc = cli_option_error("report", argv, longopts, "o:");
        }
    }
    if (!rc && optind != argc - 1)
        rc = cli_usage_error("report", "expected exactly one ANNOTATED.json");
    if (!rc) o->file = argv[optind];
    return rc;
}

/* The SVG that stands for a drawing graphviz did not finish in time
 * (graphviz's layout grows fast: 241 nodes in sequence took 130 s). */
static ompdag_status skipped_drawing(const char *why, char **svg, ompdag_error *err)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    fputs("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"720\" height=\"40\">"
          "<text x=\"4\" y=\"24\" font-family=\"sans-serif\" font-size=\"13\">"
          "drawing skipped: graphviz ",
          f);
    for (const char *p = why; *p; ++p) /* the message, XML-escaped */
        fputs(*p == '<' ? "&lt;" : *p == '>' ? "&gt;" : *p == '&' ? "&amp;" : (char[]){*p, 0}, f);
    fputs(" (raise --layout-timeout, or draw it with `ompdag dot`)</text></svg>", f);
    if (fclose(f)) {
        free(text);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    fprintf(stderr, "ompdag report: note: a drawing was skipped: graphviz %s\n", why);
    *svg = text;
    return OMPDAG_OK;
}

/* Renders DOT to SVG with graphviz: `dot -Tsvg`, through a temporary file
 * (cli_pipe_through needs a real file descriptor for the child's stdout). */
static ompdag_status render_svg(const char *dot, size_t len, char **svg, void *ctx,
                                ompdag_error *err)
{
    const report_args *o = ctx;
    FILE *tmp = tmpfile();
    if (!tmp) return ompdag_error_set(err, OMPDAG_ERR_IO, "cannot create a temporary file");
    const char *const argv[] = {"dot", "-Tsvg", NULL};
    int code = cli_pipe_through_limited(argv, dot, len, tmp, o->layout_timeout_ns, err);
    if (code == CLI_PIPE_TIMED_OUT) { /* a note instead of the drawing; the page goes on */
        fclose(tmp);
        return skipped_drawing(err->message, svg, err);
    }
    if (code != 0) {
        fclose(tmp);
        return err && err->code ? err->code : OMPDAG_ERR_IO;
    }
    long n = ftell(tmp);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    rewind(tmp);
    if (!buf || fread(buf, 1, (size_t)n, tmp) != (size_t)n) {
        free(buf);
        fclose(tmp);
        return ompdag_error_set(err, OMPDAG_ERR_IO, "cannot read graphviz's output");
    }
    buf[n] = '\0';
    fclose(tmp);
    *svg = buf;
    return OMPDAG_OK;
}

int cmd_report(int argc, char **argv)
{
    report_args o = {.deadlines = ompdag_deadlines_create()};
    if (!o.deadlines) return fprintf(stderr, "ompdag report: out of memory\n"), CLI_EXIT_FAIL;
    int rc = parse_report_args(argc, argv, &o);
    ompdag_condag_set *s = rc ? NULL : cli_load_graphs("report", o.file);
    if (!rc && !s) rc = CLI_EXIT_FAIL;
    ompdag_error err = {0};
    ompdag_report *r = NULL;
    ompdag_advice *advice = NULL;
    if (!rc && o.advise)
        rc =
            cli_advice_for("report", s, o.advise_model, o.thread_count ? o.threads[0] : 0, &advice);
    if (!rc) {
        ompdag_report_options opt;
        ompdag_report_options_init(&opt);
        opt.threads = o.threads, opt.thread_count = o.thread_count;
        opt.deadlines = o.deadlines;
        opt.for_input = o.for_input;
        opt.migration_overhead = o.overhead, opt.migration_model = o.model;
        opt.input_name = o.file;
        opt.advice = advice;
        if (ompdag_report_create(s, &opt, &r, &err)) rc = cli_fail("report", &err);
    }
    if (!rc) {
        ompdag_atomic_file *af = NULL;
        ompdag_status st = ompdag_atomic_file_open(o.out, &af, &err);
        if (!st) {
            st = ompdag_report_write(r, o.format, ompdag_atomic_file_stream(af), render_svg, &o,
                                     &err);
            int write_errno = errno; /* of the write that failed, if one did */
            if (st && ferror(ompdag_atomic_file_stream(af)))
                st = write_failed(af, o.out, write_errno, &err);
            else if (st)
                ompdag_atomic_file_abort(af);
            else
                st = ompdag_atomic_file_commit(af, &err);
        }
        if (st) rc = cli_fail("report", &err);
    }
    ompdag_report_destroy(r);
    ompdag_advice_destroy(advice);
    ompdag_condag_set_destroy(s);
    ompdag_deadlines_destroy(o.deadlines);
    free(o.threads);
    return rc;
}
