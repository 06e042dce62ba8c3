/*
 * advisor/advise_trace.c — granularity figures of one probe trace, for the
 * training script's grid runs (docs/advise.md, "Training").
 *
 * Source: the trace format of docs/probe.md (include/ompdag/probe.h).  A
 * region's time is parallel begin -> end; an explicit task's own time is the
 * sum of its segments' `dur` (the clock stops while it is suspended).  The
 * first region of a process is cold (thread creation): it is left out of the
 * minimum when the trace holds more than one.
 */
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"

#ifdef OMPDAG_ADVISE_HAVE_TRACE
#include "ompdag/probe.h"
#include "ompdag/trace.h"

typedef struct open_region {
    uint64_t id, begin;
} open_region;

ompdag_status ompdag_advise_trace_stats_read(const char *path, ompdag_advise_trace_stats *out,
                                             ompdag_error *err)
{
    ompdag_trace_reader *r = NULL;
    ompdag_status st = ompdag_trace_reader_open(path, &r, err);
    if (st) return st;
    memset(out, 0, sizeof *out);
    open_region open[64];
    size_t nopen = 0;
    uint64_t created = 0, ended = 0;
    double own = 0;
    int64_t first = -1, best = -1;
    bool done = false;
    while (!st && !done) {
        ompdag_trace_rec rec;
        st = ompdag_trace_reader_next(r, &rec, &done, err);
        if (st || done) break;
        if (rec.type == OMPDAG_REC_REGION_BEGIN && nopen < 64) {
            open[nopen++] = (open_region){rec.id, rec.time};
        } else if (rec.type == OMPDAG_REC_REGION_END) {
            for (size_t k = 0; k < nopen; ++k) {
                if (open[k].id != rec.id) continue;
                int64_t t = (int64_t)(rec.time - open[k].begin);
                open[k] = open[--nopen];
                out->regions++;
                if (first < 0)
                    first = t;
                else if (best < 0 || t < best)
                    best = t;
                break;
            }
        } else if (rec.type == OMPDAG_REC_TASK_CREATE) {
            created++;
        } else if (rec.type == OMPDAG_REC_SEGMENT && !(rec.flags & OMPDAG_RECF_IMPLICIT)) {
            own += (double)rec.dur;
            if (rec.end_kind == OMPDAG_PT_TASK_END) ended++;
        }
    }
    ompdag_trace_reader_destroy(r);
    if (st) return st;
    if (out->regions == 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: no parallel region ended", path);
    out->min_region_ns = best >= 0 ? best : first;
    out->tasks_per_region = (double)created / (double)out->regions;
    out->mean_task_ns = ended ? own / (double)ended : 0;
    return OMPDAG_OK;
}
#else
ompdag_status ompdag_advise_trace_stats_read(const char *path, ompdag_advise_trace_stats *out,
                                             ompdag_error *err)
{
    (void)out;
    return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                            "%s: this ompdag was built without the trace reader (libdw)", path);
}
#endif
