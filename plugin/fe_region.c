/*
 * plugin/fe_region.c — one parallel region (shared/spec/condag.md §1): the
 * directive chain on the region (stacked single/master and task
 * directives), the single/master block that is τ1, plain code before it (a
 * prefix), code after the barrier that ends the graph (outside the con-DAG),
 * and the final tidy-up of C nodes left with a single successor.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

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
        } else if (p->dir == FE_DIR_SINGLE) {
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
                             fe_pragma_ns(p), p->name,
                             p->dir == FE_DIR_TASK ? ": every thread creates the task"
                             : p->dir == FE_DIR_REFUSED &&
                                     (!strcmp(p->name, "for") || !strncmp(p->name, "for ", 4))
                                 ? ": the iterations of a worksharing loop, and the tasks they "
                                   "create, are spread over every thread of the team"
                                 : "");
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

static size_t error_count(const ompdag_frontend *fe)
{
    size_t n = 0;
    for (size_t i = 0; i < fe->diags.n; ++i)
        n += fe->diags.d[i].severity == OMPDAG_DIAG_ERROR;
    return n;
}

bool fe_build_region(ompdag_frontend *fe, const fe_region_input *in, fe_region_output *out,
                     bool *nomem_flag)
{
    const fe_file *f = in->file;
    const fe_pragma *par = &f->pragmas[in->first_pragma];
    fe_span sp = fe_cursor_span(in->stmt);
    fe_flow flow = {{0}, true, -1};
    fe_call root = {in->func, NULL};
    walker w = {fe,         &out->g, 0,         false,    &flow, NULL, &root, 0,
                nomem_flag, f->name, par->line, par->col, sp,    NULL, NULL};
    memset(out, 0, sizeof *out);
    size_t errors_before = error_count(fe);
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
    for (int32_t i = in->first_pragma + 1; ok && i <= in->last_pragma; ++i) {
        const fe_pragma *p = &f->pragmas[i];
        if (p->dir == FE_DIR_DEADLINE || p->dir == FE_DIR_RESOURCE || p->dir == FE_DIR_ASSUME)
            continue;
        if (p->dir == FE_DIR_SINGLE && !single && par->dir == FE_DIR_PARALLEL) {
            single = true;
        } else if (single && !p->standalone && n < 8 && p->dir != FE_DIR_SINGLE) {
            chain[n++] = p;
        } else {
            ok = fe_refuse(&w, f->name, p->line, p->col,
                           "'#pragma %s %s' directly on '#pragma omp %s' is not supported%s",
                           fe_pragma_ns(p), p->name, par->name,
                           p->dir == FE_DIR_TASK || p->dir == FE_DIR_TASKGROUP
                               ? ": every thread would run it; put it inside single or master"
                               : "");
        }
    }
    if (!ok) {
    } else if (par->dir == FE_DIR_PARALLEL_OTHER) {
        if (fe_significant(&w, in->stmt))
            ok = fe_refuse(&w, f->name, par->line, par->col,
                           "tasks inside '#pragma omp %s' are created by every thread or "
                           "iteration; not supported",
                           par->name);
    } else if (single) {
        producer = true;
        ok = n > 0 ? fe_walk_prefixed(&w, f, chain, n, in->stmt, sp)
                   : fe_walk_bare(&w, in->stmt, sp, 0);
    } else {
        ok = walk_parallel_block(&w, f, par, in->stmt, sp, &producer);
    }
    ok = ok && (!producer || fe_finish_task(&w, sp));
    ok = ok && fe_assume_region_end(&w);
    fe_vec_free(&flow.tails);
    /* Some refusals let the walk go on to name further constructs: any
     * error recorded during the walk refuses the region (notes, such as a
     * test not folded with the assumed input, do not). */
    if (!ok || error_count(fe) > errors_before) return false;
    out->has_graph = producer;
    tidy(&out->g);
    return true;
}
