/*
 * ompdag/dot.h — Graphviz drawing of a con-DAG with the conventions of
 * Figure 4 of Sun et al. 2020: C nodes are diamonds, J nodes triangles; F-edges dotted,
 * T-edges dashed, W-edges solid; one cluster per task.  Given a result with
 * a witness, the worst flow is filled and its critical path drawn in red;
 * nodes outside the flow are grey.
 */
#ifndef OMPDAG_DOT_H
#define OMPDAG_DOT_H

#include <stdio.h>

#include "ompdag/condag.h"
#include "ompdag/error.h"
#include "ompdag/rta.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes one `digraph` to out.  `worst` may be NULL (no highlighting) or a
 * result with a witness for this graph; it is only read. */
ompdag_status ompdag_dot_write(FILE *out, const ompdag_condag *g, const ompdag_rta_result *worst,
                               ompdag_error *err);

#ifdef __cplusplus
}
#endif
#endif
