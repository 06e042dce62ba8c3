/*
 * bench/scale/bench_linear.c — issue 17's "never go quadratic", measured:
 * each operation that was quadratic or unbounded is timed at 10^4, 10^5 and
 * 10^6 (10^2..10^4 regions for the HTML page) and printed per element and as
 * a ratio against a named linear baseline measured in the same process on
 * the same input.  Linear cost shows as a flat ns/element and a flat ratio.
 *
 *  dot          ompdag_dot_write of n nested tasks; baseline: finalizing the
 *               same graph (linear).  Was a scan of every node per task.
 *  flow count   ompdag_condag_flow_count on n nested tasks (simulate counts
 *               before simulating); baseline: the same finalize.
 *  html         ompdag_report_write(HTML) of R one-node regions with a renderer
 *               that answers instantly (graphviz's own time left out);
 *               baseline: ompdag_report_create on the same set.  Was one
 *               graphviz process per region.
 *
 * usage: bench_linear [--quick]   (--quick stops at 10^5 / 10^3)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ompdag/dot.h"
#include "ompdag/internal/clock.h"
#include "ompdag/report.h"
#include "ompdag/rta.h"

static void die(const char *what, const ompdag_error *err)
{
    fprintf(stderr, "bench_linear: %s: %s\n", what, err ? err->message : "failed");
    exit(1);
}

/* τ0 creates τ1, which creates τ2, …, as tests/analysis/test_scale.c. */
static ompdag_condag *nested_chain(int32_t n)
{
    ompdag_condag *g = ompdag_condag_create();
    for (int32_t i = 0; i < n; ++i) {
        char id[24], task[24], child[24];
        snprintf(id, sizeof id, "n%d", i);
        snprintf(task, sizeof task, "t%d", i);
        snprintf(child, sizeof child, "t%d", i + 1);
        ompdag_node_spec s = {.id = id,
                              .task = task,
                              .wcet = 1,
                              .kind = i + 1 < n ? OMPDAG_KIND_T : OMPDAG_KIND_N,
                              .creates = i + 1 < n ? child : NULL};
        if (ompdag_condag_add_node(g, &s, NULL, NULL)) die("add_node", NULL);
    }
    return g;
}

static void bench_graph(int32_t n)
{
    ompdag_condag *g = nested_chain(n);
    ompdag_error err = {0};
    double t0 = ompdag_now_s();
    if (ompdag_condag_finalize(g, &err)) die("finalize", &err);
    double fin = ompdag_now_s() - t0;
    FILE *out = tmpfile();
    if (!out) die("tmpfile", NULL);
    t0 = ompdag_now_s();
    if (ompdag_dot_write(out, g, NULL, &err)) die("dot", &err);
    double dot = ompdag_now_s() - t0;
    fclose(out);
    double approx;
    t0 = ompdag_now_s();
    uint64_t flows = ompdag_condag_flow_count(g, &approx);
    double cnt = ompdag_now_s() - t0;
    printf("  n = %8d  finalize %8.1f ns/node | dot %8.1f ns/node (x%5.2f finalize) | "
           "flow count %6.1f ns/node (x%5.3f finalize, %llu flow)\n",
           n, fin * 1e9 / n, dot * 1e9 / n, dot / fin, cnt * 1e9 / n, cnt / fin,
           (unsigned long long)flows);
    ompdag_condag_destroy(g);
}

static ompdag_status instant_render(const char *dot, size_t len, char **svg, void *ctx,
                                    ompdag_error *err)
{
    (void)ctx, (void)err;
    size_t graphs = 0;
    for (const char *p = dot; (p = strstr(p, "digraph")) && p < dot + len; p += 7)
        ++graphs;
    *svg = malloc(graphs * 24 + 1);
    if (!*svg) return OMPDAG_ERR_NOMEM;
    char *w = *svg;
    for (size_t k = 0; k < graphs; ++k)
        w += sprintf(w, "<svg></svg>\n");
    *w = '\0';
    return OMPDAG_OK;
}

static void bench_html(int regions)
{
    char *text = malloc((size_t)regions * 200 + 128), *p = text;
    p += sprintf(p, "{\"format\":\"ompdag-condag-set\",\"version\":1,\"graphs\":[");
    for (int i = 0; i < regions; ++i)
        p += sprintf(p,
                     "%s{\"function\":\"f%d\",\"threads\":2,\"time_unit\":\"ns\",\"loc\":{"
                     "\"file\":\"a.c\",\"line\":%d},\"nodes\":[{\"id\":\"a\",\"task\":\"t\","
                     "\"kind\":\"N\",\"wcet\":%d}]}",
                     i ? "," : "", i, i + 1, i + 5);
    sprintf(p, "]}");
    ompdag_condag_set *s = NULL;
    ompdag_error err = {0};
    if (ompdag_condag_set_load_buffer(text, strlen(text), "bench", &s, &err)) die("load", &err);
    free(text);
    ompdag_report *r = NULL;
    double t0 = ompdag_now_s();
    if (ompdag_report_create(s, NULL, &r, &err)) die("report", &err);
    double create = ompdag_now_s() - t0;
    FILE *out = tmpfile();
    t0 = ompdag_now_s();
    if (ompdag_report_write(r, OMPDAG_REPORT_HTML, out, instant_render, NULL, &err))
        die("html", &err);
    double html = ompdag_now_s() - t0;
    fclose(out);
    printf("  regions = %6d  report_create %8.1f us/region | html %8.1f us/region (x%5.2f "
           "report_create)\n",
           regions, create * 1e6 / regions, html * 1e6 / regions, html / create);
    ompdag_report_destroy(r);
    ompdag_condag_set_destroy(s);
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && !strcmp(argv[1], "--quick");
    printf("bench_linear: cost per element must stay flat as n grows x10 (baseline in the same "
           "process)\n");
    printf("nested tasks (dot, flow count):\n");
    for (int32_t n = 10000; n <= (quick ? 100000 : 1000000); n *= 10)
        bench_graph(n);
    printf("HTML report (renderer time excluded; one renderer call per page):\n");
    for (int r = 100; r <= (quick ? 1000 : 10000); r *= 10)
        bench_html(r);
    return 0;
}
