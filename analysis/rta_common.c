/* analysis/rta_common.c — the analysis' entry (include/ompdag/rta.h): the
 * options and the dispatch to the algorithms (rta_exact.c, rta_depend.c,
 * rta_alg0.c, rta_enumerate.c).  What every algorithm shares — the input
 * checks, the result object, the algorithms' names — is rta_shared.c, so
 * that no algorithm calls back into this file. */
#include <jansson.h>
#include <string.h>

#include "condag_loops.h"
#include "ompdag/compact.h"
#include "rta_internal.h"
#include "rta_loop_depend.h"

void ompdag_rta_options_init(ompdag_rta_options *opt, int32_t m)
{
    *opt = (ompdag_rta_options){.m = m,
                                .max_flows = OMPDAG_DEFAULT_MAX_FLOWS,
                                .migration_overhead = 0,
                                .migration_model = OMPDAG_MIGRATION_WFS,
                                .bound_only = false,
                                .fold_delays = false};
}

ompdag_status ompdag_rta_run(const ompdag_condag *g, ompdag_algorithm alg,
                             const ompdag_rta_options *opt, ompdag_rta_result **out,
                             ompdag_error *err)
{
    ompdag_status st = rta_check_inputs(g, opt, err);
    if (st) return st;
    if (g->loops && ompdag_condag_has_depend(g) &&
        (alg == OMPDAG_ALG_EXACT || alg == OMPDAG_ALG_DEPEND)) /* clauses in compact loops */
        return rta_loop_depend(g, opt, out, err);
    if (g->compact && alg != OMPDAG_ALG_EXACT)
        return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                                "%s needs the unfolded graph; this graph is compact (unfold it "
                                "with `ompdag expand`)",
                                ompdag_algorithm_name(alg));
    switch (alg) {
    case OMPDAG_ALG_EXACT:
        /* Alg1 ignores D-edges: graphs with depend clauses take §6's algorithm. */
        return ompdag_condag_has_depend(g) ? rta_depend(g, opt, out, err)
                                           : rta_exact(g, opt, out, err);
    case OMPDAG_ALG_DEPEND:
        return rta_depend(g, opt, out, err);
    case OMPDAG_ALG_ALG0:
        if ((st = ompdag_condag_refuse_depend(g, "alg0 (the RTAS'19 baseline)", err))) return st;
        return rta_alg0(g, opt, out, err);
    case OMPDAG_ALG_ENUMERATE:
        return rta_enumerate(g, opt, out, err);
    }
    return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "unknown algorithm %d", (int)alg);
}
