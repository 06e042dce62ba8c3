/* tests/probe/trace_edit.h — rewriting a real trace's records, as a forger,
 * a probe bug or an older probe would write them: each record goes through
 * an edit, and every chunk's checksum is resealed (include/ompdag/probe.h),
 * so the reader judges the contents, not the checksum. */
#ifndef PROBE_TRACE_EDIT_H
#define PROBE_TRACE_EDIT_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "ompdag/probe.h"

/* Offset of the first chunk: after the header, its strings and modules. */
static inline size_t trace_edit_first_chunk(const unsigned char *buf, size_t len)
{
    const ompdag_trace_header *h = (const ompdag_trace_header *)buf;
    size_t off = sizeof *h + ((h->exe_path_len + h->build_id_len + 7u) & ~7u);
    for (uint32_t i = 0; i < h->module_count && off + sizeof(ompdag_trace_module) <= len; ++i) {
        const ompdag_trace_module *m = (const ompdag_trace_module *)(buf + off);
        off += sizeof *m + ((m->path_len + m->build_id_len + 7u) & ~7u);
    }
    return off;
}

/* Copies trace `in` to `out` with edit applied to every record and every
 * chunk resealed; false when a file cannot be read or written. */
static inline bool trace_edit(const char *in, const char *out, void (*edit)(ompdag_trace_rec *))
{
    FILE *f = fopen(in, "rb");
    if (!f) return false;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = len > 0 ? malloc((size_t)len) : NULL;
    bool ok = buf && fread(buf, 1, (size_t)len, f) == (size_t)len;
    fclose(f);
    size_t start = ok ? trace_edit_first_chunk(buf, (size_t)len) : 0;
    uint64_t hh = ok ? ompdag_trace_hash_bytes(OMPDAG_TRACE_HASH_SEED, buf, start) : 0;
    for (size_t off = start; ok && off + sizeof(ompdag_trace_chunk) <= (size_t)len;) {
        ompdag_trace_chunk *ch = (ompdag_trace_chunk *)(buf + off);
        ompdag_trace_rec *recs = (ompdag_trace_rec *)(buf + off + sizeof *ch);
        for (uint32_t i = 0; i < ch->count; ++i)
            edit(&recs[i]);
        ch->check = ompdag_trace_chunk_check(hh, ch->thread, ch->count, recs);
        off += sizeof *ch + ch->count * sizeof(ompdag_trace_rec);
    }
    f = ok ? fopen(out, "wb") : NULL;
    ok = f && fwrite(buf, 1, (size_t)len, f) == (size_t)len;
    if (f) ok = fclose(f) == 0 && ok;
    free(buf);
    return ok;
}

#endif
