/*
 * bench/report/bench_report.c — speed of report generation and of the
 * schedule simulator.
 *
 *  1. Reports for 10^4 regions (seed 004 generator, defaults, m = 4): build
 *     the rows (exact analysis + deadlines) and write text, JSON, CSV and
 *     SARIF to /dev/null.  Baseline: the exact analysis alone on the same
 *     graphs, so the ratio is the cost of reporting on top of analysing.
 *     (HTML is left out: it runs graphviz once per region.)
 *  2. Simulation throughput in node-completion events per second, WFS and
 *     BFS, m = 4 and 16, worst flow + random flows, on graphs of about 10^3
 *     nodes.  Baseline: the exact analysis' nodes per second on the same graphs.
 *
 * usage: bench_report [--quick]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ompdag/gen.h"
#include "ompdag/internal/clock.h"
#include "ompdag/report.h"
#include "ompdag/rta.h"

static double now_s(void)
{
    return ompdag_now_s();
}

static void die(const ompdag_error *err)
{
    fprintf(stderr, "bench_report: %s\n", err->message);
    exit(1);
}

static ompdag_condag *graph(uint64_t seed, int32_t tasks)
{
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    p.seed = seed;
    p.tasks = tasks;
    ompdag_condag *g;
    ompdag_error err = {0};
    if (ompdag_gen_random(&p, &g, &err))
        die(&err);
    return g;
}

static void bench_reports(int regions)
{
    ompdag_condag_set *set = ompdag_condag_set_create();
    ompdag_error err = {0};
    long nodes = 0;
    for (int i = 0; i < regions; ++i) {
        ompdag_condag *g = graph((uint64_t)i + 1, 10);
        ompdag_condag_assign_function(g, "f");
        nodes += ompdag_condag_node_count(g);
        if (ompdag_condag_set_add(set, g, &err))
            die(&err);
    }
    double t0 = now_s();
    for (size_t i = 0; i < ompdag_condag_set_count(set); ++i) {
        ompdag_rta_options opt;
        ompdag_rta_options_init(&opt, 4);
        ompdag_rta_result *r;
        if (ompdag_rta_run(ompdag_condag_set_graph(set, i), OMPDAG_ALG_EXACT, &opt, &r, &err))
            die(&err);
        ompdag_rta_result_destroy(r);
    }
    double base = now_s() - t0;
    ompdag_deadlines *d = ompdag_deadlines_create();
    ompdag_deadlines_add(d, "f=1us", &err);
    const int32_t m4[] = {4};
    ompdag_report_options opt;
    ompdag_report_options_init(&opt);
    opt.threads = m4, opt.thread_count = 1, opt.deadlines = d;
    ompdag_report *r;
    t0 = now_s();
    if (ompdag_report_create(set, &opt, &r, &err))
        die(&err);
    double create = now_s() - t0;
    printf("reports: %d regions, %ld nodes; exact analysis alone (baseline) %.3f s\n", regions,
           nodes, base);
    printf("  %-6s %8.3f s  %6.2fx baseline  (%zu fail)\n", "rows", create, create / base,
           ompdag_report_fail_count(r));
    FILE *null = fopen("/dev/null", "w");
    const char *names[] = {"text", "json", "csv", "sarif"};
    const ompdag_report_format fmts[] = {OMPDAG_REPORT_TEXT, OMPDAG_REPORT_JSON, OMPDAG_REPORT_CSV,
                                         OMPDAG_REPORT_SARIF};
    for (int k = 0; k < 4; ++k) {
        t0 = now_s();
        if (ompdag_report_write(r, fmts[k], null, NULL, NULL, &err))
            die(&err);
        double t = now_s() - t0;
        printf("  %-6s %8.3f s  %6.2fx baseline  %8.0f regions/s\n", names[k], t, t / base,
               regions / t);
    }
    fclose(null);
    ompdag_report_destroy(r);
    ompdag_deadlines_destroy(d);
    ompdag_condag_set_destroy(set);
}

static void bench_sim(int graphs, int flows)
{
    printf("simulator: %d graphs (generator, n = 60 tasks), worst + %d random flows each\n",
           graphs, flows);
    const int32_t ms[] = {4, 16};
    for (int sc = 0; sc < 2; ++sc)
        for (int k = 0; k < 2; ++k) {
            double sim_t = 0, rta_t = 0;
            long events = 0, nodes = 0;
            ompdag_rng rng;
            ompdag_rng_seed(&rng, 1);
            for (int i = 0; i < graphs; ++i) {
                ompdag_condag *g = graph((uint64_t)i + 1000, 60);
                ompdag_error err = {0};
                ompdag_rta_options opt;
                ompdag_rta_options_init(&opt, ms[k]);
                ompdag_rta_result *res;
                double t0 = now_s();
                if (ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &res, &err))
                    die(&err);
                rta_t += now_s() - t0;
                nodes += ompdag_condag_node_count(g);
                int32_t *choice = ompdag_rta_result_choices_copy(res, g);
                ompdag_sim *sim;
                if (ompdag_sim_create(g, &sim, &err))
                    die(&err);
                for (int f = 0; f <= flows; ++f) {
                    if (f)
                        ompdag_sim_random_choice(g, &rng, choice);
                    ompdag_sim_result r;
                    t0 = now_s();
                    if (ompdag_sim_run(sim, choice, NULL, ms[k], sc ? OMPDAG_SCHED_BFS : OMPDAG_SCHED_WFS,
                                       (uint64_t)f, &r, &err))
                        die(&err);
                    sim_t += now_s() - t0;
                    events += r.events;
                }
                free(choice);
                ompdag_sim_destroy(sim);
                ompdag_rta_result_destroy(res);
                ompdag_condag_destroy(g);
            }
            printf("  %s m=%-2d %10.3g events/s  (exact analysis baseline %10.3g nodes/s, "
                   "ratio %.2f)\n",
                   sc ? "bfs" : "wfs", ms[k], events / sim_t, nodes / rta_t,
                   (events / sim_t) / (nodes / rta_t));
        }
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && !strcmp(argv[1], "--quick");
    bench_reports(quick ? 1000 : 10000);
    bench_sim(quick ? 20 : 200, 10);
    return 0;
}
