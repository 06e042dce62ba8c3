/*
 * advisor/advise_advice.c — advice per region and task directive: the
 * features (advise_features.c), the KNN-predicted scheme (advise_knn.c), a
 * verdict and a suggested change.
 *
 * Source: Ma 2018 §4.4–4.6 (docs/advise.md) partitions with a
 * scheme by keeping candidate threads whose size lies in [h1, h2]; here a
 * task directive whose measured grain lies below the predicted lower limit
 * is "too-fine" (its runtime overhead outweighs its work), above the upper
 * limit "too-coarse" (too few tasks to keep the threads busy), else "ok".
 * One rule of ours on top: a task whose runtime overhead is below
 * OMPDAG_ADVISE_MIN_OVERHEAD_SHARE of its time is never too fine (merging it
 * cannot gain more than that share, whatever the neighbours measured).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"
#include "ompdag/internal/advise_json.h"

typedef struct advice_region {
    size_t graph;
    const char *function;
    ompdag_loc loc;
    ompdag_advise_task *tasks;
    size_t n;
} advice_region;

struct ompdag_advice {
    advice_region *r;
    size_t n;
    size_t graphs;
};

const char *ompdag_advise_verdict_name(ompdag_advise_verdict v)
{
    switch (v) {
    case OMPDAG_ADVISE_TOO_FINE:
        return "too-fine";
    case OMPDAG_ADVISE_TOO_COARSE:
        return "too-coarse";
    case OMPDAG_ADVISE_UNMEASURED:
        return "unmeasured";
    default:
        return "ok";
    }
}

/* "12.3 us": the unit follows the magnitude (buf: caller-owned). */
static const char *fmt_ns(double ns, char *buf, size_t size)
{
    if (ns >= 1e9)
        snprintf(buf, size, "%.3g s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(buf, size, "%.3g ms", ns / 1e6);
    else if (ns >= 1e3)
        snprintf(buf, size, "%.3g us", ns / 1e3);
    else
        snprintf(buf, size, "%.0f ns", ns);
    return buf;
}

static void cutoff_text(const ompdag_advise_task *t, char *buf, size_t size)
{
    double c = t->predicted.cutoff;
    if (c < 0)
        snprintf(buf, size, "no training sample of this shape");
    else if (t->shape == OMPDAG_SHAPE_RECURSIVE)
        snprintf(buf, size, "cut off recursion at depth %ld", lround(c));
    else
        snprintf(buf, size, "give each task about %ld loop iterations", lround(c > 1 ? c : 1));
}

static void judge(ompdag_advise_task *t)
{
    char a[32], b[32], c[96];
    const ompdag_advise_thresholds *p = &t->predicted;
    cutoff_text(t, c, sizeof c);
    if (!t->features.have[OMPDAG_FEAT_GRAIN]) {
        t->verdict = OMPDAG_ADVISE_UNMEASURED;
        snprintf(t->suggestion, sizeof t->suggestion,
                 "no instance observed: run the program under the probe and annotate");
    } else if (t->grain_ns < p->grain_min_ns &&
               (!t->features.have[OMPDAG_FEAT_OVERHEAD] ||
                t->features.v[OMPDAG_FEAT_OVERHEAD] >= OMPDAG_ADVISE_MIN_OVERHEAD_SHARE)) {
        t->verdict = OMPDAG_ADVISE_TOO_FINE;
        snprintf(t->suggestion, sizeof t->suggestion, "tasks below %s: merge; %s",
                 fmt_ns(p->grain_min_ns, a, sizeof a), c);
    } else if (t->grain_ns > p->grain_max_ns) {
        t->verdict = OMPDAG_ADVISE_TOO_COARSE;
        snprintf(t->suggestion, sizeof t->suggestion,
                 "tasks above %s leave threads idle: split; %s",
                 fmt_ns(p->grain_max_ns, b, sizeof b), c);
    } else if (t->grain_ns < p->grain_min_ns) {
        t->verdict = OMPDAG_ADVISE_OK; /* below the minimum, but the overhead is negligible */
        snprintf(t->suggestion, sizeof t->suggestion,
                 "keep: below the predicted %s, but the runtime overhead is only %.2g %% of the "
                 "grain (merging gains less than 1 %%)",
                 fmt_ns(p->grain_min_ns, a, sizeof a), 100 * t->features.v[OMPDAG_FEAT_OVERHEAD]);
    } else {
        t->verdict = OMPDAG_ADVISE_OK;
        snprintf(t->suggestion, sizeof t->suggestion, "keep: grain within %s .. %s",
                 fmt_ns(p->grain_min_ns, a, sizeof a), fmt_ns(p->grain_max_ns, b, sizeof b));
    }
}

void ompdag_advice_destroy(ompdag_advice *a)
{
    if (!a) return;
    for (size_t i = 0; i < a->n; ++i)
        free(a->r[i].tasks);
    free(a->r);
    free(a);
}

static bool seen_loc(const ompdag_advise_task *t, size_t n, ompdag_loc loc)
{
    for (size_t i = 0; i < n; ++i)
        if (t[i].loc.line == loc.line &&
            (t[i].loc.file == loc.file ||
             (t[i].loc.file && loc.file && !strcmp(t[i].loc.file, loc.file))))
            return true;
    return false;
}

static ompdag_status advise_region(const ompdag_condag *g, size_t gi, const ompdag_advise_model *m,
                                   int32_t threads, advice_region *out, ompdag_error *err)
{
    int32_t mth = threads > 0 ? threads : ompdag_condag_threads(g);
    if (mth < 1) mth = m->threads;
    double par = -1;
    ompdag_status st = advise_parallelism(g, mth, &par, err);
    if (st) return st;
    double o = advise_graph_overhead_ns(g);
    if (o < 0) o = m->task_overhead_ns;
    out->graph = gi;
    out->function = ompdag_condag_function(g) ? ompdag_condag_function(g) : ompdag_condag_name(g);
    out->loc = ompdag_condag_region_loc(g);
    for (int32_t v = 0; !st && v < ompdag_condag_node_count(g); ++v) {
        ompdag_loc loc = ompdag_condag_node_loc(g, v);
        if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_T || seen_loc(out->tasks, out->n, loc))
            continue;
        ompdag_advise_task *nt = realloc(out->tasks, (out->n + 1) * sizeof *nt);
        if (!nt) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        out->tasks = nt;
        ompdag_advise_task *t = &out->tasks[out->n++];
        memset(t, 0, sizeof *t);
        t->loc = loc;
        st = advise_directive_features(g, loc, par, o, &t->features, &t->instances, &t->shape, err);
        t->grain_ns = t->features.v[OMPDAG_FEAT_GRAIN];
        if (!st)
            st = ompdag_advise_predict(m, &t->features, t->shape, (size_t)-1, NULL, &t->predicted,
                                       err);
        if (!st) judge(t);
    }
    return st;
}

ompdag_status ompdag_advise_graphs(const ompdag_condag_set *set, const ompdag_advise_model *m,
                                   int32_t threads, ompdag_advice **out, ompdag_error *err)
{
    ompdag_advice *a = calloc(1, sizeof *a);
    size_t ng = ompdag_condag_set_count(set);
    if (a) a->r = calloc(ng ? ng : 1, sizeof *a->r);
    if (!a || !a->r) {
        ompdag_advice_destroy(a);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    a->graphs = ng;
    ompdag_status st = OMPDAG_OK;
    for (size_t gi = 0; !st && gi < ng; ++gi) {
        advice_region *r = &a->r[a->n];
        st = advise_region(ompdag_condag_set_graph(set, gi), gi, m, threads, r, err);
        if (r->n > 0 || st) a->n++; /* a region without tasks gets no entry */
    }
    if (st) {
        ompdag_advice_destroy(a);
        return st;
    }
    *out = a;
    return OMPDAG_OK;
}

size_t ompdag_advice_region_count(const ompdag_advice *a)
{
    return a->n;
}

size_t ompdag_advice_region_graph(const ompdag_advice *a, size_t r)
{
    return a->r[r].graph;
}

const char *ompdag_advice_region_function(const ompdag_advice *a, size_t r)
{
    return a->r[r].function;
}

ompdag_loc ompdag_advice_region_loc(const ompdag_advice *a, size_t r)
{
    return a->r[r].loc;
}

size_t ompdag_advice_task_count(const ompdag_advice *a, size_t r)
{
    return a->r[r].n;
}

const ompdag_advise_task *ompdag_advice_task(const ompdag_advice *a, size_t r, size_t t)
{
    return &a->r[r].tasks[t];
}

size_t ompdag_advice_region_of_graph(const ompdag_advice *a, size_t gi)
{
    for (size_t i = 0; i < a->n; ++i)
        if (a->r[i].graph == gi) return i;
    return (size_t)-1;
}

size_t ompdag_advice_too_fine_count(const ompdag_advice *a)
{
    size_t n = 0;
    for (size_t i = 0; i < a->n; ++i)
        for (size_t k = 0; k < a->r[i].n; ++k)
            n += a->r[i].tasks[k].verdict == OMPDAG_ADVISE_TOO_FINE;
    return n;
}

/* ---- output ------------------------------------------------------------------ */

static json_t *loc_json(ompdag_loc loc)
{
    json_t *o = json_pack("{s:i}", "line", (json_int_t)loc.line);
    if (o && loc.file) json_object_set_new(o, "file", json_string(loc.file));
    if (o && loc.col > 0) json_object_set_new(o, "col", json_integer(loc.col));
    return o;
}

json_t *advise_task_to_json(const ompdag_advise_task *t)
{
    json_t *feat = json_object();
    for (int f = 0; feat && f < OMPDAG_FEAT_COUNT; ++f)
        json_object_set_new(feat, ompdag_advise_feature_name(f),
                            t->features.have[f] ? json_real(t->features.v[f]) : json_null());
    json_t *pred = json_pack("{s:f,s:f}", "grain_min_ns", t->predicted.grain_min_ns, "grain_max_ns",
                             t->predicted.grain_max_ns);
    if (pred)
        json_object_set_new(pred, t->shape == OMPDAG_SHAPE_RECURSIVE ? "cutoff_depth" : "chunk",
                            t->predicted.cutoff >= 0 ? json_real(t->predicted.cutoff)
                                                     : json_null());
    return json_pack("{s:o,s:s,s:s,s:o,s:f,s:o,s:s,s:o}", "loc", loc_json(t->loc), "verdict",
                     ompdag_advise_verdict_name(t->verdict), "shape",
                     ompdag_advise_shape_name(t->shape), "grain_ns",
                     t->features.have[OMPDAG_FEAT_GRAIN] ? json_real(t->grain_ns) : json_null(),
                     "tasks_per_run", t->instances, "predicted", pred, "suggestion", t->suggestion,
                     "features", feat);
}

json_t *advise_advice_to_json(const ompdag_advice *a)
{
    json_t *regions = json_array();
    for (size_t i = 0; regions && i < a->n; ++i) {
        json_t *tasks = json_array();
        for (size_t k = 0; tasks && k < a->r[i].n; ++k)
            json_array_append_new(tasks, advise_task_to_json(&a->r[i].tasks[k]));
        json_array_append_new(regions, json_pack("{s:s?,s:o,s:o}", "function", a->r[i].function,
                                                 "loc", loc_json(a->r[i].loc), "tasks", tasks));
    }
    return json_pack("{s:o}", "regions", regions);
}

void ompdag_advice_write_region_text(const ompdag_advice *a, size_t r, const char *indent,
                                     FILE *out)
{
    char g[32], lo[32], hi[32], c[96];
    for (size_t k = 0; k < a->r[r].n; ++k) {
        const ompdag_advise_task *t = &a->r[r].tasks[k];
        fprintf(out, "%stask %s:%d (%s): %s", indent, t->loc.file ? t->loc.file : "?", t->loc.line,
                ompdag_advise_shape_name(t->shape), ompdag_advise_verdict_name(t->verdict));
        if (t->features.have[OMPDAG_FEAT_GRAIN])
            fprintf(out, ", grain %s, %.0f tasks per run", fmt_ns(t->grain_ns, g, sizeof g),
                    t->instances);
        cutoff_text(t, c, sizeof c);
        fprintf(out, "\n%s  predicted: grain %s .. %s; %s\n%s  suggestion: %s\n", indent,
                fmt_ns(t->predicted.grain_min_ns, lo, sizeof lo),
                fmt_ns(t->predicted.grain_max_ns, hi, sizeof hi), c, indent, t->suggestion);
    }
}

void ompdag_advice_write_text(const ompdag_advice *a, FILE *out)
{
    for (size_t i = 0; i < a->n; ++i) {
        const advice_region *r = &a->r[i];
        fprintf(out, "region %s (%s:%d)\n", r->function ? r->function : "?",
                r->loc.file ? r->loc.file : "?", r->loc.line);
        ompdag_advice_write_region_text(a, i, "  ", out);
        for (size_t k = 0; k < r->n; ++k) {
            const ompdag_advise_task *t = &r->tasks[k];
            fprintf(out, "    features:");
            for (int f = 0; f < OMPDAG_FEAT_COUNT; ++f)
                if (t->features.have[f])
                    fprintf(out, " %s=%.4g", ompdag_advise_feature_name(f), t->features.v[f]);
            fprintf(out, "   [%s:%d]\n", t->loc.file ? t->loc.file : "?", t->loc.line);
        }
    }
}
