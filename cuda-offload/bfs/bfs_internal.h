/*
 * bfs_internal.h — what the BFS engines share inside the module: the result
 * layout and the engine entry points (one kernel per file, GAP-style).
 */
#ifndef OMPDAG_BFS_INTERNAL_H
#define OMPDAG_BFS_INTERNAL_H

#include "graph_internal.h"
#include "ompdag/bfs.h"

/* What a gpu / gpu-sim search cost in launches and synchronisations. */
typedef struct bfs_counts {
    int64_t launches, host_syncs, barriers;
} bfs_counts;

struct ompdag_bfs_result {
    int64_t n, source, reached, edges;
    double seconds;
    int32_t *levels;         /* n entries, -1 unreached */
    int64_t *parents;        /* n entries, -1 unreached */
    int64_t cap;             /* allocated entries of levels/parents */
    ompdag_bfs_level *lv;    /* lv[i] describes level i; lv[0] is unused */
    int level_count, lv_cap; /* levels including the source's */
    void *gpu_ctx;           /* gpu engine: device copy of gpu_graph, freed at destroy */
    const ompdag_graph *gpu_graph;
    void (*gpu_free)(void *ctx);
    bfs_counts counts;       /* gpu, gpu-sim */
    int64_t *cpu_queue[2];   /* cpu: frontier queues and bitmaps kept between searches, */
    uint64_t *cpu_bits[2];   /* touched once when allocated (no page faults in a search) */
    int64_t cpu_cap;         /* vertices they hold */
    int32_t *cpu_first;      /* cpu: per vertex its highest-degree neighbour, -1 if none, */
    uint64_t *cpu_live;      /* and a bitmap of the vertices with edges: built for the */
    uint64_t cpu_tables_uid; /* graph of this uid, outside the timed search */
    uint64_t *cpu_rest;      /* cpu: bottom-up's unvisited vertices with edges */
    double download_seconds; /* gpu: result copy after the search */
};

/* Sizes r for n vertices, sets every level/parent to -1 and clears records. */
ompdag_status bfs_result_prepare(ompdag_bfs_result *r, int64_t n, int64_t source, ompdag_error *err);
/* Returns a zeroed record for level `level` (>= 1), growing the list; NULL when out of memory. */
ompdag_bfs_level *bfs_result_level_at(ompdag_bfs_result *r, int level);

typedef ompdag_status (*bfs_engine_fn)(const ompdag_graph *g, int64_t source,
                                       const ompdag_bfs_options *opts, ompdag_bfs_result *r,
                                       ompdag_error *err);

ompdag_status bfs_engine_cpu_topdown(const ompdag_graph *g, int64_t source,
                                     const ompdag_bfs_options *opts, ompdag_bfs_result *r,
                                     ompdag_error *err);
ompdag_status bfs_engine_cpu_do(const ompdag_graph *g, int64_t source, const ompdag_bfs_options *opts,
                                ompdag_bfs_result *r, ompdag_error *err);
ompdag_status bfs_engine_gpu_sim(const ompdag_graph *g, int64_t source, const ompdag_bfs_options *opts,
                                 ompdag_bfs_result *r, ompdag_error *err);
#ifdef OMPDAG_HAVE_CUDA
/* In bfs_gpu.cu. */
ompdag_status bfs_engine_gpu(const ompdag_graph *g, int64_t source, const ompdag_bfs_options *opts,
                             ompdag_bfs_result *r, ompdag_error *err);
bool bfs_gpu_probe(char *why, size_t why_size);
/* In bfs_gpu_loop.cu: the device (and host) loop of ent_loop.h. */
ompdag_status bfs_engine_gpu_loop(const ompdag_graph *g, int64_t source,
                                  const ompdag_bfs_options *opts, ompdag_bfs_result *r,
                                  ompdag_error *err);
#endif
/* In bfs_gpu_sim.c: ent_loop.h's device / host loop run on the host. */
ompdag_status bfs_engine_gpu_sim_loop(const ompdag_graph *g, int64_t source,
                                      const ompdag_bfs_options *opts, ompdag_bfs_result *r,
                                      ompdag_error *err);
/* In bfs_stats.c: the key draw of ompdag_bfs_pick_sources from the sorted
 * vertices of degree >= 1, cand[0..k) (shuffled in place; k >= 1), so the
 * distributed engine picks the same keys as one process. */
void bfs_pick_from_candidates(int64_t *cand, int64_t k, int count, uint64_t seed, int64_t *keys);
/* Resolves OMPDAG_BFS_LOOP_AUTO. */
ompdag_bfs_loop bfs_loop_resolve(const ompdag_bfs_options *opts);

#endif
