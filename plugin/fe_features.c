/*
 * plugin/fe_features.c — static program features of each task directive,
 * for the task-granularity advisor (`ompdag advise`, docs/advise.md).
 *
 * Source: seed 002 §4.1 (shared/spec/tls-knn.md), whose per-procedure
 * features are counts of instructions, branches, jumps, add/sub and mul/div
 * operations and basic blocks.  At the source level of a `task` directive we
 * count, in the statement the directive prefixes and in every function of the
 * translation unit it calls (transitively, each once; a recursive call counts
 * the function once):
 * statements, branches (if, case, ?:, &&, ||), loops, calls, add/sub and
 * mul/div operator tokens, basic blocks (1 + 2 per branch or loop), and the
 * recursion bound when the body calls the function it is in.  They go on the
 * T node as "features": {...} (an unknown key to the format: kept, ignored by
 * the bound).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "fe_internal.h"

typedef struct fe_feat_counts {
    int32_t stmts, branches, loops, calls, addsub, muldiv;
    bool self_call;
    const ompdag_frontend *fe;
    int32_t func;  /* the function holding the directive, -1 if unknown */
    bool *visited; /* per TU function: its body was counted (or is queued) */
    fe_vec queue;  /* callees still to count */
    bool nomem;
} fe_feat_counts;

static enum CXChildVisitResult count_cursor(CXCursor c, CXCursor parent, CXClientData data)
{
    fe_feat_counts *k = data;
    enum CXCursorKind kind = clang_getCursorKind(c);
    if (clang_isStatement(kind) && kind != CXCursor_CompoundStmt && kind != CXCursor_NullStmt)
        k->stmts++;
    else if (clang_isExpression(kind) && clang_getCursorKind(parent) == CXCursor_CompoundStmt)
        k->stmts++; /* an expression statement */
    if (kind == CXCursor_CallExpr) {
        k->calls++;
        int32_t callee = fe_func_of_call(k->fe, c);
        if (callee >= 0 && callee == k->func) k->self_call = true;
        if (callee >= 0 && !k->visited[callee]) {
            k->visited[callee] = true;
            if (!fe_vec_push(&k->queue, callee)) k->nomem = true;
        }
    }
    return CXChildVisit_Recurse;
}

static void count_token(fe_feat_counts *k, CXTranslationUnit tu, CXToken t)
{
    CXString s = clang_getTokenSpelling(tu, t);
    const char *x = clang_getCString(s);
    CXTokenKind tk = clang_getTokenKind(t);
    if (tk == CXToken_Keyword) {
        if (!strcmp(x, "if") || !strcmp(x, "case")) k->branches++;
        if (!strcmp(x, "for") || !strcmp(x, "while") || !strcmp(x, "do")) k->loops++;
    } else if (tk == CXToken_Punctuation) {
        static const char *const add[] = {"+", "-", "++", "--", "+=", "-="};
        static const char *const mul[] = {"*", "/", "%", "*=", "/=", "%="};
        for (size_t i = 0; i < sizeof add / sizeof add[0]; ++i)
            k->addsub += !strcmp(x, add[i]), k->muldiv += !strcmp(x, mul[i]);
        if (!strcmp(x, "?") || !strcmp(x, "&&") || !strcmp(x, "||")) k->branches++;
    }
    clang_disposeString(s);
}

/* A `do … while` counts its `while` keyword twice: take one off per `do`. */
static void count_tokens(fe_feat_counts *k, CXTranslationUnit tu, CXCursor stmt)
{
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(tu, clang_getCursorExtent(stmt), &toks, &n);
    int32_t dos = 0;
    for (unsigned i = 0; i < n; ++i) {
        count_token(k, tu, toks[i]);
        if (clang_getTokenKind(toks[i]) == CXToken_Keyword) {
            CXString s = clang_getTokenSpelling(tu, toks[i]);
            dos += !strcmp(clang_getCString(s), "do");
            clang_disposeString(s);
        }
    }
    k->loops -= dos;
    clang_disposeTokens(tu, toks, n);
}

static int32_t func_at(const ompdag_frontend *fe, const fe_file *f, unsigned offset)
{
    for (int32_t i = 0; i < fe->nfuncs; ++i)
        if (fe->funcs[i].file == f && fe->funcs[i].begin <= offset && offset < fe->funcs[i].end)
            return i;
    return -1;
}

static const fe_pragma *task_pragma(const fe_file *f, int32_t line, int32_t col)
{
    for (int32_t i = 0; i < f->npragmas; ++i)
        if (f->pragmas[i].dir == FE_DIR_TASK && f->pragmas[i].line == line &&
            (col <= 0 || f->pragmas[i].col == col))
            return &f->pragmas[i];
    return NULL;
}

bool fe_features_add(ompdag_frontend *fe, const fe_node *nd, json_t *extra)
{
    fe_file *f = NULL;
    for (int32_t i = 0; !f && i < fe->nfiles; ++i)
        if (fe->files[i]->name == nd->file ||
            (nd->file && fe->files[i]->name && !strcmp(fe->files[i]->name, nd->file)))
            f = fe->files[i];
    const fe_pragma *p = f ? task_pragma(f, nd->line, nd->col) : NULL;
    int32_t fi = p ? func_at(fe, f, p->begin) : -1;
    if (fi < 0) return true; /* no directive found: no features, nothing wrong */
    fe_first_after find = {f->file, p->end, clang_getNullCursor(), false};
    clang_visitChildren(fe->funcs[fi].cursor, fe_first_after_visit, &find);
    if (!find.hit) return true;
    fe_feat_counts k = {.fe = fe, .func = fi, .visited = calloc((size_t)fe->nfuncs, 1)};
    if (!k.visited) return false;
    bool top_expr = clang_isExpression(clang_getCursorKind(find.found));
    k.stmts += top_expr;
    count_cursor(find.found, top_expr ? clang_getNullCursor() : find.found, &k);
    clang_visitChildren(find.found, count_cursor, &k);
    count_tokens(&k, fe->tu, find.found);
    /* callees defined in the TU, each once, through a worklist (no recursion
     * that follows the program's call depth) */
    for (int32_t q = 0; q < k.queue.n && !k.nomem; ++q) {
        CXCursor body = fe->funcs[k.queue.v[q]].cursor;
        clang_visitChildren(body, count_cursor, &k);
        count_tokens(&k, fe->tu, body);
    }
    free(k.visited);
    fe_vec_free(&k.queue);
    if (k.nomem) return false;
    int32_t bound =
        fe->funcs[fi].recursion_bound > 0 ? fe->funcs[fi].recursion_bound : fe->recursion_bound;
    json_t *o = json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i}", "stmts", k.stmts, "branches",
                          k.branches, "loops", k.loops, "calls", k.calls, "addsub", k.addsub,
                          "muldiv", k.muldiv, "blocks", 1 + 2 * (k.branches + k.loops), "recursion",
                          k.self_call ? (bound > 0 ? bound : 1) : 0);
    return o && !json_object_set_new(extra, "features", o);
}
