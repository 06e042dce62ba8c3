/*
 * bfs_mpi_validate.c — Graph500 validation of a distributed search (Graph500
 * spec §8; the rules and their order are bfs_validate.c's), each rank
 * checking the vertices and rows it owns:
 *   1. tree:        parent[source] = source; a vertex has a parent exactly
 *                   when it has a level; every parent is a reached vertex;
 *   2. tree-levels: level[source] = 0 and level[v] = level[parent[v]] + 1
 *                   (with 1, every parent chain falls by one level a step
 *                   and ends at the only level-0 vertex, the source: so a
 *                   cycle fails here rather than under rule 1);
 *   5. parent-edge: (parent[v], v) is an arc: v's own sorted row holds
 *                   parent[v] when the graph is undirected; otherwise the
 *                   pair is sent to the parent's owner, who looks in its row;
 *   3. edge-levels and 4. spans: every arc (u, w) out of a reached u has w
 *                   reached and level[w] <= level[u] + 1.
 * Every rank holds all n levels while it checks (one MPI_Allgatherv, 4n
 * bytes); parents stay where they are.  Ranks own increasing blocks, so the
 * first failure of a pass is the first on the lowest rank that has one: the
 * vertex the one-process validator reports.
 */
#include <stdlib.h>
#include <string.h>

#include "bfs_mpi_internal.h"

/* One rank's first failure of a pass (rule OK: none). */
typedef struct dv_fail {
    int rule;
    int64_t vertex;
    char why[160];
} dv_fail;

static void dv_set(dv_fail *f, ompdag_bfs_rule rule, int64_t v, const char *why)
{
    if (f->rule != OMPDAG_BFS_RULE_OK) return;
    f->rule = (int)rule;
    f->vertex = v;
    snprintf(f->why, sizeof f->why, "%s", why);
}

/* Makes f the first failure over all ranks (the lowest rank's), on every
 * rank.  Returns true when there is one. */
static bool dv_agree(const ompdag_dgraph *g, dv_fail *f)
{
    int mine = f->rule != OMPDAG_BFS_RULE_OK ? g->rank : g->size, first;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, g->comm);
    if (first == g->size) return false;
    MPI_Bcast(f, (int)sizeof *f, MPI_BYTE, first, g->comm);
    return true;
}

/* Rule 1, on this rank's vertices. */
static void check_tree(const ompdag_dgraph *g, const ompdag_dbfs_result *r, const int32_t *all,
                       dv_fail *f)
{
    const int64_t src = r->source;
    if (dg_owner(g, src) == g->rank && r->parents[src - g->lo] != src)
        dv_set(f, OMPDAG_BFS_RULE_TREE, src, "the source is not its own parent");
    for (int64_t v = 0; v < g->nl; ++v)
        if ((r->parents[v] < 0) != (r->levels[v] < 0))
            dv_set(f, OMPDAG_BFS_RULE_TREE, g->lo + v,
                   r->parents[v] < 0 ? "it has a level but no parent"
                                     : "it has a parent but no level");
    for (int64_t v = 0; v < g->nl; ++v) {
        const int64_t p = r->parents[v];
        if (p >= g->n)
            dv_set(f, OMPDAG_BFS_RULE_TREE, g->lo + v, "its parent is not a vertex");
        else if (p >= 0 && all[p] < 0)
            dv_set(f, OMPDAG_BFS_RULE_TREE, g->lo + v,
                   "its parent chain reaches a vertex outside the tree");
    }
}

/* Rule 2. */
static void check_tree_levels(const ompdag_dgraph *g, const ompdag_dbfs_result *r,
                              const int32_t *all, dv_fail *f)
{
    const int64_t src = r->source;
    if (dg_owner(g, src) == g->rank && r->levels[src - g->lo] != 0)
        dv_set(f, OMPDAG_BFS_RULE_TREE_LEVELS, src, "the source's level is not 0");
    for (int64_t v = 0; v < g->nl; ++v)
        if (g->lo + v != src && r->parents[v] >= 0 && r->levels[v] != all[r->parents[v]] + 1)
            dv_set(f, OMPDAG_BFS_RULE_TREE_LEVELS, g->lo + v,
                   "its level is not its parent's level + 1");
}

/* True when local row lu holds global id w (rows are sorted). */
static bool row_has(const ompdag_dgraph *g, int64_t lu, int64_t w)
{
    int64_t lo = g->offsets[lu], hi = g->offsets[lu + 1];
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2, x = dg_nbr(g, mid);
        if (x == w) return true;
        if (x < w)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* Rule 5 on a directed graph: (parent, v) pairs go to the parent's owner.
 * Returns the smallest failing v over all ranks, or -1; -2 out of memory. */
static int64_t parent_arcs_remote(const ompdag_dgraph *g, const ompdag_dbfs_result *r)
{
    int *scount = calloc((size_t)g->size, sizeof *scount);
    int64_t *fill = calloc((size_t)g->size + 1, sizeof *fill);
    dg_pair *send = malloc((size_t)(g->nl > 0 ? g->nl : 1) * sizeof *send), *recv = NULL;
    int64_t cap = 0, nrecv = 0, bad = INT64_MAX;
    int ok = scount && fill && send, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, g->comm);
    if (all_ok) {
        for (int64_t v = 0; v < g->nl; ++v)
            if (r->parents[v] >= 0 && g->lo + v != r->source)
                ++fill[dg_owner(g, r->parents[v]) + 1];
        for (int p = 0; p < g->size; ++p) {
            scount[p] = (int)fill[p + 1];
            fill[p + 1] += fill[p];
        }
        for (int64_t v = 0; v < g->nl; ++v)
            if (r->parents[v] >= 0 && g->lo + v != r->source)
                send[fill[dg_owner(g, r->parents[v])]++] = (dg_pair){r->parents[v], g->lo + v};
        all_ok = bfs_mpi_exchange_pairs(g->comm, g->size, send, scount, &recv, &cap, &nrecv);
        for (int64_t i = 0; all_ok && i < nrecv; ++i)
            if (!row_has(g, recv[i].a - g->lo, recv[i].b) && recv[i].b < bad) bad = recv[i].b;
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_MIN, g->comm);
    }
    free(scount);
    free(fill);
    free(send);
    free(recv);
    return !all_ok ? -2 : bad == INT64_MAX ? -1 : bad;
}

/* Rule 5, agreed over all ranks.  Returns false when out of memory (on
 * every rank). */
static bool check_parent_edges(const ompdag_dgraph *g, const ompdag_dbfs_result *r, dv_fail *f)
{
    if (g->symmetric) {
        for (int64_t v = 0; v < g->nl; ++v)
            if (g->lo + v != r->source && r->parents[v] >= 0 && !row_has(g, v, r->parents[v]))
                dv_set(f, OMPDAG_BFS_RULE_PARENT_EDGE, g->lo + v,
                       "the edge from its parent is not in the graph");
        dv_agree(g, f);
        return true;
    }
    const int64_t bad = parent_arcs_remote(g, r);
    if (bad >= 0)
        dv_set(f, OMPDAG_BFS_RULE_PARENT_EDGE, bad, "the edge from its parent is not in the graph");
    return bad != -2;
}

/* Rules 3 and 4, in one pass over the rows of reached vertices. */
static void check_edges(const ompdag_dgraph *g, const ompdag_dbfs_result *r, const int32_t *all,
                        dv_fail *f)
{
    for (int64_t u = 0; u < g->nl && f->rule == OMPDAG_BFS_RULE_OK; ++u) {
        if (r->levels[u] < 0) continue;
        for (int64_t e = g->offsets[u]; e < g->offsets[u + 1]; ++e) {
            const int64_t w = dg_nbr(g, e);
            if (all[w] < 0) {
                dv_set(f, OMPDAG_BFS_RULE_SPANS, w,
                       "it is joined to a reached vertex but was not reached");
                break;
            }
            if (all[w] > r->levels[u] + 1) {
                dv_set(f, OMPDAG_BFS_RULE_EDGE_LEVELS, w,
                       "an edge joins it to a vertex more than one level above");
                break;
            }
        }
    }
}

/* Every rank's levels, gathered into all[0..n). */
static bool gather_levels(const ompdag_dgraph *g, const ompdag_dbfs_result *r, int32_t *all)
{
    int *counts = malloc(2 * (size_t)g->size * sizeof *counts);
    int ok = counts != NULL && g->block <= INT32_MAX && g->n <= INT32_MAX, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, g->comm);
    if (all_ok) {
        for (int p = 0; p < g->size; ++p) {
            counts[p] = (int)dg_rank_count(g, p);
            counts[g->size + p] = (int)dg_rank_lo(g, p);
        }
        MPI_Allgatherv(r->levels, (int)g->nl, MPI_INT32_T, all, counts, counts + g->size,
                       MPI_INT32_T, g->comm);
    }
    free(counts);
    return all_ok != 0;
}

static ompdag_status report(const dv_fail *f, ompdag_bfs_rule *rule, int64_t *vertex,
                            ompdag_error *err)
{
    if (rule) *rule = (ompdag_bfs_rule)f->rule;
    if (vertex) *vertex = f->vertex;
    return ompdag_error_set(
        err, OMPDAG_ERR_INVALID, "Graph500 rule %d (%s) failed at vertex %lld: %s", f->rule,
        ompdag_bfs_rule_name((ompdag_bfs_rule)f->rule), (long long)f->vertex, f->why);
}

ompdag_status ompdag_dbfs_validate(const ompdag_dgraph *g, const ompdag_dbfs_result *r,
                                   ompdag_bfs_rule *rule, int64_t *vertex, ompdag_error *err)
{
    if (rule) *rule = OMPDAG_BFS_RULE_OK;
    if (vertex) *vertex = -1;
    ompdag_status st = OMPDAG_OK;
    if (r->nl != g->nl || r->source < 0 || r->source >= g->n)
        st = ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                              "validate: the result is not a search of this graph");
    int32_t *all = st == OMPDAG_OK ? malloc((size_t)(g->n > 0 ? g->n : 1) * sizeof *all) : NULL;
    if (st == OMPDAG_OK && !all)
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "validate: out of memory for %lld levels",
                              (long long)g->n);
    if ((st = bfs_mpi_agree(g->comm, st, err)) != OMPDAG_OK) {
        free(all);
        return st;
    }
    if (!gather_levels(g, r, all)) {
        free(all);
        return ompdag_error_set(
            err, OMPDAG_ERR_NOMEM,
            "validate: the levels cannot be gathered (memory or 2^31 vertices)");
    }
    dv_fail f = {0};
    bool failed = false;
    check_tree(g, r, all, &f);
    failed = dv_agree(g, &f);
    if (!failed) {
        check_tree_levels(g, r, all, &f);
        failed = dv_agree(g, &f);
    }
    if (!failed && !check_parent_edges(g, r, &f)) {
        free(all);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "validate: out of memory");
    }
    failed = f.rule != OMPDAG_BFS_RULE_OK; /* the same on every rank after each pass */
    if (!failed) {
        check_edges(g, r, all, &f);
        dv_agree(g, &f);
    }
    free(all);
    return f.rule == OMPDAG_BFS_RULE_OK ? OMPDAG_OK : report(&f, rule, vertex, err);
}
