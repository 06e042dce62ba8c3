/*
 * bfs_gpu_sim.c — gpu-sim: runs Enterprise's kernel logic (seed 003 §4,
 * enterprise_kernels.h, the very functions bfs_gpu.cu launches) on the host,
 * kernel by kernel, block by block, thread by thread; warp votes
 * (__ballot_sync) and CTA votes (__syncthreads_or) are formed lane by lane.
 * It also simulates §4.4 multi-GPU Enterprise: 1-D partitioning (device d
 * owns an equal slice [lo, hi) of the vertices and expands only its own
 * frontier), then per level every device packs "found at this level" into a
 * bitmap, the bitmaps are OR-ed (the exchange) and merged into each private
 * status array.  Parents stay on the device that found the vertex and are
 * gathered once at the end.  The level loop itself is ent_driver.c, the
 * one the gpu engine runs: this file is its host back end, and the driver's
 * counts of launches and synchronisations are the GPU design's.
 *
 * Names follow the seed: τ (hub threshold), γ = Fh / Th, HC (hub cache),
 * Small/Middle/Large/Extreme queues.  Timings of gpu-sim measure the host,
 * not a GPU.
 */
#include <stdlib.h>
#include <string.h>

#include "bfs_internal.h"
#include "ent_driver.h"
#include "ent_loop.h"
#include "enterprise_kernels.h"
#include "ompdag/internal/clock.h"

typedef struct sim_dev {
    int64_t lo, hi;  /* owned vertices */
    int32_t *status; /* private status array, n entries */
    int64_t *parent; /* parents this device found, n entries */
    int64_t *q, *qn; /* queue (4 class segments) and the next one */
    int64_t qlen[ENT_CLASSES];
    int64_t *bins;           /* per-thread bins; also the sparse edge slots */
    int64_t *binlen;         /* bin length per thread */
    int64_t *counts;         /* counts[c * T + t], then their exclusive scan */
    int64_t *epos;           /* sparse: first edge slot of each queue entry */
    int64_t hc[ENT_HC_SIZE]; /* the hub cache of this device */
} sim_dev;

typedef struct sim {
    const ompdag_graph *g0;
    ent_graph g;
    int devices;
    int64_t n, tau;
    bool symmetric; /* bottom-up needs in-edges: only undirected graphs go there */
    sim_dev dev[8];
    uint32_t *bitmap; /* the exchanged bitmap, one bit per vertex */
    int64_t words;
    int64_t probes, hits;
} sim;

static int64_t qtotal(const sim_dev *d)
{
    return d->qlen[0] + d->qlen[1] + d->qlen[2] + d->qlen[3];
}

static void dev_free(sim_dev *d)
{
    free(d->status);
    free(d->parent);
    free(d->q);
    free(d->qn);
    free(d->bins);
    free(d->binlen);
    free(d->counts);
    free(d->epos);
}

static bool dev_alloc(sim_dev *d, int64_t n)
{
    int64_t tmax = ent_gen_threads(INT64_MAX / 4);
    d->status = malloc((size_t)n * sizeof *d->status);
    d->parent = malloc((size_t)n * sizeof *d->parent);
    d->q = malloc((size_t)(n + 1) * sizeof *d->q);
    d->qn = malloc((size_t)(n + 1) * sizeof *d->qn);
    d->bins = malloc((size_t)(n + tmax + 1) * sizeof *d->bins);
    d->binlen = malloc((size_t)tmax * sizeof *d->binlen);
    d->counts = malloc((size_t)(ENT_CLASSES * tmax + 1) * sizeof *d->counts);
    d->epos = malloc((size_t)(n + 2) * sizeof *d->epos);
    return d->status && d->parent && d->q && d->qn && d->bins && d->binlen && d->counts && d->epos;
}

/* ---- queue generation: scan -> prefix sum -> scatter (§4.1) ---- */

#define GEN_INTERLEAVED ENT_GEN_INTERLEAVED
#define GEN_CONTIGUOUS ENT_GEN_CONTIGUOUS
#define GEN_SHRINK ENT_GEN_SHRINK
#define GEN_SPARSE ENT_GEN_SPARSE

/* Runs one generation workflow on device d and makes its result the queue.
 * Adds the found and hub counts to *found and *hubs; fill_hc (the driver's
 * decision) refills the hub cache with the hubs found. */
static void sim_generate(sim *s, sim_dev *d, ent_gen_kind kind, int32_t level, int64_t slen,
                         int fill_hc, int64_t *found, int64_t *hubs)
{
    const ent_graph g = s->g;
    int64_t work = kind == GEN_SHRINK ? qtotal(d) : kind == GEN_SPARSE ? slen : d->hi - d->lo;
    const int64_t T = ent_gen_threads(work);
    const int64_t chunk = (work + T - 1) / T;
    int64_t *hc = fill_hc ? d->hc : NULL;
    if (hc)
        for (int i = 0; i < ENT_HC_SIZE; ++i)
            hc[i] = -1;
    /* Kernel 1: every thread scans its share into its own bin. */
    for (int64_t t = 0; t < T; ++t) {
        ent_counts k;
        int64_t *bin = d->bins + t * chunk;
        int64_t len = 0;
        switch (kind) {
        case GEN_INTERLEAVED:
            len = ent_gen_interleaved(g, d->status, d->lo, d->hi, t, T, level, s->tau, bin, &k);
            break;
        case GEN_CONTIGUOUS:
            len = ent_gen_contiguous(g, d->status, d->lo, d->hi, t, chunk, level, s->tau, bin, hc,
                                     &k);
            break;
        case GEN_SHRINK:
            len = ent_gen_shrink(g, d->status, d->q, work, t, chunk, s->tau, bin, hc, &k);
            break;
        default: /* GEN_SPARSE */
            len = ent_gen_sparse(g, d->bins, slen, t, chunk, s->tau, &k);
            break;
        }
        d->binlen[t] = len;
        for (int c = 0; c < ENT_CLASSES; ++c)
            d->counts[c * T + t] = k.c[c];
        *found += k.found;
        *hubs += k.hubs;
    }
    /* Kernel 2: exclusive prefix sum over counts[c * T + t]. */
    int64_t sum = 0;
    for (int64_t i = 0; i < ENT_CLASSES * T; ++i) {
        int64_t x = d->counts[i];
        d->counts[i] = sum;
        sum += x;
    }
    /* Kernel 3: every thread copies its bin to its offsets. */
    for (int64_t t = 0; t < T; ++t)
        ent_scatter(g, d->bins + t * chunk, d->binlen[t], d->counts, t, T, d->qn);
    for (int c = 0; c < ENT_CLASSES; ++c) {
        int64_t end = c + 1 < ENT_CLASSES ? d->counts[(c + 1) * T] : sum;
        d->qlen[c] = end - d->counts[c * T];
    }
    int64_t *tmp = d->q;
    d->q = d->qn;
    d->qn = tmp;
}

/* ---- expansion kernels (§4.2): thread / warp / CTA / grid per class ---- */

static void sim_top_down(sim *s, sim_dev *d, int32_t level, bool sparse)
{
    const ent_graph g = s->g;
    int64_t *slots = sparse ? d->bins : NULL;
    int64_t i = 0;
    static const int64_t width[ENT_CLASSES] = {1, ENT_WARP, ENT_CTA, ENT_CTA * ENT_GRID_BLOCKS};
    for (int c = 0; c < ENT_CLASSES; ++c)
        for (int64_t end = i + d->qlen[c]; i < end; ++i) {
            int64_t u = d->q[i], base = sparse ? d->epos[i] : 0;
            for (int64_t lane = 0; lane < width[c]; ++lane) /* the lanes of its thread group */
                ent_td_expand(g, u, lane, width[c], level, d->status, d->parent, slots, base);
        }
}

/* A group of `width` lanes checks edges of v round by round; the vote picks
 * the lowest lane that found a parent (warp: __ballot_sync + __ffs; CTA:
 * __syncthreads_or + a shared minimum; grid: every lane writes). */
static void sim_bu_group(sim *s, sim_dev *d, int64_t v, int32_t level, int64_t width,
                         const int64_t *hc)
{
    const ent_graph g = s->g;
    for (int64_t base = g.off[v]; base < g.off[v + 1]; base += width) {
        int64_t winner = -1;
        for (int64_t lane = 0; lane < width; ++lane) {
            int64_t e = base + lane, u;
            if (e >= g.off[v + 1]) break;
            int r = ent_bu_probe(g, e, level - 1, d->status, hc, &u);
            ++s->probes;
            if (r) {
                s->hits += r == 2;
                if (winner < 0) winner = u;
            }
        }
        if (winner >= 0) {
            ent_bu_commit(v, winner, level, d->status, d->parent);
            return;
        }
    }
}

static void sim_bottom_up(sim *s, sim_dev *d, int32_t level, int use_hc)
{
    const int64_t *hc = use_hc ? d->hc : NULL;
    int64_t i = 0;
    static const int64_t width[ENT_CLASSES] = {1, ENT_WARP, ENT_CTA, ENT_CTA * ENT_GRID_BLOCKS};
    for (int c = 0; c < ENT_CLASSES; ++c)
        for (int64_t end = i + d->qlen[c]; i < end; ++i) {
            int64_t v = d->q[i];
            if (c == 0)
                s->probes += ent_bu_thread(s->g, v, level, d->status, d->parent, hc, &s->hits);
            else
                sim_bu_group(s, d, v, level, width[c], hc);
        }
}

/* §4.4: pack (ballot), OR across devices, merge into every status array. */
static void sim_exchange(sim *s, int32_t level)
{
    if (s->devices == 1) return;
    for (int64_t w = 0; w < s->words; ++w) {
        uint32_t word = 0;
        for (int k = 0; k < s->devices; ++k)
            for (int lane = 0; lane < 32; ++lane)
                word |= (uint32_t)ent_bitmap_lane(s->dev[k].status, w * 32 + lane, s->n, level)
                        << lane;
        s->bitmap[w] = word;
    }
    for (int k = 0; k < s->devices; ++k)
        for (int64_t w = 0; w < s->words; ++w)
            ent_bitmap_merge(s->dev[k].status, s->bitmap[w], w * 32, s->n, level);
}

/* ---- the back end of ent_driver.h: the operations, on the host ---- */

static int simop_init(void *self, int k, int64_t source)
{
    sim *s = self;
    sim_dev *d = &s->dev[k];
    for (int64_t v = 0; v < s->n; ++v) {
        d->status[v] = ENT_UNVISITED;
        d->parent[v] = -1;
    }
    d->status[source] = 0;
    for (int c = 0; c < ENT_CLASSES; ++c)
        d->qlen[c] = 0;
    if (source >= d->lo && source < d->hi) {
        d->parent[source] = source;
        d->q[0] = source; /* a one-vertex queue: its only class segment starts at 0 */
        d->qlen[ent_class(ent_degree(s->g, source))] = 1;
    }
    return 0;
}

static void simop_queue_lengths(void *self, int k, int64_t q[ENT_CLASSES])
{
    const sim *s = self;
    for (int c = 0; c < ENT_CLASSES; ++c)
        q[c] = s->dev[k].qlen[c];
}

/* Σ out-degree of the queue, and the sparse slot offsets. */
static int simop_frontier_edges(void *self, int k, int64_t *m_f)
{
    sim *s = self;
    sim_dev *d = &s->dev[k];
    int64_t sum = 0, len = qtotal(d);
    for (int64_t i = 0; i < len; ++i) {
        d->epos[i] = sum;
        sum += ent_degree(s->g, d->q[i]);
    }
    *m_f = sum;
    return 0;
}

static int simop_expand(void *self, int k, int bottom_up, int32_t level, int sparse, int use_hc)
{
    sim *s = self;
    if (bottom_up)
        sim_bottom_up(s, &s->dev[k], level, use_hc);
    else
        sim_top_down(s, &s->dev[k], level, sparse);
    return 0;
}

static int simop_exchange(void *self, int32_t level)
{
    sim_exchange(self, level);
    return 0;
}

static int simop_generate(void *self, int k, ent_gen_kind kind, int32_t level, int64_t slen,
                          int fill_hc, int64_t *found, int64_t *hubs)
{
    sim *s = self;
    sim_generate(s, &s->dev[k], kind, level, slen, fill_hc, found, hubs);
    return 0;
}

/* Gather: levels agree everywhere; a parent lives where it was found. */
static int simop_gather(void *self, ompdag_bfs_result *r)
{
    const sim *s = self;
    for (int64_t v = 0; v < s->n; ++v) {
        r->levels[v] = s->dev[0].status[v];
        for (int k = 0; k < s->devices; ++k)
            if (s->dev[k].parent[v] >= 0) {
                r->parents[v] = s->dev[k].parent[v];
                break;
            }
    }
    return 0;
}

static void simop_hc_stats(void *self, int64_t *probes, int64_t *hits)
{
    const sim *s = self;
    *probes = s->probes;
    *hits = s->hits;
}

static const char *simop_error(void *self)
{
    (void)self;
    return "gpu-sim cannot fail here";
}

static const ent_backend_ops sim_ops = {
    simop_init,     simop_queue_lengths, simop_frontier_edges, simop_expand, simop_exchange,
    simop_generate, simop_gather,        simop_hc_stats,       simop_error,
};

ompdag_status bfs_engine_gpu_sim(const ompdag_graph *g, int64_t source,
                                 const ompdag_bfs_options *opts, ompdag_bfs_result *r,
                                 ompdag_error *err)
{
    sim s;
    memset(&s, 0, sizeof s);
    s.g0 = g;
    s.g = (ent_graph){g->n, g->offsets, g->adj32, g->adj64};
    s.n = g->n;
    s.tau = opts->tau;
    s.symmetric = g->symmetric;
    s.devices = opts->devices;
    s.words = (g->n + 31) / 32;
    bool ok = (s.bitmap = malloc((size_t)(s.words + 1) * sizeof *s.bitmap)) != NULL;
    for (int k = 0; k < s.devices; ++k) {
        s.dev[k].lo = g->n * k / s.devices;
        s.dev[k].hi = g->n * (k + 1) / s.devices;
        ok = ok && dev_alloc(&s.dev[k], g->n);
    }
    ompdag_status st;
    if (!ok) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM,
                              "gpu-sim: out of memory for %d simulated devices", s.devices);
    } else {
        int64_t Th = 0;
        for (int64_t v = 0; v < g->n; ++v)
            Th += ent_degree(s.g, v) > s.tau;
        const ent_backend be = {&sim_ops, &s, "gpu-sim", s.devices, s.n, Th, s.symmetric};
        double t0 = ompdag_now_s();
        st = ent_drive(&be, source, opts, r, err);
        r->seconds = ompdag_now_s() - t0;
    }
    for (int k = 0; k < s.devices; ++k)
        dev_free(&s.dev[k]);
    free(s.bitmap);
    return st;
}

/* ---- the device-driven loop (ent_loop.h) run on the host ----
 * The phase and decision functions are the ones the cooperative kernel of
 * bfs_gpu_loop.cu runs; here one host thread runs every simulated thread's
 * share in turn (gid 0 of a grid of 1 for the grid-stride phases; item by
 * item and lane by lane for the grouped top-down expansion and the votes of
 * the warp / CTA / grid bottom-up passes).  Counted as the design costs:
 * device loop, 1 launch + 1 host sync per search and a grid barrier per
 * phase; host loop, 1 launch + 1 host sync per phase. */

#define SIM_GRID_THREADS ((int64_t)ENT_GRID_BLOCKS * ENT_CTA)

/* A group of `width` lanes votes on v round by round: the lowest lane that
 * found a parent commits (warp: __ballot_sync + __ffs; CTA:
 * __syncthreads_or + a shared minimum; grid: a compare-and-swap). */
static void sim_loop_bu_group(const ent_loop_args *a, int64_t v, int32_t level, int64_t width,
                              const unsigned long long *hc, ent_local *l, int64_t *probes,
                              int64_t *hits)
{
    if (a->status[v] != ENT_UNVISITED) return;
    const int64_t b = a->g.off[v], e = a->g.off[v + 1];
    for (int64_t base = b; base < e; base += width) {
        int64_t winner = -1;
        for (int64_t lane = 0; lane < width && base + lane < e; ++lane) {
            const int64_t u = ent_nbr(a->g, base + lane);
            ++*probes;
            if (ent_loop_probe(a, u, level, hc, hits) && winner < 0) winner = u;
        }
        if (winner >= 0) {
            ent_loop_commit(a, v, winner, level, l);
            return;
        }
    }
}

static void sim_loop_td(const ent_loop_args *a, int32_t level, ent_local *l)
{
    static const int64_t width[ENT_CLASSES] = {1, ENT_WARP, ENT_CTA, SIM_GRID_THREADS};
    ent_clear_next(a, level, 0);
    const ent_lvl *prev = &a->ctl->cnt[(level - 1) % 4];
    for (int c = 0; c < ENT_CLASSES; ++c) {
        const int64_t *q = ENT_QUEUE(a, (level - 1) & 1, c);
        for (int64_t i = 0; i < (int64_t)prev->qlen[c]; ++i) {
            const int64_t deg = ent_degree(a->g, q[i]);
            for (int64_t lane = 0; lane < width[c] && lane < deg; ++lane)
                ent_loop_expand(a, q[i], lane, width[c], level, l);
        }
    }
}

static void sim_loop_bu(const ent_loop_args *a, int32_t level, ent_local *l, int64_t *probes,
                        int64_t *hits)
{
    const unsigned long long *hc = a->hc ? a->hc + ((level - 1) & 1) * ENT_HC_SIZE : NULL;
    *probes += ent_ph_bu_thread(a, level, 0, 1, hc, l, hits);
    static const int64_t width[3] = {ENT_WARP, ENT_CTA, SIM_GRID_THREADS};
    int64_t at = 0;
    for (int k = 0; k < 3; ++k)
        for (int64_t end = at + a->nbig[k]; at < end; ++at)
            sim_loop_bu_group(a, a->big[at], level, width[k], hc, l, probes, hits);
}

typedef struct sim_loop_bufs {
    int64_t *qbuf, *big;
    uint32_t *bmbuf;
    unsigned long long hc[2 * ENT_HC_SIZE];
    ent_ctl ctl;
    ent_rec *rec;
    int32_t rec_cap;
} sim_loop_bufs;

static ompdag_status sim_loop_alloc(sim_loop_bufs *b, const ompdag_graph *g, ompdag_error *err)
{
    const int64_t n = g->n, words = (n + 31) / 32;
    b->qbuf = malloc((size_t)(2 * ENT_CLASSES * n + 1) * sizeof *b->qbuf);
    b->bmbuf = malloc((size_t)(3 * words + 1) * sizeof *b->bmbuf);
    b->big = malloc((size_t)(n + 1) * sizeof *b->big);
    b->rec_cap = 64;
    b->rec = malloc((size_t)b->rec_cap * sizeof *b->rec);
    if (!b->qbuf || !b->bmbuf || !b->big || !b->rec)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM,
                                "gpu-sim: out of memory for a graph of %lld vertices",
                                (long long)n);
    return OMPDAG_OK;
}

static void sim_loop_free(sim_loop_bufs *b)
{
    free(b->qbuf);
    free(b->bmbuf);
    free(b->big);
    free(b->rec);
}

static void sim_loop_args(ent_loop_args *a, sim_loop_bufs *b, const ompdag_graph *g, int64_t source,
                          const ompdag_bfs_options *o, ompdag_bfs_result *r)
{
    memset(a, 0, sizeof *a);
    a->g = (ent_graph){g->n, g->offsets, g->adj32, g->adj64};
    a->source = source;
    a->tau = o->tau;
    for (int64_t v = 0; v < g->n; ++v)
        a->Th += csr_degree(g, v) > o->tau;
    a->arcs = g->m;
    a->status = r->levels;
    a->parent = r->parents;
    a->qbuf = b->qbuf;
    a->words = (g->n + 31) / 32;
    a->bmbuf = o->bitmap ? b->bmbuf : NULL;
    a->hc = o->hub_cache && g->n <= (int64_t)UINT32_MAX ? b->hc : NULL;
    int64_t at = 0;
    if (o->balance)
        for (int k = 0; k < 3; ++k) { /* the static lists: Middle, Large, Extreme */
            const int64_t start = at;
            for (int64_t v = 0; v < g->n; ++v)
                if (ent_class(csr_degree(g, v)) == k + 1) b->big[at++] = v;
            a->nbig[k] = at - start;
        }
    a->big = b->big;
    a->ctl = &b->ctl;
    a->rule = o->direction == OMPDAG_BFS_SWITCH_ALPHA  ? ENT_RULE_ALPHA
              : o->direction == OMPDAG_BFS_SWITCH_NONE ? ENT_RULE_NONE
                                                       : ENT_RULE_GAMMA;
    a->gamma = o->gamma;
    a->alpha = o->alpha;
    a->beta = o->beta;
    a->balance = o->balance;
    a->symmetric = g->symmetric;
}

ompdag_status bfs_engine_gpu_sim_loop(const ompdag_graph *g, int64_t source,
                                      const ompdag_bfs_options *opts, ompdag_bfs_result *r,
                                      ompdag_error *err)
{
    sim_loop_bufs b;
    memset(&b, 0, sizeof b);
    ompdag_status st = sim_loop_alloc(&b, g, err);
    if (st != OMPDAG_OK) {
        sim_loop_free(&b);
        return st;
    }
    ent_loop_args a;
    sim_loop_args(&a, &b, g, source, opts, r);
    const bool host_loop = opts->loop == OMPDAG_BFS_LOOP_HOST;
    bfs_counts k = {0, 0, 0};
    ent_loop_state s;
    memset(&s, 0, sizeof s);
    s.phase = ENT_PH_INIT;
    int64_t probes = 0, hits = 0, lv_probes = 0, lv_hits = 0;
    int32_t overflow = 0;
    if (!host_loop) { /* the one cooperative launch */
        k.launches++;
    }
    const double t0 = ompdag_now_s();
    while (s.phase != ENT_PH_DONE) {
        ent_local l = {0, 0, 0};
        const int32_t L = s.level;
        switch (s.phase) {
        case ENT_PH_INIT:
            ent_ph_init(&a, 0, 1);
            break;
        case ENT_PH_TD:
            sim_loop_td(&a, L, &l);
            break;
        case ENT_PH_BU:
            sim_loop_bu(&a, L, &l, &probes, &hits);
            break;
        case ENT_PH_CONVERT:
            ent_ph_convert(&a, L, 0, 1);
            break;
        default:
            break;
        }
        if (s.phase == ENT_PH_TD || s.phase == ENT_PH_BU) ent_flush(&b.ctl.cnt[L % 4], &l);
        if (host_loop) {
            k.launches++;
            k.host_syncs++;
        } else {
            k.barriers++;
        }
        const int phase = s.phase;
        if ((phase == ENT_PH_TD || phase == ENT_PH_BU) && L >= b.rec_cap) {
            int32_t cap = b.rec_cap * 2;
            while (cap <= L)
                cap *= 2;
            ent_rec *nr = realloc(b.rec, (size_t)cap * sizeof *nr);
            if (!nr) {
                sim_loop_free(&b);
                return ompdag_error_set(err, OMPDAG_ERR_NOMEM,
                                        "gpu-sim: out of memory for level records");
            }
            b.rec = nr;
            b.rec_cap = cap;
        }
        ent_loop_decide(&a, b.ctl.cnt, &s, b.rec, b.rec_cap, &overflow);
        if ((phase == ENT_PH_TD || phase == ENT_PH_BU) && s.phase != ENT_PH_DONE) {
            /* the record of level L is complete: add what only the host can count */
            ompdag_bfs_level *rec = bfs_result_level_at(r, L);
            if (!rec) {
                sim_loop_free(&b);
                return ompdag_error_set(err, OMPDAG_ERR_NOMEM,
                                        "gpu-sim: out of memory for level records");
            }
            bfs_level_from_rec(rec, &b.rec[L], a.Th, host_loop);
            rec->hc_probes = probes - lv_probes;
            rec->hc_hits = hits - lv_hits;
            if (rec->direction == OMPDAG_BFS_BOTTOM_UP) rec->edges = probes - lv_probes;
        }
        if (phase == ENT_PH_TD || phase == ENT_PH_BU) {
            lv_probes = probes;
            lv_hits = hits;
        }
    }
    if (!host_loop) k.host_syncs++; /* the host waits once, for the whole search */
    r->seconds = ompdag_now_s() - t0;
    r->counts = k;
    sim_loop_free(&b);
    return OMPDAG_OK;
}
