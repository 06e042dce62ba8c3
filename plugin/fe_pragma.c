/*
 * plugin/fe_pragma.c — finds `#pragma omp …` and `#pragma ompdag …` lines.
 *
 * With OpenMP off, clang keeps no trace of omp pragmas in the AST, so the
 * file is tokenized raw (clang_tokenize) and every `#` that starts a line,
 * is followed by `pragma`, and does not lie in a skipped #if block, opens a
 * directive.  The directive runs to the end of its logical line (backslash
 * continuations included).  Its words (e.g. "parallel master") are
 * classified into an fe_dir, and its clauses are kept as (name, argument
 * text) pairs for the region builder.  `_Pragma("omp …")` is refused: the
 * raw token stream cannot show where such a pragma lands after expansion.
 */
#include <stdlib.h>
#include <string.h>

#include "fe_internal.h"
#include "ompdag/report.h"

typedef struct tok {
    char *s;
    unsigned begin, end;
    CXTokenKind kind;
} tok;

static bool is_word_in(const char *w, const char *const *set)
{
    for (; *set; ++set)
        if (!strcmp(w, *set)) return true;
    return false;
}

/* Words that may continue a directive name after its first word. */
static const char *const continuation_words[] = {
    "for",        "simd",      "sections", "master",    "masked", "loop",      "taskloop",
    "teams",      "single", /* OpenMP 6.0 `parallel single` */
    "distribute", "parallel",  "point",    "data",      "enter",  "exit",      "update",
    "variant",    "reduction", "mapper",   "workshare", "target", "induction", NULL};

static const char *const standalone_names[] = {"taskwait",
                                               "barrier",
                                               "taskyield",
                                               "flush",
                                               "cancel",
                                               "cancellation point",
                                               "threadprivate",
                                               "requires",
                                               "allocate",
                                               "depobj",
                                               "scan",
                                               "error",
                                               "nothing",
                                               "interop",
                                               "target update",
                                               "target enter data",
                                               "target exit data",
                                               NULL};

/* The taskloop forms of OpenMP 5.2 (§12.6, §17.4): `taskloop`, `master
 * taskloop`, `masked taskloop`, each optionally followed by `simd`; with
 * `parallel` before the master/masked ones when `combined`. */
static bool is_taskloop_form(const char *name, bool combined)
{
    static const char *const forms[] = {"taskloop", "master taskloop", "masked taskloop", NULL};
    static const char *const combined_forms[] = {"parallel master taskloop",
                                                 "parallel masked taskloop", NULL};
    for (const char *const *f = combined ? combined_forms : forms; *f; ++f) {
        size_t n = strlen(*f);
        if (!strncmp(name, *f, n) && (!name[n] || !strcmp(name + n, " simd"))) return true;
    }
    return false;
}

static fe_dir classify_omp(const char *name, bool *standalone)
{
    *standalone = is_word_in(name, standalone_names) || !strncmp(name, "declare", 7);
    if (!strcmp(name, "parallel")) return FE_DIR_PARALLEL;
    /* The body is run once, by one thread (6.0's combined `parallel single`
     * ends it with the single's barrier, which the parallel's own implies). */
    if (!strcmp(name, "parallel master") || !strcmp(name, "parallel masked") ||
        !strcmp(name, "parallel single"))
        return FE_DIR_PARALLEL_MASTER;
    if (is_taskloop_form(name, true)) return FE_DIR_PARALLEL_MASTER; /* body: the taskloop */
    if (!strncmp(name, "parallel ", 9))
        return strstr(name, "taskloop") ? FE_DIR_REFUSED : FE_DIR_PARALLEL_OTHER;
    if (is_taskloop_form(name, false)) return FE_DIR_TASKLOOP;
    if (!strcmp(name, "single") || !strcmp(name, "master") || !strcmp(name, "masked"))
        return FE_DIR_SINGLE;
    if (!strcmp(name, "task")) return FE_DIR_TASK;
    if (!strcmp(name, "taskwait")) return FE_DIR_TASKWAIT;
    if (!strcmp(name, "taskgroup")) return FE_DIR_TASKGROUP;
    if (!strcmp(name, "barrier")) return FE_DIR_BARRIER;
    /* depobj only fills a depend object; fe_depend.c reads it at the task */
    if (!strcmp(name, "taskyield") || !strcmp(name, "flush") || !strcmp(name, "nothing") ||
        !strcmp(name, "depobj"))
        return FE_DIR_IGNORED_STANDALONE;
    /* critical: plain code that takes a lock (fe_mutex.c; a scheduling point
     * inside it is refused where the walk meets it) */
    if (!strcmp(name, "atomic") || !strcmp(name, "simd") || !strcmp(name, "critical"))
        return FE_DIR_PLAIN;
    if (!strcmp(name, "threadprivate") || !strcmp(name, "requires") || !strcmp(name, "allocate") ||
        !strncmp(name, "declare", 7))
        return FE_DIR_OUTSIDE;
    return FE_DIR_REFUSED;
}

static fe_dir classify_ompdag(const char *name)
{
    if (!strcmp(name, "loop_bound")) return FE_DIR_LOOP_BOUND;
    if (!strcmp(name, "recursion_bound")) return FE_DIR_RECURSION_BOUND;
    if (!strcmp(name, "deadline")) return FE_DIR_DEADLINE;
    if (!strcmp(name, "resource")) return FE_DIR_RESOURCE;
    if (!strcmp(name, "assume")) return FE_DIR_ASSUME;
    return FE_DIR_OMPDAG_UNKNOWN;
}

const fe_clause *fe_pragma_clause(const fe_pragma *p, const char *name)
{
    for (int32_t i = 0; i < p->nclauses; ++i)
        if (!strcmp(p->clauses[i].name, name)) return &p->clauses[i];
    return NULL;
}

/* Joins toks[a..b) keeping a space only where the source had whitespace. */
static char *join_tokens(const tok *t, int32_t a, int32_t b)
{
    size_t len = 1;
    for (int32_t i = a; i < b; ++i)
        len += strlen(t[i].s) + 1;
    char *out = malloc(len), *p = out;
    if (!out) return NULL;
    for (int32_t i = a; i < b; ++i) {
        if (i > a && t[i].begin > t[i - 1].end) *p++ = ' ';
        size_t l = strlen(t[i].s);
        memcpy(p, t[i].s, l);
        p += l;
    }
    *p = 0;
    return out;
}

static bool add_clause(fe_pragma *p, char *name, char *arg)
{
    fe_clause *c = realloc(p->clauses, sizeof *c * (size_t)(p->nclauses + 1));
    if (!c || !name) {
        free(name);
        free(arg);
        return false;
    }
    p->clauses = c;
    c[p->nclauses].name = name;
    c[p->nclauses].arg = arg;
    p->nclauses++;
    return true;
}

/* Parses the directive in toks[a..b) (after "omp" / "ompdag"). */
static bool parse_directive(fe_pragma *p, const tok *t, int32_t a, int32_t b, bool is_omp)
{
    int32_t i = a;
    size_t cap = 64, len = 0;
    char *name = calloc(1, cap);
    if (!name) return false;
    while (i < b && (t[i].kind == CXToken_Identifier || t[i].kind == CXToken_Keyword)) {
        if (i > a && (!is_omp || !is_word_in(t[i].s, continuation_words))) break;
        /* `reduction` names only `declare reduction`; elsewhere it is the
         * clause (`taskloop simd reduction(+: s)`) */
        if (i > a && !strcmp(t[i].s, "reduction") && strcmp(name, "declare")) break;
        size_t l = strlen(t[i].s);
        if (len + l + 2 > cap) {
            cap = 2 * (len + l + 2);
            char *nn = realloc(name, cap);
            if (!nn) return free(name), false;
            name = nn;
        }
        if (len) name[len++] = ' ';
        memcpy(name + len, t[i].s, l + 1);
        len += l;
        ++i;
    }
    p->name = name;
    p->dir = is_omp ? classify_omp(name, &p->standalone) : classify_ompdag(name);
    if (p->dir == FE_DIR_ASSUME) p->standalone = true; /* prefixes nothing: whole file */
    while (i < b) {
        if (!strcmp(t[i].s, ",")) {
            ++i;
            continue;
        }
        char *cname;
        if (!strcmp(t[i].s, "(")) {
            cname = fe_strdup("");
        } else {
            cname = fe_strdup(t[i].s);
            ++i;
        }
        char *arg = NULL;
        if (i < b && !strcmp(t[i].s, "(")) {
            int depth = 0;
            int32_t start = i + 1, j = i;
            for (; j < b; ++j) {
                if (!strcmp(t[j].s, "("))
                    ++depth;
                else if (!strcmp(t[j].s, ")") && --depth == 0)
                    break;
            }
            arg = join_tokens(t, start, j);
            if (!arg) return free(cname), false;
            i = j < b ? j + 1 : j;
        }
        if (!add_clause(p, cname, arg)) return false;
    }
    return true;
}

/* Offset just past the logical line that contains offset `at`. */
static unsigned logical_line_end(const fe_file *f, unsigned at)
{
    unsigned i = at;
    while (i < f->size) {
        if (f->text[i] == '\n') {
            unsigned k = i;
            if (k > 0 && f->text[k - 1] == '\r') --k;
            if (k > 0 && f->text[k - 1] == '\\') {
                ++i;
                continue;
            }
            return i;
        }
        ++i;
    }
    return i;
}

static bool starts_line(const fe_file *f, unsigned off)
{
    while (off > 0) {
        char c = f->text[off - 1];
        if (c == '\n') return true;
        if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') return false;
        --off;
    }
    return true;
}

static bool in_skipped(const unsigned *skip, unsigned nskip, unsigned off)
{
    for (unsigned i = 0; i < nskip; ++i)
        if (off >= skip[2 * i] && off < skip[2 * i + 1]) return true;
    return false;
}

static bool push_pragma(fe_file *f, const fe_pragma *p, int64_t *cap)
{
    if (!ompdag_grow_array((void **)&f->pragmas, sizeof *f->pragmas, cap, (int64_t)f->npragmas + 1))
        return false;
    f->pragmas[f->npragmas++] = *p;
    return true;
}

static void free_pragma(fe_pragma *p)
{
    for (int32_t i = 0; i < p->nclauses; ++i) {
        free(p->clauses[i].name);
        free(p->clauses[i].arg);
    }
    free(p->clauses);
    free(p->name);
}

/* Reads the skipped (#if 0) ranges of f as offset pairs. */
static unsigned *skipped_ranges(fe_file *f, unsigned *count)
{
    CXSourceRangeList *list = clang_getSkippedRanges(f->tu, f->file);
    *count = 0;
    if (!list) return NULL;
    unsigned *out = malloc(sizeof *out * 2 * (list->count + 1));
    if (out) {
        for (unsigned i = 0; i < list->count; ++i) {
            unsigned b, e;
            clang_getExpansionLocation(clang_getRangeStart(list->ranges[i]), NULL, NULL, NULL, &b);
            clang_getExpansionLocation(clang_getRangeEnd(list->ranges[i]), NULL, NULL, NULL, &e);
            out[2 * i] = b;
            out[2 * i + 1] = e;
        }
        *count = list->count;
    }
    clang_disposeSourceRangeList(list);
    return out;
}

static tok *read_tokens(fe_file *f, unsigned *count)
{
    CXSourceLocation b = clang_getLocationForOffset(f->tu, f->file, 0);
    CXSourceLocation e = clang_getLocationForOffset(f->tu, f->file, (unsigned)f->size);
    CXToken *raw = NULL;
    unsigned n = 0;
    clang_tokenize(f->tu, clang_getRange(b, e), &raw, &n);
    tok *t = calloc(n + 1, sizeof *t);
    if (!t) {
        clang_disposeTokens(f->tu, raw, n);
        return NULL;
    }
    unsigned kept = 0;
    for (unsigned i = 0; i < n; ++i) {
        if (clang_getTokenKind(raw[i]) == CXToken_Comment) continue; /* not part of a pragma */
        tok *k = &t[kept];
        CXString s = clang_getTokenSpelling(f->tu, raw[i]);
        k->s = fe_strdup(clang_getCString(s));
        clang_disposeString(s);
        CXSourceRange r = clang_getTokenExtent(f->tu, raw[i]);
        clang_getSpellingLocation(clang_getRangeStart(r), NULL, NULL, NULL, &k->begin);
        clang_getSpellingLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &k->end);
        k->kind = clang_getTokenKind(raw[i]);
        if (!k->s) {
            for (unsigned j = 0; j < kept; ++j)
                free(t[j].s);
            free(t);
            clang_disposeTokens(f->tu, raw, n);
            return NULL;
        }
        ++kept;
    }
    clang_disposeTokens(f->tu, raw, n);
    *count = kept;
    return t;
}

/* Converts increasing offsets to line/col by scanning forward once. */
typedef struct line_cursor {
    unsigned off;
    int32_t line, col;
} line_cursor;

static void offset_to_line_col(const fe_file *f, line_cursor *lc, unsigned off, int32_t *line,
                               int32_t *col)
{
    if (off < lc->off) *lc = (line_cursor){0, 1, 1};
    for (; lc->off < off && lc->off < f->size; ++lc->off) {
        if (f->text[lc->off] == '\n') {
            ++lc->line;
            lc->col = 1;
        } else {
            ++lc->col;
        }
    }
    *line = lc->line;
    *col = lc->col;
}

/* `#pragma ompdag deadline(D)`: D must be a duration `check` accepts
 * (ompdag_duration_parse: "5ms", "800us"; no sign, no exponent, nothing
 * finer than 1 ns or past int64 ns).  A bad one was carried into the graph
 * and failed later in `check` without naming the .c file and line. */
static bool check_deadline(ompdag_frontend *fe, const fe_file *f, const fe_pragma *p, bool *refused)
{
    const fe_clause *arg = fe_pragma_clause(p, "");
    const char *text = arg && arg->arg ? arg->arg : "";
    int64_t ns;
    ompdag_error err = {0};
    if (ompdag_duration_parse(text, &ns, &err) == OMPDAG_OK) return true;
    *refused = true;
    return fe_diag(fe, OMPDAG_DIAG_ERROR, f->name, p->line, p->col,
                   "'#pragma ompdag deadline(%s)': %s", text, err.message);
}

bool fe_scan_pragmas(ompdag_frontend *fe, fe_file *f, bool *refused)
{
    unsigned n = 0, nskip = 0;
    tok *t = read_tokens(f, &n);
    if (!t) return false;
    unsigned *skip = skipped_ranges(f, &nskip);
    int64_t cap = 0;
    bool ok = true;
    line_cursor lc = {0, 1, 1};
    for (unsigned i = 0; ok && i < n; ++i) {
        if (!strcmp(t[i].s, "_Pragma") && i + 2 < n && t[i + 2].kind == CXToken_Literal &&
            (strstr(t[i + 2].s, "\"omp") || strstr(t[i + 2].s, "\" omp")) &&
            !in_skipped(skip, nskip, t[i].begin)) {
            int32_t line, col;
            offset_to_line_col(f, &lc, t[i].begin, &line, &col);
            ok = fe_diag(fe, OMPDAG_DIAG_ERROR, f->name, line, col,
                         "_Pragma(\"omp ...\") is not supported: write the directive as "
                         "#pragma omp so ompdag can see where it applies");
            *refused = true;
            continue;
        }
        if (strcmp(t[i].s, "#") || i + 2 >= n || strcmp(t[i + 1].s, "pragma") ||
            !starts_line(f, t[i].begin) || in_skipped(skip, nskip, t[i].begin))
            continue;
        bool is_omp = !strcmp(t[i + 2].s, "omp");
        if (!is_omp && strcmp(t[i + 2].s, "ompdag")) continue;
        unsigned line_end = logical_line_end(f, t[i].begin);
        unsigned j = i + 3;
        while (j < n && t[j].begin < line_end)
            ++j;
        fe_pragma p = {0};
        p.begin = t[i].begin;
        p.end = t[j - 1].end;
        offset_to_line_col(f, &lc, p.begin, &p.line, &p.col);
        ok = parse_directive(&p, t, (int32_t)i + 3, (int32_t)j, is_omp);
        if (ok && p.dir == FE_DIR_OMPDAG_UNKNOWN) {
            *refused = true;
            ok = fe_diag(fe, OMPDAG_DIAG_ERROR, f->name, p.line, p.col,
                         "unknown directive '#pragma ompdag %s' (known: loop_bound, "
                         "recursion_bound, deadline, resource, assume)",
                         p.name);
        }
        if (ok && p.dir == FE_DIR_DEADLINE) ok = check_deadline(fe, f, &p, refused);
        ok = ok && push_pragma(f, &p, &cap);
        if (!ok) free_pragma(&p);
        i = j - 1;
    }
    for (unsigned i = 0; i < n; ++i)
        free(t[i].s);
    free(t);
    free(skip);
    f->scanned = true;
    return ok;
}

int32_t fe_pragma_lower_bound(const fe_file *f, unsigned offset)
{
    int32_t lo = 0, hi = f->npragmas;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (f->pragmas[mid].begin < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void fe_file_free(fe_file *f)
{
    if (!f) return;
    for (int32_t i = 0; i < f->npragmas; ++i)
        free_pragma(&f->pragmas[i]);
    free(f->pragmas);
    free(f->name);
    free(f);
}

fe_file *fe_file_get(ompdag_frontend *fe, CXFile file)
{
    for (int32_t i = 0; i < fe->nfiles; ++i)
        if (clang_File_isEqual(fe->files[i]->file, file)) return fe->files[i];
    fe_file *f = calloc(1, sizeof *f);
    fe_file **nf = realloc(fe->files, sizeof *nf * (size_t)(fe->nfiles + 1));
    if (!f || !nf) {
        free(f);
        if (nf) fe->files = nf;
        return NULL;
    }
    fe->files = nf;
    fe->files[fe->nfiles++] = f;
    f->file = file;
    CXString name = clang_getFileName(file);
    f->name = fe_strdup(clang_getCString(name));
    clang_disposeString(name);
    /* The unit that owns this CXFile: each unit has its own file manager. */
    f->tu = fe->tu;
    f->text = fe->tu ? clang_getFileContents(fe->tu, file, &f->size) : NULL;
    for (int32_t u = 0; !f->text && u < fe->nunits; ++u)
        if (fe->units[u].tu && (f->text = clang_getFileContents(fe->units[u].tu, file, &f->size)))
            f->tu = fe->units[u].tu;
    if (!f->name) return NULL;
    if (!f->text) f->text = "", f->size = 0;
    bool refused = false;
    if (!fe_scan_pragmas(fe, f, &refused)) return NULL;
    return f;
}
