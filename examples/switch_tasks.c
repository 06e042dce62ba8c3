/*
 * A switch with tasks: case 0 falls through into case 1, case 2 breaks out
 * early, and there is no default (the switch may run no case).  The
 * taskwait after the switch waits for whichever tasks the chosen case made.
 */
#include <stdlib.h>

#include "work.h"

static void region(int mode)
{
#pragma omp parallel
#pragma omp single
    {
        work(4);
        switch (mode) {
        case 0:
#pragma omp task
            work(20);
            /* fall through */
        case 1:
#pragma omp task
            work(30);
            break;
        case 2:
            work(5);
            if (mode > 1)
                break;
#pragma omp task
            work(40);
            break;
        }
#pragma omp taskwait
        work(6);
    }
}

int main(int argc, char **argv)
{
    region(argc > 1 ? atoi(argv[1]) : 0);
    report("switch_tasks");
    return 0;
}
