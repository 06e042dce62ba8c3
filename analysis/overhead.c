/*
 * analysis/overhead.c — dispatch delays folded into node WCETs
 * (include/ompdag/overhead.h; the proof is docs/overheads.md, after Graham,
 * "Bounds for certain multiprocessing anomalies", 1966).
 */
#include "ompdag/overhead.h"

int64_t ompdag_overhead_of_node(const ompdag_condag *g, int32_t v, const ompdag_overheads *o)
{
    if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_W) return o->wake_delay;
    int32_t t = ompdag_condag_node_task(g, v);
    if (t != ompdag_condag_root_task(g) && ompdag_condag_task_source(g, t) == v)
        return o->start_delay;
    return 0;
}

ompdag_status ompdag_condag_add_overheads(ompdag_condag *g, const ompdag_overheads *o,
                                          ompdag_error *err)
{
    if (!g || !o || o->start_delay < 0 || o->wake_delay < 0)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "overheads must be >= 0");
    int32_t n = ompdag_condag_node_count(g);
    int64_t total = 0;
    for (int32_t v = 0; v < n; ++v) { /* check everything before changing anything */
        int64_t w;
        if (__builtin_add_overflow(ompdag_condag_node_wcet(g, v), ompdag_overhead_of_node(g, v, o),
                                   &w) ||
            __builtin_add_overflow(total, w, &total))
            return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                    "node '%s': WCET plus dispatch delay overflows int64",
                                    ompdag_condag_node_id(g, v));
    }
    for (int32_t v = 0; v < n; ++v) { /* in two passes so no partial sum overflows */
        int64_t d = ompdag_overhead_of_node(g, v, o);
        if (d) {
            ompdag_status st = ompdag_condag_set_wcet(g, v, ompdag_condag_node_wcet(g, v) + d, err);
            if (st) return st; /* cannot happen: the sums were checked */
        }
    }
    return OMPDAG_OK;
}
