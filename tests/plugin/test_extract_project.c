/*
 * tests/plugin/test_extract_project.c — `ompdag extract -p` on a project
 * shaped like BOTS (issue 24 item 3): a relative -o is relative to the
 * current directory; one refused unit leaves the others' graphs written
 * (exit 1, the refusal listed); an exact repeat is one note; each -D
 * variant of a source is its own graph, named after its object.
 */
#include "builds_fixture.h"

#include <fcntl.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"

static void write_database(const char *root)
{
    char path[2048];
    FILE *f; /* at the project's top, where bear writes it */
    snprintf(path, sizeof path, "%s/compile_commands.json", root);
    cr_assert_not_null(f = fopen(path, "w"));
    fputs("[", f);
    const char *entries[][3] = {{"a", "", "x.o"}, {"b", "", "x.o"}, {"c", "", "x.o"},
                                {"a", "", "x.o"}, {"a", "", "x.o"}, {"a", "-DV2", "x2.o"}};
    for (size_t i = 0; i < sizeof entries / sizeof *entries; ++i)
        fprintf(f,
                "%s{\"directory\": \"%s/%s\", \"file\": \"x.c\", \"arguments\": [\"clang\", "
                "\"-fopenmp\", %s%s%s\"-c\", \"x.c\", \"-o\", \"%s\"]}\n",
                i ? "," : "", root, entries[i][0], entries[i][1][0] ? "\"" : "", entries[i][1],
                entries[i][1][0] ? "\", " : "", entries[i][2]);
    fputs("]\n", f);
    fclose(f);
}

/* Runs `extract -p . -o out.json` in root; stderr goes to *err. */
static int extract_in(const char *root, char **err)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/stderr.txt", root);
    fflush(stderr);
    int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    cr_assert_eq(chdir(root), 0);
    const char *argv[] = {"extract", "-p", ".", "-o", "out.json"};
    int rc = cmd_extract(5, (char **)argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    *err = fixture_slurp(path);
    return rc;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        ++n;
    return n;
}

Test(extract_project, partial_success_relative_output_variants_one_note)
{
    const char *root = fixture_project();
    write_database(root);
    char *err = NULL;
    cr_assert_eq(extract_in(root, &err), 1, "a refused unit makes the exit status 1");
    cr_assert_not_null(err);
    cr_assert(strstr(err, "/c/x.c:7:1: error: task depend(iterator"), "%s", err);
    cr_assert(strstr(err, "refused: ") && strstr(err, "/c/x.c (1 refusal"), "%s", err);
    cr_assert_eq(count(err, "note:"), 1, "repeats are one note: %s", err);
    char path[2048], names[256];
    snprintf(path, sizeof path, "%s/out.json", root); /* relative to the current directory */
    fixture_functions(path, names, sizeof names);
    cr_assert_str_eq(names, "fa:4@a/x.o,fb:4,fa:4@a/x2.o");
    snprintf(path, sizeof path, "%s/c/out.json", root);
    cr_assert(access(path, F_OK) != 0, "nothing lands in an entry's directory");
    free(err);
}

/* A build that generates a source, compiles and deletes it (BOTS's tied
 * variants) leaves an entry whose source is gone: it is named, the rest is
 * extracted and written, the exit status is 1. */
Test(extract_project, entry_whose_source_is_gone)
{
    const char *root = fixture_project();
    char path[2048];
    snprintf(path, sizeof path, "%s/compile_commands.json", root);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f,
            "[{\"directory\": \"%s/a\", \"file\": \"x.c\", \"arguments\": [\"clang\", "
            "\"-fopenmp\", \"-c\", \"x.c\", \"-o\", \"x.o\"]},\n"
            " {\"directory\": \"%s/a\", \"file\": \"tied-x.c\", \"arguments\": [\"clang\", "
            "\"-fopenmp\", \"-c\", \"tied-x.c\", \"-o\", \"x-tied.o\"]}]\n",
            root, root);
    fclose(f);
    char *err = NULL;
    cr_assert_eq(extract_in(root, &err), 1);
    cr_assert(err && strstr(err, "1 entry names a source that does not exist") &&
                  strstr(err, "/a/tied-x.c"),
              "%s", err);
    char names[256];
    snprintf(path, sizeof path, "%s/out.json", root);
    fixture_functions(path, names, sizeof names);
    cr_assert_str_eq(names, "fa:4");
    free(err);
}

/* A unit that does not compile is named and left out; the others'
 * graphs are written, the exit status is 1. */
Test(extract_project, unit_with_clang_errors_is_left_out)
{
    const char *root = fixture_project();
    fixture_write(root, "b/bad.c", "void g(void) { int x = ; }\n");
    char path[2048];
    snprintf(path, sizeof path, "%s/compile_commands.json", root);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f,
            "[{\"directory\": \"%s/b\", \"file\": \"bad.c\", \"arguments\": [\"clang\", "
            "\"-c\", \"bad.c\"]},\n"
            " {\"directory\": \"%s/a\", \"file\": \"x.c\", \"arguments\": [\"clang\", "
            "\"-fopenmp\", \"-c\", \"x.c\", \"-o\", \"x.o\"]}]\n",
            root, root);
    fclose(f);
    char *err = NULL;
    cr_assert_eq(extract_in(root, &err), 1);
    cr_assert(err && strstr(err, "/b/bad.c:1:24: error: expected expression") &&
                  strstr(err, "not extracted: ") && strstr(err, "/b/bad.c (clang errors above)"),
              "%s", err);
    char names[256];
    snprintf(path, sizeof path, "%s/out.json", root);
    fixture_functions(path, names, sizeof names);
    cr_assert_str_eq(names, "fa:4");
    free(err);
}

#ifdef OMPDAG_PLUGIN_PATH
/* The same project built by make with the plugin (plus the -D variant),
 * then `ompdag collect`: the same graphs, names and refusal as extract -p. */
Test(extract_project, collected_build_equals_extract_p)
{
    const char *root = fixture_project();
    write_database(root);
    char cmd[8192], path[2048];
    snprintf(
        cmd, sizeof cmd,
        "make -s -C %s CC=%s 'CFLAGS=-fopenmp -w -fplugin=%s -fplugin-arg-ompdag-out=%s/condag' "
        ">/dev/null 2>&1 && cd %s/a && %s -fopenmp -w -fplugin=%s "
        "-fplugin-arg-ompdag-out=%s/condag -DV2 -c x.c -o x2.o",
        root, OMPDAG_CLANG_PATH, OMPDAG_PLUGIN_PATH, root, root, OMPDAG_CLANG_PATH,
        OMPDAG_PLUGIN_PATH, root);
    cr_assert_eq(fixture_run(cmd), 0, "%s", cmd);
    char *err = NULL;
    cr_assert_eq(extract_in(root, &err), 1);
    free(err);
    snprintf(path, sizeof path, "%s/collect_err.txt", root);
    snprintf(cmd, sizeof cmd, "%s/collected.json", root);
    fflush(stderr);
    int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
    const char *argv[] = {"collect", "condag", "-o", "collected.json"};
    int rc = cmd_collect(4, (char **)argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    cr_assert_eq(rc, 1, "a refusal makes the exit status 1");
    err = fixture_slurp(path);
    cr_assert(err && strstr(err, "/c/x.c:7:1: error: task depend(iterator") &&
                  strstr(err, "refused: ") && strstr(err, "/c/x.c (1 refusal"),
              "%s", err);
    free(err);
    ompdag_condag_set *collected = NULL, *extracted = NULL;
    ompdag_error e;
    cr_assert_eq(ompdag_condag_set_load_file(cmd, &collected, &e), OMPDAG_OK, "%s", e.message);
    snprintf(path, sizeof path, "%s/out.json", root);
    cr_assert_eq(ompdag_condag_set_load_file(path, &extracted, &e), OMPDAG_OK, "%s", e.message);
    size_t n = ompdag_condag_set_count(extracted);
    cr_assert_eq(ompdag_condag_set_count(collected), n);
    cr_assert_eq(n, 3);
    for (size_t i = 0; i < n; ++i) {
        json_t *a = ompdag_condag_to_json(ompdag_condag_set_graph(extracted, i));
        json_t *b = NULL;
        for (size_t k = 0; k < n && !b; ++k) {
            const ompdag_condag *g = ompdag_condag_set_graph(collected, k);
            if (!strcmp(ompdag_condag_name(g), json_string_value(json_object_get(a, "name"))))
                b = ompdag_condag_to_json(g);
        }
        cr_assert(b && json_equal(a, b), "graph %s differs or is missing",
                  json_string_value(json_object_get(a, "name")));
        json_decref(a);
        json_decref(b);
    }
    ompdag_condag_set_destroy(collected);
    ompdag_condag_set_destroy(extracted);
}
#endif
