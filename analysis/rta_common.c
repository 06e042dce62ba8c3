/* analysis/rta_common.c — options, results and dispatch (include/ompdag/rta.h). */
#include <jansson.h>
#include <string.h>

#include "rta_internal.h"

void ompdag_rta_options_init(ompdag_rta_options *opt, int32_t m)
{
    *opt = (ompdag_rta_options){.m = m, .max_flows = OMPDAG_DEFAULT_MAX_FLOWS,
                                .migration_overhead = 0, .migration_model = OMPDAG_MIGRATION_WFS,
                                .bound_only = false};
}

ompdag_status rta_check_inputs(const ompdag_condag *g, const ompdag_rta_options *opt,
                               ompdag_error *err)
{
    if (!g->finalized)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "graph is not finalized");
    if (opt->m < 1)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "thread count m must be >= 1 (got %d)",
                                opt->m);
    if (opt->migration_overhead < 0)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "migration overhead must be >= 0");
    /* m·O is charged at each migration site: it must fit first, and the
     * sites are counted by kind, not by a penalty that could have wrapped. */
    int64_t per_site, sites = 0;
    if (__builtin_mul_overflow((int64_t)opt->m, opt->migration_overhead, &per_site))
        return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                "m (%d) times the migration overhead (%lld) does not fit in int64",
                                opt->m, (long long)opt->migration_overhead);
    if (opt->migration_overhead) {
        ompdag_kind site =
            opt->migration_model == OMPDAG_MIGRATION_WFS ? OMPDAG_KIND_T : OMPDAG_KIND_W;
        for (int32_t v = 0; v < g->n; ++v)
            sites += g->kind[v] == site;
    }
    int64_t extra, total, scaled;
    if (__builtin_mul_overflow(sites, opt->migration_overhead, &extra) ||
        __builtin_add_overflow(g->total_wcet, extra, &total))
        return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                "the total WCET (%lld) plus the migration overhead (%lld) at "
                                "%lld migration sites does not fit in int64",
                                (long long)g->total_wcet, (long long)opt->migration_overhead,
                                (long long)sites);
    if (__builtin_mul_overflow(total, 2 * (int64_t)opt->m, &scaled) || scaled == INT64_MAX) {
        if (extra)
            return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                    "2·m (m = %d) times the total WCET (%lld) plus the migration "
                                    "overhead (%lld at %lld sites) does not fit in int64",
                                    opt->m, (long long)g->total_wcet,
                                    (long long)opt->migration_overhead, (long long)sites);
        return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                "2·m (m = %d) times the total WCET (%lld) does not fit in "
                                "int64; use a coarser time unit",
                                opt->m, (long long)g->total_wcet);
    }
    return OMPDAG_OK;
}

ompdag_rta_result *rta_result_new(const ompdag_condag *g, ompdag_algorithm alg, int32_t m,
                                  bool witness)
{
    ompdag_rta_result *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    *r = (ompdag_rta_result){.alg = alg, .m = m, .has_witness = witness, .vol = -1, .len = -1,
                             .n = g->n};
    if (witness) {
        r->choice = malloc(sizeof *r->choice * (size_t)g->n);
        if (!r->choice) {
            free(r);
            return NULL;
        }
        memset(r->choice, 0xff, sizeof *r->choice * (size_t)g->n);
    }
    return r;
}

ompdag_status ompdag_rta_run(const ompdag_condag *g, ompdag_algorithm alg,
                             const ompdag_rta_options *opt, ompdag_rta_result **out,
                             ompdag_error *err)
{
    ompdag_status st = rta_check_inputs(g, opt, err);
    if (st)
        return st;
    switch (alg) {
    case OMPDAG_ALG_EXACT: return rta_exact(g, opt, out, err);
    case OMPDAG_ALG_ALG0: return rta_alg0(g, opt, out, err);
    case OMPDAG_ALG_ENUMERATE: return rta_enumerate(g, opt, out, err);
    }
    return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "unknown algorithm %d", (int)alg);
}

void ompdag_rta_result_destroy(ompdag_rta_result *r)
{
    if (!r)
        return;
    free(r->choice);
    free(r->path);
    free(r);
}

ompdag_algorithm ompdag_rta_result_algorithm(const ompdag_rta_result *r) { return r->alg; }
int32_t ompdag_rta_result_m(const ompdag_rta_result *r) { return r->m; }
int64_t ompdag_rta_result_bound_times_m(const ompdag_rta_result *r) { return r->bound_times_m; }
double ompdag_rta_result_bound(const ompdag_rta_result *r)
{
    return (double)r->bound_times_m / (double)r->m;
}
bool ompdag_rta_result_has_witness(const ompdag_rta_result *r) { return r->has_witness; }
int64_t ompdag_rta_result_vol(const ompdag_rta_result *r) { return r->vol; }
int64_t ompdag_rta_result_len(const ompdag_rta_result *r) { return r->len; }
int64_t ompdag_rta_result_migrations(const ompdag_rta_result *r) { return r->migrations; }
uint64_t ompdag_rta_result_flow_count(const ompdag_rta_result *r) { return r->flows; }

int32_t ompdag_rta_result_choice(const ompdag_rta_result *r, int32_t v)
{
    return r->choice && v >= 0 && v < r->n ? r->choice[v] : -1;
}

const int32_t *ompdag_rta_result_critical_path(const ompdag_rta_result *r, int32_t *count)
{
    *count = r->path_len;
    return r->path;
}

void ompdag_rta_result_write_path(const ompdag_rta_result *r, const ompdag_condag *g, FILE *out)
{
    enum { HEAD = 8, TAIL = 4 }; /* readable on huge graphs */
    char buf[256];
    int32_t n = r->path_len;
    fprintf(out, "critical path (%d nodes):", n);
    for (int32_t i = 0; i < n; ++i) {
        if (i == HEAD && n > HEAD + TAIL) {
            fprintf(out, " -> ... (%d more)", n - HEAD - TAIL);
            i = n - TAIL;
        }
        fprintf(out, "%s%s", i ? " -> " : " ", ompdag_condag_node_place(g, r->path[i], buf, sizeof buf));
    }
    fputc('\n', out);
}

int32_t *ompdag_rta_result_choices_copy(const ompdag_rta_result *r, const ompdag_condag *g)
{
    if (!r->choice || r->n != g->n)
        return NULL;
    int32_t *c = malloc(sizeof *c * (size_t)r->n);
    if (c)
        memcpy(c, r->choice, sizeof *c * (size_t)r->n);
    return c;
}

const char *ompdag_algorithm_name(ompdag_algorithm alg)
{
    switch (alg) {
    case OMPDAG_ALG_EXACT: return "exact";
    case OMPDAG_ALG_ALG0: return "alg0";
    case OMPDAG_ALG_ENUMERATE: return "enumerate";
    }
    return "unknown";
}

bool ompdag_algorithm_parse(const char *name, ompdag_algorithm *out)
{
    for (int a = OMPDAG_ALG_EXACT; a <= OMPDAG_ALG_ENUMERATE; ++a)
        if (!strcmp(name, ompdag_algorithm_name((ompdag_algorithm)a))) {
            *out = (ompdag_algorithm)a;
            return true;
        }
    return false;
}

json_t *ompdag_rta_result_to_json(const ompdag_rta_result *r, const ompdag_condag *g)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "m", json_integer(r->m));
    json_object_set_new(o, "algorithm", json_string(ompdag_algorithm_name(r->alg)));
    json_object_set_new(o, "bound", json_real(ompdag_rta_result_bound(r)));
    json_object_set_new(o, "bound_times_m", json_integer(r->bound_times_m));
    json_object_set_new(o, "time_unit", json_string(ompdag_condag_time_unit(g)));
    if (r->alg == OMPDAG_ALG_ENUMERATE)
        json_object_set_new(o, "flows", json_integer((json_int_t)r->flows));
    if (!r->has_witness)
        return o;
    json_object_set_new(o, "vol", json_integer(r->vol));
    json_object_set_new(o, "len", json_integer(r->len));
    if (r->migrations)
        json_object_set_new(o, "migrations", json_integer(r->migrations));
    json_t *choices = json_object(), *path = json_array();
    for (int32_t v = 0; v < g->n; ++v)
        if (r->choice[v] >= 0)
            json_object_set_new(choices, node_name(g, v), json_string(node_name(g, r->choice[v])));
    for (int32_t i = 0; i < r->path_len; ++i)
        json_array_append_new(path, json_string(node_name(g, r->path[i])));
    json_object_set_new(o, "worst_flow", json_pack("{s:o,s:o}", "choices", choices,
                                                   "critical_path", path));
    return o;
}
