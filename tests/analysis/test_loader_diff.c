/* tests/analysis/test_loader_diff.c — the scanner-based loader must accept
 * exactly what the all-jansson reference loader accepts, and build the same
 * graphs: on generated files, reformatted ones, and thousands of random
 * byte-level mutations of them. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static char *dump_set(const ompdag_condag_set *s)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < ompdag_condag_set_count(s); ++i)
        json_array_append_new(arr, ompdag_condag_to_json(ompdag_condag_set_graph(s, i)));
    char *text = json_dumps(arr, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(arr);
    return text;
}

static long accepted, rejected;

static void compare(const char *text, size_t len)
{
    ompdag_condag_set *a = NULL, *b = NULL;
    ompdag_error ea = {0}, eb = {0};
    ompdag_status sa = ompdag_condag_set_load_buffer(text, len, "x", &a, &ea);
    ompdag_status sb = condag_set_load_buffer_jansson(text, len, "x", &b, &eb);
    cr_assert_eq(sa == OMPDAG_OK, sb == OMPDAG_OK,
                 "loaders disagree on %.*s\nscanner: %s\njansson: %s", (int)(len > 300 ? 300 : len),
                 text, sa ? ea.message : "ok", sb ? eb.message : "ok");
    if (sa) {
        cr_assert(ea.message[0] != '\0');
        rejected++;
        return;
    }
    accepted++;
    char *da = dump_set(a), *db = dump_set(b);
    cr_assert_str_eq(da, db);
    free(da), free(db);
    ompdag_condag_set_destroy(a);
    ompdag_condag_set_destroy(b);
}

/* Overwrites, deletes or inserts a few bytes, favouring JSON punctuation. */
static size_t mutate(char *buf, size_t len, size_t cap, ompdag_rng *r)
{
    static const char alphabet[] = "{}[]\":,0123456789-.eE tfnul\\aTWNCJ";
    int edits = (int)ompdag_rng_range(r, 1, 3);
    for (int e = 0; e < edits && len > 1; ++e) {
        size_t at = (size_t)ompdag_rng_range(r, 0, (int64_t)len - 1);
        char c = alphabet[ompdag_rng_range(r, 0, sizeof alphabet - 2)];
        switch (ompdag_rng_range(r, 0, 2)) {
        case 0:
            buf[at] = c;
            break;
        case 1:
            memmove(buf + at, buf + at + 1, len - at - 1), len--;
            break;
        default:
            if (len + 1 < cap) {
                memmove(buf + at + 1, buf + at, len - at);
                buf[at] = c;
                len++;
            }
        }
    }
    return len;
}

static void check_text_and_mutations(const char *text, ompdag_rng *r, int mutations)
{
    size_t len = strlen(text), cap = len + 16;
    compare(text, len);
    char *buf = malloc(cap);
    for (int k = 0; k < mutations; ++k) {
        memcpy(buf, text, len);
        compare(buf, mutate(buf, len, cap, r));
    }
    free(buf);
}

Test(loader, scanner_agrees_with_jansson, .timeout = 240)
{
    ompdag_rng r;
    ompdag_rng_seed(&r, 1234);
    for (int i = 0; i < 300; ++i) {
        ompdag_condag *g = random_structured(&r);
        json_t *j = ompdag_condag_to_json(g);
        /* extras on a node and the graph, and unusual layouts */
        json_object_set_new(json_array_get(json_object_get(j, "nodes"), 0), "samples",
                            json_pack("[i,i]", 3, 4));
        json_object_set_new(j, "deadline", json_string("5ms"));
        char *compact = json_dumps(j, JSON_COMPACT);
        char *pretty = json_dumps(j, JSON_INDENT(3) | JSON_SORT_KEYS);
        json_t *set =
            json_pack("{s:s,s:i,s:[O]}", "format", "ompdag-condag-set", "version", 1, "graphs", j);
        json_object_del(json_array_get(json_object_get(set, "graphs"), 0), "format");
        char *as_set = json_dumps(set, 0);
        check_text_and_mutations(compact, &r, 30);
        check_text_and_mutations(pretty, &r, 10);
        check_text_and_mutations(as_set, &r, 10);
        free(compact), free(pretty), free(as_set);
        json_decref(set), json_decref(j);
        ompdag_condag_destroy(g);
    }
    cr_expect_gt(accepted, 300);
    cr_expect_gt(rejected, 5000);
}

Test(loader, edge_cases_agree)
{
    const char *cases[] = {
        "",
        " ",
        "{}",
        "[]",
        "null",
        "{\"format\":\"ompdag-condag\",\"version\":1}",
        "{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":[]}",
        "{\"nodes\":[{\"id\":\"a\",\"task\":\"t\",\"kind\":\"N\",\"wcet\":1}],"
        "\"format\":\"ompdag-condag\",\"version\":1}",
        "{\"format\":\"ompdag-condag\",\"version\":1,\"edges\":[],\"nodes\":[{\"id\":\"a\","
        "\"task\":\"t\",\"kind\":\"N\",\"wcet\":1,\"loc\":{\"x\":1,\"x\":2}}]}",
        "{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":[{\"id\":\"\\u00e9\\ud83d\\ude00\","
        "\"task\":\"t\",\"kind\":\"N\",\"wcet\":1}],\"graphs\":[{\"nodes\":[1]}]}",
        "{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":[{\"id\":\"a\",\"task\":\"t\","
        "\"kind\":\"N\",\"wcet\":-9223372036854775808}]}",
        "{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":[{\"id\":\"a\",\"task\":\"t\","
        "\"kind\":\"N\",\"wcet\":9223372036854775808}]}",
        "{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":[{\"id\":\"a\\u0000\",\"task\":"
        "\"t\","
        "\"kind\":\"N\",\"wcet\":1}]}",
        "{\"format\":\"ompdag-condag-set\",\"version\":1,\"graphs\":[5,{\"nodes\":[]}]}",
        "{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":[{\"id\":\"a\",\"task\":\"t\","
        "\"kind\":\"N\",\"wcet\":1e2}]}",
        "{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":[{\"id\":\"a\",\"task\":\"t\","
        "\"kind\":\"N\",\"wcet\":1}]} x",
        "{\"format\":\"ompdag-condag\",\"version\":1,\"nodes\":[{\"id\":\"\xc3\x28\",\"task\":"
        "\"t\","
        "\"kind\":\"N\",\"wcet\":1}]}",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        compare(cases[i], strlen(cases[i]));
}
