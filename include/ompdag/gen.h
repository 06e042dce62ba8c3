/*
 * ompdag/gen.h — the random con-DAG generator of Sun et al. 2020, §7
 * (docs/condag.md §4).
 *
 * Deterministic: the same parameters and seed give the same graph on every
 * platform.  The PRNG is xoshiro256** (Blackman & Vigna 2018) seeded through
 * splitmix64; integers in a range use Lemire's unbiased multiply-shift.
 */
#ifndef OMPDAG_GEN_H
#define OMPDAG_GEN_H

#include <stdint.h>

#include "ompdag/condag.h"
#include "ompdag/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fill with ompdag_gen_params_init() before setting fields, never with = {0} or a
 * braced list: later versions add fields at the end, and the init function
 * gives them their defaults, so a caller keeps compiling and meaning the same. */
typedef struct ompdag_gen_params {
    uint64_t seed;
    int32_t tasks;     /* n: tasks drawn (unreachable ones are dropped) */
    double p_if;       /* probability that an insertion is a branch (C, J) */
    double p_cre;      /* probability that a non-conditional node is T */
    double p_wait;     /* probability that a non-conditional node is W */
    int32_t nodes_min; /* k, non-conditional nodes per task: [nodes_min, nodes_max] */
    int32_t nodes_max;
    int64_t wcet_min; /* WCET uniform in [wcet_min, wcet_max] */
    int64_t wcet_max;
    int32_t threads; /* stored as the graph's default m; 0 for none */
    /* Sibling dependences (condag.md §6), drawn from their own PRNG stream so
     * that p_dep = 0 gives the same graphs as before they existed. */
    double p_dep;     /* probability that a task (a T node) gets depend clauses */
    int32_t dep_vars; /* distinct vars the clauses draw from (>= 1) */
    /* Partial taskwaits (`taskwait depend`, docs/depend.md), from a third
     * stream: 0 keeps every W node a full taskwait, as before. */
    double p_wait_dep; /* probability that a W node gets depend items (any of the five types) */
} ompdag_gen_params;

/* Seed defaults: n=10, P_if=P_cre=P_wait=0.3, k in [10,40], WCET in [1,100], m=4;
 * no dependences (p_dep = 0, dep_vars = 4), no partial taskwaits (p_wait_dep = 0). */
void ompdag_gen_params_init(ompdag_gen_params *p);

/* Generates one finalized graph.  *out is owned by the caller
 * (ompdag_condag_destroy). */
ompdag_status ompdag_gen_random(const ompdag_gen_params *p, ompdag_condag **out, ompdag_error *err);

/* The generator's PRNG, exposed so tests and experiments draw from the same stream. */
typedef struct ompdag_rng {
    uint64_t s[4];
} ompdag_rng;

void ompdag_rng_seed(ompdag_rng *r, uint64_t seed);
uint64_t ompdag_rng_next(ompdag_rng *r);
/* Uniform in [lo, hi] (inclusive), unbiased. */
int64_t ompdag_rng_range(ompdag_rng *r, int64_t lo, int64_t hi);
/* Uniform in [0, 1). */
double ompdag_rng_unit(ompdag_rng *r);

#ifdef __cplusplus
}
#endif
#endif
