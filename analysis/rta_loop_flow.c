/*
 * analysis/rta_loop_flow.c — the worst flow of a graph with compact loops
 * beyond their unrolling: which states it reaches, its branches and loop
 * counts, and the entry that puts them with the path on the result
 * (docs/compact.md, "The worst flow").
 *
 * Source: Alg1's witness replay (docs/condag.md §3; rta_exact.c's
 * build_witness), counted per state (v, q) in F+T order as rta_compact.c's
 * count_states does, on the tuples of rta_loop_lx.c; a loop test's state
 * takes its runs from rta_loop_replay.c (nested loops' runs inside them),
 * each walk's children reached run count × instances times.
 */
#include <stdlib.h>
#include <string.h>

#include "condag_loops.h"
#include "rta_loop.h"
#include "rta_loop_replay.h"

typedef struct flow_pass {
    replay_ctx *c;
    uint64_t (*cnt)[QCOUNT]; /* per node outside loop bodies: instances of each state */
    ompdag_rta_result *r;
} flow_pass;

static void add_count(flow_pass *f, wstate s, uint64_t k)
{
    if (s.v < 0) return;
    uint64_t *c = &f->cnt[s.v][s.q];
    if (__builtin_add_overflow(*c, k, c)) *c = UINT64_MAX;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t p;
    return __builtin_mul_overflow(a, b, &p) ? UINT64_MAX : p;
}

/* First choice met, then another one if some copy differs. */
static void note_choice(ompdag_rta_result *r, int32_t v, int32_t s)
{
    if (r->choice[v] < 0)
        r->choice[v] = s;
    else if (s != r->choice[v] && r->choice_alt[v] < 0)
        r->choice_alt[v] = s;
}

/* Loop v's runs L, reached k times: their nodes, branches, children and
 * iterations; a nested loop's runs in turn (depth below LOOP_DEPTH_CAP). */
static void flow_runs(flow_pass *f, int32_t v, const loop_replay *L, uint64_t k)
{
    const ompdag_condag *g = f->c->g;
    for (int32_t n = 0; n < L->nruns; ++n) {
        const iter_walk *w = &L->run[n].w;
        uint64_t times = sat_mul(k, (uint64_t)L->run[n].count);
        for (int32_t a = 0; a < w->n; ++a) {
            f->r->reached[w->v[a]] = 1;
            if (w->inner[a]) {
                flow_runs(f, w->v[a], w->inner[a], times);
                continue;
            }
            if (g->kind[w->v[a]] == OMPDAG_KIND_C) note_choice(f->r, w->v[a], w->take[a]);
            add_count(f, w->child[a], times);
        }
    }
    int64_t *lo = &f->r->loop_lo[v], *hi = &f->r->loop_hi[v];
    *lo = *lo < 0 || L->iterations < *lo ? L->iterations : *lo;
    *hi = L->iterations > *hi ? L->iterations : *hi;
}

/* A loop test outside loop bodies reached k times in state q. */
static bool flow_loop(flow_pass *f, int32_t v, int q, uint64_t k)
{
    int32_t i = f->c->g->loops->test_of[v];
    const loop_replay *L = rta_loop_replay_of(f->c, i, q);
    if (!L) return false;
    flow_runs(f, v, L, k);
    add_count(f, (wstate){f->c->g->loops->exit[i], L->q_exit}, k);
    return true;
}

/* Forward over F+T order, as rta_compact.c's count_states. */
static bool flow_states(flow_pass *f)
{
    static const int order[QCOUNT] = {QA, QB, QCW, QDW, QV};
    const ompdag_condag *g = f->c->g;
    const condag_loops *l = g->loops;
    f->cnt[g->task_source[g->root]][QA] = 1;
    for (int32_t k = 0; k < g->n; ++k) {
        int32_t v = g->topo[k];
        if (l->loop_of[v] >= 0 && (l->test_of[v] < 0 || l->outer[l->test_of[v]] >= 0))
            continue; /* bodies (nested loops included): in their runs */
        for (int o = 0; o < QCOUNT; ++o) {
            int q = order[o];
            uint64_t n = f->cnt[v][q];
            if (!n) continue;
            f->r->reached[v] = 1;
            if (l->test_of[v] >= 0) {
                if (!flow_loop(f, v, q, n)) return false;
                continue;
            }
            wstate s, j;
            rta_replay_decide(f->c, v, q, &s, &j);
            if (g->kind[v] == OMPDAG_KIND_C) note_choice(f->r, v, s.v);
            add_count(f, s, n), add_count(f, j, n);
        }
    }
    return true;
}

static bool result_arrays(const ompdag_condag *g, ompdag_rta_result *r)
{
    r->choice_alt = malloc(sizeof *r->choice_alt * (size_t)g->n);
    r->reached = calloc((size_t)g->n, 1);
    r->loop_lo = malloc(sizeof *r->loop_lo * (size_t)g->n);
    r->loop_hi = malloc(sizeof *r->loop_hi * (size_t)g->n);
    if (!r->choice_alt || !r->reached || !r->loop_lo || !r->loop_hi) return false;
    memset(r->choice_alt, 0xff, sizeof *r->choice_alt * (size_t)g->n);
    for (int32_t v = 0; v < g->n; ++v)
        r->loop_lo[v] = r->loop_hi[v] = -1;
    return true;
}

/* The tables of the tuple pass, with room for the body matrices. */
static bool tables_alloc(const ompdag_condag *g, lx_tables *t)
{
    const condag_loops *l = g->loops;
    int32_t nbody = 0;
    t->body_slot = malloc(sizeof *t->body_slot * (size_t)g->n);
    if (!t->body_slot) return false;
    for (int32_t v = 0; v < g->n; ++v)
        t->body_slot[v] = l->loop_of[v] >= 0 && (l->test_of[v] < 0 || l->outer[l->test_of[v]] >= 0)
                              ? nbody++
                              : -1; /* a nested test: relative to its outer loop's continuation */
    t->body = malloc(sizeof *t->body * (size_t)(nbody ? nbody : 1));
    t->P = malloc(sizeof *t->P * (size_t)l->n);
    t->d = malloc(sizeof *t->d * (size_t)l->n);
    return t->body && t->P && t->d;
}

static void tables_free(lx_tables *t)
{
    free(t->row), free(t->body), free(t->body_slot), free(t->P), free(t->d);
}

static void drop_flow(ompdag_rta_result *r)
{
    memset(r->choice, 0xff, sizeof *r->choice * (size_t)r->n);
    free(r->choice_alt), free(r->reached), free(r->loop_lo), free(r->loop_hi), free(r->path);
    r->choice_alt = NULL, r->reached = NULL, r->loop_lo = r->loop_hi = NULL, r->path = NULL;
    r->path_len = 0, r->path_nodes = 0;
}

ompdag_status rta_loop_replay_witness(const ompdag_condag *g, const ompdag_rta_options *opt,
                                      ompdag_rta_result *r, ompdag_error *err)
{
    const condag_loops *l = g->loops;
    replay_ctx c = {.g = g, .opt = opt};
    flow_pass f = {&c, NULL, r};
    ompdag_status st = OMPDAG_OK;
    bool ok = tables_alloc(g, &c.t) && result_arrays(g, r) &&
              (c.memo = calloc((size_t)l->n * QCOUNT, sizeof *c.memo)) &&
              (f.cnt = calloc((size_t)g->n, sizeof *f.cnt));
    if (!ok) st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!st) st = rta_loop_lx_tables(g, opt, r, &c.t, err); /* vol, len, migrations */
    ok = !st && !c.why && flow_states(&f) && rta_replay_path(&c, r);
    if (!st && ok) r->has_witness = true, r->compact = true;
    if (!st && !ok) {
        r->has_witness = false, r->no_path = c.why ? c.why : "out of memory";
        drop_flow(r);
    }
    rta_loop_replay_free(&c);
    tables_free(&c.t);
    free(f.cnt);
    return st;
}
