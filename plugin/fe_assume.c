/*
 * plugin/fe_assume.c — bounds for a given input: `--assume NAME=VALUE`
 * (issue 23 item 5, first route; ../shared/spec/tightness.md, factor (a)
 * "graph larger than the run"; docs/plugin.md "Bounds for a given input").
 *
 * A binding is a claim about the input: the global variable NAME, or the
 * parameter NAME of the function that contains the `parallel`, holds VALUE
 * when the region starts.  The region builder carries values down inlined
 * calls (each argument is evaluated in the caller: constants, known names,
 * + - * / % << >> & | ^, comparisons, ! ~ && || and ?:, with C semantics; an
 * intermediate that does not fit its C type, a division by zero or an
 * unknown part leaves the parameter unknown — never guessed).  Conditions,
 * loop trip counts and base cases that then evaluate fold (fe_stmt.c,
 * fe_loop.c).
 *
 * Soundness: a value is used only when the variable cannot change before
 * the test: a parameter is never written (assigned, incremented, address
 * taken) in its function's body, and an assumed global is never written in
 * the region's statement nor in any function reachable from it.  Otherwise
 * the test keeps both branches and a note says why.  Code outside the
 * parsed files is taken not to write the global (part of the claim).
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_walk.h"

/* ---- the assumptions ------------------------------------------------------------ */

bool fe_assume_parse(const char *text, char *name, size_t cap, long long *value, char *why,
                     size_t whycap)
{
    const char *p = text ? text : "";
    while (*p == ' ')
        ++p;
    size_t n = 0;
    if (!isalpha((unsigned char)*p) && *p != '_') {
        snprintf(why, whycap, "'%s': expected NAME=VALUE, NAME a C identifier", text);
        return false;
    }
    while ((isalnum((unsigned char)*p) || *p == '_') && n + 1 < cap)
        name[n++] = *p++;
    name[n] = 0;
    while (*p == ' ')
        ++p;
    if (*p != '=') {
        snprintf(why, whycap, "'%s': expected NAME=VALUE (no '=' after the name '%s')", text, name);
        return false;
    }
    ++p;
    while (*p == ' ')
        ++p;
    char *end;
    errno = 0;
    *value = strtoll(p, &end, 0);
    bool digits = end != p;
    while (*end == ' ')
        ++end;
    if (!digits || *end || errno == ERANGE) {
        snprintf(why, whycap, "'%s': VALUE must be an integer constant (64-bit)", text);
        return false;
    }
    return true;
}

static fe_assumption *find_assumption(const ompdag_frontend *fe, const char *name)
{
    for (int32_t i = 0; i < fe->nassume; ++i)
        if (!strcmp(fe->assume[i].name, name)) return &fe->assume[i];
    return NULL;
}

static bool add_assumption(ompdag_frontend *fe, const char *name, long long value, bool pragma)
{
    if (!ompdag_grow_array((void **)&fe->assume, sizeof *fe->assume, &fe->capassume,
                           (int64_t)fe->nassume + 1))
        return false;
    fe_assumption *a = &fe->assume[fe->nassume];
    memset(a, 0, sizeof *a);
    a->name = fe_strdup(name);
    if (!a->name) return false;
    a->value = value;
    a->pragma = pragma;
    fe->nassume++;
    return true;
}

ompdag_status ompdag_frontend_assume(ompdag_frontend *fe, const char *assignment, ompdag_error *err)
{
    char name[256], why[512];
    long long v;
    if (!fe) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "no front end");
    if (!fe_assume_parse(assignment, name, sizeof name, &v, why, sizeof why))
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "bad assumption %s", why);
    const fe_assumption *old = find_assumption(fe, name);
    if (old && old->value != v)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "'%s' is assumed twice, with %lld and %lld: give one value", name,
                                old->value, v);
    if (old) return OMPDAG_OK;
    if (!add_assumption(fe, name, v, false))
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    return OMPDAG_OK;
}

bool fe_assume_active(const ompdag_frontend *fe)
{
    return fe->nassume > 0;
}

/* A file-scope variable declaration named `name` among the unit's top level. */
typedef struct global_find {
    const char *name;
    bool found;
} global_find;

static enum CXChildVisitResult global_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    global_find *g = data;
    if (clang_getCursorKind(c) == CXCursor_VarDecl) {
        CXString s = clang_getCursorSpelling(c);
        g->found = !strcmp(clang_getCString(s), g->name);
        clang_disposeString(s);
        if (g->found) return CXChildVisit_Break;
    }
    return CXChildVisit_Continue;
}

static bool global_exists(const ompdag_frontend *fe, const char *name)
{
    global_find g = {name, false};
    for (int32_t u = 0; u < fe->nunits && !g.found; ++u)
        clang_visitChildren(clang_getTranslationUnitCursor(fe->units[u].tu), global_visit, &g);
    return g.found;
}

/* Pragma assumptions belong to one extraction's files. */
static void drop_pragma_assumptions(ompdag_frontend *fe)
{
    int32_t kept = 0;
    for (int32_t i = 0; i < fe->nassume; ++i) {
        if (fe->assume[i].pragma)
            free(fe->assume[i].name);
        else
            fe->assume[kept++] = fe->assume[i];
    }
    fe->nassume = kept;
}

bool fe_assume_collect_pragmas(ompdag_frontend *fe)
{
    drop_pragma_assumptions(fe);
    for (int32_t u = 0; u < fe->nunits; ++u) {
        if (!fe->units[u].regions) continue;
        fe_file *f = fe_file_get(fe, fe->units[u].main);
        if (!f) return false;
        for (int32_t i = 0; i < f->npragmas; ++i) {
            const fe_pragma *p = &f->pragmas[i];
            if (p->dir != FE_DIR_ASSUME) continue;
            const fe_clause *c = fe_pragma_clause(p, "");
            char name[256], why[512];
            long long v;
            if (!fe_assume_parse(c ? c->arg : "", name, sizeof name, &v, why, sizeof why)) {
                if (!fe_diag(fe, OMPDAG_DIAG_ERROR, f->name, p->line, p->col,
                             "'#pragma ompdag assume(NAME=VALUE)': %s", why))
                    return false;
                continue;
            }
            fe_assumption *old = find_assumption(fe, name);
            if (old && old->pragma && old->value != v) {
                if (!fe_diag(fe, OMPDAG_DIAG_ERROR, f->name, p->line, p->col,
                             "'#pragma ompdag assume(%s=%lld)' contradicts an earlier "
                             "assume(%s=%lld)",
                             name, v, name, old->value))
                    return false;
                continue;
            }
            if (old) continue; /* the command line names the input actually run */
            if (!add_assumption(fe, name, v, true)) return false;
            fe_assumption *a = &fe->assume[fe->nassume - 1];
            a->file = f->name, a->line = p->line, a->col = p->col;
        }
    }
    for (int32_t i = 0; i < fe->nassume; ++i) {
        fe->assume[i].global = global_exists(fe, fe->assume[i].name);
        fe->assume[i].matched = fe->assume[i].global;
    }
    return true;
}

bool fe_assume_finish(ompdag_frontend *fe)
{
    bool ok = true;
    for (int32_t i = 0; i < fe->nassume; ++i) {
        fe_assumption *a = &fe->assume[i];
        if (!a->matched && ok)
            ok = fe_diag(fe, OMPDAG_DIAG_ERROR, a->file ? a->file : "<command line>",
                         a->pragma ? a->line : 0, a->pragma ? a->col : 0,
                         "assumption %s=%lld names nothing: '%s' is neither a global variable "
                         "nor a parameter of a function that contains a parallel region (check "
                         "the spelling)",
                         a->name, a->value, a->name);
    }
    drop_pragma_assumptions(fe);
    fe_vec_free(&fe->noted_params);
    return ok;
}

void fe_assume_free(ompdag_frontend *fe)
{
    for (int32_t i = 0; i < fe->nassume; ++i)
        free(fe->assume[i].name);
    free(fe->assume);
    fe->assume = NULL;
    fe->nassume = 0;
    fe->capassume = 0;
    fe_vec_free(&fe->noted_params);
}

static bool fits_type(CXCursor e, long long v);

/* ---- parameters ------------------------------------------------------------------- */

static int32_t param_count(const ompdag_frontend *fe, int32_t fi)
{
    int n = clang_Cursor_getNumArguments(fe->funcs[fi].cursor);
    return n < 0 ? 0 : n;
}

/* Index of parameter declaration `decl` in function fi, or -1. */
static int32_t param_index(const ompdag_frontend *fe, int32_t fi, CXCursor decl)
{
    int32_t n = param_count(fe, fi);
    for (int32_t i = 0; i < n; ++i)
        if (clang_equalCursors(clang_Cursor_getArgument(fe->funcs[fi].cursor, (unsigned)i), decl))
            return i;
    return -1;
}

static bool spelled(CXCursor c, const char *name)
{
    CXString s = clang_getCursorSpelling(c);
    bool eq = !strcmp(clang_getCString(s), name);
    clang_disposeString(s);
    return eq;
}

static bool is_file_scope_var(CXCursor d)
{
    return clang_getCursorKind(d) == CXCursor_VarDecl &&
           clang_getCursorKind(clang_getCursorSemanticParent(d)) == CXCursor_TranslationUnit;
}

/* ---- writes ------------------------------------------------------------------------- */

/* A write is a direct (not implicitly converted) reference under an operator:
 * the left of an assignment, ++/--, or an address taken (fe_loop.c uses the
 * same rule for loop variables). */
typedef struct write_state {
    CXCursor param;   /* a parameter or local declaration, or null */
    const char *name; /* else: a file-scope variable of this name */
    bool written;
} write_state;

static enum CXChildVisitResult write_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    write_state *st = data;
    if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return CXChildVisit_Recurse;
    enum CXCursorKind pk = clang_getCursorKind(parent);
    if (pk != CXCursor_UnaryOperator && pk != CXCursor_CompoundAssignOperator &&
        pk != CXCursor_BinaryOperator)
        return CXChildVisit_Continue;
    CXCursor d = clang_getCursorReferenced(c);
    bool hit =
        st->name ? is_file_scope_var(d) && spelled(d, st->name) : clang_equalCursors(d, st->param);
    if (!hit) return CXChildVisit_Continue;
    st->written = true;
    return CXChildVisit_Break;
}

static bool param_written(const ompdag_frontend *fe, int32_t fi, int32_t i)
{
    write_state st = {clang_Cursor_getArgument(fe->funcs[fi].cursor, (unsigned)i), NULL, false};
    clang_visitChildren(fe->funcs[fi].cursor, write_visit, &st);
    return st.written;
}

/* Functions defined in the parsed units that `s` calls (transitively). */
typedef struct reach_state {
    const ompdag_frontend *fe;
    fe_vec *funcs;
    bool nomem;
} reach_state;

static enum CXChildVisitResult reach_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    reach_state *st = data;
    if (clang_getCursorKind(c) == CXCursor_CallExpr) {
        int32_t f = fe_func_of_call(st->fe, c);
        if (f >= 0 && !fe_vec_push_unique(st->funcs, f)) st->nomem = true;
    }
    return st->nomem ? CXChildVisit_Break : CXChildVisit_Recurse;
}

static bool reachable_funcs(const ompdag_frontend *fe, CXCursor stmt, fe_vec *out)
{
    reach_state st = {fe, out, false};
    clang_visitChildren(stmt, reach_visit, &st);
    for (int32_t k = 0; !st.nomem && k < out->n; ++k) {
        const fe_func *fn = &fe->funcs[out->v[k]];
        for (int32_t j = 0; !st.nomem && j < fn->callees.n; ++j)
            st.nomem = !fe_vec_push_unique(out, fn->callees.v[j]);
    }
    return !st.nomem;
}

bool fe_assume_region_begin(ompdag_frontend *fe, int32_t func, CXCursor stmt, fe_env *env)
{
    memset(env, 0, sizeof *env);
    env->func = func;
    fe->region_func = func;
    fe->depth_func = -1;
    fe->depth_needed = 0;
    fe->noted_params.n = 0;
    if (!fe_assume_active(fe)) return true;
    int32_t n = param_count(fe, func);
    for (int32_t i = 0; i < n && i < FE_ENV_MAX; ++i) {
        CXCursor p = clang_Cursor_getArgument(fe->funcs[func].cursor, (unsigned)i);
        CXString s = clang_getCursorSpelling(p);
        fe_assumption *a = find_assumption(fe, clang_getCString(s));
        clang_disposeString(s);
        if (!a) continue;
        a->matched = true;
        if (!fits_type(p, a->value)) {
            fe_span sp = fe_cursor_span(p);
            fe_file *f = sp.file ? fe_file_get(fe, sp.file) : NULL;
            if (!fe_diag(fe, OMPDAG_DIAG_ERROR, f ? f->name : "<input>", sp.line, sp.col,
                         "assumption %s=%lld does not fit the type of parameter '%s' of '%s'",
                         a->name, a->value, a->name, fe->funcs[func].name))
                return false;
            continue;
        }
        env->bound |= 1u << i;
        env->value[i] = a->value;
    }
    fe_vec reach = {0};
    if (!reachable_funcs(fe, stmt, &reach)) {
        fe_vec_free(&reach);
        return false;
    }
    for (int32_t i = 0; i < fe->nassume; ++i) {
        fe_assumption *a = &fe->assume[i];
        a->noted = false;
        a->written = 1;
        if (!a->global) continue;
        write_state st = {clang_getNullCursor(), a->name, false};
        clang_visitChildren(stmt, write_visit, &st);
        for (int32_t k = 0; !st.written && k < reach.n; ++k)
            clang_visitChildren(fe->funcs[reach.v[k]].cursor, write_visit, &st);
        a->written = st.written ? 2 : 1;
    }
    fe_vec_free(&reach);
    return true;
}

/* ---- the evaluator ------------------------------------------------------------------ */

/* Why an expression has no value: unknown, or a variable with an assumed
 * value that may be written before the test (then `why` names it). */
typedef struct eval_ctx {
    walker *w;
    char why[256];
} eval_ctx;

static bool clang_int(CXCursor e, long long *out)
{
    CXEvalResult r = clang_Cursor_Evaluate(e);
    if (!r) return false;
    bool ok = clang_EvalResult_getKind(r) == CXEval_Int;
    if (ok) {
        if (clang_EvalResult_isUnsignedInt(r)) {
            unsigned long long u = clang_EvalResult_getAsUnsigned(r);
            ok = u <= (unsigned long long)LLONG_MAX;
            *out = (long long)u;
        } else {
            *out = clang_EvalResult_getAsLongLong(r);
        }
    }
    clang_EvalResult_dispose(r);
    return ok;
}

/* Does v fit the integer type of expression e?  (A value that wraps or
 * overflows there is never guessed.) */
static bool fits_type(CXCursor e, long long v)
{
    CXType t = clang_getCanonicalType(clang_getCursorType(e));
    if (t.kind == CXType_Enum)
        t = clang_getCanonicalType(clang_getEnumDeclIntegerType(clang_getTypeDeclaration(t)));
    long long size = clang_Type_getSizeOf(t);
    bool is_unsigned;
    switch (t.kind) {
    case CXType_Bool:
        return v == 0 || v == 1;
    case CXType_UChar:
    case CXType_Char_U:
    case CXType_UShort:
    case CXType_UInt:
    case CXType_ULong:
    case CXType_ULongLong:
        is_unsigned = true;
        break;
    case CXType_SChar:
    case CXType_Char_S:
    case CXType_Short:
    case CXType_Int:
    case CXType_Long:
    case CXType_LongLong:
        is_unsigned = false;
        break;
    default:
        return false;
    }
    if (size < 1 || size > 8) return false;
    if (size == 8) return !is_unsigned || v >= 0;
    long long span = 1LL << (size * 8);
    return is_unsigned ? v >= 0 && v < span : v >= -span / 2 && v < span / 2;
}

/* The operator text between offsets [from, to) of the file of sp. */
static bool op_text(walker *w, fe_span at, unsigned from, unsigned to, char *op, size_t cap)
{
    fe_file *f = at.file ? fe_file_get(w->fe, at.file) : NULL;
    size_t n = 0;
    if (!f || to < from || to > f->size) return false;
    for (unsigned i = from; i < to; ++i) {
        char c = f->text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
        if (n + 1 >= cap) return false;
        op[n++] = c;
    }
    op[n] = 0;
    return n > 0;
}

static bool eval(eval_ctx *x, CXCursor e, long long *out, int depth);

/* A variable: a parameter of the walked function with a known value, or an
 * assumed global, each only when nothing may write it first. */
/* A local variable of the walked function that is initialized and never
 * written (`unsigned QuadrantSize = MatrixSize >> 1;`): its initializer,
 * evaluated here, is its value wherever it is read, since everything the
 * initializer reads is checked the same way.  Not a static local (it keeps
 * values between calls). */
static bool eval_local(eval_ctx *x, CXCursor d, long long *out, int depth)
{
    walker *w = x->w;
    if (!w->env || clang_Cursor_getStorageClass(d) == CX_SC_Static) return false;
    CXCursor fn = w->fe->funcs[w->env->func].cursor;
    CXCursor init = clang_Cursor_getVarDeclInitializer(d);
    if (clang_Cursor_isNull(init) || !clang_equalCursors(clang_getCursorSemanticParent(d), fn))
        return false;
    write_state st = {d, NULL, false};
    clang_visitChildren(fn, write_visit, &st);
    return !st.written && eval(x, init, out, depth + 1) && fits_type(d, *out);
}

static bool eval_ref(eval_ctx *x, CXCursor e, long long *out, int depth)
{
    walker *w = x->w;
    CXCursor d = clang_getCursorReferenced(e);
    if (clang_getCursorKind(d) == CXCursor_ParmDecl && w->env) {
        int32_t i = param_index(w->fe, w->env->func, d);
        if (i < 0 || i >= FE_ENV_MAX || !(w->env->bound & (1u << i))) return false;
        if (param_written(w->fe, w->env->func, i)) {
            CXString s = clang_getCursorSpelling(d);
            snprintf(x->why, sizeof x->why,
                     "parameter '%s' of '%s' is assigned in its body, so its value at this test "
                     "is not the one passed",
                     clang_getCString(s), w->fe->funcs[w->env->func].name);
            clang_disposeString(s);
            return false;
        }
        *out = w->env->value[i];
        return true;
    }
    if (clang_getCursorKind(d) == CXCursor_VarDecl && !is_file_scope_var(d))
        return eval_local(x, d, out, depth);
    if (!is_file_scope_var(d)) return false;
    CXString s = clang_getCursorSpelling(d);
    fe_assumption *a = find_assumption(w->fe, clang_getCString(s));
    clang_disposeString(s);
    if (!a || !a->global) return false;
    if (a->written == 2) {
        snprintf(x->why, sizeof x->why,
                 "global '%s' is written by the region's code, so its value at this test is not "
                 "the one assumed",
                 a->name);
        return false;
    }
    *out = a->value;
    return true;
}

static bool eval_unary(eval_ctx *x, CXCursor e, CXCursor arg, long long *out, int depth)
{
    fe_span se = fe_cursor_span(e), sa = fe_cursor_span(arg);
    char op[8];
    long long v;
    if (!op_text(x->w, se, se.begin, sa.begin, op, sizeof op) || !eval(x, arg, &v, depth))
        return false;
    if (!strcmp(op, "+")) return *out = v, true;
    if (!strcmp(op, "-")) return v != LLONG_MIN && (*out = -v, true);
    if (!strcmp(op, "!")) return *out = !v, true;
    if (!strcmp(op, "~")) return *out = ~v, true;
    return false; /* ++, --, &, *: not a value of the input */
}

static bool arith(const char *op, long long a, long long b, long long *r)
{
    if (!strcmp(op, "+")) return !__builtin_add_overflow(a, b, r);
    if (!strcmp(op, "-")) return !__builtin_sub_overflow(a, b, r);
    if (!strcmp(op, "*")) return !__builtin_mul_overflow(a, b, r);
    if (!strcmp(op, "/") || !strcmp(op, "%")) {
        if (b == 0 || (a == LLONG_MIN && b == -1)) return false;
        *r = op[0] == '/' ? a / b : a % b; /* C: truncation toward zero */
        return true;
    }
    if (!strcmp(op, "<")) return *r = a < b, true;
    if (!strcmp(op, "<=")) return *r = a <= b, true;
    if (!strcmp(op, ">")) return *r = a > b, true;
    if (!strcmp(op, ">=")) return *r = a >= b, true;
    if (!strcmp(op, "==")) return *r = a == b, true;
    if (!strcmp(op, "!=")) return *r = a != b, true;
    if (!strcmp(op, "&")) return *r = a & b, true;
    if (!strcmp(op, "|")) return *r = a | b, true;
    if (!strcmp(op, "^")) return *r = a ^ b, true;
    if (!strcmp(op, "<<")) {
        if (a < 0 || b < 0 || b > 62 || a > (LLONG_MAX >> b)) return false;
        return *r = a << b, true;
    }
    if (!strcmp(op, ">>")) return a >= 0 && b >= 0 && b <= 63 && (*r = a >> b, true);
    return false;
}

static bool eval_binary(eval_ctx *x, CXCursor a, CXCursor b, long long *out, int depth)
{
    fe_span sa = fe_cursor_span(a), sb = fe_cursor_span(b);
    char op[8];
    long long va, vb;
    if (!op_text(x->w, sa, sa.end, sb.begin, op, sizeof op) || !eval(x, a, &va, depth))
        return false;
    /* && and || do not evaluate their right side when the left decides */
    if (!strcmp(op, "&&") && !va) return *out = 0, true;
    if (!strcmp(op, "||") && va) return *out = 1, true;
    if (!eval(x, b, &vb, depth)) return false;
    if (!strcmp(op, "&&") || !strcmp(op, "||")) return *out = vb != 0, true;
    return arith(op, va, vb, out);
}

static bool eval(eval_ctx *x, CXCursor e, long long *out, int depth)
{
    if (depth > 64) return false; /* expression nesting, not input size */
    enum CXCursorKind k = clang_getCursorKind(e);
    if (clang_int(e, out)) return fits_type(e, *out) || !clang_isExpression(k);
    cursor_list ch = {0};
    clang_visitChildren(e, fe_collect_visit, &ch);
    bool ok = false;
    if (ch.nomem) {
    } else if (k == CXCursor_DeclRefExpr) {
        ok = eval_ref(x, e, out, depth);
    } else if (((k == CXCursor_UnexposedExpr || k == CXCursor_ParenExpr) && ch.n == 1) ||
               (k == CXCursor_CStyleCastExpr && ch.n >= 1)) {
        /* implicit conversions, parentheses, casts: the value must fit the
         * new type (checked below) */
        ok = eval(x, ch.c[ch.n - 1], out, depth + 1);
    } else if (k == CXCursor_UnaryOperator && ch.n == 1) {
        ok = eval_unary(x, e, ch.c[0], out, depth + 1);
    } else if (k == CXCursor_BinaryOperator && ch.n == 2) {
        ok = eval_binary(x, ch.c[0], ch.c[1], out, depth + 1);
    } else if (k == CXCursor_ConditionalOperator && ch.n == 3) {
        long long c;
        ok = eval(x, ch.c[0], &c, depth + 1) && eval(x, ch.c[c ? 1 : 2], out, depth + 1);
    }
    free(ch.c);
    return ok && fits_type(e, *out);
}

bool fe_eval(walker *w, CXCursor e, long long *out)
{
    /* without assumptions, callers keep to what the compiler folds */
    eval_ctx x = {w, ""};
    return fe_assume_active(w->fe) && eval(&x, e, out, 0);
}

/* One note per variable and region: the test is not folded, and why. */
static bool note_not_folded(walker *w, CXCursor e, const char *why)
{
    fe_span sp = fe_cursor_span(e);
    fe_file *f = sp.file ? fe_file_get(w->fe, sp.file) : NULL;
    if (!f) return true;
    for (size_t i = 0; i < w->fe->diags.n; ++i) {
        const ompdag_frontend_diag *d = &w->fe->diags.d[i];
        if (d->severity == OMPDAG_DIAG_NOTE && strstr(d->message, why)) return true;
    }
    return fe_diag(w->fe, OMPDAG_DIAG_NOTE, f->name, sp.line, sp.col,
                   "test not folded with the assumed input: %s", why) ||
           fe_nomem(w);
}

bool fe_assume_cond(walker *w, CXCursor e, long long *out)
{
    if (!fe_assume_active(w->fe)) return false;
    eval_ctx x = {w, ""};
    if (eval(&x, e, out, 0)) return true;
    if (x.why[0]) note_not_folded(w, e, x.why);
    return false;
}

void fe_assume_call_env(walker *w, CXCursor call, int32_t fi, fe_env *env)
{
    memset(env, 0, sizeof *env);
    env->func = fi;
    if (!fe_assume_active(w->fe)) return;
    int n = clang_Cursor_getNumArguments(call);
    int32_t np = param_count(w->fe, fi);
    for (int i = 0; i < n && i < np && i < FE_ENV_MAX; ++i) {
        long long v;
        eval_ctx x = {w, ""};
        CXCursor p = clang_Cursor_getArgument(w->fe->funcs[fi].cursor, (unsigned)i);
        if (eval(&x, clang_Cursor_getArgument(call, (unsigned)i), &v, 0) && fits_type(p, v)) {
            env->bound |= 1u << i;
            env->value[i] = v;
        }
    }
}

/* Is the type of parameter declaration p an integer (or enum)? */
static bool integer_param(CXCursor p)
{
    CXType t = clang_getCanonicalType(clang_getCursorType(p));
    return (t.kind >= CXType_Bool && t.kind <= CXType_Int128) || t.kind == CXType_Enum;
}

bool fe_assume_env_complete(const ompdag_frontend *fe, const fe_env *env)
{
    /* every integer parameter known: pointers (matrices, boards) do not
     * decide where a recursion stops in the programs this is for; if one
     * does, its test never folds and the walk is refused at 256 calls */
    int32_t n = param_count(fe, env->func), ints = 0;
    if (n > FE_ENV_MAX) return false;
    for (int32_t i = 0; i < n; ++i) {
        if (!integer_param(clang_Cursor_getArgument(fe->funcs[env->func].cursor, (unsigned)i)))
            continue;
        /* a parameter written in the body does not keep the value passed */
        if (!(env->bound & (1u << i)) || param_written(fe, env->func, i)) return false;
        ++ints;
    }
    return ints > 0;
}

void fe_assume_depth(walker *w, int32_t fi, int32_t depth, int32_t bound, const char *file,
                     int32_t line, int32_t col)
{
    ompdag_frontend *fe = w->fe;
    if (depth <= fe->depth_needed) return;
    if (fe->depth_func < 0) fe->depth_file = file, fe->depth_line = line, fe->depth_col = col;
    fe->depth_func = fi;
    fe->depth_needed = depth;
    fe->depth_bound = bound;
}

bool fe_assume_region_end(walker *w)
{
    ompdag_frontend *fe = w->fe;
    if (fe->depth_func < 0) return true;
    return fe_refuse(
        w, fe->depth_file, fe->depth_line, fe->depth_col,
        "with the assumed input the recursion of '%s' creates tasks at depth %d, beyond "
        "its recursion bound %d: the bound does not hold for this input (pass "
        "--recursion-bound %d or '#pragma ompdag recursion_bound(%d)')",
        fe->funcs[fe->depth_func].name, fe->depth_needed, fe->depth_bound, fe->depth_needed,
        fe->depth_needed);
}

/* ---- the claim, in the graph -------------------------------------------------------- */

json_t *fe_assume_json(const ompdag_frontend *fe, int32_t fi, bool *nomem)
{
    json_t *o = NULL;
    *nomem = false;
    int32_t n = param_count(fe, fi);
    for (int32_t i = 0; i < fe->nassume; ++i) {
        const fe_assumption *a = &fe->assume[i];
        bool applies = a->global;
        for (int32_t p = 0; !applies && p < n && p < FE_ENV_MAX; ++p)
            applies = spelled(clang_Cursor_getArgument(fe->funcs[fi].cursor, (unsigned)p), a->name);
        if (!applies) continue;
        if (!o) o = json_object();
        if (!o || json_object_set_new(o, a->name, json_integer(a->value))) {
            json_decref(o);
            *nomem = true;
            return NULL;
        }
    }
    return o;
}
