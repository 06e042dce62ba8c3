/*
 * tests/probe/test_stress.c — 10^7 tiny tasks under the probe: the trace is
 * streamed through a FIFO into the reader (so neither side stores it), no
 * event is lost (creations = completions = 10^7, footer counts match), and
 * the program's memory stays bounded (peak RSS far below the ~1.4 GB the
 * records would take if the probe kept them).
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sys/stat.h>

#include "probe/probe_util.h"

#define STRESS_TASKS 10000000L

typedef struct reader_job {
    const char *fifo;
    ompdag_trace_summary s;
    ompdag_status st;
    ompdag_error err;
} reader_job;

static void *read_fifo(void *arg)
{
    reader_job *j = arg;
    j->st = ompdag_trace_summarize(j->fifo, &j->s, &j->err);
    return NULL;
}

Test(stress, ten_million_tasks_bounded_memory_no_loss, .timeout = 110)
{
    char dir[64], fifo[128];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(fifo, sizeof fifo, "%s/trace.fifo", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    reader_job job = {.fifo = fifo};
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, read_fifo, &job), 0);
    char count[32];
    snprintf(count, sizeof count, "%ld", STRESS_TASKS);
    const char *args[] = {count, NULL};
    long rss_kb = 0;
    int status = probe_run("stress", args, 2, fifo, NULL, &rss_kb);
    pthread_join(th, NULL);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %x", status);
    cr_assert_eq(job.st, OMPDAG_OK, "%s", job.err.message);
    cr_assert_eq(job.s.tasks_created, (uint64_t)STRESS_TASKS);
    cr_assert_eq(job.s.tasks_ended, (uint64_t)STRESS_TASKS);
    cr_assert_eq(job.s.dropped, 0);
    cr_assert_geq(job.s.segments, (uint64_t)STRESS_TASKS);
    cr_assert_lt(rss_kb, 200 * 1024, "peak RSS %ld KiB", rss_kb);
    unlink(fifo);
    rmdir(dir);
}
