/*
 * runtime-probe/probe_file.c — the trace file's own bytes for the probe
 * (probe.c): whole writes (writev until every byte is out), and the header —
 * the executable, its build-id and every loaded module with its load address,
 * which the symbolizer needs to map code addresses back to source lines
 * (format: ompdag/probe.h).  Part of libompdag_probe.so: nothing here is
 * exported (the library's symbols are hidden but ompt_start_tool).
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "ompdag/internal/fingerprint.h"
#include "ompdag/probe.h"
#include "probe_internal.h"

bool probe_write_all(int fd, struct iovec *iov, int cnt)
{
    while (cnt > 0) {
        ssize_t w = writev(fd, iov, cnt);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        while (cnt > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            ++iov;
            --cnt;
        }
        if (cnt > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    return true;
}

/* ---- header ---------------------------------------------------------------- */

typedef struct module_list {
    char buf[1 << 16];
    size_t len;
    uint32_t count;
    const char *exe;
    const uint8_t *exe_id;
    uint32_t exe_id_len;
} module_list;

static void find_build_id(const struct dl_phdr_info *info, const uint8_t **id, uint32_t *len)
{
    *id = NULL;
    *len = 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const uint8_t *name = p + sizeof *nh;
            const uint8_t *desc = name + ((nh->n_namesz + 3u) & ~3u);
            if (desc + nh->n_descsz > end) break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
                nh->n_descsz <= OMPDAG_TRACE_MAX_BUILD_ID) {
                *id = desc;
                *len = nh->n_descsz;
                return;
            }
            p = desc + ((nh->n_descsz + 3u) & ~3u);
        }
    }
}

static void put_padded(module_list *m, const void *data, size_t len)
{
    if (m->len + len + 8 > sizeof m->buf) return;
    memcpy(m->buf + m->len, data, len);
    m->len += len;
    while (m->len % 8)
        m->buf[m->len++] = 0;
}

static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    module_list *m = arg;
    const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : NULL;
    bool is_main = m->count == 0 && !path;
    if (is_main) path = m->exe;
    if (!path) return 0;
    ompdag_trace_module mod = {.base = info->dlpi_addr, .vaddr_lo = UINT64_MAX};
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        if (ph->p_vaddr < mod.vaddr_lo) mod.vaddr_lo = ph->p_vaddr;
        if (ph->p_vaddr + ph->p_memsz > mod.vaddr_hi) mod.vaddr_hi = ph->p_vaddr + ph->p_memsz;
    }
    if (mod.vaddr_lo == UINT64_MAX) return 0;
    const uint8_t *id;
    uint32_t id_len;
    find_build_id(info, &id, &id_len);
    /* an executable without a build-id is identified by its contents
     * (include/ompdag/internal/fingerprint.h), so a rebuilt one is refused */
    static uint8_t exe_fingerprint[OMPDAG_FINGERPRINT_LEN];
    if (!id_len && is_main && ompdag_file_fingerprint(path, exe_fingerprint))
        id = exe_fingerprint, id_len = OMPDAG_FINGERPRINT_LEN;
    size_t plen = strlen(path);
    if (plen > OMPDAG_TRACE_MAX_PATH) return 0;
    mod.path_len = (uint32_t)plen;
    mod.build_id_len = id_len;
    size_t need = sizeof mod + plen + id_len + 16;
    if (m->len + need > sizeof m->buf || m->count >= OMPDAG_TRACE_MAX_MODULES) return 0;
    memcpy(m->buf + m->len, &mod, sizeof mod);
    m->len += sizeof mod;
    memcpy(m->buf + m->len, path, plen);
    m->len += plen;
    put_padded(m, id, id_len);
    if (is_main) {
        m->exe_id = id;
        m->exe_id_len = id_len;
    }
    ++m->count;
    return 0;
}

bool probe_write_header(int fd, uint64_t (*now)(void), uint64_t *hash_out)
{
    static char exe[OMPDAG_TRACE_MAX_PATH + 1];
    ssize_t n = readlink("/proc/self/exe", exe, OMPDAG_TRACE_MAX_PATH);
    exe[n > 0 ? n : 0] = 0;
    module_list *m = calloc(1, sizeof *m);
    if (!m) return false;
    m->exe = exe;
    dl_iterate_phdr(add_module, m);
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    ompdag_trace_header h = {.version = OMPDAG_TRACE_VERSION,
                             .record_size = sizeof(ompdag_trace_rec),
                             .start_ns = now(),
                             .realtime_ns =
                                 (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec,
                             .pid = (uint32_t)getpid(),
                             .exe_path_len = (uint32_t)strlen(exe),
                             .build_id_len = m->exe_id_len,
                             .module_count = m->count};
    memcpy(h.magic, OMPDAG_TRACE_MAGIC, 8);
    char pad[16] = {0};
    size_t strings = h.exe_path_len + h.build_id_len;
    size_t padlen = (8 - strings % 8) % 8;
    struct iovec iov[5] = {{&h, sizeof h},
                           {exe, h.exe_path_len},
                           {(void *)(m->exe_id ? m->exe_id : (const uint8_t *)pad), h.build_id_len},
                           {pad, padlen},
                           {m->buf, m->len}};
    bool ok = probe_write_all(fd, iov, 5);
    uint64_t hash = OMPDAG_TRACE_HASH_SEED; /* every chunk's checksum is seeded with it */
    for (int i = 0; i < 5; ++i)
        hash = ompdag_trace_hash_bytes(hash, iov[i].iov_base, iov[i].iov_len);
    *hash_out = hash;
    free(m);
    return ok;
}
