/*
 * analysis/condag_json.c — the `ompdag-condag` v1 and `ompdag-condag-set` v1
 * file formats (shared/spec/condag.md §5), read and written with jansson.
 *
 * Every field error names the graph, the node (by index and id) or edge and
 * the field; syntax errors carry jansson's line and column.  Unknown keys are
 * kept as "extras" and written back, so tools further down the pipeline (the
 * probe's annotate, reports) can add keys without breaking older readers.
 */
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "internal.h"
#include "ompdag/fileio.h"

#define FORMAT_GRAPH "ompdag-condag"
#define FORMAT_SET "ompdag-condag-set"
#define FORMAT_VERSION 1

struct ompdag_condag_set {
    ompdag_condag **graphs;
    size_t n;
    int64_t cap;
    bool was_single;
};

/* ---- reading ------------------------------------------------------------ */

static bool key_in(const char *key, const char *const *keys)
{
    for (; *keys; ++keys)
        if (!strcmp(key, *keys))
            return true;
    return false;
}

/* Collects the keys of obj not in `known` into a new object (NULL if none). */
static json_t *unknown_keys(const json_t *obj, const char *const *known)
{
    json_t *extra = NULL;
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)obj, key, val)
    {
        if (key_in(key, known))
            continue;
        if (!extra)
            extra = json_object();
        json_object_set(extra, key, val);
    }
    return extra;
}

/* Reads an optional string field; false (with message) on a wrong type. */
static bool opt_string(const json_t *obj, const char *key, const char **out)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v)
        return true;
    if (!json_is_string(v))
        return false;
    *out = json_string_value(v);
    return true;
}

static bool opt_int(const json_t *obj, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return true;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return false;
    *out = json_integer_value(v);
    return true;
}

static ompdag_status read_loc(const json_t *obj, const char *where, ompdag_loc *loc,
                              ompdag_error *err)
{
    json_t *l = json_object_get(obj, "loc");
    *loc = (ompdag_loc){0};
    if (!l)
        return OMPDAG_OK;
    int64_t line = 0, col = 0;
    if (!json_is_object(l))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: 'loc' must be an object", where);
    if (!opt_string(l, "file", &loc->file))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: 'loc.file' must be a string",
                                where);
    if (!opt_int(l, "line", 0, INT32_MAX, &line) || !opt_int(l, "col", 0, INT32_MAX, &col))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'loc.line' and 'loc.col' must be non-negative integers",
                                where);
    loc->line = (int32_t)line;
    loc->col = (int32_t)col;
    return OMPDAG_OK;
}

static const char *const node_keys[] = {"id", "task", "kind", "wcet", "creates",
                                        "loc", "label", NULL};

static ompdag_status read_node(ompdag_condag *g, const json_t *obj, const char *gwhere, size_t i,
                               ompdag_error *err)
{
    char where[256];
    if (!json_is_object(obj))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: nodes[%zu] must be an object",
                                gwhere, i);
    json_t *id = json_object_get(obj, "id");
    if (!json_is_string(id) || !*json_string_value(id))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: nodes[%zu]: 'id' must be a non-empty string", gwhere, i);
    snprintf(where, sizeof where, "%s: node '%s' (nodes[%zu])", gwhere, json_string_value(id), i);

    ompdag_node_spec s = {.id = json_string_value(id)};
    json_t *task = json_object_get(obj, "task");
    if (!json_is_string(task) || !*json_string_value(task))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'task' must be a non-empty string", where);
    s.task = json_string_value(task);
    json_t *kind = json_object_get(obj, "kind");
    const char *k = json_is_string(kind) ? json_string_value(kind) : NULL;
    if (!k || strlen(k) != 1 || !strchr("NTWCJ", k[0]))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'kind' must be one of \"N\", \"T\", \"W\", \"C\", \"J\"",
                                where);
    s.kind = (ompdag_kind)k[0];
    json_t *wcet = json_object_get(obj, "wcet");
    if (!json_is_integer(wcet) || json_integer_value(wcet) < 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'wcet' must be a non-negative integer", where);
    s.wcet = json_integer_value(wcet);
    if (!opt_string(obj, "creates", &s.creates) || !opt_string(obj, "label", &s.label))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'creates' and 'label' must be strings", where);
    ompdag_status st = read_loc(obj, where, &s.loc, err);
    if (st)
        return st;
    ompdag_error inner;
    int32_t v;
    if ((st = ompdag_condag_add_node(g, &s, &v, &inner)))
        return ompdag_error_set(err, st, "%s: %s", gwhere, inner.message);
    json_t *extra = unknown_keys(obj, node_keys);
    if (extra) {
        st = ompdag_condag_set_extra(g, v, extra);
        json_decref(extra);
    }
    return st;
}

static ompdag_status read_edges(ompdag_condag *g, const json_t *edges, const char *where,
                                ompdag_error *err)
{
    if (!edges)
        return OMPDAG_OK;
    if (!json_is_array(edges))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: 'edges' must be an array", where);
    size_t i;
    json_t *e;
    json_array_foreach(edges, i, e)
    {
        json_t *a = json_array_get(e, 0), *b = json_array_get(e, 1);
        if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_string(a) ||
            !json_is_string(b))
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "%s: edges[%zu] must be a pair of node ids [\"from\", \"to\"]",
                                    where, i);
        int32_t from = ompdag_condag_find_node(g, json_string_value(a));
        int32_t to = ompdag_condag_find_node(g, json_string_value(b));
        if (from < 0 || to < 0)
            return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: edges[%zu]: unknown node '%s'",
                                    where, i, json_string_value(from < 0 ? a : b));
        ompdag_error inner;
        ompdag_status st = ompdag_condag_add_edge(g, from, to, &inner);
        if (st)
            return ompdag_error_set(err, st, "%s: edges[%zu]: %s", where, i, inner.message);
    }
    return OMPDAG_OK;
}

static const char *const graph_keys[] = {"format", "version", "name",  "function", "threads",
                                         "time_unit", "loc",   "nodes", "edges",    NULL};

static ompdag_status read_graph_meta(ompdag_condag *g, const json_t *obj, const char *where,
                                     ompdag_error *err)
{
    const char *name, *function, *unit;
    if (!opt_string(obj, "name", &name) || !opt_string(obj, "function", &function) ||
        !opt_string(obj, "time_unit", &unit))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'name', 'function' and 'time_unit' must be strings", where);
    int64_t threads = 0;
    if (!opt_int(obj, "threads", 1, INT32_MAX, &threads))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'threads' must be a positive integer", where);
    ompdag_loc loc;
    ompdag_status st = read_loc(obj, where, &loc, err);
    if (st)
        return st;
    if (ompdag_condag_set_name(g, name) || ompdag_condag_set_function(g, function) ||
        ompdag_condag_set_time_unit(g, unit) || ompdag_condag_set_region_loc(g, loc))
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    ompdag_condag_set_threads(g, (int32_t)threads);
    json_t *extra = unknown_keys(obj, graph_keys);
    if (extra) {
        ompdag_condag_set_extra(g, -1, extra);
        json_decref(extra);
    }
    return OMPDAG_OK;
}

static ompdag_status read_graph(ompdag_condag *g, const json_t *obj, const char *where,
                                ompdag_error *err)
{
    if (!json_is_object(obj))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: a graph must be a JSON object",
                                where);
    ompdag_status st = read_graph_meta(g, obj, where, err);
    if (st)
        return st;
    json_t *nodes = json_object_get(obj, "nodes");
    if (!json_is_array(nodes))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: missing array 'nodes'", where);
    size_t i;
    json_t *n;
    json_array_foreach(nodes, i, n)
    {
        if ((st = read_node(g, n, where, i, err)))
            return st;
    }
    if ((st = read_edges(g, json_object_get(obj, "edges"), where, err)))
        return st;
    ompdag_error inner;
    if ((st = ompdag_condag_finalize(g, &inner)))
        return ompdag_error_set(err, st, "%s: %s", where, inner.message);
    return OMPDAG_OK;
}

ompdag_status ompdag_condag_from_json(const json_t *obj, const char *where, ompdag_condag **out,
                                      ompdag_error *err)
{
    ompdag_condag *g = ompdag_condag_create();
    if (!g)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    ompdag_status st = read_graph(g, obj, where, err);
    if (st) {
        ompdag_condag_destroy(g);
        return st;
    }
    *out = g;
    return OMPDAG_OK;
}

static ompdag_status check_header(const json_t *root, const char *origin, bool *is_set,
                                  ompdag_error *err)
{
    if (!json_is_object(root))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: top level must be a JSON object",
                                origin);
    json_t *format = json_object_get(root, "format");
    const char *f = json_is_string(format) ? json_string_value(format) : NULL;
    if (!f || (strcmp(f, FORMAT_GRAPH) && strcmp(f, FORMAT_SET)))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'format' must be \"" FORMAT_GRAPH "\" or \"" FORMAT_SET "\"",
                                origin);
    json_t *version = json_object_get(root, "version");
    if (!json_is_integer(version))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: 'version' must be an integer",
                                origin);
    if (json_integer_value(version) != FORMAT_VERSION)
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                "%s: unsupported version %lld (this ompdag reads version %d)",
                                origin, (long long)json_integer_value(version), FORMAT_VERSION);
    *is_set = !strcmp(f, FORMAT_SET);
    return OMPDAG_OK;
}

static ompdag_status set_from_json(const json_t *root, const char *origin, ompdag_condag_set *s,
                                   ompdag_error *err)
{
    bool is_set = false;
    ompdag_status st = check_header(root, origin, &is_set, err);
    if (st)
        return st;
    s->was_single = !is_set;
    if (!is_set) {
        ompdag_condag *g = NULL;
        if ((st = ompdag_condag_from_json(root, origin, &g, err)))
            return st;
        return ompdag_condag_set_add(s, g, err);
    }
    json_t *graphs = json_object_get(root, "graphs");
    if (!json_is_array(graphs))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: missing array 'graphs'", origin);
    size_t i;
    json_t *obj;
    json_array_foreach(graphs, i, obj)
    {
        char where[256];
        const char *name = json_string_value(json_object_get(obj, "name"));
        if (!name)
            name = json_string_value(json_object_get(obj, "function"));
        snprintf(where, sizeof where, "%s: graphs[%zu]%s%s%s", origin, i, name ? " ('" : "",
                 name ? name : "", name ? "')" : "");
        ompdag_condag *g = NULL;
        if ((st = ompdag_condag_from_json(obj, where, &g, err)) ||
            (st = ompdag_condag_set_add(s, g, err)))
            return st;
    }
    return OMPDAG_OK;
}

ompdag_status ompdag_condag_set_load_buffer(const char *text, size_t len, const char *origin,
                                            ompdag_condag_set **out, ompdag_error *err)
{
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%d:%d: JSON syntax error: %s", origin,
                                je.line, je.column, je.text);
    ompdag_condag_set *s = ompdag_condag_set_create();
    ompdag_status st = s ? set_from_json(root, origin, s, err)
                         : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    json_decref(root);
    if (st) {
        ompdag_condag_set_destroy(s);
        return st;
    }
    *out = s;
    return OMPDAG_OK;
}

static ompdag_status slurp(FILE *f, const char *path, char **buf, size_t *len, ompdag_error *err)
{
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    while (b) {
        n += fread(b + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *nb = realloc(b, cap *= 2);
        if (!nb)
            free(b);
        b = nb;
    }
    if (!b)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "%s: out of memory", path);
    if (ferror(f)) {
        free(b);
        return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: read error: %s", path, strerror(errno));
    }
    *buf = b;
    *len = n;
    return OMPDAG_OK;
}

ompdag_status ompdag_condag_set_load_file(const char *path, ompdag_condag_set **out,
                                          ompdag_error *err)
{
    bool is_stdin = !strcmp(path, "-");
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0;
    ompdag_status st = slurp(f, is_stdin ? "<stdin>" : path, &buf, &len, err);
    if (!is_stdin)
        fclose(f);
    if (st)
        return st;
    st = ompdag_condag_set_load_buffer(buf, len, is_stdin ? "<stdin>" : path, out, err);
    free(buf);
    return st;
}

/* ---- writing ------------------------------------------------------------ */

static json_t *loc_to_json(ompdag_loc loc)
{
    json_t *l = json_object();
    if (loc.file)
        json_object_set_new(l, "file", json_string(loc.file));
    if (loc.line)
        json_object_set_new(l, "line", json_integer(loc.line));
    if (loc.col)
        json_object_set_new(l, "col", json_integer(loc.col));
    return l;
}

static json_t *node_to_json(const ompdag_condag *g, int32_t v)
{
    json_t *o = json_object();
    char kind[2] = {(char)g->kind[v], 0};
    json_object_set_new(o, "id", json_string(node_name(g, v)));
    json_object_set_new(o, "task", json_string(task_name(g, g->node_task[v])));
    json_object_set_new(o, "kind", json_string(kind));
    json_object_set_new(o, "wcet", json_integer(g->wcet[v]));
    if (g->creates[v] >= 0)
        json_object_set_new(o, "creates", json_string(task_name(g, g->creates[v])));
    ompdag_loc loc = ompdag_condag_node_loc(g, v);
    if (loc.file || loc.line || loc.col)
        json_object_set_new(o, "loc", loc_to_json(loc));
    if (g->label[v] >= 0)
        json_object_set_new(o, "label", json_string(ompdag_condag_node_label(g, v)));
    if (g->extra && g->extra[v])
        json_object_update_missing(o, g->extra[v]);
    return o;
}

/* The graph's keys other than nodes and edges. */
static json_t *graph_meta_to_json(const ompdag_condag *g, bool with_header)
{
    json_t *o = json_object();
    if (with_header) {
        json_object_set_new(o, "format", json_string(FORMAT_GRAPH));
        json_object_set_new(o, "version", json_integer(FORMAT_VERSION));
    }
    const char *s;
    if ((s = ompdag_condag_name(g)))
        json_object_set_new(o, "name", json_string(s));
    if ((s = ompdag_condag_function(g)))
        json_object_set_new(o, "function", json_string(s));
    if (g->threads)
        json_object_set_new(o, "threads", json_integer(g->threads));
    if (g->time_unit >= 0)
        json_object_set_new(o, "time_unit", json_string(ompdag_condag_time_unit(g)));
    ompdag_loc loc = ompdag_condag_region_loc(g);
    if (loc.file || loc.line)
        json_object_set_new(o, "loc", loc_to_json(loc));
    if (g->graph_extra)
        json_object_update_missing(o, g->graph_extra);
    return o;
}

static json_t *edge_to_json(const ompdag_condag *g, int32_t from, int32_t to)
{
    return json_pack("[ss]", node_name(g, from), node_name(g, to));
}

json_t *ompdag_condag_to_json(const ompdag_condag *g)
{
    json_t *o = graph_meta_to_json(g, true);
    json_t *nodes = json_array(), *edges = json_array();
    for (int32_t v = 0; v < g->n; ++v) {
        json_array_append_new(nodes, node_to_json(g, v));
        for (int32_t i = g->fsucc_off[v]; i < g->fsucc_off[v + 1]; ++i)
            json_array_append_new(edges, edge_to_json(g, v, g->fsucc[i]));
    }
    json_object_set_new(o, "nodes", nodes);
    json_object_set_new(o, "edges", edges);
    return o;
}

/* Writes one JSON value compactly; returns false on a stream error. */
static bool put_json(FILE *f, json_t *value)
{
    int rc = json_dumpf(value, f, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(value);
    return rc == 0;
}

/* Streams a graph with one node or edge per line, so files of 10^7 nodes are
 * written without building the whole tree and stay diff-friendly. */
static bool write_graph(FILE *f, const ompdag_condag *g, bool with_header, const char *indent)
{
    json_t *meta = graph_meta_to_json(g, with_header);
    const char *key;
    json_t *val;
    bool ok = fprintf(f, "{") > 0;
    json_object_foreach(meta, key, val)
    {
        ok &= fprintf(f, "\n%s  ", indent) > 0 && put_json(f, json_string(key)) &&
              fprintf(f, ": ") > 0 && put_json(f, json_incref(val)) && fputc(',', f) != EOF;
    }
    json_decref(meta);
    ok &= fprintf(f, "\n%s  \"nodes\": [", indent) > 0;
    for (int32_t v = 0; v < g->n && ok; ++v)
        ok &= fprintf(f, "%s\n%s    ", v ? "," : "", indent) > 0 && put_json(f, node_to_json(g, v));
    ok &= fprintf(f, "\n%s  ],\n%s  \"edges\": [", indent, indent) > 0;
    bool first = true;
    for (int32_t v = 0; v < g->n && ok; ++v)
        for (int32_t i = g->fsucc_off[v]; i < g->fsucc_off[v + 1] && ok; ++i, first = false)
            ok &= fprintf(f, "%s\n%s    ", first ? "" : ",", indent) > 0 &&
                  put_json(f, edge_to_json(g, v, g->fsucc[i]));
    ok &= fprintf(f, "\n%s  ]\n%s}", indent, indent) > 0;
    return ok;
}

static bool write_set(FILE *f, const ompdag_condag_set *s)
{
    bool ok = fprintf(f, "{\n  \"format\": \"" FORMAT_SET "\",\n  \"version\": %d,\n  \"graphs\": [",
                      FORMAT_VERSION) > 0;
    for (size_t i = 0; i < s->n && ok; ++i)
        ok &= fprintf(f, "%s\n    ", i ? "," : "") > 0 && write_graph(f, s->graphs[i], false, "    ");
    return ok && fprintf(f, "\n  ]\n}\n") > 0;
}

ompdag_status ompdag_condag_set_save_file(const ompdag_condag_set *s, const char *path,
                                          bool force_set, ompdag_error *err)
{
    ompdag_atomic_file *af;
    ompdag_status st = ompdag_atomic_file_open(path, &af, err);
    if (st)
        return st;
    FILE *f = ompdag_atomic_file_stream(af);
    bool single = s->n == 1 && s->was_single && !force_set;
    bool ok = single ? write_graph(f, s->graphs[0], true, "") && fputc('\n', f) != EOF
                     : write_set(f, s);
    if (!ok) {
        ompdag_atomic_file_abort(af);
        return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: write failed", path);
    }
    return ompdag_atomic_file_commit(af, err);
}

ompdag_status ompdag_condag_save_file(const ompdag_condag *g, const char *path, ompdag_error *err)
{
    ompdag_condag_set one = {.graphs = (ompdag_condag **)&g, .n = 1, .was_single = true};
    return ompdag_condag_set_save_file(&one, path, false, err);
}

/* ---- sets --------------------------------------------------------------- */

ompdag_condag_set *ompdag_condag_set_create(void)
{
    return calloc(1, sizeof(ompdag_condag_set));
}

void ompdag_condag_set_destroy(ompdag_condag_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; ++i)
        ompdag_condag_destroy(s->graphs[i]);
    free(s->graphs);
    free(s);
}

size_t ompdag_condag_set_count(const ompdag_condag_set *s) { return s->n; }

ompdag_condag *ompdag_condag_set_graph(const ompdag_condag_set *s, size_t i)
{
    return i < s->n ? s->graphs[i] : NULL;
}

bool ompdag_condag_set_was_single(const ompdag_condag_set *s) { return s->was_single; }

ompdag_status ompdag_condag_set_add(ompdag_condag_set *s, ompdag_condag *g, ompdag_error *err)
{
    if (!g->finalized) {
        ompdag_condag_destroy(g);
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "only finalized graphs join a set");
    }
    if (!grow_array((void **)&s->graphs, sizeof *s->graphs, &s->cap, (int64_t)s->n + 1)) {
        ompdag_condag_destroy(g);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    s->graphs[s->n++] = g;
    return OMPDAG_OK;
}
