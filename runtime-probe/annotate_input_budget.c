/*
 * runtime-probe/annotate_input_budget.c — the second delay model of the
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
 */
#include "annotate_internal.h"

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

static uint64_t by_run_key(const void *rec, int k)
{
    const annot_node_delay *d = rec;
    return k == 0 ? d->trace : d->run;
}

static int cmp_by_run(const void *x, const void *y)
{
    const annot_node_delay *a = x, *b = y;
    if (a->trace != b->trace) return a->trace < b->trace ? -1 : 1;
    return a->run < b->run ? -1 : a->run > b->run;
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

/* The largest run excess, from the records sorted by run. */
static bool largest_excess(const annot_node_delay *d, size_t n, const int64_t *median,
                           int64_t *excess)
{
    *excess = 0;
    for (size_t i = 0, j; i < n; i = j) {
        int64_t x = 0;
        for (j = i; j < n && d[j].trace == d[i].trace && d[j].run == d[i].run; ++j) {
            int64_t over = d[j].value - median[(size_t)d[j].node * 3 + d[j].kind];
            if (over > 0 && __builtin_add_overflow(x, over, &x)) return false;
        }
        if (x > *excess) *excess = x;
    }
    return true;
}

bool annot_input_budget(const graph_info *g, int64_t *median, int64_t *excess)
{
    size_t n = g->nndel;
    for (size_t i = 0; i < (size_t)g->n * 3; ++i)
        median[i] = -1;
    *excess = 0;
    if (!n) return true;
    annot_node_delay *d = malloc(n * sizeof *d);
    if (!d) return false;
    memcpy(d, g->ndel, n * sizeof *d);
    bool ok = annot_sort_records(d, n, sizeof *d, 2, by_node_key, cmp_by_node);
    if (ok) medians(d, n, median);
    ok = ok && annot_sort_records(d, n, sizeof *d, 2, by_run_key, cmp_by_run) &&
         largest_excess(d, n, median, excess);
    free(d);
    return ok;
}
