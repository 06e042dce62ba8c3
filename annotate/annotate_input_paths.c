/*
 * annotate/annotate_input_paths.c — the longest paths of one run's
 * excesses, for the budget model of the input's DAG
 * (annotate_input_budget.c, docs/probe.md#input).
 *
 * Graham's chain (Graham 1966; with dispatch delays, docs/overheads.md) is a
 * path of the flow: F-, T-, W- and D-edges.  The tied rules' chains are paths
 * of larger graphs (docs/tied.md): ROOT's of G_r (G plus y -> F-succ(a(y))
 * for every non-root node y, a(y) the root T node it lies under), and
 * ROOT_WAITS's of G_r' (G plus y -> w for every root W node w first after
 * a(y)).  A run's excess along its chain is at most the longest path of
 * that run's node excesses in the chain's graph.  Here: G and G_r', both in
 * one pass each over a Kahn order; the D-edges are the union over flows
 * (ompdag_condag_depend_edges), a superset of any one flow's, so the paths
 * only grow.  G_r's is ompdag_rta_tied_root_path's (analysis/rta_tied.c).
 */
#include "annotate_internal.h"

/* The root's F-walks to its first W's cost at most this many steps in all
 * (each walk is linear; many T nodes before one far W make them quadratic);
 * past it the G_r' path is not computed and the caller keeps the sum. */
#define WALK_BUDGET 50000000

struct annot_paths {
    const ompdag_condag *g;
    int32_t n;
    int32_t *doff, *dsucc; /* D-edges (union), CSR by source */
    int32_t *woff, *wsucc; /* G_r' extra edges y -> w, CSR by y */
    int32_t *order;        /* a topological order of G_r' (also one of G) */
    int64_t *best;
};

/* CSR of `count` edges from[i] -> to[i] over n nodes (new arrays). */
static bool csr(int32_t n, const int32_t *from, const int32_t *to, int64_t count, int32_t **off,
                int32_t **succ)
{
    *off = calloc((size_t)n + 2, sizeof **off);
    *succ = malloc(((size_t)count + 1) * sizeof **succ);
    if (!*off || !*succ) return false;
    for (int64_t i = 0; i < count; ++i)
        ++(*off)[from[i] + 2];
    for (int32_t v = 0; v < n; ++v)
        (*off)[v + 2] += (*off)[v + 1];
    for (int64_t i = 0; i < count; ++i)
        (*succ)[(*off)[from[i] + 1]++] = to[i];
    return true;
}

/* under[t]: the root T node whose child's subtree holds task t (-1 for the
 * root), by walking creators with memo (no recursion). */
static int32_t *root_creators(const ompdag_condag *g)
{
    int32_t nt = ompdag_condag_task_count(g), root = ompdag_condag_root_task(g);
    int32_t *under = malloc(((size_t)nt + 1) * sizeof *under);
    int32_t *walk = malloc(((size_t)nt + 1) * sizeof *walk);
    if (!under || !walk) {
        free(under), free(walk);
        return NULL;
    }
    for (int32_t t = 0; t < nt; ++t)
        under[t] = t == root ? -1 : -2;
    for (int32_t t = 0; t < nt; ++t) {
        int32_t k = 0, x = t, ans = -2;
        while (ans == -2) { /* climb until a known task or a child of the root */
            if (under[x] != -2) {
                ans = under[x];
                break;
            }
            walk[k++] = x;
            int32_t creator = ompdag_condag_task_creator(g, x);
            int32_t parent = ompdag_condag_node_task(g, creator);
            if (parent == root) ans = creator;
            x = parent;
        }
        while (k > 0) /* every task below a root child shares its answer */
            under[walk[--k]] = ans;
    }
    free(walk);
    return under;
}

/* The root W nodes first after root node a (along F-edges, no W between). */
static bool first_waits(const ompdag_condag *g, int32_t a, int32_t **list, int32_t *n, int32_t *cap,
                        uint32_t *seen, uint32_t stamp, int32_t *stack, int64_t *budget)
{
    int32_t sp = 0, cnt;
    const int32_t *s = ompdag_condag_node_fsucc(g, a, &cnt);
    for (int32_t i = 0; i < cnt; ++i)
        stack[sp++] = s[i];
    *n = 0;
    while (sp > 0) {
        int32_t v = stack[--sp];
        if (seen[v] == stamp) continue;
        if (--*budget < 0) return false; /* quadratic roots: the caller keeps the sum */
        seen[v] = stamp;
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_W) {
            if (*n == *cap) {
                int32_t *p = realloc(*list, (size_t)(*cap = *cap * 2 + 8) * sizeof *p);
                if (!p) return false;
                *list = p;
            }
            (*list)[(*n)++] = v;
            continue;
        }
        s = ompdag_condag_node_fsucc(g, v, &cnt);
        for (int32_t i = 0; i < cnt; ++i)
            if (seen[s[i]] != stamp) stack[sp++] = s[i];
    }
    return true;
}

/* G_r' extra edges: from every node under root T node a to a's first W's. */
static bool root_wait_edges(struct annot_paths *p)
{
    const ompdag_condag *g = p->g;
    int32_t *under = root_creators(g), *firsts = NULL, nf = 0, capf = 0;
    int32_t *from = NULL, *to = NULL, *stack = malloc(((size_t)p->n + 1) * sizeof *stack);
    int32_t **per = calloc((size_t)p->n + 1, sizeof *per), *perc = calloc((size_t)p->n + 1, 4);
    uint32_t *seen = calloc((size_t)p->n + 1, sizeof *seen);
    int64_t count = 0, cap = 0, budget = WALK_BUDGET;
    bool ok = under && stack && per && perc && seen;
    for (int32_t a = 0, stamp = 1; ok && a < p->n; ++a) { /* first W's of each root T node */
        if (ompdag_condag_node_kind(g, a) != OMPDAG_KIND_T ||
            ompdag_condag_node_task(g, a) != ompdag_condag_root_task(g))
            continue;
        ok = first_waits(g, a, &firsts, &nf, &capf, seen, (uint32_t)stamp++, stack, &budget) &&
             (per[a] = malloc(((size_t)nf + 1) * sizeof **per)) != NULL;
        if (ok && nf) memcpy(per[a], firsts, (size_t)nf * sizeof *firsts); /* NULL while empty */
        if (ok) perc[a] = nf;
    }
    for (int32_t y = 0; ok && y < p->n; ++y) {
        int32_t a = under[ompdag_condag_node_task(g, y)];
        for (int32_t i = 0; ok && a >= 0 && i < perc[a]; ++i) {
            if (count == cap) {
                cap = cap * 2 + 64;
                int32_t *f = realloc(from, (size_t)cap * sizeof *f);
                if (f) from = f;
                int32_t *t = f ? realloc(to, (size_t)cap * sizeof *t) : NULL;
                if (t) to = t;
                ok = f && t;
            }
            if (ok) from[count] = y, to[count] = per[a][i], ++count;
        }
    }
    ok = ok && csr(p->n, from, to, count, &p->woff, &p->wsucc);
    for (int32_t a = 0; per && a < p->n; ++a)
        free(per[a]);
    free(under), free(firsts), free(from), free(to), free(stack), free(per), free(perc), free(seen);
    return ok;
}

/* Calls visit(u) for every successor u of v in G, and in G_r' when extra. */
#define FOR_SUCC(p, v, extra, u, body)                                                             \
    do {                                                                                           \
        int32_t nf_, nw_;                                                                          \
        const int32_t *fs_ = ompdag_condag_node_fsucc((p)->g, v, &nf_);                            \
        const int32_t *ws_ = ompdag_condag_node_wsucc((p)->g, v, &nw_);                            \
        for (int32_t i_ = 0; i_ < nf_; ++i_) {                                                     \
            int32_t u = fs_[i_];                                                                   \
            body;                                                                                  \
        }                                                                                          \
        for (int32_t i_ = 0; i_ < nw_; ++i_) {                                                     \
            int32_t u = ws_[i_];                                                                   \
            body;                                                                                  \
        }                                                                                          \
        if (ompdag_condag_node_kind((p)->g, v) == OMPDAG_KIND_T) {                                 \
            int32_t u = ompdag_condag_task_source((p)->g, ompdag_condag_node_creates((p)->g, v));  \
            body;                                                                                  \
        }                                                                                          \
        for (int32_t i_ = (p)->doff[v]; i_ < (p)->doff[v + 1]; ++i_) {                             \
            int32_t u = (p)->dsucc[i_];                                                            \
            body;                                                                                  \
        }                                                                                          \
        for (int32_t i_ = (p)->woff[v]; (extra) && i_ < (p)->woff[v + 1]; ++i_) {                  \
            int32_t u = (p)->wsucc[i_];                                                            \
            body;                                                                                  \
        }                                                                                          \
    } while (0)

/* Kahn's order of G_r' (acyclic: docs/tied.md §4b); false on a cycle. */
static bool topological(struct annot_paths *p)
{
    int32_t *indeg = calloc((size_t)p->n + 1, sizeof *indeg), head = 0, tail = 0;
    if (!indeg) return false;
    for (int32_t v = 0; v < p->n; ++v)
        FOR_SUCC(p, v, true, u, ++indeg[u]);
    for (int32_t v = 0; v < p->n; ++v)
        if (!indeg[v]) p->order[tail++] = v;
    while (head < tail) {
        int32_t v = p->order[head++];
        FOR_SUCC(p, v, true, u, if (--indeg[u] == 0) p->order[tail++] = u);
    }
    free(indeg);
    return tail == p->n;
}

annot_paths *annot_paths_create(const ompdag_condag *g)
{
    annot_paths *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->g = g, p->n = ompdag_condag_node_count(g);
    int32_t *from = NULL, *to = NULL;
    int64_t count = 0;
    ompdag_error err;
    p->order = malloc(((size_t)p->n + 1) * sizeof *p->order);
    p->best = malloc(((size_t)p->n + 1) * sizeof *p->best);
    bool ok = p->order && p->best &&
              ompdag_condag_depend_edges(g, &from, &to, &count, &err) == OMPDAG_OK &&
              csr(p->n, from, to, count, &p->doff, &p->dsucc) && root_wait_edges(p) &&
              topological(p);
    free(from), free(to);
    if (!ok) annot_paths_destroy(p), p = NULL;
    return p;
}

void annot_paths_destroy(annot_paths *p)
{
    if (!p) return;
    free(p->doff), free(p->dsucc), free(p->woff), free(p->wsucc), free(p->order), free(p->best);
    free(p);
}

bool annot_paths_longest(annot_paths *p, const int64_t *w, bool root_waits, int64_t *out)
{
    *out = 0;
    for (int32_t v = 0; v < p->n; ++v)
        p->best[v] = 0;
    for (int32_t k = 0; k < p->n; ++k) {
        int32_t v = p->order[k];
        int64_t here;
        if (__builtin_add_overflow(p->best[v], w[v], &here)) return false;
        if (here > *out) *out = here;
        FOR_SUCC(p, v, root_waits, u, if (here > p->best[u]) p->best[u] = here);
    }
    return true;
}
