/*
 * annotate/annotate_depend.c — does the runtime's dependence order agree
 * with the graph's D-edges?  (shared/spec/condag.md §6; issue 13.)
 *
 * The probe records, through OMPT's dependence callbacks (OpenMP 5.1 §4.5.2.16
 * ompt_callback_dependences, §4.5.2.17 ompt_callback_task_dependence), each
 * task's depend list as the runtime saw it (item addresses and types) and the
 * pairs (predecessor -> successor) the runtime enforced, plus the first start
 * of every task with a depend list.  Each task instance maps to the T node
 * that created it by the same mapping that charges its segments
 * (annotate_trace.c: its creator's mapped chain).  Per region instance (one
 * flow of the con-DAG) we derive the flow's D-edges (Rule 3,
 * condag_dflow_derive) from the T nodes that ran, and check:
 *
 *  (a) every runtime pair P -> S is implied by the graph: a path from the sink
 *      of P's task to the source of S's task over F-, T-, W- and the flow's
 *      D-edges that passes no T or W node the run did not reach.  Otherwise
 *      the model misses an order the runtime imposes: its critical paths may
 *      be too short, so the bound is *unsafe*.
 *  (b) every derived D-edge between two tasks that both ran is respected:
 *      the successor's first start is not before the predecessor's
 *      completion.  When it is, and the two tasks' runtime depend lists share
 *      an address that one of them writes, the runtime broke an order both
 *      sides declare (unsafe).  When the lists share no such address, the
 *      edge comes from the model's aliasing rule (a var that merges storage
 *      the runtime keeps apart): an *extra* edge, which only lengthens paths
 *      and so cannot lower the bound (§6: "extra edges are safe"); it is
 *      counted and listed, and is unsafe only under --depend-strict.
 *
 * Disagreements are kept per graph (distinct by kind and node pair, with the
 * number of runs) and written by annotate_apply.c as "depend_check".
 */
#include <inttypes.h>

#include "annotate_internal.h"

#define NOMEM(err) ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory")
#define MAX_LISTED 32 /* distinct disagreements kept per graph */

bool annot_exec_push(trace_ctx *c, uint64_t run, uint32_t graph, int32_t node)
{
    if (node < 0 || !run || !c->depend_on) return true;
    if (!annot_grow((void **)&c->exec, &c->exec_cap, c->nexec + 1, sizeof *c->exec)) return false;
    c->exec[c->nexec++] = (exec_node){run, graph, node};
    return true;
}

/* A dependence record no runtime writes: a corrupt or forged trace. */
static ompdag_status forged(ompdag_error *err, const char *record, uint64_t task, const char *what,
                            uint64_t value)
{
    return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                            "annotate: corrupt or forged trace: %s record of task %#" PRIx64
                            ": %s (%" PRIu64 "); record a new trace",
                            record, task, what, value);
}

ompdag_status annot_depend_record(trace_ctx *c, const ompdag_trace_rec *r, ompdag_error *err)
{
    /* ompt_callback_dependences passes the list length as an int */
    if (r->type == OMPDAG_REC_DEPEND && r->cp_end > INT32_MAX)
        return forged(err, "depend item", r->id, "a list longer than an int can count", r->cp_end);
    task_entry *e = c->tasks_cap ? annot_task_slot(c, r->id) : NULL;
    if (!e || !e->id) { /* not a task of a matched region: kept to check the pairs */
        if (r->type == OMPDAG_REC_DEPEND) {
            if (!annot_grow((void **)&c->outside, &c->outside_cap, c->noutside + 1,
                            sizeof *c->outside))
                return NOMEM(err);
            c->outside[c->noutside++] = r->id;
        } else if (r->type == OMPDAG_REC_DEP_PAIR) {
            if (!annot_grow((void **)&c->outside_pairs, &c->outside_pairs_cap,
                            c->noutside_pairs + 1, sizeof *c->outside_pairs))
                return NOMEM(err);
            c->outside_pairs[c->noutside_pairs++] = (dep_pair){r->aux, r->id};
        }
        return OMPDAG_OK;
    }
    switch (r->type) {
    case OMPDAG_REC_DEP_START:
        if (!e->start || r->time < e->start) e->start = r->time;
        break;
    case OMPDAG_REC_DEPEND:
        e->depend = true;
        if (!annot_grow((void **)&c->items, &c->items_cap, c->nitems + 1, sizeof *c->items))
            return NOMEM(err);
        c->items[c->nitems++] =
            (dep_item){r->id, r->aux, r->flags, (uint32_t)r->cp_start, (uint32_t)r->cp_end};
        break;
    case OMPDAG_REC_DEP_PAIR:
        if (!annot_grow((void **)&c->pairs, &c->pairs_cap, c->npairs + 1, sizeof *c->pairs))
            return NOMEM(err);
        c->pairs[c->npairs++] = (dep_pair){r->aux, r->id};
        break;
    default:
        break;
    }
    return OMPDAG_OK;
}

/* A task the runtime made wait for predecessors is not ready at its creation
 * but when the last of them completed: the dispatch delay of
 * annotate_overhead.c is measured from then (docs/overheads.md).  The graph
 * orders each such predecessor before the task (check (a) below), so this is
 * never later than the moment the model makes it ready. */
void annot_depend_ready(trace_ctx *c)
{
    for (size_t i = 0; c->tasks_cap && i < c->npairs; ++i) {
        const task_entry *p = annot_task_slot(c, c->pairs[i].pred);
        task_entry *s = annot_task_slot(c, c->pairs[i].succ);
        if (p->id && s->id && p->end > s->dep_ready) s->dep_ready = p->end;
    }
}

/* ---- one region instance ---------------------------------------------------------- */

/* A mapped task instance: its entry and creating T node. */
typedef struct inst {
    uint32_t graph;
    uint64_t run;
    int32_t tnode;
    task_entry *e;
} inst;

static int cmp_inst(const void *x, const void *y)
{
    const inst *a = x, *b = y;
    if (a->graph != b->graph) return a->graph < b->graph ? -1 : 1;
    if (a->run != b->run) return a->run < b->run ? -1 : 1;
    return (a->tnode > b->tnode) - (a->tnode < b->tnode);
}

static int cmp_exec(const void *x, const void *y)
{
    const exec_node *a = x, *b = y;
    if (a->graph != b->graph) return a->graph < b->graph ? -1 : 1;
    return (a->run > b->run) - (a->run < b->run);
}

static int cmp_item(const void *x, const void *y)
{
    const dep_item *a = x, *b = y;
    if (a->task != b->task) return a->task < b->task ? -1 : 1;
    return (a->addr > b->addr) - (a->addr < b->addr);
}

/* A pair mapped to its two T nodes, grouped by (graph, run). */
typedef struct mpair {
    uint32_t graph;
    uint64_t run;
    int32_t tp, ts;
} mpair;

static int cmp_mpair(const void *x, const void *y)
{
    const mpair *a = x, *b = y;
    if (a->graph != b->graph) return a->graph < b->graph ? -1 : 1;
    return (a->run > b->run) - (a->run < b->run);
}

typedef struct run_ctx {
    trace_ctx *c;
    graph_info *gi;
    const ompdag_condag *g;
    uint8_t *executed;     /* T/W nodes the run reached; other kinds 1 */
    task_entry **at;       /* T node -> the instance it created in this run */
    uint8_t *dup;          /* T nodes with several instances in the run (compact bodies) */
    int32_t *doff, *dsucc; /* the flow's D-edges (CSR from sinks) */
    uint32_t *seen;        /* BFS stamps */
    uint32_t stamp;
    int32_t *queue;
} run_ctx;

/* "file.c:12 (node t3)" of node v. */
static void node_text(const ompdag_condag *g, int32_t v, char *buf, size_t n)
{
    char place[160];
    snprintf(buf, n, "%s (node %s)", ompdag_condag_node_place(g, v, place, sizeof place),
             ompdag_condag_node_id(g, v));
}

/* Records one disagreement of `kind` between T nodes tp -> ts of this graph:
 * counted once per run; the first MAX_LISTED distinct ones are listed. */
static ompdag_status disagree(run_ctx *x, const char *kind, int32_t tp, int32_t ts, bool unsafe,
                              ompdag_error *err)
{
    graph_info *gi = x->gi;
    if (unsafe) ++gi->dep_unsafe;
    if (!gi->dep_disagreements && !(gi->dep_disagreements = json_array())) return NOMEM(err);
    const char *idp = ompdag_condag_node_id(x->g, tp), *ids = ompdag_condag_node_id(x->g, ts);
    size_t i;
    json_t *d;
    json_array_foreach(gi->dep_disagreements, i, d)
    {
        if (!strcmp(json_string_value(json_object_get(d, "kind")), kind) &&
            !strcmp(json_string_value(json_object_get(d, "pred_node")), idp) &&
            !strcmp(json_string_value(json_object_get(d, "succ_node")), ids)) {
            json_int_t runs = json_integer_value(json_object_get(d, "runs"));
            if (json_object_set_new(d, "runs", json_integer(runs + 1))) return NOMEM(err);
            return OMPDAG_OK;
        }
    }
    if (json_array_size(gi->dep_disagreements) >= MAX_LISTED) return OMPDAG_OK;
    char p[200], s[200], msg[700];
    node_text(x->g, tp, p, sizeof p);
    node_text(x->g, ts, s, sizeof s);
    if (!strcmp(kind, "missed_order"))
        snprintf(msg, sizeof msg,
                 "the runtime made the task created at %s wait for the task created at %s, but "
                 "the graph does not order them: the model misses an ordering the runtime "
                 "imposes",
                 s, p);
    else if (!strcmp(kind, "order_not_given"))
        snprintf(msg, sizeof msg,
                 "the graph orders the task created at %s after the task created at %s, and "
                 "both declare a conflicting dependence on one address, but the run started "
                 "it before that task completed",
                 s, p);
    else
        snprintf(msg, sizeof msg,
                 "the graph orders the task created at %s after the task created at %s, but "
                 "their depend lists name no common address the runtime orders, and the run "
                 "started it first: the var merges storage the runtime keeps apart (an extra "
                 "edge, which only raises the bound)",
                 s, p);
    json_t *o = json_pack("{s:s,s:s,s:s,s:b,s:I,s:s}", "kind", kind, "pred_node", idp, "succ_node",
                          ids, "unsafe", unsafe, "runs", (json_int_t)1, "message", msg);
    if (!o || json_array_append_new(gi->dep_disagreements, o)) return NOMEM(err);
    return OMPDAG_OK;
}

/* Edges out of v, over F-, T-, W- and the flow's D-edges, into nodes the run
 * may have passed (a T or W node it did not reach is never entered). */
static bool reaches(run_ctx *x, int32_t from, int32_t to)
{
    const ompdag_condag *g = x->g;
    if (++x->stamp == 0) {
        memset(x->seen, 0, sizeof *x->seen * (size_t)x->gi->n);
        x->stamp = 1;
    }
    int32_t head = 0, tail = 0;
    x->queue[tail++] = from;
    x->seen[from] = x->stamp;
    while (head < tail) {
        int32_t v = x->queue[head++];
        if (v == to) return true;
        int32_t nf, nw;
        const int32_t *fs = ompdag_condag_node_fsucc(g, v, &nf);
        const int32_t *ws = ompdag_condag_node_wsucc(g, v, &nw);
        int32_t t =
            ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T ? ompdag_condag_node_creates(g, v) : -1;
        int32_t extra = t >= 0 ? 1 : 0;
        int32_t total = nf + nw + extra + (x->doff[v + 1] - x->doff[v]);
        for (int32_t i = 0; i < total; ++i) {
            int32_t u = i < nf                ? fs[i]
                        : i < nf + nw         ? ws[i - nf]
                        : i < nf + nw + extra ? ompdag_condag_task_source(g, t)
                                              : x->dsucc[x->doff[v] + i - nf - nw - extra];
            if (x->seen[u] == x->stamp || !x->executed[u]) continue;
            x->seen[u] = x->stamp;
            x->queue[tail++] = u;
        }
    }
    return false;
}

/* Do the runtime depend lists of a and b share an address that one writes? */
const dep_item *annot_dep_items_of(const trace_ctx *c, uint64_t task, size_t *count)
{
    dep_item key = {task, 0, 0, 0, 0};
    size_t lo = 0, hi = c->nitems;
    while (lo < hi) { /* the first item of task */
        size_t mid = (lo + hi) / 2;
        if (cmp_item(&c->items[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < c->nitems && c->items[end].task == task)
        ++end;
    *count = end - lo;
    return c->items + lo;
}

static bool lists_conflict(const trace_ctx *c, uint64_t a, uint64_t b)
{
    size_t na;
    const dep_item *ia = annot_dep_items_of(c, a, &na);
    size_t lo = (size_t)(ia - c->items);
    for (size_t i = lo; i < lo + na; ++i) {
        dep_item k2 = {b, c->items[i].addr, 0, 0, 0};
        const dep_item *m = bsearch(&k2, c->items, c->nitems, sizeof *c->items, cmp_item);
        if (!m) continue;
        /* every item of b at that address (bsearch found one of them) */
        size_t j = (size_t)(m - c->items);
        while (j > 0 && c->items[j - 1].task == b && c->items[j - 1].addr == m->addr)
            --j;
        for (; j < c->nitems && c->items[j].task == b && c->items[j].addr == m->addr; ++j)
            if (c->items[i].type != 1 || c->items[j].type != 1) return true;
    }
    return false;
}

/* (b): each D-edge of the flow between two tasks that both ran. */
static ompdag_status check_edges(run_ctx *x, ompdag_error *err)
{
    const ompdag_condag *g = x->g;
    bool strict = x->c->a->opt.depend_strict;
    for (int32_t ta = 0; ta < x->gi->n; ++ta) {
        if (!x->at[ta]) continue;
        int32_t sink = ompdag_condag_task_sink(g, ompdag_condag_node_creates(g, ta));
        for (int32_t k = x->doff[sink]; k < x->doff[sink + 1]; ++k) {
            int32_t tb = ompdag_condag_task_creator(g, ompdag_condag_node_task(g, x->dsucc[k]));
            if (tb < 0 || !x->at[tb]) continue;
            ++x->gi->dep_edges;
            if (x->dup[ta] || x->dup[tb]) {
                ++x->gi->dep_edges_unchecked;
                continue;
            }
            const task_entry *a = x->at[ta], *b = x->at[tb];
            uint64_t start = b->start ? b->start : !b->seg_suspended ? b->seg_start : 0;
            if (!a->end || !start || (b->seg_suspended && !b->start && start >= a->end)) {
                ++x->gi->dep_edges_unchecked;
                continue;
            }
            if (start >= a->end) {
                ++x->gi->dep_edges_respected;
                continue;
            }
            ompdag_status st;
            if (lists_conflict(x->c, a->id, b->id))
                st = disagree(x, "order_not_given", ta, tb, true, err);
            else
                ++x->gi->dep_edges_over, st = disagree(x, "extra_order", ta, tb, strict, err);
            if (st) return st;
        }
    }
    return OMPDAG_OK;
}

/* (a): each runtime pair of this run. */
static ompdag_status check_pairs(run_ctx *x, const mpair *p, size_t n, ompdag_error *err)
{
    const ompdag_condag *g = x->g;
    for (size_t i = 0; i < n; ++i) {
        if (x->dup[p[i].tp] || x->dup[p[i].ts]) {
            ++x->gi->dep_pairs_unchecked;
            continue;
        }
        int32_t from = ompdag_condag_task_sink(g, ompdag_condag_node_creates(g, p[i].tp));
        int32_t to = ompdag_condag_task_source(g, ompdag_condag_node_creates(g, p[i].ts));
        bool direct = false;
        for (int32_t k = x->doff[from]; k < x->doff[from + 1] && !direct; ++k)
            direct = x->dsucc[k] == to;
        if (direct || reaches(x, from, to)) {
            ++x->gi->dep_pairs_implied;
            continue;
        }
        ompdag_status st = disagree(x, "missed_order", p[i].tp, p[i].ts, true, err);
        if (st) return st;
    }
    return OMPDAG_OK;
}

static ompdag_status check_run(trace_ctx *c, const inst *in, size_t nin, const exec_node *ex,
                               size_t nex, const mpair *pr, size_t npr, ompdag_error *err)
{
    graph_info *gi = &c->a->graphs[in[0].graph];
    const ompdag_condag *g = gi->g;
    size_t n = (size_t)gi->n;
    run_ctx x = {.c = c, .gi = gi, .g = g};
    x.executed = malloc(n + 1);
    x.at = calloc(n + 1, sizeof *x.at);
    x.seen = calloc(n + 1, sizeof *x.seen);
    x.queue = malloc((n + 1) * sizeof *x.queue);
    x.dup = calloc(n + 1, 1);
    ompdag_status st = OMPDAG_OK;
    if (!x.executed || !x.at || !x.seen || !x.queue || !x.dup) {
        st = NOMEM(err);
        goto done;
    }
    for (size_t v = 0; v < n; ++v) {
        ompdag_kind k = ompdag_condag_node_kind(g, (int32_t)v);
        x.executed[v] = k != OMPDAG_KIND_T && k != OMPDAG_KIND_W;
    }
    for (size_t i = 0; i < nex; ++i)
        x.executed[ex[i].node] = 1;
    for (size_t i = 0; i < nin; ++i) {
        x.executed[in[i].tnode] = 1;
        if (x.at[in[i].tnode]) x.dup[in[i].tnode] = 1;
        x.at[in[i].tnode] = in[i].e;
        /* an undeferred task's wait has no scheduling point of its own */
        int32_t nf;
        const int32_t *fs = ompdag_condag_node_fsucc(g, in[i].tnode, &nf);
        if (nf == 1 && annot_undeferred_wait(g, in[i].tnode, fs[0])) x.executed[fs[0]] = 1;
    }
    if ((st = ompdag_condag_flow_depend_edges(g, x.executed, &x.doff, &x.dsucc, err))) goto done;
    if ((st = check_edges(&x, err))) goto done;
    if ((st = check_pairs(&x, pr, npr, err))) goto done;
    st = annot_depend_input_run(c, gi, x.at, x.dup, err);
done:
    free(x.executed), free(x.at), free(x.dup), free(x.seen), free(x.queue), free(x.doff),
        free(x.dsucc);
    return st;
}

/* ---- what the records must satisfy ---------------------------------------------------- */

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static int cmp_item_index(const void *x, const void *y)
{
    const dep_item *a = x, *b = y;
    if (a->task != b->task) return a->task < b->task ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* The probe writes each item of a list once, all with the list's length: a
 * repeated index would count one dependence twice, a second length names a
 * second list (forged). */
static ompdag_status check_items(trace_ctx *c, ompdag_error *err)
{
    if (c->nitems > 1) qsort(c->items, c->nitems, sizeof *c->items, cmp_item_index);
    for (size_t i = 1; i < c->nitems; ++i) {
        const dep_item *a = &c->items[i - 1], *b = &c->items[i];
        if (a->task != b->task) continue;
        if (a->index == b->index)
            return forged(err, "depend item", b->task, "an item index given twice", b->index);
        if (a->len != b->len)
            return forged(err, "depend item", b->task, "two lengths for one depend list", b->len);
    }
    if (c->noutside > 1) qsort(c->outside, c->noutside, sizeof *c->outside, cmp_u64);
    return OMPDAG_OK;
}

static bool has_outside_list(const trace_ctx *c, uint64_t id)
{
    return c->noutside && bsearch(&id, c->outside, c->noutside, sizeof id, cmp_u64);
}

/* The runtime orders sibling tasks only (OpenMP 5.1 §2.19.11), and both ends
 * of a pair have depend lists: so the predecessor of a task of a matched
 * region was created in the same region instance, and a successor outside
 * every matched region reported its list.  Anything else (a predecessor never
 * created, a region or implicit task id, another instance) is forged, unless
 * the probe dropped records (every graph is unsafe then anyway). */
static ompdag_status check_pair_ends(trace_ctx *c, ompdag_error *err)
{
    if (c->a->dropped_records) return OMPDAG_OK;
    for (size_t i = 0; i < c->npairs; ++i) {
        const task_entry *p = annot_task_slot(c, c->pairs[i].pred);
        const task_entry *s = annot_task_slot(c, c->pairs[i].succ);
        if (!p->id)
            return forged(err, "dependence pair", s->id,
                          "its predecessor was never created as an explicit task of its region "
                          "(predecessor id)",
                          c->pairs[i].pred);
        if (p->graph != s->graph || (p->run && s->run && p->run != s->run))
            return forged(err, "dependence pair", s->id,
                          "its predecessor is a task of another region instance (predecessor id)",
                          p->id);
    }
    for (size_t i = 0; i < c->noutside_pairs; ++i) {
        const dep_pair *q = &c->outside_pairs[i];
        if (!has_outside_list(c, q->succ))
            return forged(err, "dependence pair", q->succ,
                          "a successor never created with a depend list (predecessor id)", q->pred);
    }
    return OMPDAG_OK;
}

/* A successor outside the task table that waits for a task of a matched
 * region is the encountering task of an undeferred (if(0)) task with
 * `depend`: libomp reports that task as the one that waits.  Legitimate, and
 * not mapped to T nodes, so counted as unchecked for the predecessor's graph
 * rather than dropped. */
static void count_encountering_waits(trace_ctx *c)
{
    for (size_t i = 0; c->tasks_cap && i < c->noutside_pairs; ++i) {
        const task_entry *p = annot_task_slot(c, c->outside_pairs[i].pred);
        if (!p->id) continue; /* both ends outside every matched region */
        ++c->a->graphs[p->graph].dep_pairs;
        ++c->a->graphs[p->graph].dep_pairs_unchecked;
    }
}

/* Why an item of `type` can hide an order, or NULL when the model has it
 * (in, out, inout: §6). */
static const char *unmodelled_why(uint8_t type)
{
    switch (type) {
    case 1:
    case 2:
    case 3:
        return NULL;
    case 4: /* unsafe: the model has no mutual exclusion between tasks */
        return "a mutexinoutset dependence: the model has no mutual exclusion between tasks, so "
               "its bound may miss the serialisation the runtime imposes";
    case 7: /* unsafe: inoutset (sets of tasks ordered as groups) is not modelled */
        return "an inoutset dependence: the model has no inoutset (only in, out, inout), so it "
               "may miss an order the runtime imposes";
    default: /* 5, 6: doacross source/sink, orders between loop iterations */
        return "a doacross (source/sink) dependence: the model has no cross-iteration order, so "
               "it may miss an order the runtime imposes";
    }
}

/* True when T node t carries a clause of the runtime's item type: OMPT's
 * mutexinoutset (4) and inoutset (7) are modelled for a graph that has them
 * (docs/depend.md; mutexinoutset's exclusion is charged as a lock,
 * docs/mutex.md). */
static bool graph_has_type(const ompdag_condag *g, int32_t t, uint8_t type)
{
    ompdag_dep_type want = type == 4 ? OMPDAG_DEP_MUTEXINOUTSET : OMPDAG_DEP_INOUTSET;
    if (t < 0 || (type != 4 && type != 7)) return false;
    for (int32_t i = 0; i < ompdag_condag_node_depend_count(g, t); ++i)
        if (ompdag_condag_node_depend_type(g, t, i) == want) return true;
    return false;
}

/* Items of types the model does not have: each makes its graph unsafe, with
 * the reason listed as an "unmodelled_type" disagreement. */
static ompdag_status check_item_types(trace_ctx *c, ompdag_error *err)
{
    for (size_t i = 0; i < c->nitems; ++i) {
        const char *why = unmodelled_why(c->items[i].type);
        if (!why) continue;
        const task_entry *e = annot_task_slot(c, c->items[i].task);
        graph_info *gi = &c->a->graphs[e->graph];
        if (graph_has_type(gi->g, annot_made_by(c, e->id), c->items[i].type)) continue;
        ++gi->dep_unsafe;
        if (!gi->dep_disagreements && !(gi->dep_disagreements = json_array())) return NOMEM(err);
        int32_t t = annot_made_by(c, e->id);
        const char *id = t >= 0 ? ompdag_condag_node_id(gi->g, t) : "?";
        size_t k;
        json_t *d;
        bool known = false;
        json_array_foreach(gi->dep_disagreements, k, d)
        {
            if (!strcmp(json_string_value(json_object_get(d, "kind")), "unmodelled_type") &&
                !strcmp(json_string_value(json_object_get(d, "succ_node")), id)) {
                json_int_t runs = json_integer_value(json_object_get(d, "runs"));
                if (json_object_set_new(d, "runs", json_integer(runs + 1))) return NOMEM(err);
                known = true;
                break;
            }
        }
        if (known || json_array_size(gi->dep_disagreements) >= MAX_LISTED) continue;
        char place[200], msg[600];
        if (t >= 0)
            node_text(gi->g, t, place, sizeof place);
        else
            snprintf(place, sizeof place, "an unmapped task (id %#" PRIx64 ")", e->id);
        snprintf(msg, sizeof msg, "the task created at %s has %s", place, why);
        json_t *o =
            json_pack("{s:s,s:s,s:s,s:b,s:I,s:s}", "kind", "unmodelled_type", "pred_node", id,
                      "succ_node", id, "unsafe", 1, "runs", (json_int_t)1, "message", msg);
        if (!o || json_array_append_new(gi->dep_disagreements, o)) return NOMEM(err);
    }
    return OMPDAG_OK;
}

ompdag_status annot_depend_check(trace_ctx *c, ompdag_error *err)
{
    ompdag_status vst;
    if ((vst = check_items(c, err)) || (vst = check_pair_ends(c, err))) return vst;
    if (c->tasks_cap && (vst = check_item_types(c, err))) return vst;
    count_encountering_waits(c);
    if (!c->tasks_cap) return OMPDAG_OK;
    bool any = c->nitems || c->npairs;
    for (size_t i = 0; i < c->a->ngraphs && !any; ++i)
        any = ompdag_condag_has_depend(c->a->graphs[i].g);
    if (!any) return OMPDAG_OK;
    ompdag_status st = OMPDAG_OK;
    inst *in = malloc(sizeof *in * (c->tasks_used + 1));
    mpair *mp = malloc(sizeof *mp * (c->npairs + 1));
    if (!in || !mp) {
        free(in), free(mp);
        return NOMEM(err);
    }
    size_t nin = 0, nmp = 0;
    for (size_t i = 0; i < c->tasks_cap; ++i) {
        task_entry *e = &c->tasks[i];
        if (!e->id || !e->run) continue;
        int32_t t = annot_made_by(c, e->id);
        if (t >= 0) in[nin++] = (inst){e->graph, e->run, t, e};
    }
    for (size_t i = 0; i < c->nitems; ++i) {
        const task_entry *e = annot_task_slot(c, c->items[i].task);
        ++c->a->graphs[e->graph].dep_items;
    }
    for (size_t i = 0; i < c->npairs; ++i) {
        const task_entry *p = annot_task_slot(c, c->pairs[i].pred);
        const task_entry *s = annot_task_slot(c, c->pairs[i].succ);
        if (!s->id) continue; /* the successor is no task of a matched region */
        graph_info *gi = &c->a->graphs[s->graph];
        ++gi->dep_pairs;
        int32_t tp = p->id ? annot_made_by(c, p->id) : -1, ts = annot_made_by(c, s->id);
        if (tp < 0 || ts < 0 || p->graph != s->graph || p->run != s->run || !s->run) {
            ++gi->dep_pairs_unchecked;
            continue;
        }
        mp[nmp++] = (mpair){s->graph, s->run, tp, ts};
    }
    if (nin > 1) qsort(in, nin, sizeof *in, cmp_inst);
    if (nmp > 1) qsort(mp, nmp, sizeof *mp, cmp_mpair);
    if (c->nexec > 1) qsort(c->exec, c->nexec, sizeof *c->exec, cmp_exec);
    if (c->nitems > 1) qsort(c->items, c->nitems, sizeof *c->items, cmp_item);
    size_t ie = 0, ip = 0;
    for (size_t i = 0, j; i < nin && !st; i = j) {
        for (j = i + 1; j < nin && in[j].graph == in[i].graph && in[j].run == in[i].run; ++j)
            ;
        exec_node key = {in[i].run, in[i].graph, 0};
        while (ie < c->nexec && cmp_exec(&c->exec[ie], &key) < 0)
            ++ie;
        size_t je = ie;
        while (je < c->nexec && cmp_exec(&c->exec[je], &key) == 0)
            ++je;
        mpair pk = {in[i].graph, in[i].run, 0, 0};
        while (ip < nmp && cmp_mpair(&mp[ip], &pk) < 0)
            ++ip;
        size_t jp = ip;
        while (jp < nmp && cmp_mpair(&mp[jp], &pk) == 0)
            ++jp;
        if (ompdag_condag_has_depend(c->a->graphs[in[i].graph].g) || jp > ip)
            st = check_run(c, &in[i], j - i, &c->exec[ie], je - ie, &mp[ip], jp - ip, err);
        ie = je, ip = jp;
    }
    free(in), free(mp);
    return st;
}
