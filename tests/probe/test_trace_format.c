/*
 * tests/probe/test_trace_format.c — the trace reader against truncated,
 * corrupt and lossy traces: each is an error with a message, never a crash
 * (the sanitizer build checks the "never a crash" part).
 */
#include <criterion/criterion.h>
#include <jansson.h>

#include "probe/probe_util.h"

static unsigned char *g_trace;
static size_t g_len;

/* One real trace, made once. */
static void make_trace(void)
{
    if (g_trace) return;
    char dir[64], trace[128];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(trace, sizeof trace, "%s/f.trace", dir);
    const char *args[] = {"1", "2", NULL};
    int status = probe_run("tasks", args, 2, trace, NULL, NULL);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    FILE *f = fopen(trace, "rb");
    cr_assert(f);
    fseek(f, 0, SEEK_END);
    g_len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    g_trace = malloc(g_len);
    cr_assert_eq(fread(g_trace, 1, g_len, f), g_len);
    fclose(f);
}

/* Reads a whole buffer; returns the status and the records read. */
static ompdag_status read_all(const unsigned char *buf, size_t len, size_t *records,
                              ompdag_error *err)
{
    ompdag_trace_reader *r;
    *records = 0;
    ompdag_status st = ompdag_trace_reader_open_buffer(buf, len, "buf", &r, err);
    if (st) return st;
    for (;;) {
        ompdag_trace_rec rec;
        bool done;
        if ((st = ompdag_trace_reader_next(r, &rec, &done, err)) || done) break;
        ++*records;
    }
    ompdag_trace_reader_destroy(r);
    return st;
}

Test(trace_format, whole_trace_reads)
{
    make_trace();
    size_t n;
    ompdag_error err;
    cr_assert_eq(read_all(g_trace, g_len, &n, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_gt(n, 20);
}

Test(trace_format, every_truncation_is_an_error)
{
    make_trace();
    for (size_t cut = 0; cut < g_len; ++cut) {
        size_t n;
        ompdag_error err = {0};
        ompdag_status st = read_all(g_trace, cut, &n, &err);
        cr_assert_neq(st, OMPDAG_OK, "a trace cut at byte %zu of %zu was accepted", cut, g_len);
        cr_assert(err.message[0], "cut at %zu: no message", cut);
    }
}

Test(trace_format, random_corruption_never_crashes)
{
    make_trace();
    unsigned char *copy = malloc(g_len);
    uint64_t seed = 12345;
    size_t rejected = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        memcpy(copy, g_trace, g_len);
        for (int k = 0; k < 1 + trial % 4; ++k) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(seed >> 33) % g_len;
            copy[at] ^= (unsigned char)(1u + (seed >> 13) % 255);
        }
        size_t n;
        ompdag_error err;
        rejected += read_all(copy, g_len, &n, &err) != OMPDAG_OK;
    }
    free(copy);
    /* Flipped counts, kinds and magics must be caught in most trials; flips
     * inside timestamps or code addresses are legitimately undetectable. */
    cr_assert_gt(rejected, 300, "only %zu of 3000 corrupted traces rejected", rejected);
}

static uint64_t g_start_plus(const unsigned char *buf)
{
    return ((const ompdag_trace_header *)buf)->start_ns;
}

static ompdag_trace_header *hdr(unsigned char *buf)
{
    return (ompdag_trace_header *)buf;
}

Test(trace_format, header_fields_are_checked)
{
    make_trace();
    unsigned char *copy = malloc(g_len);
    size_t n;
    ompdag_error err;

    memcpy(copy, g_trace, g_len);
    copy[0] = 'X';
    cr_assert_eq(read_all(copy, g_len, &n, &err), OMPDAG_ERR_PARSE);
    cr_assert(strstr(err.message, "magic"));

    memcpy(copy, g_trace, g_len);
    hdr(copy)->version = 99;
    cr_assert_eq(read_all(copy, g_len, &n, &err), OMPDAG_ERR_UNSUPPORTED);
    cr_assert(strstr(err.message, "version 99"));

    memcpy(copy, g_trace, g_len);
    hdr(copy)->module_count = 0xffffffffu;
    cr_assert_eq(read_all(copy, g_len, &n, &err), OMPDAG_ERR_PARSE);

    memcpy(copy, g_trace, g_len);
    hdr(copy)->exe_path_len = 0x7fffffffu;
    cr_assert_eq(read_all(copy, g_len, &n, &err), OMPDAG_ERR_PARSE);
    free(copy);
}

/* Offset of the first chunk: right after the header and the modules. */
static size_t first_chunk(void)
{
    ompdag_trace_reader *r;
    ompdag_error err;
    cr_assert_eq(ompdag_trace_reader_open_buffer(g_trace, g_len, "b", &r, &err), OMPDAG_OK);
    size_t off = sizeof(ompdag_trace_header);
    const ompdag_trace_header *h = (const ompdag_trace_header *)g_trace;
    off += (h->exe_path_len + h->build_id_len + 7u) & ~7u;
    for (size_t i = 0; i < ompdag_trace_reader_module_count(r); ++i) {
        const ompdag_trace_module *m = (const ompdag_trace_module *)(g_trace + off);
        off += sizeof *m + ((m->path_len + m->build_id_len + 7u) & ~7u);
    }
    ompdag_trace_reader_destroy(r);
    return off;
}

/* Recomputes the checksum of the chunk at `off` after an edit, as a forger
 * (or a probe bug) would: the content checks must catch what is left. */
static void reseal(unsigned char *buf, size_t off)
{
    uint64_t h = ompdag_trace_hash_bytes(OMPDAG_TRACE_HASH_SEED, buf, first_chunk());
    ompdag_trace_chunk *ch = (ompdag_trace_chunk *)(buf + off);
    ch->check = ompdag_trace_chunk_check(h, ch->thread, ch->count, buf + off + sizeof *ch);
}

Test(trace_format, lost_chunk_and_trailing_data_are_errors)
{
    make_trace();
    size_t off = first_chunk();
    const ompdag_trace_chunk *ch = (const ompdag_trace_chunk *)(g_trace + off);
    cr_assert_eq(ch->magic, OMPDAG_TRACE_CHUNK_MAGIC);
    size_t chunk_len = sizeof *ch + ch->count * sizeof(ompdag_trace_rec);
    cr_assert_lt(off + chunk_len, g_len, "the trace has more than one chunk");

    /* Drop the first chunk: the footer's counts expose the loss. */
    unsigned char *copy = malloc(g_len + 64);
    memcpy(copy, g_trace, off);
    memcpy(copy + off, g_trace + off + chunk_len, g_len - off - chunk_len);
    size_t n;
    ompdag_error err;
    cr_assert_eq(read_all(copy, g_len - chunk_len, &n, &err), OMPDAG_ERR_INVALID);
    cr_assert(strstr(err.message, "lost"), "%s", err.message);

    /* Bytes after the footer. */
    memcpy(copy, g_trace, g_len);
    memset(copy + g_len, 0, 8);
    cr_assert_eq(read_all(copy, g_len + 8, &n, &err), OMPDAG_ERR_PARSE);

    /* A chunk that claims zero or absurdly many records. */
    memcpy(copy, g_trace, g_len);
    ompdag_trace_chunk *w = (ompdag_trace_chunk *)(copy + off);
    w->count = 0;
    cr_assert_eq(read_all(copy, g_len, &n, &err), OMPDAG_ERR_PARSE);
    w->count = 0xfffffff0u;
    cr_assert_eq(read_all(copy, g_len, &n, &err), OMPDAG_ERR_PARSE);

    /* An unknown record type, with the chunk's checksum made to match. */
    memcpy(copy, g_trace, g_len);
    ((ompdag_trace_rec *)(copy + off + sizeof *ch))->type = 77;
    reseal(copy, off);
    cr_assert_eq(read_all(copy, g_len, &n, &err), OMPDAG_ERR_PARSE);
    cr_assert(strstr(err.message, "record type 77"));
    free(copy);
}

Test(trace_format, missing_file_is_an_io_error)
{
    ompdag_trace_reader *r;
    ompdag_error err;
    cr_assert_eq(ompdag_trace_reader_open("/nonexistent/x.trace", &r, &err), OMPDAG_ERR_IO);
}

/* Every chunk of the trace: offsets, in file order. */
static size_t chunks_of(size_t *offs, size_t max)
{
    size_t k = 0;
    for (size_t off = first_chunk(); off < g_len && k < max;) {
        const ompdag_trace_chunk *ch = (const ompdag_trace_chunk *)(g_trace + off);
        offs[k++] = off;
        off += sizeof *ch + ch->count * sizeof(ompdag_trace_rec);
    }
    return k;
}

/* Issue 17, item 3: of 100 random byte flips, 6 changed annotate's output
 * with rc 0.  With a checksum per chunk seeded by the header's hash, flipping
 * ANY single byte of the file is an error. */
Test(trace_format, every_byte_flip_is_an_error)
{
    make_trace();
    unsigned char *copy = malloc(g_len);
    for (size_t at = 0; at < g_len; ++at) {
        memcpy(copy, g_trace, g_len);
        copy[at] ^= (unsigned char)(1u << (at % 8));
        size_t n;
        ompdag_error err = {0};
        cr_assert_neq(read_all(copy, g_len, &n, &err), OMPDAG_OK,
                      "a flip of bit %zu at byte %zu of %zu was accepted", at % 8, at, g_len);
        cr_assert(err.message[0]);
    }
    free(copy);
}

/* The first record of `type` (and, for segments, explicit or not) in the
 * trace; its chunk's offset goes to *chunk. */
static ompdag_trace_rec *find_rec(unsigned char *buf, int type, int implicit, size_t *chunk)
{
    size_t offs[4096];
    size_t k = chunks_of(offs, 4096);
    for (size_t c = 0; c < k; ++c) {
        ompdag_trace_chunk *ch = (ompdag_trace_chunk *)(buf + offs[c]);
        ompdag_trace_rec *recs = (ompdag_trace_rec *)(buf + offs[c] + sizeof *ch);
        for (uint32_t i = 0; i < ch->count; ++i)
            if (recs[i].type == type &&
                (implicit < 0 || !!(recs[i].flags & OMPDAG_RECF_IMPLICIT) == implicit) &&
                (type != OMPDAG_REC_SEGMENT || recs[i].time > g_start_plus(buf))) {
                *chunk = offs[c];
                return &recs[i];
            }
    }
    cr_assert_fail("no record of type %d", type);
    return NULL;
}

/* Issue 17, item 3: impossible contents with a valid checksum (a forged
 * file, or a probe bug) are errors too, each with its reason. */
Test(trace_format, impossible_contents_are_errors_even_with_a_valid_checksum)
{
    make_trace();
    unsigned char *copy = malloc(g_len);
    size_t n, chunk;
    ompdag_error err = {0};
    const ompdag_trace_header *h = (const ompdag_trace_header *)g_trace;
    struct {
        const char *what, *needle;
    } cases[] = {
        {"2^63 + 5 ns duration", "duration"},
        {"36 years duration", "duration"},
        {"time before the start", "before the trace started"},
        {"times going backwards", "backwards"},
        {"a record's thread", "not its chunk's"},
        {"an id of an unknown thread", "id"},
        {"a finished task's id", "ids of the finished tasks"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        memcpy(copy, g_trace, g_len);
        ompdag_trace_rec *seg = find_rec(copy, OMPDAG_REC_SEGMENT, 0, &chunk);
        switch (k) {
        case 0:
            seg->dur = (UINT64_C(1) << 63) + 5;
            break;
        case 1:
            seg->dur = UINT64_C(36) * 365 * 24 * 3600 * 1000000000;
            break;
        case 2:
            seg->time = h->start_ns - 1;
            break;
        case 3: {
            ompdag_trace_chunk *ch = (ompdag_trace_chunk *)(copy + chunk);
            ompdag_trace_rec *first = (ompdag_trace_rec *)(copy + chunk + sizeof *ch);
            cr_assert_gt(ch->count, 1);
            first[0].time = first[ch->count - 1].time + 1000;
            break;
        }
        case 4:
            seg->thread += 1;
            break;
        case 5:
            seg->id = (UINT64_C(999) << 40) | 1;
            break;
        case 6: {
            ompdag_trace_rec *end = seg;
            if (end->end_kind != OMPDAG_PT_TASK_END) { /* any explicit task's last segment */
                size_t offs[4096];
                size_t kk = chunks_of(offs, 4096);
                for (size_t c = 0; c < kk && end->end_kind != OMPDAG_PT_TASK_END; ++c) {
                    ompdag_trace_chunk *ch = (ompdag_trace_chunk *)(copy + offs[c]);
                    ompdag_trace_rec *recs = (ompdag_trace_rec *)(copy + offs[c] + sizeof *ch);
                    for (uint32_t i = 0; i < ch->count; ++i)
                        if (recs[i].type == OMPDAG_REC_SEGMENT &&
                            recs[i].end_kind == OMPDAG_PT_TASK_END &&
                            !(recs[i].flags & OMPDAG_RECF_IMPLICIT)) {
                            end = &recs[i], chunk = offs[c];
                            break;
                        }
                }
            }
            cr_assert_eq(end->end_kind, OMPDAG_PT_TASK_END);
            end->id += 1u << 20; /* same thread, a sequence number never used */
            break;
        }
        }
        reseal(copy, chunk);
        ompdag_status st = read_all(copy, g_len, &n, &err);
        cr_expect_neq(st, OMPDAG_OK, "%s was accepted", cases[k].what);
        cr_expect(strstr(err.message, cases[k].needle) != NULL, "%s: %s", cases[k].what,
                  err.message);
    }
    /* a version 1 trace (no checksums) is refused with the reason */
    memcpy(copy, g_trace, g_len);
    hdr(copy)->version = 1;
    cr_expect_eq(read_all(copy, g_len, &n, &err), OMPDAG_ERR_UNSUPPORTED);
    cr_expect(strstr(err.message, "no checksums") != NULL, "%s", err.message);
    free(copy);
}

/* The fuzz corpus (fuzz/corpus/trace): "ok-*" files read to the footer,
 * "bad-*" files (corrupted durations, a flipped bit, version 1, a dependence
 * pair whose task waits for itself) are errors; ok-depend.trace has the
 * dependence records of issue 13.
 * ok-rebuilt-binary.trace reads: refusing it is annotate's job (build-id). */
#include <dirent.h>
Test(trace_format, fuzz_corpus_verdicts)
{
    const char *src = getenv("OMPDAG_SOURCE_DIR");
    cr_assert(src, "run through ctest");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/fuzz/corpus/trace", src);
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    int seen = 0;
    for (struct dirent *e; (e = readdir(d));) {
        bool ok = !strncmp(e->d_name, "ok-", 3), bad = !strncmp(e->d_name, "bad-", 4);
        if (!ok && !bad) continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        cr_assert_not_null(f);
        static unsigned char buf[1 << 20];
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        size_t n;
        ompdag_error err = {0};
        ompdag_status st = read_all(buf, len, &n, &err);
        if (ok)
            cr_expect_eq(st, OMPDAG_OK, "%s: %s", e->d_name, err.message);
        else
            cr_expect_neq(st, OMPDAG_OK, "%s was accepted", e->d_name);
        ++seen;
    }
    closedir(d);
    cr_expect_geq(seen, 6);
}

/* Issue 26 item 3: the footer's count of records the probe dropped (a failed
 * chunk write or buffer allocation) was ignored: a trace that says 4,096
 * records were dropped annotated as if whole.  Every graph is unsafe now. */
Test(trace_format, dropped_records_make_every_graph_unsafe)
{
    make_trace();
    unsigned char *copy = malloc(g_len);
    memcpy(copy, g_trace, g_len);
    size_t chunk;
    ompdag_trace_rec *foot = find_rec(copy, OMPDAG_REC_FOOTER, -1, &chunk);
    cr_assert_eq(foot->cp_start, 0, "the real trace dropped nothing");
    foot->cp_start = 4096;
    reseal(copy, chunk);
    char dir[64], path[160], graphs[512];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(path, sizeof path, "%s/dropped.trace", dir);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(copy, 1, g_len, f), g_len);
    fclose(f);
    free(copy);
    snprintf(graphs, sizeof graphs, "%s/tasks.json", OMPDAG_PROBE_DATA);
    ompdag_condag_set *set = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_file(graphs, &set, &err), OMPDAG_OK, "%s", err.message);
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    opt.unobserved = OMPDAG_UNOBSERVED_ZERO; /* the trace takes one branch; the reason adds up */
    ompdag_annotation *a = NULL;
    cr_assert_eq(ompdag_annotation_create(set, &opt, &a, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_annotation_add_trace(a, path, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_OK, "%s", err.message);
    for (size_t i = 0; i < ompdag_condag_set_count(set); ++i) {
        json_t *why =
            json_object_get(ompdag_condag_extra(ompdag_condag_set_graph(set, i), -1), "unsafe");
        cr_expect(json_is_string(why) && strstr(json_string_value(why), "dropped 4096"),
                  "graph %zu: %s", i, json_is_string(why) ? json_string_value(why) : "not unsafe");
    }
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
}
