/*
 * tests/analysis/test_hashmap.c — the one hash map (ompdag/internal/hashmap.h):
 * entries with their keys inside (insert, find, growth, a hash that puts
 * every key in one bucket, the empty key), index maps (keys in the
 * caller's array, index 0 and the refused last index), the load bound and
 * the overflow checks, and 100 000 random operations of both flavours
 * against a brute-force array; and the growable array of
 * ompdag/internal/array.h, whose capacity step the tables share.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "ompdag/internal/array.h"
#include "ompdag/internal/hashmap.h"

static uint64_t rng_state = 0x853c49e6748fea9bull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* ---- an entry table: key 0 marks an empty slot ---- */

typedef struct entry {
    uint64_t key; /* 0 = empty */
    uint64_t value;
} entry;

static bool entry_empty(const void *s)
{
    return !((const entry *)s)->key;
}

static bool entry_holds(const void *ctx, const void *s, const void *key)
{
    (void)ctx;
    return ((const entry *)s)->key == *(const uint64_t *)key;
}

static uint64_t entry_hash(const void *ctx, const void *s)
{
    (void)ctx;
    return ompdag_hmap_mix64(((const entry *)s)->key);
}

/* Every key in one bucket: the probe must still tell them apart. */
static uint64_t same_bucket(const void *ctx, const void *s)
{
    (void)ctx, (void)s;
    return 5;
}

static const ompdag_hmap_kind entry_kind = {
    sizeof(entry), entry_empty, entry_holds, entry_hash, 70, 16, NULL};
static const ompdag_hmap_kind bucket_kind = {
    sizeof(entry), entry_empty, entry_holds, same_bucket, 50, 8, NULL};

typedef struct table {
    const ompdag_hmap_kind *kind;
    entry *slot;
    size_t cap, used;
} table;

static uint64_t key_hash(const table *t, uint64_t key)
{
    entry e = {key, 0};
    return t->kind->hash(NULL, &e);
}

/* Inserts or overwrites; false on out of memory. */
static bool table_put(table *t, uint64_t key, uint64_t value)
{
    if (!ompdag_hmap_reserve(t->kind, NULL, (void **)&t->slot, &t->cap, t->used, t->used + 1))
        return false;
    entry *e = &t->slot[ompdag_hmap_probe(t->kind, NULL, t->slot, t->cap, key_hash(t, key), &key)];
    if (!e->key) ++t->used;
    *e = (entry){key, value};
    cr_assert(ompdag_hmap_fits(t->kind, t->used, t->cap), "load bound kept");
    return true;
}

static const entry *table_get(const table *t, uint64_t key)
{
    if (!t->cap) return NULL;
    const entry *e =
        &t->slot[ompdag_hmap_probe(t->kind, NULL, t->slot, t->cap, key_hash(t, key), &key)];
    return e->key ? e : NULL;
}

Test(hashmap, entries_insert_find_and_grow)
{
    table t = {&entry_kind, NULL, 0, 0};
    cr_assert_null(table_get(&t, 42), "an empty table holds nothing");
    for (uint64_t k = 1; k <= 5000; ++k) {
        size_t cap = t.cap;
        cr_assert(table_put(&t, k * 0x10001, k));
        if (cap && t.cap != cap) cr_assert_eq(t.cap, 2 * cap, "growth doubles");
    }
    cr_assert_eq(t.used, 5000);
    cr_assert_eq(t.cap, 8192, "5000 entries at 70 %% need 8192 slots");
    for (uint64_t k = 1; k <= 5000; ++k) {
        const entry *e = table_get(&t, k * 0x10001);
        cr_assert_not_null(e, "key %llu lost", (unsigned long long)k);
        cr_assert_eq(e->value, k);
        cr_assert_null(table_get(&t, k * 0x10001 + 1));
    }
    cr_assert(table_put(&t, 0x10001, 99), "overwrite");
    cr_assert_eq(t.used, 5000);
    cr_assert_eq(table_get(&t, 0x10001)->value, 99);
    /* The empty key is no key: its probe stops at an empty slot. */
    cr_assert_null(table_get(&t, 0));
    free(t.slot);
}

Test(hashmap, one_bucket_collisions)
{
    table t = {&bucket_kind, NULL, 0, 0};
    for (uint64_t k = 1; k <= 600; ++k)
        cr_assert(table_put(&t, k, k + 1));
    cr_assert_eq(t.cap, 2048);
    for (uint64_t k = 1; k <= 600; ++k)
        cr_assert_eq(table_get(&t, k)->value, k + 1);
    for (uint64_t k = 601; k <= 700; ++k)
        cr_assert_null(table_get(&t, k));
    /* The cluster starts at slot 5 and wraps past the end. */
    cr_assert(t.slot[5].key);
    free(t.slot);
}

Test(hashmap, a_cluster_wraps_around_the_end)
{
    static const ompdag_hmap_kind k = {sizeof(entry), entry_empty, entry_holds, same_bucket, 90, 8,
                                       NULL};
    entry slot[8] = {{0}};
    /* hash 5: slots 5, 6, 7, then 0 */
    for (uint64_t key = 1; key <= 4; ++key) {
        size_t i = ompdag_hmap_probe(&k, NULL, slot, 8, 5, &key);
        cr_assert_eq(i, (size_t)(4 + key) % 8);
        slot[i] = (entry){key, key};
    }
    uint64_t absent = 9;
    cr_assert_eq(ompdag_hmap_probe(&k, NULL, slot, 8, 5, &absent), 1);
    cr_assert_eq(ompdag_hmap_probe_empty(&k, slot, 8, 6), 1);
}

/* ---- growth policy and overflow ---- */

Test(hashmap, load_bound_is_exact_and_overflow_free)
{
    for (int r = 0; r < 100000; ++r) {
        size_t cap = r < 50000 ? (size_t)rnd() : (size_t)(rnd() % 5000);
        size_t n = r % 3 ? (size_t)rnd() : (size_t)(((unsigned __int128)cap * 70) / 100);
        bool want = (unsigned __int128)n * 100 <= (unsigned __int128)cap * 70;
        cr_assert_eq(ompdag_hmap_fits(&entry_kind, n, cap), want, "n %zu cap %zu", n, cap);
    }
    cr_assert(!ompdag_hmap_fits(&entry_kind, 1, 1), "a lone slot stays empty");
    cr_assert(ompdag_hmap_fits(&entry_kind, 7, 10));
    cr_assert(!ompdag_hmap_fits(&entry_kind, 8, 10));
    cr_assert_eq(ompdag_hmap_capacity_for(&entry_kind, 0), 16);
    cr_assert_eq(ompdag_hmap_capacity_for(&entry_kind, 11), 16);
    cr_assert_eq(ompdag_hmap_capacity_for(&entry_kind, 12), 32);
    cr_assert_eq(ompdag_hmap_grown_cap(&entry_kind, 64, 1), 128, "growth doubles");
    cr_assert_eq(ompdag_hmap_capacity_for(&entry_kind, SIZE_MAX), 0, "overflow is refused");
    cr_assert_eq(ompdag_hmap_grown_cap(&entry_kind, SIZE_MAX / 16 + 1, 1), 0);
    cr_assert_eq(ompdag_hmap_capacity_for(&entry_kind, SIZE_MAX / 32), 0);
}

static int zalloc_budget;

static void *zalloc_limited(size_t bytes)
{
    return zalloc_budget-- > 0 ? calloc(1, bytes) : NULL;
}

Test(hashmap, out_of_memory_keeps_the_table)
{
    ompdag_hmap_kind k = entry_kind;
    k.zalloc = zalloc_limited;
    zalloc_budget = 1;
    table t = {&k, NULL, 0, 0};
    for (uint64_t key = 1; key <= 11; ++key)
        cr_assert(table_put(&t, key, key));
    entry *before = t.slot;
    cr_assert_not(table_put(&t, 12, 12), "the second allocation fails");
    cr_assert_eq(t.slot, before);
    cr_assert_eq(t.cap, 16);
    cr_assert_eq(t.used, 11);
    for (uint64_t key = 1; key <= 11; ++key)
        cr_assert_eq(table_get(&t, key)->value, key);
    free(t.slot);
}

/* ---- index maps ---- */

static bool same_u64(const void *ctx, uint32_t index, const void *key)
{
    return ((const uint64_t *)ctx)[index] == *(const uint64_t *)key;
}

static uint32_t u64_hash32(uint64_t key)
{
    return ompdag_imap_hash32(ompdag_hmap_mix64(key));
}

Test(hashmap, index_map_keeps_index_zero_and_refuses_the_last)
{
    ompdag_imap m = {0};
    uint64_t keys[3] = {7, 0, 9};
    uint64_t probe = 7;
    cr_assert_eq(ompdag_imap_find(&m, u64_hash32(7), same_u64, keys, &probe), -1);
    for (uint32_t i = 0; i < 3; ++i)
        cr_assert(ompdag_imap_add(&m, u64_hash32(keys[i]), i));
    for (uint32_t i = 0; i < 3; ++i)
        cr_assert_eq(ompdag_imap_find(&m, u64_hash32(keys[i]), same_u64, keys, &keys[i]), i,
                     "index 0 is a real entry, key 0 a real key");
    cr_assert_not(ompdag_imap_add(&m, 1, UINT32_MAX), "index + 1 must fit");
    cr_assert_eq(m.used, 3);
    ompdag_imap_free(&m);
    cr_assert_null(m.slot);
    cr_assert_eq(m.cap, 0);
}

/* Equal 32-bit hashes, different keys: the caller's comparison decides. */
Test(hashmap, index_map_same_hash_different_keys)
{
    ompdag_imap m = {0};
    uint64_t keys[500];
    for (uint32_t i = 0; i < 500; ++i) {
        keys[i] = 1000 + i;
        cr_assert(ompdag_imap_add(&m, 77, i));
    }
    for (uint32_t i = 0; i < 500; ++i)
        cr_assert_eq(ompdag_imap_find(&m, 77, same_u64, keys, &keys[i]), i);
    uint64_t absent = 5;
    cr_assert_eq(ompdag_imap_find(&m, 77, same_u64, keys, &absent), -1);
    cr_assert_eq(ompdag_imap_find(&m, 78, same_u64, keys, &keys[3]), -1, "hash bits differ");
    ompdag_imap_free(&m);
}

/* ---- random operations against a brute-force array ---- */

/* Key universe: u -> a key spread over 64 bits (a bijection, so distinct
 * u give distinct keys); keys of the low range share hash bits often. */
static uint64_t key_of(uint64_t u)
{
    return u < 1000 ? u + 1 : (u * 0x9e3779b97f4a7c15ull) | 1;
}

Test(hashmap, random_operations_match_brute_force)
{
    enum { ops = 100000, universe = 1 << 15 };
    static int64_t truth[universe]; /* value + 1 per key (0: absent): the brute force */
    static uint64_t keys[ops];      /* the index map's keys, by index */
    static int64_t index_of[universe];
    memset(truth, 0, sizeof truth);
    for (size_t u = 0; u < universe; ++u)
        index_of[u] = -1;
    table t = {&entry_kind, NULL, 0, 0};
    table c = {&bucket_kind, NULL, 0, 0}; /* the same with every key in one bucket */
    ompdag_imap m = {0};
    uint32_t nkeys = 0;
    for (int op = 0; op < ops; ++op) {
        uint64_t u = rnd() % (op < ops / 2 ? universe : universe / 8), key = key_of(u);
        if (rnd() % 3) { /* insert (or overwrite) */
            uint64_t v = rnd() >> 1;
            cr_assert(table_put(&t, key, v));
            if (op < 4000) cr_assert(table_put(&c, key, v));
            truth[u] = (int64_t)v + 1;
            if (index_of[u] < 0) {
                cr_assert_eq(ompdag_imap_find(&m, u64_hash32(key), same_u64, keys, &key), -1);
                keys[nkeys] = key;
                cr_assert(ompdag_imap_add(&m, u64_hash32(key), nkeys));
                index_of[u] = nkeys++;
            }
        }
        const entry *e = table_get(&t, key);
        cr_assert_eq(e ? (int64_t)e->value + 1 : 0, truth[u], "op %d", op);
        if (op < 4000) {
            const entry *f = table_get(&c, key);
            cr_assert_eq(f ? (int64_t)f->value + 1 : 0, truth[u], "one bucket, op %d", op);
        }
        cr_assert_eq(ompdag_imap_find(&m, u64_hash32(key), same_u64, keys, &key), index_of[u]);
    }
    /* and every key of the universe at the end, present or not */
    size_t present = 0;
    for (uint64_t u = 0; u < universe; ++u) {
        uint64_t key = key_of(u);
        const entry *e = table_get(&t, key);
        cr_assert_eq(e ? (int64_t)e->value + 1 : 0, truth[u]);
        cr_assert_eq(ompdag_imap_find(&m, u64_hash32(key), same_u64, keys, &key), index_of[u]);
        present += truth[u] != 0;
    }
    cr_assert_eq(t.used, present);
    cr_assert_eq(m.used, nkeys);
    cr_assert_eq(nkeys, present);
    free(t.slot);
    free(c.slot);
    ompdag_imap_free(&m);
}

/* ---- the one growable array (ompdag/internal/array.h) ---- */

Test(array, grown_capacity_doubles_from_first_and_refuses_overflow)
{
    cr_assert_eq(ompdag_grown_capacity(0, 1, 8, 16), 16);
    cr_assert_eq(ompdag_grown_capacity(16, 17, 8, 16), 32);
    cr_assert_eq(ompdag_grown_capacity(16, 1000, 8, 16), 1024);
    cr_assert_eq(ompdag_grown_capacity(0, 300, 1, 256), 512);
    cr_assert_eq(ompdag_grown_capacity(0, 5, 0, 16), 0, "no element size");
    cr_assert_eq(ompdag_grown_capacity(SIZE_MAX / 2 + 1, SIZE_MAX, 1, 1), 0, "doubling overflows");
    cr_assert_eq(ompdag_grown_capacity((size_t)1 << 60, ((size_t)1 << 60) + 1, 16, 1), 0,
                 "bytes overflow");
    cr_assert_eq(ompdag_grown_capacity((size_t)1 << 58, ((size_t)1 << 58) + 1, 16, 1),
                 (size_t)1 << 59, "the largest that fits");
}

Test(array, grow_array_keeps_contents_and_refuses_bad_sizes)
{
    int32_t *v = NULL;
    int64_t cap = 0;
    for (int32_t i = 0; i < 1000; ++i) {
        cr_assert(ompdag_grow_array((void **)&v, sizeof *v, &cap, (int64_t)i + 1));
        v[i] = 3 * i;
    }
    cr_assert_eq(cap, 1024, "doubling from 16");
    for (int32_t i = 0; i < 1000; ++i)
        cr_assert_eq(v[i], 3 * i);
    int32_t *keep = v;
    cr_assert(ompdag_grow_array((void **)&v, sizeof *v, &cap, -1), "nothing to grow");
    cr_assert_not(ompdag_grow_array((void **)&v, sizeof *v, &cap, INT64_MAX));
    cr_assert_eq(v, keep, "a refused growth leaves the array");
    cr_assert_eq(cap, 1024);
    free(v);
}
