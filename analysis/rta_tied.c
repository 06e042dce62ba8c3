/*
 * analysis/rta_tied.c — a bound that holds for tied tasks (OpenMP 5.2 §12.9,
 * the task scheduling constraint), after Sun et al., "Real-time scheduling
 * analysis of OpenMP task systems with tied tasks", RTSS 2017.
 *
 * Graham's argument (Theorem 1 of seed 004) needs every idle thread to take
 * ready work.  With tied tasks that fails: a suspended tied task resumes only
 * on its own thread, and that thread may only start its descendants.  What
 * still holds: while work remains, some thread runs graph code (docs/tied.md),
 * so R <= vol(e) for the flow e that runs, i.e. m·R <= m·vol(e), and the worst
 * flow's volume is Alg1 at m = 1.
 */
#include <jansson.h>
#include <stdlib.h>

#include "ompdag/rta.h"
#include "rta_internal.h"

const char *ompdag_tied_rule_name(ompdag_tied_rule rule)
{
    switch (rule) {
    case OMPDAG_TIED_NEVER_SUSPENDS:
        return "tied-never-suspends";
    case OMPDAG_TIED_VOLUME:
        return "tied-volume";
    default:
        return "untied";
    }
}

/* T nodes whose extra "untied" is false. */
static int32_t tied_task_count(const ompdag_condag *g)
{
    int32_t n = 0;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T &&
            json_is_false(json_object_get(ompdag_condag_extra(g, v), "untied")))
            ++n;
    return n;
}

static ompdag_status exact_bound(const ompdag_condag *g, const ompdag_rta_options *opt, int32_t m,
                                 int64_t *bound_times_m, ompdag_error *err)
{
    ompdag_rta_options o = *opt;
    o.m = m;
    o.bound_only = true;
    if (m == 1) o.migration_overhead = 0; /* one thread never migrates */
    if (m == 1) o.fold_delays = true;     /* a volume argument charges every node's delay */
    ompdag_rta_result *res;
    ompdag_status st = ompdag_rta_run(g, OMPDAG_ALG_EXACT, &o, &res, err);
    if (st) return st;
    *bound_times_m = ompdag_rta_result_bound_times_m(res);
    ompdag_rta_result_destroy(res);
    return OMPDAG_OK;
}

ompdag_status ompdag_rta_tied_bound(const ompdag_condag *g, const ompdag_rta_options *opt,
                                    int64_t *bound_times_m, ompdag_tied_rule *rule,
                                    ompdag_error *err)
{
    if (!g || !opt || !bound_times_m || !rule || opt->m < 1)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "tied bound: bad arguments");
    int64_t untied;
    ompdag_status st = exact_bound(g, opt, opt->m, &untied, err);
    if (st) return st;
    if (tied_task_count(g) == 0) {
        *rule = OMPDAG_TIED_NONE;
        *bound_times_m = untied;
        return OMPDAG_OK;
    }
    int64_t vol;
    if ((st = exact_bound(g, opt, 1, &vol, err))) return st;
    int64_t v;
    if (__builtin_mul_overflow(vol, (int64_t)opt->m, &v))
        return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                "tied bound: m·vol overflows int64 (m = %d)", (int)opt->m);
    *rule = OMPDAG_TIED_VOLUME;
    *bound_times_m = v > untied ? v : untied; /* assert-like: vol ≥ Graham always */
    return OMPDAG_OK;
}
