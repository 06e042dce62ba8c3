/*
 * plugin/fe_team_single.c — `single`, `masked`, `master` and `masked
 * taskloop` in the implicit tasks of a team graph (docs/plugin.md "Team
 * graphs: tasks from every thread"; OpenMP 5.2 §11.1 single, §10.5 masked,
 * §12.6 taskloop, §17.1 nesting), and which parallel regions with such a
 * block are team graphs.
 *
 * A region whose parallel block creates tasks outside its single/masked
 * blocks (OpenMP Examples taskloop.2.c: a `taskloop` every thread runs,
 * then `single` + `taskloop`) is a team graph (fe_team.c): each thread's
 * implicit task runs the block, and the blocks are modelled there:
 *   - `single`: exactly one thread, any one, runs the block.  Every thread
 *     gets a C node "single run by this thread?" whose branches run or
 *     skip it, so the graph's flows hold every subset of threads, the
 *     program's one-thread runs among them: the model over-approximates
 *     and never drops an ordering (as the team's `sections` do).  A block
 *     without scheduling points is plain code in every thread.  The
 *     implicit barrier at its end (without nowait) cuts a phase like any
 *     barrier (fe_team.c's split_phases); a `single` without nowait inside
 *     a branch, loop or called function is refused, as a barrier there is.
 *   - `masked` / `master` (no barrier): the block runs in the implicit
 *     task of the thread the filter names (thread 0 without one; the
 *     graph's thread k is OpenMP thread k - 1), exactly; no thread when the
 *     filter is a constant outside the team.  A filter that is not a
 *     constant may differ between threads (filter(omp_get_thread_num())
 *     picks them all): each thread gets the C node of a single.
 *   - `masked taskloop` / `master taskloop`: the same, with the taskloop
 *     (fe_taskloop.c) as the block; `single` + `taskloop` stacked is a
 *     single whose block is the taskloop.
 * Tasks the block creates are children of the thread's implicit (phase)
 * task, which awaits them at the phase's end like its other children.
 * Outside a team's implicit task (in an explicit task, or the block of a
 * single/master region) these constructs are refused as before: OpenMP
 * forbids them there.
 */
#include <stdlib.h>
#include <string.h>

#include "fe_walk.h"

/* A single/masked block: its directive, the directives stacked after it,
 * and its statement. */
typedef struct team_block {
    const fe_file *f;
    const fe_pragma *p;
    const fe_pragma *const *rest;
    int32_t nrest;
    CXCursor s;
    fe_span sp;
} team_block;

static bool is_single(const fe_pragma *p)
{
    return p->dir == FE_DIR_SINGLE && !strcmp(p->name, "single");
}

/* The refusal outside a team's implicit task (the walk's earlier messages). */
static bool refuse_nested(walker *w, const fe_file *f, const fe_pragma *p)
{
    if (p->dir == FE_DIR_TASKLOOP)
        return fe_refuse(w, f->name, p->line, p->col,
                         "nested '#pragma omp %s' inside a task region is not supported: "
                         "master and masked may not be nested inside a task, single or master "
                         "region (OpenMP 5.1 section 17.1); use '#pragma omp taskloop'",
                         p->name);
    return fe_refuse(w, f->name, p->line, p->col,
                     "nested '#pragma omp %s' inside a task region is not supported: single, "
                     "master and masked may not be nested inside a task, single or master "
                     "region (OpenMP 5.1 section 17.1)",
                     p->name);
}

/* single: private, firstprivate, copyprivate, nowait, allocate; masked:
 * filter; master: none (a masked/master taskloop's own clauses are
 * fe_taskloop.c's).  Worksharing and single/masked directives stacked on the
 * block would be closely nested in it, which OpenMP forbids. */
static bool check_block(walker *w, const team_block *b)
{
    static const char *const allowed[] = {"private",  "firstprivate", "copyprivate", "nowait",
                                          "allocate", "filter",       NULL};
    const fe_pragma *p = b->p;
    for (int32_t i = 0; p->dir == FE_DIR_SINGLE && i < p->nclauses; ++i) {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; ++a)
            ok = !strcmp(p->clauses[i].name, *a);
        if (!ok)
            return fe_refuse(w, b->f->name, p->line, p->col,
                             "'#pragma omp %s' with a %s clause in a team's implicit task is not "
                             "modelled",
                             p->name, p->clauses[i].name);
    }
    for (int32_t i = 0; i < b->nrest; ++i) {
        const fe_pragma *q = b->rest[i];
        if (fe_is_team_worksharing(q) || q->dir == FE_DIR_SINGLE || fe_is_producer_taskloop(q))
            return fe_refuse(w, b->f->name, q->line, q->col,
                             "'#pragma omp %s' directly on '#pragma omp %s' is not allowed: it "
                             "would be closely nested in it (OpenMP 5.1 section 17.1)",
                             q->name, p->name);
    }
    return true;
}

/* Runs the block in the walker's implicit task. */
static bool run_block(walker *w, const void *arg)
{
    const team_block *b = arg;
    if (b->p->dir == FE_DIR_TASKLOOP)
        return fe_walk_taskloop_chain(w, b->f, b->p, b->rest, b->nrest, b->s, b->sp);
    return b->nrest > 0 ? fe_walk_prefixed(w, b->f, b->rest, b->nrest, b->s, b->sp)
                        : fe_walk_bare(w, b->s, b->sp, 0);
}

/* A block any thread may run: run here or not (C … J); plain code in every
 * thread when it has no scheduling point. */
static bool run_by_any(walker *w, const team_block *b, const char *question)
{
    if (b->p->dir != FE_DIR_TASKLOOP && b->nrest == 0 && !fe_significant(w, b->s))
        return fe_check_plain(w, b->s, b->sp) && fe_plain(w, b->s);
    return fe_team_maybe_run(w, b->f->name, b->p->line, b->p->col, b->sp.end_line, question,
                             run_block, b);
}

/* The graph's thread (1..P) that runs a masked/master block, 0 for none, -1
 * when the filter is not a constant (any thread may). */
static int32_t masked_thread(walker *w, const fe_file *f, const fe_pragma *p)
{
    long v;
    if (!fe_pragma_clause(p, "filter")) return 1;
    if (!fe_clause_value(w->fe, f, p, "filter", &v)) return -1;
    return v >= 0 && v < w->g->team ? (int32_t)v + 1 : 0;
}

bool fe_walk_team_single(walker *w, const fe_file *f, const fe_pragma *p,
                         const fe_pragma *const *rest, int32_t nrest, CXCursor s, fe_span sp)
{
    if (!fe_in_implicit_task(w)) return refuse_nested(w, f, p);
    team_block b = {f, p, rest, nrest, s, sp};
    if (!check_block(w, &b)) return false;
    if (is_single(p)) {
        bool top = clang_equalCursors(s, w->g->team_stmt);
        if (!top && !fe_pragma_clause(p, "nowait"))
            return fe_refuse(w, f->name, p->line, p->col,
                             "'#pragma omp single' without nowait inside a branch, loop or called "
                             "function of a team's implicit task: its implicit barrier is not "
                             "modelled there; move it to the parallel block's top level or add "
                             "nowait");
        return !w->flow->live || run_by_any(w, &b, "single run by this thread?");
    }
    if (!w->flow->live) return true;
    int32_t k = masked_thread(w, f, p);
    if (k < 0) return run_by_any(w, &b, "masked block run by this thread?");
    return k != w->g->tasks[w->task].thread || run_block(w, &b);
}

/* ---- which regions are team graphs --------------------------------------------------- */

/* Does the first directive prefixing a statement (between offsets lo and
 * begin) make it a single/masked block (1), a task or taskloop every thread
 * runs (2), or neither (0)? */
static int prefix_kind(const fe_file *f, unsigned lo, unsigned begin)
{
    for (int32_t k = fe_pragma_lower_bound(f, lo + 1);
         k < f->npragmas && f->pragmas[k].begin < begin; ++k) {
        const fe_pragma *q = &f->pragmas[k];
        if (q->standalone || q->dir >= FE_DIR_LOOP_BOUND) continue;
        if (q->dir == FE_DIR_SINGLE || fe_is_producer_taskloop(q)) return 1;
        return q->dir == FE_DIR_TASK || q->dir == FE_DIR_TASKLOOP ? 2 : 0;
    }
    return 0;
}

bool fe_team_tasks_beside_blocks(walker *w, const fe_file *f, CXCursor stmt)
{
    if (clang_getCursorKind(stmt) != CXCursor_CompoundStmt) return fe_creates_tasks(w, stmt);
    cursor_list ch;
    if (!fe_children(w, stmt, &ch)) return false;
    unsigned lo = fe_cursor_span(stmt).begin;
    bool found = false;
    for (int32_t i = 0; i < ch.n && !found; ++i) {
        fe_span cs = fe_cursor_span(ch.c[i]);
        int kind = prefix_kind(f, lo, cs.begin);
        found = kind == 2 || (kind == 0 && fe_creates_tasks(w, ch.c[i]));
        lo = cs.end;
    }
    free(ch.c);
    return found;
}
