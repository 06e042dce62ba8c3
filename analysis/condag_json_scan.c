/*
 * analysis/condag_json_scan.c — loading a con-DAG file fast: the text is
 * split into a jansson tree for the small parts and spans for each graph's
 * bulk "nodes" and "edges" arrays, which the scanner (condag_jsonscan.h) reads
 * without building jansson values (condag_json_split, which the loader in
 * condag_json_read.c calls); a node's checks are condag_json_nodes.c's.
 */
#include <string.h>

#include "condag_json_internal.h"

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
    for (int k = 0; condag_json_node_keys[k]; ++k) {
        if (strcmp(key, condag_json_node_keys[k])) continue;
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
        st = condag_json_add_node(g, &f, gwhere, i, err);
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
        return st ? st : condag_json_edge_not_a_pair(where, i, err);
    }
    return condag_json_add_edge(g, jscan_str(s, a), jscan_str(s, b), where, i, err);
}

ompdag_status condag_json_scan_nodes(ompdag_condag *g, jscan *s, jspan span, const char *where,
                                     ompdag_error *err)
{
    return scan_array(g, s, span, scan_node, where, err);
}

ompdag_status condag_json_scan_edges(ompdag_condag *g, jscan *s, jspan span, const char *where,
                                     ompdag_error *err)
{
    return scan_array(g, s, span, scan_edge, where, err);
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

ompdag_status condag_json_split(jscan *sc, json_t **root, bulk **raw, ompdag_error *err)
{
    split sp = {0};
    *root = NULL;
    ompdag_status st = split_text(sc, root, &sp, err);
    if (!st) {
        bool is_set = json_is_object(*root) && json_is_string(json_object_get(*root, "format")) &&
                      !strcmp(json_string_value(json_object_get(*root, "format")), FORMAT_SET);
        if (!is_set && json_is_object(*root)) st = unsplit_graphs(sc, *root, &sp, err);
    }
    *raw = sp.raw;
    return st;
}
