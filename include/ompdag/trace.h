/*
 * ompdag/trace.h — reading traces of libompdag_probe.so, mapping code
 * addresses to file:line with libdw, and annotating con-DAGs with measured
 * WCETs (`ompdag annotate`).  Library target: ompdag_trace.
 *
 * The wire format is ompdag/probe.h.  The attribution rule that turns
 * measured segments into node WCETs, and why it is safe, is docs/probe.md.
 *
 * Ownership: every create/open has a matching destroy; strings returned by
 * accessors are borrowed from the object they came from and live until it
 * is destroyed.  Errors come back as ompdag_status with a message in
 * ompdag_error; nothing here aborts or exits.
 */
#ifndef OMPDAG_TRACE_H
#define OMPDAG_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ompdag/condag.h"
#include "ompdag/error.h"
#include "ompdag/probe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- reading ----------------------------------------------------------------- */

typedef struct ompdag_trace_reader ompdag_trace_reader;

/* Opens a trace file ("-" is stdin; a FIFO works: records are streamed) and
 * validates its header.  On success *out owns a new reader: free it with
 * ompdag_trace_reader_destroy(). */
ompdag_status ompdag_trace_reader_open(const char *path, ompdag_trace_reader **out,
                                       ompdag_error *err);
/* Same over a memory buffer, which must outlive the reader; `origin` names it
 * in messages. */
ompdag_status ompdag_trace_reader_open_buffer(const void *data, size_t len, const char *origin,
                                              ompdag_trace_reader **out, ompdag_error *err);
/* Frees the reader (and closes its file).  NULL is a no-op. */
void ompdag_trace_reader_destroy(ompdag_trace_reader *r);

/* Reads the next record into *rec.  *done becomes true (and *rec receives
 * the footer record, whose counters are in probe.h) after the footer, once every count in it matched what was read.
 * A truncated trace, a corrupt chunk, an unknown record type or a count
 * mismatch (lost records) is an error naming the byte offset. */
ompdag_status ompdag_trace_reader_next(ompdag_trace_reader *r, ompdag_trace_rec *rec,
                                       bool *done, ompdag_error *err);

/* Header fields (borrowed strings). */
const char *ompdag_trace_reader_exe(const ompdag_trace_reader *r);
/* The executable's build-id as lowercase hex, "" when it has none. */
const char *ompdag_trace_reader_build_id(const ompdag_trace_reader *r);
uint32_t ompdag_trace_reader_pid(const ompdag_trace_reader *r);
uint64_t ompdag_trace_reader_start_ns(const ompdag_trace_reader *r);
size_t ompdag_trace_reader_module_count(const ompdag_trace_reader *r);
/* Module i: path, build-id (hex), load base and file-address range. */
const char *ompdag_trace_reader_module_path(const ompdag_trace_reader *r, size_t i);
const char *ompdag_trace_reader_module_build_id(const ompdag_trace_reader *r, size_t i);
void ompdag_trace_reader_module_range(const ompdag_trace_reader *r, size_t i, uint64_t *base,
                                      uint64_t *vaddr_lo, uint64_t *vaddr_hi);

/* What a whole trace holds (ompdag_trace_summarize). */
typedef struct ompdag_trace_summary {
    uint64_t records;          /* all records but the footer */
    uint64_t regions_begun, regions_ended;
    uint64_t tasks_created;    /* explicit tasks */
    uint64_t tasks_ended;      /* explicit tasks */
    uint64_t implicit_tasks;   /* implicit (and initial) tasks that ended */
    uint64_t segments;
    uint64_t untied_segments;  /* segments of untied tasks */
    uint64_t suspended_segments;
    uint64_t depend_items;     /* depend list items the runtime reported (OMPDAG_REC_DEPEND) */
    uint64_t depend_pairs;     /* dependences it enforced (OMPDAG_REC_DEP_PAIR) */
    uint64_t dropped;          /* records the probe could not store (footer) */
    uint64_t anomalies;        /* unpaired runtime events (footer) */
    uint32_t threads;          /* distinct probe thread numbers */
    bool interrupted;          /* flushed from a SIGINT/SIGTERM handler */
} ompdag_trace_summary;

/* Reads a whole trace and counts what it holds; every error of
 * ompdag_trace_reader_next() applies. */
ompdag_status ompdag_trace_summarize(const char *path, ompdag_trace_summary *out,
                                     ompdag_error *err);

/* ---- symbolization ------------------------------------------------------------- */

typedef struct ompdag_symbolizer ompdag_symbolizer;

typedef struct ompdag_srcloc {
    const char *file; /* borrowed from the symbolizer; NULL when unknown */
    int32_t line;     /* 0 when unknown */
    int32_t col;
} ompdag_srcloc;

/* Creates a symbolizer for the modules named in the reader's header (copied;
 * the reader may be destroyed afterwards).  DWARF files are opened lazily;
 * a module whose file's build-id differs from the trace's is refused when it
 * is first needed.  Free with ompdag_symbolizer_destroy(). */
ompdag_status ompdag_symbolizer_create(const ompdag_trace_reader *r, ompdag_symbolizer **out,
                                       ompdag_error *err);
void ompdag_symbolizer_destroy(ompdag_symbolizer *s);

/* Fails (OMPDAG_ERR_INVALID, "PATH was rebuilt since the trace was taken
 * (build-id X, trace has Y)", or "cannot open PATH") when the traced
 * executable is gone or is not the one the trace was taken from: a trace of
 * another build must be refused, not read as "nodes never observed". */
ompdag_status ompdag_symbolizer_check_executable(ompdag_symbolizer *s, ompdag_error *err);

/* What the traced program's line tables say about one source file. */
typedef enum ompdag_source_evidence {
    OMPDAG_SOURCE_FOUND = 0,       /* a module's line tables name the file */
    OMPDAG_SOURCE_ABSENT = 1,      /* the executable has line tables; no module names it */
    OMPDAG_SOURCE_EXE_NO_LINES = 2, /* the executable has no line tables (built without -g)
                                      and no other module names the file */
    OMPDAG_SOURCE_FOUND_GCC = 3    /* named, but by a unit GCC compiled (DW_AT_producer
                                      "GNU ..."): GCC's OpenMP code generation is not the
                                      one the graph's front end models */
} ompdag_source_evidence;

/* Looks for `file` in the source-file tables of the line tables of every
 * module of the trace (the executable first, then its shared objects, as
 * the probe listed them), comparing names with same_file (e.g. a path
 * suffix match).  Modules that cannot be opened, were rebuilt or have no
 * DWARF count as naming nothing.  *out says what was found; a status other
 * than OK only for a NULL argument.  The answer is the evidence annotate
 * needs that a trace is of the program a graph was extracted from: a
 * trace of another program, or of a binary built without -g, must be
 * refused, not read as "nothing observed". */
ompdag_status ompdag_symbolizer_find_source(ompdag_symbolizer *s, const char *file,
                                            bool (*same_file)(const char *a, const char *b),
                                            ompdag_source_evidence *out, ompdag_error *err);
/* The path of the traced executable as the trace names it (borrowed; ""
 * when the trace lists no module). */
const char *ompdag_symbolizer_executable(const ompdag_symbolizer *s);

/* Maps a runtime return address (`codeptr_ra` from the trace) to file:line by
 * looking up codeptr_ra - 1 in the DWARF line table of the module that holds
 * it.  Works without .debug_aranges (clang's default): the CUs are walked and
 * their address ranges indexed.  Results are cached.  Fails when no module
 * holds the address or it has no line information. */
ompdag_status ompdag_symbolizer_lookup(ompdag_symbolizer *s, uint64_t codeptr_ra,
                                       ompdag_srcloc *out, ompdag_error *err);

/* Which OpenMP runtime a program links dynamically (its DT_NEEDED entries). */
typedef enum ompdag_omp_runtime {
    OMPDAG_OMP_RUNTIME_NONE = 0, /* none found (static, or not an OpenMP program) */
    OMPDAG_OMP_RUNTIME_LLVM = 1, /* libomp / libiomp5: has OMPT, the probe works */
    OMPDAG_OMP_RUNTIME_GNU = 2   /* GCC's libgomp: no OMPT, the probe cannot load */
} ompdag_omp_runtime;

/* Reads the ELF file at `path` and reports its OpenMP runtime.  Fails when
 * the file cannot be read or is not ELF. */
ompdag_status ompdag_program_omp_runtime(const char *path, ompdag_omp_runtime *out,
                                         ompdag_error *err);

/* ---- annotation ------------------------------------------------------------------ */

typedef enum ompdag_estimator {
    OMPDAG_ESTIMATOR_MAX = 0, /* high-water mark (+ margin) */
    OMPDAG_ESTIMATOR_EVT = 1  /* Gumbel fit of block maxima (PWM), pWCET at `exceedance` */
} ompdag_estimator;

typedef enum ompdag_unobserved_policy {
    OMPDAG_UNOBSERVED_ERROR = 0, /* any node no segment covered is an error */
    OMPDAG_UNOBSERVED_ZERO = 1   /* such nodes get WCET 0, recorded in the output */
} ompdag_unobserved_policy;

/* Fill with ompdag_annotate_options_init() before setting fields, never with = {0} or a
 * braced list: later versions add fields at the end, and the init function
 * gives them their defaults, so a caller keeps compiling and meaning the same. */
typedef struct ompdag_annotate_options {
    ompdag_estimator estimator;
    double margin_pct;       /* WCET = ceil(estimate * (1 + margin_pct/100)); default 20 */
    double exceedance;       /* evt: per-segment exceedance probability; default 1e-9 */
    int32_t evt_block;       /* evt: block size for block maxima; default 10 */
    int32_t evt_min_blocks;  /* evt: refuse below this many blocks; default 20 */
    ompdag_unobserved_policy unobserved;
    bool allow_unmapped;     /* segments of a mapped graph that match no node: warn, not fail;
                                the graph is then marked "unsafe" (reports, check) */
    bool no_overheads;       /* leave the runtime's dispatch delays out of the WCETs (the
                                bound then excludes them; default: calibrated and included,
                                docs/overheads.md) */
    bool depend_strict;  /* a derived D-edge the run did not respect makes the graph
                            "unsafe" even when the runtime's depend lists show that the
                            edge is an over-approximation (docs/probe.md#depend) */
} ompdag_annotate_options;

/* Defaults: max estimator, 20% margin, exceedance 1e-9, blocks of 10, at least
 * 20 blocks, unobserved nodes are errors, unmapped segments are errors. */
void ompdag_annotate_options_init(ompdag_annotate_options *opt);

typedef struct ompdag_annotation ompdag_annotation;

/* Starts annotating `set`, which is borrowed (it must outlive the annotation)
 * and is modified by ompdag_annotation_apply().  Free with
 * ompdag_annotation_destroy(). */
ompdag_status ompdag_annotation_create(ompdag_condag_set *set, const ompdag_annotate_options *opt,
                                       ompdag_annotation **out, ompdag_error *err);
void ompdag_annotation_destroy(ompdag_annotation *a);

/* Reads one trace: symbolizes regions, task directives and scheduling points,
 * and adds every segment of a region that matches a graph (by the graph's
 * "region_key" or region loc) to its segment class.  Regions that match no
 * graph are counted and skipped. */
ompdag_status ompdag_annotation_add_trace(ompdag_annotation *a, const char *path,
                                          ompdag_error *err);

/* Computes every node's WCET with the attribution rule of docs/probe.md and
 * the chosen estimator, and apart from it the dispatch delay the traces
 * measured (docs/overheads.md: start_delay on task sources, wake_delay on W
 * nodes, cont_delay after T nodes, team formation ceil(F / m0) on the root's
 * source, margin applied; the node field "delay",
 * charged on the critical chain only), writes `wcet`, the delays and the extra keys ("samples",
 * "observed_max", "observed_median", "margin_pct", "estimator") on each node and "observed_response_ns",
 * "observed_task_response_ns" (with parallel "..._interfered" flags),
 * "runtime_overheads", "wcet_method" and, with dropped segments, "unsafe" on
 * each graph.  All or nothing: fails (and changes nothing) on unobserved
 * nodes under OMPDAG_UNOBSERVED_ERROR, with a message listing them by
 * file:line, when evt has too few samples, and on int64 overflow. */
ompdag_status ompdag_annotation_apply(ompdag_annotation *a, ompdag_error *err);

/* The runtime's dependence order against the graphs' D-edges, over all traces
 * read (docs/probe.md#depend): disagreements that make a graph unsafe, and
 * all disagreements (extra edges included). */
void ompdag_annotation_depend_counts(const ompdag_annotation *a, uint64_t *unsafe, uint64_t *all);

/* Prints the method, samples, margin and per-graph summary. */
void ompdag_annotation_print_report(const ompdag_annotation *a, FILE *out);

/* A scheduling point of a task, as a node of the graph. */
typedef enum ompdag_point {
    OMPDAG_POINT_BEGIN = 0,  /* the task's start (node = -1) */
    OMPDAG_POINT_END = 1,    /* the task's end (node = -1) */
    OMPDAG_POINT_CREATE = 2, /* right at/after the `task` directive ending T node `node` */
    OMPDAG_POINT_WAIT = 3    /* the taskwait before W node `node` (end: begins; start: returned) */
} ompdag_point;

/* One segment class: every observed segment of one task of one graph between
 * the same two scheduling points. */
typedef struct ompdag_segment_class {
    size_t graph;           /* index in the set */
    int32_t task;           /* task index in that graph */
    ompdag_point start_kind;
    int32_t start_node;
    ompdag_point end_kind;
    int32_t end_node;
    int32_t charged;        /* the node its time is charged to (docs/probe.md) */
    uint64_t count;         /* segments observed */
    int64_t max_ns;
    int64_t median_ns;
    int64_t estimate_ns;    /* what the estimator charged (before margin); after apply */
} ompdag_segment_class;

size_t ompdag_annotation_class_count(const ompdag_annotation *a);
/* Class i (0 <= i < count), copied into *out. */
void ompdag_annotation_class(const ompdag_annotation *a, size_t i, ompdag_segment_class *out);
/* Segments read, those mapped to a class, and those of mapped graphs that
 * matched no node (allowed only with allow_unmapped). */
void ompdag_annotation_counts(const ompdag_annotation *a, uint64_t *segments, uint64_t *mapped,
                              uint64_t *unmapped);

/* ---- extreme value statistics (evt.c) ------------------------------------------------- */

/* Fits a Gumbel distribution to the maxima of consecutive blocks of `block`
 * samples (probability-weighted moments: beta = (2 b1 - b0) / ln 2,
 * mu = b0 - 0.5772 beta) and returns the value exceeded with probability
 * `exceedance` per sample.  Fails with OMPDAG_ERR_LIMIT below min_blocks. */
ompdag_status ompdag_evt_gumbel_pwcet(const int64_t *samples, size_t n, int32_t block,
                                      int32_t min_blocks, double exceedance, double *pwcet,
                                      double *mu, double *beta, ompdag_error *err);

#ifdef __cplusplus
}
#endif
#endif
