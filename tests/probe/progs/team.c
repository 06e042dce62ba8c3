/* Test program: tasks created by every thread of a team (issue 25 item 2):
 * a worksharing loop whose iterations create tasks, then one task per
 * thread.  The front end models the team (plugin/fe_team.c); annotate maps
 * its implicit tasks phase by phase, by thread number
 * (tests/plugin/test_team.c). */
static volatile long sink;

static void work(long n)
{
    for (long i = 0; i < n; ++i)
        sink += i;
}

int main(int argc, char **argv)
{
    (void)argv;
#pragma omp parallel num_threads(2)
    {
        int i;
#pragma omp for schedule(static)
        for (i = 0; i < 4; i++) {
#pragma omp task
            work(1000 * (i + 1));
        }
        work(300);
#pragma omp task
        work(500);
    }
    return argc > 5;
}
