/*
 * runtime-probe/symbolize_none.c — the symbolizer API (include/ompdag/trace.h)
 * in a build without libdw (OMPDAG_WITH_LIBDW=OFF or libdw-dev missing).
 * Every function of trace.h's symbolization section needs a stand-in here.
 *
 * Reading traces and `ompdag run` keep working; mapping code addresses to
 * source lines does not, so `annotate` fails with a message that says what
 * to install.  `run` cannot inspect which OpenMP runtime a program links and
 * says so (then a libgomp program shows up as "the probe was not loaded").
 */
#include "ompdag/trace.h"

#define NO_LIBDW                                                                                   \
    "this ompdag was built without libdw (elfutils), which maps trace addresses to source "        \
    "lines: install libdw-dev and rebuild to use annotate"

struct ompdag_symbolizer {
    int unused;
};

ompdag_status ompdag_symbolizer_create(const ompdag_trace_reader *r, ompdag_symbolizer **out,
                                       ompdag_error *err)
{
    if (out) *out = NULL;
    return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED, NO_LIBDW);
}

void ompdag_symbolizer_destroy(ompdag_symbolizer *s)
{
    (void)s;
}

ompdag_status ompdag_symbolizer_check_executable(ompdag_symbolizer *s, ompdag_error *err)
{
    return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED, NO_LIBDW);
}

ompdag_status ompdag_symbolizer_lookup(ompdag_symbolizer *s, uint64_t codeptr_ra,
                                       ompdag_srcloc *out, ompdag_error *err)
{
    return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED, NO_LIBDW);
}

ompdag_status ompdag_symbolizer_find_source(ompdag_symbolizer *s, const char *file,
                                            bool (*same_file)(const char *a, const char *b),
                                            ompdag_source_evidence *out, ompdag_error *err)
{
    (void)s, (void)file, (void)same_file, (void)out;
    return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED, NO_LIBDW);
}

const char *ompdag_symbolizer_executable(const ompdag_symbolizer *s)
{
    (void)s;
    return "";
}

ompdag_status ompdag_program_omp_runtime(const char *path, ompdag_omp_runtime *out,
                                         ompdag_error *err)
{
    if (out) *out = OMPDAG_OMP_RUNTIME_NONE;
    return ompdag_error_set(err, OMPDAG_ERR_UNSUPPORTED,
                            "built without libdw/libelf: cannot read the program's ELF headers");
}
