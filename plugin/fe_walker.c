/*
 * plugin/fe_walker.c — what every step of the region walk uses: errors
 * (out of memory, a refusal at file:line), a cursor's file and children, and
 * a node's label from its source text.  The graph steps (fe_graph.c), the
 * depend, lock and sharing steps all call these, and these call none of
 * them.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fe_walk.h"

/* ---- errors ------------------------------------------------------------------ */

bool fe_nomem(walker *w)
{
    *w->nomem = true;
    return false;
}

bool fe_refuse(walker *w, const char *file, int32_t line, int32_t col, const char *fmt, ...)
{
    char buf[OMPDAG_ERROR_MESSAGE_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!fe_diag(w->fe, OMPDAG_DIAG_ERROR, file, line, col, "%s", buf)) *w->nomem = true;
    return false;
}

fe_file *fe_file_of(walker *w, CXFile f)
{
    fe_file *ff = f ? fe_file_get(w->fe, f) : NULL;
    if (!ff) *w->nomem = true;
    return ff;
}

/* ---- children and text --------------------------------------------------------- */

enum CXChildVisitResult fe_collect_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    cursor_list *l = data;
    if (!ompdag_grow_array((void **)&l->c, sizeof *l->c, &l->cap, (int64_t)l->n + 1)) {
        l->nomem = true;
        return CXChildVisit_Break;
    }
    l->c[l->n++] = c;
    return CXChildVisit_Continue;
}

bool fe_children(walker *w, CXCursor s, cursor_list *out)
{
    memset(out, 0, sizeof *out);
    clang_visitChildren(s, fe_collect_visit, out);
    if (out->nomem) {
        free(out->c);
        return fe_nomem(w);
    }
    return true;
}

/* A short label from the source text of sp: whitespace collapsed, cut at the
 * first '{' when `header`, at most 48 characters. */
char *fe_label_text(walker *w, fe_span sp, const char *prefix, bool header)
{
    fe_file *f = fe_file_of(w, sp.file);
    char buf[64];
    size_t n = 0;
    for (const char *p = prefix; p && *p && n < 48; ++p)
        buf[n++] = *p;
    bool space = n > 0;
    for (unsigned i = sp.begin; f && i < sp.end && i < f->size && n < 48; ++i) {
        char c = f->text[i];
        if (header && c == '{') {
            if (i == sp.begin) { /* a block: shown as {...} */
                if (n > 0) buf[n++] = ' ';
                memcpy(buf + n, "{...}", 5);
                n += 5;
            }
            break;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\') {
            space = n > 0;
            continue;
        }
        if (space && n < 47) buf[n++] = ' ';
        space = false;
        buf[n++] = c;
    }
    while (n > 0 && buf[n - 1] == ' ')
        --n;
    if (n >= 48 && sp.end - sp.begin > 48) {
        n = 45;
        buf[n++] = '.', buf[n++] = '.', buf[n++] = '.';
    }
    buf[n] = 0;
    char *s = fe_strdup(buf);
    if (!s) *w->nomem = true;
    return s;
}
