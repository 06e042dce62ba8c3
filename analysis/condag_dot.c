/*
 * analysis/condag_dot.c — Graphviz output (include/ompdag/dot.h), following
 * the drawing conventions of seed 004 Figure 4 (D-edges of condag.md §6: bold
 * blue, hollow head).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "condag_loops.h"
#include "ompdag/compact.h"
#include "ompdag/dot.h"
#include "rta_internal.h"

static void put_escaped(FILE *out, const char *s)
{
    for (; s && *s; ++s) {
        if (*s == '"' || *s == '\\') fputc('\\', out);
        if (*s == '\n')
            fputs("\\n", out);
        else
            fputc(*s, out);
    }
}

static const char *shape_of(uint8_t kind)
{
    switch (kind) {
    case OMPDAG_KIND_C:
        return "diamond";
    case OMPDAG_KIND_J:
        return "triangle";
    case OMPDAG_KIND_T:
        return "box";
    case OMPDAG_KIND_W:
        return "box, style=\"rounded\"";
    }
    return "ellipse";
}

/* A partial taskwait (docs/depend.md) waits only for the conflicting
 * children: say which items, "taskwait depend(in: x, out: y)". */
static void write_wait_items(FILE *out, const ompdag_condag *g, int32_t v)
{
    fputs("\\ntaskwait depend(", out);
    for (int32_t i = 0; i < ompdag_condag_node_depend_count(g, v); ++i) {
        fprintf(out, "%s%s: ", i ? ", " : "",
                ompdag_dep_type_name(ompdag_condag_node_depend_type(g, v, i)));
        put_escaped(out, ompdag_condag_depend_var_name(g, ompdag_condag_node_depend_var(g, v, i)));
    }
    fputs(")", out);
}

typedef struct highlight {
    uint8_t *executed; /* NULL: no flow shown */
    int32_t *path_pos; /* position on the critical path, or -1 */
} highlight;

static void write_node(FILE *out, const ompdag_condag *g, int32_t v, const highlight *h)
{
    fprintf(out, "    n%d [shape=%s, label=\"", v, shape_of(g->kind[v]));
    put_escaped(out, node_name(g, v));
    fprintf(out, " (%c)\\n%" PRId64, (char)g->kind[v], g->wcet[v]);
    ompdag_loc loc = ompdag_condag_node_loc(g, v);
    if (loc.line) fprintf(out, " @%d", loc.line);
    if (ompdag_compact_loop_repeat(g, v)) /* a compact loop's test (docs/compact.md) */
        fprintf(out, "\\nloop: at most %" PRId64 " iterations", ompdag_compact_loop_repeat(g, v));
    if (condag_is_partial_wait(g, v)) write_wait_items(out, g, v);
    const char *label = ompdag_condag_node_label(g, v);
    if (label) {
        fputs("\\n", out);
        put_escaped(out, label);
    }
    fputc('"', out);
    if (h->executed && !h->executed[v])
        fputs(", color=gray70, fontcolor=gray60", out);
    else if (h->executed)
        fprintf(out, ", style=\"filled%s\", fillcolor=\"%s\"",
                g->kind[v] == OMPDAG_KIND_W ? ",rounded" : "",
                h->path_pos[v] >= 0 ? "#f8c0c0" : "#dde8f8");
    if (h->executed && h->path_pos[v] >= 0) fputs(", color=red, penwidth=2", out);
    fputs("];\n", out);
}

static bool on_path_edge(const highlight *h, int32_t a, int32_t b)
{
    return h->executed && h->path_pos[a] >= 0 && h->path_pos[b] == h->path_pos[a] + 1;
}

static void write_edge(FILE *out, const highlight *h, int32_t a, int32_t b, const char *style)
{
    fprintf(out, "  n%d -> n%d [style=%s", a, b, style);
    if (on_path_edge(h, a, b))
        fputs(", color=red, penwidth=2.5", out);
    else if (h->executed && !(h->executed[a] && h->executed[b]))
        fputs(", color=gray75", out);
    fputs("];\n", out);
}

static void write_instances(FILE *out, uint64_t k)
{
    if (k == OMPDAG_COMPACT_MANY)
        fputs(" (x 2^64 or more)", out);
    else
        fprintf(out, " (x %" PRIu64 ")", k);
}

/* Nodes grouped by task, each group in node order (a counting sort): the
 * clusters cost O(n + tasks), not a scan of every node per task.  `first`
 * has nt + 1 entries; both arrays are the caller's to free. */
static bool group_by_task(const ompdag_condag *g, int32_t **first_out, int32_t **order_out)
{
    int32_t *first = calloc((size_t)g->nt + 1, sizeof *first);
    int32_t *order = malloc(sizeof *order * ((size_t)g->n + 1));
    int32_t *fill = malloc(sizeof *fill * ((size_t)g->nt + 1));
    if (!first || !order || !fill) {
        free(first), free(order), free(fill);
        return false;
    }
    for (int32_t v = 0; v < g->n; ++v)
        first[g->node_task[v] + 1]++;
    for (int32_t t = 0; t < g->nt; ++t)
        first[t + 1] += first[t];
    memcpy(fill, first, sizeof *fill * (size_t)g->nt);
    for (int32_t v = 0; v < g->n; ++v)
        order[fill[g->node_task[v]]++] = v;
    free(fill);
    *first_out = first, *order_out = order;
    return true;
}

/* D-edges (§6), union over flows: bold blue with a hollow head, so they read
 * apart from F (dotted), T (dashed) and W (solid) edges.  Graphviz slows
 * down sharply with many cross-cluster edges, so above DOT_MAX_DEPEND only
 * those on the critical path are drawn and the label says how many were not. */
enum { DOT_MAX_DEPEND = 256 };

static ompdag_status write_depend_edges(FILE *out, const ompdag_condag *g, const highlight *h,
                                        ompdag_error *err)
{
    int32_t *from, *to;
    int64_t n, hidden = 0;
    ompdag_status st = ompdag_condag_order_edges(g, &from, &to, &n, err);
    for (int64_t i = 0; !st && i < n; ++i) {
        bool on_path = on_path_edge(h, from[i], to[i]);
        if (n > DOT_MAX_DEPEND && !on_path) {
            ++hidden;
            continue;
        }
        fprintf(out, "  n%d -> n%d [style=bold, arrowhead=empty, color=\"%s\", tooltip=\"depend\"",
                from[i], to[i],
                on_path                                                        ? "red"
                : h->executed && !(h->executed[from[i]] && h->executed[to[i]]) ? "#a8bcd8"
                                                                               : "#1f5fbf");
        if (on_path) fputs(", penwidth=2.5", out);
        fputs("];\n", out);
    }
    if (hidden)
        fprintf(out,
                "  label_depend [shape=note, label=\"%lld of %lld D-edges (depend) not drawn; "
                "only those on the critical path are\"];\n",
                (long long)hidden, (long long)n);
    free(from), free(to);
    return st;
}

static bool write_body(FILE *out, const ompdag_condag *g, const highlight *h)
{
    int32_t *first, *order;
    if (!group_by_task(g, &first, &order)) return false;
    for (int32_t t = 0; t < g->nt; ++t) {
        fprintf(out, "  subgraph cluster_%d {\n    label=\"", t);
        put_escaped(out, task_name(g, t));
        if (g->compact) /* a shared body: how many instances it stands for */
            write_instances(out, ompdag_compact_task_instances(g, t));
        fprintf(out, "\"; style=rounded; color=gray50;\n");
        for (int32_t k = first[t]; k < first[t + 1]; ++k)
            write_node(out, g, order[k], h);
        fprintf(out, "  }\n");
    }
    free(first), free(order);
    for (int32_t v = 0; v < g->n; ++v) {
        for (int32_t i = g->fsucc_off[v]; i < g->fsucc_off[v + 1]; ++i)
            write_edge(out, h, v, g->fsucc[i], "dotted");
        if (ompdag_compact_loop_repeat(g, v)) /* the loop, drawn once: back to its test */
            fprintf(out,
                    "  n%d -> n%d [style=bold, color=blue, constraint=false, label=\"x %" PRId64
                    "\"];\n",
                    condag_loops_end(g, v), v, ompdag_compact_loop_repeat(g, v));
        if (g->creates[v] >= 0) write_edge(out, h, v, g->task_source[g->creates[v]], "dashed");
        for (int32_t i = g->wsucc_off[v]; i < g->wsucc_off[v + 1]; ++i)
            write_edge(out, h, v, g->wsucc[i], "solid");
    }
    return true;
}

ompdag_status ompdag_dot_write(FILE *out, const ompdag_condag *g, const ompdag_rta_result *worst,
                               ompdag_error *err)
{
    highlight h = {0};
    ompdag_status st = OMPDAG_OK;
    if (worst && worst->has_witness) {
        h.executed = malloc((size_t)g->n);
        h.path_pos = malloc(sizeof *h.path_pos * (size_t)g->n);
        if (!h.executed || !h.path_pos) {
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
            goto done;
        }
        if ((st = ompdag_rta_result_mark_flow(worst, g, h.executed, err))) goto done;
        memset(h.path_pos, 0xff, sizeof *h.path_pos * (size_t)g->n);
        for (int32_t i = 0; i < worst->path_len; ++i)
            h.path_pos[worst->path[i]] = i;
    }
    fputs("digraph condag {\n  rankdir=TB; compound=true;\n  node [fontname=\"Helvetica\", "
          "fontsize=10];\n  edge [arrowsize=0.7];\n  label=\"",
          out);
    put_escaped(out, ompdag_condag_function(g) ? ompdag_condag_function(g)
                     : ompdag_condag_name(g)   ? ompdag_condag_name(g)
                                               : "con-DAG");
    if (worst)
        /* the drawn flow is Graham's (untied); with tied tasks the bound that
         * holds may be larger (docs/tied.md), so the label says which it is */
        fprintf(out, " — m=%d, worst flow of the %s (untied) bound %.6g %s", worst->m,
                ompdag_algorithm_name(worst->alg), ompdag_rta_result_bound(worst),
                ompdag_condag_time_unit(g));
    if (g->compact) {
        uint64_t n = ompdag_compact_expanded_node_count(g);
        if (n == OMPDAG_COMPACT_MANY)
            fputs(" — compact: 2^64 or more nodes unfolded", out);
        else
            fprintf(out, " — compact: %" PRIu64 " nodes unfolded", n);
    }
    if (worst && ompdag_condag_has_depend(g))
        fputs(ompdag_rta_result_is_exact(worst) ? " (exact)" : " (sound, not exact)", out);
    fputs("\"; labelloc=t;\n", out);
    if (!write_body(out, g, &h)) {
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((st = write_depend_edges(out, g, &h, err))) goto done;
    fputs("}\n", out);
    if (ferror(out) || fflush(out) != 0)
        st = ompdag_error_set(err, OMPDAG_ERR_IO, "write failed: %s",
                              errno ? strerror(errno) : "I/O error");
done:
    free(h.executed);
    free(h.path_pos);
    return st;
}
