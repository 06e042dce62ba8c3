/* tests/analysis/test_compact.c — compact graphs (docs/compact.md).
 *
 * Property tests over thousands of random recursive programs (shared bodies
 * in a creation DAG), each unfolded with ompdag_compact_expand: for several
 * m, with and without migration overhead, the memoised exact bound on the
 * compact graph is bit-identical to Alg1 on the unfolded graph, and so are
 * the worst flow's vol, len and migrations; the compact critical path weighs
 * len.  share() of the unfolding gives the same bound again.  Plus the format:
 * round trip, refusal by readers that lack the extension, errors. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ompdag/compact.h"
#include "support.h"

/* ---- a generator of random recursive programs ------------------------------ */

typedef struct body_gen {
    ompdag_condag *g;
    ompdag_rng *r;
    int body, nbodies;
    int count;
    bool *created;
} body_gen;

static int32_t gen_node(body_gen *b, char kind, const char *creates)
{
    char id[32], task[32];
    snprintf(id, sizeof id, "b%dn%d", b->body, b->count++);
    snprintf(task, sizeof task, "b%d", b->body);
    ompdag_node_spec s = {.id = id,
                          .task = task,
                          .kind = (ompdag_kind)kind,
                          .wcet = ompdag_rng_range(b->r, 0, 40),
                          .creates = creates,
                          .loc = {"rec.c", 10 + b->count % 7, 0}};
    int32_t v;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_add_node(b->g, &s, &v, &err), OMPDAG_OK, "%s", err.message);
    return v;
}

static void gen_edge(body_gen *b, int32_t from, int32_t to)
{
    ompdag_error err;
    cr_assert_eq(ompdag_condag_add_edge(b->g, from, to, &err), OMPDAG_OK, "%s", err.message);
}

static int32_t gen_leaf(body_gen *b, int32_t tail)
{
    double x = ompdag_rng_unit(b->r);
    int32_t v;
    if (x < 0.4 && b->body + 1 < b->nbodies) {
        int target = (int)ompdag_rng_range(
            b->r, b->body + 1, ompdag_rng_unit(b->r) < 0.7 ? b->body + 1 : b->nbodies - 1);
        char creates[32];
        snprintf(creates, sizeof creates, "b%d", target);
        b->created[target] = true;
        v = gen_node(b, 'T', creates);
    } else {
        v = gen_node(b, x < 0.65 ? 'W' : 'N', NULL);
    }
    gen_edge(b, tail, v);
    return v;
}

/* Appends `len` items after tail; nesting is bounded by the constant 2. */
static int32_t gen_seq(body_gen *b, int32_t tail, int len, int depth)
{
    for (int i = 0; i < len; ++i) {
        if (depth < 2 && ompdag_rng_unit(b->r) < 0.2) {
            int32_t c = gen_node(b, 'C', NULL);
            gen_edge(b, tail, c);
            int k = (int)ompdag_rng_range(b->r, 2, 3);
            int32_t ends[3];
            for (int a = 0; a < k; ++a) {
                int n = (int)ompdag_rng_range(b->r, a ? 1 : 0, 3);
                ends[a] = n ? gen_seq(b, c, n, depth + 1) : c;
            }
            int32_t j = gen_node(b, 'J', NULL);
            for (int a = 0; a < k; ++a)
                gen_edge(b, ends[a], j);
            tail = j;
        } else {
            tail = gen_leaf(b, tail);
        }
    }
    return tail;
}

/* A random compact graph of up to `bodies` bodies whose unfolding has at most
 * `limit` nodes (redrawn until it fits). */
static ompdag_condag *random_compact(ompdag_rng *r, int bodies, uint64_t limit)
{
    for (;;) {
        ompdag_condag *g = ompdag_condag_create();
        ompdag_error err;
        cr_assert_eq(ompdag_compact_enable(g, &err), OMPDAG_OK);
        int nb = (int)ompdag_rng_range(r, 1, bodies);
        bool created[64] = {false};
        for (int i = 0; i < nb; ++i) {
            body_gen b = {g, r, i, nb, 0, created};
            int32_t tail = gen_node(&b, 'N', NULL);
            tail = gen_seq(&b, tail, (int)ompdag_rng_range(r, 1, 6), 0);
            if (i + 1 < nb && !created[i + 1]) {
                char creates[32];
                snprintf(creates, sizeof creates, "b%d", i + 1);
                created[i + 1] = true;
                gen_edge(&b, tail, gen_node(&b, 'T', creates));
            }
        }
        cr_assert_eq(ompdag_condag_finalize(g, &err), OMPDAG_OK, "%s", err.message);
        if (ompdag_compact_expanded_node_count(g) <= limit) return g;
        ompdag_condag_destroy(g);
    }
}

/* fib-like: `depth` bodies, each creating the next twice, then a taskwait. */
static ompdag_condag *fib_like(int depth, int64_t wcet)
{
    ompdag_condag *g = ompdag_condag_create();
    ompdag_error err;
    cr_assert_eq(ompdag_compact_enable(g, &err), OMPDAG_OK);
    for (int d = 0; d < depth; ++d) {
        char task[16], id[32], child[16];
        snprintf(task, sizeof task, "fib@%d", d);
        snprintf(child, sizeof child, "fib@%d", d + 1);
        const char *kinds = d + 1 < depth ? "CTTWJN" : "N";
        int32_t ids[6];
        for (int k = 0; kinds[k]; ++k) {
            snprintf(id, sizeof id, "d%d_%d", d, k);
            ompdag_node_spec s = {.id = id,
                                  .task = task,
                                  .kind = (ompdag_kind)kinds[k],
                                  .wcet = wcet,
                                  .creates = kinds[k] == 'T' ? child : NULL,
                                  .loc = {"fib.c", 90 + k, 3}};
            cr_assert_eq(ompdag_condag_add_node(g, &s, &ids[k], &err), OMPDAG_OK, "%s",
                         err.message);
        }
        if (d + 1 < depth) { /* C -> T -> T -> W -> J, and C -> N(base) -> J */
            int pairs[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 5}, {5, 4}};
            for (int e = 0; e < 6; ++e)
                cr_assert_eq(ompdag_condag_add_edge(g, ids[pairs[e][0]], ids[pairs[e][1]], &err),
                             OMPDAG_OK, "%s", err.message);
        }
    }
    cr_assert_eq(ompdag_condag_finalize(g, &err), OMPDAG_OK, "%s", err.message);
    return g;
}

static ompdag_condag *expand_ok(const ompdag_condag *g)
{
    ompdag_condag *x = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_compact_expand(g, 0, &x, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_not(ompdag_compact_is_compact(x));
    cr_assert_eq((uint64_t)ompdag_condag_node_count(x), ompdag_compact_expanded_node_count(g));
    return x;
}

static ompdag_rta_result *run_ok(const ompdag_condag *g, const ompdag_rta_options *opt)
{
    ompdag_rta_result *r = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, opt, &r, &err), OMPDAG_OK, "%s", err.message);
    return r;
}

/* The compact result against Alg1 on the unfolding: bound, vol, len and
 * migrations equal; the stored path (when whole) weighs len. */
static void compare(const ompdag_condag *g, const ompdag_condag *x, const ompdag_rta_options *opt)
{
    ompdag_rta_result *rc = run_ok(g, opt), *rx = run_ok(x, opt);
    cr_assert_eq(ompdag_rta_result_bound_times_m(rc), ompdag_rta_result_bound_times_m(rx),
                 "m=%d O=%lld: compact %lld, unfolded %lld", opt->m,
                 (long long)opt->migration_overhead, (long long)ompdag_rta_result_bound_times_m(rc),
                 (long long)ompdag_rta_result_bound_times_m(rx));
    cr_assert_eq(ompdag_rta_result_vol(rc), ompdag_rta_result_vol(rx));
    cr_assert_eq(ompdag_rta_result_len(rc), ompdag_rta_result_len(rx));
    cr_assert_eq(ompdag_rta_result_migrations(rc), ompdag_rta_result_migrations(rx));
    int32_t n;
    const int32_t *path = ompdag_rta_result_critical_path(rc, &n);
    cr_assert_eq((uint64_t)n, ompdag_rta_result_path_nodes(rc));
    int64_t sum = 0;
    for (int32_t i = 0; i < n; ++i)
        sum += ompdag_condag_node_wcet(g, path[i]);
    cr_assert_eq(sum, ompdag_rta_result_len(rc), "path weighs %lld, len %lld", (long long)sum,
                 (long long)ompdag_rta_result_len(rc));
    cr_assert_eq(path[0], ompdag_condag_task_source(g, ompdag_condag_root_task(g)));
    ompdag_rta_result_destroy(rc);
    ompdag_rta_result_destroy(rx);
}

Test(compact, random_programs_match_the_unfolding)
{
    static const int32_t ms[] = {1, 2, 3, 4, 8, 16};
    ompdag_rng r;
    ompdag_rng_seed(&r, 1111);
    long shared = 0;
    for (int i = 0; i < 1500; ++i) {
        ompdag_condag *g = random_compact(&r, 9, 1500);
        ompdag_condag *x = expand_ok(g);
        shared += ompdag_compact_expanded_node_count(g) > (uint64_t)ompdag_condag_node_count(g);
        for (size_t k = 0; k < sizeof ms / sizeof ms[0]; ++k) {
            ompdag_rta_options opt;
            ompdag_rta_options_init(&opt, ms[k]);
            compare(g, x, &opt);
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
    cr_assert_gt(shared, 1000, "only %ld of the programs share a body", shared);
}

/* Hash-consing the unfolding finds the sharing again: same bound, same size. */
Test(compact, share_of_the_unfolding_keeps_the_bound)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 2222);
    for (int i = 0; i < 400; ++i) {
        ompdag_condag *g = random_compact(&r, 8, 1500), *x = expand_ok(g), *s = NULL;
        ompdag_error err;
        cr_assert_eq(ompdag_compact_share(x, &s, &err), OMPDAG_OK, "%s", err.message);
        cr_assert(ompdag_compact_is_compact(s));
        cr_assert_leq(ompdag_condag_node_count(s), ompdag_condag_node_count(g));
        cr_assert_eq(ompdag_compact_expanded_node_count(s), ompdag_compact_expanded_node_count(g));
        for (int32_t m = 1; m <= 5; m += 2)
            cr_assert_eq(bound_of(s, OMPDAG_ALG_EXACT, m), bound_of(x, OMPDAG_ALG_EXACT, m));
        ompdag_condag_destroy(s);
        ompdag_condag_destroy(x);
        ompdag_condag_destroy(g);
    }
}

Test(compact, fib_like_chains)
{
    for (int depth = 1; depth <= 11; ++depth) {
        ompdag_condag *g = fib_like(depth, 5), *x = expand_ok(g);
        cr_assert_eq(ompdag_condag_node_count(g), 6 * (depth - 1) + 1);
        for (int32_t m = 1; m <= 8; m *= 2) {
            ompdag_rta_options opt;
            ompdag_rta_options_init(&opt, m);
            compare(g, x, &opt);
        }
        ompdag_condag_destroy(x);
        ompdag_condag_destroy(g);
    }
}

/* Depth 58: 2^57 leaves, analysed without unfolding; depth 70's counts saturate
 * and its total overflows, which is an error, never a wrapped bound. */
Test(compact, deep_recursion_is_analysed_or_refused)
{
    ompdag_condag *g = fib_like(58, 1);
    cr_assert_eq(ompdag_compact_task_instances(g, ompdag_condag_task_count(g) - 1),
                 (uint64_t)1 << 57);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 4);
    ompdag_rta_result *r = run_ok(g, &opt);
    /* Executed: at each depth d < 57 the recursive branch (C, T, T, W, J)
     * in 2^d instances, and 2^57 leaves.  vol = 5(2^57 − 1) + 2^57; the
     * path crosses C, T, T, W, J at each depth, and a leaf. */
    int64_t vol = 5 * (((int64_t)1 << 57) - 1) + ((int64_t)1 << 57);
    cr_assert_eq(ompdag_rta_result_vol(r), vol);
    cr_assert_eq(ompdag_rta_result_path_nodes(r), 57 * 5 + 1);
    cr_assert_eq(ompdag_rta_result_len(r), 57 * 5 + 1);
    cr_assert_eq(ompdag_rta_result_bound_times_m(r), vol + 3 * (57 * 5 + 1));
    ompdag_rta_result_destroy(r);
    ompdag_condag *x = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_compact_expand(g, 1000, &x, &err), OMPDAG_ERR_LIMIT);
    cr_assert(strstr(err.message, "above the limit of 1000"), "%s", err.message);
    ompdag_condag_destroy(g);

    g = fib_like(70, 1);
    cr_assert_eq(ompdag_compact_expanded_node_count(g), OMPDAG_COMPACT_MANY);
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_ERR_OVERFLOW);
    cr_assert(strstr(err.message, "unfolded"), "%s", err.message);
    ompdag_condag_destroy(g);
}

/* Issue 26 item 6: a compact graph whose every WCET is 0 (freshly extracted,
 * never annotated) was refused as "total WCET … overflows int64" because
 * its saturated instance count was multiplied by 0.  Its total is 0; a
 * nonzero WCET there still overflows, as an error. */
Test(compact, zero_wcets_never_overflow_whatever_the_instance_count)
{
    ompdag_condag *g = fib_like(70, 0);
    cr_assert_eq(ompdag_compact_expanded_node_count(g), OMPDAG_COMPACT_MANY);
    int64_t total = -1;
    cr_assert(ompdag_compact_expanded_total(g, 0, 0, &total));
    cr_expect_eq(total, 0);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 4);
    ompdag_rta_result *r = run_ok(g, &opt);
    cr_expect_eq(ompdag_rta_result_bound_times_m(r), 0);
    ompdag_rta_result_destroy(r);
    /* a migration overhead makes the T nodes cost something again */
    cr_expect_not(ompdag_compact_expanded_total(g, 1, 'T', &total));
    ompdag_condag_destroy(g);
}

/* ---- the format ------------------------------------------------------------ */

static const char *const shared_json =
    "{'format': 'ompdag-condag', 'version': 1, 'extensions': ['compact'],"
    " 'nodes': [{'id': 'a', 'task': 'r', 'kind': 'T', 'wcet': 1, 'creates': 'k'},"
    "           {'id': 'b', 'task': 'r', 'kind': 'T', 'wcet': 2, 'creates': 'k'},"
    "           {'id': 'w', 'task': 'r', 'kind': 'W', 'wcet': 3},"
    "           {'id': 'c', 'task': 'k', 'kind': 'N', 'wcet': 10}],"
    " 'edges': [['a', 'b'], ['b', 'w']]}";

Test(compact, file_round_trip)
{
    ompdag_error err;
    ompdag_condag *g = load_graph(shared_json, &err);
    cr_assert_not_null(g, "%s", err.message);
    cr_assert(ompdag_compact_is_compact(g));
    cr_assert_eq(ompdag_compact_expanded_node_count(g), 5);
    /* m=2: vol 26; path a,b,(k),w = 1+2+10+3 = 16: 26 + 16 = 42 */
    cr_assert_eq(bound_of(g, OMPDAG_ALG_EXACT, 2), 42);
    json_t *o = ompdag_condag_to_json(g);
    json_t *ext = json_object_get(o, "extensions");
    cr_assert(json_is_array(ext) && !strcmp(json_string_value(json_array_get(ext, 0)), "compact"));
    char *text = json_dumps(o, 0);
    ompdag_condag_set *s = NULL;
    cr_assert_eq(ompdag_condag_set_load_buffer(text, strlen(text), "rt", &s, &err), OMPDAG_OK, "%s",
                 err.message);
    cr_assert_eq(bound_of(ompdag_condag_set_graph(s, 0), OMPDAG_ALG_EXACT, 2), 42);
    ompdag_condag_set_destroy(s);
    free(text);
    json_decref(o);
    ompdag_condag_destroy(g);
}

/* A reader without the extension is ours minus the "extensions" key: it must
 * refuse the shared body rather than misread it. */
Test(compact, readers_without_the_extension_refuse)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", shared_json);
    char *at = strstr(buf, " 'extensions': ['compact'],");
    memmove(at, at + strlen(" 'extensions': ['compact'],"),
            strlen(at + strlen(" 'extensions': ['compact'],")) + 1);
    ompdag_error err;
    cr_assert_null(load_graph(buf, &err));
    cr_assert(strstr(err.message, "created twice"), "%s", err.message);
    cr_assert(strstr(err.message, "compact"), "%s", err.message);
}

Test(compact, bad_extensions_are_errors)
{
    ompdag_error err;
    cr_assert_null(load_graph("{'format': 'ompdag-condag', 'version': 1, 'extensions': ['x'],"
                              " 'nodes': [{'id': 'a', 'task': 'r', 'kind': 'N', 'wcet': 1}]}",
                              &err));
    cr_assert(strstr(err.message, "unsupported extension 'x'"), "%s", err.message);
    cr_assert_null(load_graph("{'format': 'ompdag-condag', 'version': 1, 'extensions': 'compact',"
                              " 'nodes': [{'id': 'a', 'task': 'r', 'kind': 'N', 'wcet': 1}]}",
                              &err));
    cr_assert(strstr(err.message, "'extensions' must be an array"), "%s", err.message);
    /* a creation cycle cannot unfold */
    cr_assert_null(
        load_graph("{'format': 'ompdag-condag', 'version': 1, 'extensions': ['compact'],"
                   " 'nodes': [{'id': 'a', 'task': 'r', 'kind': 'T', 'wcet': 1, 'creates': 'k'},"
                   "           {'id': 'b', 'task': 'k', 'kind': 'T', 'wcet': 1, 'creates': 'k2'},"
                   "           {'id': 'c', 'task': 'k2', 'kind': 'T', 'wcet': 1, 'creates': 'k'}]}",
                   &err));
    cr_assert(strstr(err.message, "creation cycle"), "%s", err.message);
}

Test(compact, other_algorithms_and_flow_tools_ask_for_the_unfolding)
{
    ompdag_error err;
    ompdag_condag *g = load_graph(shared_json, &err);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 2);
    ompdag_rta_result *r = NULL;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_ALG0, &opt, &r, &err), OMPDAG_ERR_UNSUPPORTED);
    cr_assert(strstr(err.message, "ompdag expand"), "%s", err.message);
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_ENUMERATE, &opt, &r, &err), OMPDAG_ERR_UNSUPPORTED);
    int32_t choice[4] = {-1, -1, -1, -1};
    uint8_t executed[4];
    cr_assert_eq(ompdag_flow_mark(g, choice, executed, &err), OMPDAG_ERR_UNSUPPORTED);
    ompdag_condag *x = expand_ok(g);
    cr_assert_geq(ompdag_condag_find_node(x, "c#1"), 0);
    cr_assert_eq(bound_of(x, OMPDAG_ALG_ENUMERATE, 2), 42);
    ompdag_condag_destroy(x);
    ompdag_condag_destroy(g);
}

/* Dispatch delays on a compact graph (docs/overheads.md, chain only): the
 * memoised witness of a shared body charges them like Alg1 on the unfolding
 * (bound, vol, len = Σ (c + D) of the path); share() keeps them apart (a
 * delay difference separates two bodies). */
Test(compact, delays_match_the_unfolding)
{
    static const int32_t ms[] = {1, 2, 3, 8};
    ompdag_rng r;
    ompdag_rng_seed(&r, 3333);
    long below = 0;
    for (int i = 0; i < 1000; ++i) {
        ompdag_condag *g = random_compact(&r, 9, 1500);
        ompdag_error err;
        for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
            if (ompdag_rng_unit(&r) < 0.5)
                cr_assert_eq(ompdag_condag_assign_delay(g, v, ompdag_rng_range(&r, 0, 40), &err),
                             OMPDAG_OK);
        ompdag_condag *x = expand_ok(g), *s = NULL;
        cr_assert_eq(ompdag_condag_total_delay(x) >= ompdag_condag_total_delay(g), true);
        for (size_t k = 0; k < sizeof ms / sizeof ms[0]; ++k) {
            ompdag_rta_options opt;
            ompdag_rta_options_init(&opt, ms[k]);
            ompdag_rta_result *rc = run_ok(g, &opt), *rx = run_ok(x, &opt);
            cr_assert_eq(ompdag_rta_result_bound_times_m(rc), ompdag_rta_result_bound_times_m(rx),
                         "m=%d: compact %lld, unfolded %lld", ms[k],
                         (long long)ompdag_rta_result_bound_times_m(rc),
                         (long long)ompdag_rta_result_bound_times_m(rx));
            cr_assert_eq(ompdag_rta_result_vol(rc), ompdag_rta_result_vol(rx));
            cr_assert_eq(ompdag_rta_result_len(rc), ompdag_rta_result_len(rx));
            int32_t n;
            const int32_t *path = ompdag_rta_result_critical_path(rc, &n);
            int64_t sum = 0;
            for (int32_t j = 0; j < n; ++j)
                sum += ompdag_condag_node_wcet(g, path[j]) + ompdag_condag_node_delay(g, path[j]);
            cr_assert_eq(sum, ompdag_rta_result_len(rc));
            opt.fold_delays = true;
            ompdag_rta_result *rf = run_ok(g, &opt);
            cr_assert_leq(ompdag_rta_result_bound_times_m(rc), ompdag_rta_result_bound_times_m(rf));
            below += ompdag_rta_result_bound_times_m(rc) < ompdag_rta_result_bound_times_m(rf);
            ompdag_rta_result_destroy(rf);
            ompdag_rta_result_destroy(rc);
            ompdag_rta_result_destroy(rx);
        }
        cr_assert_eq(ompdag_compact_share(x, &s, &err), OMPDAG_OK, "%s", err.message);
        cr_assert_eq(bound_of(s, OMPDAG_ALG_EXACT, 3), bound_of(x, OMPDAG_ALG_EXACT, 3));
        ompdag_condag_destroy(s);
        ompdag_condag_destroy(x);
        ompdag_condag_destroy(g);
    }
    cr_assert_gt(below, 0);
}
