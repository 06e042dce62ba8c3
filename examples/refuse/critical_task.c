/* Refused: a task created inside a critical section.  The task scheduling
 * point would let the thread that holds the lock run other tasks, so a
 * section's length is no longer bounded by its node (docs/mutex.md). */
#include "../work.h"

int main(void)
{
    int hits = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp critical
        {
#pragma omp task shared(hits)
            hits++;
        }
#pragma omp taskwait
    }
    report("critical_task");
    return hits == 1 ? 0 : 1;
}
