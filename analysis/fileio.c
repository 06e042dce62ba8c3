/* analysis/fileio.c — atomic file output (include/ompdag/fileio.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ompdag/fileio.h"

struct ompdag_atomic_file {
    FILE *stream;
    char *tmp_path; /* NULL when writing to stdout */
    char *path;
};

ompdag_status ompdag_atomic_file_open(const char *path, ompdag_atomic_file **out,
                                      ompdag_error *err)
{
    ompdag_atomic_file *f = calloc(1, sizeof *f);
    if (!f)
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!strcmp(path, "-")) {
        f->stream = stdout;
        *out = f;
        return OMPDAG_OK;
    }
    size_t n = strlen(path);
    f->path = strdup(path);
    f->tmp_path = malloc(n + sizeof ".tmp.XXXXXX");
    if (!f->path || !f->tmp_path) {
        ompdag_atomic_file_abort(f);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    memcpy(f->tmp_path, path, n);
    memcpy(f->tmp_path + n, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
    int fd = mkstemp(f->tmp_path);
    /* mkstemp creates 0600; give the result the mode a plain fopen would. */
    mode_t mask = umask(0);
    umask(mask);
    if (fd >= 0)
        fchmod(fd, 0666 & ~mask);
    if (fd < 0 || !(f->stream = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0)
            close(fd), unlink(f->tmp_path);
        free(f->tmp_path);
        f->tmp_path = NULL;
        ompdag_atomic_file_abort(f);
        return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: cannot create: %s", path, strerror(e));
    }
    *out = f;
    return OMPDAG_OK;
}

FILE *ompdag_atomic_file_stream(ompdag_atomic_file *f)
{
    return f->stream;
}

ompdag_status ompdag_atomic_file_commit(ompdag_atomic_file *f, ompdag_error *err)
{
    ompdag_status st = OMPDAG_OK;
    if (!f->tmp_path) {
        if (fflush(f->stream) != 0)
            st = ompdag_error_set(err, OMPDAG_ERR_IO, "stdout: %s", strerror(errno));
        free(f);
        return st;
    }
    bool failed = ferror(f->stream) || fflush(f->stream) != 0 || fsync(fileno(f->stream)) != 0;
    int e = errno;
    failed |= fclose(f->stream) != 0;
    f->stream = NULL;
    if (failed || rename(f->tmp_path, f->path) != 0) {
        st = ompdag_error_set(err, OMPDAG_ERR_IO, "%s: cannot write: %s", f->path,
                              strerror(failed ? e : errno));
        unlink(f->tmp_path);
    }
    free(f->tmp_path);
    free(f->path);
    free(f);
    return st;
}

void ompdag_atomic_file_abort(ompdag_atomic_file *f)
{
    if (!f)
        return;
    if (f->tmp_path) {
        if (f->stream)
            fclose(f->stream);
        unlink(f->tmp_path);
    }
    free(f->tmp_path);
    free(f->path);
    free(f);
}

void ompdag_json_write_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}
