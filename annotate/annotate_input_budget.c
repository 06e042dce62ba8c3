/*
 * annotate/annotate_input_budget.c — the second delay model of the
 * input's DAG (docs/probe.md#input): a steady value per instance plus one
 * excess budget per run, after the "per-run excess budget" of the design in
 * the project's tightness study (the budget idea of mixed-criticality
 * analyses: bound the sum of overruns, not each overrun).
 *
 * Graham's chain with dispatch delays (docs/overheads.md) charges a run's
 * own delays d(v) on the chain: m·R <= vol + Σ_chain ((m−1)·c(v) + m·d(v)).
 * Write d(v) <= c_v + max(0, d(v) − c_v) with c_v the median of the
 * instance's delays over the clean runs; the excesses of the chain's nodes
 * are at most the run's excess over all its nodes, X(run) = Σ_v max(0,
 * d(v) − c_v).  So with E the largest X over the observed runs, a run of
 * the same structure whose excess stays within E has
 *
 *   m·R <= vol + Σ_chain ((m−1)·c(v) + m·c_v) + m·E,
 *
 * that is, Graham with the medians as delays and E charged once where every
 * chain starts (the root's source, as team formation).  Per-instance maxima
 * (annotate_input.c) sum the worst run of every node along a long chain;
 * this sums one run's worst total.  Report takes the smaller bound and says
 * which model gave it.
 *
 * WCETs take the same model: a class's sample s in a run is at most its
 * median c_k plus max(0, s − c_k), and a node's time in a run is at most the
 * sum over its class groups of their medians (the largest median among the
 * reached classes of a group: "wcets_median") plus its classes' excesses
 * y(v).  Two budgets follow, each the largest over the clean runs:
 *
 *   run_excess_ns: X + Y, the delay and WCET excesses summed over every
 *     node.  With every node's excess folded anywhere (the volume, the
 *     tied rules' folded forms) this covers all of them, charged m times.
 *   run_excess_path_ns and run_excess_work_ns: the longest path of
 *     x(v) + y(v) in G_r (the tied ROOT rule's graph, docs/tied.md §4: G and
 *     the edges y -> F-succ(a(y)); every Graham chain and every ROOT chain is
 *     a path of it), and Y.  For the chain-only forms,
 *       m·R <= vol_med + Y + Σ_chain ((m−1)·(c + y) + m·(d_med + x))
 *           <= [Graham with the medians] + m·(path + ceil(Y / m)),
 *     because the chain's delay waits lie on one path and its WCETs too.
 *     On KASTORS jacobi 64 tasks wait at once, and X (their overlapping
 *     waits summed) was 5× the run itself; the path is not.
 */
#include "annotate_internal.h"

#include <assert.h>

#include "ompdag/internal/condag_json.h"
#include "ompdag/rta.h"

static uint64_t by_node_key(const void *rec, int k)
{
    const annot_node_delay *d = rec;
    return k == 0 ? ((uint64_t)(uint32_t)d->node << 8 | d->kind) : (uint64_t)d->value;
}

static int cmp_by_node(const void *x, const void *y)
{
    const annot_node_delay *a = x, *b = y;
    uint64_t ka = by_node_key(a, 0), kb = by_node_key(b, 0);
    if (ka != kb) return ka < kb ? -1 : 1;
    return a->value < b->value ? -1 : a->value > b->value;
}

/* median[v·3 + kind] from the records sorted by (node, kind, value). */
static void medians(const annot_node_delay *d, size_t n, int64_t *median)
{
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && d[j].node == d[i].node && d[j].kind == d[i].kind; ++j)
            ;
        median[(size_t)d[i].node * 3 + d[i].kind] = d[i + (j - i) / 2].value;
    }
}

/* One node's excess in one run: a delay's over its instance median, or a
 * WCET sample's over its class median (wcet = 1). */
typedef struct run_excess {
    uint32_t trace;
    uint64_t run;
    int32_t node;
    uint8_t wcet;
    int64_t over;
} run_excess;

static int cmp_excess_run(const void *x, const void *y)
{
    const run_excess *a = x, *b = y;
    if (a->trace != b->trace) return a->trace < b->trace ? -1 : 1;
    return a->run < b->run ? -1 : a->run > b->run;
}

/* Every positive excess of graph `graph`'s clean runs (*out, caller frees). */
static bool collect_excesses(const ompdag_annotation *a, size_t graph, const graph_info *g,
                             const int64_t *median, run_excess **out, size_t *n)
{
    size_t cap = g->nndel + a->nwsamp + 1, k = 0;
    run_excess *e = malloc(cap * sizeof *e);
    if (!e) return false;
    for (size_t i = 0; i < g->nndel; ++i) {
        const annot_node_delay *d = &g->ndel[i];
        int64_t over = d->value - median[(size_t)d->node * 3 + d->kind];
        if (over > 0) e[k++] = (run_excess){d->trace, d->run, d->node, 0, over};
    }
    for (size_t i = 0; i < a->nwsamp; ++i) {
        const annot_wsample *w = &a->wsamp[i];
        const seg_class *c = &a->classes[w->cls];
        int64_t over = w->dur - c->median;
        if (c->graph == graph && over > 0)
            e[k++] = (run_excess){w->trace, w->run, c->charged, 1, over};
    }
    qsort(e, k, sizeof *e, cmp_excess_run);
    *out = e, *n = k;
    return true;
}

/* The longest path of weights w in G_r of `copy` (WCETs replaced, no
 * delays); false when it cannot be computed (the caller keeps the sum). */
static bool longest_excess_path(ompdag_condag *copy, const int64_t *w, int64_t *lp)
{
    ompdag_error err;
    for (int32_t v = 0; v < ompdag_condag_node_count(copy); ++v)
        if (ompdag_condag_assign_wcet(copy, v, w[v], &err) ||
            ompdag_condag_assign_delay(copy, v, 0, &err))
            return false;
    return ompdag_rta_tied_root_path(copy, lp, &err) == OMPDAG_OK;
}

/* A copy of g whose WCETs and delays the budget may overwrite, or NULL; its
 * T nodes take their clauses by address when annotate has them (depend), as
 * the report's bound of the input does, so the chains are paths of its
 * D-edges. */
static ompdag_condag *scratch_copy(const graph_info *g, const json_t *depend)
{
    json_t *j = ompdag_condag_to_json(g->g), *node;
    ompdag_condag *copy = NULL;
    ompdag_error err;
    size_t i;
    bool ok = j != NULL;
    json_array_foreach(json_object_get(j, "nodes"), i, node) ok =
        ok && condag_json_node_depend_from(node, depend);
    if (!ok || condag_from_json(j, "budget", &copy, &err)) copy = NULL;
    json_decref(j);
    return copy;
}

/* The largest of each path of one run's weights w, given the sum `all`
 * (every path is at most the sum: the fallback where a path is unknown). */
static void run_paths(annot_paths *paths, ompdag_condag *copy, const int64_t *w, int64_t all,
                      annot_budget *out)
{
    int64_t g = all, waits = all, root = all;
    if (paths && !annot_paths_longest(paths, w, false, &g)) g = all;
    if (paths && !annot_paths_longest(paths, w, true, &waits)) waits = all;
    if (!(copy && longest_excess_path(copy, w, &root))) root = all;
    assert(g <= waits || waits == all); /* G's edges are among G_r''s */
    if (g > out->path) out->path = g;
    if (waits > out->root_waits) out->root_waits = waits;
    if (root > out->root) out->root = root;
}

/* The budgets from the excesses sorted by run. */
static bool largest_budgets(const graph_info *g, const json_t *depend, const run_excess *e,
                            size_t n, annot_budget *out)
{
    int64_t *w = calloc((size_t)g->n + 1, sizeof *w);
    ompdag_condag *copy = n ? scratch_copy(g, depend) : NULL;
    annot_paths *paths = copy ? annot_paths_create(copy) : NULL;
    bool ok = w != NULL;
    for (size_t i = 0, j; ok && i < n; i = j) {
        int64_t x = 0, y = 0, all;
        for (j = i; ok && j < n && e[j].trace == e[i].trace && e[j].run == e[i].run; ++j)
            ok = !__builtin_add_overflow(e[j].wcet ? y : x, e[j].over, e[j].wcet ? &y : &x) &&
                 !__builtin_add_overflow(w[e[j].node], e[j].over, &w[e[j].node]);
        ok = ok && !__builtin_add_overflow(x, y, &all);
        if (ok) run_paths(paths, copy, w, all, out);
        if (ok && all > out->all) out->all = all;
        if (ok && y > out->work) out->work = y;
        for (size_t k = i; k < j; ++k)
            w[e[k].node] = 0;
    }
    annot_paths_destroy(paths);
    ompdag_condag_destroy(copy);
    free(w);
    return ok;
}

bool annot_input_budget(const ompdag_annotation *a, size_t graph, const json_t *depend,
                        int64_t *median, annot_budget *out)
{
    const graph_info *g = &a->graphs[graph];
    size_t n = g->nndel;
    for (size_t i = 0; i < (size_t)g->n * 3; ++i)
        median[i] = -1;
    *out = (annot_budget){0, 0, 0, 0, 0};
    annot_node_delay *d = malloc((n + 1) * sizeof *d);
    if (!d) return false;
    if (n) memcpy(d, g->ndel, n * sizeof *d); /* ndel is NULL while empty */
    bool ok = !n || annot_sort_records(d, n, sizeof *d, 2, by_node_key, cmp_by_node);
    if (ok) medians(d, n, median);
    free(d);
    run_excess *e = NULL;
    size_t ne = 0;
    ok = ok && collect_excesses(a, graph, g, median, &e, &ne) &&
         largest_budgets(g, depend, e, ne, out);
    free(e);
    return ok;
}
