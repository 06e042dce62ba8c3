/* tests/probe/probe_util.h — running clang-built test programs under the
 * probe, shared by the probe test files. */
#ifndef PROBE_UTIL_H
#define PROBE_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <ftw.h>
#include <unistd.h>

#include "ompdag/internal/condag_json.h"
#include "ompdag/trace.h"

static char probe_dirs[16][64];
static int probe_ndirs;

static inline int probe_rm_one(const char *path, const struct stat *st, int flag,
                               struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static inline void probe_cleanup(void)
{
    for (int i = 0; i < probe_ndirs; ++i)
        nftw(probe_dirs[i], probe_rm_one, 8, FTW_DEPTH | FTW_PHYS);
    probe_ndirs = 0;
}

/* A fresh temporary directory, removed with its contents when the test's
 * process exits. */
static inline const char *probe_tmpdir(char *buf, size_t n)
{
    snprintf(buf, n, "/tmp/ompdag-probe-test-XXXXXX");
    if (!mkdtemp(buf))
        return NULL;
    if (probe_ndirs == 0)
        atexit(probe_cleanup);
    if (probe_ndirs < 16)
        snprintf(probe_dirs[probe_ndirs++], sizeof probe_dirs[0], "%s", buf);
    return buf;
}

/* Runs progs/PROG with argv under the probe (OMP_TOOL_LIBRARIES), writing
 * `trace`; returns the raw wait status.  `env` is NULL or "K=V" strings
 * (NULL-terminated).  *maxrss_kb (if non-NULL) gets the child's peak RSS. */
static inline int probe_run(const char *prog, const char *const *args, int threads,
                            const char *trace, const char *const *env, long *maxrss_kb)
{
    char path[4096]; /* a progs/ name, or an absolute path */
    snprintf(path, sizeof path, "%s%s%s", prog[0] == '/' ? "" : OMPDAG_PROBE_PROGS,
             prog[0] == '/' ? "" : "/", prog);
    pid_t pid = fork();
    if (pid == 0) {
        char t[16];
        snprintf(t, sizeof t, "%d", threads);
        setenv("OMP_NUM_THREADS", t, 1);
        setenv("OMP_TOOL", "enabled", 1);
        setenv("OMP_TOOL_LIBRARIES", OMPDAG_PROBE_LIB_PATH, 1);
        setenv("OMPDAG_TRACE", trace, 1);
        unsetenv("LD_PRELOAD"); /* sanitizer builds: the program is not instrumented */
        for (int i = 0; env && env[i]; ++i)
            putenv((char *)env[i]);
        const char *argv[32] = {path};
        int k = 1;
        for (int i = 0; args && args[i] && k < 31; ++i)
            argv[k++] = args[i];
        argv[k] = NULL;
        execv(path, (char *const *)argv);
        _exit(127);
    }
    int status = -1;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0)
        return -1;
    if (maxrss_kb)
        *maxrss_kb = ru.ru_maxrss;
    return status;
}

/* Reads every record of a trace into a new array (caller frees). */
static inline ompdag_status probe_load(const char *trace, ompdag_trace_rec **recs, size_t *n,
                                       ompdag_trace_rec *footer, ompdag_error *err)
{
    ompdag_trace_reader *r;
    ompdag_status st = ompdag_trace_reader_open(trace, &r, err);
    if (st)
        return st;
    size_t cap = 1024;
    *n = 0;
    *recs = malloc(cap * sizeof **recs);
    for (;;) {
        ompdag_trace_rec rec;
        bool done;
        if ((st = ompdag_trace_reader_next(r, &rec, &done, err)))
            break;
        if (done) {
            if (footer)
                *footer = rec;
            break;
        }
        if (*n == cap)
            *recs = realloc(*recs, (cap *= 2) * sizeof **recs);
        (*recs)[(*n)++] = rec;
    }
    ompdag_trace_reader_destroy(r);
    return st;
}

#endif
