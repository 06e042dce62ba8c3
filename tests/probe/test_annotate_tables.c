/*
 * tests/probe/test_annotate_tables.c — annotate's task table and its table
 * of creations (annotate/annotate_tasks.c, on the one hash map of
 * ompdag/internal/hashmap.h): every task found by id, through the direct
 * table of the probe's dense ids and through the hash table (the reference
 * path, and ids no probe writes), a later record of one id winning; and
 * every creation found again after `made` has grown past its first size.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../annotate/annotate_internal.h"

enum { ntasks = 30000 };

/* The probe's ids: ((thread + 1) << 40) | per-thread sequence; else ids
 * spread over 64 bits, as a hand-made trace may have them. */
static uint64_t task_id(size_t i, bool dense)
{
    return dense ? ((uint64_t)(i % 3 + 1) << 40 | i / 3)
                 : (i + 1) * 0x9e3779b97f4a7c15ull | 1; /* odd: never 0 */
}

/* A trace context holding the creation records of ntasks tasks, the last
 * ten recorded twice (the second record wins). */
static void make_created(trace_ctx *c, bool dense)
{
    c->created_cap = ntasks + 10;
    c->created = calloc(c->created_cap, sizeof *c->created);
    cr_assert_not_null(c->created);
    for (size_t i = 0; i < ntasks + 10; ++i) {
        size_t t = i < ntasks ? i : ntasks - 10 + (i - ntasks);
        c->created[c->ncreated++] = (task_entry){.id = task_id(t, dense),
                                                 .parent = task_id(t / 2, dense),
                                                 .time = 1000 + t,
                                                 .task = i < ntasks ? -2 : 7,
                                                 .graph = 0};
    }
}

static void free_ctx(trace_ctx *c)
{
    free(c->tasks), free(c->dbase), free(c->created), free(c->spare), free(c->made);
}

static void check_tasks(bool dense, bool reference)
{
    trace_ctx c = {0};
    annot_reference_paths = reference;
    make_created(&c, dense);
    cr_assert(annot_task_table(&c));
    cr_assert_eq(c.tasks_used, ntasks, "one entry per distinct id");
    cr_assert_eq(c.dbase != NULL, dense && !reference, "direct table only for dense ids");
    for (size_t t = 0; t < ntasks; ++t) {
        const task_entry *e = annot_task_find(&c, task_id(t, dense));
        cr_assert_not_null(e, "task %zu lost", t);
        cr_assert_eq(e->time, 1000 + t);
        cr_assert_eq(e->task, t >= ntasks - 10 ? 7 : -2, "a later record wins");
    }
    cr_assert_null(annot_task_find(&c, task_id(ntasks + 5, dense)), "unknown id");
    cr_assert_null(annot_task_find(&c, 0), "id 0 is no task");
    /* Every creation of a task, then as many again that no task has: `made`
     * is sized for one per task, so it grows once at least. */
    for (size_t t = 0; t < ntasks; ++t)
        cr_assert(annot_made_insert(&c, task_id(t / 2, dense), 1000 + t, (int32_t)(t % 977)));
    size_t first_cap = c.made_cap;
    for (size_t t = 0; t < ntasks; ++t)
        cr_assert(annot_made_insert(&c, task_id(t, dense), UINT64_MAX - t, 1)); /* other times */
    cr_assert_gt(c.made_cap, first_cap, "made grew");
    cr_assert_eq(c.made_used, 2 * (size_t)ntasks);
    cr_assert(annot_made_insert(&c, 0, 1, 1), "parent 0 (implicit) is not recorded");
    cr_assert_eq(c.made_used, 2 * (size_t)ntasks);
    for (size_t t = 0; t < ntasks; ++t)
        cr_assert_eq(annot_made_by(&c, task_id(t, dense)), (int32_t)(t % 977), "task %zu", t);
    cr_assert_eq(annot_made_by(&c, task_id(ntasks + 5, dense)), -1);
    annot_reference_paths = false;
    free_ctx(&c);
}

Test(annotate_tables, dense_ids_direct_table)
{
    check_tasks(true, false);
}

Test(annotate_tables, dense_ids_hash_table)
{
    check_tasks(true, true);
}

Test(annotate_tables, sparse_ids_hash_table)
{
    check_tasks(false, false);
}
