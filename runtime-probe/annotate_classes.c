/*
 * runtime-probe/annotate_classes.c — lifecycle of an annotation and its segment classes.
 * Part of `ompdag annotate`; the rule and its safety argument are in
 * annotate_internal.h and docs/probe.md.
 */
#include "annotate_internal.h"

/* ---- lifecycle ---------------------------------------------------------------------- */

void ompdag_annotate_options_init(ompdag_annotate_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->estimator = OMPDAG_ESTIMATOR_MAX;
    opt->margin_pct = 20.0;
    opt->exceedance = 1e-9;
    opt->evt_block = 10;
    opt->evt_min_blocks = 20;
    opt->unobserved = OMPDAG_UNOBSERVED_ERROR;
}

void ompdag_annotation_destroy(ompdag_annotation *a)
{
    if (!a) return;
    for (size_t i = 0; i < a->ngraphs; ++i) {
        free(a->graphs[i].pred_start);
        free(a->graphs[i].loops);
        free(a->graphs[i].task_start);
        free(a->graphs[i].inst_delay);
        free(a->graphs[i].din_sig);
        free(a->graphs[i].ndel);
        free(a->graphs[i].task_nodes);
        free(a->graphs[i].pred);
        free(a->graphs[i].responses.v);
        free(a->graphs[i].task_responses.v);
        free(a->graphs[i].responses_interfered.v);
        free(a->graphs[i].task_responses_interfered.v);
        free(a->graphs[i].response_threads.v);
        free(a->graphs[i].task_response_threads.v);
        free(a->graphs[i].start_delay.v);
        free(a->graphs[i].wake_delay.v);
        free(a->graphs[i].start_delay_if.v);
        free(a->graphs[i].wake_delay_if.v);
        free(a->graphs[i].cont_delay.v);
        free(a->graphs[i].cont_delay_if.v);
        free(a->graphs[i].formation.v);
        free(a->graphs[i].formation_if.v);
        free(a->graphs[i].fork_warm.v);
        free(a->graphs[i].fork_cold.v);
        free(a->graphs[i].join.v);
        json_decref(a->graphs[i].dep_disagreements);
        free(a->graphs[i].floor);
    }
    for (size_t i = 0; i < a->nclasses; ++i) {
        free(a->classes[i].samples.v);
        free(a->classes[i].samples_if.v);
        json_decref(a->classes[i].offload);
    }
    free(a->graphs);
    free(a->classes);
    free(a->wsamp);
    free(a->class_index);
    free(a);
}

ompdag_status ompdag_annotation_create(ompdag_condag_set *set, const ompdag_annotate_options *opt,
                                       ompdag_annotation **out, ompdag_error *err)
{
    if (!set || !out) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "annotate: NULL argument");
    ompdag_annotation *a = calloc(1, sizeof *a);
    if (!a) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    a->set = set;
    if (opt)
        a->opt = *opt;
    else
        ompdag_annotate_options_init(&a->opt);
    if (!(a->opt.margin_pct >= 0 && a->opt.margin_pct <= 1000) ||
        !(a->opt.exceedance > 0 && a->opt.exceedance < 1) || a->opt.evt_block < 1 ||
        a->opt.evt_min_blocks < 2) {
        free(a);
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "annotate: margin must be in [0, 1000]%%, exceedance in (0, 1), "
                                "blocks >= 1 and at least 2 blocks");
    }
    a->ngraphs = ompdag_condag_set_count(set);
    a->graphs = calloc(a->ngraphs ? a->ngraphs : 1, sizeof *a->graphs);
    a->class_index_cap = 1024;
    a->class_index = calloc(a->class_index_cap, sizeof *a->class_index);
    if (!a->graphs || !a->class_index) {
        ompdag_annotation_destroy(a);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    }
    for (size_t i = 0; i < a->ngraphs; ++i) {
        ompdag_status st = annot_graph_prepare(&a->graphs[i], ompdag_condag_set_graph(set, i), err);
        if (st) {
            ompdag_annotation_destroy(a);
            return st;
        }
    }
    *out = a;
    return OMPDAG_OK;
}

/* ---- classes ------------------------------------------------------------------------ */

static uint64_t class_hash(size_t graph, int32_t task, int sk, int32_t sn, int ek, int32_t en)
{
    uint64_t h = 1469598103934665603ull;
    uint64_t parts[6] = {graph,        (uint64_t)(uint32_t)task,
                         (uint64_t)sk, (uint64_t)(uint32_t)sn,
                         (uint64_t)ek, (uint64_t)(uint32_t)en};
    for (int i = 0; i < 6; ++i)
        h = (h ^ parts[i]) * 1099511628211ull;
    return h;
}

static bool class_rehash(ompdag_annotation *a)
{
    size_t cap = 2 * a->class_index_cap;
    size_t *idx = calloc(cap, sizeof *idx);
    if (!idx) return false;
    for (size_t k = 0; k < a->nclasses; ++k) {
        const seg_class *c = &a->classes[k];
        size_t i = class_hash(c->graph, c->task, c->sk, c->sn, c->ek, c->en) & (cap - 1);
        while (idx[i])
            i = (i + 1) & (cap - 1);
        idx[i] = k + 1;
    }
    free(a->class_index);
    a->class_index = idx;
    a->class_index_cap = cap;
    return true;
}

const seg_class *annot_class_find(const ompdag_annotation *a, size_t graph, int32_t task,
                                  ompdag_point sk, int32_t sn, ompdag_point ek, int32_t en)
{
    size_t mask = a->class_index_cap - 1;
    for (size_t i = class_hash(graph, task, sk, sn, ek, en) & mask; a->class_index[i];
         i = (i + 1) & mask) {
        const seg_class *c = &a->classes[a->class_index[i] - 1];
        if (c->graph == graph && c->task == task && c->sk == sk && c->sn == sn && c->ek == ek &&
            c->en == en)
            return c;
    }
    return NULL;
}

/* Finds or creates the class; returns NULL when the points have no path in
 * the graph (the trace and the graph disagree) or on allocation failure. */
seg_class *annot_class_get(ompdag_annotation *a, size_t graph, int32_t task, ompdag_point sk,
                           int32_t sn, ompdag_point ek, int32_t en, uint8_t *mark, int32_t *stack,
                           bool *nomem)
{
    size_t mask = a->class_index_cap - 1;
    size_t i = class_hash(graph, task, sk, sn, ek, en) & mask;
    while (a->class_index[i]) {
        seg_class *c = &a->classes[a->class_index[i] - 1];
        if (c->graph == graph && c->task == task && c->sk == sk && c->sn == sn && c->ek == ek &&
            c->en == en)
            return c;
        i = (i + 1) & mask;
    }
    const graph_info *gi = &a->graphs[graph];
    int32_t len = annot_segment_path(gi, task, sk, sn, ek, en, mark, stack);
    bool empty_ok = len == 0 && annot_empty_segment(gi->g, task, sk, sn, ek, en);
    if (len == 0 && !empty_ok) return NULL;
    if (a->nclasses == a->class_cap) {
        size_t cap = a->class_cap ? 2 * a->class_cap : 64;
        seg_class *p = realloc(a->classes, cap * sizeof *p);
        if (!p) {
            *nomem = true;
            return NULL;
        }
        a->classes = p;
        a->class_cap = cap;
    }
    seg_class *c = &a->classes[a->nclasses++];
    memset(c, 0, sizeof *c);
    c->graph = graph;
    c->task = task;
    c->sk = sk;
    c->sn = sn;
    c->ek = ek;
    c->en = en;
    c->charged = annot_charged_node(gi->g, task, sk, sn, ek, en);
    a->class_index[i] = a->nclasses;
    if (2 * a->nclasses > a->class_index_cap && !class_rehash(a)) {
        *nomem = true;
        return NULL;
    }
    return &a->classes[a->nclasses - 1];
}
