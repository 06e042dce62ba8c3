/*
 * tests/plugin/fe_test.h — helpers for the front-end tests: extract an
 * example or an inline source, and describe a graph by source lines (T, W
 * and C nodes by line, W-edges as "task line>taskwait line" pairs).
 */
#ifndef OMPDAG_FE_TEST_H
#define OMPDAG_FE_TEST_H

#include <stdbool.h>
#include <stddef.h>

#include "ompdag/condag.h"
#include "ompdag/frontend.h"
#include "ompdag/internal/condag_json.h"

/* Absolute path of a file under the source tree (static buffer). */
const char *fe_test_path(const char *rel);

/* Extracts examples/<rel>; returns the status, *set owned by the caller
 * (NULL on parse errors), *fe (if non-NULL) receives the front end. */
ompdag_status fe_test_extract(const char *path, const char *const *args, int nargs,
                              int recursion_bound, ompdag_condag_set **set, ompdag_frontend **fe);

/* Writes `source` to a temporary .c file and extracts it.  The file name is
 * returned through *path (static buffer). */
ompdag_status fe_test_extract_source(const char *source, ompdag_condag_set **set,
                                     ompdag_frontend **fe, const char **path);

/* Writes `source` to a new temporary directory as `name`; path receives
 * the file's path.  fe_test_remove() deletes the file and the directory. */
bool fe_test_write(const char *source, const char *name, char path[128]);
void fe_test_remove(const char *path);

/* Sorted, comma-separated lines of the nodes of `kind`, e.g. "17,17,24". */
const char *fe_test_lines(const ompdag_condag *g, ompdag_kind kind, char *buf, size_t size);

/* Sorted, comma-separated W-edges "Tline>Wline" (T = creator of the task
 * whose sink has the W-edge). */
const char *fe_test_wedges(const ompdag_condag *g, char *buf, size_t size);

/* Number of nodes of `kind`. */
int fe_test_count(const ompdag_condag *g, ompdag_kind kind);

/* True when some diagnostic has this line and contains `needle`. */
int fe_test_has_diag(const ompdag_frontend *fe, int line, const char *needle);

#endif
