/*
 * tests/bfs/test_bfs_mpi_2d.c — the 2-D partitioned BFS (bfs_mpi_2d.c,
 * ompdag_dgraph_partition_2d) under mpirun -np 1, 2, 3 and 4
 * (tests/bfs/CMakeLists.txt).  An MPI program like test_bfs_mpi.c: every
 * rank checks its own part and the program exits 1 on any failure.
 *
 * On Kronecker, uniform and file graphs, for the squarest grid, 1 x N and
 * N x 1:
 *   - the grid is the one asked for (2 x 2 on four ranks, 1 x 3 on three);
 *   - levels equal the 1-D engine's, parents too (both take the smallest
 *     neighbour one level up), and the distributed Graph500 validation
 *     passes;
 *   - an N x 1 grid (every rank in one column: its expand goes to all, its
 *     fold stays home) sends exactly 8 (N - 1) bytes per frontier vertex,
 *     or per bitmap word on the levels where the bitmap is smaller;
 *     a 1 x N grid (one row: no expand) sends 16 bytes per (rank, vertex of
 *     another rank its arcs reach), each vertex once per search;
 * and a grid that does not match the rank count fails on every rank with
 * one message, leaving the graph 1-D.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"
#include "ompdag/bfs.h"
#include "ompdag/bfs_mpi.h"
#include "ompdag/graph.h"
#include "test_tmpdir.h"

/* The fold bytes of a 1 x N grid (its expand is free): each rank sends
 * every vertex of another rank that an arc out of its reached vertices
 * hits, once per search (the source excepted), 16 bytes a pair. */
static int64_t one_row_fold_bytes(const ompdag_dgraph *g, const int32_t *level, int64_t source)
{
    const int64_t n = ompdag_dgraph_vertices(g), lo = ompdag_dgraph_first(g),
                  nl = ompdag_dgraph_local_vertices(g);
    unsigned char *hit = calloc((size_t)n, 1);
    int64_t pairs = 0, all = 0;
    for (int64_t lu = 0; hit && lu < nl; ++lu) {
        if (level[lu] < 0) continue;
        for (int64_t i = 0; i < ompdag_dgraph_degree(g, lo + lu); ++i) {
            const int64_t v = ompdag_dgraph_neighbor(g, lo + lu, i);
            if ((v < lo || v >= lo + nl) && v != source && !hit[v]) hit[v] = 1, ++pairs;
        }
    }
    check(hit != NULL, "out of memory");
    free(hit);
    pairs *= 16;
    MPI_Allreduce(&pairs, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

/* The expand bytes of an N x 1 grid (one column: the fold stays home):
 * each level the frontier of the level before goes to the N - 1 others as
 * 8-byte ids, or as the whole bitmap (n/64 words) when that is smaller. */
static int64_t one_column_bytes(const ompdag_dgraph *g, const ompdag_dbfs_result *r, int rows)
{
    const int64_t words = (ompdag_dgraph_vertices(g) + 63) / 64;
    int64_t bytes = 0;
    for (int d = 0; d < ompdag_dbfs_result_level_count(r); ++d) {
        const int64_t f = d == 0 ? 1 : ompdag_dbfs_result_level(r, d)->visited;
        bytes += 8 * (int64_t)(rows - 1) * (f > words ? words : f);
    }
    return bytes;
}

/* The bytes of a 2-D search b on one column or one row (a: the 1-D one). */
static void bytes_match(const ompdag_dgraph *one_d, const ompdag_dgraph *two_d,
                        const ompdag_dbfs_result *a, const ompdag_dbfs_result *b, int64_t source,
                        const char *name)
{
    int rows = 0, cols = 0;
    int64_t moved;
    check(ompdag_dgraph_grid(two_d, &rows, &cols, &moved), "%s: no grid", name);
    const int64_t bytes = ompdag_dbfs_result_bytes(b);
    const int64_t column = one_column_bytes(two_d, b, rows);
    if (cols == 1) /* the frontier goes to the R - 1 others, no pair leaves its rank */
        check(bytes == column, "%s from %lld on %d x 1: %lld bytes, not %lld", name,
              (long long)source, rows, (long long)bytes, (long long)column);
    const int64_t fold = one_row_fold_bytes(one_d, ompdag_dbfs_result_levels(a), source);
    if (rows == 1) /* each rank folds a vertex once per search, and only that */
        check(bytes == fold, "%s from %lld on 1 x %d: %lld bytes, not %lld", name,
              (long long)source, cols, (long long)bytes, (long long)fold);
}

/* A 1-D and a 2-D search from source agree, and the 2-D one validates. */
static void search_matches(const ompdag_dgraph *one_d, const ompdag_dgraph *two_d, int64_t source,
                           const char *name)
{
    ompdag_error err = {0};
    ompdag_dbfs_result *a, *b;
    require(ompdag_dbfs_result_create(&a, &err), &err, "result");
    require(ompdag_dbfs_result_create(&b, &err), &err, "result");
    require(ompdag_dbfs_run(one_d, source, NULL, a, &err), &err, "1-D search");
    require(ompdag_dbfs_run(two_d, source, NULL, b, &err), &err, "2-D search");
    const int64_t nl = ompdag_dgraph_local_vertices(one_d), lo = ompdag_dgraph_first(one_d);
    int64_t bad_level = -1, bad_parent = -1;
    for (int64_t v = nl - 1; v >= 0; --v) {
        if (ompdag_dbfs_result_levels(a)[v] != ompdag_dbfs_result_levels(b)[v]) bad_level = lo + v;
        if (ompdag_dbfs_result_parents(a)[v] != ompdag_dbfs_result_parents(b)[v])
            bad_parent = lo + v;
    }
    check(bad_level < 0, "%s from %lld: 2-D level of %lld differs from 1-D", name,
          (long long)source, (long long)bad_level);
    check(bad_parent < 0, "%s from %lld: 2-D parent of %lld differs from 1-D", name,
          (long long)source, (long long)bad_parent);
    check(ompdag_dbfs_result_reached(a) == ompdag_dbfs_result_reached(b) &&
              ompdag_dbfs_result_edges(a) == ompdag_dbfs_result_edges(b),
          "%s from %lld: reached/edges differ", name, (long long)source);
    ompdag_bfs_rule rule;
    int64_t vertex;
    ompdag_error verr = {0};
    check(ompdag_dbfs_validate(two_d, b, &rule, &vertex, &verr) == OMPDAG_OK,
          "%s from %lld: 2-D result invalid: %s", name, (long long)source, verr.message);
    bytes_match(one_d, two_d, a, b, source, name);
    ompdag_dbfs_result_destroy(a);
    ompdag_dbfs_result_destroy(b);
}

/* Regrids two_d to rows x cols and searches from four keys. */
static void on_grid(const ompdag_dgraph *one_d, ompdag_dgraph *two_d, int rows, int cols,
                    int want_rows, const char *name)
{
    ompdag_error err = {0};
    require(ompdag_dgraph_partition_2d(two_d, rows, cols, &err), &err, "partition 2-D");
    int r = 0, c = 0;
    int64_t moved = -1;
    check(ompdag_dgraph_grid(two_d, &r, &c, &moved) && r == want_rows && r * c == size &&
              moved >= 0,
          "%s: grid %d x %d (wanted %d rows of %d ranks)", name, r, c, want_rows, size);
    check(size > 1 || moved == 0, "%s: one rank moved %lld bytes", name, (long long)moved);
    int64_t keys[4];
    const int k = ompdag_dgraph_pick_sources(one_d, 4, 7, keys);
    check(k > 0, "%s: no keys", name);
    for (int i = 0; i < k; ++i)
        search_matches(one_d, two_d, keys[i], name);
}

/* The squarest grid of the rank count: its rows (2 of 2 x 2, 1 of 1 x 3). */
static int squarest_rows(void)
{
    int r = 1;
    for (int d = 1; d * d <= size; ++d)
        if (size % d == 0) r = d;
    return r;
}

/* Every grid shape on two copies of one graph (a 1-D and a 2-D one). */
static void every_grid(ompdag_dgraph *one_d, ompdag_dgraph *two_d, const char *name)
{
    on_grid(one_d, two_d, 0, 0, squarest_rows(), name);
    on_grid(one_d, two_d, 1, size, 1, name);
    on_grid(one_d, two_d, size, 1, size, name);
    /* a vertex that is no source: the same error as 1-D, on every rank */
    ompdag_error err = {0};
    ompdag_dbfs_result *r;
    require(ompdag_dbfs_result_create(&r, &err), &err, "result");
    check(ompdag_dbfs_run(two_d, ompdag_dgraph_vertices(two_d), NULL, r, &err) ==
              OMPDAG_ERR_ARGUMENT,
          "%s: a source past the last vertex was searched", name);
    ompdag_dbfs_result_destroy(r);
}

static void generated(ompdag_dgraph_kind kind, int scale, const char *name)
{
    ompdag_error err = {0};
    ompdag_dgraph *one_d = NULL, *two_d = NULL;
    require(ompdag_dgraph_generate(kind, scale, 16, 3, 1, &one_d, &err), &err, name);
    require(ompdag_dgraph_generate(kind, scale, 16, 3, 1, &two_d, &err), &err, name);
    every_grid(one_d, two_d, name);
    ompdag_dgraph_destroy(one_d);
    ompdag_dgraph_destroy(two_d);
}

/* A file of a long path with chords and a second component, directed and
 * not, read by the ranks in parallel (rank 0 writes it in its temp dir). */
static void from_file(void)
{
    char path[600] = "";
    if (rank == 0) {
        const char *dir = test_tmpdir();
        check(dir != NULL, "temp dir");
        snprintf(path, sizeof path, "%s/graph.el", dir ? dir : ".");
        FILE *f = fopen(path, "w");
        check(f != NULL, "write %s", path);
        if (f) {
            fprintf(f, "# vertices 300\n");
            for (int v = 0; v < 199; ++v)
                fprintf(f, "%d %d\n%d %d\n", v, v + 1, v, (v * 7 + 3) % 200);
            for (int v = 200; v < 299; ++v)
                fprintf(f, "%d %d\n", v, 200 + (v * 13) % 100);
            fclose(f);
        }
    }
    MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    const unsigned flags[2] = {OMPDAG_GRAPH_UNDIRECTED_SIMPLE, 0};
    const char *names[2] = {"file", "directed file"};
    for (int i = 0; i < 2; ++i) {
        ompdag_error err = {0};
        ompdag_dgraph *one_d = NULL, *two_d = NULL;
        require(ompdag_dgraph_read(path, flags[i], 0, 1, &one_d, &err), &err, names[i]);
        require(ompdag_dgraph_read(path, flags[i], 0, 1, &two_d, &err), &err, names[i]);
        every_grid(one_d, two_d, names[i]);
        require(ompdag_dgraph_partition_2d(two_d, 0, 0, &err), &err, "partition 2-D");
        search_matches(one_d, two_d, 0, names[i]);   /* ~200 levels along the path */
        search_matches(one_d, two_d, 250, names[i]); /* the other component */
        ompdag_dgraph_destroy(one_d);
        ompdag_dgraph_destroy(two_d);
    }
}

/* Two parents one level up, met in descending order: 0 finds 10 and 11,
 * 10 finds 21 and 11 finds 20 (so 21 is queued first), and 30 hears from
 * 21 before 20 on every grid (frontiers this small travel as ids, in queue
 * order).  Its parent must still be 20, the smallest, as in 1-D. */
static void smallest_parent_first_heard_last(void)
{
    char path[600] = "";
    if (rank == 0) {
        const char *dir = test_tmpdir();
        check(dir != NULL, "temp dir");
        snprintf(path, sizeof path, "%s/diamond.el", dir ? dir : ".");
        FILE *f = fopen(path, "w");
        check(f != NULL, "write %s", path);
        if (f) {
            fprintf(f, "# vertices 300\n0 10\n0 11\n10 21\n11 20\n20 30\n21 30\n");
            fclose(f);
        }
    }
    MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    ompdag_error err = {0};
    ompdag_dgraph *one_d = NULL, *two_d = NULL;
    const unsigned flags = OMPDAG_GRAPH_UNDIRECTED_SIMPLE;
    require(ompdag_dgraph_read(path, flags, 0, 1, &one_d, &err), &err, "diamond");
    require(ompdag_dgraph_read(path, flags, 0, 1, &two_d, &err), &err, "diamond");
    const int shapes[3][2] = {{0, 0}, {1, size}, {size, 1}};
    for (int i = 0; i < 3; ++i) {
        require(ompdag_dgraph_partition_2d(two_d, shapes[i][0], shapes[i][1], &err), &err,
                "partition 2-D");
        search_matches(one_d, two_d, 0, "diamond");
    }
    ompdag_dgraph_destroy(one_d);
    ompdag_dgraph_destroy(two_d);
}

/* A grid that is not the rank count fails on every rank, one message. */
static void bad_grid(void)
{
    ompdag_error err = {0};
    ompdag_dgraph *g = NULL;
    require(ompdag_dgraph_generate(OMPDAG_DGRAPH_KRONECKER, 8, 16, 3, 1, &g, &err), &err, "kron");
    const int shapes[3][2] = {{size + 1, 1}, {0, size}, {-1, -size}};
    for (int i = 0; i < 3; ++i) {
        ompdag_error e = {0};
        ompdag_status st = ompdag_dgraph_partition_2d(g, shapes[i][0], shapes[i][1], &e);
        char want[160];
        snprintf(want, sizeof want, "rank 0: dbfs 2-D: a %d x %d grid needs", shapes[i][0],
                 shapes[i][1]);
        check(st == OMPDAG_ERR_ARGUMENT && !strncmp(e.message, want, strlen(want)),
              "grid %d x %d on %d ranks gave %d '%s'", shapes[i][0], shapes[i][1], size, (int)st,
              e.message);
        int r, c;
        int64_t moved;
        check(!ompdag_dgraph_grid(g, &r, &c, &moved), "a refused grid was kept");
    }
    ompdag_dgraph_destroy(g);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bad_grid();
    generated(OMPDAG_DGRAPH_KRONECKER, 11, "kron:11");
    generated(OMPDAG_DGRAPH_UNIFORM, 11, "uniform:11");
    from_file();
    smallest_parent_first_heard_last();
    int total;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_bfs_mpi_2d on %d ranks: %s (%d failures)\n", size, total ? "FAIL" : "ok",
               total);
    MPI_Finalize();
    return total ? 1 : 0;
}
