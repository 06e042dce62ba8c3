/*
 * cuda-offload/condag/batch.c — flattening a batch of con-DAGs and bucketing
 * their nodes by height, then dispatching to the cpu, gpu-sim or gpu
 * evaluator (include/ompdag/condag_gpu.h), or spreads the per-graph exact
 * analysis over OpenMP threads (cpu-par).
 *
 * Height h(v) = 0 when v has no F-successor and creates no task, else
 * 1 + max over its F-successors and its child's source.  Every value of v
 * depends only on those nodes, so all nodes of one height can be evaluated
 * at once once the lower heights are done.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "batch_internal.h"
#include "ompdag/compact.h"
#include "ompdag/condag_gpu.h"
#include "ompdag/internal/clock.h"
#include "ompdag/internal/condag_csr.h"
#include "ompdag/locks.h"
#include "ompdag/rta.h"

bool ompdag_eval_device_parse(const char *name, ompdag_eval_device *out)
{
    for (int d = OMPDAG_EVAL_CPU; d <= OMPDAG_EVAL_GPU_SIM_GRAPHS; ++d)
        if (!strcmp(name, ompdag_eval_device_name((ompdag_eval_device)d))) {
            *out = (ompdag_eval_device)d;
            return true;
        }
    return false;
}

const char *ompdag_eval_device_name(ompdag_eval_device d)
{
    return d == OMPDAG_EVAL_GPU              ? "gpu"
           : d == OMPDAG_EVAL_GPU_SIM        ? "gpu-sim"
           : d == OMPDAG_EVAL_CPU_PAR        ? "cpu-par"
           : d == OMPDAG_EVAL_GPU_GRAPHS     ? "gpu-graphs"
           : d == OMPDAG_EVAL_GPU_SIM_GRAPHS ? "gpu-sim-graphs"
                                             : "cpu";
}

size_t condag_pack_bytes(int64_t n, int64_t edges, int64_t ngraphs)
{
    return (size_t)(8 * n + 4 * (n + 1) + 4 * edges + 4 * n + 4 * n + 4 * ngraphs + n);
}

/* The pack buffer is kept between calls (page-locked when a GPU gave one,
 * else this one), so a warm call does not fault in fresh pages for tens of
 * megabytes; a second batch in flight at the same time mallocs its own. */
static struct {
    pthread_mutex_t lock;
    void *buf;
    size_t cap;
    bool busy;
} pack_cache = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, false};

static void *pack_alloc(size_t bytes, bool pinned, bool *was_pinned)
{
    void *p = NULL;
    *was_pinned = false;
    if (pinned && (p = condag_gpu_host_alloc(bytes)) != NULL) {
        *was_pinned = true;
        return p;
    }
    pthread_mutex_lock(&pack_cache.lock);
    if (!pack_cache.busy) {
        if (pack_cache.cap < bytes) {
            free(pack_cache.buf);
            pack_cache.cap = bytes + bytes / 4 + 1;
            if (!(pack_cache.buf = malloc(pack_cache.cap))) pack_cache.cap = 0;
        }
        if (pack_cache.buf) {
            pack_cache.busy = true;
            p = pack_cache.buf;
        }
    }
    pthread_mutex_unlock(&pack_cache.lock);
    return p ? p : malloc(bytes);
}

static void pack_release(void *p, bool pinned)
{
    if (pinned) {
        condag_gpu_host_release(p);
        return;
    }
    pthread_mutex_lock(&pack_cache.lock);
    bool mine = p && p == pack_cache.buf;
    if (mine) pack_cache.busy = false;
    pthread_mutex_unlock(&pack_cache.lock);
    if (!mine) free(p);
}

void condag_batch_free(condag_batch *b)
{
    pack_release(b->pack, b->pinned);
    free(b->level_off);
    memset(b, 0, sizeof *b);
}

/* The GPU step has one weight per node, so dispatch delays are folded into
 * it (WCET + D everywhere, docs/overheads.md): sound, never below the CPU's
 * chain-only figure.  The sums fit: check_graph counted the delays. */
static void fold_delays(int64_t *wcet, const ompdag_condag_csr *c)
{
    if (!c->delay) return;
    for (int32_t v = 0; v < c->n; ++v)
        wcet[v] += c->delay[v];
}

/* Points the section pointers into the pack (layout: batch_internal.h). */
static void carve_pack(condag_batch *b)
{
    char *p = b->pack;
    const size_t n = (size_t)b->n;
    b->wcet = (int64_t *)(void *)p, p += 8 * n;
    b->succ_off = (int32_t *)(void *)p, p += 4 * (n + 1);
    b->succ = (int32_t *)(void *)p, p += 4 * (size_t)b->edges;
    b->child = (int32_t *)(void *)p, p += 4 * n;
    b->level_nodes = (int32_t *)(void *)p, p += 4 * n;
    b->root = (int32_t *)(void *)p, p += 4 * (size_t)b->ngraphs;
    b->kind = p;
}

/* Graph i's size and its overflow check; 0 or the failure's status.  A
 * plain graph's total is kept by the graph; only a compact graph's unfolded
 * total needs a pass over its nodes. */
static ompdag_status check_graph(const ompdag_condag *g, int32_t m, int64_t *nodes, int64_t *edges,
                                 int64_t *tasks)
{
    int64_t scaled, total;
    if (!ompdag_condag_is_finalized(g)) return OMPDAG_ERR_ARGUMENT;
    /* compact loops (issue 29): the per-node kernel would read one iteration */
    if (ompdag_compact_has_loops(g)) return OMPDAG_ERR_UNSUPPORTED;
    /* a compact graph's values reach m times its unfolding's total */
    if (ompdag_compact_is_compact(g)) {
        if (!ompdag_compact_expanded_total(g, 0, 0, &total)) return OMPDAG_ERR_OVERFLOW;
    } else if (__builtin_add_overflow(ompdag_condag_total_wcet(g), ompdag_condag_total_delay(g),
                                      &total)) {
        return OMPDAG_ERR_OVERFLOW;
    }
    if (__builtin_mul_overflow(total, 2 * (int64_t)m, &scaled)) return OMPDAG_ERR_OVERFLOW;
    ompdag_condag_csr c;
    ompdag_condag_csr_view(g, &c);
    *nodes = c.n;
    *edges = c.fsucc_off[c.n] - c.fsucc_off[0];
    *tasks = c.nt;
    return OMPDAG_OK;
}

/* Sizes of every graph (OpenMP over graphs) and their prefix sums:
 * node_at[i] / edge_at[i] is graph i's first global node / edge; the lowest
 * failing graph is named, as a serial loop would. */
static ompdag_status size_graphs(const ompdag_condag *const *graphs, size_t count, int32_t m,
                                 int64_t *node_at, int64_t *edge_at, int64_t *task_at,
                                 ompdag_error *err)
{
    size_t bad = count;
    ompdag_status bad_st = OMPDAG_OK;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < count; ++i) {
        ompdag_status st =
            check_graph(graphs[i], m, &node_at[i + 1], &edge_at[i + 1], &task_at[i + 1]);
        if (st != OMPDAG_OK) {
#pragma omp critical(ompdag_batch_size)
            if (i < bad) bad = i, bad_st = st;
        }
    }
    if (bad < count) {
        if (bad_st == OMPDAG_ERR_ARGUMENT)
            return ompdag_error_set(err, bad_st, "graph %zu is not finalized", bad);
        return ompdag_error_set(err, bad_st,
                                "graph %zu: 2m times its total WCET (unfolded, for a compact "
                                "graph) does not fit in int64",
                                bad);
    }
    node_at[0] = edge_at[0] = task_at[0] = 0;
    for (size_t i = 0; i < count; ++i) {
        node_at[i + 1] += node_at[i];
        edge_at[i + 1] += edge_at[i];
        task_at[i + 1] += task_at[i];
    }
    if (node_at[count] + (int64_t)count > INT32_MAX || edge_at[count] > INT32_MAX ||
        task_at[count] > INT32_MAX)
        return ompdag_error_set(err, OMPDAG_ERR_LIMIT, "batch larger than 2^31 nodes or edges");
    return OMPDAG_OK;
}

/* Copies graph g's nodes to global indices [base, base+n), edges from
 * edge_pos on, and its heights; returns its greatest height.  The graph's
 * own arrays are read in bulk (ompdag/internal/condag_csr.h): one pass
 * rebases them, one pass in reverse topological order takes the heights. */
static int32_t flatten_graph(condag_batch *b, const ompdag_condag *g, int32_t base,
                             int32_t edge_pos, int32_t *height)
{
    ompdag_condag_csr c;
    ompdag_condag_csr_view(g, &c);
    const int32_t n = c.n, e0 = c.fsucc_off[0], edges = c.fsucc_off[n] - e0;
    memcpy(b->wcet + base, c.wcet, sizeof *c.wcet * (size_t)n);
    fold_delays(b->wcet + base, &c);
    memcpy(b->kind + base, c.kind, (size_t)n);
    for (int32_t v = 0; v < n; ++v)
        b->succ_off[base + v] = edge_pos + (c.fsucc_off[v] - e0);
    int32_t *succ = b->succ + edge_pos;
    for (int32_t e = 0; e < edges; ++e)
        succ[e] = base + c.fsucc[e0 + e];
    for (int32_t v = 0; v < n; ++v) {
        const int32_t t = c.creates ? c.creates[v] : -1;
        b->child[base + v] = t >= 0 ? base + c.task_source[t] : -1;
    }
    int32_t *h = height + base, maxh = -1;
    for (int32_t i = n - 1; i >= 0; --i) { /* successors before predecessors */
        const int32_t v = c.topo[i];
        int32_t hv = -1;
        for (int32_t e = c.fsucc_off[v]; e < c.fsucc_off[v + 1]; ++e)
            hv = h[c.fsucc[e]] > hv ? h[c.fsucc[e]] : hv;
        const int32_t t = c.creates ? c.creates[v] : -1;
        if (t >= 0 && h[c.task_source[t]] > hv) hv = h[c.task_source[t]];
        h[v] = hv + 1;
        maxh = hv + 1 > maxh ? hv + 1 : maxh;
    }
    return maxh;
}

/* Counting sort of the nodes by height, in parallel: every thread counts
 * its slice of the nodes, the counts are summed height-major, thread-minor,
 * and every thread scatters its slice to its offsets. */
static bool bucket_levels(condag_batch *b, const int32_t *height, int32_t maxh)
{
    b->nlevels = b->n ? maxh + 1 : 0;
    b->level_off = calloc((size_t)b->nlevels + 2, sizeof *b->level_off);
    if (!b->level_off) return false;
    if (!b->n) return true;
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    const size_t H = (size_t)b->nlevels;
    int64_t *at = calloc((size_t)threads * H, sizeof *at);
    if (!at) return false;
#pragma omp parallel num_threads(threads)
    {
        int t = 0, T = 1;
#ifdef _OPENMP
        t = omp_get_thread_num(), T = omp_get_num_threads();
#endif
        const int32_t lo = (int32_t)((int64_t)b->n * t / T),
                      hi = (int32_t)((int64_t)b->n * (t + 1) / T);
        int64_t *mine = at + (size_t)t * H;
        for (int32_t v = lo; v < hi; ++v)
            mine[height[v]]++;
#pragma omp barrier
#pragma omp single
        {
            int64_t sum = 0;
            for (size_t h = 0; h < H; ++h) {
                b->level_off[h] = (int32_t)sum;
                for (int k = 0; k < T; ++k) {
                    int64_t c = at[(size_t)k * H + h];
                    at[(size_t)k * H + h] = sum;
                    sum += c;
                }
            }
            b->level_off[H] = (int32_t)sum;
        }
        for (int32_t v = lo; v < hi; ++v)
            b->level_nodes[mine[height[v]]++] = v;
    }
    free(at);
    return true;
}

/* Host preparation: sizes, one packed buffer (page-locked for the gpu),
 * every graph flattened at its offsets, heights, the level buckets; all but
 * the prefix sums run OpenMP over graphs. */
static ompdag_status build_batch(const ompdag_condag *const *graphs, size_t count, int32_t m,
                                 bool pinned, condag_batch *b, ompdag_error *err)
{
    memset(b, 0, sizeof *b);
    int64_t *node_at = malloc(sizeof *node_at * (count + 1));
    int64_t *edge_at = malloc(sizeof *edge_at * (count + 1));
    int64_t *task_at = malloc(sizeof *task_at * (count + 1));
    if (!node_at || !edge_at || !task_at) {
        free(node_at), free(edge_at), free(task_at);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    ompdag_status st = size_graphs(graphs, count, m, node_at, edge_at, task_at, err);
    free(task_at);
    if (st) {
        free(node_at), free(edge_at);
        return st;
    }
    b->n = (int32_t)node_at[count], b->ngraphs = (int32_t)count, b->edges = edge_at[count];
    b->pack_bytes = condag_pack_bytes(b->n, b->edges, b->ngraphs);
    /* the heights are scratch after the pack, in the same kept buffer */
    const size_t scratch = (b->pack_bytes + 3) / 4 * 4;
    b->pack = pack_alloc(scratch + sizeof(int32_t) * (size_t)(b->n ? b->n : 1), pinned, &b->pinned);
    int32_t *height = b->pack ? (int32_t *)(void *)((char *)b->pack + scratch) : NULL;
    bool ok = b->pack != NULL;
    int32_t maxh = 0;
    if (ok) {
        carve_pack(b);
#pragma omp parallel for schedule(dynamic, 64) reduction(max : maxh)
        for (size_t i = 0; i < count; ++i) {
            int32_t h =
                flatten_graph(b, graphs[i], (int32_t)node_at[i], (int32_t)edge_at[i], height);
            maxh = h > maxh ? h : maxh;
            b->root[i] = (int32_t)node_at[i] +
                         ompdag_condag_task_source(graphs[i], ompdag_condag_root_task(graphs[i]));
        }
        b->succ_off[b->n] = (int32_t)b->edges;
    }
    ok = ok && bucket_levels(b, height, maxh);
    free(node_at), free(edge_at);
    if (!ok) {
        condag_batch_free(b);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    return OMPDAG_OK;
}

/* gpu-sim: the level kernel's threads block by block, then the gather; the
 * counts are those of the GPU path (eval_gpu.cu) for this batch. */
ompdag_status condag_eval_sim(const condag_batch *b, int32_t m, int64_t *out,
                              ompdag_batch_stats *stats, ompdag_error *err)
{
    ompdag_exact_row *rows = malloc(sizeof *rows * (size_t)(b->n ? b->n : 1));
    if (!rows) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    stats->uploads = 1;
    stats->bytes_up = (int64_t)b->pack_bytes;
    for (int32_t l = 0; l < b->nlevels; ++l) {
        const int32_t *nodes = b->level_nodes + b->level_off[l];
        int32_t count = b->level_off[l + 1] - b->level_off[l];
        int32_t blocks = (count + CONDAG_BLOCK - 1) / CONDAG_BLOCK;
        for (int32_t blk = 0; blk < blocks; ++blk)
            for (int32_t t = 0; t < CONDAG_BLOCK; ++t)
                condag_level_thread(b, nodes, count, blk * CONDAG_BLOCK + t, m, rows);
        stats->launches++;
    }
    int32_t blocks = (b->ngraphs + CONDAG_BLOCK - 1) / CONDAG_BLOCK;
    for (int32_t blk = 0; blk < blocks; ++blk)
        for (int32_t t = 0; t < CONDAG_BLOCK; ++t)
            condag_gather_thread(b, blk * CONDAG_BLOCK + t, rows, out);
    stats->launches++;
    stats->host_syncs = 1; /* the download of out */
    stats->bytes_down = 8 * (int64_t)b->ngraphs;
    free(rows);
    return OMPDAG_OK;
}

/* ---- the per-graph design ---- */

size_t condag_gpack_bytes(int64_t n, int64_t edges, int64_t tasks, int64_t ngraphs)
{
    return (size_t)(8 * n + 3 * 4 * (ngraphs + 1) + 4 * ngraphs + 4 * (n + ngraphs) + 4 * edges +
                    4 * n + 4 * tasks + 4 * n + n);
}

static void gpack_free(condag_gpack *p)
{
    pack_release(p->pack, p->pinned);
    memset(p, 0, sizeof *p);
}

static void carve_gpack(condag_gpack *p)
{
    char *q = p->pack;
    const size_t n = (size_t)p->n, G = (size_t)p->ngraphs;
    p->wcet = (int64_t *)(void *)q, q += 8 * n;
    p->gnode = (int32_t *)(void *)q, q += 4 * (G + 1);
    p->gedge = (int32_t *)(void *)q, q += 4 * (G + 1);
    p->gtask = (int32_t *)(void *)q, q += 4 * (G + 1);
    p->root = (int32_t *)(void *)q, q += 4 * G;
    p->off = (int32_t *)(void *)q, q += 4 * (n + G);
    p->succ = (int32_t *)(void *)q, q += 4 * (size_t)p->edges;
    p->creates = (int32_t *)(void *)q, q += 4 * n;
    p->tsrc = (int32_t *)(void *)q, q += 4 * (size_t)p->tasks;
    p->topo = (int32_t *)(void *)q, q += 4 * n;
    p->kind = q;
}

/* Graph i's own arrays at its offsets, as they are (local indices): bulk
 * copies, and one pass that rebases its successor offsets to 0. */
static void copy_graph(condag_gpack *p, const ompdag_condag *g, int32_t i)
{
    ompdag_condag_csr c;
    ompdag_condag_csr_view(g, &c);
    const int32_t nb = p->gnode[i], n = c.n, e0 = c.fsucc_off[0];
    memcpy(p->wcet + nb, c.wcet, sizeof *c.wcet * (size_t)n);
    fold_delays(p->wcet + nb, &c);
    memcpy(p->kind + nb, c.kind, (size_t)n);
    memcpy(p->topo + nb, c.topo, sizeof *c.topo * (size_t)n);
    memcpy(p->succ + p->gedge[i], c.fsucc + e0, sizeof *c.fsucc * (size_t)(c.fsucc_off[n] - e0));
    memcpy(p->tsrc + p->gtask[i], c.task_source, sizeof *c.task_source * (size_t)c.nt);
    if (c.creates)
        memcpy(p->creates + nb, c.creates, sizeof *c.creates * (size_t)n);
    else
        for (int32_t v = 0; v < n; ++v)
            p->creates[nb + v] = -1;
    int32_t *off = p->off + nb + i;
    for (int32_t v = 0; v <= n; ++v)
        off[v] = c.fsucc_off[v] - e0;
    p->root[i] = ompdag_condag_task_source(g, ompdag_condag_root_task(g));
}

static ompdag_status build_gpack(const ompdag_condag *const *graphs, size_t count, int32_t m,
                                 bool pinned, condag_gpack *p, ompdag_error *err)
{
    memset(p, 0, sizeof *p);
    int64_t *at = malloc(sizeof *at * 3 * (count + 1));
    if (!at) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    int64_t *node_at = at, *edge_at = at + count + 1, *task_at = at + 2 * (count + 1);
    ompdag_status st = size_graphs(graphs, count, m, node_at, edge_at, task_at, err);
    if (st) {
        free(at);
        return st;
    }
    p->n = (int32_t)node_at[count], p->ngraphs = (int32_t)count;
    p->edges = edge_at[count], p->tasks = task_at[count];
    p->pack_bytes = condag_gpack_bytes(p->n, p->edges, p->tasks, p->ngraphs);
    p->pack = pack_alloc(p->pack_bytes, pinned, &p->pinned);
    if (!p->pack) {
        free(at);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    carve_gpack(p);
    for (size_t i = 0; i <= count; ++i) {
        p->gnode[i] = (int32_t)node_at[i];
        p->gedge[i] = (int32_t)edge_at[i];
        p->gtask[i] = (int32_t)task_at[i];
    }
    free(at);
#pragma omp parallel for schedule(dynamic, 64)
    for (size_t i = 0; i < count; ++i)
        copy_graph(p, graphs[i], (int32_t)i);
    return OMPDAG_OK;
}

/* gpu-sim-graphs: the per-graph kernel's threads one by one; the counts are
 * those of eval_gpu.cu's per-graph path. */
static ompdag_status eval_graphs_sim(const condag_gpack *p, int32_t m, int64_t *out,
                                     ompdag_batch_stats *stats, ompdag_error *err)
{
    ompdag_exact_row *rows = malloc(sizeof *rows * (size_t)(p->n ? p->n : 1));
    if (!rows) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    stats->uploads = 1;
    stats->bytes_up = (int64_t)p->pack_bytes;
    for (int32_t g = 0; g < p->ngraphs; ++g)
        condag_graph_thread(p, g, m, rows, out);
    stats->launches = 1;
    stats->host_syncs = 1;
    stats->bytes_down = 8 * (int64_t)p->ngraphs;
    free(rows);
    return OMPDAG_OK;
}

static ompdag_status exact_per_graph(const ompdag_condag *const *graphs, size_t count, int32_t m,
                                     bool gpu, int64_t *out, ompdag_batch_stats *stats,
                                     ompdag_error *err)
{
    const double t0 = ompdag_now_s();
    condag_gpack p;
    ompdag_status st = build_gpack(graphs, count, m, gpu, &p, err);
    if (st) return st;
    stats->prepare_seconds = ompdag_now_s() - t0;
    stats->nodes = p.n;
    stats->edges = p.edges;
    st = gpu ? condag_eval_graphs_gpu(&p, m, out, stats, err)
             : eval_graphs_sim(&p, m, out, stats, err);
    gpack_free(&p);
    return st;
}

static ompdag_status exact_on_cpu(const ompdag_condag *const *graphs, size_t count, int32_t m,
                                  int64_t *out, ompdag_error *err)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    opt.bound_only = true;
    opt.fold_delays = true; /* as the GPU paths (fold_delays above): identical integers */
    for (size_t i = 0; i < count; ++i) {
        ompdag_rta_result *r;
        ompdag_status st = ompdag_rta_run(graphs[i], OMPDAG_ALG_EXACT, &opt, &r, err);
        if (st) return st;
        out[i] = ompdag_rta_result_bound_times_m(r);
        ompdag_rta_result_destroy(r);
    }
    return OMPDAG_OK;
}

/* The same per-graph analysis with the graphs spread over OpenMP threads
 * (graphs are only read; each thread has its own result).  On an error the
 * lowest failing graph's message is returned, as the serial loop would. */
static ompdag_status exact_on_cpu_par(const ompdag_condag *const *graphs, size_t count, int32_t m,
                                      int64_t *out, ompdag_error *err)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    opt.bound_only = true;
    opt.fold_delays = true; /* as the GPU paths (fold_delays above): identical integers */
    size_t bad = count;
    ompdag_status bad_st = OMPDAG_OK;
    ompdag_error bad_err = {0};
#pragma omp parallel for schedule(dynamic, 16)
    for (size_t i = 0; i < count; ++i) {
        ompdag_rta_result *r = NULL;
        ompdag_error e = {0};
        ompdag_status st = ompdag_rta_run(graphs[i], OMPDAG_ALG_EXACT, &opt, &r, &e);
        if (st == OMPDAG_OK) {
            out[i] = ompdag_rta_result_bound_times_m(r);
            ompdag_rta_result_destroy(r);
        } else {
#pragma omp critical(ompdag_batch_error)
            if (i < bad) {
                bad = i;
                bad_st = st;
                bad_err = e;
            }
        }
    }
    if (bad < count && err) *err = bad_err;
    return bad_st;
}

ompdag_status ompdag_exact_batch_stats(const ompdag_condag *const *graphs, size_t count, int32_t m,
                                       ompdag_eval_device device, int64_t *bound_times_m,
                                       ompdag_batch_stats *stats, ompdag_error *err)
{
    ompdag_batch_stats local;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof *stats);
    const double t0 = ompdag_now_s();
    if (m < 1) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "thread count m must be >= 1");
    for (size_t i = 0; i < count; ++i) { /* the batch kernel is Alg1, blind to D-edges (§6) */
        ompdag_status st =
            ompdag_condag_refuse_depend(graphs[i], "the batch evaluator (--device)", err);
        if (!st) /* nor the lock blocking term (docs/mutex.md) */
            st = ompdag_condag_refuse_locks(graphs[i], "the batch evaluator (--device)", err);
        if (st) return st;
    }
    ompdag_status st;
    if (count == 0) return OMPDAG_OK;
    if (device == OMPDAG_EVAL_CPU || device == OMPDAG_EVAL_CPU_PAR) {
        st = device == OMPDAG_EVAL_CPU ? exact_on_cpu(graphs, count, m, bound_times_m, err)
                                       : exact_on_cpu_par(graphs, count, m, bound_times_m, err);
        stats->evaluate_seconds = stats->total_seconds = ompdag_now_s() - t0;
        return st;
    }
    if (device == OMPDAG_EVAL_GPU_GRAPHS || device == OMPDAG_EVAL_GPU_SIM_GRAPHS) {
        st = exact_per_graph(graphs, count, m, device == OMPDAG_EVAL_GPU_GRAPHS, bound_times_m,
                             stats, err);
        stats->total_seconds = ompdag_now_s() - t0;
        stats->evaluate_seconds = stats->total_seconds - stats->prepare_seconds;
        return st;
    }
    condag_batch b;
    st = build_batch(graphs, count, m, device == OMPDAG_EVAL_GPU, &b, err);
    if (st) return st;
    const double t1 = ompdag_now_s();
    stats->prepare_seconds = t1 - t0;
    stats->levels = b.nlevels;
    stats->nodes = b.n;
    stats->edges = b.edges;
    if (device == OMPDAG_EVAL_GPU)
        st = condag_eval_gpu(&b, m, bound_times_m, stats, err);
    else
        st = condag_eval_sim(&b, m, bound_times_m, stats, err);
    condag_batch_free(&b);
    const double t2 = ompdag_now_s();
    stats->evaluate_seconds = t2 - t1;
    stats->total_seconds = t2 - t0;
    return st;
}

ompdag_status ompdag_exact_batch(const ompdag_condag *const *graphs, size_t count, int32_t m,
                                 ompdag_eval_device device, int64_t *bound_times_m,
                                 ompdag_error *err)
{
    return ompdag_exact_batch_stats(graphs, count, m, device, bound_times_m, NULL, err);
}
