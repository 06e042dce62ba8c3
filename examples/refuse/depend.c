/* Refused: an iterator whose range is not a constant (docs/depend.md).
 * Expected: "depend.c:16: ... depend(iterator(int i = 0:a), in: a): the iterator's range". */
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
#pragma omp task depend(iterator(int i = 0:a), in: a) shared(a)
        work(5 + a);
#pragma omp taskwait
    }
    report("depend");
    return 0;
}
