/*
 * test_sched.c — the policy rules of seed 000 on a virtual clock with
 * scripted rates: profiling termination (stable rates; the 20% cap), the
 * proportional chunks B1/V1 = … = Bc/Vc, the GSS tail Bc = R/(ΣVi + nCores·Vc),
 * the GPU-starvation rule, the give-back queue, and the baselines' chunk
 * rules.  Deterministic: no threads, no clock.
 */
#include <math.h>

#include "offload_test_util.h"

/* Rates in iterations/s per device, plus a per-chunk latency. */
typedef struct script {
    double V[8];
    double latency[8];
} script;

static double scripted(int d, int64_t k, int64_t len, void *u)
{
    (void)k;
    const script *sc = u;
    return sc->latency[d] + (double)len / sc->V[d];
}

static ompdag_offload_opts dtsa_opts(int64_t B0)
{
    ompdag_offload_opts o;
    ompdag_offload_opts_init(&o);
    o.policy = OMPDAG_OFFLOAD_DTSA;
    o.initial_chunk = B0;
    return o;
}

static const ompdag_offload_device_kind four_cpu_one_gpu[5] = {OMPDAG_DEVICE_CPU, OMPDAG_DEVICE_CPU,
                                                               OMPDAG_DEVICE_CPU, OMPDAG_DEVICE_CPU,
                                                               OMPDAG_DEVICE_SIM_GPU};

Test(sched, profiling_ends_when_every_rate_is_stable)
{
    ompdag_offload_opts o = dtsa_opts(100);
    off_sched *s = tu_sched(100000, four_cpu_one_gpu, 5, &o);
    script sc = {.V = {1000, 1000, 1000, 1000, 8000}};
    tu_simulate(s, scripted, &sc, NULL, NULL, NULL);
    tu_assert_cover(s);
    cr_assert(!s->profiling);
    cr_assert_lt(s->profiled, s->profile_cap_iters, "ended by stability, not by the cap");
    int first[5] = {0};
    for (int64_t i = 0; i < s->nlog; ++i) {
        const ompdag_offload_chunk *c = &s->log[i];
        if (c->phase != OMPDAG_PHASE_PROFILING) continue;
        int64_t len = c->end - c->begin;
        /* First chunk B0, then 2·B0 (one doubling: no previous rate), then stable. */
        if (!first[c->device]++)
            cr_assert_eq(len, 100);
        else
            cr_assert_eq(len, 200, "device %d profiling chunk %lld", c->device, (long long)len);
    }
    for (int d = 0; d < 5; ++d)
        cr_assert(s->dev[d].stable, "device %d", d);
    off_sched_destroy(s);
}

Test(sched, profiling_is_capped_at_20_percent_and_doubles)
{
    /* The GPU's launch latency makes its rate grow with the chunk: it never
     * stabilises within 20% of n, so the cap ends the phase. */
    ompdag_offload_opts o = dtsa_opts(100);
    off_sched *s = tu_sched(100000, four_cpu_one_gpu, 5, &o);
    script sc = {.V = {1000, 1000, 1000, 1000, 1e6}, .latency = {0, 0, 0, 0, 0.01}};
    tu_simulate(s, scripted, &sc, NULL, NULL, NULL);
    tu_assert_cover(s);
    cr_assert_eq(s->profile_cap_iters, 20000);
    cr_assert_eq(s->profiled, 20000, "profiling ran to the cap exactly");
    int64_t prev = 0, gpu_chunks = 0;
    for (int64_t i = 0; i < s->nlog; ++i) {
        const ompdag_offload_chunk *c = &s->log[i];
        if (c->phase != OMPDAG_PHASE_PROFILING || c->device != 4) continue;
        int64_t len = c->end - c->begin;
        if (prev)
            cr_assert(len == 2 * prev || len < 2 * prev, "doubling: %lld after %lld",
                      (long long)len, (long long)prev);
        if (prev && len != 2 * prev) /* only the chunk the cap clipped is short */
            cr_assert_eq(s->log[i].end - s->log[i].begin, len);
        prev = len;
        ++gpu_chunks;
    }
    cr_assert_geq(gpu_chunks, 5, "the GPU doubled several times (%lld chunks)",
                  (long long)gpu_chunks);
    off_sched_destroy(s);
}

typedef struct phase_check {
    int weighted_cpu, weighted_gpu, tail_cpu, tail_gpu;
    int64_t Bc, Bg;
} phase_check;

static void check_chunks(off_sched *s, int d, int64_t R, off_range r, int64_t id, void *u)
{
    phase_check *pc = u;
    const ompdag_offload_chunk *c = &s->log[id];
    if (c->phase == OMPDAG_PHASE_PROFILING) return;
    double Vc = 0, Vg = s->dev[4].V;
    for (int i = 0; i < 4; ++i)
        Vc += s->dev[i].V / 4;
    double Vtot = Vg + 4 * Vc; /* ΣVi + nCores·Vc */
    int64_t len = r.end - r.begin;
    if (c->phase == OMPDAG_PHASE_TAIL) {
        double V = d == 4 ? Vg : Vc;
        int64_t want = (int64_t)ceil((double)R * V / Vtot);
        if (want < 1) want = 1;
        if (want > R) want = R;
        cr_assert_eq(len, want, "tail chunk of device %d at R=%lld: %lld, want %lld", d,
                     (long long)R, (long long)len, (long long)want);
        ++*(d == 4 ? &pc->tail_gpu : &pc->tail_cpu);
    } else {
        if (d == 4) {
            pc->Bg = len;
            ++pc->weighted_gpu;
        } else {
            pc->Bc = len;
            ++pc->weighted_cpu;
        }
    }
}

Test(sched, weighted_chunks_are_proportional_to_rates)
{
    ompdag_offload_opts o = dtsa_opts(100);
    off_sched *s = tu_sched(1000000, four_cpu_one_gpu, 5, &o);
    script sc = {.V = {1000, 1000, 1000, 1000, 8000}};
    phase_check pc = {0};
    tu_simulate(s, scripted, &sc, check_chunks, &pc, NULL);
    tu_assert_cover(s);
    cr_assert_gt(pc.weighted_cpu, 10);
    cr_assert_gt(pc.weighted_gpu, 10);
    /* B1/V1 = Bc/Vc: the GPU's chunk is 8 CPU chunks (up to rounding). */
    cr_assert_leq(llabs(pc.Bg - 8 * pc.Bc), 8, "Bg %lld, Bc %lld", (long long)pc.Bg,
                  (long long)pc.Bc);
    off_sched_destroy(s);
}

Test(sched, gss_tail_follows_the_seed_formula)
{
    ompdag_offload_opts o = dtsa_opts(100);
    off_sched *s = tu_sched(300000, four_cpu_one_gpu, 5, &o);
    script sc = {.V = {1000, 1100, 900, 1000, 8000}};
    phase_check pc = {0};
    tu_simulate(s, scripted, &sc, check_chunks, &pc, NULL);
    tu_assert_cover(s);
    cr_assert_geq(pc.tail_cpu, 8, "tail CPU chunks checked: %d", pc.tail_cpu);
    cr_assert_geq(pc.tail_gpu, 2, "tail GPU chunks checked: %d", pc.tail_gpu);
    off_sched_destroy(s);
}

typedef struct starve_check {
    int64_t refused_at_R;
    int gpu_exec_chunks;
} starve_check;

static void check_starvation(off_sched *s, int d, int64_t R, off_range r, int64_t id, void *u)
{
    starve_check *sc = u;
    if (d != 4 || s->log[id].phase == OMPDAG_PHASE_PROFILING) return;
    double Vc = 0, Vg = s->dev[4].V;
    for (int i = 0; i < 4; ++i)
        Vc += s->dev[i].V / 4;
    /* A GPU chunk is given only when it does not outlast the others. */
    cr_assert_leq((double)(r.end - r.begin) / Vg, (double)R / (4 * Vc) + 1e-9);
    ++sc->gpu_exec_chunks;
}

Test(sched, slow_gpu_gets_no_chunk_near_the_end)
{
    /* The GPU is half a CPU thread and its chunks are multiples of 1000. */
    ompdag_offload_opts o = dtsa_opts(100);
    o.gpu_quantum = 1000;
    int64_t n = 200000;
    off_sched *s = tu_sched(n, four_cpu_one_gpu, 5, &o);
    script sc = {.V = {1000, 1000, 1000, 1000, 500}};
    starve_check st = {0};
    double finish[5] = {0};
    double makespan = tu_simulate(s, scripted, &sc, check_starvation, &st, finish);
    tu_assert_cover(s);
    cr_assert(s->dev[4].refused, "the slow GPU is refused");
    cr_assert(s->dev[4].retired);
    cr_assert_gt(s->dev[4].iterations, 0, "it did work before");
    cr_assert_gt(st.gpu_exec_chunks, 0);
    /* Refused in the tail: at the refusal, less than a quarter of n remained. */
    int64_t last_gpu_begin = 0;
    for (int64_t i = 0; i < s->nlog; ++i)
        if (s->log[i].device == 4) last_gpu_begin = s->log[i].start_s > 0 ? i : last_gpu_begin;
    int64_t dispatched_after = 0;
    for (int64_t i = last_gpu_begin + 1; i < s->nlog; ++i)
        dispatched_after += s->log[i].end - s->log[i].begin;
    cr_assert_lt(dispatched_after, n / 4, "after the GPU's last chunk %lld remained",
                 (long long)dispatched_after);
    /* The GPU does not finish last. */
    cr_assert_lt(finish[4], makespan);
    off_sched_destroy(s);
}

Test(sched, given_back_ranges_are_handed_out_first)
{
    const ompdag_offload_device_kind kinds[3] = {OMPDAG_DEVICE_CPU, OMPDAG_DEVICE_SIM_GPU,
                                                 OMPDAG_DEVICE_GPU_HOST};
    ompdag_offload_opts o = dtsa_opts(10);
    off_sched *s = tu_sched(100, kinds, 3, &o);
    off_range hr, r;
    int64_t hid, id;
    cr_assert_eq(off_sched_next(s, 2, 0, &hr, &hid), OFF_NEXT_CHUNK);
    cr_assert_eq(s->pending_host, 1);
    /* Drain the rest on the CPU. */
    off_next st;
    while ((st = off_sched_next(s, 0, 0, &r, &id)) == OFF_NEXT_CHUNK)
        off_sched_record(s, 0, id, r.end - r.begin, 0.001 * (double)(r.end - r.begin), 0);
    cr_assert_eq(st, OFF_NEXT_WAIT, "R = 0 but a host block is out");
    cr_assert_eq(s->R, 0);
    /* The host ran 3 of its iterations and puts the rest back. */
    cr_assert(off_sched_host_close(s, 2, (off_range){hr.begin + 3, hr.end}));
    cr_assert_eq(s->R, hr.end - hr.begin - 3);
    cr_assert_eq(s->dev[2].given_back, hr.end - hr.begin - 3);
    cr_assert_eq(off_sched_next(s, 0, 0, &r, &id), OFF_NEXT_CHUNK);
    cr_assert_eq(r.begin, hr.begin + 3, "the given-back range comes first");
    while (off_sched_next(s, 0, 0, &r, &id) == OFF_NEXT_CHUNK)
        ;
    cr_assert_eq(off_sched_next(s, 0, 0, &r, &id), OFF_NEXT_DONE);
    cr_assert_eq(off_sched_next(s, 1, 0, &r, &id), OFF_NEXT_DONE);
    off_sched_destroy(s);
}

Test(sched, static_split_by_share)
{
    const ompdag_offload_device_kind kinds[5] = {OMPDAG_DEVICE_CPU, OMPDAG_DEVICE_CPU,
                                                 OMPDAG_DEVICE_CPU, OMPDAG_DEVICE_SIM_GPU,
                                                 OMPDAG_DEVICE_GPU_HOST};
    ompdag_offload_opts o;
    ompdag_offload_opts_init(&o);
    o.policy = OMPDAG_OFFLOAD_STATIC;
    o.static_gpu_share = 0.7;
    off_sched *s = tu_sched(1001, kinds, 5, &o);
    script sc = {.V = {1, 1, 1, 1, 1}};
    tu_simulate(s, scripted, &sc, NULL, NULL, NULL);
    tu_assert_cover(s);
    cr_assert(s->dev[4].excluded, "a baseline's host thread does not compute");
    cr_assert_eq(s->dev[3].iterations, 701, "0.7 of 1001 rounded by largest remainder");
    cr_assert_eq(s->dev[0].iterations + s->dev[1].iterations + s->dev[2].iterations, 300);
    cr_assert_eq(s->dev[0].chunks, 1);
    off_sched_destroy(s);

    o.static_gpu_share = -1; /* equal parts */
    s = tu_sched(1000, kinds, 5, &o);
    tu_simulate(s, scripted, &sc, NULL, NULL, NULL);
    tu_assert_cover(s);
    for (int d = 0; d < 4; ++d)
        cr_assert_eq(s->dev[d].iterations, 250);
    off_sched_destroy(s);
}

static void check_gss(off_sched *s, int d, int64_t R, off_range r, int64_t id, void *u)
{
    (void)d, (void)id, (void)u;
    int64_t P = off_sched_active(s);
    cr_assert_eq(r.end - r.begin, (R + P - 1) / P, "GSS chunk = ceil(R/P)");
}

Test(sched, gss_chunks_are_ceil_R_over_P)
{
    const ompdag_offload_device_kind kinds[3] = {OMPDAG_DEVICE_CPU, OMPDAG_DEVICE_CPU,
                                                 OMPDAG_DEVICE_CPU};
    ompdag_offload_opts o;
    ompdag_offload_opts_init(&o);
    o.policy = OMPDAG_OFFLOAD_GSS;
    off_sched *s = tu_sched(10007, kinds, 3, &o);
    script sc = {.V = {100, 200, 300}};
    tu_simulate(s, scripted, &sc, check_gss, NULL, NULL);
    tu_assert_cover(s);
    cr_assert_eq(s->log[0].end - s->log[0].begin, 3336);
    off_sched_destroy(s);
}

Test(sched, dss_chunks_shrink_linearly)
{
    const ompdag_offload_device_kind kinds[1] = {OMPDAG_DEVICE_CPU};
    ompdag_offload_opts o;
    ompdag_offload_opts_init(&o);
    o.policy = OMPDAG_OFFLOAD_DSS;
    off_sched *s = tu_sched(10000, kinds, 1, &o);
    script sc = {.V = {1000}};
    tu_simulate(s, scripted, &sc, NULL, NULL, NULL);
    tu_assert_cover(s);
    cr_assert_eq(s->log[0].end - s->log[0].begin, 5000, "F = n/(2P)");
    cr_assert_geq(s->nlog, 3);
    int64_t d1 = (s->log[0].end - s->log[0].begin) - (s->log[1].end - s->log[1].begin);
    cr_assert_gt(d1, 0);
    for (int64_t i = 1; i < s->nlog; ++i) {
        int64_t a = s->log[i - 1].end - s->log[i - 1].begin, b = s->log[i].end - s->log[i].begin;
        cr_assert_leq(b, a, "non-increasing");
        if (i + 1 < s->nlog) /* the last one is what was left */
            cr_assert_leq(llabs((a - b) - d1), 1, "constant decrement δ");
    }
    off_sched_destroy(s);
}

Test(sched, every_policy_covers_every_iteration_once)
{
    script sc = {.V = {1000, 700, 3000, 1300, 9000}, .latency = {0, 0, 0.001, 0, 0.002}};
    const ompdag_offload_device_kind kinds[5] = {OMPDAG_DEVICE_CPU, OMPDAG_DEVICE_CPU,
                                                 OMPDAG_DEVICE_SIM_GPU, OMPDAG_DEVICE_CPU,
                                                 OMPDAG_DEVICE_SIM_GPU};
    int64_t sizes[] = {1, 2, 7, 999, 123457};
    for (int p = 0; p < OMPDAG_OFFLOAD_POLICY_COUNT; ++p)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i) {
            ompdag_offload_opts o;
            ompdag_offload_opts_init(&o);
            o.policy = (ompdag_offload_policy)p;
            o.gpu_quantum = 64;
            off_sched *s = tu_sched(sizes[i], kinds, 5, &o);
            tu_simulate(s, scripted, &sc, NULL, NULL, NULL);
            tu_assert_cover(s);
            int64_t sum = 0;
            for (int d = 0; d < 5; ++d)
                sum += s->dev[d].iterations;
            cr_assert_eq(sum, sizes[i], "policy %s n %lld", ompdag_offload_policy_name(o.policy),
                         (long long)sizes[i]);
            off_sched_destroy(s);
        }
}

Test(sched, rejects_bad_arguments)
{
    ompdag_offload_opts o;
    ompdag_offload_opts_init(&o);
    off_sched *s = NULL;
    ompdag_error err = {0};
    const ompdag_offload_device_kind k[1] = {OMPDAG_DEVICE_CPU};
    cr_assert_eq(off_sched_create(-1, k, 1, &o, &s, &err), OMPDAG_ERR_ARGUMENT);
    cr_assert_eq(off_sched_create(10, k, 0, &o, &s, &err), OMPDAG_ERR_ARGUMENT);
    o.policy = (ompdag_offload_policy)42;
    cr_assert_eq(off_sched_create(10, k, 1, &o, &s, &err), OMPDAG_ERR_ARGUMENT);
    o.policy = OMPDAG_OFFLOAD_GSS;
    const ompdag_offload_device_kind host_only[1] = {OMPDAG_DEVICE_GPU_HOST};
    cr_assert_eq(off_sched_create(10, host_only, 1, &o, &s, &err), OMPDAG_ERR_ARGUMENT,
                 "a baseline with only a host thread has no computing device");
    cr_assert_null(s);
}
