/* Test program: a task that runs an offloaded loop (cuda-offload/offload)
 * on two CPU workers and one simulated GPU.  The probe must receive each
 * device's share and annotate must show it on the task's node.  The static
 * policy with a fixed GPU share makes the split independent of timing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ompdag/offload.h"

static double y[200000];

static void body(int64_t b, int64_t e, void *ctx)
{
    (void)ctx;
    for (int64_t i = b; i < e; ++i)
        y[i] = y[i] * 0.5 + (double)i;
}

int main(void)
{
#pragma omp parallel
#pragma omp single
    {
#pragma omp task
        {
            ompdag_offload_opts o;
            ompdag_offload_opts_init(&o);
            o.cpu_threads = 2;
            o.cuda_devices = 0;
            o.sim_gpus = 1;
            o.policy = OMPDAG_OFFLOAD_STATIC;
            o.static_gpu_share = 0.3;
            ompdag_error err;
            if (ompdag_offload_for(200000, body, NULL, NULL, &o, NULL, &err) != OMPDAG_OK)
                fprintf(stderr, "offload: %s\n", err.message);
        }
#pragma omp taskwait
    }
    return y[12345] == 12345.0 ? 0 : 1; /* every iteration ran once: 0 * 0.5 + i */
}
