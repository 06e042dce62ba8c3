/*
 * kernels.h — Rodinia-like data-parallel kernels written as region bodies
 * (seed 000 measured bfs, nbody, hotspot, kmeans among others), shared by the
 * tests, the benchmark and the example so none copies them.  Every body
 * writes only the outputs of its own iterations, so any chunking gives
 * results bit-identical to the serial loop kern_*_serial().
 */
#ifndef OMPDAG_OFFLOAD_KERNELS_H
#define OMPDAG_OFFLOAD_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y[i] = a*x[i] + y0[i] */
typedef struct kern_saxpy {
    int64_t n;
    float a;
    const float *x, *y0;
    float *y;
} kern_saxpy;
void kern_saxpy_body(int64_t b, int64_t e, void *ctx);

/* One n-body step: acceleration of body i from all others (softened). */
typedef struct kern_nbody {
    int64_t n;
    const float *pos; /* x,y,z,m per body */
    float *acc;       /* x,y,z per body */
} kern_nbody;
void kern_nbody_body(int64_t b, int64_t e, void *ctx);

/* One hotspot step (Rodinia): temperature of cell i from its neighbours
 * and its power; rows*cols cells. */
typedef struct kern_hotspot {
    int64_t rows, cols;
    const float *temp, *power;
    float *out;
} kern_hotspot;
void kern_hotspot_body(int64_t b, int64_t e, void *ctx);

/* k-means assignment step: nearest of k centres for each of n points (d dims). */
typedef struct kern_kmeans {
    int64_t n;
    int k, d;
    const float *points, *centres;
    int32_t *member;
} kern_kmeans;
void kern_kmeans_body(int64_t b, int64_t e, void *ctx);

/* One bottom-up BFS level on a CSR graph: an unreached vertex with a
 * neighbour at `level` gets level + 1 (writes only its own entry). */
typedef struct kern_bfs {
    int64_t n;
    const int64_t *off, *adj;
    const int32_t *cur; /* levels before this step */
    int32_t *next;      /* levels after (a copy of cur, updated) */
    int32_t level;
} kern_bfs;
void kern_bfs_body(int64_t b, int64_t e, void *ctx);

/* A loop whose iteration i costs (1 + skew·i/n) units of work: out[i]. */
typedef struct kern_skew {
    int64_t n;
    double skew;
    int units;
    double *out;
} kern_skew;
void kern_skew_body(int64_t b, int64_t e, void *ctx);

/* Deterministic pseudo-random fill in [lo, hi). */
void kern_fill(float *v, int64_t n, uint64_t seed, float lo, float hi);
/* A random graph in CSR with n vertices and about n*deg directed edges (both
 * directions stored); *off has n+1 entries.  Free both with free(). */
int kern_graph(int64_t n, int deg, uint64_t seed, int64_t **off, int64_t **adj);

#ifdef __cplusplus
}
#endif
#endif
