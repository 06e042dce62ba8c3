/* cli/cmd_simulate.c — `ompdag simulate`: work-conserving schedules (WFS or
 * BFS) of a con-DAG's flows on M threads, each response time checked against
 * the exact bound (include/ompdag/report.h, simulator section). */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
#include "ompdag/compact.h"
#include "ompdag/gen.h"
#include "ompdag/report.h"
#include "ompdag/rta.h"

enum { MAX_ALL_FLOWS = 100000, TEXT_MAX_FLOWS = 20 };

typedef struct sim_args {
    const char *file;
    cli_int_list threads;
    int sched_mask;       /* bit 0 wfs, bit 1 bfs */
    int64_t random_flows; /* 0: all */
    bool random_exec, json;
    int64_t seed, graph;
} sim_args;

static int set_scheduler(const char *arg, void *dest)
{
    int *mask = dest;
    *mask = !strcmp(arg, "wfs") ? 1 : !strcmp(arg, "bfs") ? 2 : !strcmp(arg, "both") ? 3 : 0;
    return *mask ? 0
                 : cli_usage_error("simulate", "--scheduler is wfs, bfs or both; got '%s'", arg);
}

/* --flows all or random:N: *dest = N, 0 for all. */
static int set_flows(const char *arg, void *dest)
{
    if (!strcmp(arg, "all"))
        *(int64_t *)dest = 0;
    else if (strncmp(arg, "random:", 7) || !cli_parse_i64(arg + 7, 1, 100000000, dest))
        return cli_usage_error("simulate", "--flows is all or random:N; got '%s'", arg);
    return 0;
}

static int set_exec(const char *arg, void *dest)
{
    *(bool *)dest = !strcmp(arg, "random");
    if (!*(bool *)dest && strcmp(arg, "wcet"))
        return cli_usage_error("simulate", "--exec is wcet or random; got '%s'", arg);
    return 0;
}

static int set_format(const char *arg, void *dest)
{
    *(bool *)dest = !strcmp(arg, "json");
    if (!*(bool *)dest && strcmp(arg, "text"))
        return cli_usage_error("simulate", "--format is text or json; got '%s'", arg);
    return 0;
}

enum { SIM_NOPTS = 7 };

/* simulate's options, in --help's order (--format is not listed), writing
 * into *o. */
static cli_opts sim_table(sim_args *o, cli_opt t[SIM_NOPTS])
{
    const cli_opt rows[SIM_NOPTS] = {
        {"threads", 0, CLI_ARG_REQUIRED, "--threads M[,M...]",
         "thread counts (default: the file's \"threads\")", CLI_OPT_INT_LIST, &o->threads,
         .typed = {1, 1 << 16, "--threads wants integers in [1, 65536], got '%s'"}},
        {"scheduler", 0, CLI_ARG_REQUIRED, "--scheduler S", "wfs, bfs or both (default both)",
         CLI_OPT_CALL, &o->sched_mask, NULL, set_scheduler},
        {"flows", 0, CLI_ARG_REQUIRED, "--flows F",
         "all (every branch combination, default; at most 100000)\n"
         "or random:N (N random flows); the worst flow is always run",
         CLI_OPT_CALL, &o->random_flows, NULL, set_flows},
        {"exec", 0, CLI_ARG_REQUIRED, "--exec E",
         "wcet: every node runs its WCET (default); random: uniform\n"
         "in [0, WCET] per node and flow",
         CLI_OPT_CALL, &o->random_exec, NULL, set_exec},
        {"seed", 0, CLI_ARG_REQUIRED, "--seed S",
         "seed for random flows, times and steal victims (default 1)", CLI_OPT_INT64, &o->seed,
         .typed = {0, INT64_MAX, "--seed wants an integer >= 0"}},
        {"graph", 0, CLI_ARG_REQUIRED, "--graph I", "only graph I of a set (default: every graph)",
         CLI_OPT_INT64, &o->graph, .typed = {0, INT32_MAX, "--graph wants an index >= 0"}},
        {"format", 0, CLI_ARG_REQUIRED, NULL, NULL, CLI_OPT_CALL, &o->json, NULL, set_format},
    };
    memcpy(t, rows, sizeof rows);
    return (cli_opts){"simulate", t, SIM_NOPTS, .quiet_getopt = true, .help_col = 22};
}

void cmd_simulate_help(FILE *out)
{
    sim_args o;
    cli_opt t[SIM_NOPTS];
    cli_opts table = sim_table(&o, t);
    fprintf(out, "usage: ompdag simulate GRAPH --threads M[,M...] [--scheduler wfs|bfs|both]\n"
                 "                       [--flows all|random:N] [--exec wcet|random] [--seed S]\n"
                 "                       [--graph I] [--format text|json]\n\n"
                 "Simulates work-conserving list scheduling of untied tasks: WFS (work-first: the\n"
                 "creator runs the child, its continuation can be stolen) or BFS (breadth-first:\n"
                 "the creator continues, children are queued).  Gives the response time of every\n"
                 "flow and checks it against the exact bound (m*R <= vol + (m-1)*len).\n\n");
    cli_opts_help(&table, out);
    fprintf(out, "exit status: 0 every response within its bound, 1 a response above the bound or\n"
                 "bad input, 2 usage error\n");
}

static int parse_sim_args(int argc, char **argv, sim_args *o)
{
    o->sched_mask = 3, o->seed = 1, o->graph = -1;
    cli_opt t[SIM_NOPTS];
    cli_opts table = sim_table(o, t);
    int first, rc = cli_opts_parse(&table, argc, argv, &first);
    if (!rc && first != argc - 1)
        rc = cli_usage_error("simulate", "expected exactly one GRAPH file");
    if (!rc) o->file = argv[first];
    return rc;
}

/* One (graph, m, scheduler) sweep over the flows. */
typedef struct sweep {
    const sim_args *o;
    const ompdag_condag *g;
    ompdag_sim *sim;
    ompdag_flow_evaluator *eval; /* each flow's own bound, at a cost that follows the flow */
    int32_t m;
    ompdag_scheduler sched;
    int64_t bound_times_m;
    int32_t *choice;
    int64_t *exec;
    ompdag_rng rng;
    /* results */
    uint64_t flows, events, above;
    int64_t max_response, worst_flow_response;
    int64_t sim_ns;
    uint64_t recorded; /* per-flow entries (at most MAX_ALL_FLOWS) */
    json_t *per_flow;  /* text: the first TEXT_MAX_FLOWS + 1 entries */
    FILE *flow_tmp;    /* json: the entries, streamed (issue 26 item 10) */
} sweep;

/* jansson's JSON_INDENT(2) text of j, every line after the first indented by
 * `indent` more spaces, so that an element dumped alone reads as it would
 * inside the whole document. */
static bool put_indented(FILE *out, const json_t *j, int indent)
{
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    if (!text) return false;
    for (const char *c = text; *c; ++c) {
        fputc(*c, out);
        if (*c == '\n') fprintf(out, "%*s", indent, "");
    }
    free(text);
    return true;
}

/* The choices of the flow's C nodes, from the simulator's list of the nodes
 * it ran (ascending, as a scan of the graph would find them). */
static json_t *choices_json(const ompdag_condag *g, const int32_t *choice, const ompdag_sim *sim)
{
    json_t *o = json_object();
    int32_t cnt;
    const int32_t *nodes = ompdag_sim_flow_nodes(sim, &cnt);
    for (int32_t i = 0; i < cnt; ++i)
        if (ompdag_condag_node_kind(g, nodes[i]) == OMPDAG_KIND_C)
            json_object_set_new(o, ompdag_condag_node_id(g, nodes[i]),
                                json_string(ompdag_condag_node_id(g, choice[nodes[i]])));
    return o;
}

static ompdag_status sim_flow(sweep *w, bool is_worst, ompdag_error *err)
{
    const ompdag_condag *g = w->g;
    int32_t n = ompdag_condag_node_count(g);
    if (w->o->random_exec)
        for (int32_t v = 0; v < n; ++v)
            w->exec[v] = ompdag_rng_range(&w->rng, 0, ompdag_condag_node_wcet(g, v));
    ompdag_flow_eval fe;
    ompdag_status st = ompdag_flow_evaluator_run(w->eval, w->choice, &fe, err);
    ompdag_sim_result r;
    int64_t t0 = cli_now_ns();
    if (!st)
        st = ompdag_sim_run(w->sim, w->choice, w->o->random_exec ? w->exec : NULL, w->m, w->sched,
                            (uint64_t)w->o->seed + w->flows, &r, err);
    w->sim_ns += cli_now_ns() - t0;
    if (st) return st;
    ++w->flows;
    w->events += (uint64_t)r.events;
    /* Graham per flow, and the bound over all flows. */
    __int128 mr = (__int128)r.makespan * w->m;
    if (mr > fe.bound_times_m || mr > w->bound_times_m) ++w->above;
    if (r.makespan > w->max_response) w->max_response = r.makespan;
    if (is_worst) w->worst_flow_response = r.makespan;
    bool keep = w->o->json ? w->recorded < MAX_ALL_FLOWS : w->recorded <= TEXT_MAX_FLOWS;
    if (keep) {
        json_t *f =
            json_pack("{s:b,s:o,s:I,s:I,s:I,s:I}", "worst", is_worst, "choices",
                      choices_json(g, w->choice, w->sim), "response", (json_int_t)r.makespan,
                      "flow_bound_times_m", (json_int_t)fe.bound_times_m, "vol", (json_int_t)fe.vol,
                      "len", (json_int_t)fe.len);
        bool ok = f != NULL;
        if (ok && w->o->json) {
            fputs(w->recorded ? ",\n      " : "\n      ", w->flow_tmp);
            ok = put_indented(w->flow_tmp, f, 6);
        } else if (ok) {
            json_array_append(w->per_flow, f);
        }
        json_decref(f);
        if (!ok) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    if (w->recorded < MAX_ALL_FLOWS) ++w->recorded;
    return OMPDAG_OK;
}

static ompdag_status run_sweep(sweep *w, const ompdag_rta_result *res, ompdag_error *err)
{
    int32_t n = ompdag_condag_node_count(w->g);
    int32_t *worst = ompdag_rta_result_choices_copy(res, w->g);
    if (!worst) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    memcpy(w->choice, worst, (size_t)n * sizeof *worst);
    free(worst);
    ompdag_status st = sim_flow(w, true, err);
    if (w->o->random_flows) {
        for (int64_t k = 0; k < w->o->random_flows && !st; ++k) {
            ompdag_sim_random_choice(w->g, &w->rng, w->choice);
            st = sim_flow(w, false, err);
        }
        return st;
    }
    for (int32_t v = 0; v < n; ++v) {
        int32_t cnt;
        const int32_t *succ = ompdag_condag_node_fsucc(w->g, v, &cnt);
        w->choice[v] = ompdag_condag_node_kind(w->g, v) == OMPDAG_KIND_C ? succ[0] : -1;
    }
    uint64_t done = 0;
    do {
        if (++done > MAX_ALL_FLOWS) /* counted first, so only if the count is wrong */
            return ompdag_error_set(err, OMPDAG_ERR_LIMIT,
                                    "more than %d flows; use --flows random:N", MAX_ALL_FLOWS);
        st = sim_flow(w, false, err);
    } while (!st && ompdag_sim_next(w->sim, w->choice));
    return st;
}

static void print_sweep_text(const sweep *w)
{
    double bound = (double)w->bound_times_m / w->m;
    printf("  m=%-3d %s: %" PRIu64 " flow runs, max response %" PRId64 " %s, bound %.6g "
           "(max/bound %.4f), worst flow %" PRId64 "; %s\n",
           w->m, ompdag_scheduler_name(w->sched), w->flows, w->max_response,
           ompdag_condag_time_unit(w->g), bound, bound > 0 ? (double)w->max_response / bound : 0.0,
           w->worst_flow_response, w->above ? "ABOVE THE BOUND" : "all within the bound");
    size_t i;
    json_t *f;
    if (w->recorded <= TEXT_MAX_FLOWS) json_array_foreach(w->per_flow, i, f)
        {
            char *c = json_dumps(json_object_get(f, "choices"), JSON_COMPACT | JSON_SORT_KEYS);
            printf("    flow %zu%s %s: response %" JSON_INTEGER_FORMAT "\n", i,
                   json_is_true(json_object_get(f, "worst")) ? " (worst)" : "", c ? c : "",
                   json_integer_value(json_object_get(f, "response")));
            free(c);
        }
}

/* Writes one sweep's object to stdout: the summary as jansson writes it, then
 * "per_flow" copied from the entries streamed to w->flow_tmp, so that the
 * document is that of one json_dumpf of everything, without holding it. */
static bool write_sweep_json(const sweep *w, size_t gi, bool first)
{
    double bound = (double)w->bound_times_m / w->m;
    json_t *o = json_pack(
        "{s:I,s:s?,s:i,s:s,s:s,s:I,s:f,s:I,s:I,s:f,s:I,s:I,s:f}", "graph", (json_int_t)gi,
        "function", ompdag_condag_function(w->g), "m", (json_int_t)w->m, "scheduler",
        ompdag_scheduler_name(w->sched), "exec", w->o->random_exec ? "random" : "wcet",
        "bound_times_m", (json_int_t)w->bound_times_m, "bound", bound, "flows",
        (json_int_t)w->flows, "max_response", (json_int_t)w->max_response, "max_over_bound",
        bound > 0 ? (double)w->max_response / bound : 0.0, "worst_flow_response",
        (json_int_t)w->worst_flow_response, "above_bound", (json_int_t)w->above,
        "events_per_second", w->sim_ns > 0 ? (double)w->events * 1e9 / (double)w->sim_ns : 0.0);
    char *text = o ? json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(o);
    if (!text) return false;
    size_t len = strlen(text);
    if (len >= 2) text[len - 2] = 0; /* drop the closing "\n}" */
    fputs(first ? "[\n  " : ",\n  ", stdout);
    for (const char *c = text; *c; ++c) {
        fputc(*c, stdout);
        if (*c == '\n') fputs("  ", stdout);
    }
    free(text);
    fputs(",\n    \"per_flow\": [", stdout);
    rewind(w->flow_tmp);
    char buf[1 << 16];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, w->flow_tmp)) > 0)
        fwrite(buf, 1, got, stdout);
    fputs(w->recorded ? "\n    ]\n  }" : "]\n  }", stdout);
    return !ferror(w->flow_tmp);
}

static int simulate_graph(const sim_args *o, const ompdag_condag *g, size_t gi, size_t *written,
                          bool *above)
{
    const int32_t *ms;
    int nm;
    int32_t own;
    if (!cli_threads_for(g, o->threads.v, o->threads.n, &ms, &nm, &own)) {
        fprintf(stderr, "ompdag simulate: %s: graph %zu has no \"threads\"; pass --threads M\n",
                o->file, gi);
        return CLI_EXIT_FAIL;
    }
    int32_t n = ompdag_condag_node_count(g);
    sweep w = {.o = o, .g = g};
    ompdag_error err = {0};
    w.choice = calloc((size_t)n + 1, sizeof *w.choice);
    w.exec = calloc((size_t)n + 1, sizeof *w.exec);
    ompdag_status st = w.choice && w.exec
                           ? ompdag_sim_create(g, &w.sim, &err)
                           : ompdag_error_set(&err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!st && !o->json)
        printf("%s (graph %zu): %d nodes, %d tasks\n",
               ompdag_condag_function(g) ? ompdag_condag_function(g)
               : ompdag_condag_name(g)   ? ompdag_condag_name(g)
                                         : "graph",
               gi, n, ompdag_condag_task_count(g));
    /* count the flows before simulating any (linear), not after 100000 runs */
    double approx;
    uint64_t nflows = ompdag_condag_flow_count(g, &approx);
    if (!st && !o->random_flows && nflows > MAX_ALL_FLOWS)
        st = nflows == UINT64_MAX
                 ? ompdag_error_set(&err, OMPDAG_ERR_LIMIT,
                                    "graph %zu has about %.3g flows, more than %d; use --flows "
                                    "random:N",
                                    gi, approx, MAX_ALL_FLOWS)
                 : ompdag_error_set(&err, OMPDAG_ERR_LIMIT,
                                    "graph %zu has %llu flows, more than %d; use --flows random:N",
                                    gi, (unsigned long long)nflows, MAX_ALL_FLOWS);
    for (int k = 0; k < nm && !st; ++k) {
        ompdag_rta_options opt;
        ompdag_rta_options_init(&opt, ms[k]);
        ompdag_rta_result *res = NULL;
        if ((st = ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &res, &err))) break;
        ompdag_flow_evaluator_destroy(w.eval);
        w.eval = NULL;
        if ((st = ompdag_flow_evaluator_create(g, &opt, &w.eval, &err))) {
            ompdag_rta_result_destroy(res);
            break;
        }
        for (int sc = 0; sc < 2 && !st; ++sc) {
            if (!(o->sched_mask & (1 << sc))) continue;
            w.m = ms[k], w.sched = sc ? OMPDAG_SCHED_BFS : OMPDAG_SCHED_WFS;
            w.bound_times_m = ompdag_rta_result_bound_times_m(res);
            w.flows = w.events = w.above = 0;
            w.max_response = w.worst_flow_response = 0;
            w.sim_ns = 0;
            ompdag_rng_seed(&w.rng, (uint64_t)o->seed);
            w.recorded = 0;
            w.per_flow = o->json ? NULL : json_array();
            w.flow_tmp = o->json ? tmpfile() : NULL;
            st = (o->json ? w.flow_tmp != NULL : w.per_flow != NULL)
                     ? run_sweep(&w, res, &err)
                     : ompdag_error_set(&err, OMPDAG_ERR_IO,
                                        "cannot create a temporary file for the flows");
            if (!st) {
                *above = *above || w.above;
                if (!o->json)
                    print_sweep_text(&w);
                else if (!write_sweep_json(&w, gi, *written == 0))
                    st = ompdag_error_set(&err, OMPDAG_ERR_IO, "cannot write the flows");
                else
                    ++*written;
            }
            json_decref(w.per_flow);
            if (w.flow_tmp) fclose(w.flow_tmp);
        }
        ompdag_rta_result_destroy(res);
    }
    ompdag_sim_destroy(w.sim);
    ompdag_flow_evaluator_destroy(w.eval);
    free(w.choice), free(w.exec);
    return st ? cli_fail("simulate", &err) : CLI_EXIT_OK;
}

/* A schedule runs instances: a compact graph (docs/compact.md) is simulated on
 * its unfolding, up to UNFOLD_LIMIT nodes, and says so. */
enum { UNFOLD_LIMIT = 1000000 };

static int simulate_unfolded(const sim_args *o, const ompdag_condag *g, size_t gi, size_t *written,
                             bool *above)
{
    if (!ompdag_compact_is_compact(g)) return simulate_graph(o, g, gi, written, above);
    ompdag_condag *x = NULL;
    ompdag_error err;
    if (ompdag_compact_expand(g, UNFOLD_LIMIT, &x, &err)) return cli_fail("simulate", &err);
    fprintf(stderr,
            "ompdag simulate: %s: graph %zu is compact; simulating its unfolding (%d nodes)\n",
            o->file, gi, ompdag_condag_node_count(x));
    int rc = simulate_graph(o, x, gi, written, above);
    ompdag_condag_destroy(x);
    return rc;
}

int cmd_simulate(int argc, char **argv)
{
    sim_args o = {0};
    int rc = parse_sim_args(argc, argv, &o);
    ompdag_condag_set *s = rc ? NULL : cli_load_graphs("simulate", o.file);
    if (!rc && !s) rc = CLI_EXIT_FAIL;
    if (!rc && o.graph >= (int64_t)ompdag_condag_set_count(s))
        rc = cli_usage_error("simulate", "%s has %zu graph(s); no --graph %" PRId64, o.file,
                             ompdag_condag_set_count(s), o.graph);
    size_t written = 0; /* sweep objects streamed to stdout */
    bool above = false;
    for (size_t i = 0; !rc && s && i < ompdag_condag_set_count(s); ++i)
        if (o.graph < 0 || (size_t)o.graph == i)
            rc = simulate_unfolded(&o, ompdag_condag_set_graph(s, i), i, &written, &above);
    if (o.json && (!rc || written)) /* close what was streamed, so it stays a document */
        fputs(written ? "\n]\n" : "[]\n", stdout);
    if (!rc && above) {
        fprintf(stderr, "ompdag simulate: a simulated response time exceeds its bound\n");
        rc = CLI_EXIT_FAIL;
    }
    ompdag_condag_set_destroy(s);
    free(o.threads.v);
    return rc;
}
