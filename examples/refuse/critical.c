/* Refused: critical sections make tasks block each other, which the
 * work-conserving bound of condag.md §2 does not account for. */
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
