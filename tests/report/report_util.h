/* tests/report/report_util.h — what the report tests (tests/report/test_report*.c)
 * share: running the CLI from the source directory, loading the fixtures (also
 * with measured fork/join), making a report through the library, and
 * searching pages and SARIF logs. */
#ifndef REPORT_UTIL_H
#define REPORT_UTIL_H

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ompdag/internal/condag_json.h"
#include "ompdag/report.h"
#include "test_slurp.h"
#include "test_tmpdir.h"

typedef struct run_result {
    int status;
    char *out, *err;
} run_result;

static inline const char *tmpdir(void)
{
    const char *dir = test_tmpdir();
    cr_assert_not_null(dir, "mkdtemp failed");
    return dir;
}

static inline const char *src_dir(void)
{
    const char *s = getenv("OMPDAG_SOURCE_DIR");
    cr_assert(s, "run through ctest");
    return s;
}

/* Runs a shell command line from the source directory; `ompdag` is the
 * binary under test. */
static inline run_result sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline run_result sh(const char *fmt, ...)
{
    const char *build = getenv("OMPDAG_BUILD_DIR");
    cr_assert(build, "run through ctest");
    char line[8192], cmd[12288];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && ompdag() { '%s/cli/ompdag' \"$@\"; } && { %s ; } >%s/out 2>%s/err",
             src_dir(), build, line, tmpdir(), tmpdir());
    int st = system(cmd);
    char o[300], e[300];
    snprintf(o, sizeof o, "%s/out", tmpdir());
    snprintf(e, sizeof e, "%s/err", tmpdir());
    return (run_result){WIFEXITED(st) ? WEXITSTATUS(st) : -1, test_slurp(o), test_slurp(e)};
}

static inline void done(run_result r)
{
    free(r.out), free(r.err);
}

static inline ompdag_condag_set *load(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", src_dir(), rel);
    ompdag_condag_set *s = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_file(path, &s, &err), OMPDAG_OK, "%s", err.message);
    return s;
}

#define FIXTURE "tests/report/data/deadline.json"
#define FIG3 "tests/report/data/fig3_nested.annotated.json"

static inline const char *FIXTURE_PATH_BUF(void)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", src_dir(), FIXTURE);
    return path;
}

/* A report of s at the thread counts ms[0..nm) with the deadline specs
 * `deadlines` (NULL-terminated, or NULL); *st says whether it was made. */
static inline ompdag_report *make_report(ompdag_condag_set *s, const int32_t *ms, int nm,
                                         const char *const *deadlines, ompdag_error *err,
                                         ompdag_status *st)
{
    ompdag_deadlines *d = ompdag_deadlines_create();
    for (int i = 0; deadlines && deadlines[i]; ++i)
        cr_assert_eq(ompdag_deadlines_add(d, deadlines[i], err), OMPDAG_OK, "%s", err->message);
    ompdag_report_options opt;
    ompdag_report_options_init(&opt);
    opt.threads = ms, opt.thread_count = nm, opt.deadlines = d;
    ompdag_report *r = NULL;
    *st = ompdag_report_create(s, &opt, &r, err);
    ompdag_deadlines_destroy(d); /* the report copied what it needs */
    return r;
}

/* FIXTURE with measured fork/join and per-run task-system and region
 * responses (ns): fork max(100 us warm, 300 us cold) + join 50 us, margin
 * 20 % -> 420 us on top of the task system's bound. */
static inline ompdag_condag_set *load_with_fork_join(const char *task_ns, const char *region_ns)
{
    char *text = test_slurp(FIXTURE_PATH_BUF());
    const char *old = "\"observed_response_ns\": [1200000, 1500000, 900000],";
    char *at = strstr(text, old);
    cr_assert_not_null(at);
    char path[1024];
    snprintf(path, sizeof path, "%s/fork_join.json", tmpdir());
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f,
            "%.*s\"observed_response_ns\": %s, \"observed_task_response_ns\": %s, "
            "\"runtime_overheads\": {\"start_delay_ns\": 0, \"wake_delay_ns\": 0, "
            "\"fork_warm\": {\"samples\": 2, \"max_ns\": 100000, \"median_ns\": 90000}, "
            "\"fork_cold\": {\"samples\": 1, \"max_ns\": 300000, \"median_ns\": 300000}, "
            "\"join\": {\"samples\": 3, \"max_ns\": 50000, \"median_ns\": 40000}},%s",
            (int)(at - text), text, region_ns, task_ns, at + strlen(old));
    fclose(f);
    free(text);
    ompdag_condag_set *s = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_file(path, &s, &err), OMPDAG_OK, "%s", err.message);
    return s;
}

/* How many times `needle` occurs in `hay`. */
static inline int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        ++n;
    return n;
}

/* The SARIF result of `rule` at `line`, or NULL. */
static inline json_t *find_result(json_t *log, const char *rule, int line)
{
    json_t *results = json_object_get(json_array_get(json_object_get(log, "runs"), 0), "results");
    size_t i;
    json_t *x;
    json_array_foreach(results, i, x)
    {
        json_t *region = json_object_get(
            json_object_get(json_array_get(json_object_get(x, "locations"), 0), "physicalLocation"),
            "region");
        if (!strcmp(json_string_value(json_object_get(x, "ruleId")), rule) &&
            json_integer_value(json_object_get(region, "startLine")) == line)
            return x;
    }
    return NULL;
}

#endif
