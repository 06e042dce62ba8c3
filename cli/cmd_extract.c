/*
 * cli/cmd_extract.c — `ompdag extract`: OpenMP C source to con-DAGs, through
 * the libclang front end (include/ompdag/frontend.h, plugin/).
 *
 *   ompdag extract FILE.c [-o OUT.json] [-- compiler args...]
 *   ompdag extract -p BUILD_DIR [FILES...] [-o OUT.json]
 *
 * Refusals are printed like compiler errors (file:line:col: error: ...) and
 * the command exits 1 without writing output.
 */
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ompdag/condag.h"
#include "ompdag/frontend.h"

void cmd_extract_help(FILE *out)
{
    fprintf(out,
            "usage: ompdag extract FILE.c [-o OUT.json] [options] [-- compiler args...]\n"
            "       ompdag extract -p BUILD_DIR [FILES...] [-o OUT.json] [options]\n\n"
            "Builds the con-DAG of every OpenMP parallel region (one graph per region, WCETs 0)\n"
            "and writes an ompdag-condag-set.  Constructs the model cannot represent soundly\n"
            "are refused with file:line:col messages; then nothing is written and the exit\n"
            "status is 1.\n\n"
            "options:\n"
            "  -o FILE              output file (default: standard output)\n"
            "  -p BUILD_DIR         read compiler flags from BUILD_DIR/compile_commands.json;\n"
            "                       FILES (default: every entry) select entries\n"
            "  --recursion-bound N  recursion depth assumed for recursive functions that\n"
            "                       carry no '#pragma ompdag recursion_bound(N)'\n"
            "  --node-limit N       refuse regions with more than N nodes (default 100000)\n"
            "  -- ARGS              compiler flags for FILE.c (-I, -D, -std=...)\n");
}

typedef struct extract_opts {
    const char *out;
    const char *build_dir;
    const char **files;
    int nfiles;
    const char **cargs;
    int ncargs;
    int64_t recursion_bound;
    int64_t node_limit;
} extract_opts;

/* Moves every graph of `from` into `into` (through JSON; sets own graphs). */
static ompdag_status merge_sets(ompdag_condag_set *into, const ompdag_condag_set *from,
                                ompdag_error *err)
{
    for (size_t i = 0; i < ompdag_condag_set_count(from); ++i) {
        json_t *j = ompdag_condag_to_json(ompdag_condag_set_graph(from, i));
        ompdag_condag *g = NULL;
        ompdag_status st = j ? ompdag_condag_from_json(j, "extract", &g, err)
                             : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        json_decref(j);
        if (!st && !ompdag_condag_is_finalized(g)) st = ompdag_condag_finalize(g, err);
        if (!st) st = ompdag_condag_set_add(into, g, err);
        if (st) {
            ompdag_condag_destroy(g);
            return st;
        }
    }
    return OMPDAG_OK;
}

/* Extracts one file; prints its diagnostics.  Returns the front end's status. */
static ompdag_status extract_one(ompdag_frontend *fe, const char *file, const char **args,
                                 int nargs, ompdag_condag_set *all, ompdag_error *err)
{
    ompdag_condag_set *set = NULL;
    ompdag_status st = ompdag_frontend_extract(fe, file, args, nargs, &set, err);
    ompdag_frontend_print_diags(fe, stderr);
    if (st == OMPDAG_OK)
        st = merge_sets(all, set, err);
    else if (ompdag_frontend_diag_count(fe) > 0)
        err->code = OMPDAG_OK; /* already printed */
    ompdag_condag_set_destroy(set);
    return st;
}

/* Splits a shell command line (quotes and backslashes) into words. */
static char **split_command(const char *cmd, int *n)
{
    size_t len = strlen(cmd);
    char **v = calloc(len / 2 + 2, sizeof *v);
    char *buf = malloc(len + 1);
    if (!v || !buf) {
        free(v);
        free(buf);
        return NULL;
    }
    int count = 0;
    const char *p = cmd;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            ++p;
        if (!*p) break;
        size_t k = 0;
        char quote = 0;
        for (; *p && (quote || (*p != ' ' && *p != '\t' && *p != '\n')); ++p) {
            if (quote) {
                if (*p == quote)
                    quote = 0;
                else if (*p == '\\' && quote == '"' && p[1])
                    buf[k++] = *++p;
                else
                    buf[k++] = *p;
            } else if (*p == '"' || *p == '\'') {
                quote = *p;
            } else if (*p == '\\' && p[1]) {
                buf[k++] = *++p;
            } else {
                buf[k++] = *p;
            }
        }
        v[count] = malloc(k + 1);
        if (!v[count]) break;
        memcpy(v[count], buf, k);
        v[count++][k] = 0;
    }
    free(buf);
    *n = count;
    return v;
}

static bool same_file(const char *dir, const char *entry_file, const char *wanted)
{
    char joined[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
    if (entry_file[0] == '/')
        snprintf(joined, sizeof joined, "%s", entry_file);
    else
        snprintf(joined, sizeof joined, "%s/%s", dir, entry_file);
    return realpath(joined, a) && realpath(wanted, b) && !strcmp(a, b);
}

/* Runs one compile_commands.json entry. */
static ompdag_status extract_entry(ompdag_frontend *fe, json_t *e, ompdag_condag_set *all,
                                   ompdag_error *err)
{
    const char *dir = json_string_value(json_object_get(e, "directory"));
    const char *file = json_string_value(json_object_get(e, "file"));
    json_t *arguments = json_object_get(e, "arguments");
    const char *command = json_string_value(json_object_get(e, "command"));
    if (!dir || !file || (!json_is_array(arguments) && !command))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                "compile_commands.json: entry without directory/file/command");
    int n = 0;
    char **words = NULL;
    if (json_is_array(arguments)) {
        n = (int)json_array_size(arguments);
        words = calloc((size_t)n + 1, sizeof *words);
        for (int i = 0; words && i < n; ++i)
            words[i] = strdup(json_string_value(json_array_get(arguments, (size_t)i)) ?: "");
    } else {
        words = split_command(command, &n);
    }
    const char **args = calloc((size_t)n + 3, sizeof *args);
    if (!words || !args) {
        free(args);
        free(words);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    int na = 0;
    args[na++] = "-working-directory";
    args[na++] = dir;
    for (int i = 1; i < n; ++i)
        if (words[i] && strcmp(words[i], file)) args[na++] = words[i];
    ompdag_status st = extract_one(fe, file, args, na, all, err);
    for (int i = 0; i < n; ++i)
        free(words[i]);
    free(words);
    free(args);
    return st;
}

static int run_compile_commands(const extract_opts *o, ompdag_frontend *fe, ompdag_condag_set *all)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/compile_commands.json", o->build_dir);
    json_error_t jerr;
    json_t *db = json_load_file(path, 0, &jerr);
    if (!json_is_array(db)) {
        fprintf(stderr, "ompdag extract: %s:%d: %s\n", path, jerr.line,
                db ? "not a JSON array" : jerr.text);
        json_decref(db);
        return CLI_EXIT_FAIL;
    }
    int failed = 0, matched = 0;
    for (size_t i = 0; i < json_array_size(db); ++i) {
        json_t *e = json_array_get(db, i);
        const char *dir = json_string_value(json_object_get(e, "directory"));
        const char *file = json_string_value(json_object_get(e, "file"));
        bool wanted = o->nfiles == 0;
        for (int k = 0; !wanted && dir && file && k < o->nfiles; ++k)
            wanted = same_file(dir, file, o->files[k]);
        if (!wanted) continue;
        ++matched;
        ompdag_error err = {0};
        if (extract_entry(fe, e, all, &err) != OMPDAG_OK) {
            if (err.code != OMPDAG_OK) fprintf(stderr, "ompdag extract: %s\n", err.message);
            ++failed;
        }
    }
    json_decref(db);
    if (matched < (o->nfiles ? o->nfiles : 1)) {
        fprintf(stderr, "ompdag extract: %s: %s\n", path,
                o->nfiles ? "some FILES have no entry" : "no entries");
        return CLI_EXIT_FAIL;
    }
    return failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

static int parse_args(int argc, char **argv, extract_opts *o)
{
    o->files = calloc((size_t)argc + 1, sizeof *o->files);
    if (!o->files) return cli_usage_error("extract", "out of memory");
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        bool has_next = i + 1 < argc;
        if (!strcmp(a, "--")) {
            o->cargs = (const char **)argv + i + 1;
            o->ncargs = argc - i - 1;
            break;
        } else if (!strcmp(a, "-o") && has_next) {
            o->out = argv[++i];
        } else if (!strcmp(a, "-p") && has_next) {
            o->build_dir = argv[++i];
        } else if (!strcmp(a, "--recursion-bound") && has_next) {
            if (!cli_parse_i64(argv[++i], 1, 64, &o->recursion_bound))
                return cli_usage_error("extract", "--recursion-bound needs 1..64, got '%s'",
                                       argv[i]);
        } else if (!strcmp(a, "--node-limit") && has_next) {
            if (!cli_parse_i64(argv[++i], 1, INT32_MAX, &o->node_limit))
                return cli_usage_error("extract", "bad --node-limit '%s'", argv[i]);
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("extract", "unknown or incomplete option '%s'", a);
        } else {
            o->files[o->nfiles++] = a;
        }
    }
    if (!o->build_dir && o->nfiles != 1)
        return cli_usage_error("extract", "expected exactly one source file (or -p BUILD_DIR)");
    if (o->build_dir && o->ncargs > 0)
        return cli_usage_error("extract", "'-- ARGS' cannot be combined with -p");
    return CLI_EXIT_OK;
}

int cmd_extract(int argc, char **argv)
{
    extract_opts o = {0};
    int rc = parse_args(argc, argv, &o);
    ompdag_error err = {0};
    if (rc == CLI_EXIT_OK && !cli_frontend_load(&err)) rc = cli_fail("extract", &err);
    ompdag_frontend *fe = rc == CLI_EXIT_OK ? ompdag_frontend_create() : NULL;
    ompdag_condag_set *all = fe ? ompdag_condag_set_create() : NULL;
    if (rc == CLI_EXIT_OK && (!fe || !all)) {
        ompdag_error_set(&err, OMPDAG_ERR_NOMEM, "out of memory");
        rc = cli_fail("extract", &err);
    }
    if (rc == CLI_EXIT_OK && o.recursion_bound &&
        ompdag_frontend_set_recursion_bound(fe, (int32_t)o.recursion_bound, &err))
        rc = cli_fail("extract", &err);
    if (rc == CLI_EXIT_OK && o.node_limit &&
        ompdag_frontend_set_node_limit(fe, (int32_t)o.node_limit, &err))
        rc = cli_fail("extract", &err);
    if (rc == CLI_EXIT_OK && o.build_dir) {
        rc = run_compile_commands(&o, fe, all);
    } else if (rc == CLI_EXIT_OK) {
        if (extract_one(fe, o.files[0], o.cargs, o.ncargs, all, &err) != OMPDAG_OK)
            rc = err.code == OMPDAG_OK ? CLI_EXIT_FAIL : cli_fail("extract", &err);
    }
    if (rc == CLI_EXIT_OK &&
        ompdag_condag_set_save_file(all, o.out ? o.out : "-", true, &err) != OMPDAG_OK)
        rc = cli_fail("extract", &err);
    ompdag_condag_set_destroy(all);
    ompdag_frontend_destroy(fe);
    free(o.files);
    return rc;
}
