/*
 * plugin/fe_mutex.c — mutual exclusion in task code: `critical` sections
 * (named or not) and omp_set_lock/omp_unset_lock pairs become the locks of
 * the node whose code holds them (the "locks" extension, docs/mutex.md;
 * the blocking term is charged by the analysis, analysis/condag_locks.c,
 * after Dinh, Li, Agrawal, Gill, Lu, "Blocking analysis for spin locks in
 * real-time parallel tasks", IEEE TPDS 2018).
 *
 * What the term needs from the front end, and how it is met:
 *  - No task scheduling point inside a critical section: a `critical` whose
 *    block is significant is refused by fe_stmt.c; an omp lock must be
 *    released in the node that took it (fe_mutex_check), so no task,
 *    taskwait or inlined scheduling point lies between set and unset.
 *  - A section's length is bounded by its node's WCET: the section is code of
 *    that node, whose measured time covers it.
 *  - No nested acquisition (its spin would lengthen the outer section beyond
 *    what was measured): refused by name.
 *  - Counts: an acquisition directly in the node's code counts once; inside a
 *    loop, in a statement with a label or a goto (a loop without loop
 *    syntax), or in a called function (which may be called again, or
 *    recursively) it counts as "unbounded", and the analysis then uses only
 *    the count-free term (every other node's sections).
 *  - The FIFO term (k·(m−1)·Cmax) needs FIFO spin locks: libomp's default
 *    queuing lock serves `critical` and omp_lock_t in request order; a
 *    critical with a `hint` clause may get another kind, so it counts as
 *    unbounded (count-free term only).
 * Lock names: "critical" for the unnamed critical section, "critical(name)"
 * for a named one (distinct names never block each other, OpenMP 5.1
 * §15.1), and "omp_lock" for every omp_lock_t: two lock expressions may
 * denote one lock, so they share one name (merging only raises the term).
 */
#include <stdlib.h>
#include <string.h>

#include "fe_depend.h"
#include "fe_mutex.h"
#include "fe_walk.h"
#include "ompdag/locks.h"

#define OMP_LOCK "omp_lock"

typedef struct fe_lock {
    char *name;
    int64_t count; /* OMPDAG_LOCK_UNBOUNDED when unknown */
} fe_lock;

struct fe_locks {
    int32_t n;
    fe_lock *l;
    int32_t held;     /* omp_set_lock minus omp_unset_lock so far in the node */
    const char *file; /* where the node took a lock it has not released */
    int32_t line, col;
};

void fe_mutex_free(fe_locks *l)
{
    if (!l) return;
    for (int32_t i = 0; i < l->n; ++i)
        free(l->l[i].name);
    free(l->l), free(l);
}

static fe_locks *node_locks(walker *w, int32_t v)
{
    fe_node *nd = &w->g->nodes[v];
    if (!nd->locks && !(nd->locks = calloc(1, sizeof *nd->locks))) fe_nomem(w);
    return nd->locks;
}

/* Adds `count` acquisitions of `name` to node v. */
static bool note(walker *w, int32_t v, const char *name, int64_t count)
{
    fe_locks *l = node_locks(w, v);
    if (!l) return false;
    for (int32_t i = 0; i < l->n; ++i)
        if (!strcmp(l->l[i].name, name)) {
            if (count == OMPDAG_LOCK_UNBOUNDED || l->l[i].count == OMPDAG_LOCK_UNBOUNDED ||
                __builtin_add_overflow(l->l[i].count, count, &l->l[i].count))
                l->l[i].count = OMPDAG_LOCK_UNBOUNDED;
            return true;
        }
    fe_lock *p = realloc(l->l, sizeof *p * (size_t)(l->n + 1));
    if (!p) return fe_nomem(w);
    l->l = p;
    if (!(p[l->n].name = fe_strdup(name))) return fe_nomem(w);
    p[l->n++].count = count;
    return true;
}

/* "critical" or "critical(name)" for critical pragma p. */
static void critical_name(const fe_pragma *p, char *buf, size_t size)
{
    const fe_clause *c = fe_pragma_clause(p, "");
    if (c && c->arg && *c->arg)
        snprintf(buf, size, "critical(%s)", c->arg);
    else
        snprintf(buf, size, "critical");
}

/* libomp takes a critical section without a `hint` with its default queuing
 * lock, which serves waiters in FIFO order; a hint may select another kind
 * (test-and-set, speculative), so its count is taken as unbounded and only
 * the count-free term is charged (docs/mutex.md). */
static bool fifo_critical(const fe_pragma *p)
{
    return !fe_pragma_clause(p, "hint");
}

/* ---- the acquisitions in a piece of code ------------------------------------------- */

typedef enum ev_kind { EV_ACQUIRE, EV_RELEASE, EV_CALL } ev_kind;
#define INDIRECT (-2) /* EV_CALL through a function pointer */

typedef struct event {
    unsigned at; /* file offset: events are replayed in source order */
    ev_kind kind;
    char name[160]; /* EV_ACQUIRE: the lock */
    int32_t func;   /* EV_CALL: the TU function called */
    int32_t line, col;
    bool unordered; /* EV_ACQUIRE: a lock that may not be FIFO (a `hint` clause) */
} event;

typedef struct scan {
    walker *w;
    const fe_file *f;
    fe_span outer;
    event *ev;
    int32_t nev, cap;
    fe_span *loops; /* loops (and the whole code, when it has labels or goto) */
    int32_t nloops, lcap;
    bool nomem;
} scan;

static bool push_event(scan *s, const event *e)
{
    if (s->nev == s->cap) {
        int32_t cap = s->cap ? 2 * s->cap : 16;
        event *p = realloc(s->ev, sizeof *p * (size_t)cap);
        if (!p) return s->nomem = true, false;
        s->ev = p, s->cap = cap;
    }
    s->ev[s->nev++] = *e;
    return true;
}

static bool push_loop(scan *s, fe_span sp)
{
    if (s->nloops == s->lcap) {
        int32_t cap = s->lcap ? 2 * s->lcap : 8;
        fe_span *p = realloc(s->loops, sizeof *p * (size_t)cap);
        if (!p) return s->nomem = true, false;
        s->loops = p, s->lcap = cap;
    }
    s->loops[s->nloops++] = sp;
    return true;
}

static char *call_name(CXCursor c)
{
    CXString sp = clang_getCursorSpelling(c);
    char *n = fe_strdup(clang_getCString(sp));
    clang_disposeString(sp);
    return n;
}

static enum CXChildVisitResult scan_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    scan *s = data;
    enum CXCursorKind k = clang_getCursorKind(c); /* spans only where needed: they cost */
    if (k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt) {
        if (!push_loop(s, fe_cursor_span(c))) return CXChildVisit_Break;
    } else if (k == CXCursor_LabelStmt || k == CXCursor_GotoStmt ||
               k == CXCursor_IndirectGotoStmt) {
        if (!push_loop(s, s->outer)) return CXChildVisit_Break; /* a loop without loop syntax */
    } else if (k == CXCursor_CallExpr) {
        char *name = call_name(c);
        if (!name) return s->nomem = true, CXChildVisit_Break;
        event e = {0, EV_CALL, "", -1, 0, 0, false};
        bool keep = true;
        if (!strcmp(name, "omp_set_lock")) {
            e.kind = EV_ACQUIRE;
            snprintf(e.name, sizeof e.name, OMP_LOCK);
        } else if (!strcmp(name, "omp_unset_lock")) {
            e.kind = EV_RELEASE;
        } else {
            e.func = fe_func_of_call(s->w->fe, c);
            if (e.func < 0 && fe_call_is_indirect(c)) e.func = INDIRECT;
            keep = e.func != -1;
        }
        free(name);
        if (keep) {
            fe_span sp = fe_cursor_span(c);
            e.at = sp.begin, e.line = sp.line, e.col = sp.col;
        }
        if (keep && !push_event(s, &e)) return CXChildVisit_Break;
    }
    return CXChildVisit_Recurse;
}

/* The statement a pragma ending at `end` prefixes: its extent. */
static bool block_of(scan *s, CXCursor code, unsigned end, fe_span *out)
{
    fe_first_after fa = {s->outer.file, end, clang_getNullCursor(), false};
    if (fe_first_after_visit(code, code, &fa) != CXChildVisit_Break)
        clang_visitChildren(code, fe_first_after_visit, &fa);
    if (!fa.hit) return false;
    *out = fe_cursor_span(fa.found);
    return true;
}

/* Every acquisition and release in `code` (extent s->outer), in source
 * order: calls, omp lock calls, and critical pragmas (an acquisition at the
 * pragma, a release at the end of its block). */
static bool collect(scan *s, CXCursor code)
{
    if (scan_visit(code, code, s) == CXChildVisit_Recurse) clang_visitChildren(code, scan_visit, s);
    for (int32_t i = s->f ? fe_pragma_lower_bound(s->f, s->outer.begin) : 0;
         !s->nomem && s->f && i < s->f->npragmas && s->f->pragmas[i].begin < s->outer.end; ++i) {
        const fe_pragma *p = &s->f->pragmas[i];
        if (strcmp(p->name, "critical")) continue;
        fe_span blk;
        if (!block_of(s, code, p->end, &blk)) continue;
        event a = {p->begin, EV_ACQUIRE, "", -1, p->line, p->col, !fifo_critical(p)};
        critical_name(p, a.name, sizeof a.name);
        event r = {blk.end, EV_RELEASE, "", -1, p->line, p->col, false};
        snprintf(r.name, sizeof r.name, "%s", a.name);
        if (!push_event(s, &a) || !push_event(s, &r)) break;
    }
    return !s->nomem;
}

static int event_cmp(const void *a, const void *b)
{
    const event *x = a, *y = b;
    if (x->at != y->at) return x->at < y->at ? -1 : 1;
    return (int)x->kind - (int)y->kind; /* at one offset: acquire before release */
}

static bool in_loop(const scan *s, unsigned at)
{
    for (int32_t i = 0; i < s->nloops; ++i)
        if (s->loops[i].begin <= at && at < s->loops[i].end) return true;
    return false;
}

/* What the TU functions called from code take, transitively: whether they
 * acquire anything, their set/unset balance, and each lock (all counted as
 * unbounded: a function may be called again, or recursively). */
typedef struct callee_locks {
    bool any;
    int32_t balance;
    char names[8][160];
    int32_t nnames;
    bool many; /* more names than fit: the caller refuses */
} callee_locks;

static bool scan_code(walker *w, CXCursor code, scan *s);
static bool callees(walker *w, int32_t first, callee_locks *cl);

static void callee_add(callee_locks *cl, const char *name)
{
    for (int32_t i = 0; i < cl->nnames; ++i)
        if (!strcmp(cl->names[i], name)) return;
    if (cl->nnames == 8) {
        cl->many = true;
        return;
    }
    snprintf(cl->names[cl->nnames++], sizeof cl->names[0], "%s", name);
}

/* Summaries already computed in this region, per function (a region calls
 * the same helpers from many statements). */
struct fe_lock_memo {
    int32_t n;
    uint8_t *done;
    callee_locks *sum;
};

void fe_mutex_memo_free(struct fe_lock_memo *m)
{
    if (!m) return;
    free(m->done), free(m->sum), free(m);
}

static bool callees_walk(walker *w, int32_t first, callee_locks *cl);

/* A call through a function pointer may reach any TU function whose address
 * is taken: what all of them lock, together (count unbounded). */
static bool indirect_callees(walker *w, callee_locks *cl)
{
    *cl = (callee_locks){0};
    for (int32_t f = 0; f < w->fe->nfuncs; ++f) {
        if (w->fe->funcs[f].refs <= w->fe->funcs[f].calls) continue; /* address not taken */
        callee_locks one;
        if (!callees(w, f, &one)) return false;
        cl->any = cl->any || one.any;
        cl->many = cl->many || one.many;
        if (one.balance > cl->balance) cl->balance = one.balance;
        for (int32_t k = 0; k < one.nnames; ++k)
            callee_add(cl, one.names[k]);
    }
    return true;
}

/* What function `first` and the functions it calls lock, memoised. */
static bool callees(walker *w, int32_t first, callee_locks *cl)
{
    if (first == INDIRECT) return indirect_callees(w, cl);
    struct fe_lock_memo *m = w->g->lock_memo;
    if (!m) {
        m = w->g->lock_memo = calloc(1, sizeof *m);
        if (m) m->n = w->fe->nfuncs;
        if (m) m->done = calloc((size_t)m->n + 1, 1);
        if (m) m->sum = calloc((size_t)m->n + 1, sizeof *m->sum);
        if (!m || !m->done || !m->sum) return fe_nomem(w);
    }
    if (first < m->n && m->done[first]) return *cl = m->sum[first], true;
    if (!callees_walk(w, first, cl)) return false;
    if (first < m->n) m->done[first] = 1, m->sum[first] = *cl;
    return true;
}

/* Follows the calls of one function body into others, with an explicit work
 * list (no recursion that follows the program's call depth). */
static bool callees_walk(walker *w, int32_t first, callee_locks *cl)
{
    *cl = (callee_locks){0};
    const ompdag_frontend *fe = w->fe;
    uint8_t *seen = calloc((size_t)fe->nfuncs + 1, 1);
    int32_t *todo = malloc(sizeof *todo * ((size_t)fe->nfuncs + 1)), ntodo = 0;
    if (!seen || !todo) return free(seen), free(todo), fe_nomem(w);
    todo[ntodo++] = first, seen[first] = 1;
    bool ok = true;
    while (ok && ntodo) {
        const fe_func *fn = &fe->funcs[todo[--ntodo]];
        scan s = {w, fn->file, fe_cursor_span(fn->cursor), NULL, 0, 0, NULL, 0, 0, false};
        ok = scan_code(w, fn->cursor, &s);
        for (int32_t i = 0; ok && i < s.nev; ++i) {
            const event *e = &s.ev[i];
            if (e->kind == EV_ACQUIRE) {
                cl->any = true, callee_add(cl, e->name);
                cl->balance += !strcmp(e->name, OMP_LOCK);
            } else if (e->kind == EV_RELEASE) {
                cl->balance -= !e->name[0];   /* omp_unset_lock (critical releases are paired) */
            } else if (e->func == INDIRECT) { /* any function whose address is taken */
                for (int32_t f = 0; f < fe->nfuncs; ++f)
                    if (fe->funcs[f].refs > fe->funcs[f].calls && !seen[f])
                        seen[f] = 1, todo[ntodo++] = f;
            } else if (!seen[e->func]) {
                seen[e->func] = 1, todo[ntodo++] = e->func;
            }
        }
        free(s.ev), free(s.loops);
    }
    free(seen), free(todo);
    return ok;
}

static bool scan_code(walker *w, CXCursor code, scan *s)
{
    (void)w;
    if (!collect(s, code)) return fe_nomem(s->w);
    if (s->nev > 1) qsort(s->ev, (size_t)s->nev, sizeof *s->ev, event_cmp); /* ev may be NULL */
    return true;
}

static bool refuse_nested(walker *w, const char *file, const event *e, const char *outer)
{
    return fe_refuse(w, file, e->line, e->col,
                     "lock acquired while '%s' is held (nested critical sections or locks): "
                     "its wait would lengthen the outer section beyond its measured time, and "
                     "nesting may deadlock; take one lock at a time (docs/mutex.md)",
                     outer);
}

/* Replays the events of code absorbed into node v.  `outer` names a lock
 * held around all of it (a critical prefixing the code), or NULL. */
static bool replay(walker *w, scan *s, int32_t v, const char *outer)
{
    fe_locks *nl = node_locks(w, v);
    if (!nl) return false;
    char held_crit[160] = "";
    int32_t crit_depth = 0;
    const char *file = s->f ? s->f->name : w->file;
    for (int32_t i = 0; i < s->nev; ++i) {
        const event *e = &s->ev[i];
        bool loop = in_loop(s, e->at);
        const char *holding = outer            ? outer
                              : crit_depth > 0 ? held_crit
                              : nl->held > 0   ? OMP_LOCK
                                               : NULL;
        if (e->kind == EV_ACQUIRE) {
            if (holding) return refuse_nested(w, file, e, holding) || !*w->nomem;
            if (!note(w, v, e->name, loop || e->unordered ? OMPDAG_LOCK_UNBOUNDED : 1))
                return false;
            if (!strcmp(e->name, OMP_LOCK)) {
                if (nl->held++ == 0) nl->file = file, nl->line = e->line, nl->col = e->col;
            } else {
                snprintf(held_crit, sizeof held_crit, "%s", e->name), crit_depth++;
            }
        } else if (e->kind == EV_RELEASE) {
            if (e->name[0])
                crit_depth--;
            else
                nl->held--; /* below 0: taken in another node, refused by fe_mutex_check */
        } else {
            callee_locks cl = {0};
            if (!callees(w, e->func, &cl)) return false;
            if (!cl.any && !cl.balance) continue;
            if (cl.many)
                return fe_refuse(
                    w, file, e->line, e->col, "call to '%s' takes more than 8 distinct locks",
                    e->func == INDIRECT ? "a function pointer" : w->fe->funcs[e->func].name);
            if (holding && cl.any) {
                event named = *e;
                return refuse_nested(w, file, &named, holding) || !*w->nomem;
            }
            for (int32_t k = 0; k < cl.nnames; ++k)
                if (!note(w, v, cl.names[k], OMPDAG_LOCK_UNBOUNDED)) return false;
            if (nl->held == 0 && cl.balance > 0)
                nl->file = file, nl->line = e->line, nl->col = e->col;
            nl->held += cl.balance;
        }
    }
    return true;
}

bool fe_mutex_plain(walker *w, CXCursor code)
{
    if (!w->flow->live || w->flow->open < 0) return true;
    fe_span sp = fe_cursor_span(code);
    scan s = {w, sp.file ? fe_file_get(w->fe, sp.file) : NULL, sp, NULL, 0, 0, NULL, 0, 0, false};
    bool ok = scan_code(w, code, &s) && replay(w, &s, w->flow->open, NULL);
    free(s.ev), free(s.loops);
    return ok;
}

/* Nothing inside a critical section's block may take a lock: *clean is
 * false (and the region refused, naming the inner acquisition) otherwise. */
static bool check_block(walker *w, scan *s, const char *outer, bool *clean)
{
    const char *file = s->f ? s->f->name : w->file;
    *clean = true;
    for (int32_t i = 0; i < s->nev && *clean; ++i) {
        const event *e = &s->ev[i];
        callee_locks cl = {0};
        if (e->kind == EV_CALL && !callees(w, e->func, &cl)) return false;
        if (e->kind == EV_ACQUIRE || (e->kind == EV_CALL && cl.any)) {
            *clean = false;
            if (!refuse_nested(w, file, e, outer) && *w->nomem) return false;
        }
    }
    return true;
}

bool fe_mutex_critical(walker *w, const char *file, const fe_pragma *p, CXCursor code)
{
    (void)file;
    char name[160];
    critical_name(p, name, sizeof name);
    fe_span sp = fe_cursor_span(code);
    scan s = {w, sp.file ? fe_file_get(w->fe, sp.file) : NULL, sp, NULL, 0, 0, NULL, 0, 0, false};
    bool clean = false;
    bool ok = scan_code(w, code, &s) && check_block(w, &s, name, &clean);
    free(s.ev), free(s.loops);
    if (!ok || !clean) return ok;
    /* the block joins the open node (fe_plain finds no lock inside it), and
     * the node takes the critical's lock once */
    if (!fe_plain(w, code)) return false;
    return !w->flow->live || w->flow->open < 0 ||
           note(w, w->flow->open, name, fifo_critical(p) ? 1 : OMPDAG_LOCK_UNBOUNDED);
}

/* A task created with a mutexinoutset clause holds the exclusion for its
 * whole body (docs/mutex.md): a scheduling point inside it, or a lock taken
 * inside it (a nested acquisition), is refused at the task directive. */
static bool mutexinoutset_tasks_check(walker *w)
{
    bool ok = true;
    for (int32_t v = 0; v < w->g->n; ++v) {
        const fe_node *nd = &w->g->nodes[v];
        bool mutex = fe_depend_has_mutexinoutset(nd->dep);
        if (!mutex || nd->kind != 'T') continue;
        bool point = w->g->tasks[nd->creates].nnodes > 1; /* a lone T or W node is one too */
        for (int32_t u = 0; u < w->g->n; ++u)
            point = point || (w->g->nodes[u].task == nd->creates && w->g->nodes[u].kind != 'N');
        if (point)
            ok = fe_refuse(w, nd->file, nd->line, nd->col,
                           "task with a depend(mutexinoutset: ...) clause and a task scheduling "
                           "point inside: it holds the mutual exclusion for its whole body, "
                           "which may not wait nor create tasks (docs/mutex.md)") &&
                 ok;
        for (int32_t u = 0; u < w->g->n; ++u)
            if (w->g->nodes[u].task == nd->creates && fe_mutex_takes_locks(&w->g->nodes[u]))
                ok = fe_refuse(w, nd->file, nd->line, nd->col,
                               "task with a depend(mutexinoutset: ...) clause takes a lock inside: "
                               "nested mutual exclusion is not modelled (docs/mutex.md)") &&
                     ok;
    }
    return ok;
}

bool fe_mutex_check(walker *w)
{
    bool ok = mutexinoutset_tasks_check(w);
    for (int32_t v = 0; v < w->g->n; ++v) {
        const fe_locks *l = w->g->nodes[v].locks;
        if (!l || l->held == 0) continue;
        const fe_node *nd = &w->g->nodes[v];
        ok = (l->held > 0
                  ? fe_refuse(w, l->file, l->line, l->col,
                              "omp_set_lock without its omp_unset_lock before the next task "
                              "scheduling point: the lock would be held across it (a task may "
                              "not wait, nor create tasks, inside a critical section)")
                  : fe_refuse(w, nd->file, nd->line, nd->col,
                              "omp_unset_lock of a lock taken before a task scheduling point: "
                              "the lock is held across it (a task may not wait, nor create "
                              "tasks, inside a critical section)")) &&
             ok;
    }
    return ok;
}

ompdag_status fe_mutex_emit(const fe_graph *fg, int32_t v, ompdag_condag *g, int32_t idx,
                            ompdag_error *err)
{
    const fe_locks *l = fg->nodes[v].locks;
    for (int32_t i = 0; l && i < l->n; ++i) {
        ompdag_status st = ompdag_condag_add_lock(g, idx, l->l[i].name, l->l[i].count, err);
        if (st) return st;
    }
    return OMPDAG_OK;
}

bool fe_mutex_takes_locks(const fe_node *nd)
{
    return nd->locks && nd->locks->n > 0;
}

bool fe_mutex_any(const fe_graph *fg)
{
    for (int32_t v = 0; v < fg->n; ++v)
        if (fg->nodes[v].locks && fg->nodes[v].locks->n) return true;
    return false;
}

/* ---- plain code ----------------------------------------------------------- */

/* Plain code is where locks are taken (fe_mutex_plain), so it is built here:
 * a critical block joins the open node through it too. */
/* Plain code: joins the open node, or opens a new N node. */
bool fe_plain(walker *w, CXCursor s)
{
    if (!w->flow->live) return true;
    if (w->flow->open >= 0) return fe_mutex_plain(w, s); /* the locks it takes */
    fe_span sp = fe_cursor_span(s);
    fe_file *f = fe_file_of(w, sp.file);
    if (!f) return false;
    fe_span text = clang_isExpression(clang_getCursorKind(s)) && w->stmt.file ? w->stmt : sp;
    if (clang_getCursorKind(s) == CXCursor_CompoundStmt) {
        cursor_list ch;
        if (!fe_children(w, s, &ch)) return false;
        if (ch.n > 0) text = fe_cursor_span(ch.c[0]);
        free(ch.c);
    }
    return fe_attach(w, 'N', f->name, sp.line, sp.col, fe_label_text(w, text, NULL, true), true) >=
               0 &&
           fe_mutex_plain(w, s);
}
