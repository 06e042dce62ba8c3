/* cli/cmd_gen.c — `ompdag gen`: one random con-DAG (include/ompdag/gen.h). */
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
#include "ompdag/gen.h"

static int set_nodes(const char *arg, void *dest)
{
    ompdag_gen_params *p = dest;
    int64_t a, b;
    if (!cli_parse_i64_range(arg, 1, 1 << 24, &a, &b))
        return cli_usage_error("gen", "--nodes wants MIN..MAX with 1 <= MIN <= MAX");
    p->nodes_min = (int32_t)a, p->nodes_max = (int32_t)b;
    return 0;
}

static int set_wcet(const char *arg, void *dest)
{
    ompdag_gen_params *p = dest;
    if (!cli_parse_i64_range(arg, 0, INT64_MAX / 2, &p->wcet_min, &p->wcet_max))
        return cli_usage_error("gen", "--wcet wants MIN..MAX with 0 <= MIN <= MAX");
    return 0;
}

#define GEN_BAD_PROB "probabilities are numbers in [0, 1], got '%s'"

enum { GEN_NOPTS = 12 };

/* gen's options, in --help's order, writing into *p and *out.  The seed,
 * a uint64_t, is written as the int64_t it is in [0, INT64_MAX]. */
static cli_opts gen_table(ompdag_gen_params *p, const char **out, cli_opt t[GEN_NOPTS])
{
    const cli_opt rows[GEN_NOPTS] = {
        {"seed", 0, CLI_ARG_REQUIRED, "--seed S", "PRNG seed (default 1; xoshiro256**)",
         CLI_OPT_INT64, &p->seed, .typed = {0, INT64_MAX, "--seed wants an integer >= 0"}},
        {"tasks", 0, CLI_ARG_REQUIRED, "--tasks N", "tasks drawn, n (default 10)", CLI_OPT_INT,
         &p->tasks, .typed = {1, 1 << 24, "--tasks wants an integer in [1, 16777216], got '%s'"}},
        {"p-if", 0, CLI_ARG_REQUIRED, "--p-if P", "probability of inserting a branch (default 0.3)",
         CLI_OPT_PROB, &p->p_if, .typed = {0, 0, GEN_BAD_PROB}},
        {"p-cre", 0, CLI_ARG_REQUIRED, "--p-cre P", "probability that a node is T (default 0.3)",
         CLI_OPT_PROB, &p->p_cre, .typed = {0, 0, GEN_BAD_PROB}},
        {"p-wait", 0, CLI_ARG_REQUIRED, "--p-wait P", "probability that a node is W (default 0.3)",
         CLI_OPT_PROB, &p->p_wait, .typed = {0, 0, GEN_BAD_PROB}},
        {"nodes", 0, CLI_ARG_REQUIRED, "--nodes MIN..MAX",
         "non-conditional nodes per task (default 10..40)", CLI_OPT_CALL, p, NULL, set_nodes},
        {"wcet", 0, CLI_ARG_REQUIRED, "--wcet MIN..MAX", "WCET range (default 1..100)",
         CLI_OPT_CALL, p, NULL, set_wcet},
        {"threads", 0, CLI_ARG_REQUIRED, "--threads M", "default m stored in the file (default 4)",
         CLI_OPT_INT, &p->threads,
         .typed = {0, 1 << 24, "--threads wants an integer in [0, 16777216], got '%s'"}},
        {"p-dep", 0, CLI_ARG_REQUIRED, "--p-dep P",
         "probability that a task gets depend clauses (default 0)", CLI_OPT_PROB, &p->p_dep,
         .typed = {0, 0, "--p-dep is a number in [0, 1], got '%s'"}},
        {"dep-vars", 0, CLI_ARG_REQUIRED, "--dep-vars K",
         "distinct vars the clauses use (default 4)", CLI_OPT_INT, &p->dep_vars,
         .typed = {1, 1 << 20, "--dep-vars wants an integer in [1, 1048576], got '%s'"}},
        {"p-wait-dep", 0, CLI_ARG_REQUIRED, "--p-wait-dep P",
         "probability that a W node gets depend items: a partial taskwait, `taskwait depend` "
         "(default 0)",
         CLI_OPT_PROB, &p->p_wait_dep,
         .typed = {0, 0, "--p-wait-dep is a number in [0, 1], got '%s'"}},
        {NULL, 'o', CLI_ARG_REQUIRED, "-o FILE", "output file (default stdout), written atomically",
         CLI_OPT_STRING, out},
    };
    memcpy(t, rows, sizeof rows);
    return (cli_opts){"gen", t, GEN_NOPTS, .quiet_getopt = true, .help_col = 22};
}

void cmd_gen_help(FILE *out)
{
    ompdag_gen_params p;
    const char *file;
    cli_opt t[GEN_NOPTS];
    cli_opts table = gen_table(&p, &file, t);
    fprintf(
        out,
        "usage: ompdag gen [options] [-o FILE]\n\n"
        "Generates a random con-DAG as in Sun et al. 2020, section 7 (deterministic per seed).\n\n"
        "options (defaults are the paper's):\n");
    cli_opts_help(&table, out);
}

int cmd_gen(int argc, char **argv)
{
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    const char *out = "-";
    cli_opt t[GEN_NOPTS];
    cli_opts table = gen_table(&p, &out, t);
    int first, rc = cli_opts_parse(&table, argc, argv, &first);
    if (!rc && first != argc) rc = cli_usage_error("gen", "unexpected argument '%s'", argv[first]);
    if (rc) return rc;
    ompdag_condag *g;
    ompdag_error err = {0};
    if (ompdag_gen_random(&p, &g, &err) || ompdag_condag_save_file(g, out, &err)) {
        if (err.code != OMPDAG_OK && err.code != OMPDAG_ERR_IO && err.code != OMPDAG_ERR_NOMEM)
            return cli_usage_error("gen", "%s", err.message);
        return cli_fail("gen", &err);
    }
    ompdag_condag_destroy(g);
    return CLI_EXIT_OK;
}
