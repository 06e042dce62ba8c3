/*
 * tests/probe/test_annotate_large.c — annotate's paths for traces of 10^6
 * tasks (bench/compact/e2e.sh): the radix sorts against qsort, quickselect
 * against a sort, and a whole annotation through the fast paths (radix sort
 * of the segments, the direct task table, the memo of segment ends) against
 * the reference paths (qsort, hash table, no memo) on one trace with more
 * than 4096 segments: the written graphs are identical byte for byte.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../annotate/annotate_internal.h"
#include "ompdag/internal/stats.h"
#include "probe/probe_util.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int cmp_seg(const void *x, const void *y)
{
    const pending_seg *a = x, *b = y;
    if (a->run != b->run) return a->run < b->run ? -1 : 1;
    if (a->created != b->created) return a->created < b->created ? -1 : 1;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return a->time < b->time ? -1 : a->time > b->time;
}

static uint64_t seg_key(const void *rec, int k)
{
    const pending_seg *p = rec;
    return k == 0 ? p->run : k == 1 ? p->created : k == 2 ? p->id : p->time;
}

/* Random segments with many equal keys and keys spanning all 64 bits. */
static void fill(pending_seg *p, size_t n, int round)
{
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = rnd();
        p[i] = (pending_seg){.run = round % 2 ? r % 3 : 7,
                             .created = round % 3 ? rnd() % 50 : rnd(),
                             .id = (rnd() % 4) << 40 | rnd() % 100,
                             .time = round % 4 ? rnd() : UINT64_MAX - rnd() % 1000,
                             .dur = i, /* position: records must move whole */
                             .graph = (uint32_t)i};
    }
}

Test(annotate_large, sort_records_matches_qsort)
{
    size_t sizes[] = {4095, 4096, 4097, 30000};
    for (int round = 0; round < 8; ++round)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
            size_t n = sizes[s];
            pending_seg *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
            pending_seg *in = malloc(n * sizeof *in), *keep = malloc(n * sizeof *keep);
            cr_assert(a && b && in && keep);
            fill(in, n, round);
            memcpy(b, in, n * sizeof *a);
            memcpy(keep, in, n * sizeof *a);
            if (round % 2) { /* out of place: in stays as it was */
                cr_assert(annot_sort_records_to(in, a, n, sizeof *a, 4, seg_key, cmp_seg));
                cr_assert_eq(memcmp(in, keep, n * sizeof *in), 0, "input changed");
            } else {
                memcpy(a, in, n * sizeof *a);
                cr_assert(annot_sort_records(a, n, sizeof *a, 4, seg_key, cmp_seg));
            }
            free(in);
            free(keep);
            qsort(b, n, sizeof *b, cmp_seg);
            for (size_t i = 0; i < n; ++i) {
                cr_assert_eq(cmp_seg(&a[i], &b[i]), 0, "n %zu round %d at %zu", n, round, i);
                cr_assert_eq(a[i].dur, a[i].graph, "record torn at %zu", i);
                if (i) cr_assert(cmp_seg(&a[i - 1], &a[i]) <= 0);
            }
            /* stable: equal keys keep their input order */
            for (size_t i = 1; i < n; ++i)
                if (cmp_seg(&a[i - 1], &a[i]) == 0) cr_assert_lt(a[i - 1].dur, a[i].dur);
            free(a);
            free(b);
        }
}

/* Code addresses get dense names in order of first sight, and annot_cp
 * gives each address back, across the table's growth. */
Test(annotate_large, code_address_names_are_dense_and_invertible)
{
    enum { n = 20000 };
    static uint64_t addr[n];
    trace_ctx c = {0};
    for (uint32_t i = 0; i < n; ++i) {
        addr[i] = i % 3 == 0 ? (uint64_t)i : rnd(); /* small, 0 included, and wide */
        uint32_t name = UINT32_MAX;
        cr_assert(annot_cp_name(&c.cps, addr[i], &name));
        cr_assert_eq(name, i, "a new address takes the next name");
    }
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t name = UINT32_MAX;
        cr_assert(annot_cp_name(&c.cps, addr[i], &name));
        cr_assert_eq(name, i, "a known address keeps its name");
        cr_assert_eq(annot_cp(&c, name), addr[i]);
    }
    cr_assert_eq(c.cps.n, n);
    free(c.cps.value);
    ompdag_imap_free(&c.cps.index);
}

/* annot_grow doubles from 64, keeps the contents, and refuses a size that
 * would overflow without touching the array. */
Test(annotate_large, grow_doubles_keeps_contents_and_refuses_overflow)
{
    uint64_t *v = NULL;
    size_t cap = 0;
    cr_assert(annot_grow((void **)&v, &cap, 1, sizeof *v));
    cr_assert_eq(cap, 64);
    for (size_t i = 0; i < 5000; ++i) {
        cr_assert(annot_grow((void **)&v, &cap, i + 1, sizeof *v));
        v[i] = i * 7;
    }
    cr_assert_eq(cap, 8192);
    for (size_t i = 0; i < 5000; ++i)
        cr_assert_eq(v[i], i * 7);
    uint64_t *before = v;
    cr_assert_not(annot_grow((void **)&v, &cap, SIZE_MAX / 4, 16));
    cr_assert(v == before && cap == 8192);
    free(v);
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

Test(annotate_large, sort_u64_matches_qsort)
{
    for (int round = 0; round < 6; ++round) {
        size_t n = round == 0 ? 1 : (size_t)(rnd() % 50000) + 2;
        uint64_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
        cr_assert(a && b);
        for (size_t i = 0; i < n; ++i)
            a[i] = round % 2 ? rnd() : rnd() % 5 + (1ull << 50);
        memcpy(b, a, n * sizeof *a);
        cr_assert(annot_sort_u64(a, n));
        qsort(b, n, sizeof *b, cmp_u64);
        cr_assert_eq(memcmp(a, b, n * sizeof *a), 0, "round %d", round);
        free(a);
        free(b);
    }
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

Test(annotate_large, select_matches_sort)
{
    int64_t a[200], b[200], c[200];
    for (int round = 0; round < 3000; ++round) {
        size_t n = (size_t)(rnd() % 200) + 1;
        int64_t range = round % 3 == 0 ? 2 : round % 3 == 1 ? 1000 : INT64_MAX;
        for (size_t i = 0; i < n; ++i) {
            a[i] = (int64_t)(rnd() % (uint64_t)range);
            if (round % 7 == 0) a[i] = (int64_t)i; /* sorted input */
            if (round % 11 == 0) a[i] = -(int64_t)i;
        }
        memcpy(b, a, n * sizeof *a);
        qsort(b, n, sizeof *b, cmp_i64);
        size_t k = (size_t)(rnd() % n);
        memcpy(c, a, n * sizeof *a);
        cr_assert_eq(annot_select_i64(c, n, k), b[k], "round %d n %zu k %zu", round, n, k);
        for (size_t i = 0; i < n; ++i)
            cr_assert(i < k ? c[i] <= b[k] : i > k ? c[i] >= b[k] : c[i] == b[k]);
    }
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    cr_assert(buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Annotates data/rec.json with `trace` and saves it to `out`. */
static void annotate_to(const char *trace, const char *out, bool reference, uint64_t *segments)
{
    ompdag_condag_set *set;
    ompdag_annotation *a;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file(OMPDAG_PROBE_DATA "/rec.json", &set, &err), OMPDAG_OK,
                 "%s", err.message);
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    opt.unobserved = OMPDAG_UNOBSERVED_ZERO; /* a few branch nodes at the cut-off depth */
    cr_assert_eq(ompdag_annotation_create(set, &opt, &a, &err), OMPDAG_OK, "%s", err.message);
    annot_reference_paths = reference;
    ompdag_status st = ompdag_annotation_add_trace(a, trace, &err);
    annot_reference_paths = false;
    cr_assert_eq(st, OMPDAG_OK, "%s", err.message);
    *segments = a->segments;
    cr_assert_eq(a->unmapped, 0);
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_condag_set_save_file(set, out, false, &err), OMPDAG_OK, "%s", err.message);
    ompdag_annotation_destroy(a);
    ompdag_condag_set_destroy(set);
}

/* Records data/rec's trace into dir/rec.trace: depth 4 (the graph's
 * bound), `runs` runs of 30 tasks and ~100 segments each. */
static void record_rec(const char *dir, const char *runs, char *trace, size_t size)
{
    snprintf(trace, size, "%s/rec.trace", dir);
    const char *args[] = {"4", runs, NULL};
    int s = probe_run("rec", args, 2, trace, NULL, NULL);
    cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 0);
}

/* Both annotations hold the same segments and are the same bytes. */
static void assert_same_annotation(const char *x, uint64_t nx, const char *y, uint64_t ny)
{
    cr_assert_gt(nx, 4096, "%llu segments: too few for the fast paths", (unsigned long long)nx);
    cr_assert_eq(nx, ny);
    size_t lx, ly;
    char *bx = slurp(x, &lx), *by = slurp(y, &ly);
    cr_assert(lx == ly && memcmp(bx, by, lx) == 0, "%s and %s differ", x, y);
    free(bx);
    free(by);
}

/* The fast paths against the reference ones on a trace of `runs` runs,
 * which must hold more than `least` segments. */
static void fast_matches_reference(const char *runs, uint64_t least)
{
    char dir[64], trace[128], fast[128], ref[128];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(fast, sizeof fast, "%s/fast.json", dir);
    snprintf(ref, sizeof ref, "%s/ref.json", dir);
    record_rec(dir, runs, trace, sizeof trace);
    uint64_t nf, nr;
    annotate_to(trace, fast, false, &nf);
    annotate_to(trace, ref, true, &nr);
    cr_assert_gt(nf, least, "%llu segments", (unsigned long long)nf);
    assert_same_annotation(fast, nf, ref, nr);
}

Test(annotate_large, fast_paths_match_reference, .timeout = 60)
{
    fast_matches_reference("80", 4096);
}

/* ~80,000 segments: 64-byte records past 4 MiB, so the arrays come from
 * annot_alloc_big's huge pages and the out-of-place sort gathers into the
 * reserved creation array, as on the benchmarks' traces of 10^6 tasks. */
Test(annotate_large, fast_paths_match_reference_past_4_mib, .timeout = 120)
{
    fast_matches_reference("800", (4u << 20) / sizeof(pending_seg));
}

/* Writes the file at `from` into the FIFO at `to` from a child process. */
static pid_t feed_fifo(const char *from, const char *to)
{
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid) return pid;
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[1 << 16];
    size_t n;
    while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n) _exit(1);
    _exit(in && out && fclose(out) == 0 ? 0 : 1);
}

/* annotate reads its trace in one pass, so a pipe works (two passes read
 * a FIFO empty the second time: "truncated trace: header at byte 0"), and
 * without the file's size it grows its arrays instead of reserving them:
 * the same annotation either way. */
Test(annotate_large, trace_from_a_pipe_gives_the_same_annotation, .timeout = 60)
{
    char dir[64], trace[128], fifo[128], viafile[128], viapipe[128];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(fifo, sizeof fifo, "%s/rec.fifo", dir);
    snprintf(viafile, sizeof viafile, "%s/file.json", dir);
    snprintf(viapipe, sizeof viapipe, "%s/pipe.json", dir);
    record_rec(dir, "80", trace, sizeof trace);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    uint64_t nf, np;
    annotate_to(trace, viafile, false, &nf);
    pid_t child = feed_fifo(trace, fifo);
    annotate_to(fifo, viapipe, false, &np);
    int status;
    cr_assert_eq(waitpid(child, &status, 0), child);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_same_annotation(viafile, nf, viapipe, np);
}

/* annot_sort_u64_with sorts every run's start and end times: insertion below
 * 64 values, qsort below 4,096, radix above (the radix alone cost 100-130 µs
 * per region instance whatever n, issue 26 item 11).  Each path against
 * qsort, sizes on both sides of each threshold. */
Test(annotate_large, sort_u64_matches_qsort_on_every_path)
{
    const size_t sizes[] = {0, 1, 2, 3, 63, 64, 65, 500, 4095, 4096, 4097, 70000};
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
        size_t n = sizes[s];
        uint64_t *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b),
                 *scratch = malloc((n + 1) * sizeof *scratch);
        cr_assert(a && b && scratch);
        for (size_t i = 0; i < n; ++i) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            a[i] = b[i] = i % 5 ? x : x % 17; /* large values and many duplicates */
        }
        cr_assert(annot_sort_u64_with(a, n, scratch));
        qsort(b, n, sizeof *b, ompdag_cmp_u64);
        for (size_t i = 0; i < n; ++i)
            cr_assert_eq(a[i], b[i], "n %zu at %zu", n, i);
        free(a), free(b), free(scratch);
    }
}

/* The front end names a source by its real path; the compiler's line tables
 * keep the path it was given.  Through a linked source tree (a KASTORS copy
 * reached by a symbolic link) nothing mapped, and every region came out
 * unmeasured.  annot_same_file resolves both names when they end alike. */
Test(annotate_large, a_source_reached_through_a_link_is_the_same_file)
{
    char dir[64], real[160], link[160], a[200], b[200];
    cr_assert(probe_tmpdir(dir, sizeof dir));
    snprintf(real, sizeof real, "%s/tree", dir);
    snprintf(link, sizeof link, "%s/linked", dir);
    cr_assert_eq(mkdir(real, 0700), 0);
    cr_assert_eq(symlink(real, link), 0);
    snprintf(a, sizeof a, "%s/src.c", real);
    snprintf(b, sizeof b, "%s/src.c", link);
    FILE *f = fopen(a, "w");
    cr_assert_not_null(f);
    fclose(f);
    cr_expect(annot_same_file(a, b));
    cr_expect(annot_same_file(b, a));
    cr_expect(annot_same_file("src/x.c", "/any/where/src/x.c")); /* suffixes, as before */
    snprintf(b, sizeof b, "%s/other.c", link);
    cr_expect_not(annot_same_file(a, b));
    cr_expect_not(annot_same_file("/nowhere/a/src.c", "/nowhere/b/src.c"));
}
