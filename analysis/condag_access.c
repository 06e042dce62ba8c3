/*
 * analysis/condag_access.c — the read side of the con-DAG
 * (include/ompdag/condag.h): names, counts, node and task accessors, the
 * JSON extras kept beside the graph, and the root task.  condag_build.c
 * (the builder), condag_validate.c, condag_compact.c and condag_loops.c
 * read the graph through these, so none of them calls back into another.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "ompdag/internal/condag_csr.h"

ompdag_status ompdag_condag_assign_extra(ompdag_condag *g, int32_t node, struct json_t *extra)
{
    if (node < 0) {
        json_decref(g->graph_extra);
        g->graph_extra = json_incref(extra);
        return OMPDAG_OK;
    }
    if (node >= g->n) return OMPDAG_ERR_ARGUMENT;
    if (!g->extra) {
        g->extra = calloc((size_t)g->node_cap, sizeof *g->extra);
        if (!g->extra) return OMPDAG_ERR_NOMEM;
    }
    json_decref(g->extra[node]);
    g->extra[node] = json_incref(extra);
    return OMPDAG_OK;
}

struct json_t *ompdag_condag_extra(const ompdag_condag *g, int32_t node)
{
    if (node < 0) return g->graph_extra;
    return g->extra && node < g->n ? g->extra[node] : NULL;
}

/* Exactly one task is uncreated: the root. */
ompdag_status condag_find_root(ompdag_condag *g, ompdag_error *err)
{
    g->root = -1;
    for (int32_t t = 0; t < g->nt; ++t) {
        if (g->task_creator[t] >= 0) continue;
        if (g->root >= 0)
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "task '%s' is unreachable: no T node creates it, and '%s' is "
                                    "already the root task",
                                    task_name(g, t), task_name(g, g->root));
        g->root = t;
    }
    if (g->root < 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "no root task: every task is created by a T node (creation cycle "
                                "through task '%s')",
                                task_name(g, 0));
    return OMPDAG_OK;
}

const char *ompdag_condag_name(const ompdag_condag *g)
{
    return strpool_get(&g->pool, g->name);
}
const char *ompdag_condag_function(const ompdag_condag *g)
{
    return strpool_get(&g->pool, g->function);
}
const char *ompdag_condag_time_unit(const ompdag_condag *g)
{
    const char *u = strpool_get(&g->pool, g->time_unit);
    return u ? u : "ns";
}
ompdag_loc ompdag_condag_region_loc(const ompdag_condag *g)
{
    return (ompdag_loc){strpool_get(&g->pool, g->region_file), g->region_line, g->region_col};
}
int32_t ompdag_condag_threads(const ompdag_condag *g)
{
    return g->threads;
}
int32_t ompdag_condag_node_count(const ompdag_condag *g)
{
    return g->n;
}
int32_t ompdag_condag_task_count(const ompdag_condag *g)
{
    return g->nt;
}
int64_t ompdag_condag_total_wcet(const ompdag_condag *g)
{
    return g->total_wcet;
}
const char *ompdag_condag_node_id(const ompdag_condag *g, int32_t v)
{
    CONDAG_ASSERT_NODE(g, v);
    return node_name(g, v);
}
ompdag_kind ompdag_condag_node_kind(const ompdag_condag *g, int32_t v)
{
    CONDAG_ASSERT_NODE(g, v);
    return (ompdag_kind)g->kind[v];
}
int64_t ompdag_condag_node_wcet(const ompdag_condag *g, int32_t v)
{
    CONDAG_ASSERT_NODE(g, v);
    return g->wcet[v];
}
int64_t ompdag_condag_node_delay(const ompdag_condag *g, int32_t v)
{
    CONDAG_ASSERT_NODE(g, v);
    return g->delay ? g->delay[v] : 0;
}
int64_t ompdag_condag_total_delay(const ompdag_condag *g)
{
    return g->total_delay;
}
bool ompdag_condag_has_delays(const ompdag_condag *g)
{
    return g->total_delay > 0;
}
int32_t ompdag_condag_node_task(const ompdag_condag *g, int32_t v)
{
    CONDAG_ASSERT_NODE(g, v);
    return g->node_task[v];
}
int32_t ompdag_condag_node_creates(const ompdag_condag *g, int32_t v)
{
    CONDAG_ASSERT_NODE(g, v);
    return g->creates ? g->creates[v] : -1;
}
ompdag_loc ompdag_condag_node_loc(const ompdag_condag *g, int32_t v)
{
    CONDAG_ASSERT_NODE(g, v);
    return (ompdag_loc){strpool_get(&g->pool, g->loc_file[v]), g->loc_line[v], g->loc_col[v]};
}
const char *ompdag_condag_node_label(const ompdag_condag *g, int32_t v)
{
    CONDAG_ASSERT_NODE(g, v);
    return strpool_get(&g->pool, g->label[v]);
}
const char *ompdag_condag_title(const ompdag_condag *g, size_t index, char *buf, size_t size)
{
    const char *name =
        ompdag_condag_function(g) ? ompdag_condag_function(g) : ompdag_condag_name(g);
    if (name)
        snprintf(buf, size, "%s", name);
    else
        snprintf(buf, size, "graph %zu", index);
    return buf;
}

const char *ompdag_condag_node_place(const ompdag_condag *g, int32_t v, char *buf, size_t size)
{
    ompdag_loc loc = ompdag_condag_node_loc(g, v);
    if (loc.file && loc.line)
        snprintf(buf, size, "%s:%d", loc.file, loc.line);
    else if (loc.line)
        snprintf(buf, size, "line %d", loc.line);
    else
        snprintf(buf, size, "%s", node_name(g, v));
    return buf;
}

const int32_t *ompdag_condag_node_fsucc(const ompdag_condag *g, int32_t v, int32_t *count)
{
    CONDAG_ASSERT_FINAL(g);
    CONDAG_ASSERT_NODE(g, v);
    *count = g->fsucc_off[v + 1] - g->fsucc_off[v];
    return g->fsucc + g->fsucc_off[v];
}
const int32_t *ompdag_condag_node_wsucc(const ompdag_condag *g, int32_t v, int32_t *count)
{
    CONDAG_ASSERT_FINAL(g);
    CONDAG_ASSERT_NODE(g, v);
    *count = g->wsucc_off[v + 1] - g->wsucc_off[v];
    return g->wsucc + g->wsucc_off[v];
}
const char *ompdag_condag_task_id(const ompdag_condag *g, int32_t t)
{
    CONDAG_ASSERT_TASK(g, t);
    return task_name(g, t);
}
int32_t ompdag_condag_task_source(const ompdag_condag *g, int32_t t)
{
    CONDAG_ASSERT_FINAL(g);
    CONDAG_ASSERT_TASK(g, t);
    return g->task_source[t];
}
int32_t ompdag_condag_task_sink(const ompdag_condag *g, int32_t t)
{
    CONDAG_ASSERT_FINAL(g);
    CONDAG_ASSERT_TASK(g, t);
    return g->task_sink[t];
}
int32_t ompdag_condag_task_creator(const ompdag_condag *g, int32_t t)
{
    CONDAG_ASSERT_FINAL(g);
    CONDAG_ASSERT_TASK(g, t);
    return g->task_creator[t];
}
int32_t ompdag_condag_root_task(const ompdag_condag *g)
{
    return g->root;
}
const int32_t *ompdag_condag_topo_order(const ompdag_condag *g)
{
    CONDAG_ASSERT_FINAL(g);
    return g->topo;
}

/* A borrowed view of a finalized graph's arrays (ompdag/internal/condag_csr.h). */
void ompdag_condag_csr_view(const ompdag_condag *g, ompdag_condag_csr *out)
{
    CONDAG_ASSERT_FINAL(g);
    *out = (ompdag_condag_csr){
        g->n,     g->nt,      g->kind,        g->wcet, g->fsucc_off,
        g->fsucc, g->creates, g->task_source, g->topo, g->total_delay > 0 ? g->delay : NULL};
}
