/*
 * tests/cli/test_write_error.c — a failing `-o` write names the output path
 * and the cause (issue 26 item 18): the report writers could only say
 * "write error", and cmd_report.c / cmd_advise.c passed that on.  /dev/full
 * accepts the open and refuses every write with ENOSPC.
 */
#include "cli_harness.h"

#define GRAPH "examples/condag/figure5.json"

static void assert_named_failure(const char *args)
{
    cli_result r = cli_run(args);
    cr_assert_eq(r.status, 1, "%s: status %d\n%s", args, r.status, r.err);
    cr_assert(strstr(r.err, "/dev/full"), "%s: no path in: %s", args, r.err);
    cr_assert(strstr(r.err, "No space left"), "%s: no errno in: %s", args, r.err);
    cli_result_free(r);
}

Test(write_error, report_to_dev_full_names_the_path_and_errno)
{
    assert_named_failure("report " GRAPH " --threads 2 -o /dev/full");
    assert_named_failure("report " GRAPH " --threads 2 --format json -o /dev/full");
    assert_named_failure("report " GRAPH " --threads 2 --format sarif -o /dev/full");
    assert_named_failure("report " GRAPH " --threads 2 --format html -o /dev/full");
}

Test(write_error, advise_to_dev_full_names_the_path_and_errno)
{
    assert_named_failure("advise --validate --format json -o /dev/full");
}
