/*
 * annotate/annotate_team.c — team graphs: tasks created by every thread of
 * a `parallel` region (plugin/fe_team.c, docs/plugin.md "Team graphs").
 *
 * The graph: τ1 (no code) creates, per phase, one task per thread of the
 * team of P (T nodes in thread order 1..P), and a W node between phases
 * waits for them all: the body is cut into phases at each barrier.  The
 * probe records each implicit task's segments, cut at its barriers like at
 * any scheduling point (probe.c: sync_region barrier begin ends a segment,
 * its end starts the next), and its thread number in the team
 * (OMPDAG_REC_IMPLICIT: OMPT's implicit_task index).  So the segments of
 * thread k's implicit task, in time order, split at the segments that end
 * at a barrier into the phases: phase j's segments run the code of graph
 * task phase_task[j][k], from its begin (the task's begin, or the end of
 * barrier j − 1) to barrier j, which is that task's end — its sink W node
 * when the phase created tasks it did not await (that W waits for them), or
 * its sink otherwise.  Mapped by thread number, never by OS thread.  The
 * segment after the last barrier (the region's implicit barrier) runs no
 * graph code: annotate_read.c leaves it out.
 *
 * `single` and `masked` blocks (plugin/fe_team_single.c: a C node "single
 * run by this thread?" in each thread's phase task, or the block in the
 * filter's thread alone): the probe cuts the executing thread's segments
 * where the body begins and ends, points that are no scheduling points of
 * the phase task; annot_map_chain joins the two segments at each such point
 * (annotate_map.c team_joint), so the block maps onto the C node's "runs"
 * branch in that thread, and the other threads' segments, uncut, onto
 * "skips".
 *
 * Refused by name, writing nothing: a run whose team differs from P (the
 * graph holds P implicit tasks and its bound is for m = P), an implicit
 * task with another number of barriers than the graph's phases, and a trace
 * of a probe that did not record thread numbers.
 */
#include "annotate_internal.h"

/* ---- the graph's phases -------------------------------------------------------- */

static ompdag_status bad_root(const graph_info *gi, const char *why, ompdag_error *err)
{
    ompdag_loc loc = ompdag_condag_region_loc(gi->g);
    return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                            "annotate: the team graph of the region at %s:%d: %s (τ1 must be P "
                            "implicit-task T nodes per phase, a W node between phases, as "
                            "'ompdag extract' writes it): re-extract the region",
                            loc.file ? loc.file : "?", loc.line, why);
}

/* τ1's nodes from its source, in F-order: T nodes in thread order, a W
 * node between phases; phase_task filled, team_phases counted. */
static ompdag_status walk_root(graph_info *gi, int32_t p, ompdag_error *err)
{
    const ompdag_condag *g = gi->g;
    int32_t root = ompdag_condag_root_task(g), in_phase = 0, phases = 0;
    int32_t v = ompdag_condag_task_source(g, root);
    for (int32_t steps = 0; v >= 0 && steps <= gi->n; ++steps) {
        ompdag_kind k = ompdag_condag_node_kind(g, v);
        if (k == OMPDAG_KIND_T) {
            if (in_phase == p) return bad_root(gi, "a phase has more than P T nodes", err);
            gi->phase_task[phases * p + in_phase++] = ompdag_condag_node_creates(g, v);
        } else if (k == OMPDAG_KIND_W && in_phase == p) {
            ++phases, in_phase = 0;
        } else {
            return bad_root(gi, "τ1 holds a node other than T or W, or a W node too early", err);
        }
        int32_t c;
        const int32_t *s = ompdag_condag_node_fsucc(g, v, &c);
        if (c > 1) return bad_root(gi, "τ1 branches", err);
        v = c ? s[0] : -1;
    }
    if (in_phase != p) return bad_root(gi, "the last phase has fewer than P T nodes", err);
    gi->team_phases = phases + 1;
    return OMPDAG_OK;
}

ompdag_status annot_team_prepare(graph_info *gi, int64_t team, ompdag_error *err)
{
    if (team < 1 || team > (int64_t)OMPDAG_TRACE_MAX_THREADS || team > gi->n)
        return bad_root(gi, "its key \"team\" is not a team size the graph can hold", err);
    gi->team_p = (int32_t)team;
    /* at most n T nodes in τ1: n / P phases */
    gi->phase_task = malloc(((size_t)gi->n + 1) * sizeof *gi->phase_task);
    if (!gi->phase_task) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    return walk_root(gi, gi->team_p, err);
}

/* ---- the trace's implicit tasks -------------------------------------------------- */

bool annot_team_record(trace_ctx *c, const ompdag_trace_rec *r)
{
    if (!annot_grow((void **)&c->imp, &c->imp_cap, c->nimp + 1, sizeof *c->imp)) return false;
    c->imp[c->nimp++] = (annot_implicit){
        .id = r->id, .run = r->aux, .index = (uint32_t)r->cp_start, .team = (uint32_t)r->cp_end};
    return true;
}

static int cmp_implicit(const void *x, const void *y)
{
    const annot_implicit *a = x, *b = y;
    return a->id < b->id ? -1 : a->id > b->id;
}

static int cmp_run_index(const void *x, const void *y)
{
    const annot_implicit *a = x, *b = y;
    if (a->run != b->run) return a->run < b->run ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Two implicit tasks of one run with one thread number: the phases of one
 * of them would be mapped onto the other's tasks.  The probe writes one
 * per thread; a trace that says otherwise is corrupt. */
static ompdag_status check_numbers(trace_ctx *c, ompdag_error *err)
{
    qsort(c->imp, c->nimp, sizeof *c->imp, cmp_run_index);
    for (size_t i = 1; i < c->nimp; ++i)
        if (c->imp[i].run == c->imp[i - 1].run && c->imp[i].index == c->imp[i - 1].index)
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "annotate: the trace names two implicit tasks (%llu, %llu) "
                                    "of region run %llu as thread %u of its team: a corrupt "
                                    "trace (the probe writes one per thread); take it again",
                                    (unsigned long long)c->imp[i - 1].id,
                                    (unsigned long long)c->imp[i].id,
                                    (unsigned long long)c->imp[i].run, c->imp[i].index + 1);
    return OMPDAG_OK;
}

ompdag_status annot_team_sort(trace_ctx *c, ompdag_error *err)
{
    ompdag_status st = c->nimp > 1 ? check_numbers(c, err) : OMPDAG_OK;
    if (!st && c->nimp > 1) qsort(c->imp, c->nimp, sizeof *c->imp, cmp_implicit);
    return st;
}

const annot_implicit *annot_team_of(const trace_ctx *c, uint64_t id)
{
    annot_implicit key = {.id = id};
    return c->nimp ? bsearch(&key, c->imp, c->nimp, sizeof *c->imp, cmp_implicit) : NULL;
}

size_t annot_team_barriers(const pending_seg *seg, size_t n, size_t *pos, size_t cap)
{
    size_t nb = 0;
    for (size_t i = 0; i < n; ++i)
        if (seg[i].ek == OMPDAG_PT_BARRIER) {
            if (nb < cap) pos[nb] = i;
            ++nb;
        }
    return nb;
}

/* ---- mapping one implicit task ---------------------------------------------------- */

static const char *region_name(const graph_info *gi)
{
    const char *name = ompdag_condag_name(gi->g);
    return name ? name : "?";
}

/* The implicit task's record, checked against the graph's team. */
static ompdag_status implicit_of(trace_ctx *c, const graph_info *gi, const pending_seg *seg,
                                 const annot_implicit **out, ompdag_error *err)
{
    const annot_implicit *im = annot_team_of(c, seg->id);
    if (!im)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "annotate: region %s is a team graph, but the trace does not say "
                                "which thread ran implicit task %llu (no OMPDAG_REC_IMPLICIT "
                                "record: a probe older than team graphs): run the program again "
                                "under this ompdag's probe",
                                region_name(gi), (unsigned long long)seg->id);
    if ((int64_t)im->team != gi->team_p)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "annotate: region %s ran with a team of %u threads, but its team "
                                "graph holds %d implicit tasks per phase (key \"team\"; its bound "
                                "is for m = %d): run it with %d threads, or re-extract with "
                                "--team-size %u (or num_threads(%u)) for this run",
                                region_name(gi), im->team, gi->team_p, gi->team_p, gi->team_p,
                                im->team, im->team);
    *out = im;
    return OMPDAG_OK;
}

/* Refuses an implicit task whose barriers are not the graph's phases. */
static ompdag_status check_phases(const graph_info *gi, const annot_implicit *im, size_t barriers,
                                  const pending_seg *seg, size_t n, ompdag_error *err)
{
    if (barriers == (size_t)gi->team_phases && n && seg[n - 1].ek == OMPDAG_PT_BARRIER)
        return OMPDAG_OK;
    return ompdag_error_set(
        err, OMPDAG_ERR_INVALID,
        "annotate: thread %u/%d of region %s passed %zu barrier(s)%s in one run, "
        "but its team graph has %d phase(s), each ended by a barrier: the "
        "program's barriers are not the graph's (a barrier the front end "
        "did not see, or another program); re-extract from the source the "
        "program was built from",
        im->index + 1, gi->team_p, region_name(gi), barriers,
        n && seg[n - 1].ek != OMPDAG_PT_BARRIER ? " and ran code after its last one" : "",
        gi->team_phases);
}

ompdag_status annot_team_map(trace_ctx *c, const pending_seg *seg, size_t n, ompdag_error *err)
{
    const graph_info *gi = &c->a->graphs[seg->graph];
    const annot_implicit *im = NULL;
    ompdag_status st = implicit_of(c, gi, seg, &im, err);
    if (st) return st;
    size_t nb = annot_team_barriers(seg, n, NULL, 0);
    if ((st = check_phases(gi, im, nb, seg, n, err))) return st;
    size_t from = 0;
    for (int32_t j = 0; j < gi->team_phases; ++j) {
        size_t to = from;
        while (seg[to].ek != OMPDAG_PT_BARRIER) /* check_phases: phase j ends at one */
            ++to;
        int32_t task = gi->phase_task[(size_t)j * (size_t)gi->team_p + im->index];
        size_t got = annot_map_chain(c, task, seg + from, to + 1 - from, false);
        if (got == SIZE_MAX)
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
        c->a->mapped += got;
        from = to + 1;
    }
    return OMPDAG_OK;
}

/* ---- zero-code nodes ---------------------------------------------------------------- */

static bool is_phase_task(const graph_info *g, int32_t task)
{
    for (size_t i = 0; i < (size_t)g->team_p * (size_t)g->team_phases; ++i)
        if (g->phase_task[i] == task) return true;
    return false;
}

bool annot_team_ran(const graph_info *g, const seg_class *c, int32_t v)
{
    if (!g->team_p || !is_phase_task(g, c->task)) return false;
    if (ompdag_condag_node_task(g->g, v) == ompdag_condag_root_task(g->g))
        return true; /* τ1 ran: it created this phase task */
    /* the barrier ending this phase: its sink W runs nothing after it */
    return c->ek == OMPDAG_POINT_WAIT && v == c->en && v == ompdag_condag_task_sink(g->g, c->task);
}

void annot_team_cover(const graph_info *g, const seg_class *c, uint64_t n, uint64_t *samples,
                      uint64_t *own, uint8_t *reached)
{
    if (!g->team_p) return;
    int32_t nr;
    const int32_t *root = annot_task_nodes(g, ompdag_condag_root_task(g->g), &nr);
    for (int32_t i = 0; i <= nr; ++i) {
        int32_t v = i < nr ? root[i] : c->en;
        if (v < 0 || !annot_team_ran(g, c, v)) continue;
        if (samples) samples[v] += n, own[v] += n;
        if (reached) reached[v] = 1;
    }
}
