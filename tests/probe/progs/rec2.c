/* Test program: two recursions through tasks, one inside the other (like
 * BOTS sort: cilksort's recursion calls cilkmerge's), outer depth argv[1],
 * inner depth argv[2].  data/rec2.json is its compact graph, extracted with
 * the bounds below; line numbers matter.  A run whose inner recursion goes
 * deeper than its bound, with the total nesting still within the graph's
 * deepest chain, must be refused as recursing beyond the bound. */
#include <stdlib.h>

static volatile long sink;

static void work(long n)
{
    for (long i = 0; i < n; ++i)
        sink += i;
}

#pragma ompdag recursion_bound(3)
static void inner(int depth)
{
    work(1000);
    if (depth <= 0) return;
#pragma omp task
    inner(depth - 1);
#pragma omp taskwait
}

#pragma ompdag recursion_bound(4)
static void outer(int depth, int inner_depth)
{
    work(1000);
    if (depth <= 0) {
        inner(inner_depth);
        return;
    }
#pragma omp task
    outer(depth - 1, inner_depth);
#pragma omp taskwait
}

int main(int argc, char **argv)
{
    int depth = argc > 1 ? atoi(argv[1]) : 2;
    int inner_depth = argc > 2 ? atoi(argv[2]) : 2;
#pragma omp parallel
#pragma omp single
    outer(depth, inner_depth);
    return 0;
}
