/*
 * device_sim.c — a simulated GPU: the stand-in for a CUDA device on machines
 * without one.  A launch hands [b, e) to the device's own thread, which runs
 * the body and then holds the completion until
 *     launch time + latency + (thread CPU time of the body) / speed,
 * so the device looks `speed` times as fast as one CPU thread with a fixed
 * launch latency (or slower, when the body's wall time is longer than that
 * on a busy machine).  The host thread sees only launch and poll, exactly as
 * with a CUDA stream, so the dedicated-thread logic of runtime.c runs the
 * same for both.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "offload_internal.h"

typedef struct sim_gpu {
    ompdag_offload_cpu_fn body;
    void *ctx;
    double speed, latency_s;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool have_job, quit;
    int64_t b, e;
    double launched_s;
    atomic_bool done;
    double done_s;           /* written before done is set */
} sim_gpu;

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_until(double t_s)
{
    struct timespec ts;
    ts.tv_sec = (time_t)t_s;
    ts.tv_nsec = (long)((t_s - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec += 1;
        ts.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void *sim_main(void *arg)
{
    sim_gpu *g = arg;
    pthread_mutex_lock(&g->mu);
    for (;;) {
        while (!g->have_job && !g->quit)
            pthread_cond_wait(&g->cv, &g->mu);
        if (g->quit)
            break;
        int64_t b = g->b, e = g->e;
        double t0 = g->launched_s;
        g->have_job = false;
        pthread_mutex_unlock(&g->mu);

        double c0 = thread_cpu_s();
        g->body(b, e, g->ctx);
        double cpu = thread_cpu_s() - c0;
        double finish = t0 + g->latency_s + cpu / g->speed;
        if (ompdag_now_s() < finish)
            sleep_until(finish);
        double now = ompdag_now_s();
        g->done_s = now > finish ? now : finish;
        atomic_store_explicit(&g->done, true, memory_order_release);

        pthread_mutex_lock(&g->mu);
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

static void sim_launch(off_gpu *og, int64_t b, int64_t e)
{
    sim_gpu *g = og->impl;
    pthread_mutex_lock(&g->mu);
    atomic_store_explicit(&g->done, false, memory_order_relaxed);
    g->b = b;
    g->e = e;
    g->launched_s = ompdag_now_s();
    g->have_job = true;
    pthread_cond_signal(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

static bool sim_query(off_gpu *og, double *done_s)
{
    sim_gpu *g = og->impl;
    if (!atomic_load_explicit(&g->done, memory_order_acquire))
        return false;
    *done_s = g->done_s;
    return true;
}

static void sim_destroy(off_gpu *og)
{
    if (!og)
        return;
    sim_gpu *g = og->impl;
    pthread_mutex_lock(&g->mu);
    g->quit = true;
    pthread_cond_signal(&g->cv);
    pthread_mutex_unlock(&g->mu);
    pthread_join(g->thread, NULL);
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mu);
    free(g);
    free(og);
}

static const off_gpu_ops sim_ops = {sim_launch, sim_query, sim_destroy};

ompdag_status off_gpu_sim_create(ompdag_offload_cpu_fn body, void *ctx, double speed,
                                 double latency_s, const char *name, off_gpu **out,
                                 ompdag_error *err)
{
    *out = NULL;
    if (!body)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "offload: simulated GPU has no body");
    if (!(speed > 0) || !isfinite(speed) || !(latency_s >= 0) || !isfinite(latency_s))
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "offload: simulated GPU needs speed > 0 and latency >= 0 "
                                "(got %g, %g)", speed, latency_s);
    off_gpu *og = calloc(1, sizeof *og);
    sim_gpu *g = calloc(1, sizeof *g);
    if (!og || !g) {
        free(og);
        free(g);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "offload: out of memory");
    }
    g->body = body;
    g->ctx = ctx;
    g->speed = speed;
    g->latency_s = latency_s;
    atomic_init(&g->done, false);
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    if (pthread_create(&g->thread, NULL, sim_main, g) != 0) {
        pthread_cond_destroy(&g->cv);
        pthread_mutex_destroy(&g->mu);
        free(og);
        free(g);
        return ompdag_error_set(err, OMPDAG_ERR_LIMIT, "offload: cannot start a device thread");
    }
    og->ops = &sim_ops;
    og->kind = OMPDAG_DEVICE_SIM_GPU;
    og->impl = g;
    snprintf(og->name, sizeof og->name, "%s", name ? name : "simgpu");
    *out = og;
    return OMPDAG_OK;
}
