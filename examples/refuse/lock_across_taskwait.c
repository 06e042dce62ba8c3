/* Refused: a lock held across a taskwait.  The waiting task keeps the lock
 * while it waits for its children, so another thread may spin on it for as
 * long as they run (docs/mutex.md). */
#include <omp.h>

#include "../work.h"

static omp_lock_t lock;

int main(void)
{
    int hits = 0;
    omp_init_lock(&lock);
#pragma omp parallel
#pragma omp single
    {
        omp_set_lock(&lock);
#pragma omp task shared(hits)
        hits++;
#pragma omp taskwait
        omp_unset_lock(&lock);
    }
    omp_destroy_lock(&lock);
    report("lock_across_taskwait");
    return hits == 1 ? 0 : 1;
}
