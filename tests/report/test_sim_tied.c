/* tests/report/test_sim_tied.c — ompdag_rta_tied_bound (analysis/rta_tied.c)
 * against schedules that obey OpenMP's task scheduling constraint and pick
 * the worst legal choices (report/sim_tied.c), docs/tied.md §6:
 *   - hand-made graphs where a legal tied schedule exceeds Graham's bound
 *     (root alone; an explicit tied task), so rules ROOT and VOLUME are needed;
 *   - graphs where the structure allows Graham (NEVER_SUSPENDS) or the root
 *     rule (ROOT) below the volume;
 *   - thousands of random graphs, tied/untied marks drawn three ways, several
 *     m, four adversaries, stack/free resumption, strict/spec TSC, WCET and
 *     random execution times: every m·R <= the tied bound <= m·vol, and the
 *     bound is never below Graham's. */
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

static int64_t tied_bound(const ompdag_condag *g, int32_t m, ompdag_tied_rule *rule)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    int64_t b = -1;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_rta_tied_bound(g, &opt, &b, rule, &err), OMPDAG_OK, "%s", err.message);
    return b;
}

/* The largest makespan over the four adversaries, stack and free resumption. */
static int64_t worst_tied_makespan(const ompdag_condag *g, int32_t m)
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
            ompdag_tied_sim_result r;
            ompdag_error err = {0};
            cr_assert_eq(ompdag_tied_sim_run(g, choice, &o, &r, &err), OMPDAG_OK, "%s",
                         err.message);
            if (r.makespan > worst) worst = r.makespan;
        }
    free(choice);
    return worst;
}

/* τ1 (the implicit task) creates a and b, both untied, and goes on after
 * each: the root's continuation is tied to thread 0, so a child-first
 * schedule runs a, then b, on thread 0 while thread 1 idles. */
static const char *ROOT_ALONE =
    "{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":["
    "{\"id\":\"r1\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":0,\"creates\":\"a\",\"untied\":true},"
    "{\"id\":\"r2\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":0,\"creates\":\"b\",\"untied\":true},"
    "{\"id\":\"r3\",\"task\":\"t1\",\"kind\":\"N\",\"wcet\":0},"
    "{\"id\":\"a1\",\"task\":\"a\",\"kind\":\"N\",\"wcet\":100},"
    "{\"id\":\"b1\",\"task\":\"b\",\"kind\":\"N\",\"wcet\":100}],"
    "\"edges\":[[\"r1\",\"r2\"],[\"r2\",\"r3\"]]}";

Test(tied, root_alone_exceeds_graham)
{
    ompdag_condag_set *s = load(ROOT_ALONE);
    const ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    int64_t sim = worst_tied_makespan(g, 2);
    cr_assert_eq(sim, 200, "child-first runs a then b on thread 0: %lld", (long long)sim);
    cr_assert_eq(graham(g, 2), 300); /* vol 200 + len 100 */
    cr_assert_gt(2 * sim, graham(g, 2), "the tied root breaks Theorem 1 for untied children");
    ompdag_tied_rule rule;
    int64_t b = tied_bound(g, 2, &rule);
    cr_assert_geq(b, 2 * sim, "tied bound %lld below the schedule's m·R = %lld", (long long)b,
                  (long long)(2 * sim));
    cr_assert_neq(rule, OMPDAG_TIED_NONE);
    int64_t lr = -1;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_rta_tied_root_path(g, &lr, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(lr, 200, "r1 -> a1 -> r2 -> b1 -> r3");
    ompdag_condag_set_destroy(s);
}

/* A migration is busy time too: the volume at m = 1 keeps the overhead O
 * (the first implementation dropped it there, below what untied children
 * that migrate on m threads spend). */
Test(tied, volume_keeps_migration_overhead)
{
    ompdag_condag_set *s = load(ROOT_ALONE);
    const ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 1);
    opt.migration_overhead = 7;
    ompdag_rta_result *r = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    int64_t vol_o = ompdag_rta_result_bound_times_m(r);
    ompdag_rta_result_destroy(r);
    cr_assert_eq(vol_o, 200 + 2 * 7, "two T nodes, one migration site each (WFS)");
    opt.m = 2;
    int64_t b = -1;
    ompdag_tied_rule rule;
    cr_assert_eq(ompdag_rta_tied_bound(g, &opt, &b, &rule, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(rule, OMPDAG_TIED_VOLUME);
    cr_assert_eq(b, 2 * vol_o);
    ompdag_condag_set_destroy(s);
}

/* The root only creates x; x is tied and creates a and b: x's continuation is
 * tied to its thread, so the same serialisation happens inside x.  The root
 * rule's formula gives Graham's 300 here (the root never waits): only the
 * volume holds. */
static const char *TIED_INNER =
    "{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":["
    "{\"id\":\"r1\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":0,\"creates\":\"x\",\"untied\":false},"
    "{\"id\":\"x1\",\"task\":\"x\",\"kind\":\"T\",\"wcet\":0,\"creates\":\"a\",\"untied\":true},"
    "{\"id\":\"x2\",\"task\":\"x\",\"kind\":\"T\",\"wcet\":0,\"creates\":\"b\",\"untied\":true},"
    "{\"id\":\"x3\",\"task\":\"x\",\"kind\":\"W\",\"wcet\":0},"
    "{\"id\":\"a1\",\"task\":\"a\",\"kind\":\"N\",\"wcet\":100},"
    "{\"id\":\"b1\",\"task\":\"b\",\"kind\":\"N\",\"wcet\":100}],"
    "\"edges\":[[\"x1\",\"x2\"],[\"x2\",\"x3\"]]}";

Test(tied, suspending_tied_task_needs_volume)
{
    ompdag_condag_set *s = load(TIED_INNER);
    const ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    int64_t sim = worst_tied_makespan(g, 2);
    cr_assert_eq(sim, 200);
    cr_assert_eq(graham(g, 2), 300);
    int64_t lr = -1;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_rta_tied_root_path(g, &lr, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_lt(200 + lr, 2 * sim, "the root rule's formula would be unsound here");
    ompdag_tied_rule rule;
    cr_assert_eq(tied_bound(g, 2, &rule), 400);
    cr_assert_eq(rule, OMPDAG_TIED_VOLUME);
    /* marking x untied would give Graham's bound back (the root never waits) */
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 2);
    int64_t iu = -1;
    cr_assert_eq(ompdag_rta_tied_bound_if_untied(g, &opt, &iu, &rule, &err), OMPDAG_OK);
    cr_assert_eq(iu, 300);
    cr_assert_eq(rule, OMPDAG_TIED_NONE);
    ompdag_condag_set_destroy(s);
}

/* The root creates an untied task a, then works 10 more: a creates four
 * tied leaf tasks of 100 and waits.  No explicit tied task suspends, the
 * root may: rule ROOT, between Graham and the volume. */
static const char *ROOT_RULE =
    "{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":["
    "{\"id\":\"r1\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":0,\"creates\":\"a\",\"untied\":true},"
    "{\"id\":\"r2\",\"task\":\"t1\",\"kind\":\"N\",\"wcet\":10},"
    "{\"id\":\"a1\",\"task\":\"a\",\"kind\":\"T\",\"wcet\":1,\"creates\":\"b1\",\"untied\":false},"
    "{\"id\":\"a2\",\"task\":\"a\",\"kind\":\"T\",\"wcet\":1,\"creates\":\"b2\",\"untied\":false},"
    "{\"id\":\"a3\",\"task\":\"a\",\"kind\":\"T\",\"wcet\":1,\"creates\":\"b3\",\"untied\":false},"
    "{\"id\":\"a4\",\"task\":\"a\",\"kind\":\"T\",\"wcet\":1,\"creates\":\"b4\",\"untied\":false},"
    "{\"id\":\"a5\",\"task\":\"a\",\"kind\":\"W\",\"wcet\":1},"
    "{\"id\":\"n1\",\"task\":\"b1\",\"kind\":\"N\",\"wcet\":100},"
    "{\"id\":\"n2\",\"task\":\"b2\",\"kind\":\"N\",\"wcet\":100},"
    "{\"id\":\"n3\",\"task\":\"b3\",\"kind\":\"N\",\"wcet\":100},"
    "{\"id\":\"n4\",\"task\":\"b4\",\"kind\":\"N\",\"wcet\":100}],"
    "\"edges\":[[\"r1\",\"r2\"],[\"a1\",\"a2\"],[\"a2\",\"a3\"],[\"a3\",\"a4\"],[\"a4\",\"a5\"]]}";

Test(tied, root_rule_between_graham_and_volume)
{
    ompdag_condag_set *s = load(ROOT_RULE);
    const ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    const int32_t m = 4;
    const int64_t vol = 415;
    ompdag_tied_rule rule;
    int64_t b = tied_bound(g, m, &rule);
    cr_assert_eq(rule, OMPDAG_TIED_ROOT, "rule %s", ompdag_tied_rule_name(rule));
    int64_t lr = -1;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_rta_tied_root_path(g, &lr, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(lr, 115, "a1..a4, n4, a5, then r2: %lld", (long long)lr);
    cr_assert_eq(b, vol + (m - 1) * lr);
    cr_assert_eq(graham(g, m), 730);
    cr_assert_geq(b, graham(g, m));
    cr_assert_lt(b, m * vol, "bound %lld not below the volume %lld", (long long)b,
                 (long long)(m * vol));
    int64_t sim = worst_tied_makespan(g, m);
    cr_assert_geq(b, m * sim);
    ompdag_condag_set_destroy(s);
}

/* The root's only T node ends it (the `single` + `task` idiom); inside the
 * untied task, tied leaves that never suspend: Theorem 1 as is. */
static const char *NEVER_SUSPENDS =
    "{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":["
    "{\"id\":\"r1\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":0,\"creates\":\"a\",\"untied\":true},"
    "{\"id\":\"a1\",\"task\":\"a\",\"kind\":\"T\",\"wcet\":5,\"creates\":\"b\",\"untied\":false},"
    "{\"id\":\"a2\",\"task\":\"a\",\"kind\":\"T\",\"wcet\":5,\"creates\":\"c\",\"untied\":false},"
    "{\"id\":\"a3\",\"task\":\"a\",\"kind\":\"W\",\"wcet\":5},"
    "{\"id\":\"b1\",\"task\":\"b\",\"kind\":\"N\",\"wcet\":100},"
    "{\"id\":\"b2\",\"task\":\"b\",\"kind\":\"N\",\"wcet\":20},"
    "{\"id\":\"c1\",\"task\":\"c\",\"kind\":\"N\",\"wcet\":70}],"
    "\"edges\":[[\"a1\",\"a2\"],[\"a2\",\"a3\"],[\"b1\",\"b2\"]]}";

Test(tied, never_suspending_tied_tasks_keep_graham)
{
    ompdag_condag_set *s = load(NEVER_SUSPENDS);
    const ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    for (int32_t m = 1; m <= 4; ++m) {
        ompdag_tied_rule rule;
        int64_t b = tied_bound(g, m, &rule);
        cr_assert_eq(rule, OMPDAG_TIED_NEVER_SUSPENDS, "rule %s", ompdag_tied_rule_name(rule));
        cr_assert_eq(b, graham(g, m));
        cr_assert_geq(b, m * worst_tied_makespan(g, m));
    }
    ompdag_condag_set_destroy(s);
}

Test(tied, simulator_refuses_bad_input)
{
    ompdag_condag_set *s = load(ROOT_ALONE);
    const ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    int32_t choice[5] = {-1, -1, -1, -1, -1};
    int64_t exec[5] = {0, 0, 0, 101, 0};
    ompdag_tied_sim_options o;
    ompdag_tied_sim_options_init(&o, 2);
    o.exec = exec;
    ompdag_tied_sim_result r;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_tied_sim_run(g, choice, &o, &r, &err), OMPDAG_ERR_ARGUMENT);
    cr_assert(strstr(err.message, "a1"), "%s", err.message);
    o.exec = NULL, o.m = 0;
    cr_assert_eq(ompdag_tied_sim_run(g, choice, &o, &r, &err), OMPDAG_ERR_ARGUMENT);
    ompdag_condag_set_destroy(s);
}

/* A compact graph (shared recursive bodies) has no root-tied path: the
 * volume stands, computed on the expanded flows by Alg1 at m = 1. */
/* A compact graph's Lr is computed on its unfolding (G_r's extra edges join
 * instances): the same rule and value as the unfolded graph's. */
Test(tied, compact_graphs_are_unfolded_for_the_root_rule)
{
    const char *dir = getenv("OMPDAG_SOURCE_DIR");
    cr_assert(dir, "run through ctest");
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/condag/fib_compact.json", dir);
    ompdag_condag_set *s = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_file(path, &s, &err), OMPDAG_OK, "%s", err.message);
    const ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    int64_t lr = -1;
    cr_assert_eq(ompdag_rta_tied_root_path(g, &lr, &err), OMPDAG_ERR_UNSUPPORTED);
    cr_assert(strstr(err.message, "compact"), "%s", err.message);
    ompdag_condag *x = NULL;
    cr_assert_eq(ompdag_compact_expand(g, 0, &x, &err), OMPDAG_OK, "%s", err.message);
    for (int32_t m = 1; m <= 8; m *= 2) {
        ompdag_tied_rule rule, xrule;
        int64_t b = tied_bound(g, m, &rule), xb = tied_bound(x, m, &xrule);
        cr_assert_eq(rule, xrule, "m=%d", m);
        cr_assert_eq(b, xb, "m=%d", m);
        cr_assert_leq(b, m * graham(g, 1), "m=%d", m);
        cr_assert_geq(b, graham(g, m), "m=%d", m);
    }
    ompdag_tied_rule rule;
    tied_bound(g, 4, &rule);
    cr_expect_eq(rule, OMPDAG_TIED_ROOT, "fib's root waits; its untied tasks never hold it");
    ompdag_condag_destroy(x);
    ompdag_condag_set_destroy(s);
}

/* ---- random graphs ----------------------------------------------------------- */

typedef struct tally {
    uint64_t graphs[MARK_MODES], runs[MARK_MODES], above_graham[MARK_MODES];
    uint64_t rules[4], held;
} tally;

/* One flow of g at m: every adversary, stack and free, spec and strict TSC,
 * WCET and random execution times. */
static void check_flow(const ompdag_condag *g, const int32_t *choice, int32_t m, int64_t bound,
                       int64_t untied, int mode, ompdag_rng *rng, int64_t *exec, tally *t,
                       uint64_t seed)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 1);
    ompdag_flow_eval fe;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_flow_evaluate(g, choice, &opt, &fe, NULL, NULL, &err), OMPDAG_OK, "%s",
                 err.message);
    for (int pol = 0; pol < 4; ++pol)
        for (int variant = 0; variant < 4; ++variant) {
            ompdag_tied_sim_options o;
            ompdag_tied_sim_options_init(&o, m);
            o.policy = (ompdag_tied_policy)pol;
            o.stack = variant & 1, o.strict = variant & 2;
            o.seed = seed * 131 + (uint64_t)(m * 16 + pol * 4 + variant);
            if (variant == 3) {
                for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
                    exec[v] = ompdag_rng_range(rng, 0, ompdag_condag_node_wcet(g, v));
                o.exec = exec;
            }
            ompdag_tied_sim_result r;
            cr_assert_eq(ompdag_tied_sim_run(g, choice, &o, &r, &err), OMPDAG_OK,
                         "seed %llu m %d %s: %s", (unsigned long long)seed, m,
                         ompdag_tied_policy_name(o.policy), err.message);
            ++t->runs[mode];
            t->held += r.held > 0;
            cr_assert_eq(r.events, r.executed);
            cr_assert_leq(r.makespan, fe.vol, "seed %llu m %d: R above vol(e) (progress lemma)",
                          (unsigned long long)seed, m);
            cr_assert_leq(r.makespan * m, bound,
                          "seed %llu m %d %s stack %d strict %d: m·R = %lld above the tied "
                          "bound %lld",
                          (unsigned long long)seed, m, ompdag_tied_policy_name(o.policy), o.stack,
                          o.strict, (long long)(r.makespan * m), (long long)bound);
            if (r.makespan * m > untied) ++t->above_graham[mode];
        }
}

static void check_graph(ompdag_condag *g, int mode, uint64_t seed, ompdag_rng *rng, tally *t)
{
    int32_t n = ompdag_condag_node_count(g);
    int32_t *choice = malloc((size_t)n * sizeof *choice);
    int64_t *exec = malloc((size_t)n * sizeof *exec);
    static const int32_t ms[] = {1, 2, 3, 4, 8};
    ++t->graphs[mode];
    for (size_t k = 0; k < sizeof ms / sizeof *ms; ++k) {
        int32_t m = ms[k];
        ompdag_tied_rule rule;
        int64_t bound = tied_bound(g, m, &rule), untied = graham(g, m);
        ++t->rules[rule];
        cr_assert_geq(bound, untied, "seed %llu m %d: tied bound below Graham",
                      (unsigned long long)seed, m);
        ompdag_rta_options o1;
        ompdag_rta_options_init(&o1, m);
        int64_t iu = -1;
        ompdag_tied_rule iu_rule;
        ompdag_error err = {0};
        cr_assert_eq(ompdag_rta_tied_bound_if_untied(g, &o1, &iu, &iu_rule, &err), OMPDAG_OK);
        cr_assert_leq(iu, bound, "seed %llu: marking tasks untied raised the bound",
                      (unsigned long long)seed);
        if (mode == MARK_UNTIED) cr_assert_eq(iu, bound);
        cr_assert_leq(bound, m * graham(g, 1), "seed %llu: tied bound above m·vol",
                      (unsigned long long)seed);
        for (int f = 0; f < 2; ++f) {
            ompdag_sim_random_choice(g, rng, choice);
            check_flow(g, choice, m, bound, untied, mode, rng, exec, t, seed);
        }
    }
    free(choice), free(exec);
}

Test(tied, random_graphs_never_exceed_the_tied_bound, .timeout = 280)
{
    tally t = {0};
    ompdag_rng shape;
    ompdag_rng_seed(&shape, 2022);
    const uint64_t graphs = 6000;
    for (uint64_t seed = 1; seed <= graphs; ++seed) {
        ompdag_condag *g = random_graph(seed, &shape);
        int mode = (int)(seed % MARK_MODES);
        mark(g, mode, &shape);
        check_graph(g, mode, seed, &shape, &t);
        ompdag_condag_destroy(g);
    }
    printf("tied property: graphs untied/leaves/any = %llu/%llu/%llu, schedules %llu/%llu/%llu, "
           "above Graham %llu/%llu/%llu; rules none/never/volume/root = %llu/%llu/%llu/%llu; "
           "schedules where the constraint idled a thread: %llu\n",
           (unsigned long long)t.graphs[0], (unsigned long long)t.graphs[1],
           (unsigned long long)t.graphs[2], (unsigned long long)t.runs[0],
           (unsigned long long)t.runs[1], (unsigned long long)t.runs[2],
           (unsigned long long)t.above_graham[0], (unsigned long long)t.above_graham[1],
           (unsigned long long)t.above_graham[2], (unsigned long long)t.rules[0],
           (unsigned long long)t.rules[1], (unsigned long long)t.rules[2],
           (unsigned long long)t.rules[3], (unsigned long long)t.held);
    /* The constraint matters on random graphs too: with a bound of Graham's
     * these schedules would fail, with untied children (root alone) and
     * with tied ones. */
    cr_assert_gt(t.above_graham[MARK_UNTIED], 0);
    cr_assert_gt(t.above_graham[MARK_ANY], 0);
    cr_assert_gt(t.rules[OMPDAG_TIED_ROOT], 0, "the root rule never applied");
    cr_assert_gt(t.rules[OMPDAG_TIED_NEVER_SUSPENDS] + t.rules[OMPDAG_TIED_NONE], 0);
}

/* The same graph with depend items on some W nodes: partial taskwaits
 * (docs/depend.md), on the vars of the generator's clauses. */
static ompdag_condag *with_partial_waits(const ompdag_condag *g0, ompdag_rng *r, int *count)
{
    static const char *const types[] = {"in", "out", "inout", "inoutset", "mutexinoutset"};
    json_t *j = ompdag_condag_to_json(g0), *node, *ext;
    size_t i;
    json_array_foreach(json_object_get(j, "nodes"), i, node)
    {
        if (strcmp(json_string_value(json_object_get(node, "kind")), "W") ||
            ompdag_rng_unit(r) < 0.3)
            continue;
        char var[8];
        snprintf(var, sizeof var, "x%d", (int)ompdag_rng_range(r, 0, 1));
        json_object_set_new(
            node, "depend",
            json_pack("[{s:s,s:s}]", "type", types[ompdag_rng_range(r, 0, 4)], "var", var));
        ++*count;
    }
    if (!(ext = json_object_get(j, "extensions")))
        json_object_set_new(j, "extensions", ext = json_array());
    json_array_append_new(ext, json_string("taskwait-depend"));
    ompdag_condag *g = NULL;
    ompdag_error err = {0};
    cr_assert_eq(condag_from_json(j, "waits", &g, &err), OMPDAG_OK, "%s", err.message);
    json_decref(j);
    return g;
}

/* A partial taskwait is a W node to every tied rule (a scheduling point
 * where the task may suspend), and its waits are D-edges of the flow (the
 * union over flows for the root rule): the adversaries never beat the bound. */
Test(tied, partial_taskwaits_never_exceed_the_tied_bound, .timeout = 280)
{
    tally t = {0};
    ompdag_rng shape;
    ompdag_rng_seed(&shape, 2026);
    int partial = 0;
    for (uint64_t seed = 1; seed <= 2000; ++seed) {
        ompdag_condag *g0 = random_graph(seed, &shape);
        ompdag_condag *g = with_partial_waits(g0, &shape, &partial);
        ompdag_condag_destroy(g0);
        int mode = (int)(seed % MARK_MODES);
        mark(g, mode, &shape);
        check_graph(g, mode, seed, &shape, &t);
        ompdag_condag_destroy(g);
    }
    printf("tied with partial taskwaits: %d partial W nodes, schedules %llu/%llu/%llu\n", partial,
           (unsigned long long)t.runs[0], (unsigned long long)t.runs[1],
           (unsigned long long)t.runs[2]);
    cr_assert_gt(partial, 1000);
}

/* ---- dispatch delays on the chain (docs/tied.md §4, "dispatch delays") ---- */

/* Random D(v) at the nodes where the runtime's delays arise (docs/overheads.md:
 * task sources, W nodes, after T nodes), each a random share of its class. */
static void random_delays(ompdag_condag *g, ompdag_rng *rng, int64_t *d)
{
    ompdag_overheads o = {.start_delay = ompdag_rng_range(rng, 0, 80),
                          .wake_delay = ompdag_rng_range(rng, 0, 80),
                          .cont_delay = ompdag_rng_range(rng, 0, 80),
                          .formation = ompdag_rng_range(rng, 0, 80),
                          .threads = 2};
    ompdag_error err = {0};
    cr_assert_eq(ompdag_overheads_node_delays(g, &o, d, &err), OMPDAG_OK, "%s", err.message);
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        d[v] = ompdag_rng_range(rng, 0, d[v]);
        cr_assert_eq(ompdag_condag_assign_delay(g, v, d[v], &err), OMPDAG_OK, "%s", err.message);
    }
}

/* The ROOT rule as it was (delays folded everywhere): max vol(e) with
 * WCET + D, plus (m−1)·Lr with WCET + D. */
static int64_t folded_root_rule(const ompdag_condag *g, int32_t m)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 1);
    opt.fold_delays = true;
    ompdag_rta_result *r = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    int64_t vol = ompdag_rta_result_bound_times_m(r), lr = 0;
    ompdag_rta_result_destroy(r);
    cr_assert_eq(ompdag_rta_tied_root_path(g, &lr, &err), OMPDAG_OK, "%s", err.message);
    return vol + (m - 1) * lr;
}

/* Every adversary, with each node waiting its full delay once ready, and
 * with random execution times: m·makespan within the tied bound. */
static void check_delayed_flow(const ompdag_condag *g, const int32_t *choice, int32_t m,
                               int64_t bound, const int64_t *d, int64_t *exec, ompdag_rng *rng,
                               uint64_t seed, uint64_t *above_chain_graham, int64_t graham_m)
{
    for (int pol = 0; pol < 4; ++pol)
        for (int variant = 0; variant < 4; ++variant) {
            ompdag_tied_sim_options o;
            ompdag_tied_sim_options_init(&o, m);
            o.policy = (ompdag_tied_policy)pol;
            o.stack = variant & 1;
            o.delay = d;
            o.seed = seed * 131 + (uint64_t)(m * 16 + pol * 4 + variant);
            if (variant >= 2) {
                for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
                    exec[v] = ompdag_rng_range(rng, 0, ompdag_condag_node_wcet(g, v));
                o.exec = exec;
            }
            ompdag_tied_sim_result r;
            ompdag_error err = {0};
            cr_assert_eq(ompdag_tied_sim_run(g, choice, &o, &r, &err), OMPDAG_OK, "%s",
                         err.message);
            cr_assert_leq(r.makespan * m, bound,
                          "seed %llu m %d %s stack %d: m·R = %lld above the tied bound %lld "
                          "with dispatch delays",
                          (unsigned long long)seed, m, ompdag_tied_policy_name(o.policy), o.stack,
                          (long long)(r.makespan * m), (long long)bound);
            *above_chain_graham += r.makespan * m > graham_m;
        }
}

Test(tied, dispatch_delays_on_the_chain_hold_for_tied_schedules, .timeout = 280)
{
    ompdag_rng shape;
    ompdag_rng_seed(&shape, 2026);
    uint64_t root_rule = 0, tighter = 0, above = 0, graphs = 2500;
    for (uint64_t seed = 1; seed <= graphs; ++seed) {
        ompdag_condag *g = random_graph(seed, &shape);
        mark(g, (int)(seed % MARK_MODES), &shape);
        int32_t n = ompdag_condag_node_count(g);
        int64_t *d = malloc((size_t)n * sizeof *d), *exec = malloc((size_t)n * sizeof *exec);
        int32_t *choice = malloc((size_t)n * sizeof *choice);
        random_delays(g, &shape, d);
        static const int32_t ms[] = {1, 2, 3, 4};
        for (size_t k = 0; k < sizeof ms / sizeof *ms; ++k) {
            ompdag_tied_rule rule;
            int64_t bound = tied_bound(g, ms[k], &rule);
            if (rule == OMPDAG_TIED_ROOT) {
                ++root_rule;
                int64_t folded = folded_root_rule(g, ms[k]);
                cr_assert_leq(bound, folded, "seed %llu: above the folded ROOT rule",
                              (unsigned long long)seed);
                tighter += bound < folded;
            }
            ompdag_sim_random_choice(g, &shape, choice);
            check_delayed_flow(g, choice, ms[k], bound, d, exec, &shape, seed, &above,
                               graham(g, ms[k]));
        }
        free(d), free(exec), free(choice);
        ompdag_condag_destroy(g);
    }
    printf("tied with delays: %llu graphs, ROOT rule %llu times, tighter than folded %llu, "
           "schedules above chain-only Graham %llu\n",
           (unsigned long long)graphs, (unsigned long long)root_rule, (unsigned long long)tighter,
           (unsigned long long)above);
    cr_assert_gt(root_rule, 0);
    cr_assert_gt(tighter, 0, "the chain-only ROOT rule never beat the folded one");
    cr_assert_gt(above, 0, "no schedule needed more than Graham's bound: the test is too weak");
}
