/*
 * analysis/condag_json_internal.h — what the files of the con-DAG JSON
 * reader and writer (analysis/condag_json*.c) share: the format's names, the
 * set's layout, a node's fields as either reader found them, and the bulk
 * arrays that the scanner reads instead of jansson.
 */
#ifndef OMPDAG_CONDAG_JSON_INTERNAL_H
#define OMPDAG_CONDAG_JSON_INTERNAL_H

#include <jansson.h>

#include "condag_jsonscan.h"
#include "internal.h"

#define FORMAT_GRAPH "ompdag-condag"
#define FORMAT_SET "ompdag-condag-set"
#define FORMAT_VERSION 1

struct ompdag_condag_set {
    ompdag_condag **graphs;
    size_t n;
    int64_t cap;
    bool was_single;
};

/* ---- a node as read (condag_json_nodes.c checks it, both readers fill it) */

/* An optional string or integer (in [lo, hi]) of obj; false when present and
 * of another type or out of range (condag_json_nodes.c). */
bool condag_json_opt_string(const json_t *obj, const char *key, const char **out);
bool condag_json_opt_int(const json_t *obj, const char *key, int64_t lo, int64_t hi, int64_t *out);

/* The keys a node may have; any other is kept among its extras. */
extern const char *const condag_json_node_keys[];

/* A node's fields as read from either reader (jansson or the scanner), so
 * both share one set of checks and messages. */
enum { F_ABSENT, F_STRING, F_INT, F_OBJECT, F_OTHER };

typedef struct field {
    int type;
    const char *s;
    int64_t i;
} field;

typedef struct node_fields {
    field id, task, kind, wcet, creates, label, loc, file, line, col;
    field delay;   /* the "delays" extension (docs/overheads.md) */
    json_t *extra; /* unknown keys, owned */
} node_fields;

/* Checks a node's fields and adds it (with its delay and extras) to g. */
ompdag_status condag_json_add_node(ompdag_condag *g, const node_fields *f, const char *gwhere,
                                   size_t i, ompdag_error *err);

/* Adds the edge named by two ids; the messages name edges[i]. */
ompdag_status condag_json_add_edge(ompdag_condag *g, const char *a, const char *b,
                                   const char *where, size_t i, ompdag_error *err);

/* The message for an edges[i] that is not a pair of ids. */
ompdag_status condag_json_edge_not_a_pair(const char *where, size_t i, ompdag_error *err);

/* ---- the scanner's share (condag_json_scan.c) ----------------------------- */

/* Where a graph's "nodes" and "edges" arrays lie in the text, when the
 * scanner (not jansson) is to read them. */
typedef struct bulk {
    jspan nodes, edges;
} bulk;

/* Builds the set from a jansson tree in which, when `raw` is given, the
 * graphs' bulk arrays were left in the text for the scanner `sc` (raw[0]:
 * the top-level graph; raw[i+1]: graphs[i]). */
/* Splits the text of sc into a jansson tree of its small parts (*root) and
 * the spans of each graph's bulk arrays (*raw, caller frees; raw[0] the
 * top-level graph, raw[i + 1] graphs[i]), checking the syntax of all of it
 * (condag_json_scan.c). */
ompdag_status condag_json_split(jscan *sc, json_t **root, bulk **raw, ompdag_error *err);
ompdag_status condag_json_set_from(const json_t *root, const bulk *raw, jscan *sc,
                                   const char *origin, ompdag_condag_set *s, ompdag_error *err);

/* Reads the nodes, or the edges, of g from the array spanning `span`. */
ompdag_status condag_json_scan_nodes(ompdag_condag *g, jscan *s, jspan span, const char *where,
                                     ompdag_error *err);
ompdag_status condag_json_scan_edges(ompdag_condag *g, jscan *s, jspan span, const char *where,
                                     ompdag_error *err);

#endif
