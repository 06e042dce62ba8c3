/* tests/analysis/test_gen.c — the random generator: deterministic, honours
 * its parameters, and the PRNG draws stay in range. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "support.h"

static char *dump(const ompdag_condag *g)
{
    json_t *j = ompdag_condag_to_json(g);
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    return s;
}

Test(gen, same_seed_same_graph)
{
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    p.seed = 42;
    ompdag_condag *a, *b, *c;
    cr_assert_eq(ompdag_gen_random(&p, &a, NULL), OMPDAG_OK);
    cr_assert_eq(ompdag_gen_random(&p, &b, NULL), OMPDAG_OK);
    p.seed = 43;
    cr_assert_eq(ompdag_gen_random(&p, &c, NULL), OMPDAG_OK);
    char *sa = dump(a), *sb = dump(b), *sc = dump(c);
    cr_expect_str_eq(sa, sb);
    cr_expect_str_neq(sa, sc);
    free(sa), free(sb), free(sc);
    ompdag_condag_destroy(a), ompdag_condag_destroy(b), ompdag_condag_destroy(c);
}

Test(gen, honours_parameters)
{
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    p.p_if = 0, p.p_cre = 0, p.p_wait = 0; /* only N nodes, one task */
    p.nodes_min = p.nodes_max = 17;
    p.wcet_min = p.wcet_max = 3;
    ompdag_condag *g;
    cr_assert_eq(ompdag_gen_random(&p, &g, NULL), OMPDAG_OK);
    cr_expect_eq(ompdag_condag_node_count(g), 17);
    cr_expect_eq(ompdag_condag_task_count(g), 1); /* no T: τ2.. are unreachable and dropped */
    cr_expect_eq(ompdag_condag_total_wcet(g), 51);
    ompdag_condag_destroy(g);

    p.p_cre = 1.0; /* τ1 has nine T nodes and adopts all nine other tasks */
    p.nodes_min = p.nodes_max = 9;
    cr_assert_eq(ompdag_gen_random(&p, &g, NULL), OMPDAG_OK);
    cr_expect_eq(ompdag_condag_task_count(g), 10);
    ompdag_condag_destroy(g);
}

Test(gen, default_kinds_all_appear)
{
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    int seen[128] = {0};
    for (uint64_t s = 0; s < 20; ++s) {
        p.seed = s;
        ompdag_condag *g;
        cr_assert_eq(ompdag_gen_random(&p, &g, NULL), OMPDAG_OK);
        for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
            seen[ompdag_condag_node_kind(g, v)]++;
        ompdag_condag_destroy(g);
    }
    const char *kinds = "NTWCJ";
    for (const char *k = kinds; *k; ++k)
        cr_expect_gt(seen[(int)*k], 0, "kind %c never generated", *k);
    cr_expect_eq(seen['C'], seen['J']);
}

Test(gen, bad_parameters_are_errors)
{
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    p.p_cre = 0.8, p.p_wait = 0.5;
    ompdag_condag *g;
    ompdag_error err;
    cr_expect_eq(ompdag_gen_random(&p, &g, &err), OMPDAG_ERR_ARGUMENT);
    ompdag_gen_params_init(&p);
    p.nodes_min = 5, p.nodes_max = 2;
    cr_expect_eq(ompdag_gen_random(&p, &g, &err), OMPDAG_ERR_ARGUMENT);
}

Test(gen, rng_range_is_inclusive_and_bounded)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 1);
    int hits[5] = {0};
    for (int i = 0; i < 10000; ++i) {
        int64_t x = ompdag_rng_range(&r, 3, 7);
        cr_assert(x >= 3 && x <= 7);
        hits[x - 3]++;
        double u = ompdag_rng_unit(&r);
        cr_assert(u >= 0.0 && u < 1.0);
    }
    for (int i = 0; i < 5; ++i)
        cr_expect_gt(hits[i], 1500, "value %d drawn %d times of 10000", i + 3, hits[i]);
}
