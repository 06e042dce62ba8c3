/*
 * plugin/fe_walk.h — private to the region builder (fe_graph.c, fe_stmt.c,
 * fe_region.c): the walker's state and the graph-building steps it shares.
 *
 * A "flow" is where the next node hangs: the tail nodes (several after a
 * branch or a return; a J node joins them) and the open N/W node that
 * absorbs plain code.  Jump frames collect the tails of break, continue and
 * return; call frames count active inlined calls for recursion bounds.
 */
#ifndef OMPDAG_FE_WALK_H
#define OMPDAG_FE_WALK_H

#include "fe_internal.h"

typedef struct fe_flow {
    fe_vec tails; /* nodes the next node hangs from */
    bool live;    /* false after return/break/continue: code is dead */
    int32_t open; /* N or W node that absorbs plain code, or -1 */
} fe_flow;

/* JUMP_FUNC: an inlined function body (return, goto to its end label);
 * JUMP_TASK: a task body (goto to its end label ends the task). */
typedef enum jump_kind { JUMP_LOOP, JUMP_SWITCH, JUMP_FUNC, JUMP_TASK } jump_kind;

typedef struct fe_jump {
    jump_kind kind;
    fe_vec breaks, conts, rets;
    int32_t cnode;    /* switch: its C node */
    bool has_default; /* switch */
    int32_t ncases;   /* switch: case labels met */
    struct fe_jump *up;
    CXCursor body; /* JUMP_FUNC / JUMP_TASK: the body, for `goto end_label` */
    /* A switch whose condition folds (fe_assume.c): only `target` (the case
     * or default label taken, or a null cursor) starts from `entry`. */
    bool folded;
    CXCursor target;
    const fe_vec *entry;
} fe_jump;

typedef struct fe_call {
    int32_t func;
    struct fe_call *up;
} fe_call;

/* A loop variable's value in the iteration being unrolled (fe_loop.c), seen
 * by depend subscripts (fe_depend.c) of directives in the same task at the
 * same call depth. */
typedef struct fe_bind {
    const char *name;
    long long value;
    int32_t task, depth;
    const struct fe_bind *up;
    /* 0: value is the variable's value here.  Otherwise the variable of a
     * compact loop (fe_loop.c), whose value in iteration k is value + k:
     * 1 + the loop test's node, or −(1 + it) when the step is not 1.  Only
     * depend subscripts read it (fe_depend.c: an indexed cell). */
    int32_t compact_test;
} fe_bind;

typedef struct walker {
    ompdag_frontend *fe;
    fe_graph *g;      /* the region's graph */
    int32_t task;     /* the task whose code is being walked */
    bool in_final;    /* inside a final task: every task created is undeferred */
    fe_flow *flow;    /* where the next node hangs */
    fe_jump *jumps;   /* innermost break/continue/return target (NULL in a new task) */
    fe_call *calls;   /* active inlined calls, innermost first */
    int32_t depth;    /* number of active inlined calls */
    bool *nomem;      /* set on allocation failure */
    const char *file; /* for messages: file of the current statement */
    int32_t line, col;
    fe_span stmt;             /* the current statement, for labels of its expressions */
    const fe_bind *binds;     /* loop variables with a known value here, innermost first */
    const struct fe_env *env; /* parameters of the walked function with an assumed value
                                 (fe_assume.c), or NULL */
} walker;

typedef struct cursor_list {
    CXCursor *c;
    int32_t n;
    int64_t cap;
    bool nomem;
} cursor_list;

/* ---- fe_graph.c: errors, source text, graph and flow steps ---------------- */

/* Marks the extraction out of memory; returns false. */
bool fe_nomem(walker *w);
/* Records an error diagnostic at file:line:col; returns false. */
bool fe_refuse(walker *w, const char *file, int32_t line, int32_t col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The scanned fe_file of f (NULL and out of memory on failure). */
fe_file *fe_file_of(walker *w, CXFile f);
/* clang_visitChildren callback appending each child to a cursor_list. */
enum CXChildVisitResult fe_collect_visit(CXCursor c, CXCursor parent, CXClientData data);
/* The direct children of s; the caller frees out->c. */
bool fe_children(walker *w, CXCursor s, cursor_list *out);
/* A short label from the source text of sp (caller frees). */
char *fe_label_text(walker *w, fe_span sp, const char *prefix, bool header);
/* Adds a node of the current task (takes ownership of label); -1 on error. */
int32_t fe_new_node(walker *w, char kind, const char *file, int32_t line, int32_t col, char *label);
/* Adds the F-edge from -> to once. */
bool fe_add_edge(walker *w, int32_t from, int32_t to);
/* Makes v the only tail of f; absorbs: v takes following plain code. */
bool fe_flow_single(walker *w, fe_flow *f, int32_t v, bool absorbs);
/* Creates a node after the flow's tails; the flow then ends in it. */
int32_t fe_attach(walker *w, char kind, const char *file, int32_t line, int32_t col, char *label,
                  bool absorbs);
/* Plain code: joins the open node or opens an N node. */
bool fe_plain(walker *w, CXCursor s);
/* Adds tails to a flow (it becomes live if any). */
bool fe_flow_union(walker *w, fe_flow *into, const fe_vec *tails);
bool fe_flow_copy(walker *w, fe_flow *dst, const fe_flow *src);
/* A new task created by node `creator` (-1 for τ1); its index or -1. */
int32_t fe_new_task(walker *w, int32_t creator, bool untied);
/* Gives the current task a node if it has none, and a single sink. */
bool fe_finish_task(walker *w, fe_span body);
/* fe_share.c: the task already built for this directive in this context
 * (then the graph becomes compact), or -1; records a task just built. */
int32_t fe_share_find(walker *w, CXCursor s, int32_t loop_bound, bool final);
bool fe_share_add(walker *w, CXCursor s, int32_t loop_bound, bool final, int32_t task);
/* A T node of task t whose child t does not await before it ends, or -1. */
int32_t fe_unawaited_child(walker *w, int32_t t);
/* fe_team.c: the first explicit task created since first_task (implicit
 * tasks left out) with a child it does not await, *bad its first such T
 * node; -1 when none (or on ENOMEM).  One pass over the graph for them all. */
int32_t fe_unawaited_since(walker *w, int32_t first_task, int32_t *bad);

/* ---- fe_stmt.c: statements ---------------------------------------------------- */

/* Walks statement s; pragmas in (lo, start of s) prefix it. */
bool fe_walk_stmt(walker *w, CXCursor s, unsigned lo);
/* Walks an expression: plain code, inlined calls, ?: branches. */
bool fe_walk_expr(walker *w, CXCursor e);
/* Walks statement s prefixed by the directives chain[0..n-1] (task,
 * taskgroup, loop_bound, …), as if they stood right before it. */
bool fe_walk_prefixed(walker *w, const fe_file *f, const fe_pragma *const *chain, int32_t n,
                      CXCursor s, fe_span sp);
/* Does s create tasks (a task directive, or a call to a function that
 * contains one)?  Code outside the task system may do anything else. */
bool fe_creates_tasks(walker *w, CXCursor s);
/* Walks statement s whose prefixing pragmas were already taken. */
bool fe_walk_bare(walker *w, CXCursor s, fe_span sp, int32_t loop_bound);
/* Does s contain a directive or a call the model must see? */
bool fe_significant(walker *w, CXCursor s);
/* Is `call` a direct call into the OpenMP runtime (__kmpc_*, GOMP_*)? */
bool fe_is_runtime_call(CXCursor call);
/* Refuses gotos that leave plain statement s. */
bool fe_check_plain(walker *w, CXCursor s, fe_span sp);

/* ---- fe_loop.c: loops ---------------------------------------------------------- */

/* fe_depend.c: the number of distinct variables (VarDecl/ParmDecl) named
 * `name` declared under `scope` (not inside nested function declarations);
 * *last (if non-NULL) gets one of them. */
int fe_decl_count(CXCursor scope, const char *name, CXCursor *last);

/* Unrolls a for/while/do loop (loop_bound: from the pragma, 0 if none). */
bool fe_walk_loop(walker *w, CXCursor s, fe_span sp, int32_t bound);
/* The exact trip count of `for` statement s (the rules of fe_walk_loop):
 * -1 when unknown, -2 above the unroll limit. */
long long fe_for_trip_count(walker *w, CXCursor s, fe_span sp);
/* Walks `body` as at most n iterations (a C node before each). */
bool fe_unroll_at_most(walker *w, CXCursor body, fe_span sp, long long n);

/* ---- fe_taskloop.c: taskloop ---------------------------------------------------- */

/* `master taskloop` / `masked taskloop` [simd]: a producer block (like
 * single/master) whose statement is a taskloop. */
bool fe_is_producer_taskloop(const fe_pragma *p);
/* Walks the taskloop p on for statement s (loop_bound: from the pragma, 0
 * if none): its chunk tasks and, unless nogroup, its implicit taskgroup. */
bool fe_walk_taskloop(walker *w, const fe_file *f, const fe_pragma *p, CXCursor s, fe_span sp,
                      int32_t loop_bound);
/* The same for a taskloop that is a region's producer (`parallel masked
 * taskloop`, `masked taskloop` in a parallel block) with the pragmas
 * chain[0..n-1] stacked after it (ompdag loop_bound, …). */
bool fe_walk_taskloop_chain(walker *w, const fe_file *f, const fe_pragma *p,
                            const fe_pragma *const *chain, int32_t n, CXCursor s, fe_span sp);

/* ---- fe_assume.c: bounds for a given input (--assume) ----------------------- */

/* The known values of the parameters of one active function: assumed for
 * the region's function, or computed from the caller's arguments. */
#define FE_ENV_MAX 16
typedef struct fe_env {
    int32_t func;   /* index in fe->funcs */
    uint32_t bound; /* bit i: parameter i has value[i] */
    long long value[FE_ENV_MAX];
} fe_env;

/* Is folding with assumed values on (some --assume or pragma assume)? */
bool fe_assume_active(const ompdag_frontend *fe);
/* Starts a region of function `func` whose statement is `stmt`: binds the
 * region function's parameters into *env and finds which assumed globals
 * the region's code writes.  false on ENOMEM. */
bool fe_assume_region_begin(ompdag_frontend *fe, int32_t func, CXCursor stmt, fe_env *env);
/* Evaluates integer expression e with the constants, the assumed globals
 * and the walker's parameter values; false when some part is unknown. */
bool fe_eval(walker *w, CXCursor e, long long *out);
/* Like fe_eval for a condition the walker would fold; when a variable in it
 * has an assumed value but may be written first, records a note (once per
 * variable and region) saying why the test was not folded. */
bool fe_assume_cond(walker *w, CXCursor e, long long *out);
/* The environment of a call to function fi from the walker's code. */
void fe_assume_call_env(walker *w, CXCursor call, int32_t fi, fe_env *env);
/* Does env give a value to every parameter (at least one) of its function? */
bool fe_assume_env_complete(const ompdag_frontend *fe, const fe_env *env);
/* Records that the assumed input drives the recursion of fi to `depth`,
 * beyond its recursion bound (refused when the region ends). */
void fe_assume_depth(walker *w, int32_t fi, int32_t depth, int32_t bound, const char *file,
                     int32_t line, int32_t col);
/* The refusal for a recorded depth beyond the bound; true when none. */
bool fe_assume_region_end(walker *w);

/* ---- fe_team.c: tasks created by every thread of a team ------------------------ */

/* Is the walker in a team's implicit task (not in an explicit task)? */
bool fe_in_implicit_task(const walker *w);
/* for / for simd / sections, with or without `parallel`: modelled in a
 * team's implicit tasks. */
bool fe_is_team_worksharing(const fe_pragma *p);
/* Walks worksharing construct p on statement s in a team's implicit task. */
bool fe_walk_team_worksharing(walker *w, const fe_file *f, const fe_pragma *p, CXCursor s,
                              fe_span sp, int32_t loop_bound);
/* Walks parallel region `par` (statement stmt, pragmas chain[0..n-1] stacked
 * on it: a worksharing construct, ompdag loop_bound) whose threads all create
 * tasks: τ1 creates the `team` implicit tasks, phase by phase. */
bool fe_walk_team(walker *w, const fe_file *f, const fe_pragma *par, const fe_pragma *const *chain,
                  int32_t n, CXCursor stmt, fe_span sp, int32_t team);
/* Walks a block this thread may or may not run: a C node (`question`, at
 * file:line:col) whose one branch walks body(w, arg) and whose other skips
 * it, joined by a J node at end_line. */
bool fe_team_maybe_run(walker *w, const char *file, int32_t line, int32_t col, int32_t end_line,
                       const char *question, bool (*body)(walker *, const void *), const void *arg);

/* ---- fe_team_single.c: single / masked in a team's implicit tasks ---------------- */

/* Walks single/master/masked (or masked taskloop) p on statement s, with the
 * directives rest[0..nrest-1] stacked after it: modelled in a team's
 * implicit task, refused elsewhere (OpenMP forbids the nesting). */
bool fe_walk_team_single(walker *w, const fe_file *f, const fe_pragma *p,
                         const fe_pragma *const *rest, int32_t nrest, CXCursor s, fe_span sp);
/* Does parallel body `stmt` (in file f) create tasks outside the
 * single/master/masked blocks at its top level?  Then it is a team graph. */
bool fe_team_tasks_beside_blocks(walker *w, const fe_file *f, CXCursor stmt);

#endif
