/*
 * runtime-probe/annotate_compact.c — `ompdag annotate` on compact graphs
 * (docs/compact.md, docs/probe.md "Shared bodies").
 *
 * WCETs by code location: in a compact graph the bodies of one recursive
 * function at different depths repeat the same code.  After the per-node
 * rule of annotate_internal.h, every node takes the maximum of the nodes
 * at its code location (same kind, file, line, column and label): a base
 * case seen at one depth covers every depth, and a node is unobserved only
 * when its location was never observed anywhere.  Raising a WCET to a value
 * some node of the same code measured never lowers a bound, so the safe
 * attribution rule is kept: each node's WCET still covers every segment
 * charged to it.
 *
 * Depth: a task instance nested deeper than any creation chain of the graph
 * ran recursion the graph cut off (beyond its recursion bound); the bound
 * does not cover that run, so annotate refuses the trace.  With a bound per
 * function the whole nesting can stay within the graph's deepest chain
 * while one recursion goes deeper than its own bound (BOTS sort: cilksort
 * shallow, cilkmerge deep), so the depth is also counted per task
 * directive: a run's creation chain maps onto a graph chain directive by
 * directive, so more tasks created at one directive along a run's chain than
 * along any chain of the graph cannot be mapped, and is refused the same way.
 */
#include "annotate_internal.h"
#include "ompdag/compact.h"

typedef struct loc_key {
    int32_t v;
    char kind;
    const char *file, *label;
    int32_t line, col;
} loc_key;

static int cmp_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

static int cmp_loc(const void *x, const void *y)
{
    const loc_key *a = x, *b = y;
    int c = (a->kind > b->kind) - (a->kind < b->kind);
    if (!c) c = (a->line > b->line) - (a->line < b->line);
    if (!c) c = (a->col > b->col) - (a->col < b->col);
    if (!c) c = cmp_str(a->file, b->file);
    if (!c) c = cmp_str(a->label, b->label);
    return c ? c : (a->v > b->v) - (a->v < b->v);
}

static bool same_loc(const loc_key *a, const loc_key *b)
{
    return a->kind == b->kind && a->line == b->line && a->col == b->col &&
           !cmp_str(a->file, b->file) && !cmp_str(a->label, b->label);
}

bool annot_share_by_location(const ompdag_condag *g, uint64_t *samples, int64_t *basis,
                             int64_t *omax, int64_t *omed)
{
    if (!ompdag_compact_is_compact(g)) return true;
    int32_t n = ompdag_condag_node_count(g), k = 0;
    loc_key *keys = malloc(sizeof *keys * (size_t)(n ? n : 1));
    if (!keys) return false;
    for (int32_t v = 0; v < n; ++v) {
        ompdag_loc l = ompdag_condag_node_loc(g, v);
        if (l.line) /* a node without a location shares nothing */
            keys[k++] = (loc_key){v,      (char)ompdag_condag_node_kind(g, v),
                                  l.file, ompdag_condag_node_label(g, v),
                                  l.line, l.col};
    }
    qsort(keys, (size_t)k, sizeof *keys, cmp_loc);
    for (int32_t i = 0, j; i < k; i = j) {
        uint64_t s = 0;
        int64_t b = 0, mx = 0, md = 0;
        for (j = i; j < k && same_loc(&keys[i], &keys[j]); ++j) {
            int32_t v = keys[j].v;
            s = s + samples[v] < s ? UINT64_MAX : s + samples[v];
            b = basis[v] > b ? basis[v] : b;
            mx = omax[v] > mx ? omax[v] : mx;
            md = omed[v] > md ? omed[v] : md;
        }
        for (int32_t x = i; x < j; ++x) {
            int32_t v = keys[x].v;
            samples[v] = s, basis[v] = b, omax[v] = mx, omed[v] = md;
        }
    }
    free(keys);
    return true;
}

int32_t annot_graph_nesting(const ompdag_condag *g)
{
    int32_t n = ompdag_condag_node_count(g), nt = ompdag_condag_task_count(g), deepest = 0;
    int32_t *depth = calloc((size_t)nt + 1, sizeof *depth);
    if (!depth) return INT32_MAX;                      /* cannot tell: never refuse for it */
    const int32_t *topo = ompdag_condag_topo_order(g); /* creators before created */
    for (int32_t i = 0; i < n; ++i) {
        int32_t v = topo[i], c = ompdag_condag_node_creates(g, v);
        if (c < 0) continue;
        int32_t d = depth[ompdag_condag_node_task(g, v)] + 1;
        if (d > depth[c]) depth[c] = d;
        if (d > deepest) deepest = d;
    }
    free(depth);
    return deepest;
}

int32_t annot_graph_site_depth(const ompdag_condag *g, const char *file, int32_t line)
{
    int32_t n = ompdag_condag_node_count(g), nt = ompdag_condag_task_count(g), deepest = 0;
    int32_t *depth = calloc((size_t)nt + 1, sizeof *depth); /* T nodes at the site above a task */
    if (!depth) return INT32_MAX;                           /* cannot tell: never refuse for it */
    const int32_t *topo = ompdag_condag_topo_order(g);      /* creators before created */
    for (int32_t i = 0; i < n; ++i) {
        int32_t v = topo[i], c = ompdag_condag_node_creates(g, v);
        if (c < 0) continue;
        ompdag_loc l = ompdag_condag_node_loc(g, v);
        bool at = l.line == line && (!l.file || annot_same_file(l.file, file));
        int32_t d = depth[ompdag_condag_node_task(g, v)] + at;
        if (d > depth[c]) depth[c] = d;
        if (at && d > deepest) deepest = d;
    }
    free(depth);
    return deepest;
}
