/*
 * tests/probe/test_annotate_compact.c — annotate on a compact graph
 * (data/rec.json, progs/rec.c extracted with --recursion-bound 4;
 * docs/compact.md, docs/probe.md "Shared bodies"): WCETs by code location
 * (every depth's copy of a node gets the same WCET, so the base case seen at
 * the deepest level covers the others and nothing is unobserved), the
 * annotated graph analyses, and a run that recursed deeper than the graph is
 * refused with the depth it reached.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "ompdag/compact.h"
#include "ompdag/rta.h"
#include "probe/probe_util.h"

static char dir[64];

static void trace_of(const char *depth, char *path, size_t size)
{
    if (!dir[0]) cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(path, size, "%s/rec%s.trace", dir, depth);
    const char *args[] = {depth, "3", NULL};
    int s = probe_run("rec", args, 2, path, NULL, NULL);
    cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 0);
}

static ompdag_condag_set *rec_graph(void)
{
    ompdag_condag_set *set;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file(OMPDAG_PROBE_DATA "/rec.json", &set, &err), OMPDAG_OK,
                 "%s", err.message);
    cr_assert(ompdag_compact_is_compact(ompdag_condag_set_graph(set, 0)));
    return set;
}

Test(annotate_compact, wcets_are_shared_by_code_location)
{
    char t[128];
    trace_of("3", t, sizeof t);
    ompdag_condag_set *set = rec_graph();
    ompdag_annotation *a;
    ompdag_error err;
    cr_assert_eq(ompdag_annotation_create(set, NULL, &a, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_annotation_add_trace(a, t, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_OK, "%s", err.message);
    const ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    int32_t n = ompdag_condag_node_count(g), pairs = 0;
    for (int32_t v = 0; v < n; ++v) {
        ompdag_loc a1 = ompdag_condag_node_loc(g, v);
        cr_assert_null(json_object_get(ompdag_condag_extra(g, v), "unobserved"),
                       "node %s (line %d) unobserved", ompdag_condag_node_id(g, v), a1.line);
        for (int32_t u = v + 1; u < n; ++u) {
            ompdag_loc b1 = ompdag_condag_node_loc(g, u);
            if (a1.line != b1.line || a1.col != b1.col ||
                ompdag_condag_node_kind(g, u) != ompdag_condag_node_kind(g, v) || !a1.line)
                continue;
            const char *la = ompdag_condag_node_label(g, v), *lb = ompdag_condag_node_label(g, u);
            if ((la == NULL) != (lb == NULL) || (la && strcmp(la, lb))) continue;
            ++pairs;
            cr_assert_eq(ompdag_condag_node_wcet(g, u), ompdag_condag_node_wcet(g, v), "line %d",
                         a1.line);
        }
    }
    cr_assert_gt(pairs, 10, "the depths repeat the same code");
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 2);
    ompdag_rta_result *r;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_gt(ompdag_rta_result_bound_times_m(r), 0);
    ompdag_rta_result_destroy(r);
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
}

Test(annotate_compact, deeper_recursion_than_the_graph_is_refused)
{
    char t[128];
    trace_of("6", t, sizeof t);
    ompdag_condag_set *set = rec_graph();
    ompdag_annotation *a;
    ompdag_error err;
    cr_assert_eq(ompdag_annotation_create(set, NULL, &a, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_annotation_add_trace(a, t, &err), OMPDAG_ERR_INVALID);
    cr_assert(strstr(err.message, "task levels deep") && strstr(err.message, "recursion"), "%s",
              err.message);
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
}

/* Bug: with a bound per function (data/rec2.json: outer 4, inner 3), a run
 * whose inner recursion went deeper than its bound while the whole nesting
 * stayed within the graph's deepest chain (outer 0 or 1 levels, inner 4) was
 * reported as "the graph does not match the program" at apply, not refused
 * as recursion beyond the bound.  The depth is now counted per task
 * directive: tasks created at rec2.c:22 nest 4 deep in the run, 3 in the
 * graph. */
Test(annotate_compact, deeper_inner_recursion_than_its_bound_is_refused)
{
    const char *runs[][2] = {{"0", "4"}, {"1", "4"}, {"5", "0"}};
    const char *lines[] = {"rec2.c:22", "rec2.c:22", "rec2.c:35"};
    if (!dir[0]) cr_assert(probe_tmpdir(dir, sizeof dir));
    for (int i = 0; i < 3; ++i) {
        char t[128];
        snprintf(t, sizeof t, "%s/rec2-%d.trace", dir, i);
        const char *args[] = {runs[i][0], runs[i][1], NULL};
        int s = probe_run("rec2", args, 2, t, NULL, NULL);
        cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 0);
        ompdag_condag_set *set;
        ompdag_annotation *a;
        ompdag_error err;
        cr_assert_eq(ompdag_condag_set_load_file(OMPDAG_PROBE_DATA "/rec2.json", &set, &err),
                     OMPDAG_OK, "%s", err.message);
        cr_assert_eq(ompdag_annotation_create(set, NULL, &a, &err), OMPDAG_OK, "%s", err.message);
        cr_assert_eq(ompdag_annotation_add_trace(a, t, &err), OMPDAG_ERR_INVALID, "run %d", i);
        cr_assert(strstr(err.message, "recursion bound") && strstr(err.message, lines[i]) &&
                      strstr(err.message, "deep"),
                  "run %d: %s", i, err.message);
        ompdag_annotation_destroy(a);
        ompdag_condag_set_destroy(set);
    }
    /* within both bounds: accepted */
    char t[128];
    snprintf(t, sizeof t, "%s/rec2-ok.trace", dir);
    const char *args[] = {"3", "2", NULL};
    int s = probe_run("rec2", args, 2, t, NULL, NULL);
    cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 0);
    ompdag_condag_set *set;
    ompdag_annotation *a;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file(OMPDAG_PROBE_DATA "/rec2.json", &set, &err), OMPDAG_OK,
                 "%s", err.message);
    cr_assert_eq(ompdag_annotation_create(set, NULL, &a, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_annotation_add_trace(a, t, &err), OMPDAG_OK, "%s", err.message);
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
}
