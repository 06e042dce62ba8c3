/*
 * tests/cli/test_exit_status.c — the same bad input gets the same exit status
 * in every command (issue 22 item 9(d); README: 1 for bad input, 2 for usage
 * errors): a missing file, a file that is not JSON, JSON that is not a
 * con-DAG, a graph failing validation, and an output path that cannot be
 * written.  Each message names the file.  (`check` exited 2 on a bad graph,
 * its help said "2 input error"; a CI gate now sees 1 like everywhere.)
 */
#include "cli_harness.h"

#define GRAPH "examples/condag/figure5.json"
#define TRACE "fuzz/corpus/trace/ok-tasks.trace"

static void write_file(const char *name, const char *text)
{
    FILE *f = fopen(test_tmp(name), "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

/* The four bad graph inputs, as paths under '@' (the temp directory). */
static const char *const bad_graphs[] = {"@/missing.json", "@/notjson.json", "@/notcondag.json",
                                         "@/invalid.json"};

static void write_bad_graphs(void)
{
    write_file("notjson.json", "hello, this is not JSON\n");
    write_file("notcondag.json", "{\"a\": 1}\n");
    write_file("invalid.json", "{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":[{\"id\":"
                               "\"a\",\"task\":\"t\",\"kind\":\"Q\",\"wcet\":1}]}");
    write_file("afile", "a regular file, so afile/sub cannot be a directory\n");
}

/* Every command that reads a con-DAG; %s is the graph. */
static const char *const graph_commands[] = {"analyze %s --threads 2",
                                             "dot %s",
                                             "validate %s",
                                             "expand %s -o @/out.json",
                                             "annotate %s " TRACE,
                                             "report %s --threads 2",
                                             "simulate %s --threads 2",
                                             "map %s",
                                             "advise %s --threads 2",
                                             "check %s --threads 2"};

/* Exit 1, a message naming `named`, and nothing on stdout (unless the
 * command has good inputs besides the bad one). */
static void expect_bad_input_among(const char *args, const char *named, bool others_good)
{
    cli_result r = cli_run(args);
    cr_expect_eq(r.status, 1, "ompdag %s: exit %d, not 1: %s", args, r.status, r.err);
    if (!others_good) cr_expect_str_eq(r.out, "", "ompdag %s wrote to stdout", args);
    char want[1024];
    cli_expand_tmp(want, sizeof want, named);
    cr_expect(strstr(r.err, want) != NULL, "ompdag %s: the message does not name %s: %s", args,
              want, r.err);
    cli_result_free(r);
}

static void expect_bad_input(const char *args, const char *named)
{
    expect_bad_input_among(args, named, false);
}

Test(exit_status, every_graph_command_exits_1_on_each_bad_graph)
{
    write_bad_graphs();
    for (size_t g = 0; g < sizeof bad_graphs / sizeof *bad_graphs; ++g)
        for (size_t c = 0; c < sizeof graph_commands / sizeof *graph_commands; ++c) {
            char args[1024];
            snprintf(args, sizeof args, graph_commands[c], bad_graphs[g]);
            expect_bad_input(args, bad_graphs[g]);
        }
}

Test(exit_status, every_output_that_cannot_be_written_exits_1)
{
    write_bad_graphs();
    /* "@/afile/sub": under a regular file (ENOTDIR); "@": a directory */
    const char *const outputs[] = {"@/afile/sub/out", "@"};
    const char *const commands[] = {
        "dot " GRAPH " -o %s",
        "expand " GRAPH " -o %s",
        "report " GRAPH " --threads 2 -o %s",
        "map " GRAPH " -o %s",
        "advise " GRAPH " --threads 2 -o %s",
        "advise --trace-stats " TRACE " -o %s",
        "gen -o %s",
        "resources -o %s",
        "run --trace %s -- true",
#ifdef OMPDAG_HAVE_FRONTEND
        "extract examples/fib.c -o %s",
#endif
    };
    for (size_t o = 0; o < sizeof outputs / sizeof *outputs; ++o)
        for (size_t c = 0; c < sizeof commands / sizeof *commands; ++c) {
            char args[1024];
            snprintf(args, sizeof args, commands[c], outputs[o]);
            expect_bad_input(args, outputs[o]);
        }
    expect_bad_input("experiment --sweep threads --graphs 2 --no-plot --out @/afile/sub",
                     "@/afile/sub");
}

Test(exit_status, other_missing_inputs_exit_1)
{
    expect_bad_input("extract @/missing.c", "@/missing.c");
    expect_bad_input("bfs --graph @/missing.el", "@/missing.el");
    expect_bad_input("run --trace @/t.trace -- @/missing-program", "@/missing-program");
    expect_bad_input("annotate " GRAPH " @/missing.trace", "@/missing.trace");
    expect_bad_input("advise --trace-stats @/missing.trace", "@/missing.trace");
    expect_bad_input_among("validate " GRAPH " @/missing.json", "@/missing.json", true);
    /* libclang's own words were "cannot parse (libclang error 1)" */
    cli_result r = cli_run("extract @/missing.c");
    cr_expect(strstr(r.err, "cannot open: No such file or directory") != NULL, "%s", r.err);
    cli_result_free(r);
}
