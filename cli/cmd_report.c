/* cli/cmd_report.c — `ompdag report`: per-region timing reports with deadline
 * verdicts, as text, JSON, CSV, SARIF 2.1.0 or one self-contained HTML page
 * (include/ompdag/report.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
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

typedef struct report_args {
    const char *file, *out;
    cli_int_list threads;
    ompdag_report_format format;
    ompdag_deadlines *deadlines;
    int64_t overhead;
    ompdag_migration_model model;
    bool advise;
    const char *advise_model;  /* NULL: the default model */
    int64_t layout_timeout_ns; /* graphviz's limit per drawing; 0: none */
    bool for_input;
} report_args;

/* --deadline SPEC, added to the set *dest points to. */
static int add_deadline(const char *arg, void *dest)
{
    ompdag_error err = {0};
    if (ompdag_deadlines_add(*(ompdag_deadlines **)dest, arg, &err))
        return cli_usage_error("report", "%s", err.message);
    return 0;
}

static int set_format(const char *arg, void *dest)
{
    if (!ompdag_report_format_parse(arg, dest))
        return cli_usage_error("report", "--format is text, json, csv, sarif or html; got '%s'",
                               arg);
    return 0;
}

static int set_migration_model(const char *arg, void *dest)
{
    if (strcmp(arg, "wfs") && strcmp(arg, "bfs"))
        return cli_usage_error("report", "--migration-model is wfs or bfs");
    *(ompdag_migration_model *)dest =
        strcmp(arg, "bfs") ? OMPDAG_MIGRATION_WFS : OMPDAG_MIGRATION_BFS;
    return 0;
}

/* --advise[=MODEL] */
static int set_advise(const char *arg, void *dest)
{
    report_args *o = dest;
    o->advise = true, o->advise_model = arg;
    return 0;
}

/* --layout-timeout D: a duration, 0 for no limit. */
static int set_layout_timeout(const char *arg, void *dest)
{
    ompdag_error err = {0};
    if (!strcmp(arg, "0"))
        *(int64_t *)dest = 0;
    else if (ompdag_duration_parse(arg, dest, &err))
        return cli_usage_error("report", "--layout-timeout: %s", err.message);
    return 0;
}

enum { REPORT_NOPTS = 9 };

/* report's options, in --help's order, writing into *o. */
static cli_opts report_table(report_args *o, cli_opt t[REPORT_NOPTS])
{
    const cli_opt rows[REPORT_NOPTS] = {
        {"threads", 0, CLI_ARG_REQUIRED, "--threads M[,M...]",
         "thread counts (default: the file's \"threads\")", CLI_OPT_INT_LIST, &o->threads,
         .typed = {1, 1 << 20, "--threads wants integers in [1, 1048576], got '%s'"}},
        {"deadline", 0, CLI_ARG_REQUIRED, "--deadline SPEC",
         "FUNCTION=5ms or FILE:LINE=800us (the `parallel` line);\n"
         "units ns, us, ms, s, decimals allowed; repeatable;\n"
         "overrides `#pragma ompdag deadline(...)`",
         CLI_OPT_CALL, &o->deadlines, NULL, add_deadline},
        {"format", 0, CLI_ARG_REQUIRED, "--format F", "text (default), json, csv, sarif, html",
         CLI_OPT_CALL, &o->format, NULL, set_format},
        {NULL, 'o', CLI_ARG_REQUIRED, "-o FILE", "output file (default stdout), written atomically",
         CLI_OPT_STRING, &o->out},
        {"migration-overhead", 0, CLI_ARG_REQUIRED, "--migration-overhead O",
         "charge O (graph time unit) per migration, on the flow", CLI_OPT_INT64, &o->overhead,
         .typed = {0, INT64_MAX, "--migration-overhead wants an integer >= 0"}},
        {"migration-model", 0, CLI_ARG_REQUIRED, "--migration-model wfs|bfs",
         "WFS: one per T node (default); BFS: one per W node", CLI_OPT_CALL, &o->model, NULL,
         set_migration_model},
        {"advise", 0, CLI_ARG_OPTIONAL, "--advise[=MODEL]",
         "add task-granularity advice (ompdag advise); SARIF then\n"
         "warns `ompdag-too-fine` at each too-fine task directive",
         CLI_OPT_CALL, o, NULL, set_advise},
        {"for-input", 0, CLI_ARG_NONE, "--for-input",
         "judge deadlines by the bound for the input the traces\n"
         "ran (input_bound_ns: annotate recorded the runs' task\n"
         "structure, docs/probe.md#input), where there is one",
         CLI_OPT_FLAG, &o->for_input},
        {"layout-timeout", 0, CLI_ARG_REQUIRED, "--layout-timeout D",
         "stop graphviz after D (default 8s; 0 = no limit): a\n"
         "drawing over the limit is replaced by a note, and the\n"
         "rest of the page is written",
         CLI_OPT_CALL, &o->layout_timeout_ns, NULL, set_layout_timeout},
    };
    memcpy(t, rows, sizeof rows);
    return (cli_opts){"report", t, REPORT_NOPTS, .quiet_getopt = true, .help_col = 26};
}

void cmd_report_help(FILE *out)
{
    report_args o;
    cli_opt t[REPORT_NOPTS];
    cli_opts table = report_table(&o, t);
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
            "options:\n");
    cli_opts_help(&table, out);
    fprintf(out, "html draws each region with graphviz's `dot` (inline SVG).\n"
                 "exit status: 0 report written, 1 bad input or analysis error, 2 usage error\n");
}

static int parse_report_args(int argc, char **argv, report_args *o)
{
    o->out = "-";
    o->layout_timeout_ns = CLI_LAYOUT_TIMEOUT_NS;
    cli_opt t[REPORT_NOPTS];
    cli_opts table = report_table(o, t);
    int first, rc = cli_opts_parse(&table, argc, argv, &first);
    if (!rc && first != argc - 1)
        rc = cli_usage_error("report", "expected exactly one ANNOTATED.json");
    if (!rc) o->file = argv[first];
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
        rc = cli_advice_for("report", s, o.advise_model, o.threads.n ? o.threads.v[0] : 0, &advice);
    if (!rc) {
        ompdag_report_options opt;
        ompdag_report_options_init(&opt);
        opt.threads = o.threads.v, opt.thread_count = o.threads.n;
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
    free(o.threads.v);
    return rc;
}
