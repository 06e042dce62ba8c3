/*
 * bench/probe/fib.c — the task-heavy program of the probe overhead benchmark:
 * recursive Fibonacci with a cutoff.  fib(n) creates tasks for fib(n-1) and
 * fib(n-2) and waits; below `cutoff` it recurses serially, so the leaf task
 * size is set by the cutoff (about 1, 10 and 100 us at cutoffs 12, 17, 25 on
 * the benchmark machine).  Prints the parallel region's wall time (ns) and the
 * number of tasks.  Usage: fib N CUTOFF [REPEATS]
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Kept a real double recursion (no clang loop transformation), so a leaf's
 * cost grows by the golden ratio per cutoff step. */
__attribute__((noinline)) static long serial_fib(int n)
{
    if (n < 2) return n;
    long a = serial_fib(n - 1);
    __asm__ volatile("" : "+r"(a)::"memory");
    return a + serial_fib(n - 2);
}

static long task_fib(int n, int cutoff, long *tasks)
{
    if (n < cutoff) return serial_fib(n);
    long a, b;
#pragma omp task shared(a)
    a = task_fib(n - 1, cutoff, tasks);
#pragma omp task shared(b)
    b = task_fib(n - 2, cutoff, tasks);
#pragma omp taskwait
#pragma omp atomic
    *tasks += 2;
    return a + b;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: fib N CUTOFF [REPEATS]\n");
        return 2;
    }
    int n = atoi(argv[1]), cutoff = atoi(argv[2]);
    int repeats = argc > 3 ? atoi(argv[3]) : 1;
    long result = 0, tasks = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC_RAW, &t0);
    for (int r = 0; r < repeats; ++r) {
#pragma omp parallel
#pragma omp single
        result = task_fib(n, cutoff, &tasks);
    }
    clock_gettime(CLOCK_MONOTONIC_RAW, &t1);
    long long ns = (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
    printf("%lld %ld %ld\n", ns, tasks, result);
    return 0;
}
