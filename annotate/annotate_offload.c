/*
 * annotate/annotate_offload.c — offloaded loops: each device's share, charged to segment
 * classes. Part of `ompdag annotate`; the rule and its safety argument are in annotate_internal.h
 * and docs/probe.md.
 */
#include "annotate_internal.h"

/* ---- offloaded loops (cuda-offload/offload) ---------------------------------- */

bool annot_off_push(trace_ctx *c, const ompdag_trace_rec *r)
{
    if (!annot_grow((void **)&c->off, &c->off_cap, c->noff + 1, sizeof *r)) return false;
    c->off[c->noff++] = *r;
    return true;
}

int annot_cmp_off(const void *x, const void *y)
{
    const ompdag_trace_rec *a = x, *b = y;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
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
    if (!old || json_integer_value(old) < v) json_object_set_new(o, key, json_integer(v));
}

/* Folds one device's share into `into` (device index -> entry): the largest
 * share seen, and how many loops were seen. */
bool annot_offload_fold(json_t *into, const char *dev, const json_t *e)
{
    json_t *cur = json_object_get(into, dev);
    if (!cur) {
        cur = json_object();
        if (!cur || json_object_set_new(into, dev, cur)) return false;
        json_object_update(cur, (json_t *)e);
        return true;
    }
    max_into(cur, "iterations_max", json_integer_value(json_object_get(e, "iterations_max")));
    max_into(cur, "busy_ns_max", json_integer_value(json_object_get(e, "busy_ns_max")));
    max_into(cur, "chunks_max", json_integer_value(json_object_get(e, "chunks_max")));
    json_object_set_new(cur, "loops",
                        json_integer(json_integer_value(json_object_get(cur, "loops")) +
                                     json_integer_value(json_object_get(e, "loops"))));
    return true;
}

/* Charges the offload records of task instance `id` that fell in (from, to]
 * — the segment just mapped to class k — to that class. */
bool annot_offload_attach(trace_ctx *c, seg_class *k, uint64_t id, uint64_t from, uint64_t to)
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
        if (!k->offload) k->offload = json_object();
        bool ok = e && k->offload && annot_offload_fold(k->offload, dev, e);
        json_decref(e);
        if (!ok) return false;
    }
    return true;
}
