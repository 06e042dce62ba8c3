/*
 * analysis/condag_json.c — the `ompdag-condag` v1 and `ompdag-condag-set` v1
 * file formats (docs/condag.md §5), read and written with jansson.
 *
 * Every field error names the graph, the node (by index and id) or edge and
 * the field; syntax errors carry jansson's line and column.  Unknown keys are
 * kept as "extras" and written back, so tools further down the pipeline (the
 * probe's annotate, reports) can add keys without breaking older readers.
 */
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "condag_jsonscan.h"
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

/* Reads an optional string field; false (with message) on a wrong type. */
static bool opt_string(const json_t *obj, const char *key, const char **out)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v) return true;
    if (!json_is_string(v)) return false;
    *out = json_string_value(v);
    return true;
}

static bool opt_int(const json_t *obj, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v) return true;
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
    if (!l) return OMPDAG_OK;
    int64_t line = 0, col = 0;
    if (!json_is_object(l))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: 'loc' must be an object", where);
    if (!opt_string(l, "file", &loc->file))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: 'loc.file' must be a string", where);
    if (!opt_int(l, "line", 0, INT32_MAX, &line) || !opt_int(l, "col", 0, INT32_MAX, &col))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'loc.line' and 'loc.col' must be non-negative integers",
                                where);
    loc->line = (int32_t)line;
    loc->col = (int32_t)col;
    return OMPDAG_OK;
}

static const char *const node_keys[] = {"id",  "task",  "kind",  "wcet", "creates",
                                        "loc", "label", "delay", NULL};

/* A node's fields as read from either reader (jansson or the scanner), so
 * both share one set of checks and messages. */
enum { F_ABSENT, F_STRING, F_INT, F_OBJECT, F_OTHER };

typedef struct field {
    int type;
    const char *s;
    int64_t i;
} field;

typedef struct node_fields {
    field id, task, kind, wcet, creates, label, loc, file, line, col;
    field delay;   /* the "delays" extension (docs/overheads.md) */
    json_t *extra; /* unknown keys, owned */
} node_fields;

static bool nonempty_string(const field *f)
{
    return f->type == F_STRING && *f->s;
}

static bool opt_string_field(const field *f)
{
    return f->type == F_ABSENT || f->type == F_STRING;
}

static bool opt_count_field(const field *f)
{
    return f->type == F_ABSENT || (f->type == F_INT && f->i >= 0 && f->i <= INT32_MAX);
}

/* OMPDAG_ERR_INVALID when `loc` is not an object of the right field types. */
static ompdag_status node_loc(const node_fields *f, ompdag_loc *loc)
{
    *loc = (ompdag_loc){0};
    if (f->loc.type == F_ABSENT) return OMPDAG_OK;
    if (f->loc.type != F_OBJECT || !opt_string_field(&f->file) || !opt_count_field(&f->line) ||
        !opt_count_field(&f->col))
        return OMPDAG_ERR_INVALID;
    *loc = (ompdag_loc){f->file.type == F_STRING ? f->file.s : NULL,
                        f->line.type == F_INT ? (int32_t)f->line.i : 0,
                        f->col.type == F_INT ? (int32_t)f->col.i : 0};
    return OMPDAG_OK;
}

/* "graph: node 'id' (nodes[i])", formatted only when an error needs it. */
static const char *node_where(char *buf, size_t size, const char *gwhere, const node_fields *f,
                              size_t i)
{
    snprintf(buf, size, "%s: node '%s' (nodes[%zu])", gwhere, f->id.s, i);
    return buf;
}

static ompdag_status node_spec_from(const node_fields *f, const char *gwhere, size_t i,
                                    ompdag_node_spec *s, ompdag_error *err)
{
    char w[256];
    if (!nonempty_string(&f->id))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: nodes[%zu]: 'id' must be a non-empty string", gwhere, i);
    *s = (ompdag_node_spec){.id = f->id.s};
    if (!nonempty_string(&f->task))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: 'task' must be a non-empty string",
                                node_where(w, sizeof w, gwhere, f, i));
    s->task = f->task.s;
    if (f->kind.type != F_STRING || strlen(f->kind.s) != 1 || !strchr("NTWCJ", f->kind.s[0]))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'kind' must be one of \"N\", \"T\", \"W\", \"C\", \"J\"",
                                node_where(w, sizeof w, gwhere, f, i));
    s->kind = (ompdag_kind)f->kind.s[0];
    if (f->wcet.type != F_INT || f->wcet.i < 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'wcet' must be a non-negative integer",
                                node_where(w, sizeof w, gwhere, f, i));
    s->wcet = f->wcet.i;
    if (!opt_string_field(&f->creates) || !opt_string_field(&f->label))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'creates' and 'label' must be strings",
                                node_where(w, sizeof w, gwhere, f, i));
    s->creates = f->creates.type == F_STRING ? f->creates.s : NULL;
    s->label = f->label.type == F_STRING ? f->label.s : NULL;
    ompdag_status st = node_loc(f, &s->loc);
    if (st)
        return ompdag_error_set(err, st,
                                st == OMPDAG_ERR_INVALID && f->loc.type != F_OBJECT
                                    ? "%s: 'loc' must be an object"
                                : f->file.type != F_ABSENT && f->file.type != F_STRING
                                    ? "%s: 'loc.file' must be a string"
                                    : "%s: 'loc.line' and 'loc.col' must be non-negative integers",
                                node_where(w, sizeof w, gwhere, f, i));
    return OMPDAG_OK;
}

/* A node's "delay": only under the "delays" extension, since a reader that
 * ignored the key would compute a bound too low. */
static ompdag_status node_delay(ompdag_condag *g, const node_fields *f, const char *gwhere,
                                size_t i, int32_t v, ompdag_error *err)
{
    char w[256];
    if (f->delay.type == F_ABSENT) return OMPDAG_OK;
    if (!g->delays_declared)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'delay' needs the graph key \"extensions\": [\"delays\"] "
                                "(older readers must refuse the file, not ignore the delays)",
                                node_where(w, sizeof w, gwhere, f, i));
    if (f->delay.type != F_INT || f->delay.i < 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'delay' must be a non-negative integer (a dispatch delay in "
                                "the graph's time unit)",
                                node_where(w, sizeof w, gwhere, f, i));
    ompdag_error inner;
    ompdag_status st = ompdag_condag_set_delay(g, v, f->delay.i, &inner);
    return st ? ompdag_error_set(err, st, "%s: %s", gwhere, inner.message) : OMPDAG_OK;
}

static ompdag_status add_node_fields(ompdag_condag *g, const node_fields *f, const char *gwhere,
                                     size_t i, ompdag_error *err)
{
    ompdag_node_spec s;
    ompdag_status st = node_spec_from(f, gwhere, i, &s, err);
    if (st) return st;
    ompdag_error inner;
    int32_t v;
    if ((st = ompdag_condag_add_node(g, &s, &v, &inner)))
        return ompdag_error_set(err, st, "%s: %s", gwhere, inner.message);
    if ((st = node_delay(g, f, gwhere, i, v, err))) return st;
    return f->extra ? ompdag_condag_set_extra(g, v, f->extra) : OMPDAG_OK;
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
        .extra = unknown_keys(obj, node_keys),
    };
    ompdag_status st = add_node_fields(g, &f, gwhere, i, err);
    json_decref(f.extra);
    return st;
}

/* Adds the edge named by two ids; the messages name edges[i]. */
static ompdag_status add_edge_ids(ompdag_condag *g, const char *a, const char *b, const char *where,
                                  size_t i, ompdag_error *err)
{
    int32_t from = ompdag_condag_find_node(g, a);
    int32_t to = ompdag_condag_find_node(g, b);
    if (from < 0 || to < 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: edges[%zu]: unknown node '%s'", where,
                                i, from < 0 ? a : b);
    ompdag_error inner;
    ompdag_status st = ompdag_condag_add_edge(g, from, to, &inner);
    if (st) return ompdag_error_set(err, st, "%s: edges[%zu]: %s", where, i, inner.message);
    return OMPDAG_OK;
}

static ompdag_status edge_not_a_pair(const char *where, size_t i, ompdag_error *err)
{
    return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                            "%s: edges[%zu] must be a pair of node ids [\"from\", \"to\"]", where,
                            i);
}

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
            return edge_not_a_pair(where, i, err);
        ompdag_status st =
            add_edge_ids(g, json_string_value(a), json_string_value(b), where, i, err);
        if (st) return st;
    }
    return OMPDAG_OK;
}

/* ---- the scanner path for the bulk arrays ---------------------------------- */

/* Where a graph's "nodes" and "edges" arrays lie in the text, when the
 * scanner (not jansson) is to read them. */
typedef struct bulk {
    jspan nodes, edges;
} bulk;

static ompdag_status scan_field(jscan *s, field *f, ompdag_error *err)
{
    jscan_ws(s);
    const char *at = s->p;
    if (at < s->end && *at == '"') {
        size_t off;
        ompdag_status st = jscan_string(s, &off, err);
        *f = (field){F_STRING, NULL, (int64_t)off}; /* resolved once the object is read */
        return st;
    }
    if (at < s->end && (*at == '-' || (*at >= '0' && *at <= '9'))) {
        bool is_int;
        int64_t v;
        ompdag_status st = jscan_number(s, &is_int, &v, err);
        *f = (field){is_int ? F_INT : F_OTHER, NULL, v};
        return st;
    }
    *f = (field){at < s->end && *at == '{' ? F_OBJECT : F_OTHER, NULL, 0};
    return jscan_skip_value(s, err);
}

static void resolve(const jscan *s, field *f)
{
    if (f->type == F_STRING) f->s = jscan_str(s, (size_t)f->i);
}

/* Parses [start, s->p) with jansson; on failure *st names jansson's reason
 * (duplicate key, nesting too deep, number out of range) at its position. */
static json_t *load_span(jscan *s, const char *start, size_t flags, ompdag_status *st,
                         ompdag_error *err)
{
    json_error_t je;
    json_t *v = json_loadb(start, (size_t)(s->p - start), flags | JSON_REJECT_DUPLICATES, &je);
    if (!v) {
        const char *at =
            je.position > 0 && je.position <= s->p - start ? start + je.position - 1 : start;
        *st = jscan_fail(s, at, err, je.text[0] ? je.text : "invalid value");
    }
    return v;
}

/* Keeps one unknown key's value (parsed by jansson) among the extras. */
static ompdag_status scan_extra(jscan *s, node_fields *f, const char *key, const char *key_at,
                                ompdag_error *err)
{
    jscan_ws(s);
    const char *start = s->p;
    ompdag_status st = jscan_skip_value(s, err);
    if (st) return st;
    json_t *v = load_span(s, start, JSON_DECODE_ANY, &st, err);
    if (!v) return st;
    if (!f->extra) f->extra = json_object();
    if (json_object_get(f->extra, key)) {
        json_decref(v);
        return jscan_fail(s, key_at, err, "duplicate object key");
    }
    json_object_set_new(f->extra, key, v);
    return OMPDAG_OK;
}

/* Reads the object at s->p, calling `on_key` for each key; the key string
 * stays valid (in scratch) during the call. */
typedef ompdag_status (*key_handler)(jscan *s, void *ctx, const char *key, const char *key_at,
                                     ompdag_error *err);

static ompdag_status scan_object(jscan *s, key_handler on_key, void *ctx, ompdag_error *err)
{
    jscan_ws(s);
    if (s->p >= s->end || *s->p != '{') return jscan_fail(s, s->p, err, "expected '{'");
    s->p++;
    jscan_ws(s);
    if (s->p < s->end && *s->p == '}') return s->p++, OMPDAG_OK;
    for (;;) {
        jscan_ws(s);
        const char *key_at = s->p;
        size_t off;
        ompdag_status st = jscan_string(s, &off, err);
        if (st) return st;
        jscan_ws(s);
        if (s->p >= s->end || *s->p != ':') return jscan_fail(s, s->p, err, "expected ':'");
        s->p++;
        if ((st = on_key(s, ctx, jscan_str(s, off), key_at, err))) return st;
        jscan_ws(s);
        if (s->p < s->end && *s->p == ',') {
            s->p++;
            continue;
        }
        if (s->p < s->end && *s->p == '}') return s->p++, OMPDAG_OK;
        return jscan_fail(s, s->p, err, "expected ',' or '}'");
    }
}

typedef struct loc_ctx {
    node_fields *f;
    unsigned seen;
    json_t *others; /* names of other keys, for duplicate detection */
} loc_ctx;

static ompdag_status on_loc_key(jscan *s, void *ctx, const char *key, const char *key_at,
                                ompdag_error *err)
{
    loc_ctx *c = ctx;
    static const char *const keys[] = {"file", "line", "col"};
    field *slots[] = {&c->f->file, &c->f->line, &c->f->col};
    for (int k = 0; k < 3; ++k)
        if (!strcmp(key, keys[k])) {
            if (c->seen & (1u << k)) return jscan_fail(s, key_at, err, "duplicate object key");
            c->seen |= 1u << k;
            return scan_field(s, slots[k], err);
        }
    if (!c->others) c->others = json_object();
    if (json_object_get(c->others, key)) return jscan_fail(s, key_at, err, "duplicate object key");
    json_object_set_new(c->others, key, json_true());
    return jscan_skip_value(s, err);
}

typedef struct node_ctx {
    node_fields *f;
    unsigned seen;
} node_ctx;

static ompdag_status on_node_key(jscan *s, void *ctx, const char *key, const char *key_at,
                                 ompdag_error *err)
{
    node_ctx *c = ctx;
    node_fields *f = c->f;
    field *slots[] = {&f->id,      &f->task, &f->kind,  &f->wcet,
                      &f->creates, &f->loc,  &f->label, &f->delay};
    for (int k = 0; node_keys[k]; ++k) {
        if (strcmp(key, node_keys[k])) continue;
        if (c->seen & (1u << k)) return jscan_fail(s, key_at, err, "duplicate object key");
        c->seen |= 1u << k;
        jscan_ws(s);
        if (slots[k] == &f->loc && s->p < s->end && *s->p == '{') {
            f->loc.type = F_OBJECT;
            loc_ctx lc = {f, 0, NULL};
            ompdag_status st = scan_object(s, on_loc_key, &lc, err);
            json_decref(lc.others);
            return st;
        }
        return scan_field(s, slots[k], err);
    }
    char *name = strdup(key); /* scanning the value may move the scratch buffer */
    ompdag_status st = name ? scan_extra(s, f, name, key_at, err)
                            : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    free(name);
    return st;
}

static ompdag_status scan_node(ompdag_condag *g, jscan *s, const char *gwhere, size_t i,
                               ompdag_error *err)
{
    jscan_ws(s);
    if (s->p >= s->end || *s->p != '{') {
        ompdag_status st = jscan_skip_value(s, err);
        return st ? st
                  : ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: nodes[%zu] must be an object",
                                     gwhere, i);
    }
    node_fields f;
    memset(&f, 0, sizeof f);
    node_ctx c = {&f, 0};
    s->scratch_len = 0;
    ompdag_status st = scan_object(s, on_node_key, &c, err);
    if (!st) {
        field *all[] = {&f.id,    &f.task, &f.kind, &f.wcet, &f.creates,
                        &f.label, &f.file, &f.line, &f.col,  &f.delay};
        for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k)
            resolve(s, all[k]);
        st = add_node_fields(g, &f, gwhere, i, err);
    }
    json_decref(f.extra);
    return st;
}

/* Iterates the elements of the array spanning `span`. */
typedef ompdag_status (*element_handler)(ompdag_condag *g, jscan *s, const char *where, size_t i,
                                         ompdag_error *err);

static ompdag_status scan_array(ompdag_condag *g, jscan *s, jspan span, element_handler each,
                                const char *where, ompdag_error *err)
{
    s->p = span.begin + 1; /* past '[' (the span was syntax-checked already) */
    jscan_ws(s);
    if (*s->p == ']') return OMPDAG_OK;
    for (size_t i = 0;; ++i) {
        ompdag_status st = each(g, s, where, i, err);
        if (st) return st;
        jscan_ws(s);
        if (*s->p++ == ']') return OMPDAG_OK;
    }
}

static ompdag_status scan_edge(ompdag_condag *g, jscan *s, const char *where, size_t i,
                               ompdag_error *err)
{
    jscan_ws(s);
    const char *start = s->p;
    size_t a, b;
    s->scratch_len = 0;
    bool pair = *s->p == '[';
    if (pair) {
        s->p++;
        jscan_ws(s);
        pair = *s->p == '"' && !jscan_string(s, &a, NULL);
        jscan_ws(s);
        pair = pair && *s->p++ == ',';
        jscan_ws(s);
        pair = pair && *s->p == '"' && !jscan_string(s, &b, NULL);
        jscan_ws(s);
        pair = pair && *s->p++ == ']';
    }
    if (!pair) {
        s->p = start;
        ompdag_status st = jscan_skip_value(s, err);
        return st ? st : edge_not_a_pair(where, i, err);
    }
    return add_edge_ids(g, jscan_str(s, a), jscan_str(s, b), where, i, err);
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
    if (!opt_string(obj, "name", &name) || !opt_string(obj, "function", &function) ||
        !opt_string(obj, "time_unit", &unit))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: 'name', 'function' and 'time_unit' must be strings", where);
    int64_t threads = 0;
    if (!opt_int(obj, "threads", 1, INT32_MAX, &threads))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: 'threads' must be a positive integer",
                                where);
    ompdag_loc loc;
    ompdag_status st = read_loc(obj, where, &loc, err);
    if (st) return st;
    if (ompdag_condag_set_name(g, name) || ompdag_condag_set_function(g, function) ||
        ompdag_condag_set_time_unit(g, unit) || ompdag_condag_set_region_loc(g, loc))
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    ompdag_condag_set_threads(g, (int32_t)threads);
    if ((st = condag_compact_read_meta(g, obj, where, err))) return st;
    json_t *extra = unknown_keys(obj, graph_keys);
    if (extra) {
        ompdag_condag_set_extra(g, -1, extra);
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
        st = scan_array(g, s, raw->nodes, scan_node, where, err);
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
        st = scan_array(g, s, raw->edges, scan_edge, where, err);
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
static ompdag_status set_from(const json_t *root, const bulk *raw, jscan *sc, const char *origin,
                              ompdag_condag_set *s, ompdag_error *err)
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

/* ---- splitting a file: jansson for the small parts, the scanner for bulk -- */

typedef struct split {
    bulk *raw; /* raw[0]: the top-level graph; raw[i+1]: graphs[i] */
    int64_t nraw, cap;
    jspan graphs; /* the top-level "graphs" array, if any */
} split;

typedef struct split_ctx {
    json_t *obj;
    bulk *b;
    bool top;
    split *sp;
} split_ctx;

static ompdag_status split_object(jscan *s, split_ctx *c, ompdag_error *err);

static bool next_raw(split *sp)
{
    if (!grow_array((void **)&sp->raw, sizeof *sp->raw, &sp->cap, sp->nraw + 1)) return false;
    sp->raw[sp->nraw++] = (bulk){{0}, {0}};
    return true;
}

/* Splits each graph of the top-level "graphs" array. */
static ompdag_status split_graphs(jscan *s, split *sp, json_t *arr, ompdag_error *err)
{
    sp->graphs.begin = s->p;
    s->p++;
    jscan_ws(s);
    if (s->p < s->end && *s->p == ']') {
        s->p++;
        sp->graphs.end = s->p;
        return OMPDAG_OK;
    }
    for (;;) {
        jscan_ws(s);
        int64_t slot = sp->nraw;
        if (!next_raw(sp)) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        const char *start = s->p;
        ompdag_status st;
        json_t *elem = NULL;
        if (s->p < s->end && *s->p == '{') {
            elem = json_object();
            split_ctx c = {elem, NULL, false, sp};
            bulk b = {{0}, {0}};
            c.b = &b;
            st = split_object(s, &c, err);
            sp->raw[slot] = b; /* sp->raw may have moved: index, never pointer */
        } else {
            st = jscan_skip_value(s, err);
            if (!st) elem = load_span(s, start, JSON_DECODE_ANY, &st, err);
        }
        json_array_append_new(arr, elem);
        if (st) return st;
        jscan_ws(s);
        if (s->p < s->end && *s->p == ',') {
            s->p++;
            continue;
        }
        if (s->p < s->end && *s->p == ']') {
            s->p++;
            sp->graphs.end = s->p;
            return OMPDAG_OK;
        }
        return jscan_fail(s, s->p, err, "expected ',' or ']'");
    }
}

static ompdag_status on_split_key(jscan *s, void *ctx, const char *key_in, const char *key_at,
                                  ompdag_error *err)
{
    split_ctx *c = ctx;
    char *key = strdup(key_in); /* the scratch buffer may move while the value is read */
    if (!key) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    jscan_ws(s);
    const char *start = s->p;
    bool array = s->p < s->end && *s->p == '[';
    jspan *bulk_span = !array || !c->b         ? NULL
                       : !strcmp(key, "nodes") ? &c->b->nodes
                       : !strcmp(key, "edges") ? &c->b->edges
                                               : NULL;
    ompdag_status st = OMPDAG_OK;
    if (json_object_get(c->obj, key) || (bulk_span && bulk_span->begin)) {
        st = jscan_fail(s, key_at, err, "duplicate object key");
    } else if (bulk_span) {
        if (!(st = jscan_skip_value(s, err))) *bulk_span = (jspan){start, s->p};
    } else if (array && c->top && !strcmp(key, "graphs")) {
        json_t *arr = json_array();
        json_object_set_new(c->obj, key, arr);
        st = split_graphs(s, c->sp, arr, err);
    } else if (!(st = jscan_skip_value(s, err))) {
        json_t *v = load_span(s, start, JSON_DECODE_ANY, &st, err);
        json_object_set_new(c->obj, key, v);
    }
    free(key);
    return st;
}

static ompdag_status split_object(jscan *s, split_ctx *c, ompdag_error *err)
{
    return scan_object(s, on_split_key, c, err);
}

/* A file whose format turned out to be a single graph keeps any "graphs"
 * key as an unknown key, so it is re-read whole by jansson. */
static ompdag_status unsplit_graphs(jscan *s, json_t *root, const split *sp, ompdag_error *err)
{
    if (!sp->graphs.begin) return OMPDAG_OK;
    jscan span = *s;
    span.p = sp->graphs.end;
    ompdag_status st = OMPDAG_OK;
    json_t *v = load_span(&span, sp->graphs.begin, 0, &st, err);
    if (!v) return st;
    json_object_set_new(root, "graphs", v);
    return OMPDAG_OK;
}

/* Splits the whole text into a jansson tree plus bulk spans, checking the
 * syntax of all of it. */
static ompdag_status split_text(jscan *s, json_t **root, split *sp, ompdag_error *err)
{
    jscan_ws(s);
    const char *start = s->p;
    ompdag_status st;
    if (!next_raw(sp)) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (s->p < s->end && *s->p == '{') {
        split_ctx c = {json_object(), NULL, true, sp};
        bulk top = {{0}, {0}};
        c.b = &top;
        *root = c.obj;
        st = split_object(s, &c, err);
        sp->raw[0] = top;
    } else {
        st = jscan_skip_value(s, err);
        if (!st) *root = load_span(s, start, JSON_DECODE_ANY, &st, err);
    }
    if (st) return st;
    jscan_ws(s);
    if (s->p != s->end) return jscan_fail(s, s->p, err, "end of file expected");
    return OMPDAG_OK;
}

ompdag_status ompdag_condag_set_load_buffer(const char *text, size_t len, const char *origin,
                                            ompdag_condag_set **out, ompdag_error *err)
{
    jscan sc = {.base = text, .p = text, .end = text + len, .origin = origin};
    split sp = {0};
    json_t *root = NULL;
    ompdag_condag_set *s = NULL;
    ompdag_status st = split_text(&sc, &root, &sp, err);
    if (!st && !(s = ompdag_condag_set_create()))
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!st) {
        bool is_set = json_is_object(root) && json_is_string(json_object_get(root, "format")) &&
                      !strcmp(json_string_value(json_object_get(root, "format")), FORMAT_SET);
        if (!is_set && json_is_object(root)) st = unsplit_graphs(&sc, root, &sp, err);
        if (!st) st = set_from(root, sp.raw, &sc, origin, s, err);
    }
    json_decref(root);
    free(sp.raw);
    free(sc.scratch);
    if (st) {
        ompdag_condag_set_destroy(s);
        return st;
    }
    *out = s;
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
    ompdag_status st = s ? set_from(root, NULL, NULL, origin, s, err)
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

/* ---- writing ------------------------------------------------------------ */

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
    for (int32_t i = 0; i < ompdag_condag_node_depend_count(g, v); ++i)
        json_array_append_new(
            a, json_pack("{s:s,s:s}", "type",
                         ompdag_dep_type_name(ompdag_condag_node_depend_type(g, v, i)), "var",
                         ompdag_condag_depend_var_name(g, ompdag_condag_node_depend_var(g, v, i))));
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

/* ---- sets --------------------------------------------------------------- */

ompdag_condag_set *ompdag_condag_set_create(void)
{
    return calloc(1, sizeof(ompdag_condag_set));
}

void ompdag_condag_set_destroy(ompdag_condag_set *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n; ++i)
        ompdag_condag_destroy(s->graphs[i]);
    free(s->graphs);
    free(s);
}

size_t ompdag_condag_set_count(const ompdag_condag_set *s)
{
    return s->n;
}

ompdag_condag *ompdag_condag_set_graph(const ompdag_condag_set *s, size_t i)
{
    return i < s->n ? s->graphs[i] : NULL;
}

bool ompdag_condag_set_was_single(const ompdag_condag_set *s)
{
    return s->was_single;
}

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
