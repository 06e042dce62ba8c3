/*
 * examples/advisor/tree_walk.c — training program of `ompdag advise`
 * (docs/advise.md): a walk over a complete binary tree held in memory.
 * Every node costs WORK units (about 1 µs each, examples/work.h); nodes
 * down to depth CUTOFF are visited by a task each (the root by the region's
 * single thread), the subtrees below the cutoff sequentially by the task
 * that reaches them.  With CUTOFF >= DEPTH - 1 every node but the root is a
 * task of WORK units.
 *
 *   tree_walk DEPTH CUTOFF WORK REPS
 *
 * CUTOFF <= 7 (the recursion bound below); the region runs REPS times.
 */
#include <omp.h>
#include <stdlib.h>

#include "../work.h"

typedef struct node {
    struct node *left, *right;
    int work;
} node;

static node *build(int depth, int work)
{
    if (depth == 0) return NULL;
    node *n = malloc(sizeof *n);
    if (!n) abort();
    n->work = work;
    n->left = build(depth - 1, work);
    n->right = build(depth - 1, work);
    return n;
}

static void free_tree(node *n)
{
    if (!n) return;
    free_tree(n->left);
    free_tree(n->right);
    free(n);
}

static void walk_seq(const node *n)
{
    if (!n) return;
    work(n->work);
    walk_seq(n->left);
    walk_seq(n->right);
}

#pragma ompdag recursion_bound(8)
static void walk(const node *n, int depth, int cutoff)
{
    if (!n) return;
    if (depth >= cutoff) {
        walk_seq(n);
        return;
    }
    work(n->work);
    if (!n->left && !n->right)
        return; /* a leaf creates no task */
#pragma omp task untied
    walk(n->left, depth + 1, cutoff);
#pragma omp task untied
    walk(n->right, depth + 1, cutoff);
#pragma omp taskwait
}

int main(int argc, char **argv)
{
    int depth = argc > 1 ? atoi(argv[1]) : 6;
    int cutoff = argc > 2 ? atoi(argv[2]) : 6;
    int units = argc > 3 ? atoi(argv[3]) : 2;
    int reps = argc > 4 ? atoi(argv[4]) : 1;
    if (depth < 1 || depth > 16 || cutoff < 0 || units < 0 || reps < 1) {
        fprintf(stderr, "usage: tree_walk DEPTH(1..16) CUTOFF WORK REPS\n");
        return 2;
    }
    node *root = build(depth, units);
    for (int r = 0; r < reps; ++r) {
#pragma omp parallel
#pragma omp single
        walk(root, 0, cutoff);
    }
    free_tree(root);
    report("tree_walk");
    return 0;
}
