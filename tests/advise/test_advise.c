/*
 * tests/advise/test_advise.c — the task-granularity advisor on hand-built
 * inputs: the seed's 1/(e·i!) weights, the KNN weighted sum (checked against
 * sums computed by hand), leave-one-out exclusion, model file errors, feature
 * extraction and verdicts on annotated graphs, model building from a
 * manifest, validation, and the CLI (advise, report --advise with SARIF).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_slurp.h"
#include "tmpdir.h"

#include "ompdag/advise.h"
#include "ompdag/internal/advise_json.h"

/* ---- helpers ----------------------------------------------------------------- */

static const char *path_in_tmp(const char *name)
{
    static char p[8][256];
    static int k;
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "%s/%s", tmp, name);
    return p[k];
}

static void write_file(const char *name, const char *text)
{
    FILE *f = fopen(path_in_tmp(name), "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

/* Runs `ompdag ARGS` (built binary) with stdout/stderr into tmp; returns the
 * exit status. */
static int ompdag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int ompdag(const char *fmt, ...)
{
    const char *build = getenv("OMPDAG_BUILD_DIR");
    cr_assert(build, "run through ctest");
    char args[4096], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "'%s/cli/ompdag' %s >'%s/out' 2>'%s/err'", build, args, tmp, tmp);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A model of three samples that know only the grain feature: A (grain 1 µs,
 * recursive, cutoff 4), B (grain 100 µs, recursive, cutoff 8), C (grain 10 ms,
 * loop, chunk 64). */
static const char *model3 =
    "{\"format\":\"ompdag-advisor-model\",\"version\":1,\"threads\":2,\"task_overhead_ns\":800,"
    "\"near_best_pct\":10,\"samples\":["
    "{\"name\":\"A\",\"program\":\"pa\",\"shape\":\"recursive\",\"default\":6,"
    " \"features\":{\"grain_ns\":1000},"
    " \"best\":{\"grain_min_ns\":10000,\"grain_max_ns\":1000000,\"cutoff\":4},"
    " \"grid\":[{\"setting\":4,\"time_ns\":100,\"grain_ns\":10000,\"tasks\":16},"
    "           {\"setting\":6,\"time_ns\":300,\"grain_ns\":1000,\"tasks\":64}]},"
    "{\"name\":\"B\",\"program\":\"pb\",\"shape\":\"recursive\",\"default\":2,"
    " \"features\":{\"grain_ns\":100000},"
    " \"best\":{\"grain_min_ns\":20000,\"grain_max_ns\":2000000,\"cutoff\":8},"
    " \"grid\":[{\"setting\":2,\"time_ns\":400,\"grain_ns\":900000,\"tasks\":4},"
    "           {\"setting\":8,\"time_ns\":200,\"grain_ns\":20000,\"tasks\":256}]},"
    "{\"name\":\"C\",\"program\":\"pc\",\"shape\":\"loop\",\"default\":1,"
    " \"features\":{\"grain_ns\":10000000},"
    " \"best\":{\"grain_min_ns\":40000,\"grain_max_ns\":4000000,\"cutoff\":64},"
    " \"grid\":[{\"setting\":1,\"time_ns\":900,\"grain_ns\":1000,\"tasks\":1024},"
    "           {\"setting\":64,\"time_ns\":300,\"grain_ns\":64000,\"tasks\":16}]}]}";

static ompdag_advise_model *load_model_text(const char *text)
{
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    cr_assert_not_null(root, "%s", je.text);
    ompdag_advise_model *m = NULL;
    ompdag_error err = {0};
    cr_assert_eq(advise_model_from_json(root, "model3", &m, &err), OMPDAG_OK, "%s", err.message);
    json_decref(root);
    return m;
}

static ompdag_advise_features grain_only(double grain)
{
    ompdag_advise_features f = {0};
    f.v[OMPDAG_FEAT_GRAIN] = grain;
    f.have[OMPDAG_FEAT_GRAIN] = true;
    return f;
}

/* ---- weights ------------------------------------------------------------------ */

Test(weights, sum_to_one_and_follow_the_factorials)
{
    for (int k = 1; k <= OMPDAG_ADVISE_K; ++k) {
        double s = 0;
        for (int i = 1; i <= k; ++i)
            s += ompdag_advise_weight(i, k);
        cr_assert_float_eq(s, 1.0, 1e-12, "k=%d", k);
        /* w(i)/w(i+1) = (i+1)!/i! = i+1 */
        for (int i = 1; i < k; ++i)
            cr_assert_float_eq(ompdag_advise_weight(i, k) / ompdag_advise_weight(i + 1, k),
                               (double)(i + 1), 1e-9);
    }
    cr_assert_float_eq(ompdag_advise_weight(1, 1), 1.0, 1e-15);
    /* 1/(e·1!) + … normalised: with k = 3, 1 : 1/2 : 1/6 -> 0.6, 0.3, 0.1 */
    cr_assert_float_eq(ompdag_advise_weight(1, 3), 0.6, 1e-12);
    cr_assert_float_eq(ompdag_advise_weight(2, 3), 0.3, 1e-12);
    cr_assert_float_eq(ompdag_advise_weight(3, 3), 0.1, 1e-12);
    cr_assert_eq(ompdag_advise_weight(0, 3), 0);
    cr_assert_eq(ompdag_advise_weight(4, 3), 0);
}

/* ---- prediction ---------------------------------------------------------------- */

Test(predict, weighted_sum_of_the_nearest)
{
    ompdag_advise_model *m = load_model_text(model3);
    ompdag_advise_features f = grain_only(2000); /* nearest A, then B, then C */
    ompdag_advise_thresholds h;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_advise_predict(m, &f, OMPDAG_SHAPE_RECURSIVE, (size_t)-1, NULL, &h, &err),
                 OMPDAG_OK, "%s", err.message);
    cr_assert_float_eq(h.grain_min_ns, 0.6 * 10000 + 0.3 * 20000 + 0.1 * 40000, 1e-6);
    cr_assert_float_eq(h.grain_max_ns, 0.6 * 1e6 + 0.3 * 2e6 + 0.1 * 4e6, 1e-6);
    /* the cutoff only from recursive samples: A then B, weights 2/3, 1/3 */
    cr_assert_float_eq(h.cutoff, 4 * 2.0 / 3 + 8 * 1.0 / 3, 1e-9);
    /* a loop directive takes C's chunk alone */
    cr_assert_eq(ompdag_advise_predict(m, &f, OMPDAG_SHAPE_LOOP, (size_t)-1, NULL, &h, &err),
                 OMPDAG_OK);
    cr_assert_float_eq(h.cutoff, 64, 1e-9);
    ompdag_advise_model_destroy(m);
}

Test(predict, order_follows_distance)
{
    ompdag_advise_model *m = load_model_text(model3);
    ompdag_advise_features f = grain_only(5e6); /* nearest C, then B, then A */
    ompdag_advise_thresholds h;
    cr_assert_eq(ompdag_advise_predict(m, &f, OMPDAG_SHAPE_RECURSIVE, (size_t)-1, NULL, &h, NULL),
                 OMPDAG_OK);
    cr_assert_float_eq(h.grain_min_ns, 0.6 * 40000 + 0.3 * 20000 + 0.1 * 10000, 1e-6);
    cr_assert_float_eq(h.cutoff, 8 * 2.0 / 3 + 4 * 1.0 / 3, 1e-9); /* B nearer than A */
    ompdag_advise_model_destroy(m);
}

Test(predict, leave_one_out_and_program_out)
{
    ompdag_advise_model *m = load_model_text(model3);
    ompdag_advise_features f = grain_only(2000);
    ompdag_advise_thresholds h;
    /* without A: B, C weigh 2/3, 1/3 */
    cr_assert_eq(ompdag_advise_predict(m, &f, OMPDAG_SHAPE_RECURSIVE, 0, NULL, &h, NULL),
                 OMPDAG_OK);
    cr_assert_float_eq(h.grain_min_ns, 20000 * 2.0 / 3 + 40000 * 1.0 / 3, 1e-6);
    cr_assert_float_eq(h.cutoff, 8, 1e-9);
    /* without program pb */
    cr_assert_eq(ompdag_advise_predict(m, &f, OMPDAG_SHAPE_RECURSIVE, (size_t)-1, "pb", &h, NULL),
                 OMPDAG_OK);
    cr_assert_float_eq(h.grain_min_ns, 10000 * 2.0 / 3 + 40000 * 1.0 / 3, 1e-6);
    cr_assert_float_eq(h.cutoff, 4, 1e-9);
    /* no recursive sample left: no cutoff */
    cr_assert_eq(ompdag_advise_predict(m, &f, OMPDAG_SHAPE_LOOP, 2, NULL, &h, NULL), OMPDAG_OK);
    cr_assert_eq(h.cutoff, -1);
    ompdag_advise_model_destroy(m);
}

Test(predict, more_than_k_samples_uses_k)
{
    /* 12 samples at grains 1..12 µs, grain_min = index: the query at 0 takes
     * the 10 nearest (1..10) with the seed's weights. */
    json_t *root =
        json_pack("{s:s,s:i,s:i,s:f,s:f,s:[]}", "format", "ompdag-advisor-model", "version", 1,
                  "threads", 2, "task_overhead_ns", 0.0, "near_best_pct", 10.0, "samples");
    for (int i = 1; i <= 12; ++i) {
        char name[16];
        snprintf(name, sizeof name, "s%d", i);
        json_array_append_new(
            json_object_get(root, "samples"),
            json_pack("{s:s,s:s,s:s,s:f,s:{s:f},s:{s:f,s:f,s:f},s:[{s:f,s:f,s:f,s:f}]}", "name",
                      name, "program", name, "shape", "loop", "default", 1.0, "features",
                      "grain_ns", 1000.0 * i, "best", "grain_min_ns", (double)i, "grain_max_ns",
                      100.0, "cutoff", 1.0, "grid", "setting", 1.0, "time_ns", 1.0, "grain_ns", 1.0,
                      "tasks", 1.0));
    }
    ompdag_advise_model *m = NULL;
    ompdag_error err = {0};
    cr_assert_eq(advise_model_from_json(root, "twelve", &m, &err), OMPDAG_OK, "%s", err.message);
    json_decref(root);
    ompdag_advise_features f = grain_only(0);
    ompdag_advise_thresholds h;
    cr_assert_eq(ompdag_advise_predict(m, &f, OMPDAG_SHAPE_LOOP, (size_t)-1, NULL, &h, NULL),
                 OMPDAG_OK);
    double want = 0;
    for (int i = 1; i <= 10; ++i)
        want += ompdag_advise_weight(i, 10) * i;
    cr_assert_float_eq(h.grain_min_ns, want, 1e-9);
    ompdag_advise_model_destroy(m);
}

/* ---- model file errors ---------------------------------------------------------- */

static void expect_model_error(const char *text, const char *needle)
{
    json_t *root = json_loads(text, 0, NULL);
    cr_assert_not_null(root);
    ompdag_advise_model *m = NULL;
    ompdag_error err = {0};
    cr_assert_neq(advise_model_from_json(root, "bad.json", &m, &err), OMPDAG_OK);
    cr_assert_null(m);
    cr_assert(strstr(err.message, needle), "'%s' lacks '%s'", err.message, needle);
    cr_assert(strstr(err.message, "bad.json"), "%s", err.message);
    json_decref(root);
}

Test(model, errors_name_the_field)
{
    expect_model_error("{\"format\":\"x\"}", "ompdag-advisor-model");
    expect_model_error("{\"format\":\"ompdag-advisor-model\",\"version\":2}", "version");
    expect_model_error("{\"format\":\"ompdag-advisor-model\",\"version\":1,\"samples\":[]}",
                       "samples");
    const char *head = "{\"format\":\"ompdag-advisor-model\",\"version\":1,\"threads\":2,"
                       "\"task_overhead_ns\":1,\"near_best_pct\":10,\"samples\":[";
    char buf[2048];
    snprintf(buf, sizeof buf, "%s{\"name\":\"a\",\"program\":\"p\",\"shape\":\"tree\"}]}", head);
    expect_model_error(buf, "sample 0: \"shape\"");
    snprintf(buf, sizeof buf,
             "%s{\"name\":\"a\",\"program\":\"p\",\"shape\":\"loop\",\"default\":1,"
             "\"features\":{\"grain_ns\":-5}}]}",
             head);
    expect_model_error(buf, "feature \"grain_ns\"");
    snprintf(buf, sizeof buf,
             "%s{\"name\":\"a\",\"program\":\"p\",\"shape\":\"loop\",\"default\":1,"
             "\"features\":{},\"best\":{\"grain_min_ns\":5,\"grain_max_ns\":1,\"cutoff\":1}}]}",
             head);
    expect_model_error(buf, "\"best\"");
    snprintf(buf, sizeof buf,
             "%s{\"name\":\"a\",\"program\":\"p\",\"shape\":\"loop\",\"default\":1,"
             "\"features\":{},\"best\":{\"grain_min_ns\":1,\"grain_max_ns\":2,\"cutoff\":1},"
             "\"grid\":[{\"setting\":1,\"time_ns\":0,\"grain_ns\":1,\"tasks\":1}]}]}",
             head);
    expect_model_error(buf, "grid point 0");
}

Test(model, the_repository_model_loads)
{
    const char *src = getenv("OMPDAG_SOURCE_DIR");
    cr_assert(src, "run through ctest");
    char path[1024];
    snprintf(path, sizeof path, "%s/advisor/advisor-model.json", src);
    ompdag_advise_model *m = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_advise_model_load(path, &m, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_geq(ompdag_advise_model_sample_count(m), OMPDAG_ADVISE_K);
    cr_assert_gt(ompdag_advise_model_task_overhead_ns(m), 0);
    ompdag_advise_model_destroy(m);
}

/* ---- features and verdicts on annotated graphs ---------------------------------- */

/* A region: root task t1 (nodes r1 -> T n1 -> W w1) creating task t2 = one
 * node whose median is `grain`, observed in 3 runs x 4 instances.  The T node
 * carries the front end's static features. */
static char *annotated_graph(double grain, bool annotated)
{
    char *buf = malloc(4096);
    char o1[256] = "", o2[256] = "";
    if (annotated) {
        snprintf(o1, sizeof o1, ",\"samples\":12,\"observed_max\":500,\"observed_median\":400");
        snprintf(o2, sizeof o2, ",\"samples\":12,\"observed_max\":%.0f,\"observed_median\":%.0f",
                 grain * 1.5, grain);
    }
    snprintf(buf, 4096,
             "{\"format\":\"ompdag-condag\",\"version\":1,\"function\":\"main\",\"threads\":2,"
             "\"loc\":{\"file\":\"x.c\",\"line\":3},\"observed_response_ns\":[1,2,3],"
             "\"nodes\":["
             "{\"id\":\"n1\",\"task\":\"t1\",\"kind\":\"T\",\"wcet\":500,\"creates\":\"t2\","
             "\"loc\":{\"file\":\"x.c\",\"line\":10,\"col\":1},\"untied\":true,"
             "\"features\":{\"stmts\":3,\"branches\":1,\"loops\":1,\"calls\":2,\"addsub\":4,"
             "\"muldiv\":1,\"blocks\":5,\"recursion\":0}%s},"
             "{\"id\":\"w1\",\"task\":\"t1\",\"kind\":\"W\",\"wcet\":0,"
             "\"loc\":{\"file\":\"x.c\",\"line\":12}},"
             "{\"id\":\"c1\",\"task\":\"t2\",\"kind\":\"N\",\"wcet\":%.0f%s}],"
             "\"edges\":[[\"n1\",\"w1\"]]}",
             o1, grain * 1.2, o2);
    return buf;
}

/* Advice for one graph text; the set must outlive the advice. */
typedef struct adv_case {
    ompdag_condag_set *s;
    ompdag_advice *a;
} adv_case;

static adv_case advise_text(const char *graph, ompdag_advise_model *m)
{
    adv_case c = {0};
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_buffer(graph, strlen(graph), "g", &c.s, &err), OMPDAG_OK,
                 "%s", err.message);
    cr_assert_eq(ompdag_advise_graphs(c.s, m, 0, &c.a, &err), OMPDAG_OK, "%s", err.message);
    return c;
}

static void adv_case_free(adv_case c)
{
    ompdag_advice_destroy(c.a);
    ompdag_condag_set_destroy(c.s);
}

Test(advice, features_from_the_annotated_graph)
{
    ompdag_advise_model *m = load_model_text(model3);
    char *g = annotated_graph(3000, true);
    adv_case c = advise_text(g, m);
    ompdag_advice *a = c.a;
    cr_assert_eq(ompdag_advice_region_count(a), 1);
    cr_assert_eq(ompdag_advice_task_count(a, 0), 1);
    const ompdag_advise_task *t = ompdag_advice_task(a, 0, 0);
    cr_assert_eq(t->loc.line, 10);
    cr_assert_float_eq(t->grain_ns, 3000, 1e-9);
    cr_assert_float_eq(t->instances, 4, 1e-9); /* 12 samples / 3 runs */
    cr_assert_float_eq(t->features.v[OMPDAG_FEAT_TASKS], 4, 1e-9);
    cr_assert_float_eq(t->features.v[OMPDAG_FEAT_SEG_MAX], 4500, 1e-9);
    cr_assert_float_eq(t->features.v[OMPDAG_FEAT_SEG_MEAN], 3000, 1e-9); /* one segment */
    cr_assert_float_eq(t->features.v[OMPDAG_FEAT_OVERHEAD], 800.0 / 3800.0, 1e-12);
    cr_assert(t->features.have[OMPDAG_FEAT_PARALLELISM]);
    cr_assert_float_eq(t->features.v[OMPDAG_FEAT_STMTS], 3, 1e-9);
    cr_assert_float_eq(t->features.v[OMPDAG_FEAT_BLOCKS], 5, 1e-9);
    cr_assert_eq(t->shape, OMPDAG_SHAPE_LOOP);
    adv_case_free(c);
    free(g);
    ompdag_advise_model_destroy(m);
}

Test(advice, verdicts_follow_the_predicted_limits)
{
    ompdag_advise_model *m = load_model_text(model3);
    struct {
        double grain;
        ompdag_advise_verdict v;
    } cases[] = {{2000, OMPDAG_ADVISE_TOO_FINE},
                 {100000, OMPDAG_ADVISE_OK},
                 {5e8, OMPDAG_ADVISE_TOO_COARSE}};
    for (size_t i = 0; i < 3; ++i) {
        char *g = annotated_graph(cases[i].grain, true);
        adv_case c = advise_text(g, m);
        ompdag_advice *a = c.a;
        const ompdag_advise_task *t = ompdag_advice_task(a, 0, 0);
        cr_assert_eq(t->verdict, cases[i].v, "grain %g: %s (limits %g..%g)", cases[i].grain,
                     ompdag_advise_verdict_name(t->verdict), t->predicted.grain_min_ns,
                     t->predicted.grain_max_ns);
        cr_assert_eq(ompdag_advice_too_fine_count(a), cases[i].v == OMPDAG_ADVISE_TOO_FINE);
        if (cases[i].v == OMPDAG_ADVISE_TOO_FINE)
            cr_assert(strstr(t->suggestion, "merge") && strstr(t->suggestion, "iterations"), "%s",
                      t->suggestion);
        adv_case_free(c);
        free(g);
    }
    ompdag_advise_model_destroy(m);
}

Test(advice, unannotated_graph_is_unmeasured)
{
    ompdag_advise_model *m = load_model_text(model3);
    char *g = annotated_graph(3000, false);
    adv_case c = advise_text(g, m);
    ompdag_advice *a = c.a;
    cr_assert_eq(ompdag_advice_task(a, 0, 0)->verdict, OMPDAG_ADVISE_UNMEASURED);
    cr_assert_eq(ompdag_advice_too_fine_count(a), 0);
    adv_case_free(c);
    free(g);
    ompdag_advise_model_destroy(m);
}

Test(advice, json_schema)
{
    ompdag_advise_model *m = load_model_text(model3);
    char *g = annotated_graph(2000, true);
    adv_case c = advise_text(g, m);
    ompdag_advice *a = c.a;
    json_t *j = advise_advice_to_json(a);
    json_t *r0 = json_array_get(json_object_get(j, "regions"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(r0, "function")), "main");
    cr_assert(json_is_object(json_object_get(r0, "loc")));
    json_t *t0 = json_array_get(json_object_get(r0, "tasks"), 0);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(t0, "loc"), "line")), 10);
    cr_assert_str_eq(json_string_value(json_object_get(t0, "verdict")), "too-fine");
    cr_assert_float_eq(json_number_value(json_object_get(t0, "grain_ns")), 2000, 1e-9);
    json_t *p = json_object_get(t0, "predicted");
    cr_assert(json_is_number(json_object_get(p, "grain_min_ns")));
    cr_assert(json_is_number(json_object_get(p, "grain_max_ns")));
    cr_assert(json_is_number(json_object_get(p, "chunk")));
    cr_assert(json_is_string(json_object_get(t0, "suggestion")));
    cr_assert(json_is_number(json_object_get(json_object_get(t0, "features"), "stmts")));
    json_decref(j);
    adv_case_free(c);
    free(g);
    ompdag_advise_model_destroy(m);
}

/* ---- building a model from a manifest ------------------------------------------- */

Test(build, best_known_scheme_from_the_grid, .init = make_tmp, .fini = rm_tmp)
{
    char *g = annotated_graph(3000, true);
    write_file("g.json", g);
    free(g);
    char manifest[2048];
    snprintf(manifest, sizeof manifest,
             "meta\tthreads\t2\nmeta\tdate\ttoday\noverhead\t700\nnear\t25\n"
             "sample\ts1\tprog\tloop\t1\t%s\n"
             "grid\ts1\t1\t100\t500\t64\n"
             "grid\ts1\t2\t50\t1000\t32\n"
             "grid\ts1\t4\t55\t2000\t16\n"
             "grid\ts1\t8\t90\t4000\t8\n"
             "sample\ts2\tprog2\trecursive\t3\t%s\n"
             "grid\ts2\t3\t10\t700\t8\n",
             path_in_tmp("g.json"), path_in_tmp("g.json"));
    write_file("m.tsv", manifest);
    ompdag_error err = {0};
    cr_assert_eq(ompdag_advise_model_build(path_in_tmp("m.tsv"), path_in_tmp("model.json"), &err),
                 OMPDAG_OK, "%s", err.message);
    json_t *root = json_load_file(path_in_tmp("model.json"), 0, NULL);
    cr_assert_not_null(root);
    json_t *s1 = json_array_get(json_object_get(root, "samples"), 0);
    json_t *best = json_object_get(s1, "best");
    /* fastest: setting 2 (50); within 25 %: settings 2 and 4 */
    cr_assert_float_eq(json_number_value(json_object_get(best, "cutoff")), 2, 1e-9);
    cr_assert_float_eq(json_number_value(json_object_get(best, "grain_min_ns")), 1000, 1e-9);
    cr_assert_float_eq(json_number_value(json_object_get(best, "grain_max_ns")), 2000, 1e-9);
    cr_assert_float_eq(
        json_number_value(json_object_get(json_object_get(s1, "features"), "grain_ns")), 3000,
        1e-9);
    cr_assert_float_eq(json_number_value(json_object_get(root, "task_overhead_ns")), 700, 1e-9);
    json_decref(root);
    /* the written model loads and validates */
    ompdag_advise_model *m = NULL;
    cr_assert_eq(ompdag_advise_model_load(path_in_tmp("model.json"), &m, &err), OMPDAG_OK, "%s",
                 err.message);
    FILE *out = fopen(path_in_tmp("v.txt"), "w");
    cr_assert_eq(ompdag_advise_validate(m, false, out, &err), OMPDAG_OK, "%s", err.message);
    fclose(out);
    char *v = test_slurp(path_in_tmp("v.txt"));
    cr_assert(strstr(v, "leave-one-out") && strstr(v, "mean abs error") &&
                  strstr(v, "leave-program-out"),
              "%s", v);
    free(v);
    ompdag_advise_model_destroy(m);
}

Test(build, manifest_errors_name_the_line, .init = make_tmp, .fini = rm_tmp)
{
    write_file("m.tsv", "meta\tthreads\t2\ngrid\tnone\t1\t2\t3\t4\n");
    ompdag_error err = {0};
    cr_assert_neq(ompdag_advise_model_build(path_in_tmp("m.tsv"), path_in_tmp("o.json"), &err),
                  OMPDAG_OK);
    cr_assert(strstr(err.message, "m.tsv:2") && strstr(err.message, "unknown sample"), "%s",
              err.message);
    write_file("m.tsv", "bogus\tline\n");
    cr_assert_neq(ompdag_advise_model_build(path_in_tmp("m.tsv"), path_in_tmp("o.json"), &err),
                  OMPDAG_OK);
    cr_assert(strstr(err.message, "m.tsv:1"), "%s", err.message);
    cr_assert_eq(access(path_in_tmp("o.json"), F_OK), -1, "no model written on error");
}

Test(validate, needs_two_samples)
{
    const char *one =
        "{\"format\":\"ompdag-advisor-model\",\"version\":1,\"threads\":2,\"task_overhead_ns\":1,"
        "\"near_best_pct\":10,\"samples\":[{\"name\":\"a\",\"program\":\"p\",\"shape\":\"loop\","
        "\"default\":1,\"features\":{},\"best\":{\"grain_min_ns\":1,\"grain_max_ns\":2,"
        "\"cutoff\":1},\"grid\":[{\"setting\":1,\"time_ns\":1,\"grain_ns\":1,\"tasks\":1}]}]}";
    ompdag_advise_model *m = load_model_text(one);
    ompdag_error err = {0};
    cr_assert_neq(ompdag_advise_validate(m, false, stdout, &err), OMPDAG_OK);
    cr_assert(strstr(err.message, "at least 2"), "%s", err.message);
    ompdag_advise_model_destroy(m);
}

/* Issue 26 item 12: `advise --validate` predicted every sample from every
 * other one, quadratic in the model (100,000 samples > 60 s).  Large models
 * are validated on a fixed stride of at most 500 samples, each still
 * predicted from all the others, and the output says so. */
#if defined(__SANITIZE_ADDRESS__)
#define ADVISE_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ADVISE_UNDER_ASAN 1
#endif
#endif
/* CPU seconds this process has used: unlike wall time, other processes on a
 * loaded machine do not inflate it (the wall-clock limit of 30 s was brushed
 * at 31.9 s with four builds running beside the suite). */
static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Linear: 8.5 s of CPU at 10^5 samples; the quadratic code took more than 60 s. */
Test(validate, large_models_take_linear_time, .timeout = 180)
{
    double cpu0 = cpu_seconds();
#ifdef ADVISE_UNDER_ASAN
    enum { N = 20000 }; /* an unoptimised, instrumented build: the same path, 5x fewer samples */
#else
    enum { N = 100000 };
#endif
    json_t *samples = json_array();
    for (int i = 0; i < N; ++i) {
        char name[32];
        snprintf(name, sizeof name, "s%d", i);
        json_array_append_new(
            samples,
            json_pack("{s:s,s:s,s:s,s:f,s:{s:f,s:f},s:{s:f,s:f,s:f},s:[{s:f,s:f,s:f,s:f}]}", "name",
                      name, "program", i % 2 ? "odd" : "even", "shape", "loop", "default", 1.0,
                      "features", "grain_ns", 1000.0 + i, "stmts", (double)(i % 17), "best",
                      "grain_min_ns", 1000.0, "grain_max_ns", 2000.0, "cutoff", 1.0, "grid",
                      "setting", 1.0, "time_ns", 1000.0, "grain_ns", 1000.0, "tasks", 1.0));
    }
    json_t *root =
        json_pack("{s:s,s:i,s:i,s:f,s:f,s:o}", "format", "ompdag-advisor-model", "version", 1,
                  "threads", 2, "task_overhead_ns", 1.0, "near_best_pct", 10.0, "samples", samples);
    ompdag_advise_model *m = NULL;
    ompdag_error err = {0};
    cr_assert_eq(advise_model_from_json(root, "large", &m, &err), OMPDAG_OK, "%s", err.message);
    json_decref(root);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cr_assert_eq(ompdag_advise_validate(m, false, out, &err), OMPDAG_OK, "%s", err.message);
    fclose(out);
    char want[96];
    snprintf(want, sizeof want, "%d samples, every %d-th of them predicted: 500", N, N / 500);
    cr_expect(strstr(text, want), "%.300s", text);
    free(text);
    ompdag_advise_model_destroy(m);
    double cpu = cpu_seconds() - cpu0;
    cr_expect_lt(cpu, 30.0, "validating %d samples took %.1f s of CPU (linear: about 8.5 s)", N,
                 cpu);
}

/* ---- the command line ------------------------------------------------------------ */

Test(cli, usage_help_and_errors, .init = make_tmp, .fini = rm_tmp)
{
    cr_assert_eq(ompdag("advise --help"), 0);
    cr_assert_eq(ompdag("help advise"), 0);
    cr_assert_eq(ompdag("advise"), 2);
    cr_assert_eq(ompdag("advise --format xml x.json"), 2);
    cr_assert_eq(ompdag("advise --validate extra.json"), 2);
    cr_assert_eq(ompdag("advise '%s'", path_in_tmp("missing.json")), 1);
    cr_assert_eq(ompdag("advise --trace-stats '%s'", path_in_tmp("missing.trace")), 1);
    char *e = test_slurp(path_in_tmp("err"));
    cr_assert(strstr(e, "missing.trace"), "%s", e);
    free(e);
    write_file("model.json", model3);
    write_file("bad.json", "{\"format\":\"ompdag-advisor-model\",\"version\":1}");
    char *g = annotated_graph(2000, true);
    write_file("g.json", g);
    free(g);
    cr_assert_eq(ompdag("advise '%s' --model '%s'", path_in_tmp("g.json"), path_in_tmp("bad.json")),
                 1);
    e = test_slurp(path_in_tmp("err"));
    cr_assert(strstr(e, "bad.json"), "%s", e);
    free(e);
}

Test(cli, advise_report_and_sarif, .init = make_tmp, .fini = rm_tmp)
{
    write_file("model.json", model3);
    char *g = annotated_graph(2000, true);
    write_file("g.json", g);
    free(g);
    cr_assert_eq(
        ompdag("advise '%s' --model '%s'", path_in_tmp("g.json"), path_in_tmp("model.json")), 0);
    char *o = test_slurp(path_in_tmp("out"));
    cr_assert(strstr(o, "x.c:10 (loop): too-fine") && strstr(o, "suggestion: tasks below"), "%s",
              o);
    free(o);
    cr_assert_eq(ompdag("advise '%s' --model '%s' --format json -o '%s'", path_in_tmp("g.json"),
                        path_in_tmp("model.json"), path_in_tmp("a.json")),
                 0);
    json_t *j = json_load_file(path_in_tmp("a.json"), 0, NULL);
    cr_assert_not_null(j);
    json_decref(j);
    cr_assert_eq(ompdag("advise --validate --model '%s'", path_in_tmp("model.json")), 0);
    o = test_slurp(path_in_tmp("out"));
    cr_assert(strstr(o, "leave-one-out (3 samples"), "%s", o);
    free(o);
    /* report: the text shows the advice, SARIF a too-fine warning at line 10 */
    cr_assert_eq(
        ompdag("report '%s' --advise='%s'", path_in_tmp("g.json"), path_in_tmp("model.json")), 0);
    o = test_slurp(path_in_tmp("out"));
    cr_assert(strstr(o, "task granularity (ompdag advise)") && strstr(o, "too-fine"), "%s", o);
    free(o);
    cr_assert_eq(ompdag("report '%s' --advise='%s' --format sarif", path_in_tmp("g.json"),
                        path_in_tmp("model.json")),
                 0);
    json_t *log = json_load_file(path_in_tmp("out"), 0, NULL);
    cr_assert_not_null(log);
    json_t *results = json_object_get(json_array_get(json_object_get(log, "runs"), 0), "results");
    bool found = false;
    for (size_t i = 0; i < json_array_size(results); ++i) {
        json_t *r = json_array_get(results, i);
        if (strcmp(json_string_value(json_object_get(r, "ruleId")), "ompdag-too-fine")) continue;
        found = true;
        cr_assert_str_eq(json_string_value(json_object_get(r, "level")), "warning");
        json_t *reg = json_object_get(
            json_object_get(json_array_get(json_object_get(r, "locations"), 0), "physicalLocation"),
            "region");
        cr_assert_eq(json_integer_value(json_object_get(reg, "startLine")), 10);
    }
    cr_assert(found, "no ompdag-too-fine result");
    json_decref(log);
    /* without --advise the report is unchanged: no advice */
    cr_assert_eq(ompdag("report '%s'", path_in_tmp("g.json")), 0);
    o = test_slurp(path_in_tmp("out"));
    cr_assert_null(strstr(o, "task granularity"));
    free(o);
}

Test(advice, negligible_overhead_is_never_too_fine)
{
    /* one sample whose grain minimum is 5 ms: a 200 us task lies below it but
     * its 800 ns overhead is 0.4 % of it, under the 1 % floor */
    const char *big =
        "{\"format\":\"ompdag-advisor-model\",\"version\":1,\"threads\":2,"
        "\"task_overhead_ns\":800,\"near_best_pct\":10,\"samples\":[{\"name\":\"a\","
        "\"program\":\"p\",\"shape\":\"loop\",\"default\":1,\"features\":{\"grain_ns\":1000},"
        "\"best\":{\"grain_min_ns\":5e6,\"grain_max_ns\":1e9,\"cutoff\":1},"
        "\"grid\":[{\"setting\":1,\"time_ns\":1,\"grain_ns\":1,\"tasks\":1}]}]}";
    ompdag_advise_model *m = load_model_text(big);
    double grains[] = {200000, 70000};
    ompdag_advise_verdict want[] = {OMPDAG_ADVISE_OK, OMPDAG_ADVISE_TOO_FINE};
    for (int i = 0; i < 2; ++i) {
        char *g = annotated_graph(grains[i], true);
        adv_case c = advise_text(g, m);
        const ompdag_advise_task *t = ompdag_advice_task(c.a, 0, 0);
        cr_assert_eq(t->verdict, want[i], "grain %g", grains[i]);
        if (i == 0) cr_assert(strstr(t->suggestion, "only 0.4 %"), "%s", t->suggestion);
        adv_case_free(c);
        free(g);
    }
    ompdag_advise_model_destroy(m);
}

/* ---- property: the predictor against an independent oracle ----------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static double rnd(void) /* splitmix64 -> [0, 1) */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

/* The oracle: the same definitions (docs/advise.md) written plainly —
 * selection by repeated minimum scan, weights from factorials. */
static double oracle_t(int f, double x)
{
    return f == OMPDAG_FEAT_OVERHEAD ? x : log1p(x);
}

typedef struct oracle_sample {
    double v[OMPDAG_FEAT_COUNT];
    bool have[OMPDAG_FEAT_COUNT];
    double h[3];
    int shape;
} oracle_sample;

static double oracle_predict(const oracle_sample *s, int n, const oracle_sample *q, int j,
                             bool same_shape)
{
    double mean[OMPDAG_FEAT_COUNT], sd[OMPDAG_FEAT_COUNT];
    for (int f = 0; f < OMPDAG_FEAT_COUNT; ++f) {
        double sum = 0, cnt = 0, ss = 0;
        for (int i = 0; i < n; ++i)
            if (s[i].have[f]) sum += oracle_t(f, s[i].v[f]), cnt++;
        mean[f] = cnt ? sum / cnt : 0;
        for (int i = 0; i < n; ++i) {
            double dv = oracle_t(f, s[i].v[f]) - mean[f];
            if (s[i].have[f]) ss += dv * dv;
        }
        sd[f] = cnt > 1 ? sqrt(ss / (cnt - 1)) : 0;
    }
    double d[64];
    bool used[64] = {0};
    for (int i = 0; i < n; ++i) {
        d[i] = 0;
        for (int f = 0; f < OMPDAG_FEAT_COUNT; ++f)
            if (sd[f] > 1e-12 && s[i].have[f] && q->have[f]) {
                double a = (oracle_t(f, q->v[f]) - mean[f]) / sd[f];
                double b = (oracle_t(f, s[i].v[f]) - mean[f]) / sd[f];
                d[i] += (a - b) * (a - b);
            }
        d[i] = sqrt(d[i]);
        if (same_shape && s[i].shape != q->shape) used[i] = true;
    }
    int order[64], k = 0;
    for (; k < 10; ++k) {
        int best = -1;
        for (int i = 0; i < n; ++i)
            if (!used[i] && (best < 0 || d[i] < d[best])) best = i;
        if (best < 0) break;
        used[best] = true, order[k] = best;
    }
    if (k == 0) return -1;
    double wsum = 0, acc = 0, fact = 1;
    for (int i = 1; i <= k; ++i) {
        fact *= i;
        wsum += 1 / fact;
        acc += s[order[i - 1]].h[j] / fact;
    }
    return acc / wsum;
}

Test(property, predict_matches_the_oracle_on_random_models)
{
    for (int round = 0; round < 2000; ++round) {
        int n = 1 + (int)(rnd() * 25);
        oracle_sample s[32], q;
        json_t *samples = json_array();
        for (int i = 0; i <= n; ++i) {
            oracle_sample *x = i < n ? &s[i] : &q;
            json_t *feat = json_object();
            for (int f = 0; f < OMPDAG_FEAT_COUNT; ++f) {
                /* few distinct values, so ties and constant features occur */
                x->have[f] = rnd() < 0.8;
                x->v[f] =
                    f == OMPDAG_FEAT_OVERHEAD ? (int)(rnd() * 4) / 4.0 : pow(10, (int)(rnd() * 6));
                if (x->have[f])
                    json_object_set_new(feat, ompdag_advise_feature_name(f), json_real(x->v[f]));
            }
            x->shape = rnd() < 0.5;
            double lo = 1000 * (1 + (int)(rnd() * 50)), hi = lo * (1 + (int)(rnd() * 10));
            x->h[0] = lo, x->h[1] = hi, x->h[2] = (int)(rnd() * 12);
            if (i == n) {
                json_decref(feat);
                break;
            }
            char name[16];
            snprintf(name, sizeof name, "s%d", i);
            json_array_append_new(
                samples,
                json_pack("{s:s,s:s,s:s,s:f,s:o,s:{s:f,s:f,s:f},s:[{s:f,s:f,s:f,s:f}]}", "name",
                          name, "program", name, "shape", x->shape ? "loop" : "recursive",
                          "default", 1.0, "features", feat, "best", "grain_min_ns", x->h[0],
                          "grain_max_ns", x->h[1], "cutoff", x->h[2], "grid", "setting", 1.0,
                          "time_ns", 1.0, "grain_ns", 1.0, "tasks", 1.0));
        }
        json_t *root = json_pack("{s:s,s:i,s:i,s:f,s:f,s:o}", "format", "ompdag-advisor-model",
                                 "version", 1, "threads", 2, "task_overhead_ns", 0.0,
                                 "near_best_pct", 10.0, "samples", samples);
        ompdag_advise_model *m = NULL;
        ompdag_error err = {0};
        cr_assert_eq(advise_model_from_json(root, "random", &m, &err), OMPDAG_OK, "%s",
                     err.message);
        json_decref(root);
        ompdag_advise_features f = {0};
        for (int k = 0; k < OMPDAG_FEAT_COUNT; ++k)
            f.v[k] = q.v[k], f.have[k] = q.have[k];
        ompdag_advise_thresholds h;
        cr_assert_eq(ompdag_advise_predict(m, &f,
                                           q.shape ? OMPDAG_SHAPE_LOOP : OMPDAG_SHAPE_RECURSIVE,
                                           (size_t)-1, NULL, &h, &err),
                     OMPDAG_OK, "%s", err.message);
        double want[3] = {oracle_predict(s, n, &q, 0, false), oracle_predict(s, n, &q, 1, false),
                          oracle_predict(s, n, &q, 2, true)};
        cr_assert_float_eq(h.grain_min_ns, want[0], 1e-6 * want[0], "round %d", round);
        cr_assert_float_eq(h.grain_max_ns, want[1], 1e-6 * want[1], "round %d", round);
        cr_assert_float_eq(h.cutoff, want[2], 1e-9 + 1e-9 * fabs(want[2]), "round %d", round);
        ompdag_advise_model_destroy(m);
    }
}
