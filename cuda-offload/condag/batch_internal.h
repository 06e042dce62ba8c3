/*
 * cuda-offload/condag/batch_internal.h — a batch of con-DAGs flattened into
 * one node array, with nodes bucketed by height for level-synchronous
 * evaluation (include/ompdag/condag_gpu.h).
 *
 * Everything the device reads lives in ONE packed host buffer (`pack`), so
 * the gpu evaluator moves the whole batch with one copy; its sections, in
 * this order (each starts aligned, int64 first):
 *   wcet        int64 x n
 *   succ_off    int32 x (n + 1)
 *   succ        int32 x edges    F-successors, global indices
 *   child       int32 x n        source of the created task, or -1
 *   level_nodes int32 x n        grouped by height, height 0 first
 *   root        int32 x ngraphs  per graph: its root task's source
 *   kind        char  x n        'N','T','W','C','J'
 * condag_pack_bytes() gives the size; tests assert the bytes moved by it.
 */
#ifndef OMPDAG_CONDAG_BATCH_INTERNAL_H
#define OMPDAG_CONDAG_BATCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ompdag/condag_gpu.h"
#include "ompdag/error.h"
#include "ompdag/exact_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct condag_batch {
    int32_t n; /* nodes of all graphs */
    int32_t ngraphs;
    int64_t edges;
    int64_t *wcet; /* these point into pack */
    int32_t *succ_off, *succ, *child, *level_nodes, *root;
    char *kind;
    int32_t nlevels;
    int32_t *level_off; /* nlevels+1, host only (launch sizes) */
    void *pack;         /* owned: the packed sections above */
    size_t pack_bytes;
    bool pinned; /* pack came from condag_gpu_host_alloc */
} condag_batch;

/* Threads per block of the level kernel, and of its simulation. */
#define CONDAG_BLOCK 256

size_t condag_pack_bytes(int64_t n, int64_t edges, int64_t ngraphs);
void condag_batch_free(condag_batch *b);

/* Evaluates every level on the GPU / in the simulator and writes each
 * graph's m·R to out[0..ngraphs).  The simulator counts what the GPU design
 * does (stats: launches, syncs, bytes); the GPU path counts what it did. */
ompdag_status condag_eval_gpu(const condag_batch *b, int32_t m, int64_t *out,
                              ompdag_batch_stats *stats, ompdag_error *err);
ompdag_status condag_eval_sim(const condag_batch *b, int32_t m, int64_t *out,
                              ompdag_batch_stats *stats, ompdag_error *err);
/* Page-locked host memory for the pack (kept for the process and reused;
 * NULL without CUDA or a device: the caller falls back to malloc). */
void *condag_gpu_host_alloc(size_t bytes);
void condag_gpu_host_release(void *p);

/* The kernel's body for thread `i` of a level: shared by .cu and simulator. */
static inline OMPDAG_HD void condag_level_thread(const condag_batch *b, const int32_t *nodes,
                                                 int32_t count, int32_t i, int32_t m,
                                                 ompdag_exact_row *rows)
{
    if (i >= count) return;
    int32_t v = nodes[i];
    ompdag_exact_eval_node(rows, v, b->kind[v], b->wcet[v], (int64_t)m * b->wcet[v],
                           b->succ + b->succ_off[v], b->succ_off[v + 1] - b->succ_off[v],
                           b->child[v]);
}

/* The gather kernel's body: thread i copies graph i's m·R (its root's A). */
static inline OMPDAG_HD void condag_gather_thread(const condag_batch *b, int32_t i,
                                                  const ompdag_exact_row *rows, int64_t *out)
{
    if (i < b->ngraphs) out[i] = rows[b->root[i]].q[OMPDAG_QA];
}

/* ---- the per-graph design (gpu-graphs, gpu-sim-graphs) ----
 * The pack holds every graph's own arrays as they are (local indices), so
 * the host only copies in bulk; thread g evaluates graph g in reverse
 * topological order.  Sections, in this order:
 *   wcet     int64 x n
 *   gnode    int32 x (ngraphs + 1)  first node of each graph (prefix)
 *   gedge    int32 x (ngraphs + 1)  first edge
 *   gtask    int32 x (ngraphs + 1)  first task
 *   root     int32 x ngraphs        the root task's source, local
 *   off      int32 x (n + ngraphs)  graph g's n_g + 1 successor offsets at gnode[g] + g
 *   succ     int32 x edges          local
 *   creates  int32 x n              local task, or -1
 *   tsrc     int32 x tasks          each task's source, local
 *   topo     int32 x n              local
 *   kind     char  x n */
typedef struct condag_gpack {
    int32_t n, ngraphs;
    int64_t edges, tasks;
    int64_t *wcet;
    int32_t *gnode, *gedge, *gtask, *root, *off, *succ, *creates, *tsrc, *topo;
    char *kind;
    void *pack; /* owned */
    size_t pack_bytes;
    bool pinned;
} condag_gpack;

size_t condag_gpack_bytes(int64_t n, int64_t edges, int64_t tasks, int64_t ngraphs);
ompdag_status condag_eval_graphs_gpu(const condag_gpack *p, int32_t m, int64_t *out,
                                     ompdag_batch_stats *stats, ompdag_error *err);

/* Thread g of the per-graph kernel: graph g's nodes in reverse topological
 * order, each by the per-node step; rows is the whole batch's (n rows). */
static inline OMPDAG_HD void condag_graph_thread(const condag_gpack *p, int32_t g, int32_t m,
                                                 ompdag_exact_row *rows, int64_t *out)
{
    if (g >= p->ngraphs) return;
    const int32_t nb = p->gnode[g], n = p->gnode[g + 1] - nb;
    const int32_t *off = p->off + nb + g, *succ = p->succ + p->gedge[g];
    const int32_t *creates = p->creates + nb, *tsrc = p->tsrc + p->gtask[g];
    const int32_t *topo = p->topo + nb;
    const int64_t *wcet = p->wcet + nb;
    const char *kind = p->kind + nb;
    ompdag_exact_row *r = rows + nb;
    for (int32_t i = n - 1; i >= 0; --i) {
        const int32_t v = topo[i], t = creates[v];
        ompdag_exact_eval_node(r, v, kind[v], wcet[v], (int64_t)m * wcet[v], succ + off[v],
                               off[v + 1] - off[v], t >= 0 ? tsrc[t] : -1);
    }
    out[g] = r[p->root[g]].q[OMPDAG_QA];
}

#ifdef __cplusplus
}
#endif
#endif
