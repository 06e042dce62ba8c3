/*
 * ent_driver.c — the Enterprise level driver (ent_driver.h): Liu & Huang,
 * "Enterprise: Breadth-First Graph Traversal on GPUs", SC'15 (seed
 * 003_3a3244e76776a6bb.txt §4.1-§4.4).  Names follow the seed: τ, Th, Fh,
 * γ = Fh / Th, the hub cache HC, the Small/Middle/Large/Extreme queues.
 */
#include "ent_driver.h"

#include "enterprise_kernels.h"

/* ---- the gpu back end's design, operation by operation (bfs_gpu.cu) ---- */

/* k_init: statuses, parents and the source in one kernel; no wait. */
ent_cost ent_cost_init(void)
{
    return (ent_cost){1, 0};
}

/* k_degrees + one CUB scan; the host reads Σ (one copy back). */
ent_cost ent_cost_frontier_edges(void)
{
    return (ent_cost){2, 1};
}

/* One kernel per non-empty class queue on its stream, then one wait. */
ent_cost ent_cost_expand(const int64_t q[ENT_CLASSES])
{
    ent_cost c = {0, 1};
    for (int k = 0; k < ENT_CLASSES; ++k)
        c.launches += q[k] > 0;
    return c;
}

/* Per device: pack (ballot) and copy out; OR on the host; per device: copy
 * in and merge; then wait on every device. */
ent_cost ent_cost_exchange(int devices)
{
    if (devices == 1) return (ent_cost){0, 0};
    return (ent_cost){2 * (int64_t)devices, 3 * (int64_t)devices};
}

/* [hub-cache clear] + scan into bins + CUB scan + scatter + a bounds kernel
 * that packs the class bounds and counters, read back with one copy. */
ent_cost ent_cost_generate(int fill_hc)
{
    return (ent_cost){4 + (fill_hc != 0), 1};
}

/* Levels and parents of device 0, parents of every other device. */
ent_cost ent_cost_gather(int devices)
{
    return (ent_cost){0, 1 + (int64_t)devices};
}

/* ---- the driver ---- */

typedef struct drive_state {
    const ent_backend *be;
    bfs_counts *k;
    ompdag_bfs_level *lv; /* the current level's record, NULL before it exists */
    int64_t lv_launches, lv_syncs;
} drive_state;

static void charge(drive_state *s, ent_cost c)
{
    s->k->launches += c.launches;
    s->k->host_syncs += c.syncs;
    s->lv_launches += c.launches;
    s->lv_syncs += c.syncs;
}

static ompdag_status failed(const ent_backend *be, ompdag_error *err)
{
    return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED, "%s: %s", be->name,
                            be->ops->error(be->self));
}

/* The queue of every device, summed by class. */
static void queues(const ent_backend *be, int64_t total[ENT_CLASSES])
{
    for (int c = 0; c < ENT_CLASSES; ++c)
        total[c] = 0;
    for (int d = 0; d < be->devices; ++d) {
        int64_t q[ENT_CLASSES];
        be->ops->queue_lengths(be->self, d, q);
        for (int c = 0; c < ENT_CLASSES; ++c)
            total[c] += q[c];
    }
}

/* generate(kind) on every device, charged. */
static int generate_all(drive_state *s, ent_gen_kind kind, int32_t level, int64_t slen, int use_hc,
                        int64_t *found, int64_t *hubs)
{
    const ent_backend *be = s->be;
    const int fill_hc = use_hc && (kind == ENT_GEN_CONTIGUOUS || kind == ENT_GEN_SHRINK);
    for (int d = 0; d < be->devices; ++d) {
        if (be->ops->generate(be->self, d, kind, level, slen, fill_hc, found, hubs)) return 1;
        charge(s, ent_cost_generate(fill_hc));
    }
    return 0;
}

/* TD(level): frontier edges, the sparse choice, expansion, exchange and the
 * next queue; at γ > gamma the queue is regenerated contiguous (the hub
 * cache filled) and the next level runs bottom-up. */
static int level_top_down(drive_state *s, int32_t level, const ompdag_bfs_options *o,
                          int64_t *found, int64_t *hubs, int64_t *edges, int *workflow, int *dir)
{
    const ent_backend *be = s->be;
    int64_t m_f = 0;
    for (int d = 0; d < be->devices; ++d) {
        int64_t part = 0;
        if (be->ops->frontier_edges(be->self, d, &part)) return 1;
        charge(s, ent_cost_frontier_edges());
        m_f += part;
    }
    const int sparse = ent_use_sparse(m_f, be->n, be->devices);
    *edges = m_f;
    for (int d = 0; d < be->devices; ++d) {
        int64_t q[ENT_CLASSES];
        be->ops->queue_lengths(be->self, d, q);
        if (be->ops->expand(be->self, d, 0, level, sparse, 0)) return 1;
        charge(s, ent_cost_expand(q));
    }
    if (be->ops->exchange(be->self, level)) return 1;
    charge(s, ent_cost_exchange(be->devices));
    if (generate_all(s, sparse ? ENT_GEN_SPARSE : ENT_GEN_INTERLEAVED, level, m_f, o->hub_cache,
                     found, hubs))
        return 1;
    *workflow = sparse ? OMPDAG_BFS_WORKFLOW_SPARSE : OMPDAG_BFS_WORKFLOW_INTERLEAVED;
    if (*found > 0 && be->symmetric && ent_switch_to_bottom_up(*hubs, be->Th, o->gamma)) {
        int64_t f2 = 0, h2 = 0;
        if (generate_all(s, ENT_GEN_CONTIGUOUS, level, 0, o->hub_cache, &f2, &h2)) return 1;
        *dir = OMPDAG_BFS_BOTTOM_UP;
        *workflow = OMPDAG_BFS_WORKFLOW_CONTIGUOUS;
    }
    return 0;
}

/* BU(level): parents searched for the queue (hub cache read), exchange,
 * the shrinking queue; when the frontier shrinks below n / β the queue is
 * regenerated interleaved and the next level runs top-down. */
static int level_bottom_up(drive_state *s, int32_t level, const ompdag_bfs_options *o,
                           int64_t prev_found, int64_t *found, int64_t *hubs, int *workflow,
                           int *dir)
{
    const ent_backend *be = s->be;
    for (int d = 0; d < be->devices; ++d) {
        int64_t q[ENT_CLASSES];
        be->ops->queue_lengths(be->self, d, q);
        if (be->ops->expand(be->self, d, 1, level, 0, o->hub_cache)) return 1;
        charge(s, ent_cost_expand(q));
    }
    if (be->ops->exchange(be->self, level)) return 1;
    charge(s, ent_cost_exchange(be->devices));
    if (generate_all(s, ENT_GEN_SHRINK, level, 0, o->hub_cache, found, hubs)) return 1;
    *workflow = OMPDAG_BFS_WORKFLOW_SHRINK;
    if (*found > 0 && ent_switch_to_top_down(*found, prev_found, be->n, o->beta)) {
        int64_t f2 = 0, h2 = 0;
        if (generate_all(s, ENT_GEN_INTERLEAVED, level, 0, o->hub_cache, &f2, &h2)) return 1;
        *dir = OMPDAG_BFS_TOP_DOWN;
        *workflow = OMPDAG_BFS_WORKFLOW_INTERLEAVED;
    }
    return 0;
}

ompdag_status ent_drive(const ent_backend *be, int64_t source, const ompdag_bfs_options *opts,
                        ompdag_bfs_result *r, ompdag_error *err)
{
    bfs_counts k = {0, 0, 0};
    drive_state s = {be, &k, NULL, 0, 0};
    for (int d = 0; d < be->devices; ++d) {
        if (be->ops->init(be->self, d, source)) return failed(be, err);
        charge(&s, ent_cost_init());
    }
    int dir = OMPDAG_BFS_TOP_DOWN;
    int64_t prev_found = 1;
    for (int32_t level = 1;; ++level) {
        int64_t found = 0, hubs = 0, edges = 0, queue[ENT_CLASSES];
        int64_t probes0 = 0, hits0 = 0, probes1 = 0, hits1 = 0;
        int workflow = OMPDAG_BFS_WORKFLOW_INTERLEAVED;
        const int found_by = dir;
        queues(be, queue);
        s.lv_launches = s.lv_syncs = 0;
        if (be->ops->hc_stats) be->ops->hc_stats(be->self, &probes0, &hits0);
        int bad =
            dir == OMPDAG_BFS_TOP_DOWN
                ? level_top_down(&s, level, opts, &found, &hubs, &edges, &workflow, &dir)
                : level_bottom_up(&s, level, opts, prev_found, &found, &hubs, &workflow, &dir);
        if (bad) return failed(be, err);
        if (found == 0) break;
        if (be->ops->hc_stats) be->ops->hc_stats(be->self, &probes1, &hits1);
        ompdag_bfs_level *rec = bfs_result_level_at(r, level);
        if (!rec) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "%s: out of memory", be->name);
        rec->direction = (ompdag_bfs_direction)found_by;
        rec->visited = found;
        for (int c = 0; c < ENT_CLASSES; ++c)
            rec->queue[c] = queue[c];
        rec->hubs = hubs;
        rec->gamma = be->Th > 0 ? (double)hubs / (double)be->Th : 0.0;
        rec->edges = found_by == OMPDAG_BFS_TOP_DOWN ? edges : probes1 - probes0;
        rec->hc_probes = probes1 - probes0;
        rec->hc_hits = hits1 - hits0;
        rec->workflow = workflow;
        rec->launches = s.lv_launches;
        rec->host_syncs = s.lv_syncs;
        prev_found = found;
    }
    if (be->ops->gather(be->self, r)) return failed(be, err);
    charge(&s, ent_cost_gather(be->devices));
    r->counts = k;
    return OMPDAG_OK;
}
