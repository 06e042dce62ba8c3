/* tests/report/test_sim.c — the schedule simulator as an independent check of
 * the exact bound: on thousands of random con-DAGs (seed 004 §7 generator),
 * for m in {1, 2, 3, 4, 8}, WFS and BFS, worst / random flows and WCET /
 * random execution times, every simulated response R satisfies
 *     m·R <= vol(e) + (m−1)·len(e)   (Graham, per flow)   <= bound_times_m,
 * with the lower bounds R >= len(e), m·R >= vol(e), equality at m = 1. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/gen.h"
#include "ompdag/overhead.h"
#include "ompdag/report.h"
#include "ompdag/rta.h"

/* Probability that a W node is a partial taskwait (`taskwait depend`). */
static double p_wait_dep = 0;

static ompdag_condag *random_graph_dep(uint64_t seed, ompdag_rng *shape, double p_dep)
{
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    p.seed = seed;
    p.tasks = (int32_t)ompdag_rng_range(shape, 2, 14);
    p.p_if = 0.05 + 0.45 * ompdag_rng_unit(shape);
    p.p_cre = 0.05 + 0.45 * ompdag_rng_unit(shape);
    p.p_wait = 0.05 + 0.45 * ompdag_rng_unit(shape);
    p.nodes_min = 3;
    p.nodes_max = (int32_t)ompdag_rng_range(shape, 3, 25);
    p.wcet_min = ompdag_rng_range(shape, 0, 1);
    p.wcet_max = ompdag_rng_range(shape, 1, 100);
    p.p_dep = p_dep;
    p.dep_vars = (int32_t)ompdag_rng_range(shape, 1, 3);
    p.p_wait_dep = p_wait_dep;
    ompdag_condag *g = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_gen_random(&p, &g, &err), OMPDAG_OK, "seed %llu: %s",
                 (unsigned long long)seed, err.message);
    return g;
}

static ompdag_condag *random_graph(uint64_t seed, ompdag_rng *shape)
{
    return random_graph_dep(seed, shape, 0.0);
}

typedef struct stats {
    uint64_t runs, tight, steals, sched_differs;
    double max_ratio;
} stats;

/* One flow, one m, both schedulers, both execution-time modes. */
static void check_flow(ompdag_sim *sim, const ompdag_condag *g, const int32_t *choice, int32_t m,
                       int64_t bound_times_m, bool is_worst, ompdag_rng *rng, int64_t *exec,
                       stats *st, uint64_t seed)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    ompdag_flow_eval fe;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_flow_evaluate(g, choice, &opt, &fe, NULL, NULL, &err), OMPDAG_OK, "%s",
                 err.message);
    cr_assert_leq(fe.bound_times_m, bound_times_m, "seed %llu: a flow above the exact bound",
                  (unsigned long long)seed);
    int64_t wfs_makespan = -1;
    for (int sc = 0; sc < 2; ++sc) {
        ompdag_scheduler sched = sc ? OMPDAG_SCHED_BFS : OMPDAG_SCHED_WFS;
        for (int mode = 0; mode < 2; ++mode) {
            if (mode)
                for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
                    exec[v] = ompdag_rng_range(rng, 0, ompdag_condag_node_wcet(g, v));
            ompdag_sim_result r;
            cr_assert_eq(ompdag_sim_run(sim, choice, mode ? exec : NULL, m, sched,
                                        seed * 31 + (uint64_t)m, &r, &err),
                         OMPDAG_OK, "seed %llu m %d: %s", (unsigned long long)seed, m, err.message);
            ++st->runs;
            int64_t mr = r.makespan * m;
            cr_assert_leq(mr, fe.bound_times_m,
                          "seed %llu m %d %s: m*R = %lld above vol + (m-1)len = %lld",
                          (unsigned long long)seed, m, ompdag_scheduler_name(sched), (long long)mr,
                          (long long)fe.bound_times_m);
            cr_assert_eq(r.executed, fe.executed);
            cr_assert_eq(r.events, r.executed);
            if (mode == 0) {
                cr_assert_eq(r.busy, fe.vol);
                cr_assert_geq(r.makespan, fe.len, "seed %llu: shorter than the longest path",
                              (unsigned long long)seed);
                cr_assert_geq(mr, fe.vol);
                if (m == 1)
                    cr_assert_eq(r.makespan, fe.vol, "one thread runs the volume, never idles");
                if (is_worst && m == 1) {
                    cr_assert_eq(mr, bound_times_m, "the bound is tight at m = 1");
                    ++st->tight;
                }
                double ratio = bound_times_m ? (double)mr / (double)bound_times_m : 0;
                if (ratio > st->max_ratio) st->max_ratio = ratio;
                if (sc == 0)
                    wfs_makespan = r.makespan;
                else if (r.makespan != wfs_makespan)
                    ++st->sched_differs;
            }
            st->steals += (uint64_t)r.steals;
        }
    }
}

/* Simulates the worst and RANDOM_FLOWS random flows of GRAPHS random graphs
 * for every m; p_dep > 0 adds depend clauses (condag.md §6). */
static void simulate_random_graphs(const int32_t *ms, size_t nm, uint64_t graphs, int random_flows,
                                   double p_dep, stats *st)
{
    ompdag_rng shape, rng;
    ompdag_rng_seed(&shape, 20261122);
    ompdag_rng_seed(&rng, 7);
    for (uint64_t seed = 1; seed <= graphs; ++seed) {
        ompdag_condag *g = random_graph_dep(seed, &shape, p_dep);
        int32_t n = ompdag_condag_node_count(g);
        int32_t *choice = malloc(sizeof *choice * (size_t)n);
        int64_t *exec = malloc(sizeof *exec * (size_t)n);
        ompdag_sim *sim;
        ompdag_error err = {0};
        cr_assert_eq(ompdag_sim_create(g, &sim, &err), OMPDAG_OK);
        for (size_t k = 0; k < nm; ++k) {
            ompdag_rta_options opt;
            ompdag_rta_options_init(&opt, ms[k]);
            ompdag_rta_result *res;
            cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &res, &err), OMPDAG_OK, "%s",
                         err.message);
            int64_t btm = ompdag_rta_result_bound_times_m(res);
            int32_t *worst = ompdag_rta_result_choices_copy(res, g);
            check_flow(sim, g, worst, ms[k], btm, ompdag_rta_result_is_exact(res), &rng, exec, st,
                       seed);
            free(worst);
            for (int f = 0; f < random_flows; ++f) {
                ompdag_sim_random_choice(g, &rng, choice);
                check_flow(sim, g, choice, ms[k], btm, false, &rng, exec, st, seed);
            }
            ompdag_rta_result_destroy(res);
        }
        ompdag_sim_destroy(sim);
        free(choice), free(exec);
        ompdag_condag_destroy(g);
    }
}

Test(sim, never_exceeds_the_exact_bound_on_random_graphs, .timeout = 120)
{
    const int32_t ms[] = {1, 2, 3, 4, 8};
    stats st = {0};
    enum { GRAPHS = 2000, RANDOM_FLOWS = 2 };
    simulate_random_graphs(ms, 5, GRAPHS, RANDOM_FLOWS, 0.0, &st);
    cr_expect_eq(st.runs, (uint64_t)GRAPHS * 5 * (1 + RANDOM_FLOWS) * 4);
    cr_expect_eq(st.tight, (uint64_t)GRAPHS * 2, "m = 1 worst flows, both schedulers");
    cr_expect_gt(st.steals, 0, "WFS never stole: the deques were not exercised");
    cr_expect_gt(st.sched_differs, 0, "WFS and BFS never differed");
    cr_expect_leq(st.max_ratio, 1.0);
    cr_log_info("%llu simulations, max simulated/bound %.4f, %llu steals, WFS != BFS on %llu",
                (unsigned long long)st.runs, st.max_ratio, (unsigned long long)st.steals,
                (unsigned long long)st.sched_differs);
}

/* §6: D-edges delay a task until its predecessors' sinks complete; the
 * simulated response never exceeds the depend bound. */
Test(sim, never_exceeds_the_depend_bound, .timeout = 120)
{
    const int32_t ms[] = {1, 2, 4, 16};
    stats st = {0};
    enum { GRAPHS = 1000, RANDOM_FLOWS = 2 };
    simulate_random_graphs(ms, 4, GRAPHS, RANDOM_FLOWS, 0.7, &st);
    cr_expect_eq(st.runs, (uint64_t)GRAPHS * 4 * (1 + RANDOM_FLOWS) * 4);
    cr_expect_gt(st.tight, 0);
    cr_expect_leq(st.max_ratio, 1.0);
    fprintf(stderr, "depend: %llu simulations, max simulated/bound %.4f\n",
            (unsigned long long)st.runs, st.max_ratio);
}

/* Partial taskwaits (docs/depend.md): the continuation waits only for the
 * conflicting siblings, through the flow's D-edges; R >= len shows the
 * simulator follows those waits, m·R <= the bound that it honours them no
 * less than the analysis. */
Test(sim, never_exceeds_the_depend_bound_with_partial_waits, .timeout = 120)
{
    const int32_t ms[] = {1, 2, 4, 16};
    stats st = {0};
    enum { GRAPHS = 1000, RANDOM_FLOWS = 2 };
    p_wait_dep = 0.8;
    simulate_random_graphs(ms, 4, GRAPHS, RANDOM_FLOWS, 0.7, &st);
    p_wait_dep = 0;
    cr_expect_eq(st.runs, (uint64_t)GRAPHS * 4 * (1 + RANDOM_FLOWS) * 4);
    cr_expect_gt(st.tight, 0);
    cr_expect_leq(st.max_ratio, 1.0);
    fprintf(stderr, "partial waits: %llu simulations, max simulated/bound %.4f\n",
            (unsigned long long)st.runs, st.max_ratio);
}

/* ompdag_sim_next_flow visits exactly the flows the enumerate oracle counts,
 * and the worst of them reaches the exact bound. */
Test(sim, next_flow_visits_every_flow_once)
{
    ompdag_rng shape;
    ompdag_rng_seed(&shape, 99);
    int checked = 0, branchy = 0;
    for (uint64_t seed = 1; seed <= 400; ++seed) {
        ompdag_condag *g = random_graph(seed, &shape);
        int32_t n = ompdag_condag_node_count(g);
        ompdag_rta_options opt;
        ompdag_rta_options_init(&opt, 3);
        opt.max_flows = 4096;
        ompdag_rta_result *en = NULL, *ex = NULL;
        ompdag_error err = {0};
        if (ompdag_rta_run(g, OMPDAG_ALG_ENUMERATE, &opt, &en, &err) != OMPDAG_OK) {
            cr_assert_eq(err.code, OMPDAG_ERR_LIMIT, "%s", err.message);
            ompdag_condag_destroy(g);
            continue;
        }
        cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &ex, &err), OMPDAG_OK);
        int32_t *choice = malloc(sizeof *choice * (size_t)n);
        uint8_t *executed = malloc((size_t)n);
        for (int32_t v = 0; v < n; ++v) {
            int32_t c;
            const int32_t *succ = ompdag_condag_node_fsucc(g, v, &c);
            choice[v] = ompdag_condag_node_kind(g, v) == OMPDAG_KIND_C ? succ[0] : -1;
        }
        uint64_t flows = 0;
        int64_t best = 0;
        do {
            ompdag_flow_eval fe;
            cr_assert_eq(ompdag_flow_evaluate(g, choice, &opt, &fe, NULL, NULL, &err), OMPDAG_OK);
            if (fe.bound_times_m > best) best = fe.bound_times_m;
            ++flows;
        } while (ompdag_sim_next_flow(g, choice, executed));
        cr_expect_eq(flows, ompdag_rta_result_flow_count(en), "seed %llu",
                     (unsigned long long)seed);
        cr_expect_eq(best, ompdag_rta_result_bound_times_m(ex), "seed %llu",
                     (unsigned long long)seed);
        branchy += flows > 4;
        ++checked;
        free(choice), free(executed);
        ompdag_rta_result_destroy(en);
        ompdag_rta_result_destroy(ex);
        ompdag_condag_destroy(g);
    }
    cr_expect_gt(checked, 200);
    cr_expect_gt(branchy, 20, "too few graphs with several flows");
}

Test(sim, refuses_bad_arguments)
{
    ompdag_rng shape;
    ompdag_rng_seed(&shape, 5);
    ompdag_condag *g = random_graph(3, &shape);
    int32_t n = ompdag_condag_node_count(g);
    ompdag_sim *sim;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_sim_create(g, &sim, &err), OMPDAG_OK);
    int32_t *choice = malloc(sizeof *choice * (size_t)n);
    int64_t *exec = malloc(sizeof *exec * (size_t)n);
    ompdag_sim_random_choice(g, &shape, choice);
    ompdag_sim_result r;
    cr_expect_eq(ompdag_sim_run(sim, choice, NULL, 0, OMPDAG_SCHED_WFS, 1, &r, &err),
                 OMPDAG_ERR_ARGUMENT);
    int32_t top = ompdag_condag_task_source(g, ompdag_condag_root_task(g));
    for (int32_t v = 0; v < n; ++v)
        exec[v] = ompdag_condag_node_wcet(g, v);
    exec[top] += 1;
    cr_expect_eq(ompdag_sim_run(sim, choice, exec, 2, OMPDAG_SCHED_BFS, 1, &r, &err),
                 OMPDAG_ERR_ARGUMENT);
    cr_expect(strstr(err.message, ompdag_condag_node_id(g, top)) != NULL, "%s", err.message);
    ompdag_scheduler s;
    cr_expect(ompdag_scheduler_parse("wfs", &s) && s == OMPDAG_SCHED_WFS);
    cr_expect(ompdag_scheduler_parse("bfs", &s) && s == OMPDAG_SCHED_BFS);
    cr_expect(!ompdag_scheduler_parse("lifo", &s));
    ompdag_sim_destroy(sim);
    free(choice), free(exec);
    ompdag_condag_destroy(g);
}

Test(sim, tightness_for_experiments)
{
    ompdag_rng shape;
    ompdag_rng_seed(&shape, 11);
    int below = 0;
    for (uint64_t seed = 1; seed <= 100; ++seed) {
        ompdag_condag *g = random_graph(seed, &shape);
        ompdag_error err = {0};
        double ratio = -1;
        int64_t resp = -1;
        cr_assert_eq(ompdag_sim_tightness(g, 1, 3, seed, &ratio, &resp, &err), OMPDAG_OK, "%s",
                     err.message);
        cr_expect(ratio == 1.0 || ompdag_condag_total_wcet(g) == 0, "m = 1 is tight: %g", ratio);
        cr_assert_eq(ompdag_sim_tightness(g, 4, 3, seed, &ratio, &resp, &err), OMPDAG_OK, "%s",
                     err.message);
        cr_expect(ratio >= 0 && ratio <= 1.0, "%g", ratio);
        below += ratio < 1.0;
        ompdag_condag_destroy(g);
    }
    cr_expect_gt(below, 0, "on 4 threads some bound is not reached by these schedules");
}

/* ---- dispatch delays (docs/overheads.md) ----------------------------------------- */

/* Random delay classes in [0, 60] (cont_delay 0 when `cont` is false). */
static ompdag_overheads random_overheads(ompdag_rng *rng, bool cont)
{
    ompdag_overheads o = {.start_delay = ompdag_rng_range(rng, 0, 60),
                          .wake_delay = ompdag_rng_range(rng, 0, 60)};
    if (cont) o.cont_delay = ompdag_rng_range(rng, 1, 60);
    return o;
}

typedef struct delay_tally {
    uint64_t runs, above_plain, above_without_cont, chain_below_fold;
    double max_ratio;
} delay_tally;

/* Simulates graph g (delays D(v) stored on its nodes, charged on the chain
 * only) on the worst flow of the chain-only bound and two random flows, with
 * execution times and delays at their maximum or random below it, both
 * schedulers; every m·R must be within the chain-only bound.  The simulated
 * delays are at most dmax[v] (the node's stored delay when dmax is NULL).
 * `without` is the bound to count exceedances of. */
static void simulate_delayed(const ompdag_condag *g, const int64_t *dmax, int32_t m,
                             int64_t without, uint64_t seed, ompdag_rng *rng, delay_tally *t,
                             uint64_t *above)
{
    int32_t n = ompdag_condag_node_count(g);
    int32_t *choice = malloc(sizeof *choice * (size_t)n);
    int64_t *exec = malloc(sizeof *exec * (size_t)n), *delay = malloc(sizeof *delay * (size_t)n);
    ompdag_error err = {0};
    ompdag_sim *sim;
    cr_assert_eq(ompdag_sim_create(g, &sim, &err), OMPDAG_OK);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    ompdag_rta_result *res;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &res, &err), OMPDAG_OK, "%s",
                 err.message);
    int64_t btm = ompdag_rta_result_bound_times_m(res);
    int32_t *worst = ompdag_rta_result_choices_copy(res, g);
    for (int f = 0; f < 3; ++f) {
        if (f == 0)
            memcpy(choice, worst, sizeof *choice * (size_t)n);
        else
            ompdag_sim_random_choice(g, rng, choice);
        for (int mode = 0; mode < 4; ++mode) {
            for (int32_t v = 0; v < n; ++v) {
                int64_t c = ompdag_condag_node_wcet(g, v);
                int64_t d = dmax ? dmax[v] : ompdag_condag_node_delay(g, v);
                exec[v] = mode & 1 ? ompdag_rng_range(rng, 0, c) : c;
                delay[v] = mode & 2 ? ompdag_rng_range(rng, 0, d) : d;
            }
            for (int sc = 0; sc < 2; ++sc) {
                ompdag_sim_result r;
                cr_assert_eq(ompdag_sim_run_delayed(sim, choice, exec, delay, m,
                                                    sc ? OMPDAG_SCHED_BFS : OMPDAG_SCHED_WFS,
                                                    seed * 17 + (uint64_t)mode, &r, &err),
                             OMPDAG_OK, "seed %llu: %s", (unsigned long long)seed, err.message);
                ++t->runs;
                int64_t mr = r.makespan * m;
                cr_assert_leq(mr, btm, "seed %llu m %d: m*R = %lld above the chain-only bound %lld",
                              (unsigned long long)seed, m, (long long)mr, (long long)btm);
                *above += mr > without;
                double ratio = btm ? (double)mr / (double)btm : 0;
                t->max_ratio = ratio > t->max_ratio ? ratio : t->max_ratio;
            }
        }
    }
    free(worst);
    ompdag_rta_result_destroy(res);
    ompdag_sim_destroy(sim);
    free(choice), free(exec), free(delay);
}

static int64_t exact_bound(const ompdag_condag *g, int32_t m, bool fold)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    opt.fold_delays = fold;
    ompdag_rta_result *res;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &res, &err), OMPDAG_OK, "%s",
                 err.message);
    int64_t b = ompdag_rta_result_bound_times_m(res);
    ompdag_rta_result_destroy(res);
    return b;
}

/* Runtime overheads as dispatch delays (task creation -> start, last child ->
 * taskwait wake-up, T node -> the creator's continuation), stored on the
 * nodes and charged on the critical chain only: on random graphs, for every
 * m, both schedulers, random execution times in [0, WCET] and random or
 * maximal delays in [0, D(v)], every simulated response satisfies
 *     m·R <= bound_times_m with chain-only delays   (docs/overheads.md)
 *         <= bound_times_m with the delays folded into WCETs,
 * and the bound WITHOUT the delays is exceeded somewhere (the overheads
 * matter, so this test can fail). */
Test(sim, dispatch_delays_within_the_bound_with_overheads, .timeout = 240)
{
    const int32_t ms[] = {1, 2, 3, 4, 8};
    ompdag_rng shape, rng;
    ompdag_rng_seed(&shape, 20261123);
    ompdag_rng_seed(&rng, 11);
    enum { GRAPHS = 1500 };
    delay_tally t = {0};
    for (uint64_t seed = 1; seed <= GRAPHS; ++seed) {
        ompdag_condag *g = random_graph(seed, &shape);
        ompdag_overheads o = random_overheads(&rng, seed % 2 == 0);
        int64_t plain[5];
        for (size_t k = 0; k < 5; ++k)
            plain[k] = exact_bound(g, ms[k], false);
        ompdag_error err = {0};
        cr_assert_eq(ompdag_condag_assign_overheads(g, &o, &err), OMPDAG_OK, "%s", err.message);
        for (size_t k = 0; k < sizeof ms / sizeof ms[0]; ++k) {
            int64_t chain = exact_bound(g, ms[k], false), fold = exact_bound(g, ms[k], true);
            cr_assert_leq(chain, fold, "seed %llu m %d: chain-only %lld above folded %lld",
                          (unsigned long long)seed, ms[k], (long long)chain, (long long)fold);
            t.chain_below_fold += chain < fold;
            simulate_delayed(g, NULL, ms[k], plain[k], seed, &rng, &t, &t.above_plain);
        }
        ompdag_condag_destroy(g);
    }
    cr_expect_eq(t.runs, (uint64_t)GRAPHS * 5 * 3 * 4 * 2);
    cr_expect_gt(t.above_plain, 0, "delays never exceeded the plain bound: the test is vacuous");
    cr_expect_gt(t.chain_below_fold, 0, "chain-only never tighter than the fold");
    cr_log_info("%llu delayed simulations, max simulated/bound %.4f, %llu above the plain bound, "
                "%llu (graph, m) with chain-only below folded",
                (unsigned long long)t.runs, t.max_ratio, (unsigned long long)t.above_plain,
                (unsigned long long)t.chain_below_fold);
}

/* The delay classes as the test reads docs/overheads.md, from the public
 * accessors alone: start_delay on task sources (not the root's), wake_delay
 * on W nodes, plus cont_delay on the F-successors of T nodes. */
static void expected_delays(const ompdag_condag *g, const ompdag_overheads *o, int64_t *d)
{
    int32_t n = ompdag_condag_node_count(g), root = ompdag_condag_root_task(g);
    for (int32_t v = 0; v < n; ++v) {
        int32_t t = ompdag_condag_node_task(g, v);
        d[v] = ompdag_condag_node_kind(g, v) == OMPDAG_KIND_W      ? o->wake_delay
               : t != root && ompdag_condag_task_source(g, t) == v ? o->start_delay
                                                                   : 0;
    }
    uint8_t *after_t =
        calloc((size_t)(n > 0 ? n : 1), 1); /* a J node after two T nodes: once (one runs) */
    for (int32_t v = 0; v < n; ++v) {
        int32_t cnt;
        const int32_t *s = ompdag_condag_node_fsucc(g, v, &cnt);
        for (int32_t k = 0; ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T && k < cnt; ++k)
            after_t[s[k]] = 1;
    }
    for (int32_t v = 0; v < n; ++v)
        d[v] += after_t[v] ? o->cont_delay : 0;
    free(after_t);
}

/* The third delay class (docs/overheads.md): the creator's continuation after
 * a T node starts late (libomp's switch pair around an untied creation).
 * Simulated with all three classes (delays computed by the test itself), no
 * response exceeds the chain-only bound of ompdag_condag_assign_overheads, and
 * the chain-only bound that models only start and wake delays is exceeded:
 * the class is needed, and covered. */
Test(sim, continuation_delay_is_needed_and_covered, .timeout = 240)
{
    const int32_t ms[] = {1, 2, 3, 4, 8};
    ompdag_rng shape, rng;
    ompdag_rng_seed(&shape, 20261126);
    ompdag_rng_seed(&rng, 13);
    enum { GRAPHS = 1000 };
    delay_tally t = {0};
    for (uint64_t seed = 1; seed <= GRAPHS; ++seed) {
        ompdag_condag *g = random_graph(seed, &shape);
        ompdag_overheads o = random_overheads(&rng, true), no_cont = o;
        no_cont.cont_delay = 0;
        ompdag_error err = {0};
        cr_assert_eq(ompdag_condag_assign_overheads(g, &no_cont, &err), OMPDAG_OK, "%s",
                     err.message);
        int64_t without[5];
        for (size_t k = 0; k < 5; ++k)
            without[k] = exact_bound(g, ms[k], false);
        cr_assert_eq(ompdag_condag_assign_overheads(g, &o, &err), OMPDAG_OK, "%s", err.message);
        int64_t *d = malloc(sizeof *d * (size_t)ompdag_condag_node_count(g));
        expected_delays(g, &o, d);
        for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
            cr_assert_eq(d[v], ompdag_condag_node_delay(g, v),
                         "seed %llu: node %s (%c) has delay %lld, docs/overheads.md says %lld",
                         (unsigned long long)seed, ompdag_condag_node_id(g, v),
                         (char)ompdag_condag_node_kind(g, v),
                         (long long)ompdag_condag_node_delay(g, v), (long long)d[v]);
        for (size_t k = 0; k < sizeof ms / sizeof ms[0]; ++k)
            simulate_delayed(g, d, ms[k], without[k], seed, &rng, &t, &t.above_without_cont);
        free(d);
        ompdag_condag_destroy(g);
    }
    cr_expect_gt(t.above_without_cont, 0,
                 "continuation delays never exceeded the bound without them: the class would not "
                 "be needed");
    cr_log_info("%llu simulations with continuation delays, %llu above the bound without the "
                "class, max simulated/bound %.4f",
                (unsigned long long)t.runs, (unsigned long long)t.above_without_cont, t.max_ratio);
}

/* ---- issue 26 item 8: a flow costs what it runs ------------------------------- */

/* main: c -> b0 .. b(k-1) -> j, bi of WCET 1 + i % 7: a k-way branch. */
static ompdag_condag *wide_branch(int32_t k)
{
    ompdag_condag *g = ompdag_condag_create();
    ompdag_error err = {0};
    int32_t c, j, b;
    char id[32];
    cr_assert_eq(
        ompdag_condag_add_node(
            g, &(ompdag_node_spec){.id = "c", .task = "main", .kind = OMPDAG_KIND_C}, &c, &err),
        OMPDAG_OK, "%s", err.message);
    cr_assert_eq(
        ompdag_condag_add_node(
            g, &(ompdag_node_spec){.id = "j", .task = "main", .kind = OMPDAG_KIND_J}, &j, &err),
        OMPDAG_OK, "%s", err.message);
    for (int32_t i = 0; i < k; ++i) {
        snprintf(id, sizeof id, "b%d", i);
        ompdag_node_spec sp = {.id = id, .task = "main", .kind = OMPDAG_KIND_N, .wcet = 1 + i % 7};
        cr_assert_eq(ompdag_condag_add_node(g, &sp, &b, &err), OMPDAG_OK, "%s", err.message);
        cr_assert_eq(ompdag_condag_add_edge(g, c, b, &err), OMPDAG_OK, "%s", err.message);
        cr_assert_eq(ompdag_condag_add_edge(g, b, j, &err), OMPDAG_OK, "%s", err.message);
    }
    cr_assert_eq(ompdag_condag_finalize(g, &err), OMPDAG_OK, "%s", err.message);
    return g;
}

/* Every flow of a 100,000-way branch, simulated: the old simulator did work
 * proportional to the whole graph per flow (memsets, marking, D-edge CSR,
 * scans of the branch's 100,000 successors), over a minute in all. */
Test(sim, wide_branch_flows_cost_what_they_run, .timeout = 20.)
{
    enum { K = 100000 };
    ompdag_condag *g = wide_branch(K);
    int32_t n = ompdag_condag_node_count(g), c = ompdag_condag_find_node(g, "c");
    ompdag_sim *sim = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_sim_create(g, &sim, &err), OMPDAG_OK, "%s", err.message);
    int32_t *choice = malloc(sizeof *choice * (size_t)n), cnt;
    const int32_t *succ = ompdag_condag_node_fsucc(g, c, &cnt);
    cr_assert_eq(cnt, K);
    for (int32_t v = 0; v < n; ++v)
        choice[v] = v == c ? succ[0] : -1;
    for (int32_t i = 0; i < K; ++i) {
        choice[c] = succ[i];
        ompdag_sim_result r;
        cr_assert_eq(ompdag_sim_run(sim, choice, NULL, 2,
                                    i % 2 ? OMPDAG_SCHED_BFS : OMPDAG_SCHED_WFS, (uint64_t)i, &r,
                                    &err),
                     OMPDAG_OK, "%s", err.message);
        cr_assert_eq(r.executed, 3);
        cr_assert_eq(r.makespan, ompdag_condag_node_wcet(g, succ[i]), "flow %d", i);
    }
    free(choice);
    ompdag_sim_destroy(sim);
    ompdag_condag_destroy(g);
}

/* ompdag_sim_next steps through the same flows as ompdag_sim_next_flow, and
 * ompdag_sim_flow_nodes lists exactly the nodes ompdag_flow_mark marks. */
static void check_next_like_next_flow(ompdag_condag *g, uint64_t seed)
{
    int32_t n = ompdag_condag_node_count(g);
    ompdag_sim *sim = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_sim_create(g, &sim, &err), OMPDAG_OK, "%s", err.message);
    int32_t *a = malloc(sizeof *a * (size_t)n), *b = malloc(sizeof *b * (size_t)n);
    uint8_t *executed = malloc((size_t)n);
    for (int32_t v = 0; v < n; ++v) {
        int32_t c;
        const int32_t *succ = ompdag_condag_node_fsucc(g, v, &c);
        a[v] = b[v] = ompdag_condag_node_kind(g, v) == OMPDAG_KIND_C ? succ[0] : -1;
    }
    bool more_a, more_b;
    int flows = 0;
    do {
        ompdag_sim_result r;
        cr_assert_eq(ompdag_sim_run(sim, a, NULL, 2, OMPDAG_SCHED_WFS, seed, &r, &err), OMPDAG_OK,
                     "%s", err.message);
        cr_assert_eq(ompdag_flow_mark(g, a, executed, &err), OMPDAG_OK);
        int32_t cnt, k = 0;
        const int32_t *nodes = ompdag_sim_flow_nodes(sim, &cnt);
        for (int32_t v = 0; v < n; ++v)
            if (executed[v]) {
                cr_assert_lt(k, cnt, "seed %llu", (unsigned long long)seed);
                cr_assert_eq(nodes[k++], v, "seed %llu", (unsigned long long)seed);
            }
        cr_assert_eq(k, cnt, "seed %llu", (unsigned long long)seed);
        more_a = ompdag_sim_next(sim, a);
        more_b = ompdag_sim_next_flow(g, b, executed);
        cr_assert_eq(more_a, more_b, "seed %llu flow %d", (unsigned long long)seed, flows);
        cr_assert_arr_eq(a, b, sizeof *a * (size_t)n, "seed %llu flow %d", (unsigned long long)seed,
                         flows);
    } while (more_a && ++flows < 5000);
    free(a), free(b), free(executed);
    ompdag_sim_destroy(sim);
}

Test(sim, sim_next_steps_like_next_flow)
{
    ompdag_rng shape;
    ompdag_rng_seed(&shape, 26);
    for (uint64_t seed = 1; seed <= 300; ++seed) {
        ompdag_condag *g = random_graph_dep(seed, &shape, seed % 2 ? 0.3 : 0.0);
        check_next_like_next_flow(g, seed);
        ompdag_condag_destroy(g);
    }
    ompdag_condag *g = wide_branch(50);
    check_next_like_next_flow(g, 0);
    ompdag_condag_destroy(g);
}

/* Issue 26 item 8: `simulate` evaluated each flow's bound with
 * ompdag_flow_evaluate, which allocates, clears and scans the whole graph
 * (a 100,000-way branch took 38 s after the simulator itself was made
 * linear).  The flow evaluator must give the same figures, with delays,
 * migration overhead and depend clauses, on thousands of random graphs. */
Test(sim, flow_evaluator_equals_flow_evaluate, .timeout = 120)
{
    ompdag_rng shape, rng;
    ompdag_rng_seed(&shape, 2608);
    ompdag_rng_seed(&rng, 2609);
    const int32_t ms[] = {1, 2, 4};
    uint64_t flows = 0, with_delays = 0;
    for (uint64_t i = 0; i < 2000; ++i) {
        ompdag_condag *g = random_graph_dep(40000 + i, &shape, i % 2 ? 0.4 : 0.0);
        if (i % 3 == 0) {
            ompdag_overheads o = random_overheads(&rng, i % 6 == 0);
            ompdag_error e = {0};
            cr_assert_eq(ompdag_condag_assign_overheads(g, &o, &e), OMPDAG_OK, "%s", e.message);
            with_delays += ompdag_condag_has_delays(g);
        }
        int32_t n = ompdag_condag_node_count(g);
        int32_t *choice = malloc(sizeof *choice * (size_t)n);
        for (size_t k = 0; k < sizeof ms / sizeof *ms; ++k) {
            ompdag_rta_options opt;
            ompdag_rta_options_init(&opt, ms[k]);
            opt.migration_overhead = i % 4 == 1 ? (int64_t)ompdag_rng_range(&rng, 1, 5) : 0;
            ompdag_flow_evaluator *ev = NULL;
            ompdag_error err = {0};
            cr_assert_eq(ompdag_flow_evaluator_create(g, &opt, &ev, &err), OMPDAG_OK, "%s",
                         err.message);
            for (int f = 0; f < 4; ++f, ++flows) {
                ompdag_sim_random_choice(g, &rng, choice);
                ompdag_flow_eval a, b;
                cr_assert_eq(ompdag_flow_evaluate(g, choice, &opt, &a, NULL, NULL, &err), OMPDAG_OK,
                             "%s", err.message);
                cr_assert_eq(ompdag_flow_evaluator_run(ev, choice, &b, &err), OMPDAG_OK, "%s",
                             err.message);
                cr_assert_eq(b.bound_times_m, a.bound_times_m, "graph %llu m %d flow %d",
                             (unsigned long long)i, ms[k], f);
                cr_assert_eq(b.vol, a.vol);
                cr_assert_eq(b.len, a.len);
                cr_assert_eq(b.executed, a.executed);
                cr_assert_eq(b.migrations, a.migrations);
            }
            ompdag_flow_evaluator_destroy(ev);
        }
        free(choice);
        ompdag_condag_destroy(g);
    }
    cr_expect_gt(with_delays, 300, "%llu graphs with delays", (unsigned long long)with_delays);
    fprintf(stderr, "flow evaluator: %llu flows equal to ompdag_flow_evaluate\n",
            (unsigned long long)flows);
}
