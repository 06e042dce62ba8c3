/*
 * plugin/fe_mutex.h — locks taken by task code (fe_mutex.c; docs/mutex.md),
 * private to the front end.
 */
#ifndef OMPDAG_FE_MUTEX_H
#define OMPDAG_FE_MUTEX_H

#include "fe_internal.h"
#include "ompdag/condag.h"

typedef struct fe_locks fe_locks;
struct walker;

/* Plain code s was absorbed into the open node: records the locks it takes
 * (critical sections inside it, omp_set_lock calls, and those of the TU
 * functions it calls), refusing nested acquisitions by name.  true when the
 * walk may go on. */
bool fe_mutex_plain(struct walker *w, CXCursor s);
/* `#pragma omp critical` p prefixes plain statement s: absorbs s into the
 * open node and records one acquisition of p's lock on it. */
bool fe_mutex_critical(struct walker *w, const char *file, const fe_pragma *p, CXCursor s);
/* After the walk: a node that ends holding an omp lock (the section spans a
 * task scheduling point, or the lock is never released) is refused by name. */
bool fe_mutex_check(struct walker *w);
/* Adds node v's locks to builder node idx. */
ompdag_status fe_mutex_emit(const fe_graph *fg, int32_t v, ompdag_condag *g, int32_t idx,
                            ompdag_error *err);
/* True when node nd's code takes a lock. */
bool fe_mutex_takes_locks(const fe_node *nd);
/* True when some node of the graph takes a lock. */
bool fe_mutex_any(const fe_graph *fg);
void fe_mutex_free(fe_locks *l);                 /* NULL is a no-op */
void fe_mutex_memo_free(struct fe_lock_memo *m); /* NULL is a no-op */

#endif
