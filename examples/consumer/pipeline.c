/*
 * examples/consumer/pipeline.c — an OpenMP task program whose timing the
 * consumer's build checks with ompdag_add_timing_check(): two stages run as
 * tasks, a third waits for both.  The ompdag deadline pragma above the
 * function states the region's deadline; the plugin checks it at compile time
 * against the WCETs of PIPELINE_WCET, and `ompdag check` in CTest does too.
 */
#include <stdlib.h>

#include "../work.h" /* work(units): about 1 us per unit at -O2; report() */

#pragma ompdag deadline(1s)
static void pipeline(int rounds)
{
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task
        work(200 * rounds);
#pragma omp task
        work(100 * rounds);
#pragma omp taskwait
        work(50 * rounds);
    }
}

int main(int argc, char **argv)
{
    pipeline(argc > 1 ? atoi(argv[1]) : 1);
    report("pipeline");
    return 0;
}
