/* Refused: the loop creates tasks but its trip count depends on input and
 * carries no `#pragma ompdag loop_bound(N)`. */
#include <stdlib.h>

#include "../work.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3;
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < n; ++i) {
#pragma omp task
            work(10);
        }
#pragma omp taskwait
    }
    report("unbounded_loop");
    return 0;
}
