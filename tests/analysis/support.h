/* tests/analysis/support.h — graph builders and checks shared by the
 * analysis tests. */
#ifndef OMPDAG_TEST_SUPPORT_H
#define OMPDAG_TEST_SUPPORT_H

#include <stdint.h>

#include "ompdag/condag.h"
#include "ompdag/gen.h"
#include "ompdag/internal/condag_json.h"
#include "ompdag/rta.h"

/* Loads a single graph from JSON text in which ' stands for " (for
 * readable literals).  Returns NULL and fills err on failure. */
ompdag_condag *load_graph(const char *single_quoted_json, ompdag_error *err);

/* Loads and asserts success; the set owns the graph (free with the set). */
ompdag_condag_set *load_set_ok(const char *single_quoted_json);

/* Runs an algorithm and asserts it succeeds; returns m·R. */
int64_t bound_of(const ompdag_condag *g, ompdag_algorithm alg, int32_t m);

/* A random "structured program" con-DAG with k-way branches (2..4), nested
 * tasks, T nodes as sinks and waits in branches; small enough to enumerate. */
ompdag_condag *random_structured(ompdag_rng *r);

/* Re-serialises g with nodes and edges shuffled, then reloads it. */
ompdag_condag_set *shuffled_copy(const ompdag_condag *g, ompdag_rng *r);

/* Finds a node index by id or fails the test. */
int32_t node_index(const ompdag_condag *g, const char *id);

#endif
