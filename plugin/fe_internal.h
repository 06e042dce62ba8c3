/*
 * plugin/fe_internal.h — private to the front end.
 *
 * Pipeline: frontend.c parses the file with libclang (OpenMP off, _OPENMP
 * defined), indexes function definitions and finds the parallel regions;
 * fe_pragma.c tokenizes each file and turns `#pragma omp …` / `#pragma
 * ompdag …` lines into fe_pragma records with their clauses; the region
 * builder (fe_region.c regions, fe_stmt.c statements, fe_loop.c loops,
 * fe_graph.c graph steps; shared state in fe_walk.h) walks each region's
 * statements in source order, attaching each pragma to the statement that
 * follows it, and builds the con-DAG of shared/spec/condag.md §1 in a small
 * private graph (fe_graph) that frontend.c hands to the ompdag builder.
 */
#ifndef OMPDAG_FE_INTERNAL_H
#define OMPDAG_FE_INTERNAL_H

#include <clang-c/Index.h>
#include <stdbool.h>
#include <stdint.h>

#include "ompdag/frontend.h"
#include "ompdag/internal/array.h"
#include "ompdag/internal/condag_json.h"

/* ---- growable int32 vector ------------------------------------------------ */
typedef struct fe_vec {
    int32_t *v;
    int32_t n;
    int64_t cap; /* ompdag_grow_array */
} fe_vec;
bool fe_vec_push(fe_vec *a, int32_t x);
bool fe_vec_push_unique(fe_vec *a, int32_t x);
void fe_vec_free(fe_vec *a);
char *fe_strdup(const char *s);
char *fe_strndup(const char *s, size_t n);

/* ---- directives ----------------------------------------------------------- */
typedef enum fe_dir {
    FE_DIR_PARALLEL,        /* parallel (team of threads, needs single/master) */
    FE_DIR_PARALLEL_MASTER, /* parallel master / parallel masked [taskloop]: body is τ1 */
    FE_DIR_PARALLEL_OTHER,  /* parallel for / sections / loop / workshare */
    FE_DIR_SINGLE,          /* single, master, masked */
    FE_DIR_TASK,
    FE_DIR_TASKLOOP, /* taskloop [simd], master/masked taskloop [simd] (fe_taskloop.c) */
    FE_DIR_TASKWAIT,
    FE_DIR_TASKGROUP,
    FE_DIR_BARRIER,
    FE_DIR_IGNORED_STANDALONE, /* taskyield, flush: no effect on the graph */
    FE_DIR_PLAIN,              /* atomic, simd: plain code with a directive */
    FE_DIR_REFUSED,            /* everything the model cannot represent */
    FE_DIR_OUTSIDE,            /* threadprivate, declare …, requires: not code */
    FE_DIR_LOOP_BOUND,         /* #pragma ompdag loop_bound(N) */
    FE_DIR_RECURSION_BOUND,    /* #pragma ompdag recursion_bound(N) */
    FE_DIR_DEADLINE,           /* #pragma ompdag deadline(5ms) */
    FE_DIR_RESOURCE,           /* #pragma ompdag resource(gpu|cpu): region class (DISPAR) */
    FE_DIR_ASSUME,             /* #pragma ompdag assume(NAME=VALUE): the input (fe_assume.c) */
    FE_DIR_OMPDAG_UNKNOWN
} fe_dir;

typedef struct fe_clause {
    char *name;
    char *arg; /* text between the parentheses (tokens joined by ' '), or NULL */
} fe_clause;

typedef struct fe_pragma {
    fe_dir dir;
    bool standalone;     /* stands alone (taskwait …) rather than prefixing a statement */
    char *name;          /* directive words, e.g. "parallel master" */
    unsigned begin, end; /* file offsets of '#' and of the end of the last token */
    int32_t line, col;
    fe_clause *clauses;
    int32_t nclauses;
} fe_pragma;

typedef struct fe_file {
    CXFile file;
    CXTranslationUnit tu; /* the unit whose CXFile this is (text, tokens) */
    char *name;
    const char *text; /* borrowed from the TU */
    size_t size;
    fe_pragma *pragmas; /* sorted by begin */
    int32_t npragmas;
    bool scanned;
    unsigned last_toplevel_end; /* end of the previous top-level declaration */
} fe_file;

/* "omp" or "ompdag": the pragma's namespace, for messages that quote it. */
static inline const char *fe_pragma_ns(const fe_pragma *p)
{
    return p->dir >= FE_DIR_LOOP_BOUND ? "ompdag" : "omp";
}

/* Finds the clause `name` of p, or NULL. */
const fe_clause *fe_pragma_clause(const fe_pragma *p, const char *name);

/* ---- functions of the translation unit ------------------------------------ */
typedef struct fe_func {
    CXCursor cursor; /* the definition */
    unsigned hash;
    char *name;
    fe_file *file;
    unsigned begin, end;     /* extent offsets */
    fe_vec callees;          /* indices of functions defined in the TU */
    bool significant;        /* contains (transitively) a non-plain omp directive or a
                                blocking call: the region builder walks its body */
    bool tasks;              /* contains (transitively) a task-creating directive */
    int32_t refs, calls;     /* references to it, and direct calls among them */
    int32_t recursion_bound; /* from #pragma ompdag recursion_bound, 0 if none */
    char *deadline;          /* from #pragma ompdag deadline, or NULL */
    int32_t unit;            /* index in ompdag_frontend.units */
    char *usr;               /* clang USR: finds the definition from another unit */
    bool external;           /* external linkage: callable from other units */
} fe_func;

/* ---- diagnostics, options, the whole context ------------------------------ */
typedef struct fe_diag_store {
    ompdag_frontend_diag *d;
    size_t n;
    int64_t cap;
} fe_diag_store;

/* A pragma argument that is not a literal (a macro, `NB * 2`, `sizeof`),
 * evaluated by libclang as a constant expression (frontend.c). */
typedef struct fe_const_arg {
    char *file;            /* name of the main file it belongs to */
    unsigned pragma_begin; /* offset of the pragma's '#' in that file */
    char *clause;          /* clause name ("" for ompdag loop_bound(N) …) */
    char *expr;            /* the argument text (after a "modifier:") */
    long long value;
    bool ok; /* a constant */
} fe_const_arg;

/* One parsed translation unit (a project has several). */
typedef struct fe_unit {
    CXTranslationUnit tu;
    CXFile main;         /* its main file */
    unsigned const_from; /* where appended constant declarations start in it, or 0 */
    bool regions;        /* extract its regions (else it is only indexed) */
} fe_unit;

typedef struct fe_extern_cache fe_extern_cache; /* fe_extern.c */

/* One NAME=VALUE claim about the input (--assume, -fplugin-arg-ompdag-assume,
 * #pragma ompdag assume): fe_assume.c. */
typedef struct fe_assumption {
    char *name;
    long long value;
    bool pragma;       /* from a pragma of the file being extracted (this run only) */
    const char *file;  /* pragma: where (borrowed from its fe_file) */
    int32_t line, col; /* pragma: where */
    bool global;       /* a file-scope variable of a parsed unit has this name */
    bool matched;      /* it names a global or a parameter of a region's function */
    int8_t written;    /* this region: 0 not checked, 1 not written, 2 written */
    bool noted;        /* this region: the "not folded" note was given */
} fe_assumption;

struct ompdag_frontend {
    int32_t recursion_bound;
    int32_t loop_bound; /* default loop bound (--loop-bound), 0: none */
    int32_t team_size;  /* team of a region without constant num_threads (--team-size), 0: none */
    int32_t node_limit;
    int32_t unroll_limit;
    fe_diag_store diags;
    char **strings; /* owned strings the diagnostics point to */
    size_t nstrings;
    int64_t capstrings;

    /* valid during one extraction */
    fe_unit *units;
    int32_t nunits;
    CXTranslationUnit tu; /* the unit being parsed or extracted */
    fe_file **files;
    int32_t nfiles;
    fe_func *funcs;
    int32_t nfuncs;
    int32_t fnptr_func; /* a significant function whose address is taken, or -1 */
    fe_const_arg *cargs;
    int32_t ncargs;
    fe_extern_cache *externs; /* sources searched for bodies not parsed */

    /* fe_assume.c: the input the graphs are built for */
    fe_assumption *assume;
    int32_t nassume;
    int64_t capassume;
    int32_t region_func;  /* the region being built (its function), for notes */
    int32_t depth_func;   /* a recursion the input drives beyond its bound, or -1 */
    int32_t depth_needed; /* … the depth it reaches */
    int32_t depth_bound;  /* … and the bound */
    const char *depth_file;
    int32_t depth_line, depth_col;
    fe_vec noted_params; /* func * 64 + parameter: "not folded" notes given */
};

/* Collects `#pragma ompdag assume` of the units' main files (fe_assume.c);
 * a pragma on a name also given on the command line is overridden by it.
 * false on ENOMEM (syntax errors become diagnostics). */
bool fe_assume_collect_pragmas(ompdag_frontend *fe);
/* After every region: an error for each assumption that matched nothing;
 * drops the pragma ones.  false on ENOMEM. */
bool fe_assume_finish(ompdag_frontend *fe);
/* The "assumptions" object of the graph of a region of function fi
 * ({"NAME": VALUE}), or NULL when none applies (or on ENOMEM: *nomem). */
struct json_t *fe_assume_json(const ompdag_frontend *fe, int32_t fi, bool *nomem);
/* Parses "NAME=VALUE" (spaces allowed around '='); false on bad syntax with
 * a message in why. */
bool fe_assume_parse(const char *text, char *name, size_t cap, long long *value, char *why,
                     size_t whycap);
void fe_assume_free(ompdag_frontend *fe);

/* For a call to a function whose body is in no parsed unit: the path of a
 * nearby source file that mentions it and has task directives (the call
 * may create tasks), or NULL (fe_extern.c).  Sets *nomem on ENOMEM. */
const char *fe_extern_task_source(ompdag_frontend *fe, CXCursor call, bool *nomem);
void fe_extern_cache_free(fe_extern_cache *c);

/* The integer value of clause `clause` of pragma p in file f: a literal
 * (true/false, 12, 4u), or a constant expression evaluated by libclang (main
 * file).  false when absent or not a constant. */
bool fe_clause_value(const ompdag_frontend *fe, const fe_file *f, const fe_pragma *p,
                     const char *clause, long *v);

/* Reads a clause argument that is an integer literal or true/false. */
bool fe_literal_value(const char *arg, long *v);

/* Calls refused in task code (fe_stmt.c): blocking ones (omp_set_lock, …),
 * lock polling (omp_test_lock, …) and direct runtime calls (__kmpc_*, GOMP_*). */
bool fe_is_blocking_call(CXCursor call);

/* True when call `c` goes through a pointer rather than naming a function. */
bool fe_call_is_indirect(CXCursor call);

/* Records a diagnostic; `file` is copied.  Returns false on ENOMEM. */
bool fe_diag(ompdag_frontend *fe, ompdag_diag_severity sev, const char *file, int32_t line,
             int32_t col, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* The fe_file for a CXFile, scanning its pragmas on first use; NULL on ENOMEM. */
fe_file *fe_file_get(ompdag_frontend *fe, CXFile file);
/* Scans `f` for pragmas (fe_pragma.c).  false on ENOMEM; refusals such as
 * _Pragma("omp …") become diagnostics and set *refused. */
bool fe_scan_pragmas(ompdag_frontend *fe, fe_file *f, bool *refused);
void fe_file_free(fe_file *f);

/* Index of the first pragma of f with begin >= offset. */
int32_t fe_pragma_lower_bound(const fe_file *f, unsigned offset);

/* Expansion-location start/end offsets, file and line/col of a cursor. */
typedef struct fe_span {
    CXFile file;
    unsigned begin, end;
    int32_t line, col;
    int32_t end_line;
} fe_span;
fe_span fe_cursor_span(CXCursor c);

/* Finds, in preorder, the first cursor of `file` that starts after `offset`
 * (the statement a pragma ending there prefixes): clang_visitChildren with
 * fe_first_after_visit and a fe_first_after as client data. */
typedef struct fe_first_after {
    CXFile file;
    unsigned offset;
    CXCursor found;
    bool hit;
} fe_first_after;
enum CXChildVisitResult fe_first_after_visit(CXCursor c, CXCursor parent, CXClientData data);

/* fe_const_args.c: pragma arguments that are constant expressions.
 * fe_collect_const_args: those of file f, to evaluate (false on ENOMEM);
 * fe_evaluate_const_args: their values in the unit being parsed (false on
 * ENOMEM); fe_main_cxfile: the unit's main file. */
/* The name prefix of the declarations a unit is parsed again with. */
#define CONST_ARG_PREFIX "__ompdag_const_arg_"
bool fe_collect_const_args(ompdag_frontend *fe, const fe_file *f);
bool fe_evaluate_const_args(ompdag_frontend *fe, const fe_unit *unit);
CXFile fe_main_cxfile(CXTranslationUnit tu);
/* The function defined in the TU that `c` (a CallExpr) calls, or -1. */
int32_t fe_func_of_call(const ompdag_frontend *fe, CXCursor call);
int32_t fe_func_index(const ompdag_frontend *fe, CXCursor decl); /* fe_util.c */

/* ---- the private graph of one region --------------------------------------- */
typedef struct fe_node {
    char kind; /* 'N' 'T' 'W' 'C' 'J' */
    int32_t task;
    int32_t creates;  /* task index for T, else -1 */
    const char *file; /* borrowed from fe_file */
    int32_t line, col;
    char *label;
    fe_vec succ;
    int32_t npred;
    struct fe_dep *dep; /* T: the created task's depend clauses (fe_depend.c), or NULL */
    struct fe_locks *locks; /* locks its code takes (fe_mutex.c), or NULL */
    int64_t repeat;     /* C: the test of a compact loop of at most `repeat` iterations (fe_loop.c) */
} fe_node;

typedef struct fe_task {
    int32_t creator; /* T node, -1 for τ1 */
    int32_t nnodes;
    bool untied;
    int32_t thread; /* implicit task of thread 1..team in a team graph (fe_team.c), else 0 */
} fe_task;

typedef struct fe_graph {
    fe_node *nodes;
    int32_t n;
    int64_t cap; /* growable arrays: ompdag_grow_array */
    fe_task *tasks;
    int32_t ntasks;
    int64_t tcap;
    /* fe_share.c: task bodies built once per context (docs/compact.md) */
    struct fe_share *share;
    bool shared;        /* some task is created by several T nodes: a compact graph */
    bool loops;         /* some loop is compact (fe_loop.c, docs/compact.md "Compact loops") */
    int32_t taskgroups; /* taskgroups being walked: nothing is shared inside */
    /* fe_team.c: tasks created by every thread of a team of `team` threads
     * (0: a single/master region); team_stmt: the top-level statement of the
     * parallel body being walked (a worksharing construct there ends a phase) */
    int32_t team;
    CXCursor team_stmt;
    struct fe_lock_memo *lock_memo; /* fe_mutex.c: what each called function locks */
} fe_graph;

void fe_graph_free(fe_graph *g);
void fe_share_free(struct fe_share *m);

/* One parallel region to build. */
typedef struct fe_region_input {
    int32_t func; /* enclosing function (index in fe->funcs) */
    fe_file *file;
    int32_t first_pragma; /* the parallel directive … */
    int32_t last_pragma;  /* … through the last pragma of its chain */
    CXCursor stmt;        /* the statement the chain prefixes */
} fe_region_input;

typedef struct fe_region_output {
    fe_graph g;
    bool has_graph;             /* false: the region has no task producer (no graph) */
    int32_t threads;            /* from num_threads(constant), else 0 */
    char *deadline;             /* from the region's or function's ompdag deadline */
    const char *resource_class; /* "CG" or "CO" (static string) */
} fe_region_output;

/* Builds one region.  Returns true on success (out->has_graph tells whether
 * a graph was produced); false after recording a refusal diagnostic (or on
 * ENOMEM, then *nomem is set). */
bool fe_build_region(ompdag_frontend *fe, const fe_region_input *in, fe_region_output *out,
                     bool *nomem);

/* Static features of T node nd's task directive for the advisor, added to
 * `extra` as "features" (fe_features.c).  false on ENOMEM. */
struct json_t;
bool fe_features_add(ompdag_frontend *fe, const fe_node *nd, struct json_t *extra);

#endif
