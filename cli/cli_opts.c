/*
 * cli/cli_opts.c — the table-driven option parser (cli_opts.h): the table
 * becomes getopt_long's long options and short-option string, and each option
 * found is applied as its row says.  Model: gapbs's CommandLine.
 */
#include "cli_opts.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* getopt_long's value for row i: its letter, or 256 + i, which no letter
 * can be (so a long-only option has no short form). */
static int opt_value(const cli_opt *o, size_t i)
{
    return o->letter ? (unsigned char)o->letter : 256 + (int)i;
}

static int has_arg(cli_opt_arg a)
{
    return a == CLI_ARG_REQUIRED   ? required_argument
           : a == CLI_ARG_OPTIONAL ? optional_argument
                                   : no_argument;
}

/* The short-option string: '+' when options stop at the first operand, then
 * each letter in table order with ':' (required) or '::' (optional). */
static void short_string(const cli_opts *t, char *s)
{
    if (t->stop_at_operand) *s++ = '+';
    for (size_t i = 0; i < t->n; ++i) {
        if (!t->opt[i].letter) continue;
        *s++ = t->opt[i].letter;
        if (t->opt[i].arg != CLI_ARG_NONE) *s++ = ':';
        if (t->opt[i].arg == CLI_ARG_OPTIONAL) *s++ = ':';
    }
    *s = '\0';
}

/* The argv of the parse in progress, for cli_opts_word. */
static char **parsing_argv;

const char *cli_opts_word(void)
{
    return parsing_argv && optind > 0 ? parsing_argv[optind - 1] : "";
}

/* The refusal of a typed row's value: its `bad` message, the first "%s"
 * replaced by the argument, or "bad option or value 'WORD'". */
static int refuse(const char *cmd, const cli_opt *o, const char *arg)
{
    const char *bad = o->typed.bad;
    if (!bad) return cli_usage_error(cmd, "bad option or value '%s'", cli_opts_word());
    const char *s = strstr(bad, "%s");
    if (!s) return cli_usage_error(cmd, "%s", bad);
    return cli_usage_error(cmd, "%.*s%s%s", (int)(s - bad), bad, arg, s + 2);
}

/* Parses a typed row's argument into its destination; false when refused. */
static bool parse_typed(const cli_opt *o, const char *arg)
{
    int64_t v;
    if (!arg) return false; /* a typed row given CLI_ARG_OPTIONAL, bare */
    switch (o->kind) {
    case CLI_OPT_INT:
        if (!cli_parse_i64(arg, o->typed.lo, o->typed.hi, &v)) return false;
        *(int *)o->dest = (int)v;
        return true;
    case CLI_OPT_INT64:
        return cli_parse_i64(arg, o->typed.lo, o->typed.hi, o->dest);
    case CLI_OPT_INT_LIST: {
        cli_int_list *list = o->dest;
        free(list->v);
        list->v = NULL, list->n = 0;
        return cli_parse_i32_list(arg, (int32_t)o->typed.lo, (int32_t)o->typed.hi, &list->v,
                                  &list->n);
    }
    case CLI_OPT_PROB:
        return cli_parse_prob(arg, o->dest);
    default:
        return false;
    }
}

/* Applies row o to its argument (NULL when none was given). */
static int apply(const char *cmd, const cli_opt *o, const char *arg)
{
    switch (o->kind) {
    case CLI_OPT_FLAG:
        *(bool *)o->dest = true;
        return 0;
    case CLI_OPT_CLEAR:
        *(bool *)o->dest = false;
        return 0;
    case CLI_OPT_STRING:
        *(const char **)o->dest = arg ? arg : o->dflt;
        return 0;
    case CLI_OPT_CALL:
        return o->call(arg, o->dest);
    default:
        return parse_typed(o, arg) ? 0 : refuse(cmd, o, arg);
    }
}

/* The row getopt_long returned value c for, or NULL ('?': refused). */
static const cli_opt *row_of(const cli_opts *t, int c)
{
    for (size_t i = 0; i < t->n; ++i)
        if (opt_value(&t->opt[i], i) == c) return &t->opt[i];
    return NULL;
}

int cli_opts_parse(const cli_opts *t, int argc, char **argv, int *first)
{
    struct option *longopts = calloc(t->n + 1, sizeof *longopts);
    char *shortopts = malloc(3 * t->n + 2);
    if (!longopts || !shortopts) {
        free(longopts), free(shortopts);
        fprintf(stderr, "ompdag %s: out of memory\n", t->cmd);
        return CLI_EXIT_FAIL;
    }
    /* a row without a long name (`-o` alone) has no entry: a NULL name would
     * end getopt_long's list */
    for (size_t i = 0, k = 0; i < t->n; ++i)
        if (t->opt[i].name)
            longopts[k++] = (struct option){t->opt[i].name, has_arg(t->opt[i].arg), NULL,
                                            opt_value(&t->opt[i], i)};
    short_string(t, shortopts);
    int rc = 0, c;
    /* 0, not 1: glibc then starts afresh (the '+' ordering and its
     * permutation state), so a second table in one process parses alike */
    optind = 0;
    if (t->quiet_getopt) opterr = 0;
    parsing_argv = argv;
    while (!rc && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        const cli_opt *o = row_of(t, c);
        if (o)
            rc = apply(t->cmd, o, optarg);
        else if (t->unknown_as_value)
            rc = cli_usage_error(t->cmd, "bad option or value '%s'", cli_opts_word());
        else
            rc = cli_option_error(t->cmd, argv, longopts, shortopts);
    }
    *first = optind;
    parsing_argv = NULL;
    free(longopts), free(shortopts);
    return rc;
}

void cli_opts_help(const cli_opts *t, FILE *out)
{
    const int col = t->help_col > 3 ? t->help_col : 24;
    for (size_t i = 0; i < t->n; ++i) {
        const cli_opt *o = &t->opt[i];
        if (!o->label) continue;
        const char *line = o->help ? o->help : "";
        size_t len = strcspn(line, "\n");
        fprintf(out, "  %-*s %.*s\n", col - 3, o->label, (int)len, line);
        for (line += len; *line == '\n'; line += len) {
            ++line;
            len = strcspn(line, "\n");
            fprintf(out, "%*s%.*s\n", col, "", (int)len, line);
        }
    }
}
