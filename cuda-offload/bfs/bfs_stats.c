/*
 * bfs_stats.c — Graph500 measurement helpers: search keys with degree >= 1
 * and TEPS statistics (min, quartiles, max, harmonic mean; Graph500 spec §9
 * reports the harmonic mean of TEPS because TEPS is a rate).
 */
#include <stdlib.h>
#include <string.h>

#include "bfs_internal.h"
#include "ompdag/internal/stats.h"

/* Quantile q of sorted[0..n) with linear interpolation between ranks. */
static double quantile(const double *sorted, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)pos;
    if (lo >= n - 1) return sorted[n - 1];
    double frac = pos - lo;
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

ompdag_status ompdag_bfs_teps_summarize(const double *teps, int count, ompdag_bfs_teps_summary *out,
                                        ompdag_error *err)
{
    if (!teps || count <= 0 || !out)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "teps: nothing to summarize");
    double *s = malloc((size_t)count * sizeof *s);
    if (!s) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "teps: out of memory");
    double inv = 0;
    for (int i = 0; i < count; ++i) {
        if (!(teps[i] > 0)) {
            free(s);
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "teps: value %d is not positive", i);
        }
        s[i] = teps[i];
        inv += 1.0 / teps[i];
    }
    qsort(s, (size_t)count, sizeof *s, ompdag_cmp_double);
    out->count = count;
    out->min = s[0];
    out->first_quartile = quantile(s, count, 0.25);
    out->median = quantile(s, count, 0.5);
    out->third_quartile = quantile(s, count, 0.75);
    out->max = s[count - 1];
    out->harmonic_mean = count / inv;
    free(s);
    return OMPDAG_OK;
}

int ompdag_bfs_pick_sources(const ompdag_graph *g, int count, uint64_t seed, int64_t *keys)
{
    int64_t k = 0;
    for (int64_t v = 0; v < g->n; ++v)
        k += csr_degree(g, v) > 0;
    if (k == 0 || count <= 0) return 0;
    int64_t *cand = malloc((size_t)k * sizeof *cand);
    if (!cand) return 0;
    k = 0;
    for (int64_t v = 0; v < g->n; ++v)
        if (csr_degree(g, v) > 0) cand[k++] = v;
    bfs_pick_from_candidates(cand, k, count, seed, keys);
    free(cand);
    return count;
}

void bfs_pick_from_candidates(int64_t *cand, int64_t k, int count, uint64_t seed, int64_t *keys)
{
    /* Partial Fisher–Yates: distinct keys while candidates last, then cycle. */
    uint64_t r = bfs_splitmix64(seed ^ 0xB5AD4ECEDA1CE2A9ull);
    int64_t distinct = count < k ? count : k;
    for (int64_t i = 0; i < distinct; ++i) {
        r = bfs_splitmix64(r);
        int64_t j = i + (int64_t)(r % (uint64_t)(k - i));
        int64_t x = cand[i];
        cand[i] = cand[j];
        cand[j] = x;
    }
    for (int i = 0; i < count; ++i)
        keys[i] = cand[i % distinct];
}

ompdag_status ompdag_bfs_run_trials(const ompdag_graph *g, ompdag_bfs_engine engine,
                                    const ompdag_bfs_options *opts, const int64_t *keys, int nkeys,
                                    bool validate, bool warmup, ompdag_bfs_trial_fn each, void *ctx,
                                    ompdag_bfs_trials_summary *out, ompdag_error *err)
{
    if (!g || !keys || nkeys <= 0 || !out)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "bfs trials: no graph or no keys");
    memset(out, 0, sizeof *out);
    ompdag_bfs_result *r;
    ompdag_status st = ompdag_bfs_result_create(&r, err);
    if (st != OMPDAG_OK) return st;
    double *teps = malloc((size_t)nkeys * sizeof *teps);
    if (!teps) {
        ompdag_bfs_result_destroy(r);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "bfs trials: out of memory");
    }
    if (warmup) st = ompdag_bfs_run(g, keys[0], engine, opts, r, err);
    double sum = 0;
    for (int i = 0; i < nkeys && st == OMPDAG_OK; ++i) {
        if ((st = ompdag_bfs_run(g, keys[i], engine, opts, r, err)) != OMPDAG_OK) break;
        ompdag_bfs_trial t = {.index = i,
                              .source = keys[i],
                              .seconds = ompdag_bfs_result_seconds(r),
                              .teps = ompdag_bfs_result_teps(r),
                              .levels = ompdag_bfs_result_level_count(r),
                              .valid = -1};
        ompdag_error verr = {0};
        if (validate) {
            t.valid = ompdag_bfs_validate(g, r, NULL, NULL, &verr) == OMPDAG_OK;
            out->invalid += !t.valid;
        }
        teps[i] = t.teps;
        sum += t.seconds;
        if (i == 0 || t.seconds < out->min_s) out->min_s = t.seconds;
        if (t.seconds > out->max_s) out->max_s = t.seconds;
        out->launches += (double)ompdag_bfs_result_launches(r);
        out->host_syncs += (double)ompdag_bfs_result_host_syncs(r);
        out->barriers += (double)ompdag_bfs_result_barriers(r);
        out->searches = i + 1;
        if (each) each(ctx, &t, r, validate && !t.valid ? &verr : NULL);
    }
    if (out->searches > 0) {
        const double k = (double)out->searches;
        out->mean_s = sum / k;
        out->launches /= k;
        out->host_syncs /= k;
        out->barriers /= k;
        ompdag_bfs_teps_summarize(teps, out->searches, &out->teps, NULL);
    }
    free(teps);
    ompdag_bfs_result_destroy(r);
    return st;
}
