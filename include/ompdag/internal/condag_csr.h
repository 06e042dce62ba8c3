/*
 * ompdag/internal/condag_csr.h — INTERNAL: a finalized con-DAG's own arrays,
 * borrowed (not installed).  For code that walks every node of many graphs
 * and would otherwise pay one accessor call per field per node: the batch
 * evaluator (cuda-offload/condag/batch.c) copies these in bulk.
 */
#ifndef OMPDAG_INTERNAL_CONDAG_CSR_H
#define OMPDAG_INTERNAL_CONDAG_CSR_H

#include <stdint.h>

#include "ompdag/condag.h"

typedef struct ompdag_condag_csr {
    int32_t n;           /* nodes */
    int32_t nt;          /* tasks */
    const uint8_t *kind; /* n: ompdag_kind values ('N', 'T', 'W', 'C', 'J') */
    const int64_t *wcet; /* n */
    const int32_t
        *fsucc_off; /* n + 1: F-successors of v are fsucc[fsucc_off[v] .. fsucc_off[v+1]) */
    const int32_t *fsucc;
    const int32_t *creates;     /* n: task index or -1; NULL when no node creates a task */
    const int32_t *task_source; /* per task: its source node */
    const int32_t *topo;        /* n: a topological order of F and T edges */
    const int64_t *delay;       /* n: dispatch delays D(v); NULL when the graph has none */
} ompdag_condag_csr;

/* Fills *out with views of g's arrays, valid while g lives and is not
 * changed.  g must be finalized. */
void ompdag_condag_csr_view(const ompdag_condag *g, ompdag_condag_csr *out);

#endif
