/*
 * tests/cli/test_sim_stream.c — `ompdag simulate --format json` streams its
 * document (issue 26 item 10): the text is that of the old whole-document
 * json_dumpf (golden files written by it, the measured events_per_second
 * masked), and a sweep of 2^16 flows runs under an address-space limit that
 * the whole document in memory (about 490 MB) does not fit.
 */
#include "cli_harness.h"

/* s with every "events_per_second": value replaced by X, as in the goldens. */
static void mask_rates(char *s)
{
    static const char key[] = "\"events_per_second\": ";
    char *w = s;
    for (const char *r = s; *r;) {
        if (!strncmp(r, key, sizeof key - 1)) {
            const char *start = r;
            r += sizeof key - 1;
            while (*r && strchr("-+.0123456789eE", *r))
                ++r;
            memmove(w, start, sizeof key - 1); /* w <= start < r: in place */
            w += sizeof key - 1;
            *w++ = 'X';
        } else {
            *w++ = *r++;
        }
    }
    *w = 0;
}

static void check_golden(const char *graph)
{
    char args[512], golden[512];
    snprintf(args, sizeof args, "simulate examples/condag/%s.json --threads 1,2 --format json",
             graph);
    cli_result r = cli_run(args);
    cr_assert_eq(r.status, 0, "%s: %s", graph, r.err);
    snprintf(golden, sizeof golden, "%s/tests/cli/golden/simulate_%s.json",
             getenv("OMPDAG_SOURCE_DIR"), graph);
    char *want = test_slurp(golden);
    mask_rates(r.out);
    cr_assert_str_eq(r.out, want, "%s: the streamed document differs from the old one", graph);
    free(want);
    cli_result_free(r);
}

Test(sim_stream, json_is_the_old_document)
{
    check_golden("depend");
    check_golden("figure5");
    check_golden("fib");
}

/* 16 binary branches in sequence: 65,536 flows, each a "per_flow" entry
 * (plus the worst flow, run first). */
static void write_branch_sequence(const char *path, int k)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("{\"format\": \"ompdag-condag\", \"version\": 1, \"threads\": 2, \"nodes\": [", f);
    for (int i = 0; i < k; ++i)
        fprintf(f,
                "%s{\"id\": \"c%d\", \"task\": \"main\", \"kind\": \"C\", \"wcet\": 1},"
                "{\"id\": \"a%d\", \"task\": \"main\", \"kind\": \"N\", \"wcet\": %d},"
                "{\"id\": \"b%d\", \"task\": \"main\", \"kind\": \"N\", \"wcet\": %d},"
                "{\"id\": \"j%d\", \"task\": \"main\", \"kind\": \"J\", \"wcet\": 0}",
                i ? "," : "", i, i, 2 + i % 3, i, 1 + i % 5, i);
    fputs("], \"edges\": [", f);
    for (int i = 0; i < k; ++i) {
        if (i) fprintf(f, "[\"j%d\", \"c%d\"],", i - 1, i);
        fprintf(f,
                "[\"c%d\", \"a%d\"], [\"c%d\", \"b%d\"], [\"a%d\", \"j%d\"], [\"b%d\", \"j%d\"]%s",
                i, i, i, i, i, i, i, i, i + 1 < k ? "," : "");
    }
    fputs("]}\n", f);
    fclose(f);
}

/* AddressSanitizer reserves terabytes of address space for its shadow, so a
 * sanitizer build cannot run under `ulimit -v`: there the output is checked
 * without the limit (the limit is checked by the plain build). */
#if defined(__SANITIZE_ADDRESS__)
#define SIM_STREAM_LIMIT ""
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIM_STREAM_LIMIT ""
#endif
#endif
#ifndef SIM_STREAM_LIMIT
#define SIM_STREAM_LIMIT "ulimit -v 131072 && "
#endif

Test(sim_stream, large_json_in_bounded_memory, .timeout = 120.)
{
    write_branch_sequence(test_tmp("seq.json"), 16);
    /* 128 MiB of address space: the old whole document needed ~490 MB */
    cli_result r = cli_run_with(SIM_STREAM_LIMIT, "simulate @/seq.json --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    size_t len = strlen(r.out);
    cr_assert_gt(len, 60000000u, "the whole document came out");
    cr_assert_str_eq(r.out + len - 3, "}\n]\n" + 1);
    cr_assert_not_null(strstr(r.out, "\"flows\": 65537,"));
    cli_result_free(r);
}

/* Issue 26 item 8, end to end: each flow's own bound was evaluated over the
 * whole graph, so `simulate` of a 100,000-way branch took 38 s even with the
 * simulator linear (265 s before).  With the flow evaluator it takes well
 * under a second; the timeout fails a quadratic regression. */
Test(sim_stream, a_100000_way_branch_is_simulated_in_seconds, .timeout = 20)
{
    enum { K = 100000 };
    FILE *f = fopen(test_tmp("wide.json"), "w");
    cr_assert_not_null(f);
    fputs("{\"format\": \"ompdag-condag\", \"version\": 1, \"name\": \"wide\", \"threads\": 2, "
          "\"time_unit\": \"ns\", \"nodes\": [{\"id\": \"c\", \"task\": \"r\", \"kind\": \"C\", "
          "\"wcet\": 1}, {\"id\": \"j\", \"task\": \"r\", \"kind\": \"J\", \"wcet\": 1}",
          f);
    for (int i = 0; i < K; ++i)
        fprintf(f, ", {\"id\": \"b%d\", \"task\": \"r\", \"kind\": \"N\", \"wcet\": %d}", i,
                1 + i % 7);
    fputs("], \"edges\": [", f);
    for (int i = 0; i < K; ++i)
        fprintf(f, "%s[\"c\", \"b%d\"], [\"b%d\", \"j\"]", i ? ", " : "", i, i);
    fputs("]}\n", f);
    fclose(f);
    cli_result r = cli_run("simulate @/wide.json --threads 2");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "100001 flow runs") && strstr(r.out, "all within the bound"), "%.400s",
              r.out);
    cli_result_free(r);
}
