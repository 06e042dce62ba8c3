/*
 * tests/probe/test_annotate_trust.c — issue 22, the annotate side of "a
 * verdict you can trust": traces of another program or of a binary built
 * without -g are refused (item 2); every escape hatch marks the graph
 * "unsafe" and warns (item 3); each run records its team size (item 5);
 * WCETs by code location for instances the run never reached (item 8); and
 * messages that say what happened (item 9).  Each test failed on the code
 * before the issue.
 */
#include <criterion/criterion.h>
#include <jansson.h>

#include "probe/probe_util.h"

static char t_dir[64];

/* A fresh trace of progs/PROG with args at `threads` threads, in t_dir. */
static void trace_of(const char *prog, const char *const *args, int threads, const char *name,
                     char *out, size_t n)
{
    if (!t_dir[0]) cr_assert(probe_tmpdir(t_dir, sizeof t_dir));
    snprintf(out, n, "%s/%s", t_dir, name);
    int st = probe_run(prog, args, threads, out, NULL, NULL);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s did not run", prog);
}

static ompdag_condag_set *load_data(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", OMPDAG_PROBE_DATA, name);
    ompdag_condag_set *set;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file(path, &set, &err), OMPDAG_OK, "%s", err.message);
    return set;
}

/* Annotates `set` from traces[0..n) with opt; returns apply's status, and
 * its message in *err. */
static ompdag_status annotate_with(ompdag_condag_set *set, const ompdag_annotate_options *opt,
                                   const char *const *traces, int n, ompdag_error *err)
{
    ompdag_annotation *a;
    cr_assert_eq(ompdag_annotation_create(set, opt, &a, err), OMPDAG_OK, "%s", err->message);
    ompdag_status st = OMPDAG_OK;
    for (int i = 0; i < n && !st; ++i)
        st = ompdag_annotation_add_trace(a, traces[i], err);
    if (!st) st = ompdag_annotation_apply(a, err);
    ompdag_annotation_destroy(a);
    return st;
}

static const char *graph_str(const ompdag_condag_set *set, const char *key)
{
    json_t *x = ompdag_condag_extra(ompdag_condag_set_graph(set, 0), -1);
    return x ? json_string_value(json_object_get(x, key)) : NULL;
}

/* Two traces of progs/tasks covering both branches (2 threads). */
static void tasks_traces(char *t1, char *t0, size_t n)
{
    const char *a1[] = {"1", "3", NULL}, *a0[] = {"0", "3", NULL};
    trace_of("tasks", a1, 2, "b1.trace", t1, n);
    trace_of("tasks", a0, 2, "b0.trace", t0, n);
}

/* ---- item 2: foreign and blind traces -------------------------------------------------- */

Test(annotate_trust, a_trace_of_another_program_is_refused_naming_the_source)
{
    char t1[256];
    const char *args[] = {"1", "2", NULL};
    trace_of("tasks", args, 2, "other.trace", t1, sizeof t1);
    char path[4096];
    snprintf(path, sizeof path, "%s/../../../examples/condag/fib.json", OMPDAG_PROBE_DATA);
    ompdag_condag_set *set;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file(path, &set, &err), OMPDAG_OK, "%s", err.message);
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    opt.unobserved = OMPDAG_UNOBSERVED_ZERO; /* refused whatever --unobserved says */
    const char *traces[] = {t1};
    cr_expect_eq(annotate_with(set, &opt, traces, 1, &err), OMPDAG_ERR_INVALID);
    cr_expect(strstr(err.message, "does not contain fib.c (the graph's source)") &&
                  strstr(err.message, "/tasks") && strstr(err.message, "right trace"),
              "%s", err.message);
    ompdag_condag_set_destroy(set);
}

Test(annotate_trust, a_binary_without_line_tables_is_refused_even_with_unobserved_zero)
{
    char t[256];
    const char *args[] = {"1", "2", NULL};
    trace_of("tasks_nog", args, 2, "nog.trace", t, sizeof t);
    ompdag_condag_set *set = load_data("tasks.json");
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    opt.unobserved = OMPDAG_UNOBSERVED_ZERO;
    ompdag_error err;
    const char *traces[] = {t};
    cr_expect_eq(annotate_with(set, &opt, traces, 1, &err), OMPDAG_ERR_INVALID);
    cr_expect(strstr(err.message, "tasks_nog has no line tables (built without -g?)") &&
                  strstr(err.message, "rebuild with -g"),
              "%s", err.message);
    ompdag_condag_set_destroy(set);
}

#ifdef OMPDAG_CLI_PATH
/* Runs `ompdag annotate ARGS`, stderr into t_dir/err.txt; returns the exit
 * status and the first 4 KiB of stderr in msg. */
static int cli_annotate(const char *args, char *msg, size_t n)
{
    if (!t_dir[0]) cr_assert(probe_tmpdir(t_dir, sizeof t_dir));
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' annotate %s >'%s/out.json' 2>'%s/err.txt'", OMPDAG_CLI_PATH,
             args, t_dir, t_dir);
    int st = system(cmd);
    snprintf(cmd, sizeof cmd, "%s/err.txt", t_dir);
    FILE *f = fopen(cmd, "r");
    size_t got = f ? fread(msg, 1, n - 1, f) : 0;
    msg[got] = 0;
    if (f) fclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(annotate_trust, cli_refuses_foreign_and_blind_traces_with_exit_1)
{
    char t[256], nog[256], msg[4096], args[2048];
    const char *a[] = {"1", "2", NULL};
    trace_of("tasks", a, 2, "cli.trace", t, sizeof t);
    trace_of("tasks_nog", a, 2, "clinog.trace", nog, sizeof nog);
    snprintf(args, sizeof args, "'%s/../../../examples/condag/fib.json' '%s' --unobserved zero",
             OMPDAG_PROBE_DATA, t);
    cr_expect_eq(cli_annotate(args, msg, sizeof msg), 1, "%s", msg);
    cr_expect(strstr(msg, "does not contain fib.c"), "%s", msg);
    snprintf(args, sizeof args, "'%s/tasks.json' '%s' --unobserved zero", OMPDAG_PROBE_DATA, nog);
    cr_expect_eq(cli_annotate(args, msg, sizeof msg), 1, "%s", msg);
    cr_expect(strstr(msg, "no line tables"), "%s", msg);
    /* item 9 (d): bad input exits 1 */
    snprintf(args, sizeof args, "'%s/tasks.json' '%s/no-such.trace'", OMPDAG_PROBE_DATA, t_dir);
    cr_expect_eq(cli_annotate(args, msg, sizeof msg), 1, "%s", msg);
}

/* ---- item 3: escape hatches visible ---------------------------------------------------- */

Test(annotate_trust, cli_warns_that_check_fails_escape_hatches)
{
    char t1[256], t0[256], msg[4096], args[2048];
    tasks_traces(t1, t0, sizeof t1);
    const char *opts[] = {"--unobserved zero", "--no-overheads", "--allow-unmapped"};
    for (int i = 0; i < 3; ++i) {
        snprintf(args, sizeof args, "'%s/tasks.json' '%s' '%s' %s", OMPDAG_PROBE_DATA, t1, t0,
                 opts[i]);
        cr_expect_eq(cli_annotate(args, msg, sizeof msg), 0, "%s", msg);
        cr_expect(strstr(msg, "warning") && strstr(msg, opts[i]) && strstr(msg, "\"unsafe\"") &&
                      strstr(msg, "check` will fail it"),
                  "%s: %s", opts[i], msg);
    }
    snprintf(args, sizeof args, "'%s/tasks.json' '%s' '%s'", OMPDAG_PROBE_DATA, t1, t0);
    cr_expect_eq(cli_annotate(args, msg, sizeof msg), 0, "%s", msg);
    cr_expect(!strstr(msg, "warning"), "%s", msg);
}
#endif

Test(annotate_trust, every_escape_hatch_marks_the_graph_unsafe)
{
    char t1[256], t0[256];
    tasks_traces(t1, t0, sizeof t1);
    const char *traces[] = {t1, t0};
    ompdag_error err;
    for (int i = 0; i < 4; ++i) {
        ompdag_condag_set *set = load_data("tasks.json");
        ompdag_annotate_options opt;
        ompdag_annotate_options_init(&opt);
        const char *want = NULL;
        if (i == 1) opt.unobserved = OMPDAG_UNOBSERVED_ZERO, want = "--unobserved zero";
        if (i == 2) opt.no_overheads = true, want = "--no-overheads";
        if (i == 3) opt.allow_unmapped = true, want = "--allow-unmapped";
        cr_assert_eq(annotate_with(set, &opt, traces, 2, &err), OMPDAG_OK, "%s", err.message);
        const char *why = graph_str(set, "unsafe");
        if (!want)
            cr_expect_null(why, "no escape hatch, yet unsafe: %s", why);
        else
            cr_expect(why && strstr(why, want), "%s: \"unsafe\" is %s", want, why ? why : "absent");
        ompdag_condag_set_destroy(set);
    }
}

/* ---- item 5: one team size per run ----------------------------------------------------- */

static void expect_threads(json_t *gx, const char *times, const char *threads, size_t n1)
{
    json_t *t = json_object_get(gx, times), *m = json_object_get(gx, threads);
    cr_assert(json_is_array(m), "no \"%s\"", threads);
    cr_assert_eq(json_array_size(m), json_array_size(t), "%s is not parallel to %s", threads,
                 times);
    cr_assert_gt(json_array_size(m), n1);
    for (size_t i = 0; i < json_array_size(m); ++i)
        cr_expect_eq(json_integer_value(json_array_get(m, i)), i < n1 ? 1 : 2, "%s[%zu] is %lld",
                     threads, i, (long long)json_integer_value(json_array_get(m, i)));
}

Test(annotate_trust, each_run_records_its_team_size)
{
    char one[256], two[256];
    const char *a1[] = {"1", "3", NULL}, *a0[] = {"0", "3", NULL}; /* both branches */
    trace_of("tasks", a1, 1, "team1.trace", one, sizeof one);
    trace_of("tasks", a0, 2, "team2.trace", two, sizeof two);
    ompdag_condag_set *set = load_data("tasks.json");
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    const char *traces[] = {one, two};
    ompdag_error err;
    cr_assert_eq(annotate_with(set, &opt, traces, 2, &err), OMPDAG_OK, "%s", err.message);
    json_t *gx = ompdag_condag_extra(ompdag_condag_set_graph(set, 0), -1);
    /* 3 runs of 1 thread, then 3 of 2 */
    cr_expect_eq(json_array_size(json_object_get(gx, "observed_response_ns")), 6);
    expect_threads(gx, "observed_response_ns", "observed_response_threads", 3);
    expect_threads(gx, "observed_task_response_ns", "observed_task_response_threads", 3);
    ompdag_condag_set_destroy(set);
}

/* ---- item 8: WCETs by location for instances the run did not reach ---------------------- */

/* progs/tree6 at depth 6 against its graph with --recursion-bound 6: the
 * base case runs only in the leaves (depth 6), so before issue 22 the base
 * case's nodes at depths 0-5 (11 of them) were "never observed". */
Test(annotate_trust, a_base_case_seen_at_one_depth_covers_every_depth)
{
    char t[256];
    const char *args[] = {"3", "6", NULL};
    trace_of("tree6", args, 2, "tree6.trace", t, sizeof t);
    ompdag_condag_set *set = load_data("tree6.json");
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt); /* --unobserved error */
    const char *traces[] = {t};
    ompdag_error err;
    cr_assert_eq(annotate_with(set, &opt, traces, 1, &err), OMPDAG_OK, "%s", err.message);
    const ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    /* the longest base case measured: a cut-off leaf call (one node) */
    int64_t leaf = 0;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        int32_t task = ompdag_condag_node_task(g, v);
        json_int_t mx =
            json_integer_value(json_object_get(ompdag_condag_extra(g, v), "observed_max"));
        if (ompdag_condag_task_source(g, task) == v && ompdag_condag_task_sink(g, task) == v)
            leaf = mx > leaf ? mx : leaf;
    }
    cr_assert_gt(leaf, 0);
    int based = 0;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        json_t *x = ompdag_condag_extra(g, v);
        cr_expect(!json_is_true(json_object_get(x, "unobserved")), "node %s unobserved",
                  ompdag_condag_node_id(g, v));
        const char *label = ompdag_condag_node_label(g, v);
        if (!label || strcmp(label, "work(20000)")) continue;
        ++based;
        const char *from = json_string_value(json_object_get(x, "wcet_from"));
        cr_expect(from && !strcmp(from, "location"), "base node %s: wcet_from %s",
                  ompdag_condag_node_id(g, v), from ? from : "absent");
        /* a base-case path through it covers the longest base case measured */
        cr_expect_geq(ompdag_condag_node_wcet(g, v), leaf, "base node %s: WCET %lld < %lld",
                      ompdag_condag_node_id(g, v), (long long)ompdag_condag_node_wcet(g, v),
                      (long long)leaf);
    }
    cr_expect_eq(based, 11, "base-case nodes at depths 0-5: %d", based);
    ompdag_condag_set_destroy(set);
}

/* ---- item 9: messages ------------------------------------------------------------------ */

/* data/NAME as JSON, to be changed by a test and loaded with load_json. */
static json_t *read_data(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", OMPDAG_PROBE_DATA, name);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    cr_assert_not_null(j, "%s: %s", path, je.text);
    return j;
}

static ompdag_condag_set *load_json(json_t *j, const char *name)
{
    char path[256];
    if (!t_dir[0]) cr_assert(probe_tmpdir(t_dir, sizeof t_dir));
    snprintf(path, sizeof path, "%s/%s", t_dir, name);
    cr_assert_eq(json_dump_file(j, path, 0), 0);
    ompdag_condag_set *set;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file(path, &set, &err), OMPDAG_OK, "%s", err.message);
    return set;
}

static json_t *graph_nodes(json_t *j)
{
    json_t *graphs = json_object_get(j, "graphs");
    return json_object_get(graphs ? json_array_get(graphs, 0) : j, "nodes");
}

/* (a) tree6 run at depth 9 against the graph of depth 6: the refusal gave
 * 7 (the graph's 6 + 1), not the 9 levels the run reached. */
Test(annotate_trust, the_recursion_refusal_gives_the_depth_the_run_reached)
{
    char t[256];
    const char *args[] = {"1", "9", NULL};
    trace_of("tree6", args, 2, "deep9.trace", t, sizeof t);
    ompdag_condag_set *set = load_data("tree6.json");
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    ompdag_error err;
    const char *traces[] = {t};
    cr_expect_eq(annotate_with(set, &opt, traces, 1, &err), OMPDAG_ERR_INVALID);
    cr_expect(strstr(err.message, "went 9 task levels deep") &&
                  strstr(err.message, "giving 9 levels"),
              "%s", err.message);
    ompdag_condag_set_destroy(set);
}

/* (b) a node description longer than the old 256-byte buffer was cut
 * mid-path; now it is listed whole, and the hint always ends the message. */
Test(annotate_trust, never_observed_lists_whole_nodes_and_the_hint)
{
    char t1[256];
    const char *a1[] = {"1", "2", NULL}; /* the branch taken: one N node never runs */
    trace_of("tasks", a1, 2, "branch1.trace", t1, sizeof t1);
    json_t *j = read_data("tasks.json");
    char path[301];
    memset(path, 'd', 300);
    path[300] = 0;
    for (int i = 10; i < 300; i += 10)
        path[i] = '/';
    size_t i;
    json_t *n;
    json_array_foreach(graph_nodes(j), i, n)
    {
        if (strcmp(json_string_value(json_object_get(n, "kind")), "N")) continue;
        json_object_set_new(json_object_get(n, "loc"), "file", json_string(path));
    }
    ompdag_condag_set *set = load_json(j, "longpath.json");
    json_decref(j);
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    ompdag_error err;
    const char *traces[] = {t1};
    cr_assert_eq(annotate_with(set, &opt, traces, 1, &err), OMPDAG_ERR_INVALID);
    char want[400];
    snprintf(want, sizeof want, "1 node was never observed: %s:31 (N node n1)", path);
    cr_expect(strstr(err.message, want), "%s", err.message);
    cr_expect(strstr(err.message, "or pass --unobserved zero"), "%s", err.message);
    ompdag_condag_set_destroy(set);
}

/* (c) a graph that does not match the program inside a recursion: one
 * body of tree6's graph (task t4, depth 3) gets an extra `task` directive
 * before its taskwait, so the run's segment directive -> taskwait fits no
 * path there.  The message names the recursion depth. */
Test(annotate_trust, a_mismatch_inside_a_recursion_names_its_depth)
{
    char t[256];
    const char *args[] = {"1", "6", NULL};
    trace_of("tree6", args, 2, "mismatch.trace", t, sizeof t);
    json_t *j = read_data("tree6.json"), *graph = json_array_get(json_object_get(j, "graphs"), 0);
    json_t *nodes = json_object_get(graph, "nodes"), *edges = json_object_get(graph, "edges");
    const char *tnode = NULL, *wnode = NULL;
    size_t i;
    json_t *n;
    json_array_foreach(nodes, i, n)
    {
        if (strcmp(json_string_value(json_object_get(n, "task")), "t4")) continue;
        const char *kind = json_string_value(json_object_get(n, "kind"));
        json_int_t line = json_integer_value(json_object_get(json_object_get(n, "loc"), "line"));
        if (!strcmp(kind, "T") && line == 23) tnode = json_string_value(json_object_get(n, "id"));
        if (!strcmp(kind, "W")) wnode = json_string_value(json_object_get(n, "id"));
    }
    cr_assert(tnode && wnode);
    json_array_foreach(edges, i, n)
    {
        if (!strcmp(json_string_value(json_array_get(n, 0)), tnode) &&
            !strcmp(json_string_value(json_array_get(n, 1)), wnode)) {
            json_array_set_new(n, 1, json_string("extra_t"));
            break;
        }
    }
    json_array_append_new(edges, json_pack("[s,s]", "extra_t", wnode));
    json_array_append_new(nodes, json_pack("{s:s,s:s,s:s,s:i,s:s,s:{s:s,s:i}}", "id", "extra_t",
                                           "task", "t4", "kind", "T", "wcet", 0, "creates", "extra",
                                           "loc", "file", "tree6.c", "line", 40));
    json_array_append_new(nodes, json_pack("{s:s,s:s,s:s,s:i}", "id", "extra_n", "task", "extra",
                                           "kind", "N", "wcet", 0));
    ompdag_condag_set *set = load_json(j, "mismatch.json");
    json_decref(j);
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    ompdag_error err;
    const char *traces[] = {t};
    cr_assert_eq(annotate_with(set, &opt, traces, 1, &err), OMPDAG_ERR_INVALID);
    cr_expect(strstr(err.message, "the graph does not match the program at recursion depth") &&
                  strstr(err.message, "tree6.c:2"),
              "%s", err.message);
    ompdag_condag_set_destroy(set);
}

/* Issue 26 item 2: the rebuilt-binary check relied on the GNU build-id
 * alone, so a binary linked with -Wl,--build-id=none, edited and rebuilt,
 * annotated with the old WCETs.  The probe now records a content
 * fingerprint for such a binary; a changed file is refused. */
Test(annotate_trust, a_rebuilt_binary_without_build_id_is_refused)
{
    if (!t_dir[0]) cr_assert(probe_tmpdir(t_dir, sizeof t_dir));
    char copy[512], cmd[2048], t[256];
    snprintf(copy, sizeof copy, "%s/noid", t_dir);
    snprintf(cmd, sizeof cmd, "cp '%s/tasks_noid' '%s'", OMPDAG_PROBE_PROGS, copy);
    cr_assert_eq(system(cmd), 0);
    snprintf(t, sizeof t, "%s/noid.trace", t_dir);
    const char *args[] = {"1", "2", NULL};
    int st = probe_run(copy, args, 2, t, NULL, NULL);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    opt.unobserved = OMPDAG_UNOBSERVED_ZERO;
    const char *traces[] = {t};
    ompdag_error err = {0};
    ompdag_condag_set *set = load_data("tasks.json");
    cr_expect_eq(annotate_with(set, &opt, traces, 1, &err), OMPDAG_OK, "the same binary: %s",
                 err.message);
    ompdag_condag_set_destroy(set);
    /* "rebuilt": the same file with different contents (still no build-id) */
    FILE *f = fopen(copy, "ab");
    cr_assert_not_null(f);
    fputs("edited", f);
    fclose(f);
    set = load_data("tasks.json");
    cr_expect_eq(annotate_with(set, &opt, traces, 1, &err), OMPDAG_ERR_INVALID);
    cr_expect(strstr(err.message, "was rebuilt since the trace was taken") &&
                  strstr(err.message, "content fingerprint"),
              "%s", err.message);
    ompdag_condag_set_destroy(set);
}
