/* tests/analysis/test_model.c — the file format and every validation rule of
 * shared/spec/condag.md §5, each with the message it must produce. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ompdag/fileio.h"
#include "support.h"

#define HDR "{'format':'ompdag-condag','version':1,"
#define N(id, task, kind, w) "{'id':'" id "','task':'" task "','kind':'" kind "','wcet':" #w "}"

static void expect_error(const char *json, ompdag_status code, const char *needle)
{
    ompdag_error err = {0};
    ompdag_condag *g = load_graph(json, &err);
    cr_assert_null(g, "expected failure containing '%s'", needle);
    cr_expect_eq(err.code, code, "code %d for: %s", err.code, err.message);
    cr_expect(strstr(err.message, needle) != NULL, "message '%s' lacks '%s'", err.message,
              needle);
}

Test(format, syntax_error_has_line_and_column)
{
    expect_error("{\n'format': 'ompdag-condag',\n  'version': 1,,\n}", OMPDAG_ERR_PARSE,
                 "test.json:3:");
}

Test(format, wrong_format_and_version)
{
    expect_error("{'format':'other','version':1,'nodes':[]}", OMPDAG_ERR_INVALID, "'format'");
    expect_error("{'format':'ompdag-condag','version':2,'nodes':[]}", OMPDAG_ERR_UNSUPPORTED,
                 "version 2");
    expect_error("{'format':'ompdag-condag','version':'1','nodes':[]}", OMPDAG_ERR_INVALID,
                 "'version'");
    expect_error("[1,2]", OMPDAG_ERR_INVALID, "top level");
}

Test(format, duplicate_json_key)
{
    expect_error(HDR "'nodes':[{'id':'a','id':'b','task':'t','kind':'N','wcet':1}]}",
                 OMPDAG_ERR_PARSE, "duplicate");
}

Test(format, unknown_kind)
{
    expect_error(HDR "'nodes':[" N("a", "t", "X", 1) "]}", OMPDAG_ERR_INVALID, "node 'a'");
}

Test(format, wrong_types)
{
    expect_error(HDR "'nodes':[{'id':'a','task':'t','kind':'N','wcet':'5'}]}", OMPDAG_ERR_INVALID,
                 "'wcet' must be a non-negative integer");
    expect_error(HDR "'nodes':[{'id':'a','task':'t','kind':'N','wcet':1.5}]}", OMPDAG_ERR_INVALID,
                 "'wcet'");
    expect_error(HDR "'nodes':[{'id':'a','task':'t','kind':'N','wcet':-1}]}", OMPDAG_ERR_INVALID,
                 "'wcet'");
    expect_error(HDR "'nodes':[{'id':7,'task':'t','kind':'N','wcet':1}]}", OMPDAG_ERR_INVALID,
                 "nodes[0]: 'id'");
    expect_error(HDR "'nodes':[{'id':'a','task':'t','kind':'N','wcet':1,'loc':{'line':'x'}}]}",
                 OMPDAG_ERR_INVALID, "'loc.line'");
    expect_error(HDR "'nodes':[" N("a", "t", "N", 1) "],'edges':[['a']]}", OMPDAG_ERR_INVALID,
                 "edges[0] must be a pair");
    expect_error(HDR "'threads':0,'nodes':[" N("a", "t", "N", 1) "]}", OMPDAG_ERR_INVALID,
                 "'threads'");
}

Test(format, missing_fields)
{
    expect_error(HDR "'nodes':[{'id':'a','kind':'N','wcet':1}]}", OMPDAG_ERR_INVALID,
                 "node 'a' (nodes[0]): 'task'");
    expect_error(HDR "'nodes':[{'id':'a','task':'t','kind':'N'}]}", OMPDAG_ERR_INVALID, "'wcet'");
    expect_error(HDR "'edges':[]}", OMPDAG_ERR_INVALID, "missing array 'nodes'");
    expect_error(HDR "'nodes':[]}", OMPDAG_ERR_INVALID, "no nodes");
}

Test(rules, creates_required_on_t_only)
{
    expect_error(HDR "'nodes':[" N("a", "t", "T", 1) "]}", OMPDAG_ERR_INVALID,
                 "node 'a': a T node needs 'creates'");
    expect_error(HDR "'nodes':[{'id':'a','task':'t','kind':'N','wcet':1,'creates':'u'}," N(
                     "b", "u", "N", 1) "]}",
                 OMPDAG_ERR_INVALID, "'creates' is only allowed on T nodes");
    expect_error(HDR "'nodes':[{'id':'a','task':'t','kind':'T','wcet':1,'creates':'zz'}]}",
                 OMPDAG_ERR_INVALID, "creates task 'zz', which has no nodes");
}

Test(rules, duplicate_id)
{
    expect_error(HDR "'nodes':[" N("a", "t", "N", 1) "," N("a", "t", "N", 2) "]}",
                 OMPDAG_ERR_INVALID, "duplicate node id 'a'");
}

Test(rules, unknown_edge_endpoint)
{
    expect_error(HDR "'nodes':[" N("a", "t", "N", 1) "],'edges':[['a','q']]}", OMPDAG_ERR_INVALID,
                 "edges[0]: unknown node 'q'");
}

Test(rules, edge_across_tasks)
{
    expect_error(HDR "'nodes':[{'id':'a','task':'t','kind':'T','wcet':1,'creates':'u'}," N(
                     "b", "u", "N", 1) "],'edges':[['a','b']]}",
                 OMPDAG_ERR_INVALID, "crosses tasks ('t' and 'u')");
}

Test(rules, several_sources_and_sinks)
{
    expect_error(HDR "'nodes':[" N("a", "t", "N", 1) "," N("b", "t", "N", 1) "," N(
                     "j", "t", "J", 1) "],'edges':[['a','j'],['b','j']]}",
                 OMPDAG_ERR_INVALID, "task 't' has several sources ('a' and 'b'");
    expect_error(HDR "'nodes':[" N("a", "t", "N", 1) "," N("b", "t", "N", 1) "]}",
                 OMPDAG_ERR_INVALID, "task 't' has several sources");
    expect_error(HDR "'nodes':[" N("c", "t", "C", 0) "," N("x", "t", "N", 1) "," N(
                     "y", "t", "N", 1) "],'edges':[['c','x'],['c','y']]}",
                 OMPDAG_ERR_INVALID, "task 't' has several sinks ('x' and 'y'");
}

Test(rules, task_created_twice)
{
    expect_error(HDR "'nodes':[{'id':'a','task':'t','kind':'T','wcet':1,'creates':'u'},"
                     "{'id':'b','task':'t','kind':'T','wcet':1,'creates':'u'}," N(
                         "c", "u", "N", 1) "],'edges':[['a','b']]}",
                 OMPDAG_ERR_INVALID, "task 'u' is created twice (by nodes 'a' and 'b')");
}

Test(rules, unreachable_task)
{
    expect_error(HDR "'nodes':[" N("a", "t", "N", 1) "," N("b", "u", "N", 1) "]}",
                 OMPDAG_ERR_INVALID, "task 'u' is unreachable");
    /* u and v create each other: both have creators but neither descends from t */
    expect_error(HDR "'nodes':[" N("a", "t", "N", 1) ","
                     "{'id':'b','task':'u','kind':'T','wcet':1,'creates':'v'},"
                     "{'id':'c','task':'v','kind':'T','wcet':1,'creates':'u'}]}",
                 OMPDAG_ERR_INVALID, "unreachable from the root task 't'");
    expect_error(HDR "'nodes':[{'id':'b','task':'u','kind':'T','wcet':1,'creates':'u'}]}",
                 OMPDAG_ERR_INVALID, "no root task");
}

Test(rules, cycle)
{
    expect_error(HDR "'nodes':[" N("a", "t", "N", 1) "," N("j", "t", "J", 1) "," N(
                     "b", "t", "N", 1) "],'edges':[['a','j'],['j','b'],['b','j']]}",
                 OMPDAG_ERR_INVALID, "cycle through node");
    expect_error(HDR "'nodes':[" N("a", "t", "N", 1) "],'edges':[['a','a']]}", OMPDAG_ERR_INVALID,
                 "self-loop");
}

Test(rules, edge_listed_twice)
{
    expect_error(HDR "'nodes':[" N("c", "t", "C", 0) "," N("x", "t", "N", 1) "," N(
                     "j", "t", "J", 0) "],'edges':[['c','x'],['c','j'],['x','j'],['c','x']]}",
                 OMPDAG_ERR_INVALID, "edge 'c' -> 'x' is listed twice");
}

Test(rules, only_c_branches_and_only_j_joins)
{
    expect_error(HDR "'nodes':[" N("a", "t", "N", 1) "," N("x", "t", "N", 1) "," N(
                     "y", "t", "N", 1) "," N("j", "t", "J", 0) "],"
                     "'edges':[['a','x'],['a','y'],['x','j'],['y','j']]}",
                 OMPDAG_ERR_INVALID, "N node 'a' has 2 F-successors; only C nodes may branch");
    expect_error(HDR "'nodes':[" N("c", "t", "C", 1) "," N("x", "t", "N", 1) "," N(
                     "y", "t", "N", 1) "," N("w", "t", "W", 0) "],"
                     "'edges':[['c','x'],['c','y'],['x','w'],['y','w']]}",
                 OMPDAG_ERR_INVALID, "W node 'w' has 2 F-predecessors; only J nodes may join");
    expect_error(HDR "'nodes':[" N("c", "t", "C", 1) "," N("x", "t", "N", 1) "],"
                     "'edges':[['c','x']]}",
                 OMPDAG_ERR_INVALID, "C node 'c' has 1 F-successor");
}

Test(rules, wcet_sum_overflow)
{
    expect_error(HDR "'nodes':[" N("a", "t", "N", 9223372036854775807) "," N(
                     "b", "t", "N", 1) "],'edges':[['a','b']]}",
                 OMPDAG_ERR_OVERFLOW, "node 'b'");
}

Test(rules, errors_name_the_graph_in_a_set)
{
    ompdag_error err;
    ompdag_condag_set *s = NULL;
    const char *j = "{\"format\":\"ompdag-condag-set\",\"version\":1,\"graphs\":["
                    "{\"function\":\"f\",\"nodes\":[{\"id\":\"a\",\"task\":\"t\",\"kind\":\"N\","
                    "\"wcet\":1}]},{\"function\":\"g\",\"nodes\":[]}]}";
    cr_assert_neq(ompdag_condag_set_load_buffer(j, strlen(j), "x.json", &s, &err), OMPDAG_OK);
    cr_expect(strstr(err.message, "x.json: graphs[1] ('g')") != NULL, "%s", err.message);
}

Test(io, roundtrip_keeps_structure_and_unknown_keys)
{
    ompdag_condag_set *s = load_set_ok(
        HDR "'name':'demo','function':'main','threads':4,'region_key':'a.c:3','loc':{'file':'a.c','line':3},"
            "'nodes':[{'id':'a','task':'t','kind':'T','wcet':7,'creates':'u','untied':false,"
            "'loc':{'file':'a.c','line':5,'col':9},'label':'task'}," N("b", "u", "N", 3) ","
            N("w", "t", "W", 2) "],'edges':[['a','w']]}");
    char path[] = "/tmp/ompdag-roundtrip-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_save_file(s, path, false, &err), OMPDAG_OK, "%s", err.message);
    ompdag_condag_set *t = NULL;
    cr_assert_eq(ompdag_condag_set_load_file(path, &t, &err), OMPDAG_OK, "%s", err.message);
    unlink(path);
    ompdag_condag *g = ompdag_condag_set_graph(t, 0);
    cr_expect(ompdag_condag_set_was_single(t));
    cr_expect_str_eq(ompdag_condag_function(g), "main");
    cr_expect_eq(ompdag_condag_threads(g), 4);
    cr_expect_eq(ompdag_condag_region_loc(g).line, 3);
    int32_t a = node_index(g, "a");
    cr_expect_eq(ompdag_condag_node_loc(g, a).col, 9);
    cr_expect_str_eq(ompdag_condag_node_label(g, a), "task");
    cr_expect(json_is_false(json_object_get(ompdag_condag_extra(g, a), "untied")));
    cr_expect_str_eq(json_string_value(json_object_get(ompdag_condag_extra(g, -1), "region_key")),
                     "a.c:3");
    cr_expect_eq(bound_of(g, OMPDAG_ALG_EXACT, 2),
                 bound_of(ompdag_condag_set_graph(s, 0), OMPDAG_ALG_EXACT, 2));
    ompdag_condag_set_destroy(s);
    ompdag_condag_set_destroy(t);
}

Test(io, atomic_write_leaves_old_file_on_abort)
{
    char path[] = "/tmp/ompdag-atomic-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(write(fd, "old", 3) == 3);
    close(fd);
    ompdag_atomic_file *f;
    cr_assert_eq(ompdag_atomic_file_open(path, &f, NULL), OMPDAG_OK);
    fputs("new", ompdag_atomic_file_stream(f));
    ompdag_atomic_file_abort(f);
    char buf[8] = {0};
    FILE *in = fopen(path, "r");
    cr_assert(fread(buf, 1, sizeof buf - 1, in) == 3);
    fclose(in);
    cr_expect_str_eq(buf, "old");
    cr_assert_eq(ompdag_atomic_file_open(path, &f, NULL), OMPDAG_OK);
    fputs("new", ompdag_atomic_file_stream(f));
    cr_assert_eq(ompdag_atomic_file_commit(f, NULL), OMPDAG_OK);
    in = fopen(path, "r");
    cr_assert(fread(buf, 1, sizeof buf - 1, in) == 3);
    fclose(in);
    cr_expect_str_eq(buf, "new");
    unlink(path);
}

Test(io, missing_file_names_path)
{
    ompdag_condag_set *s;
    ompdag_error err;
    cr_assert_eq(ompdag_condag_set_load_file("/nonexistent/x.json", &s, &err), OMPDAG_ERR_IO);
    cr_expect(strstr(err.message, "/nonexistent/x.json") != NULL);
}
