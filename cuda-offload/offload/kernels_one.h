/*
 * kernels_one.h — one iteration of the compute-bound kernels of kernels.h
 * (nbody, hotspot, kmeans; seed 000 measured them with Rodinia's inputs),
 * written once as host/device code: kernels.c's CPU bodies loop over it and
 * kernels_gpu.cu's CUDA kernels run it one thread per iteration.  The
 * floating-point order is fixed here and kernels_gpu.cu is compiled with
 * -fmad=false (no fused multiply-add contraction) and IEEE sqrt / division,
 * so the GPU is meant to give the CPU's bits (tests/offload compares them
 * exactly when a device is present).
 */
#ifndef OMPDAG_OFFLOAD_KERNELS_ONE_H
#define OMPDAG_OFFLOAD_KERNELS_ONE_H

#include <math.h>

#include "kernels.h"

#ifdef __CUDACC__
#define KERN_HD __host__ __device__
#else
#define KERN_HD
#endif

/* Acceleration of body i from all n bodies (softened). */
static inline KERN_HD void kern_nbody_one(int64_t n, const float *pos, float *acc, int64_t i)
{
    const float eps2 = 1e-3f;
    float xi = pos[4 * i], yi = pos[4 * i + 1], zi = pos[4 * i + 2];
    float ax = 0, ay = 0, az = 0;
    for (int64_t j = 0; j < n; ++j) {
        float dx = pos[4 * j] - xi, dy = pos[4 * j + 1] - yi, dz = pos[4 * j + 2] - zi;
        float r2 = dx * dx + dy * dy + dz * dz + eps2;
        float inv = 1.0f / sqrtf(r2);
        float s = pos[4 * j + 3] * inv * inv * inv;
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    acc[3 * i] = ax;
    acc[3 * i + 1] = ay;
    acc[3 * i + 2] = az;
}

/* Rodinia hotspot's constants folded into Cap, Rx, Ry, Rz, step. */
static inline KERN_HD void kern_hotspot_one(int64_t rows, int64_t cols, const float *temp,
                                            const float *power, float *out, int64_t i)
{
    const float Cap = 0.5f, Rx = 1.0f / 0.15f, Ry = 1.0f / 0.15f, Rz = 1.0f / 0.3f, amb = 80.0f,
                step = 0.01f;
    int64_t r = i / cols, c = i % cols;
    float t = temp[i];
    float n = r > 0 ? temp[i - cols] : t;
    float s = r + 1 < rows ? temp[i + cols] : t;
    float w = c > 0 ? temp[i - 1] : t;
    float ea = c + 1 < cols ? temp[i + 1] : t;
    float delta = (step / Cap) *
                  (power[i] + (s + n - 2.0f * t) * Ry + (ea + w - 2.0f * t) * Rx + (amb - t) * Rz);
    out[i] = t + delta;
}

/* Nearest of k centres (d dims) to point i; the lowest index wins a tie. */
static inline KERN_HD int32_t kern_kmeans_one(int k, int d, const float *points,
                                              const float *centres, int64_t i)
{
    const float *p = points + i * d;
    int best = 0;
    float bestd = INFINITY;
    for (int c = 0; c < k; ++c) {
        const float *q = centres + (int64_t)c * d;
        float dist = 0;
        for (int j = 0; j < d; ++j)
            dist += (p[j] - q[j]) * (p[j] - q[j]);
        if (dist < bestd) {
            bestd = dist;
            best = c;
        }
    }
    return best;
}

#endif
