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
                  strstr(rec, "\"line\": 7") && strstr(rec, "mutexinoutset"),
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
    cr_assert(strstr(err, "x.c:7:1: warning: ompdag: task with a depend(mutexinoutset") &&
                  strstr(err, "[-Wompdag]"),
              "%s", err);
    free(err);
    cr_assert_eq(compile_refused(root, "-w", &err), 0);
    cr_assert(!strstr(err, "ompdag"), "-w silences: %s", err);
    free(err);
    cr_assert_neq(compile_refused(root, "-Werror", &err), 0);
    cr_assert(strstr(err, "x.c:7:1: error: ompdag: task with a depend(mutexinoutset") &&
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
    cr_assert(strstr(err, "error: ompdag: task with a depend(mutexinoutset"), "%s", err);
    free(err);
    /* the record is written whatever the warnings' fate */
    char path[2048];
    snprintf(path, sizeof path, "%s/condag/c/x.o.refused.json", root);
    cr_assert_eq(access(path, F_OK), 0);
}
