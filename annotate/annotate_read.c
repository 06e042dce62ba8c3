/*
 * annotate/annotate_read.c — reading a trace: one pass over its records
 * buffers the segments, creations and dependence records, and gathers the
 * region runs; what the segments need from the task table is filled in after.
 * Part of `ompdag annotate` (annotate_trace.c is its entry); the rule and its
 * safety argument are in annotate_internal.h and docs/probe.md.
 */
#include <sys/stat.h>

#include "annotate_internal.h"

/* Graph index + 1 for a region address, 0 when no graph matches. */
static size_t region_graph(trace_ctx *c, uint64_t cp)
{
    for (size_t i = 0; i < c->region_n; ++i)
        if (c->region_cp[i] == cp) return c->region_graph[i];
    size_t found = 0;
    ompdag_srcloc loc;
    ompdag_error e;
    if (ompdag_symbolizer_lookup(c->sym, cp, &loc, &e) == OMPDAG_OK)
        for (size_t gi = 0; gi < c->a->ngraphs && !found; ++gi)
            if (c->a->graphs[gi].region_line == loc.line &&
                annot_same_file(c->a->graphs[gi].region_file, loc.file))
                found = gi + 1;
    size_t cp_cap = c->region_cap; /* region_cp grows first; region_cap counts once both have */
    if (!annot_grow((void **)&c->region_cp, &cp_cap, c->region_n + 1, sizeof *c->region_cp) ||
        !annot_grow((void **)&c->region_graph, &c->region_cap, c->region_n + 1,
                    sizeof *c->region_graph))
        return found; /* not remembered: looked up again next time */
    c->region_cp[c->region_n] = cp;
    c->region_graph[c->region_n++] = found;
    return found;
}

/* Reserves the creation records and the segments once: a trace file
 * holds at most size / sizeof(ompdag_trace_rec) of either, and pages
 * never written cost nothing.  Doubling from 1024 instead wrote, and the
 * kernel zeroed, twice each final array (360 MB more for the creations of
 * fib(30)'s 2.7·10^6 tasks).  When a reservation is refused, or the size
 * is unknown (a pipe), the arrays grow as before. */
static void reserve_arrays(trace_ctx *c, const char *path)
{
    struct stat st;
    if (stat(path, &st) || st.st_size <= 0) return;
    size_t n = (size_t)st.st_size / sizeof(ompdag_trace_rec) + 1;
    if (n < 4096 || n > SIZE_MAX / 2 / sizeof *c->created) return;
    c->created = annot_alloc_big(n * sizeof *c->created);
    c->created_cap = c->created ? n : 0;
    c->pend = annot_alloc_big(n * sizeof *c->pend);
    c->pend_cap = c->pend ? n : 0;
}

/* Keeps a dependence record until the task table is complete. */
static bool defer_record(trace_ctx *c, const ompdag_trace_rec *r)
{
    if (!annot_grow((void **)&c->deferred, &c->deferred_cap, c->ndeferred + 1, sizeof *r))
        return false;
    c->deferred[c->ndeferred++] = *r;
    return true;
}

/* The pass keeps the TASK_CREATE records in order; task_table then sizes the
 * table once (growing it by doubling from 1024 rehashed 10^7 entries for a
 * trace of 2.7·10^6 tasks). */
static bool task_record(trace_ctx *c, const ompdag_trace_rec *r, size_t graph)
{
    if (!annot_grow((void **)&c->created, &c->created_cap, c->ncreated + 1, sizeof *c->created))
        return false;
    c->created[c->ncreated++] = (task_entry){.id = r->id,
                                             .parent = r->aux,
                                             .cp_task = r->cp_task,
                                             .time = r->time,
                                             .task = -2,
                                             .graph = (uint32_t)graph};
    return true;
}

/* The names are an index map (hashmap.h) over t->value. */
static inline bool cp_is(const void *value, uint32_t name, const void *cp)
{
    return ((const uint64_t *)value)[name] == *(const uint64_t *)cp;
}

static uint32_t cp_hash(uint64_t cp)
{
    return (uint32_t)((cp * 0x9e3779b97f4a7c15ull) >> 32);
}

bool annot_cp_name(cp_names *t, uint64_t cp, uint32_t *name)
{
    uint32_t hash = cp_hash(cp);
    int64_t known = ompdag_imap_find(&t->index, hash, cp_is, t->value, &cp);
    if (known >= 0) {
        *name = (uint32_t)known;
        return true;
    }
    if (t->n == UINT32_MAX || /* names are uint32_t */
        !annot_grow((void **)&t->value, &t->cap, (size_t)t->n + 1, sizeof *t->value) ||
        !ompdag_imap_add(&t->index, hash, t->n))
        return false;
    t->value[t->n] = cp;
    *name = t->n++;
    return true;
}

/* Whether a segment of an implicit task is some node's code: inside a
 * single/masked body (the root τ1); in a team graph, all of it but the
 * segment after the region's last barrier (annotate_team.c), which runs no
 * graph code.  An explicit task's segment always is. */
static bool implicit_is_graph_code(const graph_info *gi, const ompdag_trace_rec *r)
{
    if (!(r->flags & OMPDAG_RECF_IMPLICIT) || (r->flags & OMPDAG_RECF_ROOT)) return true;
    return gi->team_p && !(r->start_kind == OMPDAG_PT_BARRIER && r->end_kind == OMPDAG_PT_TASK_END);
}

static ompdag_status add_segment(trace_ctx *c, const ompdag_trace_rec *r, ompdag_error *err)
{
    ompdag_annotation *a = c->a;
    ++a->segments;
    size_t gp = r->cp_region ? region_graph(c, r->cp_region) : 0;
    if (!gp || !implicit_is_graph_code(&a->graphs[gp - 1], r)) {
        ++a->outside;
        return OMPDAG_OK;
    }
    if (!annot_grow((void **)&c->pend, &c->pend_cap, c->npend + 1, sizeof *c->pend))
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    uint32_t cs, ce, ct;
    if (!annot_cp_name(&c->cps, r->cp_start, &cs) || !annot_cp_name(&c->cps, r->cp_end, &ce) ||
        !annot_cp_name(&c->cps, r->cp_task, &ct))
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM,
                                "annotate: out of memory (or 2^32 distinct code addresses)");
    c->pend[c->npend++] = (pending_seg){.id = r->id,
                                        .time = r->time,
                                        .dur = r->dur,
                                        .run = r->aux,
                                        .created = 0, /* resolve_segments */
                                        .cp_start = cs,
                                        .cp_end = ce,
                                        .cp_task = ct,
                                        .graph = (uint32_t)(gp - 1),
                                        .sk = r->start_kind,
                                        .ek = r->end_kind,
                                        .flags = r->flags};
    return OMPDAG_OK;
}

/* What the buffered segments need from the complete task table, in trace
 * order: each explicit segment's creation time (UINT64_MAX: its creation
 * is not in the trace), and its task's run, first start and completion
 * (annotate_depend.c; a later segment wins). */
void annot_resolve_segments(trace_ctx *c)
{
    for (size_t i = 0; i < c->npend; ++i) {
        pending_seg *s = &c->pend[i];
        if (s->flags & OMPDAG_RECF_IMPLICIT) continue;
        task_entry *e = c->tasks_cap ? annot_task_slot(c, s->id) : NULL;
        s->created = e && e->id ? e->time : UINT64_MAX;
        if (!e || !e->id) continue;
        e->run = s->run;
        if (s->sk == OMPDAG_PT_TASK_BEGIN) {
            e->seg_start = s->time - s->dur;
            e->seg_suspended = (s->flags & OMPDAG_RECF_SUSPENDED) != 0;
        }
        if (s->ek == OMPDAG_PT_TASK_END) e->end = s->time;
    }
}

/* The runs are an index map (hashmap.h) over c->runs, by id: a time-step
 * loop around a `parallel` makes 10^6 runs, and a linear search here made
 * reading such a trace quadratic. */
static inline bool run_is(const void *runs, uint32_t index, const void *id)
{
    return ((const region_run *)runs)[index].id == *(const uint64_t *)id;
}

/* The run of region instance `id` (created on first sight), or NULL. */
static region_run *region_run_get(trace_ctx *c, uint64_t id, size_t graph)
{
    uint32_t hash = (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 32);
    int64_t known = ompdag_imap_find(&c->run_index, hash, run_is, c->runs, &id);
    if (known >= 0) return &c->runs[known];
    if (c->nruns >= UINT32_MAX || /* the index map's indices are 32 bits */
        !annot_grow((void **)&c->runs, &c->runs_cap, c->nruns + 1, sizeof *c->runs) ||
        !ompdag_imap_add(&c->run_index, hash, (uint32_t)c->nruns))
        return NULL;
    c->runs[c->nruns] = (region_run){.id = id, .graph = graph};
    return &c->runs[c->nruns++];
}

static ompdag_status add_region(trace_ctx *c, const ompdag_trace_rec *r, ompdag_error *err)
{
    size_t gp = r->cp_region ? region_graph(c, r->cp_region) : 0;
    if (!gp) return OMPDAG_OK;
    uint64_t id =
        r->type == OMPDAG_REC_REGION_BEGIN || r->type == OMPDAG_REC_REGION_END ? r->id : r->aux;
    if (!id) return OMPDAG_OK;
    region_run *run = region_run_get(c, id, gp - 1);
    if (!run) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    switch (r->type) {
    case OMPDAG_REC_REGION_BEGIN:
        run->begin = r->time;
        run->requested = (uint32_t)(r->aux < UINT32_MAX ? r->aux : UINT32_MAX);
        break;
    case OMPDAG_REC_SCHED:
        if (r->flags == 0) ++run->implicit_begun; /* each team thread's implicit task begins */
        annot_sched_record(run, r);
        break;
    case OMPDAG_REC_REGION_END:
        run->end = r->time;
        break;
    case OMPDAG_REC_IMPLICIT: /* a team graph's τ1 begins with its first implicit task */
        if (c->a->graphs[gp - 1].team_p && (!run->tasks_begin || r->time < run->tasks_begin))
            run->tasks_begin = r->time;
        break;
    case OMPDAG_REC_SEGMENT:
        if (r->thread < 64) run->thread_mask |= 1ull << r->thread;
        annot_arrival_record(run, r, c->a->graphs[gp - 1].team_p > 0);
        /* a team graph's phase ends when its thread reaches the barrier */
        if (c->a->graphs[gp - 1].team_p && r->end_kind == OMPDAG_PT_BARRIER &&
            (r->flags & OMPDAG_RECF_IMPLICIT))
            run->tasks_end = r->time > run->tasks_end ? r->time : run->tasks_end;
        /* a single/master region's τ1 begins with its body; a team graph's
         * τ1 with the first implicit task, not with a single inside it */
        if (r->end_kind == OMPDAG_PT_ROOT_BEGIN && !c->a->graphs[gp - 1].team_p)
            run->tasks_begin = r->time;
        if (r->end_kind == OMPDAG_PT_ROOT_END || r->end_kind == OMPDAG_PT_TASK_END)
            if ((r->flags & OMPDAG_RECF_ROOT) || !(r->flags & OMPDAG_RECF_IMPLICIT))
                run->tasks_end = r->time > run->tasks_end ? r->time : run->tasks_end;
        break;
    default:
        break;
    }
    return OMPDAG_OK;
}

/* The team size of a region instance: the threads that took part.  Every
 * thread of the team begins an implicit task, for which the probe writes an
 * OMPDAG_REC_SCHED record; without those (a trace of an older probe), the
 * threads that ran its segments.  Not the threads requested at the fork:
 * the runtime may give fewer.  A run of T threads is judged against the
 * bound at m = T (issue 22). */
int64_t annot_run_team(const region_run *run)
{
    if (run->implicit_begun) return run->implicit_begun;
    int64_t seen = __builtin_popcountll(run->thread_mask);
    return seen ? seen : 1;
}

/* Response times of the runs read from one trace, each with its team size. */
ompdag_status annot_finish_runs(trace_ctx *c, ompdag_error *err)
{
    for (size_t i = 0; i < c->nruns; ++i) {
        const region_run *run = &c->runs[i];
        graph_info *g = &c->a->graphs[run->graph];
        int64_t team = annot_run_team(run);
        if (run->begin && run->end > run->begin &&
            (!annot_i64vec_push(&g->responses, (int64_t)(run->end - run->begin)) ||
             !annot_i64vec_push(&g->responses_interfered, run->interfered) ||
             !annot_i64vec_push(&g->response_threads, team)))
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        if (run->tasks_begin && run->tasks_end > run->tasks_begin &&
            (!annot_i64vec_push(&g->task_responses, (int64_t)(run->tasks_end - run->tasks_begin)) ||
             !annot_i64vec_push(&g->task_responses_interfered, run->interfered) ||
             !annot_i64vec_push(&g->task_response_threads, team)))
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    }
    return OMPDAG_OK;
}

/* ---- is this the graphs' program? ------------------------------------------ */

/* Refuses a trace whose program holds none of the graphs' sources (issue
 * 22): the traced executable matches its build-id (checked before), and its
 * line tables, or those of a shared object it loaded, must name the source
 * file of some graph's region.  A trace of another program, or of a binary
 * built without -g, would otherwise map nothing and read as "0 runs". */
ompdag_status annot_check_sources(trace_ctx *c, ompdag_error *err)
{
    const ompdag_annotation *a = c->a;
    const char *first = NULL;
    size_t others = 0;
    ompdag_source_evidence ev = OMPDAG_SOURCE_ABSENT;
    for (size_t gi = 0; gi < a->ngraphs; ++gi) {
        const char *file = a->graphs[gi].region_file;
        bool seen = !file;
        for (size_t gj = 0; gj < gi && !seen; ++gj)
            seen = annot_same_file(a->graphs[gj].region_file, file);
        if (seen) continue; /* one look per distinct file */
        ompdag_status st = ompdag_symbolizer_find_source(c->sym, file, annot_same_file, &ev, err);
        if (st) return st;
        if (ev == OMPDAG_SOURCE_FOUND) return OMPDAG_OK;
        if (ev == OMPDAG_SOURCE_FOUND_GCC) /* issue 24 item 6: no misleading mapping errors */
            return ompdag_error_set(
                err, OMPDAG_ERR_UNSUPPORTED,
                "%s in the trace's program %s was compiled by GCC: its OpenMP code generation "
                "(libgomp's GOMP_* calls) puts the scheduling points elsewhere than the clang "
                "front end's graph, so its segments cannot be mapped; rebuild with clang -fopenmp "
                "-g and run it again (`ompdag run --preload-libomp` runs a GCC binary, for its "
                "response times only)",
                file, ompdag_symbolizer_executable(c->sym));
        if (first)
            ++others;
        else
            first = file;
    }
    if (!first) return OMPDAG_OK; /* no graph names its source: nothing to compare */
    const char *exe = ompdag_symbolizer_executable(c->sym);
    if (ev == OMPDAG_SOURCE_EXE_NO_LINES)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "the trace's program %s has no line tables (built without -g?): "
                                "rebuild with -g (clang -fopenmp -g), run it again and annotate "
                                "that trace",
                                exe);
    return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                            "the trace's program %s does not contain %s (the graph's source)%s: "
                            "is this the right trace?",
                            exe, first, others ? ", nor the other graphs' sources" : "");
}

/* Keeps the OMPDAG_REC_IMPLICIT record of a team graph's run. */
static ompdag_status team_record(trace_ctx *c, const ompdag_trace_rec *r, ompdag_error *err)
{
    size_t gp = r->cp_region ? region_graph(c, r->cp_region) : 0;
    if (!gp || !c->a->graphs[gp - 1].team_p || annot_team_record(c, r)) return OMPDAG_OK;
    return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
}

/* One pass over the trace of reader r (at `path`, for its size): buffers the
 * segments, creation and dependence records (records of different threads
 * are not in time order, so a segment may precede its task's creation) and
 * gathers the region runs.  The caller then builds the task table and calls
 * annot_resolve_segments. */
ompdag_status annot_read_records(trace_ctx *c, ompdag_trace_reader *r, const char *path,
                                 ompdag_error *err)
{
    ompdag_annotation *a = c->a;
    ompdag_status st = OMPDAG_OK;
    if (!annot_reference_paths) reserve_arrays(c, path);
    for (;;) {
        ompdag_trace_rec rec;
        bool done;
        if ((st = ompdag_trace_reader_next(r, &rec, &done, err))) break;
        if (done) {
            /* the footer: records the probe could not store (a failed buffer
             * allocation or chunk write) mean the trace misses measured time,
             * so every graph is unsafe */
            if (rec.type == OMPDAG_REC_FOOTER &&
                __builtin_add_overflow(a->dropped_records, rec.cp_start, &a->dropped_records))
                a->dropped_records = UINT64_MAX;
            break;
        }
        if (rec.type == OMPDAG_REC_SEGMENT && (st = add_segment(c, &rec, err))) break;
        if (rec.type == OMPDAG_REC_TASK_CREATE && rec.cp_region && region_graph(c, rec.cp_region) &&
            !task_record(c, &rec, region_graph(c, rec.cp_region) - 1)) {
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
            break;
        }
        if ((rec.type == OMPDAG_REC_DEPEND || rec.type == OMPDAG_REC_DEP_PAIR ||
             rec.type == OMPDAG_REC_DEP_START) &&
            !defer_record(c, &rec)) {
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
            break;
        }
        if (rec.type == OMPDAG_REC_RUNTIME) annot_runtime_record(c->a, &rec);
        if (rec.type == OMPDAG_REC_OFFLOAD && rec.id && !annot_off_push(c, &rec)) {
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
            break;
        }
        if (rec.type == OMPDAG_REC_IMPLICIT && (st = team_record(c, &rec, err))) break;
        bool regional = rec.type == OMPDAG_REC_REGION_BEGIN || rec.type == OMPDAG_REC_REGION_END ||
                        rec.type == OMPDAG_REC_SCHED || rec.type == OMPDAG_REC_SEGMENT ||
                        rec.type == OMPDAG_REC_IMPLICIT;
        if (regional && (st = add_region(c, &rec, err))) break;
    }
    return st;
}

/* OMPDAG_REC_RUNTIME: which runtime each trace named, and its settings
 * ("input".runtime, annotate_input.c). */
void annot_runtime_record(ompdag_annotation *a, const ompdag_trace_rec *r)
{
    if (!a->rt_traces++)
        a->rt_name = r->aux;
    else if (r->aux != a->rt_name)
        a->rt_mixed = true;
    if (r->flags & OMPDAG_RUNTIME_NO_THROTTLING) ++a->rt_unthrottled;
    if (r->flags & OMPDAG_RUNTIME_TASKING_SET) a->rt_tasking_set = true;
}
