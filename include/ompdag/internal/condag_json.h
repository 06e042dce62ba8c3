/*
 * ompdag/internal/condag_json.h — INTERNAL: the con-DAG and bound results as
 * jansson trees, for ompdag's own modules (reports, front end, annotation,
 * the CLI) that already hold jansson objects.
 *
 * Not installed and not part of the public API: the public headers
 * (condag.h, rta.h) carry no jansson type, so a program using libompdag
 * needs no jansson headers and is not tied to its ABI.  Users read and write
 * con-DAGs through files or buffers (ompdag_condag_set_load_buffer(),
 * ompdag_condag_set_save_file()).
 */
#ifndef OMPDAG_INTERNAL_CONDAG_JSON_H
#define OMPDAG_INTERNAL_CONDAG_JSON_H

#include "ompdag/condag.h"
#include "ompdag/error.h"
#include "ompdag/rta.h"

#ifdef __cplusplus
extern "C" {
#endif

struct json_t; /* jansson's object type */

/* Attaches a JSON object of keys this version does not interpret; they are
 * written back on save.  The graph takes a reference (json_incref).  node = -1
 * attaches to the graph itself. */
ompdag_status ompdag_condag_assign_extra(ompdag_condag *g, int32_t node, struct json_t *extra);

/* The extra keys of a node (-1: of the graph), or NULL.  Borrowed. */
struct json_t *ompdag_condag_extra(const ompdag_condag *g, int32_t node);

/* Builds a graph from one parsed JSON graph object.  `where` prefixes
 * messages.  *out is owned by the caller. */
ompdag_status condag_from_json(const struct json_t *obj, const char *where, ompdag_condag **out,
                               ompdag_error *err);

/* Replaces a node object's "depend" key by depend[its "id"] (an input's
 * clauses by address, annotate_depend_input.c), or drops it when depend
 * names none; no-op when depend is NULL.  false on ENOMEM. */
bool condag_json_node_depend_from(struct json_t *node, const struct json_t *depend);

/* Serialises a finalized graph as a new JSON object (caller owns the reference). */
struct json_t *ompdag_condag_to_json(const ompdag_condag *g);

/* The result as a JSON object: m, algorithm, bound, bound_times_m,
 * time_unit, and with a witness vol, len and worst_flow {choices: {C id:
 * successor id}, critical_path: [ids]}; enumerate adds flows.  New
 * reference owned by the caller; NULL on allocation failure. */
struct json_t *rta_result_to_json(const ompdag_rta_result *r, const ompdag_condag *g);

#ifdef __cplusplus
}
#endif
#endif
