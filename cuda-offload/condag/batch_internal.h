/*
 * cuda-offload/condag/batch_internal.h — a batch of con-DAGs flattened into
 * one node array, with nodes bucketed by height for level-synchronous
 * evaluation (include/ompdag/condag_gpu.h).
 */
#ifndef OMPDAG_CONDAG_BATCH_INTERNAL_H
#define OMPDAG_CONDAG_BATCH_INTERNAL_H

#include <stdint.h>

#include "ompdag/error.h"
#include "ompdag/exact_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct condag_batch {
    int32_t n;         /* nodes of all graphs */
    int32_t ngraphs;
    char *kind;        /* 'N','T','W','C','J' */
    int64_t *wcet;
    int32_t *succ_off; /* n+1 */
    int32_t *succ;     /* F-successors, global indices */
    int32_t *child;    /* source of the created task, or -1 */
    int32_t *root;     /* per graph: its root task's source */
    int32_t nlevels;
    int32_t *level_off;   /* nlevels+1 */
    int32_t *level_nodes; /* n, grouped by height, height 0 first */
} condag_batch;

/* Threads per block of the level kernel, and of its simulation. */
#define CONDAG_BLOCK 256

void condag_batch_free(condag_batch *b);

/* Evaluates every level on the GPU / in the simulator; rows has n entries. */
ompdag_status condag_eval_gpu(const condag_batch *b, int32_t m, ompdag_exact_row *rows,
                              ompdag_error *err);
void condag_eval_sim(const condag_batch *b, int32_t m, ompdag_exact_row *rows);

/* The kernel's body for thread `i` of a level: shared by .cu and simulator. */
static inline OMPDAG_HD void condag_level_thread(const condag_batch *b, const int32_t *nodes,
                                                 int32_t count, int32_t i, int32_t m,
                                                 ompdag_exact_row *rows)
{
    if (i >= count)
        return;
    int32_t v = nodes[i];
    ompdag_exact_eval_node(rows, v, b->kind[v], b->wcet[v], (int64_t)m * b->wcet[v],
                           b->succ + b->succ_off[v], b->succ_off[v + 1] - b->succ_off[v],
                           b->child[v]);
}

#ifdef __cplusplus
}
#endif
#endif
