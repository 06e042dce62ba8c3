/*
 * runtime-probe/annotate_trace.c — reading traces: segments mapped per task instance, region runs.
 * Part of `ompdag annotate`; the rule and its safety argument are in
 * annotate_internal.h and docs/probe.md.
 */
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "annotate_internal.h"
#include "ompdag/internal/stats.h"

bool annot_reference_paths = false;

/* A transparent huge page (x86-64 and arm64 with 4 KiB base pages). */
static const size_t huge = (size_t)2 << 20;

void *annot_alloc_big(size_t bytes)
{
    if (bytes < 2 * huge) return malloc(bytes ? bytes : 1);
    void *p = NULL;
    if (posix_memalign(&p, huge, bytes)) return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, bytes & ~(huge - 1), MADV_HUGEPAGE); /* a hint: failure is harmless */
#endif
    return p;
}

void *annot_realloc_big(void *p, size_t old_bytes, size_t bytes)
{
    if (bytes < 2 * huge) return realloc(p, bytes ? bytes : 1);
    void *q = annot_alloc_big(bytes);
    if (!q) return NULL;
    memcpy(q, p, old_bytes < bytes ? old_bytes : bytes);
    free(p);
    return q;
}

bool annot_grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return true;
    size_t cap2 = *cap ? *cap : 64;
    while (cap2 < need) {
        if (cap2 > SIZE_MAX / 2 / size) return false;
        cap2 *= 2;
    }
    void *q = annot_realloc_big(*p, *cap * size, cap2 * size);
    if (!q) return false;
    *p = q, *cap = cap2;
    return true;
}

static void ctx_free(trace_ctx *c)
{
    free(c->locs);
    free(c->region_cp);
    free(c->region_graph);
    free(c->runs);
    free(c->interfered_runs);
    free(c->run_index);
    free(c->tasks);
    free(c->created);
    free(c->spare);
    free(c->deferred);
    free(c->dbase);
    free(c->pend);
    free(c->cps.value);
    free(c->cps.slot);
    free(c->made);
    free(c->ends);
    free(c->mark);
    free(c->class_of);
    free(c->devents);
    free(c->stack);
    free(c->off);
    free(c->items);
    free(c->pairs);
    free(c->outside), free(c->outside_pairs);
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

/* Where task `id` is, or would go, in c->tasks: its direct slot, or where
 * its hash probe stops (an empty slot when absent); SIZE_MAX when the id
 * lies outside the direct table. */
static inline size_t task_index(const trace_ctx *c, uint64_t id)
{
    if (c->dbase) {
        uint64_t t = id >> 40, seq = id & ((1ull << 40) - 1);
        return t + 1 < c->ndbase && seq < c->dbase[t + 1] - c->dbase[t] ? c->dbase[t] + seq
                                                                        : SIZE_MAX;
    }
    size_t i = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 16) & (c->tasks_cap - 1);
    while (c->tasks[i].id && c->tasks[i].id != id)
        i = (i + 1) & (c->tasks_cap - 1);
    return i;
}

task_entry *annot_task_slot(trace_ctx *c, uint64_t id)
{
    size_t i = task_index(c, id);
    if (i != SIZE_MAX) return &c->tasks[i];
    memset(&c->dmiss, 0, sizeof c->dmiss);
    return &c->dmiss;
}

const task_entry *annot_task_find(const trace_ctx *c, uint64_t id)
{
    if (!c->tasks_cap || !id) return NULL;
    size_t i = task_index(c, id);
    return i != SIZE_MAX && c->tasks[i].id == id ? &c->tasks[i] : NULL;
}

/* Reserves the creation records and the segments once: a trace file
 * holds at most size / sizeof(ompdag_trace_rec) of either, and pages
 * never written cost nothing.  Doubling from 1024 instead wrote, and the
 * kernel zeroed, twice each final array (360 MB more for the creations of
 * fib(30)'s 2.7·10^6 tasks).  When a reservation is refused, or the size
 * is unknown (a pipe), the arrays grow as before. */
static void reserve_arrays(trace_ctx *c, const char *path)
{
    struct stat st;
    if (stat(path, &st) || st.st_size <= 0) return;
    size_t n = (size_t)st.st_size / sizeof(ompdag_trace_rec) + 1;
    if (n < 4096 || n > SIZE_MAX / 2 / sizeof *c->created) return;
    c->created = annot_alloc_big(n * sizeof *c->created);
    c->created_cap = c->created ? n : 0;
    c->pend = annot_alloc_big(n * sizeof *c->pend);
    c->pend_cap = c->pend ? n : 0;
}

/* Keeps a dependence record until the task table is complete. */
static bool defer_record(trace_ctx *c, const ompdag_trace_rec *r)
{
    if (!annot_grow((void **)&c->deferred, &c->deferred_cap, c->ndeferred + 1, sizeof *r))
        return false;
    c->deferred[c->ndeferred++] = *r;
    return true;
}

/* The pass keeps the TASK_CREATE records in order; task_table then sizes the
 * table once (growing it by doubling from 1024 rehashed 10^7 entries for a
 * trace of 2.7·10^6 tasks). */
static bool task_record(trace_ctx *c, const ompdag_trace_rec *r, size_t graph)
{
    if (!annot_grow((void **)&c->created, &c->created_cap, c->ncreated + 1, sizeof *c->created))
        return false;
    c->created[c->ncreated++] = (task_entry){.id = r->id,
                                             .parent = r->aux,
                                             .cp_task = r->cp_task,
                                             .time = r->time,
                                             .task = -2,
                                             .graph = (uint32_t)graph};
    return true;
}

/* A direct table (trace_ctx.dbase) when the ids are the probe's dense
 * per-thread sequences: at most 4 slots per task.  Lookups then touch
 * memory in creation order instead of at random (a hash table of 10^7
 * slots made annotate's time one cache miss per segment).  false: use a
 * hash table (hand-made or corrupt ids), or out of memory (*nomem). */
static bool task_direct(trace_ctx *c, bool *nomem)
{
    uint64_t maxt = 0;
    for (size_t i = 0; i < c->ncreated; ++i) {
        uint64_t t = c->created[i].id >> 40;
        if (!t || t > OMPDAG_TRACE_MAX_THREADS) return false;
        maxt = t > maxt ? t : maxt;
    }
    size_t *len = calloc(maxt + 2, sizeof *len);
    if (!len) return !(*nomem = true);
    for (size_t i = 0; i < c->ncreated; ++i) {
        uint64_t t = c->created[i].id >> 40, seq = c->created[i].id & ((1ull << 40) - 1);
        if (seq >= 4 * c->ncreated + 1024) { /* sparse: not the probe's sequence */
            free(len);
            return false;
        }
        len[t] = seq + 1 > len[t] ? seq + 1 : len[t];
    }
    size_t total = 0;
    for (uint64_t t = 0; t <= maxt; ++t) { /* len[t] -> dbase[t]: prefix sums */
        size_t l = len[t];
        len[t] = total;
        total += l;
    }
    len[maxt + 1] = total;
    if (total > 4 * c->ncreated + 1024) {
        free(len);
        return false;
    }
    c->tasks = annot_alloc_big((total + 1) * sizeof *c->tasks);
    if (c->tasks) memset(c->tasks, 0, (total + 1) * sizeof *c->tasks);
    if (!c->tasks) {
        free(len);
        return !(*nomem = true);
    }
    c->dbase = len;
    c->ndbase = maxt + 2;
    c->tasks_cap = total + 1; /* non-zero: "there is a table" */
    return true;
}

/* The creation records, once in the task table, become the spare array that
 * annot_sort_pending sorts the segments into. */
static void spend_created(trace_ctx *c)
{
    c->spare = c->created;
    c->spare_bytes = c->created_cap * sizeof *c->created;
    c->created = NULL;
    c->ncreated = c->created_cap = 0;
}

/* The task table of the creation records (a later record of one id wins). */
static bool task_table(trace_ctx *c)
{
    bool nomem = false;
    if ((!annot_reference_paths && task_direct(c, &nomem)) || nomem) {
        for (size_t i = 0; !nomem && i < c->ncreated; ++i) {
            task_entry *e = annot_task_slot(c, c->created[i].id);
            if (!e->id) ++c->tasks_used;
            *e = c->created[i];
        }
        spend_created(c);
        return !nomem;
    }
    size_t cap = 1024;
    while (annot_table_full(c->ncreated, cap))
        cap *= 2;
    c->tasks = calloc(cap, sizeof *c->tasks);
    if (!c->tasks) return false;
    c->tasks_cap = cap;
    for (size_t i = 0; i < c->ncreated; ++i) {
        task_entry *e = annot_task_slot(c, c->created[i].id);
        if (!e->id) ++c->tasks_used;
        *e = c->created[i];
    }
    spend_created(c);
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

static inline size_t made_hash(const trace_ctx *c, uint64_t parent, uint64_t time)
{
    return (size_t)(((parent * 0x9e3779b97f4a7c15ull) ^ (time * 0xff51afd7ed558ccdull)) >> 16) &
           (c->made_cap - 1);
}

/* Where the probe for (parent, time) in `made` starts. */
static inline const creation_entry *made_slot_at(const trace_ctx *c, uint64_t parent,
                                                 uint64_t time)
{
    return &c->made[made_hash(c, parent, time)];
}

static creation_entry *made_slot(trace_ctx *c, uint64_t parent, uint64_t time)
{
    size_t i = made_hash(c, parent, time);
    while (c->made[i].parent && (c->made[i].parent != parent || c->made[i].time != time))
        i = (i + 1) & (c->made_cap - 1);
    return &c->made[i];
}

static bool made_insert(trace_ctx *c, uint64_t parent, uint64_t time, int32_t tnode)
{
    if (!parent) return true;
    if (annot_table_full(c->made_used, c->made_cap)) {
        creation_entry *old = c->made;
        size_t oldcap = c->made_cap;
        size_t cap = oldcap ? 2 * oldcap : 1024;
        while (!oldcap && annot_table_full(c->tasks_used, cap)) /* one creation per task */
            cap *= 2;
        c->made_cap = cap;
        c->made = annot_alloc_big(c->made_cap * sizeof *c->made);
        if (c->made) memset(c->made, 0, c->made_cap * sizeof *c->made);
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

/* The T node that created the explicit instance of segment seg, as its creator's mapped
 * chain says; -1 when unknown. */
int32_t annot_made_by(trace_ctx *c, uint64_t id)
{
    if (!c->tasks_cap || !c->made_cap) return -1;
    const task_entry *e = annot_task_slot(c, id);
    if (!e->id) return -1;
    const creation_entry *m = made_slot(c, e->parent, e->time);
    return m->parent ? m->tnode : -1;
}

static size_t cp_slot(const cp_names *t, uint64_t cp)
{
    size_t i = (size_t)((cp * 0x9e3779b97f4a7c15ull) >> 20) & (t->slot_cap - 1);
    while (t->slot[i] && t->value[t->slot[i] - 1] != cp)
        i = (i + 1) & (t->slot_cap - 1);
    return i;
}

/* Doubles t's capacity; on failure t is left as it was. */
static bool cp_names_grow(cp_names *t)
{
    if (t->cap >= UINT32_MAX / 2) return false; /* names are uint32_t, slots hold name + 1 */
    uint32_t cap = t->cap ? 2 * t->cap : 64;
    size_t slots = 128;
    while (slots < 2 * (size_t)cap)
        slots *= 2;
    uint32_t *slot = calloc(slots, sizeof *slot);
    uint64_t *v = slot ? realloc(t->value, (size_t)cap * sizeof *v) : NULL;
    if (!v) {
        free(slot);
        return false;
    }
    free(t->slot);
    t->value = v;
    t->cap = cap;
    t->slot = slot;
    t->slot_cap = slots;
    for (uint32_t k = 0; k < t->n; ++k)
        t->slot[cp_slot(t, t->value[k])] = k + 1;
    return true;
}

bool annot_cp_name(cp_names *t, uint64_t cp, uint32_t *name)
{
    if (t->slot_cap) {
        size_t i = cp_slot(t, cp);
        if (t->slot[i]) {
            *name = t->slot[i] - 1;
            return true;
        }
    }
    if (t->n == t->cap && !cp_names_grow(t)) return false;
    t->value[t->n] = cp;
    t->slot[cp_slot(t, cp)] = t->n + 1;
    *name = t->n++;
    return true;
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
    if (!annot_grow((void **)&c->pend, &c->pend_cap, c->npend + 1, sizeof *c->pend))
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    uint32_t cs, ce, ct;
    if (!annot_cp_name(&c->cps, r->cp_start, &cs) || !annot_cp_name(&c->cps, r->cp_end, &ce) ||
        !annot_cp_name(&c->cps, r->cp_task, &ct))
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM,
                                "annotate: out of memory (or 2^32 distinct code addresses)");
    c->pend[c->npend++] = (pending_seg){.id = r->id,
                                        .time = r->time,
                                        .dur = r->dur,
                                        .run = r->aux,
                                        .created = 0, /* resolve_segments */
                                        .cp_start = cs,
                                        .cp_end = ce,
                                        .cp_task = ct,
                                        .graph = (uint32_t)(gp - 1),
                                        .sk = r->start_kind,
                                        .ek = r->end_kind,
                                        .flags = r->flags};
    return OMPDAG_OK;
}

/* What the buffered segments need from the complete task table, in trace
 * order: each explicit segment's creation time (UINT64_MAX: its creation
 * is not in the trace), and its task's run, first start and completion
 * (annotate_depend.c; a later segment wins). */
static void resolve_segments(trace_ctx *c)
{
    for (size_t i = 0; i < c->npend; ++i) {
        pending_seg *s = &c->pend[i];
        if (s->flags & OMPDAG_RECF_IMPLICIT) continue;
        task_entry *e = c->tasks_cap ? annot_task_slot(c, s->id) : NULL;
        s->created = e && e->id ? e->time : UINT64_MAX;
        if (!e || !e->id) continue;
        e->run = s->run;
        if (s->sk == OMPDAG_PT_TASK_BEGIN) {
            e->seg_start = s->time - s->dur;
            e->seg_suspended = (s->flags & OMPDAG_RECF_SUSPENDED) != 0;
        }
        if (s->ek == OMPDAG_PT_TASK_END) e->end = s->time;
    }
}

static int cmp_pending(const void *x, const void *y)
{
    const pending_seg *a = x, *b = y;
    if (a->run != b->run) return a->run < b->run ? -1 : 1;
    if (a->created != b->created) return a->created < b->created ? -1 : 1;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return a->time < b->time ? -1 : a->time > b->time;
}

/* Sort keys of a pending segment, most significant first. */
static uint64_t pend_key(const void *rec, int k)
{
    const pending_seg *p = rec;
    switch (k) {
    case 0:
        return p->run;
    case 1:
        return p->created;
    case 2:
        return p->id;
    default:
        return p->time;
    }
}

/* One stable pass of LSD radix sort: (key, idx) by 16-bit digit `shift`
 * into (key2, idx2); false when every key has the same digit (no move). */
/* count[d] := where the first key with 16-bit digit d (at `shift`) goes in
 * a stable pass over key[0..n); false, with nothing to move, when every key
 * has the same digit. */
static bool digit_offsets(const uint64_t *key, size_t n, unsigned shift, size_t *count)
{
    memset(count, 0, 65536 * sizeof *count);
    for (size_t i = 0; i < n; ++i)
        ++count[(key[i] >> shift) & 0xffff];
    if (count[(key[0] >> shift) & 0xffff] == n) return false;
    size_t sum = 0;
    for (size_t d = 0; d < 65536; ++d) {
        size_t k = count[d];
        count[d] = sum;
        sum += k;
    }
    return true;
}

static bool radix_pass(const uint64_t *key, const uint32_t *idx, uint64_t *key2, uint32_t *idx2,
                       size_t n, unsigned shift, size_t *count)
{
    if (!digit_offsets(key, n, shift, count)) return false;
    for (size_t i = 0; i < n; ++i) {
        size_t at = count[(key[i] >> shift) & 0xffff]++;
        key2[at] = key[i];
        idx2[at] = idx[i];
    }
    return true;
}

/* p_new[j] = p_old[idx[j]], cycle by cycle; idx[j] = j marks j done. */
static inline __attribute__((always_inline)) void permute(unsigned char *p, uint32_t *idx, size_t n,
                                                          size_t size, unsigned char *tmp)
{
    for (size_t i = 0; i < n; ++i) {
        if (idx[i] == i) continue;
        memcpy(tmp, p + i * size, size);
        size_t j = i;
        for (;;) {
            size_t k = idx[j];
            idx[j] = (uint32_t)j;
            if (k == i) {
                memcpy(p + j * size, tmp, size);
                break;
            }
            memcpy(p + j * size, p + k * size, size);
            j = k;
        }
    }
}

bool annot_sort_u64(uint64_t *a, size_t n)
{
    if (n < 2) return true;
    uint64_t *b = annot_alloc_big(n * sizeof *b);
    bool ok = b && annot_sort_u64_with(a, n, b);
    free(b);
    return ok;
}

/* Small arrays (a region instance's few dozen start/end times, sorted twice
 * per run) by insertion: the radix passes clear a 65,536-entry count table
 * each, 100-130 µs per run whatever n (issue 26 item 11). */
enum { SMALL_SORT = 64 };

static void insertion_sort_u64(uint64_t *a, size_t n)
{
    for (size_t i = 1; i < n; ++i) {
        uint64_t x = a[i];
        size_t j = i;
        for (; j > 0 && a[j - 1] > x; --j)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

bool annot_sort_u64_with(uint64_t *a, size_t n, uint64_t *b)
{
    if (n < 2) return true;
    if (n <= SMALL_SORT) {
        insertion_sort_u64(a, n);
        return true;
    }
    if (n < 4096) {
        qsort(a, n, sizeof *a, ompdag_cmp_u64);
        return true;
    }
    size_t *count = malloc(65536 * sizeof *count);
    if (!count) return false;
    uint64_t *from = a, *to = b;
    for (unsigned shift = 0; shift < 64; shift += 16) {
        if (!digit_offsets(from, n, shift, count)) continue; /* one digit: no move */
        for (size_t i = 0; i < n; ++i)
            to[count[(from[i] >> shift) & 0xffff]++] = from[i];
        uint64_t *t = from;
        from = to, to = t;
    }
    if (from != a) memcpy(a, from, n * sizeof *a);
    free(count);
    return true;
}

/* The order that sorts p[0..n) (records of `size` bytes) by nkeys keys:
 * record idx[j] goes to j.  LSD radix on (key, index) pairs; NULL on
 * ENOMEM.  The caller frees it. */
static uint32_t *radix_order(const unsigned char *p, size_t n, size_t size, int nkeys,
                             uint64_t (*key_of)(const void *rec, int k))
{
    uint32_t *idx = annot_alloc_big(n * sizeof *idx), *idx2 = annot_alloc_big(n * sizeof *idx2);
    uint64_t *key = annot_alloc_big(n * sizeof *key), *key2 = annot_alloc_big(n * sizeof *key2);
    size_t *count = malloc(65536 * sizeof *count);
    bool ok = idx && idx2 && key && key2 && count;
    for (size_t i = 0; ok && i < n; ++i)
        idx[i] = (uint32_t)i;
    for (int k = nkeys - 1; ok && k >= 0; --k) { /* least significant key first */
        /* a constant key (one region run) orders nothing: skip its gather,
         * random once idx is not the identity */
        uint64_t k0 = key_of(p, k);
        size_t same = 1;
        while (same < n && key_of(p + same * size, k) == k0)
            ++same;
        if (same == n) continue;
        for (size_t i = 0; i < n; ++i)
            key[i] = key_of(p + (size_t)idx[i] * size, k);
        for (unsigned shift = 0; shift < 64; shift += 16)
            if (radix_pass(key, idx, key2, idx2, n, shift, count)) {
                uint64_t *tk = key;
                key = key2, key2 = tk;
                uint32_t *ti = idx;
                idx = idx2, idx2 = ti;
            }
    }
    free(idx2), free(key), free(key2), free(count);
    if (ok) return idx;
    free(idx);
    return NULL;
}

/* out[j] = p[idx[j]]: reads at random but independently, so with the
 * records fetched ahead it runs at memory bandwidth, where permute's
 * cycles wait for one miss after another (0.8 s of fib(30)'s 10^7). */
static inline __attribute__((always_inline)) void gather(unsigned char *restrict out,
                                                         const unsigned char *p,
                                                         const uint32_t *idx, size_t n,
                                                         size_t size)
{
    enum { ahead = 32 }; /* records */
    for (size_t j = 0; j < n; ++j) {
        if (j + ahead < n) __builtin_prefetch(p + (size_t)idx[j + ahead] * size);
        memcpy(out + j * size, p + (size_t)idx[j] * size, size);
    }
}

bool annot_sort_records(void *base, size_t n, size_t size, int nkeys,
                        uint64_t (*key_of)(const void *rec, int k),
                        int (*cmp)(const void *, const void *))
{
    return annot_sort_records_to(base, NULL, n, size, nkeys, key_of, cmp);
}

bool annot_sort_records_to(void *base, void *out, size_t n, size_t size, int nkeys,
                           uint64_t (*key_of)(const void *rec, int k),
                           int (*cmp)(const void *, const void *))
{
    unsigned char *p = base, *o = out;
    if (n < 4096 || n > UINT32_MAX || annot_reference_paths) {
        if (o && n) memcpy(o, p, n * size);
        if (n > 1) qsort(o ? o : p, n, size, cmp);
        return true;
    }
    uint32_t *idx = radix_order(p, n, size, nkeys, key_of);
    unsigned char *tmp = o ? NULL : malloc(size);
    bool ok = idx && (o || tmp);
    /* a constant size lets memcpy inline */
    if (ok && o && size == sizeof(pending_seg))
        gather(o, p, idx, n, sizeof(pending_seg));
    else if (ok && o)
        gather(o, p, idx, n, size);
    else if (ok && size == sizeof(pending_seg))
        permute(p, idx, n, sizeof(pending_seg), tmp);
    else if (ok && size == 32)
        permute(p, idx, n, 32, tmp);
    else if (ok)
        permute(p, idx, n, size, tmp);
    free(idx), free(tmp);
    return ok;
}

/* Orders seg[0..n), one task instance's segments (equal run and created)
 * or a few instances created at the same instant, by (id, time). */
static void sort_group(pending_seg *seg, size_t n)
{
    if (n > 16) {
        qsort(seg, n, sizeof *seg, cmp_pending);
        return;
    }
    for (size_t i = 1; i < n; ++i) { /* insertion sort: usually 1-3 segments */
        pending_seg x = seg[i];
        size_t j = i;
        while (j > 0 && cmp_pending(&seg[j - 1], &x) > 0) {
            seg[j] = seg[j - 1];
            --j;
        }
        seg[j] = x;
    }
}

/* A trace of 10^6 tasks buffers ~10^7 segments: qsort of the (then 80-byte)
 * records took seconds and a temporary copy of them.  The radix sort takes
 * the two keys that order task instances (run, created); the few segments
 * of each instance are then put in (id, time) order in place. */
bool annot_sort_pending(trace_ctx *c)
{
    pending_seg *p = c->pend;
    size_t n = c->npend;
    if (n < 4096 || annot_reference_paths)
        return annot_sort_records(p, n, sizeof *p, 4, pend_key, cmp_pending);
    /* Out of place into the spent creation records when they are large
     * enough (their pages are already faulted in), else into a new array;
     * in place when that is refused. */
    size_t bytes = n * sizeof *p;
    pending_seg *out = c->spare && c->spare_bytes >= bytes ? c->spare : annot_alloc_big(bytes);
    if (!annot_sort_records_to(p, out, n, sizeof *p, 2, pend_key, cmp_pending)) {
        if (out != c->spare) free(out);
        return false;
    }
    if (out) {
        if (out == c->spare) c->spare = NULL;
        free(c->pend);
        c->pend = p = out;
        c->pend_cap = n;
    }
    free(c->spare); /* too small: no later use */
    c->spare = NULL;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && p[j].run == p[i].run && p[j].created == p[i].created; ++j)
            ;
        sort_group(&p[i], j - i);
    }
    return true;
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

static size_t end_hash(uint64_t cp, uint32_t graph, int32_t task, uint8_t ck, int32_t cn,
                       uint8_t rk)
{
    uint64_t h = cp * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)graph << 40) ^ ((uint64_t)(uint32_t)task << 8) ^ ck;
    h *= 0xff51afd7ed558ccdull;
    h ^= ((uint64_t)(uint32_t)cn << 8) ^ rk;
    h *= 0xc4ceb9fe1a85ec53ull;
    return (size_t)(h >> 20);
}

static end_memo *end_slot(end_memo *t, size_t cap, uint64_t cp, uint32_t graph, int32_t task,
                          uint8_t ck, int32_t cn, uint8_t rk)
{
    size_t i = end_hash(cp, graph, task, ck, cn, rk) & (cap - 1);
    while (t[i].used && (t[i].cp != cp || t[i].graph != graph || t[i].task != task ||
                         t[i].ck != ck || t[i].cn != cn || t[i].rk != rk))
        i = (i + 1) & (cap - 1);
    return &t[i];
}

/* find_end, answered once per distinct question (end_memo).  false with
 * *nomem set on allocation failure. */
static bool find_end_memo(trace_ctx *c, const graph_info *gi, int32_t task, ompdag_point sk,
                          int32_t sn, const pending_seg *r, ompdag_point *ek, int32_t *en,
                          const char **why, bool *nomem)
{
    if (2 * (c->ends_used + 1) > c->ends_cap) {
        size_t cap = c->ends_cap ? 2 * c->ends_cap : 256;
        end_memo *t = calloc(cap, sizeof *t);
        if (!t) {
            *nomem = true;
            return false;
        }
        for (size_t i = 0; i < c->ends_cap; ++i)
            if (c->ends[i].used) {
                const end_memo *o = &c->ends[i];
                *end_slot(t, cap, o->cp, o->graph, o->task, o->ck, o->cn, o->rk) = *o;
            }
        free(c->ends);
        c->ends = t;
        c->ends_cap = cap;
    }
    if (annot_reference_paths) return find_end(c, gi, task, sk, sn, r, ek, en, why);
    uint32_t graph = r->graph;
    end_memo *m = end_slot(c->ends, c->ends_cap, r->cp_end, graph, task, (uint8_t)sk, sn, r->ek);
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
        bool nomem = false;
        if (ok) ok = find_end_memo(c, gi, task, ck, cn, r, &ek, &en, &why, &nomem);
        if (nomem) return SIZE_MAX;
        seg_class *k = NULL;
        if (ok && !dry_run) {
            k = annot_class_get(a, r->graph, task, ck, cn, ek, en, c->mark, c->stack, &nomem);
            i64vec *into = k && annot_run_interfered(c, r->run) ? &k->samples_if
                           : k                                  ? &k->samples
                                                                : NULL;
            if (nomem || (k && !annot_i64vec_push(into, (int64_t)r->dur))) return SIZE_MAX;
            if (k) annot_input_hit(c, k, (size_t)(r - c->pend));
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
        __builtin_prefetch(made_slot_at(c, s->id, s->time));
    if (!c->tasks_cap || (s->flags & OMPDAG_RECF_IMPLICIT)) return;
    size_t i = task_index(c, s->id);
    if (i != SIZE_MAX) __builtin_prefetch(&c->tasks[i]);
    const pending_seg *h = &c->pend[half];
    if (!c->made_cap || (h->flags & OMPDAG_RECF_IMPLICIT) || (half && h->id == h[-1].id)) return;
    const task_entry *e = annot_task_find(c, h->id);
    if (e) __builtin_prefetch(made_slot_at(c, e->parent, e->time));
}

/* Maps every buffered segment, one task instance at a time, creators before
 * the tasks they create (so each child knows the T node that made it). */
static ompdag_status map_pending(trace_ctx *c, ompdag_error *err)
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
            if (map_chain(c, cand[k], seg, n, true) == n) {
                best = cand[k];
                break;
            }
        size_t got = map_chain(c, best, seg, n, false);
        if (got == SIZE_MAX) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        a->mapped += got;
        if (got < n && (st = check_site_depth(c, graph, seg, n, err))) return st;
    }
    return OMPDAG_OK; /* c->pend stays: annot_overhead_collect may still be reading it */
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
            while (idx[h])
                h = (h + 1) & (cap - 1);
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
        if (r->flags == 0) ++run->implicit_begun; /* each team thread's implicit task begins */
        annot_sched_record(run, r);
        break;
    case OMPDAG_REC_REGION_END:
        run->end = r->time;
        break;
    case OMPDAG_REC_SEGMENT:
        if (r->thread < 64) run->thread_mask |= 1ull << r->thread;
        annot_arrival_record(run, r);
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

/* The team size of a region instance: the threads that took part.  Every
 * thread of the team begins an implicit task, for which the probe writes an
 * OMPDAG_REC_SCHED record; without those (a trace of an older probe), the
 * threads that ran its segments.  Not the threads requested at the fork:
 * the runtime may give fewer.  A run of T threads is judged against the
 * bound at m = T (issue 22). */
int64_t annot_run_team(const region_run *run)
{
    if (run->implicit_begun) return run->implicit_begun;
    int64_t seen = __builtin_popcountll(run->thread_mask);
    return seen ? seen : 1;
}

/* Response times of the runs read from one trace, each with its team size. */
static ompdag_status finish_runs(trace_ctx *c, ompdag_error *err)
{
    for (size_t i = 0; i < c->nruns; ++i) {
        const region_run *run = &c->runs[i];
        graph_info *g = &c->a->graphs[run->graph];
        int64_t team = annot_run_team(run);
        if (run->begin && run->end > run->begin &&
            (!annot_i64vec_push(&g->responses, (int64_t)(run->end - run->begin)) ||
             !annot_i64vec_push(&g->responses_interfered, run->interfered) ||
             !annot_i64vec_push(&g->response_threads, team)))
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        if (run->tasks_begin && run->tasks_end > run->tasks_begin &&
            (!annot_i64vec_push(&g->task_responses, (int64_t)(run->tasks_end - run->tasks_begin)) ||
             !annot_i64vec_push(&g->task_responses_interfered, run->interfered) ||
             !annot_i64vec_push(&g->task_response_threads, team)))
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    }
    return OMPDAG_OK;
}

/* ---- is this the graphs' program? ------------------------------------------ */

/* Refuses a trace whose program holds none of the graphs' sources (issue
 * 22): the traced executable matches its build-id (checked before), and its
 * line tables, or those of a shared object it loaded, must name the source
 * file of some graph's region.  A trace of another program, or of a binary
 * built without -g, would otherwise map nothing and read as "0 runs". */
static ompdag_status check_sources(trace_ctx *c, ompdag_error *err)
{
    const ompdag_annotation *a = c->a;
    const char *first = NULL;
    size_t others = 0;
    ompdag_source_evidence ev = OMPDAG_SOURCE_ABSENT;
    for (size_t gi = 0; gi < a->ngraphs; ++gi) {
        const char *file = a->graphs[gi].region_file;
        bool seen = !file;
        for (size_t gj = 0; gj < gi && !seen; ++gj)
            seen = annot_same_file(a->graphs[gj].region_file, file);
        if (seen) continue; /* one look per distinct file */
        ompdag_status st = ompdag_symbolizer_find_source(c->sym, file, annot_same_file, &ev, err);
        if (st) return st;
        if (ev == OMPDAG_SOURCE_FOUND) return OMPDAG_OK;
        if (ev == OMPDAG_SOURCE_FOUND_GCC) /* issue 24 item 6: no misleading mapping errors */
            return ompdag_error_set(
                err, OMPDAG_ERR_UNSUPPORTED,
                "%s in the trace's program %s was compiled by GCC: its OpenMP code generation "
                "(libgomp's GOMP_* calls) puts the scheduling points elsewhere than the clang "
                "front end's graph, so its segments cannot be mapped; rebuild with clang -fopenmp "
                "-g and run it again (`ompdag run --preload-libomp` runs a GCC binary, for its "
                "response times only)",
                file, ompdag_symbolizer_executable(c->sym));
        if (first)
            ++others;
        else
            first = file;
    }
    if (!first) return OMPDAG_OK; /* no graph names its source: nothing to compare */
    const char *exe = ompdag_symbolizer_executable(c->sym);
    if (ev == OMPDAG_SOURCE_EXE_NO_LINES)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "the trace's program %s has no line tables (built without -g?): "
                                "rebuild with -g (clang -fopenmp -g), run it again and annotate "
                                "that trace",
                                exe);
    return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                            "the trace's program %s does not contain %s (the graph's source)%s: "
                            "is this the right trace?",
                            exe, first, others ? ", nor the other graphs' sources" : "");
}

/* ---- the dispatch delays and the mapping, side by side ---------------------- */

typedef struct overhead_job {
    trace_ctx *c;
    ompdag_error err;
    ompdag_status st;
} overhead_job;

static void *overhead_thread(void *arg)
{
    overhead_job *j = arg;
    j->st = annot_overhead_collect(j->c, &j->err);
    return NULL;
}

/* annot_overhead_collect, then map_pending: both only read the sorted
 * segments (c->pend, c->npend: neither may change them until both are
 * done) and the task table, and write disjoint state (the delays and
 * team of each graph; the classes, creations and unmapped counts), so on a
 * large trace the dispatch delays are collected on a second thread while
 * this one maps.  Each is sequential inside, so the result is the same as
 * one after the other; their errors are reported in that order. */
static ompdag_status overhead_and_map(trace_ctx *c, ompdag_error *err)
{
    overhead_job job = {.c = c};
    pthread_t thread;
    bool beside = c->npend >= 4096 && !annot_reference_paths &&
                  pthread_create(&thread, NULL, overhead_thread, &job) == 0;
    if (!beside) {
        ompdag_status st = annot_overhead_collect(c, err);
        if (!st) st = map_pending(c, err);
        c->npend = 0;
        return st;
    }
    ompdag_error map_err = {0};
    ompdag_status map_st = map_pending(c, &map_err);
    pthread_join(thread, NULL);
    c->npend = 0;
    if (job.st) {
        if (err) *err = job.err;
        return job.st;
    }
    if (map_st && err) *err = map_err;
    return map_st;
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
        (st = ompdag_symbolizer_check_executable(c.sym, err)) || (st = check_sources(&c, err))) {
        ctx_free(&c);
        ompdag_trace_reader_destroy(r);
        return st;
    }
    /* One pass over the trace.  Records of different threads are not in
     * time order, so a segment may precede its task's creation: segments
     * and dependence records are kept, and what they need from the task
     * table is filled in once the table is complete. */
    if (!annot_reference_paths) reserve_arrays(&c, path);
    for (;;) {
        ompdag_trace_rec rec;
        bool done;
        if ((st = ompdag_trace_reader_next(r, &rec, &done, err))) break;
        if (done) {
            /* the footer: records the probe could not store (a failed buffer
             * allocation or chunk write) mean the trace misses measured time,
             * so every graph is unsafe */
            if (rec.type == OMPDAG_REC_FOOTER &&
                __builtin_add_overflow(a->dropped_records, rec.cp_start, &a->dropped_records))
                a->dropped_records = UINT64_MAX;
            break;
        }
        if (rec.type == OMPDAG_REC_SEGMENT && (st = add_segment(&c, &rec, err))) break;
        if (rec.type == OMPDAG_REC_TASK_CREATE && rec.cp_region &&
            region_graph(&c, rec.cp_region) &&
            !task_record(&c, &rec, region_graph(&c, rec.cp_region) - 1)) {
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
            break;
        }
        if ((rec.type == OMPDAG_REC_DEPEND || rec.type == OMPDAG_REC_DEP_PAIR ||
             rec.type == OMPDAG_REC_DEP_START) &&
            !defer_record(&c, &rec)) {
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
            break;
        }
        if (rec.type == OMPDAG_REC_OFFLOAD && rec.id && !annot_off_push(&c, &rec)) {
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
            break;
        }
        bool regional = rec.type == OMPDAG_REC_REGION_BEGIN || rec.type == OMPDAG_REC_REGION_END ||
                        rec.type == OMPDAG_REC_SCHED || rec.type == OMPDAG_REC_SEGMENT;
        if (regional && (st = add_region(&c, &rec, err))) break;
    }
    ompdag_trace_reader_destroy(r);
    if (st == OMPDAG_OK && c.ncreated && !task_table(&c))
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    if (st == OMPDAG_OK) resolve_segments(&c);
    for (size_t i = 0; st == OMPDAG_OK && i < c.ndeferred; ++i)
        st = annot_depend_record(&c, &c.deferred[i], err);
    if (st == OMPDAG_OK && c.noff) qsort(c.off, c.noff, sizeof *c.off, annot_cmp_off);
    if (st == OMPDAG_OK && !annot_sort_pending(&c))
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    if (st == OMPDAG_OK) annot_depend_ready(&c);
    for (size_t i = 0; i < a->ngraphs && !c.depend_on; ++i)
        c.depend_on = ompdag_condag_has_depend(a->graphs[i].g);
    c.depend_on = c.depend_on || c.nitems || c.npairs;
    if (st == OMPDAG_OK) st = annot_interfered_runs(&c, err);
    /* alone, not beside the mapping: their peaks of memory would add up */
    if (st == OMPDAG_OK) st = annot_floor_collect(&c, err);
    /* annotate_input.c: each segment's class, for the delays of its instance */
    if (st == OMPDAG_OK && c.npend) c.class_of = calloc(c.npend, sizeof *c.class_of);
    if (st == OMPDAG_OK) st = overhead_and_map(&c, err);
    if (st == OMPDAG_OK) st = annot_input_resolve(&c, err);
    if (st == OMPDAG_OK) st = annot_depend_check(&c, err);
    if (st == OMPDAG_OK) st = finish_runs(&c, err);
    ctx_free(&c);
    if (st == OMPDAG_OK) ++a->traces;
    return st;
}
