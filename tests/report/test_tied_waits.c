/* tests/report/test_tied_waits.c — rule ROOT_WAITS of ompdag_rta_tied_bound
 * (analysis/rta_tied.c, docs/tied.md §4b): when no task creation suspends
 * the root (libomp whose deque never fills), the root waits only at its W
 * nodes, and Graham's chain jumps from a node under root T node t only to
 * the first root W nodes after t.  Checked against report/sim_tied.c with
 * root_continues_at_creation (the root's thread goes on with the root after
 * each root T node; every other choice stays the adversary's):
 *   - hand graphs with exact figures (a flat nqueens-like loop of creations,
 *     one where the rule lies strictly between Graham and ROOT, a root that
 *     never reaches a W after a creation);
 *   - random graphs with random dispatch delays: no schedule of the
 *     assumption above the new bound; schedules without the assumption do
 *     exceed it; the new value lies between Graham and ROOT;
 *   - the report's input bound uses the rule only when annotate recorded a
 *     libomp runtime that cannot fill its deque (report/report_input.c). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/compact.h"
#include "ompdag/gen.h"
#include "ompdag/internal/condag_json.h"
#include "ompdag/overhead.h"
#include "ompdag/report.h"
#include "ompdag/rta.h"
#include "ompdag/sim_tied.h"
#include "tied_util.h"

static ompdag_condag_set *load(const char *text)
{
    ompdag_condag_set *s = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_buffer(text, strlen(text), "test", &s, &err), OMPDAG_OK,
                 "%s", err.message);
    return s;
}

static int64_t graham(const ompdag_condag *g, int32_t m)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    ompdag_rta_result *r = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    int64_t b = ompdag_rta_result_bound_times_m(r);
    ompdag_rta_result_destroy(r);
    return b;
}

/* The tied bound at m, assuming (waits) or not that no creation point
 * suspends the root. */
static int64_t tied_bound(const ompdag_condag *g, int32_t m, bool waits, ompdag_tied_rule *rule)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    opt.root_creation_never_suspends = waits;
    int64_t b = -1;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_rta_tied_bound(g, &opt, &b, rule, &err), OMPDAG_OK, "%s", err.message);
    return b;
}

/* The largest makespan over the four adversaries, stack and free resumption,
 * the root continuing at its creation points or not. */
static int64_t worst_makespan(const ompdag_condag *g, int32_t m, bool root_continues)
{
    int32_t n = ompdag_condag_node_count(g);
    int32_t *choice = malloc((size_t)n * sizeof *choice);
    for (int32_t v = 0; v < n; ++v) {
        int32_t cnt;
        const int32_t *s = ompdag_condag_node_fsucc(g, v, &cnt);
        choice[v] = ompdag_condag_node_kind(g, v) == OMPDAG_KIND_C ? s[0] : -1;
    }
    int64_t worst = 0;
    for (int pol = 0; pol < 4; ++pol)
        for (int stack = 0; stack < 2; ++stack) {
            ompdag_tied_sim_options o;
            ompdag_tied_sim_options_init(&o, m);
            o.policy = (ompdag_tied_policy)pol, o.stack = stack;
            o.root_continues_at_creation = root_continues;
            ompdag_tied_sim_result r;
            ompdag_error err = {0};
            cr_assert_eq(ompdag_tied_sim_run(g, choice, &o, &r, &err), OMPDAG_OK, "%s",
                         err.message);
            if (r.makespan > worst) worst = r.makespan;
        }
    free(choice);
    return worst;
}

Test(tied_waits, rule_name)
{
    cr_assert_str_eq(ompdag_tied_rule_name(OMPDAG_TIED_ROOT_WAITS), "tied-root-waits");
    cr_assert_str_eq(ompdag_tied_rule_name(OMPDAG_TIED_ROOT), "tied-root");
}

/* BOTS nqueens' shape, flat: the root works 5, creates six untied tasks of
 * 100 in a loop (T nodes of 2), then waits once (W of 1).  vol = 618.
 * ROOT: every child's subtree jumps to the next root node, so Lr runs
 * through all six children: Lr = 618 = vol, the volume bound.  ROOT_WAITS:
 * every child's first W is the taskwait, which waits for it anyway, so G_r'
 * is G and Lr' = 5 + 12 + 100 + 1 = 118: Graham's bound. */
static const char *NQUEENS_LIKE =
    "{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":["
    "{\"id\":\"r0\",\"task\":\"t1\",\"kind\":\"N\",\"wcet\":5},"
    "{\"id\":\"r1\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":2,\"creates\":\"q1\",\"untied\":true},"
    "{\"id\":\"r2\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":2,\"creates\":\"q2\",\"untied\":true},"
    "{\"id\":\"r3\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":2,\"creates\":\"q3\",\"untied\":true},"
    "{\"id\":\"r4\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":2,\"creates\":\"q4\",\"untied\":true},"
    "{\"id\":\"r5\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":2,\"creates\":\"q5\",\"untied\":true},"
    "{\"id\":\"r6\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":2,\"creates\":\"q6\",\"untied\":true},"
    "{\"id\":\"r7\",\"task\":\"t1\",\"kind\":\"W\",\"wcet\":1},"
    "{\"id\":\"q1\",\"task\":\"q1\",\"kind\":\"N\",\"wcet\":100},"
    "{\"id\":\"q2\",\"task\":\"q2\",\"kind\":\"N\",\"wcet\":100},"
    "{\"id\":\"q3\",\"task\":\"q3\",\"kind\":\"N\",\"wcet\":100},"
    "{\"id\":\"q4\",\"task\":\"q4\",\"kind\":\"N\",\"wcet\":100},"
    "{\"id\":\"q5\",\"task\":\"q5\",\"kind\":\"N\",\"wcet\":100},"
    "{\"id\":\"q6\",\"task\":\"q6\",\"kind\":\"N\",\"wcet\":100}],"
    "\"edges\":[[\"r0\",\"r1\"],[\"r1\",\"r2\"],[\"r2\",\"r3\"],[\"r3\",\"r4\"],[\"r4\",\"r5\"],"
    "[\"r5\",\"r6\"],[\"r6\",\"r7\"]]}";

Test(tied_waits, nqueens_like_loop_gets_graham_back)
{
    ompdag_condag_set *s = load(NQUEENS_LIKE);
    const ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    for (int32_t m = 2; m <= 4; ++m) {
        ompdag_tied_rule rule, wrule;
        int64_t root = tied_bound(g, m, false, &rule), waits = tied_bound(g, m, true, &wrule);
        cr_assert_eq(rule, OMPDAG_TIED_ROOT, "m=%d: %s", m, ompdag_tied_rule_name(rule));
        cr_assert_eq(root, m * 618, "m=%d: ROOT is the volume here: %lld", m, (long long)root);
        cr_assert_eq(wrule, OMPDAG_TIED_ROOT_WAITS, "m=%d: %s", m, ompdag_tied_rule_name(wrule));
        cr_assert_eq(waits, 618 + (m - 1) * 118, "m=%d: %lld", m, (long long)waits);
        cr_assert_eq(waits, graham(g, m));
        /* the assumption holds in the simulator: within the bound */
        int64_t sim = worst_makespan(g, m, true);
        cr_assert_leq(m * sim, waits, "m=%d: schedule %lld", m, (long long)sim);
        /* without it the child-first adversary serialises the loop */
        int64_t free_sim = worst_makespan(g, m, false);
        cr_assert_eq(free_sim, 618, "m=%d: %lld", m, (long long)free_sim);
        cr_assert_gt(m * free_sim, waits);
    }
    ompdag_condag_set_destroy(s);
}

/* A child a creates a grandchild g and does not wait for it; the root works
 * 50, waits (for a only), then works 50.  m = 2:
 *   vol 310; Graham: len r1 a1 g1 = 200, 510;
 *   ROOT: g1 -> r2, Lr = r1 a1 g1 r2 r3 r4 = 300, 610;
 *   ROOT_WAITS: g1 -> r3 (the first W after r1), Lr' = r1 a1 g1 r3 r4 = 250, 560. */
static const char *BETWEEN =
    "{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":["
    "{\"id\":\"r1\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":0,\"creates\":\"a\",\"untied\":true},"
    "{\"id\":\"r2\",\"task\":\"t1\",\"kind\":\"N\",\"wcet\":50},"
    "{\"id\":\"r3\",\"task\":\"t1\",\"kind\":\"W\",\"wcet\":0},"
    "{\"id\":\"r4\",\"task\":\"t1\",\"kind\":\"N\",\"wcet\":50},"
    "{\"id\":\"a1\",\"task\":\"a\",\"kind\":\"T\",\"wcet\":0,\"creates\":\"g\",\"untied\":true},"
    "{\"id\":\"a2\",\"task\":\"a\",\"kind\":\"N\",\"wcet\":10},"
    "{\"id\":\"g1\",\"task\":\"g\",\"kind\":\"N\",\"wcet\":200}],"
    "\"edges\":[[\"r1\",\"r2\"],[\"r2\",\"r3\"],[\"r3\",\"r4\"],[\"a1\",\"a2\"]]}";

Test(tied_waits, between_graham_and_root)
{
    ompdag_condag_set *s = load(BETWEEN);
    const ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    ompdag_tied_rule rule, wrule;
    cr_assert_eq(graham(g, 2), 510);
    cr_assert_eq(tied_bound(g, 2, false, &rule), 610);
    cr_assert_eq(rule, OMPDAG_TIED_ROOT);
    cr_assert_eq(tied_bound(g, 2, true, &wrule), 560);
    cr_assert_eq(wrule, OMPDAG_TIED_ROOT_WAITS);
    cr_assert_leq(2 * worst_makespan(g, 2, true), 560);
    ompdag_condag_set_destroy(s);
}

/* ROOT_ALONE of test_sim_tied.c: the root creates a and b and goes on, with
 * no W after them.  When creation never suspends it, the root never waits to
 * resume, and Theorem 1 holds (rule NONE): 300 at m = 2.  Without the
 * assumption a schedule reaches m·R = 400. */
static const char *ROOT_ALONE =
    "{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":["
    "{\"id\":\"r1\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":0,\"creates\":\"a\",\"untied\":true},"
    "{\"id\":\"r2\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":0,\"creates\":\"b\",\"untied\":true},"
    "{\"id\":\"r3\",\"task\":\"t1\",\"kind\":\"N\",\"wcet\":0},"
    "{\"id\":\"a1\",\"task\":\"a\",\"kind\":\"N\",\"wcet\":100},"
    "{\"id\":\"b1\",\"task\":\"b\",\"kind\":\"N\",\"wcet\":100}],"
    "\"edges\":[[\"r1\",\"r2\"],[\"r2\",\"r3\"]]}";

Test(tied_waits, root_without_a_wait_after_creating_keeps_graham)
{
    ompdag_condag_set *s = load(ROOT_ALONE);
    const ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    ompdag_tied_rule rule;
    cr_assert_eq(tied_bound(g, 2, true, &rule), 300);
    cr_assert_eq(rule, OMPDAG_TIED_NONE, "%s", ompdag_tied_rule_name(rule));
    cr_assert_eq(tied_bound(g, 2, false, &rule), 400);
    cr_assert_eq(worst_makespan(g, 2, true), 100);
    cr_assert_eq(worst_makespan(g, 2, false), 200);
    ompdag_condag_set_destroy(s);
}

/* A compact graph's G_r' is built on its unfolding: same rule and value. */
Test(tied_waits, compact_graphs_are_unfolded)
{
    const char *dir = getenv("OMPDAG_SOURCE_DIR");
    cr_assert(dir, "run through ctest");
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/condag/fib_compact.json", dir);
    ompdag_condag_set *s = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_file(path, &s, &err), OMPDAG_OK, "%s", err.message);
    const ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    ompdag_condag *x = NULL;
    cr_assert_eq(ompdag_compact_expand(g, 0, &x, &err), OMPDAG_OK, "%s", err.message);
    for (int32_t m = 1; m <= 8; m *= 2) {
        ompdag_tied_rule rule, xrule, root_rule;
        int64_t b = tied_bound(g, m, true, &rule), xb = tied_bound(x, m, true, &xrule);
        cr_assert_eq(b, xb, "m=%d", m);
        cr_assert_leq(b, tied_bound(g, m, false, &root_rule), "m=%d", m);
        cr_assert_geq(b, graham(g, m), "m=%d", m);
        cr_assert_eq(rule, xrule, "m=%d", m);
    }
    ompdag_condag_destroy(x);
    ompdag_condag_set_destroy(s);
}

/* ---- random graphs ----------------------------------------------------------- */

/* Random D(v) where the runtime's delays arise (task sources, W nodes,
 * after T nodes); none on every other graph. */
static void random_delays(ompdag_condag *g, ompdag_rng *rng, bool none, int64_t *d)
{
    ompdag_overheads o = {.start_delay = ompdag_rng_range(rng, 0, 80),
                          .wake_delay = ompdag_rng_range(rng, 0, 80),
                          .cont_delay = ompdag_rng_range(rng, 0, 80),
                          .formation = ompdag_rng_range(rng, 0, 80),
                          .threads = 2};
    ompdag_error err = {0};
    cr_assert_eq(ompdag_overheads_node_delays(g, &o, d, &err), OMPDAG_OK, "%s", err.message);
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        d[v] = none ? 0 : ompdag_rng_range(rng, 0, d[v]);
        cr_assert_eq(ompdag_condag_assign_delay(g, v, d[v], &err), OMPDAG_OK, "%s", err.message);
    }
}

typedef struct waits_tally {
    uint64_t schedules, above_without; /* (a) and (b) */
    uint64_t waits_rule, below_root, never_waits, above_graham;
} waits_tally;

/* One flow at m: every adversary, stack and free, spec and strict TSC, WCET
 * and random execution times, with the root continuing at its creation
 * points (must stay within `bound`) and without (counted when above). */
static void check_flow(const ompdag_condag *g, const int32_t *choice, int32_t m, int64_t bound,
                       int64_t graham_m, const int64_t *d, int64_t *exec, ompdag_rng *rng,
                       uint64_t seed, waits_tally *t)
{
    for (int pol = 0; pol < 4; ++pol)
        for (int variant = 0; variant < 8; ++variant) {
            ompdag_tied_sim_options o;
            ompdag_tied_sim_options_init(&o, m);
            o.policy = (ompdag_tied_policy)pol;
            o.stack = variant & 1, o.strict = variant & 2;
            o.delay = d;
            o.seed = seed * 131 + (uint64_t)(m * 32 + pol * 8 + variant);
            if (variant & 4) {
                for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
                    exec[v] = ompdag_rng_range(rng, 0, ompdag_condag_node_wcet(g, v));
                o.exec = exec;
            }
            ompdag_tied_sim_result r;
            ompdag_error err = {0};
            o.root_continues_at_creation = true;
            cr_assert_eq(ompdag_tied_sim_run(g, choice, &o, &r, &err), OMPDAG_OK,
                         "seed %llu m %d: %s", (unsigned long long)seed, m, err.message);
            ++t->schedules;
            cr_assert_eq(r.events, r.executed);
            cr_assert_leq(r.makespan * m, bound,
                          "seed %llu m %d %s stack %d strict %d: m·R = %lld above the "
                          "tied-root-waits bound %lld",
                          (unsigned long long)seed, m, ompdag_tied_policy_name(o.policy), o.stack,
                          o.strict, (long long)(r.makespan * m), (long long)bound);
            t->above_graham += r.makespan * m > graham_m;
            o.root_continues_at_creation = false;
            cr_assert_eq(ompdag_tied_sim_run(g, choice, &o, &r, &err), OMPDAG_OK, "%s",
                         err.message);
            t->above_without += r.makespan * m > bound;
        }
}

/* (c) Graham <= ROOT_WAITS <= ROOT, and the rule that answers. */
static int64_t check_values(const ompdag_condag *g, int32_t m, uint64_t seed, waits_tally *t)
{
    ompdag_tied_rule rule, wrule;
    int64_t root = tied_bound(g, m, false, &rule), waits = tied_bound(g, m, true, &wrule);
    int64_t gm = graham(g, m);
    cr_assert_leq(waits, root, "seed %llu m %d: %lld above ROOT's %lld", (unsigned long long)seed,
                  m, (long long)waits, (long long)root);
    cr_assert_geq(waits, gm, "seed %llu m %d: below Graham", (unsigned long long)seed, m);
    if (rule == OMPDAG_TIED_ROOT)
        cr_assert(wrule == OMPDAG_TIED_ROOT_WAITS || wrule == OMPDAG_TIED_NONE ||
                      wrule == OMPDAG_TIED_NEVER_SUSPENDS,
                  "seed %llu m %d: %s", (unsigned long long)seed, m, ompdag_tied_rule_name(wrule));
    if (rule != OMPDAG_TIED_ROOT && rule != OMPDAG_TIED_VOLUME)
        cr_assert_eq(wrule, rule, "seed %llu m %d", (unsigned long long)seed, m);
    t->waits_rule += wrule == OMPDAG_TIED_ROOT_WAITS;
    t->below_root += waits < root;
    t->never_waits += rule == OMPDAG_TIED_ROOT && wrule != OMPDAG_TIED_ROOT_WAITS;
    return waits;
}

Test(tied_waits, random_graphs_within_the_root_waits_bound, .timeout = 280)
{
    ompdag_rng shape;
    ompdag_rng_seed(&shape, 4242);
    waits_tally t = {0};
    const uint64_t graphs = 2000;
    for (uint64_t seed = 1; seed <= graphs; ++seed) {
        ompdag_condag *g = random_graph(seed, &shape);
        mark(g, (int)(seed % MARK_MODES), &shape);
        int32_t n = ompdag_condag_node_count(g);
        int64_t *d = malloc((size_t)n * sizeof *d), *exec = malloc((size_t)n * sizeof *exec);
        int32_t *choice = malloc((size_t)n * sizeof *choice);
        random_delays(g, &shape, seed % 2 == 0, d);
        for (int32_t m = 1; m <= 4; ++m) {
            int64_t bound = check_values(g, m, seed, &t);
            ompdag_sim_random_choice(g, &shape, choice);
            check_flow(g, choice, m, bound, graham(g, m), d, exec, &shape, seed, &t);
        }
        free(d), free(exec), free(choice);
        ompdag_condag_destroy(g);
    }
    printf("tied-root-waits: %llu graphs, %llu schedules, rule applied %llu times, below ROOT "
           "%llu, root never waits %llu; schedules above the bound without the assumption "
           "%llu; with it above Graham %llu\n",
           (unsigned long long)graphs, (unsigned long long)t.schedules,
           (unsigned long long)t.waits_rule, (unsigned long long)t.below_root,
           (unsigned long long)t.never_waits, (unsigned long long)t.above_without,
           (unsigned long long)t.above_graham);
    cr_assert_gt(t.waits_rule, 0, "the rule never applied");
    cr_assert_gt(t.below_root, 0, "never below ROOT: the test is too weak");
    cr_assert_gt(t.never_waits, 0, "the root-never-waits case never met");
    cr_assert_gt(t.above_without, 0,
                 "no schedule where the root suspends at a creation exceeded the bound: the "
                 "assumption would not matter and the test could not fail");
}

/* ---- the report's input bound (report/report_input.c) ------------------------ */

/* NQUEENS_LIKE with k children (k T nodes in a row, then one W), as a
 * graph whose "input" covers every node and records `runtime` (NULL: none). */
static ompdag_condag_set *loop_with_input(int k, const char *runtime)
{
    json_t *nodes = json_array(), *edges = json_array(), *ids = json_array();
    json_array_append_new(
        nodes, json_pack("{s:s,s:s,s:s,s:i}", "id", "r0", "task", "t1", "kind", "N", "wcet", 5));
    json_array_append_new(ids, json_string("r0"));
    char prev[32] = "r0";
    for (int i = 1; i <= k; ++i) {
        char r[32], q[32];
        snprintf(r, sizeof r, "r%d", i), snprintf(q, sizeof q, "q%d", i);
        json_array_append_new(nodes, json_pack("{s:s,s:s,s:s,s:i,s:s,s:b}", "id", r, "task", "t1",
                                               "kind", "T", "wcet", 2, "creates", q, "untied", 1));
        json_array_append_new(
            nodes, json_pack("{s:s,s:s,s:s,s:i}", "id", q, "task", q, "kind", "N", "wcet", 100));
        json_array_append_new(edges, json_pack("[s,s]", prev, r));
        json_array_append_new(ids, json_string(r)), json_array_append_new(ids, json_string(q));
        snprintf(prev, sizeof prev, "%s", r);
    }
    json_array_append_new(
        nodes, json_pack("{s:s,s:s,s:s,s:i}", "id", "w", "task", "t1", "kind", "W", "wcet", 1));
    json_array_append_new(edges, json_pack("[s,s]", prev, "w"));
    json_array_append_new(ids, json_string("w"));
    json_t *input = json_pack("{s:b,s:i,s:s,s:o}", "recorded", 1, "runs", 3, "claim",
                              "the task structure of these 3 runs", "nodes", ids);
    if (runtime) {
        json_error_t je;
        json_t *rt = json_loads(runtime, 0, &je);
        cr_assert(rt, "%s", je.text);
        json_object_set_new(input, "runtime", rt);
    }
    json_t *j = json_pack("{s:s,s:i,s:s,s:s,s:o,s:o,s:o}", "format", "ompdag-condag", "version", 1,
                          "function", "main", "time_unit", "ns", "nodes", nodes, "edges", edges,
                          "input", input);
    char *text = json_dumps(j, JSON_COMPACT);
    ompdag_condag_set *s = load(text);
    free(text);
    json_decref(j);
    return s;
}

/* The only row at m = 2 (caller destroys the report). */
static const ompdag_report_row *row_at_2(const ompdag_condag_set *s, ompdag_report **r)
{
    ompdag_report_options opt;
    ompdag_report_options_init(&opt);
    int32_t m = 2;
    opt.threads = &m, opt.thread_count = 1;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_report_create(s, &opt, r, &err), OMPDAG_OK, "%s", err.message);
    return ompdag_report_row_get(*r, 0);
}

static const char *LIBOMP =
    "{\"version\": \"LLVM OMP version: 5.0.20140926\", \"throttling\": true, \"tasking\": true}";

/* k = 6: vol 618, len 118; m = 2: ROOT 1236 (the volume), ROOT_WAITS 736. */
Test(tied_waits, input_bound_drops_with_libomp_recorded)
{
    ompdag_report *r = NULL;
    ompdag_condag_set *s = loop_with_input(6, LIBOMP);
    const ompdag_report_row *row = row_at_2(s, &r);
    cr_expect_eq(row->bound_times_m, 1236, "the graph's bound keeps ROOT: %lld",
                 (long long)row->bound_times_m);
    cr_expect_eq(row->input_bound_times_m, 736, "got %lld", (long long)row->input_bound_times_m);
    cr_expect_eq(row->input_tied_rule, OMPDAG_TIED_ROOT_WAITS);
    cr_expect(strstr(row->input_root_creation, "at most 6 <= 256"), "%s", row->input_root_creation);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
}

Test(tied_waits, input_bound_unchanged_without_a_libomp_runtime)
{
    static const char *runtimes[] = {
        NULL, /* annotated before the runtime was recorded: unknown */
        "{\"version\": \"GNU libgomp\", \"throttling\": true, \"tasking\": true}",
        "{\"version\": \"LLVM OMP version: 5.0\", \"throttling\": false, \"tasking\": false}",
        "{\"version\": \"LLVM OMP version: 5.0\", \"throttling\": true}",
    };
    for (size_t i = 0; i < sizeof runtimes / sizeof *runtimes; ++i) {
        ompdag_report *r = NULL;
        ompdag_condag_set *s = loop_with_input(6, runtimes[i]);
        const ompdag_report_row *row = row_at_2(s, &r);
        cr_expect_eq(row->input_bound_times_m, 1236, "runtime %zu: %lld", i,
                     (long long)row->input_bound_times_m);
        cr_expect_eq(row->input_tied_rule, OMPDAG_TIED_ROOT, "runtime %zu", i);
        cr_expect_eq(row->input_root_creation[0] == '\0', runtimes[i] == NULL, "runtime %zu: %s", i,
                     row->input_root_creation);
        ompdag_report_destroy(r);
        ompdag_condag_set_destroy(s);
    }
}

/* 257 explicit tasks may fill libomp's deque of 256: the general rule stays,
 * unless every run had throttling off (the deque grows instead).  vol =
 * 5 + 257·102 + 1 = 26220, len = 5 + 514 + 100 + 1 = 620. */
Test(tied_waits, input_bound_keeps_root_past_256_tasks)
{
    ompdag_report *r = NULL;
    ompdag_condag_set *s = loop_with_input(257, LIBOMP);
    const ompdag_report_row *row = row_at_2(s, &r);
    cr_expect_eq(row->input_bound_times_m, 2 * 26220, "got %lld",
                 (long long)row->input_bound_times_m);
    cr_expect_eq(row->input_tied_rule, OMPDAG_TIED_ROOT);
    cr_expect(strstr(row->input_root_creation, "257 > 256"), "%s", row->input_root_creation);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
    s = loop_with_input(257, "{\"version\": \"LLVM OMP version: 5.0\", \"throttling\": false, "
                             "\"tasking\": true}");
    row = row_at_2(s, &r);
    cr_expect_eq(row->input_bound_times_m, 26220 + 620, "got %lld",
                 (long long)row->input_bound_times_m);
    cr_expect_eq(row->input_tied_rule, OMPDAG_TIED_ROOT_WAITS);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
}
