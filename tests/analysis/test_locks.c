/* tests/analysis/test_locks.c — mutual exclusion and its blocking term
 * (docs/mutex.md, issue 25 item 3).
 *
 *  - format: the node key "locks" needs the "locks" extension (an older
 *    reader refuses the file); save and reload keep it; bad counts are named;
 *  - the term: B(v, m) = Σ_L min(k·(m−1)·Cmax(L), S(L) − c(v)) on a hand
 *    graph, in exact, enumerate and depend alike, and in the tied bound;
 *  - property: a discrete-event simulator of m threads with FIFO spin locks
 *    (each acquisition spins until granted in request order, the critical
 *    section lies inside its node's WCET) runs random flows of random graphs
 *    with random locks; every run satisfies m·makespan <= the exact bound,
 *    and some runs exceed the bound computed without the term (so the term is
 *    needed, and the test fails without it). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/locks.h"
#include "support.h"

/* Two sibling tasks, each one node of WCET 10 taking lock "c" once, and a
 * root that creates both then waits: vol 20 (+0 root), len 10. */
#define TWO_CRITICAL                                                                               \
    "{'format':'ompdag-condag','version':1,'extensions':['locks'],'nodes':["                       \
    "{'id':'a','task':'t1','kind':'T','wcet':0,'creates':'t2'},"                                   \
    "{'id':'b','task':'t1','kind':'T','wcet':0,'creates':'t3'},"                                   \
    "{'id':'w','task':'t1','kind':'W','wcet':0},"                                                  \
    "{'id':'x','task':'t2','kind':'N','wcet':10,'locks':[{'lock':'c','count':1}]},"                \
    "{'id':'y','task':'t3','kind':'N','wcet':30,'locks':[{'lock':'c','count':%s}]}],"              \
    "'edges':[['a','b'],['b','w']]}"

static ompdag_condag *two_critical(const char *count, ompdag_error *err)
{
    char text[1024];
    snprintf(text, sizeof text, TWO_CRITICAL, count);
    return load_graph(text, err);
}

Test(locks_format, the_key_needs_the_extension)
{
    ompdag_error err;
    const char *text =
        "{'format':'ompdag-condag','version':1,'nodes':["
        "{'id':'x','task':'t1','kind':'N','wcet':1,'locks':[{'lock':'c','count':1}]}],"
        "'edges':[]}";
    ompdag_condag *g = load_graph(text, &err);
    cr_assert_null(g);
    cr_assert(strstr(err.message, "\"extensions\": [\"locks\"]"), "%s", err.message);
    cr_assert(strstr(err.message, "node 'x'"), "%s", err.message);
}

Test(locks_format, bad_counts_are_named)
{
    ompdag_error err;
    cr_assert_null(two_critical("0", &err));
    cr_assert(strstr(err.message, "node 'y'") && strstr(err.message, "count"), "%s", err.message);
    cr_assert_null(two_critical("'many'", &err));
    cr_assert(strstr(err.message, "unbounded"), "%s", err.message);
}

Test(locks_format, an_unknown_extension_is_refused_so_old_readers_refuse_locks)
{
    ompdag_error err;
    cr_assert_null(load_graph("{'format':'ompdag-condag','version':1,'extensions':['spin'],"
                              "'nodes':[{'id':'x','task':'t1','kind':'N','wcet':1}],'edges':[]}",
                              &err));
    cr_assert(strstr(err.message, "locks"), "the message lists the known extensions: %s",
              err.message);
}

Test(locks_format, save_and_reload_keep_the_locks)
{
    ompdag_error err;
    ompdag_condag *g = two_critical("'unbounded'", &err);
    cr_assert_not_null(g, "%s", err.message);
    json_t *j = ompdag_condag_to_json(g);
    json_t *ext = json_object_get(j, "extensions");
    cr_assert(json_is_array(ext) && json_array_size(ext) == 1 &&
              !strcmp(json_string_value(json_array_get(ext, 0)), "locks"));
    ompdag_condag *h = NULL;
    cr_assert_eq(condag_from_json(j, "copy", &h, &err), OMPDAG_OK, "%s", err.message);
    json_decref(j);
    int32_t y = node_index(h, "y");
    cr_assert_eq(ompdag_condag_node_lock_count(h, y), 1);
    cr_assert_str_eq(ompdag_condag_node_lock_name(h, y, 0), "c");
    cr_assert_eq(ompdag_condag_node_lock_acquisitions(h, y, 0), OMPDAG_LOCK_UNBOUNDED);
    for (int32_t m = 1; m <= 4; ++m)
        cr_assert_eq(bound_of(g, OMPDAG_ALG_EXACT, m), bound_of(h, OMPDAG_ALG_EXACT, m));
    ompdag_condag_destroy(g);
    ompdag_condag_destroy(h);
}

Test(locks_bound, the_term_is_the_smaller_of_fifo_and_the_others_sections)
{
    ompdag_error err;
    ompdag_condag *g = two_critical("2", &err);
    cr_assert_not_null(g, "%s", err.message);
    int32_t x = node_index(g, "x"), y = node_index(g, "y");
    /* Cmax = 30, S = 40.  x: min(1·(m−1)·30, 30); y: min(2·(m−1)·30, 10). */
    cr_assert_eq(ompdag_condag_node_blocking(g, x, 1), 0);
    cr_assert_eq(ompdag_condag_node_blocking(g, y, 1), 0);
    cr_assert_eq(ompdag_condag_node_blocking(g, x, 2), 30);
    cr_assert_eq(ompdag_condag_node_blocking(g, y, 2), 10);
    /* m = 2: c' = 40 and 40; vol 80, len 40: m·R = 80 + 40 = 120. */
    cr_assert_eq(bound_of(g, OMPDAG_ALG_EXACT, 2), 120);
    cr_assert_eq(bound_of(g, OMPDAG_ALG_ENUMERATE, 2), 120);
    cr_assert_eq(bound_of(g, OMPDAG_ALG_DEPEND, 2), 120);
    cr_assert_geq(bound_of(g, OMPDAG_ALG_ALG0, 2), 120);
    /* m = 1: no other thread, no blocking: m·R = vol = 40. */
    cr_assert_eq(bound_of(g, OMPDAG_ALG_EXACT, 1), 40);
    /* The term follows WCET changes (annotate sets them after loading). */
    cr_assert_eq(ompdag_condag_assign_wcet(g, y, 5, &err), OMPDAG_OK);
    cr_assert_eq(ompdag_condag_node_blocking(g, x, 2), 5);  /* S − c(x) = 5 */
    cr_assert_eq(ompdag_condag_node_blocking(g, y, 2), 10); /* 2·1·Cmax(10) = 20 vs 10 */
    ompdag_condag_destroy(g);
    /* an unbounded count: the count-free term alone, and still none at m = 1 */
    g = two_critical("'unbounded'", &err);
    cr_assert_not_null(g, "%s", err.message);
    cr_assert_eq(ompdag_condag_node_blocking(g, node_index(g, "y"), 1), 0);
    cr_assert_eq(ompdag_condag_node_blocking(g, node_index(g, "y"), 2), 10);
    cr_assert_eq(ompdag_condag_node_blocking(g, node_index(g, "y"), 64), 10);
    cr_assert_eq(bound_of(g, OMPDAG_ALG_EXACT, 1), 40);
    ompdag_condag_destroy(g);
}

Test(locks_bound, the_tied_bound_charges_the_term_at_the_real_team_size)
{
    ompdag_error err;
    ompdag_condag *g = two_critical("1", &err);
    cr_assert_not_null(g, "%s", err.message);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 2);
    int64_t tied;
    ompdag_tied_rule rule;
    cr_assert_eq(ompdag_rta_tied_bound(g, &opt, &tied, &rule, &err), OMPDAG_OK, "%s", err.message);
    /* Volume with the term at m = 2: 40 + 40 = 80 (×m = 160) whatever the rule. */
    cr_assert_geq(tied, bound_of(g, OMPDAG_ALG_EXACT, 2));
    cr_assert_geq(tied, 160, "tied bound %lld must cover m·vol with spinning", (long long)tied);
    ompdag_condag_destroy(g);
}

Test(locks_bound, a_compact_graph_with_locks_is_refused_until_unfolded)
{
    ompdag_error err;
    ompdag_condag *g = load_graph(
        "{'format':'ompdag-condag','version':1,'extensions':['compact','locks'],'nodes':["
        "{'id':'a','task':'t1','kind':'T','wcet':0,'creates':'t2'},"
        "{'id':'b','task':'t1','kind':'T','wcet':0,'creates':'t2'},"
        "{'id':'x','task':'t2','kind':'N','wcet':10,'locks':[{'lock':'c','count':1}]}],"
        "'edges':[['a','b']]}",
        &err);
    cr_assert_not_null(g, "%s", err.message);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 2);
    ompdag_rta_result *r = NULL;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_ERR_UNSUPPORTED);
    cr_assert(strstr(err.message, "ompdag expand"), "%s", err.message);
    ompdag_condag_destroy(g);
}

/* ---- the simulator ------------------------------------------------------------ */

#define MAX_CS 8

typedef struct sim_node {
    int32_t ncs;               /* critical sections, in order */
    int32_t lock[MAX_CS];      /* lock of each */
    int64_t plain[MAX_CS + 1]; /* plain work before each section, and after the last */
    int64_t cs[MAX_CS];
} sim_node;

typedef struct thread_state {
    int32_t node;  /* -1: idle */
    int32_t phase; /* 2i: plain[i]; 2i+1: cs[i] */
    int64_t left;
    bool spinning;
} thread_state;

/* The nodes of one random flow: executed[v] = 1. */
static void random_flow(const ompdag_condag *g, ompdag_rng *r, uint8_t *executed)
{
    int32_t n = ompdag_condag_node_count(g), *stack = malloc(sizeof *stack * (size_t)n), top = 0;
    memset(executed, 0, (size_t)n);
    int32_t s = ompdag_condag_task_source(g, ompdag_condag_root_task(g));
    executed[s] = 1, stack[top++] = s;
    while (top) {
        int32_t v = stack[--top], k;
        const int32_t *succ = ompdag_condag_node_fsucc(g, v, &k);
        int32_t lo = 0, hi = k;
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_C && k)
            lo = (int32_t)ompdag_rng_range(r, 0, k - 1), hi = lo + 1;
        for (int32_t i = lo; i < hi; ++i)
            if (!executed[succ[i]]) executed[succ[i]] = 1, stack[top++] = succ[i];
        int32_t c = ompdag_condag_node_creates(g, v);
        if (c >= 0) {
            int32_t cs = ompdag_condag_task_source(g, c);
            if (!executed[cs]) executed[cs] = 1, stack[top++] = cs;
        }
    }
    free(stack);
}

/* Predecessor counts within the flow (F, T and W edges between executed nodes). */
static void flow_preds(const ompdag_condag *g, const uint8_t *executed, int32_t *pending)
{
    int32_t n = ompdag_condag_node_count(g), k;
    memset(pending, 0, sizeof *pending * (size_t)n);
    for (int32_t v = 0; v < n; ++v) {
        if (!executed[v]) continue;
        const int32_t *s = ompdag_condag_node_fsucc(g, v, &k);
        for (int32_t i = 0; i < k; ++i)
            pending[s[i]] += executed[s[i]];
        s = ompdag_condag_node_wsucc(g, v, &k);
        for (int32_t i = 0; i < k; ++i)
            pending[s[i]] += executed[s[i]];
        int32_t c = ompdag_condag_node_creates(g, v);
        if (c >= 0) pending[ompdag_condag_task_source(g, c)]++;
    }
}

static void release_succ(const ompdag_condag *g, const uint8_t *executed, int32_t v,
                         int32_t *pending, int32_t *ready, int32_t *nready)
{
    int32_t k;
    const int32_t *s = ompdag_condag_node_fsucc(g, v, &k);
    for (int32_t i = 0; i < k; ++i)
        if (executed[s[i]] && --pending[s[i]] == 0) ready[(*nready)++] = s[i];
    s = ompdag_condag_node_wsucc(g, v, &k);
    for (int32_t i = 0; i < k; ++i)
        if (executed[s[i]] && --pending[s[i]] == 0) ready[(*nready)++] = s[i];
    int32_t c = ompdag_condag_node_creates(g, v);
    if (c >= 0 && --pending[ompdag_condag_task_source(g, c)] == 0)
        ready[(*nready)++] = ompdag_condag_task_source(g, c);
}

typedef struct lock_state {
    int32_t holder;    /* thread, -1 free */
    int32_t queue[64]; /* FIFO of waiting threads */
    int32_t head, n;
} lock_state;

/* Moves thread t to its next phase (skipping empty plain work), requesting
 * the lock of a critical section: granted at once when free, else queued
 * (spinning).  Returns true when the node is finished. */
static bool next_phase(thread_state *t, int32_t tid, const sim_node *sn, lock_state *locks)
{
    for (;;) {
        t->phase++;
        if (t->phase > 2 * sn->ncs) return true;
        if (t->phase % 2 == 0) {
            t->left = sn->plain[t->phase / 2];
            if (t->left > 0) return false;
            continue;
        }
        lock_state *l = &locks[sn->lock[t->phase / 2]];
        t->left = sn->cs[t->phase / 2];
        if (l->holder < 0 && l->n == 0) {
            l->holder = tid;
            return false;
        }
        l->queue[(l->head + l->n++) % 64] = tid;
        t->spinning = true;
        return false;
    }
}

/* One work-conserving schedule of the flow on m threads with FIFO spin
 * locks; ready nodes are taken in a random order.  Returns the makespan. */
static int64_t simulate(const ompdag_condag *g, const uint8_t *executed, const sim_node *sn,
                        int32_t nlocks, int32_t m, ompdag_rng *r)
{
    int32_t n = ompdag_condag_node_count(g), nready = 0, left = 0;
    int32_t *pending = malloc(sizeof *pending * (size_t)n);
    int32_t *ready = malloc(sizeof *ready * (size_t)n);
    thread_state *th = calloc((size_t)m, sizeof *th);
    lock_state *locks = calloc((size_t)nlocks, sizeof *locks);
    for (int32_t x = 0; x < nlocks; ++x)
        locks[x].holder = -1;
    flow_preds(g, executed, pending);
    for (int32_t v = 0; v < n; ++v) {
        left += executed[v];
        if (executed[v] && !pending[v]) ready[nready++] = v;
    }
    for (int32_t t = 0; t < m; ++t)
        th[t].node = -1;
    int64_t now = 0;
    while (left) {
        for (int32_t t = 0; t < m && nready; ++t) { /* work-conserving: no idle thread */
            if (th[t].node >= 0) continue;
            int32_t i = (int32_t)ompdag_rng_range(r, 0, nready - 1), v = ready[i];
            ready[i] = ready[--nready];
            th[t] = (thread_state){v, 0, sn[v].plain[0], false};
            if (th[t].left == 0 && next_phase(&th[t], t, &sn[v], locks)) {
                th[t].phase = -1; /* finished at once: handled below */
                th[t].left = 0;
            }
        }
        int64_t step = INT64_MAX;
        for (int32_t t = 0; t < m; ++t)
            if (th[t].node >= 0 && !th[t].spinning && th[t].left < step) step = th[t].left;
        cr_assert(step != INT64_MAX, "deadlock in the simulator");
        now += step;
        for (int32_t t = 0; t < m; ++t)
            if (th[t].node >= 0 && !th[t].spinning) th[t].left -= step;
        for (int32_t t = 0; t < m; ++t) {
            thread_state *x = &th[t];
            while (x->node >= 0 && !x->spinning && x->left == 0) {
                const sim_node *s = &sn[x->node];
                if (x->phase >= 0 && x->phase % 2 == 1) { /* end of a critical section */
                    lock_state *l = &locks[s->lock[x->phase / 2]];
                    l->holder = -1;
                    if (l->n) { /* FIFO hand-over */
                        int32_t w = l->queue[l->head];
                        l->head = (l->head + 1) % 64, l->n--;
                        l->holder = w, th[w].spinning = false;
                    }
                }
                if (x->phase < 0 || next_phase(x, t, s, locks)) {
                    release_succ(g, executed, x->node, pending, ready, &nready);
                    --left;
                    x->node = -1;
                }
            }
        }
    }
    free(pending), free(ready), free(th), free(locks);
    return now;
}

/* Random locks on about half the nodes: 1..3 entries over nlocks locks,
 * counts 1..3 or unbounded (the simulation then draws 1..3 sections); each
 * section lasts at most its share of the node's WCET. */
static json_t *random_locks(const ompdag_condag *g, int32_t v, ompdag_rng *r, int32_t nlocks,
                            sim_node *sn)
{
    int64_t c = ompdag_condag_node_wcet(g, v);
    sn->ncs = 0;
    if (c == 0 || ompdag_rng_unit(r) < 0.5) {
        sn->plain[0] = c;
        return NULL;
    }
    json_t *a = json_array();
    int32_t entries = (int32_t)ompdag_rng_range(r, 1, 2);
    for (int32_t e = 0; e < entries; ++e) {
        int32_t lock = (int32_t)ompdag_rng_range(r, 0, nlocks - 1);
        bool unbounded = ompdag_rng_unit(r) < 0.2;
        int32_t k = (int32_t)ompdag_rng_range(r, 1, 3);
        char name[16];
        snprintf(name, sizeof name, "L%d", lock);
        json_array_append_new(a, json_pack("{s:s,s:o}", "lock", name, "count",
                                           unbounded ? json_string("unbounded") : json_integer(k)));
        for (int32_t i = 0; i < k && sn->ncs < MAX_CS; ++i)
            sn->lock[sn->ncs++] = lock;
    }
    /* split c: each section up to c / ncs, the rest as plain work around them */
    int64_t rest = c;
    for (int32_t i = 0; i < sn->ncs; ++i) {
        sn->cs[i] = ompdag_rng_range(r, c / (2 * sn->ncs), c / sn->ncs);
        rest -= sn->cs[i];
    }
    for (int32_t i = 0; i < sn->ncs; ++i) {
        sn->plain[i] = ompdag_rng_range(r, 0, rest);
        rest -= sn->plain[i];
    }
    sn->plain[sn->ncs] = rest;
    return a;
}

typedef struct sim_tally {
    long runs, above_without_term;
} sim_tally;

static void one_graph(uint64_t seed, int32_t nlocks, sim_tally *tally)
{
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    p.seed = seed;
    p.tasks = 6;
    p.nodes_min = 2, p.nodes_max = 6;
    p.wcet_min = 1, p.wcet_max = 100;
    p.p_wait = 0.2, p.p_cre = 0.4, p.p_if = 0.15;
    ompdag_condag *plain = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_gen_random(&p, &plain, &err), OMPDAG_OK, "%s", err.message);
    ompdag_rng r;
    ompdag_rng_seed(&r, seed * 7919 + 1);
    int32_t n = ompdag_condag_node_count(plain);
    sim_node *sn = calloc((size_t)n, sizeof *sn);
    json_t *j = ompdag_condag_to_json(plain);
    json_object_set_new(j, "extensions", json_pack("[s]", "locks"));
    json_t *nodes = json_object_get(j, "nodes");
    for (int32_t v = 0; v < n; ++v) {
        json_t *a = random_locks(plain, v, &r, nlocks, &sn[v]);
        if (a) json_object_set_new(json_array_get(nodes, (size_t)v), "locks", a);
    }
    ompdag_condag *g = NULL;
    cr_assert_eq(condag_from_json(j, "locked", &g, &err), OMPDAG_OK, "%s", err.message);
    json_decref(j);
    uint8_t *executed = malloc((size_t)n);
    for (int32_t m = 2; m <= 4; ++m) {
        int64_t bound = bound_of(g, OMPDAG_ALG_EXACT, m);
        int64_t without = bound_of(plain, OMPDAG_ALG_EXACT, m);
        cr_assert_geq(bound, without);
        cr_assert_eq(bound, bound_of(g, OMPDAG_ALG_ENUMERATE, m), "seed %llu m %d",
                     (unsigned long long)seed, m);
        for (int run = 0; run < 20; ++run) {
            random_flow(g, &r, executed);
            int64_t span = simulate(g, executed, sn, nlocks, m, &r);
            cr_assert_leq((int64_t)m * span, bound,
                          "seed %llu m %d: simulated m·makespan %lld above the bound %lld",
                          (unsigned long long)seed, m, (long long)(m * span), (long long)bound);
            tally->runs++;
            tally->above_without_term += (int64_t)m * span > without;
        }
    }
    free(executed), free(sn);
    ompdag_condag_destroy(g);
    ompdag_condag_destroy(plain);
}

Test(locks_sim, fifo_spin_locks_stay_within_the_bound_and_need_the_term, .timeout = 240)
{
    sim_tally t = {0};
    for (uint64_t seed = 1; seed <= 600; ++seed)
        one_graph(seed, 1 + (int32_t)(seed % 3), &t);
    cr_log_info("lock simulations: %ld runs, %ld above the bound without the blocking term", t.runs,
                t.above_without_term);
    cr_assert_gt(t.above_without_term, 0,
                 "no run needed the blocking term: the simulator does not exercise lock waits");
}
