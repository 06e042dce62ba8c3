/* Refused: depend clauses order sibling tasks, which the con-DAG model
 * (condag.md §1) has no edge for.  Expected: "depend.c:16: ... depend". */
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
#pragma omp task depend(in: a) shared(a)
        work(5 + a);
#pragma omp taskwait
    }
    report("depend");
    return 0;
}
