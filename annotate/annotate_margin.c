/*
 * annotate/annotate_margin.c — the WCET margin (`annotate --margin PCT`),
 * applied to every estimate and delay the passes write: apply's WCETs and
 * delays, and the input's DAG (annotate_input*.c).
 */
#include <math.h>

#include "annotate_internal.h"

/* ceil(x · (1 + margin/100)); false when it does not fit comfortably in int64. */
bool annot_with_margin(const ompdag_annotation *a, int64_t x, int64_t *out)
{
    long double w = ceill((long double)x * (100.0L + a->opt.margin_pct) / 100.0L);
    if (w > (long double)INT64_MAX / 4) return false;
    *out = (int64_t)w;
    return true;
}
