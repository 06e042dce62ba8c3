/*
 * ompdag/internal/hashmap.h — INTERNAL: the one hash map of ompdag's modules
 * (not installed).  Header-only, so that a hot table's probe loop compiles
 * to straight code in its caller.
 *
 * Open addressing with linear probing over the caller's own array of
 * slots; the capacity is a power of two, the load never passes the table's
 * bound (at most 90 %), so every probe meets an empty slot, and growth
 * doubles the capacity and rehashes.  A slot is whatever the table stores:
 *
 *   - an entry with its key inside (the task table, the memo tables, the
 *     symbolizer's cache): ompdag_hmap_probe gives the slot of a key, or the
 *     empty slot where it would go; ompdag_hmap_reserve makes room first;
 *   - an index into the caller's array of keys (ompdag_imap: segment
 *     classes, code addresses, pooled strings, shared task bodies): the map
 *     keeps index + 1 and 32 bits of the key's hash, the caller's `same`
 *     compares keys only when those bits agree.
 *
 * A table is described once by an ompdag_hmap_kind, a static const in its
 * file: slot size, which slot is empty (an all-zero slot must be: tables
 * start zeroed), which slot holds a key, the hash of a stored slot (for
 * rehashing), the load bound, the first capacity and the allocator.  The
 * functions below are inlined with that constant, so its callbacks become
 * direct calls that the compiler inlines in turn.
 *
 * The hash is the caller's: its low bits pick the first slot, so it must mix
 * the key into them (ompdag_hmap_mix64 does).  A table never writes a slot
 * itself except when rehashing (a byte copy); errors are values (false or
 * NULL: out of memory, or a capacity that would overflow size_t).
 */
#ifndef OMPDAG_INTERNAL_HASHMAP_H
#define OMPDAG_INTERNAL_HASHMAP_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* How a table's slots look to the map. */
typedef struct ompdag_hmap_kind {
    size_t slot_size; /* bytes per slot */
    /* Whether a slot is empty; true for an all-zero slot. */
    bool (*empty)(const void *slot);
    /* Whether the non-empty slot holds `key`; ctx is the caller's (say, the
     * array an index points into), passed through.  NULL in a kind that
     * ompdag_hmap_probe never sees (ompdag_imap's). */
    bool (*holds)(const void *ctx, const void *slot, const void *key);
    /* The hash of the non-empty slot's key: the one the caller probes with. */
    uint64_t (*hash)(const void *ctx, const void *slot);
    unsigned max_load_pct; /* the table grows before its load would pass this (1..90) */
    size_t first_cap;      /* the first capacity: a power of two */
    /* Zeroed memory released with free(); NULL: calloc. */
    void *(*zalloc)(size_t bytes);
} ompdag_hmap_kind;

/* Whether n entries fit in cap slots within the load bound:
 * n <= floor(cap · max_load_pct / 100), exactly and without overflow (one
 * multiplication on every capacity a table can allocate; annotate asks
 * this once per segment).  With a bound under 100 % a table that fits
 * keeps an empty slot. */
static inline bool ompdag_hmap_fits(const ompdag_hmap_kind *k, size_t n, size_t cap)
{
    assert(k->max_load_pct >= 1 && k->max_load_pct <= 90);
    if (cap <= SIZE_MAX / 100) return n <= cap && n * 100 <= cap * k->max_load_pct;
    return n <= cap / 100 * k->max_load_pct + cap % 100 * k->max_load_pct / 100;
}

/* The capacity a table of `cap` slots grows to for `need` entries: twice
 * cap (first_cap when cap is 0), doubled until they fit; 0 when the array
 * would overflow size_t. */
static inline size_t ompdag_hmap_grown_cap(const ompdag_hmap_kind *k, size_t cap, size_t need)
{
    assert(k->first_cap && !(k->first_cap & (k->first_cap - 1)));
    size_t limit = SIZE_MAX / 2 / k->slot_size; /* a doubling stays addressable */
    if (cap > limit) return 0;
    size_t ncap = cap ? 2 * cap : k->first_cap;
    while (!ompdag_hmap_fits(k, need, ncap)) {
        if (ncap > limit) return 0;
        ncap *= 2;
    }
    return ncap;
}

/* The smallest capacity (from first_cap, doubling) that holds n entries;
 * 0 on overflow.  For tables sized once. */
static inline size_t ompdag_hmap_capacity_for(const ompdag_hmap_kind *k, size_t n)
{
    return ompdag_hmap_fits(k, n, k->first_cap) ? k->first_cap
                                                : ompdag_hmap_grown_cap(k, k->first_cap, n);
}

/* The i-th slot of an array of the table's slots. */
static inline const void *ompdag_hmap_at(const ompdag_hmap_kind *k, const void *slots, size_t i)
{
    return (const char *)slots + i * k->slot_size;
}

/* The index of the slot that holds `key`, or of the empty slot where the
 * probe from `hash` stops (where the key goes).  cap: a power of two,
 * with an empty slot somewhere (the load bound keeps one). */
static inline size_t ompdag_hmap_probe(const ompdag_hmap_kind *k, const void *ctx,
                                       const void *slots, size_t cap, uint64_t hash,
                                       const void *key)
{
    assert(cap && !(cap & (cap - 1)));
    size_t mask = cap - 1;
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        const void *s = ompdag_hmap_at(k, slots, i);
        if (k->empty(s) || k->holds(ctx, s, key)) return i;
    }
}

/* The first empty slot of the probe from `hash`: where a key known to be
 * absent goes. */
static inline size_t ompdag_hmap_probe_empty(const ompdag_hmap_kind *k, const void *slots,
                                             size_t cap, uint64_t hash)
{
    assert(cap && !(cap & (cap - 1)));
    size_t mask = cap - 1, i = (size_t)hash & mask;
    while (!k->empty(ompdag_hmap_at(k, slots, i)))
        i = (i + 1) & mask;
    return i;
}

/* A new zeroed array of `cap` slots holding every non-empty slot of
 * old[0..oldcap), each placed by its hash (old is left as it was); NULL on
 * out of memory or overflow.  Free with free(). */
static inline void *ompdag_hmap_rehash(const ompdag_hmap_kind *k, const void *ctx, const void *old,
                                       size_t oldcap, size_t cap)
{
    if (!cap || cap > SIZE_MAX / k->slot_size) return NULL;
    void *fresh = k->zalloc ? k->zalloc(cap * k->slot_size) : calloc(cap, k->slot_size);
    if (!fresh) return NULL;
    for (size_t i = 0; i < oldcap; ++i) {
        const void *s = ompdag_hmap_at(k, old, i);
        if (k->empty(s)) continue;
        size_t j = ompdag_hmap_probe_empty(k, fresh, cap, k->hash(ctx, s));
        memcpy((char *)fresh + j * k->slot_size, s, k->slot_size);
    }
    return fresh;
}

/* ompdag_hmap_reserve's growth: the table (*slots, *cap) of `used`
 * entries, rehashed into the capacity that fits `need`; the old array is
 * freed.  false, with the table unchanged, on out of memory or overflow. */
static inline bool ompdag_hmap_grow(const ompdag_hmap_kind *k, const void *ctx, void **slots,
                                    size_t *cap, size_t need)
{
    size_t ncap = ompdag_hmap_grown_cap(k, *cap, need);
    void *fresh = ncap ? ompdag_hmap_rehash(k, ctx, *slots, *cap, ncap) : NULL;
    if (!fresh) return false;
    free(*slots);
    *slots = fresh;
    *cap = ncap;
    return true;
}

/* Makes the table (*slots, *cap: 0 and NULL before the first call), which
 * holds `used` entries, fit `need` (at least used + 1 before an insert):
 * when it does not, it grows (ompdag_hmap_grown_cap) and rehashes, and the
 * old array is freed.  false, with the table unchanged, when memory runs
 * out or the capacity would overflow.  Slot indices change when it grows. */
static inline bool ompdag_hmap_reserve(const ompdag_hmap_kind *k, const void *ctx, void **slots,
                                       size_t *cap, size_t used, size_t need)
{
    assert(used <= need);
    (void)used;
    return (*cap && ompdag_hmap_fits(k, need, *cap)) || ompdag_hmap_grow(k, ctx, slots, cap, need);
}

/* A 64-bit finalizer (splitmix64's): every input bit reaches the low bits. */
static inline uint64_t ompdag_hmap_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* ---- index maps: keys in the caller's array --------------------------------- */

/* One slot: index + 1 (0: empty) and 32 bits of the key's hash, which pick
 * the slot and spare most key comparisons. */
typedef struct ompdag_imap_slot {
    uint32_t index1;
    uint32_t hash;
} ompdag_imap_slot;

/* A map from keys to indices 0 .. UINT32_MAX - 1 of the caller's array;
 * {0} is an empty map.  Release with ompdag_imap_free. */
typedef struct ompdag_imap {
    ompdag_imap_slot *slot;
    size_t cap; /* a power of two, or 0 */
    size_t used;
} ompdag_imap;

/* Whether index `index` of the caller's array (ctx) has key `key`. */
typedef bool (*ompdag_imap_same)(const void *ctx, uint32_t index, const void *key);

static inline bool ompdag_imap_slot_empty(const void *slot)
{
    return !((const ompdag_imap_slot *)slot)->index1;
}

static inline uint64_t ompdag_imap_slot_hash(const void *ctx, const void *slot)
{
    (void)ctx;
    return ((const ompdag_imap_slot *)slot)->hash;
}

/* Index maps keep their load under 1/2: short probes, 8 bytes per slot.
 * Their lookups compare hash bits, then the caller's keys (ompdag_imap_find),
 * so the kind needs no `holds`. */
static inline const ompdag_hmap_kind *ompdag_imap_kind(void)
{
    static const ompdag_hmap_kind kind = {sizeof(ompdag_imap_slot),
                                          ompdag_imap_slot_empty,
                                          NULL,
                                          ompdag_imap_slot_hash,
                                          50,
                                          64,
                                          NULL};
    return &kind;
}

/* The index whose key is `key` (hash: its 32-bit hash, the one it was added
 * with), or -1.  The probe of ompdag_hmap_probe, written out so that
 * `same`, a constant where this is inlined, is inlined too (through a
 * kind's `holds` it stayed a call). */
static inline int64_t ompdag_imap_find(const ompdag_imap *m, uint32_t hash, ompdag_imap_same same,
                                       const void *ctx, const void *key)
{
    if (!m->cap) return -1;
    size_t mask = m->cap - 1;
    for (size_t i = hash & mask; m->slot[i].index1; i = (i + 1) & mask)
        if (m->slot[i].hash == hash && same(ctx, m->slot[i].index1 - 1, key))
            return (int64_t)m->slot[i].index1 - 1;
    return -1;
}

/* Adds `index`, whose key has 32-bit hash `hash` and is not in the map yet
 * (ompdag_imap_find first); false on out of memory, or index UINT32_MAX
 * (index + 1 would not fit a slot). */
static inline bool ompdag_imap_add(ompdag_imap *m, uint32_t hash, uint32_t index)
{
    if (index == UINT32_MAX) return false;
    const ompdag_hmap_kind *k = ompdag_imap_kind();
    if (!ompdag_hmap_reserve(k, NULL, (void **)&m->slot, &m->cap, m->used, m->used + 1))
        return false;
    size_t i = ompdag_hmap_probe_empty(k, m->slot, m->cap, hash);
    m->slot[i] = (ompdag_imap_slot){index + 1, hash};
    ++m->used;
    return true;
}

static inline void ompdag_imap_free(ompdag_imap *m)
{
    free(m->slot);
    m->slot = NULL;
    m->cap = m->used = 0;
}

/* 32 bits of a 64-bit hash for an index map, both halves folded in. */
static inline uint32_t ompdag_imap_hash32(uint64_t h)
{
    return (uint32_t)(h ^ (h >> 32));
}

#endif
