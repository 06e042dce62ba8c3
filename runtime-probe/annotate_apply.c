/*
 * runtime-probe/annotate_apply.c — estimates per class, WCETs and extras written into the graphs.
 * Part of `ompdag annotate`; the rule and its safety argument are in
 * annotate_internal.h and docs/probe.md.
 */
#include <math.h>

#include "annotate_internal.h"

/* ---- apply -------------------------------------------------------------------------------- */

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

static void describe_node(const ompdag_condag *g, int32_t v, char *buf, size_t n)
{
    ompdag_loc l = ompdag_condag_node_loc(g, v);
    snprintf(buf, n, "%s:%d (%c node %s)", l.file ? l.file : "?", l.line,
             (char)ompdag_condag_node_kind(g, v), ompdag_condag_node_id(g, v));
}

static ompdag_status estimate_classes(ompdag_annotation *a, ompdag_error *err)
{
    for (size_t k = 0; k < a->nclasses; ++k) {
        seg_class *c = &a->classes[k];
        int64_t *s = c->samples.v;
        size_t n = c->samples.n;
        if (n == 0) continue;
        int64_t *sorted = malloc(n * sizeof *sorted);
        if (!sorted) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        memcpy(sorted, s, n * sizeof *s);
        qsort(sorted, n, sizeof *sorted, cmp_i64);
        c->max = sorted[n - 1];
        c->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        free(sorted);
        c->estimate = c->max;
        if (a->opt.estimator == OMPDAG_ESTIMATOR_EVT) {
            /* Block maxima over consecutive samples in trace order. */
            double pw, mu, beta;
            ompdag_error e;
            ompdag_status st =
                ompdag_evt_gumbel_pwcet(s, n, a->opt.evt_block, a->opt.evt_min_blocks,
                                        a->opt.exceedance, &pw, &mu, &beta, &e);
            if (st) {
                char where[256];
                describe_node(a->graphs[c->graph].g, c->charged, where, sizeof where);
                return ompdag_error_set(err, st, "evt: segment class charged to %s: %s", where,
                                        e.message);
            }
            if (pw > (double)c->estimate) c->estimate = (int64_t)ceil(pw);
        }
    }
    return OMPDAG_OK;
}

/* Rule 2 classes are grouped by their end point, the others by their start. */
static bool same_group(const seg_class *x, const seg_class *y)
{
    if (x->graph != y->graph || x->task != y->task || x->charged != y->charged) return false;
    bool rx = x->sk != OMPDAG_POINT_WAIT && x->ek == OMPDAG_POINT_CREATE;
    bool ry = y->sk != OMPDAG_POINT_WAIT && y->ek == OMPDAG_POINT_CREATE;
    if (rx != ry) return false;
    return rx ? x->ek == y->ek && x->en == y->en : x->sk == y->sk && x->sn == y->sn;
}

/* The first class of k's group. */
static size_t group_leader(const ompdag_annotation *a, size_t k)
{
    for (size_t j = 0; j < k; ++j)
        if (same_group(&a->classes[j], &a->classes[k])) return j;
    return k;
}

static json_t *copy_extra(const ompdag_condag *g, int32_t v)
{
    json_t *ex = ompdag_condag_extra(g, v);
    return ex ? json_deep_copy(ex) : json_object();
}

ompdag_status ompdag_annotation_apply(ompdag_annotation *a, ompdag_error *err)
{
    if (!a) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "annotate: NULL argument");
    if (a->applied) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "annotate: already applied");
    if (a->unmapped && !a->opt.allow_unmapped)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%llu measured segments of matched regions fit no path of their "
                                "graph (first: %s); the graph does not match the program — "
                                "re-extract it, or pass --allow-unmapped",
                                (unsigned long long)a->unmapped, a->first_unmapped);
    ompdag_status st = estimate_classes(a, err);
    if (st) return st;
    /* Per node: samples covering it, sums over charged classes. */
    size_t total = 0;
    for (size_t gi = 0; gi < a->ngraphs; ++gi)
        total += (size_t)a->graphs[gi].n;
    uint64_t *samples = calloc(total + 1, sizeof *samples);
    int64_t *basis = calloc(total + 1, sizeof *basis);
    int64_t *omax = calloc(total + 1, sizeof *omax);
    int64_t *omed = calloc(total + 1, sizeof *omed);
    json_t **nodeoff = calloc(total + 1, sizeof *nodeoff); /* per node: device -> share */
    size_t *offset = calloc(a->ngraphs + 1, sizeof *offset);
    size_t maxn = 1;
    for (size_t gi = 0; gi < a->ngraphs; ++gi)
        if ((size_t)a->graphs[gi].n > maxn) maxn = (size_t)a->graphs[gi].n;
    uint8_t *mark = malloc(maxn);
    int32_t *stack = malloc(2 * maxn * sizeof *stack + 16);
    size_t *leader = NULL;
    char *msg = NULL;
    size_t msglen = 0;
    FILE *msgf = NULL;
    if (!samples || !basis || !omax || !omed || !nodeoff || !offset || !mark || !stack) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        goto done;
    }
    for (size_t gi = 0; gi < a->ngraphs; ++gi)
        offset[gi + 1] = offset[gi] + (size_t)a->graphs[gi].n;
    for (size_t k = 0; k < a->nclasses; ++k) {
        seg_class *c = &a->classes[k];
        const graph_info *g = &a->graphs[c->graph];
        size_t base = offset[c->graph];
        annot_segment_path(g, c->task, c->sk, c->sn, c->ek, c->en, mark, stack);
        mark[c->charged] = 1;
        for (int32_t v = 0; v < g->n; ++v)
            if (mark[v]) samples[base + (size_t)v] += c->samples.n;
        const char *dev;
        json_t *e;
        size_t i = base + (size_t)c->charged;
        if (c->offload && !nodeoff[i]) nodeoff[i] = json_object();
        json_object_foreach(c->offload, dev, e)
        {
            if (!nodeoff[i] || !annot_offload_fold(nodeoff[i], dev, e)) {
                st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
                goto done;
            }
        }
    }
    /* Classes charged to one node that share their start point (rules 1, 3)
     * or their end point (rule 2) never occur in the same task instance: a
     * flow passes each scheduling point once.  Such a group contributes its
     * maximum; different groups add up. */
    leader = malloc((a->nclasses + 1) * sizeof *leader);
    if (!leader) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        goto done;
    }
    for (size_t k = 0; k < a->nclasses; ++k)
        leader[k] = group_leader(a, k);
    for (size_t k = 0; k < a->nclasses; ++k) {
        if (leader[k] != k) continue;
        const seg_class *c = &a->classes[k];
        int64_t e = 0, mx = 0, md = 0;
        for (size_t k2 = k; k2 < a->nclasses; ++k2)
            if (leader[k2] == k) {
                const seg_class *d = &a->classes[k2];
                e = d->estimate > e ? d->estimate : e;
                mx = d->max > mx ? d->max : mx;
                md = d->median > md ? d->median : md;
            }
        size_t i = offset[c->graph] + (size_t)c->charged;
        basis[i] += e;
        omax[i] += mx;
        omed[i] += md;
    }
    /* Unobserved nodes. */
    size_t unobserved = 0;
    msgf = open_memstream(&msg, &msglen);
    if (!msgf) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        goto done;
    }
    for (size_t gi = 0; gi < a->ngraphs; ++gi)
        for (int32_t v = 0; v < a->graphs[gi].n; ++v)
            if (samples[offset[gi] + (size_t)v] == 0) {
                char where[256];
                describe_node(a->graphs[gi].g, v, where, sizeof where);
                if (unobserved < 12) fprintf(msgf, "%s%s", unobserved ? ", " : "", where);
                ++unobserved;
            }
    fclose(msgf);
    msgf = NULL;
    if (unobserved && a->opt.unobserved == OMPDAG_UNOBSERVED_ERROR) {
        st = ompdag_error_set(err, OMPDAG_ERR_INVALID,
                              "%zu nodes were never observed: %s%s; run the program with inputs "
                              "that reach them, or pass --unobserved zero",
                              unobserved, msg, unobserved > 12 ? ", ..." : "");
        goto done;
    }
    /* Write WCETs and extras. */
    const char *method = a->opt.estimator == OMPDAG_ESTIMATOR_EVT ? "evt" : "max";
    for (size_t gi = 0; gi < a->ngraphs; ++gi) {
        graph_info *g = &a->graphs[gi];
        for (int32_t v = 0; v < g->n; ++v) {
            size_t i = offset[gi] + (size_t)v;
            long double w = ceill((long double)basis[i] * (100.0L + a->opt.margin_pct) / 100.0L);
            if (w > (long double)INT64_MAX / 4) {
                st = ompdag_error_set(err, OMPDAG_ERR_OVERFLOW, "annotate: WCET overflows");
                goto done;
            }
            if ((st = ompdag_condag_set_wcet(g->g, v, (int64_t)w, err))) goto done;
            json_t *ex = copy_extra(g->g, v);
            json_object_set_new(ex, "samples", json_integer((json_int_t)samples[i]));
            json_object_set_new(ex, "observed_max", json_integer(omax[i]));
            json_object_set_new(ex, "observed_median", json_integer(omed[i]));
            json_object_set_new(ex, "margin_pct", json_real(a->opt.margin_pct));
            json_object_set_new(ex, "estimator", json_string(method));
            if (samples[i] == 0) json_object_set_new(ex, "unobserved", json_true());
            if (nodeoff[i]) { /* an offloaded loop runs in this node: its split by device */
                json_t *arr = json_array();
                const char *dev;
                json_t *e;
                json_object_foreach(nodeoff[i], dev, e)
                {
                    json_array_append(arr, e);
                }
                json_object_set_new(ex, "offload", arr);
            }
            ompdag_condag_set_extra(g->g, v, ex);
            json_decref(ex);
        }
        json_t *gx = copy_extra(g->g, -1);
        json_t *resp = json_array();
        for (size_t r = 0; r < g->responses.n; ++r)
            json_array_append_new(resp, json_integer(g->responses.v[r]));
        json_object_set_new(gx, "observed_response_ns", resp);
        json_t *tresp = json_array();
        for (size_t r = 0; r < g->task_responses.n; ++r)
            json_array_append_new(tresp, json_integer(g->task_responses.v[r]));
        json_object_set_new(gx, "observed_task_response_ns", tresp);
        json_t *m = json_object();
        json_object_set_new(m, "estimator", json_string(method));
        json_object_set_new(m, "margin_pct", json_real(a->opt.margin_pct));
        if (a->opt.estimator == OMPDAG_ESTIMATOR_EVT) {
            json_object_set_new(m, "exceedance", json_real(a->opt.exceedance));
            json_object_set_new(m, "block", json_integer(a->opt.evt_block));
        }
        json_object_set_new(m, "traces", json_integer((json_int_t)a->traces));
        json_object_set_new(m, "segments", json_integer((json_int_t)g->segments));
        json_object_set_new(m, "rule", json_string("docs/probe.md#attribution"));
        json_object_set_new(
            m, "unobserved",
            json_string(a->opt.unobserved == OMPDAG_UNOBSERVED_ZERO ? "zero" : "error"));
        json_object_set_new(gx, "wcet_method", m);
        ompdag_condag_set_extra(g->g, -1, gx);
        json_decref(gx);
    }
    a->applied = true;
done:
    for (size_t i = 0; nodeoff && i < total; ++i)
        json_decref(nodeoff[i]);
    free(nodeoff);
    free(leader);
    free(msg);
    free(samples);
    free(basis);
    free(omax);
    free(omed);
    free(offset);
    free(mark);
    free(stack);
    return st;
}

void ompdag_annotation_print_report(const ompdag_annotation *a, FILE *out)
{
    fprintf(out, "method: %s",
            a->opt.estimator == OMPDAG_ESTIMATOR_EVT ? "evt (Gumbel, PWM, block maxima)"
                                                     : "max (high-water mark)");
    if (a->opt.estimator == OMPDAG_ESTIMATOR_EVT)
        fprintf(out, ", exceedance %g per segment, blocks of %d", a->opt.exceedance,
                a->opt.evt_block);
    fprintf(out, "; margin %.1f%%; unobserved nodes: %s\n", a->opt.margin_pct,
            a->opt.unobserved == OMPDAG_UNOBSERVED_ZERO ? "zero" : "error");
    fprintf(out,
            "samples: %llu traces, %llu segments, %llu mapped to %zu classes, %llu outside "
            "any graph, %llu unmapped\n",
            (unsigned long long)a->traces, (unsigned long long)a->segments,
            (unsigned long long)a->mapped, a->nclasses, (unsigned long long)a->outside,
            (unsigned long long)a->unmapped);
    for (size_t gi = 0; gi < a->ngraphs; ++gi) {
        const graph_info *g = &a->graphs[gi];
        int64_t rmax = 0;
        for (size_t r = 0; r < g->responses.n; ++r)
            if (g->responses.v[r] > rmax) rmax = g->responses.v[r];
        const char *fn = ompdag_condag_function(g->g);
        fprintf(out, "graph %zu%s%s (%s:%d): %llu segments, %zu runs, max response %lld ns\n", gi,
                fn ? " " : "", fn ? fn : "", g->region_file ? g->region_file : "?", g->region_line,
                (unsigned long long)g->segments, g->responses.n, (long long)rmax);
    }
}

size_t ompdag_annotation_class_count(const ompdag_annotation *a)
{
    return a->nclasses;
}

void ompdag_annotation_class(const ompdag_annotation *a, size_t i, ompdag_segment_class *out)
{
    const seg_class *c = &a->classes[i];
    int64_t mx = 0;
    for (size_t j = 0; j < c->samples.n; ++j)
        if (c->samples.v[j] > mx) mx = c->samples.v[j];
    *out = (ompdag_segment_class){c->graph,   c->task,      c->sk, c->sn,     c->ek,      c->en,
                                  c->charged, c->samples.n, mx,    c->median, c->estimate};
}

void ompdag_annotation_counts(const ompdag_annotation *a, uint64_t *segments, uint64_t *mapped,
                              uint64_t *unmapped)
{
    *segments = a->segments;
    *mapped = a->mapped;
    *unmapped = a->unmapped;
}
