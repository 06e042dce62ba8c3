/*
 * analysis/fileio.c — file output shared by every writer (include/ompdag/fileio.h).
 *
 * A regular file (or a missing path) is replaced atomically: the data goes to a
 * temporary file in the same directory, which is renamed over the target on
 * commit.  Anything else is not ours to replace: "-" is stdout, and character
 * devices, FIFOs and sockets are written through (opened, written, closed), so
 * `-o /dev/null` or `-o /dev/full` behave as they do for any Unix tool.  A
 * symbolic link is followed to its real target, which is what gets replaced;
 * a loop of links is an error.  The replacement keeps the file's mode (a 0600
 * output stays private), and a file with several hard links is written in
 * place, since a rename would detach the other names.
 *
 * A temporary file is registered while it exists: SIGINT, SIGTERM and SIGHUP
 * (when the program left them at their default) unlink every registered one
 * before the process dies of the signal, so an interrupted `-o OUT` leaves no
 * OUT's temporary behind.  The handler only reads the registry's pointers and
 * calls unlink, sigaction and raise, all async-signal-safe.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ompdag/fileio.h"

struct ompdag_atomic_file {
    FILE *stream;
    char *tmp_path; /* NULL when writing through (stdout, a device, a FIFO) */
    char *path;     /* the real target (symlinks resolved); NULL for stdout */
};

/* ---- the registry of live temporary files, for the signal handler ---- */

enum { TEMP_SLOTS = 64 };
static char *temp_slots[TEMP_SLOTS]; /* accessed with __atomic builtins only */
static const int temp_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void temp_on_signal(int sig)
{
    int saved = errno;
    for (int i = 0; i < TEMP_SLOTS; ++i) {
        char *p = __atomic_load_n(&temp_slots[i], __ATOMIC_SEQ_CST);
        if (p) unlink(p);
    }
    /* die of the signal, as the default action would have */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    errno = saved;
    raise(sig);
}

/* Installs temp_on_signal for the signals still at their default action
 * (a program's own handlers are left alone). */
static void temp_install_handlers(void)
{
    static int installed; /* once per process */
    if (__atomic_exchange_n(&installed, 1, __ATOMIC_SEQ_CST)) return;
    for (size_t k = 0; k < sizeof temp_signals / sizeof temp_signals[0]; ++k) {
        struct sigaction old, sa;
        if (sigaction(temp_signals[k], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
            (old.sa_flags & SA_SIGINFO))
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = temp_on_signal;
        sigfillset(&sa.sa_mask); /* no other handled signal runs inside it */
        sigaction(temp_signals[k], &sa, NULL);
    }
}

/* Blocks (block=true) or restores the handled signals around a registry change. */
static void temp_block(bool block, sigset_t *old)
{
    if (block) {
        sigset_t set;
        sigemptyset(&set);
        for (size_t k = 0; k < sizeof temp_signals / sizeof temp_signals[0]; ++k)
            sigaddset(&set, temp_signals[k]);
        pthread_sigmask(SIG_BLOCK, &set, old);
    } else {
        pthread_sigmask(SIG_SETMASK, old, NULL);
    }
}

static void temp_register(char *path)
{
    temp_install_handlers();
    for (int i = 0; i < TEMP_SLOTS; ++i) {
        char *expected = NULL;
        if (__atomic_compare_exchange_n(&temp_slots[i], &expected, path, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST))
            return;
    }
    /* more than TEMP_SLOTS files open at once: this one is not cleaned on a signal */
}

static void temp_unregister(const char *path)
{
    for (int i = 0; i < TEMP_SLOTS; ++i) {
        char *expected = (char *)path;
        if (__atomic_compare_exchange_n(&temp_slots[i], &expected, NULL, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST))
            return;
    }
}

/* True when anything written to s failed, or flushing it fails now; *e gets
 * the cause (EIO when the failed write's errno is gone). */
static bool stream_failed(FILE *s, int *e)
{
    errno = 0;
    bool bad = fflush(s) != 0;
    *e = errno;
    if (ferror(s)) bad = true;
    if (bad && !*e) *e = EIO;
    return bad;
}

/* The path a write to `path` must really replace: symbolic links resolved.
 * A dangling link resolves to the missing file it names.  Caller frees. */
static char *resolve_target(const char *path)
{
    struct stat ls;
    if (lstat(path, &ls) != 0 || !S_ISLNK(ls.st_mode)) return strdup(path);
    char *real = realpath(path, NULL);
    if (real) return real;
    /* Dangling link: follow it by hand (bounded, like the kernel's 40 hops). */
    char *cur = strdup(path);
    for (int hop = 0; cur && hop < 40; ++hop) {
        if (lstat(cur, &ls) != 0 || !S_ISLNK(ls.st_mode)) return cur;
        char buf[PATH_MAX];
        ssize_t n = readlink(cur, buf, sizeof buf - 1);
        if (n < 0) return cur;
        buf[n] = '\0';
        char *next;
        const char *slash = strrchr(cur, '/');
        if (buf[0] == '/' || !slash) {
            next = strdup(buf);
        } else {
            size_t dir = (size_t)(slash - cur) + 1;
            next = malloc(dir + (size_t)n + 1);
            if (next) {
                memcpy(next, cur, dir);
                memcpy(next + dir, buf, (size_t)n + 1);
            }
        }
        free(cur);
        cur = next;
    }
    return cur; /* a loop: the open below reports ELOOP */
}

/* The temporary name: a short fixed name in the target's directory, so a
 * target whose own name is near NAME_MAX still gets one. */
static char *temp_name_for(const char *path)
{
    static const char suffix[] = ".ompdag-tmp.XXXXXX";
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    char *t = malloc(dir + sizeof suffix);
    if (t) {
        memcpy(t, path, dir);
        memcpy(t + dir, suffix, sizeof suffix);
    }
    return t;
}

/* Devices, FIFOs and files with several hard links are written in place
 * (truncated when regular): replacing them would cut them off. */
static ompdag_status open_write_through(ompdag_atomic_file *f, const char *shown, ompdag_error *err)
{
    struct stat st;
    int trunc = stat(f->path, &st) == 0 && S_ISREG(st.st_mode) ? O_TRUNC : 0;
    int fd = open(f->path, O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC | trunc, 0666);
    if (fd < 0 || !(f->stream = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0) close(fd);
        return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: cannot open for writing: %s", shown,
                                strerror(e));
    }
    return OMPDAG_OK;
}

/* Why the file next to which the temporary goes cannot be written, in the
 * user's terms: a missing or unwritable directory, not "a temporary file". */
static ompdag_status temp_error(const char *path, const char *shown, int e, ompdag_error *err)
{
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path) : 1;
    const char *dir = slash ? path : ".";
    if (slash == path) dirlen = 1; /* "/x": the root */
    if (e == ENOENT || e == ENOTDIR)
        return ompdag_error_set(err, OMPDAG_ERR_IO,
                                "%s: cannot write: the directory '%.*s' does not exist (create it "
                                "first)",
                                shown, dirlen, dir);
    return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: cannot write in the directory '%.*s': %s",
                            shown, dirlen, dir, strerror(e));
}

static mode_t current_umask(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return mask;
}

/* The temporary file that replaces f->path on commit, created with `mode`:
 * the existing file's, else what a plain fopen would give. */
static ompdag_status open_temp(ompdag_atomic_file *f, const char *shown, ompdag_error *err,
                               mode_t mode)
{
    f->tmp_path = temp_name_for(f->path);
    if (!f->tmp_path) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    sigset_t old;
    temp_block(true, &old); /* created and registered with no signal in between */
    int fd = mkostemp(f->tmp_path, O_CLOEXEC);
    if (fd >= 0) temp_register(f->tmp_path);
    temp_block(false, &old);
    if (fd >= 0) fchmod(fd, mode); /* mkstemp creates 0600 */
    if (fd < 0 || !(f->stream = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0) close(fd), unlink(f->tmp_path), temp_unregister(f->tmp_path);
        free(f->tmp_path);
        f->tmp_path = NULL;
        return temp_error(f->path, shown, e, err);
    }
    return OMPDAG_OK;
}

ompdag_status ompdag_atomic_file_open(const char *path, ompdag_atomic_file **out, ompdag_error *err)
{
    ompdag_atomic_file *f = calloc(1, sizeof *f);
    if (!f) return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    if (!strcmp(path, "-")) {
        f->stream = stdout;
        *out = f;
        return OMPDAG_OK;
    }
    size_t len = strlen(path);
    if (len && path[len - 1] == '/') {
        free(f);
        return ompdag_error_set(err, OMPDAG_ERR_IO,
                                "%s: names a directory (it ends with '/'); give a file name", path);
    }
    /* What the path reaches, links followed by the kernel: a link to a pipe
     * (/proc/self/fd/1 on a pipe reads "pipe:[123]") names no file to resolve
     * by hand, but is written through as it is. */
    struct stat st;
    ompdag_status s;
    bool reached = stat(path, &st) == 0;
    f->path = reached && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) ? strdup(path)
                                                                      : resolve_target(path);
    if (!f->path) {
        free(f);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    }
    bool exists = stat(f->path, &st) == 0;
    if (!exists && errno != ENOENT) /* a symlink loop (ELOOP), EACCES, ...: never replace it */
        s = ompdag_error_set(err, OMPDAG_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    else if (!exists)
        s = open_temp(f, path, err, 0666 & ~current_umask());
    else if (S_ISREG(st.st_mode) && st.st_nlink > 1)
        s = open_write_through(f, path, err); /* a rename would detach the other links */
    else if (S_ISREG(st.st_mode))
        s = open_temp(f, path, err, st.st_mode & 07777); /* keep the file's mode */
    else if (S_ISDIR(st.st_mode))
        s = ompdag_error_set(err, OMPDAG_ERR_IO, "%s: is a directory", path);
    else
        s = open_write_through(f, path, err); /* device, FIFO, socket: not ours to replace */
    if (s != OMPDAG_OK) {
        ompdag_atomic_file_abort(f);
        return s;
    }
    *out = f;
    return OMPDAG_OK;
}

FILE *ompdag_atomic_file_stream(ompdag_atomic_file *f)
{
    return f->stream;
}

static ompdag_status commit_stdout(ompdag_atomic_file *f, ompdag_error *err)
{
    ompdag_status st = OMPDAG_OK;
    int e;
    if (stream_failed(f->stream, &e))
        st = ompdag_error_set(err, OMPDAG_ERR_IO, "standard output: cannot write: %s", strerror(e));
    free(f);
    return st;
}

static ompdag_status commit_write_through(ompdag_atomic_file *f, ompdag_error *err)
{
    int e;
    bool failed = stream_failed(f->stream, &e);
    if (fclose(f->stream) != 0 && !failed) failed = true, e = errno;
    ompdag_status st = OMPDAG_OK;
    if (failed)
        st = ompdag_error_set(err, OMPDAG_ERR_IO, "%s: cannot write: %s", f->path, strerror(e));
    free(f->path);
    free(f);
    return st;
}

ompdag_status ompdag_atomic_file_commit(ompdag_atomic_file *f, ompdag_error *err)
{
    if (!f->path) return commit_stdout(f, err);
    if (!f->tmp_path) return commit_write_through(f, err);
    ompdag_status st = OMPDAG_OK;
    int e;
    bool failed = stream_failed(f->stream, &e);
    if (!failed && fsync(fileno(f->stream)) != 0) failed = true, e = errno;
    if (fclose(f->stream) != 0 && !failed) failed = true, e = errno;
    f->stream = NULL;
    if (!failed && rename(f->tmp_path, f->path) != 0) failed = true, e = errno;
    if (failed) {
        st = ompdag_error_set(err, OMPDAG_ERR_IO, "%s: cannot write: %s", f->path, strerror(e));
        unlink(f->tmp_path);
    }
    temp_unregister(f->tmp_path); /* after the rename or unlink: no window without either */
    free(f->tmp_path);
    free(f->path);
    free(f);
    return st;
}

void ompdag_atomic_file_abort(ompdag_atomic_file *f)
{
    if (!f) return;
    if (f->stream && f->path) fclose(f->stream);
    if (f->tmp_path) unlink(f->tmp_path), temp_unregister(f->tmp_path);
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
