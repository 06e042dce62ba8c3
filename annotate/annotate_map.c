/*
 * annotate/annotate_map.c — mapping the sorted segments, one task
 * instance at a time, onto the graph's segment paths (find_end, map_chain,
 * map_pending), and the messages that name what did not map.
 * Part of `ompdag annotate` (annotate_trace.c is its entry); the rule and its
 * safety argument are in annotate_internal.h and docs/probe.md.
 */
#include "annotate_internal.h"
#include "ompdag/compact.h"

/* c->locs is a hashmap.h table of entries keyed by (graph, address). */
static uint64_t loc_hash(uint64_t cp, size_t graph)
{
    return ((cp ^ (graph * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull) >> 17;
}

static bool loc_empty(const void *slot)
{
    return !((const loc_entry *)slot)->used;
}

static bool loc_holds(const void *ctx, const void *slot, const void *key)
{
    (void)ctx;
    const loc_entry *e = slot, *k = key;
    return e->cp == k->cp && e->graph == k->graph;
}

static uint64_t loc_slot_hash(const void *ctx, const void *slot)
{
    (void)ctx;
    const loc_entry *e = slot;
    return loc_hash(e->cp, e->graph);
}

static const ompdag_hmap_kind loc_kind = {
    sizeof(loc_entry), loc_empty, loc_holds, loc_slot_hash, 50, 256, NULL};

/* T and W nodes of `graph` at the line of code address cp. */
static const loc_entry *loc_nodes(trace_ctx *c, uint64_t cp, size_t graph)
{
    if (!ompdag_hmap_reserve(&loc_kind, NULL, (void **)&c->locs, &c->loc_cap, c->loc_used,
                             c->loc_used + 1))
        return NULL;
    loc_entry key = {.cp = cp, .graph = graph};
    loc_entry *e = &c->locs[ompdag_hmap_probe(&loc_kind, NULL, c->locs, c->loc_cap,
                                              loc_hash(cp, graph), &key)];
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

/* ---- how deep a run went (issue 22: messages give the depth reached) ---- */

/* A task directive site and how often it occurs on one creation chain. */
typedef struct site_count {
    const char *file; /* borrowed from the symbolizer */
    int32_t line, count;
} site_count;

static void site_add(site_count *s, int32_t *n, int32_t cap, const ompdag_srcloc *loc)
{
    for (int32_t i = 0; i < *n; ++i)
        if (s[i].line == loc->line && annot_same_file(s[i].file, loc->file)) {
            ++s[i].count;
            return;
        }
    if (*n < cap) s[(*n)++] = (site_count){loc->file, loc->line, 1};
}

/* Whether task entry e was created at the `task` directive file:line. */
static bool created_at(trace_ctx *c, const task_entry *e, const char *file, int32_t line)
{
    ompdag_srcloc loc;
    ompdag_error err;
    return ompdag_symbolizer_lookup(c->sym, e->cp_task, &loc, &err) == OMPDAG_OK &&
           loc.line == line && annot_same_file(loc.file, file);
}

/* Tasks on the creation chain of e (itself included), counting only those
 * created at file:line when file is non-NULL.  The chain is bounded by the
 * table's size (a corrupt trace cannot loop). */
static int32_t chain_count(trace_ctx *c, const task_entry *e, const char *file, int32_t line)
{
    int32_t n = 0;
    for (size_t steps = 0; e && e->id && steps <= c->tasks_used;
         ++steps, e = annot_task_find(c, e->parent))
        n += !file || created_at(c, e, file, line);
    return n;
}

/* The deepest creation chain among the tasks of region instance `run`, as
 * chain_count counts: the depth the run actually reached, from the trace's
 * task parents.  Each entry's count is memoised (depth[] by table slot), so
 * the whole table costs O(tasks) chain steps.  -1: out of memory. */
static int32_t run_reach(trace_ctx *c, uint64_t run, const char *file, int32_t line)
{
    int32_t *memo = malloc(c->tasks_cap * sizeof *memo);
    size_t *path = malloc((c->tasks_used + 1) * sizeof *path);
    if (!memo || !path) {
        free(memo);
        free(path);
        return -1;
    }
    for (size_t i = 0; i < c->tasks_cap; ++i)
        memo[i] = -1;
    int32_t best = 0;
    for (size_t i = 0; i < c->tasks_cap; ++i) {
        if (!c->tasks[i].id || c->tasks[i].run != run) continue;
        size_t np = 0; /* climb to a known entry or the chain's top */
        int32_t base = 0;
        for (const task_entry *e = &c->tasks[i]; e && e->id && np <= c->tasks_used;
             e = annot_task_find(c, e->parent)) {
            size_t k = (size_t)(e - c->tasks);
            if (k >= c->tasks_cap) break; /* not in the table */
            if (memo[k] >= 0) {
                base = memo[k];
                break;
            }
            path[np++] = k;
        }
        while (np > 0) { /* down again, counting */
            size_t k = path[--np];
            base += !file || created_at(c, &c->tasks[k], file, line);
            memo[k] = base;
        }
        best = memo[i] > best ? memo[i] : best;
    }
    free(memo);
    free(path);
    return best;
}

/* Where recursion is involved in an unmapped segment of an explicit task
 * (a `task` directive recurs on its task's creation chain), names in
 * a->unmapped_depth the task's depth, the directive that recurred most and
 * how often, and the graph's depth for it (issue 22: "the graph does not
 * match the program" must say which recursion depth caused it). */
static void note_unmapped_depth(trace_ctx *c, const pending_seg *r)
{
    const task_entry *e = annot_task_find(c, r->id);
    if ((r->flags & OMPDAG_RECF_IMPLICIT) || !e) return;
    ompdag_srcloc loc;
    ompdag_error err;
    site_count sites[64], *top = NULL;
    int32_t ns = 0, depth = 0;
    for (size_t steps = 0; e && e->id && steps <= c->tasks_used;
         ++steps, e = annot_task_find(c, e->parent), ++depth)
        if (ompdag_symbolizer_lookup(c->sym, e->cp_task, &loc, &err) == OMPDAG_OK && loc.file)
            site_add(sites, &ns, 64, &loc);
    for (int32_t i = 0; i < ns; ++i)
        if (!top || sites[i].count > top->count) top = &sites[i];
    if (!top || top->count < 2) return; /* no recursion on the chain */
    const ompdag_condag *g = c->a->graphs[r->graph].g;
    snprintf(c->a->unmapped_depth, sizeof c->a->unmapped_depth,
             "at recursion depth %d of the task directive %.60s:%d (its task was %d task "
             "levels deep; the graph nests that directive %d deep)",
             top->count, top->file, top->line, depth,
             annot_graph_site_depth(g, top->file, top->line));
}

static void note_unmapped(trace_ctx *c, const pending_seg *r, const char *why)
{
    ompdag_annotation *a = c->a;
    ++a->unmapped;
    ++a->graphs[r->graph].unmapped;
    if (a->first_unmapped[0]) return;
    char from[200], to[200];
    bool begin = r->sk == OMPDAG_PT_TASK_BEGIN || r->sk == OMPDAG_PT_ROOT_BEGIN;
    uint64_t start = annot_cp(c, r->cp_start), task = annot_cp(c, r->cp_task);
    if (begin && !start && task)
        describe_point(c, task, OMPDAG_PT_CREATE, from, sizeof from);
    else
        describe_point(c, start, r->sk, from, sizeof from);
    describe_point(c, annot_cp(c, r->cp_end), r->ek, to, sizeof to);
    snprintf(a->first_unmapped, sizeof a->first_unmapped, "segment from %s%s to %s: %s",
             begin && !start && task ? "the begin of the task created at " : "", from, to, why);
    if (c->tasks_cap) note_unmapped_depth(c, r);
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

static bool node_at(trace_ctx *c, const ompdag_condag *g, int32_t v, uint64_t cp)
{
    ompdag_srcloc loc;
    ompdag_error err;
    if (!cp || ompdag_symbolizer_lookup(c->sym, cp, &loc, &err) != OMPDAG_OK) return false;
    ompdag_loc nl = ompdag_condag_node_loc(g, v);
    return nl.line == loc.line && (!nl.file || annot_same_file(nl.file, loc.file));
}

/* In a team graph, the barrier that ends an implicit task's phase ends that
 * phase's task (annotate_team.c): at its sink W node, which waits for the
 * tasks the phase created, when a path from the start reaches it (WAIT);
 * else at its sink, when the forward set holds it (END: the phase awaited
 * its tasks itself, or created none).  mark: the forward set (bit 1). */
static bool team_phase_end(const graph_info *gi, int32_t task, ompdag_point sk, int32_t sn,
                           const pending_seg *r, const uint8_t *mark, ompdag_point *ek, int32_t *en)
{
    const ompdag_condag *g = gi->g;
    if (!gi->team_p || !(r->flags & OMPDAG_RECF_IMPLICIT)) return false;
    int32_t s = ompdag_condag_task_sink(g, task);
    bool wait = ompdag_condag_node_kind(g, s) == OMPDAG_KIND_W &&
                annot_empty_segment(g, task, sk, sn, OMPDAG_POINT_WAIT, s);
    for (int32_t i = gi->pred_start[s]; i < gi->pred_start[s + 1] && !wait; ++i)
        wait = ompdag_condag_node_kind(g, s) == OMPDAG_KIND_W && (mark[gi->pred[i]] & 1) &&
               !annot_undeferred_wait(g, gi->pred[i], s);
    *ek = wait ? OMPDAG_POINT_WAIT : OMPDAG_POINT_END;
    *en = wait ? s : -1;
    return wait || (mark[s] & 1);
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
    int32_t cand = -1, ncand = 0, nown;
    const int32_t *own = annot_task_nodes(gi, task, &nown); /* marks are valid there only */
    switch (r->ek) {
    case OMPDAG_PT_TASK_END:
    case OMPDAG_PT_ROOT_END:
        *ek = OMPDAG_POINT_END;
        *en = -1;
        return (c->mark[ompdag_condag_task_sink(g, task)] & 1) ||
               annot_empty_segment(g, task, sk, sn, OMPDAG_POINT_END, -1);
    case OMPDAG_PT_CREATE:
        *ek = OMPDAG_POINT_CREATE;
        for (int32_t j = 0; j < nown; ++j) {
            int32_t v = own[j];
            if (!(c->mark[v] & 1) || ompdag_condag_node_kind(g, v) != OMPDAG_KIND_T) continue;
            if (node_at(c, g, v, annot_cp(c, r->cp_end))) {
                *en = v;
                return true;
            }
            cand = v, ++ncand;
        }
        break;
    case OMPDAG_PT_TASKWAIT:
    case OMPDAG_PT_TASKGROUP:
        *ek = OMPDAG_POINT_WAIT;
        for (int32_t j = 0; j < nown; ++j) {
            int32_t v = own[j];
            if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_W) continue;
            bool reach = annot_empty_segment(g, task, sk, sn, OMPDAG_POINT_WAIT, v);
            for (int32_t i = gi->pred_start[v]; i < gi->pred_start[v + 1] && !reach; ++i)
                reach = (c->mark[gi->pred[i]] & 1) && !annot_undeferred_wait(g, gi->pred[i], v);
            if (!reach) continue;
            if (node_at(c, g, v, annot_cp(c, r->cp_end))) {
                *en = v;
                return true;
            }
            cand = v, ++ncand;
        }
        break;
    case OMPDAG_PT_BARRIER:
        return team_phase_end(gi, task, sk, sn, r, c->mark, ek, en);
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

/* c->ends is a hashmap.h table of memo entries keyed by the question. */
static uint64_t end_hash(uint64_t cp, uint32_t graph, int32_t task, uint8_t ck, int32_t cn,
                         uint8_t rk)
{
    uint64_t h = cp * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)graph << 40) ^ ((uint64_t)(uint32_t)task << 8) ^ ck;
    h *= 0xff51afd7ed558ccdull;
    h ^= ((uint64_t)(uint32_t)cn << 8) ^ rk;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h >> 20;
}

static bool end_empty(const void *slot)
{
    return !((const end_memo *)slot)->used;
}

/* The question a memo entry answers. */
typedef struct end_key {
    uint64_t cp;
    uint32_t graph;
    int32_t task, cn;
    uint8_t ck, rk;
} end_key;

static bool end_holds(const void *ctx, const void *slot, const void *key)
{
    (void)ctx;
    const end_memo *t = slot;
    const end_key *k = key;
    return t->cp == k->cp && t->graph == k->graph && t->task == k->task && t->ck == k->ck &&
           t->cn == k->cn && t->rk == k->rk;
}

static uint64_t end_slot_hash(const void *ctx, const void *slot)
{
    (void)ctx;
    const end_memo *t = slot;
    return end_hash(t->cp, t->graph, t->task, t->ck, t->cn, t->rk);
}

static const ompdag_hmap_kind end_kind = {
    sizeof(end_memo), end_empty, end_holds, end_slot_hash, 50, 256, NULL};

/* find_end, answered once per distinct question (end_memo).  false with
 * *nomem set on allocation failure. */
static bool find_end_memo(trace_ctx *c, const graph_info *gi, int32_t task, ompdag_point sk,
                          int32_t sn, const pending_seg *r, ompdag_point *ek, int32_t *en,
                          const char **why, bool *nomem)
{
    if (!ompdag_hmap_reserve(&end_kind, NULL, (void **)&c->ends, &c->ends_cap, c->ends_used,
                             c->ends_used + 1)) {
        *nomem = true;
        return false;
    }
    if (annot_reference_paths) return find_end(c, gi, task, sk, sn, r, ek, en, why);
    uint32_t graph = r->graph;
    end_key key = {r->cp_end, graph, task, sn, (uint8_t)sk, r->ek};
    end_memo *m =
        &c->ends[ompdag_hmap_probe(&end_kind, NULL, c->ends, c->ends_cap,
                                   end_hash(r->cp_end, graph, task, (uint8_t)sk, sn, r->ek), &key)];
    if (!m->used) {
        uint64_t before = c->a->by_structure;
        ompdag_point k = OMPDAG_POINT_END;
        int32_t v = -1;
        const char *w = *why;
        bool ok = find_end(c, gi, task, sk, sn, r, &k, &v, &w);
        *m = (end_memo){.cp = r->cp_end,
                        .graph = graph,
                        .task = task,
                        .cn = sn,
                        .en = v,
                        .used = 1,
                        .ck = (uint8_t)sk,
                        .rk = r->ek,
                        .ek = (uint8_t)k,
                        .ok = ok,
                        .by_structure = c->a->by_structure != before,
                        .why = w};
        c->a->by_structure = before;
        ++c->ends_used;
    }
    c->a->by_structure += m->by_structure;
    *ek = (ompdag_point)m->ek;
    *en = m->en;
    *why = m->why;
    return m->ok;
}

/* In a team graph, the end of a barrier begins the next phase's task of an
 * implicit task (annotate_team.c): the first segment of that phase. */
static bool team_phase_begin(const graph_info *gi, const pending_seg *r, size_t i)
{
    return gi->team_p && i == 0 && r->sk == OMPDAG_PT_BARRIER && (r->flags & OMPDAG_RECF_IMPLICIT);
}

/* In a team graph, a `single`/`masked` body's begin or end inside an
 * implicit task is no scheduling point of its phase task: the body is the
 * nodes of the block on the C node's "runs" branch (plugin/fe_team_single.c),
 * between the phase's code before and after it.  The probe cuts a segment
 * there all the same (probe.c root_scope: the point where a single/master
 * region's τ1 begins and ends), so segment i, ending there, and the next one,
 * starting there, are one segment of the phase task (docs/probe.md "Team
 * graphs"). */
static bool team_joint(const graph_info *gi, const pending_seg *seg, size_t n, size_t i)
{
    const pending_seg *r = &seg[i];
    return gi->team_p && (r->flags & OMPDAG_RECF_IMPLICIT) &&
           (r->ek == OMPDAG_PT_ROOT_BEGIN || r->ek == OMPDAG_PT_ROOT_END) && i + 1 < n &&
           seg[i + 1].sk == r->ek && seg[i + 1].id == r->id;
}

/* A piece of a team graph's implicit task that starts at a single/masked
 * begin or end the piece before did not end at: the body's other side is
 * missing, and the piece has no start point in the phase task. */
static bool team_orphan(const graph_info *gi, const pending_seg *r)
{
    return gi->team_p && (r->flags & OMPDAG_RECF_IMPLICIT) &&
           (r->sk == OMPDAG_PT_ROOT_BEGIN || r->sk == OMPDAG_PT_ROOT_END);
}

/* Where the segment that ends with piece seg[i] begins (the first piece
 * joined to it, team_joint), and its own time: the pieces' sum. */
static size_t joined_head(const graph_info *gi, const pending_seg *seg, size_t n, size_t i,
                          uint64_t *dur)
{
    size_t h = i;
    *dur = seg[i].dur;
    while (h > 0 && team_joint(gi, seg, n, h - 1))
        *dur += seg[--h].dur;
    return h;
}

/* Counts the pieces seg[h..i] as mapped segments of the graph, or notes
 * each as unmapped. */
static void count_pieces(trace_ctx *c, const pending_seg *seg, size_t h, size_t i, bool ok,
                         const char *why)
{
    for (size_t k = h; k <= i; ++k)
        if (ok)
            ++c->a->graphs[seg[k].graph].segments;
        else
            note_unmapped(c, &seg[k], why);
}

/* Maps the time-ordered segments of one task instance onto task `task`,
 * walking the graph from its begin.  With dry_run, only counts how many map.
 * Returns that count, or SIZE_MAX on allocation failure. */
size_t annot_map_chain(trace_ctx *c, int32_t task, const pending_seg *seg, size_t n, bool dry_run)
{
    ompdag_annotation *a = c->a;
    const graph_info *gi = &a->graphs[seg[0].graph];
    ompdag_point ck = OMPDAG_POINT_BEGIN;
    int32_t cn = -1;
    bool active = false;
    size_t mapped = 0;
    if (gi->loops && !dry_run) annot_loops_next_instance(gi->loops);
    for (size_t i = 0; i < n; ++i) {
        if (team_joint(gi, seg, n, i)) continue; /* the next piece goes on with this segment */
        uint64_t dur;
        size_t h = joined_head(gi, seg, n, i, &dur);
        const pending_seg *r = &seg[i], *head = &seg[h];
        bool ok = true;
        const char *why = "no path of the graph joins these scheduling points";
        if (team_orphan(gi, head)) {
            ok = false;
            why = "a single/masked begin or end without its other side in its implicit task";
        } else if (head->sk == OMPDAG_PT_TASK_BEGIN || head->sk == OMPDAG_PT_ROOT_BEGIN ||
                   team_phase_begin(gi, head, h)) {
            ck = OMPDAG_POINT_BEGIN;
            cn = -1;
            active = true;
        } else if (!active) {
            ok = false;
            why = "an earlier segment of its task did not map";
        } else if ((head->sk == OMPDAG_PT_CREATE) != (ck == OMPDAG_POINT_CREATE) ||
                   ((head->sk == OMPDAG_PT_TASKWAIT || head->sk == OMPDAG_PT_TASKGROUP) !=
                    (ck == OMPDAG_POINT_WAIT))) {
            ok = false;
        }
        ompdag_point ek = OMPDAG_POINT_END;
        int32_t en = -1;
        bool nomem = false;
        if (ok) ok = find_end_memo(c, gi, task, ck, cn, r, &ek, &en, &why, &nomem);
        if (nomem) return SIZE_MAX;
        seg_class *k = NULL;
        if (ok && !dry_run) {
            k = annot_class_get(a, r->graph, task, ck, cn, ek, en, c->mark, c->stack, &nomem);
            bool clean = !annot_run_interfered(c, r->run);
            i64vec *into = k && !clean ? &k->samples_if : k ? &k->samples : NULL;
            if (nomem || (k && !annot_i64vec_push(into, (int64_t)dur))) return SIZE_MAX;
            if (k) annot_input_hit(c, k, (size_t)(head - c->pend), dur, clean);
            if (k && c->noff &&
                !annot_offload_attach(c, k, r->id, h ? seg[h - 1].time : 0, r->time))
                return SIZE_MAX;
            ok = k != NULL;
        }
        if (!dry_run) count_pieces(c, seg, h, i, ok, why);
        if (!ok) {
            active = false;
            continue;
        }
        mapped += i + 1 - h;
        if (!dry_run) {
            if (ek == OMPDAG_POINT_CREATE && !annot_made_insert(c, r->id, r->time, en))
                return SIZE_MAX;
            if ((ek == OMPDAG_POINT_CREATE || ek == OMPDAG_POINT_WAIT) &&
                !annot_exec_push(c, r->run, r->graph, en))
                return SIZE_MAX;
            if ((ek == OMPDAG_POINT_CREATE || ek == OMPDAG_POINT_WAIT) && gi->loops)
                annot_loops_count(gi->loops, en); /* checked by check_loop_runs */
        }
        ck = ek;
        cn = en;
        if (ek == OMPDAG_POINT_END) active = false;
    }
    return mapped;
}

/* A task instance that maps to no graph task, nested deeper than every
 * creation chain of the graph: the run recursed beyond the graph's bound,
 * which the bound does not cover (annotate_compact.c). */
static ompdag_status check_nesting(trace_ctx *c, size_t graph, const pending_seg *seg,
                                   ompdag_error *err)
{
    if (!c->tasks_cap) return OMPDAG_OK;
    int32_t depth = chain_count(c, annot_task_find(c, seg->id), NULL, 0);
    const ompdag_condag *g = c->a->graphs[graph].g;
    int32_t have = annot_graph_nesting(g);
    if (depth <= have) return OMPDAG_OK;
    int32_t reached = run_reach(c, seg->run, NULL, 0);
    if (reached < 0) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    ompdag_srcloc loc;
    ompdag_error e;
    char where[160] = "an unknown line";
    if (ompdag_symbolizer_lookup(c->sym, annot_cp(c, seg->cp_task), &loc, &e) == OMPDAG_OK)
        snprintf(where, sizeof where, "%.140s:%d", loc.file ? loc.file : "?", loc.line);
    return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                            "the run went %d task levels deep (from the trace's task parents), but "
                            "the graph of region %s has %d (first task beyond: created at %s): "
                            "the run recursed beyond the graph's recursion bound, so the bound "
                            "does not cover it; re-extract with a --recursion-bound that gives "
                            "%d levels",
                            reached, ompdag_condag_name(g) ? ompdag_condag_name(g) : "?", have,
                            where, reached);
}

/* A task instance that ran a node inside compact loops more often than the
 * loops' bounds allow (annot_loops_count): the run iterated beyond a loop
 * bound, which the bound does not cover (like recursion beyond its depth). */
static ompdag_status check_loop_runs(const graph_info *gi, ompdag_error *err)
{
    const annot_loops *l = gi->loops;
    if (!l || l->over < 0) return OMPDAG_OK;
    const ompdag_condag *g = gi->g;
    int32_t v = l->over, t = l->in[v];
    ompdag_loc lv = ompdag_condag_node_loc(g, v), lt = ompdag_condag_node_loc(g, t);
    return ompdag_error_set(
        err, OMPDAG_ERR_INVALID,
        "the %s at %.140s:%d ran %llu times in one instance of its task, but the graph of "
        "region %s allows %llu (the loop at %.140s:%d, node '%s', repeats at most %lld times%s): "
        "the run iterated beyond the loop bound, so the bound does not cover it; re-extract "
        "with '#pragma ompdag loop_bound(N)' for that loop, or --loop-bound, at least as large "
        "as the run's trip count",
        ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T ? "task directive" : "taskwait",
        lv.file ? lv.file : "?", lv.line, (unsigned long long)l->over_seen,
        ompdag_condag_name(g) ? ompdag_condag_name(g) : "?", (unsigned long long)l->limit[v],
        lt.file ? lt.file : "?", lt.line, ompdag_condag_node_id(g, t),
        (long long)ompdag_compact_loop_repeat(g, t),
        l->limit[v] != (uint64_t)ompdag_compact_loop_repeat(g, t) ? ", times the loops around it"
                                                                  : "");
}

/* Refuses when `got` tasks of one directive on a run's chain exceed the
 * graph's deepest chain of that directive. */
static ompdag_status site_depth_ok(trace_ctx *c, const ompdag_condag *g, uint64_t run,
                                   const site_count *site, int32_t got, ompdag_error *err)
{
    int32_t have = annot_graph_site_depth(g, site->file, site->line);
    if (got <= have) return OMPDAG_OK;
    /* the depth the run reached through the directive, not the first
     * level beyond the graph's */
    int32_t reached = run_reach(c, run, site->file, site->line);
    if (reached < 0) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    if (reached < got) reached = got; /* a child not in the table yet */
    return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                            "tasks created at %.140s:%d went %d task levels deep through that "
                            "directive in one run (from the trace's task parents), but %d in the "
                            "graph of region %s: the run recursed beyond the recursion bound of "
                            "the function containing it, so the bound does not cover the run; "
                            "re-extract with '#pragma ompdag recursion_bound(N)' for that "
                            "function, or --recursion-bound, giving %d levels",
                            site->file, site->line, reached, have,
                            ompdag_condag_name(g) ? ompdag_condag_name(g) : "?", reached);
}

/* A task instance (segments seg[0..n)) that did not map: when its creation
 * chain, or a task it went on to create, holds more tasks of one `task`
 * directive than any creation chain of the graph, the run recursed beyond
 * that recursion's bound (annotate_compact.c) and the trace is refused,
 * naming the directive and both depths. */
static ompdag_status check_site_depth(trace_ctx *c, size_t graph, const pending_seg *seg, size_t n,
                                      ompdag_error *err)
{
    if (!c->tasks_cap || (seg->flags & OMPDAG_RECF_IMPLICIT)) return OMPDAG_OK;
    const ompdag_condag *g = c->a->graphs[graph].g;
    enum { CAP = 64 };
    site_count sites[CAP];
    int32_t ns = 0;
    size_t steps = 0;
    ompdag_srcloc loc;
    ompdag_error e;
    ompdag_status st;
    for (const task_entry *t = annot_task_slot(c, seg->id); t->id && steps++ <= c->tasks_used;
         t = annot_task_slot(c, t->parent))
        if (ompdag_symbolizer_lookup(c->sym, t->cp_task, &loc, &e) == OMPDAG_OK && loc.file)
            site_add(sites, &ns, CAP, &loc);
    for (int32_t i = 0; i < ns; ++i)
        if ((st = site_depth_ok(c, g, seg->run, &sites[i], sites[i].count, err))) return st;
    /* a task it went on to create: this chain plus that directive */
    for (size_t k = 0; k < n; ++k) {
        if (seg[k].ek != OMPDAG_PT_CREATE ||
            ompdag_symbolizer_lookup(c->sym, annot_cp(c, seg[k].cp_end), &loc, &e) != OMPDAG_OK ||
            !loc.file)
            continue;
        site_count child = {loc.file, loc.line, 1};
        for (int32_t i = 0; i < ns; ++i)
            if (sites[i].line == loc.line && annot_same_file(sites[i].file, loc.file))
                child.count += sites[i].count;
        if ((st = site_depth_ok(c, g, seg->run, &child, child.count, err))) return st;
    }
    return OMPDAG_OK;
}

/* Fetches ahead what mapping segment pend[k] will read at random: the
 * slot of `made` that a segment ending at a `task` directive fills, and its
 * task's entry; and, for a task's first segment half as far ahead (its
 * entry then cached), the slot of `made` that tells which T node made it.
 * On fib(30) these misses were three quarters of map_chain's time. */
static void prefetch_mapping(const trace_ctx *c, size_t k, size_t half)
{
    const pending_seg *s = &c->pend[k];
    if (c->made_cap && s->ek == OMPDAG_PT_CREATE)
        __builtin_prefetch(annot_made_slot_at(c, s->id, s->time));
    if (!c->tasks_cap || (s->flags & OMPDAG_RECF_IMPLICIT)) return;
    size_t i = annot_task_index(c, s->id);
    if (i != SIZE_MAX) __builtin_prefetch(&c->tasks[i]);
    const pending_seg *h = &c->pend[half];
    if (!c->made_cap || (h->flags & OMPDAG_RECF_IMPLICIT) || (half && h->id == h[-1].id)) return;
    const task_entry *e = annot_task_find(c, h->id);
    if (e) __builtin_prefetch(annot_made_slot_at(c, e->parent, e->time));
}

/* Maps every buffered segment, one task instance at a time, creators before
 * the tasks they create (so each child knows the T node that made it). */
ompdag_status annot_map_pending(trace_ctx *c, ompdag_error *err)
{
    ompdag_annotation *a = c->a;
    ompdag_status st;
    /* c->pend is sorted by (run, created, id, time) (annot_sort_pending):
     * each task instance's segments are together, and creators come before
     * the tasks they create (a task and its creator share their run). */
    enum { ahead = 16 }; /* segments: 16 and 48 measured alike on fib(30) */
    size_t fetched = 0;
    for (size_t i = 0, j; i < c->npend; i = j) {
        for (j = i + 1; j < c->npend && c->pend[j].id == c->pend[i].id; ++j)
            ;
        for (; !annot_reference_paths && fetched < c->npend && fetched < j + ahead; ++fetched)
            prefetch_mapping(c, fetched, fetched - (fetched > ahead / 2 ? ahead / 2 : fetched));
        const pending_seg *seg = &c->pend[i];
        size_t graph = seg->graph, n = j - i;
        const ompdag_condag *g = a->graphs[graph].g;
        int32_t cand[MAX_CANDIDATES];
        int32_t ncand = 0;
        if ((seg->flags & OMPDAG_RECF_IMPLICIT) && a->graphs[graph].team_p) {
            if ((st = annot_team_map(c, seg, n, err)) ||
                (st = check_loop_runs(&a->graphs[graph], err)))
                return st;
            continue;
        }
        if (seg->flags & OMPDAG_RECF_IMPLICIT) {
            cand[ncand++] = ompdag_condag_root_task(g);
        } else {
            int32_t maker = annot_made_by(c, seg->id);
            int32_t t =
                maker >= 0 ? ompdag_condag_node_creates(g, maker) : task_resolve(c, graph, seg->id);
            if (t >= 0) {
                cand[ncand++] = t;
            } else if (t == -3) { /* creation not in the trace: any task made at that line */
                const loc_entry *e = loc_nodes(c, annot_cp(c, seg->cp_task), graph);
                for (int32_t k = 0; e && k < e->count; ++k)
                    if (ompdag_condag_node_kind(g, e->nodes[k]) == OMPDAG_KIND_T)
                        cand[ncand++] = ompdag_condag_node_creates(g, e->nodes[k]);
            }
        }
        if (ncand == 0 && !(seg->flags & OMPDAG_RECF_IMPLICIT) &&
            ((st = check_nesting(c, graph, seg, err)) ||
             (st = check_site_depth(c, graph, seg, n, err))))
            return st;
        if (ncand == 0) {
            for (size_t k = 0; k < n; ++k)
                note_unmapped(c, &seg[k], "its task directive matches no T node of the graph");
            continue;
        }
        int32_t best = cand[0];
        for (int32_t k = 0; k < ncand && ncand > 1; ++k)
            if (annot_map_chain(c, cand[k], seg, n, true) == n) {
                best = cand[k];
                break;
            }
        size_t got = annot_map_chain(c, best, seg, n, false);
        if (got == SIZE_MAX)
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        a->mapped += got;
        if ((st = check_loop_runs(&a->graphs[graph], err))) return st;
        if (got < n && (st = check_site_depth(c, graph, seg, n, err))) return st;
    }
    return OMPDAG_OK; /* c->pend stays: annot_overhead_collect may still be reading it */
}
