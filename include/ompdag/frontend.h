/*
 * ompdag/frontend.h — the C front end: reads OpenMP C source with libclang
 * and builds one con-DAG per `parallel` region (docs/condag.md §1),
 * returned as an `ompdag-condag-set` (§5).
 *
 * The source is parsed with OpenMP off and `_OPENMP` defined, because with
 * -fopenmp libclang hides directive bodies behind CapturedStmt.  Directives
 * are found by tokenizing the file and attached to the statement that
 * follows them.  Constructs the model cannot represent soundly are refused
 * with a diagnostic naming file, line and column (docs/plugin.md has the
 * table).  WCETs are 0: the runtime probe fills them in.
 *
 * Both `ompdag extract` and the `clang -fplugin` shim call this API, so the
 * two produce identical files for identical flags.
 */
#ifndef OMPDAG_FRONTEND_H
#define OMPDAG_FRONTEND_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ompdag/condag.h"
#include "ompdag/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One extraction context: options plus the diagnostics of the last run. */
typedef struct ompdag_frontend ompdag_frontend;

typedef enum ompdag_diag_severity {
    OMPDAG_DIAG_NOTE = 0,
    OMPDAG_DIAG_WARNING = 1,
    OMPDAG_DIAG_ERROR = 2
} ompdag_diag_severity;

/* One front-end diagnostic.  All strings are borrowed from the front end and
 * stay valid until the next ompdag_frontend_extract() or destroy. */
typedef struct ompdag_frontend_diag {
    ompdag_diag_severity severity;
    ompdag_loc loc;      /* file/line/col of the offending directive or statement */
    const char *message; /* without the "file:line:col: error: " prefix */
} ompdag_frontend_diag;

/* Creates a front end with default options (no default recursion bound,
 * 100000 nodes per region, 4096 unrolled iterations per loop).  Returns NULL
 * on allocation failure.  Free with ompdag_frontend_destroy(). */
ompdag_frontend *ompdag_frontend_create(void);

/* Frees the front end and its diagnostics.  NULL is a no-op. */
void ompdag_frontend_destroy(ompdag_frontend *fe);

/* Default recursion bound used for recursive functions that carry no
 * `#pragma ompdag recursion_bound(N)` (the `--recursion-bound N` option).
 * 0 (the default) refuses such recursion.  Fails on a negative bound. */
ompdag_status ompdag_frontend_set_recursion_bound(ompdag_frontend *fe, int32_t bound,
                                                  ompdag_error *err);

/* Default loop bound for loops with task scheduling points that have
 * neither a constant trip count nor `#pragma ompdag loop_bound(N)` (the
 * `--loop-bound N` option): at most N iterations.  0 (the default) refuses
 * such loops.  Fails outside 0..4096. */
ompdag_status ompdag_frontend_set_loop_bound(ompdag_frontend *fe, int32_t bound, ompdag_error *err);

/* Binds a name for the input the graphs are built for (`--assume
 * NAME=VALUE`, docs/plugin.md "Bounds for a given input"): `assignment` is
 * "NAME=VALUE", NAME a global variable or a parameter of the function that
 * contains the parallel region, VALUE an integer constant.  Values are
 * carried down calls, and tests, trip counts and base cases that then
 * evaluate fold; each graph records the claim as extra key "assumptions".
 * The string is copied.  Fails (OMPDAG_ERR_ARGUMENT, message naming the
 * text) on bad syntax or a NAME given twice with different values; a NAME
 * that matches nothing is an error of the extraction. */
ompdag_status ompdag_frontend_assume(ompdag_frontend *fe, const char *assignment,
                                     ompdag_error *err);

/* The team size assumed for a `parallel` region whose threads all create
 * tasks and that has no constant num_threads (`--team-size N`): the graph
 * holds N implicit tasks and its bound is for m = N (docs/plugin.md#team);
 * 0 (the default): such regions are refused.  Fails unless 0 <= n <= 4096. */
ompdag_status ompdag_frontend_set_team_size(ompdag_frontend *fe, int32_t n, ompdag_error *err);

/* Largest number of nodes one region may have; beyond it the region is
 * refused.  Fails unless limit >= 1. */
ompdag_status ompdag_frontend_set_node_limit(ompdag_frontend *fe, int32_t limit, ompdag_error *err);

/* Extracts every parallel region of `source_path`, parsed with the compiler
 * arguments args[0..nargs-1] (-I, -D, -std=... as for clang; -fopenmp, -c,
 * -o FILE, -M* and -fplugin* are dropped).  On success or refusal *out
 * receives a new set (caller frees it with ompdag_condag_set_destroy())
 * holding the regions that were extracted; a refused region is absent.
 * Returns OMPDAG_OK when nothing was refused, OMPDAG_ERR_UNSUPPORTED when
 * some construct was refused, OMPDAG_ERR_PARSE when clang reported errors
 * (then *out is NULL).  Details are in the diagnostics below; err gets the
 * first one, formatted like a compiler's. */
ompdag_status ompdag_frontend_extract(ompdag_frontend *fe, const char *source_path,
                                      const char *const *args, int nargs, ompdag_condag_set **out,
                                      ompdag_error *err);

/* Extracts a whole project: sources[i] is parsed with args[i][0..nargs[i]-1]
 * (as for ompdag_frontend_extract), every unit's functions are indexed, and
 * a call to a function defined in another unit (external linkage, matched
 * by USR) is followed like one to a local function, so task-creating
 * functions of other files are inlined.  Regions are extracted from the
 * first nregions sources only (0..nsources); the others are only indexed.
 * Status, *out and diagnostics as for ompdag_frontend_extract. */
ompdag_status ompdag_frontend_extract_project(ompdag_frontend *fe, int nsources,
                                              const char *const *sources,
                                              const char *const *const *args, const int *nargs,
                                              int nregions, ompdag_condag_set **out,
                                              ompdag_error *err);

/* Number of diagnostics of the last extraction. */
size_t ompdag_frontend_diag_count(const ompdag_frontend *fe);

/* Diagnostic i (< count); borrowed, see ompdag_frontend_diag. */
const ompdag_frontend_diag *ompdag_frontend_diag_at(const ompdag_frontend *fe, size_t i);

/* Prints every diagnostic as "file:line:col: error: message\n". */
void ompdag_frontend_print_diags(const ompdag_frontend *fe, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
