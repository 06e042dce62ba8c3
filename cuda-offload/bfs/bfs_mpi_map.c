/*
 * bfs_mpi_map.c — task regions mapped over the nodes of an MPI job with
 * co-location of neighbours at the node level (issue 30 item 3; Sheng et
 * al. 2015, DISPAR/StreamMAP: adjacent regions are placed together so that
 * their data stays on one node).  Two passes of the one-machine greedy rule
 * (ompdag_map_regions, cuda-offload/offload/map.c):
 *   1. every node is one resource (capacity: the sum of its targets', CG
 *      when it has a GPU), and each region goes to a node: an adjacent
 *      region's node while it stays within its capacity's share, else the
 *      least-loaded node;
 *   2. each node's regions, with the edges between them, are mapped over
 *      that node's targets by the same rule.
 * So a region's neighbour pulls it onto the neighbour's node even when the
 * neighbour's own target is full, where the one-level rule would take the
 * least-loaded target of any node.  Needs no MPI: cmd_map.c gathers the
 * targets of every node and calls it on rank 0.
 */
#include <stdlib.h>

#include "ompdag/bfs_mpi.h"

/* Node-level resources: capacities summed, CG when any target is. */
static ompdag_map_resource *node_resources(const ompdag_map_resource *targets, const int *node,
                                           int ntargets, int nnodes)
{
    ompdag_map_resource *nodes = calloc((size_t)nnodes, sizeof *nodes);
    for (int k = 0; nodes && k < nnodes; ++k)
        nodes[k] = (ompdag_map_resource){"node", OMPDAG_REGION_CO, 0};
    for (int t = 0; nodes && t < ntargets; ++t) {
        nodes[node[t]].capacity += targets[t].capacity;
        if (targets[t].kind == OMPDAG_REGION_CG) nodes[node[t]].kind = OMPDAG_REGION_CG;
    }
    return nodes;
}

/* Pass 2 for node k: its regions and inner edges over its targets. */
static ompdag_status map_within(int k, const ompdag_map_region *regions, int nregions,
                                const int32_t *edges, int nedges,
                                const ompdag_map_resource *targets, const int *node, int ntargets,
                                const int32_t *node_of, int32_t *assign, ompdag_error *err)
{
    ompdag_map_region *sub = malloc(sizeof *sub * (size_t)(nregions ? nregions : 1));
    ompdag_map_resource *mine = malloc(sizeof *mine * (size_t)(ntargets ? ntargets : 1));
    int32_t *index = malloc(sizeof *index * (size_t)(nregions ? nregions : 1));
    int32_t *sub_edges = malloc(sizeof *sub_edges * 2 * (size_t)(nedges ? nedges : 1));
    int32_t *sub_assign = malloc(sizeof *sub_assign * (size_t)(nregions ? nregions : 1));
    int *target_of = malloc(sizeof *target_of * (size_t)(ntargets ? ntargets : 1));
    ompdag_status st = OMPDAG_OK;
    if (!sub || !mine || !index || !sub_edges || !sub_assign || !target_of)
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "map: out of memory");
    int nsub = 0, nmine = 0, nsub_edges = 0;
    for (int r = 0; st == OMPDAG_OK && r < nregions; ++r)
        index[r] = node_of[r] == k ? nsub : -1, nsub += node_of[r] == k;
    for (int r = 0; st == OMPDAG_OK && r < nregions; ++r)
        if (index[r] >= 0) sub[index[r]] = regions[r];
    for (int t = 0; st == OMPDAG_OK && t < ntargets; ++t)
        if (node[t] == k) target_of[nmine] = t, mine[nmine++] = targets[t];
    for (int e = 0; st == OMPDAG_OK && e < nedges; ++e)
        if (index[edges[2 * e]] >= 0 && index[edges[2 * e + 1]] >= 0) {
            sub_edges[2 * nsub_edges] = index[edges[2 * e]];
            sub_edges[2 * nsub_edges++ + 1] = index[edges[2 * e + 1]];
        }
    if (st == OMPDAG_OK && nsub > 0)
        st = ompdag_map_regions(sub, nsub, sub_edges, nsub_edges, mine, nmine, sub_assign, err);
    for (int r = 0; st == OMPDAG_OK && r < nregions; ++r)
        if (index[r] >= 0) assign[r] = target_of[sub_assign[index[r]]];
    free(sub), free(mine), free(index), free(sub_edges), free(sub_assign), free(target_of);
    return st;
}

ompdag_status ompdag_map_over_nodes(const ompdag_map_region *regions, int nregions,
                                    const int32_t *edges, int nedges,
                                    const ompdag_map_resource *targets, const int *node,
                                    int ntargets, int32_t *assign, ompdag_error *err)
{
    int nnodes = 0;
    for (int t = 0; t < ntargets; ++t) {
        if (!node || node[t] < 0 || node[t] >= ntargets)
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                    "map: target %d has node %d (of at most %d)", t,
                                    node ? node[t] : -1, ntargets);
        if (node[t] + 1 > nnodes) nnodes = node[t] + 1;
    }
    ompdag_map_resource *nodes = node_resources(targets, node, ntargets, nnodes);
    int32_t *node_of = malloc(sizeof *node_of * (size_t)(nregions > 0 ? nregions : 1));
    ompdag_status st = nodes && node_of
                           ? OMPDAG_OK
                           : ompdag_error_set(err, OMPDAG_ERR_NOMEM, "map: out of memory");
    for (int k = 0; st == OMPDAG_OK && k < nnodes; ++k)
        if (!(nodes[k].capacity > 0))
            st = ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "map: node %d has no target", k);
    if (st == OMPDAG_OK)
        st = ompdag_map_regions(regions, nregions, edges, nedges, nodes, nnodes, node_of, err);
    for (int k = 0; st == OMPDAG_OK && k < nnodes; ++k)
        st = map_within(k, regions, nregions, edges, nedges, targets, node, ntargets, node_of,
                        assign, err);
    free(nodes);
    free(node_of);
    return st;
}
