/* Refused: recursion through tasks with no recursion bound (add
 * `#pragma ompdag recursion_bound(N)` or pass --recursion-bound N). */
#include <stdlib.h>

#include "../work.h"

static void tree(int depth)
{
    work(3);
    if (depth <= 0)
        return;
#pragma omp task
    tree(depth - 1);
#pragma omp task
    tree(depth - 1);
#pragma omp taskwait
}

int main(int argc, char **argv)
{
#pragma omp parallel
#pragma omp single
    tree(argc > 1 ? atoi(argv[1]) : 3);
    report("recursion");
    return 0;
}
