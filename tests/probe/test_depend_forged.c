/*
 * tests/probe/test_depend_forged.c — dependence records (kinds 9..11) are
 * checked strictly by annotate (annotate/annotate_depend.c; issue 26
 * item 4).  Each case edits a real trace of progs/depend, reseals every
 * chunk's checksum (as a forger or a probe bug would, so the reader's own
 * checks pass) and annotates it against data/depend.json:
 *
 *   - a pair whose predecessor was never created, is an implicit task or the
 *     region, or whose successor was never created: an error naming the
 *     record and the task (they were counted "unchecked", or vanished);
 *   - a depend list of 2^32-1 items, an item index given twice: an error
 *     (they were accepted, the duplicate counted twice);
 *   - a mutexinoutset or inoutset item, which the runtime does produce: the
 *     graph is unsafe with the reason (the model has neither).
 */
#include <criterion/criterion.h>
#include <jansson.h>

#include "probe/probe_util.h"

static char g_trace[128], g_dir[64];

/* One run of progs/depend at 2 threads (separate from test_depend.c's). */
static const char *real_trace(void)
{
    if (g_trace[0]) return g_trace;
    cr_assert(probe_tmpdir(g_dir, sizeof g_dir));
    snprintf(g_trace, sizeof g_trace, "%s/depend.trace", g_dir);
    int st = probe_run("depend", NULL, 2, g_trace, NULL, NULL);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
    return g_trace;
}

static unsigned char *read_all(const char *path, size_t *len)
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
static size_t chunks_at(const unsigned char *buf)
{
    const ompdag_trace_header *h = (const ompdag_trace_header *)buf;
    size_t off = sizeof *h + ((h->exe_path_len + h->build_id_len + 7u) & ~7u);
    for (uint32_t i = 0; i < h->module_count; ++i) {
        const ompdag_trace_module *m = (const ompdag_trace_module *)(buf + off);
        off += sizeof *m + ((m->path_len + m->build_id_len + 7u) & ~7u);
    }
    return off;
}

typedef struct recs {
    ompdag_trace_rec **at;
    size_t n;
} recs;

/* The first record of `type` (satisfying `ok`, when given), or NULL. */
static ompdag_trace_rec *find(const recs *rs, int type, bool (*ok)(const ompdag_trace_rec *))
{
    for (size_t i = 0; i < rs->n; ++i)
        if (rs->at[i]->type == type && (!ok || ok(rs->at[i]))) return rs->at[i];
    return NULL;
}

/* The real trace with `edit` applied to its records, resealed, written to a
 * new file in the temp dir; its path. */
static const char *forged_trace(const char *name, void (*edit)(recs *))
{
    size_t len;
    unsigned char *buf = read_all(real_trace(), &len);
    size_t start = chunks_at(buf);
    uint64_t hh = ompdag_trace_hash_bytes(OMPDAG_TRACE_HASH_SEED, buf, start);
    recs rs = {NULL, 0};
    for (size_t off = start; off < len;) {
        ompdag_trace_chunk *ch = (ompdag_trace_chunk *)(buf + off);
        ompdag_trace_rec *r = (ompdag_trace_rec *)(buf + off + sizeof *ch);
        rs.at = realloc(rs.at, (rs.n + ch->count) * sizeof *rs.at);
        for (uint32_t i = 0; i < ch->count; ++i)
            rs.at[rs.n++] = &r[i];
        off += sizeof *ch + ch->count * sizeof *r;
    }
    edit(&rs);
    for (size_t off = start; off < len;) {
        ompdag_trace_chunk *ch = (ompdag_trace_chunk *)(buf + off);
        ompdag_trace_rec *r = (ompdag_trace_rec *)(buf + off + sizeof *ch);
        ch->check = ompdag_trace_chunk_check(hh, ch->thread, ch->count, r);
        off += sizeof *ch + ch->count * sizeof *r;
    }
    static char path[160];
    snprintf(path, sizeof path, "%s/%s.trace", g_dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(buf, 1, len, f), len);
    fclose(f);
    free(rs.at), free(buf);
    /* the reader alone accepts it: only annotate can see what is wrong */
    ompdag_trace_summary s;
    ompdag_error err;
    cr_assert_eq(ompdag_trace_summarize(path, &s, &err), OMPDAG_OK, "%s: %s", name, err.message);
    return path;
}

/* Annotates data/depend.json with `trace`: the status; *dc its depend_check
 * (NULL on an error).  The set is returned for verdict checks. */
static ompdag_status annotate(const char *trace, ompdag_condag_set **set, json_t **dc,
                              ompdag_error *err)
{
    char path[512];
    snprintf(path, sizeof path, "%s/depend.json", OMPDAG_PROBE_DATA);
    ompdag_error e;
    cr_assert_eq(ompdag_condag_set_load_file(path, set, &e), OMPDAG_OK, "%s", e.message);
    ompdag_annotate_options opt;
    ompdag_annotate_options_init(&opt);
    ompdag_annotation *a;
    cr_assert_eq(ompdag_annotation_create(*set, &opt, &a, &e), OMPDAG_OK, "%s", e.message);
    ompdag_status st = ompdag_annotation_add_trace(a, trace, err);
    if (!st) st = ompdag_annotation_apply(a, err);
    ompdag_annotation_destroy(a);
    *dc = st ? NULL
             : json_object_get(ompdag_condag_extra(ompdag_condag_set_graph(*set, 0), -1),
                               "depend_check");
    return st;
}

/* The forged trace is refused, and the message names `what` and a task. */
static void assert_refused(const char *name, void (*edit)(recs *), const char *record,
                           const char *what)
{
    ompdag_condag_set *set;
    json_t *dc;
    ompdag_error err = {0};
    ompdag_status st = annotate(forged_trace(name, edit), &set, &dc, &err);
    cr_assert_neq(st, OMPDAG_OK, "%s: accepted", name);
    cr_assert(strstr(err.message, record) && strstr(err.message, "task 0x") &&
                  strstr(err.message, what),
              "%s: %s", name, err.message);
    ompdag_condag_set_destroy(set);
}

/* ---- pairs ------------------------------------------------------------------------------ */

static uint64_t unused_id(const recs *rs)
{
    const ompdag_trace_rec *p = find(rs, OMPDAG_REC_DEP_PAIR, NULL);
    cr_assert_not_null(p);
    return (p->id & ~((UINT64_C(1) << 40) - 1)) | 0xfffffff; /* no task of that thread */
}

static void pred_never_created(recs *rs)
{
    uint64_t id = unused_id(rs);
    find(rs, OMPDAG_REC_DEP_PAIR, NULL)->aux = id;
}

static bool implicit_segment(const ompdag_trace_rec *r)
{
    return (r->flags & OMPDAG_RECF_IMPLICIT) != 0;
}

static void pred_is_implicit_task(recs *rs)
{
    const ompdag_trace_rec *seg = find(rs, OMPDAG_REC_SEGMENT, implicit_segment);
    cr_assert_not_null(seg);
    find(rs, OMPDAG_REC_DEP_PAIR, NULL)->aux = seg->id;
}

static void pred_is_the_region(recs *rs)
{
    const ompdag_trace_rec *reg = find(rs, OMPDAG_REC_REGION_BEGIN, NULL);
    cr_assert_not_null(reg);
    find(rs, OMPDAG_REC_DEP_PAIR, NULL)->aux = reg->id;
}

static void succ_never_created(recs *rs)
{
    uint64_t id = unused_id(rs);
    ompdag_trace_rec *p = find(rs, OMPDAG_REC_DEP_PAIR, NULL);
    p->id = id;
}

Test(depend_forged, a_predecessor_never_created_is_an_error)
{
    assert_refused("pred_never", pred_never_created, "dependence pair", "predecessor");
}

Test(depend_forged, an_implicit_task_as_predecessor_is_an_error)
{
    assert_refused("pred_implicit", pred_is_implicit_task, "dependence pair", "predecessor");
}

Test(depend_forged, the_region_as_predecessor_is_an_error)
{
    assert_refused("pred_region", pred_is_the_region, "dependence pair", "predecessor");
}

Test(depend_forged, a_successor_never_created_is_an_error)
{
    assert_refused("succ_never", succ_never_created, "dependence pair", "successor never created");
}

/* ---- items ------------------------------------------------------------------------------ */

static bool of_a_longer_list(const ompdag_trace_rec *r)
{
    return r->cp_end >= 2 && r->cp_start == 1;
}

static void list_of_2_32_minus_1(recs *rs)
{
    ompdag_trace_rec *d = find(rs, OMPDAG_REC_DEPEND, NULL);
    cr_assert_not_null(d);
    d->cp_end = UINT32_MAX;
}

static void item_given_twice(recs *rs)
{
    ompdag_trace_rec *d = find(rs, OMPDAG_REC_DEPEND, of_a_longer_list);
    cr_assert_not_null(d, "no depend list of 2 items in progs/depend");
    d->cp_start = 0; /* a second item 0 of its task's list */
}

Test(depend_forged, a_list_of_2_32_minus_1_items_is_an_error)
{
    assert_refused("len_max", list_of_2_32_minus_1, "depend item", "longer than an int");
}

Test(depend_forged, an_item_given_twice_is_an_error)
{
    assert_refused("item_twice", item_given_twice, "depend item", "given twice");
}

static void mutexinoutset(recs *rs)
{
    find(rs, OMPDAG_REC_DEPEND, NULL)->flags = 4;
}

static void inoutset(recs *rs)
{
    find(rs, OMPDAG_REC_DEPEND, NULL)->flags = 7;
}

static void assert_unsafe_with(const char *name, void (*edit)(recs *), const char *why)
{
    ompdag_condag_set *set;
    json_t *dc;
    ompdag_error err = {0};
    cr_assert_eq(annotate(forged_trace(name, edit), &set, &dc, &err), OMPDAG_OK, "%s: %s", name,
                 err.message);
    cr_assert(json_is_object(dc), "%s: no depend_check", name);
    cr_assert_geq(json_integer_value(json_object_get(dc, "unsafe_disagreements")), 1, "%s", name);
    size_t i;
    const json_t *d, *found = NULL;
    json_array_foreach(json_object_get(dc, "disagreements"), i, d)
    {
        if (!strcmp(json_string_value(json_object_get(d, "kind")), "unmodelled_type")) found = d;
    }
    cr_assert_not_null(found, "%s: no unmodelled_type disagreement", name);
    cr_assert(json_is_true(json_object_get(found, "unsafe")));
    cr_assert(strstr(json_string_value(json_object_get(found, "message")), why), "%s",
              json_string_value(json_object_get(found, "message")));
    /* the graph carries the reason where every consumer looks */
    const json_t *unsafe =
        json_object_get(ompdag_condag_extra(ompdag_condag_set_graph(set, 0), -1), "unsafe");
    cr_assert_not_null(unsafe, "%s: the graph is not marked unsafe", name);
    ompdag_condag_set_destroy(set);
}

Test(depend_forged, a_mutexinoutset_item_makes_the_graph_unsafe)
{
    assert_unsafe_with("mutex", mutexinoutset, "mutual exclusion");
}

Test(depend_forged, an_inoutset_item_makes_the_graph_unsafe)
{
    assert_unsafe_with("inoutset", inoutset, "inoutset");
}
