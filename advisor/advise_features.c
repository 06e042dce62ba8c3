/*
 * advisor/advise_features.c — the feature vector of one task directive.
 *
 * Source: Ma 2018 (docs/advise.md), whose eight per-procedure
 * features (instruction count, branch and loop-branch figures, add/sub and
 * mul/div counts, basic blocks) become, for an OpenMP `task` directive, the
 * static counts the front end stores on the T node ("features", see
 * plugin/fe_features.c) and dynamic figures read from an annotated con-DAG
 * (docs/probe.md "Output"): the task's grain (own time per instance), its
 * segment times, instances per run, the runtime-overhead share and the
 * region's parallelism vol/len.  docs/advise.md defines each one.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"
#include "ompdag/rta.h"

static const char *const feature_names[OMPDAG_FEAT_COUNT] = {
    "stmts",      "branches",      "loops",          "calls",      "addsub",
    "muldiv",     "blocks",        "recursion",      "grain_ns",   "seg_mean_ns",
    "seg_max_ns", "tasks_per_run", "overhead_share", "parallelism"};

const char *ompdag_advise_feature_name(int f)
{
    return f >= 0 && f < OMPDAG_FEAT_COUNT ? feature_names[f] : NULL;
}

const char *ompdag_advise_shape_name(ompdag_advise_shape s)
{
    return s == OMPDAG_SHAPE_RECURSIVE ? "recursive" : "loop";
}

/* A numeric extra key of node v (-1: the graph), or `dflt`. */
static double extra_number(const ompdag_condag *g, int32_t v, const char *key, double dflt)
{
    json_t *x = json_object_get(ompdag_condag_extra(g, v), key);
    return json_is_number(x) ? json_number_value(x) : dflt;
}

double advise_graph_overhead_ns(const ompdag_condag *g)
{
    json_t *o = json_object_get(ompdag_condag_extra(g, -1), "runtime_overhead");
    json_t *x = json_object_get(o, "per_task_ns");
    return json_is_number(x) && json_number_value(x) >= 0 ? json_number_value(x) : -1;
}

static bool same_loc(ompdag_loc a, ompdag_loc b)
{
    if (a.line != b.line) return false;
    if (!a.file || !b.file) return a.file == b.file;
    return !strcmp(a.file, b.file);
}

ompdag_status advise_parallelism(const ompdag_condag *g, int32_t threads, double *out,
                                 ompdag_error *err)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, threads);
    ompdag_rta_result *r = NULL;
    ompdag_status st = ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, err);
    if (st) return st;
    int64_t vol = ompdag_rta_result_vol(r), len = ompdag_rta_result_len(r);
    *out = len > 0 ? (double)vol / (double)len : -1;
    ompdag_rta_result_destroy(r);
    return OMPDAG_OK;
}

/* Per graph task: own time per instance (sum of node medians), instances,
 * largest observed segment and scheduling points passed. */
typedef struct task_sums {
    double own_ns, seg_max_ns;
    double points; /* T and W nodes observed: each ends one segment */
} task_sums;

static void sum_tasks(const ompdag_condag *g, task_sums *t)
{
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        task_sums *s = &t[ompdag_condag_node_task(g, v)];
        if (extra_number(g, v, "samples", 0) <= 0) continue;
        s->own_ns += extra_number(g, v, "observed_median", 0);
        double mx = extra_number(g, v, "observed_max", 0);
        if (mx > s->seg_max_ns) s->seg_max_ns = mx;
        ompdag_kind k = ompdag_condag_node_kind(g, v);
        if (k == OMPDAG_KIND_T || k == OMPDAG_KIND_W) s->points += 1;
    }
}

static void static_features(const ompdag_condag *g, int32_t t, ompdag_advise_features *f)
{
    json_t *feat = json_object_get(ompdag_condag_extra(g, t), "features");
    for (int k = 0; k <= OMPDAG_FEAT_RECURSION; ++k) {
        json_t *x = json_object_get(feat, feature_names[k]);
        f->have[k] = json_is_number(x) && json_number_value(x) >= 0;
        f->v[k] = f->have[k] ? json_number_value(x) : 0;
    }
}

/* Recursive when the front end saw the body call its own function, or when
 * a T node of this directive lies in a task that this directive created (an
 * inlined recursion); else a loop (or a single task: chunk 1). */
static ompdag_advise_shape shape_of(const ompdag_condag *g, ompdag_loc loc,
                                    const ompdag_advise_features *f)
{
    if (f->have[OMPDAG_FEAT_RECURSION] && f->v[OMPDAG_FEAT_RECURSION] > 0)
        return OMPDAG_SHAPE_RECURSIVE;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_T ||
            !same_loc(ompdag_condag_node_loc(g, v), loc))
            continue;
        int32_t creator = ompdag_condag_task_creator(g, ompdag_condag_node_task(g, v));
        if (creator >= 0 && same_loc(ompdag_condag_node_loc(g, creator), loc))
            return OMPDAG_SHAPE_RECURSIVE;
    }
    return OMPDAG_SHAPE_LOOP;
}

ompdag_status advise_directive_features(const ompdag_condag *g, ompdag_loc loc, double parallelism,
                                        double overhead_ns, ompdag_advise_features *out,
                                        double *instances, ompdag_advise_shape *shape,
                                        ompdag_error *err)
{
    memset(out, 0, sizeof *out);
    int32_t ntasks = ompdag_condag_task_count(g);
    task_sums *t = calloc((size_t)ntasks, sizeof *t);
    if (!t) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    sum_tasks(g, t);
    double inst = 0, own = 0, segs = 0, seg_max = 0;
    int32_t first = -1;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_T ||
            !same_loc(ompdag_condag_node_loc(g, v), loc))
            continue;
        if (first < 0) first = v;
        int32_t c = ompdag_condag_node_creates(g, v);
        double k = extra_number(g, ompdag_condag_task_source(g, c), "samples", 0);
        if (k <= 0) continue;
        inst += k;
        own += k * t[c].own_ns;
        segs += k * (1 + t[c].points);
        if (t[c].seg_max_ns > seg_max) seg_max = t[c].seg_max_ns;
    }
    free(t);
    if (first < 0)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "no task directive at %s:%d",
                                loc.file ? loc.file : "?", loc.line);
    static_features(g, first, out);
    *shape = shape_of(g, loc, out);
    json_t *runs_j = json_object_get(ompdag_condag_extra(g, -1), "observed_response_ns");
    double runs =
        json_is_array(runs_j) && json_array_size(runs_j) > 0 ? (double)json_array_size(runs_j) : 1;
    *instances = inst / runs;
    if (inst > 0) {
        double grain = own / inst;
        out->v[OMPDAG_FEAT_GRAIN] = grain;
        out->v[OMPDAG_FEAT_SEG_MEAN] = own / segs;
        out->v[OMPDAG_FEAT_SEG_MAX] = seg_max;
        out->v[OMPDAG_FEAT_TASKS] = inst / runs;
        out->have[OMPDAG_FEAT_GRAIN] = out->have[OMPDAG_FEAT_SEG_MEAN] = true;
        out->have[OMPDAG_FEAT_SEG_MAX] = out->have[OMPDAG_FEAT_TASKS] = true;
        if (overhead_ns > 0) {
            out->v[OMPDAG_FEAT_OVERHEAD] = overhead_ns / (overhead_ns + grain);
            out->have[OMPDAG_FEAT_OVERHEAD] = true;
        }
    }
    if (parallelism > 0) {
        out->v[OMPDAG_FEAT_PARALLELISM] = parallelism;
        out->have[OMPDAG_FEAT_PARALLELISM] = true;
    }
    return OMPDAG_OK;
}

ompdag_status ompdag_advise_directive_features(const ompdag_condag *g, ompdag_loc loc,
                                               int32_t threads, double overhead_ns,
                                               ompdag_advise_features *out, double *instances,
                                               ompdag_advise_shape *shape, ompdag_error *err)
{
    if (threads < 1) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "threads must be >= 1");
    double par = -1;
    ompdag_status st = advise_parallelism(g, threads, &par, err);
    if (st) return st;
    double o = advise_graph_overhead_ns(g);
    return advise_directive_features(g, loc, par, o > 0 ? o : overhead_ns, out, instances, shape,
                                     err);
}
