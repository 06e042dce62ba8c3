/*
 * analysis/rta_loop_replay.h — the worst flow's path, branches and loop
 * counts on a graph with compact loops, replayed per remaining iteration
 * count in runs (analysis/rta_loop_replay.c, rta_loop_path.c), internal to
 * the analysis library.
 */
#ifndef OMPDAG_RTA_LOOP_REPLAY_H
#define OMPDAG_RTA_LOOP_REPLAY_H

#include "rta_loop_lx.h"

enum {
    LOOP_RUNS_CAP = 64, /* runs of equal iterations per loop entry before giving up */
    LOOP_DEPTH_CAP = 8  /* loops nested deeper are not replayed (recursion stays bounded) */
};

struct loop_replay;

typedef struct wstate {
    int32_t v;
    int8_t q;
} wstate;

/* One iteration: the test copy, then the body nodes it runs, in order. */
typedef struct iter_walk {
    int32_t n;
    int32_t *v;    /* node */
    int8_t *q;     /* its quantity (a W node's Cw/Dw already turned into A/B) */
    int32_t *take; /* C: the successor taken; T: 0 skip the child, 1 end in it, 2 back at the
                      next W; else -1 */
    wstate *child; /* T: the child's state; else v = -1 */
    struct loop_replay **inner; /* a nested loop's test: its runs in this copy (owned) */
    int8_t q_out;               /* the next copy's quantity, or -1 when the test took the exit */
    lx sum;                     /* the iteration's share of the tuple */
} iter_walk;

typedef struct loop_run {
    int64_t count; /* consecutive iterations with this walk */
    iter_walk w;
} loop_run;

/* A loop entered in one quantity: its iterations as runs of equal walks. */
typedef struct loop_replay {
    bool done, ok;
    lrow x; /* the exit's values: fixed for an outermost loop, the copy's for a nested one */
    int32_t nruns;
    loop_run run[LOOP_RUNS_CAP];
    int64_t iterations; /* bodies run */
    int8_t q_exit;      /* the exit's quantity */
} loop_replay;

typedef struct replay_ctx {
    const ompdag_condag *g;
    const ompdag_rta_options *opt;
    lx_tables t;
    loop_replay *memo; /* per loop and quantity: loops × QCOUNT */
    const char *why;   /* set when the replay gives up */
} replay_ctx;

/* The runs of loop i entered in quantity q (memoised); NULL, with c->why,
 * when they do not settle into LOOP_RUNS_CAP runs or do not add up to the
 * test's tuple (the check that makes the runs a worst flow). */
const loop_replay *rta_loop_replay_of(replay_ctx *c, int32_t i, int q);

/* Frees the memoised runs (and the memo). */
void rta_loop_replay_free(replay_ctx *c);

/* A node's state as Alg1's replay enters it: a W node turns Cw/Dw into A/B. */
int rta_replay_normal_q(const ompdag_condag *g, int32_t v, int q);

/* Decisions at a node outside loop bodies, by the tuples: *s the F-successor's
 * state (v = -1 at a sink), *j the created child's (v = -1 unless T). */
void rta_replay_decide(const replay_ctx *c, int32_t v, int q, wstate *s, wstate *j);

/* The critical path as pieces (rta_loop_path.c): sets r->path (a prefix),
 * r->path_len, r->path_nodes and r->piece/npieces/piece_node; false, with
 * c->why, when it cannot (runs inside runs, too long, out of memory). */
bool rta_replay_path(replay_ctx *c, ompdag_rta_result *r);

#endif
