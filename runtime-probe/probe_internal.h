/*
 * runtime-probe/probe_internal.h — what probe.c (the OMPT tool) takes from
 * probe_file.c and probe_os.c.  Internal to libompdag_probe.so (hidden symbols).
 */
#ifndef OMPDAG_PROBE_INTERNAL_H
#define OMPDAG_PROBE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

/* Writes iov[0..cnt) to fd in full (retrying short writes and EINTR);
 * false on a write error.  iov is consumed (its entries are advanced). */
bool probe_write_all(int fd, struct iovec *iov, int cnt);

/* Writes the trace header to fd: the executable's path and build-id (or
 * its fingerprint), the start time now() and every loaded module; *hash is
 * the hash of the header bytes, which seeds every chunk's checksum.  false
 * when memory or the write failed. */
bool probe_write_header(int fd, uint64_t (*now)(void), uint64_t *hash);

/* probe_os.c: the calling thread's run-queue delay so far (ns), involuntary
 * context switches so far and current CPU; UINT64_MAX where unknown. */
void probe_os_counters(uint64_t *runq_delay, uint64_t *nivcsw, uint64_t *cpu);

#endif
