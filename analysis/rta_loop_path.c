/*
 * analysis/rta_loop_path.c — the critical path of a graph with compact loops
 * as pieces "(nodes) × count", from the runs of rta_loop_replay.c
 * (docs/compact.md, "The worst flow").
 *
 * Source: Alg1's path replay (docs/condag.md §3; rta_compact.c's
 * replay_path) on the tuples of rta_loop_lx.c.  The path follows the states
 * A and B (and Cw/Dw until their W node) from the root: at a T node it skips
 * the child, ends in it, or runs through it to its sink and comes back at
 * the next W (the continuation waits on a stack, as deep as the nesting of
 * such returns, not recursion).  A loop entered on the path contributes each
 * run's iteration once, as a piece repeated the run's count, so the path of
 * 10^15 iterations costs one walk per run.  A run whose iteration itself
 * holds a repeated piece (runs inside runs) is not folded: the path is then
 * left out, with that reason.
 */
#include <stdlib.h>
#include <string.h>

#include "condag_loops.h"
#include "rta_loop_replay.h"

enum { PATH_BUF_CAP = 1 << 20, PATH_PREFIX_CAP = 65536, SEGMENT_FLAT_CAP = 4096 };

typedef struct pframe {
    bool loop;            /* a loop's runs, else a node state */
    bool nested;          /* loop: in a loop body; when done, back to the frame below */
    const loop_replay *L; /* loop: its runs (NULL: look them up by the test's state) */
    wstate st;            /* node: its state; loop: the test and its entry quantity */
    int32_t run, pos;     /* loop: the next run and position in its walk */
    int32_t seg_node;     /* loop: where the current run's segment starts in the buffer */
    int32_t seg_piece;    /* … and in the pieces */
} pframe;

typedef struct path_out {
    int32_t *node;
    int64_t n, cap;
    rta_path_piece *piece;
    int64_t npieces, piece_cap;
    bool cut; /* the next node starts a new piece */
} path_out;

static bool emit(path_out *o, int32_t v)
{
    if (o->n == PATH_BUF_CAP) return false;
    if (!grow_array((void **)&o->node, sizeof *o->node, &o->cap, o->n + 1)) return false;
    rta_path_piece *last = o->npieces ? &o->piece[o->npieces - 1] : NULL;
    if (!o->cut && last && last->times == 1 && last->at + last->len == o->n) {
        last->len++;
    } else {
        if (!grow_array((void **)&o->piece, sizeof *o->piece, &o->piece_cap, o->npieces + 1))
            return false;
        o->piece[o->npieces++] = (rta_path_piece){(int32_t)o->n, 1, 1};
    }
    o->cut = false;
    o->node[o->n++] = v;
    return true;
}

/* A segment holding repeated pieces (a loop in a task its iteration
 * creates) written out flat, when it has at most SEGMENT_FLAT_CAP nodes. */
static bool flatten_segment(path_out *o, const pframe *f)
{
    int64_t total = 0;
    for (int64_t k = f->seg_piece; k < o->npieces; ++k) {
        const rta_path_piece *p = &o->piece[k];
        if (p->times > SEGMENT_FLAT_CAP || (total += p->len * (int64_t)p->times) > SEGMENT_FLAT_CAP)
            return false;
    }
    int32_t *flat = malloc(sizeof *flat * (size_t)(total ? total : 1));
    if (!flat || !grow_array((void **)&o->node, sizeof *o->node, &o->cap, f->seg_node + total))
        return free(flat), false;
    int64_t at = 0;
    for (int64_t k = f->seg_piece; k < o->npieces; ++k)
        for (uint64_t t = 0; t < o->piece[k].times; ++t)
            for (int32_t a = 0; a < o->piece[k].len; ++a)
                flat[at++] = o->node[o->piece[k].at + a];
    memcpy(o->node + f->seg_node, flat, sizeof *flat * (size_t)total);
    free(flat);
    o->n = f->seg_node + total;
    o->piece[f->seg_piece] = (rta_path_piece){f->seg_node, (int32_t)total, 1};
    o->npieces = f->seg_piece + 1;
    return true;
}

/* A run's segment (pieces seg_piece..) becomes one piece repeated count
 * times; false when it holds repeated pieces too long to write out. */
static bool fold_run(path_out *o, const pframe *f, int64_t count)
{
    if (count == 1 || o->n == f->seg_node) return true;
    for (int64_t k = f->seg_piece; k < o->npieces; ++k)
        if (o->piece[k].times != 1) return flatten_segment(o, f) && fold_run(o, f, count);
    o->piece[f->seg_piece] =
        (rta_path_piece){f->seg_node, (int32_t)(o->n - f->seg_node), (uint64_t)count};
    o->npieces = f->seg_piece + 1;
    o->cut = true;
    return true;
}

typedef struct path_walk {
    replay_ctx *c;
    path_out out;
    pframe *stack;
    int64_t top, cap;
    const char *fail;
} path_walk;

static bool push(path_walk *p, pframe f)
{
    if (!grow_array((void **)&p->stack, sizeof *p->stack, &p->cap, p->top + 1)) return false;
    p->stack[p->top++] = f;
    return true;
}

/* A node state outside loop bodies: emit it if on the path, then where the
 * path goes.  Returns the next frame; *stop at the path's end. */
static pframe node_step(path_walk *p, pframe f, bool *ok)
{
    const ompdag_condag *g = p->c->g;
    int32_t v = f.st.v;
    int q = rta_replay_normal_q(g, v, f.st.q);
    if ((q == QA || q == QB) && !emit(&p->out, v)) *ok = false, p->fail = "the path is too long";
    wstate s, j;
    rta_replay_decide(p->c, v, f.st.q, &s, &j);
    if (j.v >= 0 && j.q == QA) { /* ends in the child: nothing waits (an A state's stack holds */
        p->top = 0;              /* only loops, whose rest is off the path) */
        return (pframe){.st = j};
    }
    if (j.v >= 0 && j.q == QB) { /* through the child, back at the next W */
        if (!push(p, (pframe){.st = s})) *ok = false, p->fail = "out of memory";
        return (pframe){.st = j};
    }
    return (pframe){.st = s};
}

/* A loop's runs from f's position; returns the next frame. */
static pframe loop_step(path_walk *p, pframe f, bool *ok)
{
    const condag_loops *l = p->c->g->loops;
    int32_t i = l->test_of[f.st.v];
    const loop_replay *L = f.L ? f.L : rta_loop_replay_of(p->c, i, f.st.q);
    if (!L) return *ok = false, p->fail = p->c->why, f;
    f.L = L;
    while (f.run < L->nruns) {
        const loop_run *run = &L->run[f.run];
        if (f.pos == 0)
            f.seg_node = (int32_t)p->out.n, f.seg_piece = (int32_t)p->out.npieces,
            p->out.cut = true;
        for (; f.pos < run->w.n; ++f.pos) {
            int q = run->w.q[f.pos];
            wstate j = run->w.child[f.pos];
            if (run->w.inner[f.pos]) { /* a nested loop: its runs (its test copies), then back */
                pframe in = {.loop = true,
                             .nested = true,
                             .L = run->w.inner[f.pos],
                             .st = {run->w.v[f.pos], (int8_t)q}};
                f.pos++;
                if (!push(p, f)) *ok = false, p->fail = "out of memory";
                return in;
            }
            if ((q == QA || q == QB) && !emit(&p->out, run->w.v[f.pos]))
                return *ok = false, p->fail = "the path is too long", f;
            if (j.v >= 0 && j.q == QA) { /* ends in it: the rest is off the path */
                p->top = 0;
                return (pframe){.st = j};
            }
            if (j.v >= 0 && j.q == QB && (q == QA || q == QB)) {
                f.pos++;
                if (!push(p, f)) *ok = false, p->fail = "out of memory";
                return (pframe){.st = j};
            }
        }
        if (!fold_run(&p->out, &f, run->count))
            return *ok = false, p->fail = "its path repeats a block inside a repeated block", f;
        f.run++, f.pos = 0;
    }
    if (f.nested) { /* the enclosing copy goes on at the nested loop's exit */
        if (p->top) return p->stack[--p->top];
        return *ok = false, p->fail = "internal error: a nested loop without its copy", f;
    }
    return (pframe){.st = {l->exit[i], L->q_exit}};
}

/* The flat prefix of the pieces, and the whole count. */
static bool expand_prefix(const path_out *o, ompdag_rta_result *r)
{
    r->path = malloc(sizeof *r->path * PATH_PREFIX_CAP);
    if (!r->path) return false;
    r->path_len = 0;
    r->path_nodes = 0;
    for (int64_t k = 0; k < o->npieces; ++k) {
        const rta_path_piece *pc = &o->piece[k];
        uint64_t n;
        if (__builtin_mul_overflow((uint64_t)pc->len, pc->times, &n) ||
            __builtin_add_overflow(r->path_nodes, n, &r->path_nodes))
            r->path_nodes = UINT64_MAX;
        for (uint64_t t = 0; t < pc->times && r->path_len < PATH_PREFIX_CAP; ++t)
            for (int32_t a = 0; a < pc->len && r->path_len < PATH_PREFIX_CAP; ++a)
                r->path[r->path_len++] = o->node[pc->at + a];
    }
    return true;
}

bool rta_replay_path(replay_ctx *c, ompdag_rta_result *r)
{
    const ompdag_condag *g = c->g;
    path_walk p = {.c = c};
    pframe cur = {.st = {g->task_source[g->root], QA}};
    bool ok = true;
    while (ok) {
        if (!cur.loop && cur.st.v < 0) { /* a task's sink: back to the waiting continuation */
            if (!p.top) break;
            cur = p.stack[--p.top];
            continue;
        }
        if (!cur.loop && g->loops->test_of[cur.st.v] >= 0) cur.loop = true, cur.run = cur.pos = 0;
        cur = cur.loop ? loop_step(&p, cur, &ok) : node_step(&p, cur, &ok);
    }
    if (ok && !expand_prefix(&p.out, r)) ok = false, p.fail = "out of memory";
    if (ok) {
        r->piece = p.out.piece, r->npieces = (int32_t)p.out.npieces, r->piece_node = p.out.node;
        p.out.piece = NULL, p.out.node = NULL;
    } else {
        c->why = p.fail;
    }
    free(p.out.node), free(p.out.piece), free(p.stack);
    return ok;
}
