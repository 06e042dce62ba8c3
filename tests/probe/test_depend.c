/*
 * tests/probe/test_depend.c — the runtime's dependence order against the
 * graph's D-edges (annotate/annotate_depend.c, docs/probe.md#depend).
 *
 * progs/depend.c (KASTORS idiom: named blocks and a loop over array rows)
 * runs under the probe and agrees with its extracted graph data/depend.json:
 * every pair the runtime enforced is implied, every D-edge is respected.
 * The same graph with its clauses edited to disagree with the program is
 * reported: an `in` dropped (the model misses an order: unsafe, the report's
 * verdict is UNSAFE), an extra clause (an edge the runtime did not need: a
 * note, unsafe only with depend_strict).  The trace carries the depend lists
 * and pairs.
 */
#include <criterion/criterion.h>
#include <jansson.h>

#include "ompdag/report.h"
#include "probe/probe_util.h"

static char g_trace[128], g_dir[64];

/* One run of progs/depend at 2 threads. */
static const char *depend_trace(void)
{
    if (g_trace[0]) return g_trace;
    cr_assert(probe_tmpdir(g_dir, sizeof g_dir));
    snprintf(g_trace, sizeof g_trace, "%s/depend.trace", g_dir);
    int st = probe_run("depend", NULL, 2, g_trace, NULL, NULL);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
    return g_trace;
}

/* data/depend.json, with `edit` applied to its node `id` (NULL: as is). */
static ompdag_condag_set *load_graph(const char *id, void (*edit)(json_t *node))
{
    char path[512];
    snprintf(path, sizeof path, "%s/depend.json", OMPDAG_PROBE_DATA);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    cr_assert_not_null(root, "%s", je.text);
    json_t *nodes = json_object_get(json_array_get(json_object_get(root, "graphs"), 0), "nodes");
    size_t i;
    json_t *n;
    bool found = !id;
    json_array_foreach(nodes, i, n)
    {
        if (id && !strcmp(json_string_value(json_object_get(n, "id")), id)) {
            edit(n);
            found = true;
        }
    }
    cr_assert(found, "node %s is not in data/depend.json", id);
    char *text = json_dumps(root, 0);
    json_decref(root);
    ompdag_condag_set *set;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_buffer(text, strlen(text), "depend.json", &set, &err),
                 OMPDAG_OK, "%s", err.message);
    free(text);
    return set;
}

static json_t *annotate(ompdag_condag_set *set, bool strict)
{
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    opt.depend_strict = strict;
    ompdag_annotation *a;
    ompdag_error err;
    cr_assert_eq(ompdag_annotation_create(set, &opt, &a, &err), OMPDAG_OK, "%s", err.message);
    cr_assert_eq(ompdag_annotation_add_trace(a, depend_trace(), &err), OMPDAG_OK, "%s",
                 err.message);
    cr_assert_eq(ompdag_annotation_apply(a, &err), OMPDAG_OK, "%s", err.message);
    ompdag_annotation_destroy(a);
    json_t *dc =
        json_object_get(ompdag_condag_extra(ompdag_condag_set_graph(set, 0), -1), "depend_check");
    cr_assert(json_is_object(dc), "no depend_check");
    return dc;
}

static json_int_t field(const json_t *dc, const char *k)
{
    const json_t *v = json_object_get(dc, k);
    cr_assert(json_is_integer(v), "no %s", k);
    return json_integer_value(v);
}

/* The first listed disagreement of `kind`, or NULL. */
static const json_t *listed(const json_t *dc, const char *kind)
{
    size_t i;
    const json_t *d;
    json_array_foreach(json_object_get(dc, "disagreements"), i, d)
    {
        if (!strcmp(json_string_value(json_object_get(d, "kind")), kind)) return d;
    }
    return NULL;
}

/* The report of the set at m = 2 (graphs without "threads"). */
static ompdag_report *make_report(const ompdag_condag_set *set)
{
    ompdag_report_options ro;
    ompdag_report_options_init(&ro);
    ro.default_threads = 2;
    ompdag_report *r;
    ompdag_error err;
    cr_assert_eq(ompdag_report_create(set, &ro, &r, &err), OMPDAG_OK, "%s", err.message);
    return r;
}

/* That report in `fmt`, as a new string. */
static char *report_text(const ompdag_condag_set *set, ompdag_report_format fmt)
{
    ompdag_report *r = make_report(set);
    char *text = NULL;
    size_t len = 0;
    ompdag_error err;
    FILE *mem = open_memstream(&text, &len);
    cr_assert_eq(ompdag_report_write(r, fmt, mem, NULL, NULL, &err), OMPDAG_OK, "%s", err.message);
    fclose(mem);
    ompdag_report_destroy(r);
    return text;
}

static ompdag_verdict verdict(const ompdag_condag_set *set)
{
    ompdag_report *r = make_report(set);
    ompdag_verdict v = ompdag_report_row_get(r, 0)->verdict;
    ompdag_report_destroy(r);
    return v;
}

Test(depend_probe, trace_carries_the_depend_lists_and_the_pairs)
{
    ompdag_trace_summary s;
    ompdag_error err;
    cr_assert_eq(ompdag_trace_summarize(depend_trace(), &s, &err), OMPDAG_OK, "%s", err.message);
    /* 1 + 1 + 3 + 2 + 3 x 2 + 3 list items in progs/depend.c */
    cr_assert_eq(s.depend_items, 16);
    /* the first task cannot finish before every task exists, so the runtime
     * links at least its two readers (c = a + b, d += a) to it */
    cr_assert_geq(s.depend_pairs, 2);
    cr_assert_eq(s.tasks_created, 8);
}

Test(depend_probe, the_run_agrees_with_the_extracted_graph)
{
    ompdag_condag_set *set = load_graph(NULL, NULL);
    json_t *dc = annotate(set, true);
    cr_assert_eq(field(dc, "runtime_items"), 16);
    json_int_t pairs = field(dc, "runtime_pairs");
    cr_assert_geq(pairs, 2);
    cr_assert_eq(field(dc, "pairs_implied"), pairs);
    cr_assert_eq(field(dc, "pairs_unchecked"), 0);
    /* 8 D-edges: a->c, b->c, a->d, blk[1]->blk[2]->blk[3] (2), c, d, blk[3] -> last */
    cr_assert_eq(field(dc, "dedges_between_run_tasks"), 8);
    cr_assert_eq(field(dc, "dedges_respected"), 8);
    cr_assert_eq(field(dc, "unsafe_disagreements"), 0);
    cr_assert_eq(json_array_size(json_object_get(dc, "disagreements")), 0);
    const ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    cr_assert_null(json_object_get(ompdag_condag_extra(g, -1), "unsafe"));
    cr_assert_neq(verdict(set), OMPDAG_VERDICT_UNSAFE);
    ompdag_condag_set_destroy(set);
}

/* c = a + b loses its `in: a`: the runtime still orders it after the task
 * that writes a, which the graph no longer does. */
static void drop_in_a(json_t *node)
{
    json_t *keep = json_array();
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(node, "depend"), i, c)
    {
        if (strcmp(json_string_value(json_object_get(c, "var")), "a")) json_array_append(keep, c);
    }
    json_object_set_new(node, "depend", keep);
}

Test(depend_probe, a_dropped_in_is_a_missed_order_that_makes_the_graph_unsafe)
{
    ompdag_condag_set *set = load_graph("n5", drop_in_a);
    json_t *dc = annotate(set, false);
    cr_assert_geq(field(dc, "unsafe_disagreements"), 1);
    const json_t *d = listed(dc, "missed_order");
    cr_assert_not_null(d);
    cr_assert_str_eq(json_string_value(json_object_get(d, "pred_node")), "n1");
    cr_assert_str_eq(json_string_value(json_object_get(d, "succ_node")), "n5");
    cr_assert(json_is_true(json_object_get(d, "unsafe")));
    const char *msg = json_string_value(json_object_get(d, "message"));
    cr_assert(strstr(msg, "depend.c:32") && strstr(msg, "depend.c:44") && strstr(msg, "n5"), "%s",
              msg);
    const ompdag_condag *g = ompdag_condag_set_graph(set, 0);
    const char *why = json_string_value(json_object_get(ompdag_condag_extra(g, -1), "unsafe"));
    cr_assert(why && strstr(why, "depend_check"), "%s", why ? why : "(none)");
    cr_assert_eq(verdict(set), OMPDAG_VERDICT_UNSAFE);
    /* every report format carries it */
    char *text = report_text(set, OMPDAG_REPORT_TEXT);
    cr_assert(strstr(text, "runtime dependence order") && strstr(text, "UNSAFE"), "%s", text);
    free(text);
    text = report_text(set, OMPDAG_REPORT_JSON);
    cr_assert(strstr(text, "\"depend_check\"") && strstr(text, "missed_order"), "%s", text);
    free(text);
    text = report_text(set, OMPDAG_REPORT_SARIF);
    cr_assert(strstr(text, "ompdag-depend-order"), "%s", text);
    free(text);
    text = report_text(set, OMPDAG_REPORT_HTML);
    cr_assert(strstr(text, "Runtime dependence order"), "no depend line in the HTML report");
    free(text);
    ompdag_condag_set_destroy(set);
}

/* b's writer gets an `in: a` the program does not have: the graph orders it
 * after a's writer, which waits for the root to create every task, while the
 * runtime starts it at once. */
static void add_in_a(json_t *node)
{
    json_array_append_new(json_object_get(node, "depend"),
                          json_pack("{s:s,s:s}", "type", "in", "var", "a"));
}

Test(depend_probe, an_extra_edge_is_a_note_unless_strict)
{
    ompdag_condag_set *set = load_graph("n3", add_in_a);
    json_t *dc = annotate(set, false);
    cr_assert_eq(field(dc, "unsafe_disagreements"), 0);
    cr_assert_geq(field(dc, "dedges_extra"), 1);
    const json_t *d = listed(dc, "extra_order");
    cr_assert_not_null(d);
    cr_assert_str_eq(json_string_value(json_object_get(d, "pred_node")), "n1");
    cr_assert_str_eq(json_string_value(json_object_get(d, "succ_node")), "n3");
    cr_assert(json_is_false(json_object_get(d, "unsafe")));
    cr_assert_neq(verdict(set), OMPDAG_VERDICT_UNSAFE);
    ompdag_condag_set_destroy(set);

    set = load_graph("n3", add_in_a);
    dc = annotate(set, true);
    cr_assert_geq(field(dc, "unsafe_disagreements"), 1);
    cr_assert_eq(verdict(set), OMPDAG_VERDICT_UNSAFE);
    ompdag_condag_set_destroy(set);
}

/* The trace file's bytes (caller frees). */
static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(*len);
    cr_assert_eq(fread(buf, 1, *len, f), *len);
    fclose(f);
    return buf;
}

/* Offset of the first chunk: after the header, its strings and modules. */
static size_t first_chunk(const unsigned char *buf)
{
    const ompdag_trace_header *h = (const ompdag_trace_header *)buf;
    size_t off = sizeof *h + ((h->exe_path_len + h->build_id_len + 7u) & ~7u);
    for (uint32_t i = 0; i < h->module_count; ++i) {
        const ompdag_trace_module *m = (const ompdag_trace_module *)(buf + off);
        off += sizeof *m + ((m->path_len + m->build_id_len + 7u) & ~7u);
    }
    return off;
}

/* Applies `edit` to the first record of `type`, reseals its chunk's checksum
 * (as a forger or a probe bug would) and returns the reader's verdict. */
static ompdag_status forge(int type, void (*edit)(ompdag_trace_rec *), ompdag_error *err)
{
    size_t len;
    unsigned char *buf = slurp(depend_trace(), &len);
    size_t start = first_chunk(buf);
    uint64_t hh = ompdag_trace_hash_bytes(OMPDAG_TRACE_HASH_SEED, buf, start);
    bool done = false;
    for (size_t off = start; off < len && !done;) {
        ompdag_trace_chunk *ch = (ompdag_trace_chunk *)(buf + off);
        ompdag_trace_rec *recs = (ompdag_trace_rec *)(buf + off + sizeof *ch);
        for (uint32_t i = 0; i < ch->count && !done; ++i)
            if (recs[i].type == type) {
                edit(&recs[i]);
                ch->check = ompdag_trace_chunk_check(hh, ch->thread, ch->count, recs);
                done = true;
            }
        off += sizeof *ch + ch->count * sizeof(ompdag_trace_rec);
    }
    cr_assert(done, "no record of type %d", type);
    ompdag_trace_reader *r;
    ompdag_status st = ompdag_trace_reader_open_buffer(buf, len, "forged", &r, err);
    for (bool end = false; !st && !end;) {
        ompdag_trace_rec rec;
        st = ompdag_trace_reader_next(r, &rec, &end, err);
    }
    ompdag_trace_reader_destroy(r);
    free(buf);
    return st;
}

static void pair_to_itself(ompdag_trace_rec *r)
{
    r->aux = r->id;
}
static void pair_from_nowhere(ompdag_trace_rec *r)
{
    r->aux = (uint64_t)1 << 40;
}
static void item_past_its_list(ompdag_trace_rec *r)
{
    r->cp_start = r->cp_end;
}
static void thread_past_its_team(ompdag_trace_rec *r)
{
    r->cp_start = r->cp_end;
}
static void unknown_kind(ompdag_trace_rec *r)
{
    r->type = OMPDAG_REC_IMPLICIT + 1; /* the highest kind + 1 */
}

Test(depend_probe, forged_dependence_records_are_refused)
{
    ompdag_error err = {0};
    cr_assert_eq(forge(OMPDAG_REC_SCHED, pair_to_itself, &err), OMPDAG_OK, "resealing works: %s",
                 err.message); /* SCHED ignores aux: the forge itself is sound */
    cr_assert_neq(forge(OMPDAG_REC_DEP_PAIR, pair_to_itself, &err), OMPDAG_OK);
    cr_assert(strstr(err.message, "dependence pair"), "%s", err.message);
    cr_assert_neq(forge(OMPDAG_REC_DEP_PAIR, pair_from_nowhere, &err), OMPDAG_OK);
    cr_assert(strstr(err.message, "dependence pair"), "%s", err.message);
    cr_assert_neq(forge(OMPDAG_REC_DEPEND, item_past_its_list, &err), OMPDAG_OK);
    cr_assert(strstr(err.message, "depend item"), "%s", err.message);
    /* an implicit task's thread number must lie in its team (team graphs) */
    cr_assert_neq(forge(OMPDAG_REC_IMPLICIT, thread_past_its_team, &err), OMPDAG_OK);
    cr_assert(strstr(err.message, "implicit task's thread number"), "%s", err.message);
    /* a kind this reader does not know is refused, never skipped: that is
     * how an older reader treats these records */
    cr_assert_neq(forge(OMPDAG_REC_DEP_PAIR, unknown_kind, &err), OMPDAG_OK);
    cr_assert(strstr(err.message, "record type"), "%s", err.message);
}
