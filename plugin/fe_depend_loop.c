/*
 * plugin/fe_depend_loop.c — the subscripts of depend items inside a compact
 * loop (docs/compact.md, "depend clauses in compact loops").
 *
 * A compact loop (fe_loop.c) walks its body once, so a subscript that names
 * the loop variable i has no single value; when it is i + c the item names
 * the cell start + c + k in iteration k, which the graph keeps as an index
 * (ompdag_condag_add_depend_indexed).  This file finds such a variable in a
 * subscript and checks the shape by the grammar of C: i must be a top-level
 * additive term with coefficient +1, named once, so the subscript is i plus
 * a constant that fe_depend.c evaluates with i = 0.  Any other use (2*i,
 * b[i], n - i) is refused by fe_depend.c with the directive's line.
 */
#include <ctype.h>
#include <string.h>

#include "fe_depend_loop.h"

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* True when [p, p + n) is the identifier itself, not a part or a member. */
static bool names_at(const char *b, const char *e, const char *p, size_t n)
{
    if (p + n > e || (p > b && (ident_char(p[-1]) || p[-1] == '.' || p[-1] == '>'))) return false;
    return p + n == e || !ident_char(p[n]);
}

static int count_names(const char *x, const char *b, const char *e, const char **at)
{
    size_t n = strlen(x);
    int k = 0;
    for (const char *p = b; p + n <= e; ++p)
        if (!strncmp(p, x, n) && names_at(b, e, p, n)) *at = p, ++k;
    return k;
}

const fe_bind *fe_depend_loop_var(const walker *w, const char *b, const char *e)
{
    for (const fe_bind *x = w->binds; x; x = x->up) {
        const char *at;
        if (x->task != w->task || x->depth != w->depth || !x->name[0]) continue;
        bool shadowed = false; /* an inner bind of the same name hides it */
        for (const fe_bind *y = w->binds; y != x; y = y->up)
            shadowed |= y->task == w->task && y->depth == w->depth && !strcmp(y->name, x->name);
        if (!shadowed && x->compact_test && count_names(x->name, b, e, &at)) return x;
    }
    return NULL;
}

static const char *skip_back(const char *b, const char *p)
{
    while (p > b && isspace((unsigned char)p[-1]))
        --p;
    return p;
}

static const char *skip_fwd(const char *p, const char *e)
{
    while (p < e && isspace((unsigned char)*p))
        ++p;
    return p;
}

/* Strips blanks and parentheses that enclose the whole text. */
static void strip(const char **b, const char **e)
{
    for (;;) {
        *b = skip_fwd(*b, *e), *e = skip_back(*b, *e);
        if (*e - *b < 2 || **b != '(' || (*e)[-1] != ')') return;
        int depth = 0;
        for (const char *p = *b; p < *e - 1; ++p) {
            depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
            if (depth == 0) return; /* "(a) + (b)": the first closes early */
        }
        ++*b, --*e;
    }
}

bool fe_depend_loop_affine(const char *x, const char *b, const char *e)
{
    strip(&b, &e);
    const char *at = NULL;
    if (count_names(x, b, e, &at) != 1) return false;
    int depth = 0;
    for (const char *p = b; p < at; ++p)
        depth += *p == '(' || *p == '[' ? 1 : *p == ')' || *p == ']' ? -1 : 0;
    if (depth) return false;
    const char *before = skip_back(b, at), *after = skip_fwd(at + strlen(x), e);
    if (after < e && *after != '+' && *after != '-') return false; /* x * 2, x[…], x(…) */
    if (before == b) return true;                                  /* x first */
    if (before[-1] != '+') return false;                           /* n - x, 2 * x */
    const char *op = skip_back(b, before - 1);                     /* binary +, or + at the start */
    return op == b || ident_char(op[-1]) || op[-1] == ')' || op[-1] == ']';
}
