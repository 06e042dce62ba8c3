/*
 * plugin/fe_region.c — one parallel region (shared/spec/condag.md §1): the
 * directive chain on the region (stacked single/master and task
 * directives), the single/master block that is τ1, plain code before it (a
 * prefix), code after the barrier that ends the graph (outside the con-DAG),
 * and the final tidy-up of C nodes left with a single successor.  Each
 * region is judged on its own refusals (fe_build_region, docs/plugin.md
 * "Refusals, one region at a time").
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fe_depend.h"
#include "fe_mutex.h"
#include "fe_walk.h"

/* ---- the region ------------------------------------------------------------------------------ */

/* What the parallel block has seen so far around its single/master. */
typedef struct block_state {
    bool producer; /* the single/master block was walked */
    bool barrier;  /* a barrier (implicit or explicit) follows it */
} block_state;

static const char *const no_producer_msg =
    "tasks in a parallel region must be created inside single, master or masked; otherwise "
    "every thread creates them";

/* One statement of the parallel block other than the single/master.
 *
 * Where the region's graph starts and ends: code before the single/master
 * block runs on every thread before τ1 can start, and becomes a sequential
 * prefix of τ1 (it over-approximates the delay).  The graph ends at the
 * barrier after the block (the single's implicit one, or an explicit
 * `barrier`), which completes every task of the region.  Code after that
 * barrier is run by the implicit tasks of the team, outside the task system:
 * it is not part of the con-DAG and may use any construct (critical, atomic,
 * worksharing) as long as it creates no tasks.  Code after a master/masked or
 * `single nowait` block with no barrier in between runs while the tasks run
 * and occupies threads the bound counts on: refused. */
static bool parallel_block_code(walker *w, const fe_file *f, CXCursor c, fe_span cs,
                                block_state *bs)
{
    if (clang_getCursorKind(c) == CXCursor_NullStmt) return true;
    if (bs->producer && bs->barrier)
        return !fe_creates_tasks(w, c) ||
               fe_refuse(w, f->name, cs.line, cs.col, "%s", no_producer_msg);
    if (fe_significant(w, c)) return fe_refuse(w, f->name, cs.line, cs.col, "%s", no_producer_msg);
    if (!fe_check_plain(w, c, cs)) return false;
    if (bs->producer)
        return fe_refuse(w, f->name, cs.line, cs.col,
                         "code after a master/masked (or single nowait) block runs on the other "
                         "threads while its tasks run; not supported: move it into the block or "
                         "put '#pragma omp barrier' before it");
    return fe_plain(w, c);
}

static bool is_worksharing(const char *name)
{
    return !strcmp(name, "for") || !strncmp(name, "for ", 4) || !strcmp(name, "sections") ||
           !strcmp(name, "scope") || !strcmp(name, "workshare") || !strcmp(name, "loop");
}

/* Why a directive of the parallel block outside single/master (before the
 * barrier that ends the task system) is refused. */
static const char *outside_reason(const fe_pragma *p)
{
    if (p->dir == FE_DIR_TASK) return ": every thread creates the task";
    if (p->dir == FE_DIR_TASKLOOP)
        return ": every thread runs the taskloop; use 'masked taskloop' or put it inside single";
    if (p->dir == FE_DIR_REFUSED && (!strcmp(p->name, "for") || !strncmp(p->name, "for ", 4)))
        return ": the iterations of a worksharing loop, and the tasks they create, are spread "
               "over every thread of the team";
    if (p->dir == FE_DIR_REFUSED && is_worksharing(p->name))
        return ": a worksharing construct before the barrier that ends the task system runs on "
               "every thread of the team, and its implicit barrier waits for all of them; put it "
               "after that barrier or in a parallel region of its own";
    return "";
}

/* The pragmas between two statements of the parallel block: a single/master
 * (then *single is its index, and the task/taskgroup/ompdag pragmas stacked
 * on it go to chain[]), barriers, and — after the barrier that ends the
 * graph — anything the implicit tasks may run. */
static bool block_pragmas(walker *w, const fe_file *f, int32_t first, int32_t last, block_state *bs,
                          int32_t *single, const fe_pragma **chain, int32_t *n)
{
    for (int32_t k = first; k <= last; ++k) {
        const fe_pragma *p = &f->pragmas[k];
        if (*single >= 0) {
            if (p->standalone || *n >= 8)
                return fe_refuse(w, f->name, p->line, p->col,
                                 "'#pragma %s %s' cannot follow '#pragma omp %s' here",
                                 fe_pragma_ns(p), p->name, f->pragmas[*single].name);
            chain[(*n)++] = p;
        } else if (p->dir == FE_DIR_SINGLE || fe_is_producer_taskloop(p)) {
            *single = k;
        } else if (p->dir == FE_DIR_BARRIER) {
            bs->barrier = bs->barrier || bs->producer;
        } else if (p->dir == FE_DIR_IGNORED_STANDALONE || p->dir == FE_DIR_OUTSIDE ||
                   p->dir == FE_DIR_DEADLINE || p->dir == FE_DIR_RESOURCE ||
                   p->dir == FE_DIR_ASSUME) {
            continue;
        } else if (bs->producer && bs->barrier && p->dir != FE_DIR_TASK &&
                   p->dir != FE_DIR_PARALLEL && p->dir != FE_DIR_PARALLEL_MASTER &&
                   p->dir != FE_DIR_PARALLEL_OTHER && !strstr(p->name, "taskloop")) {
            continue; /* code of the implicit tasks after the graph's end */
        } else {
            return fe_refuse(w, f->name, p->line, p->col,
                             "'#pragma %s %s' in a parallel region outside single/master is not "
                             "supported%s",
                             fe_pragma_ns(p), p->name, outside_reason(p));
        }
    }
    return true;
}

/* The parallel body with no single/master on it directly: a block holding
 * one single/master construct and plain code around it. */
static bool walk_parallel_block(walker *w, const fe_file *f, const fe_pragma *par, CXCursor s,
                                fe_span sp, bool *has_producer)
{
    if (clang_getCursorKind(s) != CXCursor_CompoundStmt) {
        if (fe_significant(w, s))
            return fe_refuse(w, f->name, par->line, par->col, "%s", no_producer_msg);
        return true;
    }
    cursor_list ch;
    if (!fe_children(w, s, &ch)) return false;
    bool ok = true;
    block_state bs = {false, false};
    unsigned lo = sp.begin;
    for (int32_t i = 0; ok && i < ch.n; ++i) {
        fe_span cs = fe_cursor_span(ch.c[i]);
        int32_t first = fe_pragma_lower_bound(f, lo + 1), last = first - 1;
        while (last + 1 < f->npragmas && f->pragmas[last + 1].begin < cs.begin)
            last++;
        int32_t single = -1, n = 0;
        const fe_pragma *chain[8];
        ok = block_pragmas(w, f, first, last, &bs, &single, chain, &n);
        if (ok && single >= 0) {
            const fe_pragma *sg = &f->pragmas[single];
            if (*has_producer)
                ok = fe_refuse(w, f->name, sg->line, sg->col,
                               "more than one single/master construct in one parallel region is "
                               "not supported");
            *has_producer = bs.producer = true;
            bs.barrier = !strcmp(sg->name, "single") && !fe_pragma_clause(sg, "nowait");
            if (fe_is_producer_taskloop(sg))
                ok = ok && fe_walk_taskloop_chain(w, f, sg, chain, n, ch.c[i], cs);
            else
                ok = ok && (n > 0 ? fe_walk_prefixed(w, f, chain, n, ch.c[i], cs)
                                  : fe_walk_bare(w, ch.c[i], cs, 0));
        } else if (ok) {
            ok = parallel_block_code(w, f, ch.c[i], cs, &bs);
        }
        lo = cs.end;
    }
    free(ch.c);
    return ok;
}

/* Turns C nodes left with fewer than two successors into N nodes. */
static void tidy(fe_graph *g)
{
    for (int32_t v = 0; v < g->n; ++v)
        if (g->nodes[v].kind == 'C' && g->nodes[v].succ.n < 2) g->nodes[v].kind = 'N';
}

static char *region_deadline(const fe_file *f, const fe_region_input *in)
{
    for (int32_t i = in->first_pragma; i <= in->last_pragma; ++i)
        if (f->pragmas[i].dir == FE_DIR_DEADLINE && fe_pragma_clause(&f->pragmas[i], ""))
            return fe_strdup(fe_pragma_clause(&f->pragmas[i], "")->arg);
    /* A deadline line directly above the parallel directive. */
    int32_t i = in->first_pragma - 1;
    if (i >= 0 && f->pragmas[i].dir == FE_DIR_DEADLINE && fe_pragma_clause(&f->pragmas[i], "")) {
        bool only_space = true;
        for (unsigned o = f->pragmas[i].end; o < f->pragmas[in->first_pragma].begin; ++o)
            only_space = only_space && (f->text[o] == ' ' || f->text[o] == '\t' ||
                                        f->text[o] == '\n' || f->text[o] == '\r');
        if (only_space) return fe_strdup(fe_pragma_clause(&f->pragmas[i], "")->arg);
    }
    return NULL;
}

static size_t error_count(const fe_diag_store *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n; ++i)
        n += d->d[i].severity == OMPDAG_DIAG_ERROR;
    return n;
}

static bool region_has_producer(const fe_region_input *in);

/* One walk of the region into out; the refusals go to fe->diags.  Returns
 * false when the walk stopped (a refusal or ENOMEM); *producer tells whether
 * a single/master block was walked. */
static bool walk_region(ompdag_frontend *fe, const fe_region_input *in, fe_region_output *out,
                        bool *nomem_flag, bool *has_producer)
{
    const fe_file *f = in->file;
    const fe_pragma *par = &f->pragmas[in->first_pragma];
    fe_span sp = fe_cursor_span(in->stmt);
    fe_flow flow = {{0}, true, -1};
    fe_call root = {in->func, NULL};
    walker w = {fe,         &out->g, 0,         false,    &flow, NULL, &root, 0,
                nomem_flag, f->name, par->line, par->col, sp,    NULL, NULL};
    memset(out, 0, sizeof *out);
    fe_env env; /* the region function's assumed parameters (fe_assume.c) */
    if (!fe_assume_region_begin(fe, in->func, in->stmt, &env)) return *nomem_flag = true, false;
    w.env = &env;
    long v;
    const fe_clause *nt = fe_pragma_clause(par, "num_threads");
    if (nt && fe_clause_value(fe, f, par, "num_threads", &v) && v > 0 && v < INT32_MAX)
        out->threads = (int32_t)v;
    out->deadline = region_deadline(f, in);
    if (fe_new_task(&w, -1, false) < 0) return false;
    bool ok = true, producer = false;
    /* Stacked directives: `parallel` [`single`|`master`|`masked`] then
     * task/taskgroup/ompdag pragmas on the same statement (the BOTS idiom
     * `#pragma omp parallel` / `single` / `task` / `f();`): the statement
     * with the pragmas after the single is τ1's code. */
    const fe_pragma *chain[8];
    int32_t n = 0;
    bool single = par->dir == FE_DIR_PARALLEL_MASTER;
    /* `parallel masked taskloop`, or `parallel` then `masked taskloop`: the
     * producer's statement is a taskloop (fe_taskloop.c) */
    const fe_pragma *taskloop = strstr(par->name, "taskloop") ? par : NULL;
    for (int32_t i = in->first_pragma + 1; ok && i <= in->last_pragma; ++i) {
        const fe_pragma *p = &f->pragmas[i];
        if (p->dir == FE_DIR_DEADLINE || p->dir == FE_DIR_RESOURCE || p->dir == FE_DIR_ASSUME)
            continue;
        if ((p->dir == FE_DIR_SINGLE || fe_is_producer_taskloop(p)) && !single &&
            par->dir == FE_DIR_PARALLEL) {
            single = true;
            if (p->dir == FE_DIR_TASKLOOP) taskloop = p;
        } else if (single && !p->standalone && n < 8 && p->dir != FE_DIR_SINGLE) {
            chain[n++] = p;
        } else if (!single && par->dir != FE_DIR_PARALLEL_MASTER && n < 8 &&
                   (p->dir == FE_DIR_LOOP_BOUND ||
                    (fe_is_team_worksharing(p) && strncmp(p->name, "parallel", 8)))) {
            chain[n++] = p; /* `parallel` + `for` stacked: for the team (fe_team.c) */
        } else {
            ok = fe_refuse(&w, f->name, p->line, p->col,
                           "'#pragma %s %s' directly on '#pragma omp %s' is not supported%s",
                           fe_pragma_ns(p), p->name, par->name,
                           p->dir == FE_DIR_TASK || p->dir == FE_DIR_TASKGROUP
                               ? ": every thread would run it; put it inside single or master"
                               : "");
        }
    }
    /* the threads create tasks, with no single/master/masked or beside the
     * ones at the block's top level: each one does (fe_team.c) */
    bool team = ok && !single && (par->dir == FE_DIR_PARALLEL || fe_is_team_worksharing(par)) &&
                (region_has_producer(in) ? fe_team_tasks_beside_blocks(&w, f, in->stmt)
                                         : fe_creates_tasks(&w, in->stmt));
    if (!ok) {
    } else if (team) {
        producer = true;
        /* no constant num_threads: the team the user named (--team-size) */
        if (out->threads <= 0 && w.fe->team_size > 0) out->threads = w.fe->team_size;
        ok = fe_walk_team(&w, f, par, chain, n, in->stmt, sp, out->threads);
    } else if (par->dir == FE_DIR_PARALLEL_OTHER) {
        if (fe_significant(&w, in->stmt))
            ok = fe_refuse(&w, f->name, par->line, par->col,
                           strstr(par->name, "sections")
                               ? "tasks inside '#pragma omp %s' are not supported: each section "
                                 "runs once, on some thread of the team, concurrently with the "
                                 "others, and the model has one task-creating block per region; "
                                 "create the tasks from a single or master block"
                               : "tasks inside '#pragma omp %s' are created by every thread or "
                                 "iteration; not supported",
                           par->name);
    } else if (single) {
        producer = true;
        if (taskloop)
            ok = fe_walk_taskloop_chain(&w, f, taskloop, chain, n, in->stmt, sp);
        else
            ok = n > 0 ? fe_walk_prefixed(&w, f, chain, n, in->stmt, sp)
                       : fe_walk_bare(&w, in->stmt, sp, 0);
    } else {
        ok = walk_parallel_block(&w, f, par, in->stmt, sp, &producer);
    }
    ok = ok && (!producer || fe_finish_task(&w, sp));
    ok = ok && fe_mutex_check(&w); /* no lock held across a scheduling point */
    ok = ok && fe_assume_region_end(&w);
    fe_vec_free(&flow.tails);
    *has_producer = producer;
    return ok;
}

/* ---- refusals, one region at a time --------------------------------------------------- */

/* May the region create tasks, seen or not?  Task directives in its text,
 * calls to functions with task directives (transitively), calls through a
 * pointer while such a function has its address taken, calls to functions
 * whose body was not parsed but may create tasks (fe_extern.c), and direct
 * calls into the runtime, in its text or in the functions it calls.  Only a
 * region that surely creates none is "task-free". */
typedef struct unseen_state {
    walker *w;
    fe_vec todo;   /* functions to look into */
    uint8_t *seen; /* per fe->funcs */
    bool found;
} unseen_state;

static enum CXChildVisitResult unseen_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    unseen_state *st = data;
    if (clang_getCursorKind(c) != CXCursor_CallExpr) return CXChildVisit_Recurse;
    const ompdag_frontend *fe = st->w->fe;
    int32_t fi = fe_func_of_call(fe, c);
    bool indirect = fe_call_is_indirect(c);
    if (fi >= 0 && !st->seen[fi]) {
        st->seen[fi] = 1;
        if (!fe_vec_push(&st->todo, fi)) *st->w->nomem = true;
    } else if (fi < 0 && (indirect ? fe->fnptr_func >= 0
                                   : fe_is_runtime_call(c) ||
                                         fe_extern_task_source(st->w->fe, c, st->w->nomem))) {
        st->found = true;
    }
    return st->found || *st->w->nomem ? CXChildVisit_Break : CXChildVisit_Recurse;
}

static bool region_may_create_tasks(walker *w, const fe_region_input *in)
{
    CXCursor stmt = in->stmt;
    for (int32_t i = in->first_pragma; i <= in->last_pragma; ++i)
        if (in->file->pragmas[i].dir == FE_DIR_TASK ||
            strstr(in->file->pragmas[i].name, "taskloop"))
            return true;
    if (fe_creates_tasks(w, stmt)) return true;
    unseen_state st = {w, {0}, calloc((size_t)w->fe->nfuncs + 1, 1), false};
    if (!st.seen) return fe_nomem(w), true;
    if (unseen_visit(stmt, stmt, &st) == CXChildVisit_Recurse)
        clang_visitChildren(stmt, unseen_visit, &st);
    for (int32_t k = 0; k < st.todo.n && !st.found && !*w->nomem; ++k) {
        const fe_func *fn = &w->fe->funcs[st.todo.v[k]];
        if (fn->tasks)
            st.found = true;
        else /* its calls, unparsed or into the runtime */
            clang_visitChildren(fn->cursor, unseen_visit, &st);
    }
    fe_vec_free(&st.todo);
    free(st.seen);
    return st.found || *w->nomem;
}

/* Does the region have a single/master/masked block (the producer of a task
 * system, even an empty one)?  Such a region is walked as one, and keeps
 * its refusals. */
static bool region_has_producer(const fe_region_input *in)
{
    const fe_file *f = in->file;
    if (f->pragmas[in->first_pragma].dir == FE_DIR_PARALLEL_MASTER) return true;
    fe_span sp = fe_cursor_span(in->stmt);
    for (int32_t i = in->first_pragma; i < f->npragmas && f->pragmas[i].begin < sp.end; ++i)
        if (f->pragmas[i].dir == FE_DIR_SINGLE || fe_is_producer_taskloop(&f->pragmas[i]))
            return true;
    return false;
}

/* Is d a refusal for a missing loop or recursion bound (fe_loop.c, fe_stmt.c)? */
static bool is_missing_bound(const ompdag_frontend_diag *d)
{
    return strstr(d->message, "loop_bound(N)") || strstr(d->message, "recursion_bound(N)");
}

/* After a refusal for a missing bound, the walk stopped there, and a construct
 * the model cannot represent at all would only show once the user has added
 * the bound.  A second walk with every missing bound taken as 1 reaches the
 * rest of the region; its refusals (other than bounds) join the first
 * run's, so one run names both.  Its graph is thrown away. */
static void name_past_missing_bounds(ompdag_frontend *fe, const fe_region_input *in, bool *nomem)
{
    bool missing = false;
    for (size_t i = 0; i < fe->diags.n && !missing; ++i)
        missing = is_missing_bound(&fe->diags.d[i]);
    if (!missing) return;
    int32_t loop_bound = fe->loop_bound, recursion_bound = fe->recursion_bound;
    if (fe->loop_bound <= 0) fe->loop_bound = 1;
    if (fe->recursion_bound <= 0) fe->recursion_bound = 1;
    size_t before = fe->diags.n;
    fe_region_output scratch;
    bool producer;
    walk_region(fe, in, &scratch, nomem, &producer);
    fe_graph_free(&scratch.g);
    free(scratch.deadline);
    fe->loop_bound = loop_bound, fe->recursion_bound = recursion_bound;
    size_t n = before; /* keep the new refusals that are not about bounds */
    for (size_t i = before; i < fe->diags.n; ++i)
        if (!is_missing_bound(&fe->diags.d[i])) fe->diags.d[n++] = fe->diags.d[i];
    fe->diags.n = n;
}

/* Drops the diagnostics located in the region's own text (its directives
 * and its statement); true when none is left.  Others — in a header scanned
 * for the first time during the walk, or in a helper elsewhere — are kept,
 * and the region stays refused: a file-level refusal must not vanish. */
static bool drop_region_diags(ompdag_frontend *fe, const fe_region_input *in)
{
    const fe_file *f = in->file;
    int32_t first = f->pragmas[in->first_pragma].line, last = fe_cursor_span(in->stmt).end_line;
    size_t n = 0;
    for (size_t i = 0; i < fe->diags.n; ++i) {
        const ompdag_frontend_diag *d = &fe->diags.d[i];
        bool mine = !strcmp(d->loc.file, f->name) && d->loc.line >= first && d->loc.line <= last;
        if (!mine) fe->diags.d[n++] = *d;
    }
    fe->diags.n = n;
    return n == 0;
}

/* Appends the region's diagnostics to the file's, once each. */
static bool merge_diags(fe_diag_store *all, const fe_diag_store *region)
{
    for (size_t i = 0; i < region->n; ++i) {
        const ompdag_frontend_diag *d = &region->d[i];
        bool dup = false;
        for (size_t k = 0; k < all->n && !dup; ++k)
            dup = all->d[k].severity == d->severity && all->d[k].loc.line == d->loc.line &&
                  all->d[k].loc.col == d->loc.col && !strcmp(all->d[k].loc.file, d->loc.file) &&
                  !strcmp(all->d[k].message, d->message);
        if (dup) continue;
        if (!ompdag_grow_array((void **)&all->d, sizeof *all->d, &all->cap, (int64_t)all->n + 1))
            return false;
        all->d[all->n++] = *d;
    }
    return true;
}

/* Each region is judged on its own diagnostics.  fe_diag reports a message
 * once per file, so a refusal in a helper that two regions inline would
 * otherwise be recorded by the first region only, and the second one
 * accepted; and a region is refused alone: the others still extract.  A
 * region without single/master/masked that surely creates no tasks is no
 * task system: whatever it uses (worksharing, a nested parallel, locks), it
 * gets no graph and no refusal, like a `parallel for` without tasks. */
bool fe_build_region(ompdag_frontend *fe, const fe_region_input *in, fe_region_output *out,
                     bool *nomem_flag)
{
    fe_diag_store file_diags = fe->diags;
    fe->diags = (fe_diag_store){0};
    bool producer = false;
    bool ok = walk_region(fe, in, out, nomem_flag, &producer);
    /* some refusals let the walk go on to name further constructs: any error
     * refuses the region (notes, such as a test not folded with the assumed
     * input, do not) */
    bool refused = !ok || error_count(&fe->diags) > 0;
    if (refused && !*nomem_flag) name_past_missing_bounds(fe, in, nomem_flag);
    if (refused && !*nomem_flag) {
        fe_call root = {in->func, NULL};
        walker w = {.fe = fe, .g = &out->g, .calls = &root, .nomem = nomem_flag};
        if (!region_has_producer(in) && !region_may_create_tasks(&w, in)) {
            refused = !drop_region_diags(fe, in); /* task-free: not a task system */
            producer = false;
        }
    }
    fe_diag_store region_diags = fe->diags;
    fe->diags = file_diags;
    if (!merge_diags(&fe->diags, &region_diags)) *nomem_flag = true;
    free(region_diags.d);
    if (refused || *nomem_flag) return false;
    out->has_graph = producer;
    tidy(&out->g);
    return true;
}

/* Frees a region's graph, with what the depend, lock and sharing steps hung
 * on it. */
void fe_graph_free(fe_graph *g)
{
    for (int32_t i = 0; i < g->n; ++i) {
        free(g->nodes[i].label);
        fe_vec_free(&g->nodes[i].succ);
        fe_depend_free(g->nodes[i].dep);
        fe_mutex_free(g->nodes[i].locks);
    }
    free(g->nodes);
    free(g->tasks);
    fe_share_free(g->share);
    fe_mutex_memo_free(g->lock_memo);
    memset(g, 0, sizeof *g);
}
