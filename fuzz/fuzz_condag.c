/*
 * fuzz/fuzz_condag.c — libFuzzer target for the con-DAG loader: any byte
 * string must either load into a graph whose bounds can be computed, or fail
 * with a message; never crash, leak or trip a sanitizer.  A loaded graph is
 * also analysed, reported (so a damaged "input" key, the recorded input's
 * DAG of docs/probe.md#input, meets report/report_input.c) and saved back,
 * so validation gaps surface as bad bounds.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ompdag/condag.h"
#include "ompdag/report.h"
#include "ompdag/rta.h"

static void analyse(const ompdag_condag *g)
{
    ompdag_rta_options opt;
    ompdag_rta_options_init(&opt, 3);
    opt.max_flows = 2000;
    ompdag_rta_result *ex = NULL, *en = NULL, *a0 = NULL;
    bool have_ex = ompdag_rta_run(g, OMPDAG_ALG_EXACT, &opt, &ex, NULL) == OMPDAG_OK;
    bool have_en = ompdag_rta_run(g, OMPDAG_ALG_ENUMERATE, &opt, &en, NULL) == OMPDAG_OK;
    bool have_a0 = ompdag_rta_run(g, OMPDAG_ALG_ALG0, &opt, &a0, NULL) == OMPDAG_OK;
    /* The oracle relation must hold on every graph the loader accepts (with
     * depend clauses: never below, and equal where the result claims exact). */
    if (have_ex && have_en &&
        ompdag_rta_result_bound_times_m(ex) != ompdag_rta_result_bound_times_m(en) &&
        (ompdag_rta_result_is_exact(ex) ||
         ompdag_rta_result_bound_times_m(ex) < ompdag_rta_result_bound_times_m(en)))
        __builtin_trap();
    if (have_ex && have_a0 &&
        ompdag_rta_result_bound_times_m(a0) < ompdag_rta_result_bound_times_m(ex))
        __builtin_trap();
    ompdag_rta_result_destroy(ex);
    ompdag_rta_result_destroy(en);
    ompdag_rta_result_destroy(a0);
}

/* The report at m = 2: it may refuse the set, with a message; when it
 * bounds a recorded input, that bound never exceeds the graph's. */
static void report(const ompdag_condag_set *s)
{
    ompdag_report_options opt;
    ompdag_report_options_init(&opt);
    int32_t m = 2;
    opt.threads = &m, opt.thread_count = 1;
    ompdag_report *r = NULL;
    ompdag_error err = {0};
    if (ompdag_report_create(s, &opt, &r, &err) != OMPDAG_OK) {
        assert(err.message[0] != '\0');
        return;
    }
    for (size_t i = 0; i < ompdag_report_row_count(r); ++i) {
        const ompdag_report_row *row = ompdag_report_row_get(r, i);
        if (row->input_bound_times_m > row->bound_times_m) __builtin_trap();
    }
    ompdag_report_destroy(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* This process's temporary directory for the save round trip, removed at exit
 * (one per process, not one left behind per run). */
static char save_dir[] = "/tmp/ompdag-fuzz-XXXXXX", save_tmp[64];

static void remove_save_dir(void)
{
    unlink(save_tmp);
    rmdir(save_dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ompdag_condag_set *s = NULL;
    ompdag_error err;
    if (ompdag_condag_set_load_buffer((const char *)data, size, "fuzz", &s, &err) != OMPDAG_OK) {
        assert(err.message[0] != '\0'); /* every failure explains itself */
        return 0;
    }
    for (size_t i = 0; i < ompdag_condag_set_count(s); ++i)
        analyse(ompdag_condag_set_graph(s, i));
    report(s);
    /* Save into this process's own temporary file, never a system path: run as
     * root, a save to /dev/null once replaced the device with a regular file. */
    if (!save_tmp[0] && mkdtemp(save_dir)) {
        snprintf(save_tmp, sizeof save_tmp, "%s/save.json", save_dir);
        atexit(remove_save_dir);
    }
    const char *tmp = save_tmp;
    if (!tmp[0]) {
        ompdag_condag_set_destroy(s);
        return 0;
    }
    if (ompdag_condag_set_save_file(s, tmp, false, NULL) == OMPDAG_OK) unlink(tmp);
    ompdag_condag_set_destroy(s);
    return 0;
}
