/*
 * analysis/condag_build.c — lifecycle and builder of the con-DAG
 * (include/ompdag/condag.h): create, nodes, edges, the graph's and nodes'
 * values, finalize.  The read side (accessors, extras, the root) is
 * condag_access.c, which the validation and compact steps share;
 * structural validation lives in condag_validate.c, the file format in
 * condag_json.c.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "condag_loops.h"
#include "internal.h"
#include "ompdag/internal/condag_csr.h"

ompdag_condag *ompdag_condag_create(void)
{
    ompdag_condag *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->name = g->function = g->time_unit = g->region_file = NO_STR;
    g->root = -1;
    return g;
}

void ompdag_condag_destroy(ompdag_condag *g)
{
    if (!g) return;
    if (g->extra)
        for (int32_t v = 0; v < g->n; ++v)
            json_decref(g->extra[v]);
    json_decref(g->graph_extra);
    void *arrays[] = {g->node_id,   g->node_task,    g->kind,      g->wcet,    g->creates_str,
                      g->creates,   g->loc_file,     g->loc_line,  g->loc_col, g->label,
                      g->extra,     g->edge_from,    g->edge_to,   g->task_id, g->task_source,
                      g->task_sink, g->task_creator, g->fsucc_off, g->fsucc,   g->wsucc_off,
                      g->wsucc,     g->topo,         g->task_inst, g->delay};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
        free(arrays[i]);
    condag_depend_free(g->dep);
    condag_locks_free(g->locks);
    condag_loops_free(g->loops);
    idmap_free(&g->node_map);
    idmap_free(&g->task_map);
    strpool_free(&g->pool);
    free(g);
}

static ompdag_status set_string(ompdag_condag *g, int64_t *field, const char *s)
{
    int64_t off = strpool_add(&g->pool, s);
    if (off == -2) return OMPDAG_ERR_NOMEM;
    *field = off;
    return OMPDAG_OK;
}

ompdag_status ompdag_condag_assign_name(ompdag_condag *g, const char *s)
{
    return set_string(g, &g->name, s);
}
ompdag_status ompdag_condag_assign_function(ompdag_condag *g, const char *s)
{
    return set_string(g, &g->function, s);
}
ompdag_status ompdag_condag_assign_time_unit(ompdag_condag *g, const char *s)
{
    return set_string(g, &g->time_unit, s);
}
ompdag_status ompdag_condag_assign_region_loc(ompdag_condag *g, ompdag_loc loc)
{
    g->region_line = loc.line;
    g->region_col = loc.col;
    return set_string(g, &g->region_file, loc.file);
}
void ompdag_condag_assign_threads(ompdag_condag *g, int32_t m)
{
    g->threads = m > 0 ? m : 0;
}

static bool grow_nodes(ompdag_condag *g, int64_t need)
{
    if (need <= g->node_cap) return true;
    int64_t cap = g->node_cap;
#define GROW(field)                                                                                \
    do {                                                                                           \
        cap = g->node_cap;                                                                         \
        if (!grow_array((void **)&g->field, sizeof *g->field, &cap, need)) return false;           \
    } while (0)
    GROW(node_id);
    GROW(node_task);
    GROW(kind);
    GROW(wcet);
    GROW(creates_str);
    GROW(loc_file);
    GROW(loc_line);
    GROW(loc_col);
    GROW(label);
    if (g->extra) {
        GROW(extra);
        for (int64_t i = g->node_cap; i < cap; ++i)
            g->extra[i] = NULL;
    }
    if (g->delay) {
        GROW(delay);
        for (int64_t i = g->node_cap; i < cap; ++i)
            g->delay[i] = 0;
    }
#undef GROW
    g->node_cap = cap;
    return true;
}

/* Returns the task index for id, registering a new task when needed. */
static int32_t intern_task(ompdag_condag *g, const char *id)
{
    int32_t t = idmap_find(&g->task_map, &g->pool, g->task_id, id);
    if (t >= 0) return t;
    if (!grow_array((void **)&g->task_id, sizeof *g->task_id, &g->task_cap, (int64_t)g->nt + 1))
        return -1;
    int64_t off = strpool_add(&g->pool, id);
    if (off < 0) return -1;
    g->task_id[g->nt] = off;
    if (!idmap_insert(&g->task_map, &g->pool, g->task_id, g->nt)) return -1;
    return g->nt++;
}

static bool is_known_kind(int k)
{
    return k == 'N' || k == 'T' || k == 'W' || k == 'C' || k == 'J';
}

static ompdag_status check_node_spec(const ompdag_condag *g, const ompdag_node_spec *s,
                                     ompdag_error *err)
{
    if (g->finalized)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "graph is finalized; cannot add nodes");
    if (!s->id || !*s->id) return ompdag_error_set(err, OMPDAG_ERR_INVALID, "node without an id");
    if (!s->task || !*s->task)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "node '%s': missing 'task'", s->id);
    if (!is_known_kind(s->kind))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "node '%s': unknown kind", s->id);
    if (s->wcet < 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "node '%s': negative wcet %lld", s->id,
                                (long long)s->wcet);
    if (s->kind == OMPDAG_KIND_T && (!s->creates || !*s->creates))
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "node '%s': a T node needs 'creates' (the task it creates)", s->id);
    if (s->kind != OMPDAG_KIND_T && s->creates)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "node '%s': 'creates' is only allowed on T nodes (kind is %c)",
                                s->id, (char)s->kind);
    if (idmap_find(&g->node_map, &g->pool, g->node_id, s->id) >= 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "duplicate node id '%s'", s->id);
    if (g->n == INT32_MAX)
        return ompdag_error_set(err, OMPDAG_ERR_LIMIT, "more than %d nodes", INT32_MAX);
    int64_t total;
    if (__builtin_add_overflow(g->total_wcet, s->wcet, &total))
        return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                "node '%s': the sum of WCETs overflows int64", s->id);
    return OMPDAG_OK;
}

ompdag_status ompdag_condag_add_node(ompdag_condag *g, const ompdag_node_spec *s, int32_t *index,
                                     ompdag_error *err)
{
    ompdag_status st = check_node_spec(g, s, err);
    if (st) return st;
    int32_t v = g->n;
    if (!grow_nodes(g, (int64_t)v + 1))
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    int32_t t = intern_task(g, s->task);
    int64_t id = strpool_add(&g->pool, s->id);
    int64_t creates = strpool_add(&g->pool, s->creates);
    int64_t file = strpool_add(&g->pool, s->loc.file);
    int64_t label = strpool_add(&g->pool, s->label);
    if (t < 0 || id < 0 || creates == -2 || file == -2 || label == -2)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    g->node_id[v] = id;
    g->node_task[v] = t;
    g->kind[v] = (uint8_t)s->kind;
    g->wcet[v] = s->wcet;
    g->creates_str[v] = creates;
    g->loc_file[v] = file;
    g->loc_line[v] = s->loc.line;
    g->loc_col[v] = s->loc.col;
    g->label[v] = label;
    if (g->extra) g->extra[v] = NULL;
    g->n++;
    if (!idmap_insert(&g->node_map, &g->pool, g->node_id, v))
        return g->n--, ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    g->total_wcet += s->wcet;
    if (index) *index = v;
    return OMPDAG_OK;
}

int32_t ompdag_condag_find_node(const ompdag_condag *g, const char *id)
{
    return idmap_find(&g->node_map, &g->pool, g->node_id, id);
}

ompdag_status ompdag_condag_add_edge(ompdag_condag *g, int32_t from, int32_t to, ompdag_error *err)
{
    if (g->finalized)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "graph is finalized; cannot add edges");
    if (from < 0 || from >= g->n || to < 0 || to >= g->n)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "edge endpoint out of range");
    if (from == to)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "edge '%s' -> '%s' is a cycle (self-loop)",
                                node_name(g, from), node_name(g, to));
    if (g->node_task[from] != g->node_task[to])
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "edge '%s' -> '%s' crosses tasks ('%s' and '%s'); F-edges stay "
                                "inside one task",
                                node_name(g, from), node_name(g, to),
                                task_name(g, g->node_task[from]), task_name(g, g->node_task[to]));
    if (!grow_array((void **)&g->edge_from, sizeof *g->edge_from, &(int64_t){g->edge_cap},
                    g->ne + 1) ||
        !grow_array((void **)&g->edge_to, sizeof *g->edge_to, &g->edge_cap, g->ne + 1))
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    g->edge_from[g->ne] = from;
    g->edge_to[g->ne] = to;
    g->ne++;
    return OMPDAG_OK;
}

ompdag_status ompdag_condag_finalize(ompdag_condag *g, ompdag_error *err)
{
    if (g->finalized) return OMPDAG_OK;
    if (g->n == 0) return ompdag_error_set(err, OMPDAG_ERR_INVALID, "graph has no nodes");
    if (g->creates)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "finalize already failed on this graph; destroy it");
    ompdag_status st = condag_validate_and_derive(g, err);
    if (st == OMPDAG_OK) g->finalized = true;
    return st;
}

bool ompdag_condag_is_finalized(const ompdag_condag *g)
{
    return g->finalized;
}

ompdag_status ompdag_condag_assign_wcet(ompdag_condag *g, int32_t v, int64_t wcet,
                                        ompdag_error *err)
{
    if (v < 0 || v >= g->n)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "node index %d out of range", v);
    if (wcet < 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "node '%s': negative wcet",
                                node_name(g, v));
    int64_t total;
    if (__builtin_add_overflow(g->total_wcet - g->wcet[v], wcet, &total))
        return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                "node '%s': the sum of WCETs overflows int64", node_name(g, v));
    g->total_wcet = total;
    int64_t old = g->wcet[v];
    g->wcet[v] = wcet;
    condag_locks_wcet_changed(g, v, old); /* S(L), Cmax(L) of docs/mutex.md */
    return OMPDAG_OK;
}

/* The delay array exists only once some node has a delay: graphs without
 * delays (most of them, and every large random one) pay nothing. */
static bool ensure_delays(ompdag_condag *g)
{
    if (g->delay) return true;
    g->delay = calloc((size_t)(g->node_cap ? g->node_cap : 1), sizeof *g->delay);
    return g->delay != NULL;
}

ompdag_status ompdag_condag_assign_delay(ompdag_condag *g, int32_t v, int64_t delay,
                                         ompdag_error *err)
{
    if (v < 0 || v >= g->n)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "node index %d out of range", v);
    if (delay < 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "node '%s': negative dispatch delay %lld (a delay is >= 0)",
                                node_name(g, v), (long long)delay);
    int64_t old = g->delay ? g->delay[v] : 0, total;
    if (__builtin_add_overflow(g->total_delay - old, delay, &total))
        return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                "node '%s': the sum of dispatch delays overflows int64",
                                node_name(g, v));
    if (!delay && !g->delay) return OMPDAG_OK;
    if (!ensure_delays(g)) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    g->total_delay = total;
    g->delay[v] = delay;
    return OMPDAG_OK;
}

/* ---- accessors ---- */
