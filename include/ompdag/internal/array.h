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
 * Arrays with another allocator or a size_t capacity (annotate's huge pages,
 * the string pool) take their new capacity from ompdag_grown_capacity.
 */
#ifndef OMPDAG_INTERNAL_ARRAY_H
#define OMPDAG_INTERNAL_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* The capacity an array of `cap` elements of `elem` bytes grows to so that
 * it holds `need` (> cap): cap (`first` when 0) doubled until it does; 0
 * when the array's bytes would overflow size_t. */
static inline size_t ompdag_grown_capacity(size_t cap, size_t need, size_t elem, size_t first)
{
    size_t ncap = cap ? cap : first;
    if (!elem || !ncap) return 0;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) return 0;
        ncap *= 2;
    }
    return ncap > SIZE_MAX / elem ? 0 : ncap;
}

/* Makes *arr hold at least `need` elements of `elem` bytes; *cap is the
 * current capacity in elements (0 with *arr == NULL at first). */
static inline bool ompdag_grow_array(void **arr, size_t elem, int64_t *cap, int64_t need)
{
    if (need <= *cap) return true;
    if (need < 0) return false;
    size_t ncap = ompdag_grown_capacity(*cap > 0 ? (size_t)*cap : 0, (size_t)need, elem, 16);
    if (!ncap || ncap > INT64_MAX) return false;
    void *p = realloc(*arr, ncap * elem);
    if (!p) return false;
    *arr = p;
    *cap = (int64_t)ncap;
    return true;
}

#endif
