/*
 * analysis/condag_jsonscan.h — a small, strict JSON scanner for the bulk of a
 * con-DAG file (the "nodes" and "edges" arrays), shared by condag_json.c.
 *
 * jansson builds a hash table per object, which made loading a 10^6-node
 * file take ~3.7 s of parsing alone (bench/analysis, 2-core box); scanning
 * node objects straight into the builder is several times faster.  Every
 * other part of a file still goes through jansson.  Iterative throughout: no
 * recursion follows the input's nesting.
 */
#ifndef OMPDAG_CONDAG_JSONSCAN_H
#define OMPDAG_CONDAG_JSONSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ompdag/error.h"

typedef struct jscan {
    const char *base, *p, *end;
    const char *origin;
    char *scratch; /* decoded strings of the current object */
    size_t scratch_len, scratch_cap;
} jscan;

typedef struct jspan {
    const char *begin, *end;
} jspan;

/* Sets a PARSE error "origin:line:col: JSON syntax error: msg" at `at`. */
ompdag_status jscan_fail(const jscan *s, const char *at, ompdag_error *err, const char *msg);
void jscan_ws(jscan *s);
/* Skips one complete JSON value, checking its syntax. */
ompdag_status jscan_skip_value(jscan *s, ompdag_error *err);
/* Decodes a string at s->p into the scratch buffer; *off is its offset. */
ompdag_status jscan_string(jscan *s, size_t *off, ompdag_error *err);
/* Scans a number; *is_int tells whether it is an integer (then *value). */
ompdag_status jscan_number(jscan *s, bool *is_int, int64_t *value, ompdag_error *err);
static inline const char *jscan_str(const jscan *s, size_t off)
{
    return s->scratch + off;
}

#endif
