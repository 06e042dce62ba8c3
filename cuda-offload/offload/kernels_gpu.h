/*
 * kernels_gpu.h — CUDA bodies for the seed's compute-bound kernels (nbody,
 * hotspot, kmeans; seed 000 §5 runs them on CPU + GPU under DTSA, static,
 * GSS and DSS), each beside the CPU body it must match (kernels.c, both over
 * kernels_one.h).  A region's ctx is a kern_region: the CPU body reads its
 * first member as its kernel struct, the GPU body finds the device state
 * after it.  Built with CUDA (kernels_gpu.cu) or without (kernels_gpu_none.c,
 * where kern_gpu_open says why there is no GPU).
 */
#ifndef OMPDAG_OFFLOAD_KERNELS_GPU_H
#define OMPDAG_OFFLOAD_KERNELS_GPU_H

#include <stddef.h>

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kern_gpu_kind { KERN_GPU_NBODY = 0, KERN_GPU_HOTSPOT, KERN_GPU_KMEANS } kern_gpu_kind;

typedef struct kern_gpu kern_gpu;

typedef struct kern_region {
    union {
        kern_nbody nbody;
        kern_hotspot hotspot;
        kern_kmeans kmeans;
    } k;                /* first: ctx is also the CPU body's kernel struct */
    kern_gpu_kind kind; /* which member of k */
    kern_gpu *gpu;      /* owned; NULL without a device */
} kern_region;

/* The CPU body of a kind (kernels.c). */
void (*kern_cpu_body(kern_gpu_kind kind))(int64_t begin, int64_t end, void *ctx);

/* Device copies of what every chunk of r reads (nbody: all positions;
 * hotspot: temperature and power; kmeans: the centres) on CUDA device
 * `device`, and r's host arrays page-locked for asynchronous copies.
 * NULL with the reason in why[] without CUDA, without a device or on a
 * CUDA error.  Close with kern_gpu_close (NULL is fine). */
kern_gpu *kern_gpu_open(kern_gpu_kind kind, const kern_region *r, int device, char *why,
                        size_t why_size);
void kern_gpu_close(kern_gpu *g);

/* The GPU body (ompdag_offload_gpu_fn): for iterations [begin, end) of
 * ctx (a kern_region), copies the chunk's own inputs in (kmeans: its
 * points), runs one thread per iteration of kernels_one.h, copies its
 * outputs back; all enqueued on `stream`, so the transfers count in the
 * chunk time as in seed 000. */
void kern_gpu_body(int64_t begin, int64_t end, void *ctx, void *stream);

#ifdef __cplusplus
}
#endif
#endif
