/*
 * examples/consumer/bound.c — the smallest program on the ompdag library:
 * loads a con-DAG file and prints the exact response-time bound of each graph
 * on M threads (Theorem 1 of seed 004 with its Alg1, include/ompdag/rta.h).
 *
 *   bound GRAPH.json M
 *
 * Built against an installed ompdag, with find_package (CMakeLists.txt) or
 * pkg-config (Makefile).
 */
#include <stdio.h>
#include <stdlib.h>

#include <ompdag/condag.h>
#include <ompdag/rta.h>
#include <ompdag/version.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bound GRAPH.json M\n");
        return 2;
    }
    if (ompdag_version_number() != OMPDAG_VERSION_NUMBER)
        fprintf(stderr, "bound: warning: headers %s, library %s\n", OMPDAG_VERSION,
                ompdag_version());
    int m = atoi(argv[2]);
    ompdag_error err = {0};
    ompdag_condag_set *set = NULL;
    if (m < 1 || ompdag_condag_set_load_file(argv[1], &set, &err) != OMPDAG_OK) {
        fprintf(stderr, "bound: %s\n", m < 1 ? "M must be >= 1" : err.message);
        return 1;
    }
    int rc = 0;
    for (size_t i = 0; i < ompdag_condag_set_count(set); ++i) {
        const ompdag_condag *g = ompdag_condag_set_graph(set, i);
        ompdag_rta_options opt;
        ompdag_rta_options_init(&opt, m);
        ompdag_rta_result *r = NULL;
        if (ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &r, &err) != OMPDAG_OK) {
            fprintf(stderr, "bound: %s\n", err.message);
            rc = 1;
            continue;
        }
        char title[128];
        printf("%s: m=%d exact bound %.3f %s (m*R = %lld )\n",
               ompdag_condag_title(g, i, title, sizeof title), m, ompdag_rta_result_bound(r),
               ompdag_condag_time_unit(g), (long long)ompdag_rta_result_bound_times_m(r));
        ompdag_rta_result_destroy(r);
    }
    ompdag_condag_set_destroy(set);
    return rc;
}
