/*
 * Task clauses: an undeferred task (if(0)) and one that may be undeferred
 * (if(n > 2)) make the creator wait for them; a final task makes all its
 * descendants undeferred; priority/mergeable/untied change nothing in the
 * graph except the "untied" mark.  A taskgroup whose tasks await their own
 * children is an exact wait.
 */
#include <stdlib.h>

#include "work.h"

static void region(int n)
{
#pragma omp parallel
#pragma omp master
    {
#pragma omp task if(0)
        work(10);
#pragma omp task if(n > 2) priority(2) mergeable
        work(11);
#pragma omp task final(1) untied
        {
            work(12);
#pragma omp task
            work(13);
        }
#pragma omp taskgroup
        {
#pragma omp task
            {
#pragma omp task
                work(14);
#pragma omp taskwait
            }
        }
        work(15);
    }
}

int main(int argc, char **argv)
{
    region(argc > 1 ? atoi(argv[1]) : 3);
    report("clauses");
    return 0;
}
