/* kernels_gpu_none.c — kernels_gpu.h in a build without CUDA: no GPU body
 * can run, and kern_gpu_open says so. */
#include <stdio.h>

#include "kernels_gpu.h"

void (*kern_cpu_body(kern_gpu_kind kind))(int64_t, int64_t, void *)
{
    return kind == KERN_GPU_NBODY     ? kern_nbody_body
           : kind == KERN_GPU_HOTSPOT ? kern_hotspot_body
                                      : kern_kmeans_body;
}

kern_gpu *kern_gpu_open(kern_gpu_kind kind, const kern_region *r, int device, char *why,
                        size_t why_size)
{
    (void)kind, (void)r, (void)device;
    if (why && why_size) snprintf(why, why_size, "this build has no CUDA (nvcc not found)");
    return NULL;
}

void kern_gpu_close(kern_gpu *g)
{
    (void)g;
}

/* Never handed a CUDA stream in this build (the runtime has no CUDA
 * devices); if called, it computes the chunk on the host, correctly. */
void kern_gpu_body(int64_t begin, int64_t end, void *ctx, void *stream)
{
    (void)stream;
    const kern_region *r = ctx;
    kern_cpu_body(r->kind)(begin, end, ctx);
}
