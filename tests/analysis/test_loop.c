/* tests/analysis/test_loop.c — compact loops (docs/compact.md, "Compact
 * loops"; issue 29).
 *
 * Property test: random task programs (shared bodies in a creation DAG) whose
 * bodies hold loops — nested, with branches and taskwaits inside and after
 * them, tasks created in them — are unrolled by ompdag_compact_expand, and
 * the loop dynamic program's bound (analysis/rta_loop.c) must equal Alg1 on
 * the unrolled graph bit for bit, for several m, with WFS and BFS migration
 * overhead, with dispatch delays on the chain only and folded.  Plus: closed forms at 10^6 and
 * 10^15 iterations, the unrolled shape (the front end's at-most unrolling), the format (round trip,
 * refusal without the extension) and the errors. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "ompdag/compact.h"
#include "ompdag/dot.h"
#include "rta_loop.h"
#include "support.h"

static bool has_fedge(const ompdag_condag *g, int32_t from, int32_t to)
{
    int32_t n;
    const int32_t *s = ompdag_condag_node_fsucc(g, from, &n);
    for (int32_t i = 0; i < n; ++i)
        if (s[i] == to) return true;
    return false;
}

/* ---- random programs with loops ----------------------------------------- */

typedef struct loop_gen {
    ompdag_condag *g;
    ompdag_rng *r;
    int body, nbodies, count;
    bool *created;
    bool delays; /* dispatch delays on some nodes (docs/overheads.md) */
} loop_gen;

static int32_t add(loop_gen *b, char kind, const char *creates)
{
    char id[32], task[32];
    snprintf(id, sizeof id, "b%dn%d", b->body, b->count++);
    snprintf(task, sizeof task, "b%d", b->body);
    ompdag_node_spec s = {.id = id,
                          .task = task,
                          .kind = (ompdag_kind)kind,
                          .wcet = kind == 'C' || kind == 'J' ? ompdag_rng_range(b->r, 0, 2)
                                                             : ompdag_rng_range(b->r, 0, 40),
                          .creates = creates,
                          .loc = {"loop.c", 10 + b->count % 9, 0}};
    int32_t v;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_add_node(b->g, &s, &v, &err), OMPDAG_OK, "%s", err.message);
    if (b->delays && ompdag_rng_unit(b->r) < 0.3)
        cr_assert_eq(ompdag_condag_assign_delay(b->g, v, ompdag_rng_range(b->r, 1, 6), &err),
                     OMPDAG_OK, "%s", err.message);
    return v;
}

static void edge(loop_gen *b, int32_t from, int32_t to)
{
    ompdag_error err;
    cr_assert_eq(ompdag_condag_add_edge(b->g, from, to, &err), OMPDAG_OK, "%s", err.message);
}

static int32_t leaf(loop_gen *b, int32_t tail)
{
    double x = ompdag_rng_unit(b->r);
    int32_t v;
    if (x < 0.45 && b->body + 1 < b->nbodies) {
        int target = (int)ompdag_rng_range(b->r, b->body + 1, b->nbodies - 1);
        char creates[32];
        snprintf(creates, sizeof creates, "b%d", target);
        b->created[target] = true;
        v = add(b, 'T', creates);
    } else {
        v = add(b, x < 0.7 ? 'W' : 'N', NULL);
    }
    edge(b, tail, v);
    return v;
}

static int32_t sequence(loop_gen *b, int32_t tail, int len, int depth);

/* test -> body -> exit J, test -> exit J, with "repeat" 1..4 (rarely more). */
static int32_t loop(loop_gen *b, int32_t tail, int depth)
{
    int32_t t = add(b, 'C', NULL);
    edge(b, tail, t);
    int32_t end = sequence(b, t, (int)ompdag_rng_range(b->r, 1, 3), depth + 1);
    int32_t x = add(b, 'J', NULL);
    edge(b, t, x); /* after the body's entry: the test's second successor */
    edge(b, end, x);
    int64_t k =
        ompdag_rng_unit(b->r) < 0.1 ? ompdag_rng_range(b->r, 5, 9) : ompdag_rng_range(b->r, 1, 4);
    ompdag_error err;
    cr_assert_eq(ompdag_compact_set_repeat(b->g, t, k, &err), OMPDAG_OK, "%s", err.message);
    return x;
}

static int32_t branch(loop_gen *b, int32_t tail, int depth)
{
    int32_t c = add(b, 'C', NULL);
    edge(b, tail, c);
    int k = (int)ompdag_rng_range(b->r, 2, 3);
    int32_t ends[3];
    for (int a = 0; a < k; ++a) {
        int n = (int)ompdag_rng_range(b->r, a ? 1 : 0, 2);
        ends[a] = n ? sequence(b, c, n, depth + 1) : c;
    }
    int32_t j = add(b, 'J', NULL);
    for (int a = 0; a < k; ++a)
        edge(b, ends[a], j);
    return j;
}

/* Appends `len` items after tail; nesting is bounded by the constant 3. */
static int32_t sequence(loop_gen *b, int32_t tail, int len, int depth)
{
    for (int i = 0; i < len; ++i) {
        double x = ompdag_rng_unit(b->r);
        if (depth < 3 && x < 0.25)
            tail = loop(b, tail, depth);
        else if (depth < 3 && x < 0.4)
            tail = branch(b, tail, depth);
        else
            tail = leaf(b, tail);
    }
    return tail;
}

/* A random program with loops whose unrolling has at most `limit` nodes. */
static ompdag_condag *random_loops(ompdag_rng *r, int bodies, uint64_t limit)
{
    for (;;) {
        ompdag_condag *g = ompdag_condag_create();
        ompdag_error err;
        cr_assert_eq(ompdag_compact_enable_loops(g, &err), OMPDAG_OK);
        int nb = (int)ompdag_rng_range(r, 1, bodies);
        bool created[16] = {false}, delays = ompdag_rng_unit(r) < 0.3;
        for (int i = 0; i < nb; ++i) {
            loop_gen b = {g, r, i, nb, 0, created, delays};
            int32_t tail = sequence(&b, add(&b, 'N', NULL), (int)ompdag_rng_range(r, 1, 5), 0);
            if (i + 1 < nb && !created[i + 1]) {
                char creates[32];
                snprintf(creates, sizeof creates, "b%d", i + 1);
                created[i + 1] = true;
                edge(&b, tail, add(&b, 'T', creates));
            }
        }
        cr_assert_eq(ompdag_condag_finalize(g, &err), OMPDAG_OK, "%s", err.message);
        if (ompdag_compact_expanded_node_count(g) <= limit) return g;
        ompdag_condag_destroy(g);
    }
}

static ompdag_condag *unroll_ok(const ompdag_condag *g)
{
    ompdag_condag *x = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_compact_expand(g, 0, &x, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_not(ompdag_compact_is_compact(x));
    cr_assert_eq((uint64_t)ompdag_condag_node_count(x), ompdag_compact_expanded_node_count(g));
    return x;
}

static int64_t loop_bound(const ompdag_condag *g, const ompdag_rta_options *o)
{
    ompdag_rta_options opt = *o;
    opt.bound_only = true;
    ompdag_rta_result *r = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    int64_t b = ompdag_rta_result_bound_times_m(r);
    ompdag_rta_result_destroy(r);
    return b;
}

static void compare(const ompdag_condag *g, const ompdag_condag *x, const ompdag_rta_options *opt)
{
    int64_t c = loop_bound(g, opt), u = loop_bound(x, opt);
    cr_assert_eq(c, u, "m=%d O=%lld model %d: compact loops %lld, unrolled %lld", opt->m,
                 (long long)opt->migration_overhead, (int)opt->migration_model, (long long)c,
                 (long long)u);
}

Test(loops, random_loop_programs_match_the_unrolling)
{
    static const int32_t ms[] = {1, 2, 3, 4, 8, 16};
    ompdag_rng r;
    ompdag_rng_seed(&r, 2929);
    long loops = 0, nested = 0, repeated_tasks = 0, delayed = 0;
    for (int i = 0; i < 1200; ++i) {
        ompdag_condag *g = random_loops(&r, 5, 2500);
        ompdag_condag *x = unroll_ok(g);
        bool any = false, deep = false;
        for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
            any |= ompdag_compact_loop_repeat(g, v) > 0;
            deep |= ompdag_compact_node_instances(g, v) > 4 &&
                    ompdag_compact_node_instances(g, v) >
                        ompdag_compact_task_instances(g, ompdag_condag_node_task(g, v));
        }
        for (int32_t t = 0; t < ompdag_condag_task_count(g); ++t)
            repeated_tasks += ompdag_compact_task_instances(g, t) > 1;
        loops += any, nested += deep, delayed += ompdag_condag_has_delays(g);
        for (size_t k = 0; k < sizeof ms / sizeof ms[0]; ++k) {
            ompdag_rta_options opt;
            ompdag_rta_options_init(&opt, ms[k]);
            compare(g, x, &opt);
            if (k == 1) {
                opt.fold_delays = true; /* delays everywhere, not on the chain only */
                compare(g, x, &opt);
            }
            if (k == 2) {
                opt.migration_overhead = 7;
                compare(g, x, &opt);
                opt.migration_model = OMPDAG_MIGRATION_BFS;
                compare(g, x, &opt);
            }
        }
        ompdag_condag_destroy(x);
        ompdag_condag_destroy(g);
    }
    /* the generator really exercises loops, nesting and tasks created in loops */
    cr_assert_gt(loops, 700, "only %ld programs with a loop", loops);
    cr_assert_gt(nested, 150, "only %ld programs with many copies of a node", nested);
    cr_assert_gt(delayed, 200, "only %ld programs with dispatch delays", delayed);
    cr_assert_gt(repeated_tasks, 500, "only %ld tasks created more than once", repeated_tasks);
}

/* ---- the worst flow ------------------------------------------------------- */

static ompdag_rta_result *witness_ok(const ompdag_condag *g, const ompdag_rta_options *opt)
{
    ompdag_rta_result *r = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, opt, &r, &err), OMPDAG_OK, "%s", err.message);
    cr_assert(ompdag_rta_result_has_witness(r));
    return r;
}

static void check_path(const ompdag_condag *g, const ompdag_rta_result *rc);

/* The compact-loop witness against Alg1's on the full unrolling (plain
 * graph, build_witness): vol, len and migrations equal; the critical path,
 * one node per copy, is whole, starts at the root and (without delays)
 * weighs len; every reached loop test has a choice. */
static void compare_witness(const ompdag_condag *g, const ompdag_condag *x,
                            const ompdag_rta_options *opt)
{
    ompdag_rta_result *rc = witness_ok(g, opt), *rx = witness_ok(x, opt);
    cr_assert_eq(ompdag_rta_result_bound_times_m(rc), ompdag_rta_result_bound_times_m(rx));
    cr_assert_eq(ompdag_rta_result_vol(rc), ompdag_rta_result_vol(rx),
                 "m=%d O=%lld: vol %lld, unrolled %lld", opt->m, (long long)opt->migration_overhead,
                 (long long)ompdag_rta_result_vol(rc), (long long)ompdag_rta_result_vol(rx));
    cr_assert_eq(ompdag_rta_result_len(rc), ompdag_rta_result_len(rx),
                 "m=%d O=%lld: len %lld, unrolled %lld", opt->m, (long long)opt->migration_overhead,
                 (long long)ompdag_rta_result_len(rc), (long long)ompdag_rta_result_len(rx));
    cr_assert_eq(ompdag_rta_result_migrations(rc), ompdag_rta_result_migrations(rx));
    check_path(g, rc);
    ompdag_rta_result_destroy(rc);
    ompdag_rta_result_destroy(rx);
}

/* The critical path of a loop witness is whole, starts at the root and
 * (without delays) weighs len; every reached loop test has a choice and runs
 * all K iterations (with non-negative WCETs running the body never loses,
 * and ties go to the body: docs/compact.md, "Where the maximum is"). */
static void check_path(const ompdag_condag *g, const ompdag_rta_result *rc)
{
    int32_t n;
    const int32_t *path = ompdag_rta_result_critical_path(rc, &n);
    cr_assert_eq((uint64_t)n, ompdag_rta_result_path_nodes(rc));
    cr_assert_eq(path[0], ompdag_condag_task_source(g, ompdag_condag_root_task(g)));
    if (!ompdag_condag_has_delays(g)) {
        int64_t sum = 0;
        for (int32_t i = 0; i < n; ++i)
            sum += ompdag_condag_node_wcet(g, path[i]);
        cr_assert_eq(sum, ompdag_rta_result_len(rc), "path weighs %lld, len %lld", (long long)sum,
                     (long long)ompdag_rta_result_len(rc));
    }
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) { /* loop counts within bounds */
        int64_t lo = -1, hi = -1, K = ompdag_compact_loop_repeat(g, v);
        bool has = ompdag_rta_result_loop_iterations(rc, v, &lo, &hi);
        cr_assert_eq(has, K > 0 && ompdag_rta_result_choice(rc, v) >= 0);
        if (has)
            cr_assert(lo == K && hi == K, "%lld..%lld of %lld", (long long)lo, (long long)hi,
                      (long long)K);
    }
}

Test(loops, the_witness_matches_alg1_on_the_unrolling)
{
    static const int32_t ms[] = {1, 2, 3, 8};
    ompdag_rng r;
    ompdag_rng_seed(&r, 2930);
    for (int i = 0; i < 500; ++i) {
        ompdag_condag *g = random_loops(&r, 5, 2000);
        ompdag_condag *x = unroll_ok(g);
        for (size_t k = 0; k < sizeof ms / sizeof ms[0]; ++k) {
            ompdag_rta_options opt;
            ompdag_rta_options_init(&opt, ms[k]);
            compare_witness(g, x, &opt);
            if (k == 2) {
                opt.migration_overhead = 7;
                compare_witness(g, x, &opt);
                opt.migration_model = OMPDAG_MIGRATION_BFS;
                compare_witness(g, x, &opt);
            }
        }
        ompdag_condag_destroy(x);
        ompdag_condag_destroy(g);
    }
}

/* ---- vol, len and migrations at any K (analysis/rta_loop_witness.c) ------ */

/* The tuple pass (val, vol, len, mig, pw) run directly on g, after its bound. */
static ompdag_rta_result *flow_sums(const ompdag_condag *g, const ompdag_rta_options *o)
{
    ompdag_rta_options opt = *o;
    opt.bound_only = true;
    ompdag_rta_result *r = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(rta_loop_flow_sums(g, o, r, &err), OMPDAG_OK, "%s", err.message);
    return r;
}

typedef struct sums_tally {
    long runs, equal, ties, replayed;
} sums_tally;

/* With the path limit at 1 (no unrolling at all), the result of g carries
 * vol, len and migrations only.  Against the unrolling x: the same tuples
 * as the plain pass on x (the matrices and the doubling reproduce it in
 * every component), and a worst flow at least as large, lexicographically
 * in (vol, len, migrations), as Alg1's witness on x (build_witness): equal
 * unless several worst flows tie, where the tuple pass keeps the largest
 * volume, then the longest path.  Without delays the parts add up. */
static void compare_sums(const ompdag_condag *g, const ompdag_condag *x,
                         const ompdag_rta_options *opt, sums_tally *t)
{
    rta_loop_set_witness_limit(1);
    ompdag_rta_result *rc = NULL, *rs = flow_sums(x, opt), *rx = witness_ok(x, opt);
    ompdag_error err;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, opt, &rc, &err), OMPDAG_OK, "%s", err.message);
    rta_loop_set_witness_limit(0);
    if (ompdag_rta_result_has_witness(rc) && ompdag_compact_has_loops(g)) { /* replayed */
        check_path(g, rc);
        t->replayed++;
    } else if (ompdag_compact_has_loops(g)) { /* small graphs: never */
        cr_assert_fail("no path: %s", ompdag_rta_result_path_missing(rc));
    } else {
        cr_assert_null(ompdag_rta_result_path_missing(rc));
    }
    int64_t btm = ompdag_rta_result_bound_times_m(rc);
    cr_assert_eq(btm, ompdag_rta_result_bound_times_m(rx));
    int64_t c[3] = {ompdag_rta_result_vol(rc), ompdag_rta_result_len(rc),
                    ompdag_rta_result_migrations(rc)};
    int64_t s[3] = {ompdag_rta_result_vol(rs), ompdag_rta_result_len(rs),
                    ompdag_rta_result_migrations(rs)};
    int64_t u[3] = {ompdag_rta_result_vol(rx), ompdag_rta_result_len(rx),
                    ompdag_rta_result_migrations(rx)};
    for (int k = 0; k < 3 && ompdag_compact_has_loops(g); ++k)
        cr_assert_eq(c[k], s[k], "m=%d O=%lld: component %d: loops %lld, unrolled %lld", opt->m,
                     (long long)opt->migration_overhead, k, (long long)c[k], (long long)s[k]);
    int k = 0;
    while (k < 3 && c[k] == u[k])
        ++k;
    cr_assert(k == 3 || c[k] > u[k], "m=%d O=%lld: (vol %lld, len %lld) below Alg1's (%lld, %lld)",
              opt->m, (long long)opt->migration_overhead, (long long)c[0], (long long)c[1],
              (long long)u[0], (long long)u[1]);
    if (!ompdag_condag_has_delays(g))
        cr_assert_eq(c[0] + (opt->m - 1) * c[1] + opt->m * opt->migration_overhead * c[2], btm);
    if (ompdag_compact_has_loops(g)) t->runs++, t->equal += k == 3, t->ties += k < 3;
    ompdag_rta_result_destroy(rc);
    ompdag_rta_result_destroy(rs);
    ompdag_rta_result_destroy(rx);
}

Test(loops, the_flow_sums_match_alg1_on_the_unrolling)
{
    static const int32_t ms[] = {1, 2, 3, 8};
    ompdag_rng r;
    ompdag_rng_seed(&r, 2931);
    sums_tally t = {0};
    for (int i = 0; i < 1000; ++i) {
        ompdag_condag *g = random_loops(&r, 5, 2000);
        ompdag_condag *x = unroll_ok(g);
        for (size_t k = 0; k < sizeof ms / sizeof ms[0]; ++k) {
            ompdag_rta_options opt;
            ompdag_rta_options_init(&opt, ms[k]);
            compare_sums(g, x, &opt, &t);
            if (k == 1) {
                opt.fold_delays = true;
                compare_sums(g, x, &opt, &t);
            }
            if (k == 2) {
                opt.migration_overhead = 7;
                compare_sums(g, x, &opt, &t);
                opt.migration_model = OMPDAG_MIGRATION_BFS;
                compare_sums(g, x, &opt, &t);
            }
        }
        ompdag_condag_destroy(x);
        ompdag_condag_destroy(g);
    }
    printf("loops/the_flow_sums_match_alg1_on_the_unrolling: %ld runs, %ld equal to Alg1's "
           "witness, %ld ties with a larger volume or path; path replayed in runs %ld\n",
           t.runs, t.equal, t.ties, t.replayed);
    cr_assert_gt(t.equal, t.runs * 3 / 4, "only %ld of %ld equal", t.equal, t.runs);
}

/* ---- the format ---------------------------------------------------------- */

/* main: a -> L(C, repeat) -> t(T creates k) -> w(W) -> x(J) -> z; L -> x. */
#define LOOP_JSON(EXT, REPEAT)                                                                     \
    "{'format': 'ompdag-condag', 'version': 1, " EXT "'nodes': ["                                  \
    "{'id': 'a', 'task': 'main', 'kind': 'N', 'wcet': 3},"                                         \
    "{'id': 'L', 'task': 'main', 'kind': 'C', 'wcet': 1, 'repeat': " REPEAT ","                    \
    " 'loc': {'file': 'l.c', 'line': 4, 'col': 1}},"                                               \
    "{'id': 't', 'task': 'main', 'kind': 'T', 'wcet': 2, 'creates': 'k'},"                         \
    "{'id': 'w', 'task': 'main', 'kind': 'W', 'wcet': 5},"                                         \
    "{'id': 'x', 'task': 'main', 'kind': 'J', 'wcet': 0},"                                         \
    "{'id': 'z', 'task': 'main', 'kind': 'N', 'wcet': 4},"                                         \
    "{'id': 'k', 'task': 'k', 'kind': 'N', 'wcet': 10}],"                                          \
    "'edges': [['a','L'],['L','t'],['L','x'],['t','w'],['w','x'],['x','z']]}"

/* Per iteration: test 1, T 2, child 10, W 5.  The worst flow runs all K
 * iterations (K tests: the last body leads straight to the exit); the
 * longest path goes through every child (the W waits for it): per iteration
 * path 1 + 2 + 10 + 5 = 18, volume 18. */
static int64_t closed_form(int64_t k, int32_t m)
{
    int64_t vol = 3 + 18 * k + 4, len = 3 + 18 * k + 4;
    return vol + (m - 1) * len;
}

Test(loops, file_round_trip_and_closed_form)
{
    ompdag_error err;
    ompdag_condag *g = load_graph(LOOP_JSON("'extensions': ['loops'], ", "1000"), &err);
    cr_assert_not_null(g, "%s", err.message);
    cr_assert(ompdag_compact_has_loops(g));
    cr_assert_eq(ompdag_compact_loop_repeat(g, node_index(g, "L")), 1000);
    cr_assert_eq(ompdag_compact_node_instances(g, node_index(g, "w")), 1000);
    cr_assert_eq(ompdag_compact_task_instances(g, ompdag_condag_node_task(g, node_index(g, "k"))),
                 1000);
    cr_assert_eq(ompdag_compact_expanded_node_count(g), 3 + 3 * 1000 + 1000);
    for (int32_t m = 1; m <= 8; ++m) {
        ompdag_rta_options opt;
        ompdag_rta_options_init(&opt, m);
        cr_assert_eq(loop_bound(g, &opt), closed_form(1000, m), "m=%d", m);
    }
    ompdag_condag_destroy(g);
}

/* A million and 10^15 iterations: the same closed form, no unrolling. */
Test(loops, a_million_iterations_and_more_without_unrolling)
{
    static const char *const ks[] = {"1000000", "1000000000000000"};
    static const int64_t kv[] = {1000000, 1000000000000000};
    for (int i = 0; i < 2; ++i) {
        char json[2048];
        snprintf(json, sizeof json, LOOP_JSON("'extensions': ['loops'], ", "%s"), ks[i]);
        ompdag_error err;
        ompdag_condag *g = load_graph(json, &err);
        cr_assert_not_null(g, "%s", err.message);
        ompdag_rta_options opt;
        ompdag_rta_options_init(&opt, 4);
        cr_assert_eq(loop_bound(g, &opt), closed_form(kv[i], 4), "%lld vs %lld",
                     (long long)loop_bound(g, &opt), (long long)closed_form(kv[i], 4));
        ompdag_condag *x = NULL;
        cr_assert_eq(ompdag_compact_expand(g, 100000, &x, &err), OMPDAG_ERR_LIMIT);
        ompdag_condag_destroy(g);
    }
}

/* m·R beyond int64 is an error, never a wrapped bound. */
Test(loops, overflow_is_an_error)
{
    ompdag_error err;
    ompdag_condag *g =
        load_graph(LOOP_JSON("'extensions': ['loops'], ", "1000000000000000000"), &err);
    cr_assert_not_null(g, "%s", err.message);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 4);
    opt.bound_only = true;
    ompdag_rta_result *r = NULL;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_ERR_OVERFLOW);
    cr_assert_null(r);
    cr_assert(strstr(err.message, "node 'L' at l.c:4 repeats up to 1000000000000000000 times"),
              "%s", err.message);
    ompdag_condag_destroy(g);
}

/* The unrolling is the front end's at-most unrolling: a test before each
 * iteration, every test and the last body leading to the exit. */
Test(loops, expand_writes_the_at_most_unrolling)
{
    ompdag_error err;
    ompdag_condag *g = load_graph(LOOP_JSON("'extensions': ['loops'], ", "3"), &err);
    cr_assert_not_null(g, "%s", err.message);
    ompdag_condag *x = unroll_ok(g);
    cr_assert_eq(ompdag_condag_node_count(x), 3 + 3 * 3 + 3);
    const char *tests[] = {"L", "L~1", "L~2"}, *waits[] = {"w", "w~1", "w~2"};
    int32_t xj = node_index(x, "x");
    for (int i = 0; i < 3; ++i) {
        int32_t t = node_index(x, tests[i]), w = node_index(x, waits[i]);
        cr_assert_eq(ompdag_condag_node_kind(x, t), OMPDAG_KIND_C);
        cr_assert_null(ompdag_condag_extra(x, t), "the copies are plain C nodes");
        cr_assert(has_fedge(x, t, xj), "%s exits", tests[i]);
        cr_assert(has_fedge(x, w, i < 2 ? node_index(x, tests[i + 1]) : xj));
    }
    for (int32_t m = 1; m <= 4; ++m) {
        ompdag_rta_options opt;
        ompdag_rta_options_init(&opt, m);
        cr_assert_eq(loop_bound(g, &opt), closed_form(3, m));
        cr_assert_eq(bound_of(x, OMPDAG_ALG_ENUMERATE, m), closed_form(3, m));
    }
    ompdag_condag_destroy(x);
    ompdag_condag_destroy(g);
}

/* Without the extension "repeat" would be read as one iteration: refused. */
Test(loops, repeat_without_the_extension_is_refused)
{
    ompdag_error err;
    cr_assert_null(load_graph(LOOP_JSON("", "4"), &err));
    cr_assert(strstr(err.message, "'L'") && strstr(err.message, "loops"), "%s", err.message);
    cr_assert_null(load_graph(LOOP_JSON("'extensions': ['compact'], ", "4"), &err));
    cr_assert(strstr(err.message, "loops"), "%s", err.message);
}

Test(loops, bad_loops_are_named)
{
    ompdag_error err;
    cr_assert_null(load_graph(LOOP_JSON("'extensions': ['loops'], ", "0"), &err));
    cr_assert(strstr(err.message, "'L'") && strstr(err.message, ">= 1"), "%s", err.message);
    /* a break: the body leaves to the exit from the middle */
    const char *brk =
        "{'format': 'ompdag-condag', 'version': 1, 'extensions': ['loops'], 'nodes': ["
        "{'id': 'L', 'task': 'main', 'kind': 'C', 'wcet': 0, 'repeat': 5},"
        "{'id': 'c', 'task': 'main', 'kind': 'C', 'wcet': 0},"
        "{'id': 'w', 'task': 'main', 'kind': 'W', 'wcet': 5},"
        "{'id': 'x', 'task': 'main', 'kind': 'J', 'wcet': 0}],"
        "'edges': [['L','c'],['L','x'],['c','w'],['c','x'],['w','x']]}";
    cr_assert_null(load_graph(brk, &err));
    cr_assert(strstr(err.message, "'L'"), "%s", err.message);
    /* a loop test that is not a C node */
    const char *notc = "{'format': 'ompdag-condag', 'version': 1, 'extensions': ['loops'], "
                       "'nodes': [{'id': 'a', 'task': 'main', 'kind': 'N', 'wcet': 0, "
                       "'repeat': 2}], 'edges': []}";
    cr_assert_null(load_graph(notc, &err));
    cr_assert(strstr(err.message, "'a'") && strstr(err.message, "C node"), "%s", err.message);
}

/* The worst flow of a compact loop: the closed form's vol and len, a
 * critical path of one node per copy (the iteration block K times), the
 * test's choice the body; alg0 needs the unrolling.  Above the unrolling
 * limit of the witness the bound comes alone. */
Test(loops, the_witness_has_the_closed_form)
{
    ompdag_error err;
    ompdag_condag *g = load_graph(LOOP_JSON("'extensions': ['loops'], ", "3"), &err);
    cr_assert_not_null(g, "%s", err.message);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 2);
    ompdag_rta_result *r = NULL;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_rta_result_bound_times_m(r), closed_form(3, 2));
    cr_assert(ompdag_rta_result_has_witness(r));
    cr_assert_eq(ompdag_rta_result_vol(r), 3 + 18 * 3 + 4);
    cr_assert_eq(ompdag_rta_result_len(r), 3 + 18 * 3 + 4);
    int32_t n = -1;
    const int32_t *path = ompdag_rta_result_critical_path(r, &n);
    cr_assert_eq(n, 1 + 4 * 3 + 2); /* a, (L t k w) x3, x, z: the last body leads to x */
    cr_assert_eq(path[1], node_index(g, "L"));
    cr_assert_eq(path[3], node_index(g, "k"));
    cr_assert_eq(ompdag_rta_result_choice(r, node_index(g, "L")), node_index(g, "t"));
    cr_assert_eq(ompdag_rta_result_choice_alt(r, node_index(g, "L")), -1); /* all 3 iterate */
    int64_t lo = -1, hi = -1;
    cr_assert(ompdag_rta_result_loop_iterations(r, node_index(g, "L"), &lo, &hi));
    cr_assert(lo == 3 && hi == 3, "%lld..%lld", (long long)lo, (long long)hi);
    cr_assert_not(ompdag_rta_result_loop_iterations(r, node_index(g, "t"), &lo, &hi));
    ompdag_rta_result_destroy(r);
    r = NULL;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_ALG0, &opt, &r, &err), OMPDAG_ERR_UNSUPPORTED);
    cr_assert_null(r);
    ompdag_condag_destroy(g);
    g = load_graph(LOOP_JSON("'extensions': ['loops'], ", "100000000"), &err);
    cr_assert_not_null(g, "%s", err.message);
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_rta_result_bound_times_m(r), closed_form(100000000, 2));
    cr_assert(ompdag_rta_result_has_witness(r)); /* replayed in runs, not unrolled */
    cr_assert_eq(ompdag_rta_result_vol(r), 3 + 18 * 100000000LL + 4);
    cr_assert_eq(ompdag_rta_result_len(r), 3 + 18 * 100000000LL + 4);
    cr_assert_eq(ompdag_rta_result_path_nodes(r), 1 + 4 * 100000000ULL + 2);
    ompdag_rta_result_destroy(r);
    ompdag_condag_destroy(g);
}

/* The printed critical path of r. */
static char *path_text(const ompdag_rta_result *r, const ompdag_condag *g)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    cr_assert_not_null(f);
    ompdag_rta_result_write_path(r, g, f);
    fclose(f);
    return text;
}

/* The format example's worst flow at K: vol and len 7 + 18·K, the path
 * a (L t k w) xK x z, the loop's K iterations. */
static void check_format_flow(const ompdag_condag *g, const ompdag_rta_result *r, int64_t K)
{
    cr_assert(ompdag_rta_result_has_witness(r));
    cr_assert_eq(ompdag_rta_result_vol(r), 3 + 18 * K + 4, "K=%lld: vol %lld", (long long)K,
                 (long long)ompdag_rta_result_vol(r));
    cr_assert_eq(ompdag_rta_result_len(r), 3 + 18 * K + 4);
    cr_assert_eq(ompdag_rta_result_migrations(r), 0);
    cr_assert_eq(ompdag_rta_result_path_nodes(r), 1 + 4 * (uint64_t)K + 2);
    int32_t n = -1;
    const int32_t *path = ompdag_rta_result_critical_path(r, &n);
    cr_assert_eq(path[0], node_index(g, "a"));
    cr_assert_eq(path[1], node_index(g, "L"));
    cr_assert_eq(path[3], node_index(g, "k"));
    cr_assert_eq(path[4], node_index(g, "w"));
    char want[256], *text = path_text(r, g);
    snprintf(want, sizeof want,
             "critical path (%llu nodes): a -> (l.c:4 -> t -> k -> w) x%lld -> x -> z\n",
             (unsigned long long)(1 + 4 * (uint64_t)K + 2), (long long)K);
    cr_assert_str_eq(text, want);
    free(text);
    int32_t L = node_index(g, "L");
    cr_assert_eq(ompdag_rta_result_choice(r, L), node_index(g, "t"));
    cr_assert_eq(ompdag_rta_result_choice_alt(r, L), -1);
    int64_t lo = -1, hi = -1;
    cr_assert(ompdag_rta_result_loop_iterations(r, L, &lo, &hi));
    cr_assert(lo == K && hi == K, "%lld..%lld", (long long)lo, (long long)hi);
}

/* vol, len (and bound) of g at m, through the library's entry with the path
 * limit at `limit` (0: the default). */
static ompdag_rta_result *sums_at(const ompdag_condag *g, int32_t m, uint64_t limit)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    ompdag_rta_result *r = NULL;
    ompdag_error err;
    rta_loop_set_witness_limit(limit);
    ompdag_status st = ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err);
    rta_loop_set_witness_limit(0);
    cr_assert_eq(st, OMPDAG_OK, "%s", err.message);
    return r;
}

/* The format example at K = 3 (no unrolling: the path limit at 1), 10^6 and
 * 10^15, m = 1..4: the closed form's vol and len, the path in one run. */
Test(loops, the_flow_sums_have_the_closed_form)
{
    static const char *const ks[] = {"3", "1000000", "1000000000000000"};
    static const int64_t kv[] = {3, 1000000, 1000000000000000};
    for (int i = 0; i < 3; ++i) {
        char json[2048];
        snprintf(json, sizeof json, LOOP_JSON("'extensions': ['loops'], ", "%s"), ks[i]);
        ompdag_error err;
        ompdag_condag *g = load_graph(json, &err);
        cr_assert_not_null(g, "%s", err.message);
        for (int32_t m = 1; m <= 4; ++m) {
            ompdag_rta_result *r = sums_at(g, m, 1);
            cr_assert_eq(ompdag_rta_result_bound_times_m(r), closed_form(kv[i], m));
            check_format_flow(g, r, kv[i]);
            ompdag_rta_result_destroy(r);
        }
        ompdag_condag_destroy(g);
    }
}

/* A branch whose best side depends on how many iterations remain.  Each
 * iteration takes n (600) or t, which creates k (1000); m = 2.  With r
 * iterations left, A_r = max(1200 + A_{r-1}, 1000 + A_{r-1}, 2000 + V_{r-1})
 * with V_r = 1000·r: ending the path in k pays 2·1000 but leaves the rest
 * of the loop off the path at 1000 per iteration, continuing through n pays
 * 1200 per iteration.  So the last iteration (r = 1) takes t and ends the
 * path in k, every earlier one takes n:
 *   A_K = 1200·(K − 1) + 2000,  vol = len = 600·(K − 1) + 1000. */
#define SWITCH_JSON(REPEAT)                                                                        \
    "{'format': 'ompdag-condag', 'version': 1, 'extensions': ['loops'], 'nodes': ["                \
    "{'id': 'L', 'task': 'main', 'kind': 'C', 'wcet': 0, 'repeat': " REPEAT "},"                   \
    "{'id': 'b', 'task': 'main', 'kind': 'C', 'wcet': 0},"                                         \
    "{'id': 'n', 'task': 'main', 'kind': 'N', 'wcet': 600},"                                       \
    "{'id': 't', 'task': 'main', 'kind': 'T', 'wcet': 0, 'creates': 'k'},"                         \
    "{'id': 'j', 'task': 'main', 'kind': 'J', 'wcet': 0},"                                         \
    "{'id': 'x', 'task': 'main', 'kind': 'J', 'wcet': 0},"                                         \
    "{'id': 'k', 'task': 'k', 'kind': 'N', 'wcet': 1000}],"                                        \
    "'edges': [['L','b'],['L','x'],['b','n'],['b','t'],['n','j'],['t','j'],['j','x']]}"

Test(loops, a_choice_that_changes_with_the_iterations_left)
{
    ompdag_error err;
    ompdag_condag *g = load_graph(SWITCH_JSON("3"), &err);
    cr_assert_not_null(g, "%s", err.message);
    ompdag_rta_result *r = sums_at(g, 2, 0); /* the path, on the unrolling */
    int32_t b = node_index(g, "b"), n = -1;
    cr_assert_eq(ompdag_rta_result_bound_times_m(r), 1200 * 2 + 2000);
    cr_assert_eq(ompdag_rta_result_choice(r, b), node_index(g, "n"));     /* r = 3 and 2 */
    cr_assert_eq(ompdag_rta_result_choice_alt(r, b), node_index(g, "t")); /* r = 1 */
    const int32_t *path = ompdag_rta_result_critical_path(r, &n);
    cr_assert_eq(n, 2 * 4 + 4); /* (L b n j) x2, L b t k */
    cr_assert_eq(path[n - 1], node_index(g, "k"));
    ompdag_rta_result_destroy(r);
    ompdag_condag_destroy(g);
    static const char *const ks[] = {"3", "1000000", "1000000000000000"};
    static const int64_t kv[] = {3, 1000000, 1000000000000000};
    for (int i = 0; i < 3; ++i) {
        char json[2048];
        snprintf(json, sizeof json, SWITCH_JSON("%s"), ks[i]);
        g = load_graph(json, &err);
        cr_assert_not_null(g, "%s", err.message);
        r = sums_at(g, 2, 1); /* replayed in runs: the last iteration is a run of its own */
        cr_assert_eq(ompdag_rta_result_bound_times_m(r), 1200 * (kv[i] - 1) + 2000);
        cr_assert_eq(ompdag_rta_result_vol(r), 600 * (kv[i] - 1) + 1000);
        cr_assert_eq(ompdag_rta_result_len(r), 600 * (kv[i] - 1) + 1000);
        cr_assert_eq(ompdag_rta_result_choice(r, b), node_index(g, "n"));
        cr_assert_eq(ompdag_rta_result_choice_alt(r, b), node_index(g, "t"));
        char want[256], *text = path_text(r, g);
        snprintf(want, sizeof want,
                 "critical path (%lld nodes): (L -> b -> n -> j) x%lld -> L -> b -> t -> k\n",
                 (long long)(4 * kv[i]), (long long)(kv[i] - 1));
        cr_assert_str_eq(text, want);
        free(text);
        int64_t lo = -1, hi = -1;
        cr_assert(ompdag_rta_result_loop_iterations(r, node_index(g, "L"), &lo, &hi));
        cr_assert(lo == kv[i] && hi == kv[i]);
        ompdag_rta_result_destroy(r);
        rta_loop_set_runs_cap(1); /* two runs needed: the replay gives up, vol and len stay */
        r = sums_at(g, 2, 1);
        rta_loop_set_runs_cap(0);
        cr_assert_not(ompdag_rta_result_has_witness(r));
        cr_assert_str_eq(ompdag_rta_result_path_missing(r),
                         "its iterations do not settle into runs");
        cr_assert_eq(ompdag_rta_result_vol(r), 600 * (kv[i] - 1) + 1000);
        cr_assert_eq(ompdag_rta_result_len(r), 600 * (kv[i] - 1) + 1000);
        cr_assert_eq(ompdag_rta_result_choice(r, b), -1);
        cr_assert_not(ompdag_rta_result_loop_iterations(r, node_index(g, "L"), &lo, &hi));
        ompdag_rta_result_destroy(r);
        ompdag_condag_destroy(g);
    }
}

/* dot draws the loop once, with its bound, and an edge back to the test. */
Test(loops, dot_draws_the_loop_once_with_its_bound)
{
    ompdag_error err;
    ompdag_condag *g = load_graph(LOOP_JSON("'extensions': ['loops'], ", "100000"), &err);
    cr_assert_not_null(g, "%s", err.message);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    cr_assert_not_null(out);
    cr_assert_eq(ompdag_dot_write(out, g, NULL, &err), OMPDAG_OK, "%s", err.message);
    fclose(out);
    cr_assert(strstr(text, "loop: at most 100000 iterations"), "%s", text);
    char back[64];
    snprintf(back, sizeof back, "n%d -> n%d [style=bold", node_index(g, "w"), node_index(g, "L"));
    cr_assert(strstr(text, back), "%s", text);
    cr_assert(strstr(text, "k (x 100000)"), "%s", text);
    free(text);
    ompdag_condag_destroy(g);
}

/* ---- mutated files: an error or the same bound as the unrolling ------------- */

/* One random change to a loop graph's file: an extra F-edge, a lost edge,
 * the two edges of a test swapped, or "repeat" moved to another node. */
static void mutate(json_t *o, ompdag_rng *r)
{
    json_t *nodes = json_object_get(o, "nodes"), *edges = json_object_get(o, "edges");
    size_t nn = json_array_size(nodes), ne = json_array_size(edges);
    double x = ompdag_rng_unit(r);
    if (x < 0.35 && nn > 1) {
        json_t *a = json_array_get(nodes, (size_t)ompdag_rng_range(r, 0, (int64_t)nn - 1));
        json_t *b = json_array_get(nodes, (size_t)ompdag_rng_range(r, 0, (int64_t)nn - 1));
        json_array_append_new(
            edges, json_pack("[OO]", json_object_get(a, "id"), json_object_get(b, "id")));
    } else if (x < 0.6 && ne > 0) {
        json_array_remove(edges, (size_t)ompdag_rng_range(r, 0, (int64_t)ne - 1));
    } else if (x < 0.8 && ne > 1) {
        size_t i = (size_t)ompdag_rng_range(r, 0, (int64_t)ne - 2);
        json_t *e = json_incref(json_array_get(edges, i));
        json_array_remove(edges, i);
        json_array_append_new(edges, e); /* a test's body edge may now come second */
    } else {
        for (size_t i = 0; i < nn; ++i)
            json_object_del(json_array_get(nodes, i), "repeat");
        json_object_set_new(json_array_get(nodes, (size_t)ompdag_rng_range(r, 0, (int64_t)nn - 1)),
                            "repeat", json_integer(ompdag_rng_range(r, 1, 3)));
    }
}

Test(loops, mutated_files_are_refused_or_agree_with_the_unrolling)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 4242);
    long accepted = 0, with_loops = 0;
    for (int i = 0; i < 1500; ++i) {
        ompdag_condag *g = random_loops(&r, 3, 800);
        json_t *o = ompdag_condag_to_json(g);
        ompdag_condag_destroy(g);
        mutate(o, &r);
        ompdag_error err;
        ompdag_condag *m = NULL;
        ompdag_status st = condag_from_json(o, "mutated", &m, &err);
        json_decref(o);
        if (st) {
            cr_assert(strlen(err.message) > 0);
            continue;
        }
        ++accepted;
        with_loops += ompdag_compact_has_loops(m);
        ompdag_condag *x = NULL;
        if (ompdag_compact_expand(m, 20000, &x, &err) == OMPDAG_OK) {
            for (int32_t k = 1; k <= 3; ++k) {
                ompdag_rta_options opt;
                ompdag_rta_options_init(&opt, k);
                compare(m, x, &opt);
            }
            ompdag_condag_destroy(x);
        }
        ompdag_condag_destroy(m);
    }
    cr_assert_gt(accepted, 100, "only %ld mutated files load", accepted);
    cr_assert_gt(with_loops, 50, "only %ld mutated files with loops load", with_loops);
}

/* Loops nested in a loop body, beyond the unrolling: I (1) and t (2), which
 * creates k (10), K × K times in O's body.  vol = 3 + 13·K², and the path
 * runs through every I and t and ends in the last k: len = 3 + 3·K² + 10.
 * At K = 1000 the runs nest: O's first 999 copies are one run whose
 * iteration holds I's run of 1000 (a group of pieces), the last copy ends
 * in k; the same shape at K = 10^5 (2·10^10 path nodes). */
#define NESTED_JSON(K)                                                                             \
    "{'format': 'ompdag-condag', 'version': 1, 'extensions': ['loops'], 'nodes': ["                \
    "{'id': 'a', 'task': 'main', 'kind': 'N', 'wcet': 3},"                                         \
    "{'id': 'O', 'task': 'main', 'kind': 'C', 'wcet': 0, 'repeat': " K "},"                        \
    "{'id': 'I', 'task': 'main', 'kind': 'C', 'wcet': 1, 'repeat': " K "},"                        \
    "{'id': 't', 'task': 'main', 'kind': 'T', 'wcet': 2, 'creates': 'k'},"                         \
    "{'id': 'ie', 'task': 'main', 'kind': 'J', 'wcet': 0},"                                        \
    "{'id': 'oe', 'task': 'main', 'kind': 'J', 'wcet': 0},"                                        \
    "{'id': 'k', 'task': 'k', 'kind': 'N', 'wcet': 10}],"                                          \
    "'edges': [['a','O'],['O','I'],['O','oe'],['I','t'],['I','ie'],['t','ie'],['ie','oe']]}"

Test(loops, nested_loops_beyond_the_unrolling)
{
    static const char *const ks[] = {"1000", "100000"};
    static const int64_t kv[] = {1000, 100000};
    for (int i = 0; i < 2; ++i) {
        char json[2048];
        snprintf(json, sizeof json, NESTED_JSON("%s"), ks[i], ks[i]);
        ompdag_error err;
        ompdag_condag *g = load_graph(json, &err);
        cr_assert_not_null(g, "%s", err.message);
        ompdag_rta_result *r = sums_at(g, 2, 0);
        int64_t k2 = kv[i] * kv[i];
        cr_assert_eq(ompdag_rta_result_vol(r), 3 + 13 * k2);
        cr_assert_eq(ompdag_rta_result_len(r), 3 + 3 * k2 + 10);
        cr_assert_eq(ompdag_rta_result_bound_times_m(r), 3 + 13 * k2 + 3 + 3 * k2 + 10);
        cr_assert(ompdag_rta_result_has_witness(r));
        uint64_t k1 = (uint64_t)kv[i];
        cr_assert_eq(ompdag_rta_result_path_nodes(r), 1 + (k1 - 1) * (2 * k1 + 2) + 1 + 2 * k1 + 1);
        char want[512], *text = path_text(r, g);
        snprintf(want, sizeof want,
                 "critical path (%llu nodes): a -> (O -> (I -> t) x%lld -> ie) x%lld -> O -> (I "
                 "-> t) x%lld -> I -> t -> k\n",
                 (unsigned long long)ompdag_rta_result_path_nodes(r), (long long)kv[i],
                 (long long)(kv[i] - 1), (long long)(kv[i] - 1));
        cr_assert_str_eq(text, want);
        free(text);
        int64_t lo = -1, hi = -1;
        cr_assert(ompdag_rta_result_loop_iterations(r, node_index(g, "I"), &lo, &hi));
        cr_assert(lo == kv[i] && hi == kv[i]);
        int32_t n = -1;
        const int32_t *path = ompdag_rta_result_critical_path(r, &n);
        cr_assert_eq(n, 65536); /* the expansion's prefix: a O I t I t … */
        cr_assert(path[0] == node_index(g, "a") && path[1] == node_index(g, "O") &&
                  path[2] == node_index(g, "I") && path[5] == node_index(g, "t"));
        ompdag_rta_result_destroy(r);
        ompdag_condag_destroy(g);
    }
}
