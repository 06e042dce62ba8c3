/*
 * analysis/condag_json.c — the `ompdag-condag` v1 and `ompdag-condag-set` v1
 * file formats (docs/condag.md §5), read and written with jansson: the entry
 * of the module, holding the set of graphs that a file loads into and saves
 * from.  The work lies in its helpers:
 *   condag_json_read.c   a graph and a set from a jansson tree; the loaders
 *   condag_json_scan.c   the scanner path for the bulk "nodes"/"edges" arrays
 *   condag_json_write.c  a graph as a jansson tree; the streaming writer
 *
 * Every field error names the graph, the node (by index and id) or edge and
 * the field; syntax errors carry jansson's line and column.  Unknown keys are
 * kept as "extras" and written back, so tools further down the pipeline (the
 * probe's annotate, reports) can add keys without breaking older readers.
 */
#include "condag_json_internal.h"

/* ---- sets --------------------------------------------------------------- */

ompdag_condag_set *ompdag_condag_set_create(void)
{
    return calloc(1, sizeof(ompdag_condag_set));
}

void ompdag_condag_set_destroy(ompdag_condag_set *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n; ++i)
        ompdag_condag_destroy(s->graphs[i]);
    free(s->graphs);
    free(s);
}

size_t ompdag_condag_set_count(const ompdag_condag_set *s)
{
    return s->n;
}

ompdag_condag *ompdag_condag_set_graph(const ompdag_condag_set *s, size_t i)
{
    return i < s->n ? s->graphs[i] : NULL;
}

bool ompdag_condag_set_was_single(const ompdag_condag_set *s)
{
    return s->was_single;
}

ompdag_status ompdag_condag_set_add(ompdag_condag_set *s, ompdag_condag *g, ompdag_error *err)
{
    if (!g->finalized) {
        ompdag_condag_destroy(g);
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "only finalized graphs join a set");
    }
    if (!grow_array((void **)&s->graphs, sizeof *s->graphs, &s->cap, (int64_t)s->n + 1)) {
        ompdag_condag_destroy(g);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    s->graphs[s->n++] = g;
    return OMPDAG_OK;
}
