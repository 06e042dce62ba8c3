/*
 * annotate/annotate_classes.c — lifecycle of an annotation and its segment classes.
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
        free(a->graphs[i].phase_task);
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
    ompdag_imap_free(&a->class_index);
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
    if (!a->graphs) {
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

/* The classes are an index map (hashmap.h) over a->classes, keyed by their
 * six points. */
typedef struct class_key {
    size_t graph;
    int32_t task, sn, en;
    ompdag_point sk, ek;
} class_key;

static inline uint32_t class_hash(const class_key *k)
{
    uint64_t where = (uint64_t)k->graph << 32 ^ (uint32_t)k->task;
    uint64_t nodes = (uint64_t)(uint32_t)k->sn << 32 ^ (uint32_t)k->en;
    uint64_t h = where * 0x9e3779b97f4a7c15ull ^ nodes * 0xff51afd7ed558ccdull ^
                 ((uint64_t)k->sk << 8 | (uint64_t)k->ek);
    return ompdag_imap_hash32(ompdag_hmap_mix64(h));
}

static inline bool class_is(const void *classes, uint32_t index, const void *key)
{
    const seg_class *c = (const seg_class *)classes + index;
    const class_key *k = key;
    return c->graph == k->graph && c->task == k->task && c->sk == k->sk && c->sn == k->sn &&
           c->ek == k->ek && c->en == k->en;
}

static inline seg_class *class_lookup(const ompdag_annotation *a, const class_key *k, uint32_t hash)
{
    int64_t x = ompdag_imap_find(&a->class_index, hash, class_is, a->classes, k);
    return x < 0 ? NULL : &a->classes[x];
}

const seg_class *annot_class_find(const ompdag_annotation *a, size_t graph, int32_t task,
                                  ompdag_point sk, int32_t sn, ompdag_point ek, int32_t en)
{
    class_key k = {graph, task, sn, en, sk, ek};
    return class_lookup(a, &k, class_hash(&k));
}

/* Finds or creates the class; returns NULL when the points have no path in
 * the graph (the trace and the graph disagree) or on allocation failure. */
seg_class *annot_class_get(ompdag_annotation *a, size_t graph, int32_t task, ompdag_point sk,
                           int32_t sn, ompdag_point ek, int32_t en, uint8_t *mark, int32_t *stack,
                           bool *nomem)
{
    class_key k = {graph, task, sn, en, sk, ek};
    uint32_t hash = class_hash(&k);
    seg_class *found = class_lookup(a, &k, hash);
    if (found) return found;
    const graph_info *gi = &a->graphs[graph];
    int32_t len = annot_segment_path(gi, task, sk, sn, ek, en, mark, stack);
    bool empty_ok = len == 0 && annot_empty_segment(gi->g, task, sk, sn, ek, en);
    if (len == 0 && !empty_ok) return NULL;
    if (a->nclasses >= UINT32_MAX || /* the index map's indices are 32 bits */
        !annot_grow((void **)&a->classes, &a->class_cap, a->nclasses + 1, sizeof *a->classes) ||
        !ompdag_imap_add(&a->class_index, hash, (uint32_t)a->nclasses)) {
        *nomem = true;
        return NULL;
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
    return c;
}
