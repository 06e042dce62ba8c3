/*
 * advisor/advise_knn.c — the KNN prediction of a partition scheme.
 *
 * Source: Ma 2018 §4.3, Algorithm 1 (docs/advise.md): the K = 10
 * nearest training samples by Euclidean distance (eq. 1) on normalised
 * features; the i-th nearest weighs 1/(e·i!) (eq. 2–4, the Maclaurin series
 * of e^x at x = 1), normalised so the K weights sum to 1; each threshold is
 * the weighted sum of the neighbours' thresholds (eq. 5).
 *
 * Normalisation (ours, docs/advise.md): x -> log(1 + x) for every count and
 * time (they span orders of magnitude), the overhead share as is, then a
 * z-score over the samples in use.  A feature unknown on either side, or
 * constant over the samples, is left out of the distance.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"

double ompdag_advise_weight(int i, int k)
{
    if (k < 1 || i < 1 || i > k) return 0;
    /* 1/(e·j!) for j = 1..k; e cancels in the normalisation but is kept
     * so the terms are the seed's. */
    double term = 1.0 / M_E, sum = 0, wi = 0;
    for (int j = 1; j <= k; ++j) {
        term /= j;
        sum += term;
        if (j == i) wi = term;
    }
    return wi / sum;
}

static double transform(int f, double x)
{
    if (f == OMPDAG_FEAT_OVERHEAD) return x;
    return log1p(x > 0 ? x : 0);
}

typedef struct norm {
    double mean[OMPDAG_FEAT_COUNT], sd[OMPDAG_FEAT_COUNT];
    bool use[OMPDAG_FEAT_COUNT];
} norm;

static bool in_use(const ompdag_advise_model *m, size_t i, size_t exclude, const char *program)
{
    return i != exclude && !(program && !strcmp(program, m->samples[i].program));
}

/* tx[i·F + f]: feature f of sample i, transformed (advise_transform_all);
 * use[i]: sample i is in the training set of this prediction. */
static void fit_norm(const ompdag_advise_model *m, const double *tx, const uint8_t *use, norm *z)
{
    for (int f = 0; f < OMPDAG_FEAT_COUNT; ++f) {
        double s = 0, n = 0, ss = 0;
        for (size_t i = 0; i < m->n; ++i)
            if (use[i] && m->samples[i].features.have[f])
                s += tx[i * OMPDAG_FEAT_COUNT + (size_t)f], n += 1;
        z->mean[f] = n > 0 ? s / n : 0;
        for (size_t i = 0; i < m->n; ++i) { /* two passes: no cancellation */
            double d = tx[i * OMPDAG_FEAT_COUNT + (size_t)f] - z->mean[f];
            if (use[i] && m->samples[i].features.have[f]) ss += d * d;
        }
        z->sd[f] = n > 1 ? sqrt(ss / (n - 1)) : 0;
        z->use[f] = z->sd[f] > 1e-12;
    }
}

/* Distance between the query (transformed: q) and sample i. */
static double distance(const norm *z, const ompdag_advise_features *a, const double *q,
                       const ompdag_advise_features *b, const double *t)
{
    double d2 = 0;
    for (int f = 0; f < OMPDAG_FEAT_COUNT; ++f) {
        if (!z->use[f] || !a->have[f] || !b->have[f]) continue;
        double u = (q[f] - z->mean[f]) / z->sd[f];
        double w = (t[f] - z->mean[f]) / z->sd[f];
        d2 += (u - w) * (u - w);
    }
    return sqrt(d2);
}

double *advise_transform_all(const ompdag_advise_model *m)
{
    double *tx = malloc(sizeof *tx * OMPDAG_FEAT_COUNT * (m->n ? m->n : 1));
    for (size_t i = 0; tx && i < m->n; ++i)
        for (int f = 0; f < OMPDAG_FEAT_COUNT; ++f)
            tx[i * OMPDAG_FEAT_COUNT + (size_t)f] = transform(f, m->samples[i].features.v[f]);
    return tx;
}

typedef struct ranked {
    double d;
    size_t i;
} ranked;

static int ranked_cmp(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    if (a->d != b->d) return a->d < b->d ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i; /* ties: file order, deterministic */
}

/* Weighted sum over the first min(K, n) of r[0..n) (eq. 5). */
static void weighted(const ompdag_advise_model *m, const ranked *r, size_t n,
                     ompdag_advise_thresholds *acc, bool grains, bool cutoff)
{
    int k = n < OMPDAG_ADVISE_K ? (int)n : OMPDAG_ADVISE_K;
    for (int j = 1; j <= k; ++j) {
        const ompdag_advise_thresholds *h = &m->samples[r[j - 1].i].best;
        double w = ompdag_advise_weight(j, k);
        if (grains) {
            acc->grain_min_ns += w * h->grain_min_ns;
            acc->grain_max_ns += w * h->grain_max_ns;
        }
        if (cutoff) acc->cutoff += w * h->cutoff;
    }
}

/* Keeps the K nearest seen so far in best[0..*n), ordered by ranked_cmp:
 * insertion into K slots, so a query costs O(samples · K), not a sort. */
static void keep_nearest(ranked *best, size_t *n, ranked r)
{
    if (*n == OMPDAG_ADVISE_K && ranked_cmp(&r, &best[*n - 1]) >= 0) return;
    size_t j = *n < OMPDAG_ADVISE_K ? (*n)++ : *n - 1;
    for (; j > 0 && ranked_cmp(&r, &best[j - 1]) < 0; --j)
        best[j] = best[j - 1];
    best[j] = r;
}

ompdag_status advise_predict_tx(const ompdag_advise_model *m, const double *tx,
                                const ompdag_advise_features *f, ompdag_advise_shape shape,
                                size_t exclude, const char *exclude_program,
                                ompdag_advise_thresholds *out, ompdag_error *err)
{
    uint8_t *use = malloc(m->n ? m->n : 1);
    if (!use) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < m->n; ++i)
        use[i] = in_use(m, i, exclude, exclude_program);
    norm z;
    fit_norm(m, tx, use, &z);
    double q[OMPDAG_FEAT_COUNT];
    for (int k = 0; k < OMPDAG_FEAT_COUNT; ++k)
        q[k] = transform(k, f->v[k]);
    ranked all[OMPDAG_ADVISE_K], same[OMPDAG_ADVISE_K];
    size_t na = 0, ns = 0;
    for (size_t i = 0; i < m->n; ++i) {
        if (!use[i]) continue;
        ranked r = {distance(&z, f, q, &m->samples[i].features, tx + i * OMPDAG_FEAT_COUNT), i};
        keep_nearest(all, &na, r);
        if (m->samples[i].shape == shape) keep_nearest(same, &ns, r);
    }
    free(use);
    if (na == 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "the model has no sample to predict from");
    memset(out, 0, sizeof *out);
    weighted(m, all, na, out, true, false);
    if (ns > 0)
        weighted(m, same, ns, out, false, true);
    else
        out->cutoff = -1; /* no sample of this shape: no cutoff advice */
    return OMPDAG_OK;
}

ompdag_status ompdag_advise_predict(const ompdag_advise_model *m, const ompdag_advise_features *f,
                                    ompdag_advise_shape shape, size_t exclude,
                                    const char *exclude_program, ompdag_advise_thresholds *out,
                                    ompdag_error *err)
{
    double *tx = advise_transform_all(m);
    if (!tx) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    ompdag_status st = advise_predict_tx(m, tx, f, shape, exclude, exclude_program, out, err);
    free(tx);
    return st;
}
