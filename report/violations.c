/*
 * report/violations.c — deadline checks for the compiler plugin
 * (-fplugin-arg-ompdag-wcet=FILE): the graphs just extracted from the source
 * give each region's current location and deadline, the WCET database (an
 * annotated set from earlier runs) gives the WCETs.  A region is matched by
 * its "region_key" (file:line of the `parallel` directive), else by its loc.
 * Each violation is one diagnostic, located at the region:
 *     bound 6.2 ms on 4 threads exceeds deadline 5 ms [ompdag-deadline]
 * The bound is the one that holds (ompdag_rta_tied_bound: Graham's for untied
 * tasks, the task scheduling constraint's for tied ones), as in `ompdag check`.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

static bool same_region(const ompdag_condag *a, const ompdag_condag *b)
{
    char fa[4096], fb[4096];
    int32_t la, lb;
    if (!report_region_place(a, fa, sizeof fa, &la) || !report_region_place(b, fb, sizeof fb, &lb))
        return false;
    return la == lb && report_same_file(fa, fb);
}

static const ompdag_condag *find_db_graph(const ompdag_condag_set *db, const ompdag_condag *g)
{
    if (!db) return g;
    for (size_t i = 0; i < ompdag_condag_set_count(db); ++i)
        if (same_region(ompdag_condag_set_graph(db, i), g)) return ompdag_condag_set_graph(db, i);
    return NULL;
}

ompdag_status ompdag_deadline_violations(const ompdag_condag_set *current,
                                         const ompdag_condag_set *wcet_db, int32_t threads,
                                         ompdag_deadline_violation **out, size_t *count,
                                         ompdag_error *err)
{
    if (!out || !count || (!current && !wcet_db))
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "deadline check: no graphs");
    *out = NULL, *count = 0;
    const ompdag_condag_set *src = current ? current : wcet_db;
    ompdag_deadline_violation *v = NULL;
    size_t n = 0;
    int64_t cap = 0;
    ompdag_status st = OMPDAG_OK;
    for (size_t i = 0; i < ompdag_condag_set_count(src) && !st; ++i) {
        const ompdag_condag *g = ompdag_condag_set_graph(src, i);
        json_t *dl = json_object_get(ompdag_condag_extra(g, -1), "deadline");
        if (!json_is_string(dl)) continue;
        int64_t deadline;
        if ((st = ompdag_duration_parse(json_string_value(dl), &deadline, err))) break;
        const ompdag_condag *w = current ? find_db_graph(wcet_db, g) : g;
        if (!w) continue; /* no measurements for this region yet */
        int32_t m = threads > 0                    ? threads
                    : ompdag_condag_threads(g) > 0 ? ompdag_condag_threads(g)
                                                   : ompdag_condag_threads(w);
        int64_t unit = ompdag_time_unit_ns(ompdag_condag_time_unit(w));
        if (m <= 0 || !unit) continue; /* no thread count / not a time: nothing to compare */
        ompdag_rta_options opt;
        ompdag_rta_options_init(&opt, m);
        opt.bound_only = true;
        /* the bound that holds: with tied tasks, under the task scheduling
         * constraint (include/ompdag/rta.h), as `ompdag check` judges */
        int64_t btm;
        ompdag_tied_rule rule;
        if ((st = ompdag_rta_tied_bound(w, &opt, &btm, &rule, err))) break;
        /* The deadline is the whole region's: fork/join where measured (report.md). */
        int64_t fj = report_fork_join_ns(w);
        if (fj == -2) {
            st = ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                  "deadline check: fork + join overheads overflow int64 ns");
            break;
        }
        __int128 whole = (__int128)btm * unit + (__int128)(fj > 0 ? fj : 0) * m;
        if (whole <= (__int128)deadline * m) continue;
        if (!ompdag_grow_array((void **)&v, sizeof *v, &cap, (int64_t)n + 1)) {
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
            break;
        }
        ompdag_deadline_violation *x = &v[n++];
        memset(x, 0, sizeof *x);
        x->loc = ompdag_condag_region_loc(g);
        x->bound_times_m = btm, x->m = m, x->deadline_ns = deadline;
        char a[64], b[64];
        snprintf(x->message, sizeof x->message,
                 "bound %s on %d threads exceeds deadline %s [ompdag-deadline]",
                 ompdag_duration_format((double)whole / m, a, sizeof a), m,
                 ompdag_duration_format((double)deadline, b, sizeof b));
    }
    if (st) {
        free(v);
        return st;
    }
    *out = v, *count = n;
    return OMPDAG_OK;
}
