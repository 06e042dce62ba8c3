/*
 * cli/cmd_run.c — `ompdag run [--trace FILE] -- PROG ARGS...`: runs an OpenMP
 * program with libompdag_probe.so loaded through OMP_TOOL_LIBRARIES (the OMPT
 * tool-loading mechanism, OpenMP 5.1 §4.2.1) and summarises the trace.
 *
 * GCC's libgomp implements no OMPT, so a program linked with it is refused
 * with advice: rebuild with `clang -fopenmp`, or pass --preload-libomp, which
 * preloads LLVM's libomp (it also implements libgomp's GOMP_* entry points).
 *
 * Clean runs (issue 22 item 7): a run whose thread was preempted, waited on
 * the run queue or migrated is *interfered* (the probe's OMPDAG_REC_SCHED
 * records; annotate/annotate_overhead.c), and annotate never compares it
 * with the bound.  --rt makes clean runs the rule: the child is put under
 * SCHED_FIFO (sched_setscheduler(2) between fork and exec, so every OpenMP
 * thread inherits it, POSIX "inherit-sched") and its threads are pinned one
 * per core (OMP_PROC_BIND=close, OMP_PLACES=cores: OpenMP 5.1 §6.4-6.5).
 * --threads N caps every team at N threads (OMP_NUM_THREADS and
 * OMP_THREAD_LIMIT, which also caps num_threads(K) clauses) on N cores.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli_opts.h"
#include "ompdag/trace.h"

/* LLVM's libomp as found at configure time (cmake/OmpdagLLVM.cmake), else the
 * soname the dynamic loader resolves. */
#ifdef OMPDAG_DEFAULT_LIBOMP
#define DEFAULT_LIBOMP OMPDAG_DEFAULT_LIBOMP
#else
#define DEFAULT_LIBOMP "libomp.so.5"
#endif
/* The installed probe's directory relative to bin/ (top-level CMakeLists.txt). */
#ifndef OMPDAG_PKGLIBDIR_FROM_BIN
#define OMPDAG_PKGLIBDIR_FROM_BIN "../lib/ompdag"
#endif

/* A run is interfered when one of its threads waited longer than this on the
 * run queue: the same threshold as annotate's (ANNOT_RUNQ_DELAY_NS,
 * annotate/annotate_internal.h), so that the two counts agree. */
#define RUN_RUNQ_DELAY_NS 50000

/* What the child gets besides the probe: decided in the parent (so the
 * summary can say it), applied in the child between fork and exec. */
typedef struct run_setup {
    bool rt;         /* SCHED_FIFO */
    int rt_priority; /* its priority */
    int threads;     /* --threads N; 0: the program's own team sizes */
    bool set_bind;   /* OMP_PROC_BIND=close is ours (the user set none) */
    char places[32]; /* OMP_PLACES we set; "" keeps the user's (or none) */
} run_setup;

/* Where run's options go (run_table's destinations). */
typedef struct run_args {
    const char *trace, *probe, *libomp; /* libomp: NULL unless --preload-libomp */
    bool quiet;
    run_setup setup;
} run_args;

static int set_rt_priority(const char *arg, void *dest);
static int set_threads(const char *arg, void *dest);

enum { RUN_NOPTS = 7 };

/* run's options (cli_opts.h), in --help's order, writing into *a. */
static void run_table(run_args *a, cli_opt t[RUN_NOPTS])
{
    const cli_opt opts[RUN_NOPTS] = {
        {"trace", 't', CLI_ARG_REQUIRED, "--trace FILE", "trace to write (default: ompdag.trace)",
         CLI_OPT_STRING, &a->trace, NULL, NULL},
        {"probe", 'p', CLI_ARG_REQUIRED, "--probe LIB",
         "the probe library (default: $OMPDAG_PROBE_LIB, else\n"
         "next to this ompdag: ../runtime-probe, ../lib, .)",
         CLI_OPT_STRING, &a->probe, NULL, NULL},
        {"preload-libomp", 0, CLI_ARG_OPTIONAL, "--preload-libomp[=L]",
         "preload LLVM's libomp (default " DEFAULT_LIBOMP "), for programs\n"
         "linked with GCC's libgomp, which has no OMPT",
         CLI_OPT_STRING, &a->libomp, DEFAULT_LIBOMP, NULL},
        {"quiet", 'q', CLI_ARG_NONE, "--quiet", "print no summary", CLI_OPT_FLAG, &a->quiet, NULL,
         NULL},
        {"rt", 0, CLI_ARG_NONE, "--rt",
         "run PROG under SCHED_FIFO (priority 1) with its threads\n"
         "pinned one per core (OMP_PROC_BIND=close, OMP_PLACES=cores\n"
         "unless set), so that runs are not interfered; needs\n"
         "CAP_SYS_NICE, root or an RLIMIT_RTPRIO >= the priority,\n"
         "and is refused before PROG runs without it",
         CLI_OPT_FLAG, &a->setup.rt, NULL, NULL},
        {"rt-priority", 0, CLI_ARG_REQUIRED, "--rt-priority N",
         "SCHED_FIFO priority N (1..99; implies --rt)", CLI_OPT_CALL, &a->setup, NULL,
         set_rt_priority},
        {"threads", 0, CLI_ARG_REQUIRED, "--threads N",
         "at most N threads per team (OMP_NUM_THREADS and\n"
         "OMP_THREAD_LIMIT, which caps num_threads(K) clauses too),\n"
         "pinned to N cores (OMP_PLACES=cores(N) unless set)",
         CLI_OPT_CALL, &a->setup.threads, NULL, set_threads},
    };
    memcpy(t, opts, sizeof opts);
}

void cmd_run_help(FILE *out)
{
    run_args a;
    cli_opt t[RUN_NOPTS];
    run_table(&a, t);
    fprintf(out,
            "usage: ompdag run [--trace FILE] [--probe LIB] [--preload-libomp[=LIB]] [--quiet]\n"
            "                  [--rt] [--rt-priority N] [--threads N] -- PROG [ARGS...]\n\n"
            "Runs PROG (built with clang -fopenmp -g) under the OMPT probe, which records\n"
            "the own time of every task segment between scheduling points, each parallel\n"
            "region's response time, and the program's build-id and load addresses.\n\n");
    cli_opts_help(&(cli_opts){"run", t, RUN_NOPTS, true}, out);
    fprintf(out,
            "\nThe summary counts the region runs the OS interfered with (a thread preempted,\n"
            "more than %d us on the run queue, or migrated): annotate compares only clean\n"
            "runs with the bound.\n\n"
            "The exit status is PROG's; 1 when ompdag cannot run it (--rt refused, no probe,\n"
            "no program).  Then: ompdag annotate GRAPHS.json FILE\n",
            RUN_RUNQ_DELAY_NS / 1000);
}

static bool readable(const char *p)
{
    return p && access(p, R_OK) == 0;
}

/* The probe: --probe, $OMPDAG_PROBE_LIB, or relative to this executable. */
static bool find_probe(const char *given, char *out, size_t n)
{
    if (given) {
        if (!realpath(given, out)) return false;
        return readable(out);
    }
    const char *env = getenv("OMPDAG_PROBE_LIB");
    if (env && *env) return realpath(env, out) && readable(out);
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) return false;
    self[len] = 0;
    char *slash = strrchr(self, '/');
    if (!slash) return false;
    *slash = 0;
    const char *rel[] = {OMPDAG_PKGLIBDIR_FROM_BIN "/libompdag_probe.so",
                         "../runtime-probe/libompdag_probe.so", "../lib/libompdag_probe.so",
                         "libompdag_probe.so", "../lib/ompdag/libompdag_probe.so"};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; ++i) {
        char cand[PATH_MAX + 64];
        snprintf(cand, sizeof cand, "%s/%s", self, rel[i]);
        if (readable(cand) && realpath(cand, out)) return true;
    }
    return false;
}

/* PROG as execvp would find it. */
static bool resolve_program(const char *prog, char *out, size_t n)
{
    if (strchr(prog, '/')) return snprintf(out, n, "%s", prog) < (int)n && access(out, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path) return false;
    char *copy = strdup(path);
    bool found = false;
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir && !found;
         dir = strtok_r(NULL, ":", &save)) {
        snprintf(out, n, "%s/%s", *dir ? dir : ".", prog);
        found = access(out, X_OK) == 0;
    }
    free(copy);
    return found;
}

/* ---- --rt and --threads ----------------------------------------------------- */

static bool env_set(const char *name)
{
    const char *v = getenv(name);
    return v && *v;
}

/* Pinning for --rt and --threads: one thread per core, the team's threads
 * side by side; a binding the user chose is kept. */
static void plan_binding(run_setup *s)
{
    if (!s->rt && !s->threads) return;
    s->set_bind = !env_set("OMP_PROC_BIND");
    if (env_set("OMP_PLACES")) return;
    if (s->threads)
        snprintf(s->places, sizeof s->places, "cores(%d)", s->threads);
    else
        snprintf(s->places, sizeof s->places, "cores");
}

/* CPUs this process may run on (its affinity mask); 0 when unknown. */
static int usable_cpus(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) ? 0 : CPU_COUNT(&set);
}

/* The errno of sched_setscheduler(SCHED_FIFO, prio) tried in a throw-away
 * child, so that ompdag keeps its own policy and PROG has not started when
 * the answer is no; 0 when it is permitted. */
static int fifo_refusal(int prio)
{
    pid_t pid = fork();
    if (pid < 0) return errno;
    if (pid == 0) {
        struct sched_param p = {.sched_priority = prio};
        _exit(sched_setscheduler(0, SCHED_FIFO, &p) == 0 ? 0
              : errno > 0 && errno < 256                 ? errno
                                                         : EPERM);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return errno;
    return WIFEXITED(st) ? WEXITSTATUS(st) : EPERM;
}

static int refuse_rt(int prio, int e)
{
    struct rlimit rl;
    char limit[32] = "unknown";
    if (getrlimit(RLIMIT_RTPRIO, &rl) == 0)
        snprintf(limit, sizeof limit, rl.rlim_cur == RLIM_INFINITY ? "unlimited" : "%llu",
                 (unsigned long long)rl.rlim_cur);
    fprintf(stderr,
            "ompdag run: --rt refused, nothing was run: this process may not use SCHED_FIFO "
            "priority %d (%s; RLIMIT_RTPRIO %s).\n"
            "SCHED_FIFO needs CAP_SYS_NICE or root (or an RLIMIT_RTPRIO >= %d): run as root, or "
            "`setcap cap_sys_nice+ep` the ompdag executable, or drop --rt.  (In a container, the "
            "container also needs CAP_SYS_NICE and a real-time CPU budget.)\n",
            prio, strerror(e), limit, prio);
    return CLI_EXIT_FAIL;
}

/* In the child, before exec: the environment and the policy of `s`.  Returns
 * false with errno set when SCHED_FIFO is refused (checked before the fork,
 * so only a change in between gets here). */
static bool apply_setup(const run_setup *s)
{
    char n[16];
    snprintf(n, sizeof n, "%d", s->threads);
    if (s->threads && (setenv("OMP_NUM_THREADS", n, 1) || setenv("OMP_THREAD_LIMIT", n, 1)))
        return false;
    if (s->set_bind && setenv("OMP_PROC_BIND", "close", 1)) return false;
    if (s->places[0] && setenv("OMP_PLACES", s->places, 1)) return false;
    struct sched_param p = {.sched_priority = s->rt_priority};
    return !s->rt || sched_setscheduler(0, SCHED_FIFO, &p) == 0;
}

static void print_setup(const run_setup *s)
{
    if (!s->rt && !s->threads) return;
    char policy[48] = "";
    if (s->rt) snprintf(policy, sizeof policy, "SCHED_FIFO priority %d, ", s->rt_priority);
    const char *bind = s->set_bind ? "close" : getenv("OMP_PROC_BIND");
    const char *places = s->places[0] ? s->places : getenv("OMP_PLACES");
    fprintf(stderr, "ompdag run: %sOMP_PROC_BIND=%s OMP_PLACES=%s", policy, bind ? bind : "",
            places ? places : "");
    if (s->threads)
        fprintf(stderr, " OMP_NUM_THREADS=%d OMP_THREAD_LIMIT=%d", s->threads, s->threads);
    fprintf(stderr, "%s\n", s->set_bind || s->places[0] ? "" : " (the user's binding)");
}

/* ---- interference ------------------------------------------------------------ */

/* Region runs and thread-runs (one thread's implicit task in one region run)
 * the OS interfered with. */
typedef struct run_interference {
    uint64_t runs, runs_interfered;
    uint64_t thread_runs, thread_runs_interfered;
} run_interference;

/* Begin before end of the same thread of the same region run. */
static int cmp_sched(const void *pa, const void *pb)
{
    const ompdag_trace_rec *a = pa, *b = pb;
    if (a->aux != b->aux) return a->aux < b->aux ? -1 : 1;
    if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
    if (a->flags != b->flags) return a->flags < b->flags ? -1 : 1;
    return (a->time > b->time) - (a->time < b->time);
}

static bool counter_grew(uint64_t before, uint64_t after, uint64_t by)
{
    return before != UINT64_MAX && after != UINT64_MAX && after > before && after - before > by;
}

/* annotate's rule (annot_sched_record): preempted (involuntary context
 * switches grew), waited more than RUN_RUNQ_DELAY_NS on the run queue, or
 * ended on another CPU than it began on.  OMPDAG_REC_SCHED: dur = run-queue
 * delay, cp_start = involuntary switches, cp_end = CPU (ompdag/probe.h). */
static bool thread_interfered(const ompdag_trace_rec *begin, const ompdag_trace_rec *end)
{
    return counter_grew(begin->cp_start, end->cp_start, 0) ||
           counter_grew(begin->dur, end->dur, RUN_RUNQ_DELAY_NS) ||
           (begin->cp_end != UINT64_MAX && end->cp_end != UINT64_MAX &&
            begin->cp_end != end->cp_end);
}

/* The trace's OMPDAG_REC_SCHED records, in a new array (free it). */
static ompdag_status read_sched_records(const char *trace, ompdag_trace_rec **out, size_t *n,
                                        ompdag_error *err)
{
    ompdag_trace_reader *r = NULL;
    size_t cap = 0;
    *out = NULL, *n = 0;
    ompdag_status st = ompdag_trace_reader_open(trace, &r, err);
    if (st) return st;
    for (bool done = false; st == OMPDAG_OK && !done;) {
        ompdag_trace_rec rec;
        st = ompdag_trace_reader_next(r, &rec, &done, err);
        if (st || done || rec.type != OMPDAG_REC_SCHED) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            ompdag_trace_rec *grown = realloc(*out, cap * sizeof **out);
            if (!grown)
                st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
            else
                *out = grown;
        }
        if (st == OMPDAG_OK) (*out)[(*n)++] = rec;
    }
    ompdag_trace_reader_destroy(r);
    return st;
}

static ompdag_status count_interference(const char *trace, run_interference *out, ompdag_error *err)
{
    ompdag_trace_rec *rec;
    size_t n;
    memset(out, 0, sizeof *out);
    ompdag_status st = read_sched_records(trace, &rec, &n, err);
    if (st) {
        free(rec);
        return st;
    }
    qsort(rec, n, sizeof *rec, cmp_sched);
    for (size_t i = 0; i < n;) {
        uint64_t run = rec[i].aux;
        bool hit = false;
        for (; i < n && rec[i].aux == run; ++i) {
            bool pair = rec[i].flags == 0 && i + 1 < n && rec[i + 1].aux == run &&
                        rec[i + 1].thread == rec[i].thread && rec[i + 1].flags == 1;
            if (!pair) continue;
            bool intf = thread_interfered(&rec[i], &rec[i + 1]);
            out->thread_runs++, out->thread_runs_interfered += intf;
            hit |= intf;
            ++i;
        }
        out->runs++, out->runs_interfered += hit;
    }
    free(rec);
    return OMPDAG_OK;
}

static void print_interference(const char *trace, const run_setup *setup)
{
    run_interference in;
    ompdag_error err;
    if (count_interference(trace, &in, &err)) {
        fprintf(stderr, "ompdag run: %s\n", err.message);
        return;
    }
    if (!in.runs) return;
    fprintf(stderr,
            "ompdag run: interfered: %llu of %llu region run(s), %llu of %llu thread-run(s) "
            "(preempted, > %d us on the run queue, or migrated); annotate compares only clean "
            "runs with the bound\n",
            (unsigned long long)in.runs_interfered, (unsigned long long)in.runs,
            (unsigned long long)in.thread_runs_interfered, (unsigned long long)in.thread_runs,
            RUN_RUNQ_DELAY_NS / 1000);
    if (in.runs_interfered && !setup->rt)
        fprintf(stderr, "ompdag run: hint: --rt (SCHED_FIFO, threads pinned) with --threads N "
                        "at most the cores makes clean runs the rule\n");
}

static void print_summary(const char *trace)
{
    ompdag_trace_summary s;
    ompdag_error err;
    if (ompdag_trace_summarize(trace, &s, &err)) {
        fprintf(stderr, "ompdag run: %s\n", err.message);
        return;
    }
    fprintf(stderr,
            "ompdag run: trace %s: %llu parallel regions, %llu tasks created / %llu completed, "
            "%llu segments (%llu untied), %u threads%s\n",
            trace, (unsigned long long)s.regions_ended, (unsigned long long)s.tasks_created,
            (unsigned long long)s.tasks_ended, (unsigned long long)s.segments,
            (unsigned long long)s.untied_segments, s.threads,
            s.interrupted ? ", interrupted by a signal" : "");
    if (s.depend_items || s.depend_pairs)
        fprintf(stderr,
                "ompdag run: depend: %llu list items, %llu dependences the runtime enforced "
                "(checked against the graph by annotate)\n",
                (unsigned long long)s.depend_items, (unsigned long long)s.depend_pairs);
    if (s.anomalies || s.dropped)
        fprintf(stderr,
                "ompdag run: warning: %llu runtime events could not be paired, %llu records "
                "dropped\n",
                (unsigned long long)s.anomalies, (unsigned long long)s.dropped);
}

/* Replaces path (an absolute path, in a buffer of `size`) by what its
 * symbolic links lead to, following them one by one, so that a dangling
 * link gives the missing file it names.  0, or ELOOP / ENAMETOOLONG. */
static int follow_links(char *path, size_t size)
{
    for (int hop = 0; hop < 40; ++hop) {
        struct stat ls;
        if (lstat(path, &ls) != 0 || !S_ISLNK(ls.st_mode)) return 0;
        char to[PATH_MAX];
        ssize_t n = readlink(path, to, sizeof to - 1);
        if (n < 0) return 0;
        to[n] = '\0';
        char next[PATH_MAX + 2];
        const char *slash = strrchr(path, '/');
        int w = to[0] == '/' || !slash
                    ? snprintf(next, sizeof next, "%s", to)
                    : snprintf(next, sizeof next, "%.*s/%s", (int)(slash - path), path, to);
        if (w < 0 || (size_t)w >= size || (size_t)w >= sizeof next) return ENAMETOOLONG;
        memcpy(path, next, (size_t)w + 1);
    }
    return ELOOP;
}

static int set_rt_priority(const char *arg, void *dest)
{
    run_setup *setup = dest;
    int64_t v;
    if (!cli_parse_i64(arg, sched_get_priority_min(SCHED_FIFO),
                       sched_get_priority_max(SCHED_FIFO), &v))
        return cli_usage_error("run",
                               "--rt-priority '%s': give a SCHED_FIFO priority "
                               "%d..%d",
                               arg, sched_get_priority_min(SCHED_FIFO),
                               sched_get_priority_max(SCHED_FIFO));
    setup->rt = true, setup->rt_priority = (int)v;
    return 0;
}

static int set_threads(const char *arg, void *dest)
{
    int64_t v;
    if (!cli_parse_i64(arg, 1, CPU_SETSIZE, &v))
        return cli_usage_error("run", "--threads '%s': give a thread count 1..%d", arg,
                               CPU_SETSIZE);
    *(int *)dest = (int)v;
    return 0;
}

/* PROG's OpenMP runtime: refuses GCC's libgomp unless LLVM's libomp is
 * preloaded, and warns when the runtime cannot be seen.  0, or the exit
 * code after saying why. */
static int check_program(const char *prog, const char *libomp, bool quiet)
{
    ompdag_omp_runtime rt = OMPDAG_OMP_RUNTIME_NONE;
    ompdag_error err;
    bool inspected = ompdag_program_omp_runtime(prog, &rt, &err) == OMPDAG_OK;
    if (!inspected && !quiet) /* e.g. a wrapper script */
        fprintf(stderr, "ompdag run: warning: cannot inspect %s: %s\n", prog, err.message);
    if (rt == OMPDAG_OMP_RUNTIME_GNU && !libomp) {
        fprintf(stderr,
                "ompdag run: %s is linked with GCC's libgomp, which has no OMPT interface, so\n"
                "the probe cannot observe it.  Rebuild it with `clang -fopenmp -g` (LLVM's\n"
                "libomp), or run it with LLVM's libomp preloaded: ompdag run --preload-libomp\n"
                "(LD_PRELOAD=%s).\n",
                prog, DEFAULT_LIBOMP);
        return CLI_EXIT_FAIL;
    }
    if (inspected && rt == OMPDAG_OMP_RUNTIME_NONE && !libomp && !quiet)
        fprintf(stderr,
                "ompdag run: warning: %s links no OpenMP runtime dynamically; the probe "
                "loads only with LLVM's libomp\n",
                prog);
    if (libomp && !readable(libomp)) {
        fprintf(stderr, "ompdag run: cannot read %s\n", libomp);
        return CLI_EXIT_FAIL;
    }
    return 0;
}

/* The trace's absolute path into trace_abs (links followed), checked
 * writable and emptied: 0, or the exit code after saying why. */
static int prepare_trace(const char *trace, char *trace_abs, size_t size)
{
    if (trace[0] == '/') {
        snprintf(trace_abs, size, "%s", trace);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd))
            return fprintf(stderr, "ompdag run: getcwd: %s\n", strerror(errno)), CLI_EXIT_FAIL;
        if (snprintf(trace_abs, size, "%s/%s", cwd, trace) >= (int)size)
            return fprintf(stderr, "ompdag run: trace path too long\n"), CLI_EXIT_FAIL;
    }
    /* A symbolic link is followed: its target is the trace, the link stays
     * (a dangling one names the file to create; a loop is refused: it was
     * removed and replaced by a regular file, issue 26 item 13). */
    int loop = follow_links(trace_abs, size);
    if (loop) {
        fprintf(stderr, "ompdag run: cannot write the trace %s: %s\n", trace, strerror(loop));
        return CLI_EXIT_FAIL;
    }
    char dir[PATH_MAX + 2];
    snprintf(dir, sizeof dir, "%s", trace_abs);
    char *slash = strrchr(dir, '/');
    if (slash) *(slash == dir ? slash + 1 : slash) = 0;
    if (access(dir, W_OK) != 0) {
        fprintf(stderr, "ompdag run: cannot write the trace %s into %s: %s\n", trace_abs, dir,
                strerror(errno));
        return CLI_EXIT_FAIL;
    }
    /* The trace is read back after the run, so it must be a regular file; and
     * only a regular file of ours may be removed (never a device or a FIFO).
     * A path that cannot hold the trace is bad input (exit 1), as `-o DIR`
     * is in every other command. */
    struct stat prior;
    if (stat(trace_abs, &prior) == 0 && !S_ISREG(prior.st_mode)) {
        fprintf(stderr,
                "ompdag run: --trace %s is not a regular file (a device, FIFO or directory); "
                "the trace is read back after the run, so give a file path\n",
                trace);
        return CLI_EXIT_FAIL;
    }
    if (unlink(trace_abs) && errno != ENOENT) {
        fprintf(stderr, "ompdag run: cannot replace %s: %s\n", trace_abs, strerror(errno));
        return CLI_EXIT_FAIL;
    }
    return 0;
}

/* In the child: the probe's environment, the setup, then PROG; never returns. */
static void exec_child(const char *prog, char **prog_argv, const char *probe_path,
                       const char *trace_abs, const char *libomp, const run_setup *setup)
{
    setenv("OMP_TOOL", "enabled", 1);
    setenv("OMP_TOOL_LIBRARIES", probe_path, 1);
    setenv("OMPDAG_TRACE", trace_abs, 1);
    if (libomp) {
        const char *old = getenv("LD_PRELOAD");
        char pre[2 * PATH_MAX];
        snprintf(pre, sizeof pre, "%s%s%s", libomp, old && *old ? ":" : "", old ? old : "");
        setenv("LD_PRELOAD", pre, 1);
    }
    if (!apply_setup(setup)) {
        fprintf(stderr, "ompdag run: cannot set up %s: %s\n", prog, strerror(errno));
        _exit(127);
    }
    execv(prog, prog_argv);
    fprintf(stderr, "ompdag run: cannot execute %s: %s\n", prog, strerror(errno));
    _exit(127);
}

/* Forks PROG and waits for it: its wait status in *status; false when
 * fork failed (said). */
static bool run_child(const char *prog, char **prog_argv, const char *probe_path,
                      const char *trace_abs, const char *libomp, const run_setup *setup,
                      int *status)
{
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_term;
    sigemptyset(&ign.sa_mask);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "ompdag run: fork: %s\n", strerror(errno));
        return false;
    }
    if (pid == 0) exec_child(prog, prog_argv, probe_path, trace_abs, libomp, setup);
    /* Ctrl-C reaches the child (same process group); its probe flushes. */
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGTERM, &ign, &old_term);
    *status = 0;
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return true;
}

/* After PROG: PROG's exit status (128 + signal), or the failure to write
 * a trace; the summaries unless --quiet. */
static int report_run(const char *prog, const char *trace_abs, const run_args *a, int status)
{
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    struct stat st;
    if (stat(trace_abs, &st) != 0) {
        fprintf(stderr,
                "ompdag run: no trace was written: the probe was not loaded.  Is %s built with\n"
                "clang -fopenmp and linked dynamically with LLVM's libomp?  (GCC's libgomp has\n"
                "no OMPT: rebuild with clang, or use --preload-libomp.)\n",
                prog);
        return code ? code : CLI_EXIT_FAIL;
    }
    if (!a->quiet) {
        if (WIFSIGNALED(status))
            fprintf(stderr, "ompdag run: %s was killed by signal %d\n", prog, WTERMSIG(status));
        print_setup(&a->setup);
        print_summary(trace_abs);
        print_interference(trace_abs, &a->setup);
    }
    return code;
}

int cmd_run(int argc, char **argv)
{
    run_args a = {.trace = "ompdag.trace", .setup = {.rt_priority = 1}};
    cli_opt table[RUN_NOPTS];
    run_table(&a, table);
    int first, rc = cli_opts_parse(&(cli_opts){"run", table, RUN_NOPTS, true}, argc, argv, &first);
    if (rc) return rc;
    if (first >= argc)
        return cli_usage_error("run", "no program given (ompdag run [OPTIONS] -- PROG ARGS...)");
    char **prog_argv = argv + first;
    int refused = a.setup.rt ? fifo_refusal(a.setup.rt_priority) : 0;
    if (refused) return refuse_rt(a.setup.rt_priority, refused);
    plan_binding(&a.setup);
    int cpus = usable_cpus();
    if (a.setup.threads > cpus && cpus > 0 && !a.quiet)
        fprintf(stderr,
                "ompdag run: warning: --threads %d on %d CPU(s): threads share CPUs, so "
                "runs are interfered\n",
                a.setup.threads, cpus);

    char probe_path[PATH_MAX];
    if (!find_probe(a.probe, probe_path, sizeof probe_path)) {
        fprintf(stderr, "ompdag run: cannot find libompdag_probe.so (pass --probe or set "
                        "OMPDAG_PROBE_LIB)\n");
        return CLI_EXIT_FAIL;
    }
    char prog[PATH_MAX];
    if (!resolve_program(prog_argv[0], prog, sizeof prog)) {
        fprintf(stderr, "ompdag run: cannot find program '%s'\n", prog_argv[0]);
        return CLI_EXIT_FAIL;
    }
    char trace_abs[PATH_MAX + 2];
    if ((rc = check_program(prog, a.libomp, a.quiet)) ||
        (rc = prepare_trace(a.trace, trace_abs, sizeof trace_abs)))
        return rc;
    int status;
    if (!run_child(prog, prog_argv, probe_path, trace_abs, a.libomp, &a.setup, &status))
        return CLI_EXIT_FAIL;
    return report_run(prog, trace_abs, &a, status);
}
