/*
 * analysis/gen_random.c — random con-DAGs as in Sun et al. 2020, §7
 * (docs/condag.md §4), deterministic for a given seed.
 *
 * Per task: draw k non-conditional nodes; repeatedly pick a random existing
 * sequence (the body or any branch) and a random position in it; with
 * probability P_if insert a branch (C, two empty branches, J), otherwise a
 * node (T with P_cre, W with P_wait, else N).  Each T node of τi adopts a
 * random not-yet-parented task among τi+1..τn (none left: it becomes N).
 * Tasks unreachable from τ1 are dropped.  Optionally (p_dep, p_wait_dep) T
 * nodes get depend clauses and W nodes depend items (partial taskwaits).  A branch whose two arms
 * emit no node costs 0 and has no effect, so it is not emitted (it would need the same C→J edge
 * twice).
 *
 * PRNG: xoshiro256** (Blackman & Vigna 2018) seeded with splitmix64; ranges
 * by Lemire's multiply-shift with rejection, so draws are unbiased and the
 * same on every platform.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "ompdag/gen.h"

/* ---- PRNG ---------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void ompdag_rng_seed(ompdag_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; ++i)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t ompdag_rng_next(ompdag_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

int64_t ompdag_rng_range(ompdag_rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    if (span == 0) /* the full 64-bit range */
        return (int64_t)ompdag_rng_next(r);
    unsigned __int128 m = (unsigned __int128)ompdag_rng_next(r) * span;
    uint64_t low = (uint64_t)m;
    if (low < span) {
        uint64_t threshold = -span % span;
        while (low < threshold) {
            m = (unsigned __int128)ompdag_rng_next(r) * span;
            low = (uint64_t)m;
        }
    }
    return (int64_t)((uint64_t)lo + (uint64_t)(m >> 64));
}

double ompdag_rng_unit(ompdag_rng *r)
{
    return (double)(ompdag_rng_next(r) >> 11) * 0x1.0p-53;
}

void ompdag_gen_params_init(ompdag_gen_params *p)
{
    *p = (ompdag_gen_params){.seed = 1,
                             .tasks = 10,
                             .p_if = 0.3,
                             .p_cre = 0.3,
                             .p_wait = 0.3,
                             .nodes_min = 10,
                             .nodes_max = 40,
                             .wcet_min = 1,
                             .wcet_max = 100,
                             .threads = 4,
                             .p_dep = 0,
                             .dep_vars = 4,
                             .p_wait_dep = 0};
}

/* ---- task bodies as nested sequences ---------------------------------------
 * An item is a node (kind, wcet, child task) or a branch with two arms; a
 * sequence is a list of item indices.  All of one task's sequences sit in
 * one list so "pick a random existing sequence" is a single draw. */

typedef struct gen_item {
    char kind; /* 'N', 'T', 'W' or 'B' (branch) */
    int64_t wcet;
    int32_t child;  /* T: adopted task, -1 until assigned */
    int32_t arm[2]; /* B: sequence indices */
} gen_item;

typedef struct gen_seq {
    int32_t *items;
    int64_t len, cap;
} gen_seq;

typedef struct gen_task {
    gen_item *items;
    int64_t n_items, items_cap;
    gen_seq *seqs; /* seqs[0] is the body */
    int64_t n_seqs, seqs_cap;
} gen_task;

static void gen_task_free(gen_task *t)
{
    for (int64_t i = 0; i < t->n_seqs; ++i)
        free(t->seqs[i].items);
    free(t->seqs);
    free(t->items);
}

static int32_t new_seq(gen_task *t)
{
    if (!grow_array((void **)&t->seqs, sizeof *t->seqs, &t->seqs_cap, t->n_seqs + 1)) return -1;
    t->seqs[t->n_seqs] = (gen_seq){0};
    return (int32_t)t->n_seqs++;
}

static bool seq_insert(gen_seq *s, int64_t pos, int32_t item)
{
    if (!grow_array((void **)&s->items, sizeof *s->items, &s->cap, s->len + 1)) return false;
    memmove(s->items + pos + 1, s->items + pos, sizeof *s->items * (size_t)(s->len - pos));
    s->items[pos] = item;
    s->len++;
    return true;
}

static int32_t new_item(gen_task *t, gen_item it)
{
    if (!grow_array((void **)&t->items, sizeof *t->items, &t->items_cap, t->n_items + 1)) return -1;
    t->items[t->n_items] = it;
    return (int32_t)t->n_items++;
}

static char draw_node_kind(const ompdag_gen_params *p, ompdag_rng *r)
{
    double u = ompdag_rng_unit(r);
    return u < p->p_cre ? 'T' : u < p->p_cre + p->p_wait ? 'W' : 'N';
}

static bool build_body(const ompdag_gen_params *p, ompdag_rng *r, gen_task *t)
{
    if (new_seq(t) < 0) return false;
    int64_t k = ompdag_rng_range(r, p->nodes_min, p->nodes_max);
    for (int64_t placed = 0; placed < k;) {
        int32_t si = (int32_t)ompdag_rng_range(r, 0, t->n_seqs - 1);
        int64_t pos = ompdag_rng_range(r, 0, t->seqs[si].len);
        gen_item it = {.child = -1, .arm = {-1, -1}};
        if (ompdag_rng_unit(r) < p->p_if) {
            it.kind = 'B';
            if ((it.arm[0] = new_seq(t)) < 0 || (it.arm[1] = new_seq(t)) < 0) return false;
        } else {
            it.kind = draw_node_kind(p, r);
            it.wcet = ompdag_rng_range(r, p->wcet_min, p->wcet_max);
            placed++;
        }
        int32_t idx = new_item(t, it);
        if (idx < 0 || !seq_insert(&t->seqs[si], pos, idx)) return false;
    }
    return true;
}

/* A sequence emits a node when it holds a node or a branch that does.  Arms
 * are always created after the sequence holding their branch, so one pass in
 * decreasing index order sees arms before their parents. */
static bool *find_emitting_seqs(const gen_task *t)
{
    bool *emits = calloc((size_t)t->n_seqs, sizeof *emits);
    for (int64_t si = t->n_seqs - 1; emits && si >= 0; --si)
        for (int64_t k = 0; k < t->seqs[si].len && !emits[si]; ++k) {
            const gen_item *it = &t->items[t->seqs[si].items[k]];
            emits[si] = it->kind != 'B' || emits[it->arm[0]] || emits[it->arm[1]];
        }
    return emits;
}

/* ---- flattening into nodes and edges, iteratively --------------------------
 * A frame walks one sequence; a branch pushes a frame per arm.  `tail` is the
 * node the next node hangs from. */

typedef struct emit_frame {
    int32_t seq;
    int64_t pos;
    int32_t item;   /* the branch this frame is an arm of, or -1 for the body */
    int32_t arm;    /* 0 or 1 */
    int32_t c_node; /* the branch's C node */
    int32_t tail0;  /* arm 0's last node (set when arm 0 ends) */
} emit_frame;

typedef struct emitter {
    ompdag_condag *g;
    const char *task_id;
    char **task_ids;
    int32_t tail;
    int64_t next_id;
    ompdag_error *err;
} emitter;

static ompdag_status emit_node(emitter *e, char kind, int64_t wcet, const char *creates)
{
    char id[32];
    snprintf(id, sizeof id, "v%lld", (long long)e->next_id++);
    ompdag_node_spec s = {
        .id = id, .task = e->task_id, .kind = (ompdag_kind)kind, .wcet = wcet, .creates = creates};
    int32_t v;
    ompdag_status st = ompdag_condag_add_node(e->g, &s, &v, e->err);
    if (!st && e->tail >= 0) st = ompdag_condag_add_edge(e->g, e->tail, v, e->err);
    e->tail = v;
    return st;
}

static ompdag_status emit_item(emitter *e, const gen_task *t, const gen_item *it)
{
    if (it->kind == 'T' && it->child >= 0)
        return emit_node(e, 'T', it->wcet, e->task_ids[it->child]);
    return emit_node(e, it->kind == 'T' ? 'N' : it->kind, it->wcet, NULL);
}

static ompdag_status emit_task(emitter *e, const gen_task *t)
{
    emit_frame *stack = malloc(sizeof *stack * (size_t)(t->n_seqs + 1));
    bool *emits = find_emitting_seqs(t);
    if (!stack || !emits) {
        free(stack), free(emits);
        return ompdag_error_set(e->err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    int32_t top = 0;
    ompdag_status st = OMPDAG_OK;
    e->tail = -1;
    stack[top++] = (emit_frame){.seq = 0, .item = -1};
    while (top && !st) {
        emit_frame *f = &stack[top - 1];
        const gen_seq *s = &t->seqs[f->seq];
        if (f->pos == s->len) { /* this sequence is done */
            emit_frame done = *f;
            top--;
            if (done.item < 0) continue;
            if (done.arm == 0) { /* start the second arm from the C node */
                const gen_item *b = &t->items[done.item];
                stack[top++] = (emit_frame){.seq = b->arm[1],
                                            .item = done.item,
                                            .arm = 1,
                                            .c_node = done.c_node,
                                            .tail0 = e->tail};
                e->tail = done.c_node;
                continue;
            }
            int32_t tail1 = e->tail; /* join both arms */
            e->tail = done.tail0;
            if ((st = emit_node(e, 'J', 0, NULL))) break;
            st = ompdag_condag_add_edge(e->g, tail1, e->tail, e->err);
            continue;
        }
        const gen_item *it = &t->items[s->items[f->pos++]];
        if (it->kind != 'B') {
            st = emit_item(e, t, it);
        } else if (emits[it->arm[0]] || emits[it->arm[1]]) {
            if ((st = emit_node(e, 'C', 0, NULL))) break;
            stack[top++] = (emit_frame){
                .seq = it->arm[0], .item = (int32_t)(it - t->items), .arm = 0, .c_node = e->tail};
        }
    }
    free(stack);
    free(emits);
    return st;
}

/* ---- the generator ------------------------------------------------------- */

/* §6: each T node gets, with probability p_dep, one or two clauses of a
 * uniform type on uniform vars "x0".."x{dep_vars-1}".  Its own PRNG stream. */
static ompdag_status add_dependences(const ompdag_gen_params *p, ompdag_condag *g,
                                     ompdag_error *err)
{
    static const ompdag_dep_type types[] = {OMPDAG_DEP_IN, OMPDAG_DEP_OUT, OMPDAG_DEP_INOUT};
    if (p->p_dep <= 0) return OMPDAG_OK;
    ompdag_rng r;
    ompdag_rng_seed(&r, p->seed ^ 0x6465706e64ULL); /* "depnd" */
    ompdag_status st = OMPDAG_OK;
    for (int32_t v = 0; v < ompdag_condag_node_count(g) && !st; ++v) {
        if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_T || ompdag_rng_unit(&r) >= p->p_dep)
            continue;
        int64_t k = ompdag_rng_range(&r, 1, 2);
        for (int64_t i = 0; i < k && !st; ++i) {
            char var[24];
            snprintf(var, sizeof var, "x%lld", (long long)ompdag_rng_range(&r, 0, p->dep_vars - 1));
            st = ompdag_condag_add_depend(g, v, types[ompdag_rng_range(&r, 0, 2)], var, err);
        }
    }
    return st;
}

/* docs/depend.md, "taskwait depend": each W node gets, with probability
 * p_wait_dep, one or two items of any of the five types on the same vars,
 * which makes it a partial taskwait.  A third PRNG stream, so graphs with
 * p_wait_dep = 0 are those of before. */
static ompdag_status add_wait_items(const ompdag_gen_params *p, ompdag_condag *g, ompdag_error *err)
{
    if (p->p_wait_dep <= 0) return OMPDAG_OK;
    ompdag_rng r;
    ompdag_rng_seed(&r, p->seed ^ 0x7477646570ULL); /* "twdep" */
    ompdag_status st = OMPDAG_OK;
    for (int32_t v = 0; v < ompdag_condag_node_count(g) && !st; ++v) {
        if (ompdag_condag_node_kind(g, v) != OMPDAG_KIND_W || ompdag_rng_unit(&r) >= p->p_wait_dep)
            continue;
        int64_t k = ompdag_rng_range(&r, 1, 2);
        for (int64_t i = 0; i < k && !st; ++i) {
            char var[24];
            snprintf(var, sizeof var, "x%lld", (long long)ompdag_rng_range(&r, 0, p->dep_vars - 1));
            ompdag_dep_type t =
                (ompdag_dep_type)ompdag_rng_range(&r, OMPDAG_DEP_IN, OMPDAG_DEP_MUTEXINOUTSET);
            st = ompdag_condag_add_depend(g, v, t, var, err);
        }
    }
    return st;
}

static ompdag_status check_params(const ompdag_gen_params *p, ompdag_error *err)
{
    if (p->tasks < 1) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "tasks must be >= 1");
    if (p->nodes_min < 1 || p->nodes_max < p->nodes_min)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "nodes range must satisfy 1 <= MIN <= MAX");
    if (p->wcet_min < 0 || p->wcet_max < p->wcet_min)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "wcet range must satisfy 0 <= MIN <= MAX");
    if (!(p->p_if >= 0 && p->p_if < 1) || !(p->p_cre >= 0) || !(p->p_wait >= 0) ||
        !(p->p_cre + p->p_wait <= 1))
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "need 0 <= p_if < 1, p_cre, p_wait >= 0 and p_cre + p_wait <= 1");
    if (!(p->p_dep >= 0 && p->p_dep <= 1) || (p->p_dep > 0 && p->dep_vars < 1))
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "need 0 <= p_dep <= 1 and dep_vars >= 1");
    if (!(p->p_wait_dep >= 0 && p->p_wait_dep <= 1) || (p->p_wait_dep > 0 && p->dep_vars < 1))
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "need 0 <= p_wait_dep <= 1 and dep_vars >= 1");
    return OMPDAG_OK;
}

/* The unparented tasks that may still be adopted, with O(1) removal. */
typedef struct adoptable {
    int32_t *list; /* the tasks, in no particular order */
    int32_t *pos;  /* pos[t] = index of t in list, or -1 */
    int32_t count;
} adoptable;

static void adoptable_remove(adoptable *a, int32_t t)
{
    int32_t i = a->pos[t], last = a->list[--a->count];
    a->list[i] = last;
    a->pos[last] = i;
    a->pos[t] = -1;
}

/* Each T item of τi adopts a random unparented task among τi+1..τn, in task
 * order.  O(tasks + items). */
static bool assign_children(ompdag_rng *r, gen_task *tasks, int32_t n, int32_t *parent)
{
    adoptable a = {malloc(sizeof(int32_t) * (size_t)n), malloc(sizeof(int32_t) * (size_t)n), 0};
    if (!a.list || !a.pos) {
        free(a.list), free(a.pos);
        return false;
    }
    a.pos[0] = -1; /* τ1 is the root: never adopted */
    for (int32_t t = 1; t < n; ++t)
        a.list[a.count] = t, a.pos[t] = a.count++;
    for (int32_t i = 0; i < n; ++i) {
        if (a.pos[i] >= 0) /* τi can no longer be adopted by a predecessor */
            adoptable_remove(&a, i);
        for (int64_t k = 0; k < tasks[i].n_items && a.count; ++k) {
            gen_item *it = &tasks[i].items[k];
            if (it->kind != 'T') continue;
            it->child = a.list[ompdag_rng_range(r, 0, a.count - 1)];
            parent[it->child] = i;
            adoptable_remove(&a, it->child);
        }
    }
    free(a.list), free(a.pos);
    return true;
}

ompdag_status ompdag_gen_random(const ompdag_gen_params *p, ompdag_condag **out, ompdag_error *err)
{
    ompdag_status st = check_params(p, err);
    if (st) return st;
    ompdag_rng r;
    ompdag_rng_seed(&r, p->seed);
    int32_t n = p->tasks;
    gen_task *tasks = calloc((size_t)n, sizeof *tasks);
    int32_t *parent = malloc(sizeof *parent * (size_t)n);
    char **ids = calloc((size_t)n, sizeof *ids);
    ompdag_condag *g = ompdag_condag_create();
    if (!tasks || !parent || !ids || !g)
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    for (int32_t i = 0; i < n && !st; ++i) {
        parent[i] = -1;
        ids[i] = malloc(24);
        if (!ids[i] || !build_body(p, &r, &tasks[i]))
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        else
            snprintf(ids[i], 24, "t%d", i + 1);
    }
    if (!st && !assign_children(&r, tasks, n, parent))
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!st) {
        /* Parents precede children, so one forward pass finds reachability;
         * a T node whose child is unreachable cannot exist (its own task is). */
        emitter e = {.g = g, .task_ids = ids, .err = err};
        bool *reach = calloc((size_t)n, sizeof *reach);
        if (!reach) st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        for (int32_t i = 0; i < n && !st; ++i) {
            reach[i] = i == 0 || (parent[i] >= 0 && reach[parent[i]]);
            if (!reach[i]) continue;
            e.task_id = ids[i];
            st = emit_task(&e, &tasks[i]);
        }
        free(reach);
    }
    if (!st) {
        char name[64];
        snprintf(name, sizeof name, "random-seed-%llu", (unsigned long long)p->seed);
        ompdag_condag_assign_name(g, name);
        ompdag_condag_assign_threads(g, p->threads);
        st = add_dependences(p, g, err);
        if (!st) st = add_wait_items(p, g, err);
    }
    if (!st) {
        st = ompdag_condag_finalize(g, err);
    }
    for (int32_t i = 0; tasks && i < n; ++i)
        gen_task_free(&tasks[i]);
    if (ids)
        for (int32_t i = 0; i < n; ++i)
            free(ids[i]);
    free(tasks), free(parent), free(ids);
    if (st) {
        ompdag_condag_destroy(g);
        return st;
    }
    *out = g;
    return OMPDAG_OK;
}
