/*
 * tests/plugin/test_builds.c — the plugin inside a real recursive-make build
 * (issue 24 items 1 and 4): one output per compilation, named after the
 * whole object path, so a/x.o, b/x.o and c/x.o never share a file and c's
 * refusal deletes nobody's graph; an absolute -o below the build's top; the
 * warnings carry [-Wompdag] and follow -w, -Werror and -Wno-ompdag.
 */
#include "builds_fixture.h"

#include <unistd.h>

static void make_with_plugin(const char *root, const char *extra)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "make -s -C %s CC=%s 'CFLAGS=-fopenmp -fplugin=%s -fplugin-arg-ompdag-out=%s/condag "
             "%s' >%s/make.txt 2>&1",
             root, OMPDAG_CLANG_PATH, OMPDAG_PLUGIN_PATH, root, extra, root);
    cr_assert_eq(fixture_run(cmd), 0, "%s", cmd);
}

Test(builds, same_object_name_in_three_directories_keeps_every_graph)
{
    const char *root = fixture_project();
    make_with_plugin(root, "");
    char path[2048], names[256];
    snprintf(path, sizeof path, "%s/condag/a/x.o.condag.json", root);
    fixture_functions(path, names, sizeof names);
    cr_assert_str_eq(names, "fa:4");
    snprintf(path, sizeof path, "%s/condag/b/x.o.condag.json", root);
    fixture_functions(path, names, sizeof names);
    cr_assert_str_eq(names, "fb:4");
    /* the refused unit: its own record, no graph */
    snprintf(path, sizeof path, "%s/condag/c/x.o.condag.json", root);
    cr_assert(access(path, F_OK) != 0, "a refused unit has no graph file");
    snprintf(path, sizeof path, "%s/condag/c/x.o.refused.json", root);
    char *rec = fixture_slurp(path);
    cr_assert_not_null(rec, "no refusal record %s", path);
    cr_assert(strstr(rec, "\"ompdag-refusals\"") && strstr(rec, "/c/x.c\"") &&
                  strstr(rec, "\"line\": 7") && strstr(rec, "iterator"),
              "%s", rec);
    free(rec);
    /* building again (c refused again) still deletes nothing of a and b */
    snprintf(path, sizeof path, "touch %s/a/x.c %s/b/x.c %s/c/x.c", root, root, root);
    cr_assert_eq(fixture_run(path), 0);
    make_with_plugin(root, "");
    snprintf(path, sizeof path, "%s/condag/a/x.o.condag.json", root);
    cr_assert_eq(access(path, F_OK), 0);
    snprintf(path, sizeof path, "%s/condag/b/x.o.condag.json", root);
    cr_assert_eq(access(path, F_OK), 0);
}

Test(builds, absolute_object_path_below_the_top)
{
    const char *root = fixture_project();
    char cmd[4096], path[1024], names[256];
    snprintf(path, sizeof path, "%s/obj", root);
    cr_assert_eq(mkdir(path, 0700), 0);
    snprintf(cmd, sizeof cmd,
             "cd %s/a && %s -fopenmp -fplugin=%s -fplugin-arg-ompdag-out=%s/condag -c x.c -o "
             "%s/obj/x.o",
             root, OMPDAG_CLANG_PATH, OMPDAG_PLUGIN_PATH, root, root);
    cr_assert_eq(fixture_run(cmd), 0, "%s", cmd);
    snprintf(path, sizeof path, "%s/condag/obj/x.o.condag.json", root);
    fixture_functions(path, names, sizeof names);
    cr_assert_str_eq(names, "fa:4");
}

/* Compiles c/x.c (refused) with `flags`; returns the exit status, *err the
 * compiler's stderr (caller frees). */
static int compile_refused(const char *root, const char *flags, char **err)
{
    char cmd[4096], path[1024];
    snprintf(cmd, sizeof cmd,
             "cd %s/c && %s -fopenmp -fplugin=%s -fplugin-arg-ompdag-out=%s/condag %s -c x.c -o "
             "x.o 2>%s/err.txt",
             root, OMPDAG_CLANG_PATH, OMPDAG_PLUGIN_PATH, root, flags, root);
    int rc = fixture_run(cmd);
    snprintf(path, sizeof path, "%s/err.txt", root);
    *err = fixture_slurp(path);
    cr_assert_not_null(*err);
    return rc;
}

Test(builds, warnings_have_a_flag_and_follow_w_werror_and_wno)
{
    const char *root = fixture_project();
    char *err = NULL;
    cr_assert_eq(compile_refused(root, "", &err), 0);
    cr_assert(strstr(err, "x.c:7:1: warning: ompdag: task depend(iterator") &&
                  strstr(err, "[-Wompdag]"),
              "%s", err);
    free(err);
    cr_assert_eq(compile_refused(root, "-w", &err), 0);
    cr_assert(!strstr(err, "ompdag"), "-w silences: %s", err);
    free(err);
    cr_assert_neq(compile_refused(root, "-Werror", &err), 0);
    cr_assert(strstr(err, "x.c:7:1: error: ompdag: task depend(iterator") &&
                  strstr(err, "[-Werror,-Wompdag]"),
              "%s", err);
    free(err);
    /* clang 14 does not know the group: -Wno-unknown-warning-option keeps
     * its own note about the flag quiet */
    cr_assert_eq(compile_refused(root, "-Wno-unknown-warning-option -Wno-ompdag", &err), 0);
    cr_assert(!strstr(err, "ompdag:"), "-Wno-ompdag silences: %s", err);
    free(err);
    cr_assert_neq(compile_refused(root, "-Wno-unknown-warning-option -Werror=ompdag", &err), 0);
    cr_assert(strstr(err, "[-Werror,-Wompdag]"), "%s", err);
    free(err);
    /* the plugin's own switch still makes refusals errors, -w or not */
    cr_assert_neq(compile_refused(root, "-w -fplugin-arg-ompdag-werror", &err), 0);
    cr_assert(strstr(err, "error: ompdag: task depend(iterator"), "%s", err);
    free(err);
    /* the record is written whatever the warnings' fate */
    char path[2048];
    snprintf(path, sizeof path, "%s/condag/c/x.o.refused.json", root);
    cr_assert_eq(access(path, F_OK), 0);
}

/* Issue 24 item 5: a call to a function defined in a task-free unit of the
 * same build was refused by the plugin (it sees one file, and a nearby source
 * that mentions the function has task directives: BOTS's tied-uts.c and
 * rng_spawn).  Given the build's compile_commands.json, the plugin indexes
 * the other units, follows the call and extracts the region; without it the
 * refusal stays (it is sound). */
Test(builds, a_compilation_database_lets_the_plugin_follow_calls_into_other_files)
{
    const char *root = fixture_project();
    char udir[1024];
    snprintf(udir, sizeof udir, "%s/u", root);
    cr_assert_eq(mkdir(udir, 0700), 0);
    fixture_write(root, "u/main.c",
                  "int helper(int x);\nint main(void)\n{\n    int r = 0;\n#pragma omp parallel\n"
                  "#pragma omp single\n    {\n#pragma omp task shared(r)\n        r = helper(3);\n"
                  "#pragma omp taskwait\n    }\n    return r;\n}\n");
    fixture_write(root, "u/helper.c", "int helper(int x) { return x * 2; }\n");
    fixture_write(root, "u/other.c",
                  "int helper(int x);\nvoid other(void)\n{\n#pragma omp task\n    helper(1);\n}\n");
    char db[4096], cmd[8192], path[2048];
    snprintf(db, sizeof db,
             "[{\"directory\": \"%s/u\", \"file\": \"main.c\", \"command\": \"cc -fopenmp -c "
             "main.c -o main.o\"}, {\"directory\": \"%s/u\", \"file\": \"helper.c\", "
             "\"arguments\": [\"cc\", \"-c\", \"helper.c\", \"-o\", \"helper.o\"]}]\n",
             root, root);
    fixture_write(root, "u/compile_commands.json", db);
    const char *flags[] = {"", "-fplugin-arg-ompdag-compdb=%s/u"};
    for (int k = 0; k < 2; ++k) {
        char extra[1024];
        snprintf(extra, sizeof extra, flags[k], root);
        snprintf(cmd, sizeof cmd,
                 "cd %s/u && %s -fopenmp -fplugin=%s -fplugin-arg-ompdag-out=%s/condag%d %s -c "
                 "main.c -o main.o >%s/cc%d.txt 2>&1",
                 root, OMPDAG_CLANG_PATH, OMPDAG_PLUGIN_PATH, root, k, extra, root, k);
        cr_assert_eq(fixture_run(cmd), 0, "%s", cmd);
        snprintf(path, sizeof path, "%s/condag%d/u/main.o.%s.json", root, k,
                 k ? "condag" : "refused");
        cr_assert_eq(access(path, F_OK), 0, "%s missing", path);
    }
    snprintf(path, sizeof path, "%s/cc0.txt", root);
    char *warn = fixture_slurp(path);
    cr_assert(warn && strstr(warn, "-fplugin-arg-ompdag-compdb"), "%s", warn ? warn : "");
    free(warn);
    snprintf(path, sizeof path, "%s/condag1/u/main.o.refused.json", root);
    cr_assert(access(path, F_OK) != 0, "refused with the database");
}
