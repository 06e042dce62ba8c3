/* Accepted: a critical section in task code, with no task scheduling point
 * inside it.  The node that holds it carries the lock ("locks" extension),
 * and the bound charges its possible wait for the other threads' sections
 * (docs/mutex.md). */
#include "../work.h"

int main(void)
{
    int hits = 0;
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < 2; ++i) {
#pragma omp task shared(hits)
            {
                work(5);
#pragma omp critical
                hits++;
            }
        }
#pragma omp taskwait
    }
    report("critical");
    return hits == 2 ? 0 : 1;
}
