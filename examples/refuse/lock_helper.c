/* Refused: a lock taken in a helper that a task calls.  A task blocked on a
 * lock waits for another task outside taskwait, which the work-conserving
 * bound of condag.md §2 does not account for; the refusal names the lock and
 * the helper. */
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
