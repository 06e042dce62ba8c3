/*
 * tests/cli/test_cli_opts.c — the table-driven option parser (cli/cli_opts.h,
 * issue 27 item 4): each kind of row sets its destination, operands and
 * option order follow getopt_long (GNU permutation, or stop at the first
 * operand), refusals give the commands' messages and exit codes, and --help
 * lays out the table in the commands' columns.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_opts.h"

typedef struct args {
    const char *output, *preload;
    bool quiet, strict;
    int level;
    int calls;
} args;

/* --level N: 1..9, counted, refused otherwise with a usage error. */
static int set_level(const char *arg, void *dest)
{
    args *a = dest;
    int64_t v;
    ++a->calls;
    if (!cli_parse_i64(arg ? arg : "5", 1, 9, &v))
        return cli_usage_error("t", "--level takes 1..9");
    a->level = (int)v;
    return 0;
}

enum { NOPTS = 5 };

static void table(args *a, cli_opt t[NOPTS])
{
    const cli_opt opts[NOPTS] = {
        {"output", 'o', CLI_ARG_REQUIRED, "-o, --output FILE", "where to write", CLI_OPT_STRING,
         &a->output, NULL, NULL},
        {"quiet", 'q', CLI_ARG_NONE, "--quiet", "say nothing", CLI_OPT_FLAG, &a->quiet, NULL, NULL},
        {"preload", 0, CLI_ARG_OPTIONAL, "--preload[=LIB]", "preload LIB\n(default: libx.so)",
         CLI_OPT_STRING, &a->preload, "libx.so", NULL},
        {"level", 0, CLI_ARG_OPTIONAL, "--level-of-detail[=N]", "a long label\ntwo\nthree",
         CLI_OPT_CALL, a, NULL, set_level},
        {"strict", 0, CLI_ARG_NONE, NULL, NULL, CLI_OPT_FLAG, &a->strict, NULL, NULL},
    };
    memcpy(t, opts, sizeof opts);
}

static int parse(args *a, bool stop, int argc, char **argv, int *first)
{
    cli_opt t[NOPTS];
    table(a, t);
    opterr = 0; /* getopt's own messages are not ours to test */
    return cli_opts_parse(&(cli_opts){"t", t, NOPTS, stop}, argc, argv, first);
}

Test(cli_opts, every_kind_of_row_sets_its_destination)
{
    char *argv[] = {"t", "-o", "out.json", "--quiet", "--preload", "--level=7", "--strict", "G"};
    args a = {0};
    int first = 0;
    cr_assert_eq(parse(&a, false, 8, argv, &first), 0);
    cr_assert_str_eq(a.output, "out.json");
    cr_assert(a.quiet && a.strict);
    cr_assert_str_eq(a.preload, "libx.so", "a bare optional argument takes the row's default");
    cr_assert_eq(a.level, 7);
    cr_assert_eq(a.calls, 1);
    cr_assert_eq(first, 7);
    cr_assert_str_eq(argv[first], "G");
}

Test(cli_opts, operands_are_permuted_unless_options_stop_at_the_first)
{
    char *argv[] = {"t", "G", "-q", "T", "--preload=liby.so"};
    args a = {0};
    int first = 0;
    cr_assert_eq(parse(&a, false, 5, argv, &first), 0);
    cr_assert(a.quiet);
    cr_assert_str_eq(a.preload, "liby.so");
    cr_assert_eq(first, 3);
    cr_assert_str_eq(argv[3], "G");
    cr_assert_str_eq(argv[4], "T");

    char *argv2[] = {"t", "-q", "PROG", "--quiet", "-o", "x"};
    args b = {0};
    cr_assert_eq(parse(&b, true, 6, argv2, &first), 0);
    cr_assert_eq(first, 2, "PROG's own options are left to PROG");
    cr_assert_null(b.output);
}

Test(cli_opts, an_unknown_option_is_a_usage_error, .init = cr_redirect_stderr)
{
    char *argv[] = {"t", "--bogus", "G"};
    args a = {0};
    int first;
    cr_assert_eq(parse(&a, false, 3, argv, &first), CLI_EXIT_USAGE);
    fflush(stderr);
    cr_assert_stderr_eq_str("ompdag t: unknown option '--bogus'\n(see 'ompdag t --help')\n");
}

Test(cli_opts, a_missing_argument_is_named, .init = cr_redirect_stderr)
{
    char *argv[] = {"t", "G", "--output"};
    args a = {0};
    int first;
    cr_assert_eq(parse(&a, false, 3, argv, &first), CLI_EXIT_USAGE);
    fflush(stderr);
    cr_assert_stderr_eq_str(
        "ompdag t: option '--output' needs an argument\n(see 'ompdag t --help')\n");
}

Test(cli_opts, a_short_option_without_its_argument_is_named, .init = cr_redirect_stderr)
{
    char *argv[] = {"t", "-o"};
    args a = {0};
    int first;
    cr_assert_eq(parse(&a, false, 2, argv, &first), CLI_EXIT_USAGE);
    fflush(stderr);
    cr_assert_stderr_eq_str("ompdag t: option '-o' needs an argument\n(see 'ompdag t --help')\n");
}

Test(cli_opts, a_long_only_row_has_no_short_form, .init = cr_redirect_stderr)
{
    char *argv[] = {"t", "-s"}; /* --strict has no letter */
    args a = {0};
    int first;
    cr_assert_eq(parse(&a, false, 2, argv, &first), CLI_EXIT_USAGE);
    cr_assert_not(a.strict);
    fflush(stderr);
    cr_assert_stderr_eq_str("ompdag t: unknown option '-s'\n(see 'ompdag t --help')\n");
}

Test(cli_opts, a_handler_refusal_stops_parsing_with_its_code, .init = cr_redirect_stderr)
{
    char *argv[] = {"t", "--level=10", "--level=3", "-q"};
    args a = {0};
    int first;
    cr_assert_eq(parse(&a, false, 4, argv, &first), CLI_EXIT_USAGE);
    cr_assert_eq(a.calls, 1, "nothing after the refusal is applied");
    cr_assert_not(a.quiet);
    fflush(stderr);
    cr_assert_stderr_eq_str("ompdag t: --level takes 1..9\n(see 'ompdag t --help')\n");
}

Test(cli_opts, help_lays_out_the_table_in_the_commands_columns)
{
    args a = {0};
    cli_opt t[NOPTS];
    table(&a, t);
    char buf[1024] = "";
    FILE *out = fmemopen(buf, sizeof buf - 1, "w");
    cr_assert_not_null(out);
    cli_opts_help(&(cli_opts){"t", t, NOPTS, false}, out);
    fclose(out);
    cr_assert_str_eq(buf, "  -o, --output FILE     where to write\n"
                          "  --quiet               say nothing\n"
                          "  --preload[=LIB]       preload LIB\n"
                          "                        (default: libx.so)\n"
                          "  --level-of-detail[=N] a long label\n"
                          "                        two\n"
                          "                        three\n");
}

/* ---- typed rows: numbers and lists parsed and range-checked by the table ---- */

typedef struct typed {
    int level;
    int64_t seed;
    double p;
    cli_int_list threads;
    bool cache;
} typed;

enum { TYPED_NOPTS = 6 };

static void typed_table(typed *a, cli_opt t[TYPED_NOPTS])
{
    const cli_opt opts[TYPED_NOPTS] = {
        {"level", 'l', CLI_ARG_REQUIRED, "-l, --level N", "1..9", CLI_OPT_INT, &a->level,
         .typed = {1, 9, "--level wants 1..9, got '%s'"}},
        {"seed", 0, CLI_ARG_REQUIRED, "--seed S", "seed", CLI_OPT_INT64, &a->seed,
         .typed = {0, INT64_MAX, "--seed wants an integer >= 0"}},
        {"p", 0, CLI_ARG_REQUIRED, "--p P", "a probability", CLI_OPT_PROB, &a->p},
        {"threads", 0, CLI_ARG_REQUIRED, "--threads M[,M...]", "counts", CLI_OPT_INT_LIST,
         &a->threads, .typed = {1, 64, "--threads wants integers in [1, 64], got '%s'"}},
        {"cache", 0, CLI_ARG_NONE, "--cache", "on", CLI_OPT_FLAG, &a->cache},
        {"no-cache", 0, CLI_ARG_NONE, "--no-cache", "off", CLI_OPT_CLEAR, &a->cache},
    };
    memcpy(t, opts, sizeof opts);
}

static int parse_typed_args(typed *a, int argc, char **argv)
{
    cli_opt t[TYPED_NOPTS];
    typed_table(a, t);
    int first;
    return cli_opts_parse(&(cli_opts){"t", t, TYPED_NOPTS, .quiet_getopt = true}, argc, argv,
                          &first);
}

Test(cli_opts, typed_rows_parse_into_their_destinations)
{
    char *argv[] = {"t",         "-l",     "3",         "--seed=9223372036854775807",
                    "--p",       "0.25",   "--cache",   "--threads=1,2",
                    "--threads", "4,8,16", "--no-cache"};
    typed a = {0};
    cr_assert_eq(parse_typed_args(&a, 11, argv), 0);
    cr_assert_eq(a.level, 3);
    cr_assert_eq(a.seed, INT64_MAX);
    cr_assert_float_eq(a.p, 0.25, 1e-12);
    cr_assert_not(a.cache, "--no-cache after --cache clears it");
    cr_assert_eq(a.threads.n, 3, "a list given again replaces the earlier one");
    cr_assert_eq(a.threads.v[0], 4);
    cr_assert_eq(a.threads.v[2], 16);
    free(a.threads.v);
}

Test(cli_opts, a_typed_refusal_puts_the_argument_in_its_message, .init = cr_redirect_stderr)
{
    char *argv[] = {"t", "--level=10", "-l", "2"};
    typed a = {0};
    cr_assert_eq(parse_typed_args(&a, 4, argv), CLI_EXIT_USAGE);
    cr_assert_eq(a.level, 0, "a refused value is not stored, and parsing stops");
    fflush(stderr);
    cr_assert_stderr_eq_str("ompdag t: --level wants 1..9, got '10'\n(see 'ompdag t --help')\n");
}

Test(cli_opts, a_typed_refusal_without_placeholder_is_printed_as_is, .init = cr_redirect_stderr)
{
    char *argv[] = {"t", "--seed", "-1"};
    typed a = {0};
    cr_assert_eq(parse_typed_args(&a, 3, argv), CLI_EXIT_USAGE);
    fflush(stderr);
    cr_assert_stderr_eq_str("ompdag t: --seed wants an integer >= 0\n(see 'ompdag t --help')\n");
}

Test(cli_opts, a_refused_list_leaves_no_list, .init = cr_redirect_stderr)
{
    char *argv[] = {"t", "--threads", "2", "--threads", "2,65"};
    typed a = {0};
    cr_assert_eq(parse_typed_args(&a, 5, argv), CLI_EXIT_USAGE);
    cr_assert_null(a.threads.v);
    fflush(stderr);
    cr_assert_stderr_eq_str(
        "ompdag t: --threads wants integers in [1, 64], got '2,65'\n(see 'ompdag t --help')\n");
}

/* Without a `bad` message the refusal names the word that carried the value:
 * "--p=2" as one word, or the value alone after "--p". */
Test(cli_opts, a_typed_row_without_message_names_the_word, .init = cr_redirect_stderr)
{
    char *argv[] = {"t", "--p=2"};
    typed a = {0};
    cr_assert_eq(parse_typed_args(&a, 2, argv), CLI_EXIT_USAGE);
    char *argv2[] = {"t", "--p", "x"};
    cr_assert_eq(parse_typed_args(&a, 3, argv2), CLI_EXIT_USAGE);
    fflush(stderr);
    cr_assert_stderr_eq_str("ompdag t: bad option or value '--p=2'\n(see 'ompdag t --help')\n"
                            "ompdag t: bad option or value 'x'\n(see 'ompdag t --help')\n");
}

Test(cli_opts, quiet_getopt_leaves_only_our_message, .init = cr_redirect_stderr)
{
    char *argv[] = {"t", "--bogus"};
    typed a = {0};
    opterr = 1; /* getopt would print "unrecognized option" too */
    cr_assert_eq(parse_typed_args(&a, 2, argv), CLI_EXIT_USAGE);
    fflush(stderr);
    cr_assert_stderr_eq_str("ompdag t: unknown option '--bogus'\n(see 'ompdag t --help')\n");
}

Test(cli_opts, help_col_sets_the_column_of_the_help_text)
{
    typed a = {0};
    cli_opt t[TYPED_NOPTS];
    typed_table(&a, t);
    char buf[1024] = "";
    FILE *out = fmemopen(buf, sizeof buf - 1, "w");
    cr_assert_not_null(out);
    cli_opts_help(&(cli_opts){"t", t, 2, .help_col = 18}, out);
    fclose(out);
    cr_assert_str_eq(buf, "  -l, --level N   1..9\n"
                          "  --seed S        seed\n");
}

/* A row may have only a letter (`-o FILE`, no --output): it is parsed, and
 * the long options after it in the table still are. */
Test(cli_opts, a_row_without_long_name_is_a_short_option_only, .init = cr_redirect_stderr)
{
    const char *out = NULL;
    bool quiet = false;
    const cli_opt t[] = {
        {NULL, 'o', CLI_ARG_REQUIRED, "-o FILE", "output", CLI_OPT_STRING, &out},
        {"quiet", 0, CLI_ARG_NONE, "--quiet", "say nothing", CLI_OPT_FLAG, &quiet},
    };
    char *argv[] = {"t", "-o", "x.json", "--quiet", "G"};
    int first;
    cr_assert_eq(cli_opts_parse(&(cli_opts){"t", t, 2, .quiet_getopt = true}, 5, argv, &first), 0);
    cr_assert_str_eq(out, "x.json");
    cr_assert(quiet);
    cr_assert_eq(first, 4);
    char *argv2[] = {"t", "--o=y"};
    cr_assert_eq(cli_opts_parse(&(cli_opts){"t", t, 2, .quiet_getopt = true}, 2, argv2, &first),
                 CLI_EXIT_USAGE);
    fflush(stderr);
    cr_assert_stderr_eq_str("ompdag t: unknown option '--o'\n(see 'ompdag t --help')\n");
}

/* A handler refusing with the word as typed. */
static int set_mode(const char *arg, void *dest)
{
    if (strcmp(arg, "worst"))
        return cli_usage_error("t", "bad option or value '%s'", cli_opts_word());
    *(bool *)dest = true;
    return 0;
}

Test(cli_opts, a_handler_can_quote_the_word_that_carried_its_argument, .init = cr_redirect_stderr)
{
    bool worst = false;
    const cli_opt t[] = {
        {"flow", 0, CLI_ARG_REQUIRED, "--flow worst", "the worst flow", CLI_OPT_CALL, &worst, NULL,
         set_mode},
    };
    char *argv[] = {"t", "--flow", "worst", "--flow=best"};
    int first;
    cr_assert_eq(cli_opts_parse(&(cli_opts){"t", t, 1, .quiet_getopt = true}, 4, argv, &first),
                 CLI_EXIT_USAGE);
    cr_assert(worst);
    cr_assert_str_eq(cli_opts_word(), "", "no word outside a parse");
    fflush(stderr);
    cr_assert_stderr_eq_str(
        "ompdag t: bad option or value '--flow=best'\n(see 'ompdag t --help')\n");
}

Test(cli_opts, unknown_as_value_refuses_an_unknown_option_as_a_bad_value,
     .init = cr_redirect_stderr)
{
    bool quiet = false;
    const cli_opt t[] = {{"quiet", 0, CLI_ARG_NONE, "--quiet", "", CLI_OPT_FLAG, &quiet}};
    char *argv[] = {"t", "--bogus"};
    int first;
    cr_assert_eq(
        cli_opts_parse(&(cli_opts){"t", t, 1, .unknown_as_value = true, .quiet_getopt = true}, 2,
                       argv, &first),
        CLI_EXIT_USAGE);
    fflush(stderr);
    cr_assert_stderr_eq_str("ompdag t: bad option or value '--bogus'\n(see 'ompdag t --help')\n");
}
