/*
 * report/report_input.c — the bound for the input the traces ran (issue 23
 * item 5; docs/probe.md#input): the graph pruned to the nodes annotate
 * recorded in the extra "input" (the task instances and branches every run
 * took), with each node's own dispatch delay, bounded by the same analysis as
 * the graph (Graham 1966 with the delays on the chain, and the tied-task
 * rules of docs/tied.md: ompdag_rta_tied_bound).
 *
 * Pruning keeps every field of the kept nodes (depend clauses, tied marks),
 * takes the input's WCET and delay of each (annotate_input.c), drops the edges that touch a removed
 * node, and turns a C node left with one successor, and a J node left with one predecessor, into N
 * nodes: with one branch left, the branch is no longer a choice.  The
 * result is a sub-flow of the graph, so its bound never exceeds the graph's
 * with the same delays; the per-instance delays are at most the graph's, so
 * the input's bound is at most the graph's.  Both bounds cover the input;
 * input_bound_times_m is the smaller, and a pruned bound above the graph's
 * (which the argument rules out) is asserted, not hidden.
 *
 * When annotate recorded the runtime ("input"."runtime") and it is libomp
 * with its default tasking, the input's tied bound may assume that no task
 * creation suspends the root (docs/tied.md §4b, rule tied-root-waits): with
 * at most 256 explicit tasks the creating thread's deque never fills, and
 * with throttling off it grows instead.  The graph's own bound (any input)
 * keeps the general rule.
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ompdag/compact.h"
#include "ompdag/internal/condag_json.h"
#include "report_internal.h"

/* keep[v] for the node ids of "input"."nodes"; false on an unknown id. */
static bool keep_mask(const ompdag_condag *g, const json_t *nodes, uint8_t *keep)
{
    size_t i;
    const json_t *v;
    json_array_foreach(nodes, i, v)
    {
        int32_t x = json_is_string(v) ? ompdag_condag_find_node(g, json_string_value(v)) : -1;
        if (x < 0) return false;
        keep[x] = 1;
    }
    return true;
}

/* Kept F-successors (out) and F-predecessors (in) per node. */
static void kept_degrees(const ompdag_condag *g, const uint8_t *keep, int32_t *out, int32_t *in)
{
    for (int32_t u = 0; u < ompdag_condag_node_count(g); ++u) {
        int32_t c;
        const int32_t *s = ompdag_condag_node_fsucc(g, u, &c);
        for (int32_t k = 0; k < c && keep[u]; ++k)
            if (keep[s[k]]) ++out[u], ++in[s[k]];
    }
}

/* Kept nodes with their input delays and WCETs, C/J with one branch left as N. */
/* Kept nodes with their input delays and WCETs, C/J with one branch left as N,
 * and every T node's clauses by address when annotate recorded them (depend). */
static json_t *kept_nodes(const ompdag_condag *g, const json_t *nodes, const uint8_t *keep,
                          const json_t *delays, const json_t *wcets, const json_t *depend)
{
    int32_t n = ompdag_condag_node_count(g);
    int32_t *out = calloc((size_t)n + 1, sizeof *out), *in = calloc((size_t)n + 1, sizeof *in);
    json_t *res = out && in ? json_array() : NULL;
    if (res) kept_degrees(g, keep, out, in);
    size_t i;
    const json_t *v;
    json_array_foreach(nodes, i, v)
    {
        const char *id = json_string_value(json_object_get(v, "id"));
        int32_t x = id ? ompdag_condag_find_node(g, id) : -1;
        if (!res || x < 0 || !keep[x]) continue;
        json_t *c = json_deep_copy(v);
        ompdag_kind kind = ompdag_condag_node_kind(g, x);
        bool one = (kind == OMPDAG_KIND_C && out[x] < 2) || (kind == OMPDAG_KIND_J && in[x] < 2);
        json_t *d = json_object_get(delays, id), *w = json_object_get(wcets, id);
        if (c) json_object_del(c, "delay");
        bool ok = c && (!one || json_object_set_new(c, "kind", json_string("N")) == 0) &&
                  (!d || json_object_set(c, "delay", d) == 0) &&
                  (!w || json_object_set(c, "wcet", w) == 0) &&
                  condag_json_node_depend_from(c, depend) && json_array_append_new(res, c) == 0;
        if (!ok) {
            json_decref(res);
            res = NULL;
        }
    }
    free(out), free(in);
    return res;
}

static json_t *kept_edges(const ompdag_condag *g, const json_t *edges, const uint8_t *keep)
{
    json_t *out = json_array();
    size_t i;
    const json_t *e;
    json_array_foreach(edges, i, e)
    {
        const char *a = json_string_value(json_array_get(e, 0));
        const char *b = json_string_value(json_array_get(e, 1));
        int32_t x = a ? ompdag_condag_find_node(g, a) : -1,
                y = b ? ompdag_condag_find_node(g, b) : -1;
        if (out && x >= 0 && y >= 0 && keep[x] && keep[y] && json_array_append(out, (json_t *)e)) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

/* Adds "delays" to the graph's "extensions" (a reader ignores "delay" without it). */
static bool with_delays_extension(json_t *j)
{
    json_t *ext = json_object_get(j, "extensions");
    if (!json_is_array(ext) && json_object_set_new(j, "extensions", ext = json_array()))
        return false;
    size_t i;
    json_t *x;
    json_array_foreach(ext, i, x) if (json_is_string(x) &&
                                      !strcmp(json_string_value(x), "delays")) return true;
    return json_array_append_new(ext, json_string("delays")) == 0;
}

/* The pruned graph as JSON; NULL on ENOMEM, *unknown set when "input"
 * names a node the graph does not have. */
static json_t *pruned_json(const ompdag_condag *g, const json_t *input, bool *unknown)
{
    uint8_t *keep = calloc((size_t)ompdag_condag_node_count(g) + 1, 1);
    json_t *j = keep ? ompdag_condag_to_json(g) : NULL;
    /* every run ends the root: an input without the root's sink is damaged */
    int32_t root_sink = ompdag_condag_task_sink(g, ompdag_condag_root_task(g));
    *unknown = keep && (!keep_mask(g, json_object_get(input, "nodes"), keep) || !keep[root_sink]);
    json_t *edges = j ? json_object_get(j, "edges") : NULL;
    json_t *delays = json_object_get(input, "delays");
    const json_t *depend = json_object_get(input, "depend");
    json_t *nodes = j && !*unknown ? kept_nodes(g, json_object_get(j, "nodes"), keep, delays,
                                                json_object_get(input, "wcets"),
                                                json_is_object(depend) ? depend : NULL)
                                   : NULL;
    json_t *kedges = !nodes ? NULL : edges ? kept_edges(g, edges, keep) : json_array();
    free(keep);
    if (!nodes || !kedges) {
        json_decref(nodes), json_decref(kedges), json_decref(j);
        return NULL;
    }
    bool ok =
        json_object_set_new(j, "nodes", nodes) == 0 && json_object_set_new(j, "edges", kedges) == 0;
    if (ok && json_object_size(delays)) ok = with_delays_extension(j);
    if (ok) json_object_del(j, "input");
    if (!ok) {
        json_decref(j);
        return NULL;
    }
    return j;
}

/* g pruned to "input", with the per-instance maxima as delays (*p owned by
 * the caller). */
static ompdag_status pruned_graph(const ompdag_condag *g, const json_t *in, size_t graph,
                                  ompdag_condag **p, ompdag_error *err)
{
    char title[256];
    bool unknown = false;
    json_t *j = pruned_json(g, in, &unknown);
    if (unknown)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "region %s: \"input\" names a node the graph does not have, or "
                                "leaves out the region's last node (a damaged file); annotate "
                                "the graph again",
                                ompdag_condag_title(g, graph, title, sizeof title));
    if (!j) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "report: out of memory");
    ompdag_error inner;
    ompdag_status st = condag_from_json(j, "input", p, &inner);
    json_decref(j);
    if (st)
        return ompdag_error_set(err, st,
                                "region %s: the recorded input's nodes (\"input\") do not form a "
                                "graph: %s; annotate the graph again",
                                ompdag_condag_title(g, graph, title, sizeof title), inner.message);
    return OMPDAG_OK;
}

/* Replaces every node's delay of p by "input".delays_median's (0 where it
 * names none) and its WCET by "wcets_median"'s where it names one: the
 * second model on the same pruned structure (annotate_input_budget.c; its
 * run excess is in the root source's median delay). */
static ompdag_status use_medians(ompdag_condag *p, const json_t *in, ompdag_error *err)
{
    const json_t *delays = json_object_get(in, "delays_median");
    const json_t *wcets = json_object_get(in, "wcets_median");
    for (int32_t v = 0; v < ompdag_condag_node_count(p); ++v) {
        const char *id = ompdag_condag_node_id(p, v);
        const json_t *d = json_object_get(delays, id), *w = json_object_get(wcets, id);
        if ((d && !json_is_integer(d)) || (w && !json_is_integer(w)))
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "\"input\".%s of node '%s' is not an integer; annotate the "
                                    "graph again",
                                    d && !json_is_integer(d) ? "delays_median" : "wcets_median",
                                    id);
        ompdag_status st = ompdag_condag_assign_delay(p, v, d ? json_integer_value(d) : 0, err);
        if (!st && w) st = ompdag_condag_assign_wcet(p, v, json_integer_value(w), err);
        if (st) return st;
    }
    return OMPDAG_OK;
}

/* The tied bound of p, and Graham's. */
static ompdag_status bound_of(const ompdag_condag *p, const ompdag_rta_options *ro, int64_t *x,
                              ompdag_tied_rule *rule, int64_t *graham, ompdag_error *err)
{
    ompdag_status st = ompdag_rta_tied_bound(p, ro, x, rule, err);
    ompdag_rta_result *res = NULL;
    if (!st) st = ompdag_rta_run(p, OMPDAG_ALG_EXACT, ro, &res, err);
    if (!st) *graham = ompdag_rta_result_bound_times_m(res);
    ompdag_rta_result_destroy(res);
    return st;
}

/* libomp's initial task deque (kmp.h: INITIAL_TASK_DEQUE_SIZE = 1 << 8). */
enum { LIBOMP_DEQUE_SIZE = 256 };

/* Explicit tasks the graph can create, all flows together (T node copies of
 * the unfolding, saturating): at least the tasks of any one flow. */
static uint64_t explicit_tasks(const ompdag_condag *p)
{
    uint64_t n = 0;
    for (int32_t v = 0; v < ompdag_condag_node_count(p); ++v)
        if (ompdag_condag_node_kind(p, v) == OMPDAG_KIND_T &&
            __builtin_add_overflow(n, ompdag_compact_node_instances(p, v), &n))
            return UINT64_MAX;
    return n;
}

/* Whether the input's bound may assume that no creation point of the root
 * suspends it (docs/tied.md §4b), with the reason in row->input_root_creation
 * ("" when annotate recorded no runtime: unknown, so no). */
static bool root_creation_never_suspends(const json_t *in, const ompdag_condag *p,
                                         ompdag_report_row *row)
{
    char *why = row->input_root_creation;
    size_t cap = sizeof row->input_root_creation;
    const json_t *rt = json_object_get(in, "runtime");
    if (!json_is_object(rt)) return false;
    const char *ver = json_string_value(json_object_get(rt, "version"));
    bool libomp = ver && (!strncmp(ver, "LLVM OMP", 8) || !strncmp(ver, "Intel(R) OMP", 12));
    if (!libomp) {
        snprintf(why, cap, "runtime %s is not libomp: a task creation may suspend the root",
                 ver ? ver : "(version not recorded)");
        return false;
    }
    if (!json_is_true(json_object_get(rt, "tasking"))) {
        snprintf(why, cap, "libomp with KMP_TASKING set in some run: tasks may run in place");
        return false;
    }
    if (json_is_false(json_object_get(rt, "throttling"))) {
        snprintf(why, cap,
                 "libomp, task throttling off in every run: the deque grows, so no creation "
                 "suspends the root (docs/tied.md §4b)");
        return true;
    }
    uint64_t n = explicit_tasks(p);
    if (n <= LIBOMP_DEQUE_SIZE) {
        snprintf(why, cap,
                 "libomp: at most %llu <= %d explicit tasks, so no creation suspends the root "
                 "(docs/tied.md §4b)",
                 (unsigned long long)n, LIBOMP_DEQUE_SIZE);
        return true;
    }
    snprintf(why, cap,
             "libomp: %llu > %d explicit tasks may fill the creating thread's deque, which then "
             "runs a task in place and suspends the root",
             (unsigned long long)n, LIBOMP_DEQUE_SIZE);
    return false;
}

/* The run excess along the chain of `rule` (annotate_input_budget.c:
 * "run_excess_paths"), plus the WCET excess of every node spread over the m
 * threads: what the chain-only forms must charge, m times, on the root's
 * source.  -1 when the rule has no chain form (VOLUME) or the file has no
 * paths. */
static int64_t chain_excess(const json_t *in, ompdag_tied_rule rule, int32_t m)
{
    const json_t *paths = json_object_get(in, "run_excess_paths");
    const char *key = rule == OMPDAG_TIED_NONE || rule == OMPDAG_TIED_NEVER_SUSPENDS ? "graham"
                      : rule == OMPDAG_TIED_ROOT_WAITS ? "tied-root-waits"
                      : rule == OMPDAG_TIED_ROOT       ? "tied-root"
                                                       : NULL;
    const json_t *path = key ? json_object_get(paths, key) : NULL;
    const json_t *work = json_object_get(paths, "work");
    if (!json_is_integer(path) || !json_is_integer(work) || json_integer_value(path) < 0 ||
        json_integer_value(work) < 0)
        return -1;
    int64_t w = json_integer_value(work), share = w / m + (w % m != 0), e;
    return __builtin_add_overflow(json_integer_value(path), share, &e) ? -1 : e;
}

/* The median model with the run excess along the chain of the rule the
 * all-node budget gave (rule_m) instead of summed over every node: p holds
 * the medians with "run_excess_ns" on the root's source; it is swapped for
 * chain_excess and bounded with the chain-only forms.  *x stays when that
 * does not apply (another rule, VOLUME, no paths) or is not smaller. */
static ompdag_status path_budget(ompdag_condag *p, const json_t *in, const ompdag_rta_options *o,
                                 ompdag_tied_rule rule_m, int64_t *x, int64_t *graham, bool *used,
                                 ompdag_error *err)
{
    const json_t *all = json_object_get(in, "run_excess_ns");
    int64_t e = chain_excess(in, rule_m, o->m);
    int32_t src = ompdag_condag_task_source(p, ompdag_condag_root_task(p));
    int64_t d = ompdag_condag_node_delay(p, src);
    if (e < 0 || !json_is_integer(all) || e >= json_integer_value(all) ||
        d < json_integer_value(all))
        return OMPDAG_OK;
    ompdag_status st = ompdag_condag_assign_delay(p, src, d - json_integer_value(all) + e, err);
    ompdag_rta_options chain = *o;
    chain.delays_on_chain_only = true;
    int64_t xb = 0, gb = 0;
    ompdag_tied_rule rule_b = OMPDAG_TIED_VOLUME;
    if (!st) st = bound_of(p, &chain, &xb, &rule_b, &gb, err);
    if (!st && rule_b == rule_m && rule_b != OMPDAG_TIED_VOLUME && xb < *x)
        *x = xb, *graham = gb, *used = true;
    return st;
}

ompdag_status report_input_bound(const ompdag_condag *g, const ompdag_rta_options *ro,
                                 ompdag_report_row *row, ompdag_error *err)
{
    row->input_bound_times_m = row->input_graham_times_m = -1;
    row->input_bound_ns = -1;
    row->input_claim = row->input_why = row->input_delay_model = NULL;
    row->input_root_creation[0] = '\0';
    const json_t *in = json_object_get(ompdag_condag_extra(g, -1), "input");
    if (!json_is_object(in)) return OMPDAG_OK;
    if (!json_is_true(json_object_get(in, "recorded"))) {
        row->input_why = json_string_value(json_object_get(in, "why"));
        return OMPDAG_OK;
    }
    int64_t x = 0, graham = 0, xm = INT64_MAX, gm = 0;
    ompdag_tied_rule rule_m = OMPDAG_TIED_NONE;
    ompdag_condag *p = NULL;
    const json_t *median = json_object_get(in, "delays_median");
    ompdag_rta_options o = *ro; /* the input's runtime may sharpen the tied rule */
    ompdag_status st = pruned_graph(g, in, row->graph, &p, err);
    if (!st) o.root_creation_never_suspends = root_creation_never_suspends(in, p, row);
    if (!st) st = bound_of(p, &o, &x, &row->input_tied_rule, &graham, err);
    if (!st && json_is_object(median)) st = use_medians(p, in, err);
    if (!st && json_is_object(median)) st = bound_of(p, &o, &xm, &rule_m, &gm, err);
    bool along_chain = false;
    if (!st && json_is_object(median))
        st = path_budget(p, in, &o, rule_m, &xm, &gm, &along_chain, err);
    ompdag_condag_destroy(p);
    if (st) return st;
    /* per-instance maxima: a sub-flow with no larger delays (the top of the file) */
    assert(x <= row->bound_times_m);
    row->input_delay_model = "instance maxima";
    if (xm < x) { /* annotate_input_budget.c: medians + one run's excess */
        x = xm, graham = gm, row->input_tied_rule = rule_m;
        row->input_delay_model = along_chain
                                     ? "instance medians + the largest run excess along the chain"
                                     : "instance medians + the largest run excess";
    }
    row->input_graham_times_m = graham;
    row->input_bound_times_m = x < row->bound_times_m ? x : row->bound_times_m;
    int64_t unit_ns = ompdag_time_unit_ns(ompdag_condag_time_unit(g));
    row->input_bound_ns =
        unit_ns ? (double)row->input_bound_times_m * (double)unit_ns / row->m : -1;
    row->input_claim = json_string_value(json_object_get(in, "claim"));
    return OMPDAG_OK;
}
