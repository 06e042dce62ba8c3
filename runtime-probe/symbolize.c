/*
 * runtime-probe/symbolize.c — code address -> file:line with elfutils' libdw.
 *
 * The probe records `codeptr_ra`, the return address of the runtime call a
 * directive compiles to; the call instruction itself is at codeptr_ra - 1,
 * which is what we look up (the return address may already belong to the
 * next line).
 *
 * dwarf_addrdie() needs .debug_aranges, which clang does not emit unless
 * asked (-gdwarf-aranges), so it fails on ordinary `clang -g` binaries.  We
 * do not depend on it: on first use of a module we walk every CU
 * (dwarf_next_unit), collect its address ranges (dwarf_ranges: DW_AT_low_pc /
 * DW_AT_high_pc or DW_AT_ranges) into a sorted index, and look addresses up
 * there, then in that CU's line table (dwarf_getsrc_die).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ompdag/internal/array.h"
#include "ompdag/internal/fingerprint.h"
#include "ompdag/internal/hashmap.h"
#include "ompdag/trace.h"

typedef struct cu_range {
    uint64_t lo, hi;
    Dwarf_Off cu;
} cu_range;

typedef struct sym_module {
    char *path;
    char build_id[2 * OMPDAG_TRACE_MAX_BUILD_ID + 1];
    uint64_t base, lo, hi;
    bool opened, usable, rebuilt;
    char why[1024];
    int fd;
    Dwarf *dw;
    cu_range *ranges;
    size_t nranges;
} sym_module;

typedef struct cache_entry {
    uint64_t key; /* 0 = empty */
    ompdag_srcloc loc;
    bool ok;
} cache_entry;

struct ompdag_symbolizer {
    sym_module *mods;
    size_t nmods;
    cache_entry *cache; /* a hashmap.h table by address (cache_kind) */
    size_t cache_cap, cache_used;
};

void ompdag_symbolizer_destroy(ompdag_symbolizer *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->nmods; ++i) {
        sym_module *m = &s->mods[i];
        if (m->dw) dwarf_end(m->dw);
        if (m->opened && m->fd >= 0) close(m->fd);
        free(m->ranges);
        free(m->path);
    }
    free(s->mods);
    free(s->cache);
    free(s);
}

/* The cache: entries keyed by code address (never 0: refused before). */
static uint64_t cache_hash(uint64_t key)
{
    return (key * 0x9e3779b97f4a7c15ull) >> 20;
}

static bool cache_empty(const void *slot)
{
    return !((const cache_entry *)slot)->key;
}

static bool cache_holds(const void *ctx, const void *slot, const void *key)
{
    (void)ctx;
    return ((const cache_entry *)slot)->key == *(const uint64_t *)key;
}

static uint64_t cache_slot_hash(const void *ctx, const void *slot)
{
    (void)ctx;
    return cache_hash(((const cache_entry *)slot)->key);
}

static const ompdag_hmap_kind cache_kind = {
    sizeof(cache_entry), cache_empty, cache_holds, cache_slot_hash, 50, 256, NULL};

ompdag_status ompdag_symbolizer_create(const ompdag_trace_reader *r, ompdag_symbolizer **out,
                                       ompdag_error *err)
{
    ompdag_symbolizer *s = calloc(1, sizeof *s);
    size_t n = ompdag_trace_reader_module_count(r);
    if (!s || !(s->mods = calloc(n ? n : 1, sizeof *s->mods))) {
        free(s);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "symbolizer: out of memory");
    }
    for (size_t i = 0; i < n; ++i) {
        sym_module *m = &s->mods[i];
        m->fd = -1;
        m->path = strdup(ompdag_trace_reader_module_path(r, i));
        if (!m->path) {
            s->nmods = i;
            ompdag_symbolizer_destroy(s);
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "symbolizer: out of memory");
        }
        snprintf(m->build_id, sizeof m->build_id, "%s", ompdag_trace_reader_module_build_id(r, i));
        ompdag_trace_reader_module_range(r, i, &m->base, &m->lo, &m->hi);
    }
    s->nmods = n;
    if (!ompdag_hmap_reserve(&cache_kind, NULL, (void **)&s->cache, &s->cache_cap, 0, 1)) {
        ompdag_symbolizer_destroy(s);
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "symbolizer: out of memory");
    }
    *out = s;
    return OMPDAG_OK;
}

static int range_cmp(const void *a, const void *b)
{
    const cu_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static bool index_cus(sym_module *m)
{
    int64_t cap = 0; /* at least one slot: qsort below never gets NULL */
    m->ranges = NULL;
    if (!ompdag_grow_array((void **)&m->ranges, sizeof *m->ranges, &cap, 64)) return false;
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dwarf_next_unit(m->dw, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        if (dwarf_offdie(m->dw, off + hsize, &cu)) {
            Dwarf_Addr base, lo, hi;
            ptrdiff_t it = 0;
            while ((it = dwarf_ranges(&cu, it, &base, &lo, &hi)) > 0) {
                if (!ompdag_grow_array((void **)&m->ranges, sizeof *m->ranges, &cap,
                                       (int64_t)m->nranges + 1))
                    return false;
                m->ranges[m->nranges++] = (cu_range){lo, hi, off + hsize};
            }
        }
        off = next;
    }
    qsort(m->ranges, m->nranges, sizeof *m->ranges, range_cmp);
    return true;
}

static void open_module(sym_module *m)
{
    m->opened = true;
    m->fd = open(m->path, O_RDONLY | O_CLOEXEC);
    if (m->fd < 0) {
        snprintf(m->why, sizeof m->why, "cannot open %s: %s", m->path, strerror(errno));
        return;
    }
    m->dw = dwarf_begin(m->fd, DWARF_C_READ);
    if (!m->dw) {
        snprintf(m->why, sizeof m->why, "%s has no DWARF debug information (build with -g)",
                 m->path);
        return;
    }
    const void *id;
    ssize_t idlen = dwelf_elf_gnu_build_id(dwarf_getelf(m->dw), &id);
    char hex[2 * OMPDAG_TRACE_MAX_BUILD_ID + 1] = "";
    uint8_t fp[OMPDAG_FINGERPRINT_LEN];
    if (idlen <= 0 && ompdag_file_fingerprint(m->path, fp)) /* no build-id: its contents */
        id = fp, idlen = OMPDAG_FINGERPRINT_LEN;
    if (idlen > 0 && idlen <= (ssize_t)OMPDAG_TRACE_MAX_BUILD_ID) {
        for (ssize_t i = 0; i < idlen; ++i)
            snprintf(hex + 2 * i, 3, "%02x", ((const unsigned char *)id)[i]);
    }
    if (m->build_id[0] && strcmp(hex, m->build_id)) {
        bool content = !strncmp(m->build_id, "4f4d5043", 8); /* "OMPC": a fingerprint */
        snprintf(m->why, sizeof m->why,
                 "%s was rebuilt since the trace was taken (%s %s, trace has %s)", m->path,
                 content ? "content fingerprint, no build-id:" : "build-id", hex[0] ? hex : "none",
                 m->build_id);
        m->rebuilt = true;
        return;
    }
    if (!index_cus(m)) {
        snprintf(m->why, sizeof m->why, "out of memory indexing %s", m->path);
        return;
    }
    m->usable = true;
}

ompdag_status ompdag_symbolizer_check_executable(ompdag_symbolizer *s, ompdag_error *err)
{
    if (!s->nmods) return OMPDAG_OK;
    sym_module *m = &s->mods[0]; /* the probe lists the executable first */
    if (!m->opened) open_module(m);
    if (m->rebuilt || m->fd < 0) return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s", m->why);
    return OMPDAG_OK;
}

const char *ompdag_symbolizer_executable(const ompdag_symbolizer *s)
{
    return s && s->nmods ? s->mods[0].path : "";
}

/* Whether CU's DW_AT_producer says GCC ("GNU C17 12.2.0 ..."). */
static bool produced_by_gcc(Dwarf_Die *cu)
{
    Dwarf_Attribute attr;
    const char *p = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &attr));
    return p && !strncmp(p, "GNU ", 4);
}

/* Whether module m's line tables name `file`; *lines: it has line tables;
 * *gcc: the unit that names it was compiled by GCC. */
static bool module_names_file(sym_module *m, const char *file,
                              bool (*same_file)(const char *, const char *), bool *lines, bool *gcc)
{
    *lines = false;
    if (!m->opened) open_module(m);
    if (!m->usable) return false;
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dwarf_next_unit(m->dw, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        Dwarf_Files *files;
        size_t nfiles;
        if (dwarf_offdie(m->dw, off + hsize, &cu) && dwarf_getsrcfiles(&cu, &files, &nfiles) == 0) {
            *lines = *lines || nfiles > 0;
            for (size_t i = 0; i < nfiles; ++i) {
                const char *name = dwarf_filesrc(files, i, NULL, NULL);
                if (name && same_file(name, file)) return *gcc = produced_by_gcc(&cu), true;
            }
        }
        off = next;
    }
    return false;
}

ompdag_status ompdag_symbolizer_find_source(ompdag_symbolizer *s, const char *file,
                                            bool (*same_file)(const char *a, const char *b),
                                            ompdag_source_evidence *out, ompdag_error *err)
{
    if (!s || !file || !same_file || !out)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "symbolizer: NULL argument");
    bool exe_lines = false, lines, gcc = false;
    for (size_t i = 0; i < s->nmods; ++i) {
        bool found = module_names_file(&s->mods[i], file, same_file, &lines, &gcc);
        if (i == 0) exe_lines = lines; /* the probe lists the executable first */
        if (found) {
            *out = gcc ? OMPDAG_SOURCE_FOUND_GCC : OMPDAG_SOURCE_FOUND;
            return OMPDAG_OK;
        }
    }
    *out = exe_lines ? OMPDAG_SOURCE_ABSENT : OMPDAG_SOURCE_EXE_NO_LINES;
    return OMPDAG_OK;
}

/* clang gives some runtime calls line 0 ("no source line", e.g. a task
 * created inside a switch case).  Use the closest preceding row of the same
 * CU's line table that has a real line: the code the call belongs to. */
static Dwarf_Line *nearest_real_line(Dwarf_Die *cu, uint64_t fa, Dwarf_Line *fallback, int *ln,
                                     int *col)
{
    Dwarf_Lines *lines;
    size_t n;
    if (dwarf_getsrclines(cu, &lines, &n) != 0) return fallback;
    Dwarf_Line *best = NULL;
    Dwarf_Addr best_addr = 0;
    for (size_t i = 0; i < n; ++i) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        Dwarf_Addr addr;
        int lno;
        if (!l || dwarf_lineaddr(l, &addr) || addr > fa || dwarf_lineno(l, &lno) || lno == 0)
            continue;
        if (!best || addr >= best_addr) {
            best = l;
            best_addr = addr;
        }
    }
    if (!best) return fallback;
    dwarf_lineno(best, ln);
    dwarf_linecol(best, col);
    return best;
}

static ompdag_status lookup_uncached(ompdag_symbolizer *s, uint64_t cp, ompdag_srcloc *out,
                                     ompdag_error *err)
{
    uint64_t a = cp - 1;
    sym_module *m = NULL;
    for (size_t i = 0; i < s->nmods && !m; ++i)
        if (a >= s->mods[i].base + s->mods[i].lo && a < s->mods[i].base + s->mods[i].hi)
            m = &s->mods[i];
    if (!m)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                                "address 0x%llx lies in no module of the traced program",
                                (unsigned long long)cp);
    if (!m->opened) open_module(m);
    if (!m->usable) return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s", m->why);
    uint64_t fa = a - m->base;
    size_t lo = 0, hi = m->nranges;
    while (lo < hi) { /* first range with lo > fa */
        size_t mid = (lo + hi) / 2;
        if (m->ranges[mid].lo <= fa)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;) {
        if (fa >= m->ranges[i].hi) continue;
        Dwarf_Die cu;
        if (!dwarf_offdie(m->dw, m->ranges[i].cu, &cu)) continue;
        Dwarf_Line *line = dwarf_getsrc_die(&cu, fa);
        if (!line) continue;
        int ln = 0, col = 0;
        dwarf_lineno(line, &ln);
        dwarf_linecol(line, &col);
        if (ln == 0) line = nearest_real_line(&cu, fa, line, &ln, &col);
        out->file = dwarf_linesrc(line, NULL, NULL);
        out->line = ln;
        out->col = col;
        return OMPDAG_OK;
    }
    return ompdag_error_set(err, OMPDAG_ERR_INVALID,
                            "no line information for 0x%llx in %s (build with -g)",
                            (unsigned long long)cp, m->path);
}

static cache_entry *cache_slot(ompdag_symbolizer *s, uint64_t key)
{
    return &s->cache[ompdag_hmap_probe(&cache_kind, NULL, s->cache, s->cache_cap, cache_hash(key),
                                       &key)];
}

ompdag_status ompdag_symbolizer_lookup(ompdag_symbolizer *s, uint64_t codeptr_ra,
                                       ompdag_srcloc *out, ompdag_error *err)
{
    if (!s || !out) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "symbolizer: NULL argument");
    if (codeptr_ra == 0)
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "the runtime passed no code address");
    cache_entry *e = cache_slot(s, codeptr_ra);
    if (e->key) {
        if (e->ok) {
            *out = e->loc;
            return OMPDAG_OK;
        }
    }
    ompdag_srcloc loc = {0};
    ompdag_status st = lookup_uncached(s, codeptr_ra, &loc, err);
    if (!e->key) {
        if (!ompdag_hmap_reserve(&cache_kind, NULL, (void **)&s->cache, &s->cache_cap,
                                 s->cache_used, s->cache_used + 1))
            return st ? st : (*out = loc, OMPDAG_OK);
        e = cache_slot(s, codeptr_ra); /* the table may have grown */
        e->key = codeptr_ra;
        e->loc = loc;
        e->ok = st == OMPDAG_OK;
        ++s->cache_used;
    }
    if (st == OMPDAG_OK) *out = loc;
    return st;
}

/* ---- which OpenMP runtime a program needs ----------------------------------------- */

ompdag_status ompdag_program_omp_runtime(const char *path, ompdag_omp_runtime *out,
                                         ompdag_error *err)
{
    if (!path || !out) return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "NULL argument");
    *out = OMPDAG_OMP_RUNTIME_NONE;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ompdag_error_set(err, OMPDAG_ERR_IO, "%s: %s", path, strerror(errno));
    elf_version(EV_CURRENT);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    if (!e || elf_kind(e) != ELF_K_ELF) {
        if (e) elf_end(e);
        close(fd);
        return ompdag_error_set(err, OMPDAG_ERR_INVALID, "%s is not an ELF program", path);
    }
    bool llvm = false, gnu = false;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC) continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t count = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
        for (size_t i = 0; d && i < count; ++i) {
            GElf_Dyn dyn;
            if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag != DT_NEEDED) continue;
            const char *name = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
            if (!name) continue;
            if (!strncmp(name, "libomp.so", 9) || !strncmp(name, "libiomp5.so", 11) ||
                !strncmp(name, "libomp-", 7))
                llvm = true;
            else if (!strncmp(name, "libgomp.so", 10))
                gnu = true;
        }
    }
    elf_end(e);
    close(fd);
    *out = llvm ? OMPDAG_OMP_RUNTIME_LLVM : gnu ? OMPDAG_OMP_RUNTIME_GNU : OMPDAG_OMP_RUNTIME_NONE;
    return OMPDAG_OK;
}
