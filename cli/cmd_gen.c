/* cli/cmd_gen.c — `ompdag gen`: one random con-DAG (include/ompdag/gen.h). */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "ompdag/gen.h"

void cmd_gen_help(FILE *out)
{
    fprintf(
        out,
        "usage: ompdag gen [options] [-o FILE]\n\n"
        "Generates a random con-DAG as in Sun et al. 2020, section 7 (deterministic per seed).\n\n"
        "options (defaults are the paper's):\n"
        "  --seed S            PRNG seed (default 1; xoshiro256**)\n"
        "  --tasks N           tasks drawn, n (default 10)\n"
        "  --p-if P            probability of inserting a branch (default 0.3)\n"
        "  --p-cre P           probability that a node is T (default 0.3)\n"
        "  --p-wait P          probability that a node is W (default 0.3)\n"
        "  --nodes MIN..MAX    non-conditional nodes per task (default 10..40)\n"
        "  --wcet MIN..MAX     WCET range (default 1..100)\n"
        "  --threads M         default m stored in the file (default 4)\n"
        "  --p-dep P           probability that a task gets depend clauses (default 0)\n"
        "  --dep-vars K        distinct vars the clauses use (default 4)\n"
        "  -o FILE             output file (default stdout), written atomically\n");
}

enum {
    OPT_SEED = 256,
    OPT_TASKS,
    OPT_PIF,
    OPT_PCRE,
    OPT_PWAIT,
    OPT_NODES,
    OPT_WCET,
    OPT_THREADS,
    OPT_PDEP,
    OPT_DEPVARS
};

static int parse_gen_option(int c, const char *arg, ompdag_gen_params *p)
{
    int64_t a, b;
    switch (c) {
    case OPT_SEED:
        if (!cli_parse_i64(arg, 0, INT64_MAX, &a))
            return cli_usage_error("gen", "--seed wants an integer >= 0");
        p->seed = (uint64_t)a;
        return 0;
    case OPT_TASKS:
    case OPT_THREADS:
        if (!cli_parse_i64(arg, c == OPT_TASKS ? 1 : 0, 1 << 24, &a))
            return cli_usage_error("gen", "%s wants an integer in [%d, 16777216], got '%s'",
                                   c == OPT_TASKS ? "--tasks" : "--threads", c == OPT_TASKS ? 1 : 0,
                                   arg);
        *(c == OPT_TASKS ? &p->tasks : &p->threads) = (int32_t)a;
        return 0;
    case OPT_PIF:
    case OPT_PCRE:
    case OPT_PWAIT:
        if (!cli_parse_prob(arg, c == OPT_PIF ? &p->p_if : c == OPT_PCRE ? &p->p_cre : &p->p_wait))
            return cli_usage_error("gen", "probabilities are numbers in [0, 1], got '%s'", arg);
        return 0;
    case OPT_PDEP:
        if (!cli_parse_prob(arg, &p->p_dep))
            return cli_usage_error("gen", "--p-dep is a number in [0, 1], got '%s'", arg);
        return 0;
    case OPT_DEPVARS:
        if (!cli_parse_i64(arg, 1, 1 << 20, &a))
            return cli_usage_error("gen", "--dep-vars wants an integer in [1, 1048576], got '%s'",
                                   arg);
        p->dep_vars = (int32_t)a;
        return 0;
    case OPT_NODES:
        if (!cli_parse_i64_range(arg, 1, 1 << 24, &a, &b))
            return cli_usage_error("gen", "--nodes wants MIN..MAX with 1 <= MIN <= MAX");
        p->nodes_min = (int32_t)a, p->nodes_max = (int32_t)b;
        return 0;
    case OPT_WCET:
        if (!cli_parse_i64_range(arg, 0, INT64_MAX / 2, &a, &b))
            return cli_usage_error("gen", "--wcet wants MIN..MAX with 0 <= MIN <= MAX");
        p->wcet_min = a, p->wcet_max = b;
        return 0;
    }
    return cli_usage_error("gen", "unknown option");
}

int cmd_gen(int argc, char **argv)
{
    static const struct option longopts[] = {{"seed", required_argument, 0, OPT_SEED},
                                             {"tasks", required_argument, 0, OPT_TASKS},
                                             {"p-if", required_argument, 0, OPT_PIF},
                                             {"p-cre", required_argument, 0, OPT_PCRE},
                                             {"p-wait", required_argument, 0, OPT_PWAIT},
                                             {"nodes", required_argument, 0, OPT_NODES},
                                             {"wcet", required_argument, 0, OPT_WCET},
                                             {"threads", required_argument, 0, OPT_THREADS},
                                             {"p-dep", required_argument, 0, OPT_PDEP},
                                             {"dep-vars", required_argument, 0, OPT_DEPVARS},
                                             {0, 0, 0, 0}};
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    const char *out = "-";
    int c, rc = 0;
    opterr = 0;
    while (!rc && (c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
        if (c == 'o')
            out = optarg;
        else if (c == '?')
            rc = cli_option_error("gen", argv, longopts, "o:");
        else
            rc = parse_gen_option(c, optarg, &p);
    }
    if (!rc && optind != argc)
        rc = cli_usage_error("gen", "unexpected argument '%s'", argv[optind]);
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
