/*
 * plugin/fe_loop.c — loops that contain a task scheduling point: they are
 * unrolled into the graph (shared/spec/condag.md §1 has no loops).
 *
 * The trip count is exact for `for (i = A; i OP B; i += S)` with constant A,
 * B, S and a body that neither writes nor takes the address of i; the
 * simulation follows i's integer type (unsigned wrap-around; a signed
 * overflow gives no trip count).  Otherwise `#pragma ompdag loop_bound(N)`
 * (or the default `--loop-bound N`) gives the most iterations: the loop
 * may run 0..N times, so each iteration starts with a C node ("loop test")
 * whose other successor is the loop's exit.  Every run with k <= N
 * iterations is then a flow of the graph (the probe maps a shorter run onto
 * it), and the longest flow is the N-iteration one, so the bound covers
 * them all.  break and continue at the loop's own level are exact edges
 * (jump frames).  Above the unroll limit a loop_bound loop is not unrolled
 * but kept compact (compact_loop, docs/compact.md "Compact loops").
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fe_walk.h"

/* ---- loops ------------------------------------------------------------------------------ */

static bool eval_int(CXCursor e, long long *out)
{
    CXEvalResult r = clang_Cursor_Evaluate(e);
    if (!r) return false;
    bool ok = clang_EvalResult_getKind(r) == CXEval_Int;
    if (ok) *out = clang_EvalResult_getAsLongLong(r);
    clang_EvalResult_dispose(r);
    return ok;
}

/* A constant, or (with --assume) a value of the assumed input: parameters
 * carried down calls and assumed globals (fe_assume.c), so `i < n` with a
 * known n has an exact trip count. */
static bool loop_int(walker *w, CXCursor e, long long *out)
{
    return eval_int(e, out) || fe_eval(w, e, out);
}

/* The declaration a (possibly parenthesized / implicitly cast) reference names. */
static CXCursor referenced_var(CXCursor e)
{
    for (int depth = 0; depth < 8; ++depth) {
        enum CXCursorKind k = clang_getCursorKind(e);
        if (k == CXCursor_DeclRefExpr) return clang_getCursorReferenced(e);
        if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr) break;
        cursor_list ch = {0};
        clang_visitChildren(e, fe_collect_visit, &ch);
        if (ch.nomem || ch.n != 1) {
            free(ch.c);
            break;
        }
        e = ch.c[0];
        free(ch.c);
    }
    return clang_getNullCursor();
}

/* Operator text between the two operands of a binary expression. */
static bool operator_between(walker *w, CXCursor a, CXCursor b, char *op, size_t cap)
{
    fe_span sa = fe_cursor_span(a), sb = fe_cursor_span(b);
    fe_file *f = sa.file ? fe_file_get(w->fe, sa.file) : NULL;
    size_t n = 0;
    if (!f || sb.begin < sa.end || sb.begin > f->size) return false;
    for (unsigned i = sa.end; i < sb.begin && n + 1 < cap; ++i)
        if (f->text[i] != ' ' && f->text[i] != '\t' && f->text[i] != '\n' && f->text[i] != '\r')
            op[n++] = f->text[i];
    op[n] = 0;
    return n > 0;
}

typedef struct loop_var {
    CXCursor var;
    long long init, bound, step;
    char op[4];
    bool is_unsigned; /* the variable's type, which the simulation follows */
    int bits;
    long long beyond; /* for_trip_count's -2: the exact count past the unroll limit, or -1 */
} loop_var;

/* Reads the loop variable's integer type; false for anything else. */
static bool read_var_type(loop_var *lv)
{
    CXType t = clang_getCanonicalType(clang_getCursorType(lv->var));
    long long size = clang_Type_getSizeOf(t);
    switch (t.kind) {
    case CXType_UChar:
    case CXType_Char_U:
    case CXType_UShort:
    case CXType_UInt:
    case CXType_ULong:
    case CXType_ULongLong:
        lv->is_unsigned = true;
        break;
    case CXType_SChar:
    case CXType_Char_S:
    case CXType_Short:
    case CXType_Int:
    case CXType_Long:
    case CXType_LongLong:
        lv->is_unsigned = false;
        break;
    default:
        return false;
    }
    if (size < 1 || size > 8) return false;
    lv->bits = (int)size * 8;
    return true;
}

/* Wraps v into the variable's type; false when a signed value overflows. */
static bool to_var_type(const loop_var *lv, long long v, long long *out)
{
    if (lv->bits == 64) {
        *out = v;
        return true;
    }
    long long span = 1LL << lv->bits;
    if (lv->is_unsigned) {
        *out = ((v % span) + span) % span;
        return true;
    }
    if (v < -span / 2 || v >= span / 2) return false;
    *out = v;
    return true;
}

static bool read_init(walker *w, CXCursor init, loop_var *lv)
{
    cursor_list ch;
    if (!fe_children(w, init, &ch)) return false;
    bool ok = false;
    enum CXCursorKind k = clang_getCursorKind(init);
    if (k == CXCursor_DeclStmt && ch.n == 1 && clang_getCursorKind(ch.c[0]) == CXCursor_VarDecl) {
        cursor_list vc;
        if (fe_children(w, ch.c[0], &vc)) {
            lv->var = ch.c[0];
            ok = vc.n >= 1 && loop_int(w, vc.c[vc.n - 1], &lv->init);
            free(vc.c);
        }
    } else if (k == CXCursor_BinaryOperator && ch.n == 2) {
        char op[8];
        lv->var = referenced_var(ch.c[0]);
        ok = operator_between(w, ch.c[0], ch.c[1], op, sizeof op) && !strcmp(op, "=") &&
             !clang_Cursor_isNull(lv->var) && loop_int(w, ch.c[1], &lv->init);
    }
    free(ch.c);
    return ok;
}

static bool read_cond(walker *w, CXCursor cond, loop_var *lv)
{
    cursor_list ch;
    if (clang_getCursorKind(cond) != CXCursor_BinaryOperator || !fe_children(w, cond, &ch))
        return false;
    bool ok = false;
    char op[8];
    if (ch.n == 2 && operator_between(w, ch.c[0], ch.c[1], op, sizeof op)) {
        static const char *const ops[] = {"<", "<=", ">", ">=", "!="};
        static const char *const flipped[] = {">", ">=", "<", "<=", "!="};
        for (int i = 0; i < 5; ++i) {
            if (strcmp(op, ops[i])) continue;
            if (clang_equalCursors(referenced_var(ch.c[0]), lv->var) &&
                loop_int(w, ch.c[1], &lv->bound)) {
                snprintf(lv->op, sizeof lv->op, "%s", ops[i]);
                ok = true;
            } else if (clang_equalCursors(referenced_var(ch.c[1]), lv->var) &&
                       loop_int(w, ch.c[0], &lv->bound)) {
                snprintf(lv->op, sizeof lv->op, "%s", flipped[i]);
                ok = true;
            }
        }
    }
    free(ch.c);
    return ok;
}

static bool read_inc(walker *w, CXCursor inc, loop_var *lv)
{
    cursor_list ch;
    if (!fe_children(w, inc, &ch)) return false;
    bool ok = false;
    enum CXCursorKind k = clang_getCursorKind(inc);
    if (k == CXCursor_UnaryOperator && ch.n == 1 &&
        clang_equalCursors(referenced_var(ch.c[0]), lv->var)) {
        fe_span sp = fe_cursor_span(inc);
        fe_file *f = fe_file_of(w, sp.file);
        char *text = f ? fe_strndup(f->text + sp.begin, sp.end - sp.begin) : NULL;
        if (text && strstr(text, "++"))
            lv->step = 1, ok = true;
        else if (text && strstr(text, "--"))
            lv->step = -1, ok = true;
        free(text);
    } else if (k == CXCursor_CompoundAssignOperator && ch.n == 2 &&
               clang_equalCursors(referenced_var(ch.c[0]), lv->var)) {
        char op[8];
        long long v;
        if (operator_between(w, ch.c[0], ch.c[1], op, sizeof op) && loop_int(w, ch.c[1], &v)) {
            if (!strcmp(op, "+="))
                lv->step = v, ok = true;
            else if (!strcmp(op, "-="))
                lv->step = -v, ok = true;
        }
    }
    free(ch.c);
    return ok;
}

typedef struct modify_state {
    CXCursor var;
    bool modified;
} modify_state;

/* A direct (not implicitly cast) reference under an operator is a write or
 * an address-of: the loop variable may change in the body. */
static enum CXChildVisitResult modify_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    modify_state *st = data;
    if (clang_getCursorKind(c) == CXCursor_DeclRefExpr &&
        clang_equalCursors(clang_getCursorReferenced(c), st->var)) {
        enum CXCursorKind pk = clang_getCursorKind(parent);
        if (pk == CXCursor_UnaryOperator || pk == CXCursor_CompoundAssignOperator ||
            pk == CXCursor_BinaryOperator) {
            st->modified = true;
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

static bool cond_holds(const loop_var *lv, long long i)
{
    if (lv->is_unsigned && lv->bits >= 32) {
        /* usual arithmetic conversions: both sides unsigned */
        unsigned long long mask = lv->bits == 64 ? ~0ULL : (1ULL << lv->bits) - 1;
        unsigned long long a = (unsigned long long)i & mask,
                           b = (unsigned long long)lv->bound & mask;
        if (!strcmp(lv->op, "<")) return a < b;
        if (!strcmp(lv->op, "<=")) return a <= b;
        if (!strcmp(lv->op, ">")) return a > b;
        if (!strcmp(lv->op, ">=")) return a >= b;
        return a != b;
    }
    if (!strcmp(lv->op, "<")) return i < lv->bound;
    if (!strcmp(lv->op, "<=")) return i <= lv->bound;
    if (!strcmp(lv->op, ">")) return i > lv->bound;
    if (!strcmp(lv->op, ">=")) return i >= lv->bound;
    return i != lv->bound;
}

/* The trip count of a signed loop variable from i0 by step while `op`
 * bound holds, in closed form; -1 when the loop would run into the
 * variable's overflow (undefined behaviour) or never stops. */
static long long closed_form_count(const loop_var *lv, long long i0)
{
    if (lv->is_unsigned) return -1;
    __int128 b = lv->bound, i = i0, st = lv->step, n;
    if (!strcmp(lv->op, "<") && st > 0)
        n = i < b ? (b - i + st - 1) / st : 0;
    else if (!strcmp(lv->op, "<=") && st > 0)
        n = i <= b ? (b - i) / st + 1 : 0;
    else if (!strcmp(lv->op, ">") && st < 0)
        n = i > b ? (i - b + (-st) - 1) / (-st) : 0;
    else if (!strcmp(lv->op, ">=") && st < 0)
        n = i >= b ? (i - b) / (-st) + 1 : 0;
    else
        return -1;
    /* the last increment, after the last test, must still fit the type */
    __int128 last = i + n * st;
    long long unused;
    if (n > LLONG_MAX || last > LLONG_MAX || last < LLONG_MIN ||
        !to_var_type(lv, (long long)last, &unused))
        return -1;
    return (long long)n;
}

/* The trip count of a `for` loop with constant init, bound and step and a
 * body that does not write the variable; -1 when unknown, -2 when above
 * the unroll limit (out->beyond then holds the exact count when the closed
 * form gives it, else -1). */
static long long for_trip_count(walker *w, CXCursor init, CXCursor cond, CXCursor inc,
                                CXCursor body, loop_var *out)
{
    loop_var lv = {0};
    if (clang_Cursor_isNull(init) || clang_Cursor_isNull(cond) || clang_Cursor_isNull(inc) ||
        !read_init(w, init, &lv) || !read_cond(w, cond, &lv) || !read_inc(w, inc, &lv) ||
        lv.step == 0)
        return -1;
    modify_state ms = {lv.var, false};
    clang_visitChildren(body, modify_visit, &ms);
    if (ms.modified) return -1;
    long long n = 0, i;
    if (!read_var_type(&lv) || !to_var_type(&lv, lv.init, &i)) return -1;
    long long i0 = i;
    while (cond_holds(&lv, i)) {
        if (++n > w->fe->unroll_limit) {
            out->beyond = closed_form_count(&lv, i0);
            return -2;
        }
        if ((lv.step > 0 && i > LLONG_MAX - lv.step) || (lv.step < 0 && i < LLONG_MIN - lv.step))
            return -1;
        if (!to_var_type(&lv, i + lv.step, &i))
            return -1; /* signed overflow: undefined behaviour, no trip count */
    }
    *out = lv;
    return n;
}

/* Finds the offsets of the two ';' of a for header (depth 1 in parens). */
static bool for_semicolons(const fe_file *f, fe_span sp, unsigned *s1, unsigned *s2)
{
    int depth = 0, found = 0;
    for (unsigned i = sp.begin; i < sp.end && i < f->size; ++i) {
        char c = f->text[i];
        if (c == '/' && i + 1 < f->size && f->text[i + 1] == '*') {
            const char *e = strstr(f->text + i + 2, "*/");
            i = e ? (unsigned)(e - f->text) + 1 : sp.end;
        } else if (c == '/' && i + 1 < f->size && f->text[i + 1] == '/') {
            while (i < f->size && f->text[i] != '\n')
                ++i;
        } else if (c == '"' || c == '\'') {
            for (++i; i < f->size && f->text[i] != c; ++i)
                if (f->text[i] == '\\') ++i;
        } else if (c == '(') {
            ++depth;
        } else if (c == ')') {
            if (--depth == 0) return found == 2;
        } else if (c == ';' && depth == 1) {
            *(found++ == 0 ? s1 : s2) = i;
        }
    }
    return false;
}

/* Unrolls n iterations; with at_most, a C node before each one can leave
 * the loop (0..n iterations).  lv (exact trip count only, else NULL): the
 * loop variable, whose value in each iteration is bound for the depend
 * subscripts of the body's directives (fe_depend.c) unless the body declares
 * another variable of that name. */
static bool unroll(walker *w, CXCursor body, fe_span sp, long long n, bool at_most,
                   const loop_var *lv)
{
    char name[128] = "";
    if (lv) {
        CXString s = clang_getCursorSpelling(lv->var);
        snprintf(name, sizeof name, "%s", clang_getCString(s));
        clang_disposeString(s);
        if (fe_decl_count(body, name, NULL) || strlen(name) + 1 >= sizeof name) name[0] = 0;
    }
    fe_bind bind = {name, 0, w->task, w->depth, w->binds, 0};
    if (name[0] && !to_var_type(lv, lv->init, &bind.value)) name[0] = 0;
    const fe_bind *saved = w->binds;
    fe_jump jf = {JUMP_LOOP,
                  {0},
                  {0},
                  {0},
                  -1,
                  false,
                  0,
                  w->jumps,
                  clang_getNullCursor(),
                  false,
                  clang_getNullCursor(),
                  NULL};
    fe_vec exits = {0};
    fe_file *f = fe_file_of(w, sp.file);
    bool ok = f != NULL;
    w->jumps = &jf;
    for (long long k = 0; ok && k < n && w->flow->live; ++k) {
        jf.conts.n = 0;
        if (at_most) {
            int32_t c = fe_attach(w, 'C', f->name, sp.line, sp.col,
                                  fe_label_text(w, sp, "loop test:", true), false);
            ok = c >= 0 && (fe_vec_push(&exits, c) || fe_nomem(w));
        }
        if (name[0]) w->binds = &bind;
        ok = ok && fe_walk_stmt(w, body, sp.begin) && fe_flow_union(w, w->flow, &jf.conts);
        w->binds = saved;
        /* the next iteration's value (for_trip_count checked it fits) */
        if (name[0] && !to_var_type(lv, bind.value + lv->step, &bind.value)) name[0] = 0;
    }
    w->jumps = jf.up;
    ok = ok && fe_flow_union(w, w->flow, &jf.breaks) && fe_flow_union(w, w->flow, &exits);
    fe_vec_free(&exits);
    fe_vec_free(&jf.breaks);
    fe_vec_free(&jf.conts);
    fe_vec_free(&jf.rets);
    return ok;
}

/* A loop_bound above the unroll limit: the body is walked once and kept as a
 * compact loop (docs/compact.md, "Compact loops"): a test C node with
 * "repeat" n whose first successor starts the body, the body's end J, and
 * the exit J reached from the test and the body's end.  The analysis reads
 * it as the at-most unrolling unroll() would write.  break (a second way
 * out) and a body that does not come back to the test are refused. */
static bool compact_loop(walker *w, CXCursor body, fe_span sp, long long n, const fe_bind *var)
{
    fe_file *f = fe_file_of(w, sp.file);
    if (!f) return false;
    int32_t c = fe_attach(w, 'C', f->name, sp.line, sp.col,
                          fe_label_text(w, sp, "loop test:", true), false);
    if (c < 0) return false;
    w->g->nodes[c].repeat = n; /* the depend subscripts' bounds check reads it */
    fe_bind bind = var ? *var : (fe_bind){0};
    const fe_bind *saved = w->binds;
    if (var) bind.compact_test = var->compact_test > 0 ? c + 1 : -(c + 1), w->binds = &bind;
    fe_jump jf = {JUMP_LOOP,
                  {0},
                  {0},
                  {0},
                  -1,
                  false,
                  0,
                  w->jumps,
                  clang_getNullCursor(),
                  false,
                  clang_getNullCursor(),
                  NULL};
    fe_jump *outer = jf.up; /* where a return or `goto end` in the body would go */
    while (outer && outer->kind != JUMP_FUNC && outer->kind != JUMP_TASK)
        outer = outer->up;
    int32_t rets_before = outer ? outer->rets.n : 0;
    w->jumps = &jf;
    bool ok = fe_walk_stmt(w, body, sp.begin) && fe_flow_union(w, w->flow, &jf.conts);
    w->jumps = jf.up;
    w->binds = saved;
    bool returns = outer && outer->rets.n > rets_before;
    bool back_at_test = false; /* a path through the body that creates nothing (continue) */
    for (int32_t i = 0; ok && i < w->flow->tails.n; ++i)
        back_at_test |= w->flow->tails.v[i] == c;
    if (ok && (jf.breaks.n || returns || !w->flow->live || back_at_test))
        ok = fe_refuse(w, f->name, sp.line, sp.col,
                       "this loop (at most %lld iterations, above the unroll limit of %d) is kept "
                       "compact, which needs a body that always reaches its end: no break, no "
                       "return, no continue before the first task directive",
                       n, w->fe->unroll_limit);
    int32_t end =
        ok ? fe_attach(w, 'J', f->name, sp.line, sp.col, fe_strdup("loop body end"), false) : -1;
    int32_t exit =
        end >= 0 ? fe_new_node(w, 'J', f->name, sp.line, sp.col, fe_strdup("loop exit")) : -1;
    ok = exit >= 0 && fe_add_edge(w, end, exit) && fe_add_edge(w, c, exit) &&
         fe_flow_single(w, w->flow, exit, false);
    if (ok) w->g->loops = true;
    fe_vec_free(&jf.breaks);
    fe_vec_free(&jf.conts);
    fe_vec_free(&jf.rets);
    return ok;
}

/* The variable of a compact `for` loop for its body's depend subscripts
 * (fe_depend.c): with a constant start, a body that neither writes it nor
 * declares another of its name, iteration k has i = start + k·step.  Fills
 * *b (name into buf; compact_test 1 when the step is 1, −1 otherwise, made
 * the test's node by compact_loop); false when the loop has no such variable. */
static bool compact_var(walker *w, CXCursor init, CXCursor inc, CXCursor body, char *buf,
                        size_t cap, fe_bind *b)
{
    loop_var lv = {0};
    if (clang_Cursor_isNull(init) || clang_Cursor_isNull(inc) || !read_init(w, init, &lv) ||
        !read_inc(w, inc, &lv) || !read_var_type(&lv))
        return false;
    modify_state ms = {lv.var, false};
    clang_visitChildren(body, modify_visit, &ms);
    CXString s = clang_getCursorSpelling(lv.var);
    snprintf(buf, cap, "%s", clang_getCString(s));
    clang_disposeString(s);
    if (ms.modified || !buf[0] || strlen(buf) + 1 >= cap || fe_decl_count(body, buf, NULL))
        return false;
    *b = (fe_bind){buf, lv.init, w->task, w->depth, w->binds, lv.step == 1 ? 1 : -1};
    return true;
}

bool fe_walk_loop(walker *w, CXCursor s, fe_span sp, int32_t bound)
{
    cursor_list ch;
    if (!fe_children(w, s, &ch)) return false;
    fe_file *f = fe_file_of(w, sp.file);
    enum CXCursorKind k = clang_getCursorKind(s);
    bool ok = f != NULL && ch.n >= 1;
    CXCursor body = k == CXCursor_DoStmt ? ch.c[0] : ch.c[ch.n - 1];
    CXCursor init = clang_getNullCursor(), cond = clang_getNullCursor(),
             inc = clang_getNullCursor();
    if (ok && k == CXCursor_ForStmt) {
        unsigned s1 = 0, s2 = 0;
        ok = for_semicolons(f, sp, &s1, &s2);
        for (int32_t i = 0; ok && i + 1 < ch.n; ++i) {
            unsigned b = fe_cursor_span(ch.c[i]).begin;
            *(b < s1 ? &init : b < s2 ? &cond : &inc) = ch.c[i];
        }
    } else if (ok) {
        cond = k == CXCursor_DoStmt ? ch.c[ch.n - 1] : ch.c[0];
    }
    long long trip = -1, c0;
    loop_var lv = {0};
    if (ok && ((!clang_Cursor_isNull(cond) && fe_significant(w, cond)) ||
               (!clang_Cursor_isNull(inc) && fe_significant(w, inc))))
        ok = fe_refuse(w, f->name, sp.line, sp.col,
                       "the loop condition or increment calls a function with task directives; "
                       "not supported");
    if (ok && !clang_Cursor_isNull(init))
        ok = clang_getCursorKind(init) == CXCursor_DeclStmt
                 ? fe_walk_bare(w, init, fe_cursor_span(init), 0)
                 : fe_walk_expr(w, init);
    if (ok && k == CXCursor_ForStmt)
        trip = for_trip_count(w, init, cond, inc, body, &lv);
    else if (ok && !clang_Cursor_isNull(cond) && eval_int(cond, &c0) && c0 == 0)
        trip = k == CXCursor_DoStmt ? 1 : 0;
    /* above the unroll limit with a known count: kept compact, at most that
     * many iterations, which covers the exact count (docs/compact.md) */
    if (ok && trip == -2 && lv.beyond > 0 && lv.beyond <= INT32_MAX)
        trip = -1, bound = (int32_t)lv.beyond;
    else if (ok && trip == -2)
        ok = fe_refuse(w, f->name, sp.line, sp.col,
                       "the loop runs more than %d times and its count is not a closed form "
                       "(a signed variable stepping towards a constant bound) up to 2^31 - 1; it "
                       "cannot be unrolled into the graph",
                       w->fe->unroll_limit);
    if (ok && trip < 0 && bound <= 0) bound = w->fe->loop_bound;
    if (ok && trip < 0 && bound <= 0)
        ok = fe_refuse(w, f->name, sp.line, sp.col,
                       "loop contains a task scheduling point but its trip count is not a "
                       "compile-time constant: add '#pragma ompdag loop_bound(N)' before it "
                       "or pass --loop-bound N");
    bool compact = ok && trip < 0 && bound > w->fe->unroll_limit;
    if (compact) { /* depend subscripts i ± c become cells indexed by the iteration */
        char name[128];
        fe_bind var;
        bool has_var =
            k == CXCursor_ForStmt && compact_var(w, init, inc, body, name, sizeof name, &var);
        ok = compact_loop(w, body, sp, bound, has_var ? &var : NULL);
    } else if (ok) {
        ok = unroll(w, body, sp, trip >= 0 ? trip : bound, trip < 0,
                    trip >= 0 && k == CXCursor_ForStmt ? &lv : NULL);
    }
    free(ch.c);
    return ok;
}

/* ---- for fe_taskloop.c: the same trip count and unrolling ------------------------------ */

long long fe_for_trip_count(walker *w, CXCursor s, fe_span sp)
{
    cursor_list ch;
    if (clang_getCursorKind(s) != CXCursor_ForStmt || !fe_children(w, s, &ch)) return -1;
    fe_file *f = fe_file_of(w, sp.file);
    CXCursor init = clang_getNullCursor(), cond = clang_getNullCursor(),
             inc = clang_getNullCursor();
    unsigned s1 = 0, s2 = 0;
    long long trip = -1;
    loop_var lv = {0};
    if (f && ch.n >= 1 && for_semicolons(f, sp, &s1, &s2)) {
        for (int32_t i = 0; i + 1 < ch.n; ++i) {
            unsigned b = fe_cursor_span(ch.c[i]).begin;
            *(b < s1 ? &init : b < s2 ? &cond : &inc) = ch.c[i];
        }
        trip = for_trip_count(w, init, cond, inc, ch.c[ch.n - 1], &lv);
    }
    free(ch.c);
    return trip;
}

bool fe_unroll_at_most(walker *w, CXCursor body, fe_span sp, long long n)
{
    return unroll(w, body, sp, n, true, NULL);
}
