/* cuda-offload/condag/eval_gpu_none.c — the GPU evaluator in a build without
 * CUDA: it says so instead of running anything. */
#include "batch_internal.h"

ompdag_status condag_eval_gpu(const condag_batch *b, int32_t m, ompdag_exact_row *rows,
                              ompdag_error *err)
{
    (void)b, (void)m, (void)rows;
    return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                            "device gpu: this ompdag was built without CUDA (nvcc not found); "
                            "use --device gpu-sim or cpu");
}
