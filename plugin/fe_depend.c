/*
 * plugin/fe_depend.c — `depend` clauses of `#pragma omp task` become clauses
 * on the T node (shared/spec/condag.md §6).
 *
 * Accepted: depend(in|out|inout|inoutset|mutexinoutset: list), several
 * clauses per task, the reserved locator omp_all_memory with out/inout
 * (below), iterator(...) modifiers with constant ranges (expanded), and
 * depobj objects whose initialisation is visible (below).  inoutset and
 * mutexinoutset keep their type: the analysis orders a run of them as a
 * concurrent group (docs/depend.md) and charges mutexinoutset's exclusion
 * as a lock (docs/mutex.md); a mutexinoutset task must be one node that
 * takes no other lock (fe_mutex.c checks it).  Refused by name: iterators whose
 * range is not constant, depobj objects without a visible initialisation,
 * source/sink (doacross), and `in: omp_all_memory`.
 *
 * omp_all_memory (OpenMP 5.1 §15.9.5; OpenMP Examples task_dep.13.c): a task
 * with depend(out|inout: omp_all_memory) depends on every earlier sibling
 * that has a depend clause, and every later sibling with a depend clause
 * depends on it.  It gets `inout` on the dedicated var "[omp_all_memory]",
 * and, in a region that has one, every other T node with a depend clause
 * gets `in` on that var.  Rule 3 then gives exactly the OpenMP order up to
 * transitivity: in-after-in makes no edge, so the ordinary siblings stay
 * unordered among themselves; the all-memory task waits for every `in`
 * since the previous all-memory task (and for that one), and every later
 * depend-carrying sibling waits for the last all-memory task.  The argument
 * is written out in docs/plugin.md.
 *
 * Aliasing rule (two list items that may overlap at run time must get the
 * same var; extra sharing only adds edges, which is safe; docs/plugin.md):
 *  - A *named* item — an identifier, possibly with `.member` selectors — is
 *    the storage of that variable: its var is the identifier ("x" for x and
 *    x.f).  Distinct names are distinct objects in C; one name used in two
 *    scopes (inlined calls) shares a var, which is merely conservative.
 *  - An *array* item — `A[e]`, `A[e1][e2]`, sections `A[lb:len]` — whose base
 *    A is an identifier declared with a constant-size array type (not a
 *    pointer, not a parameter, not a VLA) is storage of A.  Its subscripts are
 *    evaluated in this instance of the task directive: integer literals,
 *    + - * / % and parentheses, and the variables of enclosing loops the
 *    front end unrolls with an exact trip count (fe_loop.c binds their value
 *    per iteration, in the task that runs the loop, when the body neither
 *    writes the variable nor declares another one of that name).  When every
 *    array item on A in the region evaluates to in-bounds constant ranges,
 *    items whose ranges are disjoint in some dimension get different vars
 *    and overlapping ones share one ("A[0]", "A[0]^A[0:2]"); otherwise every
 *    item on A (and a named item A) shares the var "A".
 *  - Every other item — pointer bases (`p[i]`, `p[0:n]`), dereferences
 *    (`*p`, `p->f`), casts, calls, subscripts out of bounds — is
 *    *memory-based*: it may be reached through a pointer, so all of them share
 *    the var "[memory]".
 *  - In a region that has some memory-based item, a pointer may also reach a
 *    named object or an array, so each named and array item also gets the
 *    same clause on "[memory]".  In a region without memory-based items
 *    (strassen's style) the names and array cells stay independent.
 * The rule is per region (one con-DAG): dependences only order siblings, and
 * siblings are created in one region.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_depend.h"
#include "fe_depend_loop.h"
#include "fe_mutex.h"
#include "fe_walk.h"
#include "ompdag/compact.h"

#define MEMORY_VAR "[memory]"
#define ALL_MEMORY_VAR "[omp_all_memory]"
#define ALL_MEMORY "omp_all_memory"
#define MAX_DIMS 4

typedef enum item_kind {
    ITEM_MEMORY = 0,     /* memory-based: "[memory]" */
    ITEM_NAMED = 1,      /* the storage of an identifier */
    ITEM_ARRAY = 2,      /* cells of a true array, constant ranges in [lo, hi) */
    ITEM_ARRAY_ANY = 3,  /* somewhere in a true array (a subscript is not constant) */
    ITEM_ALL_MEMORY = 4, /* the reserved locator omp_all_memory: "[omp_all_memory]" */
    ITEM_LOOP_CELL = 5   /* A[i + c] in a compact loop: the cell follows the iteration */
} item_kind;

typedef struct dep_item {
    uint8_t type; /* ompdag_dep_type */
    uint8_t kind; /* item_kind */
    int8_t rank;  /* ITEM_ARRAY: dimensions of the array */
    char *name;   /* identifier or array base; NULL for memory items */
    long long dim[MAX_DIMS], lo[MAX_DIMS], hi[MAX_DIMS];
    int32_t loop; /* ITEM_LOOP_CELL: the compact loop's test node; cell lo[0] + k */
} dep_item;

struct fe_dep {
    int32_t n;
    dep_item *it;
};

bool fe_depend_has_mutexinoutset(const fe_dep *d)
{
    for (int32_t i = 0; d && i < d->n; ++i)
        if (d->it[i].type == OMPDAG_DEP_MUTEXINOUTSET) return true;
    return false;
}

void fe_depend_free(fe_dep *d)
{
    if (!d) return;
    for (int32_t i = 0; i < d->n; ++i)
        free(d->it[i].name);
    free(d->it), free(d);
}

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t')
        ++s;
    return s;
}

/* The identifier that the whole item `s` (length len) names, or NULL when
 * it is not a named item.  Accepts `x`, `x.f`, `x.f.g`. */
static char *named_item(const char *s, size_t len)
{
    while (len && *s == ' ')
        ++s, --len;
    while (len && s[len - 1] == ' ')
        --len;
    size_t i = 0, first_end = 0;
    bool expect_ident = true;
    while (i < len) {
        if (expect_ident) {
            if (!(isalpha((unsigned char)s[i]) || s[i] == '_')) return NULL;
            while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '_'))
                ++i;
            if (!first_end) first_end = i;
            expect_ident = false;
        } else {
            while (i < len && s[i] == ' ')
                ++i;
            if (i < len && s[i] != '.') return NULL;
            ++i;
            while (i < len && s[i] == ' ')
                ++i;
            expect_ident = true;
        }
    }
    return expect_ident || !first_end ? NULL : fe_strndup(s, first_end);
}

/* ---- constant subscripts ------------------------------------------------------- */

/* A tiny evaluator over the text of one subscript: integer literals, loop
 * variables bound in this instance (walker binds), unary + -, and binary
 * + - * / % with C precedence and parentheses.  Anything else, or an
 * overflow or a division by zero, is "not a constant". */
typedef struct expr_in {
    const char *p, *end;
    const walker *w;
    bool ok;
} expr_in;

static void ex_space(expr_in *e)
{
    while (e->p < e->end && (*e->p == ' ' || *e->p == '\t'))
        ++e->p;
}

static long long ex_sum(expr_in *e, int depth);

static long long ex_atom(expr_in *e, int depth)
{
    ex_space(e);
    if (e->p >= e->end || depth > 32) return e->ok = false, 0;
    char c = *e->p;
    if (c == '(') {
        ++e->p;
        long long v = ex_sum(e, depth + 1);
        ex_space(e);
        if (e->p >= e->end || *e->p != ')') return e->ok = false, 0;
        ++e->p;
        return v;
    }
    if (c == '-' || c == '+') {
        ++e->p;
        long long v = ex_atom(e, depth + 1);
        if (c == '-' && v == LLONG_MIN) return e->ok = false, 0;
        return c == '-' ? -v : v;
    }
    if (isdigit((unsigned char)c)) {
        char buf[64];
        size_t n = 0;
        while (e->p < e->end && (isalnum((unsigned char)*e->p)) && n + 1 < sizeof buf)
            buf[n++] = *e->p++;
        buf[n] = 0;
        while (n && strchr("uUlL", buf[n - 1]))
            buf[--n] = 0;
        char *endp;
        errno = 0;
        unsigned long long v = strtoull(buf, &endp, 0);
        if (*endp || errno || v > (unsigned long long)LLONG_MAX) return e->ok = false, 0;
        return (long long)v;
    }
    if (isalpha((unsigned char)c) || c == '_') {
        const char *b = e->p;
        while (e->p < e->end && (isalnum((unsigned char)*e->p) || *e->p == '_'))
            ++e->p;
        size_t n = (size_t)(e->p - b);
        for (const fe_bind *x = e->w->binds; x; x = x->up)
            if (x->task == e->w->task && x->depth == e->w->depth && strlen(x->name) == n &&
                !strncmp(x->name, b, n))
                return x->compact_test ? (e->ok = false, 0) : x->value; /* compact: no value */
        return e->ok = false, 0;
    }
    return e->ok = false, 0;
}

static long long ex_product(expr_in *e, int depth)
{
    long long v = ex_atom(e, depth);
    for (;;) {
        ex_space(e);
        if (!e->ok || e->p >= e->end || !strchr("*/%", *e->p)) return v;
        char op = *e->p++;
        long long r = ex_atom(e, depth), out = 0;
        if (!e->ok) return 0;
        if (op == '*') {
            if (__builtin_mul_overflow(v, r, &out)) return e->ok = false, 0;
        } else {
            if (r == 0 || (v == LLONG_MIN && r == -1)) return e->ok = false, 0;
            out = op == '/' ? v / r : v % r;
        }
        v = out;
    }
}

static long long ex_sum(expr_in *e, int depth)
{
    long long v = ex_product(e, depth);
    for (;;) {
        ex_space(e);
        if (!e->ok || e->p >= e->end || (*e->p != '+' && *e->p != '-')) return v;
        char op = *e->p++;
        long long r = ex_product(e, depth), out;
        if (!e->ok) return 0;
        if (op == '+' ? __builtin_add_overflow(v, r, &out) : __builtin_sub_overflow(v, r, &out))
            return e->ok = false, 0;
        v = out;
    }
}

/* Evaluates text [b, end) (empty: fails). */
static bool eval_text(const walker *w, const char *b, const char *end, long long *out)
{
    expr_in e = {b, end, w, true};
    ex_space(&e);
    if (e.p >= e.end) return false;
    *out = ex_sum(&e, 0);
    ex_space(&e);
    return e.ok && e.p == e.end;
}

/* ---- the array an item's base names -------------------------------------------------- */

typedef struct decl_find {
    const char *name;
    CXCursor decl;
    int found; /* declarations of that name seen */
} decl_find;

static enum CXChildVisitResult decl_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    decl_find *df = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_VarDecl || k == CXCursor_ParmDecl) {
        CXString sp = clang_getCursorSpelling(c);
        if (!strcmp(clang_getCString(sp), df->name)) {
            /* a redeclaration of the same object (extern) is the same variable */
            if (!df->found || !clang_equalCursors(clang_getCanonicalCursor(c),
                                                  clang_getCanonicalCursor(df->decl)))
                ++df->found;
            df->decl = c;
        }
        clang_disposeString(sp);
    }
    return k == CXCursor_TranslationUnit || k == CXCursor_FunctionDecl ? CXChildVisit_Continue
                                                                       : CXChildVisit_Recurse;
}

int fe_decl_count(CXCursor scope, const char *name, CXCursor *last)
{
    decl_find df = {name, clang_getNullCursor(), 0};
    clang_visitChildren(scope, decl_visit, &df);
    if (last) *last = df.decl;
    return df.found;
}

/* The dimensions of the constant-size array that `name` denotes at a
 * directive of the function being walked; 0 when it is not one (a pointer, a
 * parameter, a VLA) or when the name is not declared exactly once in that
 * function and at file scope (then which declaration the directive sees is
 * not known here). */
static int array_dims(const walker *w, const char *name, long long dim[MAX_DIMS])
{
    if (!w->calls || w->calls->func < 0 || w->calls->func >= w->fe->nfuncs) return 0;
    const fe_func *fn = &w->fe->funcs[w->calls->func];
    decl_find df = {name, clang_getNullCursor(), 0};
    clang_visitChildren(fn->cursor, decl_visit, &df); /* parameters and locals */
    CXTranslationUnit tu = clang_Cursor_getTranslationUnit(fn->cursor);
    cursor_list top = {0};
    clang_visitChildren(clang_getTranslationUnitCursor(tu), fe_collect_visit, &top);
    for (int32_t i = 0; i < top.n && !top.nomem; ++i)
        if (clang_getCursorKind(top.c[i]) == CXCursor_VarDecl) decl_visit(top.c[i], top.c[i], &df);
    bool ok = !top.nomem && df.found == 1 && clang_getCursorKind(df.decl) == CXCursor_VarDecl;
    free(top.c);
    if (!ok) return 0;
    CXType t = clang_getCursorType(df.decl);
    int rank = 0;
    while (t.kind == CXType_ConstantArray) {
        if (rank == MAX_DIMS) return 0;
        long long n = clang_getArraySize(t);
        if (n <= 0) return 0;
        dim[rank++] = n;
        t = clang_getArrayElementType(t);
    }
    return rank;
}

/* A subscript [p, q) of a rank-1 array that names the variable x of a
 * compact loop: the cell x + c of iteration k is start + c + k, kept as an
 * indexed item (docs/compact.md); NULL, or the refusal. */
static const char *loop_cell(const walker *w, const fe_bind *x, const char *p, const char *q,
                             int rank, bool section, long long dim, dep_item *it)
{
    static _Thread_local char why[320];
    int32_t test = (x->compact_test > 0 ? x->compact_test : -x->compact_test) - 1;
    long long k = w->g->nodes[test].repeat, c, lo;
    int line = w->g->nodes[test].line;
    const char *what = rank != 1 || section  ? "a section or a multi-dimensional item"
                       : x->compact_test < 0 ? "a loop whose step is not 1"
                       : !fe_depend_loop_affine(x->name, p, q)
                           ? "a subscript other than the variable plus a constant (coefficient 1)"
                           : NULL;
    walker at0 = *w; /* the subscript with x = 0 gives c */
    fe_bind zero = {x->name, 0, w->task, w->depth, w->binds, 0};
    at0.binds = &zero;
    if (!what && (!eval_text(&at0, p, q, &c) || __builtin_add_overflow(x->value, c, &lo)))
        what = "a subscript whose constant part is not a constant";
    else if (!what && (lo < 0 || k > dim || lo > dim - k))
        what = "a cell that the loop's iterations may take out of the array's bounds";
    if (!what) {
        it->lo[0] = lo, it->hi[0] = lo + 1, it->loop = test;
        return NULL;
    }
    snprintf(why, sizeof why,
             "'%.*s' uses the variable '%s' of the compact loop at line %d in %s, which the "
             "compact body cannot name per iteration (docs/compact.md)",
             (int)(q - p), p, x->name, line, what);
    return why;
}

/* Reads `base[s1][s2]...` (each s an index or a section lb:len) into it as an
 * array item; false when the item has another shape (and *why set when a
 * compact loop's variable is used in a way that is refused).  A subscript
 * that is not constant here makes it ITEM_ARRAY_ANY; i + c of a compact
 * loop's variable i makes it ITEM_LOOP_CELL. */
static bool array_item(const walker *w, const char *s, size_t len, dep_item *it, const char **why)
{
    const char *p = s, *end = s + len;
    while (p < end && *p == ' ')
        ++p;
    while (end > p && end[-1] == ' ')
        --end;
    const char *b = p;
    if (p >= end || !(isalpha((unsigned char)*p) || *p == '_')) return false;
    while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
        ++p;
    char *name = fe_strndup(b, (size_t)(p - b));
    if (!name) return false;
    long long dim[MAX_DIMS];
    int rank = array_dims(w, name, dim), k = 0;
    bool constant = rank > 0, oob = false, looped = false;
    while (p < end) {
        while (p < end && *p == ' ')
            ++p;
        if (p >= end || *p != '[' || k >= rank) return free(name), false;
        const char *q = ++p, *colon = NULL;
        int depth = 0;
        while (q < end && (depth > 0 || *q != ']')) {
            if (*q == '[' || *q == '(') ++depth;
            if (*q == ']' || *q == ')') --depth;
            if (*q == ':' && depth == 0 && !colon) colon = q;
            ++q;
        }
        if (q >= end) return free(name), false;
        const fe_bind *x = fe_depend_loop_var(w, p, q);
        if (x && !(*why = loop_cell(w, x, p, q, rank, colon != NULL, rank ? dim[0] : 0, it))) {
            looped = true, p = q + 1, ++k;
            continue;
        }
        if (x) return free(name), false;
        long long lo = 0, n = 1;
        bool ok;
        if (colon) {
            const char *lb = skip_space(p);
            ok = (lb == colon || eval_text(w, p, colon, &lo));
            const char *ln = skip_space(colon + 1);
            if (ok && ln == q)
                n = dim[k] - lo; /* A[lb:] */
            else
                ok = ok && eval_text(w, colon + 1, q, &n);
        } else {
            ok = eval_text(w, p, q, &lo);
        }
        if (!ok)
            constant = false;
        else if (lo < 0 || n < 1 || lo >= dim[k] || n > dim[k] - lo)
            oob = true; /* out of bounds: it may reach other objects */
        it->lo[k] = lo, it->hi[k] = lo + n;
        ++k;
        p = q + 1;
    }
    if (k == 0 || rank == 0 || oob) return free(name), false;
    for (int d = k; d < rank; ++d)
        it->lo[d] = 0, it->hi[d] = dim[d];
    memcpy(it->dim, dim, sizeof dim);
    it->rank = (int8_t)rank;
    it->kind = looped ? ITEM_LOOP_CELL : constant ? ITEM_ARRAY : ITEM_ARRAY_ANY;
    it->name = name;
    return true;
}

static bool push_item(fe_dep *d, const dep_item *it)
{
    dep_item *p = realloc(d->it, sizeof *p * (size_t)(d->n + 1));
    if (!p) return false;
    d->it = p;
    d->it[d->n++] = *it;
    return true;
}

/* Splits "type: item, item" at top-level commas into d; false with *why set
 * on a refusal, false with *why NULL on ENOMEM. */
static bool parse_clause(const walker *w, fe_dep *d, const char *arg, const char **why)
{
    static const char *const refused[] = {"depobj", "source", "sink", "iterator"};
    *why = NULL;
    const char *colon = arg ? strchr(arg, ':') : NULL;
    if (!colon)
        return *why = "depend clause without a dependence type (expected in, out, inout or "
                      "inoutset)",
               false;
    char *type = fe_strndup(arg, (size_t)(colon - arg));
    if (!type) return false;
    char *t = type + strlen(type);
    while (t > type && t[-1] == ' ')
        *--t = 0;
    const char *name = skip_space(type);
    for (size_t k = 0; k < sizeof refused / sizeof *refused; ++k)
        if (!strncmp(name, refused[k], strlen(refused[k]))) {
            *why = refused[k];
            return free(type), false;
        }
    ompdag_dep_type dt;
    bool known = ompdag_dep_type_parse(name, &dt);
    free(type);
    if (!known) return *why = "unknown dependence type", false;
    const char *s = colon + 1;
    int depth = 0;
    for (const char *p = s;; ++p) {
        if (*p == '(' || *p == '[' || *p == '{')
            ++depth;
        else if (*p == ')' || *p == ']' || *p == '}')
            --depth;
        else if ((*p == ',' && depth == 0) || !*p) {
            if (*skip_space(s) && (*skip_space(s) != ',')) {
                dep_item it = {.type = (uint8_t)dt, .kind = ITEM_MEMORY};
                size_t len = (size_t)(p - s);
                if ((it.name = named_item(s, len)) && !strcmp(it.name, ALL_MEMORY)) {
                    free(it.name), it.name = NULL;
                    if (dt == OMPDAG_DEP_IN)
                        return *why = "omp_all_memory is only allowed with out or inout "
                                      "(OpenMP 5.1 section 15.9.5)",
                               false;
                    it.kind = ITEM_ALL_MEMORY;
                } else if (it.name)
                    it.kind = ITEM_NAMED;
                else if (!array_item(w, s, len, &it, why)) {
                    if (*why) return false; /* a compact loop's variable, refused */
                    it.kind = ITEM_MEMORY, it.name = NULL;
                }
                if (!push_item(d, &it)) return free(it.name), false;
            }
            if (!*p) break;
            s = p + 1;
        }
    }
    return true;
}

/* ---- iterator(...) and depobj: clauses that stand for other clauses ------------ */

#define MAX_ITER_ITEMS 4096 /* expanded clauses per iterator modifier */
#define MAX_ITERS 4

/* One iterator of `iterator(...)`: `[type] name = begin : end [: step]`. */
typedef struct iter_spec {
    char name[64];
    long long begin, end, step;
} iter_spec;

/* The text [b, e) split at top-level `sep` into at most `max` pieces;
 * returns the count, -1 when there are more. */
static int split_top(const char *b, const char *e, char sep, const char **at, const char **to,
                     int max)
{
    int n = 0, depth = 0;
    const char *s = b;
    for (const char *p = b;; ++p) {
        if (p < e && (*p == '(' || *p == '[' || *p == '{')) ++depth;
        if (p < e && (*p == ')' || *p == ']' || *p == '}')) --depth;
        if (p == e || (*p == sep && depth == 0)) {
            if (n == max) return -1;
            at[n] = s, to[n] = p, ++n;
            if (p == e) return n;
            s = p + 1;
        }
    }
}

/* Reads one iterator spec from [b, e); *why on failure. */
static bool iter_read(const walker *w, const char *b, const char *e, iter_spec *it,
                      const char **why)
{
    const char *eq = memchr(b, '=', (size_t)(e - b));
    if (!eq) return *why = "an iterator without '= begin : end'", false;
    const char *q = eq; /* the name: the last identifier before '=' */
    while (q > b && (q[-1] == ' ' || q[-1] == '\t'))
        --q;
    const char *n = q;
    while (n > b && (isalnum((unsigned char)n[-1]) || n[-1] == '_'))
        --n;
    if (n == q || (size_t)(q - n) >= sizeof it->name)
        return *why = "an iterator without a name", false;
    memcpy(it->name, n, (size_t)(q - n));
    it->name[q - n] = 0;
    const char *at[3], *to[3];
    int k = split_top(eq + 1, e, ':', at, to, 3);
    it->step = 1;
    if (k < 2 || !eval_text(w, at[0], to[0], &it->begin) || !eval_text(w, at[1], to[1], &it->end) ||
        (k == 3 && !eval_text(w, at[2], to[2], &it->step)))
        return *why = "the iterator's range is not a constant expression here (only literals, "
                      "+ - * / % and the variables of unrolled loops are evaluated)",
               false;
    if (it->step == 0) return *why = "an iterator with step 0", false;
    return true;
}

/* Number of values of it (0 when empty), capped at MAX_ITER_ITEMS + 1. */
static long long iter_count(const iter_spec *it)
{
    if (it->step > 0 ? it->end <= it->begin : it->end >= it->begin) return 0;
    long long span = it->step > 0 ? it->end - it->begin : it->begin - it->end;
    long long step = it->step > 0 ? it->step : -it->step;
    long long n = span / step + (span % step != 0);
    return n > MAX_ITER_ITEMS ? MAX_ITER_ITEMS + 1 : n;
}

static bool parse_clause(const walker *w, fe_dep *d, const char *arg, const char **why);

/* `iterator(specs), type: items`: the clause once per value of the
 * iterators (OpenMP 5.1 §3.9), each instance evaluated with the iterators
 * bound like the variables of an unrolled loop. */
static bool parse_iterator(const walker *w, fe_dep *d, const char *arg, const char **why)
{
    const char *open = strchr(arg, '('), *p = open;
    int depth = 0;
    for (; p && *p; ++p) {
        if (*p == '(') ++depth;
        if (*p == ')' && --depth == 0) break;
    }
    if (!open || !p || !*p) return *why = "a malformed iterator modifier", false;
    const char *rest = skip_space(p + 1);
    if (*rest != ',') return *why = "a malformed iterator modifier", false;
    rest = skip_space(rest + 1);
    const char *at[MAX_ITERS], *to[MAX_ITERS];
    int n = split_top(open + 1, p, ',', at, to, MAX_ITERS);
    if (n < 1) return *why = "more than 4 iterators in one modifier", false;
    iter_spec it[MAX_ITERS];
    long long total = 1;
    for (int i = 0; i < n; ++i) {
        if (!iter_read(w, at[i], to[i], &it[i], why)) return false;
        total *= iter_count(&it[i]);
        if (total > MAX_ITER_ITEMS)
            return *why = "the iterator expands to more than 4096 items", false;
    }
    fe_bind bind[MAX_ITERS];
    for (long long k = 0; k < total; ++k) {
        long long r = k, idx[MAX_ITERS];
        for (int i = n - 1; i >= 0; --i) {
            long long c = iter_count(&it[i]);
            idx[i] = r % c, r /= c;
        }
        for (int i = 0; i < n; ++i)
            bind[i] = (fe_bind){it[i].name, it[i].begin + idx[i] * it[i].step, w->task,
                                w->depth,   i ? &bind[i - 1] : w->binds,       0};
        walker wi = *w;
        wi.binds = &bind[n - 1];
        if (!parse_clause(&wi, d, rest, why)) return false;
    }
    return true;
}

/* The depend clause of the visible `#pragma omp depobj(name) depend(...)`
 * for `depobj: name` in the function being walked: exactly one
 * initialisation and no update of the object; NULL with *why otherwise. */
static const char *depobj_init(const walker *w, const char *name, const char **why)
{
    if (!w->calls || w->calls->func < 0 || w->calls->func >= w->fe->nfuncs)
        return *why = "a depend object outside a function", NULL;
    const fe_func *fn = &w->fe->funcs[w->calls->func];
    const fe_file *f = fn->file;
    const char *found = NULL;
    int inits = 0, updates = 0;
    for (int32_t i = fe_pragma_lower_bound(f, fn->begin);
         i < f->npragmas && f->pragmas[i].begin < fn->end; ++i) {
        const fe_pragma *p = &f->pragmas[i];
        const fe_clause *obj = fe_pragma_clause(p, "");
        if (strcmp(p->name, "depobj") || !obj || !obj->arg) continue;
        char *o = named_item(obj->arg, strlen(obj->arg));
        bool same = o && !strcmp(o, name);
        free(o);
        if (!same) continue;
        const fe_clause *dep = fe_pragma_clause(p, "depend");
        if (dep && dep->arg) ++inits, found = dep->arg;
        if (fe_pragma_clause(p, "update")) ++updates;
    }
    if (inits != 1 || updates)
        return *why = "the depend object's initialisation ('#pragma omp depobj(...) depend(...)') "
                      "is not visible in this function, or there are several, or an update",
               NULL;
    return found;
}

/* `depobj: o1, o2`: each object's visible initialisation, evaluated without
 * loop variables (its subscripts took their values where it was
 * initialised, unknown here: a subscript that needs one is taken as
 * anywhere in the array). */
static bool parse_depobj(const walker *w, fe_dep *d, const char *list, const char **why)
{
    const char *at[64], *to[64];
    int n = split_top(list, list + strlen(list), ',', at, to, 64);
    if (n < 1) return *why = "more than 64 depend objects in one clause", false;
    for (int i = 0; i < n; ++i) {
        char *o = named_item(at[i], (size_t)(to[i] - at[i]));
        if (!o) return *why = "a depend object that is not a plain variable", false;
        const char *init = depobj_init(w, o, why);
        free(o);
        if (!init) return false;
        walker wi = *w;
        wi.binds = NULL;
        if (!parse_clause(&wi, d, init, why)) return false;
    }
    return true;
}

/* The modifier a depend clause starts with: "iterator", "depobj" or NULL. */
static bool starts_with_word(const char *arg, const char *word, char next)
{
    size_t n = strlen(word);
    return !strncmp(arg, word, n) && skip_space(arg + n)[0] == next;
}

bool fe_depend_attach(walker *w, const char *file, const fe_pragma *p, int32_t t_node)
{
    fe_dep *d = NULL;
    for (int32_t i = 0; i < p->nclauses; ++i) {
        if (strcmp(p->clauses[i].name, "depend")) continue;
        if (!d && !(d = calloc(1, sizeof *d))) return fe_nomem(w);
        const char *why, *arg = p->clauses[i].arg ? skip_space(p->clauses[i].arg) : "";
        bool ok = starts_with_word(arg, "iterator", '(') ? parse_iterator(w, d, arg, &why)
                  : starts_with_word(arg, "depobj", ':')
                      ? parse_depobj(w, d, skip_space(arg + 6) + 1, &why)
                      : parse_clause(w, d, arg, &why);
        if (!ok) {
            fe_depend_free(d);
            if (!why) return fe_nomem(w);
            const char *dir = p->dir == FE_DIR_TASKWAIT ? "taskwait" : "task";
            if (strchr(why, ' '))
                return fe_refuse(w, file, p->line, p->col, "%s depend(%s): %s", dir,
                                 p->clauses[i].arg ? p->clauses[i].arg : "", why);
            return fe_refuse(w, file, p->line, p->col,
                             "%s with a depend(%s: ...) clause: only in, out, inout and "
                             "inoutset dependences are modelled (docs/depend.md)",
                             dir, why);
        }
    }
    fe_depend_free(w->g->nodes[t_node].dep);
    w->g->nodes[t_node].dep = d;
    return true;
}

/* taskwait depend(…) (OpenMP 5.1 §15.5) waits for the earlier siblings whose
 * clauses conflict with its items: a partial W node, whose items are
 * evaluated and aliased like a task's.  nowait makes it no wait at all. */
bool fe_depend_taskwait(walker *w, const char *file, const fe_pragma *p)
{
    for (int32_t i = 0; i < p->nclauses; ++i)
        if (strcmp(p->clauses[i].name, "depend"))
            return fe_refuse(w, file, p->line, p->col, "taskwait with a %s clause is not supported",
                             p->clauses[i].name);
    if (!w->flow->live) return true;
    int32_t v = fe_attach(w, 'W', file, p->line, p->col, fe_strdup("taskwait"), true);
    return v >= 0 && fe_depend_attach(w, file, p, v);
}

/* ---- the region's vars ------------------------------------------------------------ */

/* One array base of the region: its distinct constant range sets ("cells
 * classes"), or the fallback to one var when some item is not constant. */
typedef struct base_entry {
    const char *name;
    bool whole;      /* every item on it shares the var `name` */
    bool named;      /* a named item `name` exists */
    bool loop_cells; /* some item is a cell of a compact loop's iteration */
    int8_t rank;
    long long dim[MAX_DIMS];
    int32_t n, cap;
    const dep_item **cls; /* representative item of each class */
    char **text;          /* "A[0][1:2]" of each class */
} base_entry;

struct fe_dep_region {
    bool memory;     /* some item is memory-based */
    bool all_memory; /* some task depends on omp_all_memory */
    int32_t n, cap;
    base_entry *b;
};

void fe_depend_region_free(fe_dep_region *r)
{
    if (!r) return;
    for (int32_t i = 0; i < r->n; ++i) {
        for (int32_t k = 0; k < r->b[i].n; ++k)
            free(r->b[i].text[k]);
        free(r->b[i].cls), free(r->b[i].text);
    }
    free(r->b), free(r);
}

static base_entry *base_get(fe_dep_region *r, const char *name)
{
    for (int32_t i = 0; i < r->n; ++i)
        if (!strcmp(r->b[i].name, name)) return &r->b[i];
    if (r->n == r->cap) {
        int32_t cap = r->cap ? 2 * r->cap : 8;
        base_entry *p = realloc(r->b, sizeof *p * (size_t)cap);
        if (!p) return NULL;
        r->b = p, r->cap = cap;
    }
    r->b[r->n] = (base_entry){.name = name, .rank = -1};
    return &r->b[r->n++];
}

static bool same_ranges(const dep_item *a, const dep_item *b)
{
    for (int d = 0; d < a->rank; ++d)
        if (a->lo[d] != b->lo[d] || a->hi[d] != b->hi[d]) return false;
    return true;
}

static bool overlap(const dep_item *a, const dep_item *b)
{
    for (int d = 0; d < a->rank; ++d)
        if (a->hi[d] <= b->lo[d] || b->hi[d] <= a->lo[d]) return false;
    return true;
}

static char *range_text(const dep_item *it)
{
    char buf[256];
    size_t n = (size_t)snprintf(buf, sizeof buf, "%s", it->name);
    for (int d = 0; d < it->rank && n < sizeof buf; ++d)
        n += (size_t)(it->hi[d] - it->lo[d] == 1
                          ? snprintf(buf + n, sizeof buf - n, "[%lld]", it->lo[d])
                          : snprintf(buf + n, sizeof buf - n, "[%lld:%lld]", it->lo[d],
                                     it->hi[d] - it->lo[d]));
    return fe_strdup(buf);
}

static bool class_add(base_entry *b, const dep_item *it)
{
    for (int32_t k = 0; k < b->n; ++k)
        if (same_ranges(b->cls[k], it)) return true;
    if (b->n == b->cap) {
        int32_t cap = b->cap ? 2 * b->cap : 8;
        const dep_item **c = realloc(b->cls, sizeof *c * (size_t)cap);
        if (c) b->cls = c;
        char **t = realloc(b->text, sizeof *t * (size_t)cap);
        if (t) b->text = t;
        if (!c || !t) return false;
        b->cap = cap;
    }
    b->cls[b->n] = it;
    if (!(b->text[b->n] = range_text(it))) return false;
    b->n++;
    return true;
}

fe_dep_region *fe_depend_region_new(const fe_graph *g)
{
    fe_dep_region *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    for (int32_t v = 0; v < g->n; ++v) {
        const fe_dep *d = g->nodes[v].dep;
        for (int32_t i = 0; d && i < d->n; ++i) {
            const dep_item *it = &d->it[i];
            if (it->kind == ITEM_MEMORY) {
                r->memory = true;
                continue;
            }
            if (it->kind == ITEM_ALL_MEMORY) {
                r->all_memory = true;
                continue;
            }
            base_entry *b = base_get(r, it->name);
            if (!b) return fe_depend_region_free(r), NULL;
            if (it->kind == ITEM_NAMED) {
                b->named = true;
                continue;
            }
            if (it->kind == ITEM_ARRAY_ANY ||
                (b->rank >= 0 && (b->rank != it->rank ||
                                  memcmp(b->dim, it->dim, sizeof(long long) * (size_t)it->rank))))
                b->whole = true;
            b->rank = it->rank;
            memcpy(b->dim, it->dim, sizeof b->dim);
            b->loop_cells |= it->kind == ITEM_LOOP_CELL;
            if (it->kind == ITEM_ARRAY && !class_add(b, it)) return fe_depend_region_free(r), NULL;
        }
    }
    for (int32_t i = 0; i < r->n; ++i) {
        base_entry *b = &r->b[i];
        if (b->named && b->rank >= 0) b->whole = true;
        for (int32_t k = 0; b->loop_cells && k < b->n; ++k)       /* cells by the iteration: */
            b->whole |= b->cls[k]->hi[0] - b->cls[k]->lo[0] != 1; /* constant ones single too */
    }
    return r;
}

static ompdag_status add(ompdag_condag *g, int32_t idx, uint8_t type, const char *var,
                         ompdag_error *err)
{
    return ompdag_condag_add_depend(g, idx, (ompdag_dep_type)type, var, err);
}

/* True when d names omp_all_memory. */
static bool has_all_memory(const fe_dep *d)
{
    for (int32_t i = 0; i < d->n; ++i)
        if (d->it[i].kind == ITEM_ALL_MEMORY) return true;
    return false;
}

ompdag_status fe_depend_emit(const fe_graph *fg, int32_t v, const fe_dep_region *r,
                             ompdag_condag *g, int32_t idx, ompdag_error *err)
{
    const fe_dep *d = fg->nodes[v].dep;
    if (!d) return OMPDAG_OK;
    ompdag_status st = OMPDAG_OK;
    /* Every task with a depend clause is ordered against the omp_all_memory
     * tasks of its siblings: `in` on their var (in after in: no edge). */
    if (r->all_memory && !has_all_memory(d)) st = add(g, idx, OMPDAG_DEP_IN, ALL_MEMORY_VAR, err);
    for (int32_t i = 0; !st && i < d->n; ++i) {
        const dep_item *it = &d->it[i];
        if (it->kind == ITEM_ALL_MEMORY) {
            st = add(g, idx, it->type, ALL_MEMORY_VAR, err);
            continue;
        }
        const base_entry *b = NULL;
        for (int32_t k = 0; it->name && k < r->n && !b; ++k)
            if (!strcmp(r->b[k].name, it->name)) b = &r->b[k];
        if (it->kind == ITEM_NAMED || (b && b->whole)) {
            st = add(g, idx, it->type, it->name, err);
        } else if (it->kind == ITEM_LOOP_CELL) { /* docs/compact.md: "name[lo + k]" */
            st = ompdag_condag_add_depend_indexed(g, idx, (ompdag_dep_type)it->type, it->name,
                                                  it->loop, it->lo[0], err);
        } else if (it->kind == ITEM_ARRAY && b) {
            int32_t me = 0;
            while (me < b->n && !same_ranges(b->cls[me], it))
                ++me;
            for (int32_t k = 0; !st && k < b->n; ++k) {
                if (!overlap(b->cls[k], it)) continue;
                char var[600];
                int32_t lo = k < me ? k : me, hi = k < me ? me : k;
                if (lo == hi)
                    snprintf(var, sizeof var, "%s", b->text[lo]);
                else
                    snprintf(var, sizeof var, "%s^%s", b->text[lo], b->text[hi]);
                st = add(g, idx, it->type, var, err);
            }
        }
        if (!st && (it->kind == ITEM_MEMORY || r->memory))
            st = add(g, idx, it->type, MEMORY_VAR, err);
    }
    return st;
}
