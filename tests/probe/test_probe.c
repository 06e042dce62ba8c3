/*
 * tests/probe/test_probe.c — libompdag_probe.so on real clang-built OpenMP
 * programs: segment boundaries and counts, own time vs elapsed time, untied
 * tasks (llvm-project #83883), signals, `ompdag run`.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <sys/stat.h>

#include "probe/probe_util.h"

/* Per task: its segments in time order must chain (each starts where the
 * previous ended), start at the task's begin and end at its end, and their
 * own time can never exceed the time from creation to completion. */
typedef struct task_view {
    uint64_t id, created, ended;
    bool implicit;
    size_t nseg;
    size_t first, last; /* record indices of first and last segment */
} task_view;

static int cmp_seg(const void *x, const void *y)
{
    const ompdag_trace_rec *a = x, *b = y;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return a->time < b->time ? -1 : a->time > b->time;
}

static bool joins(const ompdag_trace_rec *prev, const ompdag_trace_rec *next)
{
    if (prev->end_kind != next->start_kind) return false;
    return prev->cp_end == next->cp_start;
}

/* Checks every task's chain; returns the number of explicit tasks checked. */
static size_t check_chains(ompdag_trace_rec *recs, size_t n)
{
    size_t nseg = 0;
    ompdag_trace_rec *seg = malloc((n + 1) * sizeof *seg);
    for (size_t i = 0; i < n; ++i)
        if (recs[i].type == OMPDAG_REC_SEGMENT) seg[nseg++] = recs[i];
    qsort(seg, nseg, sizeof *seg, cmp_seg);
    size_t tasks = 0;
    for (size_t i = 0; i < nseg;) {
        size_t j = i;
        while (j + 1 < nseg && seg[j + 1].id == seg[i].id) {
            cr_assert(joins(&seg[j], &seg[j + 1]),
                      "task %llx: segment ending at kind %u does not chain to one starting at %u",
                      (unsigned long long)seg[i].id, seg[j].end_kind, seg[j + 1].start_kind);
            ++j;
        }
        cr_assert_eq(seg[i].start_kind, OMPDAG_PT_TASK_BEGIN, "task %llx starts at kind %u",
                     (unsigned long long)seg[i].id, seg[i].start_kind);
        cr_assert_eq(seg[j].end_kind, OMPDAG_PT_TASK_END, "task %llx ends at kind %u",
                     (unsigned long long)seg[i].id, seg[j].end_kind);
        if (!(seg[i].flags & OMPDAG_RECF_IMPLICIT)) {
            uint64_t created = 0, own = 0;
            for (size_t k = 0; k < n; ++k)
                if (recs[k].type == OMPDAG_REC_TASK_CREATE && recs[k].id == seg[i].id)
                    created = recs[k].time;
            cr_assert_neq(created, 0, "task %llx has segments but no creation",
                          (unsigned long long)seg[i].id);
            for (size_t k = i; k <= j; ++k)
                own += seg[k].dur;
            cr_assert_leq(own, seg[j].time - created,
                          "task %llx: own time %llu exceeds its lifetime %llu",
                          (unsigned long long)seg[i].id, (unsigned long long)own,
                          (unsigned long long)(seg[j].time - created));
            ++tasks;
        }
        i = j + 1;
    }
    free(seg);
    return tasks;
}

static void load_ok(const char *trace, ompdag_trace_rec **recs, size_t *n, ompdag_trace_rec *f)
{
    ompdag_error err;
    ompdag_status st = probe_load(trace, recs, n, f, &err);
    cr_assert_eq(st, OMPDAG_OK, "%s", err.message);
}

Test(probe, tasks_segments_and_lines)
{
    char dir[64], trace[128];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(trace, sizeof trace, "%s/t.trace", dir);
    const char *args[] = {"1", "3", NULL};
    int status = probe_run("tasks", args, 2, trace, NULL, NULL);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    ompdag_trace_rec *recs, f;
    size_t n;
    load_ok(trace, &recs, &n, &f);
    cr_assert_eq(f.aux, 9, "3 regions x 3 tasks created, got %llu", (unsigned long long)f.aux);
    cr_assert_eq(f.dur, 9);
    cr_assert_eq(f.cp_start, 0, "no record dropped");
    cr_assert_eq(check_chains(recs, n), 9);

    ompdag_trace_reader *r;
    ompdag_error err;
    cr_assert_eq(ompdag_trace_reader_open(trace, &r, &err), OMPDAG_OK);
    cr_assert(strstr(ompdag_trace_reader_exe(r), "progs/tasks"));
    cr_assert_gt(strlen(ompdag_trace_reader_build_id(r)), 0, "clang links a build-id");
    cr_assert_gt(ompdag_trace_reader_module_count(r), 1);
    ompdag_symbolizer *sym;
    cr_assert_eq(ompdag_symbolizer_create(r, &sym, &err), OMPDAG_OK);

    /* The root (single body) of each region: exactly these 6 segments. */
    static const struct want_seg {
        uint8_t sk;
        int sl;
        uint8_t ek;
        int el;
    } want[6] = {{OMPDAG_PT_ROOT_BEGIN, 21, OMPDAG_PT_CREATE, 24},
                 {OMPDAG_PT_CREATE, 24, OMPDAG_PT_CREATE, 27},
                 {OMPDAG_PT_CREATE, 27, OMPDAG_PT_TASKWAIT, 29},
                 {OMPDAG_PT_TASKWAIT, 29, OMPDAG_PT_CREATE, 32},
                 {OMPDAG_PT_CREATE, 32, OMPDAG_PT_TASKWAIT, 36},
                 {OMPDAG_PT_TASKWAIT, 36, OMPDAG_PT_ROOT_END, 38}};
    size_t root = 0, regions = 0, explicit_segments = 0;
    for (size_t i = 0; i < n; ++i) {
        const ompdag_trace_rec *x = &recs[i];
        if (x->type == OMPDAG_REC_REGION_BEGIN) {
            ompdag_srcloc l;
            cr_assert_eq(ompdag_symbolizer_lookup(sym, x->cp_region, &l, &err), OMPDAG_OK, "%s",
                         err.message);
            cr_assert_eq(l.line, 20, "parallel directive at line 20, got %d", l.line);
            cr_assert(strstr(l.file, "tasks.c"));
            ++regions;
        }
        if (x->type != OMPDAG_REC_SEGMENT) continue;
        if (!(x->flags & OMPDAG_RECF_IMPLICIT)) {
            ompdag_srcloc l;
            cr_assert_eq(ompdag_symbolizer_lookup(sym, x->cp_task, &l, &err), OMPDAG_OK);
            cr_assert(l.line == 24 || l.line == 27 || l.line == 32, "task line %d", l.line);
            cr_assert_eq(x->start_kind, OMPDAG_PT_TASK_BEGIN);
            cr_assert_eq(x->end_kind, OMPDAG_PT_TASK_END);
            ++explicit_segments;
            continue;
        }
        if (!(x->flags & OMPDAG_RECF_ROOT)) continue;
        /* Segments of one implicit task are in order in its thread's buffer. */
        const struct want_seg *w = &want[root % 6];
        ompdag_srcloc ls = {0}, le = {0};
        cr_assert_eq(ompdag_symbolizer_lookup(sym, x->cp_start, &ls, &err), OMPDAG_OK);
        cr_assert_eq(ompdag_symbolizer_lookup(sym, x->cp_end, &le, &err), OMPDAG_OK);
        cr_assert(x->start_kind == w->sk && x->end_kind == w->ek && ls.line == w->sl &&
                      le.line == w->el,
                  "root segment %zu: %u@%d -> %u@%d, want %u@%d -> %u@%d", root, x->start_kind,
                  ls.line, x->end_kind, le.line, w->sk, w->sl, w->ek, w->el);
        ++root;
    }
    cr_assert_eq(regions, 3);
    cr_assert_eq(root, 18, "6 root segments per region, got %zu", root);
    cr_assert_eq(explicit_segments, 9);
    ompdag_symbolizer_destroy(sym);
    ompdag_trace_reader_destroy(r);
    free(recs);
}

static void untied_at(int threads)
{
    char dir[64], trace[128];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(trace, sizeof trace, "%s/u.trace", dir);
    const char *args[] = {"20", NULL};
    int status = probe_run("untied", args, threads, trace, NULL, NULL);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ompdag_trace_rec *recs, f;
    size_t n;
    load_ok(trace, &recs, &n, &f);
    cr_assert_eq(f.aux, 40, "20 untied tasks + 20 children, got %llu", (unsigned long long)f.aux);
    cr_assert_eq(f.dur, 40);
    cr_assert_eq(check_chains(recs, n), 40);
    /* Each untied task: begin->create, create->taskwait, taskwait->end. */
    size_t untied_segments = 0, untied_tasks = 0;
    for (size_t i = 0; i < n; ++i) {
        if (recs[i].type == OMPDAG_REC_SEGMENT && (recs[i].flags & OMPDAG_RECF_UNTIED))
            ++untied_segments;
        if (recs[i].type == OMPDAG_REC_TASK_CREATE && (recs[i].flags & OMPDAG_RECF_UNTIED))
            ++untied_tasks;
    }
    cr_assert_eq(untied_tasks, 20);
    cr_assert_eq(untied_segments, 60, "3 segments per untied task, got %zu", untied_segments);
    free(recs);
}

Test(probe, untied_one_thread)
{
    untied_at(1);
}
Test(probe, untied_two_threads)
{
    untied_at(2);
}

static void signal_case(const char *sig, const char *where, int signo)
{
    char dir[64], trace[128];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(trace, sizeof trace, "%s/s.trace", dir);
    const char *args[] = {sig, where, "200", NULL};
    int status = probe_run("signal", args, 2, trace, NULL, NULL);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == signo, "status %x", status);
    ompdag_trace_summary s;
    ompdag_error err;
    cr_assert_eq(ompdag_trace_summarize(trace, &s, &err), OMPDAG_OK, "%s", err.message);
    cr_assert(s.interrupted);
    if (!strcmp(where, "after")) {
        cr_assert_eq(s.tasks_created, 200);
        cr_assert_eq(s.tasks_ended, 200);
        cr_assert_eq(s.regions_ended, 1);
    } else {
        cr_assert_geq(s.tasks_created, 100, "tasks up to the raising one were created");
        cr_assert_leq(s.tasks_ended, s.tasks_created);
    }
}

Test(probe, sigterm_after_region)
{
    signal_case("TERM", "after", SIGTERM);
}
Test(probe, sigint_inside_task)
{
    signal_case("INT", "inside", SIGINT);
}

Test(probe, tool_disabled_writes_nothing)
{
    char dir[64], trace[128];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(trace, sizeof trace, "%s/d.trace", dir);
    const char *env[] = {"OMP_TOOL=disabled", NULL};
    const char *args[] = {"1", "1", NULL};
    int status = probe_run("tasks", args, 2, trace, env, NULL);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    cr_assert_neq(access(trace, F_OK), 0);
}

#ifdef OMPDAG_CLI_PATH
/* Runs the ompdag CLI; stderr goes to `errfile`.  Returns the exit code. */
static int run_cli(const char *const *args, const char *errfile)
{
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 2);
        setenv("OMPDAG_PROBE_LIB", OMPDAG_PROBE_LIB_PATH, 1);
        unsetenv("LD_PRELOAD");
        const char *argv[32] = {OMPDAG_CLI_PATH};
        int k = 1;
        for (int i = 0; args[i]; ++i)
            argv[k++] = args[i];
        argv[k] = NULL;
        execv(OMPDAG_CLI_PATH, (char *const *)argv);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return strdup("");
    char *buf = calloc(1, 1 << 16);
    fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    return buf;
}

/* An offloaded loop inside a task: the runtime reports each device's share
 * to the probe (OMPDAG_REC_OFFLOAD), and annotate shows the split on the node
 * whose WCET covers the loop. */
Test(probe, offloaded_loop_split_reaches_its_node)
{
    char dir[64], trace[128], errf[128], graphs[128], out[128], src[1024], inc[1024];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(trace, sizeof trace, "%s/o.trace", dir);
    snprintf(errf, sizeof errf, "%s/err", dir);
    snprintf(graphs, sizeof graphs, "%s/g.json", dir);
    snprintf(out, sizeof out, "%s/a.json", dir);
    const char *root = getenv("OMPDAG_SOURCE_DIR");
    cr_assert_not_null(root, "run through ctest");
    snprintf(src, sizeof src, "%s/tests/probe/progs/offload.c", root);
    snprintf(inc, sizeof inc, "-I%s/include", root);
    int st = probe_run("offload", NULL, 2, trace, NULL, NULL);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "offload program failed");
    const char *extract[] = {"extract", src, "-o", graphs, "--", inc, NULL};
    cr_assert_eq(run_cli(extract, errf), 0, "extract: %s", slurp(errf));
    const char *annotate[] = {"annotate", graphs, trace, "-o", out, NULL};
    cr_assert_eq(run_cli(annotate, errf), 0, "annotate: %s", slurp(errf));
    ompdag_condag_set *set = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file(out, &set, &err), OMPDAG_OK, "%s", err.message);
    const ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    int with_split = 0;
    json_int_t iterations = 0;
    bool sim_gpu = false;
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        json_t *split = json_object_get(ompdag_condag_extra(g, v), "offload");
        if (!split) continue;
        with_split++;
        size_t i;
        json_t *d;
        json_array_foreach(split, i, d)
        {
            iterations += json_integer_value(json_object_get(d, "iterations_max"));
            sim_gpu |= !strcmp(json_string_value(json_object_get(d, "kind")), "sim-gpu");
            cr_expect_gt(json_integer_value(json_object_get(d, "busy_ns_max")), 0);
        }
        cr_expect_geq(ompdag_condag_node_wcet(g, v), 1, "the node's WCET covers the loop");
    }
    cr_expect_eq(with_split, 1, "one node holds the offloaded loop");
    cr_expect_eq(iterations, 200000, "every iteration is accounted to a device once");
    cr_expect(sim_gpu, "the simulated GPU's share is reported");
    ompdag_condag_set_destroy(set);
}

Test(probe, cli_run_writes_trace)
{
    char dir[64], trace[128], errf[128], prog[512];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(trace, sizeof trace, "%s/r.trace", dir);
    snprintf(errf, sizeof errf, "%s/err", dir);
    snprintf(prog, sizeof prog, "%s/tasks", OMPDAG_PROBE_PROGS);
    const char *args[] = {"run", "--trace", trace, "--", prog, "1", "2", NULL};
    cr_assert_eq(run_cli(args, errf), 0);
    ompdag_trace_summary s;
    ompdag_error err;
    cr_assert_eq(ompdag_trace_summarize(trace, &s, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(s.tasks_created, 6);
    cr_assert_eq(s.regions_ended, 2);
    char *msg = slurp(errf);
    cr_assert(strstr(msg, "6 tasks created / 6 completed"), "summary: %s", msg);
    free(msg);
}

Test(probe, cli_run_refuses_libgomp)
{
    char dir[64], trace[128], errf[128], prog[512];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(trace, sizeof trace, "%s/g.trace", dir);
    snprintf(errf, sizeof errf, "%s/err", dir);
    snprintf(prog, sizeof prog, "%s/tasks_gomp", OMPDAG_PROBE_PROGS);
    const char *args[] = {"run", "--trace", trace, "--", prog, "1", "1", NULL};
    cr_assert_eq(run_cli(args, errf), 1);
    char *msg = slurp(errf);
    cr_assert(strstr(msg, "libgomp") && strstr(msg, "clang -fopenmp") &&
                  strstr(msg, "--preload-libomp"),
              "advice: %s", msg);
    free(msg);
    cr_assert_neq(access(trace, F_OK), 0);
}
Test(probe, cli_run_preload_libomp_observes_a_gcc_program)
{
    char dir[64], trace[128], errf[128], prog[512];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(trace, sizeof trace, "%s/p.trace", dir);
    snprintf(errf, sizeof errf, "%s/err", dir);
    snprintf(prog, sizeof prog, "%s/tasks_gomp", OMPDAG_PROBE_PROGS);
    const char *args[] = {"run", "--preload-libomp", "--trace", trace, "--", prog, "1", "2", NULL};
    cr_assert_eq(run_cli(args, errf), 0);
    ompdag_trace_summary s;
    ompdag_error err;
    cr_assert_eq(ompdag_trace_summarize(trace, &s, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(s.tasks_created, 6, "libomp's GOMP_* entry points report the tasks");
    cr_assert_eq(s.tasks_ended, 6);
    /* Issue 24 item 6: annotate of that trace said "the graph does not match the
     * program" (GCC places its scheduling points elsewhere); it names GCC now */
    char graphs[512], out[160];
    snprintf(graphs, sizeof graphs, "%s/tasks.json", OMPDAG_PROBE_DATA);
    snprintf(out, sizeof out, "%s/a.json", dir);
    const char *ann[] = {"annotate", graphs, trace, "-o", out, "--unobserved", "zero", NULL};
    cr_assert_eq(run_cli(ann, errf), 1);
    char *msg = slurp(errf);
    cr_assert(strstr(msg, "was compiled by GCC") && strstr(msg, "rebuild with clang -fopenmp -g") &&
                  !strstr(msg, "does not match"),
              "%s", msg);
    free(msg);
}
Test(probe, cli_annotate_writes_graphs_and_refuses_thin_evt)
{
    char dir[64], t1[128], t0[128], out[128], errf[128], graphs[512], prog[512];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(t1, sizeof t1, "%s/1.trace", dir);
    snprintf(t0, sizeof t0, "%s/0.trace", dir);
    snprintf(out, sizeof out, "%s/out.json", dir);
    snprintf(errf, sizeof errf, "%s/err", dir);
    snprintf(graphs, sizeof graphs, "%s/tasks.json", OMPDAG_PROBE_DATA);
    snprintf(prog, sizeof prog, "%s/tasks", OMPDAG_PROBE_PROGS);
    const char *r1[] = {"run", "--quiet", "--trace", t1, "--", prog, "1", "3", NULL};
    const char *r0[] = {"run", "--quiet", "--trace", t0, "--", prog, "0", "3", NULL};
    cr_assert_eq(run_cli(r1, errf), 0);
    cr_assert_eq(run_cli(r0, errf), 0);

    const char *evt[] = {"annotate", graphs, t1, t0, "-o", out, "--estimator", "evt", NULL};
    cr_assert_eq(run_cli(evt, errf), 1);
    char *msg = slurp(errf);
    cr_assert(strstr(msg, "evt needs at least 20 blocks"), "%s", msg);
    free(msg);
    cr_assert_neq(access(out, F_OK), 0, "nothing written on failure");

    const char *max[] = {"annotate", graphs, t1, t0, "-o", out, "--margin", "50", NULL};
    cr_assert_eq(run_cli(max, errf), 0);
    msg = slurp(errf);
    cr_assert(strstr(msg, "method: max") && strstr(msg, "margin 50.0%") && strstr(msg, "2 traces"),
              "report: %s", msg);
    free(msg);
    ompdag_condag_set *set;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file(out, &set, &err), OMPDAG_OK, "%s", err.message);
    const ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    cr_assert_gt(ompdag_condag_total_wcet(g), 0);
    ompdag_condag_set_destroy(set);

    const char *bad[] = {"annotate", graphs, t1, "--unobserved", "maybe", NULL};
    cr_assert_eq(run_cli(bad, errf), 2);
}
#endif
