/* cli/cmd_check.c — `ompdag check`: deadline verdicts for CI.  Exit 0 when every
 * region passes, 1 when some region misses its deadline, is refuted by its own
 * measurements (a clean observed run longer than the bound), has an unsafe
 * bound (dropped segments, an escape hatch of annotate) or unmeasured WCETs
 * (never annotated, or an annotation that mapped nothing or saw no run) — the
 * last three whatever the deadline: nothing passes without measurements — and
 * 2 on a usage or input error (include/ompdag/report.h decides the verdicts
 * exactly, against the bound that holds: with tied tasks, the bound under the
 * task scheduling constraint). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
#include "ompdag/report.h"

typedef struct check_args {
    const char *file;
    cli_int_list threads;
    ompdag_deadlines *deadlines;
    bool require, quiet, for_input;
} check_args;

/* --deadline SPEC, added to the set *dest points to. */
static int add_deadline(const char *arg, void *dest)
{
    ompdag_error err = {0};
    if (ompdag_deadlines_add(*(ompdag_deadlines **)dest, arg, &err))
        return cli_usage_error("check", "%s", err.message);
    return 0;
}

enum { CHECK_NOPTS = 5 };

/* check's options, in --help's order, writing into *o. */
static cli_opts check_table(check_args *o, cli_opt t[CHECK_NOPTS])
{
    const cli_opt rows[CHECK_NOPTS] = {
        {"threads", 0, CLI_ARG_REQUIRED, "--threads M[,M...]",
         "thread counts (default: the file's \"threads\")", CLI_OPT_INT_LIST, &o->threads,
         .typed = {1, 1 << 20, "--threads wants integers in [1, 1048576], got '%s'"}},
        {"deadline", 0, CLI_ARG_REQUIRED, "--deadline SPEC",
         "repeatable; overrides the source's deadline", CLI_OPT_CALL, &o->deadlines, NULL,
         add_deadline},
        {"require-deadline", 0, CLI_ARG_NONE, "--require-deadline",
         "a region without a deadline fails too", CLI_OPT_FLAG, &o->require},
        {"for-input", 0, CLI_ARG_NONE, "--for-input",
         "judge by the bound for the input the traces ran, where\n"
         "annotate recorded the runs' task structure (input_bound_ns,\n"
         "docs/probe.md#input); regions without one keep the graph's",
         CLI_OPT_FLAG, &o->for_input},
        {"quiet", 0, CLI_ARG_NONE, "--quiet", "print violations only", CLI_OPT_FLAG, &o->quiet},
    };
    memcpy(t, rows, sizeof rows);
    return (cli_opts){"check", t, CHECK_NOPTS, .quiet_getopt = true, .help_col = 23};
}

void cmd_check_help(FILE *out)
{
    check_args o;
    cli_opt t[CHECK_NOPTS];
    cli_opts table = check_table(&o, t);
    fprintf(out,
            "usage: ompdag check ANNOTATED.json [--threads M[,M...]] [--deadline SPEC...]\n"
            "                    [--require-deadline] [--for-input] [--quiet]\n\n"
            "Checks every region's exact bound against its deadline (`#pragma ompdag\n"
            "deadline(5ms)`, or --deadline FUNCTION=5ms / FILE:LINE=800us; units ns, us, ms, s)\n"
            "and prints violations as FILE:LINE:COL: error: ... [ompdag-deadline].\n"
            "The bound judged is the one that holds: with tied tasks (OpenMP's default) the\n"
            "bound under the task scheduling constraint, which `untied` may tighten; with\n"
            "measured fork/join, the whole region's.  Measurements outrank the proof: a region\n"
            "whose clean observed response (runs the probe saw without preemption or\n"
            "migration, of the same team size as m where recorded) exceeds its bound fails\n"
            "as [ompdag-refuted]; one annotated with an escape hatch (--allow-unmapped,\n"
            "--unobserved zero, --no-overheads) as [ompdag-unsafe]; and one whose WCETs were\n"
            "never measured (not annotated, or annotate mapped no segment or saw no run) as\n"
            "[ompdag-unmeasured] -- whether or not it has a deadline.\n\n");
    cli_opts_help(&table, out);
    fprintf(out, "\nexit status: 0 all regions pass, 1 some region fails (deadline, refuted,\n"
                 "unsafe or unmeasured) or the input is bad, 2 usage error\n");
}

static int parse_check_args(int argc, char **argv, check_args *o)
{
    cli_opt t[CHECK_NOPTS];
    cli_opts table = check_table(o, t);
    int first, rc = cli_opts_parse(&table, argc, argv, &first);
    if (!rc && first != argc - 1)
        rc = cli_usage_error("check", "expected exactly one ANNOTATED.json");
    if (!rc) o->file = argv[first];
    return rc;
}

static void print_place(FILE *out, const ompdag_report_row *row)
{
    if (row->loc.file && row->loc.line > 0)
        fprintf(out, "%s:%d:%d: ", row->loc.file, row->loc.line,
                row->loc.col > 0 ? row->loc.col : 1);
}

/* One line per (region, m) — one per region for an unmeasured one, whose
 * cause is the same for every m; returns true when the row fails. */
static bool check_row(const check_args *o, const ompdag_report_row *row, bool first_of_region)
{
    char b[64], d[64], s[64], region[160];
    if (row->judged_for_input)
        ompdag_duration_format(row->input_bound_ns, b, sizeof b);
    else if (row->bound_ns >= 0)
        ompdag_duration_format(row->bound_ns, b, sizeof b);
    else /* the graph's time unit is not a time (no deadline can apply) */
        snprintf(b, sizeof b, "%.6g time units", row->bound);
    /* Deadlines apply to the whole region's bound where fork/join were measured. */
    if (row->fork_join_ns >= 0 && row->verdict_bound_ns >= 0)
        snprintf(region, sizeof region, "%s (region, with fork/join%s)",
                 ompdag_duration_format(row->verdict_bound_ns, s, sizeof s),
                 row->judged_for_input ? ", for this input" : "");
    else
        snprintf(region, sizeof region, "%s%s", b,
                 row->judged_for_input ? " (for this input)" : "");
    if (row->verdict == OMPDAG_VERDICT_UNMEASURED) {
        if (!first_of_region) return true;
        print_place(stdout, row);
        printf("error: %s: unmeasured: %s [ompdag-unmeasured]\n", row->function,
               row->unmeasured_reason);
        return true;
    }
    if (row->verdict == OMPDAG_VERDICT_REFUTED) {
        bool whole = row->refuted_by_region; /* the task system held, the whole region did not */
        if (row->refuted_input && !whole)    /* the graph's bound held, the input's did not */
            ompdag_duration_format(row->input_bound_ns, b, sizeof b);
        print_place(stdout, row);
        printf("error: %s: refuted: a clean observed run took %s, longer than the bound %s%s on "
               "%d threads [ompdag-refuted]\n",
               row->function,
               ompdag_duration_format(whole ? row->observed_region_max_ns : row->observed_max_ns, d,
                                      sizeof d),
               whole ? region : b, row->refuted_input && !whole ? " for this input" : "", row->m);
        return true;
    }
    if (row->verdict == OMPDAG_VERDICT_UNSAFE) {
        print_place(stdout, row);
        printf("error: %s: unsafe bound %s on %d threads: %s [ompdag-unsafe]\n", row->function, b,
               row->m, row->unsafe_reason ? row->unsafe_reason : "?");
        return true;
    }
    if (row->verdict == OMPDAG_VERDICT_FAIL) {
        print_place(stdout, row);
        printf("error: %s: bound %s on %d threads exceeds deadline %s (%s) by %s "
               "[ompdag-deadline]\n",
               row->function, region, row->m,
               ompdag_duration_format((double)row->deadline_ns, d, sizeof d),
               strcmp(row->deadline_from, "pragma") ? row->deadline_from
                                                    : "#pragma ompdag deadline",
               ompdag_duration_format(-row->slack_ns, s, sizeof s));
        return true;
    }
    if (row->verdict == OMPDAG_VERDICT_NO_DEADLINE) {
        if (o->require) {
            print_place(stdout, row);
            printf("error: %s: no deadline (bound %s on %d threads) [ompdag-no-deadline]\n",
                   row->function, b, row->m);
            return true;
        }
        if (!o->quiet)
            printf("%s: no deadline; bound %s on %d threads\n", row->function, b, row->m);
        return false;
    }
    if (!o->quiet)
        printf("%s: pass: bound %s on %d threads, deadline %s, slack %s%s\n", row->function, region,
               row->m, ompdag_duration_format((double)row->deadline_ns, d, sizeof d),
               ompdag_duration_format(row->slack_ns, s, sizeof s),
               row->wcets_given ? " (WCETs given in the file, not measured by ompdag)" : "");
    return false;
}

/* Once per region with tied tasks: which rule the bound rests on, and what
 * `untied` would give at each m where it differs (stderr, so that --quiet
 * output stays the violations).  Row `first` starts the region's rows. */
static void note_tied(const ompdag_report *r, size_t first)
{
    char b[64];
    const ompdag_report_row *row = ompdag_report_row_get(r, first);
    print_place(stderr, row);
    fprintf(stderr,
            "warning: %s: %d tied task(s): judged by the bound that holds under the task "
            "scheduling constraint (rule %s)",
            row->function, row->tied_tasks, ompdag_tied_rule_name(row->tied_rule));
    const char *sep = "; `untied` on the task directive(s) would tighten it to ";
    for (size_t i = first; i < ompdag_report_row_count(r); ++i) {
        const ompdag_report_row *x = ompdag_report_row_get(r, i);
        if (x->graph != row->graph) break;
        if (x->untied_bound_times_m >= x->bound_times_m || x->untied_bound_ns < 0) continue;
        fprintf(stderr, "%s%s on %d threads", sep,
                ompdag_duration_format(x->untied_bound_ns, b, sizeof b), x->m);
        sep = ", ";
    }
    fputc('\n', stderr);
}

int cmd_check(int argc, char **argv)
{
    check_args o = {.deadlines = ompdag_deadlines_create()};
    if (!o.deadlines) return fprintf(stderr, "ompdag check: out of memory\n"), CLI_EXIT_FAIL;
    int rc = parse_check_args(argc, argv, &o);
    ompdag_condag_set *s = NULL;
    ompdag_report *r = NULL;
    ompdag_error err = {0};
    if (!rc && ompdag_condag_set_load_file(o.file, &s, &err))
        rc = cli_fail("check", &err); /* bad input: 1, as in every command */
    if (!rc) {
        ompdag_report_options opt;
        ompdag_report_options_init(&opt);
        opt.threads = o.threads.v, opt.thread_count = o.threads.n;
        opt.deadlines = o.deadlines;
        opt.for_input = o.for_input;
        opt.input_name = o.file;
        if (ompdag_report_create(s, &opt, &r, &err))
            rc = err.code == OMPDAG_ERR_ARGUMENT ? cli_usage_error("check", "%s", err.message)
                                                 : cli_fail("check", &err);
    }
    if (!rc) {
        size_t failed = 0, checked = 0, n = ompdag_report_row_count(r);
        for (size_t i = 0; i < n; ++i) {
            const ompdag_report_row *row = ompdag_report_row_get(r, i);
            bool first = i == 0 || ompdag_report_row_get(r, i - 1)->graph != row->graph;
            failed += check_row(&o, row, first);
            checked += row->deadline_ns >= 0 || row->verdict != OMPDAG_VERDICT_NO_DEADLINE;
            if (row->tied_tasks && row->verdict != OMPDAG_VERDICT_NO_DEADLINE && first)
                note_tied(r, i);
        }
        if (!o.quiet || failed)
            printf("%zu of %zu check(s) against a deadline; %zu failed\n", checked, n, failed);
        if (!checked && !o.require && !failed)
            fprintf(stderr,
                    "ompdag check: note: no region of %s has a deadline; nothing was "
                    "checked (add `#pragma ompdag deadline(...)` or --deadline)\n",
                    o.file);
        rc = failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
    }
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
    ompdag_deadlines_destroy(o.deadlines);
    free(o.threads.v);
    return rc;
}
