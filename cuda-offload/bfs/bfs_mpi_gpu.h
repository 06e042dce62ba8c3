/*
 * bfs_mpi_gpu.h — a rank's GPU in the distributed BFS (bfs_mpi_gpu.cu):
 * its rows resident on the device and the bottom-up level run there.  No
 * MPI and no CUDA types, so both the C side and nvcc include it.  Without
 * CUDA, bfs_mpi.c defines the three functions to say so.
 */
#ifndef OMPDAG_BFS_MPI_GPU_H
#define OMPDAG_BFS_MPI_GPU_H

#include <stddef.h>
#include <stdint.h>

typedef struct bfs_mpi_gpu bfs_mpi_gpu;

/* Binds device local_rank % devices and uploads the rank's nl rows
 * (offsets: nl + 1 entries; adj32 or adj64: the neighbour ids) of an
 * n-vertex graph.  NULL with why filled when there is no device or CUDA
 * fails.  Close with bfs_mpi_gpu_close(). */
bfs_mpi_gpu *bfs_mpi_gpu_open(int local_rank, int64_t nl, int64_t n, const int64_t *offsets,
                              const int32_t *adj32, const int64_t *adj64, char *why,
                              size_t why_size);

/* One bottom-up level on the device: front is the whole graph's frontier
 * bitmap; levels and parents (nl entries, host) get the vertices found at
 * depth, next ((nl + 63) / 64 words) their bits.  Returns how many were
 * found, -1 on a CUDA error. */
int64_t bfs_mpi_gpu_bottom_up(bfs_mpi_gpu *g, const uint64_t *front, int32_t *levels,
                              int64_t *parents, uint64_t *next, int32_t depth);

void bfs_mpi_gpu_close(bfs_mpi_gpu *g); /* NULL allowed */

#endif
