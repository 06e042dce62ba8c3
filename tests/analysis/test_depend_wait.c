/* tests/analysis/test_depend_wait.c — partial taskwaits, `taskwait depend(…)`
 * (docs/depend.md "taskwait depend", docs/analysis.md "Partial taskwaits"):
 * a W node with depend items waits only for the earlier sibling tasks whose
 * clauses conflict with its items.
 *
 *  - hand graphs whose bounds are worked out in the comments: out:x and
 *    out:y then taskwait depend(in:x); a partial W under a branch; inoutset
 *    and mutexinoutset items; waits across partial and full taskwaits;
 *  - the file format: the taskwait-depend extension, refusals by node;
 *  - the oracle: on random flows of random graphs with partial Ws, the
 *    library's flow evaluation (group rule, Rule 2 over full Ws) equals a
 *    literal reading of OpenMP written here (an edge from every earlier
 *    executed conflicting sibling's sink, to a later sibling or a partial W;
 *    a full W after every earlier child);
 *  - the bound: depend >= enumerate on every graph, equal where it claims
 *    exact, its witness re-evaluates to it, and a partial W never raises the
 *    bound of the same graph with every W full (strictly lower on some). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "depend_oracle.h"
#include "ompdag/dot.h"
#include "ompdag/locks.h"
#include "support.h"

#define HDR "{'format':'ompdag-condag','version':1,'extensions':['taskwait-depend'],'nodes':["

static int64_t bound_json(const char *json, int32_t m)
{
    ompdag_error err;
    ompdag_condag *g = load_graph(json, &err);
    cr_assert_not_null(g, "%s", err.message);
    int64_t b = bound_of(g, OMPDAG_ALG_DEPEND, m);
    cr_assert_eq(b, bound_of(g, OMPDAG_ALG_ENUMERATE, m), "depend and enumerate differ");
    cr_assert_eq(b, bound_of(g, OMPDAG_ALG_EXACT, m), "exact does not run depend");
    ompdag_condag_destroy(g);
    return b;
}

/* Root: T r1 creates a (clause ta, WCET 10), T r2 creates b (clause tb, WCET
 * 100), then W r3 (WCET 50) with items `items` ("" = a full taskwait). */
static const char *two_then_wait(const char *ta, const char *tb, const char *items)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             HDR "{'id':'r1','task':'r','kind':'T','wcet':0,'creates':'a','depend':[%s]},"
                 "{'id':'r2','task':'r','kind':'T','wcet':0,'creates':'b','depend':[%s]},"
                 "{'id':'r3','task':'r','kind':'W','wcet':50%s%s%s},"
                 "{'id':'a1','task':'a','kind':'N','wcet':10},"
                 "{'id':'b1','task':'b','kind':'N','wcet':100}],"
                 "'edges':[['r1','r2'],['r2','r3']]}",
             ta, tb, *items ? ",'depend':[" : "", items, *items ? "]" : "");
    return buf;
}

#define OUT_X "{'type':'out','var':'x'}"
#define OUT_Y "{'type':'out','var':'y'}"
#define IN_X "{'type':'in','var':'x'}"
#define IN_Y "{'type':'in','var':'y'}"

Test(depend_wait, the_continuation_waits_for_the_conflicting_sibling_only)
{
    /* out:x a (10), out:y b (100), taskwait depend(in:x) r3 (50): r3 waits
     * for a only.  vol 160; len = max(a→r3 60, b 100) = 100: m·R = 160 +
     * (m−1)·100.  As a full taskwait: b→r3 150: 160 + (m−1)·150. */
    cr_assert_eq(bound_json(two_then_wait(OUT_X, OUT_Y, IN_X), 2), 260);
    cr_assert_eq(bound_json(two_then_wait(OUT_X, OUT_Y, IN_X), 4), 460);
    cr_assert_eq(bound_json(two_then_wait(OUT_X, OUT_Y, ""), 2), 310);
    /* depend(in:y) waits for b: 100 + 50 */
    cr_assert_eq(bound_json(two_then_wait(OUT_X, OUT_Y, IN_Y), 2), 310);
    /* in:x after in:x does not conflict: r3 waits for nothing; len 100 */
    cr_assert_eq(bound_json(two_then_wait(IN_X, OUT_Y, IN_X), 2), 260);
    /* out:x waits for a reader too */
    cr_assert_eq(bound_json(two_then_wait(OUT_Y, IN_X, OUT_X), 2), 310);
}

Test(depend_wait, its_edges_are_derived_per_flow_not_as_w_edges)
{
    ompdag_error err;
    ompdag_condag *g = load_graph(two_then_wait(OUT_X, OUT_Y, IN_X), &err);
    cr_assert_not_null(g, "%s", err.message);
    int32_t a1 = node_index(g, "a1"), b1 = node_index(g, "b1"), r3 = node_index(g, "r3");
    int32_t cnt;
    ompdag_condag_node_wsucc(g, a1, &cnt);
    cr_assert_eq(cnt, 0, "Rule 2 must pass over a partial taskwait");
    ompdag_condag_node_wsucc(g, b1, &cnt);
    cr_assert_eq(cnt, 0);
    int32_t n = ompdag_condag_node_count(g), *off, *succ;
    uint8_t *all = malloc((size_t)n);
    memset(all, 1, (size_t)n);
    cr_assert_eq(ompdag_condag_flow_order_edges(g, all, &off, &succ, &err), OMPDAG_OK);
    cr_assert_eq(off[a1 + 1] - off[a1], 1);
    cr_assert_eq(succ[off[a1]], r3);
    cr_assert_eq(off[b1 + 1] - off[b1], 0);
    free(off), free(succ);
    /* the sibling D-edges alone (the older call) leave the wait out */
    cr_assert_eq(ompdag_condag_flow_depend_edges(g, all, &off, &succ, &err), OMPDAG_OK);
    cr_assert_eq(off[ompdag_condag_node_count(g)], 0);
    free(off), free(succ), free(all);
    /* the union for drawings has the one edge too, and the D-edges alone none */
    int32_t *from, *to;
    int64_t k;
    cr_assert_eq(ompdag_condag_order_edges(g, &from, &to, &k, &err), OMPDAG_OK);
    cr_assert_eq(k, 1);
    cr_assert(from[0] == a1 && to[0] == r3);
    free(from), free(to);
    cr_assert_eq(ompdag_condag_depend_edges(g, &from, &to, &k, &err), OMPDAG_OK);
    cr_assert_eq(k, 0);
    ompdag_condag_destroy(g);
}

/* Root: a (out:x, 10), b (out:y, 100), then a branch: W w1 (50) with items
 * `items` or N n1 (20); then a full taskwait f1 (5). */
static const char *branchy(const char *items)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             HDR "{'id':'r1','task':'r','kind':'T','wcet':0,'creates':'a','depend':[" OUT_X "]},"
                 "{'id':'r2','task':'r','kind':'T','wcet':0,'creates':'b','depend':[" OUT_Y "]},"
                 "{'id':'c1','task':'r','kind':'C','wcet':0},"
                 "{'id':'w1','task':'r','kind':'W','wcet':50%s%s%s},"
                 "{'id':'n1','task':'r','kind':'N','wcet':20},"
                 "{'id':'j1','task':'r','kind':'J','wcet':0},"
                 "{'id':'f1','task':'r','kind':'W','wcet':5},"
                 "{'id':'a1','task':'a','kind':'N','wcet':10},"
                 "{'id':'b1','task':'b','kind':'N','wcet':100}],"
                 "'edges':[['r1','r2'],['r2','c1'],['c1','w1'],['c1','n1'],['w1','j1'],"
                 "['n1','j1'],['j1','f1']]}",
             *items ? ",'depend':[" : "", items, *items ? "]" : "");
    return buf;
}

Test(depend_wait, a_partial_wait_under_a_branch)
{
    /* Branch w1 = taskwait depend(in:x): vol 165; paths b1→f1 105,
     * a1→w1→j1→f1 65: m·R = 165 + (m−1)·105.  Branch n1: vol 135, len 105.
     * m = 2: 270, m = 4: 480.  With w1 full: b1→w1→j1→f1 = 155: 320, 630.
     * The full taskwait f1 still waits for b (Rule 2 passes over w1). */
    cr_assert_eq(bound_json(branchy(IN_X), 2), 270);
    cr_assert_eq(bound_json(branchy(IN_X), 4), 480);
    cr_assert_eq(bound_json(branchy(""), 2), 320);
    cr_assert_eq(bound_json(branchy(""), 4), 630);
    /* depend(in:y) in the branch waits for b: as the full one */
    cr_assert_eq(bound_json(branchy(IN_Y), 2), 320);
    /* the witness takes the branch with the partial wait */
    ompdag_error err;
    ompdag_condag *g = load_graph(branchy(IN_X), &err);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 2);
    ompdag_rta_result *r;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_DEPEND, &opt, &r, &err), OMPDAG_OK);
    int32_t *choice = ompdag_rta_result_choices_copy(r, g);
    cr_assert_eq(choice[node_index(g, "c1")], node_index(g, "w1"));
    free(choice);
    ompdag_rta_result_destroy(r);
    ompdag_condag_destroy(g);
}

/* Root: a (clause ta, 10), b (clause tb, 30), then W r3 (50) with items. */
static int64_t sets(const char *ta, const char *tb, const char *items, int32_t m)
{
    char buf[2048];
    snprintf(buf, sizeof buf,
             HDR "{'id':'r1','task':'r','kind':'T','wcet':0,'creates':'a','depend':[{'type':'%s',"
                 "'var':'x'}]},"
                 "{'id':'r2','task':'r','kind':'T','wcet':0,'creates':'b','depend':[{'type':'%s',"
                 "'var':'x'}]},"
                 "{'id':'r3','task':'r','kind':'W','wcet':50,'depend':[{'type':'%s','var':'x'}]},"
                 "{'id':'a1','task':'a','kind':'N','wcet':10},"
                 "{'id':'b1','task':'b','kind':'N','wcet':30}],"
                 "'edges':[['r1','r2'],['r2','r3']]}",
             ta, tb, items);
    return bound_json(buf, m);
}

Test(depend_wait, inoutset_and_mutexinoutset_items)
{
    /* in a, inoutset b (a→b), taskwait depend(inoutset:x): a set does not
     * wait for a set, so r3 waits for a only.  vol 90; len = max(a→b 40,
     * a→r3 60) = 60: 150 at m = 2.  Waiting for b too would be 10+30+50. */
    cr_assert_eq(sets("in", "inoutset", "inoutset", 2), 150);
    /* depend(in:x) conflicts with the set b: 90 + 90 */
    cr_assert_eq(sets("in", "inoutset", "in", 2), 180);
    /* in, in, then depend(in:x): no wait at all: len 50 */
    cr_assert_eq(sets("in", "in", "in", 2), 140);
    /* in, in, then depend(inoutset:x): waits for both ins: 30 + 50 */
    cr_assert_eq(sets("in", "in", "inoutset", 2), 170);
    /* mutexinoutset a, b (one node each; each may wait for the other's section:
     * blocking 30 on a, 10 on b; docs/mutex.md), then
     * depend(mutexinoutset:x): the implied task's exclusion may make it wait
     * for a running sibling, so it waits for both (modelled as a write):
     * a' = 40, b' = 40; vol 130; len 40 + 50 = 90: 220 at m = 2. */
    cr_assert_eq(sets("mutexinoutset", "mutexinoutset", "mutexinoutset", 2), 220);
    /* the same siblings and depend(in:y): no conflict, len 50: 180 */
    char buf[2048];
    snprintf(buf, sizeof buf,
             HDR "{'id':'r1','task':'r','kind':'T','wcet':0,'creates':'a','depend':[{'type':"
                 "'mutexinoutset','var':'x'}]},"
                 "{'id':'r3','task':'r','kind':'W','wcet':50,'depend':[" IN_Y "]},"
                 "{'id':'a1','task':'a','kind':'N','wcet':30}],'edges':[['r1','r3']]}");
    cr_assert_eq(bound_json(buf, 2), 80 + 50);
}

Test(depend_wait, waits_across_partial_and_full_taskwaits)
{
    /* a (out:x, 100), W w1 depend(in:y) (1), W w2 (1): w2 full waits for a
     * past w1 (Rule 2 skips partial Ws): len 101, vol 102: 203 at m = 2. */
    const char *fmt =
        HDR "{'id':'r1','task':'r','kind':'T','wcet':0,'creates':'a','depend':[" OUT_X "]},"
            "{'id':'w1','task':'r','kind':'W','wcet':1%s},"
            "{'id':'w2','task':'r','kind':'W','wcet':1%s},"
            "{'id':'a1','task':'a','kind':'N','wcet':100}],"
            "'edges':[['r1','w1'],['w1','w2']]}";
    char buf[2048];
    snprintf(buf, sizeof buf, fmt, ",'depend':[" IN_Y "]", "");
    cr_assert_eq(bound_json(buf, 2), 203);
    /* w2 depend(in:x): a partial W waits for a past an unrelated partial W */
    snprintf(buf, sizeof buf, fmt, ",'depend':[" IN_Y "]", ",'depend':[" IN_X "]");
    cr_assert_eq(bound_json(buf, 2), 203);
    /* w2 depend(in:z): nobody to wait for: len 100 */
    snprintf(buf, sizeof buf, fmt, ",'depend':[" IN_Y "]", ",'depend':[{'type':'in','var':'z'}]");
    cr_assert_eq(bound_json(buf, 2), 202);
    /* after a full w1, a is complete: w2 depend(in:x) changes nothing: 100+1+1 */
    snprintf(buf, sizeof buf, fmt, "", ",'depend':[" IN_X "]");
    cr_assert_eq(bound_json(buf, 2), 204);
}

/* ---- the file format ------------------------------------------------------------------ */

static void refused(const char *json, const char *what)
{
    ompdag_error err;
    ompdag_condag *g = load_graph(json, &err);
    cr_assert_null(g, "accepted: %s", json);
    cr_assert(strstr(err.message, what), "message '%s' lacks '%s'", err.message, what);
}

Test(depend_wait, format_rules)
{
    /* without the extension: refused, naming the node */
    refused("{'format':'ompdag-condag','version':1,'nodes':[{'id':'w9','task':'r','kind':'W',"
            "'wcet':1,'depend':[" IN_X "]}],'edges':[]}",
            "node 'w9': 'depend' on a W node (a partial taskwait) needs the graph key "
            "\"extensions\": [\"taskwait-depend\"]");
    /* a partial wait on nothing */
    refused(HDR "{'id':'w9','task':'r','kind':'W','wcet':1,'depend':[]}],'edges':[]}",
            "node 'w9': a W node's 'depend' must name at least one item");
    /* other kinds still refuse the key */
    refused(HDR "{'id':'n9','task':'r','kind':'N','wcet':1,'depend':[" IN_X "]}],'edges':[]}",
            "node 'n9': 'depend' is only allowed on T nodes and on W nodes");
    refused(HDR "{'id':'w9','task':'r','kind':'W','wcet':1,'depend':[{'type':'depobj','var':"
                "'o'}]}],'edges':[]}",
            "node 'w9': depend[0]: dependence type 'depobj' is not modelled");
    /* alg0 refuses it by name */
    ompdag_error err;
    ompdag_condag *g = load_graph(two_then_wait(OUT_X, OUT_Y, IN_X), &err);
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 2);
    ompdag_rta_result *r = NULL;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_ALG0, &opt, &r, &err), OMPDAG_ERR_UNSUPPORTED);
    cr_assert(strstr(err.message, "alg0"), "%s", err.message);
    /* saved with the extension and the items, reloaded to the same bound */
    json_t *j = ompdag_condag_to_json(g);
    json_t *ext = json_object_get(j, "extensions");
    bool has = false;
    for (size_t i = 0; i < json_array_size(ext); ++i)
        has = has || !strcmp(json_string_value(json_array_get(ext, i)), "taskwait-depend");
    cr_assert(has, "the writer did not declare taskwait-depend");
    ompdag_condag *h = NULL;
    cr_assert_eq(condag_from_json(j, "copy", &h, &err), OMPDAG_OK, "%s", err.message);
    json_decref(j);
    int32_t r3 = node_index(h, "r3");
    cr_assert_eq(ompdag_condag_node_depend_count(h, r3), 1);
    cr_assert_eq(ompdag_condag_node_depend_type(h, r3, 0), OMPDAG_DEP_IN);
    cr_assert_eq(bound_of(h, OMPDAG_ALG_DEPEND, 2), 260);
    ompdag_condag_destroy(h);
    ompdag_condag_destroy(g);
}

Test(depend_wait, dot_labels_a_partial_wait)
{
    ompdag_error err;
    ompdag_condag *g = load_graph(two_then_wait(OUT_X, OUT_Y, IN_X), &err);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cr_assert_eq(ompdag_dot_write(out, g, NULL, &err), OMPDAG_OK, "%s", err.message);
    fclose(out);
    cr_assert(strstr(text, "taskwait depend(in: x)"), "%s", text);
    char edge[64];
    snprintf(edge, sizeof edge, "n%d -> n%d [style=bold", node_index(g, "a1"), node_index(g, "r3"));
    cr_assert(strstr(text, edge), "no drawn wait edge a1 -> r3 in %s", text);
    free(text);
    ompdag_condag_destroy(g);
}

/* A random graph with partial Ws (the generator's p_wait_dep: items of all
 * five types) and T clauses of all five types added here (mutexinoutset
 * only on one-node tasks).  full: the same graph with every W full. */
static ompdag_condag *random_waits(uint64_t seed, ompdag_rng *r, ompdag_condag **full)
{
    static const char *const types[] = {"in", "out", "inout", "inoutset", "mutexinoutset"};
    ompdag_gen_params p;
    ompdag_gen_params_init(&p);
    p.seed = seed;
    p.tasks = (int32_t)ompdag_rng_range(r, 3, 10);
    p.nodes_min = 1;
    p.nodes_max = (int32_t)ompdag_rng_range(r, 2, 7);
    p.p_if = 0.25 * ompdag_rng_unit(r);
    p.p_cre = 0.3 + 0.35 * ompdag_rng_unit(r);
    p.p_wait = 0.1 + 0.25 * ompdag_rng_unit(r);
    p.wcet_min = 0;
    p.wcet_max = (int64_t)ompdag_rng_range(r, 1, 50);
    p.dep_vars = (int32_t)ompdag_rng_range(r, 1, 3);
    p.p_wait_dep = 0.3 + 0.7 * ompdag_rng_unit(r);
    ompdag_condag *g0;
    ompdag_error err;
    cr_assert_eq(ompdag_gen_random(&p, &g0, &err), OMPDAG_OK, "%s", err.message);
    json_t *j = ompdag_condag_to_json(g0), *jf = NULL;
    size_t i;
    json_t *node;
    json_array_foreach(json_object_get(j, "nodes"), i, node)
    {
        int32_t v = node_index(g0, json_string_value(json_object_get(node, "id")));
        if (ompdag_condag_node_kind(g0, v) != OMPDAG_KIND_T || ompdag_rng_unit(r) < 0.15) continue;
        int32_t c = ompdag_condag_node_creates(g0, v);
        bool one_node = ompdag_condag_task_source(g0, c) == ompdag_condag_task_sink(g0, c);
        json_t *arr = json_array();
        for (int64_t k = ompdag_rng_range(r, 1, 2); k > 0; --k) {
            char var[8];
            snprintf(var, sizeof var, "x%d", (int)ompdag_rng_range(r, 0, p.dep_vars - 1));
            int t = (int)ompdag_rng_range(r, 0, one_node ? 4 : 3);
            json_array_append_new(arr, json_pack("{s:s,s:s}", "type", types[t], "var", var));
        }
        json_object_set_new(node, "depend", arr);
    }
    jf = json_deep_copy(j);
    json_array_foreach(json_object_get(jf, "nodes"), i, node)
    {
        if (!strcmp(json_string_value(json_object_get(node, "kind")), "W"))
            json_object_del(node, "depend");
    }
    ompdag_condag *g = NULL;
    cr_assert_eq(condag_from_json(j, "waits", &g, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(condag_from_json(jf, "full", full, &err), OMPDAG_OK, "%s", err.message);
    json_decref(j), json_decref(jf);
    ompdag_condag_destroy(g0);
    return g;
}

static bool has_partial_wait(const ompdag_condag *g)
{
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_W && ompdag_condag_node_depend_count(g, v))
            return true;
    return false;
}

Test(depend_wait, the_flow_evaluation_equals_the_literal_rule, .timeout = 240)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 5151);
    long flows = 0, graphs_with = 0;
    for (uint64_t seed = 1; seed <= 3000; ++seed) {
        ompdag_condag *full, *g = random_waits(seed, &r, &full);
        graphs_with += has_partial_wait(g);
        int32_t n = ompdag_condag_node_count(g);
        int32_t *choice = malloc(sizeof *choice * (size_t)n);
        for (int f = 0; f < 8; ++f) {
            random_choice(g, &r, choice);
            for (int32_t m = 1; m <= 4; m += 3) {
                ompdag_rta_options opt;
                ompdag_rta_options_init(&opt, m);
                ompdag_flow_eval e;
                ompdag_error err;
                cr_assert_eq(ompdag_flow_evaluate(g, choice, &opt, &e, NULL, NULL, &err), OMPDAG_OK,
                             "%s", err.message);
                int64_t lit = literal_flow(g, choice, m);
                cr_assert_eq(e.bound_times_m, lit, "seed %llu m %d: library %lld, literal %lld",
                             (unsigned long long)seed, m, (long long)e.bound_times_m,
                             (long long)lit);
                flows++;
            }
        }
        free(choice);
        ompdag_condag_destroy(g);
        ompdag_condag_destroy(full);
    }
    cr_log_info("partial waits: %ld flows of 3000 graphs (%ld with a partial W), library = "
                "literal rule",
                flows, graphs_with);
    fprintf(stderr, "partial waits: %ld flows, %ld graphs with a partial W, library = literal\n",
            flows, graphs_with);
    cr_assert_gt(graphs_with, 1400);
}

/* depend vs enumerate on one graph at m; returns depend's m·R (-1: too many flows). */
static int64_t check_bound(const ompdag_condag *g, int32_t m, uint64_t seed, long *exact)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, m);
    opt.max_flows = 20000;
    ompdag_rta_result *d = NULL, *en = NULL;
    ompdag_error err;
    if (ompdag_rta_run(g, OMPDAG_ALG_ENUMERATE, &opt, &en, &err) == OMPDAG_ERR_LIMIT) return -1;
    cr_assert_eq(ompdag_rta_run(g, OMPDAG_ALG_DEPEND, &opt, &d, &err), OMPDAG_OK, "%s",
                 err.message);
    int64_t bd = ompdag_rta_result_bound_times_m(d), be = ompdag_rta_result_bound_times_m(en);
    cr_assert_geq(bd, be, "seed %llu m %d: depend %lld < enumerate %lld: UNSOUND",
                  (unsigned long long)seed, m, (long long)bd, (long long)be);
    int32_t *choice = ompdag_rta_result_choices_copy(d, g);
    ompdag_flow_eval e;
    cr_assert_eq(ompdag_flow_evaluate(g, choice, &opt, &e, NULL, NULL, &err), OMPDAG_OK);
    if (ompdag_rta_result_is_exact(d)) {
        cr_assert_eq(bd, be, "seed %llu m %d: exact claimed, %lld != %lld",
                     (unsigned long long)seed, m, (long long)bd, (long long)be);
        cr_assert_eq(e.bound_times_m, bd, "seed %llu m %d: the witness is not the bound",
                     (unsigned long long)seed, m);
        cr_assert_eq(literal_flow(g, choice, m), bd);
        ++*exact;
    }
    free(choice);
    ompdag_rta_result_destroy(d);
    ompdag_rta_result_destroy(en);
    return bd;
}

Test(depend_wait, depend_is_sound_and_exact_with_partial_waits, .timeout = 300)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 8080);
    long pairs = 0, exact = 0, lower = 0, full_exact = 0;
    for (uint64_t seed = 1; seed <= 3000; ++seed) {
        ompdag_condag *full, *g = random_waits(seed, &r, &full);
        for (int32_t m = 1; m <= 4; ++m) {
            int64_t bd = check_bound(g, m, seed, &exact);
            if (bd < 0) break;
            int64_t bf = check_bound(full, m, seed, &full_exact);
            cr_assert_leq(bd, bf, "seed %llu m %d: a partial wait raised the bound",
                          (unsigned long long)seed, m);
            lower += bd < bf;
            pairs++;
        }
        ompdag_condag_destroy(g);
        ompdag_condag_destroy(full);
    }
    cr_log_info("partial waits: %ld (graph, m) pairs, %ld exact claims, %ld lower than with "
                "every W full",
                pairs, exact, lower);
    fprintf(stderr, "partial waits: %ld pairs, %ld exact claims, %ld below the all-full bound\n",
            pairs, exact, lower);
    cr_assert_gt(pairs, 8000);
    cr_assert_gt(exact, 8000);
    cr_assert_gt(lower, 400, "partial waits never mattered: the test is vacuous");
}

Test(depend_wait, many_concurrent_siblings_give_quadratic_edges)
{
    /* 6 tasks in:x (10 each), 6 tasks inoutset:x (20 each), then
     * taskwait depend(in:x) (5): every set task follows every in task (36
     * edges, more than the 2·13 + 1 the edge buffer starts with), the wait
     * follows the sets.  vol 185, len 10 + 20 + 5: 220 at m = 2. */
    char buf[8192];
    int k = snprintf(buf, sizeof buf, "%s", HDR);
    for (int i = 0; i < 12; ++i)
        k +=
            snprintf(buf + k, sizeof buf - (size_t)k,
                     "{'id':'r%d','task':'r','kind':'T','wcet':0,'creates':'t%d','depend':[{'type':"
                     "'%s','var':'x'}]},{'id':'t%d1','task':'t%d','kind':'N','wcet':%d},",
                     i, i, i < 6 ? "in" : "inoutset", i, i, i < 6 ? 10 : 20);
    k += snprintf(buf + k, sizeof buf - (size_t)k,
                  "{'id':'w','task':'r','kind':'W','wcet':5,'depend':[" IN_X "]}],'edges':[");
    for (int i = 0; i < 12; ++i)
        k += snprintf(buf + k, sizeof buf - (size_t)k, i < 11 ? "['r%d','r%d']," : "['r%d','w']", i,
                      i + 1);
    snprintf(buf + k, sizeof buf - (size_t)k, "]}");
    cr_assert_eq(bound_json(buf, 2), 220);
}

/* ---- cost: the union of D-edges is not quadratic ---------------------------- */

/* A chain of n tasks, task k with in: c<k-1> and out: c<k>, then a taskwait.
 * Task k's clause on c<k> names a var no earlier task names: the union walk
 * used to go back to the root from it, n²/2 node visits (the tied bound of
 * an unrolled loop of 10^5 iterations took 100 s in `report`). */
static ompdag_condag *cell_chain(int32_t n)
{
    ompdag_condag *g = ompdag_condag_create();
    ompdag_error err;
    char id[32], task[32], var[32];
    int32_t prev = -1, v = -1;
    cr_assert_eq(
        ompdag_condag_add_node(
            g, &(ompdag_node_spec){.id = "s", .task = "main", .kind = OMPDAG_KIND_N, .wcet = 1},
            &prev, &err),
        OMPDAG_OK, "%s", err.message);
    for (int32_t k = 0; k < n; ++k) {
        snprintf(id, sizeof id, "t%d", k), snprintf(task, sizeof task, "k%d", k);
        cr_assert_eq(
            ompdag_condag_add_node(
                g,
                &(ompdag_node_spec){
                    .id = id, .task = "main", .kind = OMPDAG_KIND_T, .wcet = 1, .creates = task},
                &v, &err),
            OMPDAG_OK, "%s", err.message);
        cr_assert_eq(ompdag_condag_add_edge(g, prev, v, &err), OMPDAG_OK, "%s", err.message);
        snprintf(var, sizeof var, "c%d", k - 1);
        if (k) cr_assert_eq(ompdag_condag_add_depend(g, v, OMPDAG_DEP_IN, var, &err), OMPDAG_OK);
        snprintf(var, sizeof var, "c%d", k);
        cr_assert_eq(ompdag_condag_add_depend(g, v, OMPDAG_DEP_OUT, var, &err), OMPDAG_OK);
        prev = v;
        snprintf(id, sizeof id, "b%d", k);
        cr_assert_eq(
            ompdag_condag_add_node(
                g, &(ompdag_node_spec){.id = id, .task = task, .kind = OMPDAG_KIND_N, .wcet = 10},
                NULL, &err),
            OMPDAG_OK, "%s", err.message);
    }
    cr_assert_eq(
        ompdag_condag_add_node(
            g, &(ompdag_node_spec){.id = "w", .task = "main", .kind = OMPDAG_KIND_W, .wcet = 1}, &v,
            &err),
        OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_condag_add_edge(g, prev, v, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_condag_finalize(g, &err), OMPDAG_OK, "%s", err.message);
    return g;
}

Test(depend_wait, the_union_of_d_edges_is_not_quadratic, .timeout = 120)
{
    const int32_t n = 100000;
    ompdag_condag *g = cell_chain(n);
    int32_t *from = NULL, *to = NULL;
    int64_t count = 0;
    ompdag_error err;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    cr_assert_eq(ompdag_condag_order_edges(g, &from, &to, &count, &err), OMPDAG_OK, "%s",
                 err.message);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    cr_expect_eq(count, n - 1, "one D-edge per link of the chain, got %lld", (long long)count);
    for (int64_t i = 0; i < count; ++i) /* b<k-1> -> b<k>: each task's one node */
        cr_expect_eq(to[i], from[i] + 2, "edge %lld: %d -> %d", (long long)i, from[i], to[i]);
    cr_expect_lt(s, 5.0, "union of D-edges over %d tasks took %.2f s", n, s);
    cr_log_info("union of D-edges, %d tasks: %.3f s", n, s);
    free(from), free(to);
    ompdag_condag_destroy(g);
}
