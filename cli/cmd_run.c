/*
 * cli/cmd_run.c — `ompdag run [--trace FILE] -- PROG ARGS...`: runs an OpenMP
 * program with libompdag_probe.so loaded through OMP_TOOL_LIBRARIES (the OMPT
 * tool-loading mechanism, OpenMP 5.1 §4.2.1) and summarises the trace.
 *
 * GCC's libgomp implements no OMPT, so a program linked with it is refused
 * with advice: rebuild with `clang -fopenmp`, or pass --preload-libomp, which
 * preloads LLVM's libomp (it also implements libgomp's GOMP_* entry points).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
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

void cmd_run_help(FILE *out)
{
    fprintf(out,
            "usage: ompdag run [--trace FILE] [--probe LIB] [--preload-libomp[=LIB]] [--quiet]\n"
            "                  -- PROG [ARGS...]\n\n"
            "Runs PROG (built with clang -fopenmp -g) under the OMPT probe, which records\n"
            "the own time of every task segment between scheduling points, each parallel\n"
            "region's response time, and the program's build-id and load addresses.\n\n"
            "  --trace FILE          trace to write (default: ompdag.trace)\n"
            "  --probe LIB           the probe library (default: $OMPDAG_PROBE_LIB, else\n"
            "                        next to this ompdag: ../runtime-probe, ../lib, .)\n"
            "  --preload-libomp[=L]  preload LLVM's libomp (default %s), for programs\n"
            "                        linked with GCC's libgomp, which has no OMPT\n"
            "  --quiet               print no summary\n\n"
            "The exit status is PROG's.  Then: ompdag annotate GRAPHS.json FILE\n",
            DEFAULT_LIBOMP);
}

static bool readable(const char *p)
{
    return p && access(p, R_OK) == 0;
}

/* The probe: --probe, $OMPDAG_PROBE_LIB, or relative to this executable. */
static bool find_probe(const char *given, char *out, size_t n)
{
    if (given) {
        if (!realpath(given, out))
            return false;
        return readable(out);
    }
    const char *env = getenv("OMPDAG_PROBE_LIB");
    if (env && *env)
        return realpath(env, out) && readable(out);
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return false;
    self[len] = 0;
    char *slash = strrchr(self, '/');
    if (!slash)
        return false;
    *slash = 0;
    const char *rel[] = {OMPDAG_PKGLIBDIR_FROM_BIN "/libompdag_probe.so",
                         "../runtime-probe/libompdag_probe.so", "../lib/libompdag_probe.so",
                         "libompdag_probe.so", "../lib/ompdag/libompdag_probe.so"};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; ++i) {
        char cand[PATH_MAX + 64];
        snprintf(cand, sizeof cand, "%s/%s", self, rel[i]);
        if (readable(cand) && realpath(cand, out))
            return true;
    }
    return false;
}

/* PROG as execvp would find it. */
static bool resolve_program(const char *prog, char *out, size_t n)
{
    if (strchr(prog, '/'))
        return snprintf(out, n, "%s", prog) < (int)n && access(out, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path)
        return false;
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

int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {{"trace", required_argument, NULL, 't'},
                                         {"probe", required_argument, NULL, 'p'},
                                         {"preload-libomp", optional_argument, NULL, 'L'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {NULL, 0, NULL, 0}};
    const char *trace = "ompdag.trace", *probe = NULL, *libomp = NULL;
    bool quiet = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+t:p:q", opts, NULL)) != -1) {
        switch (c) {
        case 't': trace = optarg; break;
        case 'p': probe = optarg; break;
        case 'L': libomp = optarg ? optarg : DEFAULT_LIBOMP; break;
        case 'q': quiet = true; break;
        default: return cli_option_error("run", argv, opts, "+t:p:q");
        }
    }
    if (optind >= argc)
        return cli_usage_error("run", "no program given (ompdag run [OPTIONS] -- PROG ARGS...)");
    char **prog_argv = argv + optind;

    char probe_path[PATH_MAX];
    if (!find_probe(probe, probe_path, sizeof probe_path)) {
        fprintf(stderr, "ompdag run: cannot find libompdag_probe.so (pass --probe or set "
                        "OMPDAG_PROBE_LIB)\n");
        return CLI_EXIT_FAIL;
    }
    char prog[PATH_MAX];
    if (!resolve_program(prog_argv[0], prog, sizeof prog)) {
        fprintf(stderr, "ompdag run: cannot find program '%s'\n", prog_argv[0]);
        return CLI_EXIT_FAIL;
    }
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
        fprintf(stderr, "ompdag run: warning: %s links no OpenMP runtime dynamically; the probe "
                        "loads only with LLVM's libomp\n",
                prog);
    if (libomp && !readable(libomp)) {
        fprintf(stderr, "ompdag run: cannot read %s\n", libomp);
        return CLI_EXIT_FAIL;
    }

    char trace_abs[PATH_MAX + 2];
    if (trace[0] == '/') {
        snprintf(trace_abs, sizeof trace_abs, "%s", trace);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd))
            return fprintf(stderr, "ompdag run: getcwd: %s\n", strerror(errno)), CLI_EXIT_FAIL;
        if (snprintf(trace_abs, sizeof trace_abs, "%s/%s", cwd, trace) >= (int)sizeof trace_abs)
            return fprintf(stderr, "ompdag run: trace path too long\n"), CLI_EXIT_FAIL;
    }
    /* A symbolic link is followed: its target is the trace, the link stays. */
    char real[PATH_MAX];
    struct stat link_st;
    if (lstat(trace_abs, &link_st) == 0 && S_ISLNK(link_st.st_mode) && realpath(trace_abs, real))
        snprintf(trace_abs, sizeof trace_abs, "%s", real);
    char dir[PATH_MAX + 2];
    snprintf(dir, sizeof dir, "%s", trace_abs);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = 0;
    if (access(dir, W_OK) != 0) {
        fprintf(stderr, "ompdag run: cannot write the trace into %s: %s\n", dir, strerror(errno));
        return CLI_EXIT_FAIL;
    }
    /* The trace is read back after the run, so it must be a regular file; and
     * only a regular file of ours may be removed (never a device or a FIFO). */
    struct stat prior;
    if (stat(trace_abs, &prior) == 0 && !S_ISREG(prior.st_mode)) {
        fprintf(stderr,
                "ompdag run: --trace %s is not a regular file (a device, FIFO or directory); "
                "the trace is read back after the run, so give a file path\n",
                trace);
        return CLI_EXIT_USAGE;
    }
    if (unlink(trace_abs) && errno != ENOENT) {
        fprintf(stderr, "ompdag run: cannot replace %s: %s\n", trace_abs, strerror(errno));
        return CLI_EXIT_FAIL;
    }

    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_term;
    sigemptyset(&ign.sa_mask);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "ompdag run: fork: %s\n", strerror(errno));
        return CLI_EXIT_FAIL;
    }
    if (pid == 0) {
        setenv("OMP_TOOL", "enabled", 1);
        setenv("OMP_TOOL_LIBRARIES", probe_path, 1);
        setenv("OMPDAG_TRACE", trace_abs, 1);
        if (libomp) {
            const char *old = getenv("LD_PRELOAD");
            char pre[2 * PATH_MAX];
            snprintf(pre, sizeof pre, "%s%s%s", libomp, old && *old ? ":" : "", old ? old : "");
            setenv("LD_PRELOAD", pre, 1);
        }
        execv(prog, prog_argv);
        fprintf(stderr, "ompdag run: cannot execute %s: %s\n", prog, strerror(errno));
        _exit(127);
    }
    /* Ctrl-C reaches the child (same process group); its probe flushes. */
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGTERM, &ign, &old_term);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
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
    if (!quiet) {
        if (WIFSIGNALED(status))
            fprintf(stderr, "ompdag run: %s was killed by signal %d\n", prog, WTERMSIG(status));
        print_summary(trace_abs);
    }
    return code;
}
