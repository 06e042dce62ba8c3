/*
 * tests/bfs/test_bfs_mpi.c — the distributed BFS (include/ompdag/bfs_mpi.h,
 * issue 30) under mpirun -np 2, 3 and 4 (tests/bfs/CMakeLists.txt).  An MPI
 * program, not a Criterion binary: Criterion forks a worker per test, and
 * MPI ranks must not fork.  Every rank checks its own part against what one
 * process computes on the whole graph (each rank also builds that graph:
 * scales here are small), and the program exits 1 on any failure.
 *
 * What is checked, on Kronecker, uniform and file graphs:
 *   - each rank's rows are the one-process graph's rows;
 *   - levels equal cpu-topdown's, directions and per-level counts equal the
 *     one-process cpu engine's (the same α/β rule on global figures);
 *   - parents are the smallest neighbour one level up (deterministic);
 *   - every search passes the distributed Graph500 validation, and
 *     corruptions placed on one rank are reported with the rule and vertex
 *     the one-process validator gives;
 *   - the keys equal ompdag_bfs_pick_sources's;
 *   - a failure on the last rank reaches every rank with its message.
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

/* For steps one rank does alone (writing a file): no collective. */
static void must(int ok, const char *what)
{
    if (ok) return;
    fprintf(stderr, "rank %d: FAIL: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void rows_equal(const ompdag_graph *g, const ompdag_dgraph *dg, const char *name)
{
    const int64_t lo = ompdag_dgraph_first(dg), nl = ompdag_dgraph_local_vertices(dg);
    check(ompdag_dgraph_vertices(dg) == ompdag_graph_vertices(g), "%s: vertex count", name);
    check(ompdag_dgraph_edges(dg) == ompdag_graph_edges(g), "%s: edges %lld, one process %lld",
          name, (long long)ompdag_dgraph_edges(dg), (long long)ompdag_graph_edges(g));
    int64_t arcs = 0;
    for (int64_t v = lo; v < lo + nl; ++v)
        arcs += ompdag_graph_degree(g, v);
    check(arcs == ompdag_dgraph_local_arcs(dg), "%s: local arcs %lld, one process %lld", name,
          (long long)ompdag_dgraph_local_arcs(dg), (long long)arcs);
}

/* The smallest neighbour of v one level up (the parent the distributed
 * engine must pick), from the one-process levels. */
static int64_t min_parent(const ompdag_graph *g, const int32_t *level, int64_t v)
{
    if (ompdag_graph_is_symmetric(g)) {
        for (int64_t i = 0; i < ompdag_graph_degree(g, v); ++i) {
            int64_t u = ompdag_graph_neighbor(g, v, i); /* rows are sorted */
            if (level[u] == level[v] - 1) return u;
        }
        return -1;
    }
    for (int64_t u = 0; u < ompdag_graph_vertices(g); ++u) /* directed: in-neighbours */
        if (level[u] == level[v] - 1)
            for (int64_t i = 0; i < ompdag_graph_degree(g, u); ++i)
                if (ompdag_graph_neighbor(g, u, i) == v) return u;
    return -1;
}

/* One search from source: levels, parents, directions, counts, validity. */
static void search_equal(const ompdag_graph *g, const ompdag_dgraph *dg, int64_t source,
                         const char *name)
{
    ompdag_error err = {0};
    ompdag_bfs_result *one, *ref;
    ompdag_dbfs_result *d;
    require(ompdag_bfs_result_create(&one, &err), &err, "result");
    require(ompdag_bfs_result_create(&ref, &err), &err, "result");
    require(ompdag_dbfs_result_create(&d, &err), &err, "dresult");
    require(ompdag_bfs_run(g, source, OMPDAG_BFS_CPU_TOPDOWN, NULL, ref, &err), &err, "topdown");
    ompdag_bfs_options opts;
    ompdag_bfs_options_init(&opts);
    opts.threads = 1;
    require(ompdag_bfs_run(g, source, OMPDAG_BFS_CPU, &opts, one, &err), &err, "cpu");
    require(ompdag_dbfs_run(dg, source, NULL, d, &err), &err, "dbfs");
    const int32_t *lv = ompdag_bfs_result_levels(ref), *dl = ompdag_dbfs_result_levels(d);
    const int64_t *dp = ompdag_dbfs_result_parents(d);
    const int64_t lo = ompdag_dgraph_first(dg), nl = ompdag_dgraph_local_vertices(dg);
    int64_t bad_level = -1, bad_parent = -1;
    for (int64_t v = 0; v < nl; ++v) {
        if (dl[v] != lv[lo + v] && bad_level < 0) bad_level = lo + v;
        int64_t want = lo + v == source ? source : lv[lo + v] > 0 ? min_parent(g, lv, lo + v) : -1;
        if (dp[v] != want && bad_parent < 0) bad_parent = lo + v;
    }
    check(bad_level < 0, "%s from %lld: level of %lld differs from cpu-topdown", name,
          (long long)source, (long long)bad_level);
    check(bad_parent < 0, "%s from %lld: parent of %lld is not its smallest neighbour one up", name,
          (long long)source, (long long)bad_parent);
    check(ompdag_dbfs_result_level_count(d) == ompdag_bfs_result_level_count(one),
          "%s from %lld: %d levels, one process %d", name, (long long)source,
          ompdag_dbfs_result_level_count(d), ompdag_bfs_result_level_count(one));
    for (int i = 1; i < ompdag_dbfs_result_level_count(d) && i < ompdag_bfs_result_level_count(one);
         ++i) {
        const ompdag_dbfs_level *a = ompdag_dbfs_result_level(d, i);
        const ompdag_bfs_level *b = ompdag_bfs_result_level(one, i);
        check(a->direction == b->direction && a->visited == b->visited,
              "%s from %lld, level %d: %s %lld, one process %s %lld", name, (long long)source, i,
              a->direction ? "BU" : "TD", (long long)a->visited, b->direction ? "BU" : "TD",
              (long long)b->visited);
    }
    check(ompdag_dbfs_result_edges(d) == ompdag_bfs_result_edges(ref) &&
              ompdag_dbfs_result_reached(d) == ompdag_bfs_result_reached(ref),
          "%s from %lld: traversed edges / reached differ", name, (long long)source);
    /* a random graph's search crosses ranks (a file's component may not) */
    check(size == 1 || strncmp(name, "file", 4) == 0 || ompdag_dbfs_result_bytes(d) > 0,
          "%s from %lld: no bytes counted between %d ranks", name, (long long)source, size);
    ompdag_error verr = {0};
    check(ompdag_dbfs_validate(dg, d, NULL, NULL, &verr) == OMPDAG_OK, "%s from %lld: %s", name,
          (long long)source, verr.message);
    ompdag_dbfs_result_destroy(d);
    ompdag_bfs_result_destroy(one);
    ompdag_bfs_result_destroy(ref);
}

/* Searches from the keys one process would pick. */
static void searches_equal(const ompdag_graph *g, const ompdag_dgraph *dg, const char *name)
{
    int64_t keys[4], want[4];
    int k = ompdag_dgraph_pick_sources(dg, 4, 7, keys);
    int w = ompdag_bfs_pick_sources(g, 4, 7, want);
    check(k == w && !memcmp(keys, want, (size_t)k * sizeof *keys), "%s: keys differ", name);
    for (int i = 0; i < k; ++i)
        search_equal(g, dg, keys[i], name);
}

static void generated(ompdag_dgraph_kind kind, int scale, int threads, const char *name)
{
    ompdag_error err = {0};
    ompdag_graph *g = NULL;
    ompdag_dgraph *dg = NULL;
    require(kind == OMPDAG_DGRAPH_KRONECKER ? ompdag_graph_kronecker(scale, 16, 3, &g, &err)
                                            : ompdag_graph_uniform(scale, 16, 3, &g, &err),
            &err, "one-process graph");
    require(ompdag_dgraph_generate(kind, scale, 16, 3, threads, &dg, &err), &err,
            "distributed graph");
    rows_equal(g, dg, name);
    searches_equal(g, dg, name);
    ompdag_dgraph_destroy(dg);
    ompdag_graph_destroy(g);
}

/* Every row this rank owns is the one-process graph's row, neighbour for
 * neighbour (rows are sorted in both). */
static void rows_identical(const ompdag_graph *g, const ompdag_dgraph *dg, const char *name)
{
    const int64_t lo = ompdag_dgraph_first(dg), nl = ompdag_dgraph_local_vertices(dg);
    int64_t bad = -1;
    for (int64_t v = lo; v < lo + nl && bad < 0; ++v) {
        if (ompdag_dgraph_degree(dg, v) != ompdag_graph_degree(g, v)) bad = v;
        for (int64_t i = 0; bad < 0 && i < ompdag_graph_degree(g, v); ++i)
            if (ompdag_dgraph_neighbor(dg, v, i) != ompdag_graph_neighbor(g, v, i)) bad = v;
    }
    check(bad < 0, "%s: row %lld differs from one process's", name, (long long)bad);
}

/* A path in rank 0's temporary directory (every rank reads the same file;
 * rank 0 writes it, and removes the directory at exit). */
static const char *tmp_path(const char *file)
{
    static char dir[512], path[4][600];
    static int next;
    if (!dir[0]) {
        if (rank == 0) {
            const char *d = test_tmpdir();
            must(d != NULL && strlen(d) < sizeof dir, "temp dir");
            snprintf(dir, sizeof dir, "%s", d);
        }
        MPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    }
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", dir, file);
    return p;
}

static int64_t file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

/* The graph of path read in parallel (ompdag_dgraph_read) is the one
 * process reads, and each rank read only a share of the bytes. */
static void read_in_parallel(const char *path, unsigned flags, const char *name)
{
    ompdag_error err = {0};
    ompdag_graph *g = NULL;
    ompdag_dgraph *dg = NULL;
    require(ompdag_graph_read(path, OMPDAG_GRAPH_FORMAT_AUTO, flags, &g, &err), &err, name);
    require(ompdag_dgraph_read(path, flags, 0, 1, &dg, &err), &err, name);
    rows_equal(g, dg, name);
    rows_identical(g, dg, name);
    const int64_t bytes = ompdag_dgraph_file_bytes(dg), whole = file_size(path);
    /* an edge list splits by bytes; a CSR by vertex blocks (of 64) */
    const bool csr = strstr(name, ".csr") != NULL;
    check(bytes > 0 && (size == 1 || bytes < (csr ? whole : whole / size + whole / 8 + 64)),
          "%s: rank read %lld of the file's %lld bytes (not its share of %d ranks)", name,
          (long long)bytes, (long long)whole, size);
    searches_equal(g, dg, name);
    search_equal(g, dg, 0, name);   /* the path's end: ~200 levels */
    search_equal(g, dg, 250, name); /* the other component */
    ompdag_dgraph_destroy(dg);
    ompdag_graph_destroy(g);
}

/* A file of two components and a path, read by the ranks in parallel
 * (edge list and binary CSR, undirected and directed; parent arcs of a
 * directed graph are checked by their owners). */
static void from_file(void)
{
    const char *path = tmp_path("graph.el");
    if (rank == 0) {
        FILE *f = fopen(path, "w");
        must(f != NULL, "write graph file");
        fprintf(f, "# vertices 300\n");
        for (int v = 0; v < 199; ++v) /* a path 0-1-...-199 with chords, weights on some */
            fprintf(f, v % 5 ? "%d %d\n%d %d\n" : "%d %d 1.5\n  %d\t%d\n", v, v + 1, v,
                    (v * 7 + 3) % 200);
        fprintf(f, "%% a comment\n\n7 7\n3 4\n"); /* a self-loop, a repeat */
        for (int v = 200; v < 299; ++v)           /* a second component */
            fprintf(f, "%d %d\n", v, 200 + (v * 13) % 100);
        fprintf(f, "298 299"); /* no newline at the end */
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int directed = 0; directed < 2; ++directed) {
        const unsigned flags = directed ? 0u : (unsigned)OMPDAG_GRAPH_UNDIRECTED_SIMPLE;
        read_in_parallel(path, flags, directed ? "file (directed)" : "file");
        /* the same graph as binary CSR, stored directed with its loop */
        const char *csr = tmp_path("graph.csr");
        if (rank == 0) {
            ompdag_error err = {0};
            ompdag_graph *g = NULL;
            must(ompdag_graph_read(path, OMPDAG_GRAPH_FORMAT_AUTO, 0, &g, &err) == OMPDAG_OK, "el");
            must(ompdag_graph_write(g, csr, OMPDAG_GRAPH_FORMAT_AUTO, &err) == OMPDAG_OK, "csr");
            ompdag_graph_destroy(g);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        read_in_parallel(csr, flags, directed ? "file .csr (directed)" : "file .csr");
    }
}

/* A malformed file read in parallel: the error is one process's, reported
 * by the rank that read the bad part (the last rank: the defect is near the
 * end), so every rank stops with "rank P-1: <one process's message>". */
static void bad_file_from(const char *path, const char *what, int want_rank)
{
    ompdag_error one = {0}, err = {0};
    ompdag_graph *g = NULL;
    ompdag_dgraph *dg = NULL;
    check(ompdag_graph_read(path, OMPDAG_GRAPH_FORMAT_AUTO, OMPDAG_GRAPH_UNDIRECTED_SIMPLE, &g,
                            &one) != OMPDAG_OK,
          "%s: one process accepted it", what);
    ompdag_status st = ompdag_dgraph_read(path, OMPDAG_GRAPH_UNDIRECTED_SIMPLE, 0, 1, &dg, &err);
    char want[sizeof one.message + 32];
    snprintf(want, sizeof want, "rank %d: %s", want_rank, one.message);
    check(st == one.code && dg == NULL && !strcmp(err.message, want),
          "%s: distributed read gave %d '%s', want '%s'", what, (int)st, err.message, want);
    ompdag_graph_destroy(g);
    ompdag_dgraph_destroy(dg);
}

static void bad_file(const char *path, const char *what)
{
    bad_file_from(path, what, size - 1);
}

static void bad_files(void)
{
    const char *el = tmp_path("bad.el"), *el2 = tmp_path("bad2.el"), *csr = tmp_path("bad.csr");
    if (rank == 0) {
        FILE *f = fopen(el, "w"), *f2 = fopen(el2, "w");
        must(f && f2, "write bad files");
        fprintf(f, "# vertices 500\n");
        fprintf(f2, "# vertices 400\n");
        for (int v = 0; v < 400; ++v) {
            fprintf(f, "%d %d\n", v, (v * 3 + 1) % 400);
            fprintf(f2, "%d %d\n", v, (v * 3 + 1) % 400);
        }
        fprintf(f, "12 x\n3 4\n");                 /* line 402: not a vertex id */
        fprintf(f2, "# vertices 10\n9 9\n10 3\n"); /* line 404: outside the declared 10 */
        fclose(f);
        fclose(f2);
        /* a CSR whose offsets decrease at a vertex of the last rank's block */
        ompdag_error err = {0};
        ompdag_graph *g = NULL;
        must(ompdag_graph_kronecker(9, 4, 2, &g, &err) == OMPDAG_OK, "kron");
        must(ompdag_graph_write(g, csr, OMPDAG_GRAPH_FORMAT_AUTO, &err) == OMPDAG_OK, "csr");
        ompdag_graph_destroy(g);
        FILE *c = fopen(csr, "r+b");
        int64_t off;
        must(c && !fseek(c, 40 + 8 * 500, SEEK_SET) && fread(&off, 8, 1, c) == 1, "csr offset");
        off += 1000;
        fseek(c, 40 + 8 * 500, SEEK_SET);
        fwrite(&off, 8, 1, c);
        fclose(c);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    bad_file(el, "a bad id near the end");
    bad_file(el2, "an id outside a declaration made late");
    bad_file(csr, "offsets that decrease near the end");
}

/* Matrix Market read in parallel: the header by every rank, the entries by
 * byte range.  The graph of from_file (a path with chords, a second
 * component) as entries "row col value" with comments and blank lines
 * between them, a self-loop, a repeat, and no newline at the end; and its
 * edges as a pattern-symmetric file (the lower triangle, as stored). */
static void put_entry(FILE *f, bool symmetric, int u, int v, const char *end)
{
    if (symmetric) /* stored as the lower triangle */
        fprintf(f, "%d %d%s", (u > v ? u : v) + 1, (u > v ? v : u) + 1, end);
    else
        fprintf(f, "%d %d %s", u + 1, v + 1, end);
}

static void write_mtx(const char *path, bool symmetric)
{
    FILE *f = fopen(path, "w");
    must(f != NULL, "write .mtx");
    fprintf(f, "%%%%MatrixMarket matrix coordinate %s\n%% made by test_bfs_mpi\n\n",
            symmetric ? "pattern symmetric" : "real general");
    fprintf(f, "%%  rows cols entries\n  300 300 %d\n", 2 * 199 + 2 + 99 + 1);
    const char *value = symmetric ? "\n" : "-2.5e3\n";
    for (int v = 0; v < 199; ++v) {
        put_entry(f, symmetric, v, v + 1, value);
        if (v % 5 == 0) fputs("% between entries\n\n", f);
        put_entry(f, symmetric, v, (v * 7 + 3) % 200, value);
    }
    put_entry(f, symmetric, 7, 7, value); /* a self-loop */
    put_entry(f, symmetric, 3, 4, value); /* a repeat */
    for (int v = 200; v < 299; ++v)       /* a second component */
        put_entry(f, symmetric, v, 200 + (v * 13) % 100, value);
    put_entry(f, symmetric, 298, 299, symmetric ? "" : "1"); /* no newline at the end */
    fclose(f);
}

static void from_mtx(void)
{
    const char *general = tmp_path("graph.mtx"), *sym = tmp_path("graph_sym.mtx");
    if (rank == 0) {
        write_mtx(general, false);
        write_mtx(sym, true);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    read_in_parallel(general, OMPDAG_GRAPH_UNDIRECTED_SIMPLE, "file .mtx");
    read_in_parallel(general, 0, "file .mtx (directed)");
    read_in_parallel(sym, OMPDAG_GRAPH_UNDIRECTED_SIMPLE, "file .mtx (symmetric)");
    read_in_parallel(sym, 0, "file .mtx (symmetric, kept as stored)");
}

/* The rank whose byte share of [data, whole) holds byte at: the one that
 * reads the line starting there. */
static int share_of(int64_t data, int64_t whole, int64_t at)
{
    int r = 0;
    while (r + 1 < size && data + (int64_t)((__int128)(whole - data) * (r + 1) / size) <= at)
        ++r;
    return r;
}

/* A .mtx of 400 entries with `defect` written before entry `where` (-1:
 * none) and `nnz` declared; returns the rank that reads the defect's line
 * (every rank computes it from the offsets rank 0 broadcasts). */
static int bad_mtx(const char *path, int nnz, int where, const char *defect)
{
    int64_t at[3] = {0, 0, 0}; /* data start, defect, size */
    if (rank == 0) {
        FILE *f = fopen(path, "w");
        must(f != NULL, "write bad .mtx");
        fprintf(f, "%%%%MatrixMarket matrix coordinate pattern general\n%% c\n400 400 %d\n", nnz);
        at[0] = ftell(f);
        for (int i = 0; i < 400; ++i) {
            if (i == where) {
                at[1] = ftell(f);
                fputs(defect, f);
            }
            fprintf(f, "%d %d\n", i + 1, (i * 3 + 1) % 400 + 1);
        }
        at[2] = ftell(f);
        fclose(f);
    }
    MPI_Bcast(at, 3, MPI_INT64_T, 0, MPI_COMM_WORLD);
    return share_of(at[0], at[2], at[1]);
}

/* Bad .mtx files: each error is one process's message, from the rank whose
 * share holds the line (a bad line early, in the middle and late; the entry
 * past the declared count before a later bad line; too few entries, which
 * the last rank reports; a bad header, which every rank reads: rank 0). */
static void bad_mtx_files(void)
{
    const char *p = tmp_path("bad.mtx");
    static const int where[] = {5, 200, 395};
    static const char *const defect[] = {"12 x\n", "3 401\n", "0 3\n", "4 5 6 7\n"};
    for (int k = 0; k < 3; ++k)
        for (int d = 0; d < 4; ++d) {
            int owner = bad_mtx(p, 401, where[k], defect[d]);
            MPI_Barrier(MPI_COMM_WORLD);
            char what[96];
            snprintf(what, sizeof what, ".mtx: '%.*s' before entry %d", (int)strlen(defect[d]) - 1,
                     defect[d], where[k]);
            bad_file_from(p, what, owner);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    /* 400 entries where 10 are declared: the 11th entry's line is the
     * error, even with a bad line after it */
    int eleventh = bad_mtx(p, 10, 10, "");
    MPI_Barrier(MPI_COMM_WORLD);
    bad_file_from(p, ".mtx: more entries than declared", eleventh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        FILE *f = fopen(p, "a");
        must(f != NULL, "append a bad line");
        fputs("x y\n", f);
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    bad_file_from(p, ".mtx: more entries than declared, then a bad line", eleventh);
    MPI_Barrier(MPI_COMM_WORLD);
    bad_mtx(p, 450, -1, "");
    MPI_Barrier(MPI_COMM_WORLD);
    bad_file_from(p, ".mtx: fewer entries than declared", size - 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) { /* the count error names the line after a last line without newline */
        FILE *f = fopen(p, "a");
        must(f != NULL, "append an entry");
        fputs("7 8", f);
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    bad_file_from(p, ".mtx: fewer entries, no newline at the end", size - 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        FILE *f = fopen(p, "w");
        must(f != NULL, "write bad header");
        fputs("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", f);
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    bad_file_from(p, ".mtx: array layout", 0);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Every rank's levels/parents gathered into a one-process result of g. */
static void gather_into(const ompdag_dgraph *dg, const ompdag_dbfs_result *d,
                        ompdag_bfs_result *full)
{
    int *counts = malloc(2 * (size_t)size * sizeof *counts);
    int mine = (int)ompdag_dgraph_local_vertices(dg), lo = (int)ompdag_dgraph_first(dg);
    MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgather(&lo, 1, MPI_INT, counts + size, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgatherv(ompdag_dbfs_result_levels(d), mine, MPI_INT32_T,
                   ompdag_bfs_result_levels_mut(full), counts, counts + size, MPI_INT32_T,
                   MPI_COMM_WORLD);
    MPI_Allgatherv(ompdag_dbfs_result_parents(d), mine, MPI_INT64_T,
                   ompdag_bfs_result_parents_mut(full), counts, counts + size, MPI_INT64_T,
                   MPI_COMM_WORLD);
    free(counts);
}

/* A reached vertex of the last rank's block at level >= 2 that is nobody's
 * parent (a leaf), or -1. */
static int64_t pick_leaf(const ompdag_graph *g, const ompdag_bfs_result *full, int64_t lo,
                         int64_t hi)
{
    const int32_t *lv = ompdag_bfs_result_levels(full);
    const int64_t *par = ompdag_bfs_result_parents(full);
    for (int64_t v = hi - 1; v >= lo; --v) {
        if (lv[v] < 2) continue;
        bool parent = false;
        for (int64_t u = 0; u < ompdag_graph_vertices(g) && !parent; ++u)
            parent = par[u] == v && u != v;
        if (!parent) return v;
    }
    return -1;
}

/* One corruption, made on the owner rank only: the distributed validator
 * must name the rule and vertex that ompdag_bfs_validate names. */
typedef enum { BUMP_LEVEL, FOREIGN_PARENT, UNREACH } corruption;

static void corrupted(const ompdag_graph *g, const ompdag_dgraph *dg, int64_t source,
                      corruption how, ompdag_bfs_rule expect)
{
    ompdag_error err = {0};
    ompdag_dbfs_result *d;
    ompdag_bfs_result *full;
    require(ompdag_dbfs_result_create(&d, &err), &err, "dresult");
    require(ompdag_bfs_result_create(&full, &err), &err, "result");
    require(ompdag_dbfs_run(dg, source, NULL, d, &err), &err, "dbfs");
    require(ompdag_bfs_run(g, source, OMPDAG_BFS_CPU_TOPDOWN, NULL, full, &err), &err, "topdown");
    gather_into(dg, d, full);
    /* the victim: a leaf in the last rank's block (the same on every rank) */
    const int64_t lo_last =
        ompdag_graph_vertices(g) - (rank == size - 1 ? ompdag_dgraph_local_vertices(dg) : 0);
    int64_t victim = rank == size - 1 ? pick_leaf(g, full, lo_last, ompdag_graph_vertices(g)) : 0;
    MPI_Bcast(&victim, 1, MPI_INT64_T, size - 1, MPI_COMM_WORLD);
    require(victim >= 0 ? OMPDAG_OK : OMPDAG_ERR_INVALID, &err, "no leaf to corrupt");
    int32_t *fl = ompdag_bfs_result_levels_mut(full);
    int64_t *fp = ompdag_bfs_result_parents_mut(full);
    /* FOREIGN_PARENT: a vertex one level up that is not a neighbour */
    int64_t foreign = -1;
    for (int64_t u = 0; u < ompdag_graph_vertices(g) && foreign < 0; ++u) {
        bool adjacent = false;
        for (int64_t i = 0; i < ompdag_graph_degree(g, victim) && !adjacent; ++i)
            adjacent = ompdag_graph_neighbor(g, victim, i) == u;
        if (fl[u] == fl[victim] - 1 && !adjacent) foreign = u;
    }
    if (how == FOREIGN_PARENT)
        require(foreign >= 0 ? OMPDAG_OK : OMPDAG_ERR_INVALID, &err, "no foreign parent");
    const int64_t at = victim - ompdag_dgraph_first(dg);
    const bool mine = at >= 0 && at < ompdag_dgraph_local_vertices(dg);
    int32_t *dl = ompdag_dbfs_result_levels_mut(d);
    int64_t *dp = ompdag_dbfs_result_parents_mut(d);
    switch (how) {
    case BUMP_LEVEL:
        fl[victim] += 1;
        if (mine) dl[at] += 1;
        break;
    case FOREIGN_PARENT:
        fp[victim] = foreign;
        if (mine) dp[at] = foreign;
        break;
    case UNREACH:
        fl[victim] = -1;
        fp[victim] = -1;
        if (mine) dl[at] = -1, dp[at] = -1;
        break;
    }
    ompdag_bfs_rule r1, r2;
    int64_t v1, v2;
    ompdag_error e1 = {0}, e2 = {0};
    check(ompdag_dbfs_validate(dg, d, &r1, &v1, &e1) == OMPDAG_ERR_INVALID,
          "corruption %d at %lld not caught", (int)how, (long long)victim);
    ompdag_bfs_validate(g, full, &r2, &v2, &e2);
    check(r1 == expect && r1 == r2 && v1 == v2,
          "corruption %d at %lld: distributed says rule %d vertex %lld (%s), one process rule "
          "%d vertex %lld",
          (int)how, (long long)victim, (int)r1, (long long)v1, e1.message, (int)r2, (long long)v2);
    ompdag_dbfs_result_destroy(d);
    ompdag_bfs_result_destroy(full);
}

static void validator_catches(void)
{
    ompdag_error err = {0};
    ompdag_graph *g = NULL;
    ompdag_dgraph *dg = NULL;
    require(ompdag_graph_kronecker(10, 16, 5, &g, &err), &err, "graph");
    require(ompdag_dgraph_generate(OMPDAG_DGRAPH_KRONECKER, 10, 16, 5, 1, &dg, &err), &err,
            "dgraph");
    int64_t key;
    ompdag_dgraph_pick_sources(dg, 1, 1, &key);
    corrupted(g, dg, key, BUMP_LEVEL, OMPDAG_BFS_RULE_TREE_LEVELS);
    corrupted(g, dg, key, FOREIGN_PARENT, OMPDAG_BFS_RULE_PARENT_EDGE);
    corrupted(g, dg, key, UNREACH, OMPDAG_BFS_RULE_SPANS);
    ompdag_dgraph_destroy(dg);
    ompdag_graph_destroy(g);
}

/* Edges whose regions sit on different nodes. */
static int split_edges(const int32_t *edges, int nedges, const int *node, const int32_t *assign)
{
    int split = 0;
    for (int e = 0; e < nedges; ++e)
        split += node[assign[edges[2 * e]]] != node[assign[edges[2 * e + 1]]];
    return split;
}

/* ompdag_map_over_nodes keeps neighbours on one node where the one-level
 * rule (ompdag_map_regions over all targets) scatters them: two nodes of
 * two targets each; a chain r0-r1-r2-r3 (loads 2, 3, 1, 3) and r4-r5
 * (1, 2).  One level: r2 finds r1's target full and takes the least-loaded
 * target, on the other node, and r5 lands on node A: 2 edges cross nodes.
 * Per node: r2 stays on node A (within A's share), r3 moves, r4-r5 stay
 * together: 1 edge crosses. */
static void map_colocates_per_node(void)
{
    const ompdag_map_region regions[] = {{"r0", OMPDAG_REGION_CO, 2}, {"r1", OMPDAG_REGION_CO, 3},
                                         {"r2", OMPDAG_REGION_CO, 1}, {"r3", OMPDAG_REGION_CO, 3},
                                         {"r4", OMPDAG_REGION_CO, 1}, {"r5", OMPDAG_REGION_CO, 2}};
    const int32_t edges[] = {0, 1, 1, 2, 2, 3, 4, 5};
    const ompdag_map_resource targets[] = {{"a:numa0", OMPDAG_REGION_CO, 1},
                                           {"a:numa1", OMPDAG_REGION_CO, 1},
                                           {"b:numa0", OMPDAG_REGION_CO, 1},
                                           {"b:numa1", OMPDAG_REGION_CO, 1}};
    const int node[] = {0, 0, 1, 1};
    int32_t flat[6], two[6];
    ompdag_error err = {0};
    require(ompdag_map_regions(regions, 6, edges, 4, targets, 4, flat, &err), &err, "map");
    require(ompdag_map_over_nodes(regions, 6, edges, 4, targets, node, 4, two, &err), &err,
            "map over nodes");
    const int32_t want[] = {0, 1, 0, 2, 3, 3};
    check(!memcmp(two, want, sizeof want), "map over nodes: %d %d %d %d %d %d", two[0], two[1],
          two[2], two[3], two[4], two[5]);
    check(split_edges(edges, 4, node, flat) == 2 && split_edges(edges, 4, node, two) == 1,
          "map: %d edges cross nodes one level, %d per node (want 2, 1)",
          split_edges(edges, 4, node, flat), split_edges(edges, 4, node, two));
    /* a CG region goes to the node with the GPU, and to its GPU */
    const ompdag_map_region cg[] = {{"co", OMPDAG_REGION_CO, 1}, {"cg", OMPDAG_REGION_CG, 1}};
    const ompdag_map_resource gpu_b[] = {{"a:numa0", OMPDAG_REGION_CO, 1},
                                         {"b:numa0", OMPDAG_REGION_CO, 1},
                                         {"b:gpu0", OMPDAG_REGION_CG, 1}};
    const int gnode[] = {0, 1, 1};
    int32_t ga[2];
    require(ompdag_map_over_nodes(cg, 2, edges, 1, gpu_b, gnode, 3, ga, &err), &err, "map cg");
    check(ga[1] == 2, "map: the CG region went to target %d, not b:gpu0", ga[1]);
}

/* A failure on the last rank only reaches every rank, with its message. */
static void agreement(void)
{
    ompdag_error err = {0};
    ompdag_status mine = OMPDAG_OK;
    if (rank == size - 1)
        mine = ompdag_error_set(&err, OMPDAG_ERR_PARSE, "bad.el:3: not a vertex id");
    ompdag_status st = ompdag_mpi_agree(mine, &err);
    char want[128];
    snprintf(want, sizeof want, "rank %d: bad.el:3: not a vertex id", size - 1);
    check(st == OMPDAG_ERR_PARSE && !strcmp(err.message, want), "agree gave %d '%s'", (int)st,
          err.message);
    ompdag_error ok_err = {0};
    check(ompdag_mpi_agree(OMPDAG_OK, &ok_err) == OMPDAG_OK, "agree on success");
    /* a graph file only the last rank cannot read stops every rank */
    ompdag_dgraph *dg = NULL;
    ompdag_graph *g = NULL;
    ompdag_error rerr = {0};
    if (rank != size - 1)
        ompdag_graph_kronecker(6, 4, 1, &g, &rerr);
    else
        ompdag_error_set(&rerr, OMPDAG_ERR_IO, "missing.el: No such file or directory");
    st = ompdag_dgraph_from_graph(g, 1, &dg, &rerr);
    check(st == OMPDAG_ERR_IO && dg == NULL && strstr(rerr.message, "missing.el"),
          "from_graph with one rank failing gave %d '%s'", (int)st, rerr.message);
    ompdag_graph_destroy(g);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    agreement();
    generated(OMPDAG_DGRAPH_KRONECKER, 10, 1, "kron:10");
    generated(OMPDAG_DGRAPH_KRONECKER, 12, 1, "kron:12");
    generated(OMPDAG_DGRAPH_UNIFORM, 11, 1, "uniform:11");
    /* threads of a rank race on claims: parents must stay the smallest */
    generated(OMPDAG_DGRAPH_KRONECKER, 12, 3, "kron:12, 3 threads per rank");
    generated(OMPDAG_DGRAPH_UNIFORM, 12, 3, "uniform:12, 3 threads per rank");
    from_file();
    bad_files();
    from_mtx();
    bad_mtx_files();
    map_colocates_per_node();
    validator_catches();
    int total;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_bfs_mpi on %d ranks: %s (%d failures)\n", size, total ? "FAIL" : "ok", total);
    MPI_Finalize();
    return total ? 1 : 0;
}
