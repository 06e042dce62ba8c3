/*
 * examples/advisor/loop_chunks.c — training program of `ompdag advise`
 * (docs/advise.md): a loop of tasks over N items, one task per CHUNK
 * consecutive items.  Item i costs COST·(1 + (i % SKEW)) work units
 * (about 1 µs each, examples/work.h), so SKEW > 1 makes the load irregular.
 *
 *   loop_chunks N CHUNK COST SKEW REPS
 *
 * N / CHUNK <= 1024 tasks (the loop bound below); the region runs REPS times.
 * The front end unrolls a `loop_bound` loop to exactly its bound (no early
 * exit), so `ompdag annotate` maps only runs of N / CHUNK = 1024 tasks: the
 * training's default runs use N = 1024, CHUNK = 1.
 */
#include <omp.h>
#include <stdlib.h>

#include "../work.h"

static void items(int lo, int hi, int cost, int skew)
{
    for (int i = lo; i < hi; ++i)
        work(cost * (1 + i % skew));
}

static void region(int n, int chunk, int cost, int skew)
{
#pragma omp parallel
#pragma omp single
    {
        int lo = 0;
#pragma ompdag loop_bound(1024)
        while (lo < n) {
            int hi = lo + chunk < n ? lo + chunk : n;
#pragma omp task firstprivate(lo, hi) untied
            items(lo, hi, cost, skew);
            lo = hi;
        }
#pragma omp taskwait
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 512;
    int chunk = argc > 2 ? atoi(argv[2]) : 1;
    int cost = argc > 3 ? atoi(argv[3]) : 2;
    int skew = argc > 4 ? atoi(argv[4]) : 1;
    int reps = argc > 5 ? atoi(argv[5]) : 1;
    if (n < 1 || chunk < 1 || (n + chunk - 1) / chunk > 1024 || cost < 0 || skew < 1 || reps < 1) {
        fprintf(stderr, "usage: loop_chunks N CHUNK COST SKEW REPS (N/CHUNK <= 1024)\n");
        return 2;
    }
    for (int r = 0; r < reps; ++r)
        region(n, chunk, cost, skew);
    report("loop_chunks");
    return 0;
}
