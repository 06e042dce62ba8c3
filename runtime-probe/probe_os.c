/*
 * runtime-probe/probe_os.c — the OS's view of the calling thread, for the
 * OMPDAG_REC_SCHED records of probe.c (docs/overheads.md "Interference"):
 * its run-queue delay (/proc/thread-self/schedstat, second field), its
 * involuntary context switches (getrusage RUSAGE_THREAD) and its CPU.
 * Internal to libompdag_probe.so.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "probe_internal.h"

void probe_os_counters(uint64_t *runq_delay, uint64_t *nivcsw, uint64_t *cpu)
{
    uint64_t delay = UINT64_MAX;
    int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char buf[128];
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        unsigned long long run, wait;
        if (n > 0) {
            buf[n] = 0;
            if (sscanf(buf, "%llu %llu", &run, &wait) == 2) delay = wait;
        }
    }
    struct rusage ru;
    *nivcsw = getrusage(RUSAGE_THREAD, &ru) == 0 ? (uint64_t)ru.ru_nivcsw : UINT64_MAX;
    int c = sched_getcpu();
    *cpu = c >= 0 ? (uint64_t)c : UINT64_MAX;
    *runq_delay = delay;
}
