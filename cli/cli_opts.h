/*
 * cli/cli_opts.h — one table-driven option parser for the subcommands.
 *
 * The model is gapbs's CommandLine (sbeamer/gapbs, src/command_line.h): a
 * command lists each option once — long name, short letter, argument kind,
 * help text, and where its value goes — and both the parser and --help read
 * that list, so an option cannot be parsed without being documented, nor
 * documented without being parsed.  Parsing is getopt_long's (GNU argument
 * permutation, `--name=value`, abbreviations), and its refusals are
 * cli_option_error's, so messages and exit codes are those of the commands'
 * hand-written loops.
 */
#ifndef OMPDAG_CLI_OPTS_H
#define OMPDAG_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Whether an option takes an argument (getopt_long's has_arg). */
typedef enum cli_opt_arg {
    CLI_ARG_NONE,     /* --name */
    CLI_ARG_REQUIRED, /* --name VALUE, --name=VALUE, -x VALUE */
    CLI_ARG_OPTIONAL, /* --name or --name=VALUE */
} cli_opt_arg;

/* What an option does with its argument. */
typedef enum cli_opt_kind {
    CLI_OPT_FLAG,   /* *(bool *)dest = true */
    CLI_OPT_STRING, /* *(const char **)dest = the argument (a bare optional one: `dflt`) */
    CLI_OPT_CALL,   /* call(arg, dest); arg is NULL for a bare optional argument */
} cli_opt_kind;

/* A CLI_OPT_CALL handler: parses arg into dest.  Returns 0 to go on, or the
 * exit code to return after it printed why (cli_usage_error). */
typedef int (*cli_opt_handler)(const char *arg, void *dest);

/* One row of a command's option table.  The table and what it points to are
 * the caller's; nothing here is freed by the parser. */
typedef struct cli_opt {
    const char *name;     /* long name, without "--" */
    char letter;          /* short option letter, 0 for none */
    cli_opt_arg arg;      /* argument kind */
    const char *label;    /* --help's left column ("-o, --output FILE"); NULL: not listed */
    const char *help;     /* --help's right column; each '\n' starts a continued line */
    cli_opt_kind kind;    /* what the option does */
    void *dest;           /* FLAG: bool *; STRING: const char **; CALL: the handler's */
    const char *dflt;     /* STRING with CLI_ARG_OPTIONAL: the value of a bare --name */
    cli_opt_handler call; /* CALL only */
} cli_opt;

/* A command's table.  stop_at_operand: options end at the first operand
 * (getopt's '+'; `run -- PROG ARGS` keeps PROG's options for PROG). */
typedef struct cli_opts {
    const char *cmd; /* the subcommand, for "ompdag CMD: ..." messages */
    const cli_opt *opt;
    size_t n;
    bool stop_at_operand;
} cli_opts;

/* Parses the options of argv[0..argc) (argv[0] is the subcommand) by the
 * table, leaving getopt's opterr as the caller set it.  Returns 0 with
 * *first = the index of the first operand, or the exit code of the first
 * refusal (CLI_EXIT_USAGE for an unknown option or a missing argument, or
 * what a handler returned), its message printed. */
int cli_opts_parse(const cli_opts *t, int argc, char **argv, int *first);

/* Writes the table's option list for --help: "  LABEL" padded to 24
 * columns (one space after a longer label), then the help text, its
 * continued lines indented to column 24. */
void cli_opts_help(const cli_opts *t, FILE *out);

#endif
