/*
 * tests/cli/test_run_rt.c — `ompdag run --rt / --rt-priority / --threads`
 * and the run summary's interference count (issue 22 item 7).  The program
 * (progs/sched_policy.c, clang -fopenmp -g) prints what each thread of a
 * num_threads(4) team got: policy, priority and OpenMP place.
 */
#include <jansson.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_harness.h"

#ifndef OMPDAG_SCHED_PROG
#error "OMPDAG_SCHED_PROG: the built progs/sched_policy"
#endif

/* Whether this process may use SCHED_FIFO at `prio` (tried in a child, so
 * the test keeps its own policy). */
static bool fifo_permitted(int prio)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        struct sched_param p = {.sched_priority = prio};
        _exit(sched_setscheduler(0, SCHED_FIFO, &p) == 0 ? 0 : 1);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static bool has(const char *text, const char *what)
{
    return strstr(text, what) != NULL;
}

Test(run_rt, the_program_runs_under_sched_fifo_pinned_one_thread_per_core)
{
    if (!fifo_permitted(1)) cr_skip_test("SCHED_FIFO is not permitted here (needs CAP_SYS_NICE)");
    cli_result r = cli_run("run --rt --threads 2 --trace @/t.trace -- " OMPDAG_SCHED_PROG);
    cr_assert_eq(r.status, 0, "%s", r.err);
    /* num_threads(4) capped at 2 (OMP_THREAD_LIMIT); each thread on its own
     * place, bound close (omp_proc_bind_close = 3) */
    cr_expect(has(r.out, "thread 0: policy SCHED_FIFO priority 1 place 0"), "%s", r.out);
    cr_expect(has(r.out, "thread 1: policy SCHED_FIFO priority 1 place 1"), "%s", r.out);
    cr_expect(has(r.out, "team 2 places 2 proc_bind 3"), "%s", r.out);
    cr_expect(has(r.err, "SCHED_FIFO priority 1, OMP_PROC_BIND=close OMP_PLACES=cores(2) "
                         "OMP_NUM_THREADS=2 OMP_THREAD_LIMIT=2"),
              "%s", r.err);
    cr_expect(has(r.err, "of 1 region run(s)"), "%s", r.err);
    cli_result_free(r);
}

Test(run_rt, rt_priority_sets_the_priority_and_implies_rt)
{
    if (!fifo_permitted(7)) cr_skip_test("SCHED_FIFO is not permitted here (needs CAP_SYS_NICE)");
    cli_result r = cli_run("run --rt-priority 7 --trace @/t.trace -- " OMPDAG_SCHED_PROG);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(has(r.out, "thread 0: policy SCHED_FIFO priority 7"), "%s", r.out);
    cr_expect(!has(r.out, "SCHED_OTHER"), "%s", r.out);
    cr_expect(has(r.err, "OMP_PROC_BIND=close OMP_PLACES=cores\n"), "%s", r.err);
    cli_result_free(r);
}

/* Root keeps its uid but loses every capability (bounding set) and gets no
 * real-time limit; a user without privileges is there already. */
#define NO_RT_PERMISSION "ulimit -r 0 && exec setpriv --inh-caps=-all --bounding-set=-all "

Test(run_rt, refused_before_anything_runs_without_the_permission)
{
    if (geteuid() == 0 && system("setpriv --version >/dev/null 2>&1") != 0)
        cr_skip_test("setpriv (util-linux) is needed to drop root's CAP_SYS_NICE");
    const char *prefix = geteuid() == 0 ? NO_RT_PERMISSION : "ulimit -r 0 && ";
    cli_result r = cli_run_with(prefix, "run --rt --trace @/t.trace -- " OMPDAG_SCHED_PROG);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect_str_eq(r.out, "", "the program ran: %s", r.out);
    cr_expect(has(r.err, "SCHED_FIFO needs CAP_SYS_NICE or root (or an RLIMIT_RTPRIO >= 1): run "
                         "as root, or `setcap cap_sys_nice+ep`"),
              "%s", r.err);
    cr_expect(has(r.err, "drop --rt"), "%s", r.err);
    struct stat st;
    cr_expect_neq(stat(test_tmp("t.trace"), &st), 0, "a trace was written");
    cli_result_free(r);
}

Test(run_rt, threads_caps_every_team_and_keeps_the_users_places)
{
    cli_result r = cli_run_with("OMP_PLACES=threads ",
                                "run --threads 1 --trace @/t.trace -- " OMPDAG_SCHED_PROG);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(has(r.out, "thread 0: policy SCHED_OTHER"), "%s", r.out);
    cr_expect(!has(r.out, "thread 1:"), "num_threads(4) was not capped: %s", r.out);
    cr_expect(has(r.out, "team 1 "), "%s", r.out);
    cr_expect(has(r.err, "OMP_PROC_BIND=close OMP_PLACES=threads OMP_NUM_THREADS=1 "
                         "OMP_THREAD_LIMIT=1"),
              "%s", r.err);
    cli_result_free(r);
}

Test(run_rt, summary_counts_interfered_region_and_thread_runs)
{
    cli_result r = cli_run("run --trace @/t.trace -- " OMPDAG_SCHED_PROG);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *line = strstr(r.err, "ompdag run: interfered: ");
    cr_assert_not_null(line, "%s", r.err);
    unsigned long long runs_hit, runs, threads_hit, threads;
    cr_assert_eq(sscanf(line,
                        "ompdag run: interfered: %llu of %llu region run(s), %llu of %llu "
                        "thread-run(s)",
                        &runs_hit, &runs, &threads_hit, &threads),
                 4, "%s", line);
    /* one parallel region of 4 threads (no cap: the program's own team) */
    cr_expect_eq(runs, 1);
    cr_expect_eq(threads, 4);
    cr_expect_leq(runs_hit, runs);
    cr_expect_leq(threads_hit, threads);
    cr_expect_eq(runs_hit > 0, threads_hit > 0, "%s", line);
    cli_result_free(r);
    r = cli_run("run --quiet --trace @/t.trace -- " OMPDAG_SCHED_PROG);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(!has(r.err, "interfered"), "--quiet printed: %s", r.err);
    cli_result_free(r);
}

Test(run_rt, bad_priority_or_thread_count_is_a_usage_error)
{
    const char *bad[] = {"--rt-priority 0", "--rt-priority 100", "--rt-priority x",
                         "--threads 0",     "--threads -2",      "--threads many"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        char args[512];
        snprintf(args, sizeof args, "run %s --trace @/t.trace -- %s", bad[i], OMPDAG_SCHED_PROG);
        cli_result r = cli_run(args);
        cr_expect_eq(r.status, 2, "%s: %s", bad[i], r.err);
        cr_expect(has(r.err, "give a"), "%s: the message gives no valid range: %s", bad[i], r.err);
        cr_expect_str_eq(r.out, "", "%s: the program ran", bad[i]);
        cli_result_free(r);
    }
}

/* The count of `interfered: K of N region run(s)` in ompdag run's summary. */
static void interfered_runs(const char *err, unsigned long long *hit, unsigned long long *runs)
{
    const char *line = strstr(err, "ompdag run: interfered: ");
    cr_assert_not_null(line, "%s", err);
    cr_assert_eq(sscanf(line, "ompdag run: interfered: %llu of %llu region run(s)", hit, runs), 2,
                 "%s", line);
}

Test(run_rt, summary_agrees_with_annotates_interfered_runs)
{
    /* both branches (every node observed), 3 region runs per process, on 4
     * threads (more than a 2-core machine has: interference is likely) */
    unsigned long long hit_sum = 0, runs_sum = 0;
    char args[2048], traces[1024] = "";
    for (int i = 0; i < 4; ++i) {
        snprintf(args, sizeof args, "run --trace @/t%d.trace -- %s %d 3", i, OMPDAG_TASKS_PROG,
                 i % 2);
        cli_result r = cli_run_with("OMP_NUM_THREADS=4 ", args);
        cr_assert_eq(r.status, 0, "%s", r.err);
        unsigned long long hit, runs;
        interfered_runs(r.err, &hit, &runs);
        cr_expect_eq(runs, 3, "%s", r.err);
        hit_sum += hit, runs_sum += runs;
        cli_result_free(r);
        size_t k = strlen(traces);
        snprintf(traces + k, sizeof traces - k, " @/t%d.trace", i);
    }
    snprintf(args, sizeof args, "annotate tests/probe/data/tasks.json%s -o @/a.json --quiet",
             traces);
    cli_result r = cli_run(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(r);
    json_error_t e;
    json_t *set = json_load_file(test_tmp("a.json"), 0, &e);
    cr_assert_not_null(set, "%s", e.text);
    json_t *flags = json_object_get(json_array_get(json_object_get(set, "graphs"), 0),
                                    "observed_response_ns_interfered");
    cr_assert(json_is_array(flags), "no observed_response_ns_interfered");
    cr_expect_eq(json_array_size(flags), runs_sum);
    unsigned long long annotated = 0;
    for (size_t i = 0; i < json_array_size(flags); ++i)
        annotated += json_is_true(json_array_get(flags, i));
    cr_expect_eq(annotated, hit_sum, "annotate flags %llu runs, ompdag run counted %llu", annotated,
                 hit_sum);
    json_decref(set);
}

/* Issue 26 item 13: `run --trace` removed a symlink loop and a dangling link
 * and wrote a regular file in their place.  A loop is refused (exit 1, the
 * links kept); a dangling link creates the file it names. */
Test(run_rt, trace_through_a_link_loop_is_refused_and_a_dangling_link_followed)
{
    char a[640], b[640], dangling[640], target[640];
    snprintf(a, sizeof a, "%s", test_tmp("loop_a"));
    snprintf(b, sizeof b, "%s", test_tmp("loop_b"));
    snprintf(dangling, sizeof dangling, "%s", test_tmp("dangling"));
    snprintf(target, sizeof target, "%s", test_tmp("later.trace"));
    cr_assert_eq(symlink("loop_b", a), 0);
    cr_assert_eq(symlink("loop_a", b), 0);
    cr_assert_eq(symlink("later.trace", dangling), 0);
    cli_result r = cli_run("run --quiet --trace @/loop_a -- " OMPDAG_SCHED_PROG);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(has(r.err, "symbolic links"), "%s", r.err);
    cli_result_free(r);
    struct stat st;
    cr_expect(lstat(a, &st) == 0 && S_ISLNK(st.st_mode), "the loop's link was replaced");
    r = cli_run("run --quiet --trace @/dangling -- " OMPDAG_SCHED_PROG);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_result_free(r);
    cr_expect(lstat(dangling, &st) == 0 && S_ISLNK(st.st_mode), "the link was replaced");
    cr_expect(stat(target, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0,
              "the trace is not where the link points");
}
