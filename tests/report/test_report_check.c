/* tests/report/test_report_check.c — `ompdag check`: exit codes and
 * messages, refuted and unsafe regions whatever the deadline, and the
 * compiler plugin's deadline violations against a WCET database. */
#include "report_util.h"

/* ---- check: exit codes ------------------------------------------------------- */

Test(check, exit_codes)
{
    struct {
        const char *args;
        int status;
        const char *out; /* expected in stdout, or NULL */
    } cases[] = {
        {"check " FIXTURE, 0, "main: pass: bound 2.4 ms on 4 threads, deadline 5 ms"},
        {"check " FIXTURE " --deadline main=2ms", 1,
         "src/demo.c:10:1: error: main: bound 2.4 ms on 4 threads exceeds deadline 2 ms (main=2ms) "
         "by "
         "400 us [ompdag-deadline]"},
        {"check " FIXTURE " --deadline src/demo.c:10=2.4ms", 0, "slack 0 ns"},
        {"check " FIXTURE " --threads 1 --deadline main=3.15ms", 0, NULL},
        {"check " FIXTURE " --threads 1,4 --deadline main=3.1ms", 1, "on 1 threads exceeds"},
        {"check " FIXTURE " --require-deadline", 1, "worker: no deadline"},
        {"check " FIXTURE " --deadline worker=35ns --require-deadline", 0, NULL},
        {"check " FIXTURE " --deadline worker=34ns --quiet", 1, "worker: bound 35 ns"},
        {"check " FIXTURE " --deadline nosuch=1ms", 2, NULL},
        {"check " FIXTURE " --deadline main=5", 2, NULL},
        {"check " FIXTURE " --threads 0", 2, NULL},
        {"check " FIXTURE " --bogus", 2, NULL},
        {"check", 2, NULL},
        {"check /nonexistent/x.json", 1, NULL}, /* bad input: 1, as in every command */
        {"check " FIXTURE " --deadline main=", 2, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        run_result r = sh("ompdag %s", cases[i].args);
        cr_expect_eq(r.status, cases[i].status, "'%s' exited %d\n%s%s", cases[i].args, r.status,
                     r.out, r.err);
        if (cases[i].out)
            cr_expect(strstr(r.out, cases[i].out) != NULL, "'%s' stdout lacks '%s':\n%s",
                      cases[i].args, cases[i].out, r.out);
        if (cases[i].status == 2) cr_expect(r.err[0], "'%s' printed no message", cases[i].args);
        done(r);
    }
    /* the tied task of `worker` is warned about when it is checked */
    run_result r = sh("ompdag check " FIXTURE " --deadline worker=1ms");
    cr_expect(strstr(r.err, "src/demo.c:40:1: warning: worker: 1 tied task") != NULL, "%s", r.err);
    done(r);
    /* without any deadline: exit 0, with a note saying nothing was checked */
    r = sh("ompdag check examples/condag/figure5.json --threads 4");
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, "nothing was checked") != NULL, "%s", r.err);
    done(r);
    /* FIG3's stored runs (595 us) exceed its bound (227 us at m = 4): refuted
     * without any deadline */
    r = sh("ompdag check " FIG3 " --threads 4");
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "[ompdag-refuted]") != NULL, "%s", r.out);
    done(r);
}

/* Measurements outrank the proof (issue 12 §3): a clean observed run above the
 * bound is "refuted", and a file annotated with dropped segments "unsafe", in
 * every format and for check, whatever the deadline; interfered runs are
 * reported apart and refute nothing. */
Test(check, refuted_and_unsafe_whatever_the_deadline)
{
    const char *d = tmpdir();
    /* m = 4: bound 2.4 ms; a 3 ms clean run refutes it */
    run_result r = sh("sed 's/\\[1200000, 1500000, 900000\\]/[1200000, 3000000, 900000]/' " FIXTURE
                      " > %s/refuted.json && ompdag check %s/refuted.json --threads 4 "
                      "--deadline main=1s",
                      d, d);
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out,
                     "src/demo.c:10:1: error: main: refuted: a clean observed run took 3 ms, "
                     "longer than the bound 2.4 ms on 4 threads [ompdag-refuted]") != NULL,
              "%s", r.out);
    done(r);
    r = sh("ompdag check %s/refuted.json --threads 8", d); /* no deadline at all */
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "[ompdag-refuted]") != NULL, "%s", r.out);
    done(r);
    r = sh("ompdag report %s/refuted.json --threads 4 --format json", d);
    cr_expect(strstr(r.out, "\"verdict\": \"refuted\"") && strstr(r.out, "\"refuted\": 1"), "%s",
              r.out);
    done(r);
    r = sh("ompdag report %s/refuted.json --threads 4 --format csv", d);
    cr_expect(strstr(r.out, ",refuted,") != NULL, "%s", r.out);
    done(r);
    r = sh("ompdag report %s/refuted.json --threads 4 --format sarif", d);
    cr_expect(strstr(r.out, "ompdag-refuted") != NULL, "%s", r.out);
    done(r);
    r = sh("ompdag report %s/refuted.json --threads 4", d);
    cr_expect(strstr(r.out, "REFUTED: a clean run took 3 ms") != NULL, "%s", r.out);
    done(r);
    r = sh("ompdag report %s/refuted.json --threads 4 --format html", d);
    cr_expect(strstr(r.out, "REFUTED") != NULL, "html");
    done(r);
    /* the same 3 ms run, flagged as interfered: reported apart, refutes nothing */
    r = sh("sed 's/\\[1200000, 1500000, 900000\\]/[1200000, 3000000, 900000], "
           "\"observed_response_ns_interfered\": [false, true, false]/' " FIXTURE
           " > %s/interfered.json && ompdag check %s/interfered.json --threads 4 && "
           "ompdag report %s/interfered.json --threads 4 --format json",
           d, d, d);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "\"runs_interfered\": 1") &&
                  strstr(r.out, "\"observed_max_ns\": 1200000") &&
                  strstr(r.out, "\"observed_interfered_max_ns\": 3000000"),
              "%s", r.out);
    done(r);
    /* dropped segments: unsafe everywhere, never passed */
    r = sh("sed 's/\"deadline\": \"5ms\",/\"deadline\": \"5ms\", \"unsafe\": \"3 measured "
           "segments fit no path and were dropped (annotate --allow-unmapped)\",/' " FIXTURE
           " > %s/unsafe.json && ompdag check %s/unsafe.json --threads 4",
           d, d);
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "error: main: unsafe bound 2.4 ms on 4 threads: 3 measured segments") &&
                  strstr(r.out, "[ompdag-unsafe]"),
              "%s", r.out);
    done(r);
    r = sh("ompdag report %s/unsafe.json --threads 4 --format json && ompdag report %s/unsafe.json "
           "--threads 4 --format sarif && ompdag report %s/unsafe.json --threads 4",
           d, d, d);
    cr_expect(strstr(r.out, "\"verdict\": \"unsafe\"") && strstr(r.out, "ompdag-unsafe") &&
                  strstr(r.out, "UNSAFE: 3 measured segments"),
              "%s", r.out);
    done(r);
}

/* ---- plugin-side violations -------------------------------------------------- */

Test(violations, current_deadlines_against_wcet_database)
{
    ompdag_condag_set *db = load(FIXTURE);
    /* the freshly extracted graph: WCET 0, same region, a tighter deadline */
    const char *cur =
        "{\"format\":\"ompdag-condag-set\",\"version\":1,\"graphs\":["
        "{\"function\":\"main\",\"deadline\":\"2ms\",\"region_key\":\"src/demo.c:10\","
        "\"loc\":{\"file\":\"src/demo.c\",\"line\":10,\"col\":1},"
        "\"nodes\":[{\"id\":\"a\",\"task\":\"t\",\"kind\":\"N\",\"wcet\":0}],\"edges\":[]},"
        "{\"function\":\"other\",\"deadline\":\"1ns\",\"region_key\":\"src/other.c:3\","
        "\"nodes\":[{\"id\":\"a\",\"task\":\"t\",\"kind\":\"N\",\"wcet\":0}],\"edges\":[]}]}";
    ompdag_condag_set *current = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_condag_set_load_buffer(cur, strlen(cur), "cur", &current, &err), OMPDAG_OK,
                 "%s", err.message);
    ompdag_deadline_violation *v = NULL;
    size_t n = 0;
    cr_assert_eq(ompdag_deadline_violations(current, db, 0, &v, &n, &err), OMPDAG_OK, "%s",
                 err.message);
    cr_assert_eq(n, 1); /* `other` has no measurements: not checked */
    cr_expect_str_eq(v[0].message,
                     "bound 2.4 ms on 4 threads exceeds deadline 2 ms [ompdag-deadline]");
    cr_expect_str_eq(v[0].loc.file, "src/demo.c");
    cr_expect_eq(v[0].loc.line, 10);
    cr_expect_eq(v[0].m, 4);
    cr_expect_eq(v[0].bound_times_m, 9600);
    free(v);
    /* m = 8: 3150 + 7·2150 = 18200 us / 8 = 2.275 ms, still above 2 ms */
    cr_assert_eq(ompdag_deadline_violations(current, db, 8, &v, &n, &err), OMPDAG_OK);
    cr_expect_eq(n, 1);
    cr_expect_str_eq(v[0].message,
                     "bound 2.27 ms on 8 threads exceeds deadline 2 ms [ompdag-deadline]");
    free(v);
    /* the db against its own deadlines (5 ms): nothing */
    cr_assert_eq(ompdag_deadline_violations(NULL, db, 0, &v, &n, &err), OMPDAG_OK);
    cr_expect_eq(n, 0);
    cr_expect_null(v);
    ompdag_condag_set_destroy(current);
    ompdag_condag_set_destroy(db);
}
