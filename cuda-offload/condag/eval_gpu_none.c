/* cuda-offload/condag/eval_gpu_none.c — the GPU evaluator in a build without
 * CUDA: it says so instead of running anything. */
#include "batch_internal.h"

ompdag_status condag_eval_gpu(const condag_batch *b, int32_t m, int64_t *out,
                              ompdag_batch_stats *stats, ompdag_error *err)
{
    (void)b, (void)m, (void)out, (void)stats;
    return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                            "device gpu: this ompdag was built without CUDA (nvcc not found); "
                            "use --device gpu-sim, cpu-par or cpu");
}

ompdag_status condag_eval_graphs_gpu(const condag_gpack *p, int32_t m, int64_t *out,
                                     ompdag_batch_stats *stats, ompdag_error *err)
{
    (void)p, (void)m, (void)out, (void)stats;
    return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                            "device gpu-graphs: this ompdag was built without CUDA (nvcc not "
                            "found); use --device gpu-sim-graphs, cpu-par or cpu");
}

void *condag_gpu_host_alloc(size_t bytes)
{
    (void)bytes;
    return NULL;
}

void condag_gpu_host_release(void *p)
{
    (void)p;
}
