/*
 * bfs_result.c — the one entry point ompdag_bfs_run(), the result object,
 * engine names and options.  Engines live one per file.
 */
#include <stdlib.h>
#include <string.h>

#include "bfs_internal.h"

static const char *const engine_names[OMPDAG_BFS_ENGINE_COUNT] = {"cpu-topdown", "cpu", "gpu",
                                                                  "gpu-sim"};

const char *ompdag_bfs_engine_name(ompdag_bfs_engine engine)
{
    if ((unsigned)engine >= OMPDAG_BFS_ENGINE_COUNT) return "unknown";
    return engine_names[engine];
}

ompdag_status ompdag_bfs_engine_parse(const char *name, ompdag_bfs_engine *out, ompdag_error *err)
{
    for (int e = 0; name && e < OMPDAG_BFS_ENGINE_COUNT; ++e)
        if (strcmp(name, engine_names[e]) == 0) {
            *out = (ompdag_bfs_engine)e;
            return OMPDAG_OK;
        }
    return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                            "unknown BFS engine '%s' (expected cpu-topdown, cpu, gpu or gpu-sim)",
                            name ? name : "");
}

static const char *const loop_names[] = {"auto", "device", "host", "enterprise"};
static const char *const switch_names[] = {"gamma", "alpha", "none"};

const char *ompdag_bfs_loop_name(ompdag_bfs_loop loop)
{
    return (unsigned)loop < 4 ? loop_names[loop] : "unknown";
}

ompdag_status ompdag_bfs_loop_parse(const char *name, ompdag_bfs_loop *out, ompdag_error *err)
{
    for (int k = 0; name && k < 4; ++k)
        if (strcmp(name, loop_names[k]) == 0) {
            *out = (ompdag_bfs_loop)k;
            return OMPDAG_OK;
        }
    return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                            "unknown level loop '%s' (expected auto, device, host or enterprise)",
                            name ? name : "");
}

const char *ompdag_bfs_switch_name(ompdag_bfs_switch rule)
{
    return (unsigned)rule < 3 ? switch_names[rule] : "unknown";
}

ompdag_status ompdag_bfs_switch_parse(const char *name, ompdag_bfs_switch *out, ompdag_error *err)
{
    for (int k = 0; name && k < 3; ++k)
        if (strcmp(name, switch_names[k]) == 0) {
            *out = (ompdag_bfs_switch)k;
            return OMPDAG_OK;
        }
    return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                            "unknown switch rule '%s' (expected gamma, alpha or none)",
                            name ? name : "");
}

ompdag_bfs_loop bfs_loop_resolve(const ompdag_bfs_options *opts)
{
    if (opts->loop == OMPDAG_BFS_LOOP_AUTO)
        return opts->devices == 1 ? OMPDAG_BFS_LOOP_DEVICE : OMPDAG_BFS_LOOP_ENTERPRISE;
    return opts->loop;
}

void ompdag_bfs_options_init(ompdag_bfs_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->threads = 0;
    opts->alpha = 15.0;
    opts->beta = 18.0;
    opts->tau = OMPDAG_BFS_DEFAULT_TAU;
    opts->gamma = 0.30;
    opts->hub_cache = OMPDAG_BFS_DEFAULT_HUB_CACHE;
    opts->devices = 1;
    opts->loop = OMPDAG_BFS_LOOP_AUTO;
    opts->direction = OMPDAG_BFS_SWITCH_GAMMA;
    opts->bitmap = false;
    opts->balance = true;
}

bool ompdag_bfs_gpu_available(char *why, size_t why_size)
{
#ifdef OMPDAG_HAVE_CUDA
    return bfs_gpu_probe(why, why_size);
#else
    if (why && why_size)
        snprintf(why, why_size,
                 "this ompdag was built without CUDA (nvcc was not found at configure time)");
    return false;
#endif
}

ompdag_status ompdag_bfs_result_create(ompdag_bfs_result **out, ompdag_error *err)
{
    ompdag_bfs_result *r = calloc(1, sizeof *r);
    if (!r) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory for a BFS result");
    r->source = -1;
    *out = r;
    return OMPDAG_OK;
}

void ompdag_bfs_result_destroy(ompdag_bfs_result *r)
{
    if (!r) return;
    if (r->gpu_ctx && r->gpu_free) r->gpu_free(r->gpu_ctx);
    free(r->levels);
    free(r->parents);
    free(r->lv);
    for (int k = 0; k < 2; ++k) {
        free(r->cpu_queue[k]);
        free(r->cpu_bits[k]);
    }
    free(r->cpu_first);
    free(r->cpu_live);
    free(r->cpu_rest);
    free(r);
}

ompdag_status bfs_result_prepare(ompdag_bfs_result *r, int64_t n, int64_t source, ompdag_error *err)
{
    if (n > r->cap) {
        int32_t *lv = realloc(r->levels, (size_t)n * sizeof *lv);
        if (lv) r->levels = lv;
        int64_t *pa = realloc(r->parents, (size_t)n * sizeof *pa);
        if (pa) r->parents = pa;
        if (!lv || !pa)
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM,
                                    "out of memory for BFS arrays of %lld vertices", (long long)n);
        r->cap = n;
    }
    r->n = n;
    r->source = source;
    memset(r->levels, 0xff, (size_t)n * sizeof *r->levels);
    memset(r->parents, 0xff, (size_t)n * sizeof *r->parents);
    r->level_count = 1;
    r->reached = r->edges = 0;
    r->seconds = 0;
    r->download_seconds = 0;
    memset(&r->counts, 0, sizeof r->counts);
    return OMPDAG_OK;
}

ompdag_bfs_level *bfs_result_level_at(ompdag_bfs_result *r, int level)
{
    if (level >= r->lv_cap) {
        int cap = r->lv_cap ? 2 * r->lv_cap : 64;
        while (cap <= level)
            cap *= 2;
        ompdag_bfs_level *lv = realloc(r->lv, (size_t)cap * sizeof *lv);
        if (!lv) return NULL;
        r->lv = lv;
        r->lv_cap = cap;
    }
    memset(&r->lv[level], 0, sizeof r->lv[level]);
    if (level + 1 > r->level_count) r->level_count = level + 1;
    return &r->lv[level];
}

ompdag_status ompdag_bfs_run(const ompdag_graph *g, int64_t source, ompdag_bfs_engine engine,
                             const ompdag_bfs_options *opts, ompdag_bfs_result *r,
                             ompdag_error *err)
{
    if (!g || !r) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "bfs: no graph or no result");
    if (source < 0 || source >= g->n)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "bfs: source %lld is not a vertex (graph has %lld)",
                                (long long)source, (long long)g->n);
    ompdag_bfs_options defaults;
    if (!opts) {
        ompdag_bfs_options_init(&defaults);
        opts = &defaults;
    }
    if (opts->alpha <= 0 || opts->beta <= 0 || opts->tau < 0 || opts->gamma < 0 ||
        opts->devices < 1 || opts->devices > 8 || opts->threads < 0)
        return ompdag_error_set(
            err, OMPDAG_ERR_ARGUMENT,
            "bfs: options out of range (α, β > 0; τ, γ >= 0; devices in [1, 8])");
    if ((unsigned)opts->loop > OMPDAG_BFS_LOOP_ENTERPRISE ||
        (unsigned)opts->direction > OMPDAG_BFS_SWITCH_NONE)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "bfs: unknown level loop or switch rule");
    const ompdag_bfs_loop loop = bfs_loop_resolve(opts);
    const bool gpu_engine = engine == OMPDAG_BFS_GPU || engine == OMPDAG_BFS_GPU_SIM;
    if (gpu_engine && loop != OMPDAG_BFS_LOOP_ENTERPRISE && opts->devices != 1)
        return ompdag_error_set(
            err, OMPDAG_ERR_ARGUMENT,
            "bfs: the %s loop runs on one device; %d devices need the enterprise loop",
            ompdag_bfs_loop_name(loop), opts->devices);
    if (gpu_engine && loop == OMPDAG_BFS_LOOP_ENTERPRISE &&
        opts->direction != OMPDAG_BFS_SWITCH_GAMMA)
        return ompdag_error_set(
            err, OMPDAG_ERR_ARGUMENT,
            "bfs: the enterprise loop switches by γ only (switch rule %s needs the "
            "device or host loop)",
            ompdag_bfs_switch_name(opts->direction));
    bfs_engine_fn fn = NULL;
    switch (engine) {
    case OMPDAG_BFS_CPU_TOPDOWN:
        fn = bfs_engine_cpu_topdown;
        break;
    case OMPDAG_BFS_CPU:
        fn = bfs_engine_cpu_do;
        break;
    case OMPDAG_BFS_GPU_SIM:
        fn = loop == OMPDAG_BFS_LOOP_ENTERPRISE ? bfs_engine_gpu_sim : bfs_engine_gpu_sim_loop;
        break;
    case OMPDAG_BFS_GPU: {
        char why[256];
        if (!ompdag_bfs_gpu_available(why, sizeof why))
            return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED, "engine gpu cannot run here: %s",
                                    why);
#ifdef OMPDAG_HAVE_CUDA
        fn = loop == OMPDAG_BFS_LOOP_ENTERPRISE ? bfs_engine_gpu : bfs_engine_gpu_loop;
#endif
        break;
    }
    default:
        break;
    }
    if (!fn)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "bfs: unknown engine %d", (int)engine);
    ompdag_status st = bfs_result_prepare(r, g->n, source, err);
    if (st != OMPDAG_OK) return st;
    if ((st = fn(g, source, opts, r, err)) != OMPDAG_OK) return st;
    int64_t reached = 0, degsum = 0;
    for (int64_t v = 0; v < g->n; ++v)
        if (r->levels[v] >= 0) {
            ++reached;
            degsum += csr_degree(g, v);
        }
    r->reached = reached;
    r->edges = g->symmetric ? degsum / 2 : degsum;
    return OMPDAG_OK;
}

int64_t ompdag_bfs_result_vertices(const ompdag_bfs_result *r)
{
    return r->n;
}
const int32_t *ompdag_bfs_result_levels(const ompdag_bfs_result *r)
{
    return r->levels;
}
const int64_t *ompdag_bfs_result_parents(const ompdag_bfs_result *r)
{
    return r->parents;
}
int32_t *ompdag_bfs_result_levels_mut(ompdag_bfs_result *r)
{
    return r->levels;
}
int64_t *ompdag_bfs_result_parents_mut(ompdag_bfs_result *r)
{
    return r->parents;
}
int64_t ompdag_bfs_result_source(const ompdag_bfs_result *r)
{
    return r->source;
}
int64_t ompdag_bfs_result_reached(const ompdag_bfs_result *r)
{
    return r->reached;
}
int64_t ompdag_bfs_result_edges(const ompdag_bfs_result *r)
{
    return r->edges;
}
double ompdag_bfs_result_seconds(const ompdag_bfs_result *r)
{
    return r->seconds;
}
double ompdag_bfs_result_teps(const ompdag_bfs_result *r)
{
    const double t = r->seconds > 1e-9 ? r->seconds : 1e-9;
    return (double)(r->edges > 0 ? r->edges : 1) / t;
}
int ompdag_bfs_result_level_count(const ompdag_bfs_result *r)
{
    return r->level_count;
}
int64_t ompdag_bfs_result_launches(const ompdag_bfs_result *r)
{
    return r->counts.launches;
}
int64_t ompdag_bfs_result_host_syncs(const ompdag_bfs_result *r)
{
    return r->counts.host_syncs;
}
int64_t ompdag_bfs_result_barriers(const ompdag_bfs_result *r)
{
    return r->counts.barriers;
}
double ompdag_bfs_result_download_seconds(const ompdag_bfs_result *r)
{
    return r->download_seconds;
}
const ompdag_bfs_level *ompdag_bfs_result_level(const ompdag_bfs_result *r, int i)
{
    if (i < 1 || i >= r->level_count) return NULL;
    return &r->lv[i];
}
