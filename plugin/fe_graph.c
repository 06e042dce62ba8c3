/*
 * plugin/fe_graph.c — the region builder's graph steps: nodes and F-edges,
 * flows (tails joined by J nodes, the open node that absorbs plain code),
 * tasks, and the "every task awaits its own children" test that taskgroup
 * and the single's barrier rely on.  Errors, children and labels are
 * fe_walker.c's; plain code (which may take locks) is fe_mutex.c's
 * fe_plain.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fe_depend.h"
#include "fe_mutex.h"
#include "fe_walk.h"

/* ---- graph building --------------------------------------------------------------- */

/* Adds a node; takes ownership of label. */
int32_t fe_new_node(walker *w, char kind, const char *file, int32_t line, int32_t col, char *label)
{
    fe_graph *g = w->g;
    assert(kind && strchr("NTWCJ", kind));
    assert(w->task >= 0 && w->task < g->ntasks);
    if (!label) return fe_nomem(w), -1;
    if (g->n >= w->fe->node_limit) {
        free(label);
        fe_refuse(w, w->file, w->line, w->col,
                  "region has more than %d nodes after unrolling loops and inlining calls; "
                  "lower the loop or recursion bounds or raise --node-limit",
                  w->fe->node_limit);
        return -1;
    }
    if (!ompdag_grow_array((void **)&g->nodes, sizeof *g->nodes, &g->cap, (int64_t)g->n + 1))
        return free(label), fe_nomem(w), -1;
    fe_node *nd = &g->nodes[g->n];
    memset(nd, 0, sizeof *nd);
    nd->kind = kind;
    nd->task = w->task;
    nd->creates = -1;
    nd->file = file;
    nd->line = line;
    nd->col = col;
    nd->label = label;
    g->tasks[w->task].nnodes++;
    return g->n++;
}

bool fe_add_edge(walker *w, int32_t from, int32_t to)
{
    /* F-edges stay inside one task, and a task's nodes are created in a
     * topological order of them (fe_unawaited_child relies on it). */
    assert(from >= 0 && from < to && to < w->g->n);
    assert(w->g->nodes[from].task == w->g->nodes[to].task);
    fe_vec *s = &w->g->nodes[from].succ;
    for (int32_t i = 0; i < s->n; ++i)
        if (s->v[i] == to) return true;
    if (!fe_vec_push(s, to)) return fe_nomem(w);
    w->g->nodes[to].npred++;
    return true;
}

bool fe_flow_single(walker *w, fe_flow *f, int32_t v, bool absorbs)
{
    f->tails.n = 0;
    f->live = true;
    f->open = absorbs ? v : -1;
    return fe_vec_push(&f->tails, v) || fe_nomem(w);
}

/* Joins the flow's tails in a J when there are several.  The J is created
 * before the node that follows it, so a task's nodes stay numbered in a
 * topological order of its F-edges (fe_unawaited_child relies on it). */
static bool join_tails(walker *w, const char *file, int32_t line, int32_t col)
{
    fe_flow *f = w->flow;
    if (f->tails.n <= 1) return true;
    int32_t j = fe_new_node(w, 'J', file, line, col, fe_strdup("join"));
    if (j < 0) return false;
    for (int32_t i = 0; i < f->tails.n; ++i)
        if (!fe_add_edge(w, f->tails.v[i], j)) return false;
    f->tails.n = 0;
    return fe_vec_push(&f->tails, j) || fe_nomem(w);
}

/* Creates a node of `kind` after the current flow; the flow then ends in it. */
int32_t fe_attach(walker *w, char kind, const char *file, int32_t line, int32_t col, char *label,
                  bool absorbs)
{
    if (!join_tails(w, file, line, col)) return free(label), -1;
    int32_t v = fe_new_node(w, kind, file, line, col, label);
    if (v < 0 || (w->flow->tails.n == 1 && !fe_add_edge(w, w->flow->tails.v[0], v)) ||
        !fe_flow_single(w, w->flow, v, absorbs))
        return -1;
    return v;
}

bool fe_flow_union(walker *w, fe_flow *into, const fe_vec *tails)
{
    for (int32_t i = 0; i < tails->n; ++i)
        if (!fe_vec_push_unique(&into->tails, tails->v[i])) return fe_nomem(w);
    if (tails->n > 0) {
        into->live = true;
        into->open = into->tails.n == 1 ? into->open : -1;
    }
    return true;
}

bool fe_flow_copy(walker *w, fe_flow *dst, const fe_flow *src)
{
    dst->tails.n = 0;
    dst->live = src->live;
    dst->open = src->open;
    for (int32_t i = 0; i < src->tails.n; ++i)
        if (!fe_vec_push(&dst->tails, src->tails.v[i])) return fe_nomem(w);
    return true;
}

int32_t fe_new_task(walker *w, int32_t creator, bool untied)
{
    fe_graph *g = w->g;
    assert(creator == -1 || (creator >= 0 && creator < g->n && g->nodes[creator].kind == 'T'));
    if (!ompdag_grow_array((void **)&g->tasks, sizeof *g->tasks, &g->tcap, (int64_t)g->ntasks + 1))
        return fe_nomem(w), -1;
    g->tasks[g->ntasks] = (fe_task){creator, 0, untied, 0};
    return g->ntasks++;
}

/* Gives the current task a node if it has none, and a single sink. */
bool fe_finish_task(walker *w, fe_span body)
{
    fe_file *f = fe_file_of(w, body.file);
    if (!f) return false;
    if (w->g->tasks[w->task].nnodes == 0)
        return fe_attach(w, 'N', f->name, body.line, body.col, fe_label_text(w, body, NULL, true),
                         true) >= 0;
    if (w->flow->tails.n > 1)
        return fe_attach(w, 'J', f->name, body.end_line, 1, fe_strdup("end of task"), false) >= 0;
    return true;
}

/* Node of task t whose child is not awaited by t itself before t ends, or -1.
 * Nodes of one task are created in a topological order of its F-edges. */
int32_t fe_unawaited_child(walker *w, int32_t t)
{
    fe_graph *g = w->g;
    bool *pw = calloc((size_t)g->n + 1, sizeof *pw);
    if (!pw) return fe_nomem(w), -1;
    int32_t bad = -1;
    for (int32_t v = g->n - 1; v >= 0; --v) {
        const fe_node *nd = &g->nodes[v];
        if (nd->task != t) continue;
        bool all = nd->succ.n > 0;
        for (int32_t k = 0; k < nd->succ.n; ++k)
            all = all && pw[nd->succ.v[k]];
        pw[v] = nd->kind == 'W' || all;
        if (nd->kind == 'T' && (nd->succ.n == 0 || !pw[nd->succ.v[0]])) bad = v;
    }
    free(pw);
    return bad;
}
