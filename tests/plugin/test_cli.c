/*
 * tests/plugin/test_cli.c — `ompdag extract` (cli/cmd_extract.c): a file
 * with compiler arguments, -p BUILD_DIR with compile_commands.json
 * ("command" and "arguments" forms, FILES selection), and the exit status
 * and silence on refusals.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fe_test.h"
#include "test_tmpdir.h"

static int run_extract(int argc, const char **argv)
{
    return cmd_extract(argc, (char **)argv);
}

static size_t graphs_in(const char *path)
{
    ompdag_condag_set *set = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file(path, &set, &err), OMPDAG_OK, "%s", err.message);
    size_t n = ompdag_condag_set_count(set);
    ompdag_condag_set_destroy(set);
    return n;
}

Test(cli, file_with_compiler_arguments)
{
    char out[] = "/tmp/ompdag_cli_XXXXXX";
    int fd = mkstemp(out);
    close(fd);
    char src[4096];
    snprintf(src, sizeof src, "%s", fe_test_path("examples/fig2_branch_sync.c"));
    const char *argv[] = {"extract", src, "-o", out, "--", "-DUNUSED=1", "-O2"};
    cr_assert_eq(run_extract(7, argv), 0);
    cr_assert_eq(graphs_in(out), 1);
    unlink(out);
}

Test(cli, refusal_exits_1_and_writes_nothing)
{
    const char *out = test_tmp("never.json");
    char src[4096];
    snprintf(src, sizeof src, "%s", fe_test_path("examples/refuse/goto.c"));
    const char *argv[] = {"extract", src, "-o", out};
    cr_assert_eq(run_extract(4, argv), 1);
    cr_assert(access(out, F_OK) != 0);
}

Test(cli, usage_errors_exit_2)
{
    const char *none[] = {"extract"};
    cr_assert_eq(run_extract(1, none), 2);
    const char *bad[] = {"extract", "x.c", "--recursion-bound", "0"};
    cr_assert_eq(run_extract(4, bad), 2);
}

Test(cli, compile_commands_database)
{
    char dir[] = "/tmp/ompdag_ccdb_XXXXXX", path[256], out[256];
    cr_assert_not_null(mkdtemp(dir));
    const char *ex = fe_test_path("examples");
    char exdir[4096];
    snprintf(exdir, sizeof exdir, "%s", ex);
    snprintf(path, sizeof path, "%s/compile_commands.json", dir);
    FILE *f = fopen(path, "w");
    fprintf(f,
            "[{\"directory\": \"%s\", \"file\": \"loop_tasks.c\", \"command\": "
            "\"cc -fopenmp -O2 -DNAME=\\\"a b\\\" -c loop_tasks.c -o loop_tasks.o\"},\n"
            " {\"directory\": \"%s\", \"file\": \"%s/switch_tasks.c\", \"arguments\": "
            "[\"cc\", \"-fopenmp\", \"-c\", \"%s/switch_tasks.c\", \"-o\", \"s.o\"]}]\n",
            exdir, exdir, exdir, exdir);
    fclose(f);
    snprintf(out, sizeof out, "%s/all.json", dir);
    const char *all[] = {"extract", "-p", dir, "-o", out};
    cr_assert_eq(run_extract(5, all), 0);
    cr_assert_eq(graphs_in(out), 2);
    char one[4200];
    snprintf(one, sizeof one, "%s/switch_tasks.c", exdir);
    const char *sel[] = {"extract", "-p", dir, one, "-o", out};
    cr_assert_eq(run_extract(6, sel), 0);
    cr_assert_eq(graphs_in(out), 1);
    snprintf(one, sizeof one, "%s/fib.c", exdir);
    const char *missing[] = {"extract", "-p", dir, one, "-o", out};
    cr_assert_eq(run_extract(6, missing), 1);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* 14 of the OpenMP Examples' tasking sources hold orphaned task code (the
 * tasks run in a region of another file): extract wrote an empty set without
 * a word.  It still succeeds, and says why there is nothing to bound. */
Test(cli, orphaned_task_code_gets_a_note, .init = cr_redirect_stderr)
{
    const char *src = test_tmp("orphan.c");
    FILE *f = fopen(src, "w");
    cr_assert_not_null(f);
    fputs("void walk(int *p, int n)\n{\n    for (int i = 0; i < 2; ++i) {\n"
          "#pragma omp task\n        p[i] = n;\n    }\n#pragma omp taskwait\n}\n",
          f);
    fclose(f);
    const char *out = test_tmp("orphan.json");
    const char *argv[] = {"extract", src, "-o", out};
    cr_assert_eq(run_extract(4, argv), 0);
    cr_assert_eq(graphs_in(out), 0);
    fflush(stderr);
    cr_assert_stderr_neq_str("", "no note on stderr");
}
