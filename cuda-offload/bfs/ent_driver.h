/*
 * ent_driver.h — THE level driver of the Enterprise loop (Liu & Huang,
 * SC'15; seed 003_3a3244e76776a6bb.txt §4), shared by the gpu engine
 * (bfs_gpu.cu) and gpu-sim (bfs_gpu_sim.c).  Every per-level decision is
 * made here, once: the direction (§4.3: γ = Fh / Th > gamma switches to
 * bottom-up, the frontier shrinking below n / β switches back), the queue
 * workflow (§4.1: interleaved, sparse for tiny frontiers, contiguous at the
 * switch, shrinking bottom-up), whether the hub cache is filled and read
 * (§4.3), and when the devices exchange their frontiers (§4.4).  A back end
 * only carries operations out on its devices.
 *
 * The driver also counts what each operation costs in the gpu back end's
 * design (kernel launches, host synchronisations; ent_cost_* below), so
 * gpu-sim's counts are those of the real GPU path.  The gpu back end counts
 * what it actually launched and waited for and refuses a search whose counts
 * differ from the design's (bfs_gpu.cu), so the two cannot drift apart
 * silently on a machine with a GPU.
 */
#ifndef OMPDAG_ENT_DRIVER_H
#define OMPDAG_ENT_DRIVER_H

#include "bfs_internal.h"
#include "enterprise_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ent_gen_kind {
    ENT_GEN_INTERLEAVED = 0, /* top-down: a scan of the owned vertices for the new level */
    ENT_GEN_CONTIGUOUS,      /* at the switch: the unvisited vertices, hub cache filled */
    ENT_GEN_SHRINK,          /* bottom-up: the previous queue minus the found vertices */
    ENT_GEN_SPARSE           /* sparse top-down: the edge slots claimed this level */
} ent_gen_kind;

/* Operations of one back end; each returns 0 on success, else non-zero
 * with the reason left for error().  d is a device index in [0, devices). */
typedef struct ent_backend_ops {
    /* Statuses and parents reset, the source at level 0 (queued where owned). */
    int (*init)(void *self, int d, int64_t source);
    /* Lengths of device d's current queue, by class (Small..Extreme). */
    void (*queue_lengths)(void *self, int d, int64_t q[ENT_CLASSES]);
    /* Σ out-degree of device d's queue into *m_f; also the edge-slot
     * offsets the sparse workflow needs. */
    int (*frontier_edges)(void *self, int d, int64_t *m_f);
    /* Expands (top-down) or searches parents for (bottom-up) device d's
     * queue at `level`: thread / warp / CTA / grid per class (§4.2). */
    int (*expand)(void *self, int d, int bottom_up, int32_t level, int sparse, int use_hc);
    /* §4.4: every device learns what every device found at `level`. */
    int (*exchange)(void *self, int32_t level);
    /* §4.1: device d's next queue by workflow `kind`; adds the vertices
     * found at `level` and the hubs among them. */
    int (*generate)(void *self, int d, ent_gen_kind kind, int32_t level, int64_t slen, int fill_hc,
                    int64_t *found, int64_t *hubs);
    /* Levels and parents into r (parents from the device that found them). */
    int (*gather)(void *self, ompdag_bfs_result *r);
    /* Hub-cache probes and hits so far; NULL when the back end does not
     * measure them (the gpu). */
    void (*hc_stats)(void *self, int64_t *probes, int64_t *hits);
    /* Why the last operation failed (borrowed). */
    const char *(*error)(void *self);
} ent_backend_ops;

typedef struct ent_backend {
    const ent_backend_ops *ops;
    void *self;
    const char *name; /* "gpu" or "gpu-sim", for messages */
    int devices;
    int64_t n;
    int64_t Th; /* hubs (out-degree > τ) of the graph */
    int symmetric;
} ent_backend;

/* The design's cost of each operation (bfs_gpu.cu implements exactly this). */
typedef struct ent_cost {
    int64_t launches, syncs;
} ent_cost;
ent_cost ent_cost_init(void);
ent_cost ent_cost_frontier_edges(void);
ent_cost ent_cost_expand(const int64_t q[ENT_CLASSES]);
ent_cost ent_cost_exchange(int devices);
ent_cost ent_cost_generate(int fill_hc);
ent_cost ent_cost_gather(int devices);

/* One search from source through back end be: fills r's level records
 * (with each level's launches and syncs) and r->counts. */
ompdag_status ent_drive(const ent_backend *be, int64_t source, const ompdag_bfs_options *opts,
                        ompdag_bfs_result *r, ompdag_error *err);

#ifdef __cplusplus
}
#endif
#endif
