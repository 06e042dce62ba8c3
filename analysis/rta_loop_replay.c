/*
 * analysis/rta_loop_replay.c — a compact loop's iterations in the worst
 * flow as runs of equal walks, without unrolling it (docs/compact.md, "The
 * worst flow"); rta_loop_flow.c counts the flow and rta_loop_path.c its path
 * from them.
 *
 * Source: Alg1 of Sun et al. (Chinese Journal of Computers 2020; docs/condag.md
 * §3) on the loops' at-most unrolling, replayed top-down as rta_exact.c's
 * build_witness does, but on the tuples of rta_loop_lx.c, so that the flow
 * replayed is the one whose vol and len rta_loop_witness.c reports.  Outside
 * loop bodies a node's decisions depend on its state (v, q) only, as in
 * rta_compact.c.  The copy of a loop body with r iterations left is entered
 * with the values Y_{r−1} = S_{r−1} ⊗ x of the next test (the doubling, for
 * any r); its decisions depend on Y_{r−1}, whose components grow at different
 * rates, so they settle only after a transient that the constants set.  The
 * replay therefore walks the iteration at r, then gallops and bisects over r
 * for the first iteration whose walk differs, and emits runs of equal walks.
 * That a run is an interval is a guess; what makes the result right is the
 * check after it: the runs' tuples, count × share, plus the exit's, must add
 * up to the loop test's tuple.  Equal tuples mean the runs form a (flow, path)
 * pair attaining the maximum, i.e. a worst flow with the reported vol and len
 * (each run repeats a valid iteration that leaves in the quantity it was
 * entered with).  A loop nested in the body is replayed per copy, with its
 * exit's values in that copy; its runs belong to the copy's walk (compared
 * and added up with it).  That recursion follows the nesting of loops and
 * stops at LOOP_DEPTH_CAP.
 */
#include <stdlib.h>
#include <string.h>

#include "condag_loops.h"
#include "rta_loop.h"
#include "rta_loop_replay.h"

static const lrow SINK_ROW = {{{{0, 0, 0, 0, 0}},
                               {{0, 0, 0, 0, 0}},
                               {{0, 0, 0, 0, 0}},
                               {{NEG_INF, 0, 0, 0, 0}},
                               {{NEG_INF, 0, 0, 0, 0}}}};

int rta_replay_normal_q(const ompdag_condag *g, int32_t v, int q)
{
    if (g->kind[v] == OMPDAG_KIND_W && (q == QCW || q == QDW)) return q == QCW ? QA : QB;
    return q;
}

static int32_t child_source(const ompdag_condag *g, int32_t v)
{
    return g->creates[v] >= 0 ? g->task_source[g->creates[v]] : -1;
}

/* A T node in A or B: which of Alg1's three terms is the largest (the first
 * on ties, as rta_lx_step_col's ⊕). */
static int task_option(int q, const lrow *s, const lrow *j, bool *bad)
{
    int same = q, wait = q == QA ? QCW : QDW, best = 0;
    lx top = rta_lx_add(s->q[same], j->q[QV], bad);
    lx opt1 = q == QA ? rta_lx_add(j->q[QA], s->q[QV], bad) : rta_lx_neg;
    lx opt2 = rta_lx_add(j->q[QB], s->q[wait], bad);
    if (rta_lx_less(&top, &opt1)) top = opt1, best = 1;
    if (rta_lx_less(&top, &opt2)) best = 2;
    return best;
}

/* The states a T node's option leads to: F-successor and child. */
static void task_states(int q, int opt, int32_t sn, int32_t jn, wstate *s, wstate *j)
{
    static const int8_t succ_q[3][QCOUNT] = {
        {QV, QA, QB, QCW, QDW}, {QV, QV, QV, QCW, QDW}, {QV, QCW, QDW, QCW, QDW}};
    static const int8_t child_q[3][QCOUNT] = {
        {QV, QV, QV, QV, QV}, {QV, QA, QB, QV, QV}, {QV, QB, QB, QV, QV}};
    *s = (wstate){sn, succ_q[opt][q]};
    *j = (wstate){jn, child_q[opt][q]};
}

void rta_replay_decide(const replay_ctx *c, int32_t v, int q, wstate *s, wstate *j)
{
    const ompdag_condag *g = c->g;
    q = rta_replay_normal_q(g, v, q);
    *j = (wstate){-1, 0};
    if (g->kind[v] == OMPDAG_KIND_C) {
        int32_t best = -1;
        for (int32_t k = g->fsucc_off[v]; k < g->fsucc_off[v + 1]; ++k)
            if (best < 0 || rta_lx_less(&c->t.row[best].q[q], &c->t.row[g->fsucc[k]].q[q]))
                best = g->fsucc[k];
        *s = (wstate){best, (int8_t)q};
        return;
    }
    int32_t sn = g->fsucc_off[v + 1] > g->fsucc_off[v] ? g->fsucc[g->fsucc_off[v]] : -1;
    int32_t jn = child_source(g, v);
    *s = (wstate){sn, (int8_t)q};
    if (jn < 0) return;
    bool bad = false;
    int opt = q == QA || q == QB
                  ? task_option(q, sn >= 0 ? &c->t.row[sn] : &SINK_ROW, &c->t.row[jn], &bad)
                  : 0;
    task_states(q, opt, sn, jn, s, j);
}

/* Y_k = S_k ⊗ x, the values of loop i's test copy with k iterations left
 * when its exit has the values x. */
static bool values_left(const replay_ctx *c, int32_t i, int64_t k, const lrow *x, lrow *y)
{
    lmat S;
    bool bad = false;
    rta_lx_close_loop(&c->t.P[i], c->t.d[i], k, &S, &bad);
    rta_lx_mat_apply(&S, x, y, &bad);
    return !bad;
}

/* The values of body node u given the continuation y. */
static lrow body_values(const replay_ctx *c, int32_t u, const lrow *y, bool *bad)
{
    lrow o;
    rta_lx_mat_apply(&c->t.body[c->t.body_slot[u]], y, &o, bad);
    return o;
}

static void walk_push(iter_walk *w, int32_t v, int q, int32_t take, wstate child,
                      struct loop_replay *inner)
{
    w->v[w->n] = v, w->q[w->n] = (int8_t)q, w->take[w->n] = take, w->child[w->n] = child;
    w->inner[w->n] = inner;
    w->n++;
}

static bool replay_runs(replay_ctx *c, int32_t i, int q, loop_replay *L, int depth);
static void replay_release(loop_replay *L);

/* A loop nested in the body, entered in q in the copy whose continuation is
 * y: its own runs, with its exit's values in this copy. */
static wstate walk_nested(replay_ctx *c, int32_t u, int q, const lrow *y, iter_walk *w, int depth,
                          bool *bad)
{
    const condag_loops *l = c->g->loops;
    int32_t i = l->test_of[u];
    loop_replay *L = calloc(1, sizeof *L);
    if (!L) return c->why = "out of memory", *bad = true, (wstate){-1, 0};
    L->x = body_values(c, l->exit[i], y, bad);
    if (depth >= LOOP_DEPTH_CAP) c->why = "its loops nest too deep to replay";
    if (depth >= LOOP_DEPTH_CAP || !replay_runs(c, i, q, L, depth + 1)) {
        replay_release(L);
        *bad = true;
        return (wstate){-1, 0};
    }
    for (int32_t k = 0; k < L->nruns; ++k) { /* the exit's share comes with the exit node */
        lx part = L->run[k].w.sum;
        for (int a = 0; a < LX_N && part.c[LX_VAL] != NEG_INF; ++a)
            if (__builtin_mul_overflow(part.c[a], L->run[k].count, &part.c[a])) *bad = true;
        w->sum = rta_lx_add(w->sum, part, bad);
    }
    walk_push(w, u, q, -1, (wstate){-1, 0}, L);
    return (wstate){l->exit[i], L->q_exit};
}

/* One body node in state q: its decisions, its share, the next state. */
static wstate walk_node(replay_ctx *c, int32_t i, int32_t u, int q, const lrow *y, iter_walk *w,
                        int depth, bool *bad)
{
    const ompdag_condag *g = c->g;
    if (g->loops->test_of[u] >= 0) return walk_nested(c, u, q, y, w, depth, bad);
    bool last = u == g->loops->end[i];
    weights wu = rta_lx_weights(g, c->opt, u);
    w->sum = rta_lx_add(w->sum, q == QA || q == QB ? wu.on : wu.off, bad);
    if (g->kind[u] == OMPDAG_KIND_C) { /* not the last node: that one leads to the exit only */
        int32_t best = -1;
        lx top = rta_lx_neg;
        for (int32_t k = g->fsucc_off[u]; k < g->fsucc_off[u + 1]; ++k) {
            lrow sv = body_values(c, g->fsucc[k], y, bad);
            if (best < 0 || rta_lx_less(&top, &sv.q[q])) best = g->fsucc[k], top = sv.q[q];
        }
        walk_push(w, u, q, best, (wstate){-1, 0}, NULL);
        return (wstate){best, (int8_t)q};
    }
    int32_t sn = g->fsucc[g->fsucc_off[u]], jn = child_source(g, u);
    wstate s = {sn, (int8_t)q}, j = {-1, 0};
    int opt = -1;
    if (jn >= 0) {
        lrow sv = last ? *y : body_values(c, sn, y, bad);
        opt = q == QA || q == QB ? task_option(q, &sv, &c->t.row[jn], bad) : 0;
        task_states(q, opt, sn, jn, &s, &j);
        w->sum = rta_lx_add(w->sum, c->t.row[jn].q[j.q], bad);
    }
    walk_push(w, u, q, opt, j, NULL);
    return s;
}

/* Frees the nested loops' runs a walk holds, and forgets its states. */
static void walk_clear(iter_walk *w)
{
    for (int32_t k = 0; k < w->n; ++k)
        if (w->inner[k]) replay_release(w->inner[k]), w->inner[k] = NULL;
    w->n = 0;
}

/* The iteration of loop i entered in q with the next copy's values y. */
static bool walk_iteration(replay_ctx *c, int32_t i, const lrow *y, const lrow *x, int q,
                           iter_walk *w, int depth)
{
    const ompdag_condag *g = c->g;
    const condag_loops *l = g->loops;
    bool bad = false;
    int32_t t = l->test[i];
    weights wt = rta_lx_weights(g, c->opt, t);
    walk_clear(w);
    w->sum = q == QA || q == QB ? wt.on : wt.off;
    lrow b = body_values(c, l->body[i], y, &bad);
    if (rta_lx_less(&b.q[q], &x->q[q])) { /* ties go to the body: it comes first */
        walk_push(w, t, q, l->exit[i], (wstate){-1, 0}, NULL);
        w->q_out = -1;
        return !bad;
    }
    walk_push(w, t, q, l->body[i], (wstate){-1, 0}, NULL);
    wstate cur = {l->body[i], (int8_t)q};
    for (;;) {
        int32_t u = cur.v;
        wstate next = walk_node(c, i, u, rta_replay_normal_q(g, u, cur.q), y, w, depth, &bad);
        if (bad) return false;
        if (u == l->end[i]) {
            w->q_out = next.q;
            return true;
        }
        cur = next;
    }
}

static bool same_replay(const loop_replay *a, const loop_replay *b);

static bool same_walk(const iter_walk *a, const iter_walk *b)
{
    if (a->n != b->n || a->q_out != b->q_out) return false;
    for (int32_t k = 0; k < a->n; ++k) {
        if (a->v[k] != b->v[k] || a->q[k] != b->q[k] || a->take[k] != b->take[k] ||
            a->child[k].v != b->child[k].v || a->child[k].q != b->child[k].q)
            return false;
        if ((a->inner[k] || b->inner[k]) &&
            (!a->inner[k] || !b->inner[k] || !same_replay(a->inner[k], b->inner[k])))
            return false;
    }
    return true;
}

/* Nested loops' runs compare by their walks and counts (depth below the cap). */
static bool same_replay(const loop_replay *a, const loop_replay *b)
{
    if (a->nruns != b->nruns || a->q_exit != b->q_exit) return false;
    for (int32_t k = 0; k < a->nruns; ++k)
        if (a->run[k].count != b->run[k].count || !same_walk(&a->run[k].w, &b->run[k].w))
            return false;
    return true;
}

/* Does the iteration with r left, entered in q, walk as w does? */
static bool walks_alike(replay_ctx *c, int32_t i, int q, int64_t r, const loop_replay *L,
                        const iter_walk *w, iter_walk *probe, int depth)
{
    lrow y;
    return values_left(c, i, r - 1, &L->x, &y) &&
           walk_iteration(c, i, &y, &L->x, q, probe, depth) && same_walk(probe, w);
}

/* The first iteration (fewest left) of the run that starts at r: gallop
 * down, then bisect between the last alike and the first unlike. */
static int64_t run_end(replay_ctx *c, int32_t i, int q, int64_t r, const loop_replay *L,
                       const iter_walk *w, iter_walk *probe, int depth)
{
    int64_t good = r, unlike = 0, step = 1;
    while (good - step >= 1) {
        if (!walks_alike(c, i, q, good - step, L, w, probe, depth)) {
            unlike = good - step;
            break;
        }
        good -= step;
        step = step > INT64_MAX / 2 ? INT64_MAX : 2 * step;
    }
    while (good - unlike > 1) {
        int64_t mid = unlike + (good - unlike) / 2;
        if (walks_alike(c, i, q, mid, L, w, probe, depth))
            good = mid;
        else
            unlike = mid;
    }
    return good;
}

static bool walk_alloc(iter_walk *w, int32_t size)
{
    w->n = 0;
    w->v = malloc(sizeof *w->v * (size_t)size);
    w->q = malloc(sizeof *w->q * (size_t)size);
    w->take = malloc(sizeof *w->take * (size_t)size);
    w->child = malloc(sizeof *w->child * (size_t)size);
    w->inner = calloc((size_t)size, sizeof *w->inner);
    return w->v && w->q && w->take && w->child && w->inner;
}

static void walk_free(iter_walk *w)
{
    if (w->inner) walk_clear(w);
    free(w->v), free(w->q), free(w->take), free(w->child), free(w->inner);
}

/* A nested loop's runs, with what they hold. */
static void replay_release(loop_replay *L)
{
    for (int32_t k = 0; k < L->nruns; ++k)
        walk_free(&L->run[k].w);
    free(L);
}

/* count ⊗-powers of a tuple: count × every component, checked. */
static lx lx_times(lx a, int64_t count, bool *bad)
{
    if (a.c[LX_VAL] == NEG_INF) return a;
    for (int k = 0; k < LX_N; ++k)
        if (__builtin_mul_overflow(a.c[k], count, &a.c[k])) *bad = true;
    return a;
}

/* The check: the runs and the exit add up to the test's tuple. */
static bool runs_add_up(const replay_ctx *c, int32_t i, int q, const loop_replay *L)
{
    bool bad = false;
    lx total = L->x.q[L->q_exit];
    for (int32_t k = 0; k < L->nruns; ++k)
        total = rta_lx_add(total, lx_times(L->run[k].w.sum, L->run[k].count, &bad), &bad);
    lrow want;
    if (!values_left(c, i, c->g->loops->repeat[i], &L->x, &want)) return false;
    return !bad && !rta_lx_less(&total, &want.q[q]) && !rta_lx_less(&want.q[q], &total);
}

static int32_t runs_cap = LOOP_RUNS_CAP;

void rta_loop_set_runs_cap(int32_t runs)
{
    runs_cap = runs > 0 && runs < LOOP_RUNS_CAP ? runs : LOOP_RUNS_CAP;
}

static bool replay_runs(replay_ctx *c, int32_t i, int q, loop_replay *L, int depth)
{
    const condag_loops *l = c->g->loops;
    int32_t size = l->list_off[i + 1] - l->list_off[i] + 1;
    int64_t r = l->repeat[i];
    int q0 = q;
    iter_walk probe = {0};
    bool ok = walk_alloc(&probe, size);
    L->q_exit = (int8_t)q;
    while (ok && r >= 1) {
        if (L->nruns == runs_cap) {
            c->why = "its iterations do not settle into runs";
            ok = false;
            break;
        }
        loop_run *run = &L->run[L->nruns++];
        lrow y;
        ok = walk_alloc(&run->w, size) && values_left(c, i, r - 1, &L->x, &y) &&
             walk_iteration(c, i, &y, &L->x, q, &run->w, depth);
        if (!ok) break;
        if (run->w.q_out < 0) { /* the test took the exit with r left */
            run->count = 1;
            break;
        }
        int64_t first = run->w.q_out == q ? run_end(c, i, q, r, L, &run->w, &probe, depth) : r;
        run->count = r - first + 1;
        L->iterations += run->count;
        q = run->w.q_out, r = first - 1;
        L->q_exit = (int8_t)q;
    }
    walk_free(&probe);
    if (!ok) {
        if (!c->why) c->why = "its sums overflow, or memory ran out";
        return false;
    }
    if (!runs_add_up(c, i, q0, L))
        return (c->why = "its runs of iterations do not add up to the bound"), false;
    return true;
}

const loop_replay *rta_loop_replay_of(replay_ctx *c, int32_t i, int q)
{
    loop_replay *L = &c->memo[(size_t)i * QCOUNT + (size_t)q];
    if (L->done) return L->ok ? L : NULL;
    L->done = true;
    L->x = c->t.row[c->g->loops->exit[i]];
    L->ok = replay_runs(c, i, q, L, 0);
    return L->ok ? L : NULL;
}

void rta_loop_replay_free(replay_ctx *c)
{
    for (int32_t k = 0; c->memo && k < c->g->loops->n * QCOUNT; ++k)
        for (int32_t j = 0; j < c->memo[k].nruns; ++j)
            walk_free(&c->memo[k].run[j].w);
    free(c->memo);
}
