/*
 * plugin/fe_team.c — tasks created by every thread of a team (issue 25
 * item 2): a `parallel` region without single/master/masked whose implicit
 * tasks all create tasks, task-creating worksharing loops (`for`, `parallel
 * for`) and `sections`, in the con-DAG of shared/spec/condag.md §1 with the
 * existing node kinds.
 *
 * Model.  The team has P threads (the region's constant num_threads; the
 * graph's "threads" is P, and its bound holds for m = P, the team the
 * program runs with).  τ1 is a zero-code root that creates the P implicit
 * tasks; each runs the parallel body:
 *
 *   τ1:  T(thread 1) … T(thread P)  W(barrier)  T(thread 1) … T(thread P)  …
 *        └─ phase 1 ──────────────┘             └─ phase 2 ──────────────┘
 *
 * A barrier (an explicit top-level `barrier`, or the implicit one ending a
 * top-level worksharing construct without nowait) waits for every implicit
 * task and every explicit task of the team, so the body is cut into phases
 * there: phase j of thread k is a task of its own, ending with a W node
 * that waits for the tasks it created (its children), so its sink is after
 * them, and τ1's W node after phase j waits for every thread's phase j.
 * Grandchildren are covered only when each explicit task awaits its own
 * children (the check `taskgroup` makes, fe_stmt.c); otherwise the barrier
 * is refused.  The region's end is the last phase's end: the graph ends
 * there (everything in it is in the response time).
 *
 * Worksharing.  A `for` whose body has task scheduling points is an at-most
 * loop (fe_loop.c) in every thread's implicit task, of at most S_k
 * iterations for thread k: with schedule(static) ⌈N/P⌉ (equal chunks, at
 * most one per thread; libomp gives ⌊N/P⌋ or ⌊N/P⌋+1), with schedule(static,
 * c) the iterations of chunks k, k+P, … (c each), otherwise — dynamic,
 * guided, auto, runtime, or no schedule (implementation-defined) — N: any
 * thread may run every iteration.  N is the exact trip count or the loop
 * bound.  A `sections` construct lets each thread run any subset of its
 * sections: each section with scheduling points is a C node (run here or
 * not) in every thread.  Both over-approximate the volume (the model lets
 * every thread run work one thread runs) and never miss an ordering: the
 * bound only grows.  A task-free loop or section is plain code.
 *
 * A top-level `single` without nowait cuts a phase at its implicit barrier
 * too; the block itself, and masked/master, are fe_team_single.c's, which
 * also decides that a region with such blocks is a team graph when its
 * block creates tasks beside them.  A `taskloop` in an implicit task is
 * fe_taskloop.c's construction in that thread's phase task.  A barrier
 * ending the block's last statement leaves an empty last phase before the
 * region's own barrier (the runtime passes both; annotate counts them).
 *
 * Refused by name: no constant num_threads (the graph needs the team), an
 * `if` clause on the parallel (the team may be one thread), a
 * barrier or a worksharing construct without nowait nested in a branch,
 * loop or call of the body (a barrier the phases cannot cut at), `ordered`,
 * `collapse`, and worksharing `scope`/`workshare`/`loop`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_walk.h"

/* ---- worksharing inside an implicit task ----------------------------------------------- */

bool fe_in_implicit_task(const walker *w)
{
    return w->g->tasks[w->task].thread > 0;
}

static bool is_ws_for(const char *name)
{
    return !strcmp(name, "for") || !strcmp(name, "for simd") || !strcmp(name, "parallel for") ||
           !strcmp(name, "parallel for simd");
}

static bool is_ws_sections(const char *name)
{
    return !strcmp(name, "sections") || !strcmp(name, "parallel sections");
}

bool fe_is_team_worksharing(const fe_pragma *p)
{
    return is_ws_for(p->name) || is_ws_sections(p->name);
}

static bool check_ws_clauses(walker *w, const fe_file *f, const fe_pragma *p)
{
    static const char *const allowed[] = {
        "private", "firstprivate", "lastprivate", "reduction", "schedule", "nowait",
        "linear",  "allocate",     "order",       "collapse",  "safelen",  "simdlen",
        "aligned", "nontemporal",  "num_threads", "if",        "default",  "shared",
        "copyin",  "proc_bind",    NULL};
    long v;
    for (int32_t i = 0; i < p->nclauses; ++i) {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; ++a)
            ok = !strcmp(p->clauses[i].name, *a);
        if (!ok)
            return fe_refuse(w, f->name, p->line, p->col,
                             "'#pragma omp %s' with a %s clause in a team's implicit task is not "
                             "modelled",
                             p->name, p->clauses[i].name);
    }
    if (fe_pragma_clause(p, "collapse") &&
        !(fe_clause_value(w->fe, f, p, "collapse", &v) && v == 1))
        return fe_refuse(w, f->name, p->line, p->col,
                         "'#pragma omp %s' with collapse in a team's implicit task: the "
                         "iterations of the collapsed space are not modelled",
                         p->name);
    return true;
}

/* The most iterations thread k (1..P) of the team runs of a loop of at
 * most n iterations, under the loop's schedule (the header comment). */
static long long thread_share(const fe_pragma *p, long long n, int32_t k, int32_t team)
{
    const fe_clause *sc = fe_pragma_clause(p, "schedule");
    if (!sc || !sc->arg) return n; /* implementation-defined */
    const char *kind = strchr(sc->arg, ':') ? strchr(sc->arg, ':') + 1 : sc->arg;
    while (*kind == ' ')
        ++kind;
    if (strncmp(kind, "static", 6)) return n;
    const char *comma = strchr(kind, ',');
    if (!comma) return (n + team - 1) / team;
    long c;
    if (!fe_literal_value(comma + 1, &c) || c <= 0) return n;
    long long chunks = (n + c - 1) / c;
    long long mine = chunks > k - 1 ? (chunks - (k - 1) + team - 1) / team : 0;
    return mine * c < n ? mine * c : n;
}

static bool walk_ws_for(walker *w, const fe_file *f, const fe_pragma *p, CXCursor s, fe_span sp,
                        int32_t loop_bound)
{
    if (clang_getCursorKind(s) != CXCursor_ForStmt)
        return fe_refuse(w, f->name, p->line, p->col,
                         "'#pragma omp %s' must be followed by a for loop", p->name);
    if (!fe_significant(w, s)) return fe_check_plain(w, s, sp) && fe_plain(w, s);
    long long n = fe_for_trip_count(w, s, sp);
    if (n == -2)
        return fe_refuse(w, f->name, sp.line, sp.col,
                         "the loop runs more than %d times; it cannot be unrolled into the graph",
                         w->fe->unroll_limit);
    if (n < 0) n = loop_bound > 0 ? loop_bound : w->fe->loop_bound > 0 ? w->fe->loop_bound : -1;
    if (n < 0)
        return fe_refuse(w, f->name, sp.line, sp.col,
                         "loop contains a task scheduling point but its trip count is not a "
                         "compile-time constant: add '#pragma ompdag loop_bound(N)' before it "
                         "or pass --loop-bound N");
    cursor_list ch;
    if (!fe_children(w, s, &ch)) return false;
    CXCursor body = ch.c[ch.n - 1];
    free(ch.c);
    long long mine = thread_share(p, n, w->g->tasks[w->task].thread, w->g->team);
    return mine == 0 || fe_unroll_at_most(w, body, sp, mine);
}

/* Ends a C node's branches in a J node (after every live tail). */
static bool join_branches(walker *w, fe_flow *merged, const char *file, int32_t line)
{
    int32_t j = fe_new_node(w, 'J', file, line, 1, fe_strdup("end of the block"));
    if (j < 0) return false;
    for (int32_t i = 0; i < merged->tails.n; ++i)
        if (!fe_add_edge(w, merged->tails.v[i], j)) return false;
    return fe_flow_single(w, w->flow, j, false);
}

bool fe_team_maybe_run(walker *w, const char *file, int32_t line, int32_t col, int32_t end_line,
                       const char *question, bool (*body)(walker *, const void *), const void *arg)
{
    int32_t c = fe_attach(w, 'C', file, line, col, fe_strdup(question), false);
    fe_flow taken = {0}, merged = {0};
    fe_flow *saved = w->flow;
    bool ok =
        c >= 0 && fe_flow_copy(w, &taken, w->flow) && fe_flow_union(w, &merged, &w->flow->tails);
    w->flow = &taken;
    ok = ok && body(w, arg);
    w->flow = saved;
    if (ok && taken.live) ok = fe_flow_union(w, &merged, &taken.tails);
    ok = ok && join_branches(w, &merged, file, end_line);
    fe_vec_free(&taken.tails);
    fe_vec_free(&merged.tails);
    return ok;
}

/* One section: its statement and the directives stacked on it. */
typedef struct section {
    const fe_file *f;
    const fe_pragma *const *chain;
    int32_t n;
    CXCursor s;
    fe_span cs;
} section;

static bool section_body(walker *w, const void *arg)
{
    const section *sc = arg;
    return sc->n > 0 ? fe_walk_prefixed(w, sc->f, sc->chain, sc->n, sc->s, sc->cs)
                     : fe_walk_bare(w, sc->s, sc->cs, 0);
}

/* One section in a thread: run here or not (C … J), or plain code. */
static bool walk_section(walker *w, const fe_file *f, const fe_pragma *const *chain, int32_t n,
                         CXCursor s, fe_span cs)
{
    w->stmt = cs; /* labels of its plain code */
    if (!fe_significant(w, s) && n == 0) return fe_check_plain(w, s, cs) && fe_plain(w, s);
    section sc = {f, chain, n, s, cs};
    return fe_team_maybe_run(w, f->name, cs.line, cs.col, cs.end_line,
                             "section run by this thread?", section_body, &sc);
}

static bool walk_ws_sections(walker *w, const fe_file *f, const fe_pragma *p, CXCursor s,
                             fe_span sp)
{
    if (clang_getCursorKind(s) != CXCursor_CompoundStmt)
        return fe_refuse(w, f->name, p->line, p->col,
                         "'#pragma omp %s' must be followed by a compound statement", p->name);
    cursor_list ch;
    if (!fe_children(w, s, &ch)) return false;
    bool ok = true;
    unsigned lo = sp.begin;
    for (int32_t i = 0; ok && i < ch.n && w->flow->live; ++i) {
        fe_span cs = fe_cursor_span(ch.c[i]);
        const fe_pragma *chain[8];
        int32_t n = 0;
        for (int32_t k = fe_pragma_lower_bound(f, lo + 1);
             ok && k < f->npragmas && f->pragmas[k].begin < cs.begin; ++k) {
            const fe_pragma *q = &f->pragmas[k];
            if (!strcmp(q->name, "section")) continue;
            if (q->standalone || n >= 8)
                ok = fe_refuse(w, f->name, q->line, q->col,
                               "'#pragma %s %s' between sections is not supported", fe_pragma_ns(q),
                               q->name);
            else
                chain[n++] = q;
        }
        ok = ok && walk_section(w, f, chain, n, ch.c[i], cs);
        lo = cs.end;
    }
    free(ch.c);
    return ok;
}

bool fe_walk_team_worksharing(walker *w, const fe_file *f, const fe_pragma *p, CXCursor s,
                              fe_span sp, int32_t loop_bound)
{
    if (!check_ws_clauses(w, f, p)) return false;
    bool top = clang_equalCursors(s, w->g->team_stmt);
    if (!top && !fe_pragma_clause(p, "nowait") && strncmp(p->name, "parallel ", 9))
        return fe_refuse(w, f->name, p->line, p->col,
                         "'#pragma omp %s' without nowait inside a branch, loop or called function "
                         "of a team's implicit task: its implicit barrier is not modelled there; "
                         "move it to the parallel block's top level or add nowait",
                         p->name);
    if (!w->flow->live) return true;
    return is_ws_for(p->name) ? walk_ws_for(w, f, p, s, sp, loop_bound)
                              : walk_ws_sections(w, f, p, s, sp);
}

/* ---- the team's phases ------------------------------------------------------------------- */

/* Statements first..last of the parallel block (or the region's statement
 * alone: first = last = -1), walked from offset lo. */
typedef struct phase {
    int32_t first, last;
    unsigned lo;
    int32_t line; /* of the barrier that ends it (0: the region's end) */
} phase;

typedef struct team_ctx {
    const fe_file *f;
    const fe_pragma *par;
    CXCursor stmt;
    fe_span sp;
    cursor_list ch; /* the block's statements */
    phase *phases;
    int32_t nphases;
    const fe_pragma *ws; /* `parallel for`, or `parallel` + `for` stacked: the
                            statement is that worksharing construct, else NULL */
    int32_t loop_bound;  /* ompdag loop_bound stacked on it */
    bool empty_tail;     /* the last phase has no statement: between the last
                            barrier of the block and the region's own */
} team_ctx;

static bool add_phase(walker *w, team_ctx *tc, phase ph)
{
    phase *np = realloc(tc->phases, sizeof *np * (size_t)(tc->nphases + 1));
    if (!np) return fe_nomem(w);
    tc->phases = np;
    tc->phases[tc->nphases++] = ph;
    return true;
}

/* Does a worksharing construct or a `single` without nowait prefix
 * statement i (it ends a phase with its implicit barrier)?  masked and
 * master have no barrier. */
static const fe_pragma *barrier_construct(const team_ctx *tc, unsigned lo, fe_span cs)
{
    for (int32_t k = fe_pragma_lower_bound(tc->f, lo + 1);
         k < tc->f->npragmas && tc->f->pragmas[k].begin < cs.begin; ++k) {
        const fe_pragma *q = &tc->f->pragmas[k];
        bool single = q->dir == FE_DIR_SINGLE && !strcmp(q->name, "single");
        if ((fe_is_team_worksharing(q) || single) && !fe_pragma_clause(q, "nowait")) return q;
    }
    return NULL;
}

/* Cuts the phase at each explicit `barrier` between offsets lo and end,
 * before statement i (ch.n: after the last). */
static bool cut_at_barriers(walker *w, team_ctx *tc, phase *cur, int32_t i, unsigned lo,
                            unsigned end)
{
    for (int32_t k = fe_pragma_lower_bound(tc->f, lo + 1);
         k < tc->f->npragmas && tc->f->pragmas[k].begin < end; ++k) {
        const fe_pragma *q = &tc->f->pragmas[k];
        if (q->dir != FE_DIR_BARRIER) continue;
        if (cur->last >= cur->first) {
            cur->line = q->line;
            if (!add_phase(w, tc, *cur)) return false;
        }
        *cur = (phase){i, i - 1, q->end, 0};
    }
    return true;
}

/* Cuts the block at top-level barriers and worksharing constructs.  A
 * barrier that ends the block's last statement (a `single` or a worksharing
 * construct without nowait) or follows it comes before the region's own:
 * the code between the two is a phase of its own, however empty, so the
 * graph's phases are the barriers the runtime counts (annotate maps phases
 * by them, annotate/annotate_team.c). */
static bool split_phases(walker *w, team_ctx *tc)
{
    if (clang_getCursorKind(tc->stmt) != CXCursor_CompoundStmt || tc->ws)
        return add_phase(w, tc, (phase){-1, -1, tc->sp.begin, 0});
    if (!fe_children(w, tc->stmt, &tc->ch)) return false;
    phase cur = {0, -1, tc->sp.begin, 0};
    unsigned lo = tc->sp.begin;
    for (int32_t i = 0; i < tc->ch.n; ++i) {
        fe_span cs = fe_cursor_span(tc->ch.c[i]);
        if (!cut_at_barriers(w, tc, &cur, i, lo, cs.begin)) return false;
        cur.last = i;
        const fe_pragma *ws = barrier_construct(tc, lo > cur.lo ? lo : cur.lo, cs);
        lo = cs.end;
        if (ws) {
            cur.line = ws->line;
            if (!add_phase(w, tc, cur)) return false;
            cur = (phase){i + 1, i, cs.end, 0};
        }
    }
    if (!cut_at_barriers(w, tc, &cur, tc->ch.n, lo, tc->sp.end)) return false;
    tc->empty_tail = cur.last < cur.first && tc->nphases > 0;
    return (cur.last < cur.first && !tc->empty_tail) || add_phase(w, tc, cur);
}

/* Directives after the block's last statement, up to a barrier (which ends
 * the phase, split_phases): a taskwait waits there; taskyield or flush
 * change nothing. */
static bool trailing_pragmas(walker *cw, const team_ctx *tc, unsigned lo)
{
    const fe_file *f = tc->f;
    for (int32_t k = fe_pragma_lower_bound(f, lo + 1);
         k < f->npragmas && f->pragmas[k].begin < tc->sp.end; ++k) {
        const fe_pragma *q = &f->pragmas[k];
        if (q->dir == FE_DIR_BARRIER) break;
        if (q->dir == FE_DIR_IGNORED_STANDALONE || q->dir == FE_DIR_OUTSIDE ||
            q->dir == FE_DIR_ASSUME)
            continue;
        if (q->dir == FE_DIR_TASKWAIT && q->nclauses == 0) {
            if (cw->flow->live &&
                fe_attach(cw, 'W', f->name, q->line, q->col, fe_strdup("taskwait"), true) < 0)
                return false;
            continue;
        }
        return fe_refuse(cw, f->name, q->line, q->col,
                         "'#pragma %s %s' at the end of a parallel block whose threads all create "
                         "tasks is not supported",
                         fe_pragma_ns(q), q->name);
    }
    return true;
}

/* Thread k's part of phase ph: its statements in a task of its own. */
static bool walk_phase_body(walker *cw, const team_ctx *tc, const phase *ph)
{
    if (ph->first < 0) {
        cw->g->team_stmt = tc->stmt;
        if (tc->ws)
            return fe_walk_team_worksharing(cw, tc->f, tc->ws, tc->stmt, tc->sp, tc->loop_bound);
        return fe_walk_bare(cw, tc->stmt, tc->sp, 0);
    }
    unsigned lo = ph->lo;
    bool ok = true;
    for (int32_t i = ph->first; ok && i <= ph->last; ++i) {
        cw->g->team_stmt = tc->ch.c[i];
        ok = fe_walk_stmt(cw, tc->ch.c[i], lo);
        lo = fe_cursor_span(tc->ch.c[i]).end;
    }
    return ok && (ph->last + 1 < tc->ch.n || trailing_pragmas(cw, tc, lo));
}

/* A W node after the children this phase task created and did not await:
 * the barrier waits for them, so the phase's sink comes after them. */
static bool await_children(walker *cw, const team_ctx *tc, int32_t line)
{
    int32_t bad = fe_unawaited_child(cw, cw->task);
    if (*cw->nomem) return false;
    if (bad < 0 || !cw->flow->live) return true;
    return fe_attach(cw, 'W', tc->f->name, line ? line : tc->sp.end_line, 1,
                     fe_strdup("barrier: the tasks this thread created"), true) >= 0;
}

int32_t fe_unawaited_since(walker *w, int32_t first_task, int32_t *bad)
{
    fe_graph *g = w->g;
    bool *pw = calloc((size_t)g->n + 1, sizeof *pw); /* every path from here meets a W node */
    if (!pw) return fe_nomem(w), -1;
    int32_t task = -1;
    *bad = -1;
    /* one pass for all the tasks (fe_unawaited_child's rule): a task's
     * nodes are numbered in a topological order of its F-edges */
    for (int32_t v = g->n - 1; v >= 0; --v) {
        const fe_node *nd = &g->nodes[v];
        if (nd->task < first_task || g->tasks[nd->task].thread > 0) continue;
        bool all = nd->succ.n > 0;
        for (int32_t k = 0; k < nd->succ.n; ++k)
            all = all && pw[nd->succ.v[k]];
        pw[v] = nd->kind == 'W' || all;
        bool unawaited = nd->kind == 'T' && (nd->succ.n == 0 || !pw[nd->succ.v[0]]);
        if (unawaited && (task < 0 || nd->task <= task)) task = nd->task, *bad = v;
    }
    free(pw);
    return task;
}

/* The barrier after phase j: τ1's W node waits for every thread's phase.
 * Every explicit task created in the phase must await its own children, or
 * the W node would wait too little; the empty phase before the region's end
 * is dropped instead (nothing in it to order: the graph ends with the
 * descendants, as without that barrier). */
static bool end_phase(walker *w, team_ctx *tc, int32_t j, int32_t first_task)
{
    int32_t bad = -1, t = fe_unawaited_since(w, first_task, &bad);
    if (*w->nomem) return false;
    if (t >= 0 && tc->empty_tail && j + 2 == tc->nphases) {
        tc->nphases--;
        return true;
    }
    if (t >= 0)
        return fe_refuse(w, tc->f->name, tc->phases[j].line, 1,
                         "the barrier waits for every task of the team, but the task created "
                         "at line %d does not wait (taskwait) for its child task created at "
                         "line %d; the model cannot express this wait",
                         w->g->nodes[w->g->tasks[t].creator].line, w->g->nodes[bad].line);
    return fe_attach(w, 'W', tc->f->name, tc->phases[j].line, 1, fe_strdup("barrier"), false) >= 0;
}

/* Thread k (1..P) of phase j: a T node of τ1 and the phase task. */
static bool walk_thread(walker *w, const team_ctx *tc, int32_t j, int32_t k)
{
    char text[96];
    snprintf(text, sizeof text, "implicit task of thread %d/%d, phase %d", k, w->g->team, j + 1);
    int32_t t_node =
        fe_attach(w, 'T', tc->f->name, tc->par->line, tc->par->col, fe_strdup(text), false);
    if (t_node < 0) return false;
    int32_t t = fe_new_task(w, t_node, false); /* implicit tasks are tied */
    if (t < 0) return false;
    w->g->nodes[t_node].creates = t;
    w->g->tasks[t].thread = k;
    fe_flow cf = {{0}, true, -1};
    fe_jump tf = {
        JUMP_TASK, {0}, {0}, {0}, -1, false, 0, NULL, tc->stmt, false, clang_getNullCursor(), NULL};
    walker cw = *w;
    cw.task = t;
    cw.flow = &cf;
    cw.jumps = &tf;
    bool ok = walk_phase_body(&cw, tc, &tc->phases[j]) && fe_flow_union(&cw, &cf, &tf.rets) &&
              await_children(&cw, tc, tc->phases[j].line) && fe_finish_task(&cw, tc->sp);
    fe_vec_free(&cf.tails);
    fe_vec_free(&tf.rets);
    return ok;
}

bool fe_walk_team(walker *w, const fe_file *f, const fe_pragma *par, const fe_pragma *const *chain,
                  int32_t n, CXCursor stmt, fe_span sp, int32_t team)
{
    /* Without a team size the region is refused, but the walk goes on with a
     * team of one, so the same run names the other constructs it holds. */
    bool no_team = team <= 0;
    if (no_team) {
        fe_refuse(w, f->name, par->line, par->col,
                  "tasks are created by every thread of this '#pragma omp %s': give it a "
                  "constant num_threads(N), or pass --team-size N, so the graph can hold the N "
                  "implicit tasks (its bound is then for m = N, the team the program runs with)",
                  par->name);
        if (*w->nomem) return false;
        team = 1;
    }
    /* `if(e)` may leave the team one thread, which then runs every
     * iteration a static schedule would have spread over P: refused */
    long v;
    if (fe_pragma_clause(par, "if") && !(fe_clause_value(w->fe, f, par, "if", &v) && v != 0))
        return fe_refuse(w, f->name, par->line, par->col,
                         "'#pragma omp %s' with an if clause whose threads all create tasks: the "
                         "team may be a single thread, which the team's graph does not model; "
                         "drop the clause or create the tasks from a single or masked block",
                         par->name);
    team_ctx tc = {f, par, stmt, sp, {0}, NULL, 0, NULL, 0, false};
    if (par->dir == FE_DIR_PARALLEL_OTHER) tc.ws = par;
    for (int32_t i = 0; i < n; ++i) {
        if (chain[i]->dir == FE_DIR_LOOP_BOUND && fe_clause_value(w->fe, f, chain[i], "", &v) &&
            v >= 0 && v <= w->fe->unroll_limit)
            tc.loop_bound = (int32_t)v;
        else if (!tc.ws && fe_is_team_worksharing(chain[i]))
            tc.ws = chain[i];
        else
            return fe_refuse(w, f->name, chain[i]->line, chain[i]->col,
                             "'#pragma %s %s' directly on '#pragma omp %s' is not supported",
                             fe_pragma_ns(chain[i]), chain[i]->name, par->name);
    }
    w->g->team = team;
    w->g->taskgroups++; /* every copy is built: no shared bodies (fe_share.c) */
    bool ok = split_phases(w, &tc);
    for (int32_t j = 0; ok && j < tc.nphases; ++j) {
        int32_t first_task = w->g->ntasks;
        for (int32_t k = 1; ok && k <= team; ++k)
            ok = walk_thread(w, &tc, j, k);
        if (ok && j + 1 < tc.nphases) ok = end_phase(w, &tc, j, first_task);
    }
    w->g->taskgroups--;
    free(tc.ch.c);
    free(tc.phases);
    return ok && !no_team;
}
