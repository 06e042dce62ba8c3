/*
 * kernels.c — the bodies of kernels.h.  Plain loops (nbody, hotspot and
 * kmeans over kernels_one.h, the code their CUDA kernels run); the
 * floating-point order inside one iteration is fixed, so results do not
 * depend on chunking.
 */
#include "kernels.h"
#include "kernels_one.h"

#include <math.h>
#include <stdlib.h>

void kern_saxpy_body(int64_t b, int64_t e, void *ctx)
{
    const kern_saxpy *k = ctx;
    for (int64_t i = b; i < e; ++i)
        k->y[i] = k->a * k->x[i] + k->y0[i];
}

void kern_nbody_body(int64_t b, int64_t e, void *ctx)
{
    const kern_nbody *k = ctx;
    for (int64_t i = b; i < e; ++i)
        kern_nbody_one(k->n, k->pos, k->acc, i);
}

void kern_hotspot_body(int64_t b, int64_t e, void *ctx)
{
    const kern_hotspot *k = ctx;
    for (int64_t i = b; i < e; ++i)
        kern_hotspot_one(k->rows, k->cols, k->temp, k->power, k->out, i);
}

void kern_kmeans_body(int64_t b, int64_t e, void *ctx)
{
    const kern_kmeans *k = ctx;
    for (int64_t i = b; i < e; ++i)
        k->member[i] = kern_kmeans_one(k->k, k->d, k->points, k->centres, i);
}

void kern_bfs_body(int64_t b, int64_t e, void *ctx)
{
    const kern_bfs *k = ctx;
    for (int64_t v = b; v < e; ++v) {
        if (k->cur[v] >= 0) continue;
        for (int64_t j = k->off[v]; j < k->off[v + 1]; ++j)
            if (k->cur[k->adj[j]] == k->level) {
                k->next[v] = k->level + 1;
                break;
            }
    }
}

void kern_skew_body(int64_t b, int64_t e, void *ctx)
{
    const kern_skew *k = ctx;
    for (int64_t i = b; i < e; ++i) {
        int units = (int)((double)k->units * (1.0 + k->skew * (double)i / (double)k->n));
        double x = (double)i;
        for (int u = 0; u < units; ++u)
            x = x * 0.999999 + 1.0 / (1.0 + x);
        k->out[i] = x;
    }
}

/* splitmix64 */
static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void kern_fill(float *v, int64_t n, uint64_t seed, float lo, float hi)
{
    uint64_t s = seed;
    for (int64_t i = 0; i < n; ++i)
        v[i] = lo + (hi - lo) * (float)((double)(mix(&s) >> 11) / 9007199254740992.0);
}

int kern_graph(int64_t n, int deg, uint64_t seed, int64_t **off_out, int64_t **adj_out)
{
    int64_t m = n * deg;
    int64_t *src = malloc((size_t)m * sizeof *src), *dst = malloc((size_t)m * sizeof *dst);
    int64_t *off = calloc((size_t)n + 1, sizeof *off);
    int64_t *adj = malloc((size_t)(2 * m > 0 ? 2 * m : 1) * sizeof *adj);
    int64_t *fill = calloc((size_t)n + 1, sizeof *fill);
    if (!src || !dst || !off || !adj || !fill) {
        free(src), free(dst), free(off), free(adj), free(fill);
        return -1;
    }
    uint64_t s = seed;
    for (int64_t i = 0; i < m; ++i) {
        src[i] = (int64_t)(mix(&s) % (uint64_t)n);
        dst[i] = (int64_t)(mix(&s) % (uint64_t)n);
        off[src[i] + 1]++;
        off[dst[i] + 1]++;
    }
    for (int64_t v = 0; v < n; ++v)
        off[v + 1] += off[v];
    for (int64_t i = 0; i < m; ++i) {
        adj[off[src[i]] + fill[src[i]]++] = dst[i];
        adj[off[dst[i]] + fill[dst[i]]++] = src[i];
    }
    free(src), free(dst), free(fill);
    *off_out = off;
    *adj_out = adj;
    return 0;
}
