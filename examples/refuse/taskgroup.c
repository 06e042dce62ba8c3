/* Refused: the taskgroup also waits for the grandchild created at line 15,
 * which its own parent never awaits; a W node after the taskgroup would
 * only wait for direct children, so the bound could be too low. */
#include "../work.h"

int main(void)
{
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup
        {
#pragma omp task
            {
#pragma omp task
                work(50);
                work(1);
            }
        }
        work(2);
    }
    report("taskgroup");
    return 0;
}
