/* tests/analysis/test_model.c — the file format and every validation rule of
 * docs/condag.md §5, each with the message it must produce. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "ompdag/fileio.h"
#include "support.h"
#include "test_tmpdir.h"

#define HDR "{'format':'ompdag-condag','version':1,"
#define N(id, task, kind, w) "{'id':'" id "','task':'" task "','kind':'" kind "','wcet':" #w "}"

static void expect_error(const char *json, ompdag_status code, const char *needle)
{
    ompdag_error err = {0};
    ompdag_condag *g = load_graph(json, &err);
    cr_assert_null(g, "expected failure containing '%s'", needle);
    cr_expect_eq(err.code, code, "code %d for: %s", err.code, err.message);
    cr_expect(strstr(err.message, needle) != NULL, "message '%s' lacks '%s'", err.message, needle);
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
    expect_error(HDR "'nodes':[" N("a", "t", "N",
                                   1) ","
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
    expect_error(
        HDR "'nodes':[" N("a", "t", "N", 1) "," N("x", "t", "N", 1) "," N("y", "t", "N", 1) "," N(
            "j", "t", "J", 0) "],"
                              "'edges':[['a','x'],['a','y'],['x','j'],['y','j']]}",
        OMPDAG_ERR_INVALID, "N node 'a' has 2 F-successors; only C nodes may branch");
    expect_error(
        HDR "'nodes':[" N("c", "t", "C", 1) "," N("x", "t", "N", 1) "," N("y", "t", "N", 1) "," N(
            "w", "t", "W", 0) "],"
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
        HDR "'name':'demo','function':'main','threads':4,'region_key':'a.c:3','loc':{'file':'a.c','"
            "line':3},"
            "'nodes':[{'id':'a','task':'t','kind':'T','wcet':7,'creates':'u','untied':false,"
            "'loc':{'file':'a.c','line':5,'col':9},'label':'task'}," N("b", "u", "N", 3) "," N(
                "w", "t", "W", 2) "],'edges':[['a','w']]}");
    const char *path = test_tmp("roundtrip.json");
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
    char path[640];
    snprintf(path, sizeof path, "%s", test_tmp("atomic"));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
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

/* Regression (reliability issue, item 1): the atomic writer renamed its temp
 * file over whatever PATH was, so `-o /dev/full` or the fuzz replay's save to
 * /dev/null (run as root) replaced a device with a regular file.  These tests
 * use a FIFO and links in their own temporary directory, never system paths. */
static char *scratch_dir(void)
{
    static char dir[640];
    static int k;
    char name[16];
    snprintf(name, sizeof name, "io%d", k++);
    snprintf(dir, sizeof dir, "%s", test_tmp(name));
    cr_assert_eq(mkdir(dir, 0700), 0, "%s", dir);
    return dir;
}

static ompdag_status write_text(const char *path, const char *text, ompdag_error *err)
{
    ompdag_atomic_file *f;
    ompdag_status st = ompdag_atomic_file_open(path, &f, err);
    if (st != OMPDAG_OK) return st;
    fputs(text, ompdag_atomic_file_stream(f));
    return ompdag_atomic_file_commit(f, err);
}

static char *read_text(const char *path)
{
    static char buf[256];
    memset(buf, 0, sizeof buf);
    FILE *in = fopen(path, "r");
    cr_assert_not_null(in, "%s", path);
    size_t n = fread(buf, 1, sizeof buf - 1, in);
    buf[n] = '\0';
    fclose(in);
    return buf;
}

static void *drain_fifo(void *path)
{
    static char got[64];
    FILE *in = fopen(path, "r");
    size_t n = in ? fread(got, 1, sizeof got - 1, in) : 0;
    got[n] = '\0';
    if (in) fclose(in);
    return got;
}

Test(io, writing_to_a_fifo_writes_through_and_keeps_the_fifo)
{
    char path[128];
    snprintf(path, sizeof path, "%s/pipe", scratch_dir());
    cr_assert_eq(mkfifo(path, 0600), 0);
    pthread_t reader;
    pthread_create(&reader, NULL, drain_fifo, path);
    ompdag_error err;
    cr_assert_eq(write_text(path, "through", &err), OMPDAG_OK, "%s", err.message);
    void *got;
    pthread_join(reader, &got);
    cr_expect_str_eq((char *)got, "through");
    struct stat st;
    cr_assert_eq(lstat(path, &st), 0);
    cr_expect(S_ISFIFO(st.st_mode), "the FIFO was replaced");
    unlink(path);
}

Test(io, writing_through_a_symlink_replaces_the_target_and_keeps_the_link)
{
    char *dir = scratch_dir(), target[128], link[128];
    snprintf(target, sizeof target, "%s/target", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    cr_assert_eq(write_text(target, "old", NULL), OMPDAG_OK);
    cr_assert_eq(symlink("target", link), 0);
    cr_assert_eq(write_text(link, "new", NULL), OMPDAG_OK);
    struct stat st;
    cr_assert_eq(lstat(link, &st), 0);
    cr_expect(S_ISLNK(st.st_mode), "the link was replaced by a file");
    cr_expect_str_eq(read_text(target), "new");
    unlink(link);
    unlink(target);
}

Test(io, a_dangling_symlink_creates_its_target)
{
    char *dir = scratch_dir(), target[128], link[128];
    snprintf(target, sizeof target, "%s/later", dir);
    snprintf(link, sizeof link, "%s/dangling", dir);
    cr_assert_eq(symlink("later", link), 0);
    cr_assert_eq(write_text(link, "made", NULL), OMPDAG_OK);
    struct stat st;
    cr_assert_eq(lstat(link, &st), 0);
    cr_expect(S_ISLNK(st.st_mode));
    cr_expect_str_eq(read_text(target), "made");
    unlink(link);
    unlink(target);
}

/* Issue 26 items 13 and 14: a symlink loop given to -o was replaced by a
 * regular file; an atomic write re-created the file with the default mode
 * (0600 became 0644, world-readable) and silently detached hard links. */
Test(io, a_symlink_loop_is_refused_and_kept)
{
    char *dir = scratch_dir(), a[128], b[128];
    snprintf(a, sizeof a, "%s/loop_a", dir);
    snprintf(b, sizeof b, "%s/loop_b", dir);
    cr_assert_eq(symlink("loop_b", a), 0);
    cr_assert_eq(symlink("loop_a", b), 0);
    ompdag_error err;
    cr_expect_eq(write_text(a, "x", &err), OMPDAG_ERR_IO);
    cr_expect(strstr(err.message, "loop_a") && strstr(err.message, "symbolic links"), "%s",
              err.message);
    struct stat st;
    cr_expect(lstat(a, &st) == 0 && S_ISLNK(st.st_mode), "the link was replaced");
    cr_expect(lstat(b, &st) == 0 && S_ISLNK(st.st_mode), "the link was replaced");
    unlink(a), unlink(b);
}

Test(io, rewriting_a_file_keeps_its_mode)
{
    char path[128];
    snprintf(path, sizeof path, "%s/private.json", scratch_dir());
    const mode_t modes[] = {0600, 0755, 0640};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; ++i) {
        cr_assert_eq(write_text(path, "old", NULL), OMPDAG_OK);
        cr_assert_eq(chmod(path, modes[i]), 0);
        cr_assert_eq(write_text(path, "new", NULL), OMPDAG_OK);
        struct stat st;
        cr_assert_eq(stat(path, &st), 0);
        cr_expect_eq(st.st_mode & 07777, modes[i], "mode %o became %o", (unsigned)modes[i],
                     (unsigned)(st.st_mode & 07777));
        cr_expect_str_eq(read_text(path), "new");
    }
    unlink(path);
}

Test(io, a_file_with_hard_links_is_written_in_place)
{
    char *dir = scratch_dir(), path[128], other[128];
    snprintf(path, sizeof path, "%s/linked.json", dir);
    snprintf(other, sizeof other, "%s/other-name.json", dir);
    cr_assert_eq(write_text(path, "old", NULL), OMPDAG_OK);
    cr_assert_eq(link(path, other), 0);
    cr_assert_eq(write_text(path, "new", NULL), OMPDAG_OK);
    cr_expect_str_eq(read_text(other), "new", "the second link kept the old content");
    struct stat a, b;
    cr_assert(stat(path, &a) == 0 && stat(other, &b) == 0);
    cr_expect_eq(a.st_ino, b.st_ino, "the links were detached");
    unlink(path), unlink(other);
}

/* Issue 26 item 18: `-o newdir/` and `-o missing/x.json` said "cannot create
 * a temporary file", which names nothing the user did. */
Test(io, a_missing_directory_is_named_as_such)
{
    char path[160];
    ompdag_error err;
    snprintf(path, sizeof path, "%s/newdir/", scratch_dir());
    cr_expect_eq(write_text(path, "x", &err), OMPDAG_ERR_IO);
    cr_expect(strstr(err.message, "names a directory"), "%s", err.message);
    snprintf(path, sizeof path, "%s/missing/x.json", scratch_dir());
    cr_expect_eq(write_text(path, "x", &err), OMPDAG_ERR_IO);
    cr_expect(strstr(err.message, "/missing' does not exist"), "%s", err.message);
    cr_expect_null(strstr(err.message, "temporary"), "%s", err.message);
}

/* Issue 26 item 18: -o through a link to a pipe (/proc/self/fd/N on a pipe
 * reads "pipe:[123]") failed: the link was resolved by hand to a file that
 * cannot exist.  It is written through. */
Test(io, a_link_to_a_pipe_is_written_through)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fds[1]);
    ompdag_error err = {0};
    cr_assert_eq(write_text(path, "piped", &err), OMPDAG_OK, "%s", err.message);
    close(fds[1]);
    char got[16] = "";
    ssize_t n = read(fds[0], got, sizeof got - 1);
    close(fds[0]);
    cr_assert_geq(n, 0);
    got[n] = '\0';
    cr_expect_str_eq(got, "piped");
}

Test(io, a_directory_is_refused_by_name)
{
    char *dir = scratch_dir();
    ompdag_error err;
    cr_expect_eq(write_text(dir, "x", &err), OMPDAG_ERR_IO);
    cr_expect(strstr(err.message, "is a directory") != NULL, "%s", err.message);
    struct stat st;
    cr_expect(stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
}

Test(io, a_name_of_254_characters_can_be_written)
{
    char *dir = scratch_dir(), path[512];
    int n = snprintf(path, sizeof path, "%s/", dir);
    memset(path + n, 'x', 254);
    path[n + 254] = '\0';
    ompdag_error err;
    cr_expect_eq(write_text(path, "long", &err), OMPDAG_OK, "%s", err.message);
    cr_expect_str_eq(read_text(path), "long");
    unlink(path);
}

/* Issue 17, item 7: SIGINT or SIGTERM during `-o OUT` left OUT's temporary
 * file behind.  The child opens the atomic file, writes, and is killed by
 * the signal mid-write; it must die of that signal with the directory as it
 * was (the old OUT intact, no temporary). */
static int entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

Test(io, a_signal_during_a_write_removes_the_temporary_file)
{
    const int sigs[] = {SIGINT, SIGTERM};
    for (int k = 0; k < 2; ++k) {
        char *dir = scratch_dir(), out[700];
        snprintf(out, sizeof out, "%s/OUT", dir);
        cr_assert_eq(write_text(out, "old", NULL), OMPDAG_OK);
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
            ompdag_atomic_file *f;
            if (ompdag_atomic_file_open(out, &f, NULL) != OMPDAG_OK) _exit(3);
            for (int i = 0; i < 100000; ++i)
                fputs("partial output\n", ompdag_atomic_file_stream(f));
            if (entries_in(dir) != 2) /* OUT and its temporary */
                _exit(4);
            raise(sigs[k]);
            _exit(5); /* not reached: the signal's default action ends the process */
        }
        int st;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == sigs[k], "signal %d: status %#x", sigs[k], st);
        cr_expect_eq(entries_in(dir), 1, "signal %d left a temporary file", sigs[k]);
        cr_expect_str_eq(read_text(out), "old");
    }
}
