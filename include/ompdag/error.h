/*
 * ompdag/error.h — errors as values, shared by every ompdag module.
 *
 * Every fallible function returns an ompdag_status and, when it fails and the
 * caller passed a non-NULL ompdag_error, fills in a human-readable message that
 * names the file, line, node, task or field at fault.  The struct lives in the
 * caller's storage (like jansson's json_error_t), so reporting an error never
 * allocates and never aborts.
 */
#ifndef OMPDAG_ERROR_H
#define OMPDAG_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ompdag_status {
    OMPDAG_OK = 0,
    OMPDAG_ERR_IO,         /* a file could not be read or written */
    OMPDAG_ERR_PARSE,      /* malformed JSON or other syntax */
    OMPDAG_ERR_INVALID,    /* well-formed input that breaks a model rule */
    OMPDAG_ERR_OVERFLOW,   /* an int64 quantity would overflow */
    OMPDAG_ERR_LIMIT,      /* a configured limit (e.g. max flows) was exceeded */
    OMPDAG_ERR_NOMEM,      /* allocation failed */
    OMPDAG_ERR_ARGUMENT,   /* the caller passed an invalid argument */
    OMPDAG_ERR_UNSUPPORTED /* the input uses something the model cannot represent soundly */
} ompdag_status;

#define OMPDAG_ERROR_MESSAGE_SIZE 512

typedef struct ompdag_error {
    ompdag_status code;
    char message[OMPDAG_ERROR_MESSAGE_SIZE];
} ompdag_error;

/* Fills *err (if non-NULL) with code and a printf-style message; returns code. */
ompdag_status ompdag_error_set(ompdag_error *err, ompdag_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A short constant name for a status, e.g. "invalid input".  Never NULL. */
const char *ompdag_status_name(ompdag_status code);

#ifdef __cplusplus
}
#endif
#endif
