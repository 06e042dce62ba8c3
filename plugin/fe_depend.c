/*
 * plugin/fe_depend.c — `depend` clauses of `#pragma omp task` become clauses
 * on the T node (shared/spec/condag.md §6).
 *
 * Accepted: depend(in|out|inout: list), several clauses per task.  Refused by
 * name: mutexinoutset, inoutset, depobj, iterator(...) modifiers,
 * source/sink (doacross), and `taskwait depend` (fe_stmt.c).
 *
 * Aliasing rule (two list items that may overlap at run time must get the
 * same var; extra sharing only adds edges, which is safe):
 *  - A *named* item — an identifier, possibly with `.member` selectors — is
 *    the storage of that variable: its var is the identifier ("x" for x and
 *    x.f).  Distinct names are distinct objects in C; one name used in two
 *    scopes (inlined calls) shares a var, which is merely conservative.
 *  - Every other item — array elements and sections (`a[i]`, `a[0:n]`),
 *    dereferences (`*p`, `p->f`), casts, calls — is *memory-based*: without
 *    type and value information it may be reached through a pointer, so all
 *    of them share the var "[memory]".  Constant indices are not used to
 *    split it: the base may be a pointer whose other uses alias it.
 *  - In a region that has some memory-based item, a pointer may also reach a
 *    named object, so each named item also gets the same clause on
 *    "[memory]".  In a region with named items only (strassen's style), the
 *    names stay independent.
 * The rule is per region (one con-DAG): dependences only order siblings, and
 * siblings are created in one region.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fe_depend.h"
#include "fe_walk.h"

#define MEMORY_VAR "[memory]"

struct fe_dep {
    int32_t n;
    uint8_t *type; /* ompdag_dep_type */
    char **var;    /* identifier, or NULL for a memory-based item */
};

void fe_depend_free(fe_dep *d)
{
    if (!d) return;
    for (int32_t i = 0; i < d->n; ++i)
        free(d->var[i]);
    free(d->var), free(d->type), free(d);
}

static const char *skip_space(const char *s)
{
    while (*s == ' ')
        ++s;
    return s;
}

/* The identifier that the whole item `s` (length len) names, or NULL when
 * it is memory-based.  Accepts `x`, `x.f`, `x.f.g`. */
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

static bool push_item(fe_dep *d, ompdag_dep_type t, char *var, bool memory)
{
    uint8_t *ty = realloc(d->type, sizeof *ty * (size_t)(d->n + 1));
    if (ty) d->type = ty;
    char **v = realloc(d->var, sizeof *v * (size_t)(d->n + 1));
    if (v) d->var = v;
    if (!ty || !v || (!memory && !var)) return free(var), false;
    d->type[d->n] = (uint8_t)t, d->var[d->n] = var;
    d->n++;
    return true;
}

/* Splits "type: item, item" at top-level commas into d; false with *why set
 * on a refusal, false with *why NULL on ENOMEM. */
static bool parse_clause(fe_dep *d, const char *arg, const char **why)
{
    static const char *const refused[] = {"mutexinoutset", "inoutset", "depobj",
                                          "source",        "sink",     "iterator"};
    *why = NULL;
    const char *colon = arg ? strchr(arg, ':') : NULL;
    if (!colon)
        return *why = "depend clause without a dependence type (expected in, out or inout)", false;
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
                char *var = named_item(s, (size_t)(p - s));
                bool memory = !var;
                if (!push_item(d, dt, var, memory)) return false;
            }
            if (!*p) break;
            s = p + 1;
        }
    }
    return true;
}

bool fe_depend_attach(walker *w, const char *file, const fe_pragma *p, int32_t t_node)
{
    fe_dep *d = NULL;
    for (int32_t i = 0; i < p->nclauses; ++i) {
        if (strcmp(p->clauses[i].name, "depend")) continue;
        if (!d && !(d = calloc(1, sizeof *d))) return fe_nomem(w);
        const char *why;
        if (!parse_clause(d, p->clauses[i].arg, &why)) {
            fe_depend_free(d);
            if (!why) return fe_nomem(w);
            if (strchr(why, ' '))
                return fe_refuse(w, file, p->line, p->col, "task depend(%s): %s",
                                 p->clauses[i].arg ? p->clauses[i].arg : "", why);
            return fe_refuse(w, file, p->line, p->col,
                             "task with a depend(%s: ...) clause: only in, out and inout "
                             "dependences are modelled (condag.md section 6)",
                             why);
        }
    }
    fe_depend_free(w->g->nodes[t_node].dep);
    w->g->nodes[t_node].dep = d;
    return true;
}

bool fe_depend_region_memory(const fe_graph *g)
{
    for (int32_t v = 0; v < g->n; ++v)
        for (int32_t i = 0; g->nodes[v].dep && i < g->nodes[v].dep->n; ++i)
            if (!g->nodes[v].dep->var[i]) return true;
    return false;
}

ompdag_status fe_depend_emit(const fe_graph *fg, int32_t v, bool memory, ompdag_condag *g,
                             int32_t idx, ompdag_error *err)
{
    const fe_dep *d = fg->nodes[v].dep;
    if (!d) return OMPDAG_OK;
    ompdag_status st = OMPDAG_OK;
    for (int32_t i = 0; !st && i < d->n; ++i) {
        if (d->var[i])
            st = ompdag_condag_add_depend(g, idx, (ompdag_dep_type)d->type[i], d->var[i], err);
        if (!st && (!d->var[i] || memory))
            st = ompdag_condag_add_depend(g, idx, (ompdag_dep_type)d->type[i], MEMORY_VAR, err);
    }
    return st;
}
