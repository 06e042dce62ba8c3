/*
 * bench/probe/soundness.c — is the analysed bound at least every observed
 * response time?  Annotates GRAPHS with all TRACES (max estimator, margin
 * PCT), builds the report on M threads (exact bound, seed 004 Alg1, and the
 * whole region's bound: + the measured fork/join, docs/overheads.md), and
 * compares each clean run (interfered ones, flagged by annotate, are
 * skipped): the region's response (parallel begin -> end) with the region
 * bound, the task system's (root begin -> last task end) with the bound.  Any
 * run over its bound makes the exit status 3.
 * Usage: probe_soundness M MARGIN_PCT GRAPHS.json TRACE...
 * Prints: m bound_ns region_bound_ns, then for region responses and for
 * task-system responses: runs max_observed_ns violations min_tightness
 * mean_tightness (tightness = bound / observed; "-" without clean runs).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "ompdag/internal/condag_json.h"
#include "ompdag/report.h"
#include "ompdag/trace.h"

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: probe_soundness M MARGIN_PCT GRAPHS.json TRACE...\n");
        return 2;
    }
    int m = atoi(argv[1]);
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    opt.margin_pct = atof(argv[2]);
    ompdag_error err;
    ompdag_condag_set *set;
    ompdag_annotation *a;
    if (ompdag_condag_set_load_file(argv[3], &set, &err) ||
        ompdag_annotation_create(set, &opt, &a, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    for (int i = 4; i < argc; ++i)
        if (ompdag_annotation_add_trace(a, argv[i], &err)) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
    if (ompdag_annotation_apply(a, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    const ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    ompdag_report_options ro;
    ompdag_report_options_init(&ro);
    int32_t threads[1] = {m};
    ro.threads = threads;
    ro.thread_count = 1;
    ompdag_report *rep;
    if (ompdag_report_create(set, &ro, &rep, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    const ompdag_report_row *row = ompdag_report_row_get(rep, 0);
    double region_bound = row->region_bound_ns >= 0 ? row->region_bound_ns : row->bound_ns;
    /* Region: parallel begin -> end, against the region bound (fork/join
     * measured); tasks: root begin -> last task end (what Theorem 1 bounds). */
    const char *keys[2] = {"observed_response_ns", "observed_task_response_ns"};
    const double bounds[2] = {region_bound, row->bound_ns};
    size_t bad_total = 0;
    printf("%d %.0f %.0f", m, row->bound_ns, region_bound);
    for (int k = 0; k < 2; ++k) {
        json_t *resp = json_object_get(ompdag_condag_extra(g, -1), keys[k]);
        char fkey[96];
        snprintf(fkey, sizeof fkey, "%s_interfered", keys[k]);
        json_t *flags = json_object_get(ompdag_condag_extra(g, -1), fkey);
        size_t runs = 0, bad = 0;
        double worst = 0, min_t = 1e300, sum_t = 0, bound = bounds[k];
        for (size_t i = 0; i < json_array_size(resp); ++i) {
            if (json_is_true(json_array_get(flags, i)))
                continue; /* interfered: Theorem 1 assumes dedicated processors */
            ++runs;
            double o = (double)json_integer_value(json_array_get(resp, i));
            worst = o > worst ? o : worst;
            bad += bound < o;
            min_t = bound / o < min_t ? bound / o : min_t;
            sum_t += bound / o;
        }
        if (runs)
            printf(" %zu %.0f %zu %.3f %.3f", runs, worst, bad, min_t, sum_t / (double)runs);
        else
            printf(" 0 - 0 - -");
        bad_total += bad;
    }
    printf("\n");
    int bad = bad_total != 0;
    ompdag_report_destroy(rep);
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
    return bad ? 3 : 0;
}
