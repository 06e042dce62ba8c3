/*
 * test_runtime.c — real threaded runs: every iteration exactly once under
 * every policy with CPU threads, simulated GPUs and scripted GPUs; the
 * dedicated host thread's sub-chunk give-back; the starvation rule with a
 * simulated GPU much slower than the CPUs; reports; argument errors.
 */
#include <jansson.h>
#include <stdatomic.h>
#include <stdio.h>

#include "offload_test_util.h"

typedef struct counter {
    int64_t n;
    _Atomic int *hits;
    int spin; /* work per iteration */
} counter;

static void count_body(int64_t b, int64_t e, void *ctx)
{
    counter *c = ctx;
    for (int64_t i = b; i < e; ++i) {
        volatile double x = 1;
        for (int k = 0; k < c->spin; ++k)
            x = x * 1.0000001 + 1e-9;
        atomic_fetch_add_explicit(&c->hits[i], 1, memory_order_relaxed);
    }
}

static counter *counter_new(int64_t n, int spin)
{
    counter *c = calloc(1, sizeof *c);
    c->n = n;
    c->spin = spin;
    c->hits = calloc((size_t)(n > 0 ? n : 1), sizeof *c->hits);
    return c;
}

static void counter_check_once(const counter *c, const char *what)
{
    for (int64_t i = 0; i < c->n; ++i)
        cr_assert_eq(atomic_load(&c->hits[i]), 1, "%s: iteration %lld ran %d times", what,
                     (long long)i, atomic_load(&c->hits[i]));
}

static void counter_free(counter *c)
{
    free((void *)c->hits);
    free(c);
}

static int64_t report_total(const ompdag_offload_report *r)
{
    int64_t sum = 0;
    for (int d = 0; d < ompdag_offload_report_devices(r); ++d) {
        ompdag_offload_device_stats st;
        cr_assert_eq(ompdag_offload_report_device(r, d, &st, NULL), OMPDAG_OK);
        sum += st.iterations;
    }
    return sum;
}

Test(runtime, every_policy_runs_every_iteration_once)
{
    const int sims[] = {0, 1, 2};
    for (int p = 0; p < OMPDAG_OFFLOAD_POLICY_COUNT; ++p)
        for (size_t g = 0; g < 3; ++g) {
            int64_t n = 20011;
            counter *c = counter_new(n, 20);
            ompdag_offload_opts o;
            ompdag_offload_opts_init(&o);
            o.policy = (ompdag_offload_policy)p;
            o.cpu_threads = 2;
            o.sim_gpus = sims[g];
            o.sim_speed = 3;
            o.gpu_quantum = 32;
            o.static_gpu_share = 0.5;
            ompdag_offload_report *r = NULL;
            ompdag_error err = {0};
            cr_assert_eq(ompdag_offload_for(n, count_body, NULL, c, &o, &r, &err), OMPDAG_OK, "%s",
                         err.message);
            char what[64];
            snprintf(what, sizeof what, "%s with %d simulated GPUs",
                     ompdag_offload_policy_name(o.policy), sims[g]);
            counter_check_once(c, what);
            cr_assert_eq(report_total(r), n, "%s: report sums to n", what);
            cr_assert_eq(ompdag_offload_report_devices(r), 2 + 2 * sims[g]);
            cr_assert_eq(ompdag_offload_report_policy(r), o.policy);
            cr_assert_geq(ompdag_offload_report_imbalance_s(r), 0);
            if (o.policy == OMPDAG_OFFLOAD_DTSA)
                cr_assert_leq(ompdag_offload_report_profiled(r), n / 5, "20%% cap");
            else
                cr_assert_eq(ompdag_offload_report_profiling_share(r), 0);
            /* The chunk log covers [0, n) once, counting given-back ranges. */
            int64_t done = 0;
            for (int64_t i = 0; i < ompdag_offload_report_chunks(r); ++i) {
                ompdag_offload_chunk ch;
                cr_assert_eq(ompdag_offload_report_chunk(r, i, &ch, NULL), OMPDAG_OK);
                cr_assert_leq(ch.done, ch.end - ch.begin);
                done += ch.done;
            }
            cr_assert_eq(done, n, "%s: chunk log", what);
            ompdag_offload_report_destroy(r);
            counter_free(c);
        }
}

Test(runtime, empty_and_tiny_regions)
{
    for (int64_t n = 0; n < 4; ++n) {
        counter *c = counter_new(n, 0);
        ompdag_offload_opts o;
        ompdag_offload_opts_init(&o);
        o.cpu_threads = 3;
        o.sim_gpus = 1;
        ompdag_offload_report *r = NULL;
        cr_assert_eq(ompdag_offload_for(n, count_body, NULL, c, &o, &r, NULL), OMPDAG_OK);
        counter_check_once(c, "tiny");
        cr_assert_eq(report_total(r), n);
        ompdag_offload_report_destroy(r);
        counter_free(c);
    }
}

/* A scripted GPU: runs the body at launch and reports completion on the
 * `polls`-th query, so the host thread's steps are deterministic. */
typedef struct scripted_gpu {
    off_gpu g;
    counter *c;
    int polls, seen, launches;
    double launched;
    int64_t len;
} scripted_gpu;

static void sg_launch(off_gpu *g, int64_t b, int64_t e)
{
    scripted_gpu *s = (scripted_gpu *)g;
    count_body(b, e, s->c);
    s->seen = 0;
    ++s->launches;
}

static bool sg_query(off_gpu *g, double *done_s)
{
    scripted_gpu *s = (scripted_gpu *)g;
    if (++s->seen < s->polls) return false;
    *done_s = ompdag_now_s();
    return true;
}

static void sg_destroy(off_gpu *g)
{
    (void)g;
}

static const off_gpu_ops sg_ops = {sg_launch, sg_query, sg_destroy};

Test(runtime, host_thread_puts_unfinished_sub_chunks_back)
{
    /* No CPU worker: one scripted GPU and its host thread.  Poll 1: the GPU
     * runs, the host takes a block of 8 sub-chunks; poll 2: it runs one;
     * poll 3: the GPU is done, 7 sub-chunks go back and the GPU's next chunk
     * starts with them. */
    int64_t n = 4096;
    counter *c = counter_new(n, 0);
    scripted_gpu sg = {.g = {.ops = &sg_ops, .kind = OMPDAG_DEVICE_SIM_GPU, .name = "script0"},
                       .c = c,
                       .polls = 3};
    off_gpu *gpus[1] = {&sg.g};
    ompdag_offload_opts o;
    ompdag_offload_opts_init(&o);
    o.cpu_threads = 0;
    o.initial_chunk = 64;
    o.sub_chunks = 8;
    ompdag_offload_report *r = NULL;
    ompdag_error err = {0};
    cr_assert_eq(off_run(n, count_body, c, &o, gpus, 1, &r, &err), OMPDAG_OK, "%s", err.message);
    counter_check_once(c, "give-back");
    cr_assert_eq(report_total(r), n);
    ompdag_offload_device_stats host;
    cr_assert_eq(ompdag_offload_report_device(r, 1, &host, NULL), OMPDAG_OK);
    cr_assert_eq(host.kind, OMPDAG_DEVICE_GPU_HOST);
    cr_assert_gt(host.given_back, 0, "sub-chunks were put back");
    cr_assert_gt(host.iterations, 0, "and some ran on the host thread");
    /* The first host block: 64 iterations, 8 per sub-chunk, 1 ran, 56 back. */
    ompdag_offload_chunk first_host = {0};
    for (int64_t i = 0; i < ompdag_offload_report_chunks(r); ++i) {
        ompdag_offload_chunk ch;
        ompdag_offload_report_chunk(r, i, &ch, NULL);
        if (ch.device == 1) {
            first_host = ch;
            break;
        }
    }
    cr_assert_eq(first_host.end - first_host.begin, 64);
    cr_assert_eq(first_host.done, 8);
    /* The next GPU chunk begins where the host stopped. */
    bool found = false;
    for (int64_t i = 0; i < ompdag_offload_report_chunks(r); ++i) {
        ompdag_offload_chunk ch;
        ompdag_offload_report_chunk(r, i, &ch, NULL);
        if (ch.device == 0 && ch.begin == first_host.begin + 8) found = true;
    }
    cr_assert(found, "the given-back range was handed out again");
    ompdag_offload_report_destroy(r);
    counter_free(c);
}

/* A scripted slow GPU: the body runs at launch, completion is seen on the
 * third poll (so the host thread runs one sub-chunk per GPU chunk), and the reported time makes it
 * 1000 iterations/s, far below the host thread's CPU rate. */
static bool slow_query(off_gpu *g, double *done_s)
{
    scripted_gpu *s = (scripted_gpu *)g;
    if (++s->seen < s->polls) return false;
    *done_s = s->launched + (double)s->len / 1000.0;
    return true;
}

static void slow_launch(off_gpu *g, int64_t b, int64_t e)
{
    scripted_gpu *s = (scripted_gpu *)g;
    sg_launch(g, b, e);
    s->launched = ompdag_now_s();
    s->len = e - b;
}

static const off_gpu_ops slow_ops = {slow_launch, slow_query, sg_destroy};

Test(runtime, slow_gpu_gets_no_chunk_near_the_end)
{
    /* One host thread, no other CPU worker: the run is one deterministic
     * sequence.  After profiling, the GPU's next chunk (at least one quantum
     * of 64 at 1000/s = 64 ms) would outlast R/Vc on the host thread. */
    int64_t n = 60000;
    counter *c = counter_new(n, 0);
    scripted_gpu sg = {.g = {.ops = &slow_ops, .kind = OMPDAG_DEVICE_SIM_GPU, .name = "slow0"},
                       .c = c,
                       .polls = 3};
    off_gpu *gpus[1] = {&sg.g};
    ompdag_offload_opts o;
    ompdag_offload_opts_init(&o);
    o.cpu_threads = 0;
    o.initial_chunk = 64;
    o.gpu_quantum = 64;
    ompdag_offload_report *r = NULL;
    ompdag_error err = {0};
    cr_assert_eq(off_run(n, count_body, c, &o, gpus, 1, &r, &err), OMPDAG_OK, "%s", err.message);
    counter_check_once(c, "slow gpu");
    ompdag_offload_device_stats gpu, host;
    ompdag_offload_report_device(r, 0, &gpu, NULL);
    ompdag_offload_report_device(r, 1, &host, NULL);
    cr_assert(gpu.refused, "the slow GPU is refused");
    cr_assert_gt(gpu.iterations, 0);
    cr_assert_eq(gpu.iterations, gpu.profiling_iterations, "it ran profiling chunks only");
    cr_assert_eq(gpu.iterations + host.iterations, n);
    /* Every chunk after the GPU's last one went to the host thread, and they
     * were most of the work. */
    int64_t nch = ompdag_offload_report_chunks(r), last_gpu = -1, after = 0;
    for (int64_t i = 0; i < nch; ++i) {
        ompdag_offload_chunk ch;
        ompdag_offload_report_chunk(r, i, &ch, NULL);
        if (ch.device == 0) last_gpu = i;
    }
    for (int64_t i = last_gpu + 1; i < nch; ++i) {
        ompdag_offload_chunk ch;
        ompdag_offload_report_chunk(r, i, &ch, NULL);
        cr_assert_eq(ch.device, 1);
        after += ch.done;
    }
    cr_assert_gt(after, n / 2);
    ompdag_offload_report_destroy(r);
    counter_free(c);
}

/* A GPU whose every chunk fails (as a failed kernel launch would): nothing
 * runs on it, the chunk goes back to the pool; under dtsa the host thread
 * runs it, under the baselines (whose host threads do not compute) the
 * calling thread runs what is left after the threads end. */
static void failing_launch(off_gpu *g, int64_t b, int64_t e)
{
    (void)b, (void)e;
    ((scripted_gpu *)g)->launches++;
}

static bool failing_query(off_gpu *g, double *done_s)
{
    g->failure = "scripted device failure";
    *done_s = ompdag_now_s();
    return true;
}

static const off_gpu_ops failing_ops = {failing_launch, failing_query, sg_destroy};

Test(runtime, failed_gpu_chunks_are_rerun_on_cpus)
{
    for (int p = 0; p < OMPDAG_OFFLOAD_POLICY_COUNT; ++p) {
        int64_t n = 10000;
        counter *c = counter_new(n, 0);
        scripted_gpu sg = {.g = {.ops = &failing_ops, .kind = OMPDAG_DEVICE_GPU, .name = "bad0"},
                           .c = c};
        off_gpu *gpus[1] = {&sg.g};
        ompdag_offload_opts o;
        ompdag_offload_opts_init(&o);
        o.policy = (ompdag_offload_policy)p;
        o.cpu_threads = 0; /* the GPU surely gets the first chunk */
        ompdag_error err = {0};
        cr_assert_eq(off_run(n, count_body, c, &o, gpus, 1, NULL, &err), OMPDAG_ERR_UNSUPPORTED,
                     "policy %d", p);
        cr_assert(strstr(err.message, "bad0") && strstr(err.message, "scripted device failure"),
                  "%s", err.message);
        cr_assert_eq(sg.launches, 1, "a failed GPU gets no second chunk");
        counter_check_once(c, "failed gpu");
        counter_free(c);
    }
}

Test(runtime, slow_simulated_gpu_gets_a_small_share)
{
    /* A simulated GPU 50 times slower than a CPU thread: whatever the
     * timing, every iteration runs once and the GPU does a small part. */
    int64_t n = 60000;
    counter *c = counter_new(n, 200);
    ompdag_offload_opts o;
    ompdag_offload_opts_init(&o);
    o.cpu_threads = 2;
    o.sim_gpus = 1;
    o.sim_speed = 0.02;
    o.sim_latency_s = 0;
    o.gpu_quantum = 64;
    o.initial_chunk = 64;
    ompdag_offload_report *r = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_offload_for(n, count_body, NULL, c, &o, &r, &err), OMPDAG_OK, "%s",
                 err.message);
    counter_check_once(c, "slow sim gpu");
    ompdag_offload_device_stats gpu;
    cr_assert_eq(ompdag_offload_report_device(r, 2, &gpu, NULL), OMPDAG_OK);
    cr_assert_eq(gpu.kind, OMPDAG_DEVICE_SIM_GPU);
    cr_assert_lt(gpu.iterations, n / 4);
    cr_assert_eq(report_total(r), n);
    ompdag_offload_report_destroy(r);
    counter_free(c);
}

Test(runtime, dtsa_host_thread_computes_while_sim_gpu_runs)
{
    /* Only the GPU's host thread and a simulated GPU with a 1 ms launch
     * latency: every GPU chunk leaves the host time to compute, and the GPU
     * always gets the first chunk. */
    int64_t n = 20000;
    counter *c = counter_new(n, 50);
    ompdag_offload_opts o;
    ompdag_offload_opts_init(&o);
    o.cpu_threads = 0;
    o.sim_gpus = 1;
    o.sim_speed = 0.5;
    o.sim_latency_s = 1e-3;
    ompdag_offload_report *r = NULL;
    cr_assert_eq(ompdag_offload_for(n, count_body, NULL, c, &o, &r, NULL), OMPDAG_OK);
    counter_check_once(c, "dtsa host");
    ompdag_offload_device_stats host, gpu;
    ompdag_offload_report_device(r, 0, &gpu, NULL);
    ompdag_offload_report_device(r, 1, &host, NULL);
    cr_assert_eq(gpu.kind, OMPDAG_DEVICE_SIM_GPU);
    cr_assert_eq(host.kind, OMPDAG_DEVICE_GPU_HOST);
    cr_assert_gt(gpu.iterations, 0);
    cr_assert_gt(gpu.profiling_iterations, 0);
    cr_assert_gt(host.iterations, 0, "the dedicated thread computed CPU sub-chunks");
    cr_assert_eq(gpu.iterations + host.iterations, n);
    ompdag_offload_report_destroy(r);

    /* Under a baseline the host thread only launches and polls. */
    memset((void *)c->hits, 0, (size_t)n * sizeof *c->hits);
    o.policy = OMPDAG_OFFLOAD_GSS;
    o.sim_latency_s = 1e-5;
    cr_assert_eq(ompdag_offload_for(n, count_body, NULL, c, &o, &r, NULL), OMPDAG_OK);
    counter_check_once(c, "gss host");
    ompdag_offload_report_device(r, 0, &gpu, NULL);
    ompdag_offload_report_device(r, 1, &host, NULL);
    cr_assert_eq(host.kind, OMPDAG_DEVICE_GPU_HOST);
    cr_assert_eq(host.iterations, 0);
    cr_assert_eq(gpu.iterations, n);
    ompdag_offload_report_destroy(r);
    counter_free(c);
}

Test(runtime, report_writes_text_and_json)
{
    int64_t n = 5000;
    counter *c = counter_new(n, 0);
    ompdag_offload_opts o;
    ompdag_offload_opts_init(&o);
    o.cpu_threads = 2;
    o.sim_gpus = 1;
    ompdag_offload_report *r = NULL;
    cr_assert_eq(ompdag_offload_for(n, count_body, NULL, c, &o, &r, NULL), OMPDAG_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_eq(ompdag_offload_report_write(r, f, true, NULL), OMPDAG_OK);
    fclose(f);
    json_error_t je;
    json_t *j = json_loads(buf, 0, &je);
    cr_assert_not_null(j, "report JSON: %s", je.text);
    cr_assert_str_eq(json_string_value(json_object_get(j, "policy")), "dtsa");
    cr_assert_eq(json_integer_value(json_object_get(j, "n")), n);
    json_t *devs = json_object_get(j, "devices");
    cr_assert_eq(json_array_size(devs), 4);
    int64_t sum = 0;
    for (size_t i = 0; i < json_array_size(devs); ++i)
        sum += json_integer_value(json_object_get(json_array_get(devs, i), "iterations"));
    cr_assert_eq(sum, n);
    json_decref(j);
    free(buf);
    f = open_memstream(&buf, &len);
    cr_assert_eq(ompdag_offload_report_write(r, f, false, NULL), OMPDAG_OK);
    fclose(f);
    cr_assert(strstr(buf, "simgpu0") && strstr(buf, "host0") && strstr(buf, "cpu1"), "%s", buf);
    free(buf);
    double share = ompdag_offload_report_gpu_share(r);
    ompdag_offload_device_stats gpu;
    ompdag_offload_report_device(r, 2, &gpu, NULL);
    cr_assert_eq(gpu.kind, OMPDAG_DEVICE_SIM_GPU);
    if (gpu.iterations > 0)
        cr_assert(share > 0 && share < 1, "gpu share %g", share);
    else
        cr_assert_eq(share, 0);
    ompdag_offload_report_destroy(r);
    counter_free(c);
}

Test(runtime, rejects_bad_arguments)
{
    counter *c = counter_new(10, 0);
    ompdag_offload_opts o;
    ompdag_offload_opts_init(&o);
    ompdag_error err = {0};
    ompdag_offload_report *r = (ompdag_offload_report *)&err; /* must be reset */
    cr_assert_eq(ompdag_offload_for(10, NULL, NULL, c, &o, &r, &err), OMPDAG_ERR_ARGUMENT);
    cr_assert_null(r);
    cr_assert_eq(ompdag_offload_for(-1, count_body, NULL, c, &o, NULL, &err), OMPDAG_ERR_ARGUMENT);
    o.cpu_threads = 0;
    cr_assert_eq(ompdag_offload_for(10, count_body, NULL, c, &o, NULL, &err), OMPDAG_ERR_ARGUMENT);
    cr_assert(strstr(err.message, "no CPU thread"), "%s", err.message);
    ompdag_offload_opts_init(&o);
    o.sub_chunks = 0;
    cr_assert_eq(ompdag_offload_for(10, count_body, NULL, c, &o, NULL, &err), OMPDAG_ERR_ARGUMENT);
    ompdag_offload_opts_init(&o);
    o.sim_gpus = 1;
    o.sim_speed = 0;
    cr_assert_eq(ompdag_offload_for(10, count_body, NULL, c, &o, NULL, &err), OMPDAG_ERR_ARGUMENT);
    ompdag_offload_policy p;
    cr_assert_eq(ompdag_offload_policy_parse("dss", &p, NULL), OMPDAG_OK);
    cr_assert_eq(p, OMPDAG_OFFLOAD_DSS);
    cr_assert_eq(ompdag_offload_policy_parse("fastest", &p, &err), OMPDAG_ERR_ARGUMENT);
    counter_free(c);
}
