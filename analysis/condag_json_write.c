/*
 * analysis/condag_json_write.c — writing the con-DAG file formats
 * (docs/condag.md §5): a graph as a jansson tree, and the streaming writer
 * that saves files one node or edge per line.
 */
#include "condag_json_internal.h"
#include "ompdag/compact.h"
#include "ompdag/fileio.h"

static json_t *loc_to_json(ompdag_loc loc)
{
    json_t *l = json_object();
    if (loc.file) json_object_set_new(l, "file", json_string(loc.file));
    if (loc.line) json_object_set_new(l, "line", json_integer(loc.line));
    if (loc.col) json_object_set_new(l, "col", json_integer(loc.col));
    return l;
}

/* The clauses of T node v (§6), as the file key "depend". */
static json_t *depend_to_json(const ompdag_condag *g, int32_t v)
{
    json_t *a = json_array();
    for (int32_t i = 0; i < ompdag_condag_node_depend_count(g, v); ++i) {
        json_t *c = json_pack(
            "{s:s,s:s}", "type", ompdag_dep_type_name(ompdag_condag_node_depend_type(g, v, i)),
            "var", ompdag_condag_depend_var_name(g, ompdag_condag_node_depend_var(g, v, i)));
        int32_t loop;
        int64_t off;
        if (c && ompdag_condag_node_depend_index(g, v, i, &loop, &off)) /* docs/compact.md */
            json_object_set_new(
                c, "index",
                json_pack("{s:s,s:I}", "loop", node_name(g, loop), "offset", (json_int_t)off));
        json_array_append_new(a, c);
    }
    return a;
}

static json_t *node_to_json(const ompdag_condag *g, int32_t v)
{
    json_t *o = json_object();
    char kind[2] = {(char)g->kind[v], 0};
    json_object_set_new(o, "id", json_string(node_name(g, v)));
    json_object_set_new(o, "task", json_string(task_name(g, g->node_task[v])));
    json_object_set_new(o, "kind", json_string(kind));
    json_object_set_new(o, "wcet", json_integer(g->wcet[v]));
    if (g->delay && g->delay[v]) json_object_set_new(o, "delay", json_integer(g->delay[v]));
    if (g->creates[v] >= 0)
        json_object_set_new(o, "creates", json_string(task_name(g, g->creates[v])));
    ompdag_loc loc = ompdag_condag_node_loc(g, v);
    if (loc.file || loc.line || loc.col) json_object_set_new(o, "loc", loc_to_json(loc));
    if (g->label[v] >= 0)
        json_object_set_new(o, "label", json_string(ompdag_condag_node_label(g, v)));
    if (ompdag_condag_node_depend_count(g, v))
        json_object_set_new(o, "depend", depend_to_json(g, v));
    json_t *locks = condag_locks_to_json(g, v); /* docs/mutex.md */
    if (locks) json_object_set_new(o, "locks", locks);
    if (g->extra && g->extra[v]) json_object_update_missing(o, g->extra[v]);
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
    if ((s = ompdag_condag_name(g))) json_object_set_new(o, "name", json_string(s));
    if ((s = ompdag_condag_function(g))) json_object_set_new(o, "function", json_string(s));
    if (g->threads) json_object_set_new(o, "threads", json_integer(g->threads));
    if (g->time_unit >= 0)
        json_object_set_new(o, "time_unit", json_string(ompdag_condag_time_unit(g)));
    ompdag_loc loc = ompdag_condag_region_loc(g);
    if (loc.file || loc.line) json_object_set_new(o, "loc", loc_to_json(loc));
    condag_compact_write_meta(g, o);
    if (g->graph_extra) json_object_update_missing(o, g->graph_extra);
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
    bool ok =
        fprintf(f, "{\n  \"format\": \"" FORMAT_SET "\",\n  \"version\": %d,\n  \"graphs\": [",
                FORMAT_VERSION) > 0;
    for (size_t i = 0; i < s->n && ok; ++i)
        ok &=
            fprintf(f, "%s\n    ", i ? "," : "") > 0 && write_graph(f, s->graphs[i], false, "    ");
    return ok && fprintf(f, "\n  ]\n}\n") > 0;
}

ompdag_status ompdag_condag_set_save_file(const ompdag_condag_set *s, const char *path,
                                          bool force_set, ompdag_error *err)
{
    ompdag_atomic_file *af;
    ompdag_status st = ompdag_atomic_file_open(path, &af, err);
    if (st) return st;
    FILE *f = ompdag_atomic_file_stream(af);
    bool single = s->n == 1 && s->was_single && !force_set;
    bool ok =
        single ? write_graph(f, s->graphs[0], true, "") && fputc('\n', f) != EOF : write_set(f, s);
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
