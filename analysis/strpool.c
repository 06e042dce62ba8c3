/* analysis/strpool.c — string pool and id map for the
 * structure-of-arrays graph (internal.h): the pool grows by
 * ompdag_grown_capacity, the id map is an index map of the one hash map
 * (ompdag/internal/hashmap.h). */
#include <string.h>

#include "internal.h"

int64_t strpool_add(strpool *p, const char *s)
{
    if (!s)
        return NO_STR;
    size_t n = strlen(s) + 1;
    if (n > SIZE_MAX - p->len)
        return -2;
    if (p->len + n > p->cap) {
        size_t ncap = ompdag_grown_capacity(p->cap, p->len + n, 1, 256);
        char *b = ncap ? realloc(p->buf, ncap) : NULL;
        if (!b)
            return -2;
        p->buf = b;
        p->cap = ncap;
    }
    memcpy(p->buf + p->len, s, n);
    int64_t off = (int64_t)p->len;
    p->len += n;
    return off;
}

void strpool_free(strpool *p)
{
    free(p->buf);
    *p = (strpool){0};
}

/* FNV-1a: simple, and good enough for short identifiers. */
static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; ++s)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* The map is an index map (ompdag/internal/hashmap.h) over keys[], whose
 * strings are in the pool. */
typedef struct idmap_keys {
    const strpool *pool;
    const int64_t *keys;
} idmap_keys;

static bool idmap_same(const void *ctx, uint32_t index, const void *key)
{
    const idmap_keys *k = ctx;
    return !strcmp(strpool_get(k->pool, k->keys[index]), key);
}

int32_t idmap_find(const idmap *m, const strpool *p, const int64_t *keys, const char *key)
{
    idmap_keys k = {p, keys};
    return (int32_t)ompdag_imap_find(&m->map, hash_str(key), idmap_same, &k, key);
}

bool idmap_insert(idmap *m, const strpool *p, const int64_t *keys, int32_t index)
{
    if (index < 0)
        return false;
    return ompdag_imap_add(&m->map, hash_str(strpool_get(p, keys[index])), (uint32_t)index);
}

void idmap_free(idmap *m)
{
    ompdag_imap_free(&m->map);
}
