/*
 * cli/frontend_load.c — the libclang front end, loaded only for `extract`.
 *
 * The front end (plugin/, include/ompdag/frontend.h) links libclang and
 * libLLVM, which are large and absent on many machines (the GPU machines
 * among them).  The `ompdag` command therefore does not link it: it loads
 * libompdag_frontend.so with dlopen() the first time `extract` needs it, and
 * the functions below forward to it.  Every other command runs without LLVM.
 *
 * Where the module is looked for, first hit wins:
 *   1. $OMPDAG_FRONTEND_LIB
 *   2. <dir of this executable>/OMPDAG_PKGLIBDIR_FROM_BIN/libompdag_frontend.so
 *      (the installed layout: bin/../lib/ompdag)
 *   3. <dir of this executable>/../plugin/libompdag_frontend.so (build tree)
 * Nothing absolute is compiled in, so an installed tree can be moved.
 *
 * A test binary that links the front end statically compiles this file with
 * OMPDAG_FRONTEND_LINKED: then cli_frontend_load() just says yes.
 *
 * Adding a function to frontend.h: add one FE_FORWARD line below.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ompdag/frontend.h"

#ifndef OMPDAG_PKGLIBDIR_FROM_BIN
#define OMPDAG_PKGLIBDIR_FROM_BIN "../lib/ompdag"
#endif

#ifdef OMPDAG_FRONTEND_LINKED

bool cli_frontend_load(ompdag_error *err)
{
    (void)err;
    return true;
}

#else

#define FRONTEND_SO "libompdag_frontend.so"

/* One function pointer per forwarded function, filled by load_symbols(). */
static struct {
    void *handle;
    ompdag_frontend *(*create)(void);
    void (*destroy)(ompdag_frontend *);
    ompdag_status (*set_recursion_bound)(ompdag_frontend *, int32_t, ompdag_error *);
    ompdag_status (*set_loop_bound)(ompdag_frontend *, int32_t, ompdag_error *);
    ompdag_status (*set_node_limit)(ompdag_frontend *, int32_t, ompdag_error *);
    ompdag_status (*set_team_size)(ompdag_frontend *, int32_t, ompdag_error *);
    ompdag_status (*assume)(ompdag_frontend *, const char *, ompdag_error *);
    ompdag_status (*extract_project)(ompdag_frontend *, int, const char *const *,
                                     const char *const *const *, const int *, int,
                                     ompdag_condag_set **, ompdag_error *);
    ompdag_status (*extract)(ompdag_frontend *, const char *, const char *const *, int,
                             ompdag_condag_set **, ompdag_error *);
    size_t (*diag_count)(const ompdag_frontend *);
    const ompdag_frontend_diag *(*diag_at)(const ompdag_frontend *, size_t);
    void (*print_diags)(const ompdag_frontend *, FILE *);
} fe_api;

/* Appends "\n  TEXT[SUFFIX]" to `why` (n bytes), cutting what does not fit. */
static void note(char *why, size_t n, const char *text, const char *suffix)
{
    size_t used = strlen(why);
    if (used + 1 < n && snprintf(why + used, n - used, "\n  %s%s", text, suffix) < 0) why[used] = 0;
}

/* Tries one path; on failure appends dlerror() to `why`. */
static void *open_candidate(const char *path, char *why, size_t n)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) note(why, n, dlerror(), "");
    return h;
}

static void *open_module(char *why, size_t n)
{
    const char *env = getenv("OMPDAG_FRONTEND_LIB");
    if (env && *env) return open_candidate(env, why, n);
    char dir[PATH_MAX];
    if (!cli_exe_dir(dir, sizeof dir)) {
        note(why, n, "cannot read /proc/self/exe", "");
        return NULL;
    }
    const char *rel[] = {OMPDAG_PKGLIBDIR_FROM_BIN "/" FRONTEND_SO, "../plugin/" FRONTEND_SO};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; ++i) {
        char cand[PATH_MAX + 64];
        snprintf(cand, sizeof cand, "%s/%s", dir, rel[i]);
        if (access(cand, R_OK) != 0) {
            note(why, n, cand, ": not found");
            continue;
        }
        void *h = open_candidate(cand, why, n);
        if (h) return h;
    }
    return NULL;
}

#define FE_FORWARD(field, symbol)                                                                  \
    if (ok && !(*(void **)&fe_api.field = dlsym(fe_api.handle, symbol)))                           \
        ok = false, missing = symbol;

static bool load_symbols(ompdag_error *err)
{
    bool ok = true;
    const char *missing = NULL;
    FE_FORWARD(create, "ompdag_frontend_create")
    FE_FORWARD(destroy, "ompdag_frontend_destroy")
    FE_FORWARD(set_recursion_bound, "ompdag_frontend_set_recursion_bound")
    FE_FORWARD(set_loop_bound, "ompdag_frontend_set_loop_bound")
    FE_FORWARD(set_node_limit, "ompdag_frontend_set_node_limit")
    FE_FORWARD(set_team_size, "ompdag_frontend_set_team_size")
    FE_FORWARD(assume, "ompdag_frontend_assume")
    FE_FORWARD(extract_project, "ompdag_frontend_extract_project")
    FE_FORWARD(extract, "ompdag_frontend_extract")
    FE_FORWARD(diag_count, "ompdag_frontend_diag_count")
    FE_FORWARD(diag_at, "ompdag_frontend_diag_at")
    FE_FORWARD(print_diags, "ompdag_frontend_print_diags")
    if (!ok)
        ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                         "the front end module lacks %s: it does not match this ompdag", missing);
    return ok;
}

bool cli_frontend_load(ompdag_error *err)
{
    if (fe_api.handle) return true;
#ifndef OMPDAG_HAVE_FRONTEND
    ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                     "this ompdag was built without libclang, so `extract` is not available "
                     "(install libclang-dev and rebuild; every other command works)");
    if (!getenv("OMPDAG_FRONTEND_LIB")) return false;
#endif
    char why[2048] = "";
    fe_api.handle = open_module(why, sizeof why);
    if (!fe_api.handle) {
        ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                         "`extract` needs the libclang front end " FRONTEND_SO
                         ", which could not be loaded (is libclang installed? "
                         "$OMPDAG_FRONTEND_LIB names the module):%s",
                         why);
        return false;
    }
    if (!load_symbols(err)) {
        dlclose(fe_api.handle);
        fe_api.handle = NULL;
        return false;
    }
    return true;
}

/* ---- forwarding functions (only called after cli_frontend_load()) ---------- */

ompdag_frontend *ompdag_frontend_create(void)
{
    return fe_api.create ? fe_api.create() : NULL;
}

void ompdag_frontend_destroy(ompdag_frontend *fe)
{
    if (fe && fe_api.destroy) fe_api.destroy(fe);
}

ompdag_status ompdag_frontend_set_recursion_bound(ompdag_frontend *fe, int32_t bound,
                                                  ompdag_error *err)
{
    return fe_api.set_recursion_bound(fe, bound, err);
}

ompdag_status ompdag_frontend_set_loop_bound(ompdag_frontend *fe, int32_t bound, ompdag_error *err)
{
    return fe_api.set_loop_bound(fe, bound, err);
}

ompdag_status ompdag_frontend_extract_project(ompdag_frontend *fe, int nsources,
                                              const char *const *sources,
                                              const char *const *const *args, const int *nargs,
                                              int nregions, ompdag_condag_set **out,
                                              ompdag_error *err)
{
    return fe_api.extract_project(fe, nsources, sources, args, nargs, nregions, out, err);
}

ompdag_status ompdag_frontend_set_node_limit(ompdag_frontend *fe, int32_t limit, ompdag_error *err)
{
    return fe_api.set_node_limit(fe, limit, err);
}

ompdag_status ompdag_frontend_set_team_size(ompdag_frontend *fe, int32_t n, ompdag_error *err)
{
    return fe_api.set_team_size(fe, n, err);
}

ompdag_status ompdag_frontend_assume(ompdag_frontend *fe, const char *assignment, ompdag_error *err)
{
    return fe_api.assume(fe, assignment, err);
}

ompdag_status ompdag_frontend_extract(ompdag_frontend *fe, const char *source_path,
                                      const char *const *args, int nargs, ompdag_condag_set **out,
                                      ompdag_error *err)
{
    return fe_api.extract(fe, source_path, args, nargs, out, err);
}

size_t ompdag_frontend_diag_count(const ompdag_frontend *fe)
{
    return fe_api.diag_count(fe);
}

const ompdag_frontend_diag *ompdag_frontend_diag_at(const ompdag_frontend *fe, size_t i)
{
    return fe_api.diag_at(fe, i);
}

void ompdag_frontend_print_diags(const ompdag_frontend *fe, FILE *out)
{
    fe_api.print_diags(fe, out);
}

#endif
