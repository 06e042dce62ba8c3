/*
 * ompdag/internal/advise_json.h — INTERNAL: the advisor's model and advice as
 * jansson trees, for ompdag's own modules (the `advise` command, the reports'
 * advice block) that already hold jansson objects.
 *
 * Not installed: the public advise.h carries no jansson type, so a program
 * using libompdag needs no jansson headers and is not tied to its ABI.  The
 * names carry the module prefix advise_, not ompdag_, so the installed
 * libompdag.a keeps them local (cmake/OmpdagInstall.cmake keeps only ompdag_*
 * global; tests/install/check_exports_declared.sh checks it).
 */
#ifndef OMPDAG_INTERNAL_ADVISE_JSON_H
#define OMPDAG_INTERNAL_ADVISE_JSON_H

#include "ompdag/advise.h"

#ifdef __cplusplus
extern "C" {
#endif

struct json_t; /* jansson's object type */

/* Builds a model from a parsed `ompdag-advisor-model` v1 object; `origin`
 * (a file name) prefixes every message.  *out is owned by the caller: free it
 * with ompdag_advise_model_destroy(). */
ompdag_status advise_model_from_json(const struct json_t *root, const char *origin,
                                     ompdag_advise_model **out, ompdag_error *err);

/* {"regions": [{"function", "loc", "tasks": [{"loc", "verdict", "grain_ns",
 * "predicted": {…}, "suggestion", "features": {…}}]}]} — a new reference,
 * owned by the caller (json_decref); NULL on allocation failure. */
struct json_t *advise_advice_to_json(const ompdag_advice *a);

/* One task as JSON, the element of "tasks" above: a new reference owned by
 * the caller; NULL on allocation failure. */
struct json_t *advise_task_to_json(const ompdag_advise_task *t);

#ifdef __cplusplus
}
#endif
#endif
