/*
 * plugin/frontend.c — the public front-end API (include/ompdag/frontend.h):
 * parse one translation unit, or every unit of a project, with libclang
 * (pragma arguments that are constant expressions evaluated on the way),
 * index the functions of all units (a call into another unit is resolved
 * by USR), find the parallel regions of each unit's main file, and hand
 * each region's private graph to the ompdag builder
 * (include/ompdag/condag.h).
 *
 * The helpers every fe_*.c file shares (vectors, strings, diagnostics,
 * files) live in fe_util.c.
 *
 * Why OpenMP is off: with -fopenmp, libclang's C API does not walk the
 * CapturedStmt behind each directive, so task bodies would be invisible.
 * Parsing with _OPENMP=201811 defined keeps `#ifdef _OPENMP` code, and
 * fe_pragma.c recovers the directives from the token stream.
 */
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fe_depend.h"
#include "fe_mutex.h"
#include "fe_internal.h"
#include "ompdag/compact.h"

/* ---- lifecycle -------------------------------------------------------------- */

ompdag_frontend *ompdag_frontend_create(void)
{
    ompdag_frontend *fe = calloc(1, sizeof *fe);
    if (fe) {
        fe->node_limit = 100000;
        fe->unroll_limit = 4096;
    }
    return fe;
}

static void clear_run(ompdag_frontend *fe)
{
    for (int32_t i = 0; i < fe->nfuncs; ++i) {
        free(fe->funcs[i].name);
        free(fe->funcs[i].deadline);
        free(fe->funcs[i].usr);
        fe_vec_free(&fe->funcs[i].callees);
    }
    free(fe->funcs);
    fe->funcs = NULL;
    fe->nfuncs = 0;
    for (int32_t i = 0; i < fe->nfiles; ++i)
        fe_file_free(fe->files[i]);
    free(fe->files);
    fe->files = NULL;
    fe->nfiles = 0;
}

static void clear_units(ompdag_frontend *fe)
{
    clear_run(fe);
    for (int32_t u = 0; u < fe->nunits; ++u)
        if (fe->units[u].tu) clang_disposeTranslationUnit(fe->units[u].tu);
    free(fe->units);
    fe->units = NULL;
    fe_extern_cache_free(fe->externs);
    fe->externs = NULL;
    fe->nunits = 0;
    fe->tu = NULL;
}

static void clear_cargs(ompdag_frontend *fe)
{
    for (int32_t i = 0; i < fe->ncargs; ++i) {
        free(fe->cargs[i].clause);
        free(fe->cargs[i].expr);
        free(fe->cargs[i].file);
    }
    free(fe->cargs);
    fe->cargs = NULL;
    fe->ncargs = 0;
}

static void clear_diags(ompdag_frontend *fe)
{
    for (size_t i = 0; i < fe->nstrings; ++i)
        free(fe->strings[i]);
    fe->nstrings = 0;
    fe->diags.n = 0;
}

void ompdag_frontend_destroy(ompdag_frontend *fe)
{
    if (!fe) return;
    clear_units(fe);
    clear_cargs(fe);
    clear_diags(fe);
    fe_assume_free(fe);
    free(fe->strings);
    free(fe->diags.d);
    free(fe);
}

ompdag_status ompdag_frontend_set_recursion_bound(ompdag_frontend *fe, int32_t bound,
                                                  ompdag_error *err)
{
    if (!fe || bound < 0)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "recursion bound must be >= 0");
    fe->recursion_bound = bound;
    return OMPDAG_OK;
}

ompdag_status ompdag_frontend_set_loop_bound(ompdag_frontend *fe, int32_t bound, ompdag_error *err)
{
    if (!fe || bound < 0) /* above the unroll limit, loops stay compact (fe_loop.c) */
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "loop bound must be >= 0");
    fe->loop_bound = bound;
    return OMPDAG_OK;
}

ompdag_status ompdag_frontend_set_team_size(ompdag_frontend *fe, int32_t n, ompdag_error *err)
{
    if (!fe || n < 0 || n > 4096)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "team size must be in 0..4096");
    fe->team_size = n;
    return OMPDAG_OK;
}

ompdag_status ompdag_frontend_set_node_limit(ompdag_frontend *fe, int32_t limit, ompdag_error *err)
{
    if (!fe || limit < 1)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "node limit must be >= 1");
    fe->node_limit = limit;
    return OMPDAG_OK;
}

size_t ompdag_frontend_diag_count(const ompdag_frontend *fe)
{
    return fe ? fe->diags.n : 0;
}

const ompdag_frontend_diag *ompdag_frontend_diag_at(const ompdag_frontend *fe, size_t i)
{
    return fe && i < fe->diags.n ? &fe->diags.d[i] : NULL;
}

static const char *severity_name(ompdag_diag_severity s)
{
    return s == OMPDAG_DIAG_ERROR ? "error" : s == OMPDAG_DIAG_WARNING ? "warning" : "note";
}

void ompdag_frontend_print_diags(const ompdag_frontend *fe, FILE *out)
{
    for (size_t i = 0; fe && i < fe->diags.n; ++i) {
        const ompdag_frontend_diag *d = &fe->diags.d[i];
        fprintf(out, "%s:%d:%d: %s: %s\n", d->loc.file, d->loc.line, d->loc.col,
                severity_name(d->severity), d->message);
    }
}

/* ---- parsing ------------------------------------------------------------------ */

/* Flags that only matter to code generation or to the build system. */
static int skip_arg(const char *a, const char *next_is_value)
{
    (void)next_is_value;
    static const char *const with_value[] = {"-o", "-MF", "-MT", "-MQ", "-Xclang", NULL};
    for (const char *const *w = with_value; *w; ++w)
        if (!strcmp(a, *w)) return 2;
    if (!strcmp(a, "-fopenmp") || !strncmp(a, "-fopenmp=", 9) || !strncmp(a, "-fopenmp-", 9) ||
        !strncmp(a, "-fplugin", 8) || !strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-E") ||
        !strcmp(a, "-MD") || !strcmp(a, "-MMD") || !strcmp(a, "-MP") || !strcmp(a, "-M") ||
        !strcmp(a, "-MM") || !strncmp(a, "-Werror", 7) || !strncmp(a, "-MF", 3) ||
        !strncmp(a, "-MT", 3) || !strncmp(a, "-MQ", 3) ||
        (!strncmp(a, "-o", 2) && a[2] && strncmp(a, "-objc", 5))) /* -oFILE */
        return 1;
    return 0;
}

/* clang's omp.h declares omp_is_initial_device() twice inside
 * `#pragma omp begin declare variant` blocks when _OPENMP >= 201811; with
 * OpenMP off the pragmas vanish and the two static definitions clash.  This
 * header, included first (it exists only in memory), reads omp.h as OpenMP
 * 4.5, and omp.h's include guard makes the program's own #include a no-op. */
#define OMP_SHIM_PATH "/__ompdag__/omp_shim.h"
static const char omp_shim[] = "#pragma push_macro(\"_OPENMP\")\n"
                               "#undef _OPENMP\n"
                               "#define _OPENMP 201511\n"
                               "#if __has_include(<omp.h>)\n"
                               "#include <omp.h>\n"
                               "#endif\n"
                               "#pragma pop_macro(\"_OPENMP\")\n";

/* The _OPENMP value clang uses for -fopenmp-version=N (default 5.0). */
static const char *openmp_macro(const char *const *args, int nargs)
{
    static const struct {
        const char *version, *define;
    } table[] = {{"31", "-D_OPENMP=201107"}, {"40", "-D_OPENMP=201307"},
                 {"45", "-D_OPENMP=201511"}, {"50", "-D_OPENMP=201811"},
                 {"51", "-D_OPENMP=202011"}, {"52", "-D_OPENMP=202111"}};
    const char *def = "-D_OPENMP=201811";
    for (int i = 0; i < nargs; ++i)
        if (!strncmp(args[i], "-fopenmp-version=", 17))
            for (size_t k = 0; k < sizeof table / sizeof table[0]; ++k)
                if (!strcmp(args[i] + 17, table[k].version)) def = table[k].define;
    return def;
}

static const char **build_args(const char *const *args, int nargs, int *out_n)
{
    const char **v = calloc((size_t)nargs + 6, sizeof *v);
    if (!v) return NULL;
    int n = 0;
    v[n++] = openmp_macro(args, nargs);
    v[n++] = "-include";
    v[n++] = OMP_SHIM_PATH;
    v[n++] = "-Wno-unknown-pragmas";
    v[n++] = "-Wno-source-uses-openmp";
    for (int i = 0; i < nargs; ++i) {
        int skip = skip_arg(args[i], i + 1 < nargs ? args[i + 1] : NULL);
        if (skip) {
            i += skip - 1;
            continue;
        }
        v[n++] = args[i];
    }
    *out_n = n;
    return v;
}

static bool report_clang_errors(ompdag_frontend *fe, const fe_unit *unit, bool *had_error)
{
    unsigned nd = clang_getNumDiagnostics(fe->tu);
    for (unsigned i = 0; i < nd; ++i) {
        CXDiagnostic d = clang_getDiagnostic(fe->tu, i);
        CXFile file;
        unsigned line, col, off;
        clang_getExpansionLocation(clang_getDiagnosticLocation(d), &file, &line, &col, &off);
        bool appended = unit->const_from && file && clang_File_isEqual(file, unit->main) &&
                        off >= unit->const_from;
        if (!appended && clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
            CXString fname = clang_getFileName(file);
            CXString msg = clang_getDiagnosticSpelling(d);
            bool ok = fe_diag(fe, OMPDAG_DIAG_ERROR, clang_getCString(fname), (int32_t)line,
                              (int32_t)col, "%s", clang_getCString(msg));
            clang_disposeString(fname);
            clang_disposeString(msg);
            *had_error = true;
            if (!ok) {
                clang_disposeDiagnostic(d);
                return false;
            }
        }
        clang_disposeDiagnostic(d);
    }
    return true;
}

/* ---- the function index -------------------------------------------------------- */

typedef struct index_state {
    ompdag_frontend *fe;
    int32_t unit;
    bool nomem;
} index_state;

/* Applies `#pragma ompdag` lines that sit between the previous top-level
 * declaration and this function to the function. */
static bool read_function_pragmas(ompdag_frontend *fe, fe_func *fn)
{
    fe_file *f = fn->file;
    for (int32_t i = fe_pragma_lower_bound(f, f->last_toplevel_end);
         i < f->npragmas && f->pragmas[i].begin < fn->begin; ++i) {
        const fe_pragma *p = &f->pragmas[i];
        const fe_clause *arg = fe_pragma_clause(p, "");
        if (p->dir == FE_DIR_RECURSION_BOUND) {
            long v = 0;
            if (!fe_clause_value(fe, f, p, "", &v) || v < 1 || v > 64) {
                if (!fe_diag(fe, OMPDAG_DIAG_ERROR, f->name, p->line, p->col,
                             "'#pragma ompdag recursion_bound(%s)' needs a constant expression "
                             "between 1 and 64",
                             arg && arg->arg ? arg->arg : ""))
                    return false;
                continue;
            }
            fn->recursion_bound = (int32_t)v;
        } else if (p->dir == FE_DIR_DEADLINE && arg && arg->arg) {
            free(fn->deadline);
            fn->deadline = fe_strdup(arg->arg);
            if (!fn->deadline) return false;
        }
    }
    return true;
}

static enum CXChildVisitResult index_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    index_state *st = data;
    ompdag_frontend *fe = st->fe;
    CXSourceLocation loc = clang_getCursorLocation(c);
    if (clang_Location_isInSystemHeader(loc) || !clang_isDeclaration(clang_getCursorKind(c)))
        return CXChildVisit_Continue;
    fe_span sp = fe_cursor_span(c);
    if (!sp.file) return CXChildVisit_Continue;
    fe_file *f = fe_file_get(fe, sp.file);
    if (!f) {
        st->nomem = true;
        return CXChildVisit_Break;
    }
    if (clang_getCursorKind(c) == CXCursor_FunctionDecl && clang_isCursorDefinition(c)) {
        fe_func *nf = realloc(fe->funcs, sizeof *nf * (size_t)(fe->nfuncs + 1));
        if (!nf) {
            st->nomem = true;
            return CXChildVisit_Break;
        }
        fe->funcs = nf;
        fe_func *fn = &fe->funcs[fe->nfuncs++];
        memset(fn, 0, sizeof *fn);
        fn->cursor = c;
        fn->hash = clang_hashCursor(c);
        fn->unit = st->unit;
        fn->external = clang_getCursorLinkage(c) == CXLinkage_External;
        CXString usr = clang_getCursorUSR(c);
        fn->usr = fe_strdup(clang_getCString(usr));
        clang_disposeString(usr);
        CXString name = clang_getCursorSpelling(c);
        fn->name = fe_strdup(clang_getCString(name));
        clang_disposeString(name);
        fn->file = f;
        fn->begin = sp.begin;
        fn->end = sp.end;
        if (!fn->name || !fn->usr || !read_function_pragmas(fe, fn)) {
            st->nomem = true;
            return CXChildVisit_Break;
        }
    }
    if (sp.end > f->last_toplevel_end) f->last_toplevel_end = sp.end;
    return CXChildVisit_Continue;
}

typedef struct callee_state {
    ompdag_frontend *fe;
    fe_func *fn;
    bool nomem;
} callee_state;

static enum CXChildVisitResult callee_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    callee_state *st = data;
    if (clang_getCursorKind(c) == CXCursor_CallExpr) {
        /* A blocking call makes the function one the region builder walks,
         * so the call is refused wherever task code reaches it. */
        if (fe_is_blocking_call(c)) st->fn->significant = true;
        int32_t callee = fe_func_of_call(st->fe, c);
        if (callee >= 0 && !fe_vec_push_unique(&st->fn->callees, callee)) {
            st->nomem = true;
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}


/* Counts, for every TU function, references and direct calls: more
 * references than calls means its address is taken. */
static enum CXChildVisitResult refs_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    ompdag_frontend *fe = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (clang_Location_isInSystemHeader(clang_getCursorLocation(c))) return CXChildVisit_Continue;
    if (k == CXCursor_CallExpr) {
        int32_t f = fe_func_of_call(fe, c);
        if (f >= 0) fe->funcs[f].calls++;
    } else if (k == CXCursor_DeclRefExpr) {
        CXCursor ref = clang_getCursorReferenced(c);
        if (clang_getCursorKind(ref) == CXCursor_FunctionDecl) {
            int32_t f = fe_func_index(fe, ref);
            if (f >= 0) fe->funcs[f].refs++;
        }
    }
    return CXChildVisit_Recurse;
}

static bool dir_is_significant(fe_dir d)
{
    switch (d) {
    case FE_DIR_PLAIN:
    case FE_DIR_IGNORED_STANDALONE:
    case FE_DIR_OUTSIDE:
    case FE_DIR_LOOP_BOUND:
    case FE_DIR_RECURSION_BOUND:
    case FE_DIR_DEADLINE:
    case FE_DIR_RESOURCE:
    case FE_DIR_OMPDAG_UNKNOWN:
        return false;
    default:
        return true;
    }
}

/* Indexes function definitions, their TU callees and which ones contain
 * (transitively) directives that the region builder must see. */
static bool index_functions(ompdag_frontend *fe)
{
    for (int32_t u = 0; u < fe->nunits; ++u) {
        index_state st = {fe, u, false};
        fe->tu = fe->units[u].tu;
        clang_visitChildren(clang_getTranslationUnitCursor(fe->tu), index_visit, &st);
        if (st.nomem) return false;
    }
    for (int32_t i = 0; i < fe->nfuncs; ++i) {
        fe_func *fn = &fe->funcs[i];
        callee_state cs = {fe, fn, false};
        clang_visitChildren(fn->cursor, callee_visit, &cs);
        if (cs.nomem) return false;
        for (int32_t k = fe_pragma_lower_bound(fn->file, fn->begin);
             k < fn->file->npragmas && fn->file->pragmas[k].begin < fn->end; ++k) {
            const fe_pragma *p = &fn->file->pragmas[k];
            if (dir_is_significant(p->dir)) fn->significant = true;
            if (p->dir == FE_DIR_TASK || strstr(p->name, "taskloop")) fn->tasks = true;
        }
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (int32_t i = 0; i < fe->nfuncs; ++i) {
            fe_func *fn = &fe->funcs[i];
            for (int32_t k = 0; k < fn->callees.n; ++k) {
                const fe_func *c = &fe->funcs[fn->callees.v[k]];
                if (c->significant && !fn->significant) fn->significant = changed = true;
                if (c->tasks && !fn->tasks) fn->tasks = changed = true;
            }
        }
    }
    for (int32_t u = 0; u < fe->nunits; ++u)
        clang_visitChildren(clang_getTranslationUnitCursor(fe->units[u].tu), refs_visit, fe);
    fe->fnptr_func = -1;
    for (int32_t i = 0; i < fe->nfuncs && fe->fnptr_func < 0; ++i)
        if (fe->funcs[i].significant && fe->funcs[i].refs > fe->funcs[i].calls) fe->fnptr_func = i;
    return true;
}

/* ---- finding regions -------------------------------------------------------------- */

static bool is_parallel(fe_dir d)
{
    return d == FE_DIR_PARALLEL || d == FE_DIR_PARALLEL_MASTER || d == FE_DIR_PARALLEL_OTHER;
}

/* DISPAR's node classes (seed 001), for `ompdag map`: a region is CG (CPU +
 * GPU) when it carries `#pragma ompdag resource(gpu)` (in its pragma chain,
 * directly above it, or inside it), launches a CUDA kernel (`<<<`), or calls
 * ompdag_offload_for with a GPU body (third argument not NULL or 0); else CO.
 * Only the region's own text is read: calls are not followed. */
static bool offload_call_has_gpu_body(const char *t, const char *end)
{
    int depth = 0, arg = 0;
    const char *start = NULL;
    for (const char *q = strchr(t, '('); q && q < end; ++q) {
        if (*q == '(' && depth++ == 0) {
            continue;
        } else if (*q == ')' && --depth == 0) {
            break;
        } else if (*q == ',' && depth == 1 && ++arg == 2) {
            start = q + 1;
        } else if (*q == ',' && depth == 1 && arg == 3 && start) {
            while (*start == ' ' || *start == '\n' || *start == '\t')
                ++start;
            size_t n = (size_t)(q - start);
            while (n && (start[n - 1] == ' ' || start[n - 1] == '\n' || start[n - 1] == '\t'))
                --n;
            return !((n == 4 && !strncmp(start, "NULL", 4)) || (n == 1 && start[0] == '0') ||
                     (n == 9 && !strncmp(start, "(void *)0", 9)));
        }
    }
    return false;
}

static bool resource_gpu(const fe_pragma *p)
{
    const fe_clause *c = p->dir == FE_DIR_RESOURCE ? fe_pragma_clause(p, "") : NULL;
    return c && c->arg && !strcmp(c->arg, "gpu");
}

static const char *region_class(const fe_file *f, const fe_region_input *in, fe_span sp)
{
    int32_t above = in->first_pragma - 1;
    if (above >= 0 && resource_gpu(&f->pragmas[above])) return "CG";
    for (int32_t i = in->first_pragma; i < f->npragmas && f->pragmas[i].begin < sp.end; ++i)
        if (resource_gpu(&f->pragmas[i])) return "CG";
    char *text = strndup(f->text + sp.begin, sp.end - sp.begin);
    bool cg = false;
    if (text) {
        cg = strstr(text, "<<<") != NULL;
        for (const char *q = text; !cg && (q = strstr(q, "ompdag_offload_for")); ++q)
            cg = offload_call_has_gpu_body(q, text + strlen(text));
        free(text);
    }
    return cg ? "CG" : "CO";
}

/* The graph's extra keys; "assumptions" states the input it is built for
 * (--assume, fe_assume.c), so reports can say which input the bound covers. */
static json_t *region_extra(const ompdag_frontend *fe, int32_t fi, const fe_file *f,
                            const fe_pragma *p, const char *deadline, const char *cls)
{
    char key[4096];
    snprintf(key, sizeof key, "%s:%d", f->name, p->line);
    bool nomem;
    json_t *assumed = fe_assume_json(fe, fi, &nomem);
    json_t *o = nomem ? NULL : json_object();
    if (!o) {
        json_decref(assumed);
        return NULL;
    }
    if (json_object_set_new(o, "region_key", json_string(key)) ||
        json_object_set_new(o, "resource_class", json_string(cls)) ||
        (assumed && json_object_set_new(o, "assumptions", assumed)) ||
        (deadline && json_object_set_new(o, "deadline", json_string(deadline)))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Copies the private graph into a new ompdag_condag and finalizes it. */
static ompdag_status emit_graph(ompdag_frontend *fe, const fe_func *fn, const fe_file *f,
                                const fe_pragma *p, const fe_region_output *ro, ompdag_condag **out,
                                ompdag_error *err)
{
    ompdag_condag *g = ompdag_condag_create();
    if (!g) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    char name[512], id[32], task[32], creates[32];
    snprintf(name, sizeof name, "%s:%d", fn->name, p->line);
    ompdag_status st = ompdag_condag_assign_name(g, name);
    if (!st) st = ompdag_condag_assign_function(g, fn->name);
    if (!st) st = ompdag_condag_assign_region_loc(g, (ompdag_loc){f->name, p->line, p->col});
    ompdag_condag_assign_threads(g, ro->threads);
    if (!st && ro->g.loops) st = ompdag_compact_enable_loops(g, err); /* fe_loop.c */
    if (!st && ro->g.shared && !ro->g.loops) st = ompdag_compact_enable(g, err); /* fe_share.c */
    json_t *extra =
        region_extra(fe, (int32_t)(fn - fe->funcs), f, p, ro->deadline, ro->resource_class);
    if (!st && !extra) st = OMPDAG_ERR_NOMEM;
    /* tasks from every thread (fe_team.c): the team the graph holds, whose
     * bound is for m = team (docs/plugin.md#team) */
    if (!st && ro->g.team > 0 && json_object_set_new(extra, "team", json_integer(ro->g.team)))
        st = OMPDAG_ERR_NOMEM;
    if (!st) st = ompdag_condag_assign_extra(g, -1, extra);
    json_decref(extra);
    if (st) {
        ompdag_condag_destroy(g);
        return ompdag_error_set(err, st, "cannot build graph %s", name);
    }
    fe_dep_region *dep_region = fe_depend_region_new(&ro->g);
    if (!dep_region) {
        ompdag_condag_destroy(g);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "cannot build graph %s", name);
    }
    for (int32_t v = 0; !st && v < ro->g.n; ++v) {
        const fe_node *nd = &ro->g.nodes[v];
        snprintf(id, sizeof id, "n%d", v + 1);
        snprintf(task, sizeof task, "t%d", nd->task + 1);
        snprintf(creates, sizeof creates, "t%d", nd->creates + 1);
        ompdag_node_spec spec = {id,
                                 task,
                                 (ompdag_kind)nd->kind,
                                 0,
                                 nd->kind == 'T' ? creates : NULL,
                                 {nd->file, nd->line, nd->col},
                                 nd->label};
        int32_t idx;
        st = ompdag_condag_add_node(g, &spec, &idx, err);
        if (!st && nd->repeat) st = ompdag_compact_set_repeat(g, idx, nd->repeat, err);
        if (!st && nd->kind == 'T') {
            json_t *x = json_pack("{s:b}", "untied", ro->g.tasks[nd->creates].untied);
            if (x && !fe_features_add(fe, nd, x)) json_decref(x), x = NULL; /* advisor */
            st = x ? ompdag_condag_assign_extra(g, idx, x) : OMPDAG_ERR_NOMEM;
            json_decref(x);
        }
        if (!st && (nd->kind == 'T' || nd->kind == 'W')) /* W: a partial taskwait's items */
            st = fe_depend_emit(&ro->g, v, dep_region, g, idx, err);
        if (!st) st = fe_mutex_emit(&ro->g, v, g, idx, err); /* docs/mutex.md */
    }
    fe_depend_region_free(dep_region);
    for (int32_t v = 0; !st && v < ro->g.n; ++v)
        for (int32_t k = 0; !st && k < ro->g.nodes[v].succ.n; ++k)
            st = ompdag_condag_add_edge(g, v, ro->g.nodes[v].succ.v[k], err);
    if (!st) st = ompdag_condag_finalize(g, err);
    if (!st && ro->g.shared && fe_mutex_any(&ro->g)) {
        /* the blocking term counts every instance of a section: unfold */
        ompdag_condag *x = NULL;
        st = ompdag_compact_expand(g, fe->node_limit, &x, err);
        ompdag_condag_destroy(g);
        g = x;
    }
    if (st) {
        ompdag_condag_destroy(g);
        return st;
    }
    *out = g;
    return OMPDAG_OK;
}

/* Extracts every region of function fn; refusals become diagnostics. */
static ompdag_status extract_function(ompdag_frontend *fe, int32_t fi, ompdag_condag_set *set,
                                      ompdag_error *err)
{
    fe_func *fn = &fe->funcs[fi];
    fe_file *f = fn->file;
    unsigned skip_until = 0;
    for (int32_t i = fe_pragma_lower_bound(f, fn->begin);
         i < f->npragmas && f->pragmas[i].begin < fn->end; ++i) {
        const fe_pragma *p = &f->pragmas[i];
        if (!is_parallel(p->dir) || p->begin < skip_until) continue;
        fe_first_after fa = {f->file, p->end, clang_getNullCursor(), false};
        clang_visitChildren(fn->cursor, fe_first_after_visit, &fa);
        if (!fa.hit) {
            if (!fe_diag(fe, OMPDAG_DIAG_ERROR, f->name, p->line, p->col,
                         "'#pragma omp %s' is not followed by a statement", p->name))
                return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
            continue;
        }
        fe_span sp = fe_cursor_span(fa.found);
        fe_region_input in = {fi, f, i, i, fa.found};
        while (in.last_pragma + 1 < f->npragmas && f->pragmas[in.last_pragma + 1].begin < sp.begin)
            in.last_pragma++;
        skip_until = sp.end;
        fe_region_output ro = {0};
        bool nomem = false;
        bool ok = fe_build_region(fe, &in, &ro, &nomem);
        ompdag_status st = OMPDAG_OK;
        if (nomem) {
            st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        } else if (ok && ro.has_graph) {
            if (!ro.deadline && fn->deadline) ro.deadline = fe_strdup(fn->deadline);
            ro.resource_class = region_class(f, &in, sp);
            ompdag_condag *g = NULL;
            st = emit_graph(fe, fn, f, p, &ro, &g, err);
            if (!st) st = ompdag_condag_set_add(set, g, err);
            if (st) ompdag_condag_destroy(g);
        }
        fe_graph_free(&ro.g);
        free(ro.deadline);
        if (st) return st;
    }
    return OMPDAG_OK;
}

static bool has_errors(const ompdag_frontend *fe)
{
    for (size_t i = 0; i < fe->diags.n; ++i)
        if (fe->diags.d[i].severity == OMPDAG_DIAG_ERROR) return true;
    return false;
}

static ompdag_status first_error(const ompdag_frontend *fe, ompdag_status code, ompdag_error *err)
{
    for (size_t i = 0; i < fe->diags.n; ++i) {
        const ompdag_frontend_diag *d = &fe->diags.d[i];
        if (d->severity == OMPDAG_DIAG_ERROR)
            return ompdag_error_set(err, code, "%s:%d:%d: error: %s", d->loc.file, d->loc.line,
                                    d->loc.col, d->message);
    }
    return ompdag_error_set(err, code, "extraction failed");
}

/* Indexes every unit, then extracts the regions of the units that want
 * them (functions of their main files). */
static ompdag_status extract_units(ompdag_frontend *fe, ompdag_condag_set *set, ompdag_error *err)
{
    bool clang_errors = false;
    for (int32_t u = 0; u < fe->nunits; ++u) {
        fe->tu = fe->units[u].tu;
        if (!report_clang_errors(fe, &fe->units[u], &clang_errors))
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    if (clang_errors) return first_error(fe, OMPDAG_ERR_PARSE, err);
    if (!index_functions(fe) || !fe_assume_collect_pragmas(fe))
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    for (int32_t i = 0; i < fe->nfuncs; ++i) {
        CXSourceLocation loc = clang_getCursorLocation(fe->funcs[i].cursor);
        if (!fe->units[fe->funcs[i].unit].regions || !clang_Location_isFromMainFile(loc) ||
            !fe->funcs[i].significant)
            continue;
        fe->tu = fe->units[fe->funcs[i].unit].tu;
        ompdag_status st = extract_function(fe, i, set, err);
        if (st) return st;
    }
    if (!fe_assume_finish(fe)) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    return has_errors(fe) ? first_error(fe, OMPDAG_ERR_UNSUPPORTED, err) : OMPDAG_OK;
}

static enum CXErrorCode parse(ompdag_frontend *fe, CXIndex idx, const char *path,
                              const char *const *argv, int n, struct CXUnsavedFile *uf,
                              unsigned nuf)
{
    return clang_parseTranslationUnit2(
        idx, path, argv, n, uf, nuf,
        CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_KeepGoing, &fe->tu);
}

/* Pragma arguments that are not literals (macros, `NB * 2`, sizeof) are
 * evaluated by libclang: the main file is parsed again with one
 * `static const long long` declaration per argument appended at its end
 * (line numbers above stay the same), and each declaration whose line has
 * no error is evaluated.  Errors in the appended text are not the
 * program's and are not reported.  The unit's tu is replaced.  Returns a
 * libclang error code. */
static enum CXErrorCode prepare_const_args(ompdag_frontend *fe, fe_unit *unit, CXIndex idx,
                                           const char *path, const char *const *argv, int n,
                                           struct CXUnsavedFile shim, bool *nomem)
{
    fe->tu = unit->tu;
    unit->main = fe_main_cxfile(unit->tu);
    fe_file *f = unit->main ? fe_file_get(fe, unit->main) : NULL;
    if (unit->main && !f) return *nomem = true, CXError_Success;
    int32_t first = fe->ncargs;
    if (!f || !fe_collect_const_args(fe, f)) return *nomem = !!f, CXError_Success;
    if (fe->ncargs == first) return CXError_Success;
    size_t cap = f->size + 2;
    for (int32_t k = first; k < fe->ncargs; ++k)
        cap += strlen(fe->cargs[k].expr) + sizeof CONST_ARG_PREFIX + 64;
    char *text = malloc(cap);
    CXString rp = clang_File_tryGetRealPathName(unit->main);
    const char *rps = clang_getCString(rp);
    char *real = fe_strdup(rps && *rps ? rps : f->name);
    clang_disposeString(rp);
    for (int32_t k = first; k < fe->ncargs; ++k)
        if (!(fe->cargs[k].file = fe_strdup(f->name))) *nomem = true;
    if (!text || !real || *nomem) {
        free(text);
        free(real);
        return *nomem = true, CXError_Success;
    }
    memcpy(text, f->text, f->size);
    size_t len = f->size;
    text[len++] = '\n';
    unsigned from = (unsigned)len;
    for (int32_t k = first; k < fe->ncargs; ++k)
        len +=
            (size_t)snprintf(text + len, cap - len,
                             "static const long long " CONST_ARG_PREFIX "%d = (long long)(%s);\n",
                             k, fe->cargs[k].expr);
    clear_run(fe);
    clang_disposeTranslationUnit(unit->tu);
    unit->tu = fe->tu = NULL;
    struct CXUnsavedFile uf[2] = {shim, {real, text, (unsigned long)len}};
    enum CXErrorCode ec = parse(fe, idx, path, argv, n, uf, 2);
    unit->tu = fe->tu;
    free(text);
    free(real);
    if (ec != CXError_Success || !unit->tu) return ec;
    unit->main = fe_main_cxfile(unit->tu);
    if (!unit->main) return *nomem = true, CXError_Success;
    unit->const_from = from;
    if (!fe_evaluate_const_args(fe, unit)) *nomem = true;
    clear_run(fe);
    return CXError_Success;
}

/* Parses one source into a new unit (constant pragma arguments evaluated). */
static ompdag_status parse_unit(ompdag_frontend *fe, CXIndex idx, const char *source_path,
                                const char *const *args, int nargs, bool regions, ompdag_error *err)
{
    fe_unit *nu = realloc(fe->units, sizeof *nu * (size_t)(fe->nunits + 1));
    int n = 0;
    const char **argv = build_args(args, nargs, &n);
    if (!nu || !argv) {
        if (nu) fe->units = nu;
        free(argv);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    fe->units = nu;
    fe_unit *unit = &fe->units[fe->nunits++];
    memset(unit, 0, sizeof *unit);
    unit->regions = regions;
    struct CXUnsavedFile shim = {OMP_SHIM_PATH, omp_shim, sizeof omp_shim - 1};
    fe->tu = NULL;
    enum CXErrorCode ec = parse(fe, idx, source_path, argv, n, &shim, 1);
    unit->tu = fe->tu;
    bool nomem = false;
    if (ec == CXError_Success && unit->tu)
        ec = prepare_const_args(fe, unit, idx, source_path, argv, n, shim, &nomem);
    free(argv);
    if (nomem) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (ec != CXError_Success || !unit->tu) {
        fe->nunits--;
        if (!fe_diag(fe, OMPDAG_DIAG_ERROR, source_path, 0, 0, "cannot parse (libclang error %d)",
                     (int)ec))
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: cannot parse (libclang error %d)",
                                source_path, (int)ec);
    }
    return OMPDAG_OK;
}

static ompdag_status extract_project_here(ompdag_frontend *fe, int nsources,
                                          const char *const *sources,
                                          const char *const *const *args, const int *nargs,
                                          int nregions, ompdag_condag_set **out, ompdag_error *err)
{
    if (!fe || nsources < 1 || !sources || !args || !nargs || !out || nregions < 0 ||
        nregions > nsources)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "invalid argument to extract");
    for (int i = 0; i < nsources; ++i)
        if (!sources[i] || nargs[i] < 0 || (nargs[i] > 0 && !args[i]))
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "invalid argument to extract");
    *out = NULL;
    clear_units(fe);
    clear_cargs(fe);
    clear_diags(fe);
    ompdag_condag_set *set = ompdag_condag_set_create();
    CXIndex idx = clang_createIndex(0, 0);
    if (!set || !idx) {
        ompdag_condag_set_destroy(set);
        if (idx) clang_disposeIndex(idx);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    ompdag_status st = OMPDAG_OK;
    for (int i = 0; !st && i < nsources; ++i)
        st = parse_unit(fe, idx, sources[i], args[i], nargs[i], i < nregions, err);
    if (!st) st = extract_units(fe, set, err);
    clear_units(fe);
    clang_disposeIndex(idx);
    if (st == OMPDAG_OK || st == OMPDAG_ERR_UNSUPPORTED)
        *out = set;
    else
        ompdag_condag_set_destroy(set);
    return st;
}

/* Clang's parser and AST visitors recurse once per operand of a nested
 * expression: an expression of 50,000 terms overflowed libclang's 8 MiB
 * parse thread (SIGSEGV, issue 26 item 19).  The whole extraction runs on a
 * thread of our own with a large stack (address space only; pages are taken
 * as used), and LIBCLANG_NOTHREADS makes libclang parse on that thread
 * instead of starting its own; its crash recovery stays on. */
enum { EXTRACT_STACK_BYTES = 1 << 29 };

typedef struct extract_job {
    ompdag_frontend *fe;
    int nsources, nregions;
    const char *const *sources;
    const char *const *const *args;
    const int *nargs;
    ompdag_condag_set **out;
    ompdag_error *err;
    ompdag_status st;
} extract_job;

static void *extract_job_run(void *arg)
{
    extract_job *j = arg;
    j->st = extract_project_here(j->fe, j->nsources, j->sources, j->args, j->nargs, j->nregions,
                                 j->out, j->err);
    return NULL;
}

ompdag_status ompdag_frontend_extract_project(ompdag_frontend *fe, int nsources,
                                              const char *const *sources,
                                              const char *const *const *args, const int *nargs,
                                              int nregions, ompdag_condag_set **out,
                                              ompdag_error *err)
{
    extract_job j = {fe, nsources, nregions, sources, args, nargs, out, err, OMPDAG_OK};
    pthread_attr_t attr;
    pthread_t tid;
    bool threaded = pthread_attr_init(&attr) == 0;
    if (threaded) {
        setenv("LIBCLANG_NOTHREADS", "1", 0);
        threaded = pthread_attr_setstacksize(&attr, EXTRACT_STACK_BYTES) == 0 &&
                   pthread_create(&tid, &attr, extract_job_run, &j) == 0;
        pthread_attr_destroy(&attr);
    }
    if (threaded)
        pthread_join(tid, NULL);
    else /* no thread to be had: parse on this one */
        extract_job_run(&j);
    return j.st;
}

ompdag_status ompdag_frontend_extract(ompdag_frontend *fe, const char *source_path,
                                      const char *const *args, int nargs, ompdag_condag_set **out,
                                      ompdag_error *err)
{
    if (!fe || !source_path || !out || nargs < 0 || (nargs > 0 && !args))
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "invalid argument to extract");
    const char *const *argv[1] = {args};
    return ompdag_frontend_extract_project(fe, 1, &source_path, argv, &nargs, 1, out, err);
}
