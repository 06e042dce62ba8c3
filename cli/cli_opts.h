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
#include <stdint.h>
#include <stdio.h>

/* Whether an option takes an argument (getopt_long's has_arg). */
typedef enum cli_opt_arg {
    CLI_ARG_NONE,     /* --name */
    CLI_ARG_REQUIRED, /* --name VALUE, --name=VALUE, -x VALUE */
    CLI_ARG_OPTIONAL, /* --name or --name=VALUE */
} cli_opt_arg;

/* What an option does with its argument.  The typed kinds (CLEAR aside)
 * take a required argument, parse it with cli.h's parsers and, when it does
 * not parse or is out of range, refuse it with the row's message: a command
 * states each number's range and refusal once, in its row (`.typed`). */
typedef enum cli_opt_kind {
    CLI_OPT_FLAG,     /* *(bool *)dest = true */
    CLI_OPT_STRING,   /* *(const char **)dest = the argument (a bare optional one: `dflt`) */
    CLI_OPT_CALL,     /* call(arg, dest); arg is NULL for a bare optional argument */
    CLI_OPT_CLEAR,    /* *(bool *)dest = false (--no-X beside --X) */
    CLI_OPT_INT,      /* *(int *)dest = a decimal integer in [lo, hi] (within int) */
    CLI_OPT_INT64,    /* *(int64_t *)dest = a decimal integer in [lo, hi]; a uint64_t
                         dest is fine with lo >= 0 (C lets int64_t access it) */
    CLI_OPT_INT_LIST, /* *(cli_int_list *)dest = comma-separated integers in [lo, hi]
                         (32-bit); given again, it replaces the earlier list */
    CLI_OPT_PROB,     /* *(double *)dest = a probability in [0, 1] (cli_parse_prob) */
} cli_opt_kind;

/* CLI_OPT_INT_LIST's destination: `v` (n values) is malloc'ed by the parser
 * and the caller's to free; start from {NULL, 0}. */
typedef struct cli_int_list {
    int32_t *v;
    int n;
} cli_int_list;

/* A CLI_OPT_CALL handler: parses arg into dest.  Returns 0 to go on, or the
 * exit code to return after it printed why (cli_usage_error). */
typedef int (*cli_opt_handler)(const char *arg, void *dest);

/* One row of a command's option table.  The table and what it points to are
 * the caller's; nothing here is freed by the parser.  A typed row names its
 * range and refusal with a designated `.typed = {lo, hi, "..."}` after
 * `dest`.  A row lists only the fields its kind uses, and a cli_opts only
 * the settings it needs (C zeroes the rest): -Wextra's
 * missing-field-initializers is off for the files that build tables, since
 * a FLAG row has no handler nor range to give. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
typedef struct cli_opt {
    const char *name;     /* long name, without "--"; NULL: the letter only */
    char letter;          /* short option letter, 0 for none */
    cli_opt_arg arg;      /* argument kind */
    const char *label;    /* --help's left column ("-o, --output FILE"); NULL: not listed */
    const char *help;     /* --help's right column; each '\n' starts a continued line */
    cli_opt_kind kind;    /* what the option does */
    void *dest;           /* FLAG, CLEAR: bool *; STRING: const char **; CALL: the
                             handler's; the typed kinds: as cli_opt_kind says */
    const char *dflt;     /* STRING with CLI_ARG_OPTIONAL: the value of a bare --name */
    cli_opt_handler call; /* CALL only */
    struct {
        int64_t lo, hi;  /* INT, INT64, INT_LIST: the accepted range */
        const char *bad; /* the refusal; its first "%s" stands for the argument;
                            NULL: "bad option or value 'WORD'", WORD being the
                            command-line word that carried the value */
    } typed;             /* the typed kinds only */
} cli_opt;

/* A command's table and how it is parsed and listed.  A table function
 * returns it with only the settings it needs designated, e.g.
 * `(cli_opts){"gen", t, GEN_NOPTS, .quiet_getopt = true, .help_col = 22}`. */
typedef struct cli_opts {
    const char *cmd; /* the subcommand, for "ompdag CMD: ..." messages */
    const cli_opt *opt;
    size_t n;
    bool stop_at_operand;  /* options end at the first operand (getopt's '+';
                              `run -- PROG ARGS` keeps PROG's options for PROG) */
    bool unknown_as_value; /* an unknown option or a missing argument is refused as
                              "bad option or value 'WORD'" (expand's way) */
    bool quiet_getopt;     /* opterr = 0: a refusal prints only our message, as every
                              command's but run's and annotate's (getopt's line too) */
    int help_col;          /* --help's column for the help text; 0: 24 */
} cli_opts;

/* Parses the options of argv[0..argc) (argv[0] is the subcommand) by the
 * table; getopt's opterr is left as the caller set it unless quiet_getopt.
 * Returns 0 with *first = the index of the first operand, or the exit code
 * of the first refusal (CLI_EXIT_USAGE for an unknown option, a missing
 * argument or a typed value refused, or what a handler returned), its
 * message printed. */
int cli_opts_parse(const cli_opts *t, int argc, char **argv, int *first);

/* While a handler runs: the command-line word that carried its argument
 * ("--graph=x", or "x" after "--graph"), for refusals that quote it as
 * typed ("bad option or value 'WORD'"); "" outside a parse. */
const char *cli_opts_word(void);

/* Writes the table's option list for --help: "  LABEL" padded to help_col
 * (24 unless set; one space after a longer label), then the help text, its
 * continued lines indented to the same column. */
void cli_opts_help(const cli_opts *t, FILE *out);

#endif
