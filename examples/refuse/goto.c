/* Refused: a goto that jumps over a task scheduling point. */
#include <stdlib.h>

#include "../work.h"

int main(int argc, char **argv)
{
    int skip = argc > 1 ? atoi(argv[1]) : 0;
#pragma omp parallel
#pragma omp single
    {
        if (skip)
            goto done;
#pragma omp task
        work(10);
#pragma omp taskwait
    done:
        work(1);
    }
    report("goto");
    return 0;
}
