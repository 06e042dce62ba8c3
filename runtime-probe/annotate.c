/*
 * runtime-probe/annotate.c — from measured segments to node WCETs
 * (`ompdag annotate`).  The rule and its safety argument are docs/probe.md;
 * in short:
 *
 * A segment is the own time of one task instance between two consecutive
 * scheduling points a and b (probe.c).  In the con-DAG (seed 004 §3, nodes
 * cut at scheduling points) the segment runs the nodes of one F-path P(a,b)
 * of its task that crosses no other scheduling point.  All segments of one
 * task with the same (a, b) form a class k, whose estimate E(k) (max, or
 * Gumbel pWCET) is charged to ONE node c(k) that lies on every such path:
 *
 *   1. a is the end of taskwait w        -> c = w          (first node of P)
 *   2. else b is the `task` directive of T node t  -> c = t (last node of P)
 *   3. else a is the task's begin        -> c = source      (first node of P)
 *           a is the `task` directive of t -> c = fsucc(t)  (first node of P;
 *           when P is empty, i.e. t is followed directly by the taskwait w=b,
 *           c = w, the node right after the segment; t itself if t is the sink)
 *
 *   WCET(v) = ceil( (1 + margin) * sum over groups G charged to v of max_{k in G} E(k) )
 *
 * Safety: for every class k and every path P(a,b), c(k) in P (or adjacent,
 * for the empty path), so sum_{u in P} WCET(u) >= WCET(c(k)) >= E(k) >= every
 * observed segment of k.  Classes charged to one node are summed, except
 * that classes sharing their start point (rules 1, 3) or their end point
 * (rule 2) are maximised: one task instance passes a scheduling point once,
 * so at most one of them occurs per instance.  A node is *observed* when some observed class's path P covers
 * it; the others are reported (--unobserved).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/internal/condag_json.h"
#include "ompdag/trace.h"

#define MAX_CANDIDATES 64

typedef struct i64vec {
    int64_t *v;
    size_t n, cap;
} i64vec;

static bool i64vec_push(i64vec *a, int64_t x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 16;
        int64_t *p = realloc(a->v, cap * sizeof *p);
        if (!p)
            return false;
        a->v = p;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return true;
}

typedef struct graph_info {
    ompdag_condag *g;
    const char *region_file; /* points into region_key_buf or the graph */
    char region_key_buf[512];
    int32_t region_line;
    int32_t n;
    int32_t *pred_start, *pred; /* CSR of F-predecessors */
    i64vec responses;      /* parallel begin -> end, per run */
    i64vec task_responses; /* root begin -> last task end, per run */
    uint64_t segments;
} graph_info;

typedef struct seg_class {
    size_t graph;
    int32_t task;
    ompdag_point sk, ek;
    int32_t sn, en;
    int32_t charged;
    i64vec samples;
    int64_t max, median, estimate;
    json_t *offload; /* device index -> its largest share of an offloaded loop */
} seg_class;

/* (graph, code address) -> T/W nodes whose loc is that address's line. */
typedef struct loc_entry {
    uint64_t cp;
    size_t graph;
    bool used, ok;
    int32_t count;
    int32_t nodes[MAX_CANDIDATES];
} loc_entry;

/* One region instance of the trace being read.  Records of different threads
 * arrive in chunk order, not time order, so instances are kept to the end. */
typedef struct region_run {
    uint64_t id;
    size_t graph;
    uint64_t begin, end;          /* parallel begin / end (0: not seen) */
    uint64_t tasks_begin, tasks_end; /* root (single) begin, last task or root end */
} region_run;

struct ompdag_annotation {
    ompdag_condag_set *set;
    ompdag_annotate_options opt;
    graph_info *graphs;
    size_t ngraphs;
    seg_class *classes;
    size_t nclasses, class_cap;
    size_t *class_index; /* open addressing over class ids + 1 */
    size_t class_index_cap;
    uint64_t segments, mapped, unmapped, outside, traces;
    char first_unmapped[512];
    bool applied;
};

/* ---- paths ---------------------------------------------------------------------- */

static bool same_file(const char *a, const char *b)
{
    if (!a || !b)
        return false;
    while (a[0] == '.' && a[1] == '/')
        a += 2;
    while (b[0] == '.' && b[1] == '/')
        b += 2;
    if (!strcmp(a, b))
        return true;
    size_t la = strlen(a), lb = strlen(b);
    if (la > lb)
        return a[la - lb - 1] == '/' && !strcmp(a + la - lb, b);
    if (lb > la)
        return b[lb - la - 1] == '/' && !strcmp(b + lb - la, a);
    return false;
}

/* ---- graphs ---------------------------------------------------------------------- */

static ompdag_status graph_prepare(graph_info *gi, ompdag_condag *g, ompdag_error *err)
{
    gi->g = g;
    gi->n = ompdag_condag_node_count(g);
    json_t *extra = ompdag_condag_extra(g, -1);
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
    gi->pred_start = calloc((size_t)gi->n + 1, sizeof *gi->pred_start);
    int32_t edges = 0;
    for (int32_t v = 0; v < gi->n; ++v) {
        int32_t c;
        ompdag_condag_node_fsucc(g, v, &c);
        edges += c;
    }
    gi->pred = malloc(((size_t)edges + 1) * sizeof *gi->pred);
    if (!gi->pred_start || !gi->pred)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    for (int32_t v = 0; v < gi->n; ++v) {
        int32_t c;
        const int32_t *s = ompdag_condag_node_fsucc(g, v, &c);
        for (int32_t i = 0; i < c; ++i)
            ++gi->pred_start[s[i] + 1];
    }
    for (int32_t v = 0; v < gi->n; ++v)
        gi->pred_start[v + 1] += gi->pred_start[v];
    int32_t *fill = calloc((size_t)gi->n + 1, sizeof *fill);
    if (!fill)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    for (int32_t v = 0; v < gi->n; ++v) {
        int32_t c;
        const int32_t *s = ompdag_condag_node_fsucc(g, v, &c);
        for (int32_t i = 0; i < c; ++i)
            gi->pred[gi->pred_start[s[i]] + fill[s[i]]++] = v;
    }
    free(fill);
    return OMPDAG_OK;
}

/* Forward closure from start point (sk, sn) of `task`: nodes a segment
 * starting there can run, stopping at T nodes (their directive ends a
 * segment) and never entering a W node (its taskwait ends one).  Sets bit 1
 * of mark[] (which it clears first).  Returns false for an unknown kind. */
static bool forward_set(const graph_info *gi, int32_t task, ompdag_point sk, int32_t sn,
                        uint8_t *mark, int32_t *stack)
{
    const ompdag_condag *g = gi->g;
    int32_t top = 0;
    memset(mark, 0, (size_t)gi->n);
    if (sk == OMPDAG_POINT_BEGIN) {
        stack[top++] = ompdag_condag_task_source(g, task);
    } else if (sk == OMPDAG_POINT_WAIT) {
        stack[top++] = sn;
    } else if (sk == OMPDAG_POINT_CREATE) {
        int32_t c;
        const int32_t *s = ompdag_condag_node_fsucc(g, sn, &c);
        for (int32_t i = 0; i < c; ++i)
            if (ompdag_condag_node_kind(g, s[i]) != OMPDAG_KIND_W)
                stack[top++] = s[i];
    } else {
        return false;
    }
    for (int32_t i = 0; i < top; ++i)
        mark[stack[i]] |= 1;
    while (top > 0) {
        int32_t x = stack[--top];
        if (ompdag_condag_node_kind(g, x) == OMPDAG_KIND_T)
            continue;
        int32_t c;
        const int32_t *s = ompdag_condag_node_fsucc(g, x, &c);
        for (int32_t i = 0; i < c; ++i)
            if (!(mark[s[i]] & 1) && ompdag_condag_node_kind(g, s[i]) != OMPDAG_KIND_W) {
                mark[s[i]] |= 1;
                stack[top++] = s[i];
            }
    }
    return true;
}

/* Nodes of the segment path P(a, b) inside task `task`: the forward closure
 * from a (forward_set) intersected with the backward closure from b, which
 * stops at W nodes and never crosses a T node.  mark[] receives 1 for each
 * node on some such path.  Returns the count. */
static int32_t segment_path(const graph_info *gi, int32_t task, ompdag_point sk, int32_t sn,
                            ompdag_point ek, int32_t en, uint8_t *mark, int32_t *stack)
{
    const ompdag_condag *g = gi->g;
    int32_t n = gi->n, top = 0;
    if (!forward_set(gi, task, sk, sn, mark, stack))
        return 0;
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
        if (ompdag_condag_node_kind(g, y) == OMPDAG_KIND_W)
            continue;
        for (int32_t i = gi->pred_start[y]; i < gi->pred_start[y + 1]; ++i) {
            int32_t p = gi->pred[i];
            if (!(mark[p] & 2) && ompdag_condag_node_kind(g, p) != OMPDAG_KIND_T) {
                mark[p] |= 2;
                stack[top++] = p;
            }
        }
    }
    int32_t count = 0;
    for (int32_t v = 0; v < n; ++v) {
        mark[v] = mark[v] == 3;
        count += mark[v];
    }
    return count;
}

/* The node a class is charged to (rule 1-3 above). */
static int32_t charged_node(const ompdag_condag *g, int32_t task, ompdag_point sk, int32_t sn,
                            ompdag_point ek, int32_t en)
{
    if (sk == OMPDAG_POINT_WAIT)
        return sn;
    if (ek == OMPDAG_POINT_CREATE)
        return en;
    if (sk == OMPDAG_POINT_BEGIN)
        return ompdag_condag_task_source(g, task);
    int32_t c;
    const int32_t *s = ompdag_condag_node_fsucc(g, sn, &c);
    return c > 0 ? s[0] : sn;
}

/* Segments that run no node's code: a `task` directive followed directly by
 * a taskwait, or by the task's end, or a task that starts with a taskwait.
 * The rule charges them to the adjacent node (w, t, or the source w). */
static bool empty_segment(const ompdag_condag *g, int32_t task, ompdag_point sk, int32_t sn,
                          ompdag_point ek, int32_t en)
{
    if (sk == OMPDAG_POINT_CREATE && ek == OMPDAG_POINT_WAIT) {
        int32_t c;
        const int32_t *s = ompdag_condag_node_fsucc(g, sn, &c);
        for (int32_t i = 0; i < c; ++i)
            if (s[i] == en)
                return true;
        return false;
    }
    if (sk == OMPDAG_POINT_CREATE && ek == OMPDAG_POINT_END)
        return sn == ompdag_condag_task_sink(g, task);
    if (sk == OMPDAG_POINT_BEGIN && ek == OMPDAG_POINT_WAIT)
        return en == ompdag_condag_task_source(g, task);
    return false;
}

/* ---- lifecycle ---------------------------------------------------------------------- */

void ompdag_annotate_options_init(ompdag_annotate_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->estimator = OMPDAG_ESTIMATOR_MAX;
    opt->margin_pct = 20.0;
    opt->exceedance = 1e-9;
    opt->evt_block = 10;
    opt->evt_min_blocks = 20;
    opt->unobserved = OMPDAG_UNOBSERVED_ERROR;
}

void ompdag_annotation_destroy(ompdag_annotation *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->ngraphs; ++i) {
        free(a->graphs[i].pred_start);
        free(a->graphs[i].pred);
        free(a->graphs[i].responses.v);
        free(a->graphs[i].task_responses.v);
    }
    for (size_t i = 0; i < a->nclasses; ++i) {
        free(a->classes[i].samples.v);
        json_decref(a->classes[i].offload);
    }
    free(a->graphs);
    free(a->classes);
    free(a->class_index);
    free(a);
}

ompdag_status ompdag_annotation_create(ompdag_condag_set *set, const ompdag_annotate_options *opt,
                                       ompdag_annotation **out, ompdag_error *err)
{
    if (!set || !out)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "annotate: NULL argument");
    ompdag_annotation *a = calloc(1, sizeof *a);
    if (!a)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    a->set = set;
    if (opt)
        a->opt = *opt;
    else
        ompdag_annotate_options_init(&a->opt);
    if (!(a->opt.margin_pct >= 0 && a->opt.margin_pct <= 1000) ||
        !(a->opt.exceedance > 0 && a->opt.exceedance < 1) || a->opt.evt_block < 1 ||
        a->opt.evt_min_blocks < 2) {
        free(a);
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "annotate: margin must be in [0, 1000]%%, exceedance in (0, 1), "
                                "blocks >= 1 and at least 2 blocks");
    }
    a->ngraphs = ompdag_condag_set_count(set);
    a->graphs = calloc(a->ngraphs ? a->ngraphs : 1, sizeof *a->graphs);
    a->class_index_cap = 1024;
    a->class_index = calloc(a->class_index_cap, sizeof *a->class_index);
    if (!a->graphs || !a->class_index) {
        ompdag_annotation_destroy(a);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    }
    for (size_t i = 0; i < a->ngraphs; ++i) {
        ompdag_status st = graph_prepare(&a->graphs[i], ompdag_condag_set_graph(set, i), err);
        if (st) {
            ompdag_annotation_destroy(a);
            return st;
        }
    }
    *out = a;
    return OMPDAG_OK;
}

/* ---- classes ------------------------------------------------------------------------ */

static uint64_t class_hash(size_t graph, int32_t task, int sk, int32_t sn, int ek, int32_t en)
{
    uint64_t h = 1469598103934665603ull;
    uint64_t parts[6] = {graph, (uint64_t)(uint32_t)task, (uint64_t)sk, (uint64_t)(uint32_t)sn,
                         (uint64_t)ek, (uint64_t)(uint32_t)en};
    for (int i = 0; i < 6; ++i)
        h = (h ^ parts[i]) * 1099511628211ull;
    return h;
}

static bool class_rehash(ompdag_annotation *a)
{
    size_t cap = 2 * a->class_index_cap;
    size_t *idx = calloc(cap, sizeof *idx);
    if (!idx)
        return false;
    for (size_t k = 0; k < a->nclasses; ++k) {
        const seg_class *c = &a->classes[k];
        size_t i = class_hash(c->graph, c->task, c->sk, c->sn, c->ek, c->en) & (cap - 1);
        while (idx[i])
            i = (i + 1) & (cap - 1);
        idx[i] = k + 1;
    }
    free(a->class_index);
    a->class_index = idx;
    a->class_index_cap = cap;
    return true;
}

/* Finds or creates the class; returns NULL when the points have no path in
 * the graph (the trace and the graph disagree) or on allocation failure. */
static seg_class *class_get(ompdag_annotation *a, size_t graph, int32_t task, ompdag_point sk,
                            int32_t sn, ompdag_point ek, int32_t en, uint8_t *mark,
                            int32_t *stack, bool *nomem)
{
    size_t mask = a->class_index_cap - 1;
    size_t i = class_hash(graph, task, sk, sn, ek, en) & mask;
    while (a->class_index[i]) {
        seg_class *c = &a->classes[a->class_index[i] - 1];
        if (c->graph == graph && c->task == task && c->sk == sk && c->sn == sn && c->ek == ek &&
            c->en == en)
            return c;
        i = (i + 1) & mask;
    }
    const graph_info *gi = &a->graphs[graph];
    int32_t len = segment_path(gi, task, sk, sn, ek, en, mark, stack);
    bool empty_ok = len == 0 && empty_segment(gi->g, task, sk, sn, ek, en);
    if (len == 0 && !empty_ok)
        return NULL;
    if (a->nclasses == a->class_cap) {
        size_t cap = a->class_cap ? 2 * a->class_cap : 64;
        seg_class *p = realloc(a->classes, cap * sizeof *p);
        if (!p) {
            *nomem = true;
            return NULL;
        }
        a->classes = p;
        a->class_cap = cap;
    }
    seg_class *c = &a->classes[a->nclasses++];
    memset(c, 0, sizeof *c);
    c->graph = graph;
    c->task = task;
    c->sk = sk;
    c->sn = sn;
    c->ek = ek;
    c->en = en;
    c->charged = charged_node(gi->g, task, sk, sn, ek, en);
    a->class_index[i] = a->nclasses;
    if (2 * a->nclasses > a->class_index_cap && !class_rehash(a)) {
        *nomem = true;
        return NULL;
    }
    return &a->classes[a->nclasses - 1];
}

/* ---- reading traces ------------------------------------------------------------------- */

/* A segment of a matched graph, kept until its task instance's chain is known. */
typedef struct pending_seg {
    uint64_t id, time, dur, cp_start, cp_end, cp_task;
    uint32_t graph;
    uint8_t sk, ek, flags;
} pending_seg;

/* One explicit task instance: who created it, where, and (once resolved)
 * which task of its graph it is.  A recursion the front end inlined puts the
 * same `task` line in several graph tasks; following the chain of creators
 * from the root picks the right one. */
typedef struct task_entry {
    uint64_t id;       /* 0 = empty slot */
    uint64_t parent;
    uint64_t cp_task;
    uint64_t time;     /* creation time: equals the end time of the creator's
                          segment that ended at the `task` directive */
    int32_t task;      /* graph task; -2 unresolved, -1 none */
} task_entry;

/* (creator instance, time) -> the T node its mapped segment ended at. */
typedef struct creation_entry {
    uint64_t parent, time; /* parent 0 = empty slot */
    int32_t tnode;
} creation_entry;

typedef struct trace_ctx {
    ompdag_annotation *a;
    ompdag_symbolizer *sym;
    loc_entry *locs;
    size_t loc_cap, loc_used;
    uint64_t *region_cp;   /* cache: region code address -> graph + 1 (0: none) */
    size_t *region_graph;
    size_t region_n, region_cap;
    region_run *runs;
    size_t nruns, runs_cap;
    pending_seg *pend;     /* segments of matched graphs, mapped per task instance */
    size_t npend, pend_cap;
    task_entry *tasks;     /* explicit task instances of matched regions (pass 1) */
    size_t tasks_cap, tasks_used;
    creation_entry *made;  /* T nodes reached by mapped segments */
    size_t made_cap, made_used;
    uint8_t *mark;
    int32_t *stack;
    ompdag_trace_rec *off; /* OMPDAG_REC_OFFLOAD records, sorted by (task, time) */
    size_t noff, off_cap;
} trace_ctx;

static void ctx_free(trace_ctx *c)
{
    free(c->locs);
    free(c->region_cp);
    free(c->region_graph);
    free(c->runs);
    free(c->tasks);
    free(c->pend);
    free(c->made);
    free(c->mark);
    free(c->stack);
    free(c->off);
    ompdag_symbolizer_destroy(c->sym);
}

/* Graph index + 1 for a region address, 0 when no graph matches. */
static size_t region_graph(trace_ctx *c, uint64_t cp)
{
    for (size_t i = 0; i < c->region_n; ++i)
        if (c->region_cp[i] == cp)
            return c->region_graph[i];
    size_t found = 0;
    ompdag_srcloc loc;
    ompdag_error e;
    if (ompdag_symbolizer_lookup(c->sym, cp, &loc, &e) == OMPDAG_OK)
        for (size_t gi = 0; gi < c->a->ngraphs && !found; ++gi)
            if (c->a->graphs[gi].region_line == loc.line &&
                same_file(c->a->graphs[gi].region_file, loc.file))
                found = gi + 1;
    if (c->region_n == c->region_cap) {
        size_t cap = c->region_cap ? 2 * c->region_cap : 16;
        uint64_t *p = realloc(c->region_cp, cap * sizeof *p);
        if (p)
            c->region_cp = p;
        size_t *q = realloc(c->region_graph, cap * sizeof *q);
        if (q)
            c->region_graph = q;
        if (!p || !q)
            return found;
        c->region_cap = cap;
    }
    c->region_cp[c->region_n] = cp;
    c->region_graph[c->region_n++] = found;
    return found;
}

static loc_entry *loc_slot(trace_ctx *c, uint64_t cp, size_t graph)
{
    size_t i = (size_t)(((cp ^ (graph * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull) >> 17) &
               (c->loc_cap - 1);
    while (c->locs[i].used && (c->locs[i].cp != cp || c->locs[i].graph != graph))
        i = (i + 1) & (c->loc_cap - 1);
    return &c->locs[i];
}

/* T and W nodes of `graph` at the line of code address cp. */
static const loc_entry *loc_nodes(trace_ctx *c, uint64_t cp, size_t graph)
{
    if (2 * (c->loc_used + 1) > c->loc_cap) {
        loc_entry *old = c->locs;
        size_t oldcap = c->loc_cap;
        size_t cap = oldcap ? 2 * oldcap : 256;
        loc_entry *n = calloc(cap, sizeof *n);
        if (!n)
            return NULL;
        c->locs = n;
        c->loc_cap = cap;
        for (size_t i = 0; i < oldcap; ++i)
            if (old[i].used)
                *loc_slot(c, old[i].cp, old[i].graph) = old[i];
        free(old);
    }
    loc_entry *e = loc_slot(c, cp, graph);
    if (e->used)
        return e;
    e->used = true;
    e->cp = cp;
    e->graph = graph;
    ++c->loc_used;
    ompdag_srcloc loc;
    ompdag_error err;
    if (ompdag_symbolizer_lookup(c->sym, cp, &loc, &err) != OMPDAG_OK)
        return e;
    e->ok = true;
    const ompdag_condag *g = c->a->graphs[graph].g;
    for (int32_t v = 0; v < c->a->graphs[graph].n && e->count < MAX_CANDIDATES; ++v) {
        ompdag_kind k = ompdag_condag_node_kind(g, v);
        ompdag_loc nl = ompdag_condag_node_loc(g, v);
        if ((k == OMPDAG_KIND_T || k == OMPDAG_KIND_W) && nl.line == loc.line &&
            (!nl.file || same_file(nl.file, loc.file)))
            e->nodes[e->count++] = v;
    }
    return e;
}

static void note_unmapped(trace_ctx *c, const pending_seg *r, const char *why)
{
    ompdag_annotation *a = c->a;
    ++a->unmapped;
    if (a->first_unmapped[0])
        return;
    ompdag_srcloc s = {0}, e = {0};
    ompdag_error err;
    if (r->cp_start)
        ompdag_symbolizer_lookup(c->sym, r->cp_start, &s, &err);
    if (r->cp_end)
        ompdag_symbolizer_lookup(c->sym, r->cp_end, &e, &err);
    snprintf(a->first_unmapped, sizeof a->first_unmapped,
             "segment from %s:%d (point kind %u) to %s:%d (point kind %u): %s",
             s.file ? s.file : "?", s.line, r->sk, e.file ? e.file : "?", e.line, r->ek, why);
}

static task_entry *task_slot(trace_ctx *c, uint64_t id)
{
    size_t i = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 16) & (c->tasks_cap - 1);
    while (c->tasks[i].id && c->tasks[i].id != id)
        i = (i + 1) & (c->tasks_cap - 1);
    return &c->tasks[i];
}

static bool task_insert(trace_ctx *c, const ompdag_trace_rec *r)
{
    if (2 * (c->tasks_used + 1) > c->tasks_cap) {
        task_entry *old = c->tasks;
        size_t oldcap = c->tasks_cap;
        c->tasks_cap = oldcap ? 2 * oldcap : 1024;
        c->tasks = calloc(c->tasks_cap, sizeof *c->tasks);
        if (!c->tasks) {
            c->tasks = old;
            c->tasks_cap = oldcap;
            return false;
        }
        for (size_t i = 0; i < oldcap; ++i)
            if (old[i].id)
                *task_slot(c, old[i].id) = old[i];
        free(old);
    }
    task_entry *e = task_slot(c, r->id);
    if (!e->id)
        ++c->tasks_used;
    *e = (task_entry){r->id, r->aux, r->cp_task, r->time, -2};
    return true;
}

/* The graph task of explicit task instance `id` (-1: its creator's task has
 * no T node at its line; -3: its creation is not in the trace): its creator's graph
 * task (the root when the creator is the implicit task running the single
 * body), then the T node of that task at the creating line. */
static int32_t task_resolve(trace_ctx *c, size_t graph, uint64_t id)
{
    if (!c->tasks_cap)
        return -3;
    task_entry *e = task_slot(c, id);
    if (!e->id)
        return -3;
    const ompdag_condag *g = c->a->graphs[graph].g;
    /* Resolve the deepest unresolved ancestor first (its creator is resolved
     * or is the implicit root), until e itself is resolved.  A creator chain
     * longer than the number of tasks is a cycle (corrupt trace): give up. */
    for (size_t guard = 0; e->task == -2; ++guard) {
        task_entry *x = e, *p = task_slot(c, x->parent);
        size_t steps = 0;
        while (p->id && p->task == -2 && steps++ <= c->tasks_used) {
            x = p;
            p = task_slot(c, x->parent);
        }
        if (steps > c->tasks_used || guard > c->tasks_used) {
            e->task = -1;
            break;
        }
        int32_t parent_task = p->id ? p->task : ompdag_condag_root_task(g);
        x->task = -1;
        const loc_entry *le = parent_task >= 0 ? loc_nodes(c, x->cp_task, graph) : NULL;
        for (int32_t i = 0; le && i < le->count; ++i)
            if (ompdag_condag_node_kind(g, le->nodes[i]) == OMPDAG_KIND_T &&
                ompdag_condag_node_task(g, le->nodes[i]) == parent_task) {
                x->task = ompdag_condag_node_creates(g, le->nodes[i]);
                break;
            }
    }
    return e->task;
}

static creation_entry *made_slot(trace_ctx *c, uint64_t parent, uint64_t time)
{
    size_t i = (size_t)(((parent * 0x9e3779b97f4a7c15ull) ^ (time * 0xff51afd7ed558ccdull)) >> 16) &
               (c->made_cap - 1);
    while (c->made[i].parent && (c->made[i].parent != parent || c->made[i].time != time))
        i = (i + 1) & (c->made_cap - 1);
    return &c->made[i];
}

static bool made_insert(trace_ctx *c, uint64_t parent, uint64_t time, int32_t tnode)
{
    if (!parent)
        return true;
    if (2 * (c->made_used + 1) > c->made_cap) {
        creation_entry *old = c->made;
        size_t oldcap = c->made_cap;
        c->made_cap = oldcap ? 2 * oldcap : 1024;
        c->made = calloc(c->made_cap, sizeof *c->made);
        if (!c->made) {
            c->made = old;
            c->made_cap = oldcap;
            return false;
        }
        for (size_t i = 0; i < oldcap; ++i)
            if (old[i].parent)
                *made_slot(c, old[i].parent, old[i].time) = old[i];
        free(old);
    }
    creation_entry *e = made_slot(c, parent, time);
    if (!e->parent)
        ++c->made_used;
    *e = (creation_entry){parent, time, tnode};
    return true;
}

/* The T node that created explicit instance `id`, as its creator's mapped
 * chain says; -1 when unknown. */
static int32_t made_by(trace_ctx *c, uint64_t id)
{
    if (!c->tasks_cap || !c->made_cap)
        return -1;
    const task_entry *e = task_slot(c, id);
    if (!e->id)
        return -1;
    const creation_entry *m = made_slot(c, e->parent, e->time);
    return m->parent ? m->tnode : -1;
}

static ompdag_status add_segment(trace_ctx *c, const ompdag_trace_rec *r, ompdag_error *err)
{
    ompdag_annotation *a = c->a;
    ++a->segments;
    size_t gp = r->cp_region ? region_graph(c, r->cp_region) : 0;
    /* Implicit-task code outside single/masked is no node's code. */
    if (!gp || ((r->flags & OMPDAG_RECF_IMPLICIT) && !(r->flags & OMPDAG_RECF_ROOT))) {
        ++a->outside;
        return OMPDAG_OK;
    }
    if (c->npend == c->pend_cap) {
        size_t cap = c->pend_cap ? 2 * c->pend_cap : 1024;
        pending_seg *p = realloc(c->pend, cap * sizeof *p);
        if (!p)
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        c->pend = p;
        c->pend_cap = cap;
    }
    c->pend[c->npend++] = (pending_seg){r->id,      r->time,         r->dur,      r->cp_start,
                                        r->cp_end,  r->cp_task,      (uint32_t)(gp - 1),
                                        r->start_kind, r->end_kind, r->flags};
    return OMPDAG_OK;
}

static int cmp_pending(const void *x, const void *y)
{
    const pending_seg *a = x, *b = y;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->time < b->time ? -1 : a->time > b->time;
}

/* ---- offloaded loops (cuda-offload/offload) ---------------------------------- */

static bool off_push(trace_ctx *c, const ompdag_trace_rec *r)
{
    if (c->noff == c->off_cap) {
        size_t cap = c->off_cap ? 2 * c->off_cap : 64;
        ompdag_trace_rec *p = realloc(c->off, cap * sizeof *p);
        if (!p)
            return false;
        c->off = p, c->off_cap = cap;
    }
    c->off[c->noff++] = *r;
    return true;
}

static int cmp_off(const void *x, const void *y)
{
    const ompdag_trace_rec *a = x, *b = y;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->time < b->time ? -1 : a->time > b->time;
}

static const char *device_kind_name(uint8_t kind)
{
    static const char *const names[] = {"cpu", "gpu-host", "gpu", "sim-gpu"};
    return kind < 4 ? names[kind] : "unknown";
}

static void max_into(json_t *o, const char *key, json_int_t v)
{
    json_t *old = json_object_get(o, key);
    if (!old || json_integer_value(old) < v)
        json_object_set_new(o, key, json_integer(v));
}

/* Folds one device's share into `into` (device index -> entry): the largest
 * share seen, and how many loops were seen. */
static bool offload_fold(json_t *into, const char *dev, const json_t *e)
{
    json_t *cur = json_object_get(into, dev);
    if (!cur) {
        cur = json_object();
        if (!cur || json_object_set_new(into, dev, cur))
            return false;
        json_object_update(cur, (json_t *)e);
        return true;
    }
    max_into(cur, "iterations_max", json_integer_value(json_object_get(e, "iterations_max")));
    max_into(cur, "busy_ns_max", json_integer_value(json_object_get(e, "busy_ns_max")));
    max_into(cur, "chunks_max", json_integer_value(json_object_get(e, "chunks_max")));
    json_object_set_new(cur, "loops", json_integer(json_integer_value(json_object_get(cur, "loops")) +
                                                   json_integer_value(json_object_get(e, "loops"))));
    return true;
}

/* Charges the offload records of task instance `id` that fell in (from, to]
 * — the segment just mapped to class k — to that class. */
static bool offload_attach(trace_ctx *c, seg_class *k, uint64_t id, uint64_t from, uint64_t to)
{
    size_t lo = 0, hi = c->noff;
    while (lo < hi) { /* first record with (id, time) > (id, from) */
        size_t mid = lo + (hi - lo) / 2;
        const ompdag_trace_rec *r = &c->off[mid];
        if (r->id < id || (r->id == id && r->time <= from))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < c->noff && c->off[lo].id == id && c->off[lo].time <= to; ++lo) {
        const ompdag_trace_rec *r = &c->off[lo];
        char dev[24];
        snprintf(dev, sizeof dev, "%llu", (unsigned long long)r->cp_start);
        json_t *e = json_pack("{s:I,s:s,s:I,s:I,s:I,s:I}", "device", (json_int_t)r->cp_start,
                              "kind", device_kind_name(r->flags), "iterations_max",
                              (json_int_t)r->aux, "busy_ns_max", (json_int_t)r->dur, "chunks_max",
                              (json_int_t)r->cp_end, "loops", (json_int_t)1);
        if (!k->offload)
            k->offload = json_object();
        bool ok = e && k->offload && offload_fold(k->offload, dev, e);
        json_decref(e);
        if (!ok)
            return false;
    }
    return true;
}

/* True when node v's location is the source line of code address cp. */
static bool node_at(trace_ctx *c, const ompdag_condag *g, int32_t v, uint64_t cp)
{
    ompdag_srcloc loc;
    ompdag_error err;
    if (!cp || ompdag_symbolizer_lookup(c->sym, cp, &loc, &err) != OMPDAG_OK)
        return false;
    ompdag_loc nl = ompdag_condag_node_loc(g, v);
    return nl.line == loc.line && (!nl.file || same_file(nl.file, loc.file));
}

/* The end point of a segment that starts at (sk, sn): the first node of the
 * right kind at the end directive's line that a segment path from the start
 * can reach.  This follows the graph, so unrolled loops and inlined
 * recursion (several nodes on one line) map occurrence by occurrence. */
static bool find_end(trace_ctx *c, const graph_info *gi, int32_t task, ompdag_point sk,
                     int32_t sn, const pending_seg *r, ompdag_point *ek, int32_t *en)
{
    const ompdag_condag *g = gi->g;
    if (!forward_set(gi, task, sk, sn, c->mark, c->stack))
        return false;
    switch (r->ek) {
    case OMPDAG_PT_TASK_END:
    case OMPDAG_PT_ROOT_END:
        *ek = OMPDAG_POINT_END;
        *en = -1;
        return (c->mark[ompdag_condag_task_sink(g, task)] & 1) ||
               empty_segment(g, task, sk, sn, OMPDAG_POINT_END, -1);
    case OMPDAG_PT_CREATE:
        *ek = OMPDAG_POINT_CREATE;
        for (int32_t v = 0; v < gi->n; ++v)
            if ((c->mark[v] & 1) && ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T &&
                node_at(c, g, v, r->cp_end)) {
                *en = v;
                return true;
            }
        return false;
    case OMPDAG_PT_TASKWAIT:
    case OMPDAG_PT_TASKGROUP:
        *ek = OMPDAG_POINT_WAIT;
        for (int32_t v = 0; v < gi->n; ++v) {
            if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_W || ompdag_condag_node_task(g, v) != task ||
                !node_at(c, g, v, r->cp_end))
                continue;
            bool reach = empty_segment(g, task, sk, sn, OMPDAG_POINT_WAIT, v);
            for (int32_t i = gi->pred_start[v]; i < gi->pred_start[v + 1] && !reach; ++i)
                reach = (c->mark[gi->pred[i]] & 1) != 0;
            if (reach) {
                *en = v;
                return true;
            }
        }
        return false;
    default:
        return false;
    }
}

/* Maps the time-ordered segments of one task instance onto task `task`,
 * walking the graph from its begin.  With dry_run, only counts how many map.
 * Returns that count, or SIZE_MAX on allocation failure. */
static size_t map_chain(trace_ctx *c, int32_t task, const pending_seg *seg, size_t n,
                        bool dry_run)
{
    ompdag_annotation *a = c->a;
    const graph_info *gi = &a->graphs[seg[0].graph];
    ompdag_point ck = OMPDAG_POINT_BEGIN;
    int32_t cn = -1;
    bool active = false;
    size_t mapped = 0;
    for (size_t i = 0; i < n; ++i) {
        const pending_seg *r = &seg[i];
        bool ok = true;
        const char *why = "no path of the graph joins these scheduling points";
        if (r->sk == OMPDAG_PT_TASK_BEGIN || r->sk == OMPDAG_PT_ROOT_BEGIN) {
            ck = OMPDAG_POINT_BEGIN;
            cn = -1;
            active = true;
        } else if (!active) {
            ok = false;
            why = "an earlier segment of its task did not map";
        } else if ((r->sk == OMPDAG_PT_CREATE) != (ck == OMPDAG_POINT_CREATE) ||
                   ((r->sk == OMPDAG_PT_TASKWAIT || r->sk == OMPDAG_PT_TASKGROUP) !=
                    (ck == OMPDAG_POINT_WAIT))) {
            ok = false;
        }
        ompdag_point ek = OMPDAG_POINT_END;
        int32_t en = -1;
        if (ok)
            ok = find_end(c, gi, task, ck, cn, r, &ek, &en);
        seg_class *k = NULL;
        if (ok && !dry_run) {
            bool nomem = false;
            k = class_get(a, r->graph, task, ck, cn, ek, en, c->mark, c->stack, &nomem);
            if (nomem || (k && !i64vec_push(&k->samples, (int64_t)r->dur)))
                return SIZE_MAX;
            if (k && c->noff && !offload_attach(c, k, r->id, i ? seg[i - 1].time : 0, r->time))
                return SIZE_MAX;
            ok = k != NULL;
        }
        if (!ok) {
            active = false;
            if (!dry_run)
                note_unmapped(c, r, why);
            continue;
        }
        ++mapped;
        if (!dry_run) {
            ++a->graphs[r->graph].segments;
            if (ek == OMPDAG_POINT_CREATE && !made_insert(c, r->id, r->time, en))
                return SIZE_MAX;
        }
        ck = ek;
        cn = en;
        if (ek == OMPDAG_POINT_END)
            active = false;
    }
    return mapped;
}

/* A task instance's segments in c->pend, and when the instance was created. */
typedef struct pend_group {
    size_t first, count;
    uint64_t created; /* 0 for implicit tasks: they go first */
} pend_group;

static int cmp_group(const void *x, const void *y)
{
    const pend_group *a = x, *b = y;
    if (a->created != b->created)
        return a->created < b->created ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* Maps every buffered segment, one task instance at a time, creators before
 * the tasks they create (so each child knows the T node that made it). */
static ompdag_status map_pending(trace_ctx *c, ompdag_error *err)
{
    ompdag_annotation *a = c->a;
    qsort(c->pend, c->npend, sizeof *c->pend, cmp_pending);
    size_t ngroups = 0;
    for (size_t i = 0; i < c->npend; ++i)
        ngroups += i == 0 || c->pend[i].id != c->pend[i - 1].id;
    pend_group *groups = malloc((ngroups + 1) * sizeof *groups);
    if (!groups)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    ngroups = 0;
    for (size_t i = 0, j; i < c->npend; i = j) {
        for (j = i + 1; j < c->npend && c->pend[j].id == c->pend[i].id; ++j)
            ;
        uint64_t created = 0;
        if (!(c->pend[i].flags & OMPDAG_RECF_IMPLICIT) && c->tasks_cap) {
            const task_entry *e = task_slot(c, c->pend[i].id);
            created = e->id ? e->time : UINT64_MAX;
        }
        groups[ngroups++] = (pend_group){i, j - i, created};
    }
    qsort(groups, ngroups, sizeof *groups, cmp_group);
    for (size_t gi = 0; gi < ngroups; ++gi) {
        size_t i = groups[gi].first, j = i + groups[gi].count;
        const pending_seg *seg = &c->pend[i];
        size_t graph = seg->graph, n = j - i;
        const ompdag_condag *g = a->graphs[graph].g;
        int32_t cand[MAX_CANDIDATES];
        int32_t ncand = 0;
        if (seg->flags & OMPDAG_RECF_IMPLICIT) {
            cand[ncand++] = ompdag_condag_root_task(g);
        } else {
            int32_t maker = made_by(c, seg->id);
            int32_t t = maker >= 0 ? ompdag_condag_node_creates(g, maker)
                                   : task_resolve(c, graph, seg->id);
            if (t >= 0) {
                cand[ncand++] = t;
            } else if (t == -3) { /* creation not in the trace: any task made at that line */
                const loc_entry *e = loc_nodes(c, seg->cp_task, graph);
                for (int32_t k = 0; e && k < e->count; ++k)
                    if (ompdag_condag_node_kind(g, e->nodes[k]) == OMPDAG_KIND_T)
                        cand[ncand++] = ompdag_condag_node_creates(g, e->nodes[k]);
            }
        }
        if (ncand == 0) {
            for (size_t k = 0; k < n; ++k)
                note_unmapped(c, &seg[k], "its task directive matches no T node of the graph");
            continue;
        }
        int32_t best = cand[0];
        for (int32_t k = 0; k < ncand && ncand > 1; ++k)
            if (map_chain(c, cand[k], seg, n, true) == n) {
                best = cand[k];
                break;
            }
        size_t got = map_chain(c, best, seg, n, false);
        if (got == SIZE_MAX) {
            free(groups);
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        }
        a->mapped += got;
    }
    free(groups);
    c->npend = 0;
    return OMPDAG_OK;
}

/* The run of region instance `id` (created on first sight), or NULL. */
static region_run *region_run_get(trace_ctx *c, uint64_t id, size_t graph)
{
    for (size_t i = c->nruns; i-- > 0;) /* recent runs first */
        if (c->runs[i].id == id)
            return &c->runs[i];
    if (c->nruns == c->runs_cap) {
        size_t cap = c->runs_cap ? 2 * c->runs_cap : 16;
        region_run *p = realloc(c->runs, cap * sizeof *p);
        if (!p)
            return NULL;
        c->runs = p;
        c->runs_cap = cap;
    }
    c->runs[c->nruns] = (region_run){.id = id, .graph = graph};
    return &c->runs[c->nruns++];
}

static ompdag_status add_region(trace_ctx *c, const ompdag_trace_rec *r, ompdag_error *err)
{
    size_t gp = r->cp_region ? region_graph(c, r->cp_region) : 0;
    if (!gp)
        return OMPDAG_OK;
    uint64_t id = r->type == OMPDAG_REC_REGION_BEGIN || r->type == OMPDAG_REC_REGION_END ? r->id
                                                                                         : r->aux;
    if (!id)
        return OMPDAG_OK;
    region_run *run = region_run_get(c, id, gp - 1);
    if (!run)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    switch (r->type) {
    case OMPDAG_REC_REGION_BEGIN: run->begin = r->time; break;
    case OMPDAG_REC_REGION_END: run->end = r->time; break;
    case OMPDAG_REC_SEGMENT:
        if (r->end_kind == OMPDAG_PT_ROOT_BEGIN)
            run->tasks_begin = r->time;
        if (r->end_kind == OMPDAG_PT_ROOT_END || r->end_kind == OMPDAG_PT_TASK_END)
            if ((r->flags & OMPDAG_RECF_ROOT) || !(r->flags & OMPDAG_RECF_IMPLICIT))
                run->tasks_end = r->time > run->tasks_end ? r->time : run->tasks_end;
        break;
    default: break;
    }
    return OMPDAG_OK;
}

/* Response times of the runs read from one trace. */
static ompdag_status finish_runs(trace_ctx *c, ompdag_error *err)
{
    for (size_t i = 0; i < c->nruns; ++i) {
        const region_run *run = &c->runs[i];
        graph_info *g = &c->a->graphs[run->graph];
        if (run->begin && run->end > run->begin &&
            !i64vec_push(&g->responses, (int64_t)(run->end - run->begin)))
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        if (run->tasks_begin && run->tasks_end > run->tasks_begin &&
            !i64vec_push(&g->task_responses, (int64_t)(run->tasks_end - run->tasks_begin)))
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    }
    return OMPDAG_OK;
}

ompdag_status ompdag_annotation_add_trace(ompdag_annotation *a, const char *path,
                                          ompdag_error *err)
{
    if (!a || !path)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "annotate: NULL argument");
    if (a->applied)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "annotate: already applied");
    ompdag_trace_reader *r;
    ompdag_status st = ompdag_trace_reader_open(path, &r, err);
    if (st)
        return st;
    trace_ctx c = {.a = a};
    size_t maxn = 1;
    for (size_t i = 0; i < a->ngraphs; ++i)
        if ((size_t)a->graphs[i].n > maxn)
            maxn = (size_t)a->graphs[i].n;
    c.mark = malloc(maxn);
    c.stack = malloc(2 * maxn * sizeof *c.stack + 16);
    if (!c.mark || !c.stack) {
        ctx_free(&c);
        ompdag_trace_reader_destroy(r);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    }
    if ((st = ompdag_symbolizer_create(r, &c.sym, err))) {
        ctx_free(&c);
        ompdag_trace_reader_destroy(r);
        return st;
    }
    /* Pass 1: who created which task (records of different threads are not
     * in time order, so a segment may precede its task's creation). */
    for (;;) {
        ompdag_trace_rec rec;
        bool done;
        if ((st = ompdag_trace_reader_next(r, &rec, &done, err)) || done)
            break;
        if (rec.type == OMPDAG_REC_TASK_CREATE && rec.cp_region &&
            region_graph(&c, rec.cp_region) && !task_insert(&c, &rec)) {
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
            break;
        }
    }
    ompdag_trace_reader_destroy(r);
    r = NULL;
    if (st == OMPDAG_OK)
        st = ompdag_trace_reader_open(path, &r, err);
    /* Pass 2: segments and regions. */
    for (; st == OMPDAG_OK;) {
        ompdag_trace_rec rec;
        bool done;
        if ((st = ompdag_trace_reader_next(r, &rec, &done, err)) || done)
            break;
        if (rec.type == OMPDAG_REC_SEGMENT && (st = add_segment(&c, &rec, err)))
            break;
        if (rec.type == OMPDAG_REC_OFFLOAD && rec.id && !off_push(&c, &rec)) {
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
            break;
        }
        if (rec.type != OMPDAG_REC_TASK_CREATE && (st = add_region(&c, &rec, err)))
            break;
    }
    if (st == OMPDAG_OK && c.noff)
        qsort(c.off, c.noff, sizeof *c.off, cmp_off);
    if (st == OMPDAG_OK)
        st = map_pending(&c, err);
    if (st == OMPDAG_OK)
        st = finish_runs(&c, err);
    ctx_free(&c);
    ompdag_trace_reader_destroy(r);
    if (st == OMPDAG_OK)
        ++a->traces;
    return st;
}

/* ---- apply -------------------------------------------------------------------------------- */

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

static void describe_node(const ompdag_condag *g, int32_t v, char *buf, size_t n)
{
    ompdag_loc l = ompdag_condag_node_loc(g, v);
    snprintf(buf, n, "%s:%d (%c node %s)", l.file ? l.file : "?", l.line,
             (char)ompdag_condag_node_kind(g, v), ompdag_condag_node_id(g, v));
}

static ompdag_status estimate_classes(ompdag_annotation *a, ompdag_error *err)
{
    for (size_t k = 0; k < a->nclasses; ++k) {
        seg_class *c = &a->classes[k];
        int64_t *s = c->samples.v;
        size_t n = c->samples.n;
        if (n == 0)
            continue;
        int64_t *sorted = malloc(n * sizeof *sorted);
        if (!sorted)
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        memcpy(sorted, s, n * sizeof *s);
        qsort(sorted, n, sizeof *sorted, cmp_i64);
        c->max = sorted[n - 1];
        c->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        free(sorted);
        c->estimate = c->max;
        if (a->opt.estimator == OMPDAG_ESTIMATOR_EVT) {
            /* Block maxima over consecutive samples in trace order. */
            double pw, mu, beta;
            ompdag_error e;
            ompdag_status st =
                ompdag_evt_gumbel_pwcet(s, n, a->opt.evt_block, a->opt.evt_min_blocks,
                                        a->opt.exceedance, &pw, &mu, &beta, &e);
            if (st) {
                char where[256];
                describe_node(a->graphs[c->graph].g, c->charged, where, sizeof where);
                return ompdag_error_set(err, st, "evt: segment class charged to %s: %s", where,
                                        e.message);
            }
            if (pw > (double)c->estimate)
                c->estimate = (int64_t)ceil(pw);
        }
    }
    return OMPDAG_OK;
}

/* Rule 2 classes are grouped by their end point, the others by their start. */
static bool same_group(const seg_class *x, const seg_class *y)
{
    if (x->graph != y->graph || x->task != y->task || x->charged != y->charged)
        return false;
    bool rx = x->sk != OMPDAG_POINT_WAIT && x->ek == OMPDAG_POINT_CREATE;
    bool ry = y->sk != OMPDAG_POINT_WAIT && y->ek == OMPDAG_POINT_CREATE;
    if (rx != ry)
        return false;
    return rx ? x->ek == y->ek && x->en == y->en : x->sk == y->sk && x->sn == y->sn;
}

/* The first class of k's group. */
static size_t group_leader(const ompdag_annotation *a, size_t k)
{
    for (size_t j = 0; j < k; ++j)
        if (same_group(&a->classes[j], &a->classes[k]))
            return j;
    return k;
}

static json_t *copy_extra(const ompdag_condag *g, int32_t v)
{
    json_t *ex = ompdag_condag_extra(g, v);
    return ex ? json_deep_copy(ex) : json_object();
}

ompdag_status ompdag_annotation_apply(ompdag_annotation *a, ompdag_error *err)
{
    if (!a)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "annotate: NULL argument");
    if (a->applied)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "annotate: already applied");
    if (a->unmapped && !a->opt.allow_unmapped)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%llu measured segments of matched regions fit no path of their "
                                "graph (first: %s); the graph does not match the program — "
                                "re-extract it, or pass --allow-unmapped",
                                (unsigned long long)a->unmapped, a->first_unmapped);
    ompdag_status st = estimate_classes(a, err);
    if (st)
        return st;
    /* Per node: samples covering it, sums over charged classes. */
    size_t total = 0;
    for (size_t gi = 0; gi < a->ngraphs; ++gi)
        total += (size_t)a->graphs[gi].n;
    uint64_t *samples = calloc(total + 1, sizeof *samples);
    int64_t *basis = calloc(total + 1, sizeof *basis);
    int64_t *omax = calloc(total + 1, sizeof *omax);
    int64_t *omed = calloc(total + 1, sizeof *omed);
    json_t **nodeoff = calloc(total + 1, sizeof *nodeoff); /* per node: device -> share */
    size_t *offset = calloc(a->ngraphs + 1, sizeof *offset);
    size_t maxn = 1;
    for (size_t gi = 0; gi < a->ngraphs; ++gi)
        if ((size_t)a->graphs[gi].n > maxn)
            maxn = (size_t)a->graphs[gi].n;
    uint8_t *mark = malloc(maxn);
    int32_t *stack = malloc(2 * maxn * sizeof *stack + 16);
    size_t *leader = NULL;
    char *msg = NULL;
    size_t msglen = 0;
    FILE *msgf = NULL;
    if (!samples || !basis || !omax || !omed || !nodeoff || !offset || !mark || !stack) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        goto done;
    }
    for (size_t gi = 0; gi < a->ngraphs; ++gi)
        offset[gi + 1] = offset[gi] + (size_t)a->graphs[gi].n;
    for (size_t k = 0; k < a->nclasses; ++k) {
        seg_class *c = &a->classes[k];
        const graph_info *g = &a->graphs[c->graph];
        size_t base = offset[c->graph];
        segment_path(g, c->task, c->sk, c->sn, c->ek, c->en, mark, stack);
        mark[c->charged] = 1;
        for (int32_t v = 0; v < g->n; ++v)
            if (mark[v])
                samples[base + (size_t)v] += c->samples.n;
        const char *dev;
        json_t *e;
        size_t i = base + (size_t)c->charged;
        if (c->offload && !nodeoff[i])
            nodeoff[i] = json_object();
        json_object_foreach(c->offload, dev, e)
        {
            if (!nodeoff[i] || !offload_fold(nodeoff[i], dev, e)) {
                st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
                goto done;
            }
        }
    }
    /* Classes charged to one node that share their start point (rules 1, 3)
     * or their end point (rule 2) never occur in the same task instance: a
     * flow passes each scheduling point once.  Such a group contributes its
     * maximum; different groups add up. */
    leader = malloc((a->nclasses + 1) * sizeof *leader);
    if (!leader) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        goto done;
    }
    for (size_t k = 0; k < a->nclasses; ++k)
        leader[k] = group_leader(a, k);
    for (size_t k = 0; k < a->nclasses; ++k) {
        if (leader[k] != k)
            continue;
        const seg_class *c = &a->classes[k];
        int64_t e = 0, mx = 0, md = 0;
        for (size_t k2 = k; k2 < a->nclasses; ++k2)
            if (leader[k2] == k) {
                const seg_class *d = &a->classes[k2];
                e = d->estimate > e ? d->estimate : e;
                mx = d->max > mx ? d->max : mx;
                md = d->median > md ? d->median : md;
            }
        size_t i = offset[c->graph] + (size_t)c->charged;
        basis[i] += e;
        omax[i] += mx;
        omed[i] += md;
    }
    /* Unobserved nodes. */
    size_t unobserved = 0;
    msgf = open_memstream(&msg, &msglen);
    if (!msgf) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        goto done;
    }
    for (size_t gi = 0; gi < a->ngraphs; ++gi)
        for (int32_t v = 0; v < a->graphs[gi].n; ++v)
            if (samples[offset[gi] + (size_t)v] == 0) {
                char where[256];
                describe_node(a->graphs[gi].g, v, where, sizeof where);
                if (unobserved < 12)
                    fprintf(msgf, "%s%s", unobserved ? ", " : "", where);
                ++unobserved;
            }
    fclose(msgf);
    msgf = NULL;
    if (unobserved && a->opt.unobserved == OMPDAG_UNOBSERVED_ERROR) {
        st = ompdag_error_set(err, OMPDAG_ERR_INVALID,
                              "%zu nodes were never observed: %s%s; run the program with inputs "
                              "that reach them, or pass --unobserved zero",
                              unobserved, msg, unobserved > 12 ? ", ..." : "");
        goto done;
    }
    /* Write WCETs and extras. */
    const char *method = a->opt.estimator == OMPDAG_ESTIMATOR_EVT ? "evt" : "max";
    for (size_t gi = 0; gi < a->ngraphs; ++gi) {
        graph_info *g = &a->graphs[gi];
        for (int32_t v = 0; v < g->n; ++v) {
            size_t i = offset[gi] + (size_t)v;
            long double w = ceill((long double)basis[i] * (100.0L + a->opt.margin_pct) / 100.0L);
            if (w > (long double)INT64_MAX / 4) {
                st = ompdag_error_set(err, OMPDAG_ERR_OVERFLOW, "annotate: WCET overflows");
                goto done;
            }
            if ((st = ompdag_condag_set_wcet(g->g, v, (int64_t)w, err)))
                goto done;
            json_t *ex = copy_extra(g->g, v);
            json_object_set_new(ex, "samples", json_integer((json_int_t)samples[i]));
            json_object_set_new(ex, "observed_max", json_integer(omax[i]));
            json_object_set_new(ex, "observed_median", json_integer(omed[i]));
            json_object_set_new(ex, "margin_pct", json_real(a->opt.margin_pct));
            json_object_set_new(ex, "estimator", json_string(method));
            if (samples[i] == 0)
                json_object_set_new(ex, "unobserved", json_true());
            if (nodeoff[i]) { /* an offloaded loop runs in this node: its split by device */
                json_t *arr = json_array();
                const char *dev;
                json_t *e;
                json_object_foreach(nodeoff[i], dev, e)
                {
                    json_array_append(arr, e);
                }
                json_object_set_new(ex, "offload", arr);
            }
            ompdag_condag_set_extra(g->g, v, ex);
            json_decref(ex);
        }
        json_t *gx = copy_extra(g->g, -1);
        json_t *resp = json_array();
        for (size_t r = 0; r < g->responses.n; ++r)
            json_array_append_new(resp, json_integer(g->responses.v[r]));
        json_object_set_new(gx, "observed_response_ns", resp);
        json_t *tresp = json_array();
        for (size_t r = 0; r < g->task_responses.n; ++r)
            json_array_append_new(tresp, json_integer(g->task_responses.v[r]));
        json_object_set_new(gx, "observed_task_response_ns", tresp);
        json_t *m = json_object();
        json_object_set_new(m, "estimator", json_string(method));
        json_object_set_new(m, "margin_pct", json_real(a->opt.margin_pct));
        if (a->opt.estimator == OMPDAG_ESTIMATOR_EVT) {
            json_object_set_new(m, "exceedance", json_real(a->opt.exceedance));
            json_object_set_new(m, "block", json_integer(a->opt.evt_block));
        }
        json_object_set_new(m, "traces", json_integer((json_int_t)a->traces));
        json_object_set_new(m, "segments", json_integer((json_int_t)g->segments));
        json_object_set_new(m, "rule", json_string("docs/probe.md#attribution"));
        json_object_set_new(m, "unobserved", json_string(a->opt.unobserved ==
                                                         OMPDAG_UNOBSERVED_ZERO ? "zero" : "error"));
        json_object_set_new(gx, "wcet_method", m);
        ompdag_condag_set_extra(g->g, -1, gx);
        json_decref(gx);
    }
    a->applied = true;
done:
    for (size_t i = 0; nodeoff && i < total; ++i)
        json_decref(nodeoff[i]);
    free(nodeoff);
    free(leader);
    free(msg);
    free(samples);
    free(basis);
    free(omax);
    free(omed);
    free(offset);
    free(mark);
    free(stack);
    return st;
}

void ompdag_annotation_print_report(const ompdag_annotation *a, FILE *out)
{
    fprintf(out, "method: %s", a->opt.estimator == OMPDAG_ESTIMATOR_EVT ? "evt (Gumbel, PWM, block maxima)" : "max (high-water mark)");
    if (a->opt.estimator == OMPDAG_ESTIMATOR_EVT)
        fprintf(out, ", exceedance %g per segment, blocks of %d", a->opt.exceedance,
                a->opt.evt_block);
    fprintf(out, "; margin %.1f%%; unobserved nodes: %s\n", a->opt.margin_pct,
            a->opt.unobserved == OMPDAG_UNOBSERVED_ZERO ? "zero" : "error");
    fprintf(out, "samples: %llu traces, %llu segments, %llu mapped to %zu classes, %llu outside "
                 "any graph, %llu unmapped\n",
            (unsigned long long)a->traces, (unsigned long long)a->segments,
            (unsigned long long)a->mapped, a->nclasses, (unsigned long long)a->outside,
            (unsigned long long)a->unmapped);
    for (size_t gi = 0; gi < a->ngraphs; ++gi) {
        const graph_info *g = &a->graphs[gi];
        int64_t rmax = 0;
        for (size_t r = 0; r < g->responses.n; ++r)
            if (g->responses.v[r] > rmax)
                rmax = g->responses.v[r];
        const char *fn = ompdag_condag_function(g->g);
        fprintf(out, "graph %zu%s%s (%s:%d): %llu segments, %zu runs, max response %lld ns\n", gi,
                fn ? " " : "", fn ? fn : "", g->region_file ? g->region_file : "?",
                g->region_line, (unsigned long long)g->segments, g->responses.n,
                (long long)rmax);
    }
}

size_t ompdag_annotation_class_count(const ompdag_annotation *a) { return a->nclasses; }

void ompdag_annotation_class(const ompdag_annotation *a, size_t i, ompdag_segment_class *out)
{
    const seg_class *c = &a->classes[i];
    int64_t mx = 0;
    for (size_t j = 0; j < c->samples.n; ++j)
        if (c->samples.v[j] > mx)
            mx = c->samples.v[j];
    *out = (ompdag_segment_class){c->graph, c->task, c->sk, c->sn, c->ek, c->en, c->charged,
                                  c->samples.n, mx, c->median, c->estimate};
}

void ompdag_annotation_counts(const ompdag_annotation *a, uint64_t *segments, uint64_t *mapped,
                              uint64_t *unmapped)
{
    *segments = a->segments;
    *mapped = a->mapped;
    *unmapped = a->unmapped;
}
