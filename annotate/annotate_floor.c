/*
 * annotate/annotate_floor.c — the floor (issue 23 item 6;
 * ../shared/spec/tightness.md, "The floor: Graham is not the problem"):
 * per region run, Graham's bound of that run's OWN task DAG, with that run's
 * own segment times and its own dispatch delays on the critical chain only
 * (Graham 1969, "Bounds on multiprocessing timing anomalies"; the delay
 * inequality of docs/overheads.md, before it folds):
 *
 *   m·G = vol + max over paths P of Σ_{v in P} ((m−1)·c(v) + m·D(v))
 *
 * where the nodes are the run's segments, c(v) a segment's own time, vol
 * their sum, and D(v) the part of [ready(v), start(v)) when not every thread
 * of the team ran graph code (annot_nonfull, the same measure as the
 * dispatch delays of annotate_overhead.c).  The edges are the ones the
 * runtime enforced in that run:
 *
 *   F:          a task's consecutive segments;
 *   creation:   the creator's segment that ended at the `task` directive ->
 *               the child's first segment;
 *   wait:       the last segment of every child created since the task's
 *               previous wait (every descendant, for a taskgroup) that ended
 *               before the wait returned -> the segment after the wait;
 *   undeferred: an undeferred child's last segment -> its creator's
 *               continuation (the creator ran or awaited it);
 *   depend:     the runtime's dependence pairs (OMPDAG_REC_DEP_PAIR).
 *
 * ready(v) is the latest end among v's predecessors (and its creation and
 * dependences for a first segment).  Every edge u -> v has end(u) <= start(v)
 * <= end(v), so the segments in order of their end times are a topological
 * order: one pass computes the longest path, linear after the sorts.  Equal
 * ends need v of zero length; ties stay in trace order, where creators and
 * earlier segments come first, and a predecessor still met after its
 * successor (a wait edge's tie) is counted, never silently dropped.
 *
 * Divided by the run's response (root begin -> last task end, the
 * observed_task_response_ns the report compares with), G/R >= 1 always: it is
 * the best any sound analysis of this run can do, and a run below 1 means a
 * delay was measured short (a bug, reported as below_one, never hidden).
 * The report sets the region's bound ÷ observed beside it (docs/probe.md,
 * "The floor"; docs/report.md, "breakdown").
 */
#include "annotate_internal.h"

/* One task instance of the run: its segments [first, first + n). */
typedef struct floor_task {
    uint64_t id, parent, created; /* parent and created 0: an implicit task (the root) */
    uint64_t end;                 /* completion (0: not seen) */
    size_t first, n;              /* local segment indices */
    bool undeferred, implicit;
} floor_task;

/* A child in the children lists: its instance is byid[task]. */
typedef struct floor_kid {
    uint64_t parent, created;
    size_t task;
} floor_kid;

/* A segment in the topological order: by end time, ties in trace order. */
typedef struct floor_order {
    uint64_t end, index;
} floor_order;

typedef struct floor_run {
    trace_ctx *c;
    const pending_seg *seg; /* the run's segments, sorted (run, created, id, time) */
    size_t n;
    int64_t m;
    struct full_set *full;
    floor_task *byid; /* instances by id */
    floor_kid *kids;  /* the same by (parent, created) */
    size_t ntasks;    /* instances, implicit ones (the root) included */
    size_t explicit_tasks;
    size_t *task_of; /* segment -> its instance in byid */
    /* Longest path ending at each segment once done[s / 64] has bit s % 64;
     * before that, for a segment after a wait, when the task's previous
     * wait began (0: none), which the path needs first. */
    int64_t *path;
    uint64_t *done;
    size_t *stack;
    const dep_pair *pairs; /* the trace's dependence pairs, by succ */
    size_t npairs;
    uint64_t unordered; /* predecessors found after their successor (must stay 0) */
    bool overflow;
} floor_run;

static uint64_t seg_start(const pending_seg *s)
{
    return s->dur <= s->time ? s->time - s->dur : s->time;
}

/* ---- lookups ------------------------------------------------------------------- */

static uint64_t task_id_key(const void *rec, int k)
{
    (void)k;
    return ((const floor_task *)rec)->id;
}

static int cmp_task_id(const void *x, const void *y)
{
    const floor_task *a = x, *b = y;
    return a->id < b->id ? -1 : a->id > b->id;
}

static uint64_t kid_key(const void *rec, int k)
{
    const floor_kid *t = rec;
    return k == 0 ? t->parent : t->created;
}

static int cmp_kid(const void *x, const void *y)
{
    const floor_kid *a = x, *b = y;
    if (a->parent != b->parent) return a->parent < b->parent ? -1 : 1;
    return a->created < b->created ? -1 : a->created > b->created;
}

static uint64_t order_key(const void *rec, int k)
{
    const floor_order *o = rec;
    return k == 0 ? o->end : o->index;
}

static int cmp_order(const void *x, const void *y)
{
    const floor_order *a = x, *b = y;
    if (a->end != b->end) return a->end < b->end ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static bool is_done(const floor_run *r, size_t s)
{
    return r->done[s / 64] >> (s % 64) & 1;
}

static const floor_task *task_by_id(const floor_run *r, uint64_t id)
{
    size_t lo = 0, hi = r->ntasks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->byid[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->ntasks && r->byid[lo].id == id ? &r->byid[lo] : NULL;
}

/* First child of `parent` created after `after` (kids by (parent, created)). */
static size_t kids_from(const floor_run *r, uint64_t parent, uint64_t after)
{
    size_t lo = 0, hi = r->ntasks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const floor_kid *t = &r->kids[mid];
        if (t->parent < parent || (t->parent == parent && t->created <= after))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The segment of task `parent` that ended at its `task` directive at `time`
 * (SIZE_MAX: not in the run). */
static size_t creator_segment(const floor_run *r, uint64_t parent, uint64_t time)
{
    const floor_task *p = task_by_id(r, parent);
    if (!p) return SIZE_MAX;
    size_t lo = p->first, hi = p->first + p->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->seg[mid].time < time)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->first + p->n && r->seg[lo].time == time && r->seg[lo].ek == OMPDAG_PT_CREATE
               ? lo
               : SIZE_MAX;
}

/* ---- the longest path ------------------------------------------------------------ */

/* Takes predecessor u of the segment being computed: its path and end. */
static void take(floor_run *r, size_t u, int64_t *best, uint64_t *ready)
{
    if (u == SIZE_MAX) return;
    if (!is_done(r, u)) {
        ++r->unordered;
        return;
    }
    if (r->path[u] > *best) *best = r->path[u];
    if (r->seg[u].time > *ready) *ready = r->seg[u].time;
}

/* Predecessors that are the ends of children awaited at segment s. */
static void awaited(floor_run *r, size_t s, uint64_t since, int64_t *best, uint64_t *ready)
{
    const pending_seg *v = &r->seg[s];
    uint64_t wait_begin = r->seg[s - 1].time, start = seg_start(v);
    bool group = v->sk == OMPDAG_PT_TASKGROUP;
    size_t top = 0;
    for (size_t k = kids_from(r, v->id, since);
         k < r->ntasks && r->kids[k].parent == v->id && r->kids[k].created <= wait_begin; ++k)
        r->stack[top++] = k;
    while (top > 0) {
        const floor_task *t = &r->byid[r->kids[r->stack[--top]].task];
        if (!t->end || t->end > start) continue; /* not awaited: the wait did not outlast it */
        take(r, t->first + t->n - 1, best, ready);
        for (size_t k = group ? kids_from(r, t->id, 0) : r->ntasks;
             k < r->ntasks && r->kids[k].parent == t->id && top < r->ntasks; ++k)
            r->stack[top++] = k;
    }
}

/* Predecessors of the first segment of explicit task t. */
static void first_preds(floor_run *r, const floor_task *t, int64_t *best, uint64_t *ready)
{
    *ready = t->created;
    take(r, creator_segment(r, t->parent, t->created), best, ready);
    const task_entry *e = r->c->tasks_cap ? annot_task_find(r->c, t->id) : NULL;
    if (e && e->dep_ready > *ready) *ready = e->dep_ready;
    size_t lo = 0, hi = r->npairs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->pairs[mid].succ < t->id)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < r->npairs && r->pairs[lo].succ == t->id; ++lo) {
        const floor_task *p = task_by_id(r, r->pairs[lo].pred);
        if (p && p->end && p->end <= seg_start(&r->seg[t->first]))
            take(r, p->first + p->n - 1, best, ready);
    }
}

/* a + b and a·b for int64_t, remembering an overflow. */
static int64_t add(floor_run *r, int64_t a, int64_t b)
{
    int64_t s;
    if (__builtin_add_overflow(a, b, &s)) r->overflow = true;
    return s;
}

static int64_t mul(floor_run *r, int64_t a, int64_t b)
{
    int64_t p;
    if (__builtin_mul_overflow(a, b, &p)) r->overflow = true;
    return p;
}

/* The longest path ending at segment s: its weight (m−1)·c + m·D plus the
 * longest path among its predecessors. */
static void path_to(floor_run *r, size_t s)
{
    const pending_seg *v = &r->seg[s];
    const floor_task *t = &r->byid[r->task_of[s]];
    bool first = s == t->first;
    int64_t best = 0;
    uint64_t ready = 0, start = seg_start(v);
    bool has_ready = !first || !t->implicit; /* the root's start is the response's */
    if (!first) {
        take(r, s - 1, &best, &ready);
        uint8_t pk = r->seg[s - 1].ek;
        if ((v->sk == OMPDAG_PT_TASKWAIT || v->sk == OMPDAG_PT_TASKGROUP) && pk == v->sk)
            awaited(r, s, (uint64_t)r->path[s], &best, &ready);
        if (v->sk == OMPDAG_PT_CREATE && pk == OMPDAG_PT_CREATE) /* undeferred children */
            for (size_t k = kids_from(r, v->id, r->seg[s - 1].time - 1);
                 k < r->ntasks && r->kids[k].parent == v->id &&
                 r->kids[k].created == r->seg[s - 1].time;
                 ++k) {
                const floor_task *u = &r->byid[r->kids[k].task];
                if (u->undeferred && u->end && u->end <= start)
                    take(r, u->first + u->n - 1, &best, &ready);
            }
    } else if (!t->implicit) {
        first_preds(r, t, &best, &ready);
    }
    int64_t delay = has_ready && start >= ready ? annot_nonfull(r->full, ready, start) : 0;
    int64_t w = add(r, mul(r, r->m - 1, (int64_t)v->dur), mul(r, r->m, delay));
    r->path[s] = add(r, best, w);
    r->done[s / 64] |= (uint64_t)1 << (s % 64);
}

/* ---- one run ------------------------------------------------------------------- */

/* The run's task instances (groups of equal id). */
static size_t count_tasks(const pending_seg *seg, size_t n)
{
    size_t t = 0;
    for (size_t i = 0; i < n; ++i)
        t += i == 0 || seg[i].id != seg[i - 1].id;
    return t;
}

/* Instances, children lists and the `since` of each wait segment. */
static bool index_tasks(floor_run *r)
{
    const pending_seg *seg = r->seg;
    r->ntasks = 0;
    for (size_t i = 0, j; i < r->n; i = j) {
        for (j = i + 1; j < r->n && seg[j].id == seg[i].id; ++j)
            ;
        uint64_t since = 0;
        for (size_t k = i + 1; k < j; ++k)
            if (seg[k].sk == OMPDAG_PT_TASKWAIT || seg[k].sk == OMPDAG_PT_TASKGROUP) {
                r->path[k] = (int64_t)since;
                since = seg[k - 1].time;
            }
        /* an explicit task whose creation is not in the trace has no
         * creation edge: like the root, its start is not charged */
        bool implicit = (seg[i].flags & OMPDAG_RECF_IMPLICIT) || seg[i].created == UINT64_MAX;
        const task_entry *e =
            !implicit && r->c->tasks_cap ? annot_task_find(r->c, seg[i].id) : NULL;
        r->explicit_tasks += !(seg[i].flags & OMPDAG_RECF_IMPLICIT);
        r->byid[r->ntasks++] =
            (floor_task){.id = seg[i].id,
                         .parent = e ? e->parent : 0,
                         .created = implicit ? 0 : seg[i].created,
                         .end = seg[j - 1].ek == OMPDAG_PT_TASK_END ? seg[j - 1].time : 0,
                         .first = i,
                         .n = j - i,
                         .undeferred = (seg[i].flags & OMPDAG_RECF_UNDEFERRED) != 0,
                         .implicit = implicit};
    }
    if (!annot_sort_records(r->byid, r->ntasks, sizeof *r->byid, 1, task_id_key, cmp_task_id))
        return false;
    for (size_t k = 0; k < r->ntasks; ++k)
        r->kids[k] = (floor_kid){r->byid[k].parent, r->byid[k].created, k};
    if (!annot_sort_records(r->kids, r->ntasks, sizeof *r->kids, 2, kid_key, cmp_kid)) return false;
    for (size_t k = 0; k < r->ntasks; ++k)
        for (size_t i = 0; i < r->byid[k].n; ++i)
            r->task_of[r->byid[k].first + i] = k;
    return true;
}

/* m·G of the run (the longest path plus the volume); false on ENOMEM. */
static bool run_graham(floor_run *r, int64_t *mg, int64_t *vol)
{
    size_t n = r->n, t = count_tasks(r->seg, n);
    r->byid = annot_alloc_big((t + 1) * sizeof *r->byid);
    r->kids = annot_alloc_big((t + 1) * sizeof *r->kids);
    r->stack = annot_alloc_big((t + 1) * sizeof *r->stack);
    r->task_of = annot_alloc_big((n + 1) * sizeof *r->task_of);
    r->path = annot_alloc_big((n + 1) * sizeof *r->path);
    r->done = calloc(n / 64 + 1, sizeof *r->done);
    floor_order *ord = annot_alloc_big((n + 1) * sizeof *ord);
    bool ok = r->byid && r->kids && r->task_of && r->path && r->done && r->stack && ord;
    for (size_t i = 0; ok && i < n; ++i) {
        ord[i] = (floor_order){r->seg[i].time, i};
        r->path[i] = 0;
    }
    /* by end alone: the radix sort is stable, so ties stay in trace order */
    ok = ok && index_tasks(r) && annot_sort_records(ord, n, sizeof *ord, 1, order_key, cmp_order);
    int64_t longest = 0;
    *vol = 0;
    for (size_t i = 0; ok && i < n; ++i) {
        path_to(r, (size_t)ord[i].index);
        if (r->path[ord[i].index] > longest) longest = r->path[ord[i].index];
        *vol = add(r, *vol, (int64_t)r->seg[i].dur);
    }
    *mg = add(r, *vol, longest);
    free(ord);
    free(r->byid), free(r->kids), free(r->task_of), free(r->done), free(r->path), free(r->stack);
    return ok;
}

static bool floor_push(graph_info *g, const annot_floor_run *x)
{
    if (!annot_grow((void **)&g->floor, &g->floor_cap, g->nfloor + 1, sizeof *g->floor))
        return false;
    g->floor[g->nfloor++] = *x;
    return true;
}

static uint64_t pair_key(const void *rec, int k)
{
    (void)k;
    return ((const dep_pair *)rec)->succ;
}

static int cmp_pair(const void *x, const void *y)
{
    const dep_pair *a = x, *b = y;
    return a->succ < b->succ ? -1 : a->succ > b->succ;
}

/* One run's floor, appended to its graph (runs without a response, or with
 * no segment, have none). */
static ompdag_status floor_of_run(floor_run *r, const region_run *run, graph_info *g,
                                  ompdag_error *err)
{
    if (!run || !run->tasks_begin || run->tasks_end <= run->tasks_begin) return OMPDAG_OK;
    /* a team graph's run is not one task tree: its barriers order the
     * implicit tasks' phases, which the run's own DAG here does not model */
    if (g->team_p) return OMPDAG_OK;
    r->m = annot_run_team(run);
    r->full = annot_full_new(r->seg, r->n, (int32_t)r->m);
    int64_t mg = 0, vol = 0;
    bool ok = r->full && run_graham(r, &mg, &vol);
    annot_full_delete(r->full);
    if (!ok) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    if (r->overflow)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "annotate: the floor of region run %llu overflows int64 ns "
                                "(segment times too large): is the trace damaged?",
                                (unsigned long long)run->id);
    size_t tasks = r->explicit_tasks;
    annot_floor_run x = {.trace = (int64_t)r->c->a->traces,
                         .threads = r->m,
                         .response = (int64_t)(run->tasks_end - run->tasks_begin),
                         .mg = mg,
                         .work = vol,
                         .tasks = (int64_t)tasks,
                         .unordered = (int64_t)r->unordered,
                         .clean = !run->interfered};
    return floor_push(g, &x) ? OMPDAG_OK
                             : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
}

ompdag_status annot_floor_collect(trace_ctx *c, ompdag_error *err)
{
    /* c->pend is sorted by (run, created, id, time): annot_sort_pending */
    const region_run **byid = annot_runs_by_id(c);
    dep_pair *pairs = malloc((c->npairs + 1) * sizeof *pairs);
    if (!byid || !pairs) {
        free(byid), free(pairs);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    }
    if (c->npairs) memcpy(pairs, c->pairs, c->npairs * sizeof *pairs);
    ompdag_status st = annot_sort_records(pairs, c->npairs, sizeof *pairs, 1, pair_key, cmp_pair)
                           ? OMPDAG_OK
                           : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    for (size_t i = 0, j; i < c->npend && !st; i = j) {
        for (j = i + 1; j < c->npend && c->pend[j].run == c->pend[i].run; ++j)
            ;
        floor_run r = {.c = c, .seg = &c->pend[i], .n = j - i, .pairs = pairs, .npairs = c->npairs};
        st = floor_of_run(&r, annot_find_run(byid, c->nruns, c->pend[i].run),
                          &c->a->graphs[c->pend[i].graph], err);
    }
    free(byid);
    free(pairs);
    return st;
}

/* ---- JSON ---------------------------------------------------------------------- */

static bool jput(json_t *o, const char *key, json_t *v)
{
    return v && json_object_set_new(o, key, v) == 0;
}

json_t *annot_floor_json(const graph_info *g)
{
    json_t *o = json_object(), *runs = json_array();
    bool ok = o && runs;
    double lo = 0, hi = 0;
    int64_t clean = 0, below = 0, max_tasks = 0, max_work = 0, unordered = 0;
    for (size_t i = 0; ok && i < g->nfloor; ++i) {
        const annot_floor_run *x = &g->floor[i];
        int64_t mg = x->mg, m = x->threads;
        double ratio = (double)mg / ((double)m * (double)x->response);
        json_t *e = json_object();
        ok = e && jput(e, "run", json_integer((json_int_t)i)) &&
             jput(e, "trace", json_integer(x->trace)) && jput(e, "threads", json_integer(m)) &&
             jput(e, "response_ns", json_integer(x->response)) &&
             jput(e, "own_graham_ns", json_integer(mg / m + (mg % m != 0))) &&
             jput(e, "own_graham_m_ns", json_integer(mg)) && jput(e, "ratio", json_real(ratio)) &&
             jput(e, "work_ns", json_integer(x->work)) &&
             jput(e, "tasks", json_integer(x->tasks)) && jput(e, "clean", json_boolean(x->clean));
        if (ok && x->unordered) ok = jput(e, "unordered_edges", json_integer(x->unordered));
        ok = ok && json_array_append_new(runs, e) == 0;
        if (!ok) break;
        /* m·G < m·R exactly: the delay measurement fell short */
        if ((__int128)mg < (__int128)x->response * m) ++below;
        unordered += x->unordered;
        if (x->tasks > max_tasks) max_tasks = x->tasks;
        if (!x->clean) continue;
        if (x->work > max_work) max_work = x->work;
        if (!clean || ratio < lo) lo = ratio;
        if (!clean || ratio > hi) hi = ratio;
        ++clean;
    }
    ok = ok && jput(o, "runs", json_incref(runs)) && jput(o, "clean_runs", json_integer(clean)) &&
         jput(o, "below_one", json_integer(below)) &&
         jput(o, "max_tasks", json_integer(max_tasks)) &&
         jput(o, "max_clean_work_ns", json_integer(max_work)) &&
         jput(o, "rule", json_string("docs/probe.md#the-floor"));
    if (ok && clean)
        ok = jput(o, "min_ratio", json_real(lo)) && jput(o, "max_ratio", json_real(hi));
    if (ok && unordered) ok = jput(o, "unordered_edges", json_integer(unordered));
    if (ok && g->team_p) /* floor_of_run skips them */
        ok = jput(o, "why",
                  json_string("not computed for a team graph: a run's own DAG here "
                              "has no barrier edges between its phases"));
    json_decref(runs);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}
