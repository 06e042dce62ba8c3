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

#include "cli.h"

static void write_database(const char *root)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/build", root);
    cr_assert_eq(mkdir(path, 0700), 0);
    FILE *f;
    snprintf(path, sizeof path, "%s/build/compile_commands.json", root);
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

/* Runs `extract -p build -o out.json` in root; stderr goes to *err. */
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
    const char *argv[] = {"extract", "-p", "build", "-o", "out.json"};
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
    cr_assert(strstr(err, "/c/x.c:7:1: error: task with a depend(mutexinoutset"), "%s", err);
    cr_assert(strstr(err, "refused: ") && strstr(err, "/c/x.c (1 refusal"), "%s", err);
    cr_assert_eq(count(err, "note:"), 1, "repeats are one note: %s", err);
    char path[2048], names[256];
    snprintf(path, sizeof path, "%s/out.json", root); /* relative to the current directory */
    fixture_functions(path, names, sizeof names);
    cr_assert_str_eq(names, "fa:4@x.o,fb:4,fa:4@x2.o");
    snprintf(path, sizeof path, "%s/c/out.json", root);
    cr_assert(access(path, F_OK) != 0, "nothing lands in an entry's directory");
    free(err);
}
