/*
 * plugin/fe_share.c — compact graphs from the front end (docs/compact.md):
 * a task directive met again in the same context produces the same task
 * body, so the T node references the body already built instead of walking
 * it again.  Recursion bounded at depth D then costs O(D) bodies instead of
 * O(2^D).
 *
 * The context is everything the walk of a task body reads from its walker:
 * the directive's statement (cursor extent), the enclosing statement used
 * for labels, the loop bound in force, whether the task is final, and the
 * chain of active inlined calls (which decides where recursion stops).  Two
 * walks with the same context produce identical subtrees.  Only tasks
 * created inside recursion (a function active twice) are shared; inside a
 * taskgroup nothing is, since its check of awaited descendants looks at the
 * tasks it creates itself.
 */
#include <stdlib.h>
#include <string.h>

#include "fe_walk.h"

typedef struct share_key {
    void *file, *stmt_file;
    unsigned begin, end, stmt_begin;
    int32_t loop_bound, depth;
    bool final;
    int32_t *chain; /* function indices of the active calls, innermost first */
    fe_env env;     /* known parameter values (--assume): they decide what folds */
} share_key;

struct fe_share {
    share_key *keys;
    int32_t *task;
    int32_t n;
    int64_t cap;    /* of keys and task */
    int32_t *slots; /* open addressing, -1 empty */
    uint32_t nslots;
};

static uint64_t key_hash(const share_key *k)
{
    uint64_t h = 1469598103934665603ull;
#define MIX(x) (h = (h ^ (uint64_t)(x)) * 1099511628211ull)
    MIX((uintptr_t)k->file), MIX(k->begin), MIX(k->end), MIX(k->stmt_begin);
    MIX((uintptr_t)k->stmt_file), MIX(k->loop_bound), MIX(k->depth), MIX(k->final);
    for (int32_t i = 0; i < k->depth; ++i)
        MIX(k->chain[i]);
    MIX(k->env.bound);
    for (int32_t i = 0; i < FE_ENV_MAX; ++i)
        MIX((uint64_t)k->env.value[i]);
#undef MIX
    return h;
}

static bool key_eq(const share_key *a, const share_key *b)
{
    return a->file == b->file && a->begin == b->begin && a->end == b->end &&
           a->stmt_file == b->stmt_file && a->stmt_begin == b->stmt_begin &&
           a->loop_bound == b->loop_bound && a->depth == b->depth && a->final == b->final &&
           !memcmp(a->chain, b->chain, sizeof *a->chain * (size_t)a->depth) &&
           a->env.bound == b->env.bound && !memcmp(a->env.value, b->env.value, sizeof a->env.value);
}

/* The context of a task directive's body; chain is a new array (NULL on ENOMEM). */
static bool make_key(const walker *w, CXCursor s, int32_t loop_bound, bool final, share_key *k)
{
    CXSourceRange r = clang_getCursorExtent(s);
    CXFile f, sf;
    unsigned b, e, sb;
    clang_getSpellingLocation(clang_getRangeStart(r), &f, NULL, NULL, &b);
    clang_getSpellingLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &e);
    sf = w->stmt.file, sb = w->stmt.begin;
    int32_t depth = 0;
    for (const fe_call *c = w->calls; c; c = c->up)
        ++depth;
    *k = (share_key){f,     sf,    b,
                     e,     sb,    loop_bound,
                     depth, final, malloc(sizeof(int32_t) * (size_t)(depth ? depth : 1)),
                     {0}};
    if (!k->chain) return false;
    int32_t i = 0;
    for (const fe_call *c = w->calls; c; c = c->up)
        k->chain[i++] = c->func;
    memset(&k->env, 0, sizeof k->env);
    for (int32_t p = 0; w->env && p < FE_ENV_MAX; ++p) /* only the values known */
        if (w->env->bound & (1u << p)) k->env.value[p] = w->env->value[p];
    k->env.bound = w->env ? w->env->bound : 0;
    return true;
}

static int32_t lookup(const struct fe_share *m, const share_key *k)
{
    if (!m || !m->nslots) return -1;
    for (uint32_t i = (uint32_t)key_hash(k) & (m->nslots - 1);; i = (i + 1) & (m->nslots - 1)) {
        int32_t x = m->slots[i];
        if (x < 0) return -1;
        if (key_eq(&m->keys[x], k)) return x;
    }
}

static bool rehash(struct fe_share *m)
{
    uint32_t ns = m->nslots ? 2 * m->nslots : 64;
    int32_t *slots = malloc(sizeof *slots * ns);
    if (!slots) return false;
    memset(slots, 0xff, sizeof *slots * ns);
    for (int32_t x = 0; x < m->n; ++x) {
        uint32_t i = (uint32_t)key_hash(&m->keys[x]) & (ns - 1);
        while (slots[i] >= 0)
            i = (i + 1) & (ns - 1);
        slots[i] = x;
    }
    free(m->slots);
    m->slots = slots, m->nslots = ns;
    return true;
}

/* Sharing is for recursion: some function is active twice in the chain.
 * Other repeated bodies (unrolled loops, calls from two places) stay plain,
 * so graphs without recursion keep their v1 form. */
static bool recursive_context(const walker *w)
{
    for (const fe_call *a = w->calls; a; a = a->up)
        for (const fe_call *b = a->up; b; b = b->up)
            if (a->func == b->func) return true;
    return false;
}

int32_t fe_share_find(walker *w, CXCursor s, int32_t loop_bound, bool final)
{
    if (w->g->taskgroups || !w->g->share || !recursive_context(w)) return -1;
    share_key k;
    if (!make_key(w, s, loop_bound, final, &k)) return fe_nomem(w), -1;
    int32_t x = lookup(w->g->share, &k);
    free(k.chain);
    if (x < 0) return -1;
    w->g->shared = true;
    return w->g->share->task[x];
}

bool fe_share_add(walker *w, CXCursor s, int32_t loop_bound, bool final, int32_t task)
{
    if (w->g->taskgroups || !recursive_context(w)) return true;
    struct fe_share *m = w->g->share;
    if (!m && !(m = w->g->share = calloc(1, sizeof *m))) return fe_nomem(w);
    share_key k;
    if (!make_key(w, s, loop_bound, final, &k)) return fe_nomem(w);
    if (lookup(m, &k) >= 0) return free(k.chain), true;
    if (!ompdag_grow_array((void **)&m->keys, sizeof *m->keys, &(int64_t){m->cap},
                           (int64_t)m->n + 1) ||
        !ompdag_grow_array((void **)&m->task, sizeof *m->task, &m->cap, (int64_t)m->n + 1))
        return free(k.chain), fe_nomem(w);
    m->keys[m->n] = k;
    m->task[m->n++] = task;
    if ((uint32_t)m->n * 2 > m->nslots) {
        if (!rehash(m)) return fe_nomem(w);
    } else {
        uint32_t i = (uint32_t)key_hash(&k) & (m->nslots - 1);
        while (m->slots[i] >= 0)
            i = (i + 1) & (m->nslots - 1);
        m->slots[i] = m->n - 1;
    }
    return true;
}

void fe_share_free(struct fe_share *m)
{
    if (!m) return;
    for (int32_t i = 0; i < m->n; ++i)
        free(m->keys[i].chain);
    free(m->keys), free(m->task), free(m->slots), free(m);
}
