/*
 * ompdag/internal/array.h — INTERNAL: the one growable-array helper of
 * ompdag's modules (not installed).
 *
 *   T *items = NULL; int64_t cap = 0, n = 0;
 *   if (!ompdag_grow_array((void **)&items, sizeof *items, &cap, n + 1))
 *       return out_of_memory();
 *   items[n++] = x;
 *
 * Capacity doubles (from 16), so n pushes cost O(n).  Fails without touching
 * *arr or *cap when memory runs out or when the size would overflow size_t.
 */
#ifndef OMPDAG_INTERNAL_ARRAY_H
#define OMPDAG_INTERNAL_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Makes *arr hold at least `need` elements of `elem` bytes; *cap is the
 * current capacity in elements (0 with *arr == NULL at first). */
static inline bool ompdag_grow_array(void **arr, size_t elem, int64_t *cap, int64_t need)
{
    if (need <= *cap) return true;
    if (need < 0 || elem == 0) return false;
    int64_t ncap = *cap > 0 ? *cap : 16;
    while (ncap < need) {
        if (ncap > INT64_MAX / 2) return false;
        ncap *= 2;
    }
    if ((uint64_t)ncap > SIZE_MAX / elem) return false;
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (!p) return false;
    *arr = p;
    *cap = ncap;
    return true;
}

#endif
