/*
 * plugin/fe_depend.h — depend clauses on T nodes (fe_depend.c; condag.md §6),
 * private to the front end.
 */
#ifndef OMPDAG_FE_DEPEND_H
#define OMPDAG_FE_DEPEND_H

#include "fe_internal.h"
#include "ompdag/condag.h"

typedef struct fe_dep fe_dep;
struct walker;

/* Parses the depend clauses of task pragma p onto T node t_node; refuses
 * (diagnostic, false) types other than in/out/inout, by name. */
bool fe_depend_attach(struct walker *w, const char *file, const fe_pragma *p, int32_t t_node);
/* True when some item of the region is memory-based (see fe_depend.c). */
bool fe_depend_region_memory(const fe_graph *fg);
/* Adds node v's clauses to builder node idx, applying the aliasing rule. */
ompdag_status fe_depend_emit(const fe_graph *fg, int32_t v, bool region_memory, ompdag_condag *g,
                             int32_t idx, ompdag_error *err);
void fe_depend_free(fe_dep *d); /* NULL is a no-op */

#endif
