/*
 * plugin/fe_stmt.c — the statement walker of the region builder
 * (shared/spec/condag.md §1; seed 004, Sun et al. 2020, §3).
 *
 * The walker visits statements in source order.  Before each statement it
 * takes the pragmas that lie between the previous statement and this one:
 * stand-alone directives (taskwait) act in place, the others prefix the
 * statement.  A "flow" is where the next node hangs: the set of tail nodes
 * (more than one after a branch or a return, joined by a J node), and the
 * open node that absorbs plain code.  Node kinds follow the model:
 *   - plain code (no task scheduling point inside) goes into the open N/W
 *     node; so do branches and loops without one (they fold, §1);
 *   - `task` turns the open N node into a T node (or adds one) and walks the
 *     body as a new task; `taskwait` starts a W node;
 *   - if/else, switch and ?: with a scheduling point inside become C … J;
 *   - loops with one inside are unrolled (constant trip count or
 *     `#pragma ompdag loop_bound(N)`), calls to TU functions with one are
 *     inlined (recursion up to `recursion_bound`).
 * Soundness: break/continue/return that are not at this structural level
 * (inside plain code) are treated as not taken, which only adds nodes and
 * edges to a flow, so the bound can only grow.  An undeferred task (if
 * clause not constant true, or inside a final task) is T followed by a
 * zero-cost W: the same nodes plus edges, never a lower bound.
 *
 * Size: about 1,370 lines, over the project's 1,000-line limit on purpose.
 * The file is one dispatch over every statement kind (blocks, if/else,
 * switch, ?:, loops, calls inlined, task, taskwait, taskgroup, barrier,
 * critical, …), each kind a short function; it is the statement recursion
 * that the front end's walk is made of (fe_loop.c, fe_taskloop.c and
 * fe_team.c call back into it by design).  Splitting it by statement kind
 * would give files that each call the dispatcher back, so the recursion
 * would cross more files, not fewer.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fe_depend.h"
#include "fe_mutex.h"
#include "fe_walk.h"

/* ---- significance: does a statement contain anything the model must see? ---- */

typedef struct sig_state {
    walker *w;
    bool found;
} sig_state;

/* Why a call is refused in task code, by its name; NULL when it is not.
 *  - blocking calls wait until another thread acts; the bound assumes a task
 *    waits only at taskwait (work-conserving scheduling, condag.md §2);
 *  - omp_test_lock / omp_test_nest_lock: taking a lock by polling it in a
 *    loop is the same wait, spent spinning (issue 25);
 *  - direct calls into the OpenMP runtime (__kmpc_*, GOMP_*) create tasks,
 *    waits and locks that no directive shows the model. */
typedef enum call_refusal { CALL_OK, CALL_BLOCKING, CALL_POLLING, CALL_RUNTIME } call_refusal;

static call_refusal refused_call_kind(const char *name)
{
    /* omp_set_lock is mutual exclusion with a blocking term (fe_mutex.c) */
    static const char *const blocking[] = {
        "omp_set_nest_lock", "pthread_mutex_lock",   "pthread_cond_wait", "pthread_cond_timedwait",
        "pthread_join",      "pthread_barrier_wait", "sem_wait",          NULL};
    static const char *const polling[] = {"omp_test_lock", "omp_test_nest_lock", NULL};
    static const char *const runtime_prefixes[] = {"__kmpc_", "GOMP_", NULL};
    if (!name) return CALL_OK;
    for (const char *const *n = blocking; *n; ++n)
        if (!strcmp(name, *n)) return CALL_BLOCKING;
    for (const char *const *n = polling; *n; ++n)
        if (!strcmp(name, *n)) return CALL_POLLING;
    for (const char *const *n = runtime_prefixes; *n; ++n)
        if (!strncmp(name, *n, strlen(*n))) return CALL_RUNTIME;
    return CALL_OK;
}

static call_refusal call_kind(CXCursor call)
{
    CXString s = clang_getCursorSpelling(call);
    call_refusal k = refused_call_kind(clang_getCString(s));
    clang_disposeString(s);
    return k;
}

bool fe_is_runtime_call(CXCursor call)
{
    return call_kind(call) == CALL_RUNTIME;
}

/* Every call refused in task code (the name is historical: blocking calls
 * came first).  frontend.c marks a function that makes one significant, so
 * the walk reaches it through any helper. */
bool fe_is_blocking_call(CXCursor call)
{
    return call_kind(call) != CALL_OK;
}

static enum CXChildVisitResult sig_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    sig_state *st = data;
    if (clang_getCursorKind(c) == CXCursor_CallExpr) {
        int32_t f = fe_func_of_call(st->w->fe, c);
        if ((f >= 0 && st->w->fe->funcs[f].significant) ||
            (f < 0 && st->w->fe->fnptr_func >= 0 && fe_call_is_indirect(c)) ||
            fe_is_blocking_call(c) ||
            (f < 0 && !fe_call_is_indirect(c) &&
             fe_extern_task_source(st->w->fe, c, st->w->nomem))) {
            st->found = true;
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

static bool dir_matters(fe_dir d)
{
    return d != FE_DIR_PLAIN && d != FE_DIR_IGNORED_STANDALONE && d != FE_DIR_OUTSIDE &&
           d != FE_DIR_LOOP_BOUND && d != FE_DIR_RECURSION_BOUND && d != FE_DIR_DEADLINE &&
           d != FE_DIR_RESOURCE && d != FE_DIR_ASSUME && d != FE_DIR_OMPDAG_UNKNOWN;
}

/* A `return` that is not inside a loop of s leaves s early: the code after s
 * (which may hold scheduling points) is skipped on that branch, so s must
 * become C … J with the return's edge, not fold into one node.  A return
 * inside a loop stays plain (taken as not taken, the sound fallback above), so
 * loops without tasks keep folding instead of needing a trip count. */
typedef struct exit_state {
    fe_span outer;
    bool found;
} exit_state;

/* A goto whose label lies outside `outer` leaves it like a return. */
static bool goto_leaves(CXCursor g, fe_span outer)
{
    fe_span target = fe_cursor_span(clang_getCursorReferenced(g));
    return !target.file || !clang_File_isEqual(target.file, outer.file) ||
           target.begin < outer.begin || target.begin >= outer.end;
}

static enum CXChildVisitResult exit_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    exit_state *st = data;
    switch (clang_getCursorKind(c)) {
    case CXCursor_ReturnStmt:
        st->found = true;
        return CXChildVisit_Break;
    case CXCursor_GotoStmt:
        if (!goto_leaves(c, st->outer)) return CXChildVisit_Continue;
        st->found = true;
        return CXChildVisit_Break;
    case CXCursor_ForStmt:
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
        return CXChildVisit_Continue;
    default:
        return CXChildVisit_Recurse;
    }
}

static bool has_early_return(CXCursor s)
{
    enum CXCursorKind k = clang_getCursorKind(s);
    if (k == CXCursor_ReturnStmt || k == CXCursor_GotoStmt) return true;
    if (k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt) return false;
    exit_state st = {fe_cursor_span(s), false};
    clang_visitChildren(s, exit_visit, &st);
    return st.found;
}

bool fe_significant(walker *w, CXCursor s)
{
    fe_span sp = fe_cursor_span(s);
    fe_file *f = sp.file ? fe_file_get(w->fe, sp.file) : NULL;
    if (f)
        for (int32_t i = fe_pragma_lower_bound(f, sp.begin);
             i < f->npragmas && f->pragmas[i].begin < sp.end; ++i)
            if (dir_matters(f->pragmas[i].dir)) return true;
    if (clang_isStatement(clang_getCursorKind(s)) && has_early_return(s)) return true;
    sig_state st = {w, false};
    if (sig_visit(s, s, &st) == CXChildVisit_Break) return true;
    clang_visitChildren(s, sig_visit, &st);
    return st.found;
}

/* Plain code may not jump out of itself with goto. */
typedef struct goto_state {
    walker *w;
    fe_span outer;
    CXCursor bad;
    bool found;
} goto_state;

/* The innermost function or task body frame. */
static fe_jump *body_frame(walker *w)
{
    fe_jump *j = w->jumps;
    while (j && j->kind != JUMP_FUNC && j->kind != JUMP_TASK)
        j = j->up;
    return j;
}

/* Is `label` (a LabelStmt) the last statement of the body of frame j, with
 * nothing but `;` after it?  A goto there ends the task or returns. */
static bool is_end_label(const fe_jump *j, CXCursor label)
{
    if (!j || clang_Cursor_isNull(j->body) || clang_getCursorKind(label) != CXCursor_LabelStmt)
        return false;
    cursor_list ch = {0};
    clang_visitChildren(j->body, fe_collect_visit, &ch);
    bool last = !ch.nomem && ch.n > 0 && clang_equalCursors(ch.c[ch.n - 1], label);
    free(ch.c);
    if (!last) return false;
    cursor_list lc = {0};
    clang_visitChildren(label, fe_collect_visit, &lc);
    bool empty = !lc.nomem &&
                 (lc.n == 0 || (lc.n == 1 && clang_getCursorKind(lc.c[0]) == CXCursor_NullStmt));
    free(lc.c);
    return empty;
}

static enum CXChildVisitResult goto_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    goto_state *st = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_IndirectGotoStmt || k == CXCursor_GotoStmt) {
        /* A goto to the end of the task or function body inside plain code
         * (a loop without scheduling points) is taken as not taken, like a
         * return there: it only skips work. */
        if (k == CXCursor_IndirectGotoStmt ||
            (goto_leaves(c, st->outer) &&
             !is_end_label(body_frame(st->w), clang_getCursorReferenced(c)))) {
            st->bad = c;
            st->found = true;
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

/* ---- spin waits ----------------------------------------------------------------------- */

/* A loop whose body is empty (`;`, `{}`, or only `taskyield`/`flush`, which
 * leave no statement once OpenMP is off) and whose condition reads a
 * variable without changing anything can only end when another thread
 * writes that variable: it is a spin wait on a shared flag (`while (!flag)`,
 * `while (flag == 0)`, `while (!atomic_load(&done))`), a wait outside
 * taskwait as unbounded as a lock.  Refused by name.  The only other loops
 * of that shape are never entered or never end, so nothing that terminates
 * is lost. */
typedef struct spin_state {
    CXCursor var;   /* the first variable the condition reads */
    bool effects;   /* the condition calls or assigns something */
    CXCursor found; /* the loop, once one is found */
    bool hit;
} spin_state;

static bool is_empty_body(CXCursor body)
{
    enum CXCursorKind k = clang_getCursorKind(body);
    if (k == CXCursor_NullStmt) return true;
    if (k != CXCursor_CompoundStmt) return false;
    cursor_list ch = {0};
    clang_visitChildren(body, fe_collect_visit, &ch);
    bool empty = !ch.nomem;
    for (int32_t i = 0; empty && i < ch.n; ++i)
        empty = clang_getCursorKind(ch.c[i]) == CXCursor_NullStmt;
    free(ch.c);
    return empty;
}

/* Reads of a variable are fine; calls (but atomic loads), assignments and
 * increments are effects that may end the loop from inside. */
static enum CXChildVisitResult cond_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    spin_state *st = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_CallExpr) {
        CXString s = clang_getCursorSpelling(c);
        const char *n = clang_getCString(s);
        bool load = n && strstr(n, "atomic_load");
        clang_disposeString(s);
        if (!load) {
            st->effects = true;
            return CXChildVisit_Break;
        }
    } else if (k == CXCursor_CompoundAssignOperator) {
        st->effects = true;
        return CXChildVisit_Break;
    } else if (k == CXCursor_DeclRefExpr && clang_Cursor_isNull(st->var)) {
        CXCursor ref = clang_getCursorReferenced(c);
        enum CXCursorKind rk = clang_getCursorKind(ref);
        if (rk == CXCursor_VarDecl || rk == CXCursor_ParmDecl) st->var = ref;
    }
    return CXChildVisit_Recurse;
}

/* Assignments and ++/-- show as operator tokens (libclang 14 has no
 * operator kinds in its C API). */
static bool has_assignment_token(CXCursor e)
{
    static const char *const ops[] = {
        "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "++", "--", "<<=", ">>=", NULL};
    CXTranslationUnit tu = clang_Cursor_getTranslationUnit(e);
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(tu, clang_getCursorExtent(e), &toks, &n);
    bool found = false;
    for (unsigned i = 0; i < n && !found; ++i) {
        if (clang_getTokenKind(toks[i]) != CXToken_Punctuation) continue;
        CXString s = clang_getTokenSpelling(tu, toks[i]);
        for (const char *const *o = ops; *o && !found; ++o)
            found = !strcmp(clang_getCString(s), *o);
        clang_disposeString(s);
    }
    if (toks) clang_disposeTokens(tu, toks, n);
    return found;
}

/* Is loop c (while, do, or a for with only a condition) a spin wait? */
static bool is_spin_loop(CXCursor c, spin_state *st)
{
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k != CXCursor_WhileStmt && k != CXCursor_DoStmt && k != CXCursor_ForStmt) return false;
    cursor_list ch = {0};
    clang_visitChildren(c, fe_collect_visit, &ch);
    bool spin = false;
    if (!ch.nomem && ch.n == 2) {
        CXCursor cond = k == CXCursor_DoStmt ? ch.c[1] : ch.c[0];
        CXCursor body = k == CXCursor_DoStmt ? ch.c[0] : ch.c[1];
        st->var = clang_getNullCursor();
        st->effects = false;
        if (clang_isExpression(clang_getCursorKind(cond)) && is_empty_body(body)) {
            if (clang_getCursorKind(cond) == CXCursor_DeclRefExpr)
                cond_visit(cond, c, st);
            else
                clang_visitChildren(cond, cond_visit, st);
            spin = !st->effects && !clang_Cursor_isNull(st->var) && !has_assignment_token(cond);
        }
    }
    free(ch.c);
    return spin;
}

static enum CXChildVisitResult spin_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    spin_state *st = data;
    if (!is_spin_loop(c, st)) return CXChildVisit_Recurse;
    st->found = c;
    st->hit = true;
    return CXChildVisit_Break;
}

/* Refuses a spin wait in plain code s (the walk goes on: one run names every
 * construct). */
static bool check_spin(walker *w, CXCursor s)
{
    spin_state st = {clang_getNullCursor(), false, clang_getNullCursor(), false};
    if (spin_visit(s, s, &st) == CXChildVisit_Recurse) clang_visitChildren(s, spin_visit, &st);
    if (!st.hit) return true;
    fe_span sp = fe_cursor_span(st.found);
    fe_file *f = fe_file_of(w, sp.file);
    CXString name = clang_getCursorSpelling(st.var);
    bool r = f && fe_refuse(w, f->name, sp.line, sp.col,
                            "spin-wait loop on '%s' in task code: a loop with an empty (or "
                            "taskyield-only) body waits until another thread changes '%s', an "
                            "unbounded wait outside taskwait that breaks the work-conserving "
                            "bound",
                            clang_getCString(name), clang_getCString(name));
    clang_disposeString(name);
    return r || (f && !*w->nomem);
}

bool fe_check_plain(walker *w, CXCursor s, fe_span sp)
{
    if (!check_spin(w, s)) return false;
    goto_state st = {w, sp, clang_getNullCursor(), false};
    clang_visitChildren(s, goto_visit, &st);
    if (!st.found) return true;
    fe_span g = fe_cursor_span(st.bad);
    fe_file *f = fe_file_of(w, g.file);
    return f && fe_refuse(w, f->name, g.line, g.col,
                          "goto out of a statement inside a task region is not supported: it may "
                          "cross a task scheduling point");
}

/* ---- jumps ----------------------------------------------------------------------- */

static bool jump(walker *w, CXCursor s, fe_span sp, enum CXCursorKind k)
{
    fe_jump *j = w->jumps;
    const char *what = k == CXCursor_ReturnStmt  ? "return"
                       : k == CXCursor_BreakStmt ? "break"
                                                 : "continue";
    for (; j; j = j->up) {
        if (j->kind == JUMP_TASK) {
            j = NULL;
            break;
        }
        if (k == CXCursor_ReturnStmt) {
            if (j->kind == JUMP_FUNC) break;
            continue;
        }
        if (j->kind == JUMP_FUNC) {
            j = NULL;
            break;
        }
        if (k == CXCursor_BreakStmt || j->kind == JUMP_LOOP) break;
    }
    if (!j) {
        fe_file *f = fe_file_of(w, sp.file);
        return f && fe_refuse(w, f->name, sp.line, sp.col,
                              "'%s' leaves a task body or the single/master block: not allowed in "
                              "a structured block",
                              what);
    }
    if (k == CXCursor_ReturnStmt) {
        cursor_list ch;
        if (!fe_children(w, s, &ch)) return false;
        bool ok = ch.n == 0 || fe_walk_expr(w, ch.c[0]);
        free(ch.c);
        if (!ok) return false;
    }
    fe_vec *dst = k == CXCursor_ReturnStmt  ? &j->rets
                  : k == CXCursor_BreakStmt ? &j->breaks
                                            : &j->conts;
    for (int32_t i = 0; w->flow->live && i < w->flow->tails.n; ++i)
        if (!fe_vec_push_unique(dst, w->flow->tails.v[i])) return fe_nomem(w);
    w->flow->tails.n = 0;
    w->flow->live = false;
    w->flow->open = -1;
    return true;
}

/* `goto end` where `end:;` closes the task or function body: a return. */
static bool goto_end(walker *w)
{
    fe_jump *j = body_frame(w);
    for (int32_t i = 0; w->flow->live && i < w->flow->tails.n; ++i)
        if (!fe_vec_push_unique(&j->rets, w->flow->tails.v[i])) return fe_nomem(w);
    w->flow->tails.n = 0;
    w->flow->live = false;
    w->flow->open = -1;
    return true;
}

/* ---- branches ---------------------------------------------------------------------- */

/* Walks branch b (a statement, or an expression when is_expr) from flow
 * `entry` and adds its end to `merged`. */
static bool walk_branch(walker *w, CXCursor b, unsigned lo, bool is_expr, const fe_flow *entry,
                        fe_flow *merged)
{
    fe_flow bf = {0};
    fe_flow *saved = w->flow;
    bool ok = fe_flow_copy(w, &bf, entry);
    w->flow = &bf;
    ok = ok && (is_expr ? fe_walk_expr(w, b) : fe_walk_stmt(w, b, lo));
    w->flow = saved;
    if (ok && bf.live) ok = fe_flow_union(w, merged, &bf.tails);
    fe_vec_free(&bf.tails);
    return ok;
}

/* Ends a C … J structure: a J node after the merged tails (if any is live). */
static bool join(walker *w, fe_flow *merged, const char *file, int32_t line, const char *label)
{
    if (!merged->live || merged->tails.n == 0) {
        w->flow->tails.n = 0;
        w->flow->live = false;
        w->flow->open = -1;
        return true;
    }
    int32_t j = fe_new_node(w, 'J', file, line, 1, fe_strdup(label));
    if (j < 0) return false;
    for (int32_t i = 0; i < merged->tails.n; ++i)
        if (!fe_add_edge(w, merged->tails.v[i], j)) return false;
    return fe_flow_single(w, w->flow, j, false);
}

/* An if whose condition folds with the assumed input (fe_assume.c): only
 * the branch taken is walked, from the current flow; no C … J. */
static bool walk_if_folded(walker *w, const cursor_list *ch, long long cv)
{
    /* the test still runs: plain code, which also gives the flow a tail */
    if (!fe_significant(w, ch->c[0]) && !fe_plain(w, ch->c[0])) return false;
    if (cv) return fe_walk_stmt(w, ch->c[1], fe_cursor_span(ch->c[0]).end);
    if (ch->n < 3) return true;
    return fe_walk_stmt(w, ch->c[2], fe_cursor_span(ch->c[1]).end);
}

static bool walk_if(walker *w, CXCursor s, fe_span sp)
{
    cursor_list ch;
    if (!fe_children(w, s, &ch)) return false;
    fe_file *f = fe_file_of(w, sp.file);
    bool ok = f && ch.n >= 2 && (!fe_significant(w, ch.c[0]) || fe_walk_expr(w, ch.c[0]));
    long long cv;
    if (ok && w->flow->live && fe_assume_cond(w, ch.c[0], &cv)) {
        ok = walk_if_folded(w, &ch, cv);
    } else if (ok && w->flow->live) {
        fe_span cs = fe_cursor_span(ch.c[0]);
        fe_span head = {sp.file, sp.begin, cs.end + 1, sp.line, sp.col, sp.line};
        int32_t c =
            fe_attach(w, 'C', f->name, sp.line, sp.col, fe_label_text(w, head, NULL, true), false);
        fe_flow entry = {0}, merged = {0};
        ok = c >= 0 && fe_flow_copy(w, &entry, w->flow);
        ok = ok && walk_branch(w, ch.c[1], cs.end, false, &entry, &merged);
        if (ok && ch.n >= 3)
            ok = walk_branch(w, ch.c[2], fe_cursor_span(ch.c[1]).end, false, &entry, &merged);
        else if (ok)
            ok = fe_flow_union(w, &merged, &entry.tails);
        ok = ok && join(w, &merged, f->name, sp.end_line, "end if");
        fe_vec_free(&entry.tails);
        fe_vec_free(&merged.tails);
    } else if (ok && ch.n < 2) {
        ok = fe_refuse(w, f->name, sp.line, sp.col, "malformed if statement");
    }
    free(ch.c);
    return ok;
}

static bool walk_conditional(walker *w, CXCursor e, fe_span sp)
{
    cursor_list ch;
    if (!fe_children(w, e, &ch)) return false;
    fe_file *f = fe_file_of(w, sp.file);
    bool ok = f != NULL;
    if (ok && ch.n != 3) {
        for (int32_t i = 0; ok && i < ch.n; ++i)
            ok = fe_walk_expr(w, ch.c[i]);
        free(ch.c);
        return ok;
    }
    ok = ok && (!fe_significant(w, ch.c[0]) || fe_walk_expr(w, ch.c[0]));
    long long cv;
    if (ok && w->flow->live && fe_assume_cond(w, ch.c[0], &cv)) {
        /* folded: the test runs as plain code, then the arm taken */
        ok = (fe_significant(w, ch.c[0]) || fe_plain(w, ch.c[0])) &&
             fe_walk_expr(w, ch.c[cv ? 1 : 2]);
    } else if (ok && w->flow->live) {
        int32_t c =
            fe_attach(w, 'C', f->name, sp.line, sp.col, fe_label_text(w, sp, "?:", true), false);
        fe_flow entry = {0}, merged = {0};
        ok = c >= 0 && fe_flow_copy(w, &entry, w->flow);
        ok = ok && walk_branch(w, ch.c[1], 0, true, &entry, &merged);
        ok = ok && walk_branch(w, ch.c[2], 0, true, &entry, &merged);
        ok = ok && join(w, &merged, f->name, sp.end_line, "end ?:");
        fe_vec_free(&entry.tails);
        fe_vec_free(&merged.tails);
    }
    free(ch.c);
    return ok;
}

/* Counts case/default labels of this switch (not of nested switches). */
static enum CXChildVisitResult case_count_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_SwitchStmt) return CXChildVisit_Continue;
    if (k == CXCursor_CaseStmt || k == CXCursor_DefaultStmt) ++*(int32_t *)data;
    return CXChildVisit_Recurse;
}

/* The labels of a switch whose condition folds to v: the case label equal
 * to v, else the default, else none (null cursor).  false when some case
 * value is not a constant (then the switch is not folded). */
typedef struct case_find {
    long long v;
    CXCursor match, deflt;
    bool unknown;
} case_find;

static enum CXChildVisitResult case_find_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    case_find *st = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_SwitchStmt) return CXChildVisit_Continue;
    if (k == CXCursor_DefaultStmt) st->deflt = c;
    if (k != CXCursor_CaseStmt) return CXChildVisit_Recurse;
    cursor_list ch = {0};
    clang_visitChildren(c, fe_collect_visit, &ch);
    CXEvalResult r = !ch.nomem && ch.n == 2 ? clang_Cursor_Evaluate(ch.c[0]) : NULL;
    free(ch.c);
    if (!r || clang_EvalResult_getKind(r) != CXEval_Int) {
        st->unknown = true; /* also GNU case ranges (three children) */
        if (r) clang_EvalResult_dispose(r);
        return CXChildVisit_Break;
    }
    if (clang_EvalResult_getAsLongLong(r) == st->v && clang_Cursor_isNull(st->match)) st->match = c;
    clang_EvalResult_dispose(r);
    return CXChildVisit_Recurse;
}

/* A switch whose condition folds: only the label taken starts from the
 * entry flow (fall-through and break as usual); nothing taken: the switch
 * is skipped. */
static bool walk_switch_folded(walker *w, CXCursor cond, CXCursor body, unsigned lo,
                               CXCursor target)
{
    fe_flow entry = {0}, inner = {0}, merged = {0};
    /* the test runs as plain code, which also gives the flow a tail */
    bool ok = fe_plain(w, cond) && fe_flow_union(w, &entry, &w->flow->tails);
    fe_jump jf = {JUMP_SWITCH,           {0},  {0},    {0},         -1, false, 0, w->jumps,
                  clang_getNullCursor(), true, target, &entry.tails};
    fe_flow *saved = w->flow;
    if (ok && !clang_Cursor_isNull(target)) {
        w->jumps = &jf;
        w->flow = &inner;
        ok = fe_walk_stmt(w, body, lo);
        w->flow = saved;
        w->jumps = jf.up;
        if (ok && inner.live) ok = fe_flow_union(w, &merged, &inner.tails);
        ok = ok && fe_flow_union(w, &merged, &jf.breaks);
    } else if (ok) {
        ok = fe_flow_union(w, &merged, &entry.tails);
    }
    if (ok) {
        w->flow->tails.n = 0;
        w->flow->live = false;
        w->flow->open = -1;
        ok = fe_flow_union(w, w->flow, &merged.tails);
    }
    fe_vec_free(&entry.tails);
    fe_vec_free(&inner.tails);
    fe_vec_free(&merged.tails);
    fe_vec_free(&jf.breaks);
    fe_vec_free(&jf.conts);
    fe_vec_free(&jf.rets);
    return ok;
}

static bool walk_switch(walker *w, CXCursor s, fe_span sp)
{
    cursor_list ch;
    if (!fe_children(w, s, &ch)) return false;
    fe_file *f = fe_file_of(w, sp.file);
    bool ok = f && ch.n == 2 && (!fe_significant(w, ch.c[0]) || fe_walk_expr(w, ch.c[0]));
    case_find cf = {0, clang_getNullCursor(), clang_getNullCursor(), false};
    if (ok && w->flow->live && fe_assume_cond(w, ch.c[0], &cf.v)) {
        clang_visitChildren(ch.c[1], case_find_visit, &cf);
    } else {
        cf.unknown = true;
    }
    if (ok && w->flow->live && !cf.unknown) {
        CXCursor target = clang_Cursor_isNull(cf.match) ? cf.deflt : cf.match;
        ok = walk_switch_folded(w, ch.c[0], ch.c[1], fe_cursor_span(ch.c[0]).end, target);
    } else if (ok && w->flow->live) {
        fe_span cs = fe_cursor_span(ch.c[0]);
        fe_span head = {sp.file, sp.begin, cs.end + 1, sp.line, sp.col, sp.line};
        int32_t c =
            fe_attach(w, 'C', f->name, sp.line, sp.col, fe_label_text(w, head, NULL, true), false);
        fe_jump jf = {JUMP_SWITCH,
                      {0},
                      {0},
                      {0},
                      c,
                      false,
                      0,
                      w->jumps,
                      clang_getNullCursor(),
                      false,
                      clang_getNullCursor(),
                      NULL};
        fe_flow body = {0}, merged = {0};
        fe_flow *saved = w->flow;
        ok = c >= 0;
        if (ok) {
            w->jumps = &jf;
            w->flow = &body;
            ok = fe_walk_stmt(w, ch.c[1], cs.end);
            w->flow = saved;
            w->jumps = jf.up;
        }
        int32_t labels = 0;
        clang_visitChildren(ch.c[1], case_count_visit, &labels);
        if (ok && labels != jf.ncases)
            ok = fe_refuse(w, f->name, sp.line, sp.col,
                           "a case label of this switch is nested inside another statement "
                           "(Duff's device); not supported in a task region");
        if (ok && body.live) ok = fe_flow_union(w, &merged, &body.tails);
        ok = ok && fe_flow_union(w, &merged, &jf.breaks);
        if (ok && !jf.has_default) {
            fe_vec cv = {&c, 1, 1};
            ok = fe_flow_union(w, &merged, &cv);
        }
        ok = ok && join(w, &merged, f->name, sp.end_line, "end switch");
        fe_vec_free(&body.tails);
        fe_vec_free(&merged.tails);
        fe_vec_free(&jf.breaks);
        fe_vec_free(&jf.conts);
        fe_vec_free(&jf.rets);
    } else if (ok && ch.n != 2) {
        ok = fe_refuse(w, f->name, sp.line, sp.col, "malformed switch statement");
    }
    free(ch.c);
    return ok;
}

static bool case_label(walker *w, CXCursor s, fe_span sp)
{
    fe_jump *j = w->jumps;
    fe_file *f = fe_file_of(w, sp.file);
    if (!f) return false;
    if (!j || j->kind != JUMP_SWITCH)
        return fe_refuse(w, f->name, sp.line, sp.col,
                         "case label inside a loop or block of its switch is not supported in a "
                         "task region");
    if (clang_getCursorKind(s) == CXCursor_DefaultStmt) j->has_default = true;
    j->ncases++;
    if (j->folded) {
        /* only the label taken enters from the switch; others fall through */
        if (clang_equalCursors(s, j->target)) {
            if (!fe_flow_union(w, w->flow, j->entry)) return false;
            w->flow->live = true;
        }
    } else if (!fe_vec_push_unique(&w->flow->tails, j->cnode)) {
        return fe_nomem(w);
    } else {
        w->flow->live = true;
    }
    w->flow->open = -1;
    cursor_list ch;
    if (!fe_children(w, s, &ch)) return false;
    bool ok = true;
    if (ch.n > 0) {
        unsigned lo = ch.n > 1 ? fe_cursor_span(ch.c[ch.n - 2]).end : sp.begin;
        ok = fe_walk_stmt(w, ch.c[ch.n - 1], lo);
    }
    free(ch.c);
    return ok;
}

/* ---- tasks ------------------------------------------------------------------------------- */

bool fe_literal_value(const char *arg, long *v)
{
    if (!arg) return false;
    const char *colon = strchr(arg, ':');
    if (colon) arg = colon + 1;
    while (*arg == ' ')
        ++arg;
    if (!strcmp(arg, "true")) return *v = 1, true;
    if (!strcmp(arg, "false")) return *v = 0, true;
    char *end;
    *v = strtol(arg, &end, 0);
    while (*end == ' ' || *end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
        ++end;
    return end != arg && *end == 0;
}

bool fe_clause_value(const ompdag_frontend *fe, const fe_file *f, const fe_pragma *p,
                     const char *clause, long *v)
{
    const fe_clause *c = fe_pragma_clause(p, clause);
    if (!c || !c->arg) return false;
    if (fe_literal_value(c->arg, v)) return true;
    for (int32_t i = 0; i < fe->ncargs; ++i) {
        const fe_const_arg *a = &fe->cargs[i];
        if (a->pragma_begin == p->begin && !strcmp(a->clause, clause) &&
            !strcmp(a->file, f->name)) {
            if (!a->ok || a->value < LONG_MIN || a->value > LONG_MAX) return false;
            *v = (long)a->value;
            return true;
        }
    }
    return false;
}

static bool check_task_clauses(walker *w, const fe_file *f, const fe_pragma *p)
{
    static const char *const allowed[] = {
        "if",           "final",   "untied",   "mergeable",    "priority", "shared", "private",
        "firstprivate", "default", "allocate", "in_reduction", "affinity", NULL};
    for (int32_t i = 0; i < p->nclauses; ++i) {
        const char *n = p->clauses[i].name;
        if (!strcmp(n, "depend")) continue; /* fe_depend.c parses and checks it */
        if (!strcmp(n, "detach"))
            return fe_refuse(w, f->name, p->line, p->col,
                             "task with a detach clause: its completion event is not in the model");
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; ++a)
            ok = !strcmp(n, *a);
        if (!ok) return fe_refuse(w, f->name, p->line, p->col, "unsupported task clause '%s'", n);
    }
    return true;
}

static bool walk_task(walker *w, const fe_file *f, const fe_pragma *p, CXCursor s, fe_span sp,
                      int32_t loop_bound)
{
    if (!check_task_clauses(w, f, p)) return false;
    if (!w->flow->live) return true;
    long v;
    const fe_clause *ifc = fe_pragma_clause(p, "if");
    const fe_clause *fin = fe_pragma_clause(p, "final");
    bool undeferred = w->in_final || (ifc && !(fe_clause_value(w->fe, f, p, "if", &v) && v != 0));
    bool child_final =
        w->in_final || (fin && !(fe_clause_value(w->fe, f, p, "final", &v) && v == 0));
    char *label = fe_label_text(w, sp, "task", true);
    int32_t t_node;
    int32_t open = w->flow->open;
    if (open >= 0 && w->g->nodes[open].kind == 'N') {
        fe_node *nd = &w->g->nodes[open];
        nd->kind = 'T';
        nd->file = f->name;
        nd->line = p->line;
        nd->col = p->col;
        free(nd->label);
        nd->label = label;
        if (!label) return fe_nomem(w);
        t_node = open;
        if (!fe_flow_single(w, w->flow, t_node, false)) return false;
    } else {
        t_node = fe_attach(w, 'T', f->name, p->line, p->col, label, false);
        if (t_node < 0) return false;
    }
    if (!fe_depend_attach(w, f->name, p, t_node)) return false; /* also on shared bodies */
    /* built in this context (never with depend: compact graphs do not model it) */
    int32_t t = w->g->nodes[t_node].dep ? -1 : fe_share_find(w, s, loop_bound, child_final);
    if (t >= 0) {
        w->g->nodes[t_node].creates = t;
        return !undeferred || fe_attach(w, 'W', f->name, p->line, p->col,
                                        fe_strdup("wait for undeferred task"), true) >= 0;
    }
    if (*w->nomem) return false;
    t = fe_new_task(w, t_node, fe_pragma_clause(p, "untied") != NULL);
    if (t < 0) return false;
    w->g->nodes[t_node].creates = t;

    fe_flow cf = {{0}, true, -1};
    fe_jump tf = {JUMP_TASK, {0}, {0}, {0}, -1, false, 0, NULL, s, false, clang_getNullCursor(),
                  NULL};
    walker cw = *w;
    cw.task = t;
    cw.in_final = child_final;
    cw.flow = &cf;
    cw.jumps = &tf;
    bool ok = fe_walk_bare(&cw, s, sp, loop_bound) && fe_flow_union(&cw, &cf, &tf.rets) &&
              fe_finish_task(&cw, sp);
    fe_vec_free(&cf.tails);
    fe_vec_free(&tf.rets);
    if (!ok || !fe_share_add(w, s, loop_bound, child_final, t)) return false;
    if (undeferred)
        return fe_attach(w, 'W', f->name, p->line, p->col, fe_strdup("wait for undeferred task"),
                         true) >= 0;
    return true;
}

static bool walk_taskgroup(walker *w, const fe_file *f, const fe_pragma *p, CXCursor s, fe_span sp,
                           int32_t loop_bound)
{
    for (int32_t i = 0; i < p->nclauses; ++i)
        if (strcmp(p->clauses[i].name, "task_reduction") && strcmp(p->clauses[i].name, "allocate"))
            return fe_refuse(w, f->name, p->line, p->col, "unsupported taskgroup clause '%s'",
                             p->clauses[i].name);
    int32_t first = w->g->ntasks;
    w->g->taskgroups++; /* its tasks are checked below: build them all (fe_share.c) */
    bool walked = fe_walk_bare(w, s, sp, loop_bound);
    w->g->taskgroups--;
    if (!walked) return false;
    for (int32_t t = first; t < w->g->ntasks; ++t) {
        int32_t bad = fe_unawaited_child(w, t);
        if (*w->nomem) return false;
        if (bad >= 0) {
            const fe_node *tn = &w->g->nodes[w->g->tasks[t].creator];
            return fe_refuse(w, f->name, p->line, p->col,
                             "taskgroup waits for all descendants, but the task created at line %d "
                             "does not wait (taskwait) for its child task created at line %d; the "
                             "model cannot express this wait",
                             tn->line, w->g->nodes[bad].line);
        }
    }
    if (!w->flow->live) return true;
    return fe_attach(w, 'W', f->name, p->line, p->col, fe_strdup("end taskgroup"), true) >= 0;
}

/* ---- directives before a statement ---------------------------------------------------------- */

static bool standalone(walker *w, const fe_file *f, const fe_pragma *p)
{
    switch (p->dir) {
    case FE_DIR_TASKWAIT: /* a W node; with depend(…) a partial one (fe_depend.c) */
        return fe_depend_taskwait(w, f->name, p);
    case FE_DIR_BARRIER:
        if (fe_in_implicit_task(w)) /* top-level barriers cut the team's phases (fe_team.c) */
            return fe_refuse(w, f->name, p->line, p->col,
                             "barrier inside a branch, loop or called function of a parallel "
                             "block whose threads all create tasks is not modelled; put it at the "
                             "block's top level");
        return fe_refuse(w, f->name, p->line, p->col,
                         "barrier inside a task or a single/master block is not allowed");
    case FE_DIR_IGNORED_STANDALONE:
    case FE_DIR_OUTSIDE:
    case FE_DIR_OMPDAG_UNKNOWN:
    case FE_DIR_ASSUME: /* read for the whole file (fe_assume.c) */
        return true;
    default: /* refused; the walk goes on, so one run names every construct */
        return fe_refuse(w, f->name, p->line, p->col,
                         "'#pragma omp %s' is not supported inside a task region", p->name) ||
               !*w->nomem;
    }
}

static const char *refusal_reason(const char *name)
{
    if (strstr(name, "taskloop"))
        return ": of the taskloop forms only taskloop, master/masked taskloop and parallel "
               "master/masked taskloop (each with or without simd) are modelled";
    if (!strcmp(name, "for") || !strcmp(name, "sections") || strstr(name, "for ") ||
        !strcmp(name, "scope") || !strcmp(name, "workshare"))
        return ": a worksharing construct may not be nested inside a task, single or master "
               "region (OpenMP 5.1 section 17.1)";
    return "";
}

static bool prefixed(walker *w, const fe_file *f, const fe_pragma *const *chain, int32_t n,
                     CXCursor s, fe_span sp)
{
    const fe_pragma *omp = NULL;
    int32_t loop_bound = 0;
    if (chain[0]->dir == FE_DIR_SINGLE || fe_is_producer_taskloop(chain[0])) /* and stacked ones */
        return fe_walk_team_single(w, f, chain[0], chain + 1, n - 1, s, sp);
    for (int32_t i = 0; i < n; ++i) {
        const fe_pragma *p = chain[i];
        if (p->dir == FE_DIR_LOOP_BOUND) {
            long v;
            const fe_clause *a = fe_pragma_clause(p, "");
            if (!a || !fe_clause_value(w->fe, f, p, "", &v) || v < 0 || v > INT32_MAX)
                return fe_refuse(w, f->name, p->line, p->col,
                                 "'#pragma ompdag loop_bound(%s)' needs a constant expression "
                                 "between 0 and %d",
                                 a && a->arg ? a->arg : "", INT32_MAX);
            loop_bound = (int32_t)v;
            enum CXCursorKind k = clang_getCursorKind(s);
            bool is_loop = k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt;
            if (!is_loop && i == n - 1)
                return fe_refuse(w, f->name, p->line, p->col,
                                 "'#pragma ompdag loop_bound' must precede a loop");
        } else if (p->dir == FE_DIR_DEADLINE || p->dir == FE_DIR_RECURSION_BOUND) {
            return fe_refuse(w, f->name, p->line, p->col,
                             "'#pragma ompdag %s' applies to a function or a parallel region, "
                             "not to a statement inside one",
                             p->name);
        } else if (p->dir != FE_DIR_OMPDAG_UNKNOWN && p->dir != FE_DIR_RESOURCE) {
            if (omp)
                return fe_refuse(
                    w, f->name, p->line, p->col,
                    "'#pragma omp %s' directly after '#pragma omp %s' is not supported", p->name,
                    omp->name);
            omp = p;
        }
    }
    if (!omp) return fe_walk_bare(w, s, sp, loop_bound);
    switch (omp->dir) {
    case FE_DIR_TASK:
        return walk_task(w, f, omp, s, sp, loop_bound);
    case FE_DIR_TASKGROUP:
        return walk_taskgroup(w, f, omp, s, sp, loop_bound);
    case FE_DIR_TASKLOOP: /* masked taskloop: fe_team_single.c */
        if (fe_is_producer_taskloop(omp)) return fe_walk_team_single(w, f, omp, NULL, 0, s, sp);
        return fe_walk_taskloop(w, f, omp, s, sp, loop_bound);
    case FE_DIR_PLAIN:
        /* Refusals of constructs inside task code do not stop the walk, so
         * one run names every construct (floorplan: critical and atomic);
         * the region is refused all the same (fe_build_region). */
        if (fe_significant(w, s))
            return (fe_refuse(w, f->name, omp->line, omp->col,
                              "task scheduling point (task creation, taskwait or blocking call) "
                              "inside '#pragma omp %s'",
                              omp->name) ||
                    !*w->nomem) &&
                   fe_walk_bare(w, s, sp, loop_bound);
        if (!strcmp(omp->name, "critical")) /* a lock held by the node (fe_mutex.c) */
            return fe_check_plain(w, s, sp) && fe_mutex_critical(w, f->name, omp, s);
        return fe_check_plain(w, s, sp) && fe_plain(w, s);
    case FE_DIR_PARALLEL:
    case FE_DIR_PARALLEL_MASTER:
    case FE_DIR_PARALLEL_OTHER:
        return fe_refuse(w, f->name, omp->line, omp->col,
                         "nested '#pragma omp %s' inside a task region is not supported: the "
                         "threads of its team are not among the m threads the bound counts on",
                         omp->name);
    case FE_DIR_SINGLE: /* in a team's implicit task, else refused (fe_team_single.c) */
        return fe_walk_team_single(w, f, omp, NULL, 0, s, sp);
    default:
        if (fe_in_implicit_task(w) && fe_is_team_worksharing(omp)) /* fe_team.c */
            return fe_walk_team_worksharing(w, f, omp, s, sp, loop_bound);
        fe_refuse(w, f->name, omp->line, omp->col,
                  "'#pragma omp %s' is not supported inside a task region%s", omp->name,
                  refusal_reason(omp->name));
        if (*w->nomem || (strcmp(omp->name, "critical") && strcmp(omp->name, "ordered")))
            return false;
        return fe_walk_bare(w, s, sp, loop_bound); /* find the next refusal too */
    }
}

bool fe_walk_prefixed(walker *w, const fe_file *f, const fe_pragma *const *chain, int32_t n,
                      CXCursor s, fe_span sp)
{
    return prefixed(w, f, chain, n, s, sp);
}

/* Walks statement s; pragmas in (lo, start of s) precede it. */
bool fe_walk_stmt(walker *w, CXCursor s, unsigned lo)
{
    fe_span sp = fe_cursor_span(s);
    fe_file *f = fe_file_of(w, sp.file);
    if (!f) return false;
    w->file = f->name;
    w->line = sp.line;
    w->col = sp.col;
    w->stmt = sp;
    const fe_pragma *chain[8];
    int32_t n = 0;
    for (int32_t i = fe_pragma_lower_bound(f, lo + 1);
         i < f->npragmas && f->pragmas[i].begin < sp.begin; ++i) {
        const fe_pragma *p = &f->pragmas[i];
        if (p->standalone) {
            if (n > 0)
                return fe_refuse(w, f->name, chain[0]->line, chain[0]->col,
                                 "'#pragma %s %s' must be followed by a statement",
                                 fe_pragma_ns(chain[0]), chain[0]->name);
            if (!standalone(w, f, p)) return false;
        } else if (n < 8) {
            chain[n++] = p;
        } else {
            return fe_refuse(w, f->name, p->line, p->col, "too many directives on one statement");
        }
    }
    if (n > 0) return prefixed(w, f, chain, n, s, sp);
    return fe_walk_bare(w, s, sp, 0);
}

static bool walk_compound(walker *w, CXCursor s, fe_span sp)
{
    cursor_list ch;
    if (!fe_children(w, s, &ch)) return false;
    bool ok = true;
    unsigned lo = sp.begin;
    for (int32_t i = 0; ok && i < ch.n; ++i) {
        ok = fe_walk_stmt(w, ch.c[i], lo);
        lo = fe_cursor_span(ch.c[i]).end;
    }
    free(ch.c);
    fe_file *f = ok ? fe_file_of(w, sp.file) : NULL;
    for (int32_t i = f ? fe_pragma_lower_bound(f, lo + 1) : 0;
         f && ok && i < f->npragmas && f->pragmas[i].begin < sp.end; ++i) {
        const fe_pragma *p = &f->pragmas[i];
        ok = p->standalone ? standalone(w, f, p)
                           : fe_refuse(w, f->name, p->line, p->col,
                                       "'#pragma %s %s' must be followed by a statement",
                                       fe_pragma_ns(p), p->name);
    }
    return ok;
}

static bool walk_decl(walker *w, CXCursor s)
{
    cursor_list ch;
    if (!fe_children(w, s, &ch)) return false;
    bool ok = true;
    for (int32_t i = 0; ok && i < ch.n; ++i) {
        cursor_list vc;
        if (!fe_children(w, ch.c[i], &vc)) {
            ok = false;
            break;
        }
        for (int32_t k = 0; ok && k < vc.n; ++k)
            if (clang_isExpression(clang_getCursorKind(vc.c[k]))) ok = fe_walk_expr(w, vc.c[k]);
        free(vc.c);
    }
    free(ch.c);
    return ok;
}

static bool inline_call(walker *w, CXCursor call, int32_t fi)
{
    const fe_func *fn = &w->fe->funcs[fi];
    fe_span sp = fe_cursor_span(call);
    fe_file *f = fe_file_of(w, sp.file);
    if (!f) return false;
    int32_t active = 0;
    for (const fe_call *c = w->calls; c; c = c->up)
        active += c->func == fi;
    /* With the assumed input every argument may be known: then the call is
     * the program's own, and its base case folds where it really stops, so
     * the recursion bound is only checked, never used to cut it. */
    fe_env env;
    fe_assume_call_env(w, call, fi, &env);
    bool known = fe_assume_env_complete(w->fe, &env);
    int32_t bound = fn->recursion_bound ? fn->recursion_bound : w->fe->recursion_bound;
    if (active > 0) {
        if (bound <= 0 && !known)
            return fe_refuse(w, f->name, sp.line, sp.col,
                             "recursive call to '%s', which contains task directives: add "
                             "'#pragma ompdag recursion_bound(N)' before its definition or pass "
                             "--recursion-bound N",
                             fn->name);
        if (bound > 0 && active + 1 > bound && !known)
            return true; /* beyond the asserted depth: the call does not happen */
    }
    bool beyond = active > 0 && bound > 0 && active + 1 > bound;
    int32_t tasks_before = w->g->ntasks;
    if (w->depth >= 256)
        return fe_refuse(w, f->name, sp.line, sp.col,
                         known ? "calls nested more than 256 deep: with the assumed input the "
                                 "recursion's stopping test does not fold (it depends on values "
                                 "not assumed); assume them, or drop --assume to use the "
                                 "recursion bound"
                               : "calls nested more than 256 deep");
    cursor_list ch;
    if (!fe_children(w, fn->cursor, &ch)) return false;
    CXCursor body = clang_getNullCursor();
    for (int32_t i = 0; i < ch.n; ++i)
        if (clang_getCursorKind(ch.c[i]) == CXCursor_CompoundStmt) body = ch.c[i];
    free(ch.c);
    if (clang_Cursor_isNull(body)) return true;
    fe_call frame = {fi, w->calls};
    fe_jump jf = {
        JUMP_FUNC, {0}, {0}, {0}, -1, false, 0, w->jumps, body, false, clang_getNullCursor(), NULL};
    walker cw = *w;
    cw.calls = &frame;
    cw.jumps = &jf;
    cw.depth = w->depth + 1;
    cw.env = &env;
    bool ok = fe_walk_stmt(&cw, body, fe_cursor_span(body).begin);
    ok = ok && fe_flow_union(w, w->flow, &jf.rets);
    if (ok && w->flow->tails.n > 1) w->flow->open = -1;
    /* a call past the bound that creates tasks: the bound is wrong for this
     * input (one that only computes would have been plain code anyway) */
    if (ok && beyond && w->g->ntasks > tasks_before)
        fe_assume_depth(w, fi, active + 1, bound, f->name, sp.line, sp.col);
    fe_vec_free(&jf.breaks);
    fe_vec_free(&jf.conts);
    fe_vec_free(&jf.rets);
    return ok;
}

/* The message for a refused call (refused_call_kind). */
static const char *call_refusal_reason(call_refusal k)
{
    switch (k) {
    case CALL_POLLING:
        return "a task that polls a lock until another thread releases it spins outside "
               "taskwait (an unbounded wait), which breaks the work-conserving bound";
    case CALL_RUNTIME:
        return "the model cannot see the tasks it creates (nor the waits and locks it takes); "
               "use the OpenMP directives";
    default:
        return "a task that blocks on a lock or another thread waits outside taskwait, which "
               "breaks the work-conserving bound";
    }
}

/* A refused call reached from task code, named with the inlined helper
 * calls that lead to it. */
static bool refuse_blocking(walker *w, CXCursor e, fe_span sp)
{
    fe_file *f = fe_file_of(w, sp.file);
    if (!f) return false;
    char via[512] = "";
    size_t n = 0;
    for (const fe_call *c = w->calls; c && c->up && n + 80 < sizeof via; c = c->up)
        if (c == w->calls || c->func != c->up->func || !c->up->up)
            n += (size_t)snprintf(via + n, sizeof via - n, "%s'%s'", n ? " from " : " (in ",
                                  w->fe->funcs[c->func].name);
    if (n) snprintf(via + n, sizeof via - n, ")");
    CXString name = clang_getCursorSpelling(e);
    call_refusal k = call_kind(e);
    bool r = k == CALL_RUNTIME ? fe_refuse(w, f->name, sp.line, sp.col,
                                           "direct call to the OpenMP runtime (%s)%s: %s",
                                           clang_getCString(name), via, call_refusal_reason(k))
                               : fe_refuse(w, f->name, sp.line, sp.col, "'%s' in task code%s: %s",
                                           clang_getCString(name), via, call_refusal_reason(k));
    clang_disposeString(name);
    return r;
}

typedef struct creates_state {
    walker *w;
    bool found;
} creates_state;

static enum CXChildVisitResult creates_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    creates_state *st = data;
    if (clang_getCursorKind(c) == CXCursor_CallExpr) {
        const ompdag_frontend *fe = st->w->fe;
        int32_t f = fe_func_of_call(fe, c);
        if ((f >= 0 && fe->funcs[f].tasks) ||
            (f < 0 && fe->fnptr_func >= 0 && fe_call_is_indirect(c))) {
            st->found = true;
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

bool fe_creates_tasks(walker *w, CXCursor s)
{
    fe_span sp = fe_cursor_span(s);
    fe_file *f = sp.file ? fe_file_get(w->fe, sp.file) : NULL;
    for (int32_t i = f ? fe_pragma_lower_bound(f, sp.begin) : 0;
         f && i < f->npragmas && f->pragmas[i].begin < sp.end; ++i)
        if (f->pragmas[i].dir == FE_DIR_TASK || strstr(f->pragmas[i].name, "taskloop")) return true;
    creates_state st = {w, false};
    if (creates_visit(s, s, &st) == CXChildVisit_Break) return true;
    clang_visitChildren(s, creates_visit, &st);
    return st.found;
}

bool fe_walk_expr(walker *w, CXCursor e)
{
    if (!w->flow->live) return true;
    fe_span sp = fe_cursor_span(e);
    if (!fe_significant(w, e)) return fe_check_plain(w, e, sp) && fe_plain(w, e);
    enum CXCursorKind k = clang_getCursorKind(e);
    if (k == CXCursor_ConditionalOperator) return walk_conditional(w, e, sp);
    if (k == CXCursor_StmtExpr) {
        fe_file *f = fe_file_of(w, sp.file);
        return f && fe_refuse(w, f->name, sp.line, sp.col,
                              "statement expression with task directives is not supported");
    }
    cursor_list ch;
    if (!fe_children(w, e, &ch)) return false;
    bool ok = true;
    for (int32_t i = k == CXCursor_CallExpr ? 1 : 0; ok && i < ch.n; ++i)
        ok = fe_walk_expr(w, ch.c[i]);
    free(ch.c);
    if (ok && k == CXCursor_CallExpr && fe_is_blocking_call(e))
        return refuse_blocking(w, e, sp) || !*w->nomem; /* go on: name every construct */
    if (ok && k == CXCursor_CallExpr) {
        int32_t fi = fe_func_of_call(w->fe, e);
        if (fi >= 0 && w->fe->funcs[fi].significant) return inline_call(w, e, fi);
        const char *ext =
            fi < 0 && !fe_call_is_indirect(e) ? fe_extern_task_source(w->fe, e, w->nomem) : NULL;
        if (ext) {
            fe_file *f = fe_file_of(w, sp.file);
            CXString name = clang_getCursorSpelling(e);
            bool r = f && fe_refuse(w, f->name, sp.line, sp.col,
                                    "call to '%s', whose body is not in the files parsed and may "
                                    "create tasks (%s mentions it and has task directives): "
                                    "extract the whole project with -p BUILD_DIR",
                                    clang_getCString(name), ext);
            clang_disposeString(name);
            return r;
        }
        if (fi < 0 && w->fe->fnptr_func >= 0 && fe_call_is_indirect(e)) {
            fe_file *f = fe_file_of(w, sp.file);
            return f && fe_refuse(w, f->name, sp.line, sp.col,
                                  "call through a function pointer in a task region, while '%s' "
                                  "(which contains task directives) has its address taken",
                                  w->fe->funcs[w->fe->fnptr_func].name);
        }
        return fe_plain(w, e);
    }
    return ok;
}

typedef struct refused_call_state {
    CXCursor call;
    bool hit;
} refused_call_state;

static enum CXChildVisitResult refused_call_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    refused_call_state *st = data;
    if (clang_getCursorKind(c) != CXCursor_CallExpr || !fe_is_blocking_call(c))
        return CXChildVisit_Recurse;
    st->call = c;
    st->hit = true;
    return CXChildVisit_Break;
}

/* A refused call in a loop's header (`while (!omp_test_lock(&l)) ;`) is
 * named as such, before the loop builder sees a scheduling point in its
 * condition.  true when there is none. */
static bool check_loop_header(walker *w, CXCursor loop)
{
    cursor_list ch;
    if (!fe_children(w, loop, &ch)) return false;
    enum CXCursorKind k = clang_getCursorKind(loop);
    refused_call_state st = {clang_getNullCursor(), false};
    for (int32_t i = k == CXCursor_DoStmt ? 1 : 0;
         i < (k == CXCursor_DoStmt ? ch.n : ch.n - 1) && !st.hit; ++i)
        if (refused_call_visit(ch.c[i], loop, &st) == CXChildVisit_Recurse)
            clang_visitChildren(ch.c[i], refused_call_visit, &st);
    free(ch.c);
    return !st.hit || (refuse_blocking(w, st.call, fe_cursor_span(st.call)), false);
}

bool fe_walk_bare(walker *w, CXCursor s, fe_span sp, int32_t loop_bound)
{
    enum CXCursorKind k = clang_getCursorKind(s);
    fe_file *f = fe_file_of(w, sp.file);
    if (!f) return false;
    bool keeps_going = k == CXCursor_CompoundStmt || k == CXCursor_CaseStmt ||
                       k == CXCursor_DefaultStmt || k == CXCursor_LabelStmt;
    if (!w->flow->live && !keeps_going) return true;
    switch (k) {
    case CXCursor_ReturnStmt:
    case CXCursor_BreakStmt:
    case CXCursor_ContinueStmt:
        return jump(w, s, sp, k);
    case CXCursor_GotoStmt:
        if (is_end_label(body_frame(w), clang_getCursorReferenced(s))) return goto_end(w);
        return fe_refuse(w, f->name, sp.line, sp.col,
                         "goto in code with task scheduling points is not supported (only a "
                         "goto to a label that ends the task or function body is)");
    case CXCursor_IndirectGotoStmt:
        return fe_refuse(w, f->name, sp.line, sp.col,
                         "computed goto in code with task scheduling points is not supported");
    case CXCursor_CaseStmt:
    case CXCursor_DefaultStmt:
        return case_label(w, s, sp);
    case CXCursor_LabelStmt: {
        cursor_list ch;
        if (!fe_children(w, s, &ch)) return false;
        bool ok = ch.n == 0 || fe_walk_stmt(w, ch.c[ch.n - 1], sp.begin);
        free(ch.c);
        return ok;
    }
    default:
        break;
    }
    if (k == CXCursor_CompoundStmt && !w->flow->live) return walk_compound(w, s, sp);
    if (!fe_significant(w, s)) return fe_check_plain(w, s, sp) && fe_plain(w, s);
    switch (k) {
    case CXCursor_CompoundStmt:
        return walk_compound(w, s, sp);
    case CXCursor_IfStmt:
        return walk_if(w, s, sp);
    case CXCursor_SwitchStmt:
        return walk_switch(w, s, sp);
    case CXCursor_ForStmt:
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
        if (!check_loop_header(w, s)) /* refused: go on, to name every construct */
            return !*w->nomem && fe_plain(w, s);
        return fe_walk_loop(w, s, sp, loop_bound);
    case CXCursor_DeclStmt:
        return walk_decl(w, s);
    case CXCursor_NullStmt:
        return true;
    default:
        if (clang_isExpression(k)) return fe_walk_expr(w, s);
        return fe_refuse(w, f->name, sp.line, sp.col,
                         "unsupported statement with task directives inside");
    }
}
