/* A fine-grained task tree (issue 12): a binary recursion of depth 4 whose 16
 * leaves spin about 2 us each, in `reps` parallel regions (argv[1], default
 * 20).  Built with -O2 by tests/probe (the runtime's own costs dominate). */
#include <stdlib.h>
#include <time.h>

static void spin_ns(long ns)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

#pragma ompdag recursion_bound(4)
static void tree(int d)
{
    if (d == 0) {
        spin_ns(2000);
        return;
    }
#pragma omp task untied
    tree(d - 1);
#pragma omp task untied
    tree(d - 1);
#pragma omp taskwait
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 20;
    for (int r = 0; r < reps; ++r) {
#pragma omp parallel
#pragma omp single
        tree(4);
    }
    return 0;
}
