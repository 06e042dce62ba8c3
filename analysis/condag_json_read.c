/*
 * analysis/condag_json_read.c — reading the con-DAG file formats (docs/condag.md
 * §5): a graph and a set from a jansson tree and the loaders (a file, a
 * buffer).  The buffer loader splits the text with condag_json_scan.c
 * (bulk arrays left to the scanner); a node's and an edge's checks are in
 * condag_json_nodes.c, which both readers call.
 */
#include <errno.h>
#include <string.h>

#include "condag_json_internal.h"
#include "ompdag/fileio.h"

static bool key_in(const char *key, const char *const *keys)
{
    for (; *keys; ++keys)
        if (!strcmp(key, *keys)) return true;
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
        if (key_in(key, known)) continue;
        if (!extra) extra = json_object();
        json_object_set(extra, key, val);
    }
    return extra;
}

static ompdag_status read_loc(const json_t *obj, const char *where, ompdag_loc *loc,
                              ompdag_error *err)
{
    json_t *l = json_object_get(obj, "loc");
    *loc = (ompdag_loc){0};
    if (!l) return OMPDAG_OK;
    int64_t line = 0, col = 0;
    if (!json_is_object(l))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: 'loc' must be an object", where);
    if (!condag_json_opt_string(l, "file", &loc->file))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: 'loc.file' must be a string", where);
    if (!condag_json_opt_int(l, "line", 0, INT32_MAX, &line) ||
        !condag_json_opt_int(l, "col", 0, INT32_MAX, &col))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'loc.line' and 'loc.col' must be non-negative integers",
                                where);
    loc->line = (int32_t)line;
    loc->col = (int32_t)col;
    return OMPDAG_OK;
}

static field json_field(const json_t *v)
{
    if (!v) return (field){F_ABSENT, NULL, 0};
    if (json_is_string(v)) return (field){F_STRING, json_string_value(v), 0};
    if (json_is_integer(v)) return (field){F_INT, NULL, json_integer_value(v)};
    return (field){json_is_object(v) ? F_OBJECT : F_OTHER, NULL, 0};
}

static ompdag_status read_node(ompdag_condag *g, const json_t *obj, const char *gwhere, size_t i,
                               ompdag_error *err)
{
    if (!json_is_object(obj))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: nodes[%zu] must be an object", gwhere,
                                i);
    const json_t *loc = json_object_get(obj, "loc");
    node_fields f = {
        .id = json_field(json_object_get(obj, "id")),
        .task = json_field(json_object_get(obj, "task")),
        .kind = json_field(json_object_get(obj, "kind")),
        .wcet = json_field(json_object_get(obj, "wcet")),
        .creates = json_field(json_object_get(obj, "creates")),
        .label = json_field(json_object_get(obj, "label")),
        .loc = json_field(loc),
        .file = json_field(json_object_get(loc, "file")),
        .line = json_field(json_object_get(loc, "line")),
        .col = json_field(json_object_get(loc, "col")),
        .delay = json_field(json_object_get(obj, "delay")),
        .extra = unknown_keys(obj, condag_json_node_keys),
    };
    ompdag_status st = condag_json_add_node(g, &f, gwhere, i, err);
    json_decref(f.extra);
    return st;
}

/* Adds the edge named by two ids; the messages name edges[i]. */
static ompdag_status read_edges(ompdag_condag *g, const json_t *edges, const char *where,
                                ompdag_error *err)
{
    if (!edges) return OMPDAG_OK;
    if (!json_is_array(edges))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: 'edges' must be an array", where);
    size_t i;
    json_t *e;
    json_array_foreach(edges, i, e)
    {
        json_t *a = json_array_get(e, 0), *b = json_array_get(e, 1);
        if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_string(a) ||
            !json_is_string(b))
            return condag_json_edge_not_a_pair(where, i, err);
        ompdag_status st =
            condag_json_add_edge(g, json_string_value(a), json_string_value(b), where, i, err);
        if (st) return st;
    }
    return OMPDAG_OK;
}

static const char *const graph_keys[] = {"format",  "version",    "name", "function",
                                         "threads", "time_unit",  "loc",  "nodes",
                                         "edges",   "extensions", NULL};

static ompdag_status read_graph_meta(ompdag_condag *g, const json_t *obj, const char *where,
                                     ompdag_error *err)
{
    /* a graph inside a set may repeat the header, but only this version's */
    json_t *version = json_object_get(obj, "version"), *format = json_object_get(obj, "format");
    if (version && (!json_is_integer(version) || json_integer_value(version) != FORMAT_VERSION))
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                "%s: unsupported 'version' (this ompdag reads version %d)", where,
                                FORMAT_VERSION);
    if (format && (!json_is_string(format) || strcmp(json_string_value(format), FORMAT_GRAPH)))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: a graph's 'format' must be \"" FORMAT_GRAPH "\"", where);
    const char *name, *function, *unit;
    if (!condag_json_opt_string(obj, "name", &name) ||
        !condag_json_opt_string(obj, "function", &function) ||
        !condag_json_opt_string(obj, "time_unit", &unit))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'name', 'function' and 'time_unit' must be strings", where);
    int64_t threads = 0;
    if (!condag_json_opt_int(obj, "threads", 1, INT32_MAX, &threads))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: 'threads' must be a positive integer",
                                where);
    ompdag_loc loc;
    ompdag_status st = read_loc(obj, where, &loc, err);
    if (st) return st;
    if (ompdag_condag_assign_name(g, name) || ompdag_condag_assign_function(g, function) ||
        ompdag_condag_assign_time_unit(g, unit) || ompdag_condag_assign_region_loc(g, loc))
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    ompdag_condag_assign_threads(g, (int32_t)threads);
    if ((st = condag_compact_read_meta(g, obj, where, err))) return st;
    json_t *extra = unknown_keys(obj, graph_keys);
    if (extra) {
        ompdag_condag_assign_extra(g, -1, extra);
        json_decref(extra);
    }
    return OMPDAG_OK;
}

static ompdag_status read_graph(ompdag_condag *g, const json_t *obj, const bulk *raw, jscan *s,
                                const char *where, ompdag_error *err)
{
    if (!json_is_object(obj))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: a graph must be a JSON object",
                                where);
    ompdag_status st = read_graph_meta(g, obj, where, err);
    if (st) return st;
    json_t *nodes = json_object_get(obj, "nodes");
    bool raw_nodes = raw && raw->nodes.begin;
    if (!raw_nodes && !json_is_array(nodes))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: missing array 'nodes'", where);
    if (raw_nodes) {
        st = condag_json_scan_nodes(g, s, raw->nodes, where, err);
    } else {
        size_t i;
        json_t *n;
        json_array_foreach(nodes, i, n)
        {
            if ((st = read_node(g, n, where, i, err))) break;
        }
    }
    if (st) return st;
    if (raw && raw->edges.begin)
        st = condag_json_scan_edges(g, s, raw->edges, where, err);
    else
        st = read_edges(g, json_object_get(obj, "edges"), where, err);
    if (st) return st;
    ompdag_error inner;
    if ((st = ompdag_condag_finalize(g, &inner)))
        return ompdag_error_set(err, st, "%s: %s", where, inner.message);
    return OMPDAG_OK;
}

static ompdag_status graph_from(const json_t *obj, const bulk *raw, jscan *s, const char *where,
                                ompdag_condag **out, ompdag_error *err)
{
    ompdag_condag *g = ompdag_condag_create();
    if (!g) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    ompdag_status st = read_graph(g, obj, raw, s, where, err);
    if (st) {
        ompdag_condag_destroy(g);
        return st;
    }
    *out = g;
    return OMPDAG_OK;
}

ompdag_status condag_from_json(const json_t *obj, const char *where, ompdag_condag **out,
                               ompdag_error *err)
{
    return graph_from(obj, NULL, NULL, where, out, err);
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

/* Builds the set from a jansson tree in which, when `raw` is given, the
 * graphs' bulk arrays were left in the text for the scanner `sc`. */
ompdag_status condag_json_set_from(const json_t *root, const bulk *raw, jscan *sc,
                                   const char *origin, ompdag_condag_set *s, ompdag_error *err)
{
    bool is_set = false;
    ompdag_status st = check_header(root, origin, &is_set, err);
    if (st) return st;
    s->was_single = !is_set;
    if (!is_set) {
        ompdag_condag *g = NULL;
        if ((st = graph_from(root, raw, sc, origin, &g, err))) return st;
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
        if (!name) name = json_string_value(json_object_get(obj, "function"));
        snprintf(where, sizeof where, "%s: graphs[%zu]%s%s%s", origin, i, name ? " ('" : "",
                 name ? name : "", name ? "')" : "");
        ompdag_condag *g = NULL;
        if ((st = graph_from(obj, raw ? &raw[i + 1] : NULL, sc, where, &g, err)) ||
            (st = ompdag_condag_set_add(s, g, err)))
            return st;
    }
    return OMPDAG_OK;
}

/* The same load with jansson reading everything: the reference that the
 * scanner path is tested against (tests/analysis/test_loader_diff.c). */
ompdag_status condag_set_load_buffer_jansson(const char *text, size_t len, const char *origin,
                                             ompdag_condag_set **out, ompdag_error *err)
{
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%d:%d: JSON syntax error: %s", origin,
                                je.line, je.column, je.text);
    ompdag_condag_set *s = ompdag_condag_set_create();
    ompdag_status st = s ? condag_json_set_from(root, NULL, NULL, origin, s, err)
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
        if (n < cap) break;
        char *nb = realloc(b, cap *= 2);
        if (!nb) free(b);
        b = nb;
    }
    if (!b) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "%s: out of memory", path);
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
    if (!is_stdin) fclose(f);
    if (st) return st;
    st = ompdag_condag_set_load_buffer(buf, len, is_stdin ? "<stdin>" : path, out, err);
    free(buf);
    return st;
}

ompdag_status ompdag_condag_set_load_buffer(const char *text, size_t len, const char *origin,
                                            ompdag_condag_set **out, ompdag_error *err)
{
    jscan sc = {.base = text, .p = text, .end = text + len, .origin = origin};
    json_t *root = NULL;
    bulk *raw = NULL;
    ompdag_condag_set *s = NULL;
    ompdag_status st = condag_json_split(&sc, &root, &raw, err);
    if (!st && !(s = ompdag_condag_set_create()))
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!st) st = condag_json_set_from(root, raw, &sc, origin, s, err);
    json_decref(root);
    free(raw);
    free(sc.scratch);
    if (st) {
        ompdag_condag_set_destroy(s);
        return st;
    }
    *out = s;
    return OMPDAG_OK;
}
