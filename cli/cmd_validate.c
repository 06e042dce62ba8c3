/* cli/cmd_validate.c — `ompdag validate`: checks files against every rule of
 * the ompdag-condag format without analysing them. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"

void cmd_validate_help(FILE *out)
{
    fprintf(out, "usage: ompdag validate FILE...\n\n"
                 "Checks each con-DAG file against every rule of the format (docs/condag.md\n"
                 "section 5) and prints one line per file.\n"
                 "exit status: 0 all valid, 1 some file invalid, 2 usage error\n");
}

int cmd_validate(int argc, char **argv)
{
    int first = 1;
    if (argc > 1 && !strcmp(argv[1], "--"))
        first = 2; /* everything after "--" is a file, even "-x" */
    else
        for (int i = 1; i < argc; ++i)
            if (argv[i][0] == '-' && argv[i][1])
                return cli_usage_error("validate",
                                       "unknown option '%s' (a file named so goes "
                                       "after '--')",
                                       argv[i]);
    if (argc <= first) return cli_usage_error("validate", "expected at least one FILE");
    int bad = 0;
    for (int i = first; i < argc; ++i) {
        ompdag_condag_set *s = cli_load_graphs("validate", argv[i]);
        if (!s) {
            bad++;
            continue;
        }
        int64_t nodes = 0, tasks = 0;
        for (size_t k = 0; k < ompdag_condag_set_count(s); ++k) {
            nodes += ompdag_condag_node_count(ompdag_condag_set_graph(s, k));
            tasks += ompdag_condag_task_count(ompdag_condag_set_graph(s, k));
        }
        printf("%s: valid (%zu graph%s, %" PRId64 " nodes, %" PRId64 " tasks)\n", argv[i],
               ompdag_condag_set_count(s), ompdag_condag_set_count(s) == 1 ? "" : "s", nodes,
               tasks);
        ompdag_condag_set_destroy(s);
    }
    return bad ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
