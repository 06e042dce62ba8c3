/*
 * plugin/fe_graph.c — the region builder's graph steps: errors, source
 * labels, nodes and F-edges, flows (tails joined by J nodes, the open node
 * that absorbs plain code), tasks, and the "every task awaits its own
 * children" test that taskgroup and the single's barrier rely on.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fe_depend.h"
#include "fe_mutex.h"
#include "fe_walk.h"

/* ---- errors ------------------------------------------------------------------ */

bool fe_nomem(walker *w)
{
    *w->nomem = true;
    return false;
}

bool fe_refuse(walker *w, const char *file, int32_t line, int32_t col, const char *fmt, ...)
{
    char buf[OMPDAG_ERROR_MESSAGE_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!fe_diag(w->fe, OMPDAG_DIAG_ERROR, file, line, col, "%s", buf)) *w->nomem = true;
    return false;
}

fe_file *fe_file_of(walker *w, CXFile f)
{
    fe_file *ff = f ? fe_file_get(w->fe, f) : NULL;
    if (!ff) *w->nomem = true;
    return ff;
}

/* ---- children and text --------------------------------------------------------- */

enum CXChildVisitResult fe_collect_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    cursor_list *l = data;
    if (!ompdag_grow_array((void **)&l->c, sizeof *l->c, &l->cap, (int64_t)l->n + 1)) {
        l->nomem = true;
        return CXChildVisit_Break;
    }
    l->c[l->n++] = c;
    return CXChildVisit_Continue;
}

bool fe_children(walker *w, CXCursor s, cursor_list *out)
{
    memset(out, 0, sizeof *out);
    clang_visitChildren(s, fe_collect_visit, out);
    if (out->nomem) {
        free(out->c);
        return fe_nomem(w);
    }
    return true;
}

/* A short label from the source text of sp: whitespace collapsed, cut at the
 * first '{' when `header`, at most 48 characters. */
char *fe_label_text(walker *w, fe_span sp, const char *prefix, bool header)
{
    fe_file *f = fe_file_of(w, sp.file);
    char buf[64];
    size_t n = 0;
    for (const char *p = prefix; p && *p && n < 48; ++p)
        buf[n++] = *p;
    bool space = n > 0;
    for (unsigned i = sp.begin; f && i < sp.end && i < f->size && n < 48; ++i) {
        char c = f->text[i];
        if (header && c == '{') {
            if (i == sp.begin) { /* a block: shown as {...} */
                if (n > 0) buf[n++] = ' ';
                memcpy(buf + n, "{...}", 5);
                n += 5;
            }
            break;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\') {
            space = n > 0;
            continue;
        }
        if (space && n < 47) buf[n++] = ' ';
        space = false;
        buf[n++] = c;
    }
    while (n > 0 && buf[n - 1] == ' ')
        --n;
    if (n >= 48 && sp.end - sp.begin > 48) {
        n = 45;
        buf[n++] = '.', buf[n++] = '.', buf[n++] = '.';
    }
    buf[n] = 0;
    char *s = fe_strdup(buf);
    if (!s) *w->nomem = true;
    return s;
}

/* ---- graph building --------------------------------------------------------------- */

void fe_graph_free(fe_graph *g)
{
    for (int32_t i = 0; i < g->n; ++i) {
        free(g->nodes[i].label);
        fe_vec_free(&g->nodes[i].succ);
        fe_depend_free(g->nodes[i].dep);
        fe_mutex_free(g->nodes[i].locks);
    }
    free(g->nodes);
    free(g->tasks);
    fe_share_free(g->share);
    fe_mutex_memo_free(g->lock_memo);
    memset(g, 0, sizeof *g);
}

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

/* Plain code: joins the open node, or opens a new N node. */
bool fe_plain(walker *w, CXCursor s)
{
    if (!w->flow->live) return true;
    if (w->flow->open >= 0) return fe_mutex_plain(w, s); /* the locks it takes */
    fe_span sp = fe_cursor_span(s);
    fe_file *f = fe_file_of(w, sp.file);
    if (!f) return false;
    fe_span text = clang_isExpression(clang_getCursorKind(s)) && w->stmt.file ? w->stmt : sp;
    if (clang_getCursorKind(s) == CXCursor_CompoundStmt) {
        cursor_list ch;
        if (!fe_children(w, s, &ch)) return false;
        if (ch.n > 0) text = fe_cursor_span(ch.c[0]);
        free(ch.c);
    }
    return fe_attach(w, 'N', f->name, sp.line, sp.col, fe_label_text(w, text, NULL, true), true) >=
               0 &&
           fe_mutex_plain(w, s);
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
