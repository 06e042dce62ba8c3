/*
 * bfs_cpu_topdown.c — the reference BFS: serial, queue based, top-down only
 * (Cormen et al., "Introduction to Algorithms", §22.2).  Every other engine
 * is checked against its levels, and the benchmarks report their speed as a
 * ratio to it (the named baseline).
 */
#include <assert.h>
#include <stdlib.h>

#include "bfs_internal.h"
#include "ompdag/internal/clock.h"

ompdag_status bfs_engine_cpu_topdown(const ompdag_graph *g, int64_t source,
                                     const ompdag_bfs_options *opts, ompdag_bfs_result *r,
                                     ompdag_error *err)
{
    (void)opts;
    int64_t *queue = malloc((size_t)g->n * sizeof *queue);
    if (!queue)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "cpu-topdown: out of memory");
    int32_t *level = r->levels;
    int64_t *parent = r->parents;
    double t0 = ompdag_now_s();
    int64_t head = 0, tail = 0;
    queue[tail++] = source;
    level[source] = 0;
    parent[source] = source;
    int64_t level_end = tail;
    int32_t depth = 0;
    while (head < tail) {
        int64_t u = queue[head++];
        for (int64_t e = g->offsets[u]; e < g->offsets[u + 1]; ++e) {
            int64_t w = csr_nbr(g, e);
            if (level[w] < 0) {
                level[w] = level[u] + 1;
                parent[w] = u;
                queue[tail++] = w;
            }
        }
        if (head == level_end && tail > level_end) {
            /* the queue holds each vertex once, levels in order */
            assert(tail <= g->n && level[queue[tail - 1]] == depth + 1);
            ++depth;
            ompdag_bfs_level *rec = bfs_result_level_at(r, depth);
            if (!rec) {
                free(queue);
                return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "cpu-topdown: out of memory");
            }
            rec->direction = OMPDAG_BFS_TOP_DOWN;
            rec->visited = tail - level_end;
            level_end = tail;
        }
    }
    r->seconds = ompdag_now_s() - t0;
    free(queue);
    return OMPDAG_OK;
}
