/*
 * resources.c — resource discovery, DISPAR's StreamMAP step 1 (seed 001,
 * Sheng et al. 2015: "at start-up, find the CPUs and GPUs of the node:
 * count, compute capability, memory and topology; keep them in a resource
 * table"), for one machine.
 *
 * CPUs come from hwloc (packages, NUMA nodes, cores, PUs, caches, memory);
 * without hwloc, from sysconf (PUs only, counted as cores).  GPUs come from
 * the CUDA runtime (name, SMs, compute capability, memory) when ompdag is
 * built with CUDA.  No GPU is a normal answer; the note says why.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef OMPDAG_HAVE_HWLOC
#include <hwloc.h>
#endif

#include "offload_internal.h"
#include "ompdag/fileio.h"

struct ompdag_resources {
    ompdag_cpu_topology cpu;
    int *numa_cores;          /* cores per NUMA node (cpu.numa_nodes entries) */
    char (*numa_names)[32];
    int ngpus;
    ompdag_gpu_info *gpus;
    char gpu_note[160];
};

#ifdef OMPDAG_HAVE_HWLOC
static int64_t cache_size(hwloc_topology_t t, hwloc_obj_type_t type)
{
    hwloc_obj_t o = hwloc_get_obj_by_type(t, type, 0);
    return o && o->attr ? (int64_t)o->attr->cache.size : 0;
}

static ompdag_status discover_hwloc(ompdag_resources *r, ompdag_error *err)
{
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0)
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED, "resources: hwloc init failed");
    if (hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED, "resources: hwloc load failed");
    }
    ompdag_cpu_topology *c = &r->cpu;
    c->from_hwloc = true;
    c->packages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
    c->numa_nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    c->cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    c->pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    static const hwloc_obj_type_t cache_types[] = {
        HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE,
        HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2ICACHE, HWLOC_OBJ_L3ICACHE};
    for (size_t i = 0; i < sizeof cache_types / sizeof *cache_types; ++i) {
        int k = hwloc_get_nbobjs_by_type(t, cache_types[i]);
        c->caches += k > 0 ? k : 0;
    }
    c->l1d_bytes = cache_size(t, HWLOC_OBJ_L1CACHE);
    c->l2_bytes = cache_size(t, HWLOC_OBJ_L2CACHE);
    c->l3_bytes = cache_size(t, HWLOC_OBJ_L3CACHE);
    hwloc_obj_t root = hwloc_get_root_obj(t);
    c->memory_bytes = root ? (int64_t)root->total_memory : 0;
    if (c->cores < 1)
        c->cores = c->pus;
    if (c->numa_nodes < 1)
        c->numa_nodes = 1;
    if (c->packages < 1)
        c->packages = 1;
    r->numa_cores = calloc((size_t)c->numa_nodes, sizeof *r->numa_cores);
    r->numa_names = calloc((size_t)c->numa_nodes, sizeof *r->numa_names);
    if (!r->numa_cores || !r->numa_names) {
        hwloc_topology_destroy(t);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "resources: out of memory");
    }
    int nnuma = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < c->numa_nodes; ++i) {
        hwloc_obj_t node = i < nnuma ? hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, (unsigned)i)
                                     : NULL;
        int cores = node && node->cpuset
                        ? hwloc_get_nbobjs_inside_cpuset_by_type(t, node->cpuset, HWLOC_OBJ_CORE)
                        : 0;
        r->numa_cores[i] = cores > 0 ? cores : (nnuma <= 1 ? c->cores : 0);
        snprintf(r->numa_names[i], sizeof r->numa_names[i], "numa%d", i);
    }
    hwloc_topology_destroy(t);
    return OMPDAG_OK;
}
#endif

static ompdag_status discover_sysconf(ompdag_resources *r, ompdag_error *err)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    ompdag_cpu_topology *c = &r->cpu;
    c->pus = c->cores = n > 0 ? (int)n : 1;
    c->packages = c->numa_nodes = 1;
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    c->memory_bytes = pages > 0 && psize > 0 ? (int64_t)pages * psize : 0;
    r->numa_cores = calloc(1, sizeof *r->numa_cores);
    r->numa_names = calloc(1, sizeof *r->numa_names);
    if (!r->numa_cores || !r->numa_names)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "resources: out of memory");
    r->numa_cores[0] = c->cores;
    snprintf(r->numa_names[0], sizeof r->numa_names[0], "numa0");
    return OMPDAG_OK;
}

static ompdag_status discover_gpus(ompdag_resources *r, ompdag_error *err)
{
#ifdef OMPDAG_HAVE_CUDA
    int n = off_cuda_count();
    if (n == 0) {
        snprintf(r->gpu_note, sizeof r->gpu_note, "%s", off_cuda_why_none());
        return OMPDAG_OK;
    }
    r->gpus = calloc((size_t)n, sizeof *r->gpus);
    if (!r->gpus)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "resources: out of memory");
    for (int i = 0; i < n; ++i)
        if (off_cuda_info(i, &r->gpus[r->ngpus]))
            ++r->ngpus;
    if (r->ngpus == 0)
        snprintf(r->gpu_note, sizeof r->gpu_note, "CUDA devices did not answer");
#else
    (void)err;
    snprintf(r->gpu_note, sizeof r->gpu_note, "ompdag was built without CUDA");
#endif
    return OMPDAG_OK;
}

ompdag_status ompdag_resources_discover(ompdag_resources **out, ompdag_error *err)
{
    *out = NULL;
    ompdag_resources *r = calloc(1, sizeof *r);
    if (!r)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "resources: out of memory");
    ompdag_status st;
#ifdef OMPDAG_HAVE_HWLOC
    st = discover_hwloc(r, err);
    if (st == OMPDAG_ERR_UNSUPPORTED) {
        free(r->numa_cores);
        free(r->numa_names);
        r->numa_cores = NULL;
        r->numa_names = NULL;
        memset(&r->cpu, 0, sizeof r->cpu);
        st = discover_sysconf(r, err);
    }
#else
    st = discover_sysconf(r, err);
#endif
    if (st == OMPDAG_OK)
        st = discover_gpus(r, err);
    if (st != OMPDAG_OK) {
        ompdag_resources_destroy(r);
        return st;
    }
    *out = r;
    return OMPDAG_OK;
}

void ompdag_resources_destroy(ompdag_resources *r)
{
    if (!r)
        return;
    free(r->numa_cores);
    free(r->numa_names);
    free(r->gpus);
    free(r);
}

const ompdag_cpu_topology *ompdag_resources_cpu(const ompdag_resources *r) { return &r->cpu; }
int ompdag_resources_gpus(const ompdag_resources *r) { return r->ngpus; }
const char *ompdag_resources_gpu_note(const ompdag_resources *r) { return r->gpu_note; }

const ompdag_gpu_info *ompdag_resources_gpu(const ompdag_resources *r, int i)
{
    return i >= 0 && i < r->ngpus ? &r->gpus[i] : NULL;
}


ompdag_status ompdag_resources_write(const ompdag_resources *r, FILE *out, bool json,
                                     ompdag_error *err)
{
    const ompdag_cpu_topology *c = &r->cpu;
    if (json) {
        fprintf(out,
                "{\n  \"cpu\": {\"source\": \"%s\", \"packages\": %d, \"numa_nodes\": %d, "
                "\"cores\": %d, \"pus\": %d, \"caches\": %d, \"l1d_bytes\": %" PRId64
                ", \"l2_bytes\": %" PRId64 ", \"l3_bytes\": %" PRId64
                ", \"memory_bytes\": %" PRId64 ",\n          \"numa\": [",
                c->from_hwloc ? "hwloc" : "sysconf", c->packages, c->numa_nodes, c->cores,
                c->pus, c->caches, c->l1d_bytes, c->l2_bytes, c->l3_bytes, c->memory_bytes);
        for (int i = 0; i < c->numa_nodes; ++i)
            fprintf(out, "%s{\"name\": \"%s\", \"cores\": %d}", i ? ", " : "", r->numa_names[i],
                    r->numa_cores[i]);
        fprintf(out, "]},\n  \"gpus\": [");
        for (int i = 0; i < r->ngpus; ++i) {
            const ompdag_gpu_info *g = &r->gpus[i];
            fprintf(out, "%s\n    {\"index\": %d, \"name\": ", i ? "," : "", i);
            ompdag_json_write_string(out, g->name);
            fprintf(out,
                    ", \"sms\": %d, \"compute_capability\": \"%d.%d\", \"memory_bytes\": %" PRId64
                    "}",
                    g->sms, g->cc_major, g->cc_minor, g->memory_bytes);
        }
        fprintf(out, "%s],\n  \"gpu_note\": ", r->ngpus ? "\n  " : "");
        ompdag_json_write_string(out, r->gpu_note);
        fprintf(out, "\n}\n");
    } else {
        fprintf(out, "CPU (%s): %d package(s), %d NUMA node(s), %d core(s), %d PU(s)\n",
                c->from_hwloc ? "hwloc" : "sysconf", c->packages, c->numa_nodes, c->cores,
                c->pus);
        if (c->from_hwloc)
            fprintf(out,
                    "  caches: %d objects; L1d %" PRId64 " KiB, L2 %" PRId64 " KiB, L3 %" PRId64
                    " KiB\n",
                    c->caches, c->l1d_bytes / 1024, c->l2_bytes / 1024, c->l3_bytes / 1024);
        if (c->memory_bytes)
            fprintf(out, "  memory: %.1f GiB\n", (double)c->memory_bytes / (1 << 30));
        for (int i = 0; i < c->numa_nodes; ++i)
            fprintf(out, "  %s: %d core(s)\n", r->numa_names[i], r->numa_cores[i]);
        fprintf(out, "GPUs: %d%s%s%s\n", r->ngpus, r->ngpus ? "" : " (", r->gpu_note,
                r->ngpus ? "" : ")");
        for (int i = 0; i < r->ngpus; ++i) {
            const ompdag_gpu_info *g = &r->gpus[i];
            fprintf(out, "  gpu%d: %s, %d SMs, compute capability %d.%d, %.1f GiB\n", i,
                    g->name, g->sms, g->cc_major, g->cc_minor,
                    (double)g->memory_bytes / (1 << 30));
        }
    }
    if (ferror(out))
        return ompdag_error_set(err, OMPDAG_ERR_IO, "resources: write failed");
    return OMPDAG_OK;
}

ompdag_status ompdag_resources_map_targets(const ompdag_resources *r, ompdag_map_resource **out,
                                           int *count, ompdag_error *err)
{
    *out = NULL;
    *count = 0;
    int n = r->cpu.numa_nodes + r->ngpus;
    ompdag_map_resource *m = calloc((size_t)(n > 0 ? n : 1), sizeof *m);
    if (!m)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "resources: out of memory");
    int k = 0;
    for (int i = 0; i < r->cpu.numa_nodes; ++i) {
        if (r->numa_cores[i] <= 0)
            continue; /* a memory-only node runs nothing */
        m[k++] = (ompdag_map_resource){r->numa_names[i], OMPDAG_REGION_CO,
                                       (double)r->numa_cores[i]};
    }
    for (int i = 0; i < r->ngpus; ++i)
        m[k++] = (ompdag_map_resource){r->gpus[i].name, OMPDAG_REGION_CG, 1.0};
    *out = m;
    *count = k;
    return OMPDAG_OK;
}
