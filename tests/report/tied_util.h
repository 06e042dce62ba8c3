/*
 * tests/report/tied_util.h — the random graphs the tied-task tests share
 * (test_sim_tied.c, test_tied_waits.c): the generator of Sun et al. 2020
 * (§7) with 2 to 10 tasks, a quarter of them with depend clauses, and the
 * three ways of marking tasks tied.
 */
#ifndef OMPDAG_TESTS_TIED_UTIL_H
#define OMPDAG_TESTS_TIED_UTIL_H

#include <criterion/criterion.h>
#include <jansson.h>

#include "ompdag/gen.h"
#include "ompdag/internal/condag_json.h"

enum { MARK_UNTIED = 0, MARK_LEAVES = 1, MARK_ANY = 2, MARK_MODES = 3 };

/* Tasks with no T or W node never suspend. */
static inline bool task_suspends(const ompdag_condag *g, int32_t t)
{
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_task(g, v) == t && (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T ||
                                                   ompdag_condag_node_kind(g, v) == OMPDAG_KIND_W))
            return true;
    return false;
}

/* Marks each T node "untied": true/false: all untied, tied only on tasks that
 * never suspend (half of them), or tied anywhere (half). */
static inline void mark(ompdag_condag *g, int mode, ompdag_rng *rng)
{
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        int32_t ct = ompdag_condag_node_creates(g, v);
        if (ct < 0) continue;
        bool tied = mode == MARK_ANY      ? ompdag_rng_range(rng, 0, 1)
                    : mode == MARK_LEAVES ? !task_suspends(g, ct) && ompdag_rng_range(rng, 0, 1)
                                          : false;
        json_t *x = json_pack("{s:b}", "untied", !tied);
        cr_assert_eq(ompdag_condag_assign_extra(g, v, x), OMPDAG_OK);
        json_decref(x);
    }
}

static inline ompdag_condag *random_graph(uint64_t seed, ompdag_rng *shape)
{
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    p.seed = seed;
    p.tasks = (int32_t)ompdag_rng_range(shape, 2, 10);
    p.p_if = 0.05 + 0.35 * ompdag_rng_unit(shape);
    p.p_cre = 0.1 + 0.4 * ompdag_rng_unit(shape);
    p.p_wait = 0.05 + 0.4 * ompdag_rng_unit(shape);
    p.nodes_min = 2;
    p.nodes_max = (int32_t)ompdag_rng_range(shape, 2, 12);
    p.wcet_min = ompdag_rng_range(shape, 0, 1);
    p.wcet_max = ompdag_rng_range(shape, 1, 100);
    p.p_dep = ompdag_rng_range(shape, 0, 3) == 0 ? 0.4 : 0.0;
    p.dep_vars = 2;
    ompdag_condag *g = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_gen_random(&p, &g, &err), OMPDAG_OK, "seed %llu: %s",
                 (unsigned long long)seed, err.message);
    return g;
}

#endif
