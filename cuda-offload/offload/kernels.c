/*
 * kernels.c — the bodies of kernels.h.  Plain loops; the floating-point
 * order inside one iteration is fixed, so results do not depend on chunking.
 */
#include "kernels.h"

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
    const float eps2 = 1e-3f;
    for (int64_t i = b; i < e; ++i) {
        float xi = k->pos[4 * i], yi = k->pos[4 * i + 1], zi = k->pos[4 * i + 2];
        float ax = 0, ay = 0, az = 0;
        for (int64_t j = 0; j < k->n; ++j) {
            float dx = k->pos[4 * j] - xi, dy = k->pos[4 * j + 1] - yi,
                  dz = k->pos[4 * j + 2] - zi;
            float r2 = dx * dx + dy * dy + dz * dz + eps2;
            float inv = 1.0f / sqrtf(r2);
            float s = k->pos[4 * j + 3] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        k->acc[3 * i] = ax;
        k->acc[3 * i + 1] = ay;
        k->acc[3 * i + 2] = az;
    }
}

void kern_hotspot_body(int64_t b, int64_t e, void *ctx)
{
    /* Rodinia hotspot's constants folded into Cap, Rx, Ry, Rz, step. */
    const kern_hotspot *k = ctx;
    const float Cap = 0.5f, Rx = 1.0f / 0.15f, Ry = 1.0f / 0.15f, Rz = 1.0f / 0.3f,
                amb = 80.0f, step = 0.01f;
    for (int64_t i = b; i < e; ++i) {
        int64_t r = i / k->cols, c = i % k->cols;
        float t = k->temp[i];
        float n = r > 0 ? k->temp[i - k->cols] : t;
        float s = r + 1 < k->rows ? k->temp[i + k->cols] : t;
        float w = c > 0 ? k->temp[i - 1] : t;
        float ea = c + 1 < k->cols ? k->temp[i + 1] : t;
        float delta = (step / Cap) * (k->power[i] + (s + n - 2.0f * t) * Ry +
                                      (ea + w - 2.0f * t) * Rx + (amb - t) * Rz);
        k->out[i] = t + delta;
    }
}

void kern_kmeans_body(int64_t b, int64_t e, void *ctx)
{
    const kern_kmeans *k = ctx;
    for (int64_t i = b; i < e; ++i) {
        const float *p = k->points + i * k->d;
        int best = 0;
        float bestd = INFINITY;
        for (int c = 0; c < k->k; ++c) {
            const float *q = k->centres + (int64_t)c * k->d;
            float dist = 0;
            for (int j = 0; j < k->d; ++j)
                dist += (p[j] - q[j]) * (p[j] - q[j]);
            if (dist < bestd) {
                bestd = dist;
                best = c;
            }
        }
        k->member[i] = best;
    }
}

void kern_bfs_body(int64_t b, int64_t e, void *ctx)
{
    const kern_bfs *k = ctx;
    for (int64_t v = b; v < e; ++v) {
        if (k->cur[v] >= 0)
            continue;
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
