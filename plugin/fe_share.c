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
#include "ompdag/internal/hashmap.h"

typedef struct share_key {
    void *file, *stmt_file;
    unsigned begin, end, stmt_begin;
    int32_t loop_bound, depth;
    bool final;
    int32_t *chain; /* function indices of the active calls, innermost first */
    fe_env env;     /* known parameter values (--assume): they decide what folds */
} share_key;

/* A context met before and the task its body became. */
typedef struct share_entry {
    share_key key;
    int32_t task;
} share_entry;

struct fe_share {
    share_entry *e;
    int32_t n;
    int64_t cap;       /* of e (ompdag_grow_array) */
    ompdag_imap index; /* key -> its entry (hashmap.h) */
};

static uint32_t key_hash(const share_key *k)
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
    return ompdag_imap_hash32(h);
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

static bool entry_is(const void *entries, uint32_t index, const void *key)
{
    return key_eq(&((const share_entry *)entries)[index].key, key);
}

/* The entry of context k, or -1. */
static int32_t lookup(const struct fe_share *m, const share_key *k)
{
    return m ? (int32_t)ompdag_imap_find(&m->index, key_hash(k), entry_is, m->e, k) : -1;
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
    return w->g->share->e[x].task;
}

bool fe_share_add(walker *w, CXCursor s, int32_t loop_bound, bool final, int32_t task)
{
    if (w->g->taskgroups || !recursive_context(w)) return true;
    struct fe_share *m = w->g->share;
    if (!m && !(m = w->g->share = calloc(1, sizeof *m))) return fe_nomem(w);
    share_key k;
    if (!make_key(w, s, loop_bound, final, &k)) return fe_nomem(w);
    if (lookup(m, &k) >= 0) return free(k.chain), true;
    if (m->n == INT32_MAX ||
        !ompdag_grow_array((void **)&m->e, sizeof *m->e, &m->cap, (int64_t)m->n + 1) ||
        !ompdag_imap_add(&m->index, key_hash(&k), (uint32_t)m->n))
        return free(k.chain), fe_nomem(w);
    m->e[m->n++] = (share_entry){k, task};
    return true;
}

void fe_share_free(struct fe_share *m)
{
    if (!m) return;
    for (int32_t i = 0; i < m->n; ++i)
        free(m->e[i].key.chain);
    ompdag_imap_free(&m->index);
    free(m->e), free(m);
}
