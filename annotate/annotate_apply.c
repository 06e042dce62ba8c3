/*
 * annotate/annotate_apply.c — estimates per class, WCETs and extras written into the graphs.
 * Part of `ompdag annotate`; the rule and its safety argument are in
 * annotate_internal.h and docs/probe.md.
 */
#include <assert.h>
#include <math.h>

#include "annotate_internal.h"
#include "ompdag/compact.h"
#include "ompdag/overhead.h"

/* ---- apply -------------------------------------------------------------------------------- */

/* The k-th smallest of a[0..n) (k < n), reordering a: quickselect
 * (Hoare 1961) with the median of three as pivot, iterative.  A median by
 * full sort made annotate's estimates O(n log n) per class; a trace of 10^6
 * tasks puts millions of samples in one class. */
int64_t annot_select_i64(int64_t *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t x = a[lo], y = a[mid], z = a[hi];
        int64_t pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                ++i;
            while (a[j] > pivot)
                --j;
            if (i <= j) {
                int64_t t = a[i];
                a[i] = a[j];
                a[j] = t;
                ++i;
                if (j == 0) break;
                --j;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return a[k];
    }
    return a[k];
}

/* The largest of a[0..n) (n > 0). */
static int64_t max_i64(const int64_t *a, size_t n)
{
    int64_t m = a[0];
    for (size_t i = 1; i < n; ++i)
        m = a[i] > m ? a[i] : m;
    return m;
}

static void describe_node(const ompdag_condag *g, int32_t v, char *buf, size_t n)
{
    ompdag_loc l = ompdag_condag_node_loc(g, v);
    if (!l.file || l.line <= 0) { /* never "?:0" */
        snprintf(buf, n, "%c node %s (the graph gives it no source location)",
                 (char)ompdag_condag_node_kind(g, v), ompdag_condag_node_id(g, v));
        return;
    }
    snprintf(buf, n, "%s:%d (%c node %s)", l.file, l.line, (char)ompdag_condag_node_kind(g, v),
             ompdag_condag_node_id(g, v));
}

static ompdag_status estimate_classes(ompdag_annotation *a, ompdag_error *err)
{
    for (size_t k = 0; k < a->nclasses; ++k) {
        seg_class *c = &a->classes[k];
        /* max and estimate from clean runs (else interfered ones); the median,
         * a description, over every sample */
        const i64vec *used = annot_class_samples(c);
        size_t n = c->samples.n + c->samples_if.n;
        if (n == 0) continue;
        int64_t *sorted = malloc(n * sizeof *sorted);
        if (!sorted) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        if (c->samples.n) memcpy(sorted, c->samples.v, c->samples.n * sizeof *sorted);
        if (c->samples_if.n)
            memcpy(sorted + c->samples.n, c->samples_if.v, c->samples_if.n * sizeof *sorted);
        /* after select, sorted[0 .. n/2) are <= sorted[n/2]: the element below
         * the middle is their maximum.  Midpoint without the signed overflow
         * of (a + b) / 2 (lo <= hi). */
        int64_t hi = annot_select_i64(sorted, n, n / 2);
        int64_t lo = n % 2 ? hi : max_i64(sorted, n / 2);
        c->median = lo + (hi - lo) / 2;
        free(sorted);
        c->max = 0;
        for (size_t j = 0; j < used->n; ++j)
            c->max = used->v[j] > c->max ? used->v[j] : c->max;
        c->estimate = c->max;
        if (a->opt.estimator == OMPDAG_ESTIMATOR_EVT) {
            /* Block maxima over consecutive samples in trace order. */
            /* The fit needs many samples: it takes every run's, interfered
             * ones too (larger, so the pWCET only grows). */
            double pw, mu, beta;
            ompdag_error e;
            size_t na = c->samples.n + c->samples_if.n;
            int64_t *all = malloc((na + 1) * sizeof *all);
            if (!all) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
            if (c->samples.n) memcpy(all, c->samples.v, c->samples.n * sizeof *all);
            if (c->samples_if.n)
                memcpy(all + c->samples.n, c->samples_if.v, c->samples_if.n * sizeof *all);
            ompdag_status st =
                ompdag_evt_gumbel_pwcet(all, na, a->opt.evt_block, a->opt.evt_min_blocks,
                                        a->opt.exceedance, &pw, &mu, &beta, &e);
            free(all);
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


/* Everything apply computes before it touches a graph: per node (indexed by
 * offset[graph] + node) and per graph.  Owned by apply; plan_free frees it. */
typedef struct apply_plan {
    size_t total;      /* nodes over all graphs */
    size_t *offset;    /* graph -> first index */
    uint64_t *samples; /* segments whose path covers the node */
    int64_t *basis;    /* charged estimates, before margin */
    int64_t *input_basis; /* the same from the classes the runs reached only (no twins):
                             the input's DAG (annotate_input.c) */
    int64_t *input_median; /* the same with each group's largest median (the budget model) */
    int64_t *omax, *omed;
    json_t **nodeoff;                   /* device -> largest share of an offloaded loop, or NULL */
    int64_t *wcet;                      /* the WCETs to write */
    int64_t *delay;                     /* the dispatch delays D(v) to write (plan_wcets) */
    json_t **node_extra, **graph_extra; /* the extras to write (references owned) */
    size_t ngraphs;
    uint8_t *mark;
    int32_t *stack;
    /* WCETs by location (annotate_compact.c), plain graphs only */
    annot_locations *locs; /* per graph */
    annot_twins twins;     /* classes borrowed by location, after a->classes */
    uint64_t *own;         /* samples of the node's own classes */
    int64_t *cover;        /* largest estimate of a class whose path runs the node */
    uint8_t *from_location;
} apply_plan;

/* Classes of the plan: the annotation's, then the twins. */
static size_t plan_nclasses(const ompdag_annotation *a, const apply_plan *p)
{
    return a->nclasses + p->twins.n;
}

static const seg_class *plan_class(const ompdag_annotation *a, const apply_plan *p, size_t k)
{
    return k < a->nclasses ? &a->classes[k] : &p->twins.v[k - a->nclasses];
}

/* The first class of k's group. */
static size_t group_leader(const ompdag_annotation *a, const apply_plan *p, size_t k)
{
    for (size_t j = 0; j < k; ++j)
        if (same_group(plan_class(a, p, j), plan_class(a, p, k))) return j;
    return k;
}

static void plan_free(apply_plan *p)
{
    for (size_t i = 0; i < p->total; ++i) {
        if (p->nodeoff) json_decref(p->nodeoff[i]);
        if (p->node_extra) json_decref(p->node_extra[i]);
    }
    for (size_t gi = 0; p->graph_extra && gi < p->ngraphs; ++gi)
        json_decref(p->graph_extra[gi]);
    free(p->graph_extra);
    free(p->nodeoff);
    free(p->node_extra);
    free(p->samples);
    free(p->basis);
    free(p->input_basis);
    free(p->input_median);
    free(p->omax);
    free(p->omed);
    free(p->wcet);
    free(p->delay);
    free(p->mark);
    free(p->stack);
    free(p->offset);
    for (size_t gi = 0; p->locs && gi < p->ngraphs; ++gi)
        annot_locations_free(&p->locs[gi]);
    free(p->locs);
    free(p->twins.v);
    free(p->own);
    free(p->cover);
    free(p->from_location);
    memset(p, 0, sizeof *p);
}

static ompdag_status nomem(ompdag_error *err)
{
    return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
}

/* Step 1: every segment of a matched region fits a path, unless allowed. */
static ompdag_status check_mapped(const ompdag_annotation *a, ompdag_error *err)
{
    if (a->unmapped && !a->opt.allow_unmapped)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%llu measured segments of matched regions fit no path of their "
                                "graph; the graph does not match the program%s%s — re-extract "
                                "it, or pass --allow-unmapped (first: %s)",
                                (unsigned long long)a->unmapped, a->unmapped_depth[0] ? " " : "",
                                a->unmapped_depth, a->first_unmapped);
    return OMPDAG_OK;
}

/* Step 3: the plan's arrays. */
static ompdag_status plan_alloc(const ompdag_annotation *a, apply_plan *p, ompdag_error *err)
{
    size_t maxn = 1;
    p->offset = calloc(a->ngraphs + 1, sizeof *p->offset);
    if (!p->offset) return nomem(err);
    for (size_t gi = 0; gi < a->ngraphs; ++gi) {
        size_t n = (size_t)a->graphs[gi].n;
        p->offset[gi + 1] = p->offset[gi] + n;
        maxn = n > maxn ? n : maxn;
    }
    size_t t = p->offset[a->ngraphs] + 1;
    p->samples = calloc(t, sizeof *p->samples);
    p->basis = calloc(t, sizeof *p->basis);
    p->input_basis = calloc(t, sizeof *p->input_basis);
    p->input_median = calloc(t, sizeof *p->input_median);
    p->omax = calloc(t, sizeof *p->omax);
    p->omed = calloc(t, sizeof *p->omed);
    p->wcet = calloc(t, sizeof *p->wcet);
    p->nodeoff = calloc(t, sizeof *p->nodeoff);
    p->node_extra = calloc(t, sizeof *p->node_extra);
    p->graph_extra = calloc(a->ngraphs + 1, sizeof *p->graph_extra);
    p->mark = malloc(maxn);
    p->stack = malloc(2 * maxn * sizeof *p->stack + 16);
    p->locs = calloc(a->ngraphs + 1, sizeof *p->locs);
    p->own = calloc(t, sizeof *p->own);
    p->cover = calloc(t, sizeof *p->cover);
    p->from_location = calloc(t, sizeof *p->from_location);
    p->total = t - 1;
    p->ngraphs = a->ngraphs;
    if (!p->samples || !p->basis || !p->input_basis || !p->input_median || !p->omax || !p->omed || !p->wcet || !p->nodeoff ||
        !p->node_extra || !p->graph_extra || !p->mark || !p->stack || !p->locs || !p->own ||
        !p->cover || !p->from_location)
        return nomem(err);
    return OMPDAG_OK;
}

/* Step 3b: task instances the runs did not reach borrow the classes of
 * tasks at the same code location (annotate_compact.c). */
static ompdag_status plan_twins(const ompdag_annotation *a, apply_plan *p, ompdag_error *err)
{
    for (size_t gi = 0; gi < a->ngraphs; ++gi) {
        const ompdag_condag *g = a->graphs[gi].g;
        if (!annot_locations_build(g, &p->locs[gi]) ||
            !annot_location_twins(a, gi, &p->locs[gi], &p->twins, p->mark, p->stack))
            return nomem(err);
    }
    return OMPDAG_OK;
}

/* Step 4: which nodes each class's paths cover, and offloaded loops. */
static ompdag_status plan_coverage(const ompdag_annotation *a, apply_plan *p, ompdag_error *err)
{
    for (size_t k = 0; k < plan_nclasses(a, p); ++k) {
        const seg_class *c = plan_class(a, p, k);
        const graph_info *g = &a->graphs[c->graph];
        size_t base = p->offset[c->graph];
        annot_segment_path(g, c->task, c->sk, c->sn, c->ek, c->en, p->mark, p->stack);
        /* Safety (annotate_internal.h): the charged node lies on the
         * segment's paths, or next to an empty one. */
        assert(c->charged >= 0 && c->charged < g->n);
        assert(p->mark[c->charged] ||
               annot_empty_segment(g->g, c->task, c->sk, c->sn, c->ek, c->en));
        p->mark[c->charged] = 1;
        uint64_t own = c->samples.n + c->samples_if.n;
        int32_t nt;
        const int32_t *tnodes = annot_task_nodes(g, c->task, &nt);
        for (int32_t j = 0; j < nt; ++j) {
            int32_t v = tnodes[j];
            if (!p->mark[v]) continue;
            size_t i = base + (size_t)v;
            p->samples[i] += own + c->borrowed;
            p->own[i] += own;
            p->cover[i] = c->estimate > p->cover[i] ? c->estimate : p->cover[i];
        }
        annot_team_cover(g, c, own + c->borrowed, p->samples + base, p->own + base, NULL);
        size_t i = base + (size_t)c->charged;
        if (c->offload && !p->nodeoff[i] && !(p->nodeoff[i] = json_object())) return nomem(err);
        const char *dev;
        json_t *e;
        json_object_foreach(c->offload, dev, e)
        {
            if (!annot_offload_fold(p->nodeoff[i], dev, e)) return nomem(err);
        }
    }
    return OMPDAG_OK;
}

/* Step 5: classes charged to one node that share their start point (rules
 * 1, 3) or their end point (rule 2) never occur in the same task instance: a
 * flow passes each scheduling point once.  Such a group contributes its
 * maximum; different groups add up. */
static ompdag_status plan_charges(const ompdag_annotation *a, apply_plan *p, ompdag_error *err)
{
    size_t nc = plan_nclasses(a, p);
    size_t *leader = malloc((nc + 1) * sizeof *leader);
    if (!leader) return nomem(err);
    for (size_t k = 0; k < nc; ++k)
        leader[k] = group_leader(a, p, k);
    ompdag_status st = OMPDAG_OK;
    for (size_t k = 0; k < nc && !st; ++k) {
        if (leader[k] != k) continue;
        const seg_class *c = plan_class(a, p, k);
        int64_t e = 0, mx = 0, md = 0, in = 0, inmd = 0;
        for (size_t k2 = k; k2 < nc; ++k2)
            if (leader[k2] == k) {
                const seg_class *d = plan_class(a, p, k2);
                e = d->estimate > e ? d->estimate : e;
                if (d->hit_runs) in = d->estimate > in ? d->estimate : in;
                if (d->hit_runs) inmd = d->median > inmd ? d->median : inmd;
                mx = d->max > mx ? d->max : mx;
                md = d->median > md ? d->median : md;
            }
        assert(e >= 0 && mx >= 0 && md >= 0); /* durations and their estimates */
        size_t i = p->offset[c->graph] + (size_t)c->charged;
        if (__builtin_add_overflow(p->basis[i], e, &p->basis[i]) ||
            __builtin_add_overflow(p->input_basis[i], in, &p->input_basis[i]) ||
            __builtin_add_overflow(p->input_median[i], inmd, &p->input_median[i]) ||
            __builtin_add_overflow(p->omax[i], mx, &p->omax[i]) ||
            __builtin_add_overflow(p->omed[i], md, &p->omed[i]))
            st = ompdag_error_set(err, OMPDAG_ERR_OVERFLOW, "annotate: charged time overflows");
    }
    free(leader);
    return st;
}

/* Step 5b: WCETs by code location (annotate_compact.c): a node still
 * unobserved takes its location's (cover + prefix); then compact graphs
 * (docs/compact.md) share every node's by every depth.  A node with no
 * sample of its own that got values is marked "wcet_from": "location". */
static ompdag_status plan_by_location(const ompdag_annotation *a, apply_plan *p, ompdag_error *err)
{
    for (size_t gi = 0; gi < a->ngraphs; ++gi) {
        size_t o = p->offset[gi];
        const ompdag_condag *g = a->graphs[gi].g;
        annot_node_values nv = {p->samples + o, p->basis + o, p->omax + o,
                                p->omed + o,    p->cover + o, p->from_location + o};
        ompdag_status st =
            annot_fill_by_location(a, gi, &p->locs[gi], &p->twins, &nv, p->mark, p->stack, err);
        if (st) return st;
        if (!annot_share_by_location(g, p->samples + o, p->basis + o, p->omax + o, p->omed + o))
            return nomem(err);
        for (int32_t v = 0; v < a->graphs[gi].n; ++v)
            if (!p->own[o + (size_t)v] && p->samples[o + (size_t)v]) p->from_location[o + (size_t)v] = 1;
    }
    return OMPDAG_OK;
}

/* Step 6: nodes no observed path covers are an error unless --unobserved zero.
 * The message holds the count, the first few nodes that fit whole, and
 * the hint: an error message has OMPDAG_ERROR_MESSAGE_SIZE bytes, and a
 * list cut there ended mid-path, hint lost (issue 22). */
enum { UNOBSERVED_LISTED = 5 };

/* Appends ", " and desc to list[*len..] when the list stays below `room`
 * bytes; false (nothing appended) otherwise. */
static bool list_append(char *list, size_t *len, size_t room, const char *desc)
{
    size_t add = (*len ? 2 : 0) + strlen(desc);
    if (*len + add >= room) return false;
    snprintf(list + *len, room - *len, "%s%s", *len ? ", " : "", desc);
    *len += add;
    return true;
}

static ompdag_status check_unobserved(const ompdag_annotation *a, const apply_plan *p,
                                      ompdag_error *err)
{
    if (a->opt.unobserved != OMPDAG_UNOBSERVED_ERROR) return OMPDAG_OK;
    static const char hint[] = "; run the program with inputs that reach them, or pass "
                               "--unobserved zero (the graph is then marked unsafe)";
    char head[64], more[64], list[OMPDAG_ERROR_MESSAGE_SIZE] = "";
    size_t unobserved = 0, listed = 0, len = 0;
    bool full = false;
    for (size_t gi = 0; gi < a->ngraphs; ++gi)
        for (int32_t v = 0; v < a->graphs[gi].n; ++v)
            unobserved += p->samples[p->offset[gi] + (size_t)v] == 0;
    if (!unobserved) return OMPDAG_OK;
    snprintf(head, sizeof head, "%zu node%s never observed: ", unobserved,
             unobserved == 1 ? " was" : "s were");
    /* room for the list: the message less its head, the hint and ", and N more" */
    size_t room = sizeof list - strlen(head) - strlen(hint) - 32;
    for (size_t gi = 0; gi < a->ngraphs && !full; ++gi)
        for (int32_t v = 0; v < a->graphs[gi].n && !full; ++v) {
            if (p->samples[p->offset[gi] + (size_t)v]) continue;
            char where[OMPDAG_ERROR_MESSAGE_SIZE]; /* a longer one is cut: list_append refuses it */
            describe_node(a->graphs[gi].g, v, where, sizeof where);
            full = !list_append(list, &len, room, where) || ++listed == UNOBSERVED_LISTED;
        }
    snprintf(more, sizeof more, "%s%zu more", listed ? ", and " : "", unobserved - listed);
    return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s%s%s%s", head, list,
                            unobserved > listed ? more : "", hint);
}

/* Step 7: WCET = ceil(basis · (1 + margin/100)); every graph's sum must fit
 * in int64 (so committing them cannot fail). */
static int64_t vec_max(const i64vec *v)
{
    int64_t m = 0;
    for (size_t i = 0; i < v->n; ++i)
        m = v->v[i] > m ? v->v[i] : m;
    return m;
}

/* The dispatch delays of graph g (docs/overheads.md), margin applied. */
static bool graph_overheads(const ompdag_annotation *a, const graph_info *g, ompdag_overheads *o)
{
    *o = (ompdag_overheads){.threads = 0};
    if (a->opt.no_overheads) return true;
    const i64vec *st = g->start_delay.n ? &g->start_delay : &g->start_delay_if;
    const i64vec *wk = g->wake_delay.n ? &g->wake_delay : &g->wake_delay_if;
    const i64vec *ct = g->cont_delay.n ? &g->cont_delay : &g->cont_delay_if;
    const i64vec *fm = g->formation.n ? &g->formation : &g->formation_if; /* team formation */
    o->threads = g->team;
    return annot_with_margin(a, vec_max(st), &o->start_delay) &&
           annot_with_margin(a, vec_max(wk), &o->wake_delay) &&
           annot_with_margin(a, vec_max(ct), &o->cont_delay) &&
           annot_with_margin(a, vec_max(fm), &o->formation);
}

/* Step 7: WCET = ceil(basis · (1 + margin/100)) and, apart, the node's
 * dispatch delay D(v) (docs/overheads.md: charged on the critical chain only,
 * not folded into the WCET); every graph's sums of WCET + D must fit in int64
 * (so committing them cannot fail). */
static ompdag_status plan_wcets(const ompdag_annotation *a, apply_plan *p, ompdag_error *err)
{
    if (!(p->delay = calloc(p->total + 1, sizeof *p->delay)))
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    for (size_t gi = 0; gi < a->ngraphs; ++gi) {
        const graph_info *g = &a->graphs[gi];
        ompdag_overheads o;
        if (!graph_overheads(a, g, &o))
            return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW, "annotate: dispatch delay overflows");
        ompdag_status st = ompdag_overheads_node_delays(g->g, &o, p->delay + p->offset[gi], err);
        if (st) return st;
        int64_t sum = 0;
        for (int32_t v = 0; v < g->n; ++v) {
            size_t i = p->offset[gi] + (size_t)v;
            int64_t w, wd;
            if (!annot_with_margin(a, p->basis[i], &w) ||
                __builtin_add_overflow(w, p->delay[i], &wd) ||
                __builtin_add_overflow(sum, wd, &sum))
                return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW, "annotate: WCET overflows");
            p->wcet[i] = w;
        }
    }
    return OMPDAG_OK;
}

static json_t *copy_extra(const ompdag_condag *g, int32_t v)
{
    json_t *ex = ompdag_condag_extra(g, v);
    return ex ? json_deep_copy(ex) : json_object();
}

/* json_object_set_new that remembers a failure in *ok. */
static void jset(json_t *o, const char *key, json_t *val, bool *ok)
{
    if (!o) { /* json_object_set_new steals val even when it fails */
        json_decref(val);
        *ok = false;
    } else if (json_object_set_new(o, key, val)) {
        *ok = false;
    }
}

static json_t *i64_array(const i64vec *v)
{
    json_t *arr = json_array();
    for (size_t r = 0; arr && r < v->n; ++r)
        if (json_array_append_new(arr, json_integer(v->v[r]))) {
            json_decref(arr);
            return NULL;
        }
    return arr;
}

/* Step 8a: a node's extra keys. */
static json_t *node_extra(const ompdag_annotation *a, const apply_plan *p, const graph_info *g,
                          const ompdag_overheads *o, int32_t v, size_t i)
{
    const char *method = a->opt.estimator == OMPDAG_ESTIMATOR_EVT ? "evt" : "max";
    bool ok = true;
    json_t *ex = copy_extra(g->g, v);
    jset(ex, "samples", json_integer((json_int_t)p->samples[i]), &ok);
    jset(ex, "observed_max", json_integer(p->omax[i]), &ok);
    jset(ex, "observed_median", json_integer(p->omed[i]), &ok);
    jset(ex, "margin_pct", json_real(a->opt.margin_pct), &ok);
    jset(ex, "estimator", json_string(method), &ok);
    if (p->samples[i] == 0) jset(ex, "unobserved", json_true(), &ok);
    if (p->from_location[i]) jset(ex, "wcet_from", json_string("location"), &ok);
    (void)o; /* the delay itself is the node's field "delay" (commit) */
    json_object_del(ex, "dispatch_delay"); /* an older annotate's folded note */
    if (p->nodeoff[i]) { /* an offloaded loop runs in this node: its split by device */
        json_t *arr = json_array();
        const char *dev;
        json_t *e;
        json_object_foreach(p->nodeoff[i], dev, e)
        {
            if (arr && json_array_append(arr, e)) ok = false;
        }
        jset(ex, "offload", arr, &ok);
    }
    if (!ok) {
        json_decref(ex);
        return NULL;
    }
    return ex;
}

static json_t *bool_array(const i64vec *v)
{
    json_t *arr = json_array();
    for (size_t r = 0; arr && r < v->n; ++r)
        if (json_array_append_new(arr, json_boolean(v->v[r]))) {
            json_decref(arr);
            return NULL;
        }
    return arr;
}

static int64_t vec_median(const i64vec *v)
{
    if (!v->n) return 0;
    int64_t *s = annot_alloc_big(v->n * sizeof *s);
    if (!s) return -1;
    memcpy(s, v->v, v->n * sizeof *s);
    int64_t m = annot_select_i64(s, v->n, v->n / 2);
    free(s);
    return m;
}

/* {"samples", "max_ns", "median_ns"} of one kind of overhead. */
static json_t *sample_json(const i64vec *v)
{
    return json_pack("{s:I,s:I,s:I}", "samples", (json_int_t)v->n, "max_ns", (json_int_t)vec_max(v),
                     "median_ns", (json_int_t)vec_median(v));
}

/* The calibration, stated with its samples (docs/overheads.md). */
static json_t *overheads_json(const ompdag_annotation *a, const graph_info *g)
{
    ompdag_overheads o;
    if (!graph_overheads(a, g, &o)) return NULL;
    json_t *ro = json_pack("{s:s,s:I,s:I,s:I,s:i,s:o,s:o,s:o,s:o,s:o,s:o,s:s,s:s}", "source",
                     a->opt.no_overheads                   ? "none (annotate --no-overheads)"
                     : g->start_delay.n || g->wake_delay.n || g->cont_delay.n || g->formation.n
                         ? "calibrated from clean runs"
                     : g->start_delay_if.n || g->wake_delay_if.n || g->cont_delay_if.n ||
                             g->formation_if.n
                         ? "calibrated from interfered runs (no clean run)"
                         : "no samples",
                     "start_delay_ns", (json_int_t)o.start_delay, "wake_delay_ns",
                     (json_int_t)o.wake_delay, "cont_delay_ns", (json_int_t)o.cont_delay,
                     "threads", g->team, "start",
                     sample_json(g->start_delay.n ? &g->start_delay : &g->start_delay_if), "wake",
                     sample_json(g->wake_delay.n ? &g->wake_delay : &g->wake_delay_if), "cont",
                     sample_json(g->cont_delay.n ? &g->cont_delay : &g->cont_delay_if), "fork_warm",
                     sample_json(&g->fork_warm), "fork_cold", sample_json(&g->fork_cold), "join",
                     sample_json(&g->join), "proof", "docs/overheads.md", "charged",
                     "on the critical chain only (node field \"delay\")");
    /* team formation (docs/overheads.md): charged once, on the root's source */
    if (ro && json_object_update_new(
                  ro, json_pack("{s:I,s:I,s:o}", "formation_ns", (json_int_t)o.formation,
                                "formation_delay_ns",
                                (json_int_t)ompdag_overheads_formation_delay(&o), "formation",
                                sample_json(g->formation.n ? &g->formation : &g->formation_if)))) {
        json_decref(ro);
        return NULL;
    }
    return ro;
}

/* "depend_check": the runtime's dependence order against the D-edges
 * (annotate_depend.c, docs/probe.md#depend). */
static json_t *depend_json(const graph_info *g)
{
    json_t *list = g->dep_disagreements ? json_deep_copy(g->dep_disagreements) : json_array();
    return json_pack(
        "{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o}", "runtime_items", (json_int_t)g->dep_items,
        "runtime_pairs", (json_int_t)g->dep_pairs, "pairs_implied",
        (json_int_t)g->dep_pairs_implied, "pairs_unchecked", (json_int_t)g->dep_pairs_unchecked,
        "dedges_between_run_tasks", (json_int_t)g->dep_edges, "dedges_respected",
        (json_int_t)g->dep_edges_respected, "dedges_unchecked", (json_int_t)g->dep_edges_unchecked,
        "dedges_extra", (json_int_t)g->dep_edges_over, "unsafe_disagreements",
        (json_int_t)g->dep_unsafe, "disagreements", list);
}

void ompdag_annotation_depend_counts(const ompdag_annotation *a, uint64_t *unsafe, uint64_t *all)
{
    *unsafe = *all = 0;
    for (size_t i = 0; a && i < a->ngraphs; ++i) {
        const graph_info *g = &a->graphs[i];
        *unsafe += g->dep_unsafe;
        *all += g->dep_unsafe + (a->opt.depend_strict ? 0 : g->dep_edges_over);
    }
}

/* The first disagreement marked unsafe, for the "unsafe" reason. */
static const char *first_unsafe_disagreement(const graph_info *g)
{
    size_t i;
    json_t *d;
    json_array_foreach(g->dep_disagreements, i, d)
    {
        if (json_is_true(json_object_get(d, "unsafe")))
            return json_string_value(json_object_get(d, "message"));
    }
    return "";
}

/* Why graph g's figures may be below what the program can take (the graph
 * key "unsafe", which `check` fails; "" when none), reasons joined by "; ".
 * Each escape hatch is a reason whenever it was given, whether or not it
 * changed this graph's figures: the output must say how it was made
 * (issue 22).  Caller frees; NULL when out of memory. */
static char *unsafe_reasons(const ompdag_annotation *a, const graph_info *g)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    const char *sep = "";
    if (a->opt.unobserved == OMPDAG_UNOBSERVED_ZERO) {
        fprintf(f, "annotate --unobserved zero: nodes no run observed got WCET 0, so the bound "
                   "may be below what the program takes (figures for exploration only)");
        sep = "; ";
    }
    if (a->opt.no_overheads) {
        fprintf(f, "%sannotate --no-overheads: the runtime's measured dispatch delays are left "
                   "out of the WCETs, and such bounds were measured below observed runs",
                sep);
        sep = "; ";
    }
    if (a->opt.allow_unmapped && g->unmapped) {
        fprintf(f, "%sannotate --allow-unmapped: %llu measured segments fit no path of this graph "
                   "and were dropped, so the WCETs miss their time",
                sep, (unsigned long long)g->unmapped);
        sep = "; ";
    } else if (a->opt.allow_unmapped) {
        fprintf(f, "%sannotate --allow-unmapped: segments that fit no path of this graph would "
                   "have been dropped from the WCETs (none did in these traces)",
                sep);
        sep = "; ";
    } else if (g->unmapped) { /* not reached: check_mapped refuses it */
        fprintf(f, "%s%llu measured segments fit no path of this graph and were dropped", sep,
                (unsigned long long)g->unmapped);
        sep = "; ";
    }
    if (a->dropped_records) {
        fprintf(f, "%sthe probe dropped %llu trace records (a buffer or a chunk write failed), so "
                   "the traces miss measured time",
                sep, (unsigned long long)a->dropped_records);
        sep = "; ";
    }
    if (g->dep_unsafe)
        fprintf(f, "%s%llu disagreements between the runtime's dependence order and the graph's "
                   "D-edges (depend_check): %s",
                sep, (unsigned long long)g->dep_unsafe, first_unsafe_disagreement(g));
    if (fclose(f)) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Step 8b: a graph's extra keys. */
static json_t *graph_extra(const ompdag_annotation *a, const apply_plan *p, const graph_info *g)
{
    const char *method = a->opt.estimator == OMPDAG_ESTIMATOR_EVT ? "evt" : "max";
    bool ok = true;
    json_t *gx = copy_extra(g->g, -1);
    jset(gx, "observed_response_ns", i64_array(&g->responses), &ok);
    jset(gx, "observed_task_response_ns", i64_array(&g->task_responses), &ok);
    jset(gx, "observed_response_ns_interfered", bool_array(&g->responses_interfered), &ok);
    jset(gx, "observed_task_response_ns_interfered", bool_array(&g->task_responses_interfered),
         &ok);
    jset(gx, "observed_response_threads", i64_array(&g->response_threads), &ok);
    jset(gx, "observed_task_response_threads", i64_array(&g->task_response_threads), &ok);
    jset(gx, "runtime_overheads", overheads_json(a, g), &ok);
    if (g->input_runs) {
        ompdag_overheads o;
        if (!graph_overheads(a, g, &o)) ok = false;
        size_t gi = (size_t)(g - a->graphs);
        jset(gx, "input",
             annot_input_json(a, gi, &o, p->input_basis + p->offset[gi],
                              p->input_median + p->offset[gi], p->wcet + p->offset[gi]),
             &ok);
    }
    if (ompdag_condag_has_depend(g->g) || g->dep_items || g->dep_pairs)
        jset(gx, "depend_check", depend_json(g), &ok);
    char *why = unsafe_reasons(a, g);
    if (!why) ok = false;
    if (why && why[0])
        jset(gx, "unsafe", json_string(why), &ok);
    else if (gx) /* the reasons of an earlier annotation no longer hold */
        json_object_del(gx, "unsafe");
    free(why);
    json_t *m = json_object();
    jset(m, "estimator", json_string(method), &ok);
    jset(m, "margin_pct", json_real(a->opt.margin_pct), &ok);
    if (a->opt.estimator == OMPDAG_ESTIMATOR_EVT) {
        jset(m, "exceedance", json_real(a->opt.exceedance), &ok);
        jset(m, "block", json_integer(a->opt.evt_block), &ok);
    }
    jset(m, "traces", json_integer((json_int_t)a->traces), &ok);
    jset(m, "segments", json_integer((json_int_t)g->segments), &ok);
    jset(m, "rule", json_string("docs/probe.md#attribution"), &ok);
    jset(m, "dropped_segments", json_integer((json_int_t)g->unmapped), &ok);
    jset(m, "overheads", json_string(a->opt.no_overheads ? "none" : "chain"), &ok);
    jset(m, "unobserved",
         json_string(a->opt.unobserved == OMPDAG_UNOBSERVED_ZERO ? "zero" : "error"), &ok);
    jset(gx, "floor", annot_floor_json(g), &ok); /* annotate_floor.c */
    jset(gx, "wcet_method", m, &ok);
    if (!ok) {
        json_decref(gx);
        return NULL;
    }
    return gx;
}

static ompdag_status plan_extras(const ompdag_annotation *a, apply_plan *p, ompdag_error *err)
{
    for (size_t gi = 0; gi < a->ngraphs; ++gi) {
        const graph_info *g = &a->graphs[gi];
        /* once per graph: the delays are maxima over every task's samples */
        ompdag_overheads o;
        bool have = graph_overheads(a, g, &o);
        for (int32_t v = 0; v < g->n; ++v) {
            size_t i = p->offset[gi] + (size_t)v;
            if (!(p->node_extra[i] = node_extra(a, p, g, have ? &o : NULL, v, i)))
                return nomem(err);
        }
        if (!(p->graph_extra[gi] = graph_extra(a, p, g))) return nomem(err);
    }
    return OMPDAG_OK;
}

/* Step 9: makes sure each graph has its per-node extra array, the one
 * allocation ompdag_condag_assign_extra may need, so that commit cannot fail. */
static ompdag_status reserve_extras(ompdag_annotation *a, ompdag_error *err)
{
    for (size_t gi = 0; gi < a->ngraphs; ++gi) {
        if (a->graphs[gi].n == 0) continue;
        ompdag_condag *g = a->graphs[gi].g;
        json_t *keep = json_incref(ompdag_condag_extra(g, 0));
        ompdag_status st = ompdag_condag_assign_extra(g, 0, keep);
        json_decref(keep);
        if (st) return nomem(err);
    }
    return OMPDAG_OK;
}

/* Step 10: writes the plan into the graphs.  Every failure mode was ruled out
 * by the steps before (sums fit, extras reserved); a status other than OK
 * here is a bug, reported as such.  WCETs go to 0 first so that no
 * intermediate sum of old and new values can overflow. */
static ompdag_status commit(ompdag_annotation *a, apply_plan *p, ompdag_error *err)
{
    ompdag_status st = OMPDAG_OK;
    for (size_t gi = 0; gi < a->ngraphs; ++gi) {
        ompdag_condag *g = a->graphs[gi].g;
        for (int32_t v = 0; v < a->graphs[gi].n; ++v)
            st = st ? st : ompdag_condag_assign_wcet(g, v, 0, err);
        for (int32_t v = 0; v < a->graphs[gi].n; ++v) {
            size_t i = p->offset[gi] + (size_t)v;
            st = st ? st : ompdag_condag_assign_wcet(g, v, p->wcet[i], err);
            st = st ? st : ompdag_condag_assign_delay(g, v, p->delay[i], err);
            st = st ? st : ompdag_condag_assign_extra(g, v, p->node_extra[i]);
        }
        st = st ? st : ompdag_condag_assign_extra(g, -1, p->graph_extra[gi]);
    }
    if (st)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "annotate: writing a planned WCET failed (a bug): status %d",
                                (int)st);
    return OMPDAG_OK;
}

ompdag_status ompdag_annotation_apply(ompdag_annotation *a, ompdag_error *err)
{
    if (!a) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "annotate: NULL argument");
    if (a->applied) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "annotate: already applied");
    apply_plan p = {0};
    ompdag_status st = check_mapped(a, err);
    if (!st) st = estimate_classes(a, err);
    if (!st) st = plan_alloc(a, &p, err);
    if (!st) st = plan_twins(a, &p, err);
    if (!st) st = plan_coverage(a, &p, err);
    if (!st) st = plan_charges(a, &p, err);
    if (!st) st = plan_by_location(a, &p, err);
    if (!st) st = check_unobserved(a, &p, err);
    if (!st) st = plan_wcets(a, &p, err);
    if (!st) st = plan_extras(a, &p, err);
    if (!st) st = reserve_extras(a, err);
    if (!st) st = commit(a, &p, err); /* nothing above changed a graph */
    if (!st) a->applied = true;
    plan_free(&p);
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
    if (a->by_structure)
        fprintf(out,
                "optimized code: %llu scheduling points matched by the graph's structure (their "
                "call's line matched no node; one candidate was possible)\n",
                (unsigned long long)a->by_structure);
    for (size_t gi = 0; gi < a->ngraphs; ++gi) {
        const graph_info *g = &a->graphs[gi];
        int64_t rmax = 0;
        for (size_t r = 0; r < g->responses.n; ++r)
            if (g->responses.v[r] > rmax) rmax = g->responses.v[r];
        const char *fn = ompdag_condag_function(g->g);
        fprintf(out, "graph %zu%s%s (%s:%d): %llu segments, %zu runs, max response %lld ns\n", gi,
                fn ? " " : "", fn ? fn : "", g->region_file ? g->region_file : "(no location)",
                g->region_line, (unsigned long long)g->segments, g->responses.n, (long long)rmax);
        if (!ompdag_condag_has_depend(g->g) && !g->dep_items && !g->dep_pairs) continue;
        fprintf(out,
                "  depend: runtime %llu items, %llu pairs (%llu implied by the graph, %llu "
                "unchecked); %llu D-edges between tasks that ran (%llu respected, %llu extra "
                "edges the runtime did not need, %llu unchecked); %llu unsafe disagreements\n",
                (unsigned long long)g->dep_items, (unsigned long long)g->dep_pairs,
                (unsigned long long)g->dep_pairs_implied,
                (unsigned long long)g->dep_pairs_unchecked, (unsigned long long)g->dep_edges,
                (unsigned long long)g->dep_edges_respected, (unsigned long long)g->dep_edges_over,
                (unsigned long long)g->dep_edges_unchecked, (unsigned long long)g->dep_unsafe);
        size_t i;
        json_t *d;
        json_array_foreach(g->dep_disagreements, i, d)
        {
            fprintf(out, "  depend %s: %s [%s, %lld runs]\n",
                    json_is_true(json_object_get(d, "unsafe")) ? "DISAGREEMENT" : "note",
                    json_string_value(json_object_get(d, "message")),
                    json_string_value(json_object_get(d, "kind")),
                    (long long)json_integer_value(json_object_get(d, "runs")));
        }
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
    const i64vec *used = annot_class_samples(c);
    for (size_t j = 0; j < used->n; ++j)
        if (used->v[j] > mx) mx = used->v[j];
    *out = (ompdag_segment_class){c->graph,   c->task, c->sk, c->sn,     c->ek,      c->en,
                                  c->charged, used->n, mx,    c->median, c->estimate};
}

void ompdag_annotation_counts(const ompdag_annotation *a, uint64_t *segments, uint64_t *mapped,
                              uint64_t *unmapped)
{
    *segments = a->segments;
    *mapped = a->mapped;
    *unmapped = a->unmapped;
}
