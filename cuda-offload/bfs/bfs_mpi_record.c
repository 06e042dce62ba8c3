/*
 * bfs_mpi_record.c — what both distributed searches (1-D, bfs_mpi.c; 2-D,
 * bfs_mpi_2d.c) record in a result: one level's figures, and the traversed
 * edges and reached vertices over all ranks (the TEPS numerator).
 */
#include <stdlib.h>
#include <string.h>

#include "bfs_mpi_internal.h"
#include "ompdag/internal/array.h"

/* Records level `depth` (found > 0 only, as the one-process engines do). */
bool bfs_dbfs_record(ompdag_dbfs_result *r, int depth, ompdag_bfs_direction dir, int64_t found,
                     int64_t bytes)
{
    r->bytes += bytes;
    if (found == 0) return true;
    if (depth >= r->lv_cap) {
        int cap = r->lv_cap ? 2 * r->lv_cap : 64;
        while (cap <= depth)
            cap *= 2;
        ompdag_dbfs_level *grown = realloc(r->lv, (size_t)cap * sizeof *grown);
        if (!grown) return false;
        r->lv = grown;
        r->lv_cap = cap;
    }
    r->lv[depth] = (ompdag_dbfs_level){.direction = dir, .visited = found, .bytes = bytes};
    r->level_count = depth + 1;
    return true;
}

/* Σ out-degree of reached vertices over all ranks (halved when symmetric),
 * and the reached count: the TEPS numerator, as ompdag_bfs_result_edges. */
void bfs_dbfs_count_traversed(const ompdag_dgraph *g, ompdag_dbfs_result *r)
{
    int64_t mine[2] = {0, 0}, all[2];
    for (int64_t v = 0; v < g->nl; ++v)
        if (r->levels[v] >= 0) {
            mine[0] += dg_local_degree(g, v);
            ++mine[1];
        }
    MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, g->comm);
    r->edges = g->symmetric ? all[0] / 2 : all[0];
    r->reached = all[1];
}
