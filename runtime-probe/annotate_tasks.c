/*
 * runtime-probe/annotate_tasks.c — the task table (task instances by id,
 * a direct table for the probe's dense ids or a hash table) and the table of
 * creations reached by mapped segments (which T node made each task).
 * Part of `ompdag annotate` (annotate_trace.c is its entry); the rule and its
 * safety argument are in annotate_internal.h and docs/probe.md.
 */
#include "annotate_internal.h"

task_entry *annot_task_slot(trace_ctx *c, uint64_t id)
{
    size_t i = annot_task_index(c, id);
    if (i != SIZE_MAX) return &c->tasks[i];
    memset(&c->dmiss, 0, sizeof c->dmiss);
    return &c->dmiss;
}

const task_entry *annot_task_find(const trace_ctx *c, uint64_t id)
{
    if (!c->tasks_cap || !id) return NULL;
    size_t i = annot_task_index(c, id);
    return i != SIZE_MAX && c->tasks[i].id == id ? &c->tasks[i] : NULL;
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
bool annot_task_table(trace_ctx *c)
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

static creation_entry *made_slot(trace_ctx *c, uint64_t parent, uint64_t time)
{
    size_t i = annot_made_hash(c, parent, time);
    while (c->made[i].parent && (c->made[i].parent != parent || c->made[i].time != time))
        i = (i + 1) & (c->made_cap - 1);
    return &c->made[i];
}

bool annot_made_insert(trace_ctx *c, uint64_t parent, uint64_t time, int32_t tnode)
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
