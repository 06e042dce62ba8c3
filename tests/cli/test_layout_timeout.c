/*
 * tests/cli/test_layout_timeout.c — a report must never hang on a drawing
 * (issue 26 item 7): graphviz's layout of 120 tasks created in sequence and
 * one taskwait (241 nodes) took 130 s, and `report --format html` and
 * `dot --svg` waited for it.  Under --layout-timeout the HTML page is written
 * with a note in place of the drawing; `dot --svg` exits 1 naming the limit.
 */
#include <stdint.h>
#include <time.h>

#include "cli_harness.h"

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* 120 T nodes in sequence in the root, each creating a one-node task, then a
 * taskwait: a graph graphviz lays out in minutes. */
static void write_sequence(void)
{
    FILE *f = fopen(test_tmp("seq.json"), "w");
    cr_assert_not_null(f);
    fputs("{\"format\": \"ompdag-condag\", \"version\": 1, \"name\": \"seq\", \"threads\": 2, "
          "\"time_unit\": \"ns\", \"nodes\": [",
          f);
    for (int i = 0; i < 120; ++i)
        fprintf(f,
                "{\"id\": \"t%d\", \"task\": \"root\", \"kind\": \"T\", \"wcet\": 1, \"creates\": "
                "\"c%d\"}, {\"id\": \"x%d\", \"task\": \"c%d\", \"kind\": \"N\", \"wcet\": 5}, ",
                i, i, i, i);
    fputs("{\"id\": \"w\", \"task\": \"root\", \"kind\": \"W\", \"wcet\": 1}], \"edges\": [", f);
    for (int i = 0; i < 119; ++i)
        fprintf(f, "[\"t%d\", \"t%d\"], ", i, i + 1);
    fputs("[\"t119\", \"w\"]", f);
    fputs("]}\n", f);
    fclose(f);
}

Test(layout, a_report_never_waits_for_graphviz_past_its_limit, .timeout = 60)
{
    write_sequence();
    int64_t t0 = now_ns();
    cli_result r = cli_run("report @/seq.json --format html --layout-timeout 300ms -o @/seq.html");
    int64_t took = now_ns() - t0;
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "drawing was skipped") != NULL, "%s", r.err);
    cr_expect_lt(took, INT64_C(15000000000), "report took %lld ns", (long long)took);
    cli_result_free(r);
    char *page = test_slurp(test_tmp("seq.html"));
    cr_expect(strstr(page, "drawing skipped: graphviz") && strstr(page, "</html>"), "%.400s", page);
    free(page);
    r = cli_run("dot @/seq.json --svg --layout-timeout 300ms -o @/seq.svg");
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "took longer than 300 ms") != NULL, "%s", r.err);
    cli_result_free(r);
    r = cli_run("dot @/seq.json --svg --layout-timeout 5xs");
    cr_expect_eq(r.status, 2, "%s", r.err);
    cli_result_free(r);
}
