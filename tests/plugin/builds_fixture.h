/*
 * tests/plugin/builds_fixture.h — a small project shaped like BOTS (issue
 * 24): recursive make, the same file name x.c -> x.o in three directories,
 * the unit in c/ refused (an iterator whose range is not a constant), shared by the plugin
 * tests (test_builds.c) and the `extract -p` tests (test_extract_project.c).
 */
#ifndef OMPDAG_TEST_BUILDS_FIXTURE_H
#define OMPDAG_TEST_BUILDS_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "ompdag/condag.h"
#include "test_tmpdir.h"

static inline void fixture_write(const char *root, const char *rel, const char *text)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

static const char *const fixture_dirs[] = {"a", "b", "c"};

/* The project under test_tmpdir()/proj; returns its root. */
static inline const char *fixture_project(void)
{
    static char root[600];
    snprintf(root, sizeof root, "%s/proj", test_tmpdir());
    char path[2048];
    cr_assert_eq(mkdir(root, 0700), 0);
    for (int i = 0; i < 3; ++i) {
        snprintf(path, sizeof path, "%s/%s", root, fixture_dirs[i]);
        cr_assert_eq(mkdir(path, 0700), 0);
    }
    fixture_write(root, "Makefile", "all:\n\t$(MAKE) -C a\n\t$(MAKE) -C b\n\t-$(MAKE) -C c\n");
    for (int i = 0; i < 3; ++i) {
        snprintf(path, sizeof path, "%s/Makefile", fixture_dirs[i]);
        fixture_write(root, path, "x.o: x.c\n\t$(CC) $(CFLAGS) -c x.c -o x.o\n");
    }
    fixture_write(root, "a/x.c",
                  "void work(int);\nvoid fa(void)\n{\n#pragma omp parallel\n#pragma omp single\n"
                  "    {\n#pragma omp task\n        work(1);\n#pragma omp taskwait\n    }\n}\n");
    fixture_write(root, "b/x.c",
                  "void work(int);\nvoid fb(void)\n{\n#pragma omp parallel\n#pragma omp single\n"
                  "    {\n#pragma omp task\n        work(2);\n#pragma omp task\n        work(3);\n"
                  "    }\n}\n");
    fixture_write(
        root, "c/x.c",
        "void work(int);\nvoid fc(int *x)\n{\n#pragma omp parallel\n#pragma omp single\n"
        "    {\n#pragma omp task depend(iterator(int i = 0:*x), in: x[i])\n        work(4);\n"
        "    }\n}\n");
    return root;
}

static inline char *fixture_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) b[n] = 0;
    return b;
}

static inline int fixture_run(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* The functions of the graphs in `path`, joined by ","; "" when none. */
static inline void fixture_functions(const char *path, char *out, size_t cap)
{
    ompdag_condag_set *set = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file(path, &set, &err), OMPDAG_OK, "%s", err.message);
    out[0] = 0;
    for (size_t i = 0; i < ompdag_condag_set_count(set); ++i) {
        const char *fn = ompdag_condag_name(ompdag_condag_set_graph(set, i));
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", i ? "," : "", fn ? fn : "?");
    }
    ompdag_condag_set_destroy(set);
}

#endif
