/* tests/analysis/test_scale.c — a million nested tasks and a million-node
 * task, analysed on a thread with a 256 KiB stack: any recursion whose depth
 * follows the graph would overflow it. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>

#include "ompdag/dot.h"
#include "support.h"
#include "test_tmpdir.h"

#define MILLION 1000000

/* τ0 creates τ1, which creates τ2, …: each task is [T(1)] except the last,
 * which is [N(1)].  Every flow is the whole graph: vol = len = n. */
static ompdag_condag *nested_chain(int32_t n)
{
    ompdag_condag *g = ompdag_condag_create();
    for (int32_t i = 0; i < n; ++i) {
        char id[24], task[24], child[24];
        snprintf(id, sizeof id, "n%d", i);
        snprintf(task, sizeof task, "t%d", i);
        snprintf(child, sizeof child, "t%d", i + 1);
        ompdag_node_spec s = {.id = id,
                              .task = task,
                              .wcet = 1,
                              .kind = i + 1 < n ? OMPDAG_KIND_T : OMPDAG_KIND_N,
                              .creates = i + 1 < n ? child : NULL};
        if (ompdag_condag_add_node(g, &s, NULL, NULL)) return NULL;
    }
    return g;
}

/* One task of n plain nodes in a chain: vol = len = 2n. */
static ompdag_condag *long_task(int32_t n)
{
    ompdag_condag *g = ompdag_condag_create();
    int32_t prev = -1;
    for (int32_t i = 0; i < n; ++i) {
        char id[24];
        snprintf(id, sizeof id, "n%d", i);
        ompdag_node_spec s = {.id = id, .task = "t", .kind = OMPDAG_KIND_N, .wcet = 2};
        int32_t v;
        if (ompdag_condag_add_node(g, &s, &v, NULL) ||
            (prev >= 0 && ompdag_condag_add_edge(g, prev, v, NULL)))
            return NULL;
        prev = v;
    }
    return g;
}

typedef struct job {
    ompdag_condag *g;
    int64_t exact, alg0;
    ompdag_status st;
    char msg[512];
} job;

static void *analyse(void *arg)
{
    job *j = arg;
    ompdag_error err = {0};
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 4);
    ompdag_rta_result *r;
    j->st = ompdag_condag_finalize(j->g, &err);
    if (!j->st && !(j->st = ompdag_rta_run(j->g, OMPDAG_ALG_EXACT, &opt, &r, &err))) {
        j->exact = ompdag_rta_result_bound_times_m(r);
        ompdag_rta_result_destroy(r);
        if (!(j->st = ompdag_rta_run(j->g, OMPDAG_ALG_ALG0, &opt, &r, &err))) {
            j->alg0 = ompdag_rta_result_bound_times_m(r);
            ompdag_rta_result_destroy(r);
        }
    }
    snprintf(j->msg, sizeof j->msg, "%s", err.message);
    return NULL;
}

static void run_small_stack(job *j)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    pthread_t th;
    cr_assert_eq(pthread_create(&th, &attr, analyse, j), 0);
    pthread_join(th, NULL);
    pthread_attr_destroy(&attr);
    cr_assert_eq(j->st, OMPDAG_OK, "%s", j->msg);
}

Test(scale, million_nested_tasks, .timeout = 120)
{
    job j = {.g = nested_chain(MILLION)};
    cr_assert_not_null(j.g);
    run_small_stack(&j);
    cr_expect_eq(j.exact, 4LL * MILLION); /* vol = len = n, m = 4 */
    cr_expect_eq(j.alg0, 4LL * MILLION);
    cr_expect_eq(ompdag_condag_task_count(j.g), MILLION);
    ompdag_condag_destroy(j.g);
}

Test(scale, million_node_task, .timeout = 120)
{
    job j = {.g = long_task(MILLION)};
    cr_assert_not_null(j.g);
    run_small_stack(&j);
    cr_expect_eq(j.exact, 4LL * 2 * MILLION);
    ompdag_condag_destroy(j.g);
}

/* Issue 17, item 5: dot scanned every node for every task (10^5 tasks took
 * 7 s, 10^6 nested tasks over a minute); the clusters are now grouped in one
 * pass.  A million nested tasks are drawn well inside the timeout, and the
 * flow count simulate checks first is linear too. */
Test(scale, million_nested_tasks_drawn_and_counted, .timeout = 60)
{
    ompdag_condag *g = nested_chain(MILLION);
    cr_assert_not_null(g);
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_finalize(g, &err), OMPDAG_OK, "%s", err.message);
    double approx;
    cr_expect_eq(ompdag_condag_flow_count(g, &approx), 1);
    FILE *out = fopen(test_tmp("million.dot"), "w");
    cr_assert_not_null(out);
    cr_assert_eq(ompdag_dot_write(out, g, NULL, &err), OMPDAG_OK, "%s", err.message);
    long size = ftell(out);
    cr_assert_eq(fclose(out), 0);
    cr_expect_gt(size, 50L * MILLION, "%ld bytes", size); /* every task's cluster is there */
    ompdag_condag_destroy(g);
}
