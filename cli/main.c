/*
 * cli/main.c — the `ompdag` command: one table of subcommands (commands.def),
 * each handler in its own cmd_*.c file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ompdag/version.h"

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    void (*help)(FILE *out);
    const char *summary;
} cli_command;

static const cli_command commands[] = {
#define OMPDAG_COMMAND(name, summary) {#name, cmd_##name, cmd_##name##_help, summary},
#include "commands.def"
#undef OMPDAG_COMMAND
};

static const size_t command_count = sizeof commands / sizeof commands[0];

/* Table names use '_' where the command line uses '-'. */
static bool command_name_matches(const char *table_name, const char *arg)
{
    for (; *table_name && *arg; ++table_name, ++arg) {
        char a = *arg == '-' ? '_' : *arg;
        if (a != *table_name)
            return false;
    }
    return *table_name == *arg;
}

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < command_count; ++i)
        if (command_name_matches(commands[i].name, name))
            return &commands[i];
    return NULL;
}

static void print_usage(FILE *out)
{
    fprintf(out, "usage: ompdag [--version] [--help] COMMAND [ARGS]\n\n"
                 "Response-time bounds for OpenMP task graphs (con-DAGs).\n\ncommands:\n");
    for (size_t i = 0; i < command_count; ++i) {
        char shown[32];
        snprintf(shown, sizeof shown, "%s", commands[i].name);
        for (char *p = shown; *p; ++p)
            if (*p == '_')
                *p = '-';
        fprintf(out, "  %-12s %s\n", shown, commands[i].summary);
    }
    fprintf(out, "\nRun 'ompdag help COMMAND' or 'ompdag COMMAND --help' for details.\n");
}

static int run_help(int argc, char **argv)
{
    if (argc < 3) {
        print_usage(stdout);
        return CLI_EXIT_OK;
    }
    const cli_command *c = find_command(argv[2]);
    if (!c) {
        fprintf(stderr, "ompdag: unknown command '%s'\n", argv[2]);
        return CLI_EXIT_USAGE;
    }
    c->help(stdout);
    return CLI_EXIT_OK;
}

/* Every command's output is checked to the end: a full disk or a closed
 * pipe is an error, not exit 0 with a truncated result. */
static int cli_close_stdout(const char *cmd, int rc)
{
    rc = cli_flush_stdout(cmd, rc);
    if (fclose(stdout) != 0 && rc == CLI_EXIT_OK) {
        fprintf(stderr, "ompdag %s: cannot close standard output: %s\n", cmd, strerror(errno));
        rc = CLI_EXIT_FAIL;
    }
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h"))
        return print_usage(stdout), cli_close_stdout("--help", CLI_EXIT_OK);
    if (!strcmp(name, "--version")) {
        printf("ompdag %s\n", OMPDAG_VERSION);
        return cli_close_stdout("--version", CLI_EXIT_OK);
    }
    if (!strcmp(name, "help"))
        return cli_close_stdout("help", run_help(argc, argv));
    const cli_command *c = find_command(name);
    if (!c) {
        fprintf(stderr, "ompdag: unknown command '%s' (see 'ompdag --help')\n", name);
        return CLI_EXIT_USAGE;
    }
    for (int i = 2; i < argc && strcmp(argv[i], "--"); ++i)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            c->help(stdout);
            return cli_close_stdout(name, CLI_EXIT_OK);
        }
    return cli_close_stdout(name, c->run(argc - 1, argv + 1));
}
