/*
 * annotate/annotate_depend_input.c — the input's dependences, from the
 * addresses the runtime saw (docs/probe.md#input; condag.md §6).
 *
 * The front end names a depend item by its storage class: items it cannot
 * tell apart (rows of two pointer parameters, `u[i]` with `double (*u)[n]`)
 * share one var, so the graph orders every writer of any of them before
 * every later reader.  That is sound for every input, and on KASTORS jacobi
 * it serialises tasks libomp runs in parallel.  The runtime decides with the
 * items' addresses: OpenMP 5.1 §2.19.11 orders two sibling tasks by a
 * dependence when their list items are the same (libomp compares the start
 * addresses, kmp_taskdeps.cpp, __kmp_process_deps), with the same in / out /
 * inout / inoutset rules as §6.  So for the runs given to annotate, the
 * order the runtime imposed is §6 applied to vars named by address.
 *
 * Addresses differ between runs (malloc, stack), but which items are the same
 * does not when the task structure is the same.  Per run we list the items of
 * the graph's tasks in a canonical order (T node, then the item's place in
 * its list) and number the addresses by first appearance; two runs agree when
 * the lists of (T node, type, number) are equal.  When every run agrees,
 * annotate writes per T node of the input the clauses with those numbers as
 * vars ("input"."depend"), and report bounds the input's DAG with them.  The
 * claim is the task structure of these runs, now including which items were
 * the same storage.  Anything else keeps the graph's vars and says why:
 * runs that differ, a T node that created several tasks in one run (a shared
 * compact body), clause counts that do not match, or mutexinoutset and
 * doacross items (their exclusion or order is not §6's).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "annotate_internal.h"

/* One item of a run's depend lists, in canonical order (seq). */
typedef struct canon_item {
    uint64_t addr;
    int32_t tnode;
    uint32_t seq;
    uint8_t type;
} canon_item;

__attribute__((format(printf, 2, 3))) static void refuse(graph_info *gi, const char *fmt, ...)
{
    if (gi->din_state == DIN_REFUSED) return;
    gi->din_state = DIN_REFUSED;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(gi->din_why, sizeof gi->din_why, fmt, ap);
    va_end(ap);
}

/* in, out, inout, inoutset: the §6 types, the same in the graph and in OMPT
 * (ompt_dependence_type_t 1, 2, 3, 7). */
static bool section6_item(uint8_t type)
{
    return type == 1 || type == 2 || type == 3 || type == 7;
}

static bool section6_clauses(const ompdag_condag *g, int32_t t)
{
    for (int32_t i = 0; i < ompdag_condag_node_depend_count(g, t); ++i)
        if (ompdag_condag_node_depend_type(g, t, i) == OMPDAG_DEP_MUTEXINOUTSET) return false;
    return true;
}

static int cmp_by_index(const void *x, const void *y)
{
    const dep_item *a = x, *b = y;
    return (a->index > b->index) - (a->index < b->index);
}

static int cmp_by_addr(const void *x, const void *y)
{
    const canon_item *a = x, *b = y;
    if (a->addr != b->addr) return a->addr < b->addr ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Appends T node t's items (its instance e) by their place in the list;
 * false (after refusing) when they cannot stand for the graph's clauses. */
static bool append_task(const trace_ctx *c, graph_info *gi, int32_t t, const task_entry *e,
                        canon_item *out, size_t *n, dep_item *scratch)
{
    const ompdag_condag *g = gi->g;
    const char *id = ompdag_condag_node_id(g, t);
    size_t k = 0;
    const dep_item *it = e ? annot_dep_items_of(c, e->id, &k) : NULL;
    int32_t clauses = ompdag_condag_node_depend_count(g, t);
    if (!clauses && !k) return true;
    if (!e) return true; /* not created in this run: the structure check covers it */
    if (!clauses || !k) {
        refuse(gi, "node %s: the graph has %" PRId32 " depend clauses, the runtime a list of %zu",
               id, clauses, k);
        return false;
    }
    if (!section6_clauses(g, t)) {
        refuse(gi, "node %s: mutexinoutset keeps the graph's vars (its exclusion is a lock)", id);
        return false;
    }
    memcpy(scratch, it, k * sizeof *it);
    qsort(scratch, k, sizeof *scratch, cmp_by_index);
    for (size_t i = 0; i < k; ++i) {
        if (!section6_item(scratch[i].type)) {
            refuse(gi,
                   "node %s: the runtime reported an item of OMPT type %u (mutexinoutset or "
                   "doacross), which §6 does not order",
                   id, scratch[i].type);
            return false;
        }
        out[*n] = (canon_item){scratch[i].addr, t, (uint32_t)*n, scratch[i].type};
        ++*n;
    }
    return true;
}

/* Numbers the addresses of it[0..n) by first appearance, into sig (n
 * triples: T node, type, number). */
static bool signature(canon_item *it, size_t n, int32_t *sig)
{
    uint32_t *first = calloc(n + 1, sizeof *first), *rank = malloc((n + 1) * sizeof *rank);
    if (!first || !rank) {
        free(first), free(rank);
        return false;
    }
    for (size_t i = 0; i < n; ++i)
        sig[3 * i] = it[i].tnode, sig[3 * i + 1] = it[i].type;
    qsort(it, n, sizeof *it, cmp_by_addr);
    for (size_t i = 0; i < n; ++i) /* the first (lowest seq) item of each address */
        if (i == 0 || it[i].addr != it[i - 1].addr) first[it[i].seq] = 1;
    for (size_t s = 0, r = 0; s < n; ++s) /* rank of a first appearance */
        rank[s] = (uint32_t)r, r += first[s];
    for (size_t i = 0, lead = 0; i < n; ++i) {
        if (i == 0 || it[i].addr != it[i - 1].addr) lead = it[i].seq;
        sig[3 * it[i].seq + 2] = (int32_t)rank[lead];
    }
    free(first), free(rank);
    return true;
}

/* Keeps the first run's signature; a later one must equal it. */
static bool compare_or_keep(graph_info *gi, int32_t *sig, size_t n)
{
    if (gi->din_state == DIN_NONE) {
        gi->din_state = DIN_AGREED;
        gi->din_sig = sig, gi->din_n = n;
        return true;
    }
    if (gi->din_n != n || memcmp(gi->din_sig, sig, 3 * n * sizeof *sig)) {
        size_t i = 0;
        while (i < n && i < gi->din_n && !memcmp(gi->din_sig + 3 * i, sig + 3 * i, 3 * sizeof *sig))
            ++i;
        int32_t t = i < n ? sig[3 * i] : i < gi->din_n ? gi->din_sig[3 * i] : gi->din_sig[0];
        refuse(gi,
               "the runs' depend lists name different storage: the items of node %s differ "
               "between runs (item %zu in the canonical order)",
               ompdag_condag_node_id(gi->g, t), i);
    }
    free(sig);
    return true;
}

ompdag_status annot_depend_input_run(const trace_ctx *c, graph_info *gi, task_entry *const *at,
                                     const uint8_t *dup, ompdag_error *err)
{
    if (gi->din_state == DIN_REFUSED) return OMPDAG_OK;
    const ompdag_condag *g = gi->g;
    size_t cap = c->nitems + 1, n = 0;
    canon_item *it = malloc(cap * sizeof *it);
    dep_item *scratch = malloc(cap * sizeof *scratch);
    bool ok = it && scratch;
    for (int32_t t = 0; ok && t < gi->n && gi->din_state != DIN_REFUSED; ++t) {
        if (ompdag_condag_node_kind(g, t) != OMPDAG_KIND_T) continue;
        if (dup[t] && ompdag_condag_node_depend_count(g, t)) {
            refuse(gi,
                   "node %s created several tasks in one run (a shared body): their items "
                   "cannot be told apart",
                   ompdag_condag_node_id(g, t));
            break;
        }
        append_task(c, gi, t, at[t], it, &n, scratch);
    }
    int32_t *sig = ok && gi->din_state != DIN_REFUSED ? malloc((3 * n + 1) * sizeof *sig) : NULL;
    if (sig && !signature(it, n, sig)) free(sig), sig = NULL, ok = false;
    if (sig) compare_or_keep(gi, sig, n);
    free(it), free(scratch);
    if (!ok && gi->din_state != DIN_REFUSED)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "annotate: out of memory");
    return OMPDAG_OK;
}

static const char *type_name(int32_t type)
{
    return type == 1 ? "in" : type == 2 ? "out" : type == 3 ? "inout" : "inoutset";
}

json_t *annot_depend_input_json(const graph_info *gi)
{
    if (gi->din_state != DIN_AGREED) return NULL;
    json_t *out = json_object();
    for (size_t i = 0; out && i < gi->din_n; ++i) {
        const int32_t *s = gi->din_sig + 3 * i;
        const char *id = ompdag_condag_node_id(gi->g, s[0]);
        json_t *list = json_object_get(out, id);
        if (!list && json_object_set_new(out, id, list = json_array())) list = NULL;
        char var[32];
        snprintf(var, sizeof var, "@%" PRId32, s[2]);
        if (!list || json_array_append_new(
                         list, json_pack("{s:s,s:s}", "type", type_name(s[1]), "var", var))) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}
