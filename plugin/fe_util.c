/*
 * plugin/fe_util.c — the small helpers every part of the front end shares
 * (declared in fe_internal.h): growable node-index vectors, string copies,
 * diagnostics (each reported once, strings kept by the front end), source
 * spans and the file table.  Moved out of frontend.c so
 * that the API's entry file is called into by no other part.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fe_internal.h"

bool fe_vec_push(fe_vec *a, int32_t x)
{
    if (!ompdag_grow_array((void **)&a->v, sizeof *a->v, &a->cap, (int64_t)a->n + 1)) return false;
    a->v[a->n++] = x;
    return true;
}

bool fe_vec_push_unique(fe_vec *a, int32_t x)
{
    for (int32_t i = 0; i < a->n; ++i)
        if (a->v[i] == x) return true;
    return fe_vec_push(a, x);
}

void fe_vec_free(fe_vec *a)
{
    free(a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}

char *fe_strdup(const char *s)
{
    return s ? fe_strndup(s, strlen(s)) : NULL;
}

char *fe_strndup(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

static char *keep_string(ompdag_frontend *fe, char *s)
{
    if (!s) return NULL;
    if (!ompdag_grow_array((void **)&fe->strings, sizeof *fe->strings, &fe->capstrings,
                           (int64_t)fe->nstrings + 1))
        return free(s), NULL;
    return fe->strings[fe->nstrings++] = s;
}

bool fe_diag(ompdag_frontend *fe, ompdag_diag_severity sev, const char *file, int32_t line,
             int32_t col, const char *fmt, ...)
{
    char buf[OMPDAG_ERROR_MESSAGE_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    /* Inlining reaches one construct many times: report it once. */
    for (size_t i = 0; i < fe->diags.n; ++i) {
        const ompdag_frontend_diag *d = &fe->diags.d[i];
        if (d->severity == sev && d->loc.line == line && d->loc.col == col &&
            !strcmp(d->loc.file, file ? file : "<unknown>") && !strcmp(d->message, buf))
            return true;
    }
    if (!ompdag_grow_array((void **)&fe->diags.d, sizeof *fe->diags.d, &fe->diags.cap,
                           (int64_t)fe->diags.n + 1))
        return false;
    const char *msg = keep_string(fe, fe_strdup(buf));
    const char *fname = keep_string(fe, fe_strdup(file ? file : "<unknown>"));
    if (!msg || !fname) return false;
    fe->diags.d[fe->diags.n++] = (ompdag_frontend_diag){sev, {fname, line, col}, msg};
    return true;
}

fe_span fe_cursor_span(CXCursor c)
{
    fe_span s = {0};
    CXSourceRange r = clang_getCursorExtent(c);
    unsigned line, col;
    clang_getExpansionLocation(clang_getRangeStart(r), &s.file, &line, &col, &s.begin);
    clang_getExpansionLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &s.end);
    s.line = (int32_t)line;
    s.col = (int32_t)col;
    clang_getExpansionLocation(clang_getRangeEnd(r), NULL, &line, NULL, NULL);
    s.end_line = (int32_t)line;
    return s;
}

fe_file *fe_file_get(ompdag_frontend *fe, CXFile file)
{
    for (int32_t i = 0; i < fe->nfiles; ++i)
        if (clang_File_isEqual(fe->files[i]->file, file)) return fe->files[i];
    fe_file *f = calloc(1, sizeof *f);
    fe_file **nf = realloc(fe->files, sizeof *nf * (size_t)(fe->nfiles + 1));
    if (!f || !nf) {
        free(f);
        if (nf) fe->files = nf;
        return NULL;
    }
    fe->files = nf;
    fe->files[fe->nfiles++] = f;
    f->file = file;
    CXString name = clang_getFileName(file);
    f->name = fe_strdup(clang_getCString(name));
    clang_disposeString(name);
    /* The unit that owns this CXFile: each unit has its own file manager. */
    f->tu = fe->tu;
    f->text = fe->tu ? clang_getFileContents(fe->tu, file, &f->size) : NULL;
    for (int32_t u = 0; !f->text && u < fe->nunits; ++u)
        if (fe->units[u].tu && (f->text = clang_getFileContents(fe->units[u].tu, file, &f->size)))
            f->tu = fe->units[u].tu;
    if (!f->name) return NULL;
    if (!f->text) f->text = "", f->size = 0;
    bool refused = false;
    if (!fe_scan_pragmas(fe, f, &refused)) return NULL;
    return f;
}
