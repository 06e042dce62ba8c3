/*
 * plugin/fe_util.c — the small helpers every part of the front end shares
 * (declared in fe_internal.h): growable node-index vectors, string copies,
 * diagnostics (each reported once, strings kept by the front end), source
 * spans, function lookup by cursor, and the first statement after a pragma.  Moved out of
 * frontend.c so that the API's entry file is called into by no other part.
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

/* The index of the function decl declares or defines, -1 when none is
 * indexed (a call into another unit resolves by USR). */
int32_t fe_func_index(const ompdag_frontend *fe, CXCursor decl)
{
    CXCursor def = clang_getCursorDefinition(decl);
    if (clang_Cursor_isNull(def)) {
        if (fe->nunits < 2 || clang_getCursorLinkage(decl) != CXLinkage_External) return -1;
        CXString usr = clang_getCursorUSR(decl);
        const char *u = clang_getCString(usr);
        int32_t found = -1;
        for (int32_t i = 0; u && *u && found < 0 && i < fe->nfuncs; ++i)
            if (fe->funcs[i].external && !strcmp(fe->funcs[i].usr, u)) found = i;
        clang_disposeString(usr);
        return found;
    }
    unsigned h = clang_hashCursor(def);
    for (int32_t i = 0; i < fe->nfuncs; ++i)
        if (fe->funcs[i].hash == h && clang_equalCursors(fe->funcs[i].cursor, def)) return i;
    return -1;
}

/* The function a call resolves to (fe_internal.h), -1 when none. */
int32_t fe_func_of_call(const ompdag_frontend *fe, CXCursor call)
{
    CXCursor ref = clang_getCursorReferenced(call);
    if (clang_Cursor_isNull(ref)) return -1;
    return fe_func_index(fe, ref);
}

/* Finds, in preorder, the first cursor that starts after `offset`: the
 * outermost statement that a pragma ending at `offset` prefixes. */
enum CXChildVisitResult fe_first_after_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    fe_first_after *st = data;
    fe_span sp = fe_cursor_span(c);
    if (sp.file && clang_File_isEqual(sp.file, st->file) && sp.begin > st->offset) {
        st->found = c;
        st->hit = true;
        return CXChildVisit_Break;
    }
    if (sp.file && clang_File_isEqual(sp.file, st->file) && sp.end <= st->offset)
        return CXChildVisit_Continue;
    return CXChildVisit_Recurse;
}

/* A call through a pointer (or to no function declaration). */
bool fe_call_is_indirect(CXCursor call)
{
    CXCursor ref = clang_getCursorReferenced(call);
    return clang_Cursor_isNull(ref) || clang_getCursorKind(ref) != CXCursor_FunctionDecl;
}
