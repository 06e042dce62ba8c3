/*
 * plugin/fe_region.c — one parallel region (shared/spec/condag.md §1): the
 * directive chain on the region, the single/master block that is τ1, plain
 * code around it (a prefix before; after the single's barrier, a W node),
 * and the final tidy-up of C nodes left with a single successor.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fe_walk.h"

/* ---- the region ------------------------------------------------------------------------------ */

static bool is_single_chain(const fe_file *f, int32_t from, int32_t to)
{
    for (int32_t i = from; i <= to; ++i)
        if (f->pragmas[i].dir == FE_DIR_SINGLE) return true;
    return false;
}

/* The barrier before code that follows the single block: every thread
 * runs that code once all tasks are complete.  A W node waits for the
 * direct children of τ1 only, which is all tasks exactly when every task
 * awaits its own children (as for taskgroup). */
static bool region_barrier(walker *w, const fe_file *f, fe_span at)
{
    for (int32_t t = 1; t < w->g->ntasks; ++t) {
        int32_t bad = fe_unawaited_child(w, t);
        if (*w->nomem) return false;
        if (bad >= 0)
            return fe_refuse(
                w, f->name, at.line, at.col,
                "code after the single block runs after the barrier that waits for all "
                "tasks, but the task created at line %d does not wait for its child "
                "created at line %d; the model cannot express this wait",
                w->g->nodes[w->g->tasks[t].creator].line, w->g->nodes[bad].line);
    }
    return !w->flow->live ||
           fe_attach(w, 'W', f->name, at.line, at.col, fe_strdup("barrier"), true) >= 0;
}

/* What the parallel block has seen so far around its single/master. */
typedef struct block_state {
    bool producer;     /* the single/master block was walked */
    bool barrier;      /* a barrier (implicit or explicit) follows it */
    bool barrier_done; /* the W node for it exists */
} block_state;

/* One statement of the parallel block other than the single/master. */
static bool parallel_block_code(walker *w, const fe_file *f, CXCursor c, fe_span cs,
                                block_state *bs)
{
    if (clang_getCursorKind(c) == CXCursor_NullStmt) return true;
    if (fe_significant(w, c))
        return fe_refuse(w, f->name, cs.line, cs.col,
                         "tasks in a parallel region must be created inside single, master or "
                         "masked; otherwise every thread creates them");
    if (!fe_check_plain(w, c, cs)) return false;
    if (bs->producer && !bs->barrier_done) {
        if (!bs->barrier)
            return fe_refuse(
                w, f->name, cs.line, cs.col,
                "code after a master/masked (or single nowait) block runs on the other "
                "threads while its tasks run; not supported: move it into the block or "
                "put '#pragma omp barrier' before it");
        if (!region_barrier(w, f, cs)) return false;
        bs->barrier_done = true;
    }
    /* Code before the block runs on every thread at once: a sequential
     * prefix of τ1 over-approximates the delay it causes. */
    return fe_plain(w, c);
}

/* The parallel body with no single/master on it directly: a block holding
 * one single/master construct and plain code around it. */
static bool walk_parallel_block(walker *w, const fe_file *f, const fe_pragma *par, CXCursor s,
                                fe_span sp, bool *has_producer)
{
    if (clang_getCursorKind(s) != CXCursor_CompoundStmt) {
        if (fe_significant(w, s))
            return fe_refuse(w, f->name, par->line, par->col,
                             "tasks in a parallel region must be created inside single, master or "
                             "masked; otherwise every thread creates them");
        return true;
    }
    cursor_list ch;
    if (!fe_children(w, s, &ch)) return false;
    bool ok = true;
    block_state bs = {false, false, false};
    unsigned lo = sp.begin;
    for (int32_t i = 0; ok && i < ch.n; ++i) {
        fe_span cs = fe_cursor_span(ch.c[i]);
        int32_t first = fe_pragma_lower_bound(f, lo + 1), last = first - 1;
        while (last + 1 < f->npragmas && f->pragmas[last + 1].begin < cs.begin)
            last++;
        int32_t single = -1;
        for (int32_t k = first; ok && k <= last; ++k) {
            const fe_pragma *p = &f->pragmas[k];
            if (p->dir == FE_DIR_SINGLE)
                single = k;
            else if (p->dir == FE_DIR_BARRIER)
                bs.barrier = bs.barrier || bs.producer;
            else if (p->dir != FE_DIR_IGNORED_STANDALONE && p->dir != FE_DIR_OUTSIDE)
                ok = fe_refuse(w, f->name, p->line, p->col,
                               "'#pragma omp %s' in a parallel region outside single/master is not "
                               "supported",
                               p->name);
        }
        if (ok && single >= 0) {
            const fe_pragma *sg = &f->pragmas[single];
            if (*has_producer)
                ok = fe_refuse(w, f->name, sg->line, sg->col,
                               "more than one single/master construct in one parallel region is "
                               "not supported");
            *has_producer = bs.producer = true;
            bs.barrier = !strcmp(sg->name, "single") && !fe_pragma_clause(sg, "nowait");
            ok = ok && fe_walk_bare(w, ch.c[i], cs, 0);
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

bool fe_build_region(ompdag_frontend *fe, const fe_region_input *in, fe_region_output *out,
                     bool *nomem_flag)
{
    const fe_file *f = in->file;
    const fe_pragma *par = &f->pragmas[in->first_pragma];
    fe_span sp = fe_cursor_span(in->stmt);
    fe_flow flow = {{0}, true, -1};
    fe_call root = {in->func, NULL};
    walker w = {fe, &out->g,    0,       false,     &flow,    NULL, &root,
                0,  nomem_flag, f->name, par->line, par->col, sp};
    memset(out, 0, sizeof *out);
    long v;
    const fe_clause *nt = fe_pragma_clause(par, "num_threads");
    if (nt && fe_literal_value(nt->arg, &v) && v > 0 && v < INT32_MAX) out->threads = (int32_t)v;
    out->deadline = region_deadline(f, in);
    if (fe_new_task(&w, -1, false) < 0) return false;
    bool ok = true, producer = false;
    for (int32_t i = in->first_pragma + 1; ok && i <= in->last_pragma; ++i) {
        const fe_pragma *p = &f->pragmas[i];
        if (p->dir != FE_DIR_SINGLE && p->dir != FE_DIR_DEADLINE && p->dir != FE_DIR_RESOURCE)
            ok = fe_refuse(&w, f->name, p->line, p->col,
                           "'#pragma omp %s' directly on a parallel region is not supported",
                           p->name);
    }
    if (!ok) {
    } else if (par->dir == FE_DIR_PARALLEL_OTHER) {
        if (fe_significant(&w, in->stmt))
            ok = fe_refuse(&w, f->name, par->line, par->col,
                           "tasks inside '#pragma omp %s' are created by every thread or "
                           "iteration; not supported",
                           par->name);
    } else if (par->dir == FE_DIR_PARALLEL_MASTER ||
               is_single_chain(f, in->first_pragma, in->last_pragma)) {
        producer = true;
        ok = fe_walk_bare(&w, in->stmt, sp, 0);
    } else {
        ok = walk_parallel_block(&w, f, par, in->stmt, sp, &producer);
    }
    ok = ok && (!producer || fe_finish_task(&w, sp));
    fe_vec_free(&flow.tails);
    if (!ok) return false;
    out->has_graph = producer;
    tidy(&out->g);
    return true;
}
