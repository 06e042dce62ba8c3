/*
 * analysis/condag_json_nodes.c — one node and one edge of a con-DAG file
 * (docs/condag.md §5): every field's check and message, the node's delay
 * and extras, and adding them to the graph.  Both readers fill a node's
 * fields (the jansson one, condag_json_read.c, and the scanner,
 * condag_json_scan.c) and add it here, so neither calls the other.
 */
#include <errno.h>
#include <string.h>

#include "condag_json_internal.h"

/* Reads an optional string field; false (with message) on a wrong type. */
bool condag_json_opt_string(const json_t *obj, const char *key, const char **out)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v) return true;
    if (!json_is_string(v)) return false;
    *out = json_string_value(v);
    return true;
}

bool condag_json_opt_int(const json_t *obj, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v) return true;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return false;
    *out = json_integer_value(v);
    return true;
}

const char *const condag_json_node_keys[] = {"id",  "task",  "kind",  "wcet", "creates",
                                             "loc", "label", "delay", NULL};

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
    ompdag_status st = ompdag_condag_assign_delay(g, v, f->delay.i, &inner);
    return st ? ompdag_error_set(err, st, "%s: %s", gwhere, inner.message) : OMPDAG_OK;
}

ompdag_status condag_json_add_node(ompdag_condag *g, const node_fields *f, const char *gwhere,
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
    return f->extra ? ompdag_condag_assign_extra(g, v, f->extra) : OMPDAG_OK;
}

ompdag_status condag_json_add_edge(ompdag_condag *g, const char *a, const char *b,
                                   const char *where, size_t i, ompdag_error *err)
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

ompdag_status condag_json_edge_not_a_pair(const char *where, size_t i, ompdag_error *err)
{
    return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                            "%s: edges[%zu] must be a pair of node ids [\"from\", \"to\"]", where,
                            i);
}

/* A W node absent from `depend` (the input's clauses name T nodes only) loses
 * its partial-taskwait items: its vars would not match the input's, so it
 * waits as a full taskwait, which waits for more (sound). */
bool condag_json_node_depend_from(json_t *node, const json_t *depend)
{
    if (!depend) return true;
    json_t *list = json_object_get(depend, json_string_value(json_object_get(node, "id")));
    json_object_del(node, "depend");
    return !list || json_object_set(node, "depend", list) == 0;
}
