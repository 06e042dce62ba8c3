/*
 * tests/bfs/mpi_check.h — how the MPI test programs (test_bfs_mpi.c,
 * test_bfs_mpi_2d.c) report: every rank records its own failures, and a step
 * that later ones depend on stops every rank when it failed on any.
 */
#ifndef OMPDAG_TESTS_MPI_CHECK_H
#define OMPDAG_TESTS_MPI_CHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>

#include "ompdag/error.h"

static int rank, size, failures;

/* Records a failure of this rank (every rank reports its own). */
static void check(int ok, const char *fmt, ...)
{
    if (ok) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "rank %d: FAIL: ", rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    ++failures;
}

/* Stops every rank when a step that later ones depend on failed. */
static void require(ompdag_status st, const ompdag_error *err, const char *what)
{
    int bad = st != OMPDAG_OK, any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any) return;
    if (bad) fprintf(stderr, "rank %d: FAIL: %s: %s\n", rank, what, err->message);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

#endif
