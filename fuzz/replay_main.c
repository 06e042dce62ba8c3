/*
 * fuzz/replay_main.c — runs a libFuzzer entry point over files named on the
 * command line, so the corpus doubles as a regression test under any
 * compiler (and under the sanitizer build of `make sanitize`).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int failures = 0;
    for (int i = 1; i < argc; ++i) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "replay: cannot open %s\n", argv[i]);
            failures++;
            continue;
        }
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        rewind(f);
        uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
        size_t got = fread(buf, 1, (size_t)n, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, got);
        free(buf);
    }
    printf("%d passed, %d failed\n", argc - 1 - failures, failures);
    return failures != 0;
}
