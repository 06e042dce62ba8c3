/*
 * annotate/annotate_alloc.c — the allocator of annotate's large arrays:
 * huge pages for the arrays of 10^7 records (and, zeroed, for the large hash
 * tables), and doubling growth.
 * Part of `ompdag annotate` (annotate_trace.c is its entry); the rule and its
 * safety argument are in annotate_internal.h and docs/probe.md.
 */
#include <sys/mman.h>

#include "annotate_internal.h"
#include "ompdag/internal/array.h"

/* A transparent huge page (x86-64 and arm64 with 4 KiB base pages). */
static const size_t huge = (size_t)2 << 20;

void *annot_alloc_big(size_t bytes)
{
    if (bytes < 2 * huge) return malloc(bytes ? bytes : 1);
    void *p = NULL;
    if (posix_memalign(&p, huge, bytes)) return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, bytes & ~(huge - 1), MADV_HUGEPAGE); /* a hint: failure is harmless */
#endif
    return p;
}

void *annot_zalloc_big(size_t bytes)
{
    void *p = annot_alloc_big(bytes);
    if (p) memset(p, 0, bytes ? bytes : 1);
    return p;
}

void *annot_realloc_big(void *p, size_t old_bytes, size_t bytes)
{
    if (bytes < 2 * huge) return realloc(p, bytes ? bytes : 1);
    void *q = annot_alloc_big(bytes);
    if (!q) return NULL;
    memcpy(q, p, old_bytes < bytes ? old_bytes : bytes);
    free(p);
    return q;
}

bool annot_grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return true;
    size_t cap2 = ompdag_grown_capacity(*cap, need, size, 64);
    if (!cap2) return false;
    void *q = annot_realloc_big(*p, *cap * size, cap2 * size);
    if (!q) return false;
    *p = q, *cap = cap2;
    return true;
}
