/*
 * analysis/rta_shared.c — what every bound algorithm shares (rta_internal.h,
 * include/ompdag/rta.h): the checks of a graph and options before any
 * analysis (exact int64 arithmetic: a graph whose m·R could overflow is
 * refused up front), and the result object with its accessors, its
 * critical-path and branch-choice writers and its JSON form, and the
 * algorithms' names.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "condag_loops.h"
#include "ompdag/compact.h"
#include "ompdag/internal/condag_json.h"
#include "rta_internal.h"

/* A compact graph's values reach m times its unfolding's total. */
static ompdag_status check_compact_total(const ompdag_condag *g, const ompdag_rta_options *opt,
                                         ompdag_error *err)
{
    char site = !opt->migration_overhead                       ? 0
                : opt->migration_model == OMPDAG_MIGRATION_WFS ? 'T'
                                                               : 'W';
    int64_t total, scaled;
    char loop[512]; /* compact loops: name the one that multiplies most */
    condag_loops_name_largest(g, loop, sizeof loop);
    if (!ompdag_compact_expanded_total(g, opt->migration_overhead, site, &total) ||
        __builtin_mul_overflow(total, 2 * (int64_t)opt->m, &scaled) || scaled == INT64_MAX)
        return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                "2·m (m = %d) times the total WCET of the unfolded compact graph "
                                "does not fit in int64%s; use a coarser time unit%s",
                                opt->m, loop, loop[0] ? " or a lower loop bound" : "");
    return OMPDAG_OK;
}

ompdag_status rta_check_inputs(const ompdag_condag *g, const ompdag_rta_options *opt,
                               ompdag_error *err)
{
    if (!g->finalized) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "graph is not finalized");
    if (opt->m < 1)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "thread count m must be >= 1 (got %d)",
                                opt->m);
    if (opt->migration_overhead < 0)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "migration overhead must be >= 0");
    /* m·O is charged at each migration site: it must fit first, and the
     * sites are counted by kind, not by a penalty that could have wrapped. */
    int64_t per_site, sites = 0;
    if (__builtin_mul_overflow((int64_t)opt->m, opt->migration_overhead, &per_site))
        return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                "m (%d) times the migration overhead (%lld) does not fit in int64",
                                opt->m, (long long)opt->migration_overhead);
    int64_t blocking; /* lock blocking, Σ B(v, m) (docs/mutex.md); refused on compact graphs */
    ompdag_status bst =
        ompdag_condag_total_blocking(g, opt->blocking_m ? opt->blocking_m : opt->m, &blocking, err);
    if (bst) return bst;
    if (g->compact) return check_compact_total(g, opt, err);
    if (opt->migration_overhead) {
        ompdag_kind site =
            opt->migration_model == OMPDAG_MIGRATION_WFS ? OMPDAG_KIND_T : OMPDAG_KIND_W;
        for (int32_t v = 0; v < g->n; ++v)
            sites += g->kind[v] == site;
    }
    int64_t extra, total, scaled;
    if (__builtin_mul_overflow(sites, opt->migration_overhead, &extra) ||
        __builtin_add_overflow(extra, g->total_delay, &extra) ||
        __builtin_add_overflow(extra, blocking, &extra) ||
        __builtin_add_overflow(g->total_wcet, extra, &total))
        return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                "the total WCET (%lld) plus the dispatch delays (%lld) and the "
                                "migration overhead (%lld) at %lld migration sites does not fit "
                                "in int64",
                                (long long)g->total_wcet, (long long)g->total_delay,
                                (long long)opt->migration_overhead, (long long)sites);
    if (__builtin_mul_overflow(total, 2 * (int64_t)opt->m, &scaled) || scaled == INT64_MAX) {
        if (extra)
            return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                    "2·m (m = %d) times the total WCET (%lld) plus the delays and "
                                    "the migration overhead (%lld at %lld sites) does not fit in "
                                    "int64",
                                    opt->m, (long long)g->total_wcet,
                                    (long long)opt->migration_overhead, (long long)sites);
        return ompdag_error_set(err, OMPDAG_ERR_OVERFLOW,
                                "2·m (m = %d) times the total WCET (%lld) does not fit in "
                                "int64; use a coarser time unit",
                                opt->m, (long long)g->total_wcet);
    }
    return OMPDAG_OK;
}

ompdag_rta_result *rta_result_new(const ompdag_condag *g, ompdag_algorithm alg, int32_t m,
                                  bool witness)
{
    ompdag_rta_result *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    *r = (ompdag_rta_result){.alg = alg,
                             .m = m,
                             .has_witness = witness,
                             .vol = -1,
                             .len = -1,
                             .n = g->n,
                             .exact = alg != OMPDAG_ALG_ALG0};
    if (witness) {
        r->choice = malloc(sizeof *r->choice * (size_t)g->n);
        if (!r->choice) {
            free(r);
            return NULL;
        }
        memset(r->choice, 0xff, sizeof *r->choice * (size_t)g->n);
    }
    return r;
}

void ompdag_rta_result_destroy(ompdag_rta_result *r)
{
    if (!r) return;
    free(r->choice);
    free(r->choice_alt);
    free(r->reached);
    free(r->loop_lo), free(r->loop_hi);
    free(r->piece), free(r->piece_node);
    free(r->path);
    free(r);
}

ompdag_algorithm ompdag_rta_result_algorithm(const ompdag_rta_result *r)
{
    return r->alg;
}
int32_t ompdag_rta_result_m(const ompdag_rta_result *r)
{
    return r->m;
}
int64_t ompdag_rta_result_bound_times_m(const ompdag_rta_result *r)
{
    return r->bound_times_m;
}
double ompdag_rta_result_bound(const ompdag_rta_result *r)
{
    return (double)r->bound_times_m / (double)r->m;
}
bool ompdag_rta_result_has_witness(const ompdag_rta_result *r)
{
    return r->has_witness;
}
bool ompdag_rta_result_is_exact(const ompdag_rta_result *r)
{
    return r->exact;
}
int64_t ompdag_rta_result_vol(const ompdag_rta_result *r)
{
    return r->vol;
}
int64_t ompdag_rta_result_len(const ompdag_rta_result *r)
{
    return r->len;
}
int64_t ompdag_rta_result_migrations(const ompdag_rta_result *r)
{
    return r->migrations;
}
uint64_t ompdag_rta_result_flow_count(const ompdag_rta_result *r)
{
    return r->flows;
}
bool ompdag_rta_result_is_compact(const ompdag_rta_result *r)
{
    return r->compact;
}
const ompdag_path_piece *ompdag_rta_result_path_pieces(const ompdag_rta_result *r, int32_t *count,
                                                       const int32_t **nodes)
{
    *count = r->npieces;
    *nodes = r->piece_node;
    return r->npieces ? r->piece : NULL;
}

const char *ompdag_rta_result_path_missing(const ompdag_rta_result *r)
{
    return r->no_path;
}

uint64_t ompdag_rta_result_path_nodes(const ompdag_rta_result *r)
{
    return r->compact ? r->path_nodes : (uint64_t)r->path_len;
}
int32_t ompdag_rta_result_choice_alt(const ompdag_rta_result *r, int32_t v)
{
    return r->choice_alt && v >= 0 && v < r->n ? r->choice_alt[v] : -1;
}

int32_t ompdag_rta_result_choice(const ompdag_rta_result *r, int32_t v)
{
    return r->choice && v >= 0 && v < r->n ? r->choice[v] : -1;
}

const int32_t *ompdag_rta_result_critical_path(const ompdag_rta_result *r, int32_t *count)
{
    *count = r->path_len;
    return r->path;
}

/* The path's places, compressed: a block of up to 16 places repeated k
 * times is printed once as "(a -> b) xk" when that saves something (k >= 3,
 * or k = 2 for blocks of 2 or more).  Recursion unrolled into a path —
 * depth after depth of the same call context — then reads as context × depth. */
enum { PLACE_SIZE = 192, MAX_BLOCK = 16 };

typedef struct path_token {
    int32_t at, len, times; /* places [at, at+len) repeated `times` */
} path_token;

static bool same_block(char (*pl)[PLACE_SIZE], int32_t a, int32_t b, int32_t len)
{
    for (int32_t i = 0; i < len; ++i)
        if (strcmp(pl[a + i], pl[b + i])) return false;
    return true;
}

/* Greedy: at each position the block length covering most places. */
static int32_t tokenize_path(char (*pl)[PLACE_SIZE], int32_t n, path_token *tok)
{
    int32_t nt = 0;
    for (int32_t i = 0; i < n;) {
        path_token best = {i, 1, 1};
        for (int32_t len = 1; len <= MAX_BLOCK && i + 2 * len <= n; ++len) {
            int32_t k = 1;
            while (i + (k + 1) * len <= n && same_block(pl, i, i + k * len, len))
                ++k;
            if ((k >= 3 || (k == 2 && len >= 2)) && k * len > best.len * best.times)
                best = (path_token){i, len, k};
        }
        tok[nt++] = best;
        i += best.len * best.times;
    }
    return nt;
}

static void write_token(FILE *out, char (*pl)[PLACE_SIZE], path_token t)
{
    if (t.times > 1) fputc('(', out);
    for (int32_t i = 0; i < t.len; ++i)
        fprintf(out, "%s%s", i ? " -> " : "", pl[t.at + i]);
    if (t.times > 1) fprintf(out, ") x%d", t.times);
}

/* Tokens of places pl[0..n), with " -> ", the middle of a long list left out. */
static void write_tokens(FILE *out, char (*pl)[PLACE_SIZE], const path_token *tok, int32_t nt)
{
    enum { HEAD = 8, TAIL = 4 }; /* tokens shown of a long list */
    for (int32_t i = 0; i < nt; ++i) {
        if (i == HEAD && nt > HEAD + TAIL) {
            int32_t skipped = 0;
            for (int32_t k = HEAD; k < nt - TAIL; ++k)
                skipped += tok[k].len * tok[k].times;
            fprintf(out, " -> ... (%d more)", skipped);
            i = nt - TAIL;
        }
        fputs(i ? " -> " : "", out);
        write_token(out, pl, tok[i]);
    }
}

/* One node piece: its places folded as any path, "(…) xk" when repeated. */
static void write_node_piece(const ompdag_rta_result *r, const ompdag_condag *g,
                             const rta_path_piece *p, FILE *out)
{
    char(*pl)[PLACE_SIZE] = malloc(sizeof *pl * (size_t)p->len);
    path_token *tok = malloc(sizeof *tok * (size_t)p->len);
    if (!pl || !tok) {
        fputs("(out of memory)", out);
    } else {
        for (int32_t a = 0; a < p->len; ++a)
            ompdag_condag_node_place(g, r->piece_node[p->at + a], pl[a], PLACE_SIZE);
        if (p->times > 1) fputc('(', out);
        write_tokens(out, pl, tok, tokenize_path(pl, p->len, tok));
        if (p->times > 1) fprintf(out, ") x%llu", (unsigned long long)p->times);
    }
    free(pl), free(tok);
}

/* The pieces after index i that make its item (a group's subtree). */
static int32_t item_span(const ompdag_rta_result *r, int32_t i)
{
    return r->piece[i].at < 0 ? r->piece[i].len : 0;
}

/* The path of compact loops replayed in runs (rta_loop_path.c), pre-order:
 * a repeated piece prints once as "(…) xk", a group as "(…) xk" around its
 * pieces: "a -> (O -> (I -> t) x1000 -> ie) x999".  Groups nest as deep as
 * the runs do: the closing brackets wait on an explicit stack. */
static void write_pieces(const ompdag_rta_result *r, const ompdag_condag *g, FILE *out)
{
    enum { HEAD = 8, TAIL = 4 }; /* top-level items shown of a long path */
    int32_t items = 0, item = 0, depth = 0;
    for (int32_t i = 0; i < r->npieces; i += 1 + item_span(r, i))
        ++items;
    int32_t *open = malloc(sizeof *open * (size_t)r->npieces); /* headers of open groups */
    const char *sep = " ";
    for (int32_t i = 0; open && (i < r->npieces || depth);) {
        const rta_path_piece *h = depth ? &r->piece[open[depth - 1]] : NULL;
        if (h && i == open[depth - 1] + 1 + h->len) { /* a group closes */
            fprintf(out, ") x%llu", (unsigned long long)h->times);
            --depth;
            sep = " -> ";
            continue;
        }
        if (!depth && item++ == HEAD && items > HEAD + TAIL) { /* the middle left out */
            for (int32_t k = HEAD; k < items - TAIL; ++k)
                i += 1 + item_span(r, i);
            fprintf(out, " -> ... (%d more pieces)", items - HEAD - TAIL);
            item = items - TAIL + 1;
        }
        fputs(sep, out);
        if (r->piece[i].at < 0) {
            fputc('(', out);
            open[depth++] = i++;
            sep = "";
            continue;
        }
        write_node_piece(r, g, &r->piece[i], out);
        sep = " -> ";
        ++i;
    }
    if (!open) fputs(" (out of memory)", out);
    free(open);
    fputc('\n', out);
}

void ompdag_rta_result_write_path(const ompdag_rta_result *r, const ompdag_condag *g, FILE *out)
{
    int32_t n = r->path_len;
    uint64_t total = ompdag_rta_result_path_nodes(r);
    char(*pl)[PLACE_SIZE] = malloc(sizeof *pl * (size_t)(n ? n : 1));
    path_token *tok = malloc(sizeof *tok * (size_t)(n ? n : 1));
    if (total == UINT64_MAX)
        fprintf(out, "critical path (2^64 or more nodes");
    else
        fprintf(out, "critical path (%llu nodes", (unsigned long long)total);
    if (total > (uint64_t)n && !r->npieces) fprintf(out, ", the first %d shown", n);
    fputs("):", out);
    if (!pl || !tok) {
        fputs(" (out of memory)\n", out);
        free(pl), free(tok);
        return;
    }
    for (int32_t i = 0; i < n; ++i)
        ompdag_condag_node_place(g, r->path[i], pl[i], PLACE_SIZE);
    if (r->npieces) { /* compact loops in runs: the pieces give the counts */
        write_pieces(r, g, out);
        free(pl), free(tok);
        return;
    }
    int32_t nt = tokenize_path(pl, n, tok);
    if (nt) fputc(' ', out);
    write_tokens(out, pl, tok, nt);
    fputc('\n', out);
    free(pl), free(tok);
}

typedef struct choice_key {
    char *key; /* place of the node, of its choice, the choice's label, the alternative */
    int32_t v;
} choice_key;

static int cmp_choice_key(const void *a, const void *b)
{
    const choice_key *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->v > y->v) - (x->v < y->v);
}

static char *choice_key_of(const ompdag_rta_result *r, const ompdag_condag *g, int32_t v)
{
    char a[PLACE_SIZE], b[PLACE_SIZE], c[PLACE_SIZE] = "";
    int32_t s = r->choice[v], alt = ompdag_rta_result_choice_alt(r, v);
    const char *label = ompdag_condag_node_label(g, s);
    if (alt >= 0) ompdag_condag_node_place(g, alt, c, sizeof c);
    size_t n = 4 * PLACE_SIZE + (label ? strlen(label) : 0);
    char *k = malloc(n);
    if (k)
        snprintf(k, n, "%s\x01%s\x01%s\x01%s", ompdag_condag_node_place(g, v, a, sizeof a),
                 ompdag_condag_node_place(g, s, b, sizeof b), label ? label : "", c);
    return k;
}

static int cmp_group_first(const void *a, const void *b)
{
    const ompdag_choice_group *x = a, *y = b;
    return (x->node > y->node) - (x->node < y->node);
}

ompdag_choice_group *ompdag_rta_result_choice_groups(const ompdag_rta_result *r,
                                                     const ompdag_condag *g, int32_t *count)
{
    *count = 0;
    if (!r->choice) return NULL;
    int32_t n = 0;
    for (int32_t v = 0; v < g->n; ++v)
        n += r->choice[v] >= 0;
    if (!n) return NULL;
    choice_key *keys = calloc((size_t)n, sizeof *keys);
    ompdag_choice_group *groups = malloc(sizeof *groups * (size_t)n);
    bool ok = keys && groups;
    for (int32_t v = 0, i = 0; ok && v < g->n; ++v)
        if (r->choice[v] >= 0)
            ok = (keys[i++] = (choice_key){choice_key_of(r, g, v), v}).key != NULL;
    int32_t ng = 0;
    if (ok) {
        qsort(keys, (size_t)n, sizeof *keys, cmp_choice_key);
        for (int32_t i = 0; i < n; ++i) {
            if (i && !strcmp(keys[i].key, keys[i - 1].key)) {
                groups[ng - 1].nodes++;
                continue;
            }
            int32_t v = keys[i].v;
            groups[ng++] =
                (ompdag_choice_group){v, r->choice[v], ompdag_rta_result_choice_alt(r, v), 1};
        }
        qsort(groups, (size_t)ng, sizeof *groups, cmp_group_first);
    }
    for (int32_t i = 0; keys && i < n; ++i)
        free(keys[i].key);
    free(keys);
    if (!ok) {
        free(groups);
        *count = -1;
        return NULL;
    }
    *count = ng;
    return groups;
}

void ompdag_choice_group_write_note(FILE *out, const ompdag_condag *g,
                                    const ompdag_choice_group *gr)
{
    char b[PLACE_SIZE];
    if (gr->nodes > 1) fprintf(out, " [%d copies]", gr->nodes);
    if (gr->alt >= 0)
        fprintf(out, "; other instances take %s",
                ompdag_condag_node_place(g, gr->alt, b, sizeof b));
}

int32_t *ompdag_rta_result_choices_copy(const ompdag_rta_result *r, const ompdag_condag *g)
{
    if (!r->choice || r->n != g->n) return NULL;
    int32_t *c = malloc(sizeof *c * (size_t)r->n);
    if (c) memcpy(c, r->choice, sizeof *c * (size_t)r->n);
    return c;
}

json_t *rta_result_to_json(const ompdag_rta_result *r, const ompdag_condag *g)
{
    json_t *o = json_object();
    if (!o) return NULL;
    json_object_set_new(o, "m", json_integer(r->m));
    json_object_set_new(o, "algorithm", json_string(ompdag_algorithm_name(r->alg)));
    json_object_set_new(o, "bound", json_real(ompdag_rta_result_bound(r)));
    json_object_set_new(o, "bound_times_m", json_integer(r->bound_times_m));
    json_object_set_new(o, "exact", json_boolean(r->exact));
    json_object_set_new(o, "time_unit", json_string(ompdag_condag_time_unit(g)));
    if (r->alg == OMPDAG_ALG_ENUMERATE)
        json_object_set_new(o, "flows", json_integer((json_int_t)r->flows));
    if (r->vol >= 0) { /* compact loops above the path's limit: vol and len, no path */
        json_object_set_new(o, "vol", json_integer(r->vol));
        json_object_set_new(o, "len", json_integer(r->len));
        if (r->migrations) json_object_set_new(o, "migrations", json_integer(r->migrations));
    }
    if (!r->has_witness) return o;
    json_t *choices = json_object(), *path = json_array();
    for (int32_t v = 0; v < g->n; ++v)
        if (r->choice[v] >= 0)
            json_object_set_new(choices, node_name(g, v), json_string(node_name(g, r->choice[v])));
    for (int32_t i = 0; i < r->path_len; ++i)
        json_array_append_new(path, json_string(node_name(g, r->path[i])));
    json_t *flow = json_pack("{s:o,s:o}", "choices", choices, "critical_path", path);
    if (r->compact) { /* path holds a prefix of path_nodes body nodes */
        json_object_set_new(
            flow, "critical_path_nodes",
            json_integer((json_int_t)(r->path_nodes > INT64_MAX ? INT64_MAX : r->path_nodes)));
        json_t *alt = json_object();
        for (int32_t v = 0; v < g->n; ++v)
            if (r->choice_alt[v] >= 0)
                json_object_set_new(alt, node_name(g, v),
                                    json_string(node_name(g, r->choice_alt[v])));
        json_object_set_new(flow, "other_choices", alt);
    }
    json_object_set_new(o, "worst_flow", flow);
    return o;
}

const char *ompdag_algorithm_name(ompdag_algorithm alg)
{
    switch (alg) {
    case OMPDAG_ALG_EXACT:
        return "exact";
    case OMPDAG_ALG_ALG0:
        return "alg0";
    case OMPDAG_ALG_ENUMERATE:
        return "enumerate";
    case OMPDAG_ALG_DEPEND:
        return "depend";
    }
    return "unknown";
}

bool ompdag_algorithm_parse(const char *name, ompdag_algorithm *out)
{
    for (int a = OMPDAG_ALG_EXACT; a <= OMPDAG_ALG_DEPEND; ++a)
        if (!strcmp(name, ompdag_algorithm_name((ompdag_algorithm)a))) {
            *out = (ompdag_algorithm)a;
            return true;
        }
    return false;
}
