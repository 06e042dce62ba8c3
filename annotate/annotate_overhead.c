/*
 * annotate/annotate_overhead.c — the OpenMP runtime's own costs between
 * task segments, measured from the same traces as the WCETs (issue 12), and
 * interference seen by the OS.  The model and its proof are
 * docs/overheads.md (Graham 1966 with dispatch delays; include/ompdag/overhead.h).
 *
 * Graham's argument charges every instant of a response either to the volume
 * (every thread runs graph code: the instant is *full*) or to the critical
 * chain.  A runtime breaks it where the chain's next node is ready but not
 * started while some thread is not running graph code: a created task not yet
 * picked up, a taskwait not yet woken.  Per region run we therefore compute
 * the *full* intervals (every thread of the team inside a segment of the root
 * or an explicit task) and measure, for each
 *
 *   task start:  ready = its creation (TASK_CREATE time = the creator's
 *                segment end), or for a task with dependences the later
 *                completion of the last predecessor the runtime made it wait
 *                for (OMPDAG_REC_DEP_PAIR), start = its first segment's start;
 *   wake-up:     ready = max(the wait's begin, the end of every child created
 *                since the task's previous wait — every descendant of them for
 *                a taskgroup), start = the segment after the wait;
 *   continuation: ready = the end of the creator's segment at a `task`
 *                directive (the T node completes), start = the start of the
 *                creator's next segment (the node after the T node); for an
 *                undeferred child, ready is its end if later (the creator
 *                waits for it, modelled as a W node after the T node).  libomp
 *                14 switches X -> parent -> X at each creation of an untied
 *                task: the creator resumes up to tens of µs late;
 *
 * the non-full part of [ready, start).  A segment's start is end − own time:
 * exact unless the segment was suspended, and then later than the real start,
 * so the measured delay only grows; suspended segments never count as busy.
 * The maxima over clean runs (over interfered ones only when no run is
 * clean: preemption is the OS's cost, not the runtime's) become start_delay,
 * wake_delay and cont_delay of overhead.h.  The region's
 * fork (parallel begin -> root begin; the first region of a trace, cold,
 * apart) and join (last task end -> parallel end) are measured for the
 * report.
 *
 * Interference: OMPDAG_REC_SCHED records give each thread's involuntary
 * context switches, run-queue delay and CPU at its implicit task's begin and
 * end; a run whose thread was preempted, waited more than
 * ANNOT_RUNQ_DELAY_NS on the run queue, or changed CPU is *interfered*.
 */
#include "annotate_internal.h"
#include <assert.h>

/* ---- interference ------------------------------------------------------------ */

static bool grew(uint64_t before, uint64_t after, uint64_t by)
{
    return before != UINT64_MAX && after != UINT64_MAX && after > before && after - before > by;
}

void annot_sched_record(region_run *run, const ompdag_trace_rec *r)
{
    if (r->flags == 0) {
        if (run->nsched < ANNOT_MAX_SCHED)
            run->sched[run->nsched++] =
                (sched_begin){r->thread, r->dur, r->cp_start, r->cp_end, r->time, false};
        return;
    }
    for (int32_t i = 0; i < run->nsched; ++i) {
        const sched_begin *b = &run->sched[i];
        if (b->thread != r->thread) continue;
        if (grew(b->nivcsw, r->cp_start, 0) || grew(b->delay, r->dur, ANNOT_RUNQ_DELAY_NS) ||
            (b->cpu != UINT64_MAX && r->cp_end != UINT64_MAX && b->cpu != r->cp_end))
            run->interfered = true;
        return;
    }
}

/* ---- team formation ---------------------------------------------------------- */

/* A thread can take tasks from its implicit task's first scheduling point on
 * (the barrier or the `single`/`masked` body it reaches first): the end of
 * that implicit task's first segment.  A thread writes its OMPDAG_REC_SCHED
 * begin record before any segment, so its entry is there already.  In a
 * team graph a single/masked begin or end is no scheduling point (the
 * probe's cut there joins two pieces of one segment, annotate_map.c
 * team_joint): the first segment goes on to the piece after it. */
void annot_arrival_record(region_run *run, const ompdag_trace_rec *r, bool team)
{
    bool first = r->start_kind == OMPDAG_PT_TASK_BEGIN && !(r->flags & OMPDAG_RECF_ROOT);
    bool goes_on =
        team && (r->start_kind == OMPDAG_PT_ROOT_BEGIN || r->start_kind == OMPDAG_PT_ROOT_END);
    if (!(r->flags & OMPDAG_RECF_IMPLICIT) || (!first && !goes_on)) return;
    for (int32_t i = 0; i < run->nsched; ++i) {
        sched_begin *b = &run->sched[i];
        if (b->thread != r->thread) continue;
        if (first || b->arrive_open) {
            b->arrive = r->time;
            b->arrive_open =
                team && (r->end_kind == OMPDAG_PT_ROOT_BEGIN || r->end_kind == OMPDAG_PT_ROOT_END);
        }
        return;
    }
}

/* The run's late threads: the arrival times after the root began, sorted,
 * into late[] (room for ANNOT_MAX_SCHED).  Only threads whose arrival the
 * trace shows count (one never seen stays "present" from the start: its idle
 * time stays in the delays, as without this step); at most team − 1 of them,
 * since the root's own thread is there when the root begins. */
static size_t late_threads(const region_run *run, int32_t team, uint64_t *late)
{
    size_t n = 0;
    if (!run || !run->tasks_begin) return 0;
    for (int32_t i = 0; i < run->nsched && (int32_t)n + 1 < team; ++i) {
        uint64_t at = run->sched[i].arrive;
        if (at <= run->tasks_begin) continue;
        size_t k = n++; /* insertion sort: at most ANNOT_MAX_SCHED - 1 entries */
        for (; k > 0 && late[k - 1] > at; --k)
            late[k] = late[k - 1];
        late[k] = at;
    }
    return n;
}

/* ---- full intervals ---------------------------------------------------------- */

/* Disjoint, sorted intervals [lo, hi) when every thread of the team runs
 * graph code, with cum[i] = total length of intervals 0..i-1. */
typedef struct full_set {
    uint64_t *lo, *hi, *cum;
    size_t n;
} full_set;

static void full_free(full_set *f)
{
    free(f->lo), free(f->hi), free(f->cum);
    memset(f, 0, sizeof *f);
}

/* The full intervals of one run's segments: starts and ends sorted apart,
 * then swept together, a start before an end at the same instant
 * (back-to-back segments leave no gap).  A thread that joins the team late
 * (late[0..nlate), sorted arrival times) is not asked to be busy before it
 * arrives: an instant is full when every thread present runs graph code, and
 * the time absent threads idle is team formation, charged apart.  The
 * intervals are written over the consumed part of the sorted arrays (a
 * trace of 10^6 tasks spent more time faulting in fresh arrays than
 * sweeping): interval k opens at a start event, after at least k + 1 starts
 * were read, so lo[k] lands on a slot the sweep has passed; it closes at an
 * end or an arrival, and the k closes before it each read one of those, so
 * the ends are kept from slot nlate on and hi[k] lands on a free or passed
 * slot too. */
static bool full_build(const pending_seg *seg, size_t n, int32_t team, const uint64_t *late,
                       size_t nlate, full_set *f)
{
    uint64_t *st = annot_alloc_big((n + 1) * sizeof *st),
             *hi = annot_alloc_big((n + nlate + 1) * sizeof *hi), *en = hi ? hi + nlate : NULL,
             *scratch = annot_alloc_big((n + 1) * sizeof *scratch);
    f->lo = st, f->hi = hi;
    size_t ne = 0;
    bool ok = st && hi && scratch;
    for (size_t i = 0; ok && i < n; ++i)
        if (!(seg[i].flags & OMPDAG_RECF_SUSPENDED) && seg[i].dur <= seg[i].time) {
            st[ne] = seg[i].time - seg[i].dur;
            en[ne++] = seg[i].time;
        }
    ok = ok && annot_sort_u64_with(st, ne, scratch) && annot_sort_u64_with(en, ne, scratch);
    free(scratch);
    int32_t busy = 0, need = team - (int32_t)nlate;
    uint64_t open = 0;
    f->n = 0;
    for (size_t i = 0, j = 0, k = 0; ok && (i < ne || j < ne);) {
        bool was = busy >= need;
        uint64_t t;
        if (k < nlate && (i == ne || late[k] < st[i]) && (j == ne || late[k] <= en[j])) {
            t = late[k++]; /* a thread arrives: one more must be busy from now on */
            ++need;
        } else if (i < ne && (j == ne || st[i] <= en[j])) {
            t = st[i++];
            ++busy;
        } else {
            t = en[j++];
            --busy;
        }
        bool is = busy >= need;
        if (!was && is) open = t;
        if (was && !is && t > open) {
            assert(f->n < j + nlate && f->n < i); /* only free or consumed slots */
            f->lo[f->n] = open;
            f->hi[f->n] = t;
            ++f->n;
        }
    }
    /* cum once the intervals are known: there are far fewer than segments */
    f->cum = ok ? annot_alloc_big((f->n + 1) * sizeof *f->cum) : NULL;
    if (!f->cum) return false;
    f->cum[0] = 0;
    for (size_t k = 0; k < f->n; ++k)
        f->cum[k + 1] = f->cum[k] + (f->hi[k] - f->lo[k]);
    return true;
}

/* First interval index whose hi > t. */
static size_t full_after(const full_set *f, uint64_t t)
{
    size_t lo = 0, hi = f->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->hi[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The part of [a, b) when NOT every thread ran graph code. */
static int64_t nonfull(const full_set *f, uint64_t a, uint64_t b)
{
    if (b <= a) return 0;
    size_t i = full_after(f, a), j = full_after(f, b);
    if (j < f->n && f->lo[j] < b) ++j; /* j: first interval starting at or after b */
    uint64_t full = 0;
    if (i < j) {
        full = f->cum[j] - f->cum[i];
        if (f->lo[i] < a) full -= a - f->lo[i];
        if (f->hi[j - 1] > b) full -= f->hi[j - 1] - b;
    }
    return (int64_t)((b - a) - full);
}

/* The run's team formation F = Σ_j |[0, min(a_j, R)) ∩ full|: for each late
 * thread, the part of the time from the root's begin to its arrival (or the
 * run's end, if earlier) when every thread present ran graph code.  Those
 * are the instants at which an absent thread idles that neither the delays
 * (non-full instants) nor the chain's running parts (at most m − 1 idle
 * threads, absent ones included) pay for (docs/overheads.md). */
static int64_t formation(const full_set *f, const region_run *run, const uint64_t *late,
                         size_t nlate)
{
    int64_t sum = 0;
    for (size_t k = 0; k < nlate; ++k) {
        uint64_t to = late[k] < run->tasks_end ? late[k] : run->tasks_end;
        if (to > run->tasks_begin)
            sum += (int64_t)(to - run->tasks_begin) - nonfull(f, run->tasks_begin, to);
    }
    return sum;
}

/* ---- tasks of one run ---------------------------------------------------------- */

typedef struct run_task {
    uint64_t id, parent, created, end; /* end 0: not seen */
    bool undeferred;                   /* the creator waited for it at the directive */
} run_task;

static int cmp_by_parent(const void *x, const void *y)
{
    const run_task *a = x, *b = y;
    if (a->parent != b->parent) return a->parent < b->parent ? -1 : 1;
    return a->created < b->created ? -1 : a->created > b->created;
}

static uint64_t by_parent_key(const void *rec, int k)
{
    const run_task *t = rec;
    return k == 0 ? t->parent : t->created;
}

/* Sorted by (parent, created); index of the first child of `parent`. */
static size_t first_child(const run_task *t, size_t n, uint64_t parent)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t[mid].parent < parent)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first child of `parent` created at or after `created`: a task with
 * 10^6 children (a compact loop's) must not scan them all per event. */
static size_t first_child_from(const run_task *t, size_t n, uint64_t parent, uint64_t created)
{
    size_t lo = first_child(t, n, parent), hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t[mid].parent == parent && t[mid].created < created)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct run_ctx {
    trace_ctx *c;
    graph_info *g;
    i64vec *start, *wake, *cont; /* where this run's samples go (clean or interfered) */
    const pending_seg *seg;
    size_t n;
    full_set full;
    run_task *kids; /* explicit tasks of the run, by (parent, created) */
    size_t nkids;
    uint64_t *stack;
} run_ctx;

/* When the wait of task `id` that began at `wait_begin` could return: the
 * latest end of the children created in (since, wait_begin] — and of all
 * their descendants for a taskgroup — that ended before `start` (a task the
 * wait did not outlast was not awaited).  false when an awaited task has no
 * end in the trace. */
static bool wait_ready(run_ctx *r, uint64_t id, uint64_t since, uint64_t wait_begin, uint64_t start,
                       bool group, uint64_t *ready)
{
    *ready = wait_begin;
    size_t top = 0;
    r->stack[top++] = id;
    bool first = true;
    while (top > 0) {
        uint64_t p = r->stack[--top];
        size_t k0 = first ? first_child_from(r->kids, r->nkids, p, since + 1)
                          : first_child(r->kids, r->nkids, p);
        for (size_t k = k0; k < r->nkids && r->kids[k].parent == p; ++k) {
            const run_task *t = &r->kids[k];
            if (first && t->created > wait_begin) break; /* sorted by creation */
            if (first && t->created <= since) continue;
            if (!t->end) return false;
            if (t->end > start) continue;
            if (t->end > *ready) *ready = t->end;
            if (group && top < r->nkids) r->stack[top++] = t->id;
        }
        first = false;
    }
    return true;
}

/* When the creator's continuation after the `task` directive that ended its
 * segment at `created` was ready: then, or when an undeferred child created
 * there ended (the creator ran or awaited it; the graph has a W node there),
 * if that is before the continuation's start. */
static uint64_t continuation_ready(const run_ctx *r, uint64_t id, uint64_t created, uint64_t start)
{
    uint64_t ready = created;
    for (size_t k = first_child_from(r->kids, r->nkids, id, created);
         k < r->nkids && r->kids[k].parent == id && r->kids[k].created == created; ++k) {
        const run_task *t = &r->kids[k];
        if (t->undeferred && t->end && t->end <= start && t->end > ready) ready = t->end;
    }
    return ready;
}

/* Pushes one delay sample before segment s; a clean run's also goes to the
 * per-instance delays of the input's DAG (annotate_input.c). */
static bool sample(run_ctx *r, i64vec *into, const pending_seg *s, int kind, int64_t value)
{
    bool clean =
        into == &r->g->start_delay || into == &r->g->wake_delay || into == &r->g->cont_delay;
    return annot_i64vec_push(into, value) && (!clean || annot_input_delay(r->c, s, kind, value));
}

/* Continuation samples: segment k starts right after a `task` directive that
 * ended segment k - 1 of the same task instance. */
static bool continuation_samples(run_ctx *r, const pending_seg *seg, size_t n)
{
    for (size_t k = 1; k < n; ++k) {
        if (seg[k].sk != OMPDAG_PT_CREATE || seg[k - 1].ek != OMPDAG_PT_CREATE ||
            seg[k].dur > seg[k].time)
            continue;
        uint64_t start = seg[k].time - seg[k].dur;
        if (start < seg[k - 1].time) continue;
        uint64_t ready = continuation_ready(r, seg[k].id, seg[k - 1].time, start);
        if (!sample(r, r->cont, &seg[k], 2, nonfull(&r->full, ready, start))) return false;
    }
    return true;
}

/* Samples of one task instance's segments seg[0..n) (time order). */
static bool task_samples(run_ctx *r, const pending_seg *seg, size_t n)
{
    trace_ctx *c = r->c;
    if (!(seg[0].flags & OMPDAG_RECF_IMPLICIT) && seg[0].sk == OMPDAG_PT_TASK_BEGIN &&
        c->tasks_cap) {
        const task_entry *e = annot_task_find(c, seg[0].id);
        uint64_t start = seg[0].time - seg[0].dur;
        /* ready: created, and its runtime predecessors done (annotate_depend.c) */
        uint64_t ready = e ? (e->dep_ready > e->time ? e->dep_ready : e->time) : 0;
        if (e && seg[0].dur <= seg[0].time && start >= ready &&
            !sample(r, r->start, &seg[0], 0, nonfull(&r->full, ready, start)))
            return false;
    }
    uint64_t since = 0;
    for (size_t k = 1; k < n; ++k) {
        uint8_t sk = seg[k].sk;
        if ((sk != OMPDAG_PT_TASKWAIT && sk != OMPDAG_PT_TASKGROUP) || seg[k - 1].ek != sk ||
            seg[k].dur > seg[k].time)
            continue;
        uint64_t wait_begin = seg[k - 1].time, start = seg[k].time - seg[k].dur, ready;
        if (start >= wait_begin &&
            wait_ready(r, seg[k].id, since, wait_begin, start, sk == OMPDAG_PT_TASKGROUP, &ready) &&
            !sample(r, r->wake, &seg[k], 1, nonfull(&r->full, ready, start)))
            return false;
        since = wait_begin;
    }
    return continuation_samples(r, seg, n);
}

/* ---- team graphs: the starts of the phase tasks ------------------------------- */

/* The run's implicit tasks (segment groups) and, per task, the positions of
 * its segments that end at the team graph's barriers (annotate_team.c):
 * false when one has another number of barriers than the graph's phases
 * (the mapping refuses that run) or memory runs out. */
static bool team_threads(const run_ctx *r, size_t *first, size_t *pos, size_t *count)
{
    size_t phases = (size_t)r->g->team_phases, cap = (size_t)r->g->team_p, nt = 0;
    for (size_t i = 0, j; i < r->n; i = j) {
        for (j = i + 1; j < r->n && r->seg[j].id == r->seg[i].id; ++j)
            ;
        if (!(r->seg[i].flags & OMPDAG_RECF_IMPLICIT)) continue;
        if (nt == cap ||
            annot_team_barriers(&r->seg[i], j - i, pos + nt * phases, phases) != phases)
            return false;
        first[nt++] = i;
    }
    *count = nt;
    return true;
}

/* When τ1's W node after barrier b is ready: every thread reached the
 * barrier and every task an implicit task created in that phase ended (the
 * phase tasks' sinks, docs/plugin.md "Team graphs").  Only children that
 * ended before the first thread left the barrier count, so this is never
 * later than the model's ready time, and the samples are never smaller.
 * false: a child has no end in the trace. */
static bool barrier_ready(run_ctx *r, const size_t *first, const size_t *pos, size_t nt, size_t b,
                          uint64_t *ready)
{
    size_t phases = (size_t)r->g->team_phases;
    uint64_t leave = UINT64_MAX;
    *ready = 0;
    for (size_t t = 0; t < nt; ++t) {
        const pending_seg *at = &r->seg[first[t] + pos[t * phases + b]], *next = at + 1;
        if (at->time > *ready) *ready = at->time;
        if (next->dur <= next->time && next->time - next->dur < leave)
            leave = next->time - next->dur;
    }
    for (size_t t = 0; t < nt; ++t) {
        const pending_seg *at = &r->seg[first[t] + pos[t * phases + b]];
        uint64_t since = b ? r->seg[first[t] + pos[t * phases + b - 1]].time : 0, kids;
        if (!wait_ready(r, at->id, since, at->time, leave, false, &kids)) return false;
        if (kids > *ready) *ready = kids;
    }
    return true;
}

/* Start samples of a team graph's phase tasks after a barrier: the source
 * of thread k's phase b + 2 is ready when τ1's W node after barrier b is
 * (barrier_ready), and starts when thread k's segment after the barrier
 * starts.  They join the start delays of explicit tasks: each is the source
 * of a task other than the root (docs/overheads.md, the table of D(v)).
 * Phase 1 is team_lateness's. */
static bool team_samples(run_ctx *r, const region_run *run)
{
    const graph_info *g = r->g;
    if (!g->team_p || !run || !run->tasks_begin) return true;
    size_t phases = (size_t)g->team_phases, cap = (size_t)g->team_p, nt = 0;
    size_t *first = malloc(cap * sizeof *first), *pos = malloc(cap * phases * sizeof *pos);
    bool ok = first && pos;
    if (ok && team_threads(r, first, pos, &nt)) {
        uint64_t ready;
        for (size_t b = 0; ok && b + 1 < phases && barrier_ready(r, first, pos, nt, b, &ready); ++b)
            for (size_t t = 0; ok && t < nt; ++t) {
                const pending_seg *next = &r->seg[first[t] + pos[t * phases + b] + 1];
                if (next->sk == OMPDAG_PT_BARRIER && next->dur <= next->time &&
                    next->time - next->dur >= ready)
                    ok = sample(r, r->start, next, 0,
                                nonfull(&r->full, ready, next->time - next->dur));
            }
    }
    free(first);
    free(pos);
    return ok;
}

/* A team graph's phase-1 sources are ready when τ1 begins (the run's first
 * implicit task begins, run->tasks_begin) and start with their thread's
 * first segment: L = the largest non-full part of that wait over the
 * threads.  Every critical chain starts at τ1's source and passes at most
 * one phase-1 source, so L is charged once, on τ1's source, like team
 * formation: the run's formation sample grows by m0·L, which puts
 * ⌈(F + m0·L) / m0⌉ ≥ F / m0 + L there (docs/probe.md "Team graphs").
 * Charged as a start delay of every source instead, a cold region's late
 * thread (tens of µs) was charged on every task of the chain. */
static int64_t team_lateness(const run_ctx *r, const region_run *run)
{
    int64_t late = 0;
    if (!r->g->team_p || !run || !run->tasks_begin) return 0;
    for (size_t i = 0; i < r->n; ++i) {
        const pending_seg *s = &r->seg[i];
        if (!(s->flags & OMPDAG_RECF_IMPLICIT) || s->sk != OMPDAG_PT_TASK_BEGIN ||
            s->dur > s->time || s->time - s->dur < run->tasks_begin)
            continue;
        int64_t x = nonfull(&r->full, run->tasks_begin, s->time - s->dur);
        late = x > late ? x : late;
    }
    return late;
}

/* The run's formation sample: F, plus m0·L for a team graph (team_lateness);
 * false when it does not fit in int64. */
static bool formation_sample(const run_ctx *r, const region_run *run, const uint64_t *late,
                             size_t nlate, int32_t team, int64_t *out)
{
    int64_t charge;
    return !__builtin_mul_overflow(team_lateness(r, run), (int64_t)team, &charge) &&
           !__builtin_add_overflow(formation(&r->full, run, late, nlate), charge, out);
}

static ompdag_status run_samples(run_ctx *r, ompdag_error *err)
{
    const pending_seg *seg = r->seg;
    size_t n = r->n;
    /* explicit tasks: parent and creation from the task table, end from the
     * segment that ends the task */
    r->kids = annot_alloc_big((n + 1) * sizeof *r->kids);
    r->stack = annot_alloc_big((n + 2) * sizeof *r->stack);
    if (!r->kids || !r->stack) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    r->nkids = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && seg[j].id == seg[i].id; ++j)
            ;
        if ((seg[i].flags & OMPDAG_RECF_IMPLICIT) || seg[i].created == UINT64_MAX) continue;
        const task_entry *e = annot_task_find(r->c, seg[i].id); /* there: created is known */
        uint64_t end = seg[j - 1].ek == OMPDAG_PT_TASK_END ? seg[j - 1].time : 0;
        r->kids[r->nkids++] = (run_task){seg[i].id, e ? e->parent : 0, seg[i].created, end,
                                         (seg[i].flags & OMPDAG_RECF_UNDEFERRED) != 0};
    }
    /* out of place when there is room: several times faster on 10^6 tasks */
    run_task *sorted = annot_alloc_big((r->nkids + 1) * sizeof *sorted);
    if (!annot_sort_records_to(r->kids, sorted, r->nkids, sizeof *r->kids, 2, by_parent_key,
                               cmp_by_parent)) {
        free(sorted);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    if (sorted) {
        free(r->kids);
        r->kids = sorted;
    }
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && seg[j].id == seg[i].id; ++j)
            ;
        if (!task_samples(r, &seg[i], j - i))
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    return OMPDAG_OK;
}

/* ---- per trace ---------------------------------------------------------------- */

static int cmp_run_ptr(const void *x, const void *y)
{
    const region_run *a = *(const region_run *const *)x, *b = *(const region_run *const *)y;
    return a->id < b->id ? -1 : a->id > b->id;
}

const region_run **annot_runs_by_id(const trace_ctx *c)
{
    const region_run **byid = malloc((c->nruns + 1) * sizeof *byid);
    if (!byid) return NULL;
    for (size_t i = 0; i < c->nruns; ++i)
        byid[i] = &c->runs[i];
    qsort(byid, c->nruns, sizeof *byid, cmp_run_ptr);
    return byid;
}

const region_run *annot_find_run(const region_run *const *sorted, size_t n, uint64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid]->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && sorted[lo]->id == id ? sorted[lo] : NULL;
}

/* Fork and join of each run; the earliest run of the trace is the cold one. */
static ompdag_status fork_join(trace_ctx *c, ompdag_error *err)
{
    const region_run *cold = NULL;
    for (size_t i = 0; i < c->nruns; ++i)
        if (c->runs[i].begin && (!cold || c->runs[i].begin < cold->begin)) cold = &c->runs[i];
    for (size_t i = 0; i < c->nruns; ++i) {
        const region_run *run = &c->runs[i];
        graph_info *g = &c->a->graphs[run->graph];
        bool ok = true;
        if (run->begin && run->tasks_begin >= run->begin)
            ok = annot_i64vec_push(run == cold ? &g->fork_cold : &g->fork_warm,
                                   (int64_t)(run->tasks_begin - run->begin));
        if (ok && run->tasks_end && run->end >= run->tasks_end)
            ok = annot_i64vec_push(&g->join, (int64_t)(run->end - run->tasks_end));
        if (!ok) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    }
    return OMPDAG_OK;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

bool annot_run_interfered(const trace_ctx *c, uint64_t run)
{
    return c->ninterfered &&
           bsearch(&run, c->interfered_runs, c->ninterfered, sizeof run, cmp_u64) != NULL;
}

ompdag_status annot_interfered_runs(trace_ctx *c, ompdag_error *err)
{
    c->interfered_runs = malloc((c->nruns + 1) * sizeof *c->interfered_runs);
    if (!c->interfered_runs) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < c->nruns; ++i)
        if (c->runs[i].interfered) c->interfered_runs[c->ninterfered++] = c->runs[i].id;
    qsort(c->interfered_runs, c->ninterfered, sizeof *c->interfered_runs, cmp_u64);
    return OMPDAG_OK;
}

ompdag_status annot_overhead_collect(trace_ctx *c, ompdag_error *err)
{
    /* c->pend is sorted by (run, created, id, time): annot_sort_pending */
    const region_run **byid = annot_runs_by_id(c);
    if (!byid) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    ompdag_status st = OMPDAG_OK;
    for (size_t i = 0, j; i < c->npend && !st; i = j) {
        for (j = i + 1; j < c->npend && c->pend[j].run == c->pend[i].run; ++j)
            ;
        const region_run *run = annot_find_run(byid, c->nruns, c->pend[i].run);
        graph_info *g = &c->a->graphs[c->pend[i].graph];
        /* the team: threads that ran its segments or reported their OS
         * counters, or the threads asked for, whichever is more */
        int32_t team = run ? __builtin_popcountll(run->thread_mask) : 1;
        if (run && run->nsched > team) team = run->nsched;
        if (run && (int64_t)run->requested > team && run->requested < INT32_MAX)
            team = (int32_t)run->requested;
        if (team < 1) team = 1;
        if (team > g->team) g->team = team;
        bool intf = run && run->interfered;
        run_ctx r = {.c = c,
                     .g = g,
                     .start = intf ? &g->start_delay_if : &g->start_delay,
                     .wake = intf ? &g->wake_delay_if : &g->wake_delay,
                     .cont = intf ? &g->cont_delay_if : &g->cont_delay,
                     .seg = &c->pend[i],
                     .n = j - i};
        uint64_t late[ANNOT_MAX_SCHED];
        size_t nlate = late_threads(run, team, late);
        int64_t f = 0;
        bool timed = run && run->tasks_begin && run->tasks_end > run->tasks_begin;
        if (!full_build(r.seg, r.n, team, late, nlate, &r.full) ||
            (timed && formation_sample(&r, run, late, nlate, team, &f) &&
             !annot_i64vec_push(intf ? &g->formation_if : &g->formation, f)))
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        else if (timed && !formation_sample(&r, run, late, nlate, team, &f))
            st = ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                  "annotate: the team formation of region run %llu overflows "
                                  "int64 ns: is the trace damaged?",
                                  (unsigned long long)run->id);
        else
            st = run_samples(&r, err);
        if (!st && !team_samples(&r, run))
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        full_free(&r.full);
        free(r.kids);
        free(r.stack);
    }
    free(byid);
    return st ? st : fork_join(c, err);
}

/* ---- for annotate_floor.c ---------------------------------------------------- */

struct full_set *annot_full_new(const pending_seg *seg, size_t n, int32_t team)
{
    full_set *f = calloc(1, sizeof *f);
    if (f && !full_build(seg, n, team, NULL, 0, f)) {
        full_free(f);
        free(f);
        return NULL;
    }
    return f;
}

int64_t annot_nonfull(const struct full_set *f, uint64_t a, uint64_t b)
{
    return nonfull(f, a, b);
}

void annot_full_delete(struct full_set *f)
{
    if (f) full_free(f);
    free(f);
}
