/*
 * tests/analysis/test_formation.c — team formation in the bound (issue 23
 * item 3; the proof is docs/overheads.md, "Team formation").
 *
 * A simulator written here from the model alone, not from report/sim.c: one
 * flow of a random con-DAG (seed 004 §7 generator) runs on m threads, thread 0
 * from time 0 (it runs the root) and thread j from its arrival a_j.  Every
 * node v becomes ready when its last predecessor (F-, T- and W-edges)
 * completes, joins the ready set D'(v) later (the dispatch delay classes of
 * include/ompdag/overhead.h, without formation), and a present idle thread
 * always takes some ready node (work-conserving among the threads present,
 * the picks random).  So the delay assumption holds with "full" meaning
 * "every thread present runs a node", which is what annotate measures, and
 * the theorem says m·R <= the exact bound with the run's formation
 * F = Σ_j |[0, min(a_j, R)) ∩ full| (<= Σ_j a_j; the simulator measures it
 * like annotate does) charged as ceil(F / m) on the root's source.  The test
 * checks that on every simulation, and that the bound without F is exceeded
 * on some: the term is needed.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/gen.h"
#include "ompdag/overhead.h"
#include "ompdag/rta.h"

enum { MAX_THREADS = 8 };

typedef struct sim_state {
    const ompdag_condag *g;
    int32_t n;
    int32_t *choice;   /* chosen F-successor of each C node */
    uint8_t *executed; /* the flow */
    int32_t *remaining;
    int64_t *exec, *delay, *eligible;
    uint8_t *state; /* 0 not released, 1 released, 2 running, 3 done */
} sim_state;

static ompdag_condag *random_graph(uint64_t seed)
{
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    p.seed = seed;
    p.tasks = 2 + (int32_t)(seed % 6);
    p.nodes_min = 2;
    p.nodes_max = 8;
    ompdag_condag *g = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_gen_random(&p, &g, &err), OMPDAG_OK, "%s", err.message);
    return g;
}

/* Calls f(s, u, arg) for each successor u of v in the flow (F, T, W). */
static void for_succ(sim_state *s, int32_t v, void (*f)(sim_state *, int32_t, void *), void *arg)
{
    int32_t cnt;
    const int32_t *fs = ompdag_condag_node_fsucc(s->g, v, &cnt);
    if (ompdag_condag_node_kind(s->g, v) == OMPDAG_KIND_C)
        f(s, s->choice[v], arg);
    else
        for (int32_t k = 0; k < cnt; ++k)
            f(s, fs[k], arg);
    int32_t t = ompdag_condag_node_creates(s->g, v);
    if (t >= 0) f(s, ompdag_condag_task_source(s->g, t), arg);
    const int32_t *ws = ompdag_condag_node_wsucc(s->g, v, &cnt);
    for (int32_t k = 0; ws && k < cnt; ++k)
        if (s->executed[ws[k]]) f(s, ws[k], arg);
}

static void mark(sim_state *s, int32_t u, void *stack)
{
    int32_t *st = stack;
    if (!s->executed[u]) s->executed[u] = 1, st[++st[0]] = u;
}

static void count_pred(sim_state *s, int32_t u, void *arg)
{
    (void)arg;
    ++s->remaining[u];
}

/* The flow: from the root's source, one random successor at each C node,
 * every successor elsewhere (condag.md §1); then each executed node's count
 * of executed predecessors. */
static void pick_flow(sim_state *s, ompdag_rng *rng)
{
    for (int32_t v = 0; v < s->n; ++v) {
        int32_t cnt;
        const int32_t *fs = ompdag_condag_node_fsucc(s->g, v, &cnt);
        s->choice[v] = cnt ? fs[ompdag_rng_range(rng, 0, cnt - 1)] : -1;
    }
    int32_t *stack = calloc((size_t)s->n + 2, sizeof *stack); /* stack[0]: its height */
    memset(s->executed, 0, (size_t)s->n);
    mark(s, ompdag_condag_task_source(s->g, ompdag_condag_root_task(s->g)), stack);
    while (stack[0] > 0)
        for_succ(s, stack[stack[0]--], mark, stack);
    memset(s->remaining, 0, sizeof *s->remaining * (size_t)s->n);
    for (int32_t v = 0; v < s->n; ++v)
        if (s->executed[v]) for_succ(s, v, count_pred, NULL);
    free(stack);
}

typedef struct release_arg {
    int64_t now;
} release_arg;

static void release(sim_state *s, int32_t u, void *arg)
{
    if (--s->remaining[u] == 0) {
        s->state[u] = 1;
        s->eligible[u] = ((release_arg *)arg)->now + s->delay[u];
    }
}

/* One schedule of the flow; returns its response R, and in *formation the
 * run's team formation Σ_j |[0, min(a_j, R)) ∩ full|, full: every thread
 * present runs a node (what annotate measures). */
static int64_t simulate(sim_state *s, int32_t m, const int64_t *arrive, ompdag_rng *rng,
                        int64_t *formation)
{
    *formation = 0;
    int32_t on[MAX_THREADS];
    int64_t until[MAX_THREADS];
    for (int32_t j = 0; j < m; ++j)
        on[j] = -1, until[j] = 0;
    memset(s->state, 0, (size_t)s->n);
    int32_t root = ompdag_condag_task_source(s->g, ompdag_condag_root_task(s->g)), left = 0;
    for (int32_t v = 0; v < s->n; ++v)
        left += s->executed[v];
    s->state[root] = 1;
    s->eligible[root] = s->delay[root];
    int64_t now = 0;
    int32_t *ready = malloc(sizeof *ready * (size_t)s->n);
    while (left > 0) {
        bool changed = true;
        while (changed) { /* completions and picks at `now`, zero-length nodes included */
            changed = false;
            for (int32_t j = 0; j < m; ++j)
                if (on[j] >= 0 && until[j] == now) {
                    s->state[on[j]] = 3, --left;
                    release_arg ra = {now};
                    for_succ(s, on[j], release, &ra);
                    on[j] = -1, changed = true;
                }
            int32_t nr = 0;
            for (int32_t v = 0; v < s->n; ++v)
                if (s->executed[v] && s->state[v] == 1 && s->eligible[v] <= now) ready[nr++] = v;
            int32_t first = (int32_t)ompdag_rng_range(rng, 0, m - 1); /* which idle thread first */
            for (int32_t k = 0; k < m && nr > 0; ++k) {
                int32_t j = (first + k) % m;
                if (on[j] >= 0 || arrive[j] > now) continue;
                int32_t pick = (int32_t)ompdag_rng_range(rng, 0, nr - 1), v = ready[pick];
                ready[pick] = ready[--nr];
                s->state[v] = 2, on[j] = v, until[j] = now + s->exec[v], changed = true;
            }
        }
        if (left == 0) break;
        int64_t next = INT64_MAX;
        for (int32_t j = 0; j < m; ++j) {
            if (on[j] >= 0 && until[j] < next) next = until[j];
            if (arrive[j] > now && arrive[j] < next) next = arrive[j];
        }
        for (int32_t v = 0; v < s->n; ++v)
            if (s->executed[v] && s->state[v] == 1 && s->eligible[v] > now && s->eligible[v] < next)
                next = s->eligible[v];
        cr_assert_neq(next, INT64_MAX, "the simulation is stuck at %lld", (long long)now);
        int32_t present = 0, busy = 0;
        for (int32_t j = 0; j < m; ++j)
            present += arrive[j] <= now, busy += on[j] >= 0;
        if (busy == present) *formation += (next - now) * (m - present);
        now = next;
    }
    free(ready);
    return now;
}

static int64_t exact_times_m(ompdag_condag *g, const ompdag_overheads *o, int32_t m)
{
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_assign_overheads(g, o, &err), OMPDAG_OK, "%s", err.message);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    ompdag_rta_result *r;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    int64_t b = ompdag_rta_result_bound_times_m(r);
    ompdag_rta_result_destroy(r);
    return b;
}

Test(formation, late_threads_exceed_the_bound_without_formation_and_never_with_it, .timeout = 120)
{
    const int32_t ms[] = {2, 3, 4, 8};
    ompdag_rng rng;
    ompdag_rng_seed(&rng, 2026112603);
    uint64_t sims = 0, above_without = 0;
    double worst = 0;
    for (uint64_t seed = 1; seed <= 600; ++seed) {
        ompdag_condag *g = random_graph(seed);
        sim_state s = {.g = g, .n = ompdag_condag_node_count(g)};
        size_t n = (size_t)s.n + 1;
        s.choice = malloc(n * sizeof *s.choice), s.executed = malloc(n);
        s.remaining = malloc(n * sizeof *s.remaining), s.state = malloc(n);
        s.exec = malloc(n * sizeof *s.exec), s.delay = malloc(n * sizeof *s.delay);
        s.eligible = malloc(n * sizeof *s.eligible);
        /* the delay classes, measured (in this model) with absent threads
         * counted as busy: D' of every node, formation left out */
        ompdag_overheads o = {.start_delay = ompdag_rng_range(&rng, 0, 40),
                              .wake_delay = ompdag_rng_range(&rng, 0, 40),
                              .cont_delay = ompdag_rng_range(&rng, 0, 40)};
        ompdag_error err = {0};
        cr_assert_eq(ompdag_overheads_node_delays(g, &o, s.delay, &err), OMPDAG_OK);
        for (size_t k = 0; k < sizeof ms / sizeof ms[0]; ++k) {
            int32_t m = ms[k];
            int64_t without = exact_times_m(g, &o, m);
            for (int rep = 0; rep < 4; ++rep) {
                pick_flow(&s, &rng);
                int64_t vol = 0;
                for (int32_t v = 0; v < s.n; ++v) {
                    int64_t c = ompdag_condag_node_wcet(g, v);
                    s.exec[v] = rep % 2 ? c : ompdag_rng_range(&rng, 0, c);
                    vol += s.executed[v] ? c : 0;
                }
                /* thread 0 runs the root from 0; the others join at a_j, up
                 * to the flow's whole volume late (a cold region) */
                int64_t arrive[MAX_THREADS] = {0}, f, lateness = 0;
                for (int32_t j = 1; j < m; ++j)
                    lateness += arrive[j] = ompdag_rng_range(&rng, 0, vol);
                int64_t r = simulate(&s, m, arrive, &rng, &f);
                cr_assert_leq(f, lateness);
                ompdag_overheads with = o;
                with.formation = f, with.threads = m;
                int64_t bound = exact_times_m(g, &with, m);
                ++sims;
                cr_assert_leq((int64_t)m * r, bound,
                              "seed %llu m %d: m*R = %lld above the bound with formation %lld "
                              "(F = %lld)",
                              (unsigned long long)seed, m, (long long)m * r, (long long)bound,
                              (long long)f);
                above_without += (int64_t)m * r > without;
                if ((double)m * r / (double)bound > worst) worst = (double)m * r / (double)bound;
            }
        }
        free(s.choice), free(s.executed), free(s.remaining), free(s.state);
        free(s.exec), free(s.delay), free(s.eligible);
        ompdag_condag_destroy(g);
    }
    cr_expect_gt(above_without, 0,
                 "late threads never exceeded the bound without formation: the term would not "
                 "be needed");
    cr_log_info("%llu simulations within the bound with formation (largest m*R / bound %.4f), "
                "%llu above the bound without it",
                (unsigned long long)sims, worst, (unsigned long long)above_without);
}
