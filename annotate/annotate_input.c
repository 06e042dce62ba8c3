/*
 * annotate/annotate_input.c — the input's DAG, recorded from the traces
 * (issue 23 items 4 and 5; docs/probe.md#input).  The idea is the record and
 * replay of the OpenMP `taskgraph` proposal (Yu, Royuela and Quiñones,
 * "Taskgraph: a low contention OpenMP tasking framework", Euro-Par 2022): one
 * input gives one task structure, so the task instances a run creates can be
 * recorded and bounded instead of every structure the code allows.
 *
 * In a plain graph (and in a compact one expanded before annotate, `annotate
 * --per-instance`), every node is one code segment of one task instance, and
 * annotate already maps every measured segment to a class whose paths are
 * nodes of that instance (annotate_internal.h).  Here:
 *
 *   1. every class counts the runs that reached it, and every graph the runs
 *      that mapped a segment; the runs share one task structure iff every
 *      class reached by one run is reached by all (and no segment of the
 *      graph failed to map).  The first difference is named;
 *   2. the input's nodes are the union of the reached classes' paths: the
 *      branches no run took and the tasks no run created are pruned;
 *   3. dispatch delays are kept per node (the instance), as maxima over the
 *      clean runs: a start delay at the source of the task instance, a wake
 *      delay at the W node where the wait returned, a continuation delay at
 *      the F-successors of the T node whose directive ended the segment
 *      before.  A node with no sample of its own keeps the graph's value of
 *      that class (the maximum over all instances), so nothing is assumed 0.
 *
 * WCETs: in a plain graph the classes are per instance already, but a node
 * also takes the classes of other instances at its code location for the
 * paths its own instance never took (annotate_compact.c's twins: the
 * all-inputs bound needs them).  With the structure fixed those paths are
 * not taken, so the input's WCET of a node sums, per group, the maximum of
 * the classes the runs reached only ("wcets", where it differs).  The result
 * is the graph extra "input" that report turns into `input_bound_ns`
 * (report_input.c).
 * The claim is "the task structure of these runs": a run of the same input
 * whose structure differs would not be covered, and annotate refuses to
 * record when the given runs already differ.
 */
#include "annotate_internal.h"

#include <assert.h>

#include "ompdag/compact.h"
#include "ompdag/overhead.h"

/* Delay kinds, as ompdag_overheads' fields. */
enum { IN_START, IN_WAKE, IN_CONT, IN_KINDS };

void annot_input_hit(trace_ctx *c, seg_class *k, size_t seg_index, int64_t dur, bool clean)
{
    const pending_seg *r = &c->pend[seg_index];
    uint64_t trace = c->a->traces + 1;
    graph_info *g = &c->a->graphs[r->graph];
    if (k->hit_trace != trace || k->hit_run != r->run) {
        k->hit_trace = trace, k->hit_run = r->run;
        ++k->hit_runs;
    }
    if (g->input_trace != trace || g->input_run != r->run) {
        g->input_trace = trace, g->input_run = r->run;
        ++g->input_runs;
    }
    if (c->class_of) c->class_of[seg_index] = (uint32_t)(k - c->a->classes) + 1;
    /* a clean run's sample, for the WCET budget (annotate_input_budget.c) */
    ompdag_annotation *a = c->a;
    if (ompdag_compact_is_compact(g->g) || !clean) return;
    if (annot_grow((void **)&a->wsamp, &a->wsamp_cap, a->nwsamp + 1, sizeof *a->wsamp))
        a->wsamp[a->nwsamp++] =
            (annot_wsample){(uint32_t)(k - a->classes), (uint32_t)a->traces, r->run, dur};
    else
        a->wsamp_lost = true;
}

bool annot_input_delay(trace_ctx *c, const pending_seg *s, int kind, int64_t value)
{
    if (!annot_grow((void **)&c->devents, &c->devents_cap, c->ndevents + 1, sizeof *c->devents))
        return false;
    c->devents[c->ndevents++] = (annot_delay_event){(size_t)(s - c->pend), (uint8_t)kind, value};
    return true;
}

/* The per-node maxima of graph g, created on first use (-1: no sample). */
static int64_t *node_delays(graph_info *g)
{
    if (g->inst_delay) return g->inst_delay;
    size_t n = (size_t)g->n * IN_KINDS + 1;
    g->inst_delay = malloc(n * sizeof *g->inst_delay);
    for (size_t i = 0; g->inst_delay && i < n; ++i)
        g->inst_delay[i] = -1;
    return g->inst_delay;
}

/* Node v's delay of kind `kind` in the current trace's run `run`: its
 * maximum, and the record for the median model. */
static bool note(trace_ctx *c, graph_info *g, int32_t v, int kind, uint64_t run, int64_t value)
{
    int64_t *slot = &g->inst_delay[(size_t)v * IN_KINDS + (size_t)kind];
    if (value > *slot) *slot = value;
    if (!annot_grow((void **)&g->ndel, &g->ndel_cap, g->nndel + 1, sizeof *g->ndel)) return false;
    g->ndel[g->nndel++] = (annot_node_delay){v, (uint8_t)kind, (uint32_t)c->a->traces, run, value};
    return true;
}

ompdag_status annot_input_resolve(trace_ctx *c, ompdag_error *err)
{
    for (size_t i = 0; i < c->ndevents; ++i) {
        const annot_delay_event *e = &c->devents[i];
        uint32_t k = c->class_of ? c->class_of[e->seg] : 0;
        if (!k) continue; /* the segment did not map: the graph keeps its class value */
        const seg_class *cl = &c->a->classes[k - 1];
        graph_info *g = &c->a->graphs[cl->graph];
        uint64_t run = c->pend[e->seg].run;
        bool ok = node_delays(g) != NULL;
        if (ok && e->kind == IN_START && cl->sk == OMPDAG_POINT_BEGIN) {
            ok = note(c, g, ompdag_condag_task_source(g->g, cl->task), IN_START, run, e->value);
        } else if (ok && e->kind == IN_WAKE && cl->sk == OMPDAG_POINT_WAIT) {
            ok = note(c, g, cl->sn, IN_WAKE, run, e->value);
        } else if (ok && e->kind == IN_CONT && cl->sk == OMPDAG_POINT_CREATE) {
            int32_t cnt;
            const int32_t *s = ompdag_condag_node_fsucc(g->g, cl->sn, &cnt);
            for (int32_t j = 0; j < cnt && ok; ++j)
                ok = note(c, g, s[j], IN_CONT, run, e->value);
        }
        if (!ok) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    }
    c->ndevents = 0;
    return OMPDAG_OK;
}

/* ---- the runtime the runs used (docs/tied.md §4b) ------------------------------ */

/* "runtime": {"version", "throttling", "tasking"}, or NULL when some trace did
 * not say (an older probe): report then assumes nothing of the runtime. */
static json_t *runtime_json(const ompdag_annotation *a)
{
    if (!a->traces || a->rt_traces != a->traces) return NULL;
    char name[sizeof a->rt_name + 1] = {0};
    memcpy(name, &a->rt_name, sizeof a->rt_name);
    for (size_t i = 0; name[i]; ++i) /* a name for JSON: printable ASCII only */
        if (name[i] < 0x20 || name[i] > 0x7e) name[i] = '?';
    return json_pack("{s:s,s:b,s:b}", "version", a->rt_mixed ? "mixed" : name, "throttling",
                     a->rt_unthrottled != a->traces, "tasking", !a->rt_tasking_set);
}

/* ---- the graph extra "input" --------------------------------------------------- */

static json_t *not_recorded(const char *why, uint64_t runs)
{
    return json_pack("{s:b,s:s,s:I}", "recorded", 0, "why", why, "runs", (json_int_t)runs);
}

/* The first class some run did not reach, as a sentence; NULL when every
 * reached class was reached by every run. */
static json_t *first_difference(const ompdag_annotation *a, size_t graph, const graph_info *g)
{
    const seg_class *worst = NULL;
    for (size_t i = 0; i < a->nclasses; ++i) {
        const seg_class *k = &a->classes[i];
        if (k->graph != graph || !k->hit_runs || k->hit_runs == g->input_runs) continue;
        if (!worst || k->hit_runs < worst->hit_runs) worst = k;
    }
    if (!worst) return NULL;
    char place[300], why[600];
    ompdag_condag_node_place(g->g, worst->charged, place, sizeof place);
    snprintf(why, sizeof why,
             "the runs do not share one task structure: node %s (%s) ran in %llu of %llu runs "
             "(data-dependent branches or task counts); record one input per annotation",
             ompdag_condag_node_id(g->g, worst->charged), place,
             (unsigned long long)worst->hit_runs, (unsigned long long)g->input_runs);
    return not_recorded(why, g->input_runs);
}

/* reached[v] = 1 for the nodes on some reached class's paths. */
static bool mark_reached(const ompdag_annotation *a, size_t graph, uint8_t *reached)
{
    const graph_info *g = &a->graphs[graph];
    uint8_t *mark = calloc((size_t)g->n + 1, 1);
    int32_t *stack = malloc((2 * (size_t)g->n + 16) * sizeof *stack);
    bool ok = mark && stack;
    for (size_t i = 0; ok && i < a->nclasses; ++i) {
        const seg_class *k = &a->classes[i];
        if (k->graph != graph || !k->hit_runs) continue;
        annot_segment_path(g, k->task, k->sk, k->sn, k->ek, k->en, mark, stack);
        int32_t nt;
        const int32_t *own = annot_task_nodes(g, k->task, &nt);
        for (int32_t j = 0; j < nt; ++j)
            reached[own[j]] |= mark[own[j]];
        reached[k->charged] = 1; /* an empty segment's adjacent node */
        annot_team_cover(g, k, 0, NULL, NULL, reached);
    }
    free(mark), free(stack);
    return ok;
}

/* A reached T node whose task never began, or a reached task whose creator
 * was not reached: the traces miss part of the runs. */
static json_t *incomplete(const graph_info *g, const uint8_t *reached)
{
    for (int32_t v = 0; v < g->n; ++v) {
        if (ompdag_condag_node_kind(g->g, v) != OMPDAG_KIND_T) continue;
        int32_t src = ompdag_condag_task_source(g->g, ompdag_condag_node_creates(g->g, v));
        if (reached[v] == reached[src]) continue;
        char place[300], why[600];
        ompdag_condag_node_place(g->g, v, place, sizeof place);
        snprintf(why, sizeof why,
                 "the traces are incomplete: the task created at node %s (%s) %s; "
                 "annotate with complete traces (no dropped records)",
                 ompdag_condag_node_id(g->g, v), place,
                 reached[v] ? "never began" : "began, but its creation was not reached");
        return not_recorded(why, g->input_runs);
    }
    return NULL;
}

/* D(v) of a reached node: the classes of ompdag_overheads_delay_of (analysis/overhead.c), each
 * from the node's own samples when it has them, else the graph's value;
 * team formation on the root's source as there. */
static bool node_delay(const ompdag_annotation *a, const graph_info *g, int32_t v,
                       bool after_create, const ompdag_overheads *o, const int64_t *own,
                       int64_t root_extra, int64_t *d, bool *measured)
{
    const int64_t graph_value[IN_KINDS] = {o->start_delay, o->wake_delay, o->cont_delay};
    int64_t part[IN_KINDS] = {o->start_delay, o->wake_delay, o->cont_delay};
    for (int k = 0; k < IN_KINDS && own; ++k)
        if (own[(size_t)v * IN_KINDS + k] >= 0) {
            if (!annot_with_margin(a, own[(size_t)v * IN_KINDS + k], &part[k])) return false;
            /* the node's samples are among the graph's clean ones */
            assert(part[k] <= graph_value[k]);
            *measured = true;
        }
    /* the graph's rule with this node's class values; team formation is a
     * run's, not an instance's, so it keeps the graph's value */
    ompdag_overheads mine = *o;
    mine.start_delay = part[IN_START], mine.wake_delay = part[IN_WAKE];
    mine.cont_delay = part[IN_CONT];
    if (!ompdag_overheads_delay_of(g->g, v, after_create, &mine, d)) return false;
    /* the median model's run excess, charged once where every chain starts */
    int32_t root = ompdag_condag_root_task(g->g);
    return v != ompdag_condag_task_source(g->g, root) || !__builtin_add_overflow(*d, root_extra, d);
}

/* nodes: the reached ids; delays: id -> D for the nonzero ones. */
static json_t *recorded(const ompdag_annotation *a, size_t graph, const uint8_t *reached,
                        const ompdag_overheads *o, const int64_t *input_basis,
                        const int64_t *input_median, const int64_t *wcet)
{
    const graph_info *g = &a->graphs[graph];
    uint8_t *after = calloc((size_t)g->n + 1, 1);
    json_t *nodes = json_array(), *delays = json_object(), *wcets = json_object();
    json_t *med_delays = json_object(), *med_wcets = json_object();
    int64_t *median = malloc(((size_t)g->n * IN_KINDS + 1) * sizeof *median), ex = 0;
    int64_t ex_path = 0, ex_work = 0, ex_waits = 0, ex_root = 0;
    annot_budget b;
    json_t *dep = annot_depend_input_json(g); /* NULL: the graph's own clauses */
    bool ok = after && nodes && delays && wcets && med_delays && med_wcets && median &&
              annot_input_budget(a, graph, dep, median, &b) && annot_with_margin(a, b.all, &ex) &&
              annot_with_margin(a, b.path, &ex_path) && annot_with_margin(a, b.work, &ex_work) &&
              annot_with_margin(a, b.root_waits, &ex_waits) &&
              annot_with_margin(a, b.root, &ex_root);
    for (int32_t u = 0; ok && u < g->n; ++u) {
        /* only a kept T node: a J after a task creation the runs skipped
         * (`if (p) { task }` with p false) follows no creation there */
        if (!reached[u] || ompdag_condag_node_kind(g->g, u) != OMPDAG_KIND_T) continue;
        int32_t cnt;
        const int32_t *s = ompdag_condag_node_fsucc(g->g, u, &cnt);
        for (int32_t j = 0; j < cnt; ++j)
            after[s[j]] = 1;
    }
    int64_t kept = 0, own = 0;
    for (int32_t v = 0; ok && v < g->n; ++v) {
        if (!reached[v]) continue;
        ++kept;
        int64_t d = 0, dm = 0;
        bool measured = false, unused = false;
        if (!a->opt.no_overheads &&
            (!node_delay(a, g, v, after[v], o, g->inst_delay, 0, &d, &measured) ||
             !node_delay(a, g, v, after[v], o, median, ex, &dm, &unused))) {
            ok = false;
            break;
        }
        own += measured;
        const char *id = ompdag_condag_node_id(g->g, v);
        int64_t w, wm;
        ok = annot_with_margin(a, input_basis[v], &w) &&
             annot_with_margin(a, input_median[v], &wm) &&
             json_array_append_new(nodes, json_string(id)) == 0 &&
             (wm == w || json_object_set_new(med_wcets, id, json_integer(wm)) == 0) &&
             (!d || json_object_set_new(delays, id, json_integer(d)) == 0) &&
             (!dm || json_object_set_new(med_delays, id, json_integer(dm)) == 0) &&
             (w == wcet[v] || json_object_set_new(wcets, id, json_integer(w)) == 0);
        /* a sum over fewer classes, of the same estimates */
        assert(!ok || w <= wcet[v]);
    }
    free(after), free(median);
    char claim[200];
    snprintf(claim, sizeof claim, "the task structure of these %llu runs%s",
             (unsigned long long)g->input_runs, dep ? ", with their depend items by address" : "");
    json_t *out =
        ok ? json_pack("{s:b,s:I,s:s,s:I,s:I,s:O,s:O,s:O,s:s}", "recorded", 1, "runs",
                       (json_int_t)g->input_runs, "claim", claim, "nodes_kept", (json_int_t)kept,
                       "nodes_with_own_delays", (json_int_t)own, "nodes", nodes, "delays", delays,
                       "wcets", wcets, "rule", "docs/probe.md#input")
           : NULL;
    /* the budget model needs every clean sample (annot_input_hit) */
    json_t *budget = out && !a->wsamp_lost
                         ? json_pack("{s:O,s:O,s:I,s:{s:I,s:I,s:I,s:I}}", "delays_median",
                                     med_delays, "wcets_median", med_wcets, "run_excess_ns",
                                     (json_int_t)ex, "run_excess_paths", "graham",
                                     (json_int_t)ex_path, "tied-root-waits", (json_int_t)ex_waits,
                                     "tied-root", (json_int_t)ex_root, "work", (json_int_t)ex_work)
                         : NULL;
    if (out && !a->wsamp_lost && (!budget || json_object_update(out, budget)))
        json_decref(out), out = NULL;
    json_decref(budget);
    json_decref(nodes), json_decref(delays), json_decref(wcets), json_decref(med_delays);
    json_decref(med_wcets);
    json_t *rt = out ? runtime_json(a) : NULL;
    if (rt && json_object_set_new(out, "runtime", rt)) json_decref(out), out = NULL;
    if (out && dep && json_object_set(out, "depend", dep)) json_decref(out), out = NULL;
    json_decref(dep);
    const char *why = g->din_state == DIN_REFUSED ? g->din_why
                      : g->din_state == DIN_NONE && ompdag_condag_has_depend(g->g)
                          ? "no run reported the runtime's depend lists"
                          : NULL;
    if (out && why && json_object_set_new(out, "depend_why", json_string(why)))
        json_decref(out), out = NULL;
    return out;
}

json_t *annot_input_json(const ompdag_annotation *a, size_t graph, const ompdag_overheads *o,
                         const int64_t *input_basis, const int64_t *input_median,
                         const int64_t *wcet)
{
    const graph_info *g = &a->graphs[graph];
    if (ompdag_compact_is_compact(g->g))
        return not_recorded("a compact graph shares one body between instances: annotate "
                            "with --per-instance (which expands it first) to record the "
                            "input's DAG",
                            g->input_runs);
    if (!g->input_runs) return not_recorded("no run mapped a segment to this graph", 0);
    if (g->unmapped)
        return not_recorded("some segments of the runs did not map to the graph, so the "
                            "runs' task structure is not known",
                            g->input_runs);
    json_t *diff = first_difference(a, graph, g);
    if (diff) return diff;
    uint8_t *reached = calloc((size_t)g->n + 1, 1);
    if (!reached || !mark_reached(a, graph, reached)) {
        free(reached);
        return NULL;
    }
    json_t *out = incomplete(g, reached);
    if (!out) out = recorded(a, graph, reached, o, input_basis, input_median, wcet);
    free(reached);
    return out;
}
