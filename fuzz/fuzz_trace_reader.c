/*
 * fuzz/fuzz_trace_reader.c — libFuzzer target for the trace reader
 * (runtime-probe/trace_read.c; cmake -DOMPDAG_FUZZ=ON -DCMAKE_C_COMPILER=clang;
 * run ./fuzz/fuzz_trace_reader CORPUS_DIR, or scripts/fuzz.sh).  Any input must end in
 * OMPDAG_OK or an error, never a crash, leak or undefined behaviour.
 */
#include <stddef.h>
#include <stdint.h>

#include "ompdag/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ompdag_trace_reader *r;
    ompdag_error err;
    if (ompdag_trace_reader_open_buffer(data, size, "fuzz", &r, &err) != OMPDAG_OK) return 0;
    for (size_t i = 0; i < 1000000; ++i) {
        ompdag_trace_rec rec;
        bool done;
        if (ompdag_trace_reader_next(r, &rec, &done, &err) != OMPDAG_OK || done) break;
    }
    ompdag_trace_reader_destroy(r);
    return 0;
}
