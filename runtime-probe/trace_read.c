/*
 * runtime-probe/trace_read.c — streaming reader of the binary trace written
 * by libompdag_probe.so (format: include/ompdag/probe.h).
 *
 * Every field that sizes a read is bounded before use (path and build-id
 * lengths, module count, chunk record count), every record type and point
 * kind is checked, and the footer's counters (records, created and completed
 * explicit tasks) are compared with what was read, so a truncated, corrupt or
 * lossy trace is an error with a byte offset — never a crash.  The reader
 * holds one chunk at a time: memory does not grow with the trace (beyond one
 * word per probe thread).
 *
 * Contents are checked too (format version 2): each chunk's checksum, seeded
 * with the hash of the header bytes; each record's thread against its
 * chunk's; per-thread non-decreasing times inside [start, footer]; a
 * segment's duration within [start, its end]; ids that name threads which
 * wrote records; and, for a complete trace, that the ids of created tasks
 * and of finished tasks are the same multiset (a sum of mixed ids).  A
 * corrupted duration is an error, never a WCET.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/trace.h"

typedef struct reader_module {
    char *path;
    char build_id[2 * OMPDAG_TRACE_MAX_BUILD_ID + 1];
    uint64_t base, lo, hi;
} reader_module;

struct ompdag_trace_reader {
    FILE *file;            /* NULL for buffers */
    bool close_file;
    const unsigned char *data;
    size_t len, pos;       /* buffer source; pos doubles as byte offset for files */
    char origin[256];
    ompdag_trace_header header;
    char *exe;
    char build_id[2 * OMPDAG_TRACE_MAX_BUILD_ID + 1];
    reader_module *modules;
    size_t module_count;
    /* current chunk */
    ompdag_trace_rec *chunk;
    uint32_t chunk_cap, chunk_len, chunk_pos;
    bool footer_seen;
    /* tallies checked against the footer */
    uint64_t records, created, ended;
    /* content checks */
    bool in_header;        /* read_exact hashes what it reads */
    uint64_t header_hash;
    uint32_t chunk_thread;
    size_t chunk_at;       /* byte offset of the current chunk */
    uint64_t *last_time;   /* per thread number, 0 = none yet */
    uint32_t threads_cap;
    uint32_t max_thread;   /* highest thread number that wrote a chunk, +1 */
    uint64_t max_time;
    uint64_t max_id_thread; /* highest thread part (id >> 40) of any id */
    uint64_t created_sum, ended_sum; /* sums of mixed ids */
};

static size_t src_read(ompdag_trace_reader *r, void *buf, size_t n)
{
    size_t got;
    if (r->file) {
        got = fread(buf, 1, n, r->file);
    } else {
        got = r->len - r->pos < n ? r->len - r->pos : n;
        memcpy(buf, r->data + r->pos, got);
    }
    r->pos += got;
    return got;
}

static ompdag_status read_exact(ompdag_trace_reader *r, void *buf, size_t n, const char *what,
                                ompdag_error *err)
{
    size_t at = r->pos;
    if (src_read(r, buf, n) != n && r->file && ferror(r->file))
        return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: read failed at byte %zu: %s", r->origin,
                                at, strerror(errno));
    if (r->pos - at != n)
        return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                "%s: truncated trace: %s at byte %zu needs %zu bytes", r->origin,
                                what, at, n);
    if (r->in_header)
        r->header_hash = ompdag_trace_hash_bytes(r->header_hash, buf, n);
    return OMPDAG_OK;
}

static void to_hex(const unsigned char *id, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; ++i) {
        out[2 * i] = digits[id[i] >> 4];
        out[2 * i + 1] = digits[id[i] & 15];
    }
    out[2 * n] = 0;
}

static ompdag_status read_string(ompdag_trace_reader *r, uint32_t len, char **out,
                                 ompdag_error *err)
{
    if (len > OMPDAG_TRACE_MAX_PATH)
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s: corrupt trace: path of %u bytes at byte %zu",
                                r->origin, len, r->pos);
    char *s = malloc((size_t)len + 1);
    if (!s)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "%s: out of memory", r->origin);
    ompdag_status st = read_exact(r, s, len, "path", err);
    if (st) {
        free(s);
        return st;
    }
    s[len] = 0;
    if (memchr(s, 0, len)) {
        free(s);
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s: corrupt trace: NUL inside a path",
                                r->origin);
    }
    *out = s;
    return OMPDAG_OK;
}

static ompdag_status read_build_id(ompdag_trace_reader *r, uint32_t len, char *hex,
                                   ompdag_error *err)
{
    unsigned char id[OMPDAG_TRACE_MAX_BUILD_ID];
    if (len > OMPDAG_TRACE_MAX_BUILD_ID)
        return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                "%s: corrupt trace: build-id of %u bytes at byte %zu", r->origin,
                                len, r->pos);
    ompdag_status st = read_exact(r, id, len, "build-id", err);
    if (st)
        return st;
    to_hex(id, len, hex);
    return OMPDAG_OK;
}

static ompdag_status skip_pad(ompdag_trace_reader *r, size_t strings, ompdag_error *err)
{
    unsigned char pad[8];
    size_t n = (8 - strings % 8) % 8;
    return read_exact(r, pad, n, "padding", err);
}

static ompdag_status read_header_body(ompdag_trace_reader *r, ompdag_error *err);

static ompdag_status read_header(ompdag_trace_reader *r, ompdag_error *err)
{
    r->in_header = true;
    r->header_hash = OMPDAG_TRACE_HASH_SEED;
    ompdag_status st = read_header_body(r, err);
    r->in_header = false;
    return st;
}

static ompdag_status read_header_body(ompdag_trace_reader *r, ompdag_error *err)
{
    ompdag_trace_header *h = &r->header;
    ompdag_status st = read_exact(r, h, sizeof *h, "header", err);
    if (st)
        return st;
    if (memcmp(h->magic, OMPDAG_TRACE_MAGIC, 8))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s: not an ompdag trace (bad magic)",
                                r->origin);
    if (h->version == 1)
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                "%s: trace format version 1 has no checksums, so a corrupted "
                                "duration could not be told from a measured one; this ompdag "
                                "reads version %u: run the program again under this probe",
                                r->origin, OMPDAG_TRACE_VERSION);
    if (h->version != OMPDAG_TRACE_VERSION)
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                "%s: trace format version %u, this ompdag reads version %u",
                                r->origin, h->version, OMPDAG_TRACE_VERSION);
    if (h->start_ns >= (UINT64_C(1) << 62))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s: corrupt trace: start time %llu ns",
                                r->origin, (unsigned long long)h->start_ns);
    if (h->record_size != sizeof(ompdag_trace_rec))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s: corrupt trace: record size %u",
                                r->origin, h->record_size);
    if (h->module_count > OMPDAG_TRACE_MAX_MODULES)
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s: corrupt trace: %u modules",
                                r->origin, h->module_count);
    if ((st = read_string(r, h->exe_path_len, &r->exe, err)) ||
        (st = read_build_id(r, h->build_id_len, r->build_id, err)) ||
        (st = skip_pad(r, (size_t)h->exe_path_len + h->build_id_len, err)))
        return st;
    r->modules = calloc(h->module_count ? h->module_count : 1, sizeof *r->modules);
    if (!r->modules)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "%s: out of memory", r->origin);
    for (uint32_t i = 0; i < h->module_count; ++i) {
        ompdag_trace_module m;
        reader_module *rm = &r->modules[i];
        if ((st = read_exact(r, &m, sizeof m, "module", err)) ||
            (st = read_string(r, m.path_len, &rm->path, err)))
            return st;
        r->module_count = i + 1;
        if ((st = read_build_id(r, m.build_id_len, rm->build_id, err)) ||
            (st = skip_pad(r, (size_t)m.path_len + m.build_id_len, err)))
            return st;
        if (m.vaddr_lo > m.vaddr_hi)
            return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s: corrupt trace: module %u range",
                                    r->origin, i);
        rm->base = m.base;
        rm->lo = m.vaddr_lo;
        rm->hi = m.vaddr_hi;
    }
    return OMPDAG_OK;
}

static ompdag_status open_common(ompdag_trace_reader *r, ompdag_trace_reader **out,
                                 ompdag_error *err)
{
    ompdag_status st = read_header(r, err);
    if (st) {
        ompdag_trace_reader_destroy(r);
        return st;
    }
    *out = r;
    return OMPDAG_OK;
}

ompdag_status ompdag_trace_reader_open(const char *path, ompdag_trace_reader **out,
                                       ompdag_error *err)
{
    if (!path || !out)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "trace reader: NULL argument");
    ompdag_trace_reader *r = calloc(1, sizeof *r);
    if (!r)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    snprintf(r->origin, sizeof r->origin, "%s", path);
    if (!strcmp(path, "-")) {
        r->file = stdin;
    } else {
        r->file = fopen(path, "rb");
        if (!r->file) {
            int e = errno;
            free(r);
            return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: cannot open trace: %s", path,
                                    strerror(e));
        }
        r->close_file = true;
    }
    return open_common(r, out, err);
}

ompdag_status ompdag_trace_reader_open_buffer(const void *data, size_t len, const char *origin,
                                              ompdag_trace_reader **out, ompdag_error *err)
{
    if ((!data && len) || !out)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "trace reader: NULL argument");
    ompdag_trace_reader *r = calloc(1, sizeof *r);
    if (!r)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    snprintf(r->origin, sizeof r->origin, "%s", origin ? origin : "<buffer>");
    r->data = data;
    r->len = len;
    return open_common(r, out, err);
}

void ompdag_trace_reader_destroy(ompdag_trace_reader *r)
{
    if (!r)
        return;
    if (r->close_file)
        fclose(r->file);
    for (size_t i = 0; i < r->module_count; ++i)
        free(r->modules[i].path);
    free(r->modules);
    free(r->exe);
    free(r->chunk);
    free(r->last_time);
    free(r);
}

static bool valid_kind(uint8_t k)
{
    return k <= OMPDAG_PT_OTHER;
}

/* An id's thread part: ids are ((thread + 1) << 40) | sequence (probe.c). */
static uint64_t id_thread(uint64_t id)
{
    return id >> 40;
}

/* A mixed id, summed over created and finished tasks (a multiset check). */
static uint64_t mix_id(uint64_t id)
{
    id ^= id >> 31;
    id *= 0x9e3779b97f4a7c15ull;
    return id ^ (id >> 29);
}

static ompdag_status corrupt(const ompdag_trace_reader *r, size_t at, ompdag_error *err,
                             const char *what, unsigned long long a, unsigned long long b)
{
    return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                            "%s: corrupt trace: %s (%llu, %llu) in the chunk at byte %zu",
                            r->origin, what, a, b, at);
}

/* The last time seen from thread t, growing the table on demand. */
static uint64_t *thread_time(ompdag_trace_reader *r, uint32_t t)
{
    if (t >= r->threads_cap) {
        uint32_t cap = r->threads_cap ? r->threads_cap : 64;
        while (cap <= t)
            cap *= 2;
        uint64_t *p = realloc(r->last_time, sizeof *p * cap);
        if (!p)
            return NULL;
        memset(p + r->threads_cap, 0, sizeof *p * (cap - r->threads_cap));
        r->last_time = p, r->threads_cap = cap;
    }
    return &r->last_time[t];
}

static ompdag_status check_record(ompdag_trace_reader *r, const ompdag_trace_rec *rec,
                                  size_t at, ompdag_error *err)
{
    if (rec->type < OMPDAG_REC_REGION_BEGIN || rec->type > OMPDAG_REC_IMPLICIT ||
        rec->type == OMPDAG_REC_TASK_END)
        return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                "%s: corrupt trace: record type %u near byte %zu", r->origin,
                                rec->type, at);
    if (rec->type == OMPDAG_REC_SEGMENT &&
        (!valid_kind(rec->start_kind) || !valid_kind(rec->end_kind) ||
         rec->start_kind == OMPDAG_PT_NONE || rec->end_kind == OMPDAG_PT_NONE))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                "%s: corrupt trace: segment point kinds %u/%u near byte %zu",
                                r->origin, rec->start_kind, rec->end_kind, at);
    if (rec->type == OMPDAG_REC_FOOTER)
        return OMPDAG_OK; /* checked by check_footer */
    const uint64_t start = r->header.start_ns;
    if (rec->thread != r->chunk_thread)
        return corrupt(r, r->chunk_at, err, "a record's thread is not its chunk's", rec->thread,
                       r->chunk_thread);
    if (rec->time < start || rec->time >= (UINT64_C(1) << 62))
        return corrupt(r, r->chunk_at, err, "a time before the trace started (time, start)",
                       rec->time, start);
    uint64_t *last = thread_time(r, rec->thread);
    if (!last)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "%s: out of memory", r->origin);
    if (rec->time < *last)
        return corrupt(r, r->chunk_at, err, "a thread's times go backwards (time, previous)",
                       rec->time, *last);
    *last = rec->time;
    if (rec->time > r->max_time)
        r->max_time = rec->time;
    /* a segment ran for at most the time between the start and its end */
    if (rec->type == OMPDAG_REC_SEGMENT && rec->dur > rec->time - start)
        return corrupt(r, r->chunk_at, err,
                       "a segment's duration exceeds the run so far (duration, ns since start)",
                       rec->dur, rec->time - start);
    if (rec->type == OMPDAG_REC_OFFLOAD && rec->dur >= (UINT64_C(1) << 62))
        return corrupt(r, r->chunk_at, err, "an offload's busy time (ns, limit)", rec->dur,
                       UINT64_C(1) << 62);
    if (rec->type == OMPDAG_REC_RUNTIME &&
        (rec->id || rec->flags > (OMPDAG_RUNTIME_NO_THROTTLING | OMPDAG_RUNTIME_TASKING_SET)))
        return corrupt(r, r->chunk_at, err, "a runtime record (id, flags)", rec->id, rec->flags);
    bool needs_id = rec->type != OMPDAG_REC_OFFLOAD && rec->type != OMPDAG_REC_RUNTIME;
    if ((needs_id && (rec->id & ((UINT64_C(1) << 40) - 1)) == 0) ||
        id_thread(rec->id) > OMPDAG_TRACE_MAX_THREADS)
        return corrupt(r, r->chunk_at, err, "an id no thread could have made (id, type)", rec->id,
                       rec->type);
    if (id_thread(rec->id) > r->max_id_thread)
        r->max_id_thread = id_thread(rec->id);
    /* a dependence pair names its predecessor task in aux */
    if (rec->type == OMPDAG_REC_DEP_PAIR) {
        if ((rec->aux & ((UINT64_C(1) << 40) - 1)) == 0 ||
            id_thread(rec->aux) > OMPDAG_TRACE_MAX_THREADS || rec->aux == rec->id)
            return corrupt(r, r->chunk_at, err, "a dependence pair's predecessor (id, successor)",
                           rec->aux, rec->id);
        if (id_thread(rec->aux) > r->max_id_thread)
            r->max_id_thread = id_thread(rec->aux);
    }
    if (rec->type == OMPDAG_REC_DEPEND &&
        (rec->cp_end == 0 || rec->cp_start >= rec->cp_end || rec->flags == 0 || rec->flags > 7))
        return corrupt(r, r->chunk_at, err, "a depend item (index, list length)", rec->cp_start,
                       rec->cp_end);
    /* an implicit task's thread number lies in its team, of at most
     * OMPDAG_TRACE_MAX_THREADS threads, in a region instance */
    if (rec->type == OMPDAG_REC_IMPLICIT &&
        (rec->aux == 0 || rec->cp_end == 0 || rec->cp_end > OMPDAG_TRACE_MAX_THREADS ||
         rec->cp_start >= rec->cp_end))
        return corrupt(r, r->chunk_at, err, "an implicit task's thread number (index, team)",
                       rec->cp_start, rec->cp_end);
    if (rec->type == OMPDAG_REC_TASK_CREATE)
        r->created_sum += mix_id(rec->id);
    else if (rec->type == OMPDAG_REC_SEGMENT && rec->end_kind == OMPDAG_PT_TASK_END &&
             !(rec->flags & OMPDAG_RECF_IMPLICIT))
        r->ended_sum += mix_id(rec->id);
    return OMPDAG_OK;
}

static ompdag_status check_footer(ompdag_trace_reader *r, const ompdag_trace_rec *f,
                                  ompdag_error *err)
{
    if (f->id != r->records)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: lost records: the probe wrote %llu, the trace holds %llu",
                                r->origin, (unsigned long long)f->id,
                                (unsigned long long)r->records);
    if (f->aux != r->created || f->dur != r->ended)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "%s: lost task events: footer counts %llu created / %llu ended, "
                                "trace holds %llu / %llu",
                                r->origin, (unsigned long long)f->aux,
                                (unsigned long long)f->dur, (unsigned long long)r->created,
                                (unsigned long long)r->ended);
    if (f->time < r->max_time || f->time < r->header.start_ns)
        return corrupt(r, r->chunk_at, err, "a record after the footer's time (time, footer)",
                       r->max_time, f->time);
    if (r->max_id_thread > r->max_thread)
        return corrupt(r, r->chunk_at, err,
                       "an id names a thread that wrote nothing (thread, threads)",
                       r->max_id_thread, r->max_thread);
    /* a complete run: every created task finished once, under its own id */
    bool complete = !(f->flags & (OMPDAG_FOOTER_SIGNAL | OMPDAG_FOOTER_ANOMALY)) &&
                    f->cp_start == 0 && r->created == r->ended;
    if (complete && r->created_sum != r->ended_sum)
        return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                "%s: corrupt trace: the ids of the finished tasks are not those "
                                "of the created ones",
                                r->origin);
    return OMPDAG_OK;
}

static ompdag_status load_chunk(ompdag_trace_reader *r, bool *eof, ompdag_error *err)
{
    ompdag_trace_chunk ch;
    size_t at = r->pos;
    size_t got = src_read(r, &ch, sizeof ch);
    *eof = false;
    if (got == 0) {
        *eof = true;
        return OMPDAG_OK;
    }
    if (got != sizeof ch)
        return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                "%s: truncated trace: partial chunk header at byte %zu",
                                r->origin, at);
    if (ch.magic != OMPDAG_TRACE_CHUNK_MAGIC || ch.count == 0 ||
        ch.count > OMPDAG_TRACE_MAX_CHUNK_RECORDS ||
        (ch.thread >= OMPDAG_TRACE_MAX_THREADS && ch.thread != UINT32_MAX) ||
        (ch.thread == UINT32_MAX && ch.count != 1))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                "%s: corrupt trace: bad chunk header at byte %zu", r->origin, at);
    if (ch.count > r->chunk_cap) {
        ompdag_trace_rec *p = realloc(r->chunk, ch.count * sizeof *p);
        if (!p)
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "%s: out of memory", r->origin);
        r->chunk = p;
        r->chunk_cap = ch.count;
    }
    ompdag_status st = read_exact(r, r->chunk, ch.count * sizeof *r->chunk, "chunk records", err);
    if (st)
        return st;
    if (ch.check != ompdag_trace_chunk_check(r->header_hash, ch.thread, ch.count, r->chunk))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                "%s: corrupt trace: the chunk at byte %zu fails its checksum "
                                "(the file was damaged after the probe wrote it)",
                                r->origin, at);
    r->chunk_len = ch.count;
    r->chunk_pos = 0;
    r->chunk_thread = ch.thread;
    r->chunk_at = at;
    if (ch.thread != UINT32_MAX && ch.thread + 1 > r->max_thread)
        r->max_thread = ch.thread + 1;
    return OMPDAG_OK;
}

ompdag_status ompdag_trace_reader_next(ompdag_trace_reader *r, ompdag_trace_rec *rec,
                                       bool *done, ompdag_error *err)
{
    if (!r || !rec || !done)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "trace reader: NULL argument");
    *done = false;
    if (r->footer_seen) {
        *done = true;
        return OMPDAG_OK;
    }
    while (r->chunk_pos == r->chunk_len) {
        bool eof;
        ompdag_status st = load_chunk(r, &eof, err);
        if (st)
            return st;
        if (eof)
            return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                    "%s: truncated trace: no footer after %llu records (the "
                                    "program was killed, or the probe never finalized)",
                                    r->origin, (unsigned long long)r->records);
    }
    const ompdag_trace_rec *cur = &r->chunk[r->chunk_pos++];
    size_t at = r->pos;
    ompdag_status st = check_record(r, cur, at, err);
    if (st)
        return st;
    if (cur->type == OMPDAG_REC_FOOTER) {
        if ((st = check_footer(r, cur, err)))
            return st;
        unsigned char extra;
        if (r->chunk_pos != r->chunk_len || src_read(r, &extra, 1) != 0)
            return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                    "%s: corrupt trace: data after the footer", r->origin);
        r->footer_seen = true;
        *done = true;
        /* The footer's own counters are useful to callers (summaries). */
        *rec = *cur;
        return OMPDAG_OK;
    }
    ++r->records;
    if (cur->type == OMPDAG_REC_TASK_CREATE)
        ++r->created;
    else if (cur->type == OMPDAG_REC_SEGMENT && cur->end_kind == OMPDAG_PT_TASK_END &&
             !(cur->flags & OMPDAG_RECF_IMPLICIT))
        ++r->ended;
    *rec = *cur;
    return OMPDAG_OK;
}

const char *ompdag_trace_reader_exe(const ompdag_trace_reader *r) { return r->exe; }
const char *ompdag_trace_reader_build_id(const ompdag_trace_reader *r) { return r->build_id; }
uint32_t ompdag_trace_reader_pid(const ompdag_trace_reader *r) { return r->header.pid; }
uint64_t ompdag_trace_reader_start_ns(const ompdag_trace_reader *r) { return r->header.start_ns; }
size_t ompdag_trace_reader_module_count(const ompdag_trace_reader *r) { return r->module_count; }

const char *ompdag_trace_reader_module_path(const ompdag_trace_reader *r, size_t i)
{
    return i < r->module_count ? r->modules[i].path : NULL;
}

const char *ompdag_trace_reader_module_build_id(const ompdag_trace_reader *r, size_t i)
{
    return i < r->module_count ? r->modules[i].build_id : NULL;
}

void ompdag_trace_reader_module_range(const ompdag_trace_reader *r, size_t i, uint64_t *base,
                                      uint64_t *vaddr_lo, uint64_t *vaddr_hi)
{
    const reader_module *m = i < r->module_count ? &r->modules[i] : NULL;
    *base = m ? m->base : 0;
    *vaddr_lo = m ? m->lo : 0;
    *vaddr_hi = m ? m->hi : 0;
}

ompdag_status ompdag_trace_summarize(const char *path, ompdag_trace_summary *out,
                                     ompdag_error *err)
{
    ompdag_trace_reader *r;
    ompdag_status st = ompdag_trace_reader_open(path, &r, err);
    if (st)
        return st;
    memset(out, 0, sizeof *out);
    uint64_t seen_threads[64] = {0}; /* bitmap of the first 4096 thread numbers */
    for (;;) {
        ompdag_trace_rec rec;
        bool done;
        if ((st = ompdag_trace_reader_next(r, &rec, &done, err)))
            break;
        if (done) {
            out->dropped = rec.cp_start;
            out->anomalies = rec.cp_end;
            out->interrupted = (rec.flags & OMPDAG_FOOTER_SIGNAL) != 0;
            break;
        }
        ++out->records;
        if (rec.thread < 4096 && !(seen_threads[rec.thread / 64] & (1ull << (rec.thread % 64)))) {
            seen_threads[rec.thread / 64] |= 1ull << (rec.thread % 64);
            ++out->threads;
        }
        switch (rec.type) {
        case OMPDAG_REC_REGION_BEGIN: ++out->regions_begun; break;
        case OMPDAG_REC_REGION_END: ++out->regions_ended; break;
        case OMPDAG_REC_TASK_CREATE: ++out->tasks_created; break;
        case OMPDAG_REC_DEPEND: ++out->depend_items; break;
        case OMPDAG_REC_DEP_PAIR: ++out->depend_pairs; break;
        case OMPDAG_REC_SEGMENT:
            ++out->segments;
            if (rec.end_kind == OMPDAG_PT_TASK_END) {
                if (rec.flags & OMPDAG_RECF_IMPLICIT)
                    ++out->implicit_tasks;
                else
                    ++out->tasks_ended;
            }
            if (rec.flags & OMPDAG_RECF_UNTIED)
                ++out->untied_segments;
            if (rec.flags & OMPDAG_RECF_SUSPENDED)
                ++out->suspended_segments;
            break;
        default: break;
        }
    }
    ompdag_trace_reader_destroy(r);
    return st;
}
