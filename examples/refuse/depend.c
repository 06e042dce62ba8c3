/* Refused: mutexinoutset (mutual exclusion of siblings) is not modelled; in, out
 * and inout are (condag.md §6).  Expected: "depend.c:16: ... depend(mutexinoutset". */
#include "../work.h"

int main(void)
{
    int a = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task shared(a)
        {
            work(5);
            a = 1;
        }
#pragma omp task depend(mutexinoutset: a) shared(a)
        work(5 + a);
#pragma omp taskwait
    }
    report("depend");
    return 0;
}
