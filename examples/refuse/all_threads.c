/* Refused: tasks created outside single/master are created once per
 * thread; the graph of one region would depend on the team size. */
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
