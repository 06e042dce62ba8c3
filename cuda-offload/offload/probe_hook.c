/*
 * cuda-offload/offload/probe_hook.c — tells the runtime probe how an
 * offloaded loop split across devices, so `ompdag annotate` can show the
 * per-device share on the node whose WCET covers the loop.
 *
 * The probe is an OMPT tool that libomp dlopen()s privately from
 * OMP_TOOL_LIBRARIES, so its symbols are not global: the hook is found by
 * re-opening those same paths with RTLD_NOLOAD (no load happens; the handle
 * only exists when the tool is already in the process).  Without the probe
 * this costs one getenv per call and records nothing.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "offload_internal.h"
#include "ompdag/probe.h"

static ompdag_probe_offload_fn g_hook;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void find_hook(void)
{
    const char *libs = getenv("OMP_TOOL_LIBRARIES");
    char *copy = libs ? strdup(libs) : NULL;
    for (char *save = NULL, *p = copy ? strtok_r(copy, ":", &save) : NULL; p && !g_hook;
         p = strtok_r(NULL, ":", &save)) {
        void *h = dlopen(p, RTLD_LAZY | RTLD_NOLOAD);
        if (!h)
            continue;
        *(void **)&g_hook = dlsym(h, OMPDAG_PROBE_OFFLOAD_SYMBOL);
        dlclose(h); /* balances RTLD_NOLOAD's reference; libomp keeps the tool loaded */
    }
    free(copy);
}

void off_probe_report(const ompdag_offload_report *rep)
{
    pthread_once(&g_once, find_hook);
    if (!g_hook || !rep)
        return;
    for (int i = 0; i < ompdag_offload_report_devices(rep); ++i) {
        ompdag_offload_device_stats d;
        if (ompdag_offload_report_device(rep, i, &d, NULL) != OMPDAG_OK || d.iterations <= 0)
            continue;
        g_hook((uint32_t)i, (uint32_t)d.kind, (uint64_t)d.iterations,
               (uint64_t)(d.busy_s * 1e9 + 0.5), (uint64_t)d.chunks);
    }
}
