/*
 * ompdag/probe.h — the binary trace written by libompdag_probe.so (the OMPT
 * tool in runtime-probe/probe.c) and read by the ompdag_trace library.
 *
 * This header is the wire format only; programs read traces through
 * ompdag/trace.h.  Everything is little-endian, fixed-size, naturally aligned.
 *
 *   file   := header  module*  chunk*
 *   header := ompdag_trace_header, then exe_path_len bytes (no NUL), then
 *             build_id_len bytes, padded with zeros to a multiple of 8
 *   module := ompdag_trace_module, then path_len bytes, build_id_len bytes,
 *             padded to a multiple of 8   (header.module_count of them)
 *   chunk  := ompdag_trace_chunk, then chunk.count ompdag_trace_rec
 *
 * Records of kinds 9..11 (depend lists, runtime dependence pairs, first start
 * of a task with dependences) are written only by programs with `depend`
 * clauses; a reader that predates them refuses such a trace ("record type")
 * rather than ignoring the runtime's dependence order.  Kind 12 (the runtime
 * and its task-scheduler settings) is written once by every probe since the
 * input's tied rule depends on it (docs/tied.md §4b).  Kind 13 (an implicit
 * task's thread number and team size) is written at every implicit task's
 * begin in a parallel region: annotate maps a team graph's tasks by it
 * (docs/probe.md "Team graphs"); traces without it still read.
 *
 * Version 2 adds integrity: every chunk carries a checksum of its thread,
 * count and records, seeded with a hash of all the header bytes (header,
 * strings, modules), so a flipped bit anywhere is an error, not a WCET.  A
 * reader also checks what a checksum cannot (a probe bug, or a forged
 * file): every record's thread is its chunk's, times are non-decreasing per
 * thread and lie between the header's start and the footer, a segment's
 * duration fits between the start and its end, and ids name threads that
 * wrote records.  Version 1 traces (no checksums) are refused.
 *
 * Each thread fills its own buffer without locks and appends it as one chunk
 * when it is full, when the thread ends, at exit and on SIGINT/SIGTERM.  The
 * last chunk holds exactly one OMPDAG_REC_FOOTER record whose counters let a
 * reader prove that no record was lost.  Every task instance, explicit or
 * implicit, writes exactly one segment ending at OMPDAG_PT_TASK_END: its
 * completion.
 *
 * Times are CLOCK_MONOTONIC_RAW nanoseconds (read directly, or through the
 * invariant TSC calibrated against it at start-up: footer flag OMPDAG_FOOTER_TSC).  Code pointers are the runtime
 * return addresses (`codeptr_ra`) the OpenMP runtime passed to the tool;
 * look up codeptr_ra - 1 to land inside the call instruction.
 */
#ifndef OMPDAG_PROBE_H
#define OMPDAG_PROBE_H

#include <stdint.h>

#define OMPDAG_TRACE_MAGIC "OMPDAGTR"     /* 8 bytes, no NUL */
#define OMPDAG_TRACE_VERSION 2u
#define OMPDAG_TRACE_CHUNK_MAGIC 0x4b4e4843u /* "CHNK" */
/* Limits a reader enforces, so corrupt input cannot ask for huge buffers. */
#define OMPDAG_TRACE_MAX_PATH 4096u
#define OMPDAG_TRACE_MAX_BUILD_ID 64u
#define OMPDAG_TRACE_MAX_MODULES 4096u
#define OMPDAG_TRACE_MAX_CHUNK_RECORDS (1u << 20)
#define OMPDAG_TRACE_MAX_THREADS (1u << 20) /* probe thread numbers are below this */

typedef struct ompdag_trace_header {
    char magic[8];          /* OMPDAG_TRACE_MAGIC */
    uint32_t version;       /* OMPDAG_TRACE_VERSION */
    uint32_t record_size;   /* sizeof(ompdag_trace_rec) */
    uint64_t start_ns;      /* CLOCK_MONOTONIC_RAW at tool initialisation */
    uint64_t realtime_ns;   /* CLOCK_REALTIME at the same moment */
    uint32_t pid;
    uint32_t exe_path_len;
    uint32_t build_id_len;  /* of the executable; 0 when it has none */
    uint32_t module_count;
} ompdag_trace_header;

/* One loaded ELF object: its load base (dl_iterate_phdr's dlpi_addr) and the
 * file-address range [vaddr_lo, vaddr_hi) of its PT_LOAD segments, so that a
 * runtime address a belongs to it when base+vaddr_lo <= a < base+vaddr_hi. */
typedef struct ompdag_trace_module {
    uint64_t base;
    uint64_t vaddr_lo;
    uint64_t vaddr_hi;
    uint32_t path_len;
    uint32_t build_id_len;
} ompdag_trace_module;

typedef struct ompdag_trace_chunk {
    uint32_t magic;   /* OMPDAG_TRACE_CHUNK_MAGIC */
    uint32_t thread;  /* probe's thread number, 0 = first thread seen */
    uint32_t count;   /* records that follow, 1..OMPDAG_TRACE_MAX_CHUNK_RECORDS */
    uint32_t check;   /* ompdag_trace_chunk_check(header hash, thread, count, records) */
} ompdag_trace_chunk;

typedef enum ompdag_rec_type {
    OMPDAG_REC_REGION_BEGIN = 1, /* id=region, time, cp_region=codeptr, aux=requested threads */
    OMPDAG_REC_REGION_END = 2,   /* id=region, time, cp_region */
    OMPDAG_REC_TASK_CREATE = 3,  /* id=new task, aux=parent task, time, cp_task, cp_region, flags */
    OMPDAG_REC_SEGMENT = 4,      /* id=task, time=end, dur=own ns, aux=region instance,
                                    cp_* and kinds, flags */
    OMPDAG_REC_TASK_END = 5,     /* reserved, not written: a task's end is its last
                                    segment, the one with end_kind OMPDAG_PT_TASK_END */
    OMPDAG_REC_OFFLOAD = 7,      /* one device's share of an ompdag_offload_for() that the task
                                    id ran: time=when the loop finished, dur=the device's busy
                                    ns, aux=iterations, cp_start=device index, cp_end=chunks,
                                    flags=ompdag_offload_device_kind (cuda-offload/offload) */
    OMPDAG_REC_SCHED = 8,        /* the OS's view of a thread at its implicit task's begin
                                    (flags 0) and end (flags 1) in region instance aux: id=the
                                    implicit task, time, dur=run-queue delay so far (ns, from
                                    /proc/thread-self/schedstat; UINT64_MAX unknown),
                                    cp_start=involuntary context switches so far
                                    (getrusage RUSAGE_THREAD), cp_end=CPU it runs on,
                                    cp_region.  annotate flags a run as interfered when a thread
                                    was preempted, waited on the run queue or migrated */
    OMPDAG_REC_DEPEND = 9,       /* one item of a task's depend list as the runtime passed it
                                    (ompt_callback_dependences): id=the task, time,
                                    aux=the item's address (ompt_dependence_t variant.ptr),
                                    flags=its ompt_dependence_type_t (1 in, 2 out, 3 inout,
                                    4 mutexinoutset, 5 source, 6 sink, 7 inoutset),
                                    cp_start=index in the list, cp_end=list length,
                                    cp_task, cp_region */
    OMPDAG_REC_DEP_PAIR = 10,    /* ompt_callback_task_dependence: the runtime made task id
                                    (the successor) wait for task aux (the predecessor), time */
    OMPDAG_REC_DEP_START = 11,   /* a task with a depend list starts running for the first
                                    time: id, time (so annotate can check that it did not
                                    start before a predecessor completed), cp_task */
    OMPDAG_REC_RUNTIME = 12,     /* the OpenMP runtime the probe ran in, written once at tool
                                    initialisation: aux=the first 8 bytes of the runtime's
                                    version string (ompt_start_tool's runtime_version,
                                    NUL-padded; libomp: "LLVM OMP"), time, id=0, flags
                                    (OMPDAG_RUNTIME_*): what the environment asked of its task
                                    scheduler (docs/tied.md §4b) */
    OMPDAG_REC_IMPLICIT = 13,    /* an implicit task of a parallel region begins
                                    (ompt_callback_implicit_task): id=the implicit task, time,
                                    aux=region instance, cp_start=its thread number in the
                                    team (the callback's index, 0-based), cp_end=the team's
                                    size (actual_parallelism), cp_region.  annotate maps a
                                    team graph's phase tasks by thread number */
    OMPDAG_REC_FOOTER = 6        /* counters: id=records before it, aux=explicit tasks
                                    created, dur=explicit tasks ended (last segments),
                                    cp_start=records dropped, cp_end=anomalies, time,
                                    flags (OMPDAG_FOOTER_*) */
} ompdag_rec_type;

/* OMPDAG_REC_RUNTIME flags. */
#define OMPDAG_RUNTIME_NO_THROTTLING 1u /* KMP_ENABLE_TASK_THROTTLING set to a false value */
#define OMPDAG_RUNTIME_TASKING_SET 2u   /* KMP_TASKING set (a non-default tasking mode) */

/* Scheduling points that delimit a segment (start_kind / end_kind). */
typedef enum ompdag_point_kind {
    OMPDAG_PT_NONE = 0,
    OMPDAG_PT_TASK_BEGIN = 1,     /* start: the task's first instruction */
    OMPDAG_PT_TASK_END = 2,       /* end: the task completes */
    OMPDAG_PT_CREATE = 3,         /* `task` directive at cp (start: right after it) */
    OMPDAG_PT_TASKWAIT = 4,       /* end: taskwait at cp begins; start: it returned */
    OMPDAG_PT_TASKGROUP = 5,      /* end of a taskgroup at cp (waits like a taskwait) */
    OMPDAG_PT_BARRIER = 6,        /* any barrier (implicit or explicit) at cp */
    OMPDAG_PT_ROOT_BEGIN = 7,     /* start: a `single`/`masked` body at cp begins */
    OMPDAG_PT_ROOT_END = 8,       /* end: that body ends */
    OMPDAG_PT_OTHER = 9           /* any other synchronisation region */
} ompdag_point_kind;

/* Record flags. */
enum {
    OMPDAG_RECF_IMPLICIT = 1u << 0, /* the task is an implicit (or initial) task */
    OMPDAG_RECF_ROOT = 1u << 1,     /* segment runs inside a single/masked body */
    OMPDAG_RECF_UNTIED = 1u << 2,
    OMPDAG_RECF_UNDEFERRED = 1u << 3,
    OMPDAG_RECF_FINAL = 1u << 4,
    OMPDAG_RECF_MERGEABLE = 1u << 5,
    OMPDAG_RECF_SUSPENDED = 1u << 6 /* segment: the task was suspended inside it */
};

/* Footer flags. */
enum {
    OMPDAG_FOOTER_SIGNAL = 1u << 0,  /* written from a SIGINT/SIGTERM handler */
    OMPDAG_FOOTER_ANOMALY = 1u << 1, /* the runtime sent events the probe could not pair */
    OMPDAG_FOOTER_TSC = 1u << 2      /* times came from the invariant TSC, calibrated
                                        against CLOCK_MONOTONIC_RAW (else clock_gettime) */
};

typedef struct ompdag_trace_rec {
    uint8_t type;        /* ompdag_rec_type */
    uint8_t start_kind;  /* ompdag_point_kind (segments) */
    uint8_t end_kind;    /* ompdag_point_kind (segments) */
    uint8_t flags;       /* OMPDAG_RECF_* / OMPDAG_FOOTER_* */
    uint32_t thread;     /* probe thread number that wrote it */
    uint64_t id;         /* task or region instance id (unique in the trace) */
    uint64_t time;       /* ns; for segments: when it ended */
    uint64_t dur;        /* segments: own running time in ns */
    uint64_t aux;        /* see ompdag_rec_type */
    uint64_t cp_region;  /* codeptr_ra of the enclosing `parallel` (0: none) */
    uint64_t cp_task;    /* codeptr_ra of the `task` directive that created the task (0: implicit) */
    uint64_t cp_start;   /* segments: codeptr_ra of the starting point (0 for begin) */
    uint64_t cp_end;     /* segments: codeptr_ra of the ending point (0 for end) */
} ompdag_trace_rec;

/* Exported by libompdag_probe.so and looked up at run time by the offload
 * runtime (cuda-offload/offload/probe_hook.c): appends one OMPDAG_REC_OFFLOAD
 * record for the task running on the calling thread. */
#define OMPDAG_PROBE_OFFLOAD_SYMBOL "ompdag_probe_record_offload"
typedef void (*ompdag_probe_offload_fn)(uint32_t device, uint32_t kind, uint64_t iterations,
                                        uint64_t busy_ns, uint64_t chunks);

/* FNV-1a (64-bit) over bytes: the hash of the header bytes, continued
 * across the header, its strings and the modules in file order. */
#define OMPDAG_TRACE_HASH_SEED 0xcbf29ce484222325ull
static inline uint64_t ompdag_trace_hash_bytes(uint64_t h, const void *data, unsigned long n)
{
    const unsigned char *p = (const unsigned char *)data;
    for (unsigned long i = 0; i < n; ++i)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* A chunk's checksum: each 64-bit word of its records goes through a
 * bijective mix (xor, odd multiply, xorshift), so changing any one word
 * always changes the 64-bit state; folded to 32 bits at the end.  Seeded
 * with the header hash, the thread and the count.  Async-signal-safe. */
static inline uint32_t ompdag_trace_chunk_check(uint64_t header_hash, uint32_t thread,
                                                uint32_t count, const void *recs)
{
    uint64_t h = header_hash ^ ((uint64_t)thread << 32 | count);
    const unsigned char *p = (const unsigned char *)recs;
    for (unsigned long i = 0; i < (unsigned long)count * sizeof(ompdag_trace_rec); i += 8) {
        uint64_t w;
        __builtin_memcpy(&w, p + i, 8);
        h ^= w;
        h *= 0x9e3779b97f4a7c15ull;
        h ^= h >> 32;
    }
    h *= 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h ^ (h >> 32));
}

/* The layout is the file format: C11 and C++11 both check it at compile time. */
#ifdef __cplusplus
#define OMPDAG_STATIC_ASSERT static_assert
#else
#define OMPDAG_STATIC_ASSERT _Static_assert
#endif
OMPDAG_STATIC_ASSERT(sizeof(ompdag_trace_header) == 48, "trace header layout");
OMPDAG_STATIC_ASSERT(sizeof(ompdag_trace_module) == 32, "trace module layout");
OMPDAG_STATIC_ASSERT(sizeof(ompdag_trace_chunk) == 16, "trace chunk layout");
OMPDAG_STATIC_ASSERT(sizeof(ompdag_trace_rec) == 72, "trace record layout");

#endif
