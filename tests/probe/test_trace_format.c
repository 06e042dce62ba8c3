/*
 * tests/probe/test_trace_format.c — the trace reader against truncated,
 * corrupt and lossy traces: each is an error with a message, never a crash
 * (the sanitizer build checks the "never a crash" part).
 */
#include <criterion/criterion.h>

#include "probe/probe_util.h"

static unsigned char *g_trace;
static size_t g_len;

/* One real trace, made once. */
static void make_trace(void)
{
    if (g_trace)
        return;
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
    if (st)
        return st;
    for (;;) {
        ompdag_trace_rec rec;
        bool done;
        if ((st = ompdag_trace_reader_next(r, &rec, &done, err)) || done)
            break;
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
    w->check = w->count ^ w->thread ^ 0x5a5a5a5au;
    cr_assert_eq(read_all(copy, g_len, &n, &err), OMPDAG_ERR_PARSE);
    w->count = 0xfffffff0u;
    w->check = w->count ^ w->thread ^ 0x5a5a5a5au;
    cr_assert_eq(read_all(copy, g_len, &n, &err), OMPDAG_ERR_PARSE);

    /* An unknown record type. */
    memcpy(copy, g_trace, g_len);
    ((ompdag_trace_rec *)(copy + off + sizeof *ch))->type = 77;
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
