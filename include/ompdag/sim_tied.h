/*
 * ompdag/sim_tied.h — a schedule simulator that obeys OpenMP's task
 * scheduling constraint (OpenMP 5.2 §12.9) and picks the worst legal choices,
 * the independent check of ompdag_rta_tied_bound() (docs/tied.md §6).
 *
 * Model (docs/tied.md §1): m threads; the root task (the region's implicit
 * task, always tied) starts on thread 0 at time 0; a task is tied when
 * ompdag_condag_task_is_tied() says so.  A task reaches a scheduling point
 * after each T node (creation), before each W node (taskwait) and at its end;
 * between other nodes it runs on without a pause.  At a scheduling point the
 * thread may suspend the task.  A suspended tied task resumes only on the
 * thread that began it; an idle thread may start a new tied task only if it is
 * a descendant of every tied task that thread began and has not finished.  The
 * scheduler is greedy: a thread with a legal action never idles; which action
 * it takes is the adversary's choice.
 */
#ifndef OMPDAG_SIM_TIED_H
#define OMPDAG_SIM_TIED_H

#include <stdbool.h>
#include <stdint.h>

#include "ompdag/condag.h"
#include "ompdag/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the adversary chooses among legal actions. */
typedef enum ompdag_tied_policy {
    OMPDAG_TIED_CHILD_FIRST = 0, /* at a creation point suspend the creator and run the child;
                                    idle threads take the newest ready task */
    OMPDAG_TIED_CONTINUE = 1,    /* the creator continues; idle threads take the oldest task */
    OMPDAG_TIED_HOARD = 2,       /* threads holding suspended tasks choose first and prefer new
                                    tasks to resuming, so continuations wait and others idle */
    OMPDAG_TIED_RANDOM = 3       /* a random legal action, threads in random order */
} ompdag_tied_policy;

/* "child-first", "continue", "hoard", "random". */
const char *ompdag_tied_policy_name(ompdag_tied_policy p);

typedef struct ompdag_tied_sim_options {
    int32_t m;                 /* threads, >= 1 */
    ompdag_tied_policy policy; /* the adversary */
    bool stack;    /* a thread resumes only its innermost unfinished tied task (one C stack per
                      thread, as in libomp and libgomp); false: any of its own */
    bool strict;   /* the constraint also restricts starting untied tasks (a stricter runtime) */
    uint64_t seed; /* OMPDAG_TIED_RANDOM */
    const int64_t *exec; /* per node, 0 <= exec[v] <= WCET; NULL: the WCETs (borrowed) */
    /* Dispatch delays (docs/overheads.md): per node, a node whose
     * predecessors completed at r may start from r + delay[v] on, and until
     * then every thread may idle; NULL: none (borrowed).  A delay belongs to a
     * node at a scheduling point (a task's source, a W node, the node after a
     * T node); elsewhere the task runs on and it is not waited for. */
    const int64_t *delay;
    /* true: the root's thread never leaves the root at one of its creation
     * points; after each root T node it waits for the next root node (its
     * dispatch delay, if any) and runs it, with no adversary choice there
     * (libomp with a deque that never fills, docs/tied.md §4b).  The root
     * still suspends before its W nodes; other tasks keep every adversary.
     * false (default): the adversary may suspend the root there too. */
    bool root_continues_at_creation;
} ompdag_tied_sim_options;

/* Defaults: CHILD_FIRST, stack, not strict, seed 1, WCETs. */
void ompdag_tied_sim_options_init(ompdag_tied_sim_options *o, int32_t m);

typedef struct ompdag_tied_sim_result {
    int64_t makespan; /* response time: last completion, the root starting at 0 */
    int64_t busy;     /* sum of execution times */
    int64_t events;   /* nodes run */
    int32_t executed; /* nodes of the flow */
    int64_t held;     /* thread-time idle while a ready node existed that the constraint kept
                         from that thread: what tiedness cost in this schedule */
} ompdag_tied_sim_result;

/* Simulates the flow fixed by `choice` (as in ompdag_flow_evaluate) of
 * finalized g, which it borrows.  Checks its own invariants (no idle thread
 * with a legal action, every node once after its predecessors, tied tasks on
 * one thread) and fails with OMPDAG_ERR_INVALID naming the broken one, which
 * would also refute docs/tied.md's progress lemma when the run deadlocks.
 * A checking tool, not a fast one: O(nodes · m · tasks · task depth). */
ompdag_status ompdag_tied_sim_run(const ompdag_condag *g, const int32_t *choice,
                                  const ompdag_tied_sim_options *opt, ompdag_tied_sim_result *out,
                                  ompdag_error *err);

#ifdef __cplusplus
}
#endif
#endif
