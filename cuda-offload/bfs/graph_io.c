/*
 * graph_io.c — graph readers and writers (GAP's reader.h/writer.h role):
 * binary CSR, text edge lists and Matrix Market.  Text readers name the file
 * and line of the first malformed line; the binary reader names the byte.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "graph_internal.h"
#include "ompdag/fileio.h"

static const char BIN_MAGIC[8] = {'O', 'M', 'P', 'D', 'A', 'G', 'C', 'S'};
#define BIN_VERSION 1u
#define BIN_FLAG_SYMMETRIC 1u
#define BIN_FLAG_SORTED 2u

typedef struct bin_header {
    char magic[8];
    uint32_t version;
    uint32_t id_bytes;
    int64_t n;
    int64_t m;
    uint32_t flags;
    uint32_t reserved;
} bin_header;
_Static_assert(sizeof(bin_header) == GRAPH_BINARY_HEADER_BYTES, "graph_internal.h's header size");

static ompdag_graph_format pick_format(const char *path, ompdag_graph_format f)
{
    if (f != OMPDAG_GRAPH_FORMAT_AUTO)
        return f;
    const char *dot = strrchr(path, '.');
    if (dot && strcmp(dot, ".csr") == 0)
        return OMPDAG_GRAPH_FORMAT_BINARY;
    if (dot && strcmp(dot, ".mtx") == 0)
        return OMPDAG_GRAPH_FORMAT_MATRIX_MARKET;
    return OMPDAG_GRAPH_FORMAT_EDGELIST;
}

/* ---- growable edge arrays for the text readers ---- */
typedef struct edge_buf {
    int64_t *src, *dst;
    int64_t len, cap;
} edge_buf;

static bool edge_push(edge_buf *b, int64_t u, int64_t v)
{
    if (b->len == b->cap) {
        int64_t cap = b->cap ? 2 * b->cap : 1024;
        int64_t *s = realloc(b->src, (size_t)cap * sizeof *s);
        if (!s)
            return false;
        b->src = s;
        int64_t *d = realloc(b->dst, (size_t)cap * sizeof *d);
        if (!d)
            return false;
        b->dst = d;
        b->cap = cap;
    }
    b->src[b->len] = u;
    b->dst[b->len] = v;
    ++b->len;
    return true;
}

static void edge_free(edge_buf *b)
{
    free(b->src);
    free(b->dst);
}

/* Parses one non-negative decimal integer at *p, skipping blanks first. */
static bool parse_id(char **p, int64_t *out)
{
    char *s = *p;
    while (*s == ' ' || *s == '\t')
        ++s;
    if (!isdigit((unsigned char)*s))
        return false;
    errno = 0;
    char *end;
    long long x = strtoll(s, &end, 10);
    if (errno == ERANGE || (*end && !isspace((unsigned char)*end)))
        return false;
    *out = x;
    *p = end;
    return true;
}

static bool rest_blank(const char *s)
{
    for (; *s; ++s)
        if (!isspace((unsigned char)*s))
            return false;
    return true;
}

/* Skips one numeric value column (Matrix Market real/integer). */
static bool skip_number(char **p)
{
    char *s = *p;
    while (*s == ' ' || *s == '\t')
        ++s;
    char *end;
    errno = 0;
    (void)strtod(s, &end);
    if (end == s || errno == ERANGE)
        return false;
    *p = end;
    return true;
}

/* getline returns -1 both at end of file and when it cannot grow its buffer
 * (ENOMEM sets neither feof nor ferror): only a real end of file ends a read. */
static ompdag_status read_stopped(FILE *f, const char *path, long lineno, ompdag_error *err)
{
    int e = errno;
    if (feof(f) && !ferror(f))
        return OMPDAG_OK;
    return ompdag_error_set(err, e == ENOMEM ? OMPDAG_ERR_NOMEM : OMPDAG_ERR_IO,
                            "%s:%ld: read failed: %s", path, lineno + 1,
                            e ? strerror(e) : "I/O error");
}

static ompdag_status too_many_vertices(const char *path, long lineno, long long n, int64_t max,
                                       ompdag_error *err)
{
    return ompdag_error_set(err, OMPDAG_ERR_LIMIT,
                            "%s:%ld: %lld vertices exceed the limit of %lld for this file "
                            "(raise it with --max-vertices)",
                            path, lineno, n, (long long)max);
}

/* The vertex cap of a stream (a pipe or FIFO has no size to derive it from):
 * the same rule as for a file, applied to the bytes actually read, once the
 * input has ended and before anything of the graph's size is allocated.
 * max_n < 0 asks for it; a file's cap was applied line by line already. */
static ompdag_status check_stream_cap(const char *path, long lineno, int64_t n, int64_t max_n,
                                      int64_t bytes, ompdag_error *err)
{
    if (max_n >= 0) return OMPDAG_OK;
    int64_t cap = ompdag_graph_default_max_vertices(bytes);
    return n > cap ? too_many_vertices(path, lineno, (long long)n, cap, err) : OMPDAG_OK;
}

/* A stream's cap is decided at the end (check_stream_cap): no cap per line. */
static int64_t line_cap(int64_t max_n)
{
    return max_n < 0 ? INT64_MAX - 2 : max_n;
}

/* One line of an edge list (shared with the MPI reader, bfs_mpi_read.c, so
 * both apply the same rules): a comment or blank line sets *is_edge false
 * (a "# vertices N" comment sets *declared), an edge line sets *u and *v.
 * line is NUL-terminated; errors name path:lineno. */
ompdag_status graph_edgelist_line(char *line, const char *path, long lineno, int64_t max_n,
                                  int64_t *declared, bool *is_edge, int64_t *u, int64_t *v,
                                  ompdag_error *err)
{
    *is_edge = false;
    char *p = line;
    while (*p == ' ' || *p == '\t')
        ++p;
    if (*p == '#' || *p == '%') {
        long long nv;
        if (sscanf(p, "# vertices %lld", &nv) == 1 && nv >= 0) {
            if (nv > max_n) return too_many_vertices(path, lineno, nv, max_n, err);
            *declared = nv;
        }
        return OMPDAG_OK;
    }
    if (rest_blank(p)) return OMPDAG_OK;
    if (!parse_id(&p, u) || !parse_id(&p, v))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                "%s:%ld: expected two non-negative vertex ids \"u v\"", path, lineno);
    if (!rest_blank(p) && !skip_number(&p))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%ld: unexpected text after the vertex ids",
                                path, lineno);
    if (!rest_blank(p))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%ld: unexpected text after the edge weight",
                                path, lineno);
    if (*u >= INT64_MAX - 1 || *v >= INT64_MAX - 1)
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%ld: vertex id too large", path, lineno);
    if (*u >= max_n || *v >= max_n)
        return too_many_vertices(path, lineno, (long long)(*u > *v ? *u : *v) + 1, max_n, err);
    if (*declared >= 0 && (*u >= *declared || *v >= *declared))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                "%s:%ld: vertex id outside the declared %lld vertices", path, lineno,
                                (long long)*declared);
    *is_edge = true;
    return OMPDAG_OK;
}

static ompdag_status read_edgelist(FILE *f, const char *path, unsigned flags, int64_t max_n,
                                   ompdag_graph **out, ompdag_error *err)
{
    const int64_t max_stream = max_n;
    max_n = line_cap(max_n);
    int64_t bytes = 0;
    edge_buf b = {0};
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int64_t n = 0, declared = -1;
    ompdag_status st = OMPDAG_OK;
    errno = 0;
    ssize_t got;
    while ((got = getline(&line, &cap, f)) != -1) {
        ++lineno;
        bytes += got;
        bool is_edge;
        int64_t u, v;
        st = graph_edgelist_line(line, path, lineno, max_n, &declared, &is_edge, &u, &v, err);
        if (st != OMPDAG_OK) break;
        if (!is_edge) continue;
        if (!edge_push(&b, u, v)) {
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "%s:%ld: out of memory", path, lineno);
            break;
        }
        if (u + 1 > n)
            n = u + 1;
        if (v + 1 > n)
            n = v + 1;
    }
    if (st == OMPDAG_OK)
        st = read_stopped(f, path, lineno, err);
    free(line);
    if (st == OMPDAG_OK) {
        if (declared > n)
            n = declared;
        st = check_stream_cap(path, lineno, n, max_stream, bytes, err);
    }
    if (st == OMPDAG_OK) {
        st = ompdag_graph_from_edges(n, b.len, b.src, b.dst, flags, out, err);
    }
    edge_free(&b);
    return st;
}

/* ---- Matrix Market lines (shared with the MPI reader, bfs_mpi_read_mtx.c) ---- */

ompdag_status graph_mtx_banner(const char *line, const char *path, bool *has_value, bool *symmetric,
                               ompdag_error *err)
{
    if (!line)
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:1: empty file, expected a %%%%MatrixMarket header",
                        path);
    char object[32], layout[32], field[32], sym[32];
    if (sscanf(line, "%%%%MatrixMarket %31s %31s %31s %31s", object, layout, field, sym) != 4 ||
        strcmp(object, "matrix") != 0)
        return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                        "%s:1: expected \"%%%%MatrixMarket matrix coordinate FIELD SYMMETRY\"", path);
    if (strcmp(layout, "coordinate") != 0)
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:1: only the coordinate layout is supported (got %s)",
                        path, layout);
    if (strcmp(field, "pattern") == 0)
        *has_value = false;
    else if (strcmp(field, "real") == 0 || strcmp(field, "integer") == 0 || strcmp(field, "double") == 0)
        *has_value = true;
    else
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:1: unsupported field \"%s\"", path, field);
    if (strcmp(sym, "symmetric") == 0)
        *symmetric = true;
    else if (strcmp(sym, "general") == 0)
        *symmetric = false;
    else
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:1: unsupported symmetry \"%s\"", path, sym);
    return OMPDAG_OK;
}

bool graph_mtx_skipped(const char *line)
{
    return *line == '%' || rest_blank(line);
}

ompdag_status graph_mtx_size(char *line, const char *path, long lineno, int64_t max_n, int64_t *rows,
                             int64_t *cols, int64_t *nnz, ompdag_error *err)
{
    char *p = line;
    if (!parse_id(&p, rows) || !parse_id(&p, cols) || !parse_id(&p, nnz) || !rest_blank(p))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%ld: expected the size line \"rows cols entries\"",
                        path, lineno);
    if (*rows > max_n || *cols > max_n)
        return too_many_vertices(path, lineno, (long long)(*rows > *cols ? *rows : *cols), max_n, err);
    return OMPDAG_OK;
}

ompdag_status graph_mtx_entry(char *line, const char *path, long lineno, bool has_value, int64_t rows,
                              int64_t cols, int64_t *u, int64_t *v, ompdag_error *err)
{
    char *p = line;
    if (!parse_id(&p, u) || !parse_id(&p, v))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%ld: expected \"row col%s\"", path, lineno,
                        has_value ? " value" : "");
    if (has_value && !skip_number(&p))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%ld: expected a value after \"row col\"", path,
                        lineno);
    if (!rest_blank(p))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%ld: unexpected text after the entry", path, lineno);
    if (*u < 1 || *u > rows || *v < 1 || *v > cols)
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%ld: entry (%lld, %lld) outside the %lldx%lld matrix",
                        path, lineno, (long long)*u, (long long)*v, (long long)rows, (long long)cols);
    --*u;
    --*v;
    return OMPDAG_OK;
}

ompdag_status graph_mtx_too_many(const char *path, long lineno, int64_t nnz, ompdag_error *err)
{
    return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%ld: more entries than the %lld declared", path,
                    lineno, (long long)nnz);
}

ompdag_status graph_mtx_count(const char *path, long lineno, int64_t nnz, int64_t found,
                              ompdag_error *err)
{
    if (found == nnz) return OMPDAG_OK;
    return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%ld: expected %lld entries, found %lld", path,
                    lineno, (long long)nnz, (long long)found);
}

static ompdag_status read_mtx(FILE *f, const char *path, unsigned flags, int64_t max_n,
                              ompdag_graph **out, ompdag_error *err)
{
    const int64_t max_stream = max_n;
    max_n = line_cap(max_n);
    int64_t bytes = 0;
    edge_buf b = {0};
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    ompdag_status st = OMPDAG_OK;
    bool symmetric = false, has_value = false, have_size = false;
    int64_t rows = 0, cols = 0, nnz = 0;
    errno = 0;
    ssize_t got = getline(&line, &cap, f);
    if (got == -1) {
        ompdag_status rst = read_stopped(f, path, 0, err);
        free(line);
        if (rst)
            return rst;
        return graph_mtx_banner(NULL, path, &has_value, &symmetric, err);
    }
    lineno = 1;
    bytes = got;
    if ((st = graph_mtx_banner(line, path, &has_value, &symmetric, err)) != OMPDAG_OK) {
        free(line);
        return st;
    }
    while ((got = getline(&line, &cap, f)) != -1) {
        ++lineno;
        bytes += got;
        if (graph_mtx_skipped(line))
            continue;
        if (!have_size) {
            if ((st = graph_mtx_size(line, path, lineno, max_n, &rows, &cols, &nnz, err)) != OMPDAG_OK)
                break;
            have_size = true;
            continue;
        }
        int64_t u, v;
        if ((st = graph_mtx_entry(line, path, lineno, has_value, rows, cols, &u, &v, err)) != OMPDAG_OK)
            break;
        if (b.len >= nnz) {
            st = graph_mtx_too_many(path, lineno, nnz, err);
            break;
        }
        if (!edge_push(&b, u, v)) {
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "%s:%ld: out of memory", path, lineno);
            break;
        }
    }
    if (st == OMPDAG_OK)
        st = read_stopped(f, path, lineno, err);
    free(line);
    if (st == OMPDAG_OK && !have_size)
        st = ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%ld: missing the size line", path, lineno + 1);
    if (st == OMPDAG_OK)
        st = graph_mtx_count(path, lineno + 1, nnz, b.len, err);
    int64_t n = rows > cols ? rows : cols;
    if (st == OMPDAG_OK) st = check_stream_cap(path, lineno, n, max_stream, bytes, err);
    if (st == OMPDAG_OK) {
        st = ompdag_graph_from_edges(n, b.len, b.src, b.dst,
                                     flags | (symmetric ? OMPDAG_GRAPH_SYMMETRIZE : 0u), out, err);
    }
    edge_free(&b);
    return st;
}

/* 8·(n + 1) + id_bytes·m as text: the header is untrusted, so the product may
 * not fit in int64 (it was printed wrapped); 128-bit, and "more than 2^63". */
static const char *csr_body_bytes(int64_t n, int64_t m, uint32_t id_bytes)
{
    static _Thread_local char buf[32];
    __int128 need = (__int128)8 * ((__int128)n + 1) + (__int128)id_bytes * m;
    if (need > INT64_MAX)
        snprintf(buf, sizeof buf, "more than 2^63");
    else
        snprintf(buf, sizeof buf, "%lld", (long long)need);
    return buf;
}

/* Reads and checks a binary CSR header at the start of f (shared with the
 * MPI reader, bfs_mpi_read.c): its vertex and arc counts and id width must
 * fit the file's size (size < 0: unknown, a stream). */
ompdag_status graph_binary_header(FILE *f, const char *path, int64_t size, int64_t *n, int64_t *m,
                                  int *id_bytes, ompdag_error *err)
{
    bin_header h;
    if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, BIN_MAGIC, sizeof BIN_MAGIC) != 0)
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s: byte 0: not an ompdag binary CSR file", path);
    if (h.version != BIN_VERSION || (h.id_bytes != 4 && h.id_bytes != 8) || h.n < 0 || h.m < 0 ||
        (h.id_bytes == 4 && h.n > INT32_MAX))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s: byte 8: bad header (version %u, %u-byte ids, n %lld)",
                        path, h.version, h.id_bytes, (long long)h.n);
    /* the header's sizes must match the file's before anything is allocated */
    int64_t body = size - (int64_t)sizeof h;
    if (size >= 0 && (h.n >= body / 8 || h.m > (body - 8 * (h.n + 1)) / (int64_t)h.id_bytes ||
                      8 * (h.n + 1) + (int64_t)h.id_bytes * h.m != body))
        return ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                "%s: byte 8: the header's %lld vertices and %lld arcs with %u-byte "
                                "ids need %s bytes after the header, the file has %lld",
                                path, (long long)h.n, (long long)h.m, h.id_bytes,
                                csr_body_bytes(h.n, h.m, h.id_bytes), (long long)body);
    *n = h.n;
    *m = h.m;
    *id_bytes = (int)h.id_bytes;
    return OMPDAG_OK;
}

static ompdag_status read_binary(FILE *f, const char *path, int64_t size, ompdag_graph **out,
                                 ompdag_error *err)
{
    int64_t hn, hm;
    int id_bytes;
    ompdag_status hst = graph_binary_header(f, path, size, &hn, &hm, &id_bytes, err);
    if (hst != OMPDAG_OK) return hst;
    bin_header h = {.n = hn, .m = hm, .id_bytes = (uint32_t)id_bytes};
    ompdag_graph *g;
    ompdag_status st = graph_alloc(h.n, h.m, h.id_bytes == 8, &g, err);
    if (st != OMPDAG_OK)
        return st;
    long base = (long)sizeof h;
    if (fread(g->offsets, sizeof *g->offsets, (size_t)h.n + 1, f) != (size_t)h.n + 1) {
        ompdag_graph_destroy(g);
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s: byte %ld: truncated offsets", path, base);
    }
    void *ids = g->adj32 ? (void *)g->adj32 : (void *)g->adj64;
    if (fread(ids, h.id_bytes, (size_t)h.m, f) != (size_t)h.m) {
        ompdag_graph_destroy(g);
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s: byte %lld: truncated neighbour ids", path,
                        (long long)(base + 8 * (h.n + 1)));
    }
    if (g->offsets[0] != 0 || g->offsets[h.n] != h.m) {
        ompdag_graph_destroy(g);
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s: byte %ld: offsets do not span [0, %lld]", path, base,
                        (long long)h.m);
    }
    for (int64_t v = 0; v < h.n; ++v)
        if (g->offsets[v + 1] < g->offsets[v]) {
            ompdag_graph_destroy(g);
            return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s: byte %lld: offsets decrease at vertex %lld", path,
                            (long long)(base + 8 * (v + 1)), (long long)v);
        }
    for (int64_t e = 0; e < h.m; ++e) {
        int64_t x = csr_nbr(g, e);
        if (x < 0 || x >= h.n) {
            ompdag_graph_destroy(g);
            return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s: byte %lld: neighbour id %lld out of range", path,
                            (long long)(base + 8 * (h.n + 1) + (int64_t)h.id_bytes * e), (long long)x);
        }
    }
    graph_compute_flags(g);
    *out = g;
    return OMPDAG_OK;
}

/* A binary CSR from a pipe or FIFO: its header's sizes cannot be checked
 * against a file size before allocating, so the stream is read into memory
 * first (memory follows the bytes given, not the header's claims). */
static ompdag_status read_binary_stream(FILE *f, const char *path, ompdag_graph **out,
                                        ompdag_error *err)
{
    char *data = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&data, &len);
    if (!mem) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "%s: out of memory", path);
    char chunk[1 << 16];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (fwrite(chunk, 1, got, mem) != got) break;
    bool failed = ferror(f) || ferror(mem);
    if (fclose(mem) || failed || !data) {
        free(data);
        return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: read failed", path);
    }
    FILE *in = len ? fmemopen(data, len, "rb") : NULL;
    ompdag_status st = in ? read_binary(in, path, (int64_t)len, out, err)
                          : ompdag_error_set(err, OMPDAG_ERR_PARSE,
                                             "%s: byte 0: not an ompdag binary CSR file", path);
    if (in) fclose(in);
    free(data);
    return st;
}

/* A binary CSR is stored as it was written, possibly directed or with
 * self-loops and duplicate arcs; like the text formats it is made what
 * `flags` ask for (undirected and simple by default, docs/bfs.md) by
 * rebuilding it from its arcs. */
static ompdag_status normalize_binary(ompdag_graph **g, unsigned flags, ompdag_error *err)
{
    if (!(flags & (unsigned)OMPDAG_GRAPH_UNDIRECTED_SIMPLE)) return OMPDAG_OK;
    const ompdag_graph *in = *g;
    int64_t n = in->n, m = in->m;
    int64_t *src = malloc(sizeof *src * (size_t)(m ? m : 1));
    int64_t *dst = malloc(sizeof *dst * (size_t)(m ? m : 1));
    if (!src || !dst) {
        free(src), free(dst);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    for (int64_t u = 0; u < n; ++u)
        for (int64_t e = in->offsets[u]; e < in->offsets[u + 1]; ++e)
            src[e] = u, dst[e] = csr_nbr(in, e);
    ompdag_graph *out;
    ompdag_status st = ompdag_graph_from_edges(n, m, src, dst, flags, &out, err);
    free(src), free(dst);
    if (st) return st;
    ompdag_graph_destroy(*g);
    *g = out;
    return OMPDAG_OK;
}

int64_t ompdag_graph_default_max_vertices(int64_t file_bytes)
{
    if (file_bytes < 0 || file_bytes > (INT64_MAX - (INT64_C(1) << 20)) / 16)
        return INT64_MAX - 2;
    return (INT64_C(1) << 20) + 16 * file_bytes;
}

ompdag_status ompdag_graph_read_limited(const char *path, ompdag_graph_format format,
                                        unsigned flags, int64_t max_vertices, ompdag_graph **out,
                                        ompdag_error *err)
{
    if (!path || !out)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "graph: no path");
    format = pick_format(path, format);
    FILE *f = fopen(path, format == OMPDAG_GRAPH_FORMAT_BINARY ? "rb" : "r");
    if (!f)
        return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat sb;
    int64_t size = fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) ? (int64_t)sb.st_size : -1;
    if (max_vertices <= 0) /* a stream's cap follows the bytes read (check_stream_cap) */
        max_vertices = size >= 0 ? ompdag_graph_default_max_vertices(size) : -1;
    ompdag_status st;
    if (format == OMPDAG_GRAPH_FORMAT_BINARY) {
        st = size < 0 ? read_binary_stream(f, path, out, err) : read_binary(f, path, size, out, err);
        if (st == OMPDAG_OK) st = normalize_binary(out, flags, err);
    } else if (format == OMPDAG_GRAPH_FORMAT_MATRIX_MARKET)
        st = read_mtx(f, path, flags, max_vertices, out, err);
    else
        st = read_edgelist(f, path, flags, max_vertices, out, err);
    fclose(f);
    return st;
}

ompdag_status ompdag_graph_read(const char *path, ompdag_graph_format format, unsigned flags,
                                ompdag_graph **out, ompdag_error *err)
{
    return ompdag_graph_read_limited(path, format, flags, 0, out, err);
}

ompdag_status ompdag_graph_write(const ompdag_graph *g, const char *path,
                                 ompdag_graph_format format, ompdag_error *err)
{
    if (!g || !path)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "graph: nothing to write");
    format = pick_format(path, format);
    /* atomic like every other output: a failed write leaves the old file
     * whole (it was truncated), and "-" is standard output */
    ompdag_atomic_file *af;
    ompdag_status st = ompdag_atomic_file_open(path, &af, err);
    if (st)
        return st;
    FILE *f = ompdag_atomic_file_stream(af);
    bool ok = true;
    if (format == OMPDAG_GRAPH_FORMAT_BINARY) {
        bin_header h;
        memset(&h, 0, sizeof h);
        memcpy(h.magic, BIN_MAGIC, sizeof BIN_MAGIC);
        h.version = BIN_VERSION;
        h.id_bytes = (uint32_t)ompdag_graph_id_bytes(g);
        h.n = g->n;
        h.m = g->m;
        h.flags = (g->symmetric ? BIN_FLAG_SYMMETRIC : 0u) | (g->sorted ? BIN_FLAG_SORTED : 0u);
        const void *ids = g->adj32 ? (const void *)g->adj32 : (const void *)g->adj64;
        ok = fwrite(&h, sizeof h, 1, f) == 1 &&
             fwrite(g->offsets, sizeof *g->offsets, (size_t)g->n + 1, f) == (size_t)g->n + 1 &&
             fwrite(ids, h.id_bytes, (size_t)g->m, f) == (size_t)g->m;
    } else {
        bool mtx = format == OMPDAG_GRAPH_FORMAT_MATRIX_MARKET;
        int base = mtx ? 1 : 0;
        if (mtx)
            ok = fprintf(f, "%%%%MatrixMarket matrix coordinate pattern general\n%lld %lld %lld\n",
                         (long long)g->n, (long long)g->n, (long long)g->m) > 0;
        else
            ok = fprintf(f, "# ompdag edge list: one arc \"u v\" per line\n# vertices %lld\n",
                         (long long)g->n) > 0;
        for (int64_t v = 0; v < g->n && ok; ++v)
            for (int64_t e = g->offsets[v]; e < g->offsets[v + 1] && ok; ++e)
                ok = fprintf(f, "%lld %lld\n", (long long)(v + base), (long long)(csr_nbr(g, e) + base)) > 0;
    }
    if (!ok) {
        int e = errno;
        ompdag_atomic_file_abort(af);
        return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: write failed: %s", path, strerror(e));
    }
    return ompdag_atomic_file_commit(af, err);
}
