/*
 * ompdag/internal/fingerprint.h — what identifies a binary that has no GNU
 * build-id (linked with -Wl,--build-id=none): a content fingerprint, written
 * by the probe in the trace's build-id field and recomputed by annotate on
 * the binary it reads (issue 26 item 2: a binary edited and rebuilt without
 * a build-id annotated with the old WCETs, no warning).
 *
 * 20 bytes: "OMPC", FNV-1a (ompdag_trace_hash_bytes) of the whole file, and
 * its size, both little-endian 64-bit.  Internal: both sides are ompdag's.
 */
#ifndef OMPDAG_INTERNAL_FINGERPRINT_H
#define OMPDAG_INTERNAL_FINGERPRINT_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "ompdag/probe.h"

enum { OMPDAG_FINGERPRINT_LEN = 20 };

/* Fills out[OMPDAG_FINGERPRINT_LEN] from the file at path; false when it
 * cannot be read.  Async-signal-unsafe (it reads a file); no allocation. */
static inline bool ompdag_file_fingerprint(const char *path, uint8_t *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    uint64_t h = OMPDAG_TRACE_HASH_SEED, size = 0;
    unsigned char buf[1 << 16];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        h = ompdag_trace_hash_bytes(h, buf, (unsigned long)n);
        size += (uint64_t)n;
    }
    close(fd);
    if (n < 0) return false;
    memcpy(out, "OMPC", 4);
    for (int i = 0; i < 8; ++i) {
        out[4 + i] = (uint8_t)(h >> (8 * i));
        out[12 + i] = (uint8_t)(size >> (8 * i));
    }
    return true;
}

#endif
