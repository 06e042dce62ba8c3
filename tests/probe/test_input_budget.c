/*
 * tests/probe/test_input_budget.c — the median model of the input's DAG with
 * its run excess along one chain (annotate/annotate_input_budget.c,
 * annotate_input_paths.c, report/report_input.c path_budget;
 * docs/probe.md#input).
 *
 * 1. The longest paths annotate takes (G; G_r' of rule tied-root-waits)
 *    equal a brute-force longest path over edge lists built here from the
 *    definitions (docs/tied.md §4b), on random graphs; G <= G_r' <= G_r.
 * 2. Soundness against the tied simulator: a random graph stands for the
 *    input; its WCETs and delays are the medians; one "run" adds random
 *    excesses y(v) to WCETs and x(v) to delays.  The simulated response of
 *    that run (every adversary, the root continuing at its creation points
 *    as libomp does with a small deque) never exceeds the report's input
 *    bound built from the medians, the all-node excess and the path
 *    excesses — and the path model is the smaller one on many graphs, so
 *    the check reaches it.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../../annotate/annotate_internal.h"
#include "ompdag/gen.h"
#include "ompdag/internal/condag_json.h"
#include "ompdag/overhead.h"
#include "ompdag/report.h"
#include "ompdag/rta.h"
#include "ompdag/sim_tied.h"

static ompdag_condag *random_graph(uint64_t seed, ompdag_rng *shape)
{
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    p.seed = seed;
    p.tasks = (int32_t)ompdag_rng_range(shape, 2, 9);
    p.p_if = 0.05 + 0.3 * ompdag_rng_unit(shape);
    p.p_cre = 0.1 + 0.4 * ompdag_rng_unit(shape);
    p.p_wait = 0.05 + 0.4 * ompdag_rng_unit(shape);
    p.nodes_min = 2;
    p.nodes_max = (int32_t)ompdag_rng_range(shape, 2, 10);
    p.wcet_min = 0;
    p.wcet_max = ompdag_rng_range(shape, 1, 100);
    p.p_dep = ompdag_rng_range(shape, 0, 3) == 0 ? 0.4 : 0.0;
    p.dep_vars = 2;
    ompdag_condag *g = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_gen_random(&p, &g, &err), OMPDAG_OK, "%s", err.message);
    return g;
}

/* ---- 1. paths against brute force -------------------------------------------- */

typedef struct edges {
    int32_t *from, *to;
    int64_t n, cap;
} edges;

static void add(edges *e, int32_t a, int32_t b)
{
    if (e->n == e->cap) {
        e->cap = e->cap * 2 + 16;
        e->from = realloc(e->from, (size_t)e->cap * sizeof *e->from);
        e->to = realloc(e->to, (size_t)e->cap * sizeof *e->to);
    }
    e->from[e->n] = a, e->to[e->n] = b, ++e->n;
}

/* F, T, W and the D-edges of every flow. */
static void g_edges(const ompdag_condag *g, edges *e)
{
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        int32_t c;
        const int32_t *s = ompdag_condag_node_fsucc(g, v, &c);
        for (int32_t i = 0; i < c; ++i)
            add(e, v, s[i]);
        s = ompdag_condag_node_wsucc(g, v, &c);
        for (int32_t i = 0; i < c; ++i)
            add(e, v, s[i]);
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T)
            add(e, v, ompdag_condag_task_source(g, ompdag_condag_node_creates(g, v)));
    }
    int32_t *from, *to;
    int64_t n;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_depend_edges(g, &from, &to, &n, &err), OMPDAG_OK);
    for (int64_t i = 0; i < n; ++i)
        add(e, from[i], to[i]);
    free(from), free(to);
}

/* G_r': y -> each root W reachable from a(y) along root F-edges without
 * passing another W (naive: a search per node). */
static void root_wait_edges(const ompdag_condag *g, edges *e)
{
    int32_t n = ompdag_condag_node_count(g), root = ompdag_condag_root_task(g);
    int32_t *stack = malloc((size_t)(n + 1) * sizeof *stack);
    uint8_t *seen = malloc((size_t)n + 1);
    for (int32_t y = 0; y < n; ++y) {
        int32_t t = ompdag_condag_node_task(g, y), a = -1;
        while (t != root) { /* climb to the root's child */
            a = ompdag_condag_task_creator(g, t);
            t = ompdag_condag_node_task(g, a);
        }
        if (a < 0) continue;
        memset(seen, 0, (size_t)n);
        int32_t sp = 0, c;
        const int32_t *s = ompdag_condag_node_fsucc(g, a, &c);
        for (int32_t i = 0; i < c; ++i)
            stack[sp++] = s[i];
        while (sp) {
            int32_t v = stack[--sp];
            if (seen[v]) continue;
            seen[v] = 1;
            if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_W) {
                add(e, y, v);
                continue;
            }
            s = ompdag_condag_node_fsucc(g, v, &c);
            for (int32_t i = 0; i < c; ++i)
                stack[sp++] = s[i];
        }
    }
    free(stack), free(seen);
}

/* Longest path by relaxing every edge n times (Bellman-Ford on a DAG). */
static int64_t brute_longest(int32_t n, const edges *e, const int64_t *w)
{
    int64_t *best = malloc((size_t)n * sizeof *best), out = 0;
    for (int32_t v = 0; v < n; ++v)
        best[v] = w[v];
    for (int32_t round = 0; round < n; ++round)
        for (int64_t i = 0; i < e->n; ++i)
            if (best[e->from[i]] + w[e->to[i]] > best[e->to[i]])
                best[e->to[i]] = best[e->from[i]] + w[e->to[i]];
    for (int32_t v = 0; v < n; ++v)
        out = best[v] > out ? best[v] : out;
    free(best);
    return out;
}

Test(input_budget, longest_paths_equal_brute_force)
{
    ompdag_rng shape;
    ompdag_rng_seed(&shape, 777);
    uint64_t differ_waits = 0;
    for (uint64_t seed = 1; seed <= 1500; ++seed) {
        ompdag_condag *g = random_graph(seed, &shape);
        int32_t n = ompdag_condag_node_count(g);
        int64_t *w = malloc((size_t)n * sizeof *w);
        for (int32_t v = 0; v < n; ++v)
            w[v] = ompdag_rng_range(&shape, 0, 3) ? 0 : ompdag_rng_range(&shape, 0, 50);
        edges e = {0};
        g_edges(g, &e);
        int64_t want_g = brute_longest(n, &e, w);
        root_wait_edges(g, &e);
        int64_t want_waits = brute_longest(n, &e, w);
        annot_paths *p = annot_paths_create(g);
        cr_assert(p, "seed %llu", (unsigned long long)seed);
        int64_t got_g, got_waits;
        cr_assert(annot_paths_longest(p, w, false, &got_g));
        cr_assert(annot_paths_longest(p, w, true, &got_waits));
        cr_assert_eq(got_g, want_g, "seed %llu: G %lld, brute force %lld", (unsigned long long)seed,
                     (long long)got_g, (long long)want_g);
        cr_assert_eq(got_waits, want_waits, "seed %llu: G_r' %lld, brute force %lld",
                     (unsigned long long)seed, (long long)got_waits, (long long)want_waits);
        /* G_r (ompdag_rta_tied_root_path, WCETs as weights) dominates */
        ompdag_error err;
        for (int32_t v = 0; v < n; ++v) {
            cr_assert_eq(ompdag_condag_assign_wcet(g, v, w[v], &err), OMPDAG_OK);
            cr_assert_eq(ompdag_condag_assign_delay(g, v, 0, &err), OMPDAG_OK);
        }
        int64_t root;
        cr_assert_eq(ompdag_rta_tied_root_path(g, &root, &err), OMPDAG_OK, "%s", err.message);
        cr_assert_leq(got_waits, root, "seed %llu", (unsigned long long)seed);
        differ_waits += got_waits > got_g;
        annot_paths_destroy(p);
        free(e.from), free(e.to), free(w);
        ompdag_condag_destroy(g);
    }
    cr_assert_gt(differ_waits, 0, "G_r' never longer than G: its edges were never exercised");
}

/* ---- 2. the model against simulated runs ---------------------------------------- */

/* Tied marks: every explicit task untied, or tied where it never suspends
 * (the rules whose chains the paths cover). */
static void mark(ompdag_condag *g, ompdag_rng *rng)
{
    bool leaves = ompdag_rng_range(rng, 0, 1);
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        int32_t ct = ompdag_condag_node_creates(g, v);
        if (ct < 0) continue;
        bool suspends = false;
        for (int32_t u = 0; u < ompdag_condag_node_count(g); ++u)
            if (ompdag_condag_node_task(g, u) == ct &&
                (ompdag_condag_node_kind(g, u) == OMPDAG_KIND_T ||
                 ompdag_condag_node_kind(g, u) == OMPDAG_KIND_W))
                suspends = true;
        json_t *x = json_pack("{s:b}", "untied", !(leaves && !suspends));
        cr_assert_eq(ompdag_condag_assign_extra(g, v, x), OMPDAG_OK);
        json_decref(x);
    }
}

/* A run: x (delay excess) and y (WCET excess) on random nodes. */
static void random_run(const ompdag_condag *g, ompdag_rng *rng, int64_t *x, int64_t *y)
{
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        x[v] = ompdag_rng_range(rng, 0, 4) ? 0 : ompdag_rng_range(rng, 0, 60);
        y[v] = ompdag_rng_range(rng, 0, 4) ? 0 : ompdag_rng_range(rng, 0, 40);
    }
}

/* The graph as a file whose "input" holds every node, the medians (the
 * graph's values; the all-node excess E on the root's source), the run's
 * values plus 1000 as the maxima, libomp as runtime, and the path excesses unless
 * !with_paths. */
static ompdag_condag_set *with_input(const ompdag_condag *g, const int64_t *x, const int64_t *y,
                                     annot_paths *p, bool with_paths)
{
    int32_t n = ompdag_condag_node_count(g);
    int64_t all = 0, work = 0, *w = malloc((size_t)n * sizeof *w), path_g, path_waits, path_root;
    for (int32_t v = 0; v < n; ++v)
        all += x[v] + y[v], work += y[v], w[v] = x[v] + y[v];
    cr_assert(annot_paths_longest(p, w, false, &path_g));
    cr_assert(annot_paths_longest(p, w, true, &path_waits));
    json_t *j = ompdag_condag_to_json(g);
    ompdag_condag *copy;
    ompdag_error err;
    cr_assert_eq(condag_from_json(j, "copy", &copy, &err), OMPDAG_OK, "%s", err.message);
    for (int32_t v = 0; v < n; ++v)
        ompdag_condag_assign_wcet(copy, v, w[v], &err),
            ompdag_condag_assign_delay(copy, v, 0, &err);
    cr_assert_eq(ompdag_rta_tied_root_path(copy, &path_root, &err), OMPDAG_OK, "%s", err.message);
    /* the file's own values (the all-inputs ones) and the input's maxima:
     * far above this run, so that the report's smaller bound is one of the
     * two median models */
    for (int32_t v = 0; v < n; ++v) {
        ompdag_condag_assign_wcet(copy, v, ompdag_condag_node_wcet(g, v) + y[v] + 1000, &err);
        ompdag_condag_assign_delay(copy, v, ompdag_condag_node_delay(g, v) + x[v] + 1000, &err);
    }
    json_decref(j);
    j = ompdag_condag_to_json(copy);
    ompdag_condag_destroy(copy);
    int32_t src = ompdag_condag_task_source(g, ompdag_condag_root_task(g));
    json_t *ids = json_array(), *dmax = json_object(), *wmax = json_object(), *dmed = json_object(),
           *wmed = json_object();
    for (int32_t v = 0; v < n; ++v) {
        const char *id = ompdag_condag_node_id(g, v);
        int64_t d = ompdag_condag_node_delay(g, v), c = ompdag_condag_node_wcet(g, v);
        json_array_append_new(ids, json_string(id));
        json_object_set_new(dmax, id, json_integer(d + x[v] + 1000));
        json_object_set_new(wmax, id, json_integer(c + y[v] + 1000));
        json_object_set_new(dmed, id, json_integer(d + (v == src ? all : 0)));
        json_object_set_new(wmed, id, json_integer(c));
    }
    json_t *in =
        json_pack("{s:b,s:i,s:s,s:o,s:o,s:o,s:o,s:o,s:I,s:{s:s,s:b,s:b}}", "recorded", 1, "runs", 1,
                  "claim", "test", "nodes", ids, "delays", dmax, "wcets", wmax, "delays_median",
                  dmed, "wcets_median", wmed, "run_excess_ns", (json_int_t)all, "runtime",
                  "version", "LLVM OMP", "throttling", 1, "tasking", 1);
    if (with_paths)
        json_object_set_new(in, "run_excess_paths",
                            json_pack("{s:I,s:I,s:I,s:I}", "graham", (json_int_t)path_g,
                                      "tied-root-waits", (json_int_t)path_waits, "tied-root",
                                      (json_int_t)path_root, "work", (json_int_t)work));
    json_object_set_new(j, "input", in);
    json_t *ext = json_object_get(j, "extensions");
    if (!ext) json_object_set_new(j, "extensions", ext = json_array());
    json_array_append_new(ext, json_string("delays"));
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    free(w);
    ompdag_condag_set *s;
    cr_assert_eq(ompdag_condag_set_load_buffer(text, strlen(text), "budget", &s, &err), OMPDAG_OK,
                 "%s", err.message);
    free(text);
    return s;
}

static int64_t input_bound(const ompdag_condag_set *s, int32_t m)
{
    ompdag_report_options opt;
    ompdag_report_options_init(&opt);
    opt.threads = &m, opt.thread_count = 1;
    ompdag_report *r;
    ompdag_error err;
    cr_assert_eq(ompdag_report_create(s, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    int64_t b = ompdag_report_row_get(r, 0)->input_bound_times_m;
    ompdag_report_destroy(r);
    cr_assert_geq(b, 0);
    return b;
}

/* The run's worst simulated m·R over every adversary. */
static int64_t simulated(const ompdag_condag *g, const int32_t *choice, int32_t m, const int64_t *x,
                         const int64_t *y, ompdag_rng *rng)
{
    int32_t n = ompdag_condag_node_count(g);
    int64_t *exec = malloc((size_t)n * sizeof *exec), *d = malloc((size_t)n * sizeof *d), worst = 0;
    ompdag_condag *run;
    json_t *j = ompdag_condag_to_json(g);
    ompdag_error err;
    cr_assert_eq(condag_from_json(j, "run", &run, &err), OMPDAG_OK);
    json_decref(j);
    for (int32_t v = 0; v < n; ++v) {
        cr_assert_eq(ompdag_condag_assign_wcet(run, v, ompdag_condag_node_wcet(g, v) + y[v], &err),
                     OMPDAG_OK);
        d[v] = ompdag_condag_node_delay(g, v) + x[v];
    }
    for (int pol = 0; pol < 4; ++pol)
        for (int variant = 0; variant < 4; ++variant) {
            ompdag_tied_sim_options o;
            ompdag_tied_sim_options_init(&o, m);
            o.policy = (ompdag_tied_policy)pol;
            o.stack = variant & 1;
            o.delay = d;
            o.root_continues_at_creation = true;
            o.seed = (uint64_t)(pol * 8 + variant);
            if (variant & 2) { /* shorter than the run's own times */
                for (int32_t v = 0; v < n; ++v)
                    exec[v] = ompdag_rng_range(rng, 0, ompdag_condag_node_wcet(run, v));
                o.exec = exec;
            }
            ompdag_tied_sim_result r;
            cr_assert_eq(ompdag_tied_sim_run(run, choice, &o, &r, &err), OMPDAG_OK, "%s",
                         err.message);
            worst = r.makespan * m > worst ? r.makespan * m : worst;
        }
    ompdag_condag_destroy(run);
    free(exec), free(d);
    return worst;
}

Test(input_budget, runs_within_their_excess_stay_within_the_bound, .timeout = 240)
{
    ompdag_rng shape;
    ompdag_rng_seed(&shape, 4711);
    uint64_t checked = 0, path_smaller = 0;
    for (uint64_t seed = 1; seed <= 1200; ++seed) {
        ompdag_condag *g = random_graph(seed, &shape);
        mark(g, &shape);
        int32_t n = ompdag_condag_node_count(g);
        int64_t *d = malloc((size_t)n * sizeof *d), *x = malloc((size_t)n * sizeof *x),
                *y = malloc((size_t)n * sizeof *y);
        int32_t *choice = malloc((size_t)n * sizeof *choice);
        ompdag_overheads o = {.start_delay = ompdag_rng_range(&shape, 0, 30),
                              .wake_delay = ompdag_rng_range(&shape, 0, 30),
                              .cont_delay = ompdag_rng_range(&shape, 0, 30),
                              .threads = 2};
        ompdag_error err;
        cr_assert_eq(ompdag_overheads_node_delays(g, &o, d, &err), OMPDAG_OK, "%s", err.message);
        for (int32_t v = 0; v < n; ++v)
            cr_assert_eq(ompdag_condag_assign_delay(g, v, d[v], &err), OMPDAG_OK);
        annot_paths *p = annot_paths_create(g);
        cr_assert(p);
        random_run(g, &shape, x, y);
        ompdag_condag_set *s = with_input(g, x, y, p, true);
        ompdag_condag_set *s_all = with_input(g, x, y, p, false);
        for (int32_t m = 1; m <= 4; ++m) {
            int64_t bound = input_bound(s, m), bound_all = input_bound(s_all, m);
            cr_assert_leq(bound, bound_all, "seed %llu m %d", (unsigned long long)seed, m);
            path_smaller += bound < bound_all;
            ompdag_sim_random_choice(g, &shape, choice);
            int64_t worst = simulated(g, choice, m, x, y, &shape);
            cr_assert_leq(worst, bound,
                          "seed %llu m %d: a run within its excess took m·R = %lld, above the "
                          "input's bound %lld",
                          (unsigned long long)seed, m, (long long)worst, (long long)bound);
            ++checked;
        }
        ompdag_condag_set_destroy(s), ompdag_condag_set_destroy(s_all);
        annot_paths_destroy(p);
        free(d), free(x), free(y), free(choice);
        ompdag_condag_destroy(g);
    }
    printf("input budget: %llu graph x m checked, the path model smaller in %llu\n",
           (unsigned long long)checked, (unsigned long long)path_smaller);
    cr_assert_gt(path_smaller, checked / 10, "the path model rarely applied: a weak test");
}
