/* analysis/strpool.c — string pool and id map for the
 * structure-of-arrays graph (internal.h). */
#include <string.h>

#include "internal.h"

int64_t strpool_add(strpool *p, const char *s)
{
    if (!s)
        return NO_STR;
    size_t n = strlen(s) + 1;
    if (p->len + n > p->cap) {
        size_t ncap = p->cap ? p->cap : 256;
        while (ncap < p->len + n)
            ncap *= 2;
        char *b = realloc(p->buf, ncap);
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

int32_t idmap_find(const idmap *m, const strpool *p, const int64_t *keys, const char *key)
{
    if (!m->cap)
        return -1;
    uint32_t h = hash_str(key);
    for (uint32_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        int32_t idx = m->slots[i];
        if (idx < 0)
            return -1;
        if (m->hashes[i] == h && !strcmp(strpool_get(p, keys[idx]), key))
            return idx;
    }
}

static void idmap_place(int32_t *slots, uint32_t *hashes, uint32_t cap, uint32_t h, int32_t index)
{
    uint32_t i = h & (cap - 1);
    while (slots[i] >= 0)
        i = (i + 1) & (cap - 1);
    slots[i] = index;
    hashes[i] = h;
}

static bool idmap_rehash(idmap *m)
{
    uint32_t ncap = m->cap ? m->cap * 2 : 64;
    int32_t *slots = malloc(sizeof *slots * ncap);
    uint32_t *hashes = malloc(sizeof *hashes * ncap);
    if (!slots || !hashes) {
        free(slots), free(hashes);
        return false;
    }
    memset(slots, 0xff, sizeof *slots * ncap);
    for (uint32_t i = 0; i < m->cap; ++i)
        if (m->slots[i] >= 0)
            idmap_place(slots, hashes, ncap, m->hashes[i], m->slots[i]);
    free(m->slots), free(m->hashes);
    m->slots = slots, m->hashes = hashes;
    m->cap = ncap;
    return true;
}

bool idmap_insert(idmap *m, const strpool *p, const int64_t *keys, int32_t index)
{
    /* Keep the load factor under 1/2 so probe chains stay short. */
    if ((m->count + 1) * 2 > m->cap && !idmap_rehash(m))
        return false;
    idmap_place(m->slots, m->hashes, m->cap, hash_str(strpool_get(p, keys[index])), index);
    m->count++;
    return true;
}

void idmap_free(idmap *m)
{
    free(m->slots);
    free(m->hashes);
    *m = (idmap){0};
}
