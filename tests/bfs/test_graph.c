/* Graphs: builder flags, generators, readers and writers, malformed files. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bfs_test_util.h"

static char *tmp_file(const char *suffix, const char *text)
{
    static char path[4][128];
    static int k;
    char *p = path[k++ % 4];
    snprintf(p, 128, "/tmp/ompdag_bfs_test_%d_%d%s", (int)getpid(), k, suffix);
    if (text) {
        FILE *f = fopen(p, "w");
        cr_assert_not_null(f);
        fputs(text, f);
        fclose(f);
    }
    return p;
}

Test(graph, builder_flags)
{
    /* 0->1 twice, 1->1 self-loop, 2->0 */
    int64_t s[] = {0, 0, 1, 2}, d[] = {1, 1, 1, 0};
    ompdag_graph *g = tu_graph(4, 4, s, d, 0);
    cr_assert_eq(ompdag_graph_arcs(g), 4);
    cr_assert_eq(ompdag_graph_degree(g, 0), 2);
    cr_assert_not(ompdag_graph_is_symmetric(g));
    ompdag_graph_destroy(g);

    g = tu_graph(4, 4, s, d, OMPDAG_GRAPH_DEDUP);
    cr_assert_eq(ompdag_graph_arcs(g), 3);
    ompdag_graph_destroy(g);

    g = tu_graph(4, 4, s, d, OMPDAG_GRAPH_DROP_SELF_LOOPS | OMPDAG_GRAPH_DEDUP);
    cr_assert_eq(ompdag_graph_arcs(g), 2);
    ompdag_graph_destroy(g);

    g = tu_graph(4, 4, s, d, OMPDAG_GRAPH_UNDIRECTED_SIMPLE);
    cr_assert_eq(ompdag_graph_arcs(g), 4); /* {0,1} and {0,2}, both ways */
    cr_assert(ompdag_graph_is_symmetric(g));
    cr_assert_eq(ompdag_graph_edges(g), 2);
    cr_assert_eq(ompdag_graph_degree(g, 0), 2);
    cr_assert_eq(ompdag_graph_neighbor(g, 0, 0), 1); /* rows are sorted */
    cr_assert_eq(ompdag_graph_neighbor(g, 0, 1), 2);
    cr_assert_eq(ompdag_graph_degree(g, 3), 0);
    ompdag_graph_destroy(g);
}

Test(graph, builder_rejects_bad_ids)
{
    int64_t s[] = {0, 5}, d[] = {1, 1};
    ompdag_graph *g = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_graph_from_edges(3, 2, s, d, 0, &g, &err), OMPDAG_ERR_ARGUMENT);
    cr_assert_not_null(strstr(err.message, "edge 1"), "%s", err.message);
    cr_assert_null(g);
}

Test(graph, kronecker_is_deterministic_and_skewed)
{
    ompdag_graph *a = tu_kron(12, 7), *b = tu_kron(12, 7), *c = tu_kron(12, 8);
    cr_assert_eq(ompdag_graph_vertices(a), 4096);
    cr_assert_eq(ompdag_graph_arcs(a), ompdag_graph_arcs(b));
    cr_assert_neq(ompdag_graph_arcs(a), ompdag_graph_arcs(c));
    cr_assert(ompdag_graph_is_symmetric(a));
    cr_assert_eq(ompdag_graph_id_bytes(a), 4);
    /* at most 2 * 16 * 4096 arcs, and dedup removes a visible share */
    cr_assert_lt(ompdag_graph_arcs(a), 2 * 16 * 4096);
    cr_assert_gt(ompdag_graph_arcs(a), 16 * 4096);
    int64_t maxdeg = 0, isolated = 0;
    for (int64_t v = 0; v < 4096; ++v) {
        int64_t dg = ompdag_graph_degree(a, v);
        cr_assert_eq(dg, ompdag_graph_degree(b, v));
        for (int64_t i = 0; i < dg; ++i)
            cr_assert_eq(ompdag_graph_neighbor(a, v, i), ompdag_graph_neighbor(b, v, i));
        maxdeg = dg > maxdeg ? dg : maxdeg;
        isolated += dg == 0;
    }
    /* power law: hubs far above the mean degree, and many isolated vertices */
    cr_assert_gt(maxdeg, 20 * 32);
    cr_assert_gt(isolated, 100);
    ompdag_graph_destroy(a);
    ompdag_graph_destroy(b);
    ompdag_graph_destroy(c);
}

Test(graph, uniform_is_flat)
{
    ompdag_graph *g = tu_uniform(12, 3);
    int64_t maxdeg = 0;
    for (int64_t v = 0; v < 4096; ++v)
        maxdeg = ompdag_graph_degree(g, v) > maxdeg ? ompdag_graph_degree(g, v) : maxdeg;
    cr_assert_lt(maxdeg, 80); /* mean 32, Poisson-like tail */
    cr_assert_gt(ompdag_graph_arcs(g), 2 * 16 * 4096 * 98 / 100); /* ~256 repeats, ~16 loops */
    ompdag_graph_destroy(g);
}

static void assert_same_graph(const ompdag_graph *a, const ompdag_graph *b)
{
    cr_assert_eq(ompdag_graph_vertices(a), ompdag_graph_vertices(b));
    cr_assert_eq(ompdag_graph_arcs(a), ompdag_graph_arcs(b));
    for (int64_t v = 0; v < ompdag_graph_vertices(a); ++v) {
        cr_assert_eq(ompdag_graph_degree(a, v), ompdag_graph_degree(b, v));
        for (int64_t i = 0; i < ompdag_graph_degree(a, v); ++i)
            cr_assert_eq(ompdag_graph_neighbor(a, v, i), ompdag_graph_neighbor(b, v, i));
    }
}

Test(graph, round_trips)
{
    ompdag_graph *g = tu_kron(9, 1);
    const char *suffix[] = {".csr", ".txt", ".mtx"};
    for (int k = 0; k < 3; ++k) {
        char *p = tmp_file(suffix[k], NULL);
        ompdag_error err = {0};
        cr_assert_eq(ompdag_graph_write(g, p, OMPDAG_GRAPH_FORMAT_AUTO, &err), OMPDAG_OK, "%s",
                     err.message);
        ompdag_graph *h = NULL;
        cr_assert_eq(ompdag_graph_read(p, OMPDAG_GRAPH_FORMAT_AUTO, 0, &h, &err), OMPDAG_OK, "%s",
                     err.message);
        assert_same_graph(g, h);
        cr_assert(ompdag_graph_is_symmetric(h));
        ompdag_graph_destroy(h);
        unlink(p);
    }
    ompdag_graph_destroy(g);
}

Test(graph, edge_list_reader)
{
    char *p = tmp_file(".el", "# comment\n0 1\n\n1 2 0.5\n% other comment\n2 0\n");
    ompdag_graph *g = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_graph_read(p, OMPDAG_GRAPH_FORMAT_EDGELIST, OMPDAG_GRAPH_SYMMETRIZE, &g, &err),
                 OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_graph_vertices(g), 3);
    cr_assert_eq(ompdag_graph_arcs(g), 6);
    ompdag_graph_destroy(g);
    unlink(p);
}

static void expect_parse_error(const char *suffix, const char *text, const char *needle)
{
    char *p = tmp_file(suffix, text);
    ompdag_graph *g = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_graph_read(p, OMPDAG_GRAPH_FORMAT_AUTO, 0, &g, &err), OMPDAG_ERR_PARSE,
                 "no parse error for %s", suffix);
    cr_assert_null(g);
    cr_assert_not_null(strstr(err.message, needle), "message \"%s\" lacks \"%s\"", err.message, needle);
    unlink(p);
}

Test(graph, malformed_files_name_the_line)
{
    expect_parse_error(".el", "0 1\n1 2\n1 x\n", ":3:");
    expect_parse_error(".el", "0 1\n-1 2\n", ":2:");
    expect_parse_error(".el", "0 1\n1 2 3 4\n", ":2:");
    expect_parse_error(".el", "# vertices 3\n0 1\n1 3\n", ":3:");
    expect_parse_error(".mtx", "%%MatrixMarket matrix array real general\n2 2\n", ":1:");
    expect_parse_error(".mtx", "%%MatrixMarket matrix coordinate pattern general\n% c\n3 3 2\n1 2\n4 1\n",
                       ":5:");
    expect_parse_error(".mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 x\n", ":2:");
    expect_parse_error(".mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1.0\n2 3\n",
                       ":4:");
    expect_parse_error(".mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n2 3\n",
                       "expected 3 entries");
    expect_parse_error(".mtx", "not a header\n", ":1:");
    expect_parse_error(".csr", "OMPDAGCS garbage", "byte");
}

Test(graph, matrix_market_symmetric)
{
    char *p = tmp_file(".mtx", "%%MatrixMarket matrix coordinate integer symmetric\n4 4 3\n2 1 7\n3 2 1\n"
                               "4 4 2\n");
    ompdag_graph *g = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_graph_read(p, OMPDAG_GRAPH_FORMAT_AUTO, 0, &g, &err), OMPDAG_OK, "%s",
                 err.message);
    cr_assert_eq(ompdag_graph_vertices(g), 4);
    cr_assert_eq(ompdag_graph_arcs(g), 5); /* 1-2, 2-3 both ways, 4-4 once */
    cr_assert(ompdag_graph_is_symmetric(g));
    ompdag_graph_destroy(g);
    unlink(p);
}

Test(graph, missing_file_is_an_io_error)
{
    ompdag_graph *g = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_graph_read("/nonexistent/x.el", OMPDAG_GRAPH_FORMAT_AUTO, 0, &g, &err),
                 OMPDAG_ERR_IO);
    cr_assert_not_null(strstr(err.message, "/nonexistent/x.el"));
}
