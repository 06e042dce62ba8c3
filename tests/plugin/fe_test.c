/* tests/plugin/fe_test.c — see fe_test.h. */
#include "fe_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *fe_test_path(const char *rel)
{
    static char buf[4096];
    const char *root = getenv("OMPDAG_SOURCE_DIR");
    snprintf(buf, sizeof buf, "%s/%s", root ? root : OMPDAG_TEST_SOURCE_DIR, rel);
    return buf;
}

ompdag_status fe_test_extract(const char *path, const char *const *args, int nargs,
                              int recursion_bound, ompdag_condag_set **set,
                              ompdag_frontend **fe_out)
{
    ompdag_frontend *fe = ompdag_frontend_create();
    ompdag_error err;
    if (recursion_bound > 0) ompdag_frontend_set_recursion_bound(fe, recursion_bound, &err);
    ompdag_status st = ompdag_frontend_extract(fe, path, args, nargs, set, &err);
    if (fe_out)
        *fe_out = fe;
    else
        ompdag_frontend_destroy(fe);
    return st;
}

bool fe_test_write(const char *source, const char *name, char path[128])
{
    char dir[] = "/tmp/ompdag_fe_test_XXXXXX";
    if (!mkdtemp(dir)) return false;
    snprintf(path, 128, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return false;
    size_t len = strlen(source);
    bool ok = fwrite(source, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

void fe_test_remove(const char *path)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    unlink(path);
    if (slash) *slash = 0;
    rmdir(dir);
}

ompdag_status fe_test_extract_source(const char *source, ompdag_condag_set **set,
                                     ompdag_frontend **fe, const char **path)
{
    /* its own directory: the front end looks at sources next to the file */
    static char name[128];
    if (!fe_test_write(source, "src.c", name)) return OMPDAG_ERR_IO;
    ompdag_status st = fe_test_extract(name, NULL, 0, 0, set, fe);
    if (path) *path = name;
    fe_test_remove(name);
    return st;
}

static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Prints n sorted (a, b) pairs as "a" or "a>b" items joined by commas. */
static const char *print_pairs(int *pairs, int n, bool two, char *buf, size_t size)
{
    qsort(pairs, (size_t)n, 2 * sizeof *pairs, cmp_pair);
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < n; ++i) {
        int w = two ? snprintf(buf + used, size - used, "%s%d>%d", i ? "," : "", pairs[2 * i],
                               pairs[2 * i + 1])
                    : snprintf(buf + used, size - used, "%s%d", i ? "," : "", pairs[2 * i]);
        if (w < 0 || (size_t)w >= size - used) break;
        used += (size_t)w;
    }
    return buf;
}

const char *fe_test_lines(const ompdag_condag *g, ompdag_kind kind, char *buf, size_t size)
{
    int32_t n = ompdag_condag_node_count(g);
    int k = 0, *pairs = calloc(2 * (size_t)n + 2, sizeof *pairs);
    for (int32_t v = 0; v < n; ++v)
        if (ompdag_condag_node_kind(g, v) == kind)
            pairs[2 * k++] = ompdag_condag_node_loc(g, v).line;
    print_pairs(pairs, k, false, buf, size);
    free(pairs);
    return buf;
}

const char *fe_test_wedges(const ompdag_condag *g, char *buf, size_t size)
{
    int32_t nt = ompdag_condag_task_count(g);
    int k = 0, cap = 16, *pairs = malloc(2 * (size_t)cap * sizeof *pairs);
    for (int32_t t = 0; t < nt; ++t) {
        int32_t creator = ompdag_condag_task_creator(g, t);
        if (creator < 0) continue;
        int32_t cnt = 0;
        const int32_t *ws = ompdag_condag_node_wsucc(g, ompdag_condag_task_sink(g, t), &cnt);
        for (int32_t i = 0; i < cnt; ++i) {
            if (k == cap) pairs = realloc(pairs, 2 * (size_t)(cap *= 2) * sizeof *pairs);
            pairs[2 * k] = ompdag_condag_node_loc(g, creator).line;
            pairs[2 * k++ + 1] = ompdag_condag_node_loc(g, ws[i]).line;
        }
    }
    print_pairs(pairs, k, true, buf, size);
    free(pairs);
    return buf;
}

int fe_test_count(const ompdag_condag *g, ompdag_kind kind)
{
    int c = 0;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        c += ompdag_condag_node_kind(g, v) == kind;
    return c;
}

int fe_test_has_diag(const ompdag_frontend *fe, int line, const char *needle)
{
    for (size_t i = 0; i < ompdag_frontend_diag_count(fe); ++i) {
        const ompdag_frontend_diag *d = ompdag_frontend_diag_at(fe, i);
        if (d->loc.line == line && strstr(d->message, needle)) return 1;
    }
    return 0;
}
