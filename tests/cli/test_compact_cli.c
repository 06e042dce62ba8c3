/* tests/cli/test_compact_cli.c — compact graphs through the `ompdag` command
 * (docs/compact.md): expand and its node limit, --share, analyze's compact
 * header, grouped choices and compressed critical path, and alg0/enumerate
 * on the unfolding.  Every output goes to the test's own mkdtemp directory. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_slurp.h"

typedef struct run_result {
    int status;
    char *out, *err;
} run_result;

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "%s/ompdag-compact-XXXXXX", P_tmpdir);
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* Runs `ompdag ARGS` from the source directory; "@" in ARGS is the temp dir. */
static run_result ompdag(const char *args)
{
    const char *build = getenv("OMPDAG_BUILD_DIR"), *src = getenv("OMPDAG_SOURCE_DIR");
    cr_assert(build && src, "run through ctest");
    char expanded[2048], cmd[4096];
    size_t k = 0;
    for (const char *p = args; *p && k + 64 < sizeof expanded; ++p)
        k += (size_t)snprintf(expanded + k, sizeof expanded - k, "%s",
                              *p == '@' ? dir : (char[]){*p, 0});
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s/cli/ompdag' %s >'%s/out' 2>'%s/err'", src, build,
             expanded, dir, dir);
    int st = system(cmd);
    char out[128], err[128];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    return (run_result){WIFEXITED(st) ? WEXITSTATUS(st) : -1, test_slurp(out), test_slurp(err)};
}

static void done(run_result r)
{
    free(r.out), free(r.err);
}

TestSuite(compact_cli, .init = make_dir, .fini = remove_dir);

Test(compact_cli, analyze_prints_context_times_depth)
{
    run_result r = ompdag("analyze examples/condag/fib_compact.json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "31 nodes, 6 tasks (compact: 218 nodes unfolded)"), "%s", r.out);
    cr_expect(strstr(r.out, "m*R = 3800"), "%s", r.out);
    cr_expect(strstr(r.out, "branch at fib.c:8 takes fib.c:10 (x = fib(n-1)) [5 copies]\n"), "%s",
              r.out);
    cr_expect(strstr(r.out, "critical path (26 nodes): (fib.c:8 -> fib.c:10 -> fib.c:11) x5 -> "
                            "fib.c:9 -> (fib.c:12 -> fib.c:13) x5\n"),
              "%s", r.out);
    done(r);
}

Test(compact_cli, expand_then_analyze_gives_the_same_bound)
{
    run_result r = ompdag("expand examples/condag/fib_compact.json -o @/x.json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    done(r);
    r = ompdag("analyze @/x.json --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *o = json_loads(r.out, 0, NULL);
    cr_assert_not_null(o, "%s", r.out);
    cr_expect_eq(json_integer_value(json_object_get(o, "bound_times_m")), 3800);
    json_decref(o);
    done(r);
    r = ompdag("validate @/x.json");
    cr_expect(strstr(r.out, "218 nodes, 63 tasks"), "%s", r.out);
    done(r);
    /* and back: sharing the unfolding finds the 6 bodies again */
    r = ompdag("expand --share @/x.json -o @/s.json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    done(r);
    r = ompdag("analyze @/s.json");
    cr_expect(strstr(r.out, "31 nodes, 6 tasks (compact: 218 nodes unfolded)"), "%s", r.out);
    cr_expect(strstr(r.out, "m*R = 3800"), "%s", r.out);
    done(r);
}

Test(compact_cli, expand_refuses_above_the_node_limit)
{
    run_result r = ompdag("expand examples/condag/fib_compact.json -o @/x.json --node-limit 100");
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "the unfolded graph has 218 nodes, above the limit of 100"), "%s",
              r.err);
    char path[128];
    snprintf(path, sizeof path, "%s/x.json", dir);
    cr_expect_eq(access(path, F_OK), -1, "nothing is written over the limit");
    done(r);
    r = ompdag("expand examples/condag/fib_compact.json");
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "expected -o OUT"), "%s", r.err);
    done(r);
}

Test(compact_cli, other_algorithms_run_on_the_unfolding_and_say_so)
{
    run_result r = ompdag("analyze examples/condag/fib_compact.json --algorithm all --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "run on the unfolded graph (218 nodes)"), "%s", r.err);
    json_t *arr = json_loads(r.out, 0, NULL);
    cr_assert(json_is_array(arr) && json_array_size(arr) == 3, "%s", r.out);
    long long exact = json_integer_value(json_object_get(json_array_get(arr, 0), "bound_times_m"));
    long long alg0 = json_integer_value(json_object_get(json_array_get(arr, 1), "bound_times_m"));
    long long en = json_integer_value(json_object_get(json_array_get(arr, 2), "bound_times_m"));
    cr_expect_eq(exact, 3800);
    cr_expect_eq(en, exact);
    cr_expect_geq(alg0, exact);
    json_t *wf = json_object_get(json_array_get(arr, 0), "worst_flow");
    cr_expect_eq(json_integer_value(json_object_get(wf, "critical_path_nodes")), 26);
    json_decref(arr);
    done(r);
}

Test(compact_cli, report_dot_check_and_simulate_read_compact_graphs)
{
    run_result r = ompdag("report examples/condag/fib_compact.json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "(6 tasks, 31 nodes; compact: 218 nodes unfolded, total WCET 2955 ns)"),
              "%s", r.out);
    cr_expect(strstr(r.out, "fib.c:8 takes then -> fib.c:10 (x = fib(n-1)) [5 copies]"), "%s",
              r.out);
    cr_expect(strstr(r.out, "(fib.c:8 -> fib.c:10 -> fib.c:11) x5 -> fib.c:9"), "%s", r.out);
    done(r);
    r = ompdag("report examples/condag/fib_compact.json --format html -o @/r.html");
    cr_assert_eq(r.status, 0, "%s", r.err);
    done(r);
    r = ompdag("dot examples/condag/fib_compact.json --flow worst --threads 4");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "label=\"fib@5 (x 32)\""), "%s", r.out);
    cr_expect(strstr(r.out, "compact: 218 nodes unfolded"), "%s", r.out);
    done(r);
    r = ompdag("check examples/condag/fib_compact.json --deadline fib=900ns");
    cr_expect_eq(r.status, 1, "bound 950 ns misses 900 ns: %s", r.out);
    done(r);
    r = ompdag("simulate examples/condag/fib_compact.json --flows random:5");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "simulating its unfolding (218 nodes)"), "%s", r.err);
    done(r);
}

/* Writes @/deep.json: fib-like recursion `depth` levels deep (2^depth leaves,
 * so counts saturate past depth 64) with every WCET `wcet`. */
static void write_deep_fib(int depth, long wcet)
{
    json_t *nodes = json_array(), *edges = json_array();
    for (int d = 0; d <= depth; ++d) {
        char task[16], child[16], id[6][32];
        snprintf(task, sizeof task, "fib@%d", d);
        snprintf(child, sizeof child, "fib@%d", d + 1);
        const char *suffix[] = {"c", "t1", "t2", "w", "j", "base"}, *kind = "CTTWJN";
        for (int k = d < depth ? 0 : 5; k < 6; ++k) {
            snprintf(id[k], sizeof id[k], "d%d_%s", d, suffix[k]);
            json_t *n = json_pack("{s:s,s:s,s:s#,s:I}", "id", id[k], "task", task, "kind", kind + k,
                                  (size_t)1, "wcet", (json_int_t)wcet);
            if (kind[k] == 'T') json_object_set_new(n, "creates", json_string(child));
            json_array_append_new(nodes, n);
        }
        if (d == depth) break;
        const int pairs[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 5}, {5, 4}};
        for (int e = 0; e < 6; ++e)
            json_array_append_new(edges, json_pack("[s,s]", id[pairs[e][0]], id[pairs[e][1]]));
    }
    json_t *g = json_pack("{s:s,s:i,s:[s],s:s,s:i,s:s,s:o,s:o}", "format", "ompdag-condag",
                          "version", 1, "extensions", "compact", "name", "deep", "threads", 2,
                          "time_unit", "ns", "nodes", nodes, "edges", edges);
    char path[128];
    snprintf(path, sizeof path, "%s/deep.json", dir);
    cr_assert_eq(json_dump_file(g, path, 0), 0);
    json_decref(g);
}

/* Issue 26 item 6: a compact graph whose WCETs are all 0 was refused with
 * "total WCET … overflows int64", and `map` printed a saturated load of
 * 9.22e18 with exit status 0 where the real total exceeds int64. */
Test(compact_cli, zero_wcets_analyse_and_an_overflowing_load_is_an_error)
{
    write_deep_fib(70, 0);
    run_result r = ompdag("analyze @/deep.json --threads 2");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "total WCET 0 ns unfolded"), "%s", r.out);
    done(r);
    r = ompdag("map @/deep.json -o @/map.json");
    cr_expect_eq(r.status, 0, "%s", r.err);
    done(r);
    write_deep_fib(70, 1);
    r = ompdag("map @/deep.json -o @/map.json");
    cr_expect_eq(r.status, 1, "%s", r.out);
    cr_expect(strstr(r.err, "deep") && strstr(r.err, "2^64"), "%s", r.err);
    done(r);
}
