/*
 * cli/cmd_extract.c — `ompdag extract`: OpenMP C source to con-DAGs, through
 * the libclang front end (include/ompdag/frontend.h, plugin/).
 *
 *   ompdag extract FILE.c [-o OUT.json] [-- compiler args...]
 *   ompdag extract -p BUILD_DIR [FILES...] [-o OUT.json]
 *
 * Refusals are printed like compiler errors (file:line:col: error: ...) and
 * the command exits 1.  For one FILE nothing is written then; with -p the
 * regions that did extract are written (a build's good programs are not
 * held hostage by one refused unit) and the refused sources are listed.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "ompdag/condag.h"
#include "ompdag/frontend.h"
#include "ompdag/internal/array.h"

void cmd_extract_help(FILE *out)
{
    fprintf(out,
            "usage: ompdag extract FILE.c [-o OUT.json] [options] [-- compiler args...]\n"
            "       ompdag extract -p BUILD_DIR [FILES...] [-o OUT.json] [options]\n\n"
            "Builds the con-DAG of every OpenMP parallel region (one graph per region, WCETs 0)\n"
            "and writes an ompdag-condag-set.  Constructs the model cannot represent soundly\n"
            "are refused with file:line:col messages and the exit status is 1: for FILE.c\n"
            "nothing is written then; with -p the regions that extracted are written and\n"
            "the refused sources listed.\n\n"
            "options:\n"
            "  -o FILE              output file, relative to the current directory\n"
            "                       (default: standard output)\n"
            "  -p BUILD_DIR         read compiler flags from BUILD_DIR/compile_commands.json;\n"
            "                       FILES (default: every entry) select entries.  A source\n"
            "                       built with several flag sets (-D variants) gives one\n"
            "                       graph per set; graphs sharing a name become\n"
            "                       NAME@OBJECT (OBJECT below BUILD_DIR, as `ompdag collect`\n"
            "                       names them); exact repeats are taken once\n"
            "  --recursion-bound N  recursion depth assumed for recursive functions that\n"
            "                       carry no '#pragma ompdag recursion_bound(N)'\n"
            "  --loop-bound N       at most N iterations for loops with tasks that\n"
            "                       have no constant trip count and no\n"
            "                       '#pragma ompdag loop_bound(N)'; above 4096 the loop\n"
            "                       stays compact (docs/compact.md)\n"
            "  --assume NAME=VALUE  build the graphs for one input: the global variable or\n"
            "                       parameter (of the function with the parallel region)\n"
            "                       NAME holds the integer VALUE; values are carried down\n"
            "                       calls, and cutoff tests, trip counts and base cases that\n"
            "                       then evaluate fold (repeatable; graphs record the claim\n"
            "                       as \"assumptions\"; also #pragma ompdag assume(NAME=VALUE))\n"
            "  --node-limit N       refuse regions with more than N nodes (default 100000)\n"
            "  --team-size N        the team of a parallel region whose threads all create\n"
            "                       tasks and that has no constant num_threads: the graph\n"
            "                       holds N implicit tasks, its bound is for m = N\n"
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
    int64_t loop_bound; /* -1: not given */
    int64_t node_limit;
    int64_t team_size;
    const char **assume; /* NAME=VALUE texts (argv strings) */
    int nassume;
} extract_opts;

/* Moves every graph of `from` into `into` (through JSON; sets own graphs). */
static ompdag_status merge_sets(ompdag_condag_set *into, const ompdag_condag_set *from,
                                ompdag_error *err)
{
    for (size_t i = 0; i < ompdag_condag_set_count(from); ++i) {
        json_t *j = ompdag_condag_to_json(ompdag_condag_set_graph(from, i));
        ompdag_condag *g = NULL;
        ompdag_status st = j ? condag_from_json(j, "extract", &g, err)
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

/* dir/path (path itself when absolute), resolved; false when missing. */
static bool resolve(const char *dir, const char *path, char out[PATH_MAX])
{
    char joined[PATH_MAX];
    if (path[0] == '/' || !dir)
        snprintf(joined, sizeof joined, "%s", path);
    else
        snprintf(joined, sizeof joined, "%s/%s", dir, path);
    return realpath(joined, out) != NULL;
}

static bool same_file(const char *dir, const char *entry_file, const char *wanted)
{
    char a[PATH_MAX], b[PATH_MAX];
    return resolve(dir, entry_file, a) && realpath(wanted, b) && !strcmp(a, b);
}

/* One compile_commands.json entry, ready for the front end. */
typedef struct cc_entry {
    char *file;   /* the source, resolved against the entry's directory */
    char **words; /* owned argument strings */
    int nwords;
    const char **args; /* borrowed: "-working-directory" DIR, then the flags */
    int nargs;
    const char *object; /* borrowed from words: the -o argument; NULL if none */
    int variant;        /* 0: the source's first entry; k: its (k+1)-th flag set */
    bool regions;       /* selected (FILES, default all): its regions are extracted */
    bool exists;        /* the source was found (file is then its real path) */
    bool broken;        /* clang errors in its own file: left out of later parses */
} cc_entry;

static bool push_word(cc_entry *e, int64_t *cap, char *w)
{
    if (!w) return false;
    if (!ompdag_grow_array((void **)&e->words, sizeof *e->words, cap, (int64_t)e->nwords + 1))
        return free(w), false;
    e->words[e->nwords++] = w;
    return true;
}

/* Appends the words of response file `path` (relative to dir), expanding
 * nested @files up to a small depth. */
static bool push_words(cc_entry *e, int64_t *cap, const char *dir, const char *w, int depth,
                       ompdag_error *err)
{
    if (w[0] != '@' || !w[1] || depth > 8) return push_word(e, cap, strdup(w));
    char path[PATH_MAX];
    if (w[1] == '/' || !dir)
        snprintf(path, sizeof path, "%s", w + 1);
    else
        snprintf(path, sizeof path, "%s/%s", dir, w + 1);
    FILE *f = fopen(path, "rb");
    if (!f) {
        ompdag_error_set(err, OMPDAG_ERR_IO, "compile_commands.json: cannot read response file %s",
                         path);
        return false;
    }
    size_t cap2 = 4096, len = 0;
    char *text = malloc(cap2);
    size_t got;
    while (text && (got = fread(text + len, 1, cap2 - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap2) {
            char *nt = realloc(text, cap2 *= 2);
            if (!nt) free(text);
            text = nt;
        }
    }
    fclose(f);
    if (!text) return false;
    text[len] = 0;
    int n = 0;
    char **v = split_command(text, &n);
    free(text);
    bool ok = v != NULL;
    for (int i = 0; i < n; ++i) {
        ok = ok && push_words(e, cap, dir, v[i], depth + 1, err);
        free(v[i]);
    }
    free(v);
    return ok;
}

static void entry_free(cc_entry *e)
{
    for (int i = 0; i < e->nwords; ++i)
        free(e->words[i]);
    free(e->words);
    free(e->args);
    free(e->file);
}

/* Reads one entry: the "arguments" array (as bear writes it) or the
 * "command" string, response files expanded; the compiler (first word) and
 * the source itself (however it is spelled) are left out. */
static ompdag_status read_entry(json_t *j, cc_entry *e, ompdag_error *err)
{
    memset(e, 0, sizeof *e);
    const char *dir = json_string_value(json_object_get(j, "directory"));
    const char *file = json_string_value(json_object_get(j, "file"));
    json_t *arguments = json_object_get(j, "arguments");
    const char *command = json_string_value(json_object_get(j, "command"));
    if (!dir || !file || (!json_is_array(arguments) && !command))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                "compile_commands.json: entry without directory/file/command");
    char real[PATH_MAX];
    e->exists = resolve(dir, file, real);
    e->file = strdup(e->exists ? real : file);
    int64_t cap = 0;
    int n = 0;
    char **split = NULL;
    if (!json_is_array(arguments)) {
        split = split_command(command, &n);
        if (!split) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    } else {
        n = (int)json_array_size(arguments);
    }
    ompdag_status st = e->file ? OMPDAG_OK : OMPDAG_ERR_NOMEM;
    if (!push_word(e, &cap, strdup("-working-directory")) || !push_word(e, &cap, strdup(dir)))
        st = OMPDAG_ERR_NOMEM;
    for (int i = 0; i < n; ++i) {
        const char *w = split ? split[i] : json_string_value(json_array_get(arguments, (size_t)i));
        if (!st && i > 0 && w && !(w[0] != '-' && w[0] != '@' && same_file(dir, w, e->file)) &&
            !push_words(e, &cap, dir, w, 0, err))
            st = err->code ? err->code : OMPDAG_ERR_NOMEM;
        if (split) free(split[i]);
    }
    free(split);
    for (int i = 2; !st && i + 1 < e->nwords; ++i)
        if (!strcmp(e->words[i], "-o")) e->object = e->words[i + 1];
    if (!st) {
        e->args = calloc((size_t)e->nwords + 1, sizeof *e->args);
        for (int i = 0; e->args && i < e->nwords; ++i)
            e->args[i] = e->words[i];
        e->nargs = e->nwords;
        if (!e->args) st = OMPDAG_ERR_NOMEM;
    }
    if (st == OMPDAG_ERR_NOMEM) ompdag_error_set(err, st, "out of memory");
    return st;
}

/* True when entry b repeats entry a exactly (same source, same words). */
static bool same_entry(const cc_entry *a, const cc_entry *b)
{
    if (strcmp(a->file, b->file) || a->nwords != b->nwords) return false;
    for (int i = 0; i < a->nwords; ++i)
        if (strcmp(a->words[i], b->words[i])) return false;
    return true;
}

/* A source without the word "pragma" has no region: its further flag sets
 * need no extraction round of their own (index-only, like the plugin's skip). */
static bool may_have_regions(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return true; /* the front end will say why */
    static const char word[] = "pragma";
    size_t matched = 0;
    int c;
    while (matched < sizeof word - 1 && (c = getc(f)) != EOF)
        matched = c == word[matched] ? matched + 1 : c == word[0] ? 1 : 0;
    fclose(f);
    return matched == sizeof word - 1;
}

/* What read_database() left out, reported once each after it. */
typedef struct db_counts {
    int nsel;                 /* entries selected by FILES (all by default) */
    int repeats;              /* exact repeats of an earlier entry */
    int missing;              /* entries whose source no longer exists */
    char first_missing[1024]; /* one of them, for the message */
} db_counts;

/* The entries of compile_commands.json: the selected ones first (they give
 * regions), then the rest (indexed only).  An entry that repeats an earlier
 * one exactly is dropped (counted, reported once); the same source with
 * other flags (-D variants, another object) is kept as its next variant.
 * An entry whose source is gone (a build that generates a source, compiles
 * and deletes it) is dropped and counted: the caller reports it and makes
 * the exit status 1, the other entries are extracted. */
static int read_database(const char *path, const extract_opts *o, cc_entry **out, int *nout,
                         db_counts *dc)
{
    json_error_t jerr;
    json_t *db = json_load_file(path, 0, &jerr);
    if (!json_is_array(db)) {
        fprintf(stderr, "ompdag extract: %s:%d: %s\n", path, jerr.line,
                db ? "not a JSON array" : jerr.text);
        json_decref(db);
        return CLI_EXIT_FAIL;
    }
    size_t n = json_array_size(db);
    cc_entry *es = calloc(n + 1, sizeof *es);
    int ne = 0, rc = es ? CLI_EXIT_OK : CLI_EXIT_FAIL;
    for (int pass = 0; rc == CLI_EXIT_OK && pass < 2; ++pass) {
        for (size_t i = 0; rc == CLI_EXIT_OK && i < n; ++i) {
            json_t *j = json_array_get(db, i);
            const char *dir = json_string_value(json_object_get(j, "directory"));
            const char *file = json_string_value(json_object_get(j, "file"));
            bool wanted = o->nfiles == 0;
            for (int k = 0; !wanted && dir && file && k < o->nfiles; ++k)
                wanted = same_file(dir, file, o->files[k]);
            if (wanted != (pass == 0)) continue;
            ompdag_error err = {0};
            cc_entry *e = &es[ne];
            if (read_entry(j, e, &err) != OMPDAG_OK) {
                fprintf(stderr, "ompdag extract: %s: %s\n", path, err.message);
                entry_free(e);
                rc = CLI_EXIT_FAIL;
                break;
            }
            if (!e->exists) {
                if (dc->missing++ == 0)
                    snprintf(dc->first_missing, sizeof dc->first_missing, "%s/%s", dir, file);
                entry_free(e);
                continue;
            }
            bool repeat = false;
            for (int k = 0; k < ne && !repeat; ++k) {
                repeat = same_entry(&es[k], e);
                if (!strcmp(es[k].file, e->file)) e->variant++;
            }
            if (repeat) {
                ++dc->repeats;
                entry_free(e);
                continue;
            }
            e->regions = pass == 0;
            ++ne;
            if (pass == 0) ++dc->nsel;
        }
    }
    json_decref(db);
    *out = es;
    *nout = ne;
    return rc;
}

/* `path` with "." and ".." parts folded, in place (lexically: the object
 * need not exist yet). */
static void fold_dots(char *path)
{
    char *out = path, *p = path;
    bool abs = *p == '/';
    size_t keep = abs ? 1 : 0;
    while (*p) {
        while (*p == '/')
            ++p;
        char *part = p;
        while (*p && *p != '/')
            ++p;
        size_t len = (size_t)(p - part);
        if (len == 0 || (len == 1 && part[0] == '.')) continue;
        if (len == 2 && part[0] == '.' && part[1] == '.' && keep > (abs ? 1u : 0u)) {
            while (keep > (abs ? 1u : 0u) && out[keep - 1] != '/')
                --keep;
            if (keep > (abs ? 1u : 0u)) --keep; /* the '/' before the dropped part */
            continue;
        }
        if (keep > (abs ? 1u : 0u)) out[keep++] = '/';
        memmove(out + keep, part, len);
        keep += len;
    }
    out[keep] = 0;
}

/* The entry's object as the plugin names it (plugin/plugin.cpp): its path
 * made absolute, below `top` (here the directory that holds
 * compile_commands.json, there the one that holds the out DIR) relative to
 * it.  With no -o, clang's default: the source's stem + ".o". */
static void object_name(const cc_entry *e, const char *top, char *out, size_t cap)
{
    const char *dir = e->words[1]; /* "-working-directory" DIR */
    char obj[PATH_MAX];
    if (e->object) {
        snprintf(obj, sizeof obj, "%s", e->object);
    } else {
        const char *base = strrchr(e->file, '/');
        snprintf(obj, sizeof obj, "%s", base ? base + 1 : e->file);
        char *dot = strrchr(obj, '.');
        if (dot) snprintf(dot, sizeof obj - (size_t)(dot - obj), ".o");
    }
    char abs[2 * PATH_MAX + 2];
    if (obj[0] == '/')
        snprintf(abs, sizeof abs, "%s", obj);
    else
        snprintf(abs, sizeof abs, "%s/%s", dir, obj);
    fold_dots(abs);
    size_t t = strlen(top);
    const char *rel = abs;
    if (t > 1 && !strncmp(abs, top, t) && abs[t] == '/') rel = abs + t + 1;
    while (*rel == '/')
        ++rel;
    snprintf(out, cap, "%s", rel);
}

/* Appends, for every graph of this round's `set`, the object of the entry
 * it came from to objects[] (parallel to the graphs of the output set). */
static ompdag_status note_objects(const ompdag_condag_set *set, const cc_entry *es, int ne,
                                  int variant, const char *top, char ***objects, int64_t *nobj,
                                  int64_t *cap, ompdag_error *err)
{
    for (size_t g = 0; g < ompdag_condag_set_count(set); ++g) {
        ompdag_loc at = ompdag_condag_region_loc(ompdag_condag_set_graph(set, g));
        const cc_entry *e = NULL;
        for (int i = 0; at.file && i < ne && !e; ++i)
            if (es[i].regions && es[i].variant == variant && !strcmp(es[i].file, at.file))
                e = &es[i];
        char name[2 * PATH_MAX + 2];
        if (e)
            object_name(e, top, name, sizeof name);
        else
            snprintf(name, sizeof name, "%s", at.file ? at.file : "?");
        char *copy = strdup(name);
        if (!copy || !ompdag_grow_array((void **)objects, sizeof **objects, cap, *nobj + 1)) {
            free(copy);
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        }
        (*objects)[(*nobj)++] = copy;
    }
    return OMPDAG_OK;
}

/* Graphs that share a name (one region built into several objects, or two
 * sources with a function of the same name and line) become NAME@OBJECT,
 * the rule `ompdag collect` applies to a plugin build. */
static ompdag_status name_apart(ompdag_condag_set *set, char **objects, ompdag_error *err)
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
        size_t len = strlen(ompdag_condag_name(g)) + strlen(objects[i]) + 2;
        char *named = malloc(len);
        if (named) snprintf(named, len, "%s@%s", ompdag_condag_name(g), objects[i]);
        st = named ? ompdag_condag_assign_name(g, named) : OMPDAG_ERR_NOMEM;
        free(named);
        if (st) ompdag_error_set(err, st, "out of memory");
    }
    free(shared);
    return st;
}

/* Prints one line per refused source, after the front end's diagnostics. */
static void list_refusals(const ompdag_frontend *fe)
{
    size_t n = ompdag_frontend_diag_count(fe);
    for (size_t i = 0; i < n; ++i) {
        const ompdag_frontend_diag *d = ompdag_frontend_diag_at(fe, i);
        if (d->severity != OMPDAG_DIAG_ERROR || !d->loc.file) continue;
        bool seen = false;
        int count = 0;
        for (size_t k = 0; k < n; ++k) {
            const ompdag_frontend_diag *o = ompdag_frontend_diag_at(fe, k);
            if (o->severity != OMPDAG_DIAG_ERROR || !o->loc.file ||
                strcmp(o->loc.file, d->loc.file))
                continue;
            seen = seen || k < i;
            ++count;
        }
        if (!seen)
            fprintf(stderr, "ompdag extract: refused: %s (%d refusal%s above)\n", d->loc.file,
                    count, count == 1 ? "" : "s");
    }
}

typedef struct round_out {
    ompdag_condag_set *all; /* every round's graphs */
    char **objects;         /* objects[i]: the object graph i of `all` came from */
    int64_t nobjects, cap;
    const char *top; /* objects are named below it (realpath of BUILD_DIR) */
    bool refused;    /* some region was refused, or some source did not compile */
} round_out;

/* The sources of one round: the entries of `variant` that give regions
 * (first, *nregions of them), then every other source's first entry,
 * indexed so calls into other files are followed.  Entries that do not
 * compile are left out.  Returns the count; idx[] maps back to es[]. */
static int round_sources(const cc_entry *es, int ne, int variant, const char **srcs,
                         const char *const **argv, int *nargs, int *idx, int *nregions)
{
    int n = 0;
    *nregions = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (int i = 0; i < ne; ++i) {
            const cc_entry *e = &es[i];
            if (e->broken) continue;
            bool region =
                e->regions && e->variant == variant && (variant == 0 || may_have_regions(e->file));
            bool index = false;
            if (pass == 1 && !region && e->variant == 0) {
                index = true; /* unless this round extracts another flag set of it */
                for (int k = 0; k < ne && index; ++k)
                    index = !(es[k].regions && es[k].variant == variant &&
                              !strcmp(es[k].file, e->file));
            }
            if (pass == 0 ? !region : !index) continue;
            srcs[n] = e->file;
            argv[n] = e->args;
            idx[n] = i;
            nargs[n++] = e->nargs;
            if (pass == 0) ++*nregions;
        }
    }
    return n;
}

/* After clang errors: marks the round's sources that have an error in
 * their own file as broken, so the round can run again without them.
 * Returns how many were marked (0: the errors are elsewhere, e.g. in a
 * header, and a retry would fail the same way). */
static int mark_broken(const ompdag_frontend *fe, cc_entry *es, const int *idx, int n)
{
    int marked = 0;
    for (size_t d = 0; d < ompdag_frontend_diag_count(fe); ++d) {
        const ompdag_frontend_diag *dg = ompdag_frontend_diag_at(fe, d);
        if (dg->severity != OMPDAG_DIAG_ERROR || !dg->loc.file) continue;
        for (int k = 0; k < n; ++k) {
            cc_entry *e = &es[idx[k]];
            if (e->broken || strcmp(e->file, dg->loc.file)) continue;
            e->broken = true;
            ++marked;
            fprintf(stderr, "ompdag extract: not extracted: %s (clang errors above)\n", e->file);
        }
    }
    return marked;
}

/* One extraction round (see round_sources).  ro->refused is set when some
 * region was refused or some source did not compile; the graphs written
 * are then the ones that did extract. */
static int extract_round(ompdag_frontend *fe, cc_entry *es, int ne, int variant, round_out *ro)
{
    const char **srcs = calloc((size_t)ne + 1, sizeof *srcs);
    const char *const **argv = calloc((size_t)ne + 1, sizeof *argv);
    int *nargs = calloc((size_t)ne + 1, sizeof *nargs);
    int *idx = calloc((size_t)ne + 1, sizeof *idx);
    int rc = srcs && argv && nargs && idx ? CLI_EXIT_OK : CLI_EXIT_FAIL;
    /* each retry drops at least one source: at most ne + 1 tries */
    for (int attempt = 0; rc == CLI_EXIT_OK && attempt <= ne; ++attempt) {
        int nregions = 0;
        int n = round_sources(es, ne, variant, srcs, argv, nargs, idx, &nregions);
        if (nregions == 0) break;
        ompdag_condag_set *set = NULL;
        ompdag_error err = {0};
        ompdag_status st =
            ompdag_frontend_extract_project(fe, n, srcs, argv, nargs, nregions, &set, &err);
        ompdag_frontend_print_diags(fe, stderr);
        if (st == OMPDAG_ERR_PARSE && mark_broken(fe, es, idx, n) > 0) {
            ro->refused = true;
            ompdag_condag_set_destroy(set);
            continue;
        }
        if (st == OMPDAG_ERR_UNSUPPORTED && set) {
            ro->refused = true;
            list_refusals(fe);
            st = OMPDAG_OK;
        }
        if (st == OMPDAG_OK)
            st = note_objects(set, es, ne, variant, ro->top, &ro->objects, &ro->nobjects, &ro->cap,
                              &err);
        if (st == OMPDAG_OK) st = merge_sets(ro->all, set, &err);
        if (st != OMPDAG_OK) {
            if (ompdag_frontend_diag_count(fe) == 0 || st == OMPDAG_ERR_NOMEM)
                fprintf(stderr, "ompdag extract: %s\n", err.message);
            rc = CLI_EXIT_FAIL;
        }
        ompdag_condag_set_destroy(set);
        break;
    }
    free(srcs);
    free(argv);
    free(nargs);
    free(idx);
    return rc;
}

/* -p BUILD_DIR: every entry is parsed and indexed, so task-creating
 * functions defined in one file are inlined where another calls them;
 * regions come from the FILES selected (default: all).  A source built
 * with several flag sets is extracted once per set (round k takes every
 * source's k-th set); graphs sharing a name are named after their objects
 * (NAME@OBJECT, as `ompdag collect` names them).  Refused regions
 * are listed and left out, the others written: *refused then makes the
 * exit status 1. */
static int run_compile_commands(const extract_opts *o, ompdag_frontend *fe, ompdag_condag_set *all,
                                bool *refused)
{
    char top[PATH_MAX];
    if (!realpath(o->build_dir, top)) {
        fprintf(stderr, "ompdag extract: %s: cannot open: %s\n", o->build_dir, strerror(errno));
        return CLI_EXIT_FAIL;
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/compile_commands.json", o->build_dir);
    cc_entry *es = NULL;
    int ne = 0;
    db_counts dc = {0};
    int rc = read_database(path, o, &es, &ne, &dc);
    if (dc.repeats > 0)
        fprintf(stderr,
                "ompdag extract: note: %s: %d entr%s repeat%s an earlier one exactly (same "
                "source, same flags); each is extracted once\n",
                path, dc.repeats, dc.repeats == 1 ? "y" : "ies", dc.repeats == 1 ? "s" : "");
    if (dc.missing > 0) {
        fprintf(stderr,
                "ompdag extract: %s: %d entr%s name%s a source that does not exist (%s%s): not "
                "extracted; rebuild, or keep the build's generated sources\n",
                path, dc.missing, dc.missing == 1 ? "y" : "ies", dc.missing == 1 ? "s" : "",
                dc.first_missing, dc.missing > 1 ? ", ..." : "");
        *refused = true;
    }
    int nsel = dc.nsel;
    if (rc == CLI_EXIT_OK && nsel < (o->nfiles ? o->nfiles : 1)) {
        fprintf(stderr, "ompdag extract: %s: %s\n", path,
                o->nfiles ? "some FILES have no entry" : "no entries");
        rc = CLI_EXIT_FAIL;
    }
    int rounds = 0;
    for (int i = 0; i < ne; ++i)
        if (es[i].regions && es[i].variant + 1 > rounds) rounds = es[i].variant + 1;
    round_out ro = {all, NULL, 0, 0, top, false};
    for (int r = 0; rc == CLI_EXIT_OK && r < rounds; ++r)
        rc = extract_round(fe, es, ne, r, &ro);
    ompdag_error err = {0};
    if (rc == CLI_EXIT_OK && name_apart(all, ro.objects, &err) != OMPDAG_OK)
        rc = cli_fail("extract", &err);
    *refused = *refused || ro.refused;
    for (int64_t i = 0; i < ro.nobjects; ++i)
        free(ro.objects[i]);
    free(ro.objects);
    for (int i = 0; es && i < ne; ++i)
        entry_free(&es[i]);
    free(es);
    return rc;
}

static int parse_args(int argc, char **argv, extract_opts *o)
{
    o->files = calloc((size_t)argc + 1, sizeof *o->files);
    o->assume = calloc((size_t)argc + 1, sizeof *o->assume);
    if (!o->files || !o->assume) return cli_usage_error("extract", "out of memory");
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
        } else if (!strcmp(a, "--loop-bound") && has_next) {
            if (!cli_parse_i64(argv[++i], 0, INT32_MAX, &o->loop_bound))
                return cli_usage_error("extract", "--loop-bound needs 0..%d, got '%s'", INT32_MAX,
                                       argv[i]);
        } else if (!strcmp(a, "--assume") && has_next) {
            o->assume[o->nassume++] = argv[++i];
        } else if (!strncmp(a, "--assume=", 9)) {
            o->assume[o->nassume++] = a + 9;
        } else if (!strcmp(a, "--node-limit") && has_next) {
            if (!cli_parse_i64(argv[++i], 1, INT32_MAX, &o->node_limit))
                return cli_usage_error("extract", "bad --node-limit '%s'", argv[i]);
        } else if (!strcmp(a, "--team-size") && has_next) {
            if (!cli_parse_i64(argv[++i], 1, 4096, &o->team_size))
                return cli_usage_error("extract", "--team-size needs 1..4096, got '%s'", argv[i]);
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

/* libclang reports a missing or unreadable source as "cannot parse (libclang
 * error N)"; the file is opened here first so the message says what every
 * other command says ("PATH: cannot open: CAUSE", exit 1). */
static bool source_readable(const char *path, ompdag_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        ompdag_error_set(err, OMPDAG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return false;
    }
    struct stat st;
    bool dir = fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode);
    fclose(f);
    if (dir) ompdag_error_set(err, OMPDAG_ERR_IO, "%s: is a directory, not a C source file", path);
    return !dir;
}

int cmd_extract(int argc, char **argv)
{
    extract_opts o = {0};
    o.loop_bound = -1;
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
    if (rc == CLI_EXIT_OK && o.loop_bound >= 0 &&
        ompdag_frontend_set_loop_bound(fe, (int32_t)o.loop_bound, &err))
        rc = cli_fail("extract", &err);
    for (int i = 0; rc == CLI_EXIT_OK && i < o.nassume; ++i)
        if (ompdag_frontend_assume(fe, o.assume[i], &err) != OMPDAG_OK)
            rc = err.code == OMPDAG_ERR_NOMEM
                     ? cli_fail("extract", &err)
                     : cli_usage_error("extract", "--assume: %s", err.message);
    if (rc == CLI_EXIT_OK && o.node_limit &&
        ompdag_frontend_set_node_limit(fe, (int32_t)o.node_limit, &err))
        rc = cli_fail("extract", &err);
    if (rc == CLI_EXIT_OK && o.team_size &&
        ompdag_frontend_set_team_size(fe, (int32_t)o.team_size, &err))
        rc = cli_fail("extract", &err);
    bool refused = false;
    if (rc == CLI_EXIT_OK && o.build_dir) {
        /* libclang's -working-directory moves this process's current
         * directory (llvm's real file system chdir()s): -o and the rest of
         * the command line stay relative to where the user ran it */
        int here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        rc = run_compile_commands(&o, fe, all, &refused);
        if (here >= 0 && fchdir(here) != 0) {
            ompdag_error_set(&err, OMPDAG_ERR_IO, "cannot return to the current directory: %s",
                             strerror(errno));
            rc = cli_fail("extract", &err);
        }
        if (here >= 0) close(here);
    } else if (rc == CLI_EXIT_OK && !source_readable(o.files[0], &err)) {
        rc = cli_fail("extract", &err);
    } else if (rc == CLI_EXIT_OK) {
        if (extract_one(fe, o.files[0], o.cargs, o.ncargs, all, &err) != OMPDAG_OK)
            rc = err.code == OMPDAG_OK ? CLI_EXIT_FAIL : cli_fail("extract", &err);
    }
    if (rc == CLI_EXIT_OK &&
        ompdag_condag_set_save_file(all, o.out ? o.out : "-", true, &err) != OMPDAG_OK)
        rc = cli_fail("extract", &err);
    /* Orphaned task code (14 of the OpenMP Examples' tasking sources: the tasks
     * run in a region of another file) gave an empty set without a word. */
    if (rc == CLI_EXIT_OK && !refused && ompdag_condag_set_count(all) == 0)
        fprintf(stderr,
                "ompdag extract: note: no `#pragma omp parallel` region in %s, so nothing to "
                "bound; task code that runs in a region of another file is extracted with that "
                "region (name its file, or use -p BUILD_DIR)\n",
                o.build_dir || !o.nfiles ? "the files extracted" : o.files[0]);
    if (rc == CLI_EXIT_OK && refused) {
        fprintf(stderr,
                "ompdag extract: some regions were refused or not extracted (listed above); the "
                "%zu that "
                "extracted were written\n",
                ompdag_condag_set_count(all));
        rc = CLI_EXIT_FAIL;
    }
    ompdag_condag_set_destroy(all);
    ompdag_frontend_destroy(fe);
    free(o.files);
    free(o.assume);
    return rc;
}
