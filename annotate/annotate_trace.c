/*
 * annotate/annotate_trace.c — the entry of one trace: read it
 * (annotate_read.c), build the task table (annotate_tasks.c), sort the
 * segments (annotate_sort.c), map them per task instance (annotate_map.c)
 * beside the dispatch delays (annotate_overhead.c), and record the runs.
 * Part of `ompdag annotate`; the rule and its safety argument are in
 * annotate_internal.h and docs/probe.md.
 */
#include <pthread.h>

#include "annotate_internal.h"

bool annot_reference_paths = false;

static void ctx_free(trace_ctx *c)
{
    free(c->locs);
    free(c->region_cp);
    free(c->region_graph);
    free(c->runs);
    free(c->interfered_runs);
    ompdag_imap_free(&c->run_index);
    free(c->tasks);
    free(c->created);
    free(c->spare);
    free(c->deferred);
    free(c->dbase);
    free(c->pend);
    free(c->cps.value);
    ompdag_imap_free(&c->cps.index);
    free(c->made);
    free(c->ends);
    free(c->mark);
    free(c->class_of);
    free(c->devents);
    free(c->stack);
    free(c->off);
    free(c->items);
    free(c->pairs);
    free(c->outside), free(c->outside_pairs);
    free(c->exec);
    free(c->imp);
    ompdag_symbolizer_destroy(c->sym);
}

/* ---- the dispatch delays and the mapping, side by side ---------------------- */

typedef struct overhead_job {
    trace_ctx *c;
    ompdag_error err;
    ompdag_status st;
} overhead_job;

static void *overhead_thread(void *arg)
{
    overhead_job *j = arg;
    j->st = annot_overhead_collect(j->c, &j->err);
    return NULL;
}

/* annot_overhead_collect, then map_pending: both only read the sorted
 * segments (c->pend, c->npend: neither may change them until both are
 * done) and the task table, and write disjoint state (the delays and
 * team of each graph; the classes, creations and unmapped counts), so on a
 * large trace the dispatch delays are collected on a second thread while
 * this one maps.  Each is sequential inside, so the result is the same as
 * one after the other; their errors are reported in that order. */
static ompdag_status overhead_and_map(trace_ctx *c, ompdag_error *err)
{
    overhead_job job = {.c = c};
    pthread_t thread;
    bool beside = c->npend >= 4096 && !annot_reference_paths &&
                  pthread_create(&thread, NULL, overhead_thread, &job) == 0;
    if (!beside) {
        ompdag_status st = annot_overhead_collect(c, err);
        if (!st) st = annot_map_pending(c, err);
        c->npend = 0;
        return st;
    }
    ompdag_error map_err = {0};
    ompdag_status map_st = annot_map_pending(c, &map_err);
    pthread_join(thread, NULL);
    c->npend = 0;
    if (job.st) {
        if (err) *err = job.err;
        return job.st;
    }
    if (map_st && err) *err = map_err;
    return map_st;
}

ompdag_status ompdag_annotation_add_trace(ompdag_annotation *a, const char *path, ompdag_error *err)
{
    if (!a || !path) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "annotate: NULL argument");
    if (a->applied) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "annotate: already applied");
    ompdag_trace_reader *r;
    ompdag_status st = ompdag_trace_reader_open(path, &r, err);
    if (st) return st;
    trace_ctx c = {.a = a};
    size_t maxn = 1;
    for (size_t i = 0; i < a->ngraphs; ++i)
        if ((size_t)a->graphs[i].n > maxn) maxn = (size_t)a->graphs[i].n;
    c.mark = malloc(maxn);
    c.stack = malloc(2 * maxn * sizeof *c.stack + 16);
    if (!c.mark || !c.stack) {
        ctx_free(&c);
        ompdag_trace_reader_destroy(r);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    }
    if ((st = ompdag_symbolizer_create(r, &c.sym, err)) ||
        (st = ompdag_symbolizer_check_executable(c.sym, err)) || (st = annot_check_sources(&c, err))) {
        ctx_free(&c);
        ompdag_trace_reader_destroy(r);
        return st;
    }
    /* One pass over the trace.  Records of different threads are not in
     * time order, so a segment may precede its task's creation: segments
     * and dependence records are kept, and what they need from the task
     * table is filled in once the table is complete. */
    st = annot_read_records(&c, r, path, err);
    ompdag_trace_reader_destroy(r);
    if (st == OMPDAG_OK && c.ncreated && !annot_task_table(&c))
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    if (st == OMPDAG_OK) annot_resolve_segments(&c);
    if (st == OMPDAG_OK) st = annot_team_sort(&c, err);
    for (size_t i = 0; st == OMPDAG_OK && i < c.ndeferred; ++i)
        st = annot_depend_record(&c, &c.deferred[i], err);
    if (st == OMPDAG_OK && c.noff) qsort(c.off, c.noff, sizeof *c.off, annot_cmp_off);
    if (st == OMPDAG_OK && !annot_sort_pending(&c))
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    if (st == OMPDAG_OK) annot_depend_ready(&c);
    for (size_t i = 0; i < a->ngraphs && !c.depend_on; ++i)
        c.depend_on = ompdag_condag_has_depend(a->graphs[i].g);
    c.depend_on = c.depend_on || c.nitems || c.npairs;
    if (st == OMPDAG_OK) st = annot_interfered_runs(&c, err);
    /* alone, not beside the mapping: their peaks of memory would add up */
    if (st == OMPDAG_OK) st = annot_floor_collect(&c, err);
    /* annotate_input.c: each segment's class, for the delays of its instance */
    if (st == OMPDAG_OK && c.npend) c.class_of = calloc(c.npend, sizeof *c.class_of);
    if (st == OMPDAG_OK) st = overhead_and_map(&c, err);
    if (st == OMPDAG_OK) st = annot_input_resolve(&c, err);
    if (st == OMPDAG_OK) st = annot_depend_check(&c, err);
    if (st == OMPDAG_OK) st = annot_finish_runs(&c, err);
    ctx_free(&c);
    if (st == OMPDAG_OK) ++a->traces;
    return st;
}
