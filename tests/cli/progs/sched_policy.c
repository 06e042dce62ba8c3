/* tests/cli/progs/sched_policy.c — what `ompdag run --rt/--threads` gave the
 * program: each thread of a num_threads(4) team prints its scheduling policy,
 * priority and OpenMP place, then the team size and the binding. */
#include <omp.h>
#include <sched.h>
#include <stdio.h>

static const char *policy_name(int p)
{
    return p == SCHED_FIFO    ? "SCHED_FIFO"
           : p == SCHED_RR    ? "SCHED_RR"
           : p == SCHED_OTHER ? "SCHED_OTHER"
                              : "other";
}

int main(void)
{
    int team = 0;
#pragma omp parallel num_threads(4)
    {
        struct sched_param sp = {0};
        int policy = sched_getscheduler(0);
        sched_getparam(0, &sp);
#pragma omp critical
        printf("thread %d: policy %s priority %d place %d\n", omp_get_thread_num(),
               policy_name(policy), sp.sched_priority, omp_get_place_num());
#pragma omp single
        team = omp_get_num_threads();
    }
    printf("team %d places %d proc_bind %d\n", team, omp_get_num_places(),
           (int)omp_get_proc_bind());
    return 0;
}
