/*
 * report/report_advice.c — the task-granularity advice (`ompdag advise`,
 * include/ompdag/advise.h) inside timing reports: a block per region in the
 * text report, an "advice" member per region in JSON, and one
 * `ompdag-too-fine` warning per too-fine task directive in SARIF.  The report
 * only shows advice computed by the caller (ompdag_report_options.advice).
 */
#include <jansson.h>

#include "ompdag/advise.h"
#include "ompdag/internal/advise_json.h"
#include "report_internal.h"

void report_advice_text(const ompdag_report *r, size_t graph, FILE *out)
{
    size_t reg = r->advice ? ompdag_advice_region_of_graph(r->advice, graph) : (size_t)-1;
    if (reg == (size_t)-1) return;
    fprintf(out, "  task granularity (ompdag advise):\n");
    ompdag_advice_write_region_text(r->advice, reg, "    ", out);
}

void report_advice_json(const ompdag_report *r, size_t graph, json_t *region)
{
    size_t reg = r->advice ? ompdag_advice_region_of_graph(r->advice, graph) : (size_t)-1;
    if (reg == (size_t)-1) return;
    json_t *tasks = json_array();
    for (size_t k = 0; tasks && k < ompdag_advice_task_count(r->advice, reg); ++k)
        json_array_append_new(tasks, advise_task_to_json(ompdag_advice_task(r->advice, reg, k)));
    json_object_set_new(region, "advice", tasks);
}

void report_advice_each_too_fine(const ompdag_report *r, size_t graph, report_advice_fn fn,
                                 void *ctx)
{
    size_t reg = r->advice ? ompdag_advice_region_of_graph(r->advice, graph) : (size_t)-1;
    if (reg == (size_t)-1) return;
    char msg[512];
    for (size_t k = 0; k < ompdag_advice_task_count(r->advice, reg); ++k) {
        const ompdag_advise_task *t = ompdag_advice_task(r->advice, reg, k);
        if (t->verdict != OMPDAG_ADVISE_TOO_FINE) continue;
        snprintf(msg, sizeof msg,
                 "%s: the tasks created at %s:%d are too fine (%.3g us each, predicted minimum "
                 "%.3g us): %s [ompdag-too-fine]",
                 ompdag_advice_region_function(r->advice, reg)
                     ? ompdag_advice_region_function(r->advice, reg)
                     : "region",
                 t->loc.file ? t->loc.file : "?", t->loc.line, t->grain_ns / 1e3,
                 t->predicted.grain_min_ns / 1e3, t->suggestion);
        fn(t->loc, msg, advise_task_to_json(t), ctx);
    }
}
