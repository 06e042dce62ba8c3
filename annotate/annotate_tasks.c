/*
 * annotate/annotate_tasks.c — the task table (task instances by id,
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
    /* room for one more than the records, as a table that grew would have */
    size_t cap = ompdag_hmap_capacity_for(annot_task_kind(), c->ncreated + 1);
    c->tasks = cap ? calloc(cap, sizeof *c->tasks) : NULL;
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

/* `made` as a hashmap.h table: slots are creations, parent 0 empty, at most
 * 7/10 full, in annot_alloc_big's huge pages (10^6 tasks, 10^6 creations). */
static bool made_empty(const void *slot)
{
    return !((const creation_entry *)slot)->parent;
}

static bool made_holds(const void *ctx, const void *slot, const void *key)
{
    (void)ctx;
    const creation_entry *e = slot, *k = key;
    return e->parent == k->parent && e->time == k->time;
}

static uint64_t made_slot_hash(const void *ctx, const void *slot)
{
    (void)ctx;
    const creation_entry *e = slot;
    return annot_made_hash(e->parent, e->time);
}

static const ompdag_hmap_kind made_kind = {
    sizeof(creation_entry), made_empty, made_holds, made_slot_hash, 70, 1024, annot_zalloc_big};

static creation_entry *made_slot(trace_ctx *c, uint64_t parent, uint64_t time)
{
    creation_entry key = {parent, time, 0};
    return &c->made[ompdag_hmap_probe(&made_kind, NULL, c->made, c->made_cap,
                                      annot_made_hash(parent, time), &key)];
}

bool annot_made_insert(trace_ctx *c, uint64_t parent, uint64_t time, int32_t tnode)
{
    if (!parent) return true;
    size_t need = c->made_used + 1;
    if (!c->made_cap && c->tasks_used + 1 > need) /* sized at first for one creation per task */
        need = c->tasks_used + 1;
    if (!ompdag_hmap_reserve(&made_kind, NULL, (void **)&c->made, &c->made_cap, c->made_used, need))
        return false;
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
