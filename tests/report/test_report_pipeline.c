/* tests/report/test_report_pipeline.c — the real pipeline (extract ->
 * clang -> run -> annotate -> report/check) on examples/fig3_nested.c and
 * examples/fib.c, and `ompdag simulate` against the bound. */
#include "report_util.h"

/* ---- the real pipeline ------------------------------------------------------- */

Test(pipeline, extract_build_run_annotate_report_check, .timeout = 90)
{
    const char *d = tmpdir();
    run_result w = sh("command -v clang-14");
    cr_assert_eq(w.status, 0, "clang-14 is needed");
    done(w);
    run_result r = sh("cd examples && ompdag extract fig3_nested.c -o %s/g.json && "
                      "clang-14 -fopenmp -g fig3_nested.c -o %s/prog && "
                      "ompdag run --rt --threads 2 --trace %s/t.trace -- %s/prog && "
                      "ompdag annotate %s/g.json %s/t.trace --unobserved zero -o %s/a.json",
                      d, d, d, d, d, d, d);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    done(r);
    /* `run --threads 2` caps fig3's num_threads(4) team at 2 (OMP_THREAD_LIMIT), and a
     * run is compared only with the bound for its own team size (issue 22 item 5) */
    r = sh("ompdag report %s/a.json --threads 2 --format json", d);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *root = json_loads(r.out, 0, NULL);
    json_t *row = json_array_get(json_object_get(root, "regions"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(row, "function")), "region");
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(row, "loc"), "line")), 14);
    cr_expect(json_real_value(json_object_get(row, "bound_ns")) > 0);
    /* observed: clean runs in observed_max_ns, interfered ones apart */
    cr_expect(json_integer_value(json_object_get(row, "observed_runs")) >= 1, "probe observations");
    cr_expect(json_number_value(json_object_get(row, "observed_max_ns")) > 0 ||
                  json_integer_value(json_object_get(row, "runs_interfered")) >= 1,
              "probe observations");
    json_t *n0 = json_array_get(json_object_get(row, "node_wcets"), 0);
    cr_expect(json_integer_value(json_object_get(n0, "samples")) >= 1);
    /* the deadline applies to the whole region's bound when fork/join were
     * measured (they were: the trace has them) */
    cr_expect(json_is_number(json_object_get(row, "region_bound_ns")), "fork/join measured");
    double bound = json_number_value(json_object_get(row, "region_bound_ns"));
    json_decref(root);
    done(r);
    /* fig3's taskwait at line 33 is never reached, so it needed --unobserved zero: an
     * escape hatch, so the graph is unsafe and fails check whatever the deadline (issue 22
     * item 3; before, a deadline twice the bound passed) */
    r = sh("ompdag check %s/a.json --threads 2 --deadline fig3_nested.c:14=%.0fns", d,
           bound * 2 + 1);
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "[ompdag-unsafe]") && strstr(r.out, "--unobserved zero"), "%s", r.out);
    done(r);
    /* `#pragma ompdag deadline(5ms)` reaches check through the front end; the freshly
     * extracted graph (WCETs 0) is unmeasured, never "pass: bound 0 ns" (issue 22 item 1) */
    r = sh("cd examples && ompdag extract fib.c -o %s/fib.json && ompdag check %s/fib.json "
           "--threads 4",
           d, d);
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "fib.c:39:1: error: main: unmeasured: not annotated") &&
                  strstr(r.out, "ompdag annotate") && strstr(r.out, "[ompdag-unmeasured]"),
              "%s", r.out);
    cr_expect_null(strstr(r.out, "pass"), "%s", r.out);
    done(r);
    /* fib annotates without an escape hatch: deadlines on both sides of its measured bound */
    r = sh("cd examples && clang-14 -fopenmp -g fib.c -o %s/fib && "
           "ompdag run --rt --threads 2 --trace %s/fib.trace -- %s/fib >/dev/null && "
           "ompdag annotate %s/fib.json %s/fib.trace -o %s/fib.a.json && "
           "ompdag report %s/fib.a.json --threads 2 --format json",
           d, d, d, d, d, d, d);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    root = json_loads(r.out, 0, NULL);
    row = json_array_get(json_object_get(root, "regions"), 0);
    cr_expect(json_is_null(json_object_get(row, "unsafe")), "%s", r.out);
    cr_expect(json_is_null(json_object_get(row, "unmeasured")), "%s", r.out);
    cr_expect_str_eq(json_string_value(json_object_get(row, "wcets")),
                     "measured by ompdag annotate");
    cr_expect(json_array_size(json_object_get(row, "observations")) >= 1, "%s", r.out);
    double judged = json_number_value(json_object_get(row, "verdict_bound_ns"));
    cr_expect(judged > 0, "%s", r.out);
    const char *verdict = json_string_value(json_object_get(row, "verdict"));
    bool refuted = verdict && !strcmp(verdict, "refuted"); /* a busy machine may refute */
    json_decref(root);
    done(r);
    r = sh("ompdag check %s/fib.a.json --threads 2 --deadline fib.c:39=%.0fns", d, judged * 2 + 1);
    cr_expect_eq(r.status, refuted ? 1 : 0, "%s%s", r.out, r.err);
    if (!refuted) cr_expect(strstr(r.out, "main: pass: bound") != NULL, "%s", r.out);
    done(r);
    r = sh("ompdag check %s/fib.a.json --threads 2 --deadline main=%.0fns", d, judged / 2);
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "fib.c:39:1: error: main:") != NULL, "%s", r.out);
    done(r);
}

/* ---- simulate (CLI) ---------------------------------------------------------- */

Test(simulate, figure5_every_flow_within_the_bound)
{
    run_result r = sh("ompdag simulate examples/condag/figure5.json --threads 1,4 --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *arr = json_loads(r.out, 0, NULL);
    cr_assert(json_is_array(arr) && json_array_size(arr) == 4, "%s",
              r.out); /* 2 m x 2 schedulers */
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o)
    {
        /* figure 5 has one branch: 2 flows, plus the worst flow run first */
        cr_expect_eq(json_integer_value(json_object_get(o, "flows")), 3);
        cr_expect_eq(json_integer_value(json_object_get(o, "above_bound")), 0);
        cr_expect_leq(json_real_value(json_object_get(o, "max_over_bound")), 1.0);
        json_t *f;
        size_t k;
        json_array_foreach(json_object_get(o, "per_flow"), k, f)
            cr_expect_leq(json_integer_value(json_object_get(f, "response")) *
                              json_integer_value(json_object_get(o, "m")),
                          json_integer_value(json_object_get(f, "flow_bound_times_m")));
    }
    /* m = 1: the response of the worst flow is the bound, vol = 12 */
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(arr, 0), "max_response")), 12);
    json_decref(arr);
    done(r);
    r = sh("ompdag simulate examples/condag/fib.json --scheduler bfs --flows random:50 --exec "
           "random --seed 3");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "m=4   bfs: 51 flow runs") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "all within the bound") != NULL, "%s", r.out);
    done(r);
    const char *bad[] = {"simulate examples/condag/fib.json --scheduler lifo",
                         "simulate examples/condag/fib.json --flows some",
                         "simulate examples/condag/fib.json --threads 0",
                         "simulate examples/condag/fib.json --graph 3"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        r = sh("ompdag %s", bad[k]);
        cr_expect_eq(r.status, 2, "'%s' exited %d", bad[k], r.status);
        done(r);
    }
}
