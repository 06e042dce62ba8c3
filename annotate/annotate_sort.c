/*
 * annotate/annotate_sort.c — sorting the buffered segments: LSD radix sort
 * (16-bit digits) of records by 64-bit keys, and of plain 64-bit arrays.
 * Part of `ompdag annotate` (annotate_trace.c is its entry); the rule and its
 * safety argument are in annotate_internal.h and docs/probe.md.
 */
#include "annotate_internal.h"
#include "ompdag/internal/stats.h"

static int cmp_pending(const void *x, const void *y)
{
    const pending_seg *a = x, *b = y;
    if (a->run != b->run) return a->run < b->run ? -1 : 1;
    if (a->created != b->created) return a->created < b->created ? -1 : 1;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return a->time < b->time ? -1 : a->time > b->time;
}

/* Sort keys of a pending segment, most significant first. */
static uint64_t pend_key(const void *rec, int k)
{
    const pending_seg *p = rec;
    switch (k) {
    case 0:
        return p->run;
    case 1:
        return p->created;
    case 2:
        return p->id;
    default:
        return p->time;
    }
}

/* One stable pass of LSD radix sort: (key, idx) by 16-bit digit `shift`
 * into (key2, idx2); false when every key has the same digit (no move). */
/* count[d] := where the first key with 16-bit digit d (at `shift`) goes in
 * a stable pass over key[0..n); false, with nothing to move, when every key
 * has the same digit. */
static bool digit_offsets(const uint64_t *key, size_t n, unsigned shift, size_t *count)
{
    memset(count, 0, 65536 * sizeof *count);
    for (size_t i = 0; i < n; ++i)
        ++count[(key[i] >> shift) & 0xffff];
    if (count[(key[0] >> shift) & 0xffff] == n) return false;
    size_t sum = 0;
    for (size_t d = 0; d < 65536; ++d) {
        size_t k = count[d];
        count[d] = sum;
        sum += k;
    }
    return true;
}

static bool radix_pass(const uint64_t *key, const uint32_t *idx, uint64_t *key2, uint32_t *idx2,
                       size_t n, unsigned shift, size_t *count)
{
    if (!digit_offsets(key, n, shift, count)) return false;
    for (size_t i = 0; i < n; ++i) {
        size_t at = count[(key[i] >> shift) & 0xffff]++;
        key2[at] = key[i];
        idx2[at] = idx[i];
    }
    return true;
}

/* p_new[j] = p_old[idx[j]], cycle by cycle; idx[j] = j marks j done. */
static inline __attribute__((always_inline)) void permute(unsigned char *p, uint32_t *idx, size_t n,
                                                          size_t size, unsigned char *tmp)
{
    for (size_t i = 0; i < n; ++i) {
        if (idx[i] == i) continue;
        memcpy(tmp, p + i * size, size);
        size_t j = i;
        for (;;) {
            size_t k = idx[j];
            idx[j] = (uint32_t)j;
            if (k == i) {
                memcpy(p + j * size, tmp, size);
                break;
            }
            memcpy(p + j * size, p + k * size, size);
            j = k;
        }
    }
}

bool annot_sort_u64(uint64_t *a, size_t n)
{
    if (n < 2) return true;
    uint64_t *b = annot_alloc_big(n * sizeof *b);
    bool ok = b && annot_sort_u64_with(a, n, b);
    free(b);
    return ok;
}

/* Small arrays (a region instance's few dozen start/end times, sorted twice
 * per run) by insertion: the radix passes clear a 65,536-entry count table
 * each, 100-130 µs per run whatever n (issue 26 item 11). */
enum { SMALL_SORT = 64 };

static void insertion_sort_u64(uint64_t *a, size_t n)
{
    for (size_t i = 1; i < n; ++i) {
        uint64_t x = a[i];
        size_t j = i;
        for (; j > 0 && a[j - 1] > x; --j)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

bool annot_sort_u64_with(uint64_t *a, size_t n, uint64_t *b)
{
    if (n < 2) return true;
    if (n <= SMALL_SORT) {
        insertion_sort_u64(a, n);
        return true;
    }
    if (n < 4096) {
        qsort(a, n, sizeof *a, ompdag_cmp_u64);
        return true;
    }
    size_t *count = malloc(65536 * sizeof *count);
    if (!count) return false;
    uint64_t *from = a, *to = b;
    for (unsigned shift = 0; shift < 64; shift += 16) {
        if (!digit_offsets(from, n, shift, count)) continue; /* one digit: no move */
        for (size_t i = 0; i < n; ++i)
            to[count[(from[i] >> shift) & 0xffff]++] = from[i];
        uint64_t *t = from;
        from = to, to = t;
    }
    if (from != a) memcpy(a, from, n * sizeof *a);
    free(count);
    return true;
}

/* The order that sorts p[0..n) (records of `size` bytes) by nkeys keys:
 * record idx[j] goes to j.  LSD radix on (key, index) pairs; NULL on
 * ENOMEM.  The caller frees it. */
static uint32_t *radix_order(const unsigned char *p, size_t n, size_t size, int nkeys,
                             uint64_t (*key_of)(const void *rec, int k))
{
    uint32_t *idx = annot_alloc_big(n * sizeof *idx), *idx2 = annot_alloc_big(n * sizeof *idx2);
    uint64_t *key = annot_alloc_big(n * sizeof *key), *key2 = annot_alloc_big(n * sizeof *key2);
    size_t *count = malloc(65536 * sizeof *count);
    bool ok = idx && idx2 && key && key2 && count;
    for (size_t i = 0; ok && i < n; ++i)
        idx[i] = (uint32_t)i;
    for (int k = nkeys - 1; ok && k >= 0; --k) { /* least significant key first */
        /* a constant key (one region run) orders nothing: skip its gather,
         * random once idx is not the identity */
        uint64_t k0 = key_of(p, k);
        size_t same = 1;
        while (same < n && key_of(p + same * size, k) == k0)
            ++same;
        if (same == n) continue;
        for (size_t i = 0; i < n; ++i)
            key[i] = key_of(p + (size_t)idx[i] * size, k);
        for (unsigned shift = 0; shift < 64; shift += 16)
            if (radix_pass(key, idx, key2, idx2, n, shift, count)) {
                uint64_t *tk = key;
                key = key2, key2 = tk;
                uint32_t *ti = idx;
                idx = idx2, idx2 = ti;
            }
    }
    free(idx2), free(key), free(key2), free(count);
    if (ok) return idx;
    free(idx);
    return NULL;
}

/* out[j] = p[idx[j]]: reads at random but independently, so with the
 * records fetched ahead it runs at memory bandwidth, where permute's
 * cycles wait for one miss after another (0.8 s of fib(30)'s 10^7). */
static inline __attribute__((always_inline)) void gather(unsigned char *restrict out,
                                                         const unsigned char *p,
                                                         const uint32_t *idx, size_t n, size_t size)
{
    enum { ahead = 32 }; /* records */
    for (size_t j = 0; j < n; ++j) {
        if (j + ahead < n) __builtin_prefetch(p + (size_t)idx[j + ahead] * size);
        memcpy(out + j * size, p + (size_t)idx[j] * size, size);
    }
}

bool annot_sort_records(void *base, size_t n, size_t size, int nkeys,
                        uint64_t (*key_of)(const void *rec, int k),
                        int (*cmp)(const void *, const void *))
{
    return annot_sort_records_to(base, NULL, n, size, nkeys, key_of, cmp);
}

bool annot_sort_records_to(void *base, void *out, size_t n, size_t size, int nkeys,
                           uint64_t (*key_of)(const void *rec, int k),
                           int (*cmp)(const void *, const void *))
{
    unsigned char *p = base, *o = out;
    if (n < 4096 || n > UINT32_MAX || annot_reference_paths) {
        if (o && n) memcpy(o, p, n * size);
        if (n > 1) qsort(o ? o : p, n, size, cmp);
        return true;
    }
    uint32_t *idx = radix_order(p, n, size, nkeys, key_of);
    unsigned char *tmp = o ? NULL : malloc(size);
    bool ok = idx && (o || tmp);
    /* a constant size lets memcpy inline */
    if (ok && o && size == sizeof(pending_seg))
        gather(o, p, idx, n, sizeof(pending_seg));
    else if (ok && o)
        gather(o, p, idx, n, size);
    else if (ok && size == sizeof(pending_seg))
        permute(p, idx, n, sizeof(pending_seg), tmp);
    else if (ok && size == 32)
        permute(p, idx, n, 32, tmp);
    else if (ok)
        permute(p, idx, n, size, tmp);
    free(idx), free(tmp);
    return ok;
}

/* Orders seg[0..n), one task instance's segments (equal run and created)
 * or a few instances created at the same instant, by (id, time). */
static void sort_group(pending_seg *seg, size_t n)
{
    if (n > 16) {
        qsort(seg, n, sizeof *seg, cmp_pending);
        return;
    }
    for (size_t i = 1; i < n; ++i) { /* insertion sort: usually 1-3 segments */
        pending_seg x = seg[i];
        size_t j = i;
        while (j > 0 && cmp_pending(&seg[j - 1], &x) > 0) {
            seg[j] = seg[j - 1];
            --j;
        }
        seg[j] = x;
    }
}

/* A trace of 10^6 tasks buffers ~10^7 segments: qsort of the (then 80-byte)
 * records took seconds and a temporary copy of them.  The radix sort takes
 * the two keys that order task instances (run, created); the few segments
 * of each instance are then put in (id, time) order in place. */
bool annot_sort_pending(trace_ctx *c)
{
    pending_seg *p = c->pend;
    size_t n = c->npend;
    if (n < 4096 || annot_reference_paths)
        return annot_sort_records(p, n, sizeof *p, 4, pend_key, cmp_pending);
    /* Out of place into the spent creation records when they are large
     * enough (their pages are already faulted in), else into a new array;
     * in place when that is refused. */
    size_t bytes = n * sizeof *p;
    pending_seg *out = c->spare && c->spare_bytes >= bytes ? c->spare : annot_alloc_big(bytes);
    if (!annot_sort_records_to(p, out, n, sizeof *p, 2, pend_key, cmp_pending)) {
        if (out != c->spare) free(out);
        return false;
    }
    if (out) {
        if (out == c->spare) c->spare = NULL;
        free(c->pend);
        c->pend = p = out;
        c->pend_cap = n;
    }
    free(c->spare); /* too small: no later use */
    c->spare = NULL;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && p[j].run == p[i].run && p[j].created == p[i].created; ++j)
            ;
        sort_group(&p[i], j - i);
    }
    return true;
}
