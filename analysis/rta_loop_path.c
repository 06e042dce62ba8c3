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
 * holds a repeated piece (a nested loop, or a loop in a task it creates)
 * becomes a group of pieces repeated the run's count: runs inside runs.
 */
#include <stdlib.h>
#include <string.h>

#include "condag_loops.h"
#include "rta_loop_replay.h"

enum { PATH_BUF_CAP = 1 << 20, PATH_PREFIX_CAP = 65536 };

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

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t p;
    return __builtin_mul_overflow(a, b, &p) ? UINT64_MAX : p;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t s;
    return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

static bool emit(path_out *o, int32_t v)
{
    if (o->n == PATH_BUF_CAP) return false;
    if (!grow_array((void **)&o->node, sizeof *o->node, &o->cap, o->n + 1)) return false;
    rta_path_piece *last = o->npieces ? &o->piece[o->npieces - 1] : NULL;
    if (!o->cut && last && last->at >= 0 && last->times == 1 && last->at + last->len == o->n) {
        last->len++, last->nodes++;
    } else {
        if (!grow_array((void **)&o->piece, sizeof *o->piece, &o->piece_cap, o->npieces + 1))
            return false;
        o->piece[o->npieces++] = (rta_path_piece){(int32_t)o->n, 1, 1, 1};
    }
    o->cut = false;
    o->node[o->n++] = v;
    return true;
}

/* The nodes of pieces [from, to), counting each item once (a group
 * header counts for its subtree). */
static uint64_t items_nodes(const path_out *o, int64_t from, int64_t to)
{
    uint64_t n = 0;
    for (int64_t k = from; k < to; k += 1 + (o->piece[k].at < 0 ? o->piece[k].len : 0))
        n = sat_add(n, o->piece[k].nodes);
    return n;
}

/* A run's segment (pieces seg_piece..) repeated count times: one node piece
 * when it is a plain list, else a group over its pieces (runs inside runs). */
static bool fold_run(path_out *o, const pframe *f, int64_t count)
{
    if (count == 1 || o->npieces == f->seg_piece) return true;
    bool plain = true;
    for (int64_t k = f->seg_piece; k < o->npieces; ++k)
        plain = plain && o->piece[k].at >= 0 && o->piece[k].times == 1;
    uint64_t nodes = sat_mul(items_nodes(o, f->seg_piece, o->npieces), (uint64_t)count);
    if (plain) {
        o->piece[f->seg_piece] =
            (rta_path_piece){f->seg_node, (int32_t)(o->n - f->seg_node), (uint64_t)count, nodes};
        o->npieces = f->seg_piece + 1;
    } else {
        if (!grow_array((void **)&o->piece, sizeof *o->piece, &o->piece_cap, o->npieces + 1))
            return false;
        int64_t span = o->npieces - f->seg_piece;
        memmove(o->piece + f->seg_piece + 1, o->piece + f->seg_piece,
                sizeof *o->piece * (size_t)span);
        o->piece[f->seg_piece] = (rta_path_piece){-1, (int32_t)span, (uint64_t)count, nodes};
        o->npieces++;
    }
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
        if (!fold_run(&p->out, &f, run->count)) return *ok = false, p->fail = "out of memory", f;
        f.run++, f.pos = 0;
    }
    if (f.nested) { /* the enclosing copy goes on at the nested loop's exit */
        if (p->top) return p->stack[--p->top];
        return *ok = false, p->fail = "internal error: a nested loop without its copy", f;
    }
    return (pframe){.st = {l->exit[i], L->q_exit}};
}

typedef struct group_scope {
    int64_t first, end; /* the group's pieces */
    uint64_t left;      /* repetitions still to expand */
} group_scope;

/* The flat prefix of the pieces (groups expanded with an explicit stack),
 * and the whole count. */
static bool expand_prefix(const path_out *o, ompdag_rta_result *r)
{
    r->path = malloc(sizeof *r->path * PATH_PREFIX_CAP);
    group_scope *st = NULL;
    int64_t depth = 0, cap = 0, i = 0, end = o->npieces;
    if (!r->path) return false;
    r->path_len = 0;
    r->path_nodes = items_nodes(o, 0, o->npieces);
    while (r->path_len < PATH_PREFIX_CAP) {
        if (i == end) {
            if (!depth) break;
            group_scope *s = &st[depth - 1];
            if (--s->left > 0) {
                i = s->first;
                continue;
            }
            i = s->end, --depth;
            end = depth ? st[depth - 1].end : o->npieces;
            continue;
        }
        const rta_path_piece *pc = &o->piece[i];
        if (pc->at < 0) { /* a group: its pieces, times over */
            if (!grow_array((void **)&st, sizeof *st, &cap, depth + 1)) return free(st), false;
            st[depth++] = (group_scope){i + 1, i + 1 + pc->len, pc->times};
            end = i + 1 + pc->len, i = i + 1;
            continue;
        }
        for (uint64_t t = 0; t < pc->times && r->path_len < PATH_PREFIX_CAP; ++t)
            for (int32_t a = 0; a < pc->len && r->path_len < PATH_PREFIX_CAP; ++a)
                r->path[r->path_len++] = o->node[pc->at + a];
        i++;
    }
    free(st);
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
