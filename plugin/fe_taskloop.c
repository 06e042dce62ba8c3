/*
 * plugin/fe_taskloop.c — `taskloop` (OpenMP 5.2 §12.6; combined forms
 * §17.4) in the con-DAG of shared/spec/condag.md §1, with the existing node
 * kinds.
 *
 * The encountering task splits the loop's N logical iterations into chunks
 * and creates one explicit task per chunk; unless `nogroup`, the construct
 * is wrapped in an implicit taskgroup, which waits for those tasks and
 * their descendants.  Model:
 *
 *   encountering task:  [C] T(chunk 1) [C] T(chunk 2) … [C] T(chunk K)  W(end taskloop)
 *   each chunk task:    the loop body, as at most S iterations
 *
 * K (chunks) and S (iterations per chunk) are upper bounds from §12.6:
 *   - grainsize(g): each chunk holds at least min(g, N) and fewer than 2g
 *     iterations: K <= max(1, N / g), S <= min(N, 2g - 1); with the
 *     `strict` modifier, exactly g but the last: K = ceil(N / g), S <= g;
 *   - num_tasks(n): min(n, N) chunks, each of at least one iteration:
 *     K = min(n, N), S <= N - K + 1 (libomp balances them, the spec does
 *     not require it);
 *   - neither: implementation-defined, at least one iteration per chunk:
 *     K <= N, S <= N.
 * N is the exact trip count of the `for` (fe_loop.c's rules), or the most
 * iterations `#pragma ompdag loop_bound(N)` / `--loop-bound N` allows; every
 * bound above grows with N, so the largest N covers the shorter runs.
 * When K is not exact, a C node ("taskloop chunk") before each chunk may
 * leave the chain (as at-most loops do, fe_loop.c): a run with fewer chunks
 * is a flow of the graph.  A body without task scheduling points folds into
 * one node whatever S is (its WCET is measured); a body with some is
 * unrolled as at most S iterations.  The model's volume (up to K·S bodies)
 * over-approximates the N bodies the program runs: the bound only grows.
 *
 * The W node waits for the chunk tasks (W-edges, condag.md §1).  Like an
 * explicit `taskgroup` (fe_stmt.c), that is the implicit taskgroup only when
 * every descendant of a chunk is awaited by its own parent; otherwise the
 * taskloop is refused.  The W-edges also order siblings created before the
 * taskloop: extra edges, which only raise the bound.  `if(false)` makes
 * every chunk task undeferred: T then a zero-cost W, as for `task`; those W
 * nodes then stand for the taskgroup's wait too (end_taskgroup).
 *
 * Runtime side: libomp creates the chunk tasks in __kmpc_taskloop with the
 * taskloop's return address, so `ompdag annotate` maps each one to the T
 * node of its creator at the taskloop's line, in creation order.  Above
 * 10 × (team size) chunks libomp splits the creation recursively (internal
 * tasks at the same line create the chunks): such runs do not map onto
 * this flat chain, and annotate reports their segments as unmapped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_walk.h"

/* The chunking of one taskloop: at most `chunks` tasks (exactly, when
 * `exact`) of at most `per_chunk` iterations each. */
typedef struct tl_shape {
    long long chunks, per_chunk;
    bool exact;
    bool per_chunk_known; /* false: N unknown, the body must fold (num_tasks only) */
} tl_shape;

bool fe_is_producer_taskloop(const fe_pragma *p)
{
    return p->dir == FE_DIR_TASKLOOP &&
           (!strncmp(p->name, "master ", 7) || !strncmp(p->name, "masked ", 7));
}

/* Clauses of taskloop, taskloop simd and the combined parallel / masked
 * forms.  Data-sharing, reduction and simd clauses change no ordering. */
static bool check_clauses(walker *w, const fe_file *f, const fe_pragma *p)
{
    static const char *const allowed[] = {
        "if",        "final",        "untied",      "mergeable",   "priority", "shared",
        "private",   "firstprivate", "lastprivate", "default",     "allocate", "in_reduction",
        "reduction", "grainsize",    "num_tasks",   "nogroup",     "collapse", "safelen",
        "simdlen",   "linear",       "aligned",     "nontemporal", "order",    "num_threads",
        "proc_bind", "copyin",       "filter",      NULL};
    for (int32_t i = 0; i < p->nclauses; ++i) {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; ++a)
            ok = !strcmp(p->clauses[i].name, *a);
        if (!ok)
            return fe_refuse(w, f->name, p->line, p->col,
                             "unsupported clause '%s' on '#pragma omp %s'", p->clauses[i].name,
                             p->name);
    }
    long v;
    if (fe_pragma_clause(p, "collapse") &&
        !(fe_clause_value(w->fe, f, p, "collapse", &v) && v == 1))
        return fe_refuse(w, f->name, p->line, p->col,
                         "'#pragma omp %s' with collapse: the chunks of the collapsed iteration "
                         "space are not modelled; collapse the loops by hand or drop the clause",
                         p->name);
    return true;
}

/* Does clause `name` of p carry the `strict` modifier (OpenMP 5.1)? */
static bool is_strict(const fe_pragma *p, const char *name)
{
    const fe_clause *c = fe_pragma_clause(p, name);
    return c && c->arg && !strncmp(c->arg, "strict", 6) && strchr(c->arg, ':');
}

/* The chunking for at most n iterations (n < 0: unknown) from the clauses
 * (the header comment's rules). */
static tl_shape shape_of(walker *w, const fe_file *f, const fe_pragma *p, long long n, bool n_exact)
{
    long v;
    tl_shape sh = {-1, -1, false, n >= 0};
    if (fe_pragma_clause(p, "grainsize") && fe_clause_value(w->fe, f, p, "grainsize", &v) &&
        v > 0) {
        long long g = v;
        if (n < 0) return sh;
        if (is_strict(p, "grainsize")) {
            sh.chunks = n / g + (n % g != 0);
            sh.per_chunk = n < g ? n : g;
            sh.exact = n_exact;
        } else {
            sh.chunks = n >= g ? n / g : (n > 0);
            sh.per_chunk = g <= (n + 1) / 2 ? 2 * g - 1 : n;
        }
    } else if (fe_pragma_clause(p, "num_tasks") && fe_clause_value(w->fe, f, p, "num_tasks", &v) &&
               v > 0) {
        long long k = v;
        sh.chunks = n >= 0 && n < k ? n : k;
        sh.exact = n_exact;
        sh.per_chunk = n >= 0 ? n - sh.chunks + (n > 0) : -1;
    } else if (n >= 0) {
        sh.chunks = n;
        sh.per_chunk = n;
    }
    return sh;
}

/* Does the `if` clause leave the chunk tasks undeferred?  Anything but a
 * constant true (and an `if(parallel: …)` of a combined form, which is the
 * parallel's) counts as false: undeferred is the conservative side. */
static bool undeferred(walker *w, const fe_file *f, const fe_pragma *p)
{
    const fe_clause *c = fe_pragma_clause(p, "if");
    long v;
    if (w->in_final) return true;
    if (!c) return false;
    if (c->arg && !strncmp(c->arg, "parallel", 8) && strchr(c->arg, ':')) return false;
    return !(fe_clause_value(w->fe, f, p, "if", &v) && v != 0);
}

/* The T node for chunk k: the open N node becomes it (its code runs before
 * the creation), else a new one after the flow. */
static int32_t chunk_node(walker *w, const fe_file *f, const fe_pragma *p, long long k)
{
    char text[96];
    snprintf(text, sizeof text, "taskloop chunk %lld", k + 1);
    char *label = fe_strdup(text);
    if (!label) return fe_nomem(w), -1;
    int32_t open = w->flow->open;
    if (open < 0 || w->g->nodes[open].kind != 'N')
        return fe_attach(w, 'T', f->name, p->line, p->col, label, false);
    fe_node *nd = &w->g->nodes[open];
    nd->kind = 'T';
    nd->file = f->name;
    nd->line = p->line;
    nd->col = p->col;
    free(nd->label);
    nd->label = label;
    return fe_flow_single(w, w->flow, open, false) ? open : -1;
}

/* One chunk task: the body, folded or as at most sh->per_chunk iterations. */
static bool chunk_task(walker *w, const fe_file *f, const fe_pragma *p, CXCursor loop,
                       CXCursor body, fe_span sp, const tl_shape *sh, long long k)
{
    long v;
    const fe_clause *fin = fe_pragma_clause(p, "final");
    bool child_final =
        w->in_final || (fin && !(fe_clause_value(w->fe, f, p, "final", &v) && v == 0));
    int32_t t_node = chunk_node(w, f, p, k);
    if (t_node < 0) return false;
    int32_t t = fe_new_task(w, t_node, fe_pragma_clause(p, "untied") != NULL);
    if (t < 0) return false;
    w->g->nodes[t_node].creates = t;
    fe_flow cf = {{0}, true, -1};
    fe_jump tf = {JUMP_TASK, {0}, {0}, {0}, -1, false, 0, NULL, loop, false, clang_getNullCursor(),
                  NULL};
    walker cw = *w;
    cw.task = t;
    cw.in_final = child_final;
    cw.flow = &cf;
    cw.jumps = &tf;
    fe_span bs = fe_cursor_span(body);
    bool ok = fe_significant(&cw, body) ? fe_unroll_at_most(&cw, body, sp, sh->per_chunk)
                                        : fe_check_plain(&cw, body, bs) && fe_plain(&cw, body);
    ok = ok && fe_flow_union(&cw, &cf, &tf.rets) && fe_finish_task(&cw, bs);
    fe_vec_free(&cf.tails);
    fe_vec_free(&tf.rets);
    if (!ok) return false;
    if (!undeferred(w, f, p)) return true;
    return fe_attach(w, 'W', f->name, p->line, p->col, fe_strdup("wait for undeferred chunk"),
                     true) >= 0;
}

/* The chunks, each after a C node that may leave the chain when their
 * number is an upper bound. */
static bool chunks(walker *w, const fe_file *f, const fe_pragma *p, CXCursor loop, CXCursor body,
                   fe_span sp, const tl_shape *sh)
{
    fe_vec exits = {0};
    bool ok = true;
    for (long long k = 0; ok && k < sh->chunks && w->flow->live; ++k) {
        if (!sh->exact) {
            int32_t c = fe_attach(w, 'C', f->name, p->line, p->col,
                                  fe_strdup("taskloop: more chunks?"), false);
            ok = c >= 0 && (fe_vec_push(&exits, c) || fe_nomem(w));
        }
        ok = ok && chunk_task(w, f, p, loop, body, sp, sh, k);
    }
    ok = ok && fe_flow_union(w, w->flow, &exits);
    fe_vec_free(&exits);
    return ok;
}

/* The implicit taskgroup's wait, when every chunk's descendants are awaited
 * by their own parents (the condition fe_stmt.c's taskgroup checks).  With
 * undeferred chunks the W node after each chunk already waits for it (and so
 * for its descendants): no W node of its own, which annotate could not tell
 * from the last chunk's wait (both at the taskloop's line, and the runtime
 * reports the taskgroup's end there whether or not the chunks ran
 * undeferred). */
static bool end_taskgroup(walker *w, const fe_file *f, const fe_pragma *p, int32_t first_task,
                          bool chunks_awaited)
{
    int32_t bad = -1; /* chunks and their descendants: no implicit task */
    fe_unawaited_since(w, first_task, &bad);
    if (*w->nomem) return false;
    if (bad >= 0)
        return fe_refuse(w, f->name, p->line, p->col,
                         "the implicit taskgroup of '#pragma omp %s' waits for all "
                         "descendants, but a task it creates does not wait (taskwait) for its "
                         "child task created at line %d; the model cannot express this wait "
                         "(add a taskwait, or nogroup with an explicit wait)",
                         p->name, w->g->nodes[bad].line);
    if (!w->flow->live || chunks_awaited) return true;
    return fe_attach(w, 'W', f->name, p->line, p->col, fe_strdup("end taskloop"), true) >= 0;
}

/* The loop's header: N (exact or at most), and the refusal when neither the
 * chunks nor their size can be bounded. */
static bool read_trip(walker *w, const fe_file *f, const fe_pragma *p, CXCursor s, fe_span sp,
                      int32_t loop_bound, long long *n, bool *exact)
{
    *n = fe_for_trip_count(w, s, sp);
    *exact = *n >= 0;
    if (*n == -2)
        return fe_refuse(w, f->name, sp.line, sp.col,
                         "the loop of '#pragma omp %s' runs more than %d times; it cannot be "
                         "unrolled into the graph",
                         p->name, w->fe->unroll_limit);
    if (*n < 0) *n = loop_bound > 0 ? loop_bound : w->fe->loop_bound > 0 ? w->fe->loop_bound : -1;
    return true;
}

bool fe_walk_taskloop(walker *w, const fe_file *f, const fe_pragma *p, CXCursor s, fe_span sp,
                      int32_t loop_bound)
{
    if (!check_clauses(w, f, p)) return false;
    if (clang_getCursorKind(s) != CXCursor_ForStmt)
        return fe_refuse(w, f->name, p->line, p->col,
                         "'#pragma omp %s' must be followed by a for loop", p->name);
    if (!w->flow->live) return true;
    long long n;
    bool n_exact;
    if (!read_trip(w, f, p, s, sp, loop_bound, &n, &n_exact)) return false;
    tl_shape sh = shape_of(w, f, p, n, n_exact);
    cursor_list ch;
    if (!fe_children(w, s, &ch)) return false;
    CXCursor body = ch.c[ch.n - 1];
    free(ch.c);
    bool folds = !fe_significant(w, body);
    if (sh.chunks < 0 || (!folds && !sh.per_chunk_known))
        return fe_refuse(w, f->name, sp.line, sp.col,
                         "the trip count of the loop of '#pragma omp %s' is not a compile-time "
                         "constant, so its chunks cannot be bounded: add '#pragma ompdag "
                         "loop_bound(N)' before it or pass --loop-bound N",
                         p->name);
    if (sh.chunks > w->fe->unroll_limit || (!folds && sh.per_chunk > w->fe->unroll_limit))
        return fe_refuse(w, f->name, p->line, p->col,
                         "'#pragma omp %s' may create %lld tasks of up to %lld iterations, more "
                         "than the unroll limit %d; give it num_tasks or a larger grainsize",
                         p->name, sh.chunks, sh.per_chunk, w->fe->unroll_limit);
    int32_t first_task = w->g->ntasks;
    w->g->taskgroups++; /* no shared task bodies inside (fe_share.c), as in taskgroup */
    bool ok = chunks(w, f, p, s, body, sp, &sh);
    w->g->taskgroups--;
    if (!ok) return false;
    return fe_pragma_clause(p, "nogroup") ||
           end_taskgroup(w, f, p, first_task, undeferred(w, f, p) && sh.chunks > 0);
}

bool fe_walk_taskloop_chain(walker *w, const fe_file *f, const fe_pragma *p,
                            const fe_pragma *const *chain, int32_t n, CXCursor s, fe_span sp)
{
    int32_t loop_bound = 0;
    for (int32_t i = 0; i < n; ++i) {
        const fe_pragma *q = chain[i];
        long v;
        if (q->dir == FE_DIR_LOOP_BOUND) {
            if (!fe_clause_value(w->fe, f, q, "", &v) || v < 0 || v > w->fe->unroll_limit)
                return fe_refuse(w, f->name, q->line, q->col,
                                 "'#pragma ompdag loop_bound' needs a constant expression between "
                                 "0 and %d",
                                 w->fe->unroll_limit);
            loop_bound = (int32_t)v;
        } else if (q->dir != FE_DIR_DEADLINE && q->dir != FE_DIR_RESOURCE &&
                   q->dir != FE_DIR_ASSUME && q->dir != FE_DIR_OMPDAG_UNKNOWN) {
            return fe_refuse(w, f->name, q->line, q->col,
                             "'#pragma %s %s' directly after '#pragma omp %s' is not supported",
                             fe_pragma_ns(q), q->name, p->name);
        }
    }
    return fe_walk_taskloop(w, f, p, s, sp, loop_bound);
}
