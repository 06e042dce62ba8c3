/*
 * runtime-probe/annotate_trace.c — reading traces: segments mapped per task instance, region runs.
 * Part of `ompdag annotate`; the rule and its safety argument are in
 * annotate_internal.h and docs/probe.md.
 */
#include "annotate_internal.h"

static void ctx_free(trace_ctx *c)
{
    free(c->locs);
    free(c->region_cp);
    free(c->region_graph);
    free(c->runs);
    free(c->interfered_runs);
    free(c->run_index);
    free(c->tasks);
    free(c->pend);
    free(c->made);
    free(c->mark);
    free(c->stack);
    free(c->off);
    free(c->items);
    free(c->pairs);
    free(c->exec);
    ompdag_symbolizer_destroy(c->sym);
}

/* Graph index + 1 for a region address, 0 when no graph matches. */
static size_t region_graph(trace_ctx *c, uint64_t cp)
{
    for (size_t i = 0; i < c->region_n; ++i)
        if (c->region_cp[i] == cp) return c->region_graph[i];
    size_t found = 0;
    ompdag_srcloc loc;
    ompdag_error e;
    if (ompdag_symbolizer_lookup(c->sym, cp, &loc, &e) == OMPDAG_OK)
        for (size_t gi = 0; gi < c->a->ngraphs && !found; ++gi)
            if (c->a->graphs[gi].region_line == loc.line &&
                annot_same_file(c->a->graphs[gi].region_file, loc.file))
                found = gi + 1;
    if (c->region_n == c->region_cap) {
        size_t cap = c->region_cap ? 2 * c->region_cap : 16;
        uint64_t *p = realloc(c->region_cp, cap * sizeof *p);
        if (p) c->region_cp = p;
        size_t *q = realloc(c->region_graph, cap * sizeof *q);
        if (q) c->region_graph = q;
        if (!p || !q) return found;
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
        if (!n) return NULL;
        c->locs = n;
        c->loc_cap = cap;
        for (size_t i = 0; i < oldcap; ++i)
            if (old[i].used) *loc_slot(c, old[i].cp, old[i].graph) = old[i];
        free(old);
    }
    loc_entry *e = loc_slot(c, cp, graph);
    if (e->used) return e;
    e->used = true;
    e->cp = cp;
    e->graph = graph;
    ++c->loc_used;
    ompdag_srcloc loc;
    ompdag_error err;
    if (ompdag_symbolizer_lookup(c->sym, cp, &loc, &err) != OMPDAG_OK) return e;
    e->ok = true;
    const ompdag_condag *g = c->a->graphs[graph].g;
    for (int32_t v = 0; v < c->a->graphs[graph].n && e->count < MAX_CANDIDATES; ++v) {
        ompdag_kind k = ompdag_condag_node_kind(g, v);
        ompdag_loc nl = ompdag_condag_node_loc(g, v);
        if ((k == OMPDAG_KIND_T || k == OMPDAG_KIND_W) && nl.line == loc.line &&
            (!nl.file || annot_same_file(nl.file, loc.file)))
            e->nodes[e->count++] = v;
    }
    return e;
}

/* The name of a scheduling point kind (ompdag/probe.h), for messages. */
const char *annot_point_name(uint8_t kind)
{
    switch (kind) {
    case OMPDAG_PT_TASK_BEGIN:
        return "task begin";
    case OMPDAG_PT_TASK_END:
        return "task end";
    case OMPDAG_PT_CREATE:
        return "task creation";
    case OMPDAG_PT_TASKWAIT:
        return "taskwait";
    case OMPDAG_PT_TASKGROUP:
        return "end of taskgroup";
    case OMPDAG_PT_BARRIER:
        return "barrier";
    case OMPDAG_PT_ROOT_BEGIN:
        return "single/masked begin";
    case OMPDAG_PT_ROOT_END:
        return "single/masked end";
    case OMPDAG_PT_OTHER:
        return "unpaired runtime event";
    default:
        return "unknown point";
    }
}

/* "file:line (taskwait)", or why there is no line: a task's begin and end
 * have no code address, and an address may have no line information. */
static void describe_point(trace_ctx *c, uint64_t cp, uint8_t kind, char *buf, size_t n)
{
    ompdag_srcloc loc = {0};
    ompdag_error err = {0};
    if (!cp) {
        snprintf(buf, n, "%s (no code address: the runtime reports none for it)",
                 annot_point_name(kind));
    } else if (ompdag_symbolizer_lookup(c->sym, cp, &loc, &err) || !loc.file) {
        snprintf(buf, n, "%s at address 0x%llx (no line information: %.120s)",
                 annot_point_name(kind), (unsigned long long)cp,
                 err.message[0] ? err.message : "none in the debug info");
    } else {
        snprintf(buf, n, "%s:%d (%s)", loc.file, loc.line, annot_point_name(kind));
    }
}

static void note_unmapped(trace_ctx *c, const pending_seg *r, const char *why)
{
    ompdag_annotation *a = c->a;
    ++a->unmapped;
    ++a->graphs[r->graph].unmapped;
    if (a->first_unmapped[0]) return;
    char from[200], to[200];
    bool begin = r->sk == OMPDAG_PT_TASK_BEGIN || r->sk == OMPDAG_PT_ROOT_BEGIN;
    if (begin && !r->cp_start && r->cp_task)
        describe_point(c, r->cp_task, OMPDAG_PT_CREATE, from, sizeof from);
    else
        describe_point(c, r->cp_start, r->sk, from, sizeof from);
    describe_point(c, r->cp_end, r->ek, to, sizeof to);
    snprintf(a->first_unmapped, sizeof a->first_unmapped, "segment from %s%s to %s: %s",
             begin && !r->cp_start && r->cp_task ? "the begin of the task created at " : "", from,
             to, why);
}

task_entry *annot_task_slot(trace_ctx *c, uint64_t id)
{
    size_t i = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 16) & (c->tasks_cap - 1);
    while (c->tasks[i].id && c->tasks[i].id != id)
        i = (i + 1) & (c->tasks_cap - 1);
    return &c->tasks[i];
}

static bool task_insert(trace_ctx *c, const ompdag_trace_rec *r, size_t graph)
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
            if (old[i].id) *annot_task_slot(c, old[i].id) = old[i];
        free(old);
    }
    task_entry *e = annot_task_slot(c, r->id);
    if (!e->id) ++c->tasks_used;
    *e = (task_entry){.id = r->id,
                      .parent = r->aux,
                      .cp_task = r->cp_task,
                      .time = r->time,
                      .task = -2,
                      .graph = (uint32_t)graph};
    return true;
}

/* The graph task of explicit task instance `id` (-1: its creator's task has
 * no T node at its line; -3: its creation is not in the trace): its creator's graph
 * task (the root when the creator is the implicit task running the single
 * body), then the T node of that task at the creating line. */
static int32_t task_resolve(trace_ctx *c, size_t graph, uint64_t id)
{
    if (!c->tasks_cap) return -3;
    task_entry *e = annot_task_slot(c, id);
    if (!e->id) return -3;
    const ompdag_condag *g = c->a->graphs[graph].g;
    /* Resolve the deepest unresolved ancestor first (its creator is resolved
     * or is the implicit root), until e itself is resolved.  A creator chain
     * longer than the number of tasks is a cycle (corrupt trace): give up. */
    for (size_t guard = 0; e->task == -2; ++guard) {
        task_entry *x = e, *p = annot_task_slot(c, x->parent);
        size_t steps = 0;
        while (p->id && p->task == -2 && steps++ <= c->tasks_used) {
            x = p;
            p = annot_task_slot(c, x->parent);
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
    if (!parent) return true;
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
            if (old[i].parent) *made_slot(c, old[i].parent, old[i].time) = old[i];
        free(old);
    }
    creation_entry *e = made_slot(c, parent, time);
    if (!e->parent) ++c->made_used;
    *e = (creation_entry){parent, time, tnode};
    return true;
}

/* The T node that created explicit instance `id`, as its creator's mapped
 * chain says; -1 when unknown. */
int32_t annot_made_by(trace_ctx *c, uint64_t id)
{
    if (!c->tasks_cap || !c->made_cap) return -1;
    const task_entry *e = annot_task_slot(c, id);
    if (!e->id) return -1;
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
    if (!(r->flags & OMPDAG_RECF_IMPLICIT) && c->tasks_cap) {
        /* run, first start and completion of the instance (annotate_depend.c) */
        task_entry *e = annot_task_slot(c, r->id);
        if (e->id) {
            e->run = r->aux;
            if (r->start_kind == OMPDAG_PT_TASK_BEGIN) {
                e->seg_start = r->time - r->dur;
                e->seg_suspended = (r->flags & OMPDAG_RECF_SUSPENDED) != 0;
            }
            if (r->end_kind == OMPDAG_PT_TASK_END) e->end = r->time;
        }
    }
    if (c->npend == c->pend_cap) {
        size_t cap = c->pend_cap ? 2 * c->pend_cap : 1024;
        pending_seg *p = realloc(c->pend, cap * sizeof *p);
        if (!p) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        c->pend = p;
        c->pend_cap = cap;
    }
    c->pend[c->npend++] = (pending_seg){.id = r->id,
                                        .time = r->time,
                                        .dur = r->dur,
                                        .cp_start = r->cp_start,
                                        .cp_end = r->cp_end,
                                        .cp_task = r->cp_task,
                                        .run = r->aux,
                                        .graph = (uint32_t)(gp - 1),
                                        .thread = r->thread,
                                        .sk = r->start_kind,
                                        .ek = r->end_kind,
                                        .flags = r->flags};
    return OMPDAG_OK;
}

int annot_cmp_pending(const void *x, const void *y)
{
    const pending_seg *a = x, *b = y;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return a->time < b->time ? -1 : a->time > b->time;
}

static bool node_at(trace_ctx *c, const ompdag_condag *g, int32_t v, uint64_t cp)
{
    ompdag_srcloc loc;
    ompdag_error err;
    if (!cp || ompdag_symbolizer_lookup(c->sym, cp, &loc, &err) != OMPDAG_OK) return false;
    ompdag_loc nl = ompdag_condag_node_loc(g, v);
    return nl.line == loc.line && (!nl.file || annot_same_file(nl.file, loc.file));
}

/* The end point of a segment that starts at (sk, sn): the node of the right
 * kind at the end directive's line that a segment path from the start can
 * reach.  This follows the graph, so unrolled loops and inlined recursion
 * (several nodes on one line) map occurrence by occurrence.
 *
 * Optimized builds (issue 12 §4): -O2 moves, merges and tail-calls runtime
 * calls, so a call's return address may carry another line.  When no
 * reachable candidate is at the reported line, the task's sequence of
 * scheduling points decides by structure: if exactly one node of the right
 * kind is reachable from the start point, it is the end (counted in
 * a->by_structure); with several, the segment is refused as ambiguous
 * (*why says so) — never attributed to a guess. */
static bool find_end(trace_ctx *c, const graph_info *gi, int32_t task, ompdag_point sk, int32_t sn,
                     const pending_seg *r, ompdag_point *ek, int32_t *en, const char **why)
{
    const ompdag_condag *g = gi->g;
    if (!annot_forward_set(gi, task, sk, sn, c->mark, c->stack)) return false;
    int32_t cand = -1, ncand = 0;
    switch (r->ek) {
    case OMPDAG_PT_TASK_END:
    case OMPDAG_PT_ROOT_END:
        *ek = OMPDAG_POINT_END;
        *en = -1;
        return (c->mark[ompdag_condag_task_sink(g, task)] & 1) ||
               annot_empty_segment(g, task, sk, sn, OMPDAG_POINT_END, -1);
    case OMPDAG_PT_CREATE:
        *ek = OMPDAG_POINT_CREATE;
        for (int32_t v = 0; v < gi->n; ++v) {
            if (!(c->mark[v] & 1) || ompdag_condag_node_kind(g, v) != OMPDAG_KIND_T) continue;
            if (node_at(c, g, v, r->cp_end)) {
                *en = v;
                return true;
            }
            cand = v, ++ncand;
        }
        break;
    case OMPDAG_PT_TASKWAIT:
    case OMPDAG_PT_TASKGROUP:
        *ek = OMPDAG_POINT_WAIT;
        for (int32_t v = 0; v < gi->n; ++v) {
            if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_W ||
                ompdag_condag_node_task(g, v) != task)
                continue;
            bool reach = annot_empty_segment(g, task, sk, sn, OMPDAG_POINT_WAIT, v);
            for (int32_t i = gi->pred_start[v]; i < gi->pred_start[v + 1] && !reach; ++i)
                reach = (c->mark[gi->pred[i]] & 1) && !annot_undeferred_wait(g, gi->pred[i], v);
            if (!reach) continue;
            if (node_at(c, g, v, r->cp_end)) {
                *en = v;
                return true;
            }
            cand = v, ++ncand;
        }
        break;
    default:
        return false;
    }
    if (ncand == 1) {
        *en = cand;
        ++c->a->by_structure;
        return true;
    }
    if (ncand > 1)
        *why = "ambiguous: the directive's line matches none of the nodes the graph allows "
               "here, and several are possible (optimized code moved the runtime call); "
               "refused rather than guessed";
    return false;
}

/* Maps the time-ordered segments of one task instance onto task `task`,
 * walking the graph from its begin.  With dry_run, only counts how many map.
 * Returns that count, or SIZE_MAX on allocation failure. */
static size_t map_chain(trace_ctx *c, int32_t task, const pending_seg *seg, size_t n, bool dry_run)
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
        if (ok) ok = find_end(c, gi, task, ck, cn, r, &ek, &en, &why);
        seg_class *k = NULL;
        if (ok && !dry_run) {
            bool nomem = false;
            k = annot_class_get(a, r->graph, task, ck, cn, ek, en, c->mark, c->stack, &nomem);
            i64vec *into = k && annot_run_interfered(c, r->run) ? &k->samples_if
                           : k                                  ? &k->samples
                                                                : NULL;
            if (nomem || (k && !annot_i64vec_push(into, (int64_t)r->dur))) return SIZE_MAX;
            if (k && c->noff &&
                !annot_offload_attach(c, k, r->id, i ? seg[i - 1].time : 0, r->time))
                return SIZE_MAX;
            ok = k != NULL;
        }
        if (!ok) {
            active = false;
            if (!dry_run) note_unmapped(c, r, why);
            continue;
        }
        ++mapped;
        if (!dry_run) {
            ++a->graphs[r->graph].segments;
            if (ek == OMPDAG_POINT_CREATE && !made_insert(c, r->id, r->time, en)) return SIZE_MAX;
            if ((ek == OMPDAG_POINT_CREATE || ek == OMPDAG_POINT_WAIT) &&
                !annot_exec_push(c, r->run, r->graph, en))
                return SIZE_MAX;
        }
        ck = ek;
        cn = en;
        if (ek == OMPDAG_POINT_END) active = false;
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
    if (a->created != b->created) return a->created < b->created ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* Maps every buffered segment, one task instance at a time, creators before
 * the tasks they create (so each child knows the T node that made it). */
/* A task instance that maps to no graph task, nested deeper than every
 * creation chain of the graph: the run recursed beyond the graph's bound,
 * which the bound does not cover (annotate_compact.c). */
static ompdag_status check_nesting(trace_ctx *c, size_t graph, const pending_seg *seg,
                                   ompdag_error *err)
{
    if (!c->tasks_cap) return OMPDAG_OK;
    int32_t depth = 0;
    for (const task_entry *e = annot_task_slot(c, seg->id); e->id && depth <= (int32_t)c->tasks_used;
         e = annot_task_slot(c, e->parent))
        ++depth;
    const ompdag_condag *g = c->a->graphs[graph].g;
    int32_t have = annot_graph_nesting(g);
    if (depth <= have) return OMPDAG_OK;
    ompdag_srcloc loc;
    ompdag_error e;
    char where[300] = "an unknown line";
    if (ompdag_symbolizer_lookup(c->sym, seg->cp_task, &loc, &e) == OMPDAG_OK)
        snprintf(where, sizeof where, "%s:%d", loc.file ? loc.file : "?", loc.line);
    return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                            "a task created at %s ran %d task levels deep, but the graph of "
                            "region %s has %d: the run recursed beyond the graph's recursion "
                            "bound, so the bound does not cover it; re-extract with a larger "
                            "--recursion-bound",
                            where, depth, ompdag_condag_name(g) ? ompdag_condag_name(g) : "?",
                            have);
}

static ompdag_status map_pending(trace_ctx *c, ompdag_error *err)
{
    ompdag_annotation *a = c->a;
    ompdag_status st;
    if (c->npend > 1) /* pend may be NULL */
        qsort(c->pend, c->npend, sizeof *c->pend, annot_cmp_pending);
    size_t ngroups = 0;
    for (size_t i = 0; i < c->npend; ++i)
        ngroups += i == 0 || c->pend[i].id != c->pend[i - 1].id;
    pend_group *groups = malloc((ngroups + 1) * sizeof *groups);
    if (!groups) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    ngroups = 0;
    for (size_t i = 0, j; i < c->npend; i = j) {
        for (j = i + 1; j < c->npend && c->pend[j].id == c->pend[i].id; ++j)
            ;
        uint64_t created = 0;
        if (!(c->pend[i].flags & OMPDAG_RECF_IMPLICIT) && c->tasks_cap) {
            const task_entry *e = annot_task_slot(c, c->pend[i].id);
            created = e->id ? e->time : UINT64_MAX;
        }
        groups[ngroups++] = (pend_group){i, j - i, created};
    }
    if (ngroups > 1) qsort(groups, ngroups, sizeof *groups, cmp_group);
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
            int32_t maker = annot_made_by(c, seg->id);
            int32_t t =
                maker >= 0 ? ompdag_condag_node_creates(g, maker) : task_resolve(c, graph, seg->id);
            if (t >= 0) {
                cand[ncand++] = t;
            } else if (t == -3) { /* creation not in the trace: any task made at that line */
                const loc_entry *e = loc_nodes(c, seg->cp_task, graph);
                for (int32_t k = 0; e && k < e->count; ++k)
                    if (ompdag_condag_node_kind(g, e->nodes[k]) == OMPDAG_KIND_T)
                        cand[ncand++] = ompdag_condag_node_creates(g, e->nodes[k]);
            }
        }
        if (ncand == 0 && !(seg->flags & OMPDAG_RECF_IMPLICIT) &&
            (st = check_nesting(c, graph, seg, err))) {
            free(groups);
            return st;
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
    /* hashed: a time-step loop around a `parallel` makes 10^6 runs, and a
     * linear search here made reading such a trace quadratic */
    if (2 * (c->nruns + 1) > c->run_index_cap) {
        size_t cap = c->run_index_cap ? 2 * c->run_index_cap : 64;
        size_t *idx = calloc(cap, sizeof *idx);
        if (!idx) return NULL;
        for (size_t i = 0; i < c->nruns; ++i) {
            size_t h = (size_t)((c->runs[i].id * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
            while (idx[h]) h = (h + 1) & (cap - 1);
            idx[h] = i + 1;
        }
        free(c->run_index);
        c->run_index = idx, c->run_index_cap = cap;
    }
    size_t h = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 17) & (c->run_index_cap - 1);
    for (; c->run_index[h]; h = (h + 1) & (c->run_index_cap - 1))
        if (c->runs[c->run_index[h] - 1].id == id) return &c->runs[c->run_index[h] - 1];
    if (c->nruns == c->runs_cap) {
        size_t cap = c->runs_cap ? 2 * c->runs_cap : 16;
        region_run *p = realloc(c->runs, cap * sizeof *p);
        if (!p) return NULL;
        c->runs = p;
        c->runs_cap = cap;
    }
    c->runs[c->nruns] = (region_run){.id = id, .graph = graph};
    c->run_index[h] = c->nruns + 1;
    return &c->runs[c->nruns++];
}

static ompdag_status add_region(trace_ctx *c, const ompdag_trace_rec *r, ompdag_error *err)
{
    size_t gp = r->cp_region ? region_graph(c, r->cp_region) : 0;
    if (!gp) return OMPDAG_OK;
    uint64_t id =
        r->type == OMPDAG_REC_REGION_BEGIN || r->type == OMPDAG_REC_REGION_END ? r->id : r->aux;
    if (!id) return OMPDAG_OK;
    region_run *run = region_run_get(c, id, gp - 1);
    if (!run) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    switch (r->type) {
    case OMPDAG_REC_REGION_BEGIN:
        run->begin = r->time;
        run->requested = (uint32_t)(r->aux < UINT32_MAX ? r->aux : UINT32_MAX);
        break;
    case OMPDAG_REC_SCHED:
        annot_sched_record(run, r);
        break;
    case OMPDAG_REC_REGION_END:
        run->end = r->time;
        break;
    case OMPDAG_REC_SEGMENT:
        if (r->thread < 64) run->thread_mask |= 1ull << r->thread;
        if (r->end_kind == OMPDAG_PT_ROOT_BEGIN) run->tasks_begin = r->time;
        if (r->end_kind == OMPDAG_PT_ROOT_END || r->end_kind == OMPDAG_PT_TASK_END)
            if ((r->flags & OMPDAG_RECF_ROOT) || !(r->flags & OMPDAG_RECF_IMPLICIT))
                run->tasks_end = r->time > run->tasks_end ? r->time : run->tasks_end;
        break;
    default:
        break;
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
            (!annot_i64vec_push(&g->responses, (int64_t)(run->end - run->begin)) ||
             !annot_i64vec_push(&g->responses_interfered, run->interfered)))
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        if (run->tasks_begin && run->tasks_end > run->tasks_begin &&
            (!annot_i64vec_push(&g->task_responses, (int64_t)(run->tasks_end - run->tasks_begin)) ||
             !annot_i64vec_push(&g->task_responses_interfered, run->interfered)))
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    }
    return OMPDAG_OK;
}

ompdag_status ompdag_annotation_add_trace(ompdag_annotation *a, const char *path, ompdag_error *err)
{
    if (!a || !path) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "annotate: NULL argument");
    if (a->applied) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "annotate: already applied");
    ompdag_trace_reader *r;
    ompdag_status st = ompdag_trace_reader_open(path, &r, err);
    if (st) return st;
    trace_ctx c = {.a = a};
    size_t maxn = 1;
    for (size_t i = 0; i < a->ngraphs; ++i)
        if ((size_t)a->graphs[i].n > maxn) maxn = (size_t)a->graphs[i].n;
    c.mark = malloc(maxn);
    c.stack = malloc(2 * maxn * sizeof *c.stack + 16);
    if (!c.mark || !c.stack) {
        ctx_free(&c);
        ompdag_trace_reader_destroy(r);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    }
    if ((st = ompdag_symbolizer_create(r, &c.sym, err)) ||
        (st = ompdag_symbolizer_check_executable(c.sym, err))) {
        ctx_free(&c);
        ompdag_trace_reader_destroy(r);
        return st;
    }
    /* Pass 1: who created which task (records of different threads are not
     * in time order, so a segment may precede its task's creation). */
    for (;;) {
        ompdag_trace_rec rec;
        bool done;
        if ((st = ompdag_trace_reader_next(r, &rec, &done, err)) || done) break;
        if (rec.type == OMPDAG_REC_TASK_CREATE && rec.cp_region &&
            region_graph(&c, rec.cp_region) &&
            !task_insert(&c, &rec, region_graph(&c, rec.cp_region) - 1)) {
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
            break;
        }
    }
    ompdag_trace_reader_destroy(r);
    r = NULL;
    if (st == OMPDAG_OK) st = ompdag_trace_reader_open(path, &r, err);
    /* Pass 2: segments and regions. */
    for (; st == OMPDAG_OK;) {
        ompdag_trace_rec rec;
        bool done;
        if ((st = ompdag_trace_reader_next(r, &rec, &done, err)) || done) break;
        if (rec.type == OMPDAG_REC_SEGMENT && (st = add_segment(&c, &rec, err))) break;
        if ((rec.type == OMPDAG_REC_DEPEND || rec.type == OMPDAG_REC_DEP_PAIR ||
             rec.type == OMPDAG_REC_DEP_START) &&
            (st = annot_depend_record(&c, &rec, err)))
            break;
        if (rec.type == OMPDAG_REC_OFFLOAD && rec.id && !annot_off_push(&c, &rec)) {
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
            break;
        }
        bool regional = rec.type == OMPDAG_REC_REGION_BEGIN || rec.type == OMPDAG_REC_REGION_END ||
                        rec.type == OMPDAG_REC_SCHED || rec.type == OMPDAG_REC_SEGMENT;
        if (regional && (st = add_region(&c, &rec, err))) break;
    }
    if (st == OMPDAG_OK && c.noff) qsort(c.off, c.noff, sizeof *c.off, annot_cmp_off);
    if (st == OMPDAG_OK) annot_depend_ready(&c);
    if (st == OMPDAG_OK) st = annot_overhead_collect(&c, err);
    for (size_t i = 0; i < a->ngraphs && !c.depend_on; ++i)
        c.depend_on = ompdag_condag_has_depend(a->graphs[i].g);
    c.depend_on = c.depend_on || c.nitems || c.npairs;
    if (st == OMPDAG_OK) st = map_pending(&c, err);
    if (st == OMPDAG_OK) st = annot_depend_check(&c, err);
    if (st == OMPDAG_OK) st = finish_runs(&c, err);
    ctx_free(&c);
    ompdag_trace_reader_destroy(r);
    if (st == OMPDAG_OK) ++a->traces;
    return st;
}
