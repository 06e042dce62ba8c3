/*
 * runtime-probe/probe.c — libompdag_probe.so, an OMPT tool (OpenMP 5.1 §4,
 * "OMPT interface"; LLVM libomp) that measures every task segment.
 *
 * A segment is the time a task instance's own code runs between two
 * consecutive task scheduling points (OpenMP 5.1 §2.12.6): its begin, each
 * `task` directive it encounters (task_create), each taskwait / end of
 * taskgroup / barrier it reaches (sync_region begin; the next segment starts
 * at the matching end), the begin and end of a `single`/`masked` body, and its
 * completion (task_schedule with ompt_task_complete).  This is exactly the
 * cut of seed 004 §3 (con-DAG nodes are cut at task scheduling points), so
 * each segment covers the con-DAG nodes between two scheduling points; see
 * docs/probe.md for the attribution rule.
 *
 * Own time only: when the task is suspended (task_schedule with a status
 * other than complete) its clock stops and restarts when it is scheduled
 * again, on whatever thread (untied tasks migrate); time spent waiting inside
 * a taskwait or barrier belongs to no segment.  The per-task state lives in
 * the task's ompt_data_t, so it travels with the task.  A per-thread "current
 * task" guards against runtimes that report the wrong prior task
 * (llvm-project #83883, untied tasks): the task really running on the thread
 * is always stopped before another one starts.
 *
 * Recording: each thread appends fixed-size records (ompdag/probe.h) to its
 * own buffer with no lock; a full buffer is written as one chunk with a
 * single writev() under a mutex (once per OMPDAG_PROBE_BUF_RECS records).
 * Memory is bounded by (threads x buffer) + (live tasks x 64 bytes).
 * Buffers are flushed when a thread ends, at runtime shutdown
 * (ompt_finalize_tool) and on SIGINT/SIGTERM; a footer with the counts of
 * records, created and completed tasks written lets the reader prove that
 * nothing was lost between the probe and the file; records the probe could
 * not store (out of memory, write errors) are counted in the footer too.
 *
 * Timestamps: CLOCK_MONOTONIC_RAW ns, read through the invariant TSC when
 * the kernel's clocksource is the TSC (calibrated at start-up; see now_ns).
 *
 * Environment: OMPDAG_TRACE=FILE (default ompdag-PID.trace), OMPDAG_PROBE_CLOCK=raw,
 * OMPDAG_PROBE_EMPTY=1 registers no callbacks (the "empty tool" baseline of
 * the overhead benchmark), OMPDAG_PROBE_DEBUG=1 prints every callback.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <omp-tools.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "ompdag/probe.h"
#include "probe_internal.h"

#define OMPDAG_PROBE_BUF_RECS 4096u
#define EXPORT __attribute__((visibility("default")))

/* ---- state ------------------------------------------------------------------ */

typedef struct task_state {
    uint64_t id;
    uint64_t region_id; /* instance of the enclosing parallel region (0: none) */
    uint64_t cp_region;
    uint64_t cp_task;
    uint64_t cp_start;
    uint64_t run_since; /* ns when it last started running; 0 while stopped */
    uint64_t acc;       /* own ns accumulated in the open segment */
    uint8_t start_kind; /* OMPDAG_PT_NONE while no segment is open (waiting) */
    uint8_t flags;      /* OMPDAG_RECF_* of the task */
    uint8_t seg_flags;  /* OMPDAG_RECF_SUSPENDED of the open segment */
    uint8_t root;       /* inside a single/masked body */
    uint8_t tg_depth;   /* open taskgroups */
    uint8_t has_deps;         /* the runtime reported a depend list for it */
    uint8_t started;          /* it has run (OMPDAG_REC_DEP_START written) */
    uint64_t tg_cp[4];  /* their begin addresses (the `taskgroup` line), innermost last */
    struct task_state *outer; /* implicit tasks: the task that ran here before */
    /* The last time the runtime switched it away (task_schedule with a
     * status other than complete) while it ran, not yet resumed: when, on
     * which probe thread, and that thread's event count then (see resume). */
    uint64_t out_at; /* 0: not switched away */
    uint64_t out_event;
    uint32_t out_thread;
    uint8_t out_entry; /* that switch was an untied task's first (libomp's entry switch) */
    uint8_t switched;  /* it has been switched away before */
} task_state;

typedef struct region_state {
    uint64_t id;
    uint64_t cp;
} region_state;

typedef struct thread_buf {
    struct thread_buf *next;
    uint32_t thread;
    _Atomic uint32_t n; /* records committed in recs[] */
    uint64_t id_seq;
    ompdag_trace_rec recs[OMPDAG_PROBE_BUF_RECS];
} thread_buf;

static int g_fd = -1;
static uint64_t g_header_hash; /* of the header bytes: seeds every chunk checksum */
static bool g_debug;
static pthread_mutex_t g_write_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_list_lock = PTHREAD_MUTEX_INITIALIZER;
static thread_buf *g_bufs;
static _Atomic uint32_t g_thread_seq;
static _Atomic uint64_t g_records; /* records written to the file */
static _Atomic uint64_t g_created; /* explicit TASK_CREATE records written */
static _Atomic uint64_t g_ended;   /* explicit tasks' last segments written */
static _Atomic uint64_t g_dropped; /* records that could not be stored */
static _Atomic uint32_t g_anomalies;
static _Atomic int g_closed;
static struct sigaction g_old_int, g_old_term;
static __thread thread_buf *tls_buf;
static __thread task_state *tls_cur; /* task the probe believes runs here */
/* Events on this thread that may change which code runs here: every segment
 * opened or closed and every task_schedule.  A task switched away and back
 * with exactly one count between ran nothing else on this thread (resume). */
static __thread uint64_t tls_events;

static ompt_start_tool_result_t g_tool;
static uint64_t g_runtime_name; /* the first 8 bytes of the runtime's version string */

/* A task's ompt_data_t holds its task_state while it lives.  A task with a
 * depend list may be named as the *predecessor* of a dependence
 * (ompt_callback_task_dependence, on another thread) after its completion
 * event freed that state: libomp reports completion before it releases the
 * task's dependence node.  So such a task's data is replaced, under a striped
 * lock, by its id tagged with bit 0 (states are 16-byte aligned) before the
 * state is freed, and readers of a predecessor's id take the same lock. */
#define DEP_LOCKS 64
static _Atomic uint8_t g_dep_lock[DEP_LOCKS];

static void dep_lock(const ompt_data_t *d)
{
    _Atomic uint8_t *l = &g_dep_lock[((uintptr_t)d >> 4) % DEP_LOCKS];
    while (atomic_exchange_explicit(l, 1, memory_order_acquire))
        sched_yield();
}

static void dep_unlock(const ompt_data_t *d)
{
    atomic_store_explicit(&g_dep_lock[((uintptr_t)d >> 4) % DEP_LOCKS], 0, memory_order_release);
}

static inline task_state *state_of(const ompt_data_t *d)
{
    return d && !(d->value & 1) ? (task_state *)d->ptr : NULL;
}

/* The id of the task whose data is d, live or finished (0: unknown). */
static uint64_t dep_task_id(const ompt_data_t *d)
{
    if (!d) return 0;
    dep_lock(d);
    uint64_t id = (d->value & 1) ? d->value >> 1 : d->ptr ? ((task_state *)d->ptr)->id : 0;
    dep_unlock(d);
    return id;
}

static inline uint64_t raw_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Invariant TSC, calibrated against CLOCK_MONOTONIC_RAW at start-up, when the
 * CPU has one and the kernel itself trusts it (clocksource "tsc"); a TSC read
 * costs a fraction of a clock_gettime.  ns = base_ns + (tsc - base_tsc) *
 * mult / 2^32.  OMPDAG_PROBE_CLOCK=raw forces clock_gettime. */
static bool g_use_tsc;
static uint64_t g_tsc_base, g_ns_base, g_tsc_mult;

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
static void tsc_calibrate(void)
{
    const char *force = getenv("OMPDAG_PROBE_CLOCK");
    if (force && !strcmp(force, "raw"))
        return;
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000007, &a, &b, &c, &d) || !(d & (1u << 8)))
        return; /* no invariant TSC */
    char src[32] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f) {
        if (!fgets(src, sizeof src, f))
            src[0] = 0;
        fclose(f);
    }
    if (strncmp(src, "tsc", 3))
        return;
    uint64_t t0 = raw_ns(), c0 = __rdtsc();
    struct timespec nap = {0, 5000000};
    nanosleep(&nap, NULL);
    uint64_t t1 = raw_ns(), c1 = __rdtsc();
    if (c1 <= c0 || t1 <= t0)
        return;
    g_tsc_mult = (uint64_t)(((unsigned __int128)(t1 - t0) << 32) / (c1 - c0));
    g_tsc_base = c1;
    g_ns_base = t1;
    g_use_tsc = g_tsc_mult > 0;
}

static inline uint64_t now_ns(void)
{
    if (g_use_tsc) {
        uint64_t c = __rdtsc();
        uint64_t d = c > g_tsc_base ? c - g_tsc_base : 0;
        return g_ns_base + (uint64_t)(((unsigned __int128)d * g_tsc_mult) >> 32);
    }
    return raw_ns();
}
#else
static void tsc_calibrate(void) {}
static inline uint64_t now_ns(void)
{
    return raw_ns();
}
#endif

/* ---- output ----------------------------------------------------------------- */

/* Writes `count` records as one chunk.  Caller holds g_write_lock (or is the
 * signal handler that could not get it). */
static void write_chunk(uint32_t thread, const ompdag_trace_rec *recs, uint32_t count)
{
    if (count == 0 || g_fd < 0)
        return;
    ompdag_trace_chunk ch = {OMPDAG_TRACE_CHUNK_MAGIC, thread, count,
                             ompdag_trace_chunk_check(g_header_hash, thread, count, recs)};
    struct iovec iov[2] = {{&ch, sizeof ch}, {(void *)recs, count * sizeof *recs}};
    if (!probe_write_all(g_fd, iov, 2)) {
        atomic_fetch_add(&g_dropped, count);
        return;
    }
    /* The footer's counters describe exactly what reached the file, so a
     * reader detects any chunk lost or cut afterwards. */
    uint64_t created = 0, ended = 0;
    for (uint32_t i = 0; i < count; ++i) {
        created += recs[i].type == OMPDAG_REC_TASK_CREATE;
        ended += recs[i].type == OMPDAG_REC_SEGMENT && recs[i].end_kind == OMPDAG_PT_TASK_END &&
                 !(recs[i].flags & OMPDAG_RECF_IMPLICIT);
    }
    atomic_fetch_add(&g_records, count);
    atomic_fetch_add(&g_created, created);
    atomic_fetch_add(&g_ended, ended);
}

static void buf_flush_locked(thread_buf *b)
{
    uint32_t n = atomic_load_explicit(&b->n, memory_order_acquire);
    write_chunk(b->thread, b->recs, n);
    atomic_store_explicit(&b->n, 0, memory_order_release);
}

static void buf_flush(thread_buf *b)
{
    pthread_mutex_lock(&g_write_lock);
    if (!atomic_load(&g_closed))
        buf_flush_locked(b);
    pthread_mutex_unlock(&g_write_lock);
}

static thread_buf *buf_attach(void)
{
    thread_buf *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->thread = atomic_fetch_add(&g_thread_seq, 1);
    pthread_mutex_lock(&g_list_lock);
    b->next = g_bufs;
    g_bufs = b;
    pthread_mutex_unlock(&g_list_lock);
    tls_buf = b;
    return b;
}

static inline thread_buf *buf_get(void)
{
    return tls_buf ? tls_buf : buf_attach();
}

static inline void emit(const ompdag_trace_rec *r)
{
    thread_buf *b = buf_get();
    if (!b || atomic_load_explicit(&g_closed, memory_order_relaxed)) {
        atomic_fetch_add(&g_dropped, 1);
        return;
    }
    uint32_t n = atomic_load_explicit(&b->n, memory_order_relaxed);
    b->recs[n] = *r;
    b->recs[n].thread = b->thread;
    atomic_store_explicit(&b->n, n + 1, memory_order_release);
    if (n + 1 == OMPDAG_PROBE_BUF_RECS)
        buf_flush(b);
}

static inline uint64_t next_id(void)
{
    thread_buf *b = buf_get();
    if (!b)
        return 0;
    return ((uint64_t)(b->thread + 1) << 40) | ++b->id_seq;
}

/* Flushes every buffer and writes the footer; the file is closed for good. */
static void close_trace(uint8_t footer_flags, bool from_signal)
{
    bool locked = false;
    if (from_signal) {
        for (int i = 0; i < 1000 && !locked; ++i) {
            locked = pthread_mutex_trylock(&g_write_lock) == 0;
            if (!locked)
                sched_yield();
        }
    } else {
        pthread_mutex_lock(&g_write_lock);
        locked = true;
    }
    int expected = 0;
    if (atomic_compare_exchange_strong(&g_closed, &expected, 1) && g_fd >= 0) {
        for (thread_buf *b = g_bufs; b; b = b->next)
            buf_flush_locked(b);
        if (atomic_load(&g_anomalies))
            footer_flags |= OMPDAG_FOOTER_ANOMALY;
        if (g_use_tsc)
            footer_flags |= OMPDAG_FOOTER_TSC;
        ompdag_trace_rec f = {.type = OMPDAG_REC_FOOTER, .flags = footer_flags,
                              .id = atomic_load(&g_records), .aux = atomic_load(&g_created),
                              .dur = atomic_load(&g_ended),
                              .time = now_ns(), .cp_start = atomic_load(&g_dropped),
                              .cp_end = atomic_load(&g_anomalies)};
        write_chunk(UINT32_MAX, &f, 1);
        close(g_fd);
        g_fd = -1;
    }
    if (locked)
        pthread_mutex_unlock(&g_write_lock);
}

/* ---- segments ----------------------------------------------------------------- */

static task_state *state_new(uint8_t flags)
{
    task_state *s = calloc(1, sizeof *s);
    if (!s) {
        atomic_fetch_add(&g_anomalies, 1);
        return NULL;
    }
    s->id = next_id();
    s->flags = flags;
    return s;
}

static void seg_open(task_state *s, uint8_t kind, const void *cp, uint64_t now)
{
    ++tls_events;
    s->start_kind = kind;
    s->cp_start = (uint64_t)(uintptr_t)cp;
    s->acc = 0;
    s->seg_flags = 0;
    s->run_since = now;
}

static void seg_close(task_state *s, uint8_t kind, const void *cp, uint64_t now)
{
    ++tls_events;
    if (s->start_kind == OMPDAG_PT_NONE)
        return;
    if (s->out_at) /* closed while switched away (no runtime does this): not one interval */
        s->seg_flags |= OMPDAG_RECF_SUSPENDED;
    uint64_t dur = s->acc + (s->run_since && now > s->run_since ? now - s->run_since : 0);
    ompdag_trace_rec r = {.type = OMPDAG_REC_SEGMENT, .start_kind = s->start_kind,
                          .end_kind = kind,
                          .flags = (uint8_t)(s->flags | s->seg_flags |
                                             (s->root ? OMPDAG_RECF_ROOT : 0)),
                          .id = s->id, .time = now, .dur = dur, .aux = s->region_id,
                          .cp_region = s->cp_region,
                          .cp_task = s->cp_task, .cp_start = s->cp_start,
                          .cp_end = (uint64_t)(uintptr_t)cp};
    emit(&r);
    s->start_kind = OMPDAG_PT_NONE;
    s->acc = 0;
}

/* A scheduling point inside a running task: close one segment, open the next. */
static void seg_point(task_state *s, uint8_t kind, const void *cp, uint64_t now)
{
    seg_close(s, kind, cp, now);
    seg_open(s, kind, cp, now);
}

static void stop(task_state *s, uint64_t now)
{
    if (s->run_since) {
        s->acc += now > s->run_since ? now - s->run_since : 0;
        s->run_since = 0;
        s->seg_flags |= OMPDAG_RECF_SUSPENDED;
    }
}

/* The runtime switches the running task s away to next (task_schedule, s
 * prior, status not complete): its clock stops, and whether its segment was
 * suspended is decided when it runs again (resume). */
static void switch_out(task_state *s, const task_state *next, uint64_t now)
{
    if (!s->run_since)
        return;
    s->acc += now > s->run_since ? now - s->run_since : 0;
    s->run_since = 0;
    thread_buf *b = buf_get();
    if (!b) {
        s->seg_flags |= OMPDAG_RECF_SUSPENDED; /* its thread cannot be told later */
        return;
    }
    s->out_at = now ? now : 1;
    s->out_event = tls_events;
    s->out_thread = b->thread;
    s->out_entry = !s->switched && (s->flags & OMPDAG_RECF_UNTIED) &&
                   !(s->flags & OMPDAG_RECF_IMPLICIT) && s->start_kind == OMPDAG_PT_TASK_BEGIN &&
                   next && next->start_kind == OMPDAG_PT_NONE;
    s->switched = 1;
}

/* s runs again on this thread (task_schedule, s next), after cur ran here.
 *
 * libomp 14 switches an untied task X to its scheduling parent and straight
 * back (X -> parent -> X) when X starts, and after scheduling points clang
 * gives an untied task a re-entry at (task creation, taskwait, taskyield):
 * the task re-enqueues itself, returns, and the thread pops it again.  X's
 * code stops for a moment, and nothing else runs.  Then the segment is not
 * suspended:
 *
 *  - the first switch of an untied task, in its first segment, to a task
 *    that waits (no segment open), is libomp's entry switch ("the first task
 *    executed only calls __kmpc_omp_task and does not execute code",
 *    kmp_tasking.cpp): none of the task's code ran yet, so its first segment
 *    starts when it comes back, on whichever thread (another thread may take
 *    the re-enqueued task), exactly; the time before is the task's wait to
 *    start (the start delay measures it);
 *  - any later pair may follow task code in the same segment (taskyield is
 *    no segment boundary), so it must be *immediate*: s comes back on the
 *    thread it left, with no other event here in between, and the task in
 *    between had no segment open (it waited in a barrier or taskwait: no
 *    task code ran).  Its time is counted as the task's own: the segment
 *    stays one interval [end − own time, end] with an exact start, in which
 *    the thread did nothing but s's code and the runtime's switch for s.
 *    That only raises WCETs.
 *
 * Any other suspension (another task ran here, s moved threads, an event came
 * between) marks the segment suspended, as before: its start is then later
 * than the real one and it never counts as busy.  docs/overheads.md, "What
 * is measured". */
static void resume(task_state *s, const task_state *cur, uint64_t now)
{
    if (s->out_at) {
        const thread_buf *b = tls_buf;
        bool immediate = b && s->out_thread == b->thread && s->out_event + 1 == tls_events &&
                         cur && cur != s && cur->start_kind == OMPDAG_PT_NONE &&
                         now >= s->out_at;
        if (s->out_entry)
            s->acc = 0; /* the segment starts now: the entry switch ran no task code */
        else if (immediate)
            s->acc += now - s->out_at;
        else
            s->seg_flags |= OMPDAG_RECF_SUSPENDED;
        s->out_at = 0;
    }
    if (s->run_since == 0)
        s->run_since = now;
}

/* A task's end is its last segment (end kind OMPDAG_PT_TASK_END): every
 * instance writes exactly one, which is what the footer counts. */
static void task_finish(task_state *s, uint64_t now)
{
    if (s->start_kind == OMPDAG_PT_NONE) { /* ended while no segment was open */
        atomic_fetch_add(&g_anomalies, 1);
        seg_open(s, OMPDAG_PT_OTHER, NULL, now);
    }
    seg_close(s, OMPDAG_PT_TASK_END, NULL, now);
    if (tls_cur == s)
        tls_cur = NULL;
    free(s);
}

/* ---- callbacks ------------------------------------------------------------------ */

#define DEBUG(...)                                                                               \
    do {                                                                                         \
        if (g_debug)                                                                             \
            fprintf(stderr, "[probe] " __VA_ARGS__);                                        \
    } while (0)

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
    buf_get();
}

static void on_thread_end(ompt_data_t *thread_data)
{
    if (tls_buf)
        buf_flush(tls_buf);
}

static void on_parallel_begin(ompt_data_t *enc, const ompt_frame_t *frame, ompt_data_t *par,
                              unsigned int requested, int flags, const void *cp)
{
    region_state *r = malloc(sizeof *r);
    if (!r) {
        atomic_fetch_add(&g_anomalies, 1);
        return;
    }
    r->id = next_id();
    r->cp = (uint64_t)(uintptr_t)cp;
    par->ptr = r;
    DEBUG("parallel_begin %lx cp=%p\n", (unsigned long)r->id, cp);
    ompdag_trace_rec rec = {.type = OMPDAG_REC_REGION_BEGIN, .id = r->id, .time = now_ns(),
                            .aux = requested, .cp_region = r->cp};
    emit(&rec);
}

static void on_parallel_end(ompt_data_t *par, ompt_data_t *enc, int flags, const void *cp)
{
    region_state *r = par ? par->ptr : NULL;
    if (!r)
        return;
    DEBUG("parallel_end %lx\n", (unsigned long)r->id);
    ompdag_trace_rec rec = {.type = OMPDAG_REC_REGION_END, .id = r->id, .time = now_ns(),
                            .cp_region = r->cp};
    emit(&rec);
    par->ptr = NULL;
    free(r);
}

/* One OMPDAG_REC_SCHED record: the OS's counters for the calling thread
 * (interference: preemption, run-queue delay, migration), at the begin
 * (end = 0) or end (end = 1) of its implicit task in region instance `run`. */
static void sched_sample(const task_state *s, uint8_t end, uint64_t now)
{
    uint64_t delay, nivcsw, cpu;
    probe_os_counters(&delay, &nivcsw, &cpu);
    ompdag_trace_rec r = {.type = OMPDAG_REC_SCHED, .flags = end, .id = s->id, .time = now,
                          .dur = delay, .aux = s->region_id, .cp_region = s->cp_region,
                          .cp_start = nivcsw, .cp_end = cpu};
    emit(&r);
}

/* OMPDAG_REC_IMPLICIT: which thread of a team of `team` an implicit task is
 * (OMPT's index), so annotate maps a team graph's phase tasks by thread
 * number, not by OS thread (docs/probe.md "Team graphs"). */
static void implicit_sample(const task_state *s, unsigned index, unsigned team, uint64_t now)
{
    ompdag_trace_rec r = {.type = OMPDAG_REC_IMPLICIT, .id = s->id, .time = now,
                          .aux = s->region_id, .cp_region = s->cp_region, .cp_start = index,
                          .cp_end = team};
    emit(&r);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *par,
                             ompt_data_t *task, unsigned int actual, unsigned int index,
                             int flags)
{
    uint64_t now = now_ns();
    if (endpoint == ompt_scope_begin) {
        task_state *s = state_new(OMPDAG_RECF_IMPLICIT);
        if (!s)
            return;
        region_state *r = (!(flags & ompt_task_initial) && par) ? par->ptr : NULL;
        s->cp_region = r ? r->cp : 0;
        s->region_id = r ? r->id : 0;
        if (r) {
            sched_sample(s, 0, now);
            implicit_sample(s, index, actual, now);
        }
        seg_open(s, OMPDAG_PT_TASK_BEGIN, NULL, now_ns());
        task->ptr = s;
        /* A region nested in a running task counts in that task's segment
         * (the con-DAG does not model nesting; counting it is safe). */
        s->outer = tls_cur;
        tls_cur = s;
        DEBUG("implicit_task begin %lx index=%u flags=%x\n", (unsigned long)s->id, index, flags);
    } else if (endpoint == ompt_scope_end) {
        task_state *s = state_of(task);
        if (!s)
            return;
        DEBUG("implicit_task end %lx\n", (unsigned long)s->id);
        uint64_t s_id = s->id, s_region = s->region_id, s_cp = s->cp_region; /* freed below */
        task->ptr = NULL;
        task_state *outer = s->outer;
        task_finish(s, now);
        if (s_region)
            sched_sample(&(task_state){.id = s_id, .region_id = s_region, .cp_region = s_cp}, 1,
                         now_ns());
        if (tls_cur == NULL)
            tls_cur = outer;
    }
}

static void on_task_create(ompt_data_t *enc, const ompt_frame_t *frame, ompt_data_t *new_task,
                           int flags, int has_dependences, const void *cp)
{
    uint64_t now = now_ns();
    if (flags & ompt_task_initial) {
        task_state *s = state_new(OMPDAG_RECF_IMPLICIT);
        if (s)
            seg_open(s, OMPDAG_PT_TASK_BEGIN, NULL, now);
        new_task->ptr = s;
        tls_cur = s;
        return;
    }
    if (!(flags & ompt_task_explicit))
        return;
    task_state *p = state_of(enc);
    if (p)
        seg_point(p, OMPDAG_PT_CREATE, cp, now);
    task_state *s = state_new((uint8_t)(((flags & ompt_task_untied) ? OMPDAG_RECF_UNTIED : 0) |
                                        ((flags & ompt_task_undeferred) ? OMPDAG_RECF_UNDEFERRED : 0) |
                                        ((flags & ompt_task_final) ? OMPDAG_RECF_FINAL : 0) |
                                        ((flags & ompt_task_mergeable) ? OMPDAG_RECF_MERGEABLE : 0)));
    new_task->ptr = s;
    if (!s)
        return;
    s->cp_region = p ? p->cp_region : 0;
    s->region_id = p ? p->region_id : 0;
    s->cp_task = (uint64_t)(uintptr_t)cp;
    s->start_kind = OMPDAG_PT_TASK_BEGIN; /* opens when first scheduled */
    s->has_deps = has_dependences != 0;
    DEBUG("task_create %lx by %lx cp=%p flags=%x\n", (unsigned long)s->id,
          (unsigned long)(p ? p->id : 0), cp, flags);
    ompdag_trace_rec r = {.type = OMPDAG_REC_TASK_CREATE, .flags = s->flags, .id = s->id,
                          .aux = p ? p->id : 0, .time = now, .cp_region = s->cp_region,
                          .cp_task = s->cp_task};
    emit(&r);
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
    uint64_t now = now_ns();
    ++tls_events;
    task_state *ps = state_of(prior);
    task_state *ns = state_of(next);
    task_state *cur = tls_cur; /* what ran here until now */
    DEBUG("task_schedule %lx status=%d -> %lx (cur %lx)\n", (unsigned long)(ps ? ps->id : 0),
          (int)status, (unsigned long)(ns ? ns->id : 0),
          (unsigned long)(tls_cur ? tls_cur->id : 0));
    if (tls_cur && tls_cur != ps) {
        /* The runtime named another prior task than the one running here
         * (llvm-project #83883): stop the one that really runs. */
        atomic_fetch_add(&g_anomalies, 1);
        stop(tls_cur, now);
    }
    if (ps) {
        if (status == ompt_task_complete || status == ompt_task_cancel ||
            status == ompt_task_detach) {
            if (ps->has_deps) { /* see dep_task_id */
                dep_lock(prior);
                prior->value = ps->id << 1 | 1;
                dep_unlock(prior);
            } else {
                prior->ptr = NULL;
            }
            task_finish(ps, now);
        } else {
            switch_out(ps, ns, now);
        }
    }
    tls_cur = ns;
    if (ns)
        resume(ns, cur, now);
    if (ns && ns->has_deps && !ns->started) {
        ns->started = 1;
        ompdag_trace_rec r = {.type = OMPDAG_REC_DEP_START,
                              .id = ns->id,
                              .time = now,
                              .aux = ns->region_id,
                              .cp_region = ns->cp_region,
                              .cp_task = ns->cp_task};
        emit(&r);
    }
}

/* The depend list of a new task as the runtime saw it: one OMPDAG_REC_DEPEND
 * per item (its address and type), in list order. */
static void on_dependences(ompt_data_t *task, const ompt_dependence_t *deps, int ndeps)
{
    task_state *s = state_of(task);
    if (!s || ndeps <= 0 || !deps) return;
    s->has_deps = 1;
    uint64_t now = now_ns();
    for (int i = 0; i < ndeps; ++i) {
        ompdag_trace_rec r = {.type = OMPDAG_REC_DEPEND,
                              .flags = (uint8_t)deps[i].dependence_type,
                              .id = s->id,
                              .time = now,
                              .aux = (uint64_t)(uintptr_t)deps[i].variable.ptr,
                              .cp_region = s->cp_region,
                              .cp_task = s->cp_task,
                              .cp_start = (uint64_t)i,
                              .cp_end = (uint64_t)ndeps};
        emit(&r);
    }
}

/* A dependence the runtime enforces: sink waits for src. */
static void on_task_dependence(ompt_data_t *src, ompt_data_t *sink)
{
    uint64_t from = dep_task_id(src), to = dep_task_id(sink);
    if (!from || !to) {
        atomic_fetch_add(&g_anomalies, 1);
        return;
    }
    ompdag_trace_rec r = {.type = OMPDAG_REC_DEP_PAIR, .id = to, .aux = from, .time = now_ns()};
    emit(&r);
}

static uint8_t sync_kind(ompt_sync_region_t kind)
{
    switch ((int)kind) {
    case ompt_sync_region_taskwait:
        return OMPDAG_PT_TASKWAIT;
    case ompt_sync_region_taskgroup:
        return OMPDAG_PT_TASKGROUP;
    case ompt_sync_region_barrier_implicit:
    case ompt_sync_region_barrier_explicit:
    case ompt_sync_region_barrier_implementation:
    case ompt_sync_region_barrier_implicit_workshare:
    case ompt_sync_region_barrier_implicit_parallel:
    case ompt_sync_region_barrier_teams:
    case 1: /* ompt_sync_region_barrier (deprecated) */
        return OMPDAG_PT_BARRIER;
    default:
        return OMPDAG_PT_NONE;
    }
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                           ompt_data_t *par, ompt_data_t *task, const void *cp)
{
    uint8_t pk = sync_kind(kind);
    task_state *s = state_of(task);
    if (pk == OMPDAG_PT_NONE || !s)
        return;
    if (pk == OMPDAG_PT_TASKGROUP) {
        /* libomp reports the whole taskgroup construct here (begin at its
         * start, end after its final wait): its body is the task's own code.
         * Only remember where it began; the wait is sync_region_wait. */
        if (endpoint == ompt_scope_begin) {
            if (s->tg_depth < 4)
                s->tg_cp[s->tg_depth] = (uint64_t)(uintptr_t)cp;
            ++s->tg_depth;
        } else if (endpoint == ompt_scope_end && s->tg_depth > 0) {
            --s->tg_depth;
        }
        return;
    }
    uint64_t now = now_ns();
    DEBUG("sync_region %d %s task %lx cp=%p\n", (int)kind,
          endpoint == ompt_scope_begin ? "begin" : "end", (unsigned long)s->id, cp);
    if (endpoint == ompt_scope_begin)
        seg_close(s, pk, cp, now);
    else if (endpoint == ompt_scope_end)
        seg_open(s, pk, cp, now);
}

/* The wait at the end of a taskgroup: a scheduling point like a taskwait,
 * named by the taskgroup's begin address (its `#pragma omp taskgroup` line,
 * where the con-DAG puts the W node). */
static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *par, ompt_data_t *task, const void *cp)
{
    task_state *s = state_of(task);
    if (sync_kind(kind) != OMPDAG_PT_TASKGROUP || !s)
        return;
    if (s->tg_depth > 0 && s->tg_depth <= 4)
        cp = (const void *)(uintptr_t)s->tg_cp[s->tg_depth - 1];
    uint64_t now = now_ns();
    if (endpoint == ompt_scope_begin)
        seg_close(s, OMPDAG_PT_TASKGROUP, cp, now);
    else if (endpoint == ompt_scope_end)
        seg_open(s, OMPDAG_PT_TASKGROUP, cp, now);
}

/* The body of `single` (executor) or `masked` is the con-DAG's root task. */
static void root_scope(ompt_scope_endpoint_t endpoint, ompt_data_t *task, const void *cp)
{
    task_state *s = state_of(task);
    if (!s)
        return;
    uint64_t now = now_ns();
    if (endpoint == ompt_scope_begin) {
        seg_point(s, OMPDAG_PT_ROOT_BEGIN, cp, now);
        s->root = 1;
    } else if (endpoint == ompt_scope_end) {
        /* seg_point would tag the next segment as root too: close, clear, open. */
        seg_close(s, OMPDAG_PT_ROOT_END, cp, now);
        s->root = 0;
        seg_open(s, OMPDAG_PT_ROOT_END, cp, now);
    }
}

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint, ompt_data_t *par,
                    ompt_data_t *task, uint64_t count, const void *cp)
{
    if (wstype == ompt_work_single_executor)
        root_scope(endpoint, task, cp);
}

static void on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *par, ompt_data_t *task,
                      const void *cp)
{
    root_scope(endpoint, task, cp);
}

/* ---- signals, initialisation ------------------------------------------------------ */

static void on_signal(int sig)
{
    struct sigaction *old = sig == SIGINT ? &g_old_int : &g_old_term;
    if (old->sa_handler == SIG_IGN)
        return;
    if (old->sa_handler != SIG_DFL) {
        /* The program has its own handler: let it decide; a normal exit
         * flushes through ompt_finalize_tool. */
        if (old->sa_flags & SA_SIGINFO)
            old->sa_sigaction(sig, NULL, NULL);
        else
            old->sa_handler(sig);
        return;
    }
    close_trace(OMPDAG_FOOTER_SIGNAL, true);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A forked child must not write into the parent's trace. */
static void atfork_child(void)
{
    atomic_store(&g_closed, 1);
    if (g_fd >= 0)
        close(g_fd);
    g_fd = -1;
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &g_old_int);
    sigaction(SIGTERM, &sa, &g_old_term);
}

/* A false value as libomp reads its boolean settings ("0", "false", "off", "no",
 * any case); unset or anything else leaves the default (on). */
static bool env_false(const char *name)
{
    const char *v = getenv(name);
    return v && (!strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "off") ||
                 !strcasecmp(v, "no") || !strcasecmp(v, ".false."));
}

/* OMPDAG_REC_RUNTIME: which runtime ran, and whether the environment changed
 * when it runs a new task in place of its creator (docs/tied.md §4b). */
static void emit_runtime(void)
{
    uint8_t flags = 0;
    if (env_false("KMP_ENABLE_TASK_THROTTLING")) flags |= OMPDAG_RUNTIME_NO_THROTTLING;
    if (getenv("KMP_TASKING")) flags |= OMPDAG_RUNTIME_TASKING_SET;
    ompdag_trace_rec r = {.type = OMPDAG_REC_RUNTIME, .flags = flags, .time = now_ns(),
                          .aux = g_runtime_name};
    emit(&r);
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                           ompt_data_t *tool_data)
{
    g_debug = getenv("OMPDAG_PROBE_DEBUG") && atoi(getenv("OMPDAG_PROBE_DEBUG")) > 0;
    tsc_calibrate();
    const char *path = getenv("OMPDAG_TRACE");
    char def[64];
    if (!path || !*path) {
        snprintf(def, sizeof def, "ompdag-%d.trace", (int)getpid());
        path = def;
    }
    g_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (g_fd < 0) {
        fprintf(stderr, "ompdag probe: cannot open trace '%s': %s\n", path, strerror(errno));
        return 0;
    }
    if (!probe_write_header(g_fd, now_ns, &g_header_hash)) {
        fprintf(stderr, "ompdag probe: cannot write trace '%s': %s\n", path, strerror(errno));
        close(g_fd);
        g_fd = -1;
        return 0;
    }
    ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (!set_callback) {
        fprintf(stderr, "ompdag probe: runtime offers no ompt_set_callback\n");
        return 0;
    }
#define REGISTER(event, fn)                                                                      \
    if (set_callback(event, (ompt_callback_t)fn) != ompt_set_always && g_debug)                \
        fprintf(stderr, "ompdag probe: callback " #event " is not always delivered\n");
    REGISTER(ompt_callback_thread_begin, on_thread_begin);
    REGISTER(ompt_callback_thread_end, on_thread_end);
    REGISTER(ompt_callback_parallel_begin, on_parallel_begin);
    REGISTER(ompt_callback_parallel_end, on_parallel_end);
    REGISTER(ompt_callback_implicit_task, on_implicit_task);
    REGISTER(ompt_callback_task_create, on_task_create);
    REGISTER(ompt_callback_task_schedule, on_task_schedule);
    REGISTER(ompt_callback_sync_region, on_sync_region);
    REGISTER(ompt_callback_sync_region_wait, on_sync_region_wait);
    REGISTER(ompt_callback_work, on_work);
    REGISTER(ompt_callback_masked, on_masked);
    REGISTER(ompt_callback_dependences, on_dependences);
    REGISTER(ompt_callback_task_dependence, on_task_dependence);
#undef REGISTER
    install_signals();
    pthread_atfork(NULL, NULL, atfork_child);
    emit_runtime();
    return 1;
}

static void tool_finalize(ompt_data_t *tool_data)
{
    close_trace(0, false);
}

static int empty_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                            ompt_data_t *tool_data)
{
    return 1;
}

static void empty_finalize(ompt_data_t *tool_data) {}

/* Offloaded loops (cuda-offload/offload) report each device's share here, on
 * the thread of the task that called ompdag_offload_for. */
EXPORT void ompdag_probe_record_offload(uint32_t device, uint32_t kind, uint64_t iterations,
                                        uint64_t busy_ns, uint64_t chunks)
{
    if (g_fd < 0)
        return;
    ompdag_trace_rec r = {.type = OMPDAG_REC_OFFLOAD, .flags = (uint8_t)kind,
                          .id = tls_cur ? tls_cur->id : 0, .time = now_ns(), .dur = busy_ns,
                          .aux = iterations, .cp_start = device, .cp_end = chunks};
    emit(&r);
}

EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                 const char *runtime_version)
{
    const char *empty = getenv("OMPDAG_PROBE_EMPTY");
    if (empty && atoi(empty) > 0) {
        g_tool.initialize = empty_initialize;
        g_tool.finalize = empty_finalize;
    } else {
        g_tool.initialize = tool_initialize;
        g_tool.finalize = tool_finalize;
    }
    g_tool.tool_data.value = 0;
    g_runtime_name = 0;
    if (runtime_version) /* bytes past a shorter string stay 0 */
        memcpy(&g_runtime_name, runtime_version,
               strnlen(runtime_version, sizeof g_runtime_name));
    return &g_tool;
}
