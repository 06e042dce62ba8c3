/*
 * ompdag/fileio.h — atomic file output shared by every module that writes
 * files: data goes to a temporary file in the destination's directory, which
 * is flushed, fsync'ed and renamed over the destination only on commit, so a
 * reader never sees a half-written file.
 */
#ifndef OMPDAG_FILEIO_H
#define OMPDAG_FILEIO_H

#include <stdio.h>

#include "ompdag/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ompdag_atomic_file ompdag_atomic_file;

/* Opens a temporary file next to `path` ("-" means stdout, written directly).
 * On success *out owns a handle that must be passed to exactly one of
 * ompdag_atomic_file_commit() or ompdag_atomic_file_abort(). */
ompdag_status ompdag_atomic_file_open(const char *path, ompdag_atomic_file **out,
                                      ompdag_error *err);

/* The stream to write to; borrowed from the handle. */
FILE *ompdag_atomic_file_stream(ompdag_atomic_file *f);

/* Flushes, syncs and renames onto the destination; frees the handle.  On
 * failure the temporary file is removed and the destination is untouched. */
ompdag_status ompdag_atomic_file_commit(ompdag_atomic_file *f, ompdag_error *err);

/* Discards the temporary file and frees the handle.  NULL is a no-op. */
void ompdag_atomic_file_abort(ompdag_atomic_file *f);

/* Writes s as a JSON string literal (quotes, backslashes and control
 * characters escaped; UTF-8 passed through), for writers that stream JSON. */
void ompdag_json_write_string(FILE *out, const char *s);

#ifdef __cplusplus
}
#endif
#endif
