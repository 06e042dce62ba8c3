/*
 * bfs_mpi_gpu_none.c — the MPI BFS's GPU binding (bfs_mpi_gpu.h) in a build
 * without CUDA: no rank has a GPU to bind, so every rank searches on its
 * CPU.  With CUDA, bfs_mpi_gpu.cu defines these.
 */
#include <stdio.h>

#include "bfs_mpi_gpu.h"

#ifndef OMPDAG_HAVE_CUDA
/* A build without CUDA: no rank has a GPU to bind (bfs_mpi_gpu.h). */
bfs_mpi_gpu *bfs_mpi_gpu_open(int local_rank, int64_t nl, int64_t n, const int64_t *offsets,
                              const int32_t *adj32, const int64_t *adj64, char *why,
                              size_t why_size)
{
    (void)local_rank, (void)nl, (void)n, (void)offsets, (void)adj32, (void)adj64;
    snprintf(why, why_size, "this ompdag was built without CUDA (nvcc not found)");
    return NULL;
}

int64_t bfs_mpi_gpu_bottom_up(bfs_mpi_gpu *g, const uint64_t *front, int32_t *levels,
                              int64_t *parents, uint64_t *next, int32_t depth)
{
    (void)g, (void)front, (void)levels, (void)parents, (void)next, (void)depth;
    return -1;
}

void bfs_mpi_gpu_close(bfs_mpi_gpu *g)
{
    (void)g;
}
#endif
