/* advisor/advise_internal.h — what the files of the advisor module share; not
 * installed, not part of the API (include/ompdag/advise.h is). */
#ifndef OMPDAG_ADVISE_INTERNAL_H
#define OMPDAG_ADVISE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ompdag/advise.h"
#include "ompdag/internal/condag_json.h"

/* One measured setting of a training sample. */
typedef struct advise_grid_point {
    double setting;  /* cutoff depth or chunk */
    double time_ns;  /* fastest region time over the repetitions */
    double grain_ns; /* mean explicit-task own time at this setting */
    double tasks;    /* explicit tasks per region */
} advise_grid_point;

typedef struct advise_sample {
    char *name, *program;
    ompdag_advise_shape shape;
    ompdag_advise_features features;
    ompdag_advise_thresholds best;
    double default_setting;
    advise_grid_point *grid;
    size_t ngrid;
} advise_sample;

struct ompdag_advise_model {
    advise_sample *samples;
    size_t n;
    double task_overhead_ns;
    double near_best_pct;
    int32_t threads;
};

/* Every sample's features transformed as the distance uses them (n × F
 * values, row-major); malloc'ed, the caller frees; NULL on failure.  Lets
 * many predictions over one model (validation) transform once. */
double *advise_transform_all(const ompdag_advise_model *m);

/* ompdag_advise_predict() with the model's features already transformed. */
ompdag_status advise_predict_tx(const ompdag_advise_model *m, const double *tx,
                                const ompdag_advise_features *f, ompdag_advise_shape shape,
                                size_t exclude, const char *exclude_program,
                                ompdag_advise_thresholds *out, ompdag_error *err);

/* Best-known thresholds of a measured grid (advise_model.c): the fastest
 * setting, and the grain range of the settings within near_pct % of it. */
void advise_best_of_grid(const advise_grid_point *grid, size_t n, double near_pct,
                         ompdag_advise_thresholds *out);

/* Feature extraction with the region's parallelism already known (< 0:
 * unknown), so a graph's bound is computed once (advise_features.c). */
ompdag_status advise_directive_features(const ompdag_condag *g, ompdag_loc loc, double parallelism,
                                        double overhead_ns, ompdag_advise_features *out,
                                        double *instances, ompdag_advise_shape *shape,
                                        ompdag_error *err);

/* vol/len of the region's worst flow on `threads` threads (exact algorithm). */
ompdag_status advise_parallelism(const ompdag_condag *g, int32_t threads, double *out,
                                 ompdag_error *err);

/* Per-task overhead recorded in an annotated graph (extra key
 * "runtime_overhead": {"per_task_ns": N}), or -1. */
double advise_graph_overhead_ns(const ompdag_condag *g);

/* Sample whose grid point is nearest to `setting` (log scale for loops). */
size_t advise_nearest_grid(const advise_sample *s, double setting);

#endif
