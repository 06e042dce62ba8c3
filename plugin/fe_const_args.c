/*
 * plugin/fe_const_args.c — pragma arguments that are constant expressions
 * (`num_threads(NT * 2)`, `loop_bound(N / B)`, taskloop's `grainsize`...):
 * collected from each file's pragmas, evaluated by libclang in a second
 * parse of the unit (clang_Cursor_Evaluate on an injected declaration), and
 * read back by fe_clause_value.  Moved out of frontend.c, which calls it
 * while parsing.
 */
#include <stdlib.h>
#include <string.h>

#include "fe_internal.h"

/* Arguments the region builder reads as integers. */
static bool wants_value(const fe_pragma *p, const fe_clause *c)
{
    switch (p->dir) {
    case FE_DIR_LOOP_BOUND:
    case FE_DIR_RECURSION_BOUND:
        return !c->name[0];
    case FE_DIR_PARALLEL:
    case FE_DIR_PARALLEL_MASTER:
    case FE_DIR_PARALLEL_OTHER:
        return !strcmp(c->name, "num_threads") ||
               (strstr(p->name, "taskloop") && /* parallel masked taskloop */
                (!strcmp(c->name, "grainsize") || !strcmp(c->name, "num_tasks") ||
                 !strcmp(c->name, "if") || !strcmp(c->name, "final") ||
                 !strcmp(c->name, "collapse")));
    case FE_DIR_TASK:
        return !strcmp(c->name, "if") || !strcmp(c->name, "final");
    case FE_DIR_TASKLOOP: /* fe_taskloop.c */
        return !strcmp(c->name, "if") || !strcmp(c->name, "final") ||
               !strcmp(c->name, "grainsize") || !strcmp(c->name, "num_tasks") ||
               !strcmp(c->name, "collapse");
    default:
        return false;
    }
}

/* The expression of a clause argument without a "modifier:" prefix. */
static const char *arg_expression(const char *arg)
{
    const char *p = arg;
    while (*p == ' ')
        ++p;
    const char *q = p;
    while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_' ||
           (q > p && *q >= '0' && *q <= '9'))
        ++q;
    const char *r = q;
    while (*r == ' ')
        ++r;
    return q > p && *r == ':' && r[1] != ':' ? r + 1 : arg;
}

bool fe_collect_const_args(ompdag_frontend *fe, const fe_file *f)
{
    for (int32_t i = 0; i < f->npragmas; ++i) {
        const fe_pragma *p = &f->pragmas[i];
        for (int32_t k = 0; k < p->nclauses; ++k) {
            const fe_clause *c = &p->clauses[k];
            long v;
            if (!wants_value(p, c) || !c->arg || fe_literal_value(c->arg, &v)) continue;
            fe_const_arg *na = realloc(fe->cargs, sizeof *na * (size_t)(fe->ncargs + 1));
            if (!na) return false;
            fe->cargs = na;
            fe_const_arg *a = &fe->cargs[fe->ncargs++];
            memset(a, 0, sizeof *a);
            a->pragma_begin = p->begin;
            a->clause = fe_strdup(c->name);
            a->expr = fe_strdup(arg_expression(c->arg));
            if (!a->clause || !a->expr) return false;
        }
    }
    return true;
}

CXFile fe_main_cxfile(CXTranslationUnit tu)
{
    CXString sp = clang_getTranslationUnitSpelling(tu);
    CXFile f = clang_getFile(tu, clang_getCString(sp));
    clang_disposeString(sp);
    return f;
}

typedef struct eval_state {
    ompdag_frontend *fe;
    const int32_t *bad_lines; /* lines of the appended text with errors */
    int32_t nbad;
} eval_state;

static enum CXChildVisitResult eval_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    eval_state *st = data;
    if (clang_getCursorKind(c) != CXCursor_VarDecl) return CXChildVisit_Continue;
    CXString name = clang_getCursorSpelling(c);
    const char *n = clang_getCString(name);
    int32_t k = -1;
    if (n && !strncmp(n, CONST_ARG_PREFIX, sizeof CONST_ARG_PREFIX - 1))
        k = (int32_t)strtol(n + sizeof CONST_ARG_PREFIX - 1, NULL, 10);
    clang_disposeString(name);
    if (k < 0 || k >= st->fe->ncargs) return CXChildVisit_Continue;
    fe_span sp = fe_cursor_span(c);
    for (int32_t i = 0; i < st->nbad; ++i)
        if (st->bad_lines[i] == sp.line) return CXChildVisit_Continue;
    CXEvalResult r = clang_Cursor_Evaluate(c);
    if (r && clang_EvalResult_getKind(r) == CXEval_Int) {
        st->fe->cargs[k].value = clang_EvalResult_getAsLongLong(r);
        st->fe->cargs[k].ok = true;
    }
    if (r) clang_EvalResult_dispose(r);
    return CXChildVisit_Continue;
}

/* Evaluates the appended declarations; a line with an error is no constant. */
bool fe_evaluate_const_args(ompdag_frontend *fe, const fe_unit *unit)
{
    unsigned nd = clang_getNumDiagnostics(fe->tu);
    int32_t *bad = calloc((size_t)nd + 1, sizeof *bad);
    if (!bad) return false;
    eval_state st = {fe, bad, 0};
    for (unsigned i = 0; i < nd; ++i) {
        CXDiagnostic d = clang_getDiagnostic(fe->tu, i);
        CXFile file;
        unsigned line, off;
        clang_getExpansionLocation(clang_getDiagnosticLocation(d), &file, &line, NULL, &off);
        if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error && file &&
            clang_File_isEqual(file, unit->main) && off >= unit->const_from)
            bad[st.nbad++] = (int32_t)line;
        clang_disposeDiagnostic(d);
    }
    clang_visitChildren(clang_getTranslationUnitCursor(fe->tu), eval_visit, &st);
    free(bad);
    return true;
}
