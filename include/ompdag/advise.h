/*
 * ompdag/advise.h — the task-granularity advisor (`ompdag advise`).
 *
 * Source: Ma 2018 (program-feature thread partitioning with KNN, see
 * docs/advise.md), mapped to OpenMP tasks.  Each task directive gets a
 * feature vector (static counts from the front end, dynamic figures from an
 * annotated con-DAG); the K = 10 nearest measured training examples (Euclidean
 * distance on normalised features) predict its thresholds as the weighted sum
 * of theirs, the i-th nearest weighing 1/(e·i!) (normalised to 1).  A task
 * whose measured grain lies below the predicted minimum is "too-fine".
 * docs/advise.md defines every feature and threshold.
 *
 * Ownership: every object returned through an `out` pointer belongs to the
 * caller and is freed with its _destroy function; every const char * returned
 * by an accessor is borrowed from the object it came from.
 */
#ifndef OMPDAG_ADVISE_H
#define OMPDAG_ADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ompdag/condag.h"
#include "ompdag/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- features -------------------------------------------------------------- */

/* The feature vector of one task directive, in this order (docs/advise.md). */
typedef enum ompdag_advise_feature {
    /* static, from the front end's "features" key on the T node */
    OMPDAG_FEAT_STMTS = 0, /* statements in the task body and its TU callees */
    OMPDAG_FEAT_BRANCHES,  /* if, switch case, ?:, &&, || */
    OMPDAG_FEAT_LOOPS,     /* for, while, do */
    OMPDAG_FEAT_CALLS,     /* call expressions */
    OMPDAG_FEAT_ADDSUB,    /* + - += -= ++ -- */
    OMPDAG_FEAT_MULDIV,    /* * / % *= /= %= */
    OMPDAG_FEAT_BLOCKS,    /* basic blocks: 1 + 2 per branch or loop */
    OMPDAG_FEAT_RECURSION, /* recursion bound when the body calls its own function, else 0 */
    /* dynamic, from the annotated graph */
    OMPDAG_FEAT_GRAIN,       /* mean own time per task instance, ns */
    OMPDAG_FEAT_SEG_MEAN,    /* mean segment time, ns */
    OMPDAG_FEAT_SEG_MAX,     /* max segment time (observed_max), ns */
    OMPDAG_FEAT_TASKS,       /* task instances per run */
    OMPDAG_FEAT_OVERHEAD,    /* runtime overhead share o / (o + grain) */
    OMPDAG_FEAT_PARALLELISM, /* vol / len of the region's worst flow */
    OMPDAG_FEAT_COUNT
} ompdag_advise_feature;

/* "stmts", "branches", … (the JSON key); NULL out of range. */
const char *ompdag_advise_feature_name(int f);

typedef struct ompdag_advise_features {
    double v[OMPDAG_FEAT_COUNT];
    bool have[OMPDAG_FEAT_COUNT]; /* false: unknown, left out of every distance */
} ompdag_advise_features;

/* What a task directive's cutoff threshold means. */
typedef enum ompdag_advise_shape {
    OMPDAG_SHAPE_RECURSIVE = 0, /* cutoff = recursion depth below which no task is created */
    OMPDAG_SHAPE_LOOP = 1       /* cutoff = loop iterations (chunk) per task */
} ompdag_advise_shape;

const char *ompdag_advise_shape_name(ompdag_advise_shape s); /* "recursive" / "loop" */

/* The predicted (or best-known) partition scheme of one task directive. */
typedef struct ompdag_advise_thresholds {
    double grain_min_ns; /* tasks below this lose to their overhead */
    double grain_max_ns; /* tasks above this leave threads idle */
    double cutoff;       /* depth (recursive) or chunk (loop); see shape */
} ompdag_advise_thresholds;

/* ---- the model --------------------------------------------------------------- */

typedef struct ompdag_advise_model ompdag_advise_model;

/* Loads an `ompdag-advisor-model` v1 file; every error names the file and
 * the sample or field at fault.  Free with ompdag_advise_model_destroy(). */
ompdag_status ompdag_advise_model_load(const char *path, ompdag_advise_model **out,
                                       ompdag_error *err);
void ompdag_advise_model_destroy(ompdag_advise_model *m); /* NULL is a no-op */

size_t ompdag_advise_model_sample_count(const ompdag_advise_model *m);
const char *ompdag_advise_model_sample_name(const ompdag_advise_model *m, size_t i);
/* Per-task runtime overhead calibrated when the model was trained, ns. */
double ompdag_advise_model_task_overhead_ns(const ompdag_advise_model *m);
/* Thread count the training runs used. */
int32_t ompdag_advise_model_threads(const ompdag_advise_model *m);

/* The default model path: $OMPDAG_ADVISOR_MODEL, else the file installed in
 * the source tree at build time.  Borrowed static string. */
const char *ompdag_advise_default_model_path(void);

#define OMPDAG_ADVISE_K 10

/* The weight of the i-th nearest (i = 1..k) of k neighbours: 1/(e·i!)
 * normalised so that the k weights sum to 1. */
double ompdag_advise_weight(int i, int k);

/* KNN prediction (Ma 2018, Algorithm 1).  Samples whose index is `exclude`
 * or whose program is `exclude_program` (NULL: none) are left out (the
 * leave-one-out validation).  The cutoff is predicted from the nearest
 * samples of the same shape only (a depth and a chunk do not mix); the grain
 * limits from the nearest of any shape.  Fails when no sample is left. */
ompdag_status ompdag_advise_predict(const ompdag_advise_model *m, const ompdag_advise_features *f,
                                    ompdag_advise_shape shape, size_t exclude,
                                    const char *exclude_program, ompdag_advise_thresholds *out,
                                    ompdag_error *err);

/* ---- advice for annotated graphs --------------------------------------------- */

typedef enum ompdag_advise_verdict {
    OMPDAG_ADVISE_OK = 0,
    OMPDAG_ADVISE_TOO_FINE = 1,
    OMPDAG_ADVISE_TOO_COARSE = 2,
    OMPDAG_ADVISE_UNMEASURED = 3 /* no task instance observed: nothing to judge */
} ompdag_advise_verdict;

const char *ompdag_advise_verdict_name(ompdag_advise_verdict v); /* "too-fine", … */

/* A directive is too-fine when its grain is below the predicted minimum and
 * its overhead share o/(o + grain) is at least this (when o is known): below
 * it, merging tasks cannot gain more than 1 %. */
#define OMPDAG_ADVISE_MIN_OVERHEAD_SHARE 0.01

typedef struct ompdag_advise_task {
    ompdag_loc loc; /* the task directive (file borrowed from the graph set) */
    ompdag_advise_shape shape;
    ompdag_advise_features features;
    double grain_ns;  /* = features.v[OMPDAG_FEAT_GRAIN] */
    double instances; /* task instances per run */
    ompdag_advise_thresholds predicted;
    ompdag_advise_verdict verdict;
    char suggestion[256];
} ompdag_advise_task;

typedef struct ompdag_advice ompdag_advice;

/* Advice for every region (graph) of an annotated set and every task
 * directive in it (T nodes grouped by their `loc`).  `threads` (>= 1) is the
 * m of the parallelism feature; 0 takes each graph's own "threads", else the
 * model's.  The set must outlive the advice (locations are borrowed). */
ompdag_status ompdag_advise_graphs(const ompdag_condag_set *set, const ompdag_advise_model *m,
                                   int32_t threads, ompdag_advice **out, ompdag_error *err);
void ompdag_advice_destroy(ompdag_advice *a); /* NULL is a no-op */

size_t ompdag_advice_region_count(const ompdag_advice *a);
/* Graph index in the set of region r. */
size_t ompdag_advice_region_graph(const ompdag_advice *a, size_t r);
const char *ompdag_advice_region_function(const ompdag_advice *a, size_t r);
ompdag_loc ompdag_advice_region_loc(const ompdag_advice *a, size_t r);
size_t ompdag_advice_task_count(const ompdag_advice *a, size_t r);
const ompdag_advise_task *ompdag_advice_task(const ompdag_advice *a, size_t r, size_t t);
/* The region index of graph gi, or (size_t)-1 when that graph has no task. */
size_t ompdag_advice_region_of_graph(const ompdag_advice *a, size_t gi);
/* Number of too-fine directives over all regions. */
size_t ompdag_advice_too_fine_count(const ompdag_advice *a);

/* Human-readable: one block per region, one line group per directive. */
void ompdag_advice_write_text(const ompdag_advice *a, FILE *out);
/* The lines of region r only, each prefixed by `indent`. */
void ompdag_advice_write_region_text(const ompdag_advice *a, size_t r, const char *indent,
                                     FILE *out);

/* ---- validation and training ------------------------------------------------ */

/* Leave-one-out over the model's samples: per threshold the mean absolute and
 * relative error, and the speedup of the predicted setting (rounded to the
 * nearest measured grid point) against the best-known and the default
 * setting; then the same leaving out whole programs.  json: one JSON object. */
ompdag_status ompdag_advise_validate(const ompdag_advise_model *m, bool json, FILE *out,
                                     ompdag_error *err);

/* What one trace says about granularity (the training script's grid runs). */
typedef struct ompdag_advise_trace_stats {
    uint64_t regions;        /* parallel regions that ended */
    int64_t min_region_ns;   /* fastest region, the first (cold) one left out when > 1 */
    double tasks_per_region; /* explicit tasks created / regions */
    double mean_task_ns;     /* explicit tasks' own time / explicit tasks ended */
} ompdag_advise_trace_stats;

ompdag_status ompdag_advise_trace_stats_read(const char *path, ompdag_advise_trace_stats *out,
                                             ompdag_error *err);

/* Builds a model from the training script's manifest (docs/advise.md,
 * "Training") and writes it atomically to out_path. */
ompdag_status ompdag_advise_model_build(const char *manifest_path, const char *out_path,
                                        ompdag_error *err);

/* Features of directive group: all T nodes of g whose loc equals `loc`
 * (file:line).  overhead_ns: per-task runtime overhead (<= 0: the model's
 * calibration is unknown, the feature is left out).  threads >= 1. */
ompdag_status ompdag_advise_directive_features(const ompdag_condag *g, ompdag_loc loc,
                                               int32_t threads, double overhead_ns,
                                               ompdag_advise_features *out, double *instances,
                                               ompdag_advise_shape *shape, ompdag_error *err);

#ifdef __cplusplus
}
#endif
#endif
