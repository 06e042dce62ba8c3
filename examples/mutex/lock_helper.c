/* Accepted: a lock taken and released in a helper that a task calls.  The
 * calling node carries the lock "omp_lock" with an unbounded count (a helper
 * may be called again), so the bound charges every other node's sections on
 * it (docs/mutex.md). */
#include <omp.h>

#include "../work.h"

static omp_lock_t lock;
static int count;

static void record(void)
{
    omp_set_lock(&lock);
    count++;
    omp_unset_lock(&lock);
}

int main(void)
{
    omp_init_lock(&lock);
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 2; ++i) {
#pragma omp task
        {
            work(5);
            record();
        }
    }
    omp_destroy_lock(&lock);
    report("lock_helper");
    return count == 2 ? 0 : 1;
}
