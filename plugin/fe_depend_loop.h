/*
 * plugin/fe_depend_loop.h — depend subscripts that name a compact loop's
 * variable (fe_depend_loop.c), private to the front end.
 */
#ifndef OMPDAG_FE_DEPEND_LOOP_H
#define OMPDAG_FE_DEPEND_LOOP_H

#include <stdbool.h>

#include "fe_walk.h"

/* The variable of an enclosing compact loop (a bind with compact_test != 0
 * visible in w's task and depth) that the subscript text [b, e) names as
 * an identifier, or NULL. */
const fe_bind *fe_depend_loop_var(const walker *w, const char *b, const char *e);

/* True when [b, e) is `x + rest` in C's grammar: x named once, as a
 * top-level additive term with coefficient +1 (x, x + 1, (i - 2), 3 + x),
 * so its value is x plus the value of the text with x = 0. */
bool fe_depend_loop_affine(const char *x, const char *b, const char *e);

#endif
