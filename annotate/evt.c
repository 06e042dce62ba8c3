/*
 * annotate/evt.c — probabilistic WCET from extreme value theory.
 *
 * Block maxima: the samples, in the order they were observed, are cut into
 * consecutive blocks of `block` samples (a trailing partial block is dropped)
 * and each block's maximum is kept.  A Gumbel distribution
 *     F(x) = exp(-exp(-(x - mu) / beta))
 * is fitted to the maxima by probability-weighted moments (Hosking, Wallis &
 * Wood 1985): with the maxima sorted ascending x(1) <= ... <= x(m),
 *     b0 = mean,   b1 = (1/m) sum_i (i-1)/(m-1) x(i),
 *     beta = (2 b1 - b0) / ln 2,   mu = b0 - 0.5772156649 beta.
 * A per-sample exceedance probability p becomes pb = 1 - (1-p)^block per
 * block, and the pWCET is the Gumbel quantile  mu - beta ln(-ln(1 - pb)).
 * Fewer than min_blocks blocks is refused (OMPDAG_ERR_LIMIT): the fit would
 * mean nothing.
 */
#include <math.h>
#include <stdlib.h>

#include "ompdag/internal/stats.h"
#include "ompdag/trace.h"

ompdag_status ompdag_evt_gumbel_pwcet(const int64_t *samples, size_t n, int32_t block,
                                      int32_t min_blocks, double exceedance, double *pwcet,
                                      double *mu, double *beta, ompdag_error *err)
{
    if (!samples || !pwcet || !mu || !beta || block < 1 || min_blocks < 2 ||
        !(exceedance > 0 && exceedance < 1))
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "evt: invalid argument");
    size_t m = n / (size_t)block;
    if (m < (size_t)min_blocks)
        return ompdag_error_set(err, OMPDAG_ERR_LIMIT,
                                "evt needs at least %d blocks of %d samples (%lld samples), "
                                "only %zu samples were observed; run more, or use --estimator max",
                                min_blocks, block, (long long)min_blocks * block, n);
    double *x = malloc(m * sizeof *x);
    if (!x)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "evt: out of memory");
    for (size_t b = 0; b < m; ++b) {
        int64_t mx = samples[b * (size_t)block];
        for (size_t i = 1; i < (size_t)block; ++i)
            if (samples[b * (size_t)block + i] > mx)
                mx = samples[b * (size_t)block + i];
        x[b] = (double)mx;
    }
    qsort(x, m, sizeof *x, ompdag_cmp_double);
    double b0 = 0, b1 = 0;
    for (size_t i = 0; i < m; ++i) {
        b0 += x[i];
        b1 += (double)i / (double)(m - 1) * x[i];
    }
    b0 /= (double)m;
    b1 /= (double)m;
    *beta = (2 * b1 - b0) / log(2.0);
    *mu = b0 - 0.5772156649015329 * *beta;
    double pb = -expm1((double)block * log1p(-exceedance));
    if (*beta <= 0)
        *pwcet = x[m - 1]; /* all maxima equal: degenerate, the sample is the bound */
    else
        *pwcet = *mu - *beta * log(-log1p(-pb));
    free(x);
    return OMPDAG_OK;
}
