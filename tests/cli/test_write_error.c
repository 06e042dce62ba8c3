/*
 * tests/cli/test_write_error.c — a failing `-o` write names the output path
 * and the cause (issue 26 item 18): the report writers could only say
 * "write error", and cmd_report.c / cmd_advise.c passed that on.  The output
 * goes to the test's own directory under a file-size limit (SIGXFSZ
 * ignored), so a larger write fails with EFBIG; stdout and stderr stay below
 * the limit.  The HTML page's limit (40 KiB, the page is 48 KiB) lets
 * graphviz write its 32 KiB drawing.  Nothing is written outside the temp dir.
 */
#include "cli_harness.h"

#define GRAPH "examples/condag/figure5.json"

/* `ompdag ARGS` with files limited to `blocks` of 512 bytes. */
static void assert_named_failure(int blocks, const char *args)
{
    char limit[64];
    snprintf(limit, sizeof limit, "trap '' XFSZ; ulimit -f %d && ", blocks);
    cli_result r = cli_run_with(limit, args);
    char out[1024];
    cli_expand_tmp(out, sizeof out, "@/out");
    cr_assert_eq(r.status, 1, "%s: status %d\n%s", args, r.status, r.err);
    cr_assert(strstr(r.err, out), "%s: no path in: %s", args, r.err);
    cr_assert(strstr(r.err, "File too large"), "%s: no errno in: %s", args, r.err);
    cr_assert(access(test_tmp("out"), F_OK) != 0, "%s: a partial output was left", args);
    cli_result_free(r);
}

Test(write_error, report_that_cannot_be_written_names_the_path_and_errno)
{
    assert_named_failure(1, "report " GRAPH " --threads 2 -o @/out");
    assert_named_failure(1, "report " GRAPH " --threads 2 --format json -o @/out");
    assert_named_failure(1, "report " GRAPH " --threads 2 --format sarif -o @/out");
    assert_named_failure(80, "report " GRAPH " --threads 2 --format html -o @/out");
}

Test(write_error, advise_that_cannot_be_written_names_the_path_and_errno)
{
    assert_named_failure(1, "advise --validate --format json -o @/out");
}
