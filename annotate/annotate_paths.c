/*
 * annotate/annotate_paths.c — graphs (F-predecessor CSR) and segment paths P(a, b).
 * Part of `ompdag annotate`; the rule and its safety argument are in
 * annotate_internal.h and docs/probe.md.
 */
#include <assert.h>
#include <limits.h>
#include <stdlib.h>

#include "annotate_internal.h"
#include "ompdag/compact.h"

/* ---- paths ---------------------------------------------------------------------- */

/* Two absolute names of one file through a symbolic link: the front end
 * names a source by its real path, the compiler's line tables by the path
 * it was given (a source tree reached through a link).  Only names with the
 * same last component get the two realpath() calls. */
static bool same_real_file(const char *a, const char *b)
{
    if (a[0] != '/' || b[0] != '/') return false;
    const char *ba = strrchr(a, '/'), *bb = strrchr(b, '/');
    if (strcmp(ba, bb)) return false;
    char ra[PATH_MAX], rb[PATH_MAX];
    return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

bool annot_same_file(const char *a, const char *b)
{
    if (!a || !b) return false;
    while (a[0] == '.' && a[1] == '/')
        a += 2;
    while (b[0] == '.' && b[1] == '/')
        b += 2;
    if (!strcmp(a, b)) return true;
    size_t la = strlen(a), lb = strlen(b);
    if (la > lb && a[la - lb - 1] == '/' && !strcmp(a + la - lb, b)) return true;
    if (lb > la && b[lb - la - 1] == '/' && !strcmp(b + lb - la, a)) return true;
    return same_real_file(a, b);
}

/* ---- compact loops --------------------------------------------------------------- */

/* The body of loop test t (docs/compact.md: its first F-successor starts the
 * body, the second is the exit x): the nodes reachable from the body's entry
 * without passing x, into list[]; returns their count. */
static int32_t loop_body(const ompdag_condag *g, int32_t t, uint8_t *seen, int32_t *list)
{
    int32_t c, n = 0, top = 0;
    const int32_t *s = ompdag_condag_node_fsucc(g, t, &c);
    if (c != 2) return 0;
    int32_t x = s[1];
    list[top++] = s[0], seen[s[0]] = 1;
    while (top > n) { /* list[n..top) is the stack's unvisited part, kept in order */
        int32_t v = list[n++];
        const int32_t *f = ompdag_condag_node_fsucc(g, v, &c);
        for (int32_t i = 0; i < c; ++i)
            if (f[i] != x && !seen[f[i]]) seen[f[i]] = 1, list[top++] = f[i];
    }
    for (int32_t i = 0; i < n; ++i)
        seen[list[i]] = 0;
    return n;
}

/* The last node of loop t's body: its F-predecessor of the exit x. */
static int32_t loop_end(const ompdag_condag *g, const int32_t *body, int32_t n, int32_t x)
{
    for (int32_t i = 0; i < n; ++i) {
        int32_t c;
        const int32_t *f = ompdag_condag_node_fsucc(g, body[i], &c);
        if (c == 1 && f[0] == x) return body[i];
    }
    return -1;
}

/* One block: the struct, then limit[], seen[] (8-byte), back[], in[], touched[]. */
static annot_loops *loops_alloc(int32_t n)
{
    size_t k = (size_t)n + 1;
    annot_loops *l = malloc(sizeof *l + 2 * k * sizeof(uint64_t) + 3 * k * sizeof(int32_t));
    if (!l) return NULL;
    l->limit = (uint64_t *)(l + 1);
    l->seen = l->limit + k;
    l->back = (int32_t *)(l->seen + k);
    l->in = l->back + k;
    l->touched = l->in + k;
    l->ntouched = 0;
    l->over = -1;
    l->over_seen = 0;
    for (int32_t v = 0; v < n; ++v)
        l->back[v] = l->in[v] = -1, l->seen[v] = 0, l->limit[v] = 1;
    return l;
}

/* Loop tests, largest body first, so that inner loops overwrite in[]. */
static int32_t *tests_by_body_size(const ompdag_condag *g, int32_t n, uint8_t *seen, int32_t *list,
                                   int32_t *count)
{
    int32_t *t = malloc(sizeof *t * 2 * ((size_t)n + 1)), nt = 0;
    if (!t) return NULL;
    for (int32_t v = 0; v < n; ++v)
        if (ompdag_compact_loop_repeat(g, v) > 0)
            t[2 * nt] = loop_body(g, v, seen, list), t[2 * nt + 1] = v, ++nt;
    for (int32_t i = 1; i < nt; ++i) /* insertion sort, descending size: loops are few */
        for (int32_t j = i; j > 0 && t[2 * j] > t[2 * (j - 1)]; --j) {
            int32_t a = t[2 * j], b = t[2 * j + 1];
            t[2 * j] = t[2 * (j - 1)], t[2 * j + 1] = t[2 * (j - 1) + 1];
            t[2 * (j - 1)] = a, t[2 * (j - 1) + 1] = b;
        }
    *count = nt;
    return t;
}

/* gi->loops for a graph with compact loops: back edges, innermost loops and
 * the runs each node may make per instance of its task. */
static ompdag_status loops_prepare(graph_info *gi, ompdag_error *err)
{
    const ompdag_condag *g = gi->g;
    if (!ompdag_compact_has_loops(g)) return OMPDAG_OK;
    int32_t n = gi->n, nt = 0;
    uint8_t *seen = calloc((size_t)n + 1, 1);
    int32_t *list = malloc(sizeof *list * ((size_t)n + 1));
    int32_t *tests = seen && list ? tests_by_body_size(g, n, seen, list, &nt) : NULL;
    annot_loops *l = tests ? loops_alloc(n) : NULL;
    for (int32_t i = 0; l && i < nt; ++i) {
        int32_t t = tests[2 * i + 1], c, nb = loop_body(g, t, seen, list);
        int32_t e = loop_end(g, list, nb, ompdag_condag_node_fsucc(g, t, &c)[1]);
        if (e >= 0) l->back[e] = t;
        for (int32_t k = 0; k < nb; ++k)
            l->in[list[k]] = t;
    }
    for (int32_t v = 0; l && v < n; ++v) /* Π of the repeats around v, saturating */
        for (int32_t u = l->in[v]; u >= 0; u = l->in[u])
            if (__builtin_mul_overflow(l->limit[v], (uint64_t)ompdag_compact_loop_repeat(g, u),
                                       &l->limit[v]))
                l->limit[v] = UINT64_MAX;
    free(seen), free(list), free(tests);
    if (!l) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    gi->loops = l;
    return OMPDAG_OK;
}

bool annot_loops_count(annot_loops *l, int32_t v)
{
    if (l->in[v] < 0) return true; /* outside loops: once per instance by construction */
    if (!l->seen[v]++) l->touched[l->ntouched++] = v;
    if (l->seen[v] <= l->limit[v] || l->over >= 0) return true;
    l->over = v, l->over_seen = l->seen[v];
    return false;
}

void annot_loops_next_instance(annot_loops *l)
{
    for (int32_t i = 0; i < l->ntouched; ++i)
        l->seen[l->touched[i]] = 0;
    l->ntouched = 0;
}

/* The back edge from v, if v ends a loop body, else -1. */
static int32_t back_edge(const graph_info *gi, int32_t v)
{
    return gi->loops ? gi->loops->back[v] : -1;
}

/* ---- graphs ---------------------------------------------------------------------- */

/* The CSR of each task's nodes (gi->task_start, gi->task_nodes). */
static ompdag_status task_index(graph_info *gi, ompdag_error *err)
{
    const ompdag_condag *g = gi->g;
    int32_t nt = ompdag_condag_task_count(g);
    gi->task_start = calloc((size_t)nt + 2, sizeof *gi->task_start);
    gi->task_nodes = malloc(((size_t)gi->n + 1) * sizeof *gi->task_nodes);
    if (!gi->task_start || !gi->task_nodes)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    for (int32_t v = 0; v < gi->n; ++v)
        ++gi->task_start[ompdag_condag_node_task(g, v) + 2];
    for (int32_t t = 0; t < nt; ++t)
        gi->task_start[t + 2] += gi->task_start[t + 1];
    for (int32_t v = 0; v < gi->n; ++v)
        gi->task_nodes[gi->task_start[ompdag_condag_node_task(g, v) + 1]++] = v;
    return OMPDAG_OK; /* the shifted counts now start each task */
}

ompdag_status annot_graph_prepare(graph_info *gi, ompdag_condag *g, ompdag_error *err)
{
    gi->g = g;
    gi->n = ompdag_condag_node_count(g);
    json_t *extra = ompdag_condag_extra(g, -1);
    /* A team graph (plugin/fe_team.c: tasks created by every thread) has one
     * task per implicit task and phase: annotate_team.c maps them. */
    json_t *team = extra ? json_object_get(extra, "team") : NULL;
    if (team) {
        ompdag_status st =
            json_is_integer(team)
                ? annot_team_prepare(gi, json_integer_value(team), err)
                : ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                   "annotate: graph %s: key \"team\" is not an "
                                   "integer: re-extract the region",
                                   ompdag_condag_name(g) ? ompdag_condag_name(g) : "?");
        if (st) return st;
    }
    const char *key = extra ? json_string_value(json_object_get(extra, "region_key")) : NULL;
    if (key) {
        snprintf(gi->region_key_buf, sizeof gi->region_key_buf, "%s", key);
        char *colon = strrchr(gi->region_key_buf, ':');
        if (colon) {
            *colon = 0;
            gi->region_line = atoi(colon + 1);
        }
        gi->region_file = gi->region_key_buf;
    } else {
        ompdag_loc loc = ompdag_condag_region_loc(g);
        gi->region_file = loc.file;
        gi->region_line = loc.line;
    }
    ompdag_status st = loops_prepare(gi, err);
    if (st) return st;
    gi->pred_start = calloc((size_t)gi->n + 1, sizeof *gi->pred_start);
    int32_t edges = 0;
    for (int32_t v = 0; v < gi->n; ++v) {
        int32_t c;
        ompdag_condag_node_fsucc(g, v, &c);
        edges += c + (back_edge(gi, v) >= 0);
    }
    gi->pred = malloc(((size_t)edges + 1) * sizeof *gi->pred);
    if (!gi->pred_start || !gi->pred)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    for (int32_t v = 0; v < gi->n; ++v) {
        int32_t c;
        const int32_t *s = ompdag_condag_node_fsucc(g, v, &c);
        for (int32_t i = 0; i < c; ++i)
            ++gi->pred_start[s[i] + 1];
        if (back_edge(gi, v) >= 0) ++gi->pred_start[back_edge(gi, v) + 1];
    }
    for (int32_t v = 0; v < gi->n; ++v)
        gi->pred_start[v + 1] += gi->pred_start[v];
    int32_t *fill = calloc((size_t)gi->n + 1, sizeof *fill);
    if (!fill) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    for (int32_t v = 0; v < gi->n; ++v) {
        int32_t c;
        const int32_t *s = ompdag_condag_node_fsucc(g, v, &c);
        for (int32_t i = 0; i < c; ++i)
            gi->pred[gi->pred_start[s[i]] + fill[s[i]]++] = v;
        int32_t b = back_edge(gi, v); /* a loop's back edge, as a predecessor of its test */
        if (b >= 0) gi->pred[gi->pred_start[b] + fill[b]++] = v;
    }
    free(fill);
    return task_index(gi, err);
}

/* True when W node w, right after T node t on t's own source line, is the
 * front end's model of an undeferred task (`if(0)`, `final`, or an `if`
 * clause the runtime may honour): the creator waits for the child without a
 * taskwait, so the runtime reports no scheduling point there and the segment
 * after the `task` directive runs on through w. */
bool annot_undeferred_wait(const ompdag_condag *g, int32_t t, int32_t w)
{
    if (ompdag_condag_node_kind(g, t) != OMPDAG_KIND_T ||
        ompdag_condag_node_kind(g, w) != OMPDAG_KIND_W)
        return false;
    ompdag_loc lt = ompdag_condag_node_loc(g, t), lw = ompdag_condag_node_loc(g, w);
    return lt.line > 0 && lt.line == lw.line && lt.col == lw.col &&
           (!lt.file || !lw.file || annot_same_file(lt.file, lw.file));
}

/* Forward closure from start point (sk, sn) of `task`: nodes a segment
 * starting there can run, stopping at T nodes (their directive ends a
 * segment) and never entering a W node (its taskwait ends one).  Sets bit 1
 * of mark[] (which it clears first).  Returns false for an unknown kind. */
bool annot_forward_set(const graph_info *gi, int32_t task, ompdag_point sk, int32_t sn,
                       uint8_t *mark, int32_t *stack)
{
    const ompdag_condag *g = gi->g;
    int32_t top = 0, nt;
    const int32_t *own = annot_task_nodes(gi, task, &nt);
    for (int32_t i = 0; i < nt; ++i)
        mark[own[i]] = 0;
    if (sk == OMPDAG_POINT_BEGIN) {
        stack[top++] = ompdag_condag_task_source(g, task);
    } else if (sk == OMPDAG_POINT_WAIT) {
        stack[top++] = sn;
    } else if (sk == OMPDAG_POINT_CREATE) {
        int32_t c;
        const int32_t *s = ompdag_condag_node_fsucc(g, sn, &c);
        for (int32_t i = 0; i < c; ++i)
            if (ompdag_condag_node_kind(g, s[i]) != OMPDAG_KIND_W ||
                annot_undeferred_wait(g, sn, s[i]))
                stack[top++] = s[i];
        if (back_edge(gi, sn) >= 0) stack[top++] = back_edge(gi, sn); /* the next iteration */
    } else {
        return false;
    }
    for (int32_t i = 0; i < top; ++i)
        mark[stack[i]] |= 1;
    while (top > 0) {
        int32_t x = stack[--top];
        if (ompdag_condag_node_kind(g, x) == OMPDAG_KIND_T) continue;
        int32_t c;
        const int32_t *s = ompdag_condag_node_fsucc(g, x, &c);
        for (int32_t i = 0; i < c; ++i)
            if (!(mark[s[i]] & 1) && ompdag_condag_node_kind(g, s[i]) != OMPDAG_KIND_W) {
                mark[s[i]] |= 1;
                stack[top++] = s[i];
            }
        int32_t b = back_edge(gi, x); /* a loop test: never a W node */
        if (b >= 0 && !(mark[b] & 1)) {
            mark[b] |= 1;
            stack[top++] = b;
        }
    }
    return true;
}

/* Nodes of the segment path P(a, b) inside task `task`: the forward closure
 * from a (annot_forward_set) intersected with the backward closure from b, which
 * stops at W nodes and never crosses a T node.  mark[] receives 1 for each
 * node on some such path.  Returns the count. */
int32_t annot_segment_path(const graph_info *gi, int32_t task, ompdag_point sk, int32_t sn,
                           ompdag_point ek, int32_t en, uint8_t *mark, int32_t *stack)
{
    const ompdag_condag *g = gi->g;
    int32_t top = 0, nt;
    if (!annot_forward_set(gi, task, sk, sn, mark, stack)) return 0;
    /* backward: bit 2 */
    if (ek == OMPDAG_POINT_END) {
        stack[top++] = ompdag_condag_task_sink(g, task);
    } else if (ek == OMPDAG_POINT_CREATE) {
        stack[top++] = en;
    } else if (ek == OMPDAG_POINT_WAIT) {
        for (int32_t i = gi->pred_start[en]; i < gi->pred_start[en + 1]; ++i)
            if (ompdag_condag_node_kind(g, gi->pred[i]) != OMPDAG_KIND_T)
                stack[top++] = gi->pred[i];
    } else {
        return 0;
    }
    for (int32_t i = 0; i < top; ++i)
        mark[stack[i]] |= 2;
    while (top > 0) {
        int32_t y = stack[--top];
        if (ompdag_condag_node_kind(g, y) == OMPDAG_KIND_W) continue;
        for (int32_t i = gi->pred_start[y]; i < gi->pred_start[y + 1]; ++i) {
            int32_t p = gi->pred[i];
            if (!(mark[p] & 2) && ompdag_condag_node_kind(g, p) != OMPDAG_KIND_T) {
                mark[p] |= 2;
                stack[top++] = p;
            }
        }
    }
    int32_t count = 0;
    const int32_t *own = annot_task_nodes(gi, task, &nt);
    for (int32_t i = 0; i < nt; ++i) {
        mark[own[i]] = mark[own[i]] == 3;
        count += mark[own[i]];
    }
    return count;
}

/* sn's only F-successor x: when sn ends a compact loop's body, x is the
 * loop's exit and the segment may run on into the next iteration through
 * the back edge.  Charge a node on every path: the test when the end lies in
 * the body (the body is entered only through it), else x (the only way out). */
static int32_t loop_charge(const ompdag_condag *g, int32_t task, int32_t sn, int32_t x,
                           ompdag_point ek, int32_t en)
{
    if (ek != OMPDAG_POINT_WAIT || !ompdag_compact_has_loops(g)) return x;
    int32_t n = ompdag_condag_node_count(g), t = -1;
    for (int32_t v = 0; v < n && t < 0; ++v) { /* the test whose exit is x */
        int32_t c;
        const int32_t *s = ompdag_condag_node_fsucc(g, v, &c);
        if (ompdag_condag_node_task(g, v) == task && c == 2 && s[1] == x && v != sn &&
            ompdag_compact_loop_repeat(g, v) > 0)
            t = v;
    }
    if (t < 0) return x;
    uint8_t *seen = calloc((size_t)n + 1, 1);
    int32_t *list = malloc(sizeof *list * ((size_t)n + 1));
    bool inside = false;
    int32_t nb = seen && list ? loop_body(g, t, seen, list) : 0;
    for (int32_t i = 0; i < nb; ++i)
        inside |= list[i] == en;
    if (!seen || !list) inside = true; /* out of memory: the test is on the looping paths */
    free(seen), free(list);
    return inside ? t : x;
}

/* The node a class is charged to (rule 1-3 above). */
int32_t annot_charged_node(const ompdag_condag *g, int32_t task, ompdag_point sk, int32_t sn,
                           ompdag_point ek, int32_t en)
{
    int32_t v;
    if (sk == OMPDAG_POINT_WAIT) {
        assert(ompdag_condag_node_kind(g, sn) == OMPDAG_KIND_W); /* rule 1: the taskwait's node */
        v = sn;
    } else if (ek == OMPDAG_POINT_CREATE) {
        assert(ompdag_condag_node_kind(g, en) == OMPDAG_KIND_T); /* rule 2: the directive's node */
        v = en;
    } else if (sk == OMPDAG_POINT_BEGIN) {
        v = ompdag_condag_task_source(g, task);
    } else {
        int32_t c;
        const int32_t *s = ompdag_condag_node_fsucc(g, sn, &c);
        v = c > 0 ? s[0] : sn;
        if (c == 1) v = loop_charge(g, task, sn, s[0], ek, en);
    }
    /* A class's time stays in its own task (the safety argument sums WCETs
     * along paths of that task). */
    assert(ompdag_condag_node_task(g, v) == task);
    return v;
}

/* Segments that run no node's code: a `task` directive followed directly by
 * a taskwait, or by the task's end, or a task that starts with a taskwait.
 * The rule charges them to the adjacent node (w, t, or the source w). */
bool annot_empty_segment(const ompdag_condag *g, int32_t task, ompdag_point sk, int32_t sn,
                         ompdag_point ek, int32_t en)
{
    if (sk == OMPDAG_POINT_CREATE && ek == OMPDAG_POINT_WAIT) {
        int32_t c;
        const int32_t *s = ompdag_condag_node_fsucc(g, sn, &c);
        for (int32_t i = 0; i < c; ++i)
            if (s[i] == en) return true;
        return false;
    }
    if (sk == OMPDAG_POINT_CREATE && ek == OMPDAG_POINT_END)
        return sn == ompdag_condag_task_sink(g, task);
    if (sk == OMPDAG_POINT_BEGIN && ek == OMPDAG_POINT_WAIT)
        return en == ompdag_condag_task_source(g, task);
    return false;
}
