/*
 * analysis/condag_deprecated.c — the graph setters' old names, kept for one
 * release (include/ompdag/condag.h, "deprecated names"): each calls its
 * ompdag_condag_assign_* replacement.
 */
#include "ompdag/condag.h"
#include "ompdag/overhead.h"

ompdag_status ompdag_condag_set_name(ompdag_condag *g, const char *name)
{
    return ompdag_condag_assign_name(g, name);
}

ompdag_status ompdag_condag_set_function(ompdag_condag *g, const char *function)
{
    return ompdag_condag_assign_function(g, function);
}

ompdag_status ompdag_condag_set_time_unit(ompdag_condag *g, const char *unit)
{
    return ompdag_condag_assign_time_unit(g, unit);
}

ompdag_status ompdag_condag_set_region_loc(ompdag_condag *g, ompdag_loc loc)
{
    return ompdag_condag_assign_region_loc(g, loc);
}

void ompdag_condag_set_threads(ompdag_condag *g, int32_t m)
{
    ompdag_condag_assign_threads(g, m);
}

ompdag_status ompdag_condag_set_wcet(ompdag_condag *g, int32_t v, int64_t wcet, ompdag_error *err)
{
    return ompdag_condag_assign_wcet(g, v, wcet, err);
}

ompdag_status ompdag_condag_set_delay(ompdag_condag *g, int32_t v, int64_t delay, ompdag_error *err)
{
    return ompdag_condag_assign_delay(g, v, delay, err);
}

ompdag_status ompdag_condag_set_overheads(ompdag_condag *g, const ompdag_overheads *o,
                                          ompdag_error *err)
{
    return ompdag_condag_assign_overheads(g, o, err);
}
