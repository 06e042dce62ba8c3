/*
 * tests/probe/test_annotate_loop.c — annotate on a graph whose task loop was
 * kept compact (data/cloop.json: progs/cloop.c extracted, its loop under
 * `#pragma ompdag loop_bound(5000)`; docs/compact.md "Compact loops", issue
 * 29): every iteration's segments map to the loop body's nodes (one node
 * stands for every iteration: WCETs by code location, the segment from one
 * iteration's `task` to the next crossing the back edge), the report shows
 * the loop's iterations and the worst flow; a run of more iterations than the
 * bound is refused, naming the loop.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "ompdag/compact.h"
#include "ompdag/rta.h"
#include "probe/probe_util.h"

static char dir[64];

static void trace_of(const char *iterations, char *path, size_t size)
{
    if (!dir[0]) cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(path, size, "%s/cloop%s.trace", dir, iterations);
    const char *args[] = {iterations, "2", NULL};
    int s = probe_run("cloop", args, 2, path, NULL, NULL);
    cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 0);
}

static ompdag_condag_set *loop_graph(void)
{
    ompdag_condag_set *set;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file(OMPDAG_PROBE_DATA "/cloop.json", &set, &err),
                 OMPDAG_OK, "%s", err.message);
    cr_assert(ompdag_compact_has_loops(ompdag_condag_set_graph(set, 0)));
    return set;
}

static int32_t node_at_line(const ompdag_condag *g, char kind, int line)
{
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if ((char)ompdag_condag_node_kind(g, v) == kind &&
            ompdag_condag_node_loc(g, v).line == line)
            return v;
    cr_assert_fail("no %c node at line %d", kind, line);
    return -1;
}

Test(annotate_loop, every_iteration_maps_to_the_loop_body)
{
    char t[128];
    trace_of("5000", t, sizeof t);
    ompdag_condag_set *set = loop_graph();
    ompdag_annotation *a;
    ompdag_error err;
    cr_assert_eq(ompdag_annotation_create(set, NULL, &a, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_annotation_add_trace(a, t, &err), OMPDAG_OK, "%s", err.message);
    uint64_t segments = 0, mapped = 0, unmapped = 0;
    ompdag_annotation_counts(a, &segments, &mapped, &unmapped);
    /* 2 rounds: per round 5000 tasks of one segment, and the single body's
     * 5000 + 5 + 1 + 1 segments (creations, taskwaits in and after the loop) */
    cr_assert_geq(segments, 2 * (5000 + 5000 + 5), "%llu segments", (unsigned long long)segments);
    cr_assert_eq(unmapped, 0, "%llu of %llu segments unmapped", (unsigned long long)unmapped,
                 (unsigned long long)segments);
    cr_assert_geq(mapped, 2 * (5000 + 5000 + 5)); /* the rest: outside any graph */
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_OK, "%s", err.message);
    const ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        cr_assert_null(json_object_get(ompdag_condag_extra(g, v), "unobserved"),
                       "node %s (line %d) unobserved", ompdag_condag_node_id(g, v),
                       ompdag_condag_node_loc(g, v).line);
    int32_t task = node_at_line(g, 'T', 26), wait = node_at_line(g, 'W', 29);
    cr_assert_gt(ompdag_condag_node_wcet(g, task), 0);
    cr_assert_gt(ompdag_condag_node_wcet(g, wait), 0);
    /* the worst flow: all 5000 iterations, vol and len measured */
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 2);
    ompdag_rta_result *r;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    cr_assert(ompdag_rta_result_has_witness(r));
    cr_assert_gt(ompdag_rta_result_vol(r), 5000 * ompdag_condag_node_wcet(g, task));
    int64_t lo = 0, hi = 0;
    cr_assert(ompdag_rta_result_loop_iterations(r, node_at_line(g, 'C', 25), &lo, &hi));
    cr_assert(lo == 5000 && hi == 5000, "%lld..%lld iterations", (long long)lo, (long long)hi);
    ompdag_rta_result_destroy(r);
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
}

/* The command line end to end: annotate, then report (text and JSON) shows
 * the loop's iterations, vol, len and the critical path; check reads it. */
Test(annotate_loop, annotate_report_and_check_from_the_command_line)
{
#ifndef OMPDAG_CLI_PATH
    cr_skip("the ompdag command is not built");
#else
    char t[128], cmd[1024], out[192];
    trace_of("5000", t, sizeof t);
    snprintf(out, sizeof out, "%s/annotated.json", dir);
    snprintf(cmd, sizeof cmd, "'%s' annotate %s/cloop.json '%s' -o '%s' 2>'%s/annotate.err'",
             OMPDAG_CLI_PATH, OMPDAG_PROBE_DATA, t, out, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "'%s' report '%s' --threads 2 >'%s/report.txt' 2>&1", OMPDAG_CLI_PATH,
             out, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char path[192], text[8192] = "";
    snprintf(path, sizeof path, "%s/report.txt", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    text[fread(text, 1, sizeof text - 1, f)] = 0;
    fclose(f);
    cr_assert(strstr(text, "runs 5000 iterations (at most 5000)"), "%s", text);
    cr_assert(strstr(text, "x5000"), "%s", text);
    cr_assert_null(strstr(text, "vol -1"), "%s", text);
    cr_assert_null(strstr(text, "critical path (0 nodes)"), "%s", text);
    snprintf(cmd, sizeof cmd, "'%s' report '%s' --threads 2 --format json >'%s/report.json'",
             OMPDAG_CLI_PATH, out, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(path, sizeof path, "%s/report.json", dir);
    json_error_t je;
    json_t *o = json_load_file(path, 0, &je);
    cr_assert_not_null(o, "%s", je.text);
    char *dump = json_dumps(o, JSON_COMPACT);
    cr_assert(strstr(dump, "\"iterations\":{\"min\":5000,\"max\":5000,\"at_most\":5000}"),
              "%.2000s", dump);
    free(dump);
    json_decref(o);
    /* check reads it too: a verdict (pass, or unmeasured when every run was
     * interfered on a loaded machine), never a crash or a refusal */
    snprintf(cmd, sizeof cmd, "'%s' check '%s' --threads 2 >'%s/check.txt' 2>&1", OMPDAG_CLI_PATH,
             out, dir);
    int s = system(cmd);
    cr_assert(WIFEXITED(s) && WEXITSTATUS(s) <= 1, "%s", cmd);
    snprintf(path, sizeof path, "%s/check.txt", dir);
    f = fopen(path, "r");
    cr_assert_not_null(f);
    text[fread(text, 1, sizeof text - 1, f)] = 0;
    fclose(f);
    cr_assert(strstr(text, "check(s)"), "%s", text);
#endif
}

Test(annotate_loop, more_iterations_than_the_bound_are_refused)
{
    char t[128];
    trace_of("5001", t, sizeof t);
    ompdag_condag_set *set = loop_graph();
    ompdag_annotation *a;
    ompdag_error err;
    cr_assert_eq(ompdag_annotation_create(set, NULL, &a, &err), OMPDAG_OK, "%s", err.message);
    ompdag_status st = ompdag_annotation_add_trace(a, t, &err);
    if (!st) st = ompdag_annotation_apply(a, &err);
    cr_assert_neq(st, OMPDAG_OK);
    cr_assert(strstr(err.message, "ran 5001 times") && strstr(err.message, "allows 5000") &&
                  strstr(err.message, "cloop.c:25") && strstr(err.message, "loop_bound"),
              "%s", err.message);
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
}
