/*
 * annotate/annotate_compact.c — `ompdag annotate` on compact graphs
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

/* ---- plain graphs: WCETs by location for instances the run did not reach ----
 *
 * Issue 22: a graph extracted with --recursion-bound has one copy of a
 * recursive body per depth; a run reaches the base case only at some depths
 * (a binary tree of depth 6: only the deepest), so the base case's nodes at
 * the other depths were "never observed".  Two steps, both only raising
 * WCETs (docs/probe.md "WCETs by location"):
 *
 * 1. Twin classes.  Tasks whose source nodes share a code location run the
 *    same code from their start: a segment class k of one (points a -> b)
 *    is also a class of every other task with that location, between the
 *    points at the same locations as a and b (a twin), when that task has
 *    no class of its own there.  The twin is charged by the rule of
 *    annotate_internal.h, so the safety argument carries over with "the
 *    same code took at most E(k)" in place of "this segment took E(k)".
 * 2. A node still unobserved whose location some observed node shares takes
 *    cover + prefix: cover, the largest estimate of a class whose path runs
 *    a node of that location (the longest segment measured through that
 *    code), and prefix, the largest estimate of a class of its own task
 *    that starts where its segments start (the code from there to the
 *    branch that leads to the node ran in that class).  A segment through
 *    the node is its prefix up to the branch plus code of that location's
 *    segments, so the sum covers it.
 */

void annot_locations_free(annot_locations *L)
{
    free(L->id);
    free(L->tstart);
    free(L->tnodes);
    memset(L, 0, sizeof *L);
}

/* L->id: equal for nodes of the same (kind, file, line, col, label), -1 for
 * a node without a line; L->tstart/tnodes: each task's nodes (CSR). */
bool annot_locations_build(const ompdag_condag *g, annot_locations *L)
{
    int32_t n = ompdag_condag_node_count(g), nt = ompdag_condag_task_count(g), k = 0;
    loc_key *keys = malloc(sizeof *keys * (size_t)(n ? n : 1));
    L->id = malloc(sizeof *L->id * (size_t)(n ? n : 1));
    L->tstart = calloc((size_t)nt + 2, sizeof *L->tstart);
    L->tnodes = malloc(sizeof *L->tnodes * (size_t)(n ? n : 1));
    if (!keys || !L->id || !L->tstart || !L->tnodes) {
        free(keys);
        annot_locations_free(L);
        return false;
    }
    for (int32_t v = 0; v < n; ++v) {
        ompdag_loc l = ompdag_condag_node_loc(g, v);
        L->id[v] = -1;
        ++L->tstart[ompdag_condag_node_task(g, v) + 2];
        if (l.line)
            keys[k++] = (loc_key){v,      (char)ompdag_condag_node_kind(g, v),
                                  l.file, ompdag_condag_node_label(g, v),
                                  l.line, l.col};
    }
    qsort(keys, (size_t)k, sizeof *keys, cmp_loc);
    for (int32_t i = 0; i < k; ++i)
        L->id[keys[i].v] = i && same_loc(&keys[i - 1], &keys[i]) ? L->id[keys[i - 1].v] : keys[i].v;
    free(keys);
    for (int32_t t = 0; t < nt; ++t) /* counts at t + 2 -> starts at t + 1 */
        L->tstart[t + 2] += L->tstart[t + 1];
    for (int32_t v = 0; v < n; ++v) /* fills [t] .. : tstart[t + 1] ends as task t's end */
        L->tnodes[L->tstart[ompdag_condag_node_task(g, v) + 1]++] = v;
    return true;
}

/* Nodes of `task` at location `loc` (a point node of a twin task). */
static int32_t nodes_at(const annot_locations *L, int32_t task, int32_t loc, int32_t *out,
                        int32_t cap)
{
    int32_t k = 0;
    for (int32_t i = L->tstart[task]; i < L->tstart[task + 1] && k < cap; ++i)
        if (L->id[L->tnodes[i]] == loc) out[k++] = L->tnodes[i];
    return k;
}

/* Appends one twin of class k in task t with point nodes sn, en, when the
 * points have a path in t and t has no class of its own there. */
static bool twin_add(const ompdag_annotation *a, const seg_class *k, int32_t t, int32_t sn,
                     int32_t en, annot_twins *tw, uint8_t *mark, int32_t *stack)
{
    const graph_info *gi = &a->graphs[k->graph];
    if (annot_class_find(a, k->graph, t, k->sk, sn, k->ek, en)) return true;
    int32_t len = annot_segment_path(gi, t, k->sk, sn, k->ek, en, mark, stack);
    if (len == 0 && !annot_empty_segment(gi->g, t, k->sk, sn, k->ek, en)) return true;
    if (!annot_grow((void **)&tw->v, &tw->cap, tw->n + 1, sizeof *tw->v)) return false;
    seg_class *c = &tw->v[tw->n++];
    *c = (seg_class){.graph = k->graph, .task = t, .sk = k->sk, .sn = sn, .ek = k->ek, .en = en};
    c->charged = annot_charged_node(gi->g, t, k->sk, sn, k->ek, en);
    c->max = k->max, c->median = k->median, c->estimate = k->estimate;
    c->borrowed = k->samples.n + k->samples_if.n;
    return true;
}

/* Twins of class k in every other task whose source shares its location. */
static bool twins_of(const ompdag_annotation *a, const seg_class *k, const annot_locations *L,
                     annot_twins *tw, uint8_t *mark, int32_t *stack)
{
    const ompdag_condag *g = a->graphs[k->graph].g;
    const int32_t *locid = L->id;
    int32_t nt = ompdag_condag_task_count(g), key = locid[ompdag_condag_task_source(g, k->task)];
    bool s_node = k->sk == OMPDAG_POINT_CREATE || k->sk == OMPDAG_POINT_WAIT;
    bool e_node = k->ek == OMPDAG_POINT_CREATE || k->ek == OMPDAG_POINT_WAIT;
    if (key < 0 || (s_node && locid[k->sn] < 0) || (e_node && locid[k->en] < 0)) return true;
    for (int32_t t = 0; t < nt; ++t) {
        if (t == k->task || locid[ompdag_condag_task_source(g, t)] != key) continue;
        int32_t sv[MAX_CANDIDATES] = {k->sn}, ev[MAX_CANDIDATES] = {k->en};
        int32_t ns = s_node ? nodes_at(L, t, locid[k->sn], sv, MAX_CANDIDATES) : 1;
        int32_t ne = e_node ? nodes_at(L, t, locid[k->en], ev, MAX_CANDIDATES) : 1;
        for (int32_t i = 0; i < ns; ++i)
            for (int32_t j = 0; j < ne; ++j)
                if (!twin_add(a, k, t, sv[i], ev[j], tw, mark, stack)) return false;
    }
    return true;
}

static int cmp_twin(const void *x, const void *y)
{
    const seg_class *a = x, *b = y;
    int64_t ka[6] = {(int64_t)a->graph, a->task, a->sk, a->sn, a->ek, a->en};
    int64_t kb[6] = {(int64_t)b->graph, b->task, b->sk, b->sn, b->ek, b->en};
    for (int i = 0; i < 6; ++i)
        if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

/* One twin per class key: the largest of the twins found for it (several
 * tasks of one location may lend to the same task). */
static void twins_merge(annot_twins *tw)
{
    if (!tw->n) return;
    qsort(tw->v, tw->n, sizeof *tw->v, cmp_twin);
    size_t out = 0;
    for (size_t i = 1; i < tw->n; ++i) {
        seg_class *d = &tw->v[out], *s = &tw->v[i];
        if (cmp_twin(d, s)) {
            tw->v[++out] = *s;
            continue;
        }
        d->estimate = s->estimate > d->estimate ? s->estimate : d->estimate;
        d->max = s->max > d->max ? s->max : d->max;
        d->median = s->median > d->median ? s->median : d->median;
        d->borrowed += s->borrowed;
    }
    tw->n = out + 1;
}

bool annot_location_twins(const ompdag_annotation *a, size_t graph, const annot_locations *L,
                          annot_twins *tw, uint8_t *mark, int32_t *stack)
{
    size_t first = tw->n;
    for (size_t k = 0; k < a->nclasses; ++k)
        if (a->classes[k].graph == graph && !twins_of(a, &a->classes[k], L, tw, mark, stack))
            return false;
    annot_twins mine = {tw->v + first, tw->n - first, tw->n - first};
    twins_merge(&mine);
    tw->n = first + mine.n;
    return true;
}

/* The largest estimate of a class of g (real or twin, in classes[0..n))
 * per start point: *pt[v] for WAIT at W node v or CREATE at T node v (the
 * kinds differ, so one array serves both), *beg[t] for BEGIN of task t. */
static void start_maxima(const seg_class *classes, size_t n, size_t graph, int64_t *pt,
                         int64_t *beg)
{
    for (size_t k = 0; k < n; ++k) {
        const seg_class *c = &classes[k];
        if (c->graph != graph) continue;
        int64_t *slot = c->sk == OMPDAG_POINT_BEGIN ? &beg[c->task] : &pt[c->sn];
        *slot = c->estimate > *slot ? c->estimate : *slot;
    }
}

/* prefix of node v (task t): the largest start-point maximum over the
 * points its segments can start at, found by walking F-predecessors back
 * to the task's source, a T node (after its directive) or a W node.
 * mark[] is all zero on entry and on return (only the nodes visited, kept
 * in stack[n..2n), are cleared: one call per node must not cost O(n)). */
static int64_t prefix_of(const graph_info *gi, int32_t v, const int64_t *pt, const int64_t *beg,
                         uint8_t *mark, int32_t *stack)
{
    const ompdag_condag *g = gi->g;
    int32_t t = ompdag_condag_node_task(g, v), top = 0, nseen = 0, *seen = stack + gi->n;
    if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_W) return pt[v];
    int64_t best = 0;
    stack[top++] = seen[nseen++] = v;
    mark[v] = 1;
    while (top > 0) {
        int32_t u = stack[--top];
        if (u == ompdag_condag_task_source(g, t)) best = beg[t] > best ? beg[t] : best;
        for (int32_t i = gi->pred_start[u]; i < gi->pred_start[u + 1]; ++i) {
            int32_t p = gi->pred[i];
            ompdag_kind k = ompdag_condag_node_kind(g, p);
            if (k == OMPDAG_KIND_T || k == OMPDAG_KIND_W)
                best = pt[p] > best ? pt[p] : best;
            else if (!mark[p])
                mark[p] = 1, stack[top++] = seen[nseen++] = p;
        }
    }
    while (nseen > 0)
        mark[seen[--nseen]] = 0;
    return best;
}

ompdag_status annot_fill_by_location(const ompdag_annotation *a, size_t graph,
                                     const annot_locations *L, const annot_twins *tw,
                                     annot_node_values *nv, uint8_t *mark, int32_t *stack,
                                     ompdag_error *err)
{
    const graph_info *gi = &a->graphs[graph];
    int32_t n = gi->n, nt = ompdag_condag_task_count(gi->g);
    int64_t *pt = calloc((size_t)n + 1, sizeof *pt), *beg = calloc((size_t)nt + 1, sizeof *beg);
    int64_t *cover = calloc((size_t)n + 1, sizeof *cover), *mx = calloc((size_t)n + 1, sizeof *mx);
    int64_t *md = calloc((size_t)n + 1, sizeof *md);
    uint64_t *cnt = calloc((size_t)n + 1, sizeof *cnt);
    bool ok = pt && beg && cover && mx && md && cnt, fits = true;
    if (ok) {
        memset(mark, 0, (size_t)n); /* prefix_of keeps it clear */
        start_maxima(a->classes, a->nclasses, graph, pt, beg);
        start_maxima(tw->v, tw->n, graph, pt, beg);
        for (int32_t u = 0; u < n; ++u) { /* per location: over its observed nodes */
            int32_t l = L->id[u];
            if (l < 0 || !nv->samples[u]) continue;
            cover[l] = nv->cover[u] > cover[l] ? nv->cover[u] : cover[l];
            mx[l] = nv->omax[u] > mx[l] ? nv->omax[u] : mx[l];
            md[l] = nv->omed[u] > md[l] ? nv->omed[u] : md[l];
            cnt[l] = cnt[l] + nv->samples[u] < cnt[l] ? UINT64_MAX : cnt[l] + nv->samples[u];
        }
        for (int32_t v = 0; v < n && fits; ++v) {
            int32_t l = L->id[v];
            if (nv->samples[v] || l < 0 || !cnt[l]) continue;
            int64_t pre = prefix_of(gi, v, pt, beg, mark, stack);
            fits = !__builtin_add_overflow(cover[l], pre, &nv->basis[v]);
            nv->samples[v] = cnt[l], nv->omax[v] = mx[l], nv->omed[v] = md[l];
            nv->from_location[v] = 1;
        }
    }
    free(pt), free(beg), free(cover), free(mx), free(md), free(cnt);
    if (!ok) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    if (!fits) return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW, "annotate: WCET overflows");
    return OMPDAG_OK;
}
