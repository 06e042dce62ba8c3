/*
 * cuda-offload/condag/eval_gpu.cu — level-synchronous exact bounds on the GPU
 * (include/ompdag/condag_gpu.h).  The design, counted by gpu-sim
 * (batch.c: condag_eval_sim) and asserted by tests/condag_gpu:
 *   - ONE upload: the whole batch is one packed, page-locked host buffer
 *     (batch_internal.h) copied with one cudaMemcpyAsync;
 *   - one launch per GLOBAL height level, each over every node of that
 *     height in every graph (condag_level_thread, the code gpu-sim runs),
 *     then one gather launch that picks each graph's root value;
 *   - ONE host synchronisation: the download of the ngraphs m·R values
 *     (8 bytes a graph, not the n node rows); no per-graph or per-level sync;
 *   - device buffers, the stream and the page-locked buffer are kept for
 *     the process and grown when a bigger batch comes, so a warm call pays
 *     no cudaMalloc / cudaFree / cudaMallocHost.
 * Built only when nvcc is found; not run on this project's GPU-less build
 * machines (docs/gpu.md says what awaits measurement).
 */
#include <cuda_runtime.h>

#include <mutex>

#include "batch_internal.h"

__global__ void condag_level_kernel(condag_batch b, const int32_t *nodes, int32_t count, int32_t m,
                                    ompdag_exact_row *rows)
{
    condag_level_thread(&b, nodes, count, (int32_t)(blockIdx.x * blockDim.x + threadIdx.x), m,
                        rows);
}

__global__ void condag_gather_kernel(condag_batch b, const ompdag_exact_row *rows, int64_t *out)
{
    condag_gather_thread(&b, (int32_t)(blockIdx.x * blockDim.x + threadIdx.x), rows, out);
}

__global__ void condag_graph_kernel(condag_gpack p, int32_t m, ompdag_exact_row *rows, int64_t *out)
{
    condag_graph_thread(&p, (int32_t)(blockIdx.x * blockDim.x + threadIdx.x), m, rows, out);
}

namespace
{

/* Process-wide device state, guarded by its mutex for a whole evaluation. */
struct device_cache {
    std::mutex lock;
    cudaStream_t stream = nullptr;
    char *pack = nullptr;
    size_t pack_cap = 0;
    ompdag_exact_row *rows = nullptr;
    size_t rows_cap = 0;
    int64_t *out = nullptr;
    size_t out_cap = 0;
};
device_cache g_dev;

/* The one page-locked host buffer (a batch in flight holds it). */
struct host_cache {
    std::mutex lock;
    void *buf = nullptr;
    size_t cap = 0;
    bool busy = false;
};
host_cache g_host;

template <typename T> cudaError_t reserve(T **p, size_t *cap, size_t count)
{
    if (count <= *cap && *p) return cudaSuccess;
    if (*p) cudaFree(*p);
    *p = nullptr;
    *cap = 0;
    size_t want = count + count / 4 + 1;
    cudaError_t e = cudaMalloc((void **)p, sizeof(T) * want);
    if (e == cudaSuccess) *cap = want;
    return e;
}

ompdag_status cuda_fail(ompdag_error *err, const char *what, cudaError_t e)
{
    return ompdag_error_set(
        err, e == cudaErrorMemoryAllocation ? OMPDAG_ERR_NOMEM : OMPDAG_ERR_UNSUPPORTED,
        "device gpu: %s: %s", what, cudaGetErrorString(e));
}

/* The device copy of p: the same sections at the same offsets in dpack. */
condag_gpack gpack_on_device(const condag_gpack *p, char *dpack)
{
    condag_gpack d = *p;
    const char *base = static_cast<const char *>(p->pack);
#define REBASE(f) d.f = reinterpret_cast<decltype(d.f)>(dpack + ((const char *)p->f - base))
    REBASE(wcet);
    REBASE(gnode);
    REBASE(gedge);
    REBASE(gtask);
    REBASE(root);
    REBASE(off);
    REBASE(succ);
    REBASE(creates);
    REBASE(tsrc);
    REBASE(topo);
    REBASE(kind);
#undef REBASE
    d.pack = dpack;
    return d;
}

/* The device copy of b: the same sections at the same offsets in d.pack. */
condag_batch on_device(const condag_batch *b, char *dpack)
{
    condag_batch d = *b;
    const char *base = static_cast<const char *>(b->pack);
#define REBASE(f) d.f = reinterpret_cast<decltype(d.f)>(dpack + ((const char *)b->f - base))
    REBASE(wcet);
    REBASE(succ_off);
    REBASE(succ);
    REBASE(child);
    REBASE(level_nodes);
    REBASE(root);
    REBASE(kind);
#undef REBASE
    d.pack = dpack;
    d.level_off = nullptr; /* host only */
    return d;
}

} // namespace

extern "C" void *condag_gpu_host_alloc(size_t bytes)
{
    std::lock_guard<std::mutex> guard(g_host.lock);
    if (g_host.busy) return nullptr; /* another batch holds it: the caller mallocs */
    if (g_host.cap < bytes) {
        if (g_host.buf) cudaFreeHost(g_host.buf);
        g_host.buf = nullptr;
        g_host.cap = 0;
        size_t want = bytes + bytes / 4 + 1;
        if (cudaMallocHost(&g_host.buf, want) != cudaSuccess) {
            g_host.buf = nullptr;
            return nullptr;
        }
        g_host.cap = want;
    }
    g_host.busy = true;
    return g_host.buf;
}

extern "C" void condag_gpu_host_release(void *p)
{
    std::lock_guard<std::mutex> guard(g_host.lock);
    if (p == g_host.buf) g_host.busy = false;
}

/* Whether a device is there; the reason in err otherwise. */
static ompdag_status need_device(ompdag_error *err)
{
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0)
        return ompdag_error_set(
            err, OMPDAG_ERR_UNSUPPORTED,
            "device gpu: no CUDA device (%s); use --device gpu-sim, cpu-par or cpu",
            e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    return OMPDAG_OK;
}

/* The per-graph design: one upload, one launch (a thread per graph), one
 * host synchronisation (the m·R values). */
/* With g_dev.lock held: the stream, device buffers for a batch of n node
 * rows and ngraphs results, and the packed batch's one upload. */
static ompdag_status stage_batch(const void *pack, size_t pack_bytes, size_t n, int32_t ngraphs,
                                 ompdag_batch_stats *stats, cudaStream_t *s, ompdag_error *err)
{
    cudaError_t e = cudaSuccess;
    if (!g_dev.stream && (e = cudaStreamCreateWithFlags(&g_dev.stream, cudaStreamNonBlocking)))
        return cuda_fail(err, "creating a stream", e);
    if ((e = reserve(&g_dev.pack, &g_dev.pack_cap, pack_bytes)) ||
        (e = reserve(&g_dev.rows, &g_dev.rows_cap, n ? n : 1)) ||
        (e = reserve(&g_dev.out, &g_dev.out_cap, (size_t)ngraphs + 1)))
        return cuda_fail(err, "allocating device memory for the batch", e);
    *s = g_dev.stream;
    if ((e = cudaMemcpyAsync(g_dev.pack, pack, pack_bytes, cudaMemcpyHostToDevice, *s)))
        return cuda_fail(err, "copying the batch", e);
    stats->uploads++;
    stats->bytes_up += (int64_t)pack_bytes;
    return OMPDAG_OK;
}

/* After the batch's last launch on s: one download of ngraphs results and
 * the one host sync (counted); `what` names the launches in an error. */
static ompdag_status fetch_results(int64_t *out, int32_t ngraphs, cudaStream_t s,
                                   ompdag_batch_stats *stats, const char *what, ompdag_error *err)
{
    cudaError_t e;
    if ((e = cudaGetLastError()) ||
        (e = cudaMemcpyAsync(out, g_dev.out, sizeof(int64_t) * (size_t)ngraphs,
                             cudaMemcpyDeviceToHost, s)) ||
        (e = cudaStreamSynchronize(s)))
        return cuda_fail(err, what, e);
    stats->host_syncs++;
    stats->bytes_down += (int64_t)sizeof(int64_t) * ngraphs;
    return OMPDAG_OK;
}

extern "C" ompdag_status condag_eval_graphs_gpu(const condag_gpack *p, int32_t m, int64_t *out,
                                                ompdag_batch_stats *stats, ompdag_error *err)
{
    ompdag_status st = need_device(err);
    if (st) return st;
    std::lock_guard<std::mutex> guard(g_dev.lock);
    cudaStream_t s;
    if ((st = stage_batch(p->pack, p->pack_bytes, (size_t)p->n, p->ngraphs, stats, &s, err)))
        return st;
    const condag_gpack d = gpack_on_device(p, g_dev.pack);
    const int32_t blocks = (p->ngraphs + CONDAG_BLOCK - 1) / CONDAG_BLOCK;
    condag_graph_kernel<<<blocks, CONDAG_BLOCK, 0, s>>>(d, m, g_dev.rows, g_dev.out);
    stats->launches++;
    return fetch_results(out, p->ngraphs, s, stats, "running the per-graph kernel", err);
}

extern "C" ompdag_status condag_eval_gpu(const condag_batch *b, int32_t m, int64_t *out,
                                         ompdag_batch_stats *stats, ompdag_error *err)
{
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0)
        return ompdag_error_set(
            err, OMPDAG_ERR_UNSUPPORTED,
            "device gpu: no CUDA device (%s); use --device gpu-sim, cpu-par or cpu",
            e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    std::lock_guard<std::mutex> guard(g_dev.lock);
    cudaStream_t st;
    ompdag_status status =
        stage_batch(b->pack, b->pack_bytes, (size_t)b->n, b->ngraphs, stats, &st, err);
    if (status) return status;
    const condag_batch d = on_device(b, g_dev.pack);
    for (int32_t l = 0; l < b->nlevels; ++l) {
        int32_t count = b->level_off[l + 1] - b->level_off[l];
        int32_t blocks = (count + CONDAG_BLOCK - 1) / CONDAG_BLOCK;
        condag_level_kernel<<<blocks, CONDAG_BLOCK, 0, st>>>(d, d.level_nodes + b->level_off[l],
                                                             count, m, g_dev.rows);
        stats->launches++;
    }
    const int32_t gblocks = (b->ngraphs + CONDAG_BLOCK - 1) / CONDAG_BLOCK;
    condag_gather_kernel<<<gblocks, CONDAG_BLOCK, 0, st>>>(d, g_dev.rows, g_dev.out);
    stats->launches++;
    return fetch_results(out, b->ngraphs, st, stats, "running the level kernels", err);
}
