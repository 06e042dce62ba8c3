/* Refused: tasks created outside single/master are created once per
 * thread, and without num_threads(N) the team size is unknown. */
#include "../work.h"

int main(void)
{
#pragma omp parallel
    {
#pragma omp task
        work(10);
#pragma omp taskwait
    }
    report("all_threads");
    return 0;
}
