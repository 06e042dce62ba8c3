/*
 * analysis/rta_enumerate.c — the oracle: the bound of Theorem 1 (seed 004) by
 * enumerating every execution flow.  Exponential; guarded by a flow limit.
 *
 * A flow is fixed by the choices at its executed C nodes.  Whether a C node
 * runs depends only on choices at C nodes before it in topological order, so
 * the flows are the leaves of a decision tree over C nodes in that order.  An
 * odometer walks the leaves iteratively: advance the last executed C node
 * that has another successor, and reset every C node after it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rta_internal.h"

/* Flows from v: C nodes add their branches' counts, T nodes multiply the
 * continuation's count by the child's.  Saturates at UINT64_MAX; `approx`
 * keeps a floating estimate for the message. */
uint64_t ompdag_condag_flow_count(const ompdag_condag *g, double *approx)
{
    uint64_t *cnt = malloc(sizeof *cnt * (size_t)g->n);
    double *dc = malloc(sizeof *dc * (size_t)g->n);
    if (!cnt || !dc) {
        free(cnt), free(dc);
        *approx = INFINITY;
        return UINT64_MAX;
    }
    for (int32_t i = g->n - 1; i >= 0; --i) {
        int32_t v = g->topo[i];
        uint64_t c = g->kind[v] == OMPDAG_KIND_C ? 0 : 1;
        double d = (double)c;
        for (int32_t k = g->fsucc_off[v]; k < g->fsucc_off[v + 1]; ++k) {
            int32_t s = g->fsucc[k];
            if (g->kind[v] == OMPDAG_KIND_C) {
                if (__builtin_add_overflow(c, cnt[s], &c)) c = UINT64_MAX;
                d += dc[s];
            } else {
                c = cnt[s], d = dc[s];
            }
        }
        if (g->creates[v] >= 0) {
            int32_t j = g->task_source[g->creates[v]];
            if (__builtin_mul_overflow(c, cnt[j], &c)) c = UINT64_MAX;
            d *= dc[j];
        }
        cnt[v] = c, dc[v] = d;
    }
    uint64_t total = cnt[g->task_source[g->root]];
    *approx = dc[g->task_source[g->root]];
    free(cnt), free(dc);
    return total;
}

/* Moves to the next flow; false after the last one. */
static bool advance(const ompdag_condag *g, const uint8_t *executed, int32_t *cidx, int32_t *choice)
{
    for (int32_t i = g->n - 1; i >= 0; --i) {
        int32_t v = g->topo[i];
        if (g->kind[v] != OMPDAG_KIND_C || !executed[v]) continue;
        int32_t deg = g->fsucc_off[v + 1] - g->fsucc_off[v];
        if (cidx[v] + 1 >= deg) continue;
        cidx[v]++;
        choice[v] = g->fsucc[g->fsucc_off[v] + cidx[v]];
        for (int32_t k = i + 1; k < g->n; ++k) {
            int32_t u = g->topo[k];
            if (g->kind[u] == OMPDAG_KIND_C) cidx[u] = 0, choice[u] = g->fsucc[g->fsucc_off[u]];
        }
        return true;
    }
    return false;
}

static void keep_best(const ompdag_condag *g, ompdag_rta_result *r, const ompdag_flow_eval *e,
                      const uint8_t *executed, const int32_t *choice, const int32_t *path,
                      int32_t path_len)
{
    r->bound_times_m = e->bound_times_m;
    r->vol = e->vol, r->len = e->len, r->migrations = e->migrations;
    for (int32_t v = 0; v < g->n; ++v)
        r->choice[v] = g->kind[v] == OMPDAG_KIND_C && executed[v] ? choice[v] : -1;
    memcpy(r->path, path, sizeof *path * (size_t)path_len);
    r->path_len = path_len;
}

ompdag_status rta_enumerate(const ompdag_condag *g, const ompdag_rta_options *opt,
                            ompdag_rta_result **out, ompdag_error *err)
{
    uint64_t limit = opt->max_flows ? opt->max_flows : OMPDAG_DEFAULT_MAX_FLOWS;
    double approx;
    uint64_t flows = ompdag_condag_flow_count(g, &approx);
    if (flows > limit) {
        if (flows == UINT64_MAX)
            return ompdag_error_set(err, OMPDAG_ERR_LIMIT,
                                    "the graph has about %.3g flows, above the enumeration limit "
                                    "of %llu (use the exact algorithm)",
                                    approx, (unsigned long long)limit);
        return ompdag_error_set(err, OMPDAG_ERR_LIMIT,
                                "the graph has %llu flows, above the enumeration limit of %llu "
                                "(raise --max-flows or use the exact algorithm)",
                                (unsigned long long)flows, (unsigned long long)limit);
    }
    ompdag_rta_result *r = rta_result_new(g, OMPDAG_ALG_ENUMERATE, opt->m, true);
    int32_t *cidx = calloc((size_t)g->n, sizeof *cidx);
    int32_t *choice = malloc(sizeof *choice * (size_t)g->n);
    int32_t *path = malloc(sizeof *path * (size_t)g->n);
    uint8_t *executed = malloc((size_t)g->n);
    rta_scratch s = {0};
    ompdag_status st = OMPDAG_OK;
    if (!r || !cidx || !choice || !path || !executed || !rta_scratch_init(&s, g) ||
        !(r->path = malloc(sizeof *r->path * (size_t)g->n))) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int32_t v = 0; v < g->n; ++v)
        choice[v] = g->kind[v] == OMPDAG_KIND_C ? g->fsucc[g->fsucc_off[v]] : -1;
    r->bound_times_m = -1;
    do {
        int32_t path_len = 0;
        ompdag_flow_eval e;
        int32_t bad = rta_mark_executed(g, choice, executed);
        assert(bad < 0);
        (void)bad;
        if (!rta_measure_flow(g, opt, executed, &s, &e, path, &path_len)) {
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
            goto done;
        }
        if (e.bound_times_m > r->bound_times_m)
            keep_best(g, r, &e, executed, choice, path, path_len);
        r->flows++;
    } while (advance(g, executed, cidx, choice));
    assert(r->flows == flows);
done:
    rta_scratch_free(&s);
    free(cidx), free(choice), free(path), free(executed);
    if (st) {
        ompdag_rta_result_destroy(r);
        return st;
    }
    *out = r;
    return OMPDAG_OK;
}
