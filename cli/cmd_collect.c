/*
 * cli/cmd_collect.c — `ompdag collect`: one graph set from a build made with
 * the plugin (docs/plugin.md, "Collecting a build").
 *
 *   ompdag collect DIR [-o OUT.json]
 *
 * The plugin writes one file per compilation under its out DIR:
 * <object>.condag.json (the graphs of the regions that extracted) and, when
 * something was refused, <object>.refused.json (the refusals).  This
 * command walks DIR (sorted, so the result does not depend on the order the
 * build ran in), merges every graph into one `ompdag-condag-set`, and lists
 * every refusal as `ompdag extract -p` does: file:line:col: error: message,
 * then exit status 1 with the set still written.  Graphs that share a name
 * (one region built into several objects, e.g. with different -D flags) are
 * renamed NAME@OBJECT, OBJECT being the file's path below DIR.
 *
 * The walk keeps its own stack of directories (no recursion that follows
 * the tree's depth) and does not follow symbolic links.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "ompdag/condag.h"
#include "ompdag/internal/array.h"

static const char GRAPH_SUFFIX[] = ".condag.json";
static const char REFUSAL_SUFFIX[] = ".refused.json";

void cmd_collect_help(FILE *out)
{
    fprintf(out, "usage: ompdag collect DIR [-o OUT.json]\n\n"
                 "Gathers the files a build compiled with\n"
                 "  -fplugin=libompdag_plugin.so -fplugin-arg-ompdag-out=DIR\n"
                 "wrote (DIR/<object>.condag.json, one per compilation, and\n"
                 "DIR/<object>.refused.json for refused ones) into one ompdag-condag-set, the\n"
                 "same graphs `ompdag extract -p` gives for the build's compilation database.\n"
                 "Refusals are listed as file:line:col: error: message; then the set is still\n"
                 "written and the exit status is 1.  Graphs sharing a name (one region built\n"
                 "into several objects) are renamed NAME@OBJECT.\n\n"
                 "options:\n"
                 "  -o FILE   output file (default: standard output)\n");
}

/* A growable list of owned strings. */
typedef struct path_list {
    char **v;
    int64_t n, cap;
} path_list;

static bool list_push(path_list *l, const char *s)
{
    char *copy = strdup(s);
    if (!copy || !ompdag_grow_array((void **)&l->v, sizeof *l->v, &l->cap, l->n + 1)) {
        free(copy);
        return false;
    }
    l->v[l->n++] = copy;
    return true;
}

static void list_free(path_list *l)
{
    for (int64_t i = 0; i < l->n; ++i)
        free(l->v[i]);
    free(l->v);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a > b && !strcmp(s + a - b, suffix);
}

/* Lists one directory: subdirectories go on `todo`, plugin files on `found`. */
static ompdag_status scan_dir(const char *dir, path_list *todo, path_list *found, ompdag_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: cannot open: %s", dir, strerror(errno));
    ompdag_status st = OMPDAG_OK;
    struct dirent *e;
    char path[PATH_MAX];
    while (!st && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) {
            st = ompdag_error_set(err, OMPDAG_ERR_IO, "%s/%s: path too long", dir, e->d_name);
            break;
        }
        struct stat sb;
        if (lstat(path, &sb) != 0) continue; /* vanished meanwhile */
        bool ok = true;
        if (S_ISDIR(sb.st_mode))
            ok = list_push(todo, path);
        else if (S_ISREG(sb.st_mode) &&
                 (ends_with(e->d_name, GRAPH_SUFFIX) || ends_with(e->d_name, REFUSAL_SUFFIX)))
            ok = list_push(found, path);
        if (!ok) st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    closedir(d);
    return st;
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every plugin file below root, sorted. */
static ompdag_status find_outputs(const char *root, path_list *found, ompdag_error *err)
{
    path_list todo = {0};
    ompdag_status st = list_push(&todo, root)
                           ? OMPDAG_OK
                           : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    while (!st && todo.n > 0) {
        char *dir = todo.v[--todo.n];
        st = scan_dir(dir, &todo, found, err);
        free(dir);
    }
    list_free(&todo);
    if (!st && found->n > 1) qsort(found->v, (size_t)found->n, sizeof *found->v, compare_paths);
    return st;
}

/* Copies every graph of `from` into `into` (sets own their graphs); each
 * copy's object, the file's path below DIR without its suffix, is kept in
 * `objects` at the graph's index in `into`. */
static ompdag_status merge_file(ompdag_condag_set *into, path_list *objects,
                                const ompdag_condag_set *from, const char *object,
                                ompdag_error *err)
{
    for (size_t i = 0; i < ompdag_condag_set_count(from); ++i) {
        json_t *j = ompdag_condag_to_json(ompdag_condag_set_graph(from, i));
        ompdag_condag *g = NULL;
        ompdag_status st = j ? condag_from_json(j, object, &g, err)
                             : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        json_decref(j);
        if (!st && !ompdag_condag_is_finalized(g)) st = ompdag_condag_finalize(g, err);
        if (!st)
            st = ompdag_condag_set_add(into, g, err);
        else
            ompdag_condag_destroy(g);
        if (!st && !list_push(objects, object))
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        if (st) return st;
    }
    return OMPDAG_OK;
}

/* Prints a refusal record's refusals like compiler errors; returns how many. */
static int print_refusals(const char *path, ompdag_error *err)
{
    json_error_t jerr;
    json_t *rec = json_load_file(path, 0, &jerr);
    json_t *list = json_object_get(rec, "refusals");
    const char *format = json_string_value(json_object_get(rec, "format"));
    if (!rec || !format || strcmp(format, "ompdag-refusals") || !json_is_array(list)) {
        if (rec)
            ompdag_error_set(err, OMPDAG_ERR_PARSE,
                             "%s: not an ompdag refusal record (format \"ompdag-refusals\" "
                             "with a \"refusals\" array); delete it and rebuild",
                             path);
        else
            ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%d: %s; delete it and rebuild", path,
                             jerr.line, jerr.text);
        json_decref(rec);
        return -1;
    }
    size_t i;
    json_t *r;
    json_array_foreach(list, i, r)
    {
        const char *file = json_string_value(json_object_get(r, "file"));
        const char *msg = json_string_value(json_object_get(r, "message"));
        fprintf(stderr, "%s:%lld:%lld: error: %s\n", file ? file : path,
                (long long)json_integer_value(json_object_get(r, "line")),
                (long long)json_integer_value(json_object_get(r, "col")), msg ? msg : "refused");
    }
    const char *source = json_string_value(json_object_get(rec, "source"));
    size_t n = json_array_size(list);
    fprintf(stderr, "ompdag collect: refused: %s (%zu refusal%s above)\n", source ? source : path,
            n, n == 1 ? "" : "s");
    json_decref(rec);
    return (int)n;
}

/* Graphs whose name another graph shares become NAME@OBJECT. */
static ompdag_status name_apart(ompdag_condag_set *set, const path_list *objects, ompdag_error *err)
{
    size_t n = ompdag_condag_set_count(set);
    bool *shared = calloc(n + 1, sizeof *shared);
    if (!shared) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; ++i)
        for (size_t k = i + 1; k < n; ++k) {
            const char *a = ompdag_condag_name(ompdag_condag_set_graph(set, i));
            const char *b = ompdag_condag_name(ompdag_condag_set_graph(set, k));
            if (a && b && !strcmp(a, b)) shared[i] = shared[k] = true;
        }
    ompdag_status st = OMPDAG_OK;
    for (size_t i = 0; !st && i < n; ++i) {
        if (!shared[i]) continue;
        ompdag_condag *g = ompdag_condag_set_graph(set, i);
        size_t len = strlen(ompdag_condag_name(g)) + strlen(objects->v[i]) + 2;
        char *named = malloc(len);
        if (named) snprintf(named, len, "%s@%s", ompdag_condag_name(g), objects->v[i]);
        st = named ? ompdag_condag_assign_name(g, named) : OMPDAG_ERR_NOMEM;
        free(named);
        if (st) ompdag_error_set(err, st, "out of memory");
    }
    free(shared);
    return st;
}

/* The file's path below root, without the plugin's suffix. */
static void object_of(const char *root, const char *path, char *out, size_t cap)
{
    const char *rel = path + strlen(root);
    while (*rel == '/')
        ++rel;
    snprintf(out, cap, "%s", rel);
    size_t len = strlen(out), s = strlen(GRAPH_SUFFIX);
    if (len > s && !strcmp(out + len - s, GRAPH_SUFFIX)) out[len - s] = 0;
}

/* Merges every graph file, lists every refusal; *refusals counts them. */
static int collect(const char *root, const char *out_real, ompdag_condag_set *all, int *refusals)
{
    path_list found = {0}, objects = {0};
    ompdag_error err = {0};
    int rc = CLI_EXIT_OK, graph_files = 0;
    if (find_outputs(root, &found, &err) != OMPDAG_OK) rc = cli_fail("collect", &err);
    for (int64_t i = 0; rc == CLI_EXIT_OK && i < found.n; ++i) {
        const char *path = found.v[i];
        char real[PATH_MAX];
        if (out_real && realpath(path, real) && !strcmp(real, out_real)) continue; /* our output */
        if (ends_with(path, REFUSAL_SUFFIX)) {
            int n = print_refusals(path, &err);
            if (n < 0) rc = cli_fail("collect", &err);
            *refusals += n > 0 ? n : 0;
            continue;
        }
        ompdag_condag_set *set = NULL;
        char object[PATH_MAX];
        object_of(root, path, object, sizeof object);
        ++graph_files;
        if (ompdag_condag_set_load_file(path, &set, &err) != OMPDAG_OK ||
            merge_file(all, &objects, set, object, &err) != OMPDAG_OK)
            rc = cli_fail("collect", &err);
        ompdag_condag_set_destroy(set);
    }
    if (rc == CLI_EXIT_OK && graph_files == 0 && *refusals == 0) {
        fprintf(stderr,
                "ompdag collect: %s: no plugin output (*%s) below it; build with "
                "-fplugin-arg-ompdag-out=%s (an absolute path) first\n",
                root, GRAPH_SUFFIX, root);
        rc = CLI_EXIT_FAIL;
    }
    if (rc == CLI_EXIT_OK && name_apart(all, &objects, &err) != OMPDAG_OK)
        rc = cli_fail("collect", &err);
    list_free(&found);
    list_free(&objects);
    return rc;
}

int cmd_collect(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("collect", "unknown or incomplete option '%s'", argv[i]);
        else if (dir)
            return cli_usage_error("collect", "expected one DIR, got '%s' and '%s'", dir, argv[i]);
        else
            dir = argv[i];
    }
    if (!dir) return cli_usage_error("collect", "expected the plugin's out DIR");
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        fprintf(stderr, "ompdag collect: %s: cannot open: %s\n", dir, strerror(errno));
        return CLI_EXIT_FAIL;
    }
    if (!S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "ompdag collect: %s: not a directory (give the plugin's out DIR)\n", dir);
        return CLI_EXIT_FAIL;
    }
    char out_real[PATH_MAX];
    bool have_out = out && strcmp(out, "-") && realpath(out, out_real);
    ompdag_condag_set *all = ompdag_condag_set_create();
    ompdag_error err = {0};
    int refusals = 0;
    int rc = all ? collect(dir, have_out ? out_real : NULL, all, &refusals)
                 : (ompdag_error_set(&err, OMPDAG_ERR_NOMEM, "out of memory"),
                    cli_fail("collect", &err));
    if (rc == CLI_EXIT_OK &&
        ompdag_condag_set_save_file(all, out ? out : "-", true, &err) != OMPDAG_OK)
        rc = cli_fail("collect", &err);
    if (rc == CLI_EXIT_OK && refusals > 0) {
        fprintf(stderr,
                "ompdag collect: %d refusal%s (listed above); the %zu graphs that extracted "
                "were written\n",
                refusals, refusals == 1 ? "" : "s", ompdag_condag_set_count(all));
        rc = CLI_EXIT_FAIL;
    }
    ompdag_condag_set_destroy(all);
    return rc;
}
