/* Graphs: builder flags, generators, readers and writers, malformed files. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bfs_test_util.h"
#include "test_tmpdir.h"

static char *tmp_file(const char *suffix, const char *text)
{
    static char path[4][640];
    static int k;
    char *p = path[k++ % 4], name[32];
    snprintf(name, sizeof name, "g%d%s", k, suffix);
    snprintf(p, sizeof path[0], "%s", test_tmp(name));
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
    cr_assert_lt(maxdeg, 80);                                     /* mean 32, Poisson-like tail */
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
    cr_assert_eq(
        ompdag_graph_read(p, OMPDAG_GRAPH_FORMAT_EDGELIST, OMPDAG_GRAPH_SYMMETRIZE, &g, &err),
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
    cr_assert_not_null(strstr(err.message, needle), "message \"%s\" lacks \"%s\"", err.message,
                       needle);
    unlink(p);
}

Test(graph, malformed_files_name_the_line)
{
    expect_parse_error(".el", "0 1\n1 2\n1 x\n", ":3:");
    expect_parse_error(".el", "0 1\n-1 2\n", ":2:");
    expect_parse_error(".el", "0 1\n1 2 3 4\n", ":2:");
    expect_parse_error(".el", "# vertices 3\n0 1\n1 3\n", ":3:");
    expect_parse_error(".mtx", "%%MatrixMarket matrix array real general\n2 2\n", ":1:");
    expect_parse_error(
        ".mtx", "%%MatrixMarket matrix coordinate pattern general\n% c\n3 3 2\n1 2\n4 1\n", ":5:");
    expect_parse_error(".mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 x\n", ":2:");
    expect_parse_error(
        ".mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1.0\n2 3\n", ":4:");
    expect_parse_error(".mtx",
                       "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n2 3\n",
                       "expected 3 entries");
    expect_parse_error(".mtx", "not a header\n", ":1:");
    expect_parse_error(".csr", "OMPDAGCS garbage", "byte");
}

Test(graph, matrix_market_symmetric)
{
    char *p =
        tmp_file(".mtx", "%%MatrixMarket matrix coordinate integer symmetric\n4 4 3\n2 1 7\n3 2 1\n"
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

/* Issue 17, item 5: a 12-byte edge list "0 268435456" allocated 6.3 GB.  Ids,
 * a declared vertex count and a Matrix Market size are capped (by file size
 * by default, or explicitly), with a clear error. */
Test(graph, vertex_ids_are_capped_by_file_size_or_a_limit)
{
    const char *cases[][2] = {{".el", "0 268435456\n"},
                              {".el", "# vertices 1000000000000\n0 1\n"},
                              {".mtx", "%%MatrixMarket matrix coordinate pattern general\n"
                                       "1000000000000 2 1\n1 2\n"}};
    for (int k = 0; k < 3; ++k) {
        char *p = tmp_file(cases[k][0], cases[k][1]);
        ompdag_graph *g = NULL;
        ompdag_error err = {0};
        cr_expect_eq(ompdag_graph_read(p, OMPDAG_GRAPH_FORMAT_AUTO, 0, &g, &err), OMPDAG_ERR_LIMIT,
                     "case %d: %s", k, err.message);
        cr_expect_null(g);
        cr_expect(strstr(err.message, "--max-vertices") &&
                      strstr(err.message, k == 2 ? ":2:" : ":1:"),
                  "%s", err.message);
    }
    char *p = tmp_file(".el", "0 5\n");
    ompdag_graph *g = NULL;
    ompdag_error err = {0};
    cr_expect_eq(ompdag_graph_read_limited(p, OMPDAG_GRAPH_FORMAT_AUTO, 0, 5, &g, &err),
                 OMPDAG_ERR_LIMIT);
    cr_assert_eq(ompdag_graph_read_limited(p, OMPDAG_GRAPH_FORMAT_AUTO, 0, 6, &g, &err), OMPDAG_OK,
                 "%s", err.message);
    cr_expect_eq(ompdag_graph_vertices(g), 6);
    ompdag_graph_destroy(g);
}

/* Issue 17, item 8: trailing bytes after a .csr were ignored; a header whose
 * sizes the file cannot hold is refused before anything is allocated. */
Test(graph, binary_file_must_match_its_header)
{
    int64_t s[] = {0, 1}, d[] = {1, 2};
    ompdag_graph *g = tu_graph(3, 2, s, d, 0);
    char *p = tmp_file(".csr", NULL);
    ompdag_error err = {0};
    cr_assert_eq(ompdag_graph_write(g, p, OMPDAG_GRAPH_FORMAT_AUTO, &err), OMPDAG_OK, "%s",
                 err.message);
    ompdag_graph_destroy(g);
    ompdag_graph *h = NULL;
    cr_assert_eq(ompdag_graph_read(p, OMPDAG_GRAPH_FORMAT_AUTO, 0, &h, &err), OMPDAG_OK, "%s",
                 err.message);
    ompdag_graph_destroy(h);
    FILE *f = fopen(p, "ab");
    fputc('!', f);
    fclose(f);
    h = NULL;
    cr_expect_eq(ompdag_graph_read(p, OMPDAG_GRAPH_FORMAT_AUTO, 0, &h, &err), OMPDAG_ERR_PARSE);
    cr_expect_null(h);
    cr_expect(strstr(err.message, "the file has") != NULL, "%s", err.message);
    /* a header claiming 2^30 vertices in a file of a few bytes */
    f = fopen(p, "r+b");
    int64_t n = INT64_C(1) << 30;
    fseek(f, 16, SEEK_SET);
    fwrite(&n, sizeof n, 1, f);
    fclose(f);
    cr_expect_eq(ompdag_graph_read(p, OMPDAG_GRAPH_FORMAT_AUTO, 0, &h, &err), OMPDAG_ERR_PARSE);
    cr_expect(strstr(err.message, "1073741824 vertices") != NULL, "%s", err.message);
}

/* Issue 17, item 6: getline failing for lack of memory was taken as the end
 * of the file, so an edge list silently lost its edges.  A child with a
 * capped address space reads an endless line (/dev/zero, read only); it
 * must get an error.  Not under ASan, which needs a huge address space. */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#include <sys/resource.h>
#include <sys/wait.h>
Test(graph, out_of_memory_while_reading_is_an_error_not_the_end)
{
    /* One 1 GiB line of NUL bytes, sparse (no disk used), in our own temp
     * dir: getline must grow past the 256 MiB address-space headroom. */
    const char *dir = test_tmpdir();
    cr_assert_not_null(dir);
    char path[512];
    snprintf(path, sizeof path, "%s/one_endless_line.el", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    cr_assert_eq(ftruncate(fileno(f), (off_t)1 << 30), 0);
    cr_assert_eq(fclose(f), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        long pages = 0;
        FILE *statm = fopen("/proc/self/statm", "r");
        if (!statm || fscanf(statm, "%ld", &pages) != 1) _exit(10);
        fclose(statm);
        rlim_t cap = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)256 << 20);
        struct rlimit r = {cap, cap};
        if (setrlimit(RLIMIT_AS, &r) != 0) _exit(11);
        ompdag_graph *g = NULL;
        ompdag_error err = {0};
        ompdag_status st = ompdag_graph_read(path, OMPDAG_GRAPH_FORMAT_EDGELIST, 0, &g, &err);
        if (st == OMPDAG_OK) _exit(1);
        _exit(st == OMPDAG_ERR_NOMEM && strstr(err.message, "read failed") ? 0 : 2);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "status %#x (exit 1: the failed read was taken as end of file)", status);
}
#endif

/* Issue 26 items 5, 9 and 17: a .csr file was read as stored (self-loops,
 * duplicate and one-way arcs kept) although every other format is made
 * undirected and simple; through a pipe or FIFO the vertex cap derived from
 * the file size did not apply (a 12-byte edge list reached 8 GB); a header
 * whose sizes overflow printed a wrapped figure. */
Test(graph, binary_input_is_made_undirected_and_simple_like_the_text_formats)
{
    int64_t s[] = {0, 0, 1, 2, 3}, d[] = {0, 1, 2, 1, 3}; /* loops 0-0 and 3-3, 1-2 twice */
    ompdag_graph *raw = tu_graph(4, 5, s, d, 0);
    char *csr = tmp_file(".csr", NULL), *el = tmp_file(".el", "0 0\n0 1\n1 2\n2 1\n3 3\n");
    ompdag_error err = {0};
    cr_assert_eq(ompdag_graph_write(raw, csr, OMPDAG_GRAPH_FORMAT_AUTO, &err), OMPDAG_OK, "%s",
                 err.message);
    ompdag_graph *a = NULL, *b = NULL;
    unsigned simple = OMPDAG_GRAPH_UNDIRECTED_SIMPLE;
    cr_assert_eq(ompdag_graph_read(csr, OMPDAG_GRAPH_FORMAT_AUTO, simple, &a, &err), OMPDAG_OK,
                 "%s", err.message);
    cr_assert_eq(ompdag_graph_read(el, OMPDAG_GRAPH_FORMAT_AUTO, simple, &b, &err), OMPDAG_OK, "%s",
                 err.message);
    assert_same_graph(a, b);
    cr_expect_eq(ompdag_graph_arcs(a), 4, "2 undirected edges are 4 arcs, got %lld",
                 (long long)ompdag_graph_arcs(a));
    cr_expect(ompdag_graph_is_symmetric(a));
    ompdag_graph_destroy(a), ompdag_graph_destroy(b);
    /* --directed (flags 0) keeps the file as stored */
    cr_assert_eq(ompdag_graph_read(csr, OMPDAG_GRAPH_FORMAT_AUTO, 0, &a, &err), OMPDAG_OK, "%s",
                 err.message);
    assert_same_graph(a, raw);
    ompdag_graph_destroy(a), ompdag_graph_destroy(raw);
}

/* Writes `len` bytes of `data` into a FIFO at `path` from a child process and
 * reads the graph from it in this one. */
static ompdag_status read_through_fifo(const char *path, const void *data, size_t len,
                                       ompdag_graph **g, ompdag_error *err)
{
    unlink(path);
    cr_assert_eq(mkfifo(path, 0600), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        FILE *f = fopen(path, "wb");
        if (f) fwrite(data, 1, len, f), fclose(f);
        _exit(0);
    }
    ompdag_status st = ompdag_graph_read(path, OMPDAG_GRAPH_FORMAT_AUTO, 0, g, err);
    int ws;
    waitpid(pid, &ws, 0);
    return st;
}

Test(graph, vertex_cap_applies_through_a_fifo)
{
    const char *cases[][2] = {{".el", "0 268435456\n"},
                              {".el", "# vertices 1000000000000\n0 1\n"},
                              {".mtx", "%%MatrixMarket matrix coordinate pattern general\n"
                                       "1000000000000 2 1\n1 2\n"}};
    for (int k = 0; k < 3; ++k) {
        char *p = tmp_file(cases[k][0], NULL);
        ompdag_graph *g = NULL;
        ompdag_error err = {0};
        cr_expect_eq(read_through_fifo(p, cases[k][1], strlen(cases[k][1]), &g, &err),
                     OMPDAG_ERR_LIMIT, "case %d: %s", k, err.message);
        cr_expect_null(g);
        cr_expect(strstr(err.message, "--max-vertices"), "%s", err.message);
        unlink(p);
    }
    /* a small graph still reads through a FIFO */
    char *p = tmp_file(".el", NULL);
    ompdag_graph *g = NULL;
    ompdag_error err = {0};
    cr_assert_eq(read_through_fifo(p, "0 1\n1 2\n", 8, &g, &err), OMPDAG_OK, "%s", err.message);
    cr_expect_eq(ompdag_graph_vertices(g), 3);
    ompdag_graph_destroy(g);
    unlink(p);
}

Test(graph, binary_header_through_a_fifo_or_overflowing_is_refused)
{
    int64_t s[] = {0}, d[] = {1};
    ompdag_graph *g = tu_graph(2, 1, s, d, 0);
    char *p = tmp_file(".csr", NULL);
    ompdag_error err = {0};
    cr_assert_eq(ompdag_graph_write(g, p, OMPDAG_GRAPH_FORMAT_AUTO, &err), OMPDAG_OK, "%s",
                 err.message);
    ompdag_graph_destroy(g);
    unsigned char buf[256];
    FILE *f = fopen(p, "rb");
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    int64_t huge = INT64_C(1) << 61; /* 8·(n + 1) + 4·m overflows int64 */
    uint32_t wide = 8;
    memcpy(buf + 12, &wide, sizeof wide); /* header: magic[8], version, id_bytes, n, m */
    memcpy(buf + 16, &huge, sizeof huge);
    memcpy(buf + 24, &huge, sizeof huge);
    f = fopen(p, "wb");
    fwrite(buf, 1, len, f);
    fclose(f);
    ompdag_graph *h = NULL;
    cr_expect_eq(ompdag_graph_read(p, OMPDAG_GRAPH_FORMAT_AUTO, 0, &h, &err), OMPDAG_ERR_PARSE);
    cr_expect(strstr(err.message, "more than 2^63"), "%s", err.message);
    unlink(p);
    /* the same forged header from a FIFO: refused without allocating 2^61 */
    cr_expect_eq(read_through_fifo(p, buf, len, &h, &err), OMPDAG_ERR_PARSE, "%s", err.message);
    cr_expect_null(h);
    unlink(p);
}

/* Issue 26 item 15: `bfs --save` wrote in place, so a failed write left the
 * previous file truncated.  A child whose file size is capped (RLIMIT_FSIZE)
 * fails to write a large graph; the old file must be whole afterwards. */
Test(graph, a_failed_save_leaves_the_previous_file_whole)
{
    char *p = tmp_file(".el", "0 1\n");
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN); /* the write fails with EFBIG instead */
        struct rlimit lim = {4096, 4096};
        setrlimit(RLIMIT_FSIZE, &lim);
        ompdag_graph *g = tu_kron(10, 1);
        ompdag_error err = {0};
        ompdag_status st = ompdag_graph_write(g, p, OMPDAG_GRAPH_FORMAT_AUTO, &err);
        _exit(st == OMPDAG_ERR_IO ? 0 : 1);
    }
    int ws;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    cr_expect(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "the capped write did not fail");
    FILE *f = fopen(p, "r");
    char buf[16] = "";
    cr_assert_not_null(f);
    cr_expect_not_null(fgets(buf, sizeof buf, f));
    fclose(f);
    cr_expect_str_eq(buf, "0 1\n", "the previous file was damaged");
    unlink(p);
}
