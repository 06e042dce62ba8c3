/*
 * advisor/advise_model.c — the advisor's training set: the
 * `ompdag-advisor-model` v1 file, and building it from measurements.
 *
 * Source: Ma 2018 §4.2 (docs/advise.md): the sample set
 * T = {(X_i, H_i)} pairs each procedure's feature vector with its best-known
 * partition scheme, "found by an expert or by search".  Ours is found by
 * search: scripts/advisor-model.sh measures every training program over a
 * grid of cutoff (or chunk) settings; the best-known scheme is the fastest
 * setting, and the grain range of the settings within near_best_pct % of it
 * (docs/advise.md, "Training").
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "advise_internal.h"
#include "ompdag/fileio.h"
#include "ompdag/internal/advise_json.h"
#include "ompdag/internal/array.h"

#ifndef OMPDAG_ADVISOR_MODEL_PATH
#define OMPDAG_ADVISOR_MODEL_PATH "advisor/advisor-model.json"
#endif

const char *ompdag_advise_default_model_path(void)
{
    const char *env = getenv("OMPDAG_ADVISOR_MODEL");
    return env && *env ? env : OMPDAG_ADVISOR_MODEL_PATH;
}

static void sample_free(advise_sample *s)
{
    free(s->name), free(s->program), free(s->grid);
}

void ompdag_advise_model_destroy(ompdag_advise_model *m)
{
    if (!m) return;
    for (size_t i = 0; i < m->n; ++i)
        sample_free(&m->samples[i]);
    free(m->samples);
    free(m);
}

size_t ompdag_advise_model_sample_count(const ompdag_advise_model *m)
{
    return m->n;
}

const char *ompdag_advise_model_sample_name(const ompdag_advise_model *m, size_t i)
{
    return i < m->n ? m->samples[i].name : NULL;
}

double ompdag_advise_model_task_overhead_ns(const ompdag_advise_model *m)
{
    return m->task_overhead_ns;
}

int32_t ompdag_advise_model_threads(const ompdag_advise_model *m)
{
    return m->threads;
}

void advise_best_of_grid(const advise_grid_point *grid, size_t n, double near_pct,
                         ompdag_advise_thresholds *out)
{
    size_t best = 0;
    for (size_t i = 1; i < n; ++i)
        if (grid[i].time_ns < grid[best].time_ns) best = i;
    out->cutoff = grid[best].setting;
    out->grain_min_ns = out->grain_max_ns = grid[best].grain_ns;
    double limit = grid[best].time_ns * (1 + near_pct / 100);
    for (size_t i = 0; i < n; ++i) {
        if (grid[i].time_ns > limit) continue;
        if (grid[i].grain_ns < out->grain_min_ns) out->grain_min_ns = grid[i].grain_ns;
        if (grid[i].grain_ns > out->grain_max_ns) out->grain_max_ns = grid[i].grain_ns;
    }
}

size_t advise_nearest_grid(const advise_sample *s, double setting)
{
    size_t best = 0;
    double bd = INFINITY;
    for (size_t i = 0; i < s->ngrid; ++i) {
        double a = s->grid[i].setting, b = setting;
        double d = s->shape == OMPDAG_SHAPE_LOOP ? fabs(log2(a > 0 ? a : 1) - log2(b > 1 ? b : 1))
                                                 : fabs(a - b);
        if (d < bd) bd = d, best = i;
    }
    return best;
}

/* ---- loading ---------------------------------------------------------------- */

static ompdag_status bad(ompdag_error *err, const char *origin, const char *what, size_t i)
{
    if (i == (size_t)-1) return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: %s", origin, what);
    return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: sample %zu: %s", origin, i, what);
}

static bool num(const json_t *o, const char *key, double *out)
{
    json_t *x = json_object_get(o, key);
    if (!json_is_number(x)) return false;
    *out = json_number_value(x);
    return isfinite(*out);
}

static ompdag_status load_grid(const json_t *arr, advise_sample *s, const char *origin, size_t i,
                               ompdag_error *err)
{
    if (!json_is_array(arr) || json_array_size(arr) == 0)
        return bad(err, origin, "\"grid\" must be a non-empty array", i);
    s->ngrid = json_array_size(arr);
    s->grid = calloc(s->ngrid, sizeof *s->grid);
    if (!s->grid) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < s->ngrid; ++k) {
        const json_t *p = json_array_get(arr, k);
        advise_grid_point *g = &s->grid[k];
        if (!num(p, "setting", &g->setting) || !num(p, "time_ns", &g->time_ns) ||
            !num(p, "grain_ns", &g->grain_ns) || !num(p, "tasks", &g->tasks) || g->time_ns <= 0 ||
            g->grain_ns < 0 || g->tasks < 0 || g->setting < 0) {
            char what[96];
            snprintf(what, sizeof what,
                     "grid point %zu needs setting >= 0, time_ns > 0, grain_ns >= 0, tasks >= 0",
                     k);
            return bad(err, origin, what, i);
        }
    }
    return OMPDAG_OK;
}

static ompdag_status load_sample(const json_t *o, advise_sample *s, const char *origin, size_t i,
                                 ompdag_error *err)
{
    const char *name = json_string_value(json_object_get(o, "name"));
    const char *program = json_string_value(json_object_get(o, "program"));
    const char *shape = json_string_value(json_object_get(o, "shape"));
    if (!json_is_object(o) || !name || !*name || !program || !*program)
        return bad(err, origin, "needs \"name\" and \"program\" strings", i);
    if (!shape || (strcmp(shape, "recursive") && strcmp(shape, "loop")))
        return bad(err, origin, "\"shape\" must be \"recursive\" or \"loop\"", i);
    s->shape = strcmp(shape, "loop") ? OMPDAG_SHAPE_RECURSIVE : OMPDAG_SHAPE_LOOP;
    s->name = strdup(name), s->program = strdup(program);
    if (!s->name || !s->program) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!num(o, "default", &s->default_setting) || s->default_setting < 0)
        return bad(err, origin, "\"default\" must be a number >= 0", i);
    json_t *feat = json_object_get(o, "features");
    if (!json_is_object(feat)) return bad(err, origin, "\"features\" must be an object", i);
    for (int f = 0; f < OMPDAG_FEAT_COUNT; ++f) {
        json_t *x = json_object_get(feat, ompdag_advise_feature_name(f));
        if (x && !json_is_null(x) && (!json_is_number(x) || json_number_value(x) < 0)) {
            char what[96];
            snprintf(what, sizeof what, "feature \"%s\" must be a number >= 0 or null",
                     ompdag_advise_feature_name(f));
            return bad(err, origin, what, i);
        }
        s->features.have[f] = json_is_number(x);
        s->features.v[f] = s->features.have[f] ? json_number_value(x) : 0;
    }
    json_t *best = json_object_get(o, "best");
    if (!num(best, "grain_min_ns", &s->best.grain_min_ns) ||
        !num(best, "grain_max_ns", &s->best.grain_max_ns) ||
        !num(best, "cutoff", &s->best.cutoff) || s->best.grain_min_ns < 0 ||
        s->best.grain_max_ns < s->best.grain_min_ns || s->best.cutoff < 0)
        return bad(err, origin, "\"best\" needs 0 <= grain_min_ns <= grain_max_ns and cutoff >= 0",
                   i);
    return load_grid(json_object_get(o, "grid"), s, origin, i, err);
}

ompdag_status advise_model_from_json(const json_t *root, const char *origin,
                                     ompdag_advise_model **out, ompdag_error *err)
{
    const char *fmt = json_string_value(json_object_get(root, "format"));
    if (!fmt || strcmp(fmt, "ompdag-advisor-model"))
        return bad(err, origin, "not an ompdag-advisor-model file (\"format\")", (size_t)-1);
    if (json_integer_value(json_object_get(root, "version")) != 1)
        return bad(err, origin, "unsupported \"version\" (this reader knows 1)", (size_t)-1);
    json_t *arr = json_object_get(root, "samples");
    if (!json_is_array(arr) || json_array_size(arr) == 0)
        return bad(err, origin, "\"samples\" must be a non-empty array", (size_t)-1);
    ompdag_advise_model *m = calloc(1, sizeof *m);
    if (m) m->samples = calloc(json_array_size(arr), sizeof *m->samples);
    if (!m || !m->samples) {
        ompdag_advise_model_destroy(m);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    ompdag_status st = OMPDAG_OK;
    double threads = 0;
    if (!num(root, "task_overhead_ns", &m->task_overhead_ns) || m->task_overhead_ns < 0)
        st = bad(err, origin, "\"task_overhead_ns\" must be a number >= 0", (size_t)-1);
    else if (!num(root, "near_best_pct", &m->near_best_pct) || m->near_best_pct < 0)
        st = bad(err, origin, "\"near_best_pct\" must be a number >= 0", (size_t)-1);
    else if (!num(root, "threads", &threads) || threads < 1 || threads > 1 << 20)
        st = bad(err, origin, "\"threads\" must be an integer >= 1", (size_t)-1);
    m->threads = (int32_t)threads;
    for (size_t i = 0; !st && i < json_array_size(arr); ++i) {
        m->n = i + 1;
        st = load_sample(json_array_get(arr, i), &m->samples[i], origin, i, err);
    }
    if (st) {
        ompdag_advise_model_destroy(m);
        return st;
    }
    *out = m;
    return OMPDAG_OK;
}

ompdag_status ompdag_advise_model_load(const char *path, ompdag_advise_model **out,
                                       ompdag_error *err)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) /* jansson said "'[' or '{' expected" */
        return ompdag_error_set(err, OMPDAG_ERR_IO,
                                "%s: is a directory; --model wants an advisor model file "
                                "(advisor/advisor-model.json, or one `make advisor-model` wrote)",
                                path);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root && je.line <= 0) return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: %s", path, je.text);
    if (!root)
        return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%d:%d: %s", path, je.line, je.column,
                                je.text);
    ompdag_status st = advise_model_from_json(root, path, out, err);
    json_decref(root);
    return st;
}

/* ---- building from the training script's manifest ------------------------- */

static json_t *features_json(const ompdag_advise_features *f)
{
    json_t *o = json_object();
    for (int k = 0; o && k < OMPDAG_FEAT_COUNT; ++k)
        json_object_set_new(o, ompdag_advise_feature_name(k),
                            f->have[k] ? json_real(f->v[k]) : json_null());
    return o;
}

static json_t *sample_json(const advise_sample *s)
{
    json_t *grid = json_array();
    for (size_t k = 0; k < s->ngrid; ++k)
        json_array_append_new(grid, json_pack("{s:f,s:f,s:f,s:f}", "setting", s->grid[k].setting,
                                              "time_ns", s->grid[k].time_ns, "grain_ns",
                                              s->grid[k].grain_ns, "tasks", s->grid[k].tasks));
    return json_pack("{s:s,s:s,s:s,s:f,s:o,s:{s:f,s:f,s:f},s:o}", "name", s->name, "program",
                     s->program, "shape", ompdag_advise_shape_name(s->shape), "default",
                     s->default_setting, "features", features_json(&s->features), "best",
                     "grain_min_ns", s->best.grain_min_ns, "grain_max_ns", s->best.grain_max_ns,
                     "cutoff", s->best.cutoff, "grid", grid);
}

/* The features of the directive creating the most task instances in the
 * annotated file: the sample's representative (docs/advise.md). */
static ompdag_status sample_features(const char *path, int32_t threads, double overhead,
                                     advise_sample *s, ompdag_error *err)
{
    ompdag_condag_set *set = NULL;
    ompdag_status st = ompdag_condag_set_load_file(path, &set, err);
    if (st) return st;
    double most = -1;
    for (size_t gi = 0; !st && gi < ompdag_condag_set_count(set); ++gi) {
        const ompdag_condag *g = ompdag_condag_set_graph(set, gi);
        double par = -1;
        st = advise_parallelism(g, threads, &par, err);
        for (int32_t v = 0; !st && v < ompdag_condag_node_count(g); ++v) {
            if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_T) continue;
            ompdag_advise_features f;
            double inst = 0;
            ompdag_advise_shape shape;
            st = advise_directive_features(g, ompdag_condag_node_loc(g, v), par, overhead, &f,
                                           &inst, &shape, err);
            if (!st && inst > most) most = inst, s->features = f;
        }
    }
    ompdag_condag_set_destroy(set);
    if (!st && most <= 0)
        st = ompdag_error_set(err, OMPDAG_ERR_INVALID,
                              "%s: no task directive with an observed instance", path);
    return st;
}

typedef struct manifest {
    advise_sample *s;
    size_t n;
    int64_t cap; /* of s and annotated (ompdag_grow_array) */
    char **annotated;
    double overhead, near_pct;
    int32_t threads;
    json_t *meta;
} manifest;

static advise_sample *find_sample(manifest *mf, const char *name)
{
    for (size_t i = 0; i < mf->n; ++i)
        if (!strcmp(mf->s[i].name, name)) return &mf->s[i];
    return NULL;
}

static ompdag_status manifest_line(manifest *mf, char *line, const char *path, int lineno,
                                   ompdag_error *err)
{
    char *save = NULL, *kw = strtok_r(line, "\t", &save);
    char *f[6] = {0};
    int nf = 0;
    while (nf < 6 && (f[nf] = strtok_r(NULL, "\t", &save)))
        nf++;
    if (!kw || kw[0] == '#') return OMPDAG_OK;
    if (!strcmp(kw, "meta") && nf == 2) {
        json_object_set_new(mf->meta, f[0], json_string(f[1]));
        if (!strcmp(f[0], "threads")) mf->threads = atoi(f[1]);
        return OMPDAG_OK;
    }
    if (!strcmp(kw, "overhead") && nf == 1) {
        mf->overhead = strtod(f[0], NULL);
        return OMPDAG_OK;
    }
    if (!strcmp(kw, "near") && nf == 1) {
        mf->near_pct = strtod(f[0], NULL);
        return OMPDAG_OK;
    }
    if (!strcmp(kw, "sample") && nf == 5) {
        if (find_sample(mf, f[0]))
            return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s:%d: sample '%s' given twice", path,
                                    lineno, f[0]);
        const int64_t need = (int64_t)mf->n + 1;
        if (!ompdag_grow_array((void **)&mf->s, sizeof *mf->s, &(int64_t){mf->cap}, need) ||
            !ompdag_grow_array((void **)&mf->annotated, sizeof *mf->annotated, &mf->cap, need))
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        advise_sample *s = &mf->s[mf->n];
        memset(s, 0, sizeof *s);
        s->name = strdup(f[0]), s->program = strdup(f[1]);
        s->shape = strcmp(f[2], "loop") ? OMPDAG_SHAPE_RECURSIVE : OMPDAG_SHAPE_LOOP;
        s->default_setting = strtod(f[3], NULL);
        mf->annotated[mf->n] = strdup(f[4]);
        mf->n++;
        if (!s->name || !s->program || !mf->annotated[mf->n - 1])
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        if (strcmp(f[2], "loop") && strcmp(f[2], "recursive"))
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "%s:%d: shape must be recursive or loop", path, lineno);
        return OMPDAG_OK;
    }
    if (!strcmp(kw, "grid") && nf == 5) {
        advise_sample *s = find_sample(mf, f[0]);
        if (!s)
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "%s:%d: grid line for unknown sample '%s'", path, lineno, f[0]);
        advise_grid_point p = {strtod(f[1], NULL), strtod(f[2], NULL), strtod(f[3], NULL),
                               strtod(f[4], NULL)};
        if (!(p.time_ns > 0) || p.grain_ns < 0 || p.setting < 0)
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "%s:%d: grid point needs time > 0 and grain >= 0", path,
                                    lineno);
        advise_grid_point *ng = realloc(s->grid, (s->ngrid + 1) * sizeof *ng);
        if (!ng) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        s->grid = ng;
        s->grid[s->ngrid++] = p;
        return OMPDAG_OK;
    }
    return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%d: unknown or malformed line '%s'", path,
                            lineno, kw);
}

static ompdag_status read_manifest(const char *path, manifest *mf, ompdag_error *err)
{
    FILE *in = fopen(path, "r");
    if (!in) return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: %s", path, strerror(errno));
    char line[8192];
    int lineno = 0;
    ompdag_status st = OMPDAG_OK;
    while (!st && fgets(line, sizeof line, in)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        st = manifest_line(mf, line, path, lineno, err);
    }
    fclose(in);
    return st;
}

static ompdag_status write_model(const manifest *mf, const char *out_path, ompdag_error *err)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < mf->n; ++i)
        json_array_append_new(arr, sample_json(&mf->s[i]));
    json_t *root =
        json_pack("{s:s,s:i,s:O,s:i,s:f,s:f,s:o}", "format", "ompdag-advisor-model", "version", 1,
                  "trained", mf->meta, "threads", (json_int_t)mf->threads, "task_overhead_ns",
                  mf->overhead, "near_best_pct", mf->near_pct, "samples", arr);
    if (!root) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    ompdag_atomic_file *af = NULL;
    ompdag_status st = ompdag_atomic_file_open(out_path, &af, err);
    if (!st) {
        FILE *f = ompdag_atomic_file_stream(af);
        if (json_dumpf(root, f, JSON_INDENT(1) | JSON_REAL_PRECISION(6)) || fputc('\n', f) == EOF) {
            ompdag_atomic_file_abort(af);
            st = ompdag_error_set(err, OMPDAG_ERR_IO, "%s: write error", out_path);
        } else {
            st = ompdag_atomic_file_commit(af, err);
        }
    }
    json_decref(root);
    return st;
}

/* A relative path in the manifest is relative to the manifest's directory. */
static void resolve(const char *manifest_path, const char *path, char *out, size_t size)
{
    const char *slash = strrchr(manifest_path, '/');
    if (path[0] == '/' || !slash)
        snprintf(out, size, "%s", path);
    else
        snprintf(out, size, "%.*s/%s", (int)(slash - manifest_path), manifest_path, path);
}

ompdag_status ompdag_advise_model_build(const char *manifest_path, const char *out_path,
                                        ompdag_error *err)
{
    manifest mf = {.near_pct = 10, .threads = 2, .meta = json_object()};
    if (!mf.meta) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    ompdag_status st = read_manifest(manifest_path, &mf, err);
    if (!st && mf.n == 0)
        st = ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: no sample", manifest_path);
    if (!st && mf.threads < 1)
        st = ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: meta threads must be >= 1",
                              manifest_path);
    for (size_t i = 0; !st && i < mf.n; ++i) {
        advise_sample *s = &mf.s[i];
        if (s->ngrid == 0)
            st = ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s: sample '%s' has no grid point",
                                  manifest_path, s->name);
        char path[4096];
        resolve(manifest_path, mf.annotated[i], path, sizeof path);
        if (!st) st = sample_features(path, mf.threads, mf.overhead, s, err);
        if (!st) advise_best_of_grid(s->grid, s->ngrid, mf.near_pct, &s->best);
    }
    if (!st) st = write_model(&mf, out_path, err);
    for (size_t i = 0; i < mf.n; ++i) {
        sample_free(&mf.s[i]);
        free(mf.annotated[i]);
    }
    free(mf.s), free(mf.annotated);
    json_decref(mf.meta);
    return st;
}
