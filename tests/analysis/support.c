/* tests/analysis/support.c — see support.h. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char *unquote(const char *s)
{
    char *t = strdup(s);
    for (char *p = t; *p; ++p)
        if (*p == '\'') *p = '"';
    return t;
}

ompdag_condag *load_graph(const char *json, ompdag_error *err)
{
    char *t = unquote(json);
    ompdag_condag_set *s = NULL;
    ompdag_status st = ompdag_condag_set_load_buffer(t, strlen(t), "test.json", &s, err);
    free(t);
    if (st) return NULL;
    /* Detach the single graph from its set. */
    ompdag_condag *g = ompdag_condag_set_graph(s, 0);
    json_t *copy = ompdag_condag_to_json(g);
    ompdag_condag_set_destroy(s);
    ompdag_condag *out = NULL;
    st = condag_from_json(copy, "copy", &out, err);
    json_decref(copy);
    return st ? NULL : out;
}

ompdag_condag_set *load_set_ok(const char *json)
{
    char *t = unquote(json);
    ompdag_condag_set *s = NULL;
    ompdag_error err = {0};
    ompdag_status st = ompdag_condag_set_load_buffer(t, strlen(t), "test.json", &s, &err);
    free(t);
    cr_assert_eq(st, OMPDAG_OK, "load failed: %s", err.message);
    return s;
}

int64_t bound_of(const ompdag_condag *g, ompdag_algorithm alg, int32_t m)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    ompdag_rta_result *r = NULL;
    ompdag_error err = {0};
    ompdag_status st = ompdag_rta_run(g, alg, &opt, &r, &err);
    cr_assert_eq(st, OMPDAG_OK, "%s failed: %s", ompdag_algorithm_name(alg), err.message);
    int64_t b = ompdag_rta_result_bound_times_m(r);
    ompdag_rta_result_destroy(r);
    return b;
}

int32_t node_index(const ompdag_condag *g, const char *id)
{
    int32_t v = ompdag_condag_find_node(g, id);
    cr_assert_geq(v, 0, "no node '%s'", id);
    return v;
}

/* ---- random structured programs ------------------------------------------ */

typedef struct sgen {
    ompdag_rng *r;
    ompdag_condag *g;
    int next_node, tasks, max_tasks;
    int pending[16]; /* tasks created but not yet given a body */
    int npending;
} sgen;

static int32_t add(sgen *s, int task, char kind, const char *creates, int32_t pred)
{
    char id[16], tid[16];
    snprintf(id, sizeof id, "n%d", s->next_node++);
    snprintf(tid, sizeof tid, "t%d", task);
    int64_t w =
        kind == 'C' || kind == 'J' ? ompdag_rng_range(s->r, 0, 2) : ompdag_rng_range(s->r, 0, 30);
    ompdag_node_spec spec = {
        .id = id, .task = tid, .kind = (ompdag_kind)kind, .wcet = w, .creates = creates};
    int32_t v;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_add_node(s->g, &spec, &v, &err), OMPDAG_OK, "%s", err.message);
    if (pred >= 0)
        cr_assert_eq(ompdag_condag_add_edge(s->g, pred, v, &err), OMPDAG_OK, "%s", err.message);
    return v;
}

/* Emits a random statement list after `tail`; returns the new tail.
 * Recursion depth is bounded by `depth` (<= 2), not by the graph. */
static int32_t statements(sgen *s, int task, int32_t tail, int depth)
{
    int count = (int)ompdag_rng_range(s->r, 1, 3);
    for (int i = 0; i < count; ++i) {
        double u = ompdag_rng_unit(s->r);
        if (u < 0.25 && depth < 2) {
            int arms = (int)ompdag_rng_range(s->r, 2, 3);
            int32_t c = add(s, task, 'C', NULL, tail);
            int32_t ends[4];
            bool empty_used = false; /* one empty arm at most: C->J may not repeat */
            for (int a = 0; a < arms; ++a) {
                bool empty = a > 0 && !empty_used && ompdag_rng_unit(s->r) < 0.2;
                empty_used |= empty;
                ends[a] = empty ? c : statements(s, task, add(s, task, 'N', NULL, c), depth + 1);
            }
            int32_t j = add(s, task, 'J', NULL, ends[0]);
            ompdag_error err;
            for (int a = 1; a < arms; ++a)
                cr_assert_eq(ompdag_condag_add_edge(s->g, ends[a], j, &err), OMPDAG_OK, "%s",
                             err.message);
            tail = j;
        } else if (u < 0.6 && s->tasks < s->max_tasks) {
            char child[16];
            snprintf(child, sizeof child, "t%d", s->tasks);
            s->pending[s->npending++] = s->tasks++;
            tail = add(s, task, 'T', child, tail);
        } else {
            tail = add(s, task, u < 0.8 ? 'W' : 'N', NULL, tail);
        }
    }
    return tail;
}

ompdag_condag *random_structured(ompdag_rng *r)
{
    sgen s = {.r = r,
              .g = ompdag_condag_create(),
              .tasks = 1,
              .max_tasks = (int)ompdag_rng_range(r, 1, 5)};
    statements(&s, 0, add(&s, 0, 'N', NULL, -1), 0);
    while (s.npending)
        statements(&s, s.pending[--s.npending], -1, 0);
    ompdag_error err;
    cr_assert_eq(ompdag_condag_finalize(s.g, &err), OMPDAG_OK, "%s", err.message);
    return s.g;
}

static void shuffle_array(json_t *arr, ompdag_rng *r)
{
    size_t n = json_array_size(arr);
    for (size_t i = n; i > 1; --i) {
        size_t k = (size_t)ompdag_rng_range(r, 0, (int64_t)i - 1);
        json_t *a = json_incref(json_array_get(arr, i - 1));
        json_t *b = json_incref(json_array_get(arr, k));
        json_array_set_new(arr, i - 1, b);
        json_array_set_new(arr, k, a);
    }
}

ompdag_condag_set *shuffled_copy(const ompdag_condag *g, ompdag_rng *r)
{
    json_t *j = ompdag_condag_to_json(g);
    shuffle_array(json_object_get(j, "nodes"), r);
    shuffle_array(json_object_get(j, "edges"), r);
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    ompdag_condag_set *s = NULL;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_buffer(text, strlen(text), "shuffled", &s, &err), OMPDAG_OK,
                 "%s", err.message);
    free(text);
    return s;
}
