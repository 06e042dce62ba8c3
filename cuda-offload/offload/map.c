/*
 * map.c — greedy mapping of task regions to resources, DISPAR's StreamMAP
 * step 3 (seed 001, Sheng et al. 2015), for one machine:
 *
 *   - walk the region graph from its start (breadth-first from the regions
 *     with no predecessor, lowest index first; regions left unvisited, e.g.
 *     on a cycle, start new walks in index order);
 *   - a CG region (it launches a GPU kernel) needs a CG resource; a CO region
 *     can take either kind;
 *   - prefer a resource already given to an adjacent region (predecessor or
 *     successor), to keep communication local — as long as that resource's
 *     load stays within its capacity's share of the total load, the one
 *     refinement here, so one machine's regions do not all pile onto the
 *     resource of the first;
 *   - otherwise take the least-loaded resource, load/capacity, lowest index
 *     on ties;
 *   - write a mapping file.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/fileio.h"
#include "offload_internal.h"

static bool compatible(ompdag_region_class region, ompdag_region_class resource)
{
    return region == OMPDAG_REGION_CO || resource == OMPDAG_REGION_CG;
}

ompdag_status ompdag_map_regions(const ompdag_map_region *regions, int nregions,
                                 const int32_t *edges, int nedges,
                                 const ompdag_map_resource *res, int nres, int32_t *assign,
                                 ompdag_error *err)
{
    if (nregions < 0 || nedges < 0 || nres < 0 || (nregions > 0 && (!regions || !assign)) ||
        (nedges > 0 && !edges))
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "map: bad arguments");
    if (nregions == 0)
        return OMPDAG_OK;
    if (nres == 0 || !res)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "map: no resource to map onto");
    double total_cap = 0, total_load = 0;
    for (int i = 0; i < nres; ++i) {
        if (!(res[i].capacity > 0) || !isfinite(res[i].capacity))
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                    "map: resource %d (%s) has capacity %g; it must be > 0", i,
                                    res[i].name ? res[i].name : "?", res[i].capacity);
        total_cap += res[i].capacity;
    }
    for (int r = 0; r < nregions; ++r) {
        if (!(regions[r].load >= 0) || !isfinite(regions[r].load))
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "map: region %d (%s) has load %g",
                                    r, regions[r].name ? regions[r].name : "?", regions[r].load);
        total_load += regions[r].load;
    }
    for (int e = 0; e < 2 * nedges; ++e)
        if (edges[e] < 0 || edges[e] >= nregions)
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                    "map: edge %d names region %d (of %d)", e / 2, edges[e],
                                    nregions);
    /* Undirected adjacency in CSR, and in-degrees for the starts. */
    int *deg = calloc((size_t)nregions + 1, sizeof *deg);
    int *indeg = calloc((size_t)nregions, sizeof *indeg);
    int *adj = malloc((size_t)(2 * nedges > 0 ? 2 * nedges : 1) * sizeof *adj);
    int *fill = calloc((size_t)nregions, sizeof *fill);
    int *queue = malloc((size_t)nregions * sizeof *queue);
    double *load = calloc((size_t)nres, sizeof *load);
    if (!deg || !indeg || !adj || !fill || !queue || !load) {
        free(deg), free(indeg), free(adj), free(fill), free(queue), free(load);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "map: out of memory");
    }
    for (int e = 0; e < nedges; ++e) {
        deg[edges[2 * e] + 1]++;
        deg[edges[2 * e + 1] + 1]++;
        indeg[edges[2 * e + 1]]++;
    }
    for (int r = 0; r < nregions; ++r)
        deg[r + 1] += deg[r];
    for (int e = 0; e < nedges; ++e) {
        int a = edges[2 * e], b = edges[2 * e + 1];
        adj[deg[a] + fill[a]++] = b;
        adj[deg[b] + fill[b]++] = a;
    }
    for (int r = 0; r < nregions; ++r)
        assign[r] = -1;

    ompdag_status st = OMPDAG_OK;
    int head = 0, tail = 0;
    /* Pass 0 seeds with the sources; pass 1 with anything left. */
    for (int pass = 0; pass < 2 && st == OMPDAG_OK; ++pass)
        for (int start = 0; start < nregions && st == OMPDAG_OK; ++start) {
            if (assign[start] >= 0 || (pass == 0 && indeg[start] > 0))
                continue;
            bool queued = false;
            for (int i = 0; i < tail; ++i)
                queued |= queue[i] == start;
            if (queued)
                continue;
            queue[tail++] = start;
            while (head < tail) {
                int r = queue[head++];
                const ompdag_map_region *R = &regions[r];
                int best = -1;
                /* Co-location with an adjacent region's resource. */
                for (int j = deg[r]; j < deg[r + 1]; ++j) {
                    int u = assign[adj[j]];
                    if (u < 0 || !compatible(R->cls, res[u].kind))
                        continue;
                    double share = total_load * res[u].capacity / total_cap;
                    if (load[u] + R->load > share * (1 + 1e-12) + 1e-300)
                        continue;
                    if (best < 0 || load[u] / res[u].capacity < load[best] / res[best].capacity ||
                        (load[u] / res[u].capacity == load[best] / res[best].capacity && u < best))
                        best = u;
                }
                /* Otherwise the least-loaded compatible resource. */
                if (best < 0)
                    for (int u = 0; u < nres; ++u)
                        if (compatible(R->cls, res[u].kind) &&
                            (best < 0 || load[u] / res[u].capacity < load[best] / res[best].capacity))
                            best = u;
                if (best < 0) {
                    st = ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                          "map: region %s is CG (it runs GPU code) but there is "
                                          "no CG resource (no GPU)",
                                          R->name ? R->name : "?");
                    break;
                }
                assign[r] = best;
                load[best] += R->load;
                for (int j = deg[r]; j < deg[r + 1]; ++j) {
                    int v = adj[j];
                    if (assign[v] >= 0)
                        continue;
                    bool in = false;
                    for (int i = 0; i < tail && !in; ++i)
                        in = queue[i] == v;
                    if (!in)
                        queue[tail++] = v;
                }
            }
        }
    free(deg), free(indeg), free(adj), free(fill), free(queue), free(load);
    return st;
}

ompdag_status ompdag_map_write(const char *path, const ompdag_map_region *regions, int nregions,
                               const ompdag_map_resource *res, int nres, const int32_t *assign,
                               ompdag_error *err)
{
    for (int r = 0; r < nregions; ++r)
        if (assign[r] < 0 || assign[r] >= nres)
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                    "map: region %d has no valid resource (%d)", r, assign[r]);
    ompdag_atomic_file *f = NULL;
    ompdag_status st = ompdag_atomic_file_open(path, &f, err);
    if (st != OMPDAG_OK)
        return st;
    FILE *out = ompdag_atomic_file_stream(f);
    fprintf(out, "{\n  \"format\": \"ompdag-mapping\",\n  \"version\": 1,\n  \"resources\": [");
    for (int i = 0; i < nres; ++i) {
        double load = 0;
        for (int r = 0; r < nregions; ++r)
            if (assign[r] == i)
                load += regions[r].load;
        fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
        ompdag_json_write_string(out, res[i].name ? res[i].name : "");
        fprintf(out, ", \"kind\": \"%s\", \"capacity\": %.17g, \"load\": %.17g}",
                res[i].kind == OMPDAG_REGION_CG ? "CG" : "CO", res[i].capacity, load);
    }
    fprintf(out, "\n  ],\n  \"regions\": [");
    for (int r = 0; r < nregions; ++r) {
        fprintf(out, "%s\n    {\"name\": ", r ? "," : "");
        ompdag_json_write_string(out, regions[r].name ? regions[r].name : "");
        fprintf(out, ", \"class\": \"%s\", \"load\": %.17g, \"resource\": ",
                regions[r].cls == OMPDAG_REGION_CG ? "CG" : "CO", regions[r].load);
        ompdag_json_write_string(out, res[assign[r]].name ? res[assign[r]].name : "");
        fprintf(out, ", \"resource_index\": %d}", assign[r]);
    }
    fprintf(out, "\n  ]\n}\n");
    return ompdag_atomic_file_commit(f, err);
}
