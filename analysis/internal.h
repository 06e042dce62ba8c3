/*
 * analysis/internal.h — the in-memory con-DAG, private to analysis/.
 *
 * Structure of arrays with int32 indices so that 10^7 nodes fit: per node
 * about 60 bytes plus its id string.  Strings live in one pool and are named
 * by int64 offsets (-1 = absent).  F-successors and derived W-successors are
 * CSR arrays built once by ompdag_condag_finalize().
 */
#ifndef OMPDAG_ANALYSIS_INTERNAL_H
#define OMPDAG_ANALYSIS_INTERNAL_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "ompdag/condag.h"
#include "ompdag/internal/array.h"
#include "ompdag/internal/hashmap.h"
#include "ompdag/internal/stats.h"
#include "ompdag/internal/condag_json.h"

#define NO_STR ((int64_t)-1)

typedef struct strpool {
    char *buf;
    size_t len, cap;
} strpool;

/* Copies s into the pool; returns its offset, NO_STR for NULL, -2 on ENOMEM. */
int64_t strpool_add(strpool *p, const char *s);
static inline const char *strpool_get(const strpool *p, int64_t off)
{
    return off < 0 ? NULL : p->buf + off;
}
void strpool_free(strpool *p);

/* Map from pooled strings to int32 indices (strpool.c).  The keys are the
 * strings at keys[index] in the pool, so the map stores indices only: an
 * index map of the one hash map, ompdag/internal/hashmap.h. */
typedef struct idmap {
    ompdag_imap map;
} idmap;

int32_t idmap_find(const idmap *m, const strpool *p, const int64_t *keys, const char *key);
/* Inserts index (whose key is keys[index]); false on ENOMEM. */
bool idmap_insert(idmap *m, const strpool *p, const int64_t *keys, int32_t index);
void idmap_free(idmap *m);

/* Grows *arr (of elem-size bytes) so it holds at least `need` elements: the
 * one growable-array helper (ompdag/internal/array.h), under its short name. */
#define grow_array ompdag_grow_array

struct ompdag_condag {
    strpool pool;
    bool finalized;

    /* graph metadata */
    int64_t name, function, time_unit;
    int64_t region_file;
    int32_t region_line, region_col;
    int32_t threads;
    struct json_t *graph_extra;

    /* nodes */
    int32_t n;
    int64_t node_cap;
    int64_t *node_id;     /* pool offsets */
    int32_t *node_task;   /* task index */
    uint8_t *kind;        /* ompdag_kind */
    int64_t *wcet;
    int64_t *creates_str; /* pool offset of `creates` until finalize */
    int32_t *creates;     /* task index or -1, after finalize */
    int64_t *loc_file;    /* pool offsets */
    int32_t *loc_line, *loc_col;
    int64_t *label;       /* pool offsets */
    struct json_t **extra; /* NULL until some node has extras */
    int64_t total_wcet;
    /* dispatch delays D(v) (docs/overheads.md, the "delays" extension):
     * NULL until some node gets one; charged on the critical chain only */
    int64_t *delay;
    int64_t total_delay;
    bool delays_declared; /* the file named the "delays" extension */
    idmap node_map;

    /* F-edges as given, until finalize turns them into CSR */
    int64_t ne, edge_cap;
    int32_t *edge_from, *edge_to;

    /* tasks */
    int32_t nt;
    int64_t task_cap;
    int64_t *task_id;
    idmap task_map;
    int32_t *task_source, *task_sink, *task_creator; /* after finalize */
    int32_t root;

    /* derived by finalize */
    int32_t *fsucc_off, *fsucc; /* CSR, n+1 offsets */
    int32_t *wsucc_off, *wsucc; /* CSR, n+1 offsets: W nodes awaiting a sink */
    int32_t *topo;              /* F+T+W(+D) topological order (compact: F+T only) */

    /* the "compact" extension (docs/compact.md, condag_compact.c) */
    bool compact;          /* tasks may be created by several T nodes (shared bodies) */
    bool no_wsucc; /* finalize leaves the W-edges out: only for rta_loop.c's unrolled witness
                      graph, which never reads them (unrolled, they grow with K²) */
    uint64_t *task_inst;   /* compact, after finalize: instances of each task in the
                              unfolding, saturating at UINT64_MAX */
    /* the "loops" extension (docs/compact.md, condag_loops.c): implies compact */
    bool loops_declared;
    struct condag_loops *loops; /* after finalize, NULL when no node has "repeat" */

    struct condag_dep *dep; /* depend clauses (§6), NULL when none: condag_depend.c */
    bool dep_unrolled; /* loops unrolled, bodies still shared: clauses kept for the unfolding
                          only (condag_loops_unroll; no serial order, never analysed) */
    struct condag_locks *locks; /* locks nodes acquire (docs/mutex.md): condag_locks.c */
    bool locks_declared;        /* the file named the "locks" extension */
    bool twdep_declared;        /* the file named "taskwait-depend" (W nodes with "depend") */
};

/* ---- depend clauses (condag_depend.c) ---------------------------------- */

typedef struct condag_dep {
    int64_t n, cap;  /* clauses, in the order they were added */
    int32_t *node;   /* T node carrying clause i, or W node (a partial taskwait's item) */
    uint8_t *type;   /* ompdag_dep_type */
    int32_t *var;    /* var index */
    int32_t *off;    /* once validation starts: CSR by node (n_nodes+1), into cvar/ctype */
    int32_t *cvar;
    uint8_t *ctype;
    int32_t nvar;    /* distinct vars; names in the graph's pool */
    int64_t var_cap;
    int64_t *var_name;
    idmap var_map;
    /* Cells indexed by a compact loop's iteration (docs/compact.md, "depend
     * clauses in compact loops"; condag_loop_depend.c): per clause in the
     * order added, the loop test whose iteration k names cell k + ioff of
     * var (iloop -1: a plain var); NULL when no clause is indexed. */
    int32_t *iloop;
    int64_t *ioff;
    int64_t icap;
    int32_t *corig; /* after finalize: per CSR position, the clause's order added */
} condag_dep;

/* Dependence modes (docs/depend.md): two tasks' clauses on one var conflict
 * (order the later after the earlier) unless both have the same mode other
 * than write.  A task with two different modes on a var writes it. */
enum { CONDAG_MODE_IN = 0, CONDAG_MODE_WRITE = 1, CONDAG_MODE_SET = 2, CONDAG_MODE_MUTEX = 3 };
#define CONDAG_MODES 4
#define CONDAG_MODE_NONE 0xff
static inline int condag_dep_mode(int type)
{
    return type == OMPDAG_DEP_IN                ? CONDAG_MODE_IN
           : type == OMPDAG_DEP_INOUTSET        ? CONDAG_MODE_SET
           : type == OMPDAG_DEP_MUTEXINOUTSET ? CONDAG_MODE_MUTEX
                                                : CONDAG_MODE_WRITE;
}
static inline bool condag_dep_conflict(int a, int b)
{
    return a == CONDAG_MODE_WRITE || b == CONDAG_MODE_WRITE || a != b;
}
/* The mode of a partial taskwait's item (docs/depend.md, "taskwait depend"):
 * as a task's, except that mutexinoutset waits like a write, since the
 * implied task's mutual exclusion may make it wait for a running
 * mutexinoutset sibling (an edge from every such sibling: sound). */
static inline int condag_wait_mode(int type)
{
    return type == OMPDAG_DEP_MUTEXINOUTSET ? CONDAG_MODE_WRITE : condag_dep_mode(type);
}
/* A W node with depend items: a partial taskwait (`taskwait depend(…)`).  It
 * waits for the earlier children whose clauses conflict with its items
 * (per flow, condag_depend.c), not for every child since the last full
 * taskwait; Rule 2's W-edges pass over it. */
static inline bool condag_is_partial_wait(const struct ompdag_condag *g, int32_t v)
{
    return g->kind[v] == OMPDAG_KIND_W && g->dep && g->dep->off &&
           g->dep->off[v + 1] > g->dep->off[v];
}

/* Moves every node's "depend" extra key into clauses (checking it), called
 * first by finalize. */
ompdag_status condag_depend_from_extras(ompdag_condag *g, ompdag_error *err);
/* After the structural checks: CSR of clauses, and (when there are clauses) a
 * topological order that D-edges respect too: the serial order. */
ompdag_status condag_depend_finalize(ompdag_condag *g, ompdag_error *err);
/* Cells indexed by a compact loop's iteration (condag_loop_depend.c): reads
 * the optional "index" of clause i (json object c) just added to T node v. */
ompdag_status condag_loop_depend_read_index(ompdag_condag *g, int32_t v, size_t i,
                                            const struct json_t *c, ompdag_error *err);
/* At finalize, after the loops: every index names a loop around its node, in
 * a graph that declares "loops"; clauses in loops sit in unshared tasks. */
ompdag_status condag_loop_depend_check(const ompdag_condag *g, ompdag_error *err);
void condag_depend_free(condag_dep *d);
/* Some W node carries depend items (a partial taskwait): the file then needs
 * the "taskwait-depend" extension. */
bool condag_depend_has_partial_wait(const ompdag_condag *g);

/* The D-edges (§6 Rule 3) of one flow, as a CSR from task sinks to the
 * sources of later siblings, and to the partial taskwaits (W nodes with
 * items, docs/depend.md) that wait for them.  Scratch owned by the caller. */
typedef struct condag_dflow {
    int32_t *off;  /* n+1 */
    int32_t *succ; /* at most the number of clause pairs emitted */
    int64_t cap;
    /* scratch; per var: in_head the current group (docs/depend.md), last_out
     * the group before it (lists through in_next/in_task), cur_mode its mode */
    int32_t *group, *last_out, *in_head, *in_next, *in_task, *mark, *efrom, *eto;
    uint8_t *cur_mode;
    int64_t ecap;
} condag_dflow;
bool condag_dflow_init(condag_dflow *f, const ompdag_condag *g);
void condag_dflow_free(condag_dflow *f);
/* Derives the D-edges among executed nodes; false on ENOMEM. */
bool condag_dflow_derive(const ompdag_condag *g, const uint8_t *executed, condag_dflow *f);

/* ---- locks and the blocking term (condag_locks.c, docs/mutex.md) ------- */
typedef struct condag_locks condag_locks;
void condag_locks_free(condag_locks *l);
/* Moves every node's "locks" extra key into entries (needs the extension). */
ompdag_status condag_locks_from_extras(ompdag_condag *g, ompdag_error *err);
/* CSR by node and the per-lock sums and maxima; refuses compact graphs. */
ompdag_status condag_locks_finalize(ompdag_condag *g, ompdag_error *err);
/* True when node v takes a lock whose name does not start with prefix. */
bool condag_locks_other_than(const ompdag_condag *g, int32_t v, const char *prefix);
/* Keeps S(L) and Cmax(L) current after node v's WCET changed from old. */
void condag_locks_wcet_changed(ompdag_condag *g, int32_t v, int64_t old);
/* Node v's "locks" key for saving, NULL when it has none (new reference). */
struct json_t *condag_locks_to_json(const ompdag_condag *g, int32_t v);

/* Loads with jansson alone (no scanner): the reference for differential tests. */
ompdag_status condag_set_load_buffer_jansson(const char *text, size_t len, const char *origin,
                                             ompdag_condag_set **out, ompdag_error *err);

/* Builds CSR, checks §5's structural rules, derives W-edges and topo order. */
ompdag_status condag_validate_and_derive(ompdag_condag *g, ompdag_error *err);

/* Finds the one uncreated task (g->root), naming the task at fault. */
ompdag_status condag_find_root(ompdag_condag *g, ompdag_error *err);

/* Hooks of the compact extension (condag_compact.c) into validation: a
 * compact graph lets a task have several creators (first kept in
 * task_creator), checks that creation is acyclic, derives W-edges over all
 * creators, orders nodes by F- and T-edges only and counts instances. */
ompdag_status condag_compact_check_tasks(ompdag_condag *g, ompdag_error *err);
ompdag_status condag_compact_derive(ompdag_condag *g, ompdag_error *err);
/* The graph-level "extensions" key: read (refusing unknown extensions) and written. */
ompdag_status condag_compact_read_meta(ompdag_condag *g, const struct json_t *obj,
                                       const char *where, ompdag_error *err);
void condag_compact_write_meta(const ompdag_condag *g, struct json_t *o);

/* Accessor preconditions (condag.h): a node index in [0, n), a task index in
 * [0, nt), and the arrays finalize derives (successor lists, task sources and
 * sinks, topological order) only once it has run.  A caller that breaks one
 * would read out of bounds; assert() stops it in every build (OMPDAG_ASSERTIONS). */
#define CONDAG_ASSERT_NODE(g, v) assert((v) >= 0 && (v) < (g)->n)
#define CONDAG_ASSERT_TASK(g, t) assert((t) >= 0 && (t) < (g)->nt)
#define CONDAG_ASSERT_FINAL(g) assert((g)->finalized)

static inline const char *node_name(const ompdag_condag *g, int32_t v)
{
    return strpool_get(&g->pool, g->node_id[v]);
}
static inline const char *task_name(const ompdag_condag *g, int32_t t)
{
    return strpool_get(&g->pool, g->task_id[t]);
}

#endif
