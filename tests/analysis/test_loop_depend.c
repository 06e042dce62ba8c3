/* tests/analysis/test_loop_depend.c — depend clauses in compact loops
 * (docs/compact.md, "depend clauses in compact loops").
 *
 * Property test: random task programs whose loops create tasks with depend
 * items indexed by the iteration (offsets −2…2), plain and constant-cell
 * items, branches and taskwaits (some partial) inside and after the loops, nested loops in
 * part of them; the compact bound (analysis/rta_loop_depend*.c) must equal
 * rta_depend.c on `ompdag expand`'s graph bit for bit for m = 1…4 and with
 * migration overhead; on the unrolling, the worst flow's vol, len and
 * migrations are rta_depend.c's on the expansion and add up to the bound.
 * Hand cases: a chain a[i-1] -> a[i] at K = 10, 10^5
 * and 10^9; independent inout a[i]; a task after the loop that waits for
 * all; the file format and its errors; the limit of the unrolled path. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include <string.h>

#include "ompdag/compact.h"
#include "rta_loop_depend_internal.h"
#include "support.h"

/* ---- random loop programs with indexed depend items ----------------------- */

typedef struct dgen {
    ompdag_condag *g;
    ompdag_rng *r;
    int task, count;
    int *ntasks;      /* tasks made so far (names t0, t1, …) */
    int *queue, *nq;  /* body tasks still to build */
    int32_t loops[4]; /* enclosing loop tests, outermost first */
    int nloops;
    bool nest, consts; /* nested loops; plain items named like cells ("a[3]") */
} dgen;

static int32_t add(dgen *b, const char *task, char kind, const char *creates, int64_t wcet)
{
    char id[32];
    snprintf(id, sizeof id, "%s.%d", task, b->count++);
    ompdag_node_spec s = {
        .id = id, .task = task, .kind = (ompdag_kind)kind, .wcet = wcet, .creates = creates};
    int32_t v;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_add_node(b->g, &s, &v, &err), OMPDAG_OK, "%s", err.message);
    return v;
}

static int32_t node(dgen *b, char kind, const char *creates)
{
    char task[16];
    snprintf(task, sizeof task, "t%d", b->task);
    int64_t w =
        kind == 'C' || kind == 'J' ? ompdag_rng_range(b->r, 0, 2) : ompdag_rng_range(b->r, 0, 30);
    return add(b, task, kind, creates, w);
}

static void edge(dgen *b, int32_t from, int32_t to)
{
    ompdag_error err;
    cr_assert_eq(ompdag_condag_add_edge(b->g, from, to, &err), OMPDAG_OK, "%s", err.message);
}

/* 0…3 items: indexed cells of a or b (an enclosing loop, offset −2…2),
 * plain vars s and u, cells named plainly, the plain var a. */
static void clauses(dgen *b, int32_t v)
{
    static const ompdag_dep_type types[] = {OMPDAG_DEP_IN, OMPDAG_DEP_OUT, OMPDAG_DEP_INOUT,
                                            OMPDAG_DEP_IN, OMPDAG_DEP_INOUTSET};
    int n = ompdag_rng_unit(b->r) < 0.2 ? 0 : (int)ompdag_rng_range(b->r, 1, 3);
    for (int i = 0; i < n; ++i) {
        ompdag_dep_type t = types[ompdag_rng_range(b->r, 0, 4)];
        double u = ompdag_rng_unit(b->r);
        ompdag_error err;
        ompdag_status st;
        if (b->nloops && u < 0.6) {
            int32_t loop = b->loops[ompdag_rng_range(b->r, 0, b->nloops - 1)];
            char base[16]; /* two loops on one base: the unrolled path */
            snprintf(base, sizeof base, "%c%d", u < 0.4 ? 'a' : 'b', b->consts ? 0 : loop);
            st = ompdag_condag_add_depend_indexed(b->g, v, t, base, loop,
                                                  ompdag_rng_range(b->r, -2, 2), &err);
        } else if (b->consts && u < 0.75) {
            char cell[16];
            snprintf(cell, sizeof cell, "a0[%d]", (int)ompdag_rng_range(b->r, -1, 4));
            st = ompdag_condag_add_depend(b->g, v, t, cell, &err);
        } else {
            static const char *const plain[] = {"s", "u", "a0"};
            st = ompdag_condag_add_depend(b->g, v, t, plain[ompdag_rng_range(b->r, 0, 2)], &err);
        }
        cr_assert_eq(st, OMPDAG_OK, "%s", err.message);
    }
}

/* A T node creating a fresh task: a one- or two-node leaf, or a body built later. */
static int32_t creation(dgen *b)
{
    char task[16];
    int t = (*b->ntasks)++;
    snprintf(task, sizeof task, "t%d", t);
    int32_t v = node(b, 'T', task);
    clauses(b, v);
    if (*b->nq < 3 && ompdag_rng_unit(b->r) < 0.12) {
        b->queue[(*b->nq)++] = t;
        return v;
    }
    int32_t s = add(b, task, 'N', NULL, ompdag_rng_range(b->r, 0, 30));
    if (ompdag_rng_unit(b->r) < 0.3) edge(b, s, add(b, task, 'N', NULL, 5));
    return v;
}

static int32_t sequence(dgen *b, int32_t tail, int len, int depth);

static int32_t loop(dgen *b, int32_t tail, int depth)
{
    int32_t t = node(b, 'C', NULL);
    edge(b, tail, t);
    b->loops[b->nloops++] = t;
    int32_t end = sequence(b, t, (int)ompdag_rng_range(b->r, 1, 4), depth + 1);
    b->nloops--;
    int32_t x = node(b, 'J', NULL);
    edge(b, t, x);
    edge(b, end, x);
    int64_t k =
        ompdag_rng_unit(b->r) < 0.1 ? ompdag_rng_range(b->r, 6, 12) : ompdag_rng_range(b->r, 1, 5);
    ompdag_error err;
    cr_assert_eq(ompdag_compact_set_repeat(b->g, t, k, &err), OMPDAG_OK, "%s", err.message);
    return x;
}

static int32_t branch(dgen *b, int32_t tail, int depth)
{
    int32_t c = node(b, 'C', NULL), j, ends[3];
    edge(b, tail, c);
    int k = (int)ompdag_rng_range(b->r, 2, 3);
    for (int a = 0; a < k; ++a) {
        int n = (int)ompdag_rng_range(b->r, a ? 1 : 0, 2);
        ends[a] = n ? sequence(b, c, n, depth + 1) : c;
    }
    j = node(b, 'J', NULL);
    for (int a = 0; a < k; ++a)
        edge(b, ends[a], j);
    return j;
}

/* Nesting bounded by the constant 3; loops nest only when b->nest. */
static int32_t sequence(dgen *b, int32_t tail, int len, int depth)
{
    for (int i = 0; i < len; ++i) {
        double x = ompdag_rng_unit(b->r);
        bool may_loop = depth < 3 && (b->nest || !b->nloops);
        if (may_loop && x < 0.3)
            tail = loop(b, tail, depth);
        else if (depth < 3 && x < 0.42)
            tail = branch(b, tail, depth);
        else {
            int32_t v = x < 0.8 ? creation(b) : node(b, x < 0.9 ? 'W' : 'N', NULL);
            if (x >= 0.8 && x < 0.815) clauses(b, v); /* a partial taskwait (docs/depend.md) */
            edge(b, tail, v);
            tail = v;
        }
    }
    return tail;
}

static ompdag_condag *random_program(ompdag_rng *r, bool nest, bool consts, uint64_t limit)
{
    for (;;) {
        ompdag_condag *g = ompdag_condag_create();
        ompdag_error err;
        cr_assert_eq(ompdag_compact_enable_loops(g, &err), OMPDAG_OK);
        int ntasks = 1, queue[4] = {0}, nq = 1, head = 0;
        while (head < nq) {
            dgen b = {g, r, queue[head++], 0, &ntasks, queue, &nq, {0}, 0, nest, consts};
            int32_t tail = node(&b, 'N', NULL);
            if (!b.task) tail = loop(&b, tail, 0); /* at least one loop: a compact graph */
            tail = sequence(&b, tail, (int)ompdag_rng_range(r, 0, 3), 0);
            if (ompdag_rng_unit(r) < 0.5) edge(&b, tail, node(&b, 'W', NULL));
        }
        cr_assert_eq(ompdag_condag_finalize(g, &err), OMPDAG_OK, "%s", err.message);
        if (ompdag_compact_expanded_node_count(g) <= limit) return g;
        ompdag_condag_destroy(g);
    }
}

static ompdag_rta_result *run_ok(const ompdag_condag *g, const ompdag_rta_options *opt)
{
    ompdag_rta_result *r = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, opt, &r, &err), OMPDAG_OK, "%s", err.message);
    return r;
}

/* True when the closure (not the unrolling) bounds g. */
static bool closable(const ompdag_condag *g)
{
    if (!ompdag_condag_has_depend(g) || !ompdag_compact_has_loops(g)) return false;
    rta_ld_keys k;
    const char *why;
    bool nomem, ok = rta_ld_keys_build(g, &k, &why, &nomem);
    cr_assert_not(nomem);
    rta_ld_keys_free(&k);
    return ok;
}

typedef struct tally {
    long programs, closed, with_clauses, partial_waits, closed_waits;
} tally;

/* Outside the closable class, the worst flow's vol, len and migrations are
 * those rta_depend.c finds on the expansion x, and they add up to the bound:
 * vol + (m−1)·len + m·O·migrations = m·R (the graphs have no delays). */
static void unrolled_flow_matches(const ompdag_condag *g, const ompdag_condag *x, int32_t m,
                                  int64_t o)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    opt.migration_overhead = o;
    ompdag_rta_result *c = run_ok(g, &opt), *u = run_ok(x, &opt);
    cr_assert(ompdag_rta_result_is_exact(c));
    int64_t vol = ompdag_rta_result_vol(c), len = ompdag_rta_result_len(c);
    int64_t mig = ompdag_rta_result_migrations(c);
    cr_assert_eq(vol, ompdag_rta_result_vol(u), "m=%d O=%lld", m, (long long)o);
    cr_assert_eq(len, ompdag_rta_result_len(u), "m=%d O=%lld", m, (long long)o);
    cr_assert_eq(mig, ompdag_rta_result_migrations(u));
    cr_assert_eq(vol + (m - 1) * len + m * o * mig, ompdag_rta_result_bound_times_m(c));
    cr_assert_not(ompdag_rta_result_has_witness(c), "the path is not mapped back");
    cr_assert(strstr(ompdag_rta_result_path_missing(c), "not mapped back from the unrolling"));
    ompdag_rta_result_destroy(c), ompdag_rta_result_destroy(u);
}

static void compare_all(const ompdag_condag *g, tally *t)
{
    ompdag_condag *x = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_compact_expand(g, 0, &x, &err), OMPDAG_OK, "%s", err.message);
    for (int32_t m = 1; m <= 4; ++m)
        for (int o = 0; o < (m == 3 ? 3 : 1); ++o) {
            ompdag_rta_options opt;
            ompdag_rta_options_init(&opt, m);
            opt.bound_only = true;
            opt.migration_overhead = o ? 7 : 0;
            opt.migration_model = o == 2 ? OMPDAG_MIGRATION_BFS : OMPDAG_MIGRATION_WFS;
            ompdag_rta_result *c = run_ok(g, &opt), *u = run_ok(x, &opt);
            cr_assert(ompdag_rta_result_is_exact(u), "the expansion's bound is exact");
            cr_assert(ompdag_rta_result_is_exact(c));
            cr_assert_eq(ompdag_rta_result_bound_times_m(c), ompdag_rta_result_bound_times_m(u),
                         "program %ld m=%d O=%d: compact %lld, expanded %lld", t->programs, m, o,
                         (long long)ompdag_rta_result_bound_times_m(c),
                         (long long)ompdag_rta_result_bound_times_m(u));
            ompdag_rta_result_destroy(c), ompdag_rta_result_destroy(u);
        }
    if (ompdag_condag_has_depend(g)) unrolled_flow_matches(g, x, 3, 7); /* closed ones too */
    ompdag_condag_destroy(x);
}

Test(loop_depend, random_task_loops_match_the_expansion, .timeout = 600)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 4242);
    tally t = {0};
    for (int i = 0; i < 1200; ++i, ++t.programs) {
        bool mixed = i % 4 == 3; /* nested loops and cells named plainly: the unrolled path */
        ompdag_condag *g = random_program(&r, mixed, mixed, 1500);
        t.with_clauses += ompdag_condag_has_depend(g);
        bool closed = closable(g);
        t.closed += closed;
        for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
            if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_W &&
                ompdag_condag_node_depend_count(g, v)) {
                t.partial_waits++, t.closed_waits += closed;
                break;
            }
        compare_all(g, &t);
        ompdag_condag_destroy(g);
    }
    printf("loop_depend: %ld programs, %ld with clauses, %ld closed without unrolling, %ld with "
           "a partial taskwait (%ld of them closed)\n",
           t.programs, t.with_clauses, t.closed, t.partial_waits, t.closed_waits);
    cr_assert_gt(t.closed_waits, 100, "only %ld closed programs with a partial taskwait",
                 t.closed_waits);
    cr_assert_gt(t.with_clauses, 1000, "only %ld programs with clauses", t.with_clauses);
    cr_assert_gt(t.closed, 600, "only %ld programs closed", t.closed);
    cr_assert_lt(t.closed, t.with_clauses - 100, "the unrolled path is exercised too");
}

/* ---- hand cases ------------------------------------------------------------ */

/* a (1) -> loop L of K iterations: T t creates k (10) with the items D1, D2
 * -> exit x -> after (AFTER) -> W w.  Per iteration the cell a[i] is a[k]. */
#define HAND_JSON(EXT, K, D1, D2, AFTER)                                                           \
    "{'format': 'ompdag-condag', 'version': 1, " EXT "'nodes': ["                                  \
    "{'id': 'a', 'task': 'main', 'kind': 'N', 'wcet': 1},"                                         \
    "{'id': 'L', 'task': 'main', 'kind': 'C', 'wcet': 0, 'repeat': " K ","                         \
    " 'loc': {'file': 'c.c', 'line': 7, 'col': 1}},"                                               \
    "{'id': 't', 'task': 'main', 'kind': 'T', 'wcet': 0, 'creates': 'k', 'depend': [" D1 D2 "]},"  \
    "{'id': 'x', 'task': 'main', 'kind': 'J', 'wcet': 0}," AFTER                                   \
    "{'id': 'w', 'task': 'main', 'kind': 'W', 'wcet': 0},"                                         \
    "{'id': 'k', 'task': 'k', 'kind': 'N', 'wcet': 10}],"                                          \
    "'edges': [['a','L'],['L','t'],['L','x'],['t','x'],['x','y'],['y','w']]}"
#define LOOPS "'extensions': ['loops'], "
#define CELL(TYPE, OFF)                                                                            \
    "{'type': '" TYPE "', 'var': 'a', 'index': {'loop': 'L', 'offset': " OFF "}}"
#define PLAIN(TYPE, VAR) "{'type': '" TYPE "', 'var': '" VAR "'}"
#define NO_TASK_AFTER "{'id': 'y', 'task': 'main', 'kind': 'N', 'wcet': 0}, "
#define TASK_AFTER(D)                                                                              \
    "{'id': 'y', 'task': 'main', 'kind': 'T', 'wcet': 0, 'creates': 'z', 'depend': [" D "]}, "     \
    "{'id': 'z', 'task': 'z', 'kind': 'N', 'wcet': 5}, "

static int64_t hand_bound(const char *json, int32_t m)
{
    ompdag_error err;
    ompdag_condag *g = load_graph(json, &err);
    cr_assert_not_null(g, "%s", err.message);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    ompdag_rta_result *r = run_ok(g, &opt);
    cr_assert(ompdag_rta_result_is_exact(r));
    int64_t b = ompdag_rta_result_bound_times_m(r);
    ompdag_rta_result_destroy(r);
    ompdag_condag_destroy(g);
    return b;
}

/* in: a[i-1], out: a[i] (k = i - 1): a chain of K tasks of 10.  vol = len =
 * 1 + 10K (the last waits for all before it), m·R = m·(1 + 10K); the
 * task after the loop has no clause here. */
Test(loop_depend, a_chain_by_hand_at_ten_a_hundred_thousand_and_a_billion)
{
    static const char *const ks[] = {"10", "100000", "1000000000"};
    static const int64_t kv[] = {10, 100000, 1000000000};
    for (int i = 0; i < 3; ++i)
        for (int32_t m = 1; m <= 4; ++m) {
            char json[2048];
            snprintf(json, sizeof json,
                     HAND_JSON(LOOPS, "%s", CELL("in", "0") ",", CELL("out", "1"), NO_TASK_AFTER),
                     ks[i]);
            cr_assert_eq(hand_bound(json, m), m * (1 + 10 * kv[i]), "K=%s m=%d", ks[i], m);
        }
}

/* The chain again: closed, its worst flow's vol and len come from the
 * unrolling up to 200,000 unrolled nodes (vol = len = 1 + 10K), and above
 * that the bound comes alone and says so. */
Test(loop_depend, a_closed_chain_gives_vol_and_len_up_to_the_flow_limit)
{
    static const char *const ks[] = {"10", "1000000000"};
    for (int i = 0; i < 2; ++i) {
        char json[2048];
        snprintf(json, sizeof json,
                 HAND_JSON(LOOPS, "%s", CELL("in", "0") ",", CELL("out", "1"), NO_TASK_AFTER),
                 ks[i]);
        ompdag_error err;
        ompdag_condag *g = load_graph(json, &err);
        cr_assert_not_null(g, "%s", err.message);
        ompdag_rta_options opt;
        ompdag_rta_options_init(&opt, 2);
        ompdag_rta_result *r = run_ok(g, &opt);
        cr_assert_not(ompdag_rta_result_has_witness(r));
        const char *why = ompdag_rta_result_path_missing(r);
        if (i == 0) {
            cr_expect_eq(ompdag_rta_result_vol(r), 101);
            cr_expect_eq(ompdag_rta_result_len(r), 101);
            cr_expect(strstr(why, "come from the unrolling"), "%s", why);
        } else {
            cr_expect_eq(ompdag_rta_result_vol(r), -1);
            cr_expect(strstr(why, "above 200,000 unrolled nodes"), "%s", why);
        }
        ompdag_rta_result_destroy(r);
        ompdag_condag_destroy(g);
    }
}

/* inout: a[i]: independent tasks; the path holds one of them.  vol = 1 + 10K,
 * len = 11. */
Test(loop_depend, independent_cells_by_hand)
{
    char json[2048];
    snprintf(json, sizeof json, HAND_JSON(LOOPS, "%s", CELL("inout", "0"), "", NO_TASK_AFTER),
             "100000");
    for (int32_t m = 1; m <= 4; ++m)
        cr_assert_eq(hand_bound(json, m), 1 + 10 * 100000 + (m - 1) * 11, "m=%d", m);
}

/* out: a[i] and in: all in the loop, inout: all after it: the task after the
 * loop waits for every task of the loop, which stay independent.
 * vol = 1 + 10K + 5, len = 1 + 10 + 5. */
Test(loop_depend, a_task_after_the_loop_waits_for_all)
{
    char json[2048];
    snprintf(json, sizeof json,
             HAND_JSON(LOOPS, "%s", CELL("out", "0") ",", PLAIN("in", "all"),
                       TASK_AFTER(PLAIN("inout", "all"))),
             "100000");
    for (int32_t m = 1; m <= 4; ++m)
        cr_assert_eq(hand_bound(json, m), 1 + 10 * 100000 + 5 + (m - 1) * 16, "m=%d", m);
    /* without the clause after the loop the last task need not wait: len 11 */
    snprintf(json, sizeof json,
             HAND_JSON(LOOPS, "%s", CELL("out", "0") ",", PLAIN("in", "all"), TASK_AFTER("")),
             "100000");
    cr_assert_eq(hand_bound(json, 4), 1 + 10 * 100000 + 5 + 3 * 11);
}

/* ompdag expand names the cells as the front end does for unrolled loops
 * ("a[3]"), and a file keeps its index through a save and reload. */
Test(loop_depend, expand_names_cells_and_files_round_trip)
{
    ompdag_error err;
    ompdag_condag *g = load_graph(
        HAND_JSON(LOOPS, "4", CELL("in", "-1") ",", CELL("out", "2"), NO_TASK_AFTER), &err);
    cr_assert_not_null(g, "%s", err.message);
    int32_t t = node_index(g, "t"), loop;
    int64_t off;
    cr_assert(ompdag_condag_node_depend_index(g, t, 1, &loop, &off));
    cr_assert_eq(loop, node_index(g, "L"));
    cr_assert_eq(off, 2);
    ompdag_condag *x = NULL;
    cr_assert_eq(ompdag_compact_expand(g, 0, &x, &err), OMPDAG_OK, "%s", err.message);
    static const char *const in[] = {"a[-1]", "a[0]", "a[1]", "a[2]"};
    static const char *const out[] = {"a[2]", "a[3]", "a[4]", "a[5]"};
    static const char *const ids[] = {"t", "t~1", "t~2", "t~3"};
    for (int k = 0; k < 4; ++k) {
        int32_t v = node_index(x, ids[k]);
        cr_assert_str_eq(ompdag_condag_depend_var_name(x, ompdag_condag_node_depend_var(x, v, 0)),
                         in[k]);
        cr_assert_str_eq(ompdag_condag_depend_var_name(x, ompdag_condag_node_depend_var(x, v, 1)),
                         out[k]);
        cr_assert_not(ompdag_condag_node_depend_index(x, v, 0, &loop, &off));
    }
    json_t *j = ompdag_condag_to_json(g); /* the file text, read back */
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    cr_assert(strstr(text, "\"index\":{\"loop\":\"L\",\"offset\":2}"), "%s", text);
    ompdag_condag *y = load_graph(text, &err);
    free(text);
    cr_assert_not_null(y, "%s", err.message);
    cr_assert(ompdag_condag_node_depend_index(y, node_index(y, "t"), 1, &loop, &off));
    cr_assert_eq(off, 2);
    for (int32_t m = 1; m <= 4; ++m)
        cr_assert_eq(bound_of(y, OMPDAG_ALG_EXACT, m), bound_of(x, OMPDAG_ALG_DEPEND, m));
    ompdag_condag_destroy(y);
    ompdag_condag_destroy(x);
    ompdag_condag_destroy(g);
}

Test(loop_depend, bad_indices_are_named)
{
    ompdag_error err;
    /* without the extension the index would be read as one cell */
    const char *plain =
        "{'format': 'ompdag-condag', 'version': 1, 'nodes': ["
        "{'id': 'L', 'task': 'main', 'kind': 'C', 'wcet': 0},"
        "{'id': 't', 'task': 'main', 'kind': 'T', 'wcet': 0, 'creates': 'k', "
        "'depend': [" CELL("in", "0") "]},"
                                      "{'id': 'x', 'task': 'main', 'kind': 'J', 'wcet': 0},"
                                      "{'id': 'k', 'task': 'k', 'kind': 'N', 'wcet': 1}],"
                                      "'edges': [['L','t'],['L','x'],['t','x']]}";
    cr_assert_null(load_graph(plain, &err));
    cr_assert(strstr(err.message, "'t'") && strstr(err.message, "\"loops\"") &&
                  strstr(err.message, "index"),
              "%s", err.message);
    /* an index on a node that is not a loop test, one outside its loop, a bad shape */
    cr_assert_null(load_graph(HAND_JSON(LOOPS, "4",
                                        "{'type': 'in', 'var': 'a', 'index': {'loop': 'a', "
                                        "'offset': 0}}",
                                        "", NO_TASK_AFTER),
                              &err));
    cr_assert(strstr(err.message, "'t'") && strstr(err.message, "not a loop test"), "%s",
              err.message);
    cr_assert_null(
        load_graph(HAND_JSON(LOOPS, "4", PLAIN("in", "s"), "", TASK_AFTER(CELL("in", "0"))), &err));
    cr_assert(strstr(err.message, "'y'") && strstr(err.message, "does not hold"), "%s",
              err.message);
    cr_assert_null(
        load_graph(HAND_JSON(LOOPS, "4", "{'type': 'in', 'var': 'a', 'index': {'loop': 'L'}}", "",
                             NO_TASK_AFTER),
                   &err));
    cr_assert(strstr(err.message, "'t'") && strstr(err.message, "depend[0].index"), "%s",
              err.message);
    cr_assert_null(load_graph(HAND_JSON(LOOPS, "4",
                                        "{'type': 'in', 'var': 'a', 'index': {'loop': 'nope', "
                                        "'offset': 1}}",
                                        "", NO_TASK_AFTER),
                              &err));
    cr_assert(strstr(err.message, "'nope'"), "%s", err.message);
}

/* Outside the closable class (here: the base a indexed by two loops) the
 * bound comes from the unrolling up to RTA_LOOP_DEPEND_LIMIT nodes, and the
 * graph is refused by name above it. */
#define TWO_LOOPS(K)                                                                               \
    "{'format': 'ompdag-condag', 'version': 1, 'extensions': ['loops'], 'nodes': ["                \
    "{'id': 'L', 'task': 'main', 'kind': 'C', 'wcet': 0, 'repeat': " K ","                         \
    " 'loc': {'file': 'c.c', 'line': 3, 'col': 1}},"                                               \
    "{'id': 't', 'task': 'main', 'kind': 'T', 'wcet': 0, 'creates': 'k', 'depend': ["              \
    "{'type': 'out', 'var': 'a', 'index': {'loop': 'L', 'offset': 0}}]},"                          \
    "{'id': 'x', 'task': 'main', 'kind': 'J', 'wcet': 0},"                                         \
    "{'id': 'M', 'task': 'main', 'kind': 'C', 'wcet': 0, 'repeat': " K "},"                        \
    "{'id': 'u', 'task': 'main', 'kind': 'T', 'wcet': 0, 'creates': 'j', 'depend': ["              \
    "{'type': 'in', 'var': 'a', 'index': {'loop': 'M', 'offset': 0}}]},"                           \
    "{'id': 'y', 'task': 'main', 'kind': 'J', 'wcet': 0},"                                         \
    "{'id': 'k', 'task': 'k', 'kind': 'N', 'wcet': 10},"                                           \
    "{'id': 'j', 'task': 'j', 'kind': 'N', 'wcet': 3}],"                                           \
    "'edges': [['L','t'],['L','x'],['t','x'],['x','M'],['M','u'],['M','y'],['u','y']]}"

Test(loop_depend, outside_the_class_the_unrolling_and_its_limit)
{
    ompdag_error err;
    ompdag_condag *g = load_graph(TWO_LOOPS("300"), &err);
    cr_assert_not_null(g, "%s", err.message);
    cr_assert_not(closable(g));
    /* a[i] written in the first loop, read in the second: a path of 10 + 3 */
    cr_assert_eq(hand_bound(TWO_LOOPS("300"), 4), 300 * 13 + 3 * 13);
    /* the worst flow runs every task: vol = 300·13, len = 10 + 3 */
    ompdag_condag *x = NULL;
    cr_assert_eq(ompdag_compact_expand(g, 0, &x, &err), OMPDAG_OK, "%s", err.message);
    for (int32_t m = 1; m <= 4; ++m)
        for (int64_t o = 0; o <= 7; o += 7)
            unrolled_flow_matches(g, x, m, o);
    ompdag_condag_destroy(x);
    ompdag_rta_options o2;
    ompdag_rta_options_init(&o2, 2);
    ompdag_rta_result *r0 = run_ok(g, &o2);
    cr_assert_eq(ompdag_rta_result_vol(r0), 300 * 13);
    cr_assert_eq(ompdag_rta_result_len(r0), 13);
    ompdag_rta_result_destroy(r0);
    o2.bound_only = true; /* asked for the bound alone: no flow */
    r0 = run_ok(g, &o2);
    cr_assert_eq(ompdag_rta_result_vol(r0), -1);
    cr_assert_eq(ompdag_rta_result_bound_times_m(r0), 300 * 13 + 13);
    ompdag_rta_result_destroy(r0);
    ompdag_condag_destroy(g);
    /* at 1000 iterations rta_depend.c merges the expansion's 2000 cells into
     * classes (its cell budget): sound, and said not to be exact */
    g = load_graph(TWO_LOOPS("1000"), &err);
    ompdag_rta_options o4;
    ompdag_rta_options_init(&o4, 4);
    ompdag_rta_result *r1 = run_ok(g, &o4);
    cr_assert_not(ompdag_rta_result_is_exact(r1));
    cr_assert_geq(ompdag_rta_result_bound_times_m(r1), 1000 * 13 + 3 * 13);
    cr_assert_eq(ompdag_rta_result_vol(r1), -1, "no worst flow for a bound that is not exact");
    cr_assert(strstr(ompdag_rta_result_path_missing(r1), "not exact"));
    ompdag_rta_result_destroy(r1);
    ompdag_condag_destroy(g);
    g = load_graph(TWO_LOOPS("600000"), &err);
    cr_assert_not_null(g, "%s", err.message);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 4);
    ompdag_rta_result *r = NULL;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_ERR_LIMIT);
    cr_assert_null(r);
    cr_assert(strstr(err.message, "1000000") && strstr(err.message, "RTA_LOOP_DEPEND_LIMIT") &&
                  strstr(err.message, "'L' at c.c:3"),
              "%s", err.message);
    ompdag_condag_destroy(g);
}

/* m·R beyond int64 is an error naming the loop, never a wrapped bound. */
Test(loop_depend, overflow_names_the_loop)
{
    ompdag_error err;
    ompdag_condag *g = load_graph(HAND_JSON(LOOPS, "1000000000000000000", CELL("in", "0") ",",
                                            CELL("out", "1"), NO_TASK_AFTER),
                                  &err);
    cr_assert_not_null(g, "%s", err.message);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 4);
    ompdag_rta_result *r = NULL;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_ERR_OVERFLOW);
    cr_assert_null(r);
    cr_assert(strstr(err.message, "'L' at c.c:7"), "%s", err.message);
    ompdag_condag_destroy(g);
}

/* An index may follow an outer loop: in copy t~i~j (outer i, inner j) the
 * cell of the outer index is i + offset, that of the inner j + offset. */
Test(loop_depend, nested_indices_name_their_own_loop)
{
    const char *json =
        "{'format': 'ompdag-condag', 'version': 1, 'extensions': ['loops'], "
        "'nodes': ["
        "{'id': 'L', 'task': 'main', 'kind': 'C', 'wcet': 0, 'repeat': 2},"
        "{'id': 'M', 'task': 'main', 'kind': 'C', 'wcet': 0, 'repeat': 3},"
        "{'id': 't', 'task': 'main', 'kind': 'T', 'wcet': 0, 'creates': 'k', "
        "'depend': [{'type': 'in', 'var': 'a', 'index': {'loop': 'L', 'offset': 10}},"
        "{'type': 'out', 'var': 'b', 'index': {'loop': 'M', 'offset': -1}}]},"
        "{'id': 'y', 'task': 'main', 'kind': 'J', 'wcet': 0},"
        "{'id': 'x', 'task': 'main', 'kind': 'J', 'wcet': 0},"
        "{'id': 'k', 'task': 'k', 'kind': 'N', 'wcet': 4}],"
        "'edges': [['L','M'],['L','x'],['M','t'],['M','y'],['t','y'],['y','x']]}";
    ompdag_error err;
    ompdag_condag *g = load_graph(json, &err);
    cr_assert_not_null(g, "%s", err.message);
    cr_assert_not(closable(g), "nested loops: the unrolled path");
    ompdag_condag *x = NULL;
    cr_assert_eq(ompdag_compact_expand(g, 0, &x, &err), OMPDAG_OK, "%s", err.message);
    static const char *const ids[] = {"t", "t~1", "t~2", "t~1~0", "t~1~1", "t~1~2"};
    for (int c = 0; c < 6; ++c) {
        int32_t v = node_index(x, ids[c]);
        char a[16], b[16];
        snprintf(a, sizeof a, "a[%d]", 10 + c / 3);
        snprintf(b, sizeof b, "b[%d]", c % 3 - 1);
        cr_assert_str_eq(ompdag_condag_depend_var_name(x, ompdag_condag_node_depend_var(x, v, 0)),
                         a, "%s", ids[c]);
        cr_assert_str_eq(ompdag_condag_depend_var_name(x, ompdag_condag_node_depend_var(x, v, 1)),
                         b, "%s", ids[c]);
    }
    /* a[10] read by 3 tasks, then a[11]; b[j-1] written once per outer
     * iteration: the second outer iteration's tasks follow the first's */
    cr_assert_eq(bound_of(g, OMPDAG_ALG_EXACT, 1), 24);
    cr_assert_eq(bound_of(g, OMPDAG_ALG_EXACT, 2), 24 + 8);
    ompdag_condag_destroy(x);
    ompdag_condag_destroy(g);
}
