/* analysis/error.c — errors as values (include/ompdag/error.h). */
#include <stdarg.h>
#include <stdio.h>

#include "ompdag/error.h"

ompdag_status ompdag_error_set(ompdag_error *err, ompdag_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

const char *ompdag_status_name(ompdag_status code)
{
    switch (code) {
    case OMPDAG_OK:
        return "ok";
    case OMPDAG_ERR_IO:
        return "I/O error";
    case OMPDAG_ERR_PARSE:
        return "parse error";
    case OMPDAG_ERR_INVALID:
        return "invalid input";
    case OMPDAG_ERR_OVERFLOW:
        return "arithmetic overflow";
    case OMPDAG_ERR_LIMIT:
        return "limit exceeded";
    case OMPDAG_ERR_NOMEM:
        return "out of memory";
    case OMPDAG_ERR_ARGUMENT:
        return "invalid argument";
    case OMPDAG_ERR_UNSUPPORTED:
        return "unsupported";
    }
    return "unknown error";
}
