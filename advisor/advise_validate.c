/*
 * advisor/advise_validate.c — leave-one-out validation of the advisor.
 *
 * Source: Ma 2018 §5 (docs/advise.md): "the test set and the
 * training set are the same sample set, so the prediction is validated with
 * leave-one-out": each sample's scheme is predicted from the others only.
 * We report, per threshold, the mean absolute and relative error against the
 * best-known scheme, and, since every sample carries its measured grid, the
 * time of the predicted setting (the grid point nearest to the predicted
 * cutoff) against the best and the default setting.  A second pass leaves
 * out every sample of the same program (held-out programs, the benchmark
 * the issue asks for).
 *
 * Each prediction scans every sample (K nearest neighbours, brute force), so
 * predicting all n is quadratic: 100,000 samples took over a minute.  Above
 * VALIDATE_QUERIES (500) samples, every (n / VALIDATE_QUERIES)-th sample is
 * predicted (a fixed stride: the same subset every run), still from all the
 * others, which keeps the cost linear in n; the output says how many.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"

enum { VALIDATE_QUERIES = 500 };

/* The samples predicted: all of them, or a fixed stride through them. */
typedef struct loo_queries {
    size_t n, stride;
} loo_queries;

static loo_queries pick_queries(size_t samples)
{
    size_t stride = samples > VALIDATE_QUERIES ? samples / VALIDATE_QUERIES : 1;
    return (loo_queries){(samples + stride - 1) / stride, stride};
}

typedef struct loo_row {
    ompdag_advise_thresholds pred;
    double t_pred, t_best, t_default, setting;
} loo_row;

typedef struct loo_summary {
    double err_abs[3], err_rel[3];    /* grain_min, grain_max, cutoff */
    double gm_vs_best, gm_vs_default; /* geometric means of the time ratios */
    size_t n;
} loo_summary;

static double time_at(const advise_sample *s, double setting)
{
    return s->grid[advise_nearest_grid(s, setting)].time_ns;
}

static double best_time(const advise_sample *s)
{
    double t = INFINITY;
    for (size_t k = 0; k < s->ngrid; ++k)
        if (s->grid[k].time_ns < t) t = s->grid[k].time_ns;
    return t;
}

static ompdag_status run_pass(const ompdag_advise_model *m, const double *tx, loo_queries q,
                              bool by_program, loo_row *rows, loo_summary *sum, ompdag_error *err)
{
    memset(sum, 0, sizeof *sum);
    double lb = 0, ld = 0;
    for (size_t j = 0; j < q.n; ++j) {
        size_t i = j * q.stride;
        const advise_sample *s = &m->samples[i];
        loo_row *r = &rows[j];
        ompdag_status st = advise_predict_tx(m, tx, &s->features, s->shape, i,
                                             by_program ? s->program : NULL, &r->pred, err);
        if (st) return st;
        double c = r->pred.cutoff >= 0 ? r->pred.cutoff : s->default_setting;
        r->setting = s->grid[advise_nearest_grid(s, c)].setting;
        r->t_pred = time_at(s, c);
        r->t_best = best_time(s);
        r->t_default = time_at(s, s->default_setting);
        double pv[3] = {r->pred.grain_min_ns, r->pred.grain_max_ns, r->pred.cutoff};
        double bv[3] = {s->best.grain_min_ns, s->best.grain_max_ns, s->best.cutoff};
        for (int k = 0; k < 3; ++k) {
            sum->err_abs[k] += fabs(pv[k] - bv[k]);
            sum->err_rel[k] += fabs(pv[k] - bv[k]) / (bv[k] > 0 ? bv[k] : 1);
        }
        lb += log(r->t_best / r->t_pred);
        ld += log(r->t_default / r->t_pred);
        sum->n++;
    }
    for (int k = 0; k < 3; ++k) {
        sum->err_abs[k] /= (double)sum->n;
        sum->err_rel[k] /= (double)sum->n;
    }
    sum->gm_vs_best = exp(lb / (double)sum->n);
    sum->gm_vs_default = exp(ld / (double)sum->n);
    return OMPDAG_OK;
}

static json_t *pass_json(const ompdag_advise_model *m, loo_queries q, const loo_row *rows,
                         const loo_summary *s)
{
    json_t *arr = json_array();
    for (size_t j = 0; j < q.n; ++j) {
        const advise_sample *x = &m->samples[j * q.stride];
        const loo_row *r = &rows[j];
        json_array_append_new(
            arr,
            json_pack("{s:s,s:s,s:{s:f,s:f,s:f},s:{s:f,s:f,s:f},s:f,s:f,s:f,s:f,s:f}", "sample",
                      x->name, "shape", ompdag_advise_shape_name(x->shape), "best", "grain_min_ns",
                      x->best.grain_min_ns, "grain_max_ns", x->best.grain_max_ns, "cutoff",
                      x->best.cutoff, "predicted", "grain_min_ns", r->pred.grain_min_ns,
                      "grain_max_ns", r->pred.grain_max_ns, "cutoff", r->pred.cutoff,
                      "setting_used", r->setting, "default", x->default_setting, "time_best_ns",
                      r->t_best, "time_predicted_ns", r->t_pred, "time_default_ns", r->t_default));
    }
    return json_pack("{s:I,s:I,s:o,s:{s:f,s:f,s:f},s:{s:f,s:f,s:f},s:f,s:f}", "model_samples",
                     (json_int_t)m->n, "predicted_samples", (json_int_t)q.n, "samples", arr,
                     "mean_abs_error", "grain_min_ns", s->err_abs[0], "grain_max_ns", s->err_abs[1],
                     "cutoff", s->err_abs[2], "mean_rel_error", "grain_min_ns", s->err_rel[0],
                     "grain_max_ns", s->err_rel[1], "cutoff", s->err_rel[2],
                     "geomean_best_over_predicted", s->gm_vs_best, "geomean_speedup_over_default",
                     s->gm_vs_default);
}

static void pass_text(const ompdag_advise_model *m, loo_queries q, const loo_row *rows,
                      const loo_summary *s, const char *title, FILE *out)
{
    if (q.n < m->n)
        fprintf(out, "%s (%zu samples, every %zu-th of them predicted: %zu, K = %d)\n", title, m->n,
                q.stride, q.n, OMPDAG_ADVISE_K);
    else
        fprintf(out, "%s (%zu samples, K = %d)\n", title, m->n, OMPDAG_ADVISE_K);
    fprintf(out, "  %-26s %-9s %17s %17s %13s %11s %11s\n", "sample", "shape", "grain_min us b/p",
            "grain_max us b/p", "cutoff b/p", "best/pred", "dflt/pred");
    for (size_t j = 0; j < q.n; ++j) {
        const advise_sample *x = &m->samples[j * q.stride];
        const loo_row *r = &rows[j];
        fprintf(out, "  %-26s %-9s %8.1f/%-8.1f %8.0f/%-8.0f %5.0f/%-7.1f %11.3f %11.3f\n", x->name,
                ompdag_advise_shape_name(x->shape), x->best.grain_min_ns / 1e3,
                r->pred.grain_min_ns / 1e3, x->best.grain_max_ns / 1e3, r->pred.grain_max_ns / 1e3,
                x->best.cutoff, r->pred.cutoff, r->t_best / r->t_pred, r->t_default / r->t_pred);
    }
    fprintf(out,
            "  mean abs error: grain_min %.1f us, grain_max %.1f us, cutoff %.2f\n"
            "  mean rel error: grain_min %.0f %%, grain_max %.0f %%, cutoff %.0f %%\n"
            "  predicted setting: %.3f of the best-known speed, %.3fx the default's "
            "(geometric means)\n",
            s->err_abs[0] / 1e3, s->err_abs[1] / 1e3, s->err_abs[2], 100 * s->err_rel[0],
            100 * s->err_rel[1], 100 * s->err_rel[2], s->gm_vs_best, s->gm_vs_default);
}

ompdag_status ompdag_advise_validate(const ompdag_advise_model *m, bool json, FILE *out,
                                     ompdag_error *err)
{
    if (m->n < 2)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "leave-one-out needs at least 2 samples, the model has %zu", m->n);
    loo_queries q = pick_queries(m->n);
    loo_row *a = calloc(q.n, sizeof *a), *b = calloc(q.n, sizeof *b);
    double *tx = advise_transform_all(m);
    if (!a || !b || !tx) {
        free(a), free(b), free(tx);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    loo_summary sa, sb;
    ompdag_status st = run_pass(m, tx, q, false, a, &sa, err);
    bool programs = !st && run_pass(m, tx, q, true, b, &sb, NULL) == OMPDAG_OK;
    if (!st && json) {
        json_t *o =
            json_pack("{s:o,s:o}", "leave_one_out", pass_json(m, q, a, &sa), "leave_program_out",
                      programs ? pass_json(m, q, b, &sb) : json_null());
        if (!o || json_dumpf(o, out, JSON_INDENT(2) | JSON_REAL_PRECISION(6)))
            st = ompdag_error_set(err, OMPDAG_ERR_IO, "write error");
        fputc('\n', out);
        json_decref(o);
    } else if (!st) {
        pass_text(m, q, a, &sa, "leave-one-out", out);
        if (programs)
            pass_text(m, q, b, &sb, "leave-program-out (every sample of the same program held out)",
                      out);
        else
            fprintf(out, "leave-program-out: not possible (a single program)\n");
    }
    free(a), free(b), free(tx);
    return st;
}
