/*
 * plugin/fe_depend.h — depend clauses on T nodes (fe_depend.c; condag.md §6),
 * private to the front end.
 */
#ifndef OMPDAG_FE_DEPEND_H
#define OMPDAG_FE_DEPEND_H

#include "fe_internal.h"
#include "ompdag/condag.h"

typedef struct fe_dep fe_dep;
typedef struct fe_dep_region fe_dep_region;
struct walker;

/* Parses the depend clauses of task pragma p onto T node t_node, evaluating
 * array subscripts in this instance (loop variables bound by fe_loop.c).
 * Refuses (diagnostic naming file:line, false) types other than
 * in/out/inout, by name. */
bool fe_depend_attach(struct walker *w, const char *file, const fe_pragma *p, int32_t t_node);
void fe_depend_free(fe_dep *d); /* NULL is a no-op */
/* `#pragma omp taskwait [depend(…)]` at pragma p: a W node after the current
 * flow, carrying the evaluated items of its depend clauses (a partial
 * taskwait, docs/depend.md).  Refuses other clauses (nowait) by name. */
bool fe_depend_taskwait(struct walker *w, const char *file, const fe_pragma *p);
/* True when a clause of d is mutexinoutset (NULL: none). */
bool fe_depend_has_mutexinoutset(const fe_dep *d);

/* The region's view of its items (the aliasing rule of fe_depend.c): which
 * are memory-based, and which array bases split into constant cells.  NULL
 * on ENOMEM; free with fe_depend_region_free. */
fe_dep_region *fe_depend_region_new(const fe_graph *fg);
void fe_depend_region_free(fe_dep_region *r); /* NULL is a no-op */
/* Adds node v's clauses to builder node idx, applying the aliasing rule. */
ompdag_status fe_depend_emit(const fe_graph *fg, int32_t v, const fe_dep_region *r,
                             ompdag_condag *g, int32_t idx, ompdag_error *err);

#endif
