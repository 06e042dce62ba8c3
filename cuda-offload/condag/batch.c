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
#include <stdlib.h>
#include <string.h>

#include "batch_internal.h"
#include "ompdag/compact.h"
#include "ompdag/condag_gpu.h"
#include "ompdag/rta.h"

bool ompdag_eval_device_parse(const char *name, ompdag_eval_device *out)
{
    for (int d = OMPDAG_EVAL_CPU; d <= OMPDAG_EVAL_CPU_PAR; ++d)
        if (!strcmp(name, ompdag_eval_device_name((ompdag_eval_device)d))) {
            *out = (ompdag_eval_device)d;
            return true;
        }
    return false;
}

const char *ompdag_eval_device_name(ompdag_eval_device d)
{
    return d == OMPDAG_EVAL_GPU       ? "gpu"
           : d == OMPDAG_EVAL_GPU_SIM ? "gpu-sim"
           : d == OMPDAG_EVAL_CPU_PAR ? "cpu-par"
                                      : "cpu";
}

void condag_batch_free(condag_batch *b)
{
    free(b->kind), free(b->wcet), free(b->succ_off), free(b->succ), free(b->child);
    free(b->root), free(b->level_off), free(b->level_nodes);
    memset(b, 0, sizeof *b);
}

static ompdag_status check_sizes(const ompdag_condag *const *graphs, size_t count, int32_t m,
                                 int64_t *nodes, int64_t *edges, ompdag_error *err)
{
    *nodes = *edges = 0;
    for (size_t i = 0; i < count; ++i) {
        const ompdag_condag *g = graphs[i];
        int64_t scaled, total;
        if (!ompdag_condag_is_finalized(g))
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "graph %zu is not finalized", i);
        /* a compact graph's values reach m times its unfolding's total */
        if (!ompdag_compact_expanded_total(g, 0, 0, &total) ||
            __builtin_mul_overflow(total, 2 * (int64_t)m, &scaled))
            return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                    "graph %zu: 2m times its total WCET (unfolded, for a compact "
                                    "graph) does not fit in int64",
                                    i);
        *nodes += ompdag_condag_node_count(g);
        for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
            int32_t k;
            ompdag_condag_node_fsucc(g, v, &k);
            *edges += k;
        }
    }
    if (*nodes > INT32_MAX || *edges > INT32_MAX)
        return ompdag_error_set(err, OMPDAG_ERR_LIMIT, "batch larger than 2^31 nodes or edges");
    return OMPDAG_OK;
}

/* Copies graph g's nodes to global indices [base, base+n) and its heights. */
static void flatten_graph(condag_batch *b, const ompdag_condag *g, int32_t base, int32_t *edge_pos,
                          int32_t *height)
{
    int32_t n = ompdag_condag_node_count(g);
    for (int32_t v = 0; v < n; ++v) {
        int32_t k, c = ompdag_condag_node_creates(g, v);
        const int32_t *s = ompdag_condag_node_fsucc(g, v, &k);
        b->kind[base + v] = (char)ompdag_condag_node_kind(g, v);
        b->wcet[base + v] = ompdag_condag_node_wcet(g, v);
        b->child[base + v] = c >= 0 ? base + ompdag_condag_task_source(g, c) : -1;
        b->succ_off[base + v] = *edge_pos;
        for (int32_t i = 0; i < k; ++i)
            b->succ[(*edge_pos)++] = base + s[i];
    }
    const int32_t *topo = ompdag_condag_topo_order(g);
    for (int32_t i = n - 1; i >= 0; --i) { /* successors before predecessors */
        int32_t v = base + topo[i], h = -1;
        int32_t end = v + 1 < base + n ? b->succ_off[v + 1] : *edge_pos;
        for (int32_t e = b->succ_off[v]; e < end; ++e)
            h = height[b->succ[e]] > h ? height[b->succ[e]] : h;
        if (b->child[v] >= 0 && height[b->child[v]] > h) h = height[b->child[v]];
        height[v] = h + 1;
    }
}

/* Counting sort of the nodes by height. */
static bool bucket_levels(condag_batch *b, const int32_t *height)
{
    int32_t maxh = 0;
    for (int32_t v = 0; v < b->n; ++v)
        maxh = height[v] > maxh ? height[v] : maxh;
    b->nlevels = b->n ? maxh + 1 : 0;
    b->level_off = calloc((size_t)b->nlevels + 2, sizeof *b->level_off);
    b->level_nodes = malloc(sizeof *b->level_nodes * (size_t)(b->n ? b->n : 1));
    if (!b->level_off || !b->level_nodes) return false;
    for (int32_t v = 0; v < b->n; ++v)
        b->level_off[height[v] + 1]++;
    for (int32_t l = 0; l < b->nlevels; ++l)
        b->level_off[l + 1] += b->level_off[l];
    int32_t *fill = malloc(sizeof *fill * (size_t)(b->nlevels ? b->nlevels : 1));
    if (!fill) return false;
    memcpy(fill, b->level_off, sizeof *fill * (size_t)b->nlevels);
    for (int32_t v = 0; v < b->n; ++v)
        b->level_nodes[fill[height[v]]++] = v;
    free(fill);
    return true;
}

static ompdag_status build_batch(const ompdag_condag *const *graphs, size_t count, int32_t m,
                                 condag_batch *b, ompdag_error *err)
{
    int64_t nodes, edges;
    ompdag_status st = check_sizes(graphs, count, m, &nodes, &edges, err);
    if (st) return st;
    memset(b, 0, sizeof *b);
    b->n = (int32_t)nodes, b->ngraphs = (int32_t)count;
    size_t n = (size_t)(nodes ? nodes : 1);
    b->kind = malloc(n);
    b->wcet = malloc(sizeof *b->wcet * n);
    b->succ_off = malloc(sizeof *b->succ_off * (n + 1));
    b->succ = malloc(sizeof *b->succ * (size_t)(edges ? edges : 1));
    b->child = malloc(sizeof *b->child * n);
    b->root = malloc(sizeof *b->root * (count ? count : 1));
    int32_t *height = malloc(sizeof *height * n);
    bool ok = b->kind && b->wcet && b->succ_off && b->succ && b->child && b->root && height;
    int32_t base = 0, edge_pos = 0;
    for (size_t i = 0; ok && i < count; ++i) {
        flatten_graph(b, graphs[i], base, &edge_pos, height);
        b->root[i] =
            base + ompdag_condag_task_source(graphs[i], ompdag_condag_root_task(graphs[i]));
        base += ompdag_condag_node_count(graphs[i]);
    }
    if (ok) b->succ_off[b->n] = edge_pos;
    ok = ok && bucket_levels(b, height);
    free(height);
    if (!ok) {
        condag_batch_free(b);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    return OMPDAG_OK;
}

void condag_eval_sim(const condag_batch *b, int32_t m, ompdag_exact_row *rows)
{
    for (int32_t l = 0; l < b->nlevels; ++l) {
        const int32_t *nodes = b->level_nodes + b->level_off[l];
        int32_t count = b->level_off[l + 1] - b->level_off[l];
        int32_t blocks = (count + CONDAG_BLOCK - 1) / CONDAG_BLOCK;
        for (int32_t blk = 0; blk < blocks; ++blk)
            for (int32_t t = 0; t < CONDAG_BLOCK; ++t)
                condag_level_thread(b, nodes, count, blk * CONDAG_BLOCK + t, m, rows);
    }
}

static ompdag_status exact_on_cpu(const ompdag_condag *const *graphs, size_t count, int32_t m,
                                  int64_t *out, ompdag_error *err)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    opt.bound_only = true;
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

ompdag_status ompdag_exact_batch(const ompdag_condag *const *graphs, size_t count, int32_t m,
                                 ompdag_eval_device device, int64_t *bound_times_m,
                                 ompdag_error *err)
{
    if (m < 1) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "thread count m must be >= 1");
    for (size_t i = 0; i < count; ++i) { /* the batch kernel is Alg1, blind to D-edges (§6) */
        ompdag_status st =
            ompdag_condag_refuse_depend(graphs[i], "the batch evaluator (--device)", err);
        if (st) return st;
    }
    if (device == OMPDAG_EVAL_CPU) return exact_on_cpu(graphs, count, m, bound_times_m, err);
    if (device == OMPDAG_EVAL_CPU_PAR)
        return exact_on_cpu_par(graphs, count, m, bound_times_m, err);
    condag_batch b;
    ompdag_status st = build_batch(graphs, count, m, &b, err);
    if (st) return st;
    ompdag_exact_row *rows = malloc(sizeof *rows * (size_t)(b.n ? b.n : 1));
    if (!rows)
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    else if (device == OMPDAG_EVAL_GPU)
        st = condag_eval_gpu(&b, m, rows, err);
    else
        condag_eval_sim(&b, m, rows);
    for (size_t i = 0; !st && i < count; ++i)
        bound_times_m[i] = rows[b.root[i]].q[OMPDAG_QA];
    free(rows);
    condag_batch_free(&b);
    return st;
}
