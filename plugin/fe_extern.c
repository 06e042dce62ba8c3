/*
 * plugin/fe_extern.c — calls to functions whose body the front end has not
 * parsed (defined in another file, single-file extract): may they create
 * tasks?
 *
 * The body is not available, so the answer comes from the source files the
 * project most likely holds it in: the C/C++ sources in the directory of the
 * function's declaration and in that of the file being extracted (other
 * than the parsed units themselves).  If one of them both mentions the
 * function (its name followed by '(') and contains a task-creating
 * directive (`#pragma omp task` or `taskloop`), the call may create tasks
 * the graph would miss, and the region builder refuses it at the call line
 * (extract the project with -p instead).  Shared temporary directories
 * (sticky bit, e.g. /tmp) are not searched.  Functions declared in system
 * headers, and functions no such file mentions (libraries), are taken as
 * task-free: a documented limit (docs/plugin.md).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fe_internal.h"

/* A source file near the extracted one, read once per extraction. */
typedef struct fe_srcfile {
    char *path;
    char *text; /* NULL when it has no task directive (never matches) */
} fe_srcfile;

/* A function already judged: its USR and the source found (or NULL). */
typedef struct fe_judged {
    char *usr;
    const char *source; /* borrowed from files[] */
} fe_judged;

struct fe_extern_cache {
    fe_srcfile *files;
    int32_t nfiles;
    fe_judged *judged;
    int32_t njudged;
    char **dirs; /* directories already listed */
    int32_t ndirs;
};

void fe_extern_cache_free(fe_extern_cache *c)
{
    if (!c) return;
    for (int32_t i = 0; i < c->nfiles; ++i) {
        free(c->files[i].path);
        free(c->files[i].text);
    }
    for (int32_t i = 0; i < c->ndirs; ++i)
        free(c->dirs[i]);
    for (int32_t i = 0; i < c->njudged; ++i)
        free(c->judged[i].usr);
    free(c->judged);
    free(c->files);
    free(c->dirs);
    free(c);
}

static bool is_source_name(const char *n)
{
    const char *dot = strrchr(n, '.');
    return dot && (!strcmp(dot, ".c") || !strcmp(dot, ".cc") || !strcmp(dot, ".cpp") ||
                   !strcmp(dot, ".cxx") || !strcmp(dot, ".C"));
}

static bool is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Does text hold a line `# pragma omp … task…` (task, taskloop, and their
 * combined forms)? */
static bool has_task_directive(const char *text)
{
    for (const char *p = text; (p = strstr(p, "pragma")); p += 6) {
        const char *q = p;
        while (q > text && (q[-1] == ' ' || q[-1] == '\t'))
            --q;
        if (q == text || q[-1] != '#') continue;
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        for (size_t i = 6; i + 4 <= len; ++i)
            if (!strncmp(p + i, "task", 4) && !is_word_char(p[i - 1]) &&
                (i + 4 == len || !is_word_char(p[i + 4]) || !strncmp(p + i, "taskloop", 8)) &&
                strncmp(p + i, "taskwait", 8) && strncmp(p + i, "taskyield", 9) &&
                strncmp(p + i, "taskgroup", 9) && memmem(p, len, "omp", 3))
                return true;
    }
    return false;
}

/* Does text call or define `name` (name followed by '(')? */
static bool mentions(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = text; (p = strstr(p, name)); p += n) {
        if (p > text && is_word_char(p[-1])) continue;
        const char *q = p + n;
        while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
            ++q;
        if (*q == '(') return true;
    }
    return false;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 65536, len = 0, got;
    char *t = malloc(cap);
    while (t && len < (16u << 20) && (got = fread(t + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            char *nt = realloc(t, cap *= 2);
            if (!nt) free(t);
            t = nt;
        }
    }
    fclose(f);
    if (t) t[len] = 0;
    return t;
}

static bool is_unit_main(const ompdag_frontend *fe, const char *path)
{
    char real[4096];
    if (!realpath(path, real)) return false;
    for (int32_t u = 0; u < fe->nunits; ++u) {
        CXString rp = clang_File_tryGetRealPathName(fe->units[u].main);
        bool same = clang_getCString(rp) && !strcmp(clang_getCString(rp), real);
        clang_disposeString(rp);
        if (same) return true;
    }
    return false;
}

/* Lists dir once, keeping the text of sources with task directives. */
static bool scan_dir(ompdag_frontend *fe, fe_extern_cache *c, const char *dir)
{
    for (int32_t i = 0; i < c->ndirs; ++i)
        if (!strcmp(c->dirs[i], dir)) return true;
    char **nd = realloc(c->dirs, sizeof *nd * (size_t)(c->ndirs + 1));
    if (!nd) return false;
    c->dirs = nd;
    if (!(c->dirs[c->ndirs] = fe_strdup(dir))) return false;
    c->ndirs++;
    /* a shared temporary directory (sticky bit, like /tmp) holds unrelated
     * files from everyone: not a project */
    struct stat sb;
    if (stat(dir, &sb) != 0 || (sb.st_mode & S_ISVTX)) return true;
    DIR *d = opendir(dir);
    if (!d) return true;
    bool ok = true;
    int32_t seen = 0;
    /* a directory of thousands of files (such as /tmp) is not a project */
    for (struct dirent *e; ok && seen < 4096 && (e = readdir(d)); ++seen) {
        if (!is_source_name(e->d_name)) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (is_unit_main(fe, path)) continue;
        char *text = read_text(path);
        if (text && !has_task_directive(text)) {
            free(text);
            continue;
        }
        if (!text) continue;
        fe_srcfile *nf = realloc(c->files, sizeof *nf * (size_t)(c->nfiles + 1));
        char *p = fe_strdup(path);
        if (!nf || !p) {
            if (nf) c->files = nf;
            free(p);
            free(text);
            ok = false;
            break;
        }
        c->files = nf;
        c->files[c->nfiles++] = (fe_srcfile){p, text};
    }
    closedir(d);
    return ok;
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? fe_strndup(path, (size_t)(slash - path ? slash - path : 1)) : fe_strdup(".");
}

const char *fe_extern_task_source(ompdag_frontend *fe, CXCursor call, bool *nomem)
{
    CXCursor ref = clang_getCursorReferenced(call);
    if (clang_Cursor_isNull(ref) || clang_getCursorKind(ref) != CXCursor_FunctionDecl ||
        clang_Location_isInSystemHeader(clang_getCursorLocation(ref)) ||
        fe_func_of_call(fe, call) >= 0)
        return NULL;
    if (!fe->externs && !(fe->externs = calloc(1, sizeof *fe->externs))) {
        *nomem = true;
        return NULL;
    }
    fe_extern_cache *c = fe->externs;
    /* the answer depends on the function and on the file being extracted */
    CXFile main = NULL;
    for (int32_t k = 0; k < fe->nunits; ++k)
        if (fe->units[k].tu == fe->tu) main = fe->units[k].main;
    CXString usr = clang_getCursorUSR(ref), mf = clang_getFileName(main);
    size_t ul = strlen(clang_getCString(usr) ? clang_getCString(usr) : "");
    const char *ms = clang_getCString(mf) ? clang_getCString(mf) : "";
    char *u = malloc(ul + strlen(ms) + 2);
    if (u) sprintf(u, "%s\n%s", clang_getCString(usr) ? clang_getCString(usr) : "", ms);
    clang_disposeString(usr);
    if (!u) {
        clang_disposeString(mf);
        *nomem = true;
        return NULL;
    }
    for (int32_t i = 0; i < c->njudged; ++i)
        if (!strcmp(c->judged[i].usr, u)) {
            free(u);
            clang_disposeString(mf);
            return c->judged[i].source;
        }
    CXFile decl_file = NULL;
    clang_getExpansionLocation(clang_getCursorLocation(ref), &decl_file, NULL, NULL, NULL);
    CXString df = clang_getFileName(decl_file);
    char *dirs[2] = {clang_getCString(df) ? dir_of(clang_getCString(df)) : NULL,
                     clang_getCString(mf) ? dir_of(clang_getCString(mf)) : NULL};
    clang_disposeString(df);
    clang_disposeString(mf);
    for (int i = 0; i < 2; ++i)
        if (dirs[i] && !scan_dir(fe, c, dirs[i])) *nomem = true;
    free(dirs[0]);
    free(dirs[1]);
    CXString name = clang_getCursorSpelling(ref);
    const char *n = clang_getCString(name);
    const char *found = NULL;
    for (int32_t i = 0; n && *n && !found && i < c->nfiles; ++i)
        if (mentions(c->files[i].text, n)) found = c->files[i].path;
    clang_disposeString(name);
    fe_judged *nj = realloc(c->judged, sizeof *nj * (size_t)(c->njudged + 1));
    if (!nj) {
        free(u);
        *nomem = true;
        return found;
    }
    c->judged = nj;
    c->judged[c->njudged++] = (fe_judged){u, found};
    return found;
}
