/*
 * report/report_html.c — one self-contained HTML page: inline CSS and JS, a
 * sortable table of (region, m) rows, and per region the graph drawn by
 * graphviz (ompdag_dot_write with the worst flow filled and the critical path
 * in red, rendered to SVG by the caller's renderer and inlined), its worst
 * flow, critical path, assumptions and node WCETs.  Hovering or clicking a
 * node (in the drawing or the table) shows its WCET detail.  No external
 * resource is referenced, so the file can be mailed or archived as is.
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ompdag/dot.h"
#include "report_internal.h"

/* Above this many nodes graphviz takes minutes and the drawing is unreadable. */
enum { HTML_MAX_DRAWN_NODES = 2000 };

static void esc(FILE *out, const char *s)
{
    for (; s && *s; ++s) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
    }
}

static const char *css =
    "body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;color:#222}"
    "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #ddd;padding:2px 8px;"
    "text-align:right}td.l,th.l{text-align:left}th{background:#f3f3f3;cursor:pointer;"
    "user-select:none}th.asc:after{content:' \\25B2'}th.desc:after{content:' \\25BC'}"
    ".pass{color:#176f2c;font-weight:bold}.fail{color:#b00020;font-weight:bold}"
    ".none{color:#777}.warn{color:#a15c00}.graph{overflow:auto;border:1px solid #eee;"
    "max-height:70vh}.graph svg{max-width:none}.graph g.node{cursor:pointer}"
    "tr.hl td{background:#fff3b0}#detail{position:fixed;right:1em;bottom:1em;width:22em;"
    "background:#fffbe6;border:1px solid #d9c36a;padding:.6em;box-shadow:0 2px 8px #0003;"
    "display:none;font-size:13px}#detail h3{margin:0 0 .3em;font-size:14px}"
    "code{background:#f5f5f5;padding:0 3px}";

/* Sorting by the clicked column (numbers by data-v), and node detail from
 * the embedded JSON, looked up by the drawing's node names (n<index>). */
static const char *js =
    "(function(){'use strict';\n"
    "var data=JSON.parse(document.getElementById('ompdag-data').textContent);\n"
    "document.querySelectorAll('table.sortable').forEach(function(t){\n"
    " t.querySelectorAll('th').forEach(function(th,col){th.addEventListener('click',function(){\n"
    "  var asc=!th.classList.contains('asc');\n"
    "  t.querySelectorAll('th').forEach(function(h){h.classList.remove('asc','desc');});\n"
    "  th.classList.add(asc?'asc':'desc');\n"
    "  var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows);\n"
    "  rows.sort(function(a,b){var x=a.cells[col],y=b.cells[col];\n"
    "   var p=parseFloat(x.dataset.v),q=parseFloat(y.dataset.v);\n"
    "   var c=(!isNaN(p)&&!isNaN(q))?p-q:x.textContent.localeCompare(y.textContent);\n"
    "   return asc?c:-c;});\n"
    "  rows.forEach(function(r){body.appendChild(r);});});});});\n"
    "var box=document.getElementById('detail');\n"
    "function show(g,n){var d=data[g]&&data[g].nodes[n];if(!d)return;\n"
    " var h='<h3>'+esc(d.id)+' ('+esc(d.kind)+') &mdash; '+esc(d.at)+'</h3>';\n"
    " h+='<div>WCET <b>'+d.wcet+'</b> '+esc(data[g].unit)+'</div>';\n"
    " ['samples','observed_max','observed_median','estimator','margin_pct','unobserved','untied']"
    ".forEach(function(k){if(d[k]!==undefined)h+='<div>'+k+': '+esc(String(d[k]))+'</div>';});\n"
    " if(d.label)h+='<div><code>'+esc(d.label)+'</code></div>';\n"
    " h+='<div>'+(d.in_flow?'in the worst flow':'not in the worst flow')+(d.critical?"
    "', on the critical path':'')+'</div>';\n"
    " box.innerHTML=h;box.style.display='block';\n"
    " document.querySelectorAll('tr.hl').forEach(function(r){r.classList.remove('hl');});\n"
    " var row=document.getElementById(g+'-'+n);if(row)row.classList.add('hl');}\n"
    "function esc(s){return String(s).replace(/[&<>\"]/g,function(c){return "
    "{'&':'&amp;','<':'&lt;','>':'&gt;','\"':'&quot;'}[c];});}\n"
    "document.querySelectorAll('div.graph').forEach(function(div){var g=div.dataset.g;\n"
    " div.querySelectorAll('g.node').forEach(function(el){var t=el.querySelector('title');\n"
    "  if(!t)return;var n=t.textContent.trim();\n"
    "  el.addEventListener('mouseenter',function(){show(g,n);});\n"
    "  el.addEventListener('click',function(){show(g,n);});});});\n"
    "document.querySelectorAll('tr.node').forEach(function(r){\n"
    " r.addEventListener('click',function(){show(r.dataset.g,r.dataset.n);});});\n"
    "box.addEventListener('dblclick',function(){box.style.display='none';});\n"
    "document.body.setAttribute('data-ompdag-ready','1');\n"
    "})();\n";

static void td_num(FILE *out, double sortv, const char *text)
{
    fprintf(out, "<td data-v=\"%.17g\">", sortv);
    esc(out, text);
    fputs("</td>", out);
}

static void region_table(FILE *out, const ompdag_report *r)
{
    fputs("<table class=\"sortable\" id=\"regions\"><thead><tr><th class=\"l\">function</th>"
          "<th class=\"l\">region</th><th>m</th><th>bound</th><th class=\"l\">rule</th>"
          "<th>vol</th><th>len</th><th>observed max</th><th>bound / observed</th>"
          "<th title=\"the bound the deadline is judged against: with fork/join where "
          "measured\">judged bound</th><th>deadline</th><th>slack</th>"
          "<th class=\"l\">verdict</th></tr></thead><tbody>\n",
          out);
    char buf[64], place[512];
    for (size_t i = 0; i < r->n; ++i) {
        const ompdag_report_row *row = &r->rows[i];
        const ompdag_condag *g = ompdag_condag_set_graph(r->set, row->graph);
        double u = (double)ompdag_time_unit_ns(ompdag_condag_time_unit(g));
        fprintf(out, "<tr><td class=\"l\"><a href=\"#g%zu\">", row->graph);
        esc(out, row->function);
        fputs("</a></td><td class=\"l\">", out);
        if (row->loc.file)
            snprintf(place, sizeof place, "%s:%d", row->loc.file, row->loc.line);
        else
            snprintf(place, sizeof place, "-");
        esc(out, place);
        fprintf(out, "</td><td data-v=\"%d\">%d</td>", row->m, row->m);
        bool zero = row->unmeasured_reason && row->bound_times_m == 0;
        td_num(out, row->bound_ns >= 0 ? row->bound_ns : row->bound,
               zero                ? "not annotated"
               : row->bound_ns >= 0 ? ompdag_duration_format(row->bound_ns, buf, sizeof buf)
                                    : "?");
        fputs("<td class=\"l\">", out);
        esc(out, ompdag_tied_rule_name(row->tied_rule));
        fputs("</td>", out);
        td_num(out, (double)row->vol * u, u ? ompdag_duration_format((double)row->vol * u, buf, sizeof buf) : "?");
        td_num(out, (double)row->len * u, u ? ompdag_duration_format((double)row->len * u, buf, sizeof buf) : "?");
        bool obs = row->observed_max_ns >= 0;
        td_num(out, obs ? row->observed_max_ns : -1,
               obs ? ompdag_duration_format(row->observed_max_ns, buf, sizeof buf) : "-");
        if (obs && row->observed_max_ns > 0 && row->bound_ns >= 0) {
            double ratio = row->bound_ns / row->observed_max_ns;
            snprintf(buf, sizeof buf, "%.3g", ratio);
            td_num(out, ratio, buf);
        } else {
            td_num(out, -1, "-");
        }
        td_num(out, row->verdict_bound_ns,
               zero                        ? "not annotated"
               : row->verdict_bound_ns >= 0 ? ompdag_duration_format(row->verdict_bound_ns, buf,
                                                                     sizeof buf)
                                            : "?");
        bool has = row->deadline_ns >= 0 && row->deadline_from;
        td_num(out, has ? (double)row->deadline_ns : -1,
               has ? ompdag_duration_format((double)row->deadline_ns, buf, sizeof buf) : "-");
        char sl[64];
        has = has && !zero; /* no bound, no slack */
        if (has)
            snprintf(sl, sizeof sl, "%s%s", row->slack_ns < 0 ? "-" : "",
                     ompdag_duration_format(fabs(row->slack_ns), buf, sizeof buf));
        td_num(out, has ? row->slack_ns : -1e300, has ? sl : "-");
        fprintf(out, "<td class=\"l %s\">%s</td></tr>\n",
                row->verdict == OMPDAG_VERDICT_PASS ? "pass"
                : row->verdict == OMPDAG_VERDICT_NO_DEADLINE ? "none"
                                                             : "fail",
                ompdag_verdict_name(row->verdict));
    }
    fputs("</tbody></table>\n", out);
}

/* Draws graph gi with its first row's worst flow and inlines the SVG. */
/* True when row i starts a graph's section of the page. */
static bool section_start(const ompdag_report *r, size_t i)
{
    return i == 0 || r->rows[i - 1].graph != r->rows[i].graph;
}

static bool drawable(const ompdag_report *r, size_t i)
{
    const ompdag_condag *g = ompdag_condag_set_graph(r->set, r->rows[i].graph);
    return section_start(r, i) && ompdag_condag_node_count(g) <= HTML_MAX_DRAWN_NODES;
}

/* Every drawing of the page in ONE renderer call (one graphviz process, not
 * one per region: 30 ms each made 1,000 regions take half a minute).  The
 * DOT graphs go in section order; graphviz answers with one <svg>...</svg>
 * per graph, which are cut apart in place: (*svg_of)[i] points into *buf for
 * each drawn row i, else NULL.  The caller frees *buf and *svg_of. */
static ompdag_status render_all(const ompdag_report *r, ompdag_svg_renderer render, void *ctx,
                                char **buf, char ***svg_of, ompdag_error *err)
{
    *buf = NULL;
    *svg_of = calloc(r->n + 1, sizeof **svg_of);
    if (!*svg_of)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    char *dot = NULL;
    size_t len = 0, drawn = 0;
    FILE *mem = open_memstream(&dot, &len);
    if (!mem)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    ompdag_status st = OMPDAG_OK;
    for (size_t i = 0; i < r->n && !st; ++i)
        if (drawable(r, i)) {
            st = ompdag_dot_write(mem, ompdag_condag_set_graph(r->set, r->rows[i].graph),
                                  r->results[i], err);
            drawn++;
        }
    if (fclose(mem) != 0 && !st)
        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!st && drawn)
        st = render(dot, len, buf, ctx, err);
    free(dot);
    char *p = *buf;
    for (size_t i = 0; i < r->n && !st && drawn; ++i) {
        if (!drawable(r, i))
            continue;
        char *start = strstr(p, "<svg"), *end = start ? strstr(start, "</svg>") : NULL;
        if (!end)
            return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                    "the SVG renderer returned fewer drawings than the %zu graphs "
                                    "it was given",
                                    drawn);
        end += strlen("</svg>");
        p = *end ? end + 1 : end;
        *end = '\0';
        (*svg_of)[i] = start;
    }
    return st;
}

/* Why the bound is what it is: the text report's breakdown lines
 * (report_breakdown_text), red when a run's floor fell below 1. */
static void region_breakdown(FILE *out, const ompdag_report_row *x)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = x->breakdown.vol_ns >= 0 && x->breakdown.has_floor ? open_memstream(&text, &len)
                                                                    : NULL;
    if (!mem) return;
    report_breakdown_text(mem, x);
    fclose(mem);
    fprintf(out, "<pre class=\"%s\">", x->breakdown.floor_below_one ? "fail" : "breakdown");
    esc(out, text);
    fputs("</pre>", out);
    free(text);
}

/* Per m of the region: the bound that decides the verdict next to the
 * deadline, slack and verdict; the tied rule and what `untied` would give;
 * the runs by team size (issue 22 items 4-6). */
/* The bound for the input the traces ran (report_input.c), as the text
 * report's "for this input" lines. */
static void region_input(FILE *out, const ompdag_report_row *x)
{
    char a[64];
    if (x->input_bound_ns >= 0) {
        fprintf(out, "<br>for this input: bound %s (",
                ompdag_duration_format(x->input_bound_ns, a, sizeof a));
        esc(out, x->input_claim ? x->input_claim : "recorded by annotate");
        fprintf(out, "; rule <code>%s</code>", ompdag_tied_rule_name(x->input_tied_rule));
        if (x->input_delay_model) {
            fputs("; delays: ", out);
            esc(out, x->input_delay_model);
        }
        fputs(")", out);
        if (x->input_root_creation[0]) {
            fputs("<br>for this input: ", out);
            esc(out, x->input_root_creation);
        }
    } else if (x->input_why) {
        fputs("<br>for this input: no bound recorded: ", out);
        esc(out, x->input_why);
    }
}

static void region_rows(FILE *out, const ompdag_report *r, size_t first)
{
    char a[64], b[64], c[64], places[1024];
    const ompdag_condag *g = ompdag_condag_set_graph(r->set, r->rows[first].graph);
    fputs("<ul class=\"rows\">\n", out);
    for (size_t i = first; i < r->n && r->rows[i].graph == r->rows[first].graph; ++i) {
        const ompdag_report_row *x = &r->rows[i];
        fprintf(out, "<li>m = %d: ", x->m);
        if (x->unmeasured_reason && x->bound_times_m == 0)
            fputs("not annotated, no bound", out);
        else
            fprintf(out, "bound %s%s",
                    x->verdict_bound_ns >= 0
                        ? ompdag_duration_format(x->verdict_bound_ns, a, sizeof a)
                        : "?",
                    x->region_bound_ns >= 0 ? " (whole region, with fork/join)" : "");
        if (x->deadline_ns >= 0 && x->deadline_from && x->unmeasured_reason &&
            x->bound_times_m == 0)
            fprintf(out, ", deadline %s",
                    ompdag_duration_format((double)x->deadline_ns, b, sizeof b));
        else if (x->deadline_ns >= 0 && x->deadline_from)
            fprintf(out, ", deadline %s, slack %s%s",
                    ompdag_duration_format((double)x->deadline_ns, b, sizeof b),
                    x->slack_ns < 0 ? "-" : "",
                    ompdag_duration_format(fabs(x->slack_ns), c, sizeof c));
        fprintf(out, " &rarr; <span class=\"%s\">%s</span>",
                x->verdict == OMPDAG_VERDICT_PASS          ? "pass"
                : x->verdict == OMPDAG_VERDICT_NO_DEADLINE ? "none"
                                                           : "fail",
                ompdag_verdict_name(x->verdict));
        if (x->tied_rule != OMPDAG_TIED_NONE) {
            fprintf(out, "; tied tasks: rule <code>%s</code>", ompdag_tied_rule_name(x->tied_rule));
            if (x->untied_bound_times_m < x->bound_times_m && x->untied_bound_ns >= 0) {
                fputs(", adding <code>untied</code> to the task directive at ", out);
                esc(out, report_tied_places(g, places, sizeof places));
                fprintf(out, " tightens the bound to %s",
                        ompdag_duration_format(x->untied_bound_ns, a, sizeof a));
            }
        }
        if (x->observation_count) {
            char *line = NULL;
            size_t len = 0;
            FILE *mem = open_memstream(&line, &len);
            if (mem) {
                report_observations_line(mem, x);
                fclose(mem);
                fputs("<br>", out);
                esc(out, line);
            }
            free(line);
        }
        region_input(out, x);
        region_breakdown(out, x);
        fputs("</li>\n", out);
    }
    fputs("</ul>\n", out);
}

/* Why the region's numbers cannot be trusted, before anything else. */
static void region_warnings(FILE *out, const ompdag_report_row *row)
{
    if (row->unmeasured_reason) {
        fputs("<p class=\"fail\"><b>UNMEASURED:</b> ", out);
        esc(out, row->unmeasured_reason);
        fputs(".</p>\n", out);
    }
    if (row->unsafe_reason) {
        fputs("<p class=\"fail\"><b>UNSAFE:</b> ", out);
        esc(out, row->unsafe_reason);
        fputs("; this bound proves nothing.</p>\n", out);
    }
}

/* What annotate's depend check found: the runtime's order against the D-edges. */
static void region_depend(FILE *out, const ompdag_report_row *row, const ompdag_condag *g)
{
    if (row->depend_pairs < 0)
        return;
    fprintf(out,
            "<p class=\"%s\">Runtime dependence order: %lld enforced pair(s), %lld "
            "disagreement(s) with the D-edges, %lld extra D-edge(s) (safe).</p>\n",
            row->depend_disagreements > 0 ? "fail" : "pass", (long long)row->depend_pairs,
            (long long)row->depend_disagreements, (long long)row->depend_extra);
    size_t k;
    const json_t *d;
    json_t *list = report_depend_list(g);
    if (!list)
        return;
    fputs("<ul>\n", out);
    json_array_foreach(list, k, d)
    {
        fputs(json_is_true(json_object_get(d, "unsafe")) ? "<li class=\"fail\">" : "<li>", out);
        esc(out, json_string_value(json_object_get(d, "message")));
        fputs("</li>\n", out);
    }
    fputs("</ul>\n", out);
}

/* One line per thread count at which a clean run outlasted the bound. */
static void region_refuted(FILE *out, const ompdag_report *r, size_t first)
{
    char a[512], b[512];
    for (size_t i = first; i < r->n && r->rows[i].graph == r->rows[first].graph; ++i) {
        const ompdag_report_row *x = &r->rows[i];
        if (x->verdict == OMPDAG_VERDICT_REFUTED)
            fprintf(out, "<p class=\"fail\"><b>REFUTED</b> at m = %d: a clean run took %s, "
                         "longer than the bound %s.</p>\n",
                    x->m,
                    ompdag_duration_format(x->refuted_by_region ? x->observed_region_max_ns
                                                                : x->observed_max_ns,
                                           a, sizeof a),
                    ompdag_duration_format(x->refuted_by_region ? x->region_bound_ns : x->bound_ns,
                                           b, sizeof b));
    }
}

/* The runs left out of the comparison, and the overheads the probe measured. */
static void region_runs_and_overheads(FILE *out, const ompdag_report_row *row,
                                      const ompdag_condag *g)
{
    char a[512], b[512];
    if (row->runs_interfered > 0)
        fprintf(out, "<p>%lld interfered run(s) (threads preempted or migrated; max %s) are not "
                     "compared with the bound.</p>\n",
                (long long)row->runs_interfered,
                ompdag_duration_format(row->observed_interfered_max_ns, a, sizeof a));
    json_t *ro = json_object_get(ompdag_condag_extra(g, -1), "runtime_overheads");
    if (json_is_object(ro))
        fprintf(out, "<p>Runtime overheads (%s, %s): start delay %s per task over %lld "
                     "samples, wake delay %s per taskwait over %lld samples, at %lld threads "
                     "(docs/overheads.md).</p>\n",
                json_string_value(json_object_get(ro, "source")),
                json_object_get(ro, "cont_delay_ns") ? "on the critical chain only"
                                                     : "in the WCETs",
                ompdag_duration_format(
                    (double)json_integer_value(json_object_get(ro, "start_delay_ns")), a, sizeof a),
                (long long)json_integer_value(
                    json_object_get(json_object_get(ro, "start"), "samples")),
                ompdag_duration_format(
                    (double)json_integer_value(json_object_get(ro, "wake_delay_ns")), b, sizeof b),
                (long long)json_integer_value(
                    json_object_get(json_object_get(ro, "wake"), "samples")),
                (long long)json_integer_value(json_object_get(ro, "threads")));
}

/* The worst flow's choices, one <li> each: loops by their iterations, branches
 * by the successor taken (and the one other instances take). */
static void region_choices(FILE *out, const ompdag_condag *g, const ompdag_rta_result *res)
{
    char a[512], b[512], br[32];
    int32_t choices = 0;
    ompdag_choice_group *gr = ompdag_rta_result_choice_groups(res, g, &choices);
    for (int32_t i = 0; i < choices; ++i) {
        if (report_loop_iterations(g, res, gr[i].node, b, sizeof b)) { /* a compact loop */
            fputs("<li>loop at <code>", out);
            esc(out, ompdag_condag_node_place(g, gr[i].node, a, sizeof a));
            fprintf(out, "</code> runs %s</li>", b);
            continue;
        }
        fputs("<li>branch at <code>", out);
        esc(out, ompdag_condag_node_place(g, gr[i].node, a, sizeof a));
        fprintf(out, "</code> takes <b>%s</b> &rarr; <code>",
                report_branch_name(g, gr[i].node, gr[i].succ, br, sizeof br));
        esc(out, ompdag_condag_node_place(g, gr[i].succ, b, sizeof b));
        fputs("</code> ", out);
        esc(out, ompdag_condag_node_label(g, gr[i].succ));
        if (gr[i].nodes > 1)
            fprintf(out, " [%d copies]", gr[i].nodes);
        if (gr[i].alt >= 0) {
            fputs("; other instances take <code>", out);
            esc(out, ompdag_condag_node_place(g, gr[i].alt, b, sizeof b));
            fputs("</code>", out);
        }
        fputs("</li>", out);
    }
    free(gr);
    if (choices <= 0)
        fputs("<li>no branches</li>", out);
}

/* The worst flow and critical path at the region's first m, as one list. */
static void region_worst_flow(FILE *out, const ompdag_report_row *row, const ompdag_condag *g,
                              const ompdag_rta_result *res)
{
    fprintf(out, "<p>%d tasks, %d nodes; worst flow and critical path for m = %d:</p><ul>",
            row->tasks, row->nodes, row->m);
    char why[512];
    if (report_loop_path_missing(g, res, why, sizeof why)) { /* vol and len only */
        fputs("<li>", out);
        esc(out, why);
        fputs("</li></ul>\n", out);
        return;
    }
    region_choices(out, g, res);
    char *path = NULL; /* the shared printer's compressed form: context x depth */
    size_t plen = 0;
    FILE *mem = open_memstream(&path, &plen);
    if (mem) {
        ompdag_rta_result_write_path(res, g, mem);
        fclose(mem);
    }
    fputs("<li>", out);
    esc(out, path);
    free(path);
    fputs("</li></ul>\n", out);
}

/* What the bound covers and what it assumes: scheduling, WCETs, migrations. */
static void region_assumptions(FILE *out, const ompdag_report *r, const ompdag_report_row *row,
                               const ompdag_condag *g)
{
    char covers[512];
    fputs("<p>Covers: ", out);
    esc(out, report_covers(g, covers, sizeof covers));
    fputs(".</p>\n<p>Assumptions: ", out);
    fputs(row->tied_tasks ? "tied tasks under OpenMP's task scheduling constraint (the bound "
                            "is the one that holds there; the worst flow and critical path are "
                            "Graham's)"
                          : "work-conserving scheduling of untied tasks",
          out);
    fputs("; WCETs ", out);
    esc(out, report_wcet_source(row));
    json_t *wm = json_object_get(ompdag_condag_extra(g, -1), "wcet_method");
    if (json_is_object(wm)) {
        fputs("; WCETs by ", out);
        esc(out, json_string_value(json_object_get(wm, "estimator")));
        json_t *margin = json_object_get(wm, "margin_pct");
        if (json_is_number(margin))
            fprintf(out, " + %.3g%% margin", json_number_value(margin));
    }
    if (r->migration_overhead)
        fprintf(out, "; migration overhead %" PRId64 " per %s", r->migration_overhead,
                r->migration_model == OMPDAG_MIGRATION_BFS ? "W node" : "T node");
    fputs(".</p>\n", out);
}

/* A warning at each tied task directive: its bound is the larger, tied one. */
static void region_tied_warnings(FILE *out, const ompdag_condag *g)
{
    char a[512];
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v)
        if (ompdag_condag_node_kind(g, v) == OMPDAG_KIND_T &&
            json_is_false(json_object_get(ompdag_condag_extra(g, v), "untied"))) {
            fputs("<p class=\"warn\">the task at <code>", out);
            esc(out, ompdag_condag_node_place(g, v, a, sizeof a));
            fputs("</code> is tied.</p>\n", out);
        }
}

/* One region's text, a section at a time in page order; `first` is its first row. */
static void region_body(FILE *out, const ompdag_report *r, size_t first)
{
    const ompdag_report_row *row = &r->rows[first];
    const ompdag_condag *g = ompdag_condag_set_graph(r->set, row->graph);
    region_warnings(out, row);
    region_rows(out, r, first);
    region_depend(out, row, g);
    region_refuted(out, r, first);
    region_runs_and_overheads(out, row, g);
    region_worst_flow(out, row, g, r->results[first]);
    region_assumptions(out, r, row, g);
    region_tied_warnings(out, g);
}

static void node_table(FILE *out, const ompdag_condag *g, size_t gi)
{
    fputs("<table class=\"sortable nodes\"><thead><tr><th class=\"l\">node</th><th class=\"l\">"
          "kind</th><th class=\"l\">place</th><th>WCET</th><th>samples</th><th>observed max"
          "</th><th class=\"l\">label</th></tr></thead><tbody>\n",
          out);
    char a[512];
    for (int32_t v = 0; v < ompdag_condag_node_count(g); ++v) {
        json_t *x = ompdag_condag_extra(g, v);
        json_t *s = json_object_get(x, "samples"), *o = json_object_get(x, "observed_max");
        fprintf(out, "<tr class=\"node\" id=\"g%zu-n%d\" data-g=\"g%zu\" data-n=\"n%d\"><td class=\"l\">",
                gi, v, gi, v);
        esc(out, ompdag_condag_node_id(g, v));
        fprintf(out, "</td><td class=\"l\">%c</td><td class=\"l\">", (char)ompdag_condag_node_kind(g, v));
        esc(out, ompdag_condag_node_place(g, v, a, sizeof a));
        fprintf(out, "</td><td data-v=\"%" PRId64 "\">%" PRId64 "</td>",
                ompdag_condag_node_wcet(g, v), ompdag_condag_node_wcet(g, v));
        if (json_is_integer(s))
            fprintf(out, "<td data-v=\"%" JSON_INTEGER_FORMAT "\">%" JSON_INTEGER_FORMAT "</td>",
                    json_integer_value(s), json_integer_value(s));
        else
            fputs("<td data-v=\"-1\">-</td>", out);
        if (json_is_integer(o))
            fprintf(out, "<td data-v=\"%" JSON_INTEGER_FORMAT "\">%" JSON_INTEGER_FORMAT "</td>",
                    json_integer_value(o), json_integer_value(o));
        else
            fputs("<td data-v=\"-1\">-</td>", out);
        fputs("<td class=\"l\">", out);
        esc(out, ompdag_condag_node_label(g, v));
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
}

/* Node detail for the page's script, keyed like the drawing ("n<index>"). */
static json_t *graph_data(const ompdag_report *r, size_t first)
{
    const ompdag_report_row *row = &r->rows[first];
    const ompdag_condag *g = ompdag_condag_set_graph(r->set, row->graph);
    const ompdag_rta_result *res = r->results[first];
    int32_t n = ompdag_condag_node_count(g), plen;
    uint8_t *in_flow = calloc((size_t)n + 1, 1), *crit = calloc((size_t)n + 1, 1);
    if (in_flow)
        ompdag_rta_result_mark_flow(res, g, in_flow, NULL);
    const int32_t *path = ompdag_rta_result_critical_path(res, &plen);
    for (int32_t i = 0; crit && i < plen; ++i)
        crit[path[i]] = 1;
    json_t *nodes = json_object();
    char a[512], key[32];
    for (int32_t v = 0; v < n; ++v) {
        json_t *x = ompdag_condag_extra(g, v);
        char kind[2] = {(char)ompdag_condag_node_kind(g, v), 0};
        json_t *o = json_pack("{s:s,s:s,s:s,s:I,s:b,s:b}", "id", ompdag_condag_node_id(g, v),
                              "kind", kind, "at", ompdag_condag_node_place(g, v, a, sizeof a), "wcet",
                              (json_int_t)ompdag_condag_node_wcet(g, v), "in_flow",
                              in_flow && in_flow[v], "critical", crit && crit[v]);
        if (ompdag_condag_node_label(g, v))
            json_object_set_new(o, "label", json_string(ompdag_condag_node_label(g, v)));
        static const char *keys[] = {"samples", "observed_max", "observed_median", "estimator",
                                     "margin_pct", "unobserved", "untied"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k)
            if (json_object_get(x, keys[k]))
                json_object_set(o, keys[k], json_object_get(x, keys[k]));
        snprintf(key, sizeof key, "n%d", v);
        json_object_set_new(nodes, key, o);
    }
    free(in_flow), free(crit);
    return json_pack("{s:s,s:o}", "unit", ompdag_condag_time_unit(g), "nodes", nodes);
}

ompdag_status report_write_html(const ompdag_report *r, FILE *out, ompdag_svg_renderer render,
                                void *ctx, ompdag_error *err)
{
    size_t pass = 0, fail = 0, refuted = 0, unsafe = 0, unmeasured = 0;
    for (size_t i = 0; i < r->n; ++i) {
        unmeasured += r->rows[i].verdict == OMPDAG_VERDICT_UNMEASURED;
        pass += r->rows[i].verdict == OMPDAG_VERDICT_PASS;
        fail += r->rows[i].verdict == OMPDAG_VERDICT_FAIL;
        refuted += r->rows[i].verdict == OMPDAG_VERDICT_REFUTED;
        unsafe += r->rows[i].verdict == OMPDAG_VERDICT_UNSAFE;
    }
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                 "<title>ompdag report: ");
    esc(out, r->input_name);
    fprintf(out, "</title>\n<style>%s</style></head><body>\n<h1>ompdag timing report: ", css);
    esc(out, r->input_name);
    fprintf(out, "</h1>\n<p id=\"summary\">%zu check(s): <span class=\"pass\">%zu pass</span>, "
                 "<span class=\"fail\">%zu fail</span>, <span class=\"fail\">%zu refuted by "
                 "measurements</span>, <span class=\"fail\">%zu unsafe</span>, "
                 "<span class=\"fail\">%zu unmeasured</span>, %zu without deadline. Bounds are "
                 "exact (seed 004, Theorem 1 with Alg1) for work-conserving scheduling of untied "
                 "tasks; regions with tied tasks are judged by the bound that holds under the "
                 "task scheduling constraint (column rule). Click a column to sort, a node to "
                 "see its WCET.</p>\n",
            r->n, pass, fail, refuted, unsafe, unmeasured,
            r->n - pass - fail - refuted - unsafe - unmeasured);
    region_table(out, r);
    char *svg_buf = NULL, **svg_of = NULL;
    ompdag_status st = render ? render_all(r, render, ctx, &svg_buf, &svg_of, err) : OMPDAG_OK;
    json_t *data = json_object();
    for (size_t i = 0; i < r->n && !st; ++i) {
        const ompdag_report_row *row = &r->rows[i];
        if (i > 0 && r->rows[i - 1].graph == row->graph)
            continue;
        const ompdag_condag *g = ompdag_condag_set_graph(r->set, row->graph);
        fprintf(out, "<h2 id=\"g%zu\">", row->graph);
        esc(out, row->function);
        if (row->loc.file) {
            char place[512];
            snprintf(place, sizeof place, " — %s:%d", row->loc.file, row->loc.line);
            esc(out, place);
        }
        fputs("</h2>\n", out);
        region_body(out, r, i);
        if (render && ompdag_condag_node_count(g) > HTML_MAX_DRAWN_NODES)
            fprintf(out, "<p class=\"none\">%d nodes: too many to draw here (graphviz); use "
                         "<code>ompdag dot --flow worst --svg</code>.</p>\n",
                    ompdag_condag_node_count(g));
        else if (render && svg_of[i])
            fprintf(out, "<div class=\"graph\" data-g=\"g%zu\">\n%s</div>\n", row->graph,
                    svg_of[i]);
        node_table(out, g, row->graph);
        char key[32];
        snprintf(key, sizeof key, "g%zu", row->graph);
        json_object_set_new(data, key, graph_data(r, i));
    }
    if (!st) {
        /* JSON_ESCAPE_SLASH writes "<\/", so no string can close the script. */
        char *text = json_dumps(data, JSON_COMPACT | JSON_ESCAPE_SLASH);
        fprintf(out, "<div id=\"detail\" title=\"double-click to close\"></div>\n"
                     "<script type=\"application/json\" id=\"ompdag-data\">%s</script>\n"
                     "<script>\n%s</script>\n</body></html>\n",
                text ? text : "{}", js);
        free(text);
    }
    json_decref(data);
    free(svg_buf), free(svg_of);
    if (!st && ferror(out))
        st = ompdag_error_set(err, OMPDAG_ERR_IO, "write error");
    return st;
}
