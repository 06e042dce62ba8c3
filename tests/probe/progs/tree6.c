/* Test program (issue 22 item 8): a binary tree of tasks of depth 6 whose
 * base case runs only at the deepest level.  data/tree6.json is its plain
 * graph, `ompdag extract tree6.c --recursion-bound 6`: base-case nodes at
 * every depth, the run reaches only the deepest.  argv[1]: rounds (default
 * 3), argv[2]: depth (default 6).  Line numbers matter. */
#include <stdlib.h>

static volatile long sink;

static void work(long n)
{
    for (long i = 0; i < n; ++i)
        sink += i;
}

static void tree(int d)
{
    if (d == 0) {
        work(20000);
    } else {
#pragma omp task
        tree(d - 1);
#pragma omp task
        tree(d - 1);
#pragma omp taskwait
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    int depth = argc > 2 ? atoi(argv[2]) : 6;
    for (int r = 0; r < rounds; ++r) {
#pragma omp parallel
#pragma omp single
        tree(depth);
    }
    return 0;
}
