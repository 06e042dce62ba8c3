/* Test program: recursion through tasks (a binary tree of tasks), depth
 * argv[1], repeated argv[2] times.  data/rec.json is its compact graph,
 * extracted with --recursion-bound 4 (docs/compact.md); line numbers matter. */
#include <stdlib.h>

static volatile long sink;

static void work(long n)
{
    for (long i = 0; i < n; ++i)
        sink += i;
}

static void tree(int depth)
{
    work(2000);
    if (depth <= 0) {
        work(30000);
        return;
    }
#pragma omp task
    tree(depth - 1);
#pragma omp task
    tree(depth - 1);
#pragma omp taskwait
    work(1000);
}

int main(int argc, char **argv)
{
    int depth = argc > 1 ? atoi(argv[1]) : 3;
    int rounds = argc > 2 ? atoi(argv[2]) : 1;
    for (int r = 0; r < rounds; ++r) {
#pragma omp parallel
#pragma omp single
        tree(depth);
    }
    return 0;
}
