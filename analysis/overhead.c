/*
 * analysis/overhead.c — dispatch delays D(v) per node (include/ompdag/overhead.h;
 * the proof is docs/overheads.md, after Graham, "Bounds for certain
 * multiprocessing anomalies", 1966): stored on the nodes (charged on the
 * critical chain only) or folded into their WCETs.
 */
#include <stdlib.h>

#include "ompdag/overhead.h"

static bool valid(const ompdag_overheads *o)
{
    return o && o->start_delay >= 0 && o->wake_delay >= 0 && o->cont_delay >= 0 &&
           o->formation >= 0 && o->threads >= 0;
}

int64_t ompdag_overheads_formation_delay(const ompdag_overheads *o)
{
    if (!o || o->formation <= 0) return 0;
    int64_t m = o->threads > 1 ? o->threads : 1;
    return o->formation / m + (o->formation % m != 0);
}

/* The delay classes of v, given whether an F-predecessor of v is a T node. */
bool ompdag_overheads_delay_of(const ompdag_condag *g, int32_t v, bool after_create,
                               const ompdag_overheads *o, int64_t *d)
{
    *d = 0;
    int32_t t = ompdag_condag_node_task(g, v);
    bool root_source = t == ompdag_condag_root_task(g) && ompdag_condag_task_source(g, t) == v;
    if (!root_source && ompdag_condag_task_source(g, t) == v) *d = o->start_delay;
    if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_W) *d = o->wake_delay;
    /* team formation: once, on the node every critical chain starts at (the
     * chain of docs/overheads.md ends at the root's source, r = 0) */
    if (root_source && __builtin_add_overflow(*d, ompdag_overheads_formation_delay(o), d))
        return false;
    /* the creator's continuation; a W right after a T (an undeferred task, or
     * `task` then `taskwait`) may first resume late, then wait to be woken */
    return !after_create || !__builtin_add_overflow(*d, o->cont_delay, d);
}

int64_t ompdag_overhead_of_node(const ompdag_condag *g, int32_t v, const ompdag_overheads *o)
{
    bool after_create = false;
    int32_t n = ompdag_condag_node_count(g);
    for (int32_t u = 0; u < n && !after_create; ++u) {
        if (ompdag_condag_node_kind(g, u) != OMPDAG_KIND_T) continue;
        int32_t cnt;
        const int32_t *s = ompdag_condag_node_fsucc(g, u, &cnt);
        for (int32_t k = 0; k < cnt; ++k)
            after_create |= s[k] == v;
    }
    int64_t d;
    return ompdag_overheads_delay_of(g, v, after_create, o, &d) ? d : INT64_MAX;
}

ompdag_status ompdag_overheads_node_delays(const ompdag_condag *g, const ompdag_overheads *o,
                                           int64_t *delay, ompdag_error *err)
{
    if (!g || !valid(o) || !delay)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "overheads (delays, formation, threads) must be >= 0");
    int32_t n = ompdag_condag_node_count(g);
    for (int32_t v = 0; v < n; ++v)
        delay[v] = 0; /* first: 1 marks "follows a T node" */
    for (int32_t u = 0; u < n; ++u) {
        if (ompdag_condag_node_kind(g, u) != OMPDAG_KIND_T) continue;
        int32_t cnt;
        const int32_t *s = ompdag_condag_node_fsucc(g, u, &cnt);
        for (int32_t k = 0; k < cnt; ++k)
            delay[s[k]] = 1;
    }
    int64_t total = 0;
    for (int32_t v = 0; v < n; ++v)
        if (!ompdag_overheads_delay_of(g, v, delay[v] == 1, o, &delay[v]) ||
            __builtin_add_overflow(total, delay[v], &total))
            return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                    "node '%s': the dispatch delays overflow int64",
                                    ompdag_condag_node_id(g, v));
    return OMPDAG_OK;
}

/* D of every node, with WCET + D and Σ (WCET + D) checked. */
static int64_t *checked_delays(const ompdag_condag *g, const ompdag_overheads *o, ompdag_status *st,
                               ompdag_error *err)
{
    int32_t n = ompdag_condag_node_count(g);
    int64_t *d = malloc(sizeof *d * (size_t)(n ? n : 1)), total = 0;
    if (!d) {
        *st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if ((*st = ompdag_overheads_node_delays(g, o, d, err))) return free(d), NULL;
    for (int32_t v = 0; v < n; ++v) {
        int64_t w;
        if (__builtin_add_overflow(ompdag_condag_node_wcet(g, v), d[v], &w) ||
            __builtin_add_overflow(total, w, &total)) {
            *st = ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                   "node '%s': WCET plus dispatch delay overflows int64",
                                   ompdag_condag_node_id(g, v));
            return free(d), NULL;
        }
    }
    return d;
}

ompdag_status ompdag_condag_assign_overheads(ompdag_condag *g, const ompdag_overheads *o,
                                             ompdag_error *err)
{
    ompdag_status st;
    int64_t *d = checked_delays(g, o, &st, err);
    for (int32_t v = 0; d && !st && v < ompdag_condag_node_count(g); ++v)
        st = ompdag_condag_assign_delay(g, v, d[v], err); /* cannot fail: the sums were checked */
    free(d);
    return st;
}

ompdag_status ompdag_condag_add_overheads(ompdag_condag *g, const ompdag_overheads *o,
                                          ompdag_error *err)
{
    ompdag_status st;
    int64_t *d = checked_delays(g, o, &st, err);
    for (int32_t v = 0; d && !st && v < ompdag_condag_node_count(g); ++v)
        if (d[v]) st = ompdag_condag_assign_wcet(g, v, ompdag_condag_node_wcet(g, v) + d[v], err);
    free(d);
    return st;
}
