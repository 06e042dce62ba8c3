/*
 * ompdag/bfs.h — breadth-first search engines over ompdag_graph, their
 * Graph500 validation and TEPS statistics.
 *
 * Engines (one API, ompdag_bfs_run):
 *   cpu-topdown  serial queue-based BFS; the reference every other engine is
 *                checked against and the named baseline of the benchmarks.
 *   cpu          direction-optimizing BFS with OpenMP (Beamer et al., SC'12;
 *                α = 15, β = 18, bitmap frontier for bottom-up).
 *   gpu          Enterprise (Liu & Huang, SC'15) in CUDA.  By
 *                default the whole search is one cooperative kernel (the
 *                device loop: four degree-classified queues, γ-based
 *                direction switching made on the device, bitmap frontier
 *                bottom-up, optional hub cache); OMPDAG_BFS_LOOP_HOST runs
 *                the same phases one launch each, and
 *                OMPDAG_BFS_LOOP_ENTERPRISE the paper's host-driven pipeline
 *                (per-thread bins + prefix sums, four streams, multi-GPU).
 *   gpu-sim      the same kernel logic (__host__ __device__ headers) run
 *                thread by thread on the host, counting the launches, grid
 *                barriers and host synchronisations the design makes; the
 *                Enterprise loop also runs 1-D multi-device partitioning
 *                with bitmap exchange on 1..8 simulated devices.
 * Every function returns an ompdag_status and fills *err when not NULL.
 */
#ifndef OMPDAG_BFS_H
#define OMPDAG_BFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ompdag/error.h"
#include "ompdag/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ompdag_bfs_engine {
    OMPDAG_BFS_CPU_TOPDOWN = 0,
    OMPDAG_BFS_CPU,
    OMPDAG_BFS_GPU,
    OMPDAG_BFS_GPU_SIM,
    OMPDAG_BFS_ENGINE_COUNT
} ompdag_bfs_engine;

/* "cpu-topdown", "cpu", "gpu", "gpu-sim".  Never NULL. */
const char *ompdag_bfs_engine_name(ompdag_bfs_engine engine);
/* Parses an engine name; OMPDAG_ERR_ARGUMENT when unknown. */
ompdag_status ompdag_bfs_engine_parse(const char *name, ompdag_bfs_engine *out, ompdag_error *err);

/* True when the gpu engine can run here (built with CUDA and a device
 * answers).  Otherwise writes the reason into why (when not NULL). */
bool ompdag_bfs_gpu_available(char *why, size_t why_size);

/* How the gpu / gpu-sim level loop is driven. */
typedef enum ompdag_bfs_loop {
    OMPDAG_BFS_LOOP_AUTO = 0,  /* DEVICE on one device, ENTERPRISE on several */
    OMPDAG_BFS_LOOP_DEVICE,    /* one cooperative kernel per search, decisions on the device */
    OMPDAG_BFS_LOOP_HOST,      /* the same phases, one launch + one host sync each */
    OMPDAG_BFS_LOOP_ENTERPRISE /* the paper's pipeline: bins, prefix sums, four streams */
} ompdag_bfs_loop;

/* The top-down -> bottom-up rule of the gpu engines. */
typedef enum ompdag_bfs_switch {
    OMPDAG_BFS_SWITCH_GAMMA = 0, /* Enterprise: γ = Fh / Th > gamma */
    OMPDAG_BFS_SWITCH_ALPHA,     /* Beamer: m_f > m_u / α (device loops only) */
    OMPDAG_BFS_SWITCH_NONE       /* top-down only (device loops only) */
} ompdag_bfs_switch;

/* Tuning knobs; fill with ompdag_bfs_options_init() first.  Names follow the
 * papers. */
typedef struct ompdag_bfs_options {
    int threads;          /* cpu: OpenMP threads, 0 = the OpenMP default */
    double alpha;         /* cpu: top-down -> bottom-up when m_f > m_u / α (15) */
    double beta;          /* cpu and gpu: bottom-up -> top-down when n_f < n / β (18) */
    int64_t tau;          /* gpu: a hub has out-degree > τ (default OMPDAG_BFS_DEFAULT_TAU) */
    double gamma;         /* gpu: switch to bottom-up when γ = Fh / Th > gamma (0.30) */
    bool hub_cache;       /* gpu: use the hub-vertex cache (OMPDAG_BFS_DEFAULT_HUB_CACHE) */
    int devices;          /* gpu-sim: simulated devices; gpu: CUDA devices 0..D-1;
                             1-D partitioned with bitmap exchange (1) */
    ompdag_bfs_loop loop; /* gpu, gpu-sim: how levels are driven (AUTO) */
    ompdag_bfs_switch direction; /* gpu, gpu-sim device loops: switch rule (GAMMA) */
    bool bitmap;                 /* device loops: bottom-up reads a bitmap of the frontier, else the
                                    status array (false: measured 3-4% faster on an H100, docs/bfs.md) */
    bool balance;                /* device loops: degree classes served by thread / warp / CTA /
                                    grid (true), else one thread per vertex */
} ompdag_bfs_options;

/* Default τ, chosen by the sweep in bench/bfs (see docs/bfs.md). */
#define OMPDAG_BFS_DEFAULT_TAU 256
/* The hub cache's default, chosen by measurement on an H100 (docs/bfs.md). */
#define OMPDAG_BFS_DEFAULT_HUB_CACHE false

/* "auto", "device", "host", "enterprise"; parse returns OMPDAG_ERR_ARGUMENT when unknown. */
const char *ompdag_bfs_loop_name(ompdag_bfs_loop loop);
ompdag_status ompdag_bfs_loop_parse(const char *name, ompdag_bfs_loop *out, ompdag_error *err);
/* "gamma", "alpha", "none". */
const char *ompdag_bfs_switch_name(ompdag_bfs_switch rule);
ompdag_status ompdag_bfs_switch_parse(const char *name, ompdag_bfs_switch *out, ompdag_error *err);

/* Fills *opts with the defaults above. */
void ompdag_bfs_options_init(ompdag_bfs_options *opts);

typedef enum ompdag_bfs_direction {
    OMPDAG_BFS_TOP_DOWN = 0,
    OMPDAG_BFS_BOTTOM_UP = 1
} ompdag_bfs_direction;

/* What one level did.  Fields an engine does not measure stay 0. */
typedef struct ompdag_bfs_level {
    ompdag_bfs_direction direction; /* how the vertices of this level were found */
    int64_t visited;                /* vertices found at this level */
    int64_t queue[4];               /* gpu/gpu-sim: the queue this level worked on, split into
                                       Small (<32), Middle (32-256), Large (256-65536) and
                                       Extreme (>65536 out-edges) */
    int64_t hubs;                   /* gpu-sim: Fh, hubs among the vertices found here */
    double gamma;                   /* gpu-sim: γ = Fh / Th after this level (0 when Th = 0) */
    int64_t edges;                  /* gpu-sim: edges examined, i.e. random status loads
                                       before the hub cache (top-down: out-edges of the
                                       frontier; bottom-up: neighbour checks) */
    int64_t hc_probes;              /* gpu-sim: bottom-up neighbour checks made */
    int64_t hc_hits;                /* gpu-sim: checks answered by the hub cache */
    int workflow;                   /* gpu-sim: how the next queue was generated,
                                       an OMPDAG_BFS_WORKFLOW_* value */
    int64_t launches;               /* gpu, gpu-sim: kernel launches this level made */
    int64_t host_syncs;             /* gpu, gpu-sim: times the host waited for the device */
    int64_t barriers;               /* gpu, gpu-sim device loop: grid barriers */
    double device_seconds;          /* gpu device loop: the level's time on the device's
                                       global timer (a bitmap conversion before it included) */
} ompdag_bfs_level;

enum {
    OMPDAG_BFS_WORKFLOW_NONE = 0,
    OMPDAG_BFS_WORKFLOW_INTERLEAVED, /* top-down: thread t scans t, t+T, ... */
    OMPDAG_BFS_WORKFLOW_CONTIGUOUS,  /* switch level: thread t scans a slice; sorted queue */
    OMPDAG_BFS_WORKFLOW_SHRINK,      /* bottom-up: previous queue minus vertices just found */
    OMPDAG_BFS_WORKFLOW_SPARSE,      /* top-down, small frontier: one bin slot per edge */
    OMPDAG_BFS_WORKFLOW_APPEND, /* device loop: claimed vertices appended to the class queues */
    OMPDAG_BFS_WORKFLOW_CONVERT /* device loop: the frontier packed into a bitmap (switch) */
};

/* The result of one search: levels, parents, per-level records and time.
 * One result can be reused across runs; arrays grow as needed. */
typedef struct ompdag_bfs_result ompdag_bfs_result;

/* Creates an empty result.  Free it with ompdag_bfs_result_destroy(). */
ompdag_status ompdag_bfs_result_create(ompdag_bfs_result **out, ompdag_error *err);
/* Frees r.  NULL is allowed. */
void ompdag_bfs_result_destroy(ompdag_bfs_result *r);

/* Runs one search of g from source with engine.  opts may be NULL (defaults).
 * Fills r (owned by the caller).  OMPDAG_ERR_UNSUPPORTED when the gpu engine
 * cannot run here, with the reason. */
ompdag_status ompdag_bfs_run(const ompdag_graph *g, int64_t source, ompdag_bfs_engine engine,
                             const ompdag_bfs_options *opts, ompdag_bfs_result *r,
                             ompdag_error *err);

/* Accessors.  Arrays are owned by r and live until the next run or destroy. */
int64_t ompdag_bfs_result_vertices(const ompdag_bfs_result *r);
const int32_t *ompdag_bfs_result_levels(const ompdag_bfs_result *r);  /* -1: unreached */
const int64_t *ompdag_bfs_result_parents(const ompdag_bfs_result *r); /* -1: unreached */
int64_t ompdag_bfs_result_source(const ompdag_bfs_result *r);
int64_t ompdag_bfs_result_reached(const ompdag_bfs_result *r);
/* Edges in the traversed component: Σ out-degree of reached vertices, halved
 * for a symmetric graph.  The numerator of TEPS. */
int64_t ompdag_bfs_result_edges(const ompdag_bfs_result *r);
double ompdag_bfs_result_seconds(const ompdag_bfs_result *r); /* search time only */
/* THE TEPS of a search, the one definition every report uses (Graph500):
 * edges of the traversed component / search time, with the time taken as at
 * least 1 ns and an isolated source counted as one edge (its visit). */
double ompdag_bfs_result_teps(const ompdag_bfs_result *r);
int ompdag_bfs_result_level_count(const ompdag_bfs_result *r); /* levels incl. the source's */
/* gpu and gpu-sim: kernel launches, host synchronisations and grid barriers
 * of the whole search (per level: the level records); 0 for CPU engines. */
int64_t ompdag_bfs_result_launches(const ompdag_bfs_result *r);
int64_t ompdag_bfs_result_host_syncs(const ompdag_bfs_result *r);
int64_t ompdag_bfs_result_barriers(const ompdag_bfs_result *r);
/* gpu: seconds spent copying levels and parents back after the search (not
 * part of ompdag_bfs_result_seconds); 0 for other engines. */
double ompdag_bfs_result_download_seconds(const ompdag_bfs_result *r);
/* Record i in [1, level_count): how level i was found.  NULL if out of range. */
const ompdag_bfs_level *ompdag_bfs_result_level(const ompdag_bfs_result *r, int i);
/* Makes r's parent and level arrays writable, for tests of the validator. */
int32_t *ompdag_bfs_result_levels_mut(ompdag_bfs_result *r);
int64_t *ompdag_bfs_result_parents_mut(ompdag_bfs_result *r);

/* The Graph500 rules (gpu.md), numbered as there. */
typedef enum ompdag_bfs_rule {
    OMPDAG_BFS_RULE_OK = 0,
    OMPDAG_BFS_RULE_TREE = 1,        /* a tree rooted at the source */
    OMPDAG_BFS_RULE_TREE_LEVELS = 2, /* tree edges join levels differing by exactly 1 */
    OMPDAG_BFS_RULE_EDGE_LEVELS = 3, /* every edge joins levels differing by at most 1 */
    OMPDAG_BFS_RULE_SPANS = 4,       /* the tree spans the source's component */
    OMPDAG_BFS_RULE_PARENT_EDGE = 5  /* every parent edge is an edge of the graph */
} ompdag_bfs_rule;

/* Short name of a rule, e.g. "tree-levels".  Never NULL. */
const char *ompdag_bfs_rule_name(ompdag_bfs_rule rule);

/* Checks r against the five rules on g.  Returns OMPDAG_OK, or
 * OMPDAG_ERR_INVALID with *rule and *vertex (either may be NULL) set to the
 * first failure found and a message naming both. */
ompdag_status ompdag_bfs_validate(const ompdag_graph *g, const ompdag_bfs_result *r,
                                  ompdag_bfs_rule *rule, int64_t *vertex, ompdag_error *err);

/* Graph500 statistics of TEPS figures. */
typedef struct ompdag_bfs_teps_summary {
    int count;
    double min, first_quartile, median, third_quartile, max;
    double harmonic_mean;
} ompdag_bfs_teps_summary;

/* Summarizes count > 0 TEPS values (not modified). */
ompdag_status ompdag_bfs_teps_summarize(const double *teps, int count, ompdag_bfs_teps_summary *out,
                                        ompdag_error *err);

/* One search of a trial run, as the harness reports it. */
typedef struct ompdag_bfs_trial {
    int index;
    int64_t source;
    double seconds, teps; /* ompdag_bfs_result_seconds / _teps */
    int levels;
    int valid; /* 1 valid, 0 invalid (message in the callback's err), -1 not checked */
} ompdag_bfs_trial;

/* What a trial run measured. */
typedef struct ompdag_bfs_trials_summary {
    int searches, invalid;
    ompdag_bfs_teps_summary teps;          /* harmonic mean etc. of the TEPS */
    double mean_s, min_s, max_s;           /* search times */
    double launches, host_syncs, barriers; /* per search (gpu, gpu-sim) */
} ompdag_bfs_trials_summary;

/* Called after each search with its result (valid until the next search)
 * and, when validation failed, the reason in *verr. */
typedef void (*ompdag_bfs_trial_fn)(void *ctx, const ompdag_bfs_trial *t,
                                    const ompdag_bfs_result *r, const ompdag_error *verr);

/* THE trial harness of `ompdag bfs` and bench_bfs: runs engine from each of
 * keys[0..nkeys) on g, validates each search when validate, calls each (may
 * be NULL) and fills *out.  With warmup, one untimed search from keys[0]
 * runs first (module load, device upload).  An engine error stops the run
 * and is returned. */
ompdag_status ompdag_bfs_run_trials(const ompdag_graph *g, ompdag_bfs_engine engine,
                                    const ompdag_bfs_options *opts, const int64_t *keys, int nkeys,
                                    bool validate, bool warmup, ompdag_bfs_trial_fn each, void *ctx,
                                    ompdag_bfs_trials_summary *out, ompdag_error *err);

/* Picks count search keys with out-degree >= 1, as Graph500 does: uniform
 * draws seeded by seed, distinct while enough such vertices exist.  Writes
 * them to keys (caller's storage) and returns how many were found (0 when
 * the graph has no edge). */
int ompdag_bfs_pick_sources(const ompdag_graph *g, int count, uint64_t seed, int64_t *keys);

#ifdef __cplusplus
}
#endif
#endif
