/* tests/analysis/test_assert.c — assertions stay on in the builds the tests
 * run (OMPDAG_ASSERTIONS drops the build type's NDEBUG), and the con-DAG
 * accessors state their preconditions.  Each abort test fails when the
 * library was compiled with NDEBUG: the call then returns instead of
 * raising SIGABRT. */
#include <criterion/criterion.h>
#include <signal.h>

#include "support.h"

/* Configured with OMPDAG_ASSERTIONS=OFF on purpose: nothing to check. */
#ifdef OMPDAG_TEST_NO_ASSERTIONS
#define SKIP_WITHOUT_ASSERTIONS() cr_skip_test("built with OMPDAG_ASSERTIONS=OFF")
#define ABORTS .disabled = true
#else
#define SKIP_WITHOUT_ASSERTIONS() ((void)0)
#define ABORTS .signal = SIGABRT
#endif

#define HDR "{'format':'ompdag-condag','version':1,"
#define ONE_NODE HDR "'nodes':[{'id':'a','task':'t','kind':'N','wcet':1}],'edges':[]}"

Test(assertions, tests_compiled_without_ndebug)
{
    SKIP_WITHOUT_ASSERTIONS();
#ifdef NDEBUG
    cr_assert(false, "NDEBUG is defined: the build dropped assert() (OMPDAG_ASSERTIONS=OFF?)");
#endif
}

Test(assertions, node_index_past_the_end_aborts, ABORTS)
{
    ompdag_error err = {0};
    ompdag_condag *g = load_graph(ONE_NODE, &err);
    cr_assert_not_null(g, "%s", err.message);
    (void)ompdag_condag_node_kind(g, ompdag_condag_node_count(g)); /* reads past the end */
    ompdag_condag_destroy(g);
}

Test(assertions, negative_task_index_aborts, ABORTS)
{
    ompdag_error err = {0};
    ompdag_condag *g = load_graph(ONE_NODE, &err);
    cr_assert_not_null(g, "%s", err.message);
    (void)ompdag_condag_task_source(g, -1);
    ompdag_condag_destroy(g);
}

Test(assertions, derived_arrays_before_finalize_abort, ABORTS)
{
    ompdag_condag *g = ompdag_condag_create();
    cr_assert_not_null(g);
    int32_t count;
    (void)ompdag_condag_node_fsucc(g, 0, &count); /* finalize has not derived it */
    ompdag_condag_destroy(g);
}

/* The same accessors within their preconditions do not abort. */
Test(assertions, valid_calls_pass)
{
    ompdag_error err = {0};
    ompdag_condag *g = load_graph(ONE_NODE, &err);
    cr_assert_not_null(g, "%s", err.message);
    cr_expect_eq(ompdag_condag_node_kind(g, 0), OMPDAG_KIND_N);
    cr_expect_eq(ompdag_condag_task_source(g, 0), 0);
    int32_t count = -1;
    (void)ompdag_condag_node_fsucc(g, 0, &count);
    cr_expect_eq(count, 0);
    ompdag_condag_destroy(g);
}
