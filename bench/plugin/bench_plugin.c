/*
 * bench/plugin/bench_plugin.c — what the front end and the -fplugin shim
 * cost (issue 3): `ompdag extract FILE` against `clang -fsyntax-only FILE`,
 * and `clang -O2 -c FILE` with the plugin against without it.  Target: the
 * plugin adds at most 25% to the build.
 *
 *   bench_plugin OMPDAG_BIN PLUGIN_SO CLANG EXAMPLES_DIR [REPS]
 *   bench_plugin BUILD_DIR          (as `make bench` runs it: BUILD_DIR/cli/ompdag,
 *                                   BUILD_DIR/plugin/libompdag_plugin.so, the clang and
 *                                   examples/ the build was configured with, 7 runs)
 *
 * Inputs: every .c file of examples/ plus a generated file with 200 parallel
 * regions (a loop of tasks, a branch and a helper call each).  Each command
 * runs REPS times, the four variants interleaved so that load changes hit
 * all of them alike; the table gives medians of wall time and of the
 * child's CPU time (user + system, from wait4), which is far less sensitive
 * to other processes on a shared machine.
 */
#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ompdag/internal/clock.h"
#include "ompdag/internal/stats.h"

extern char **environ;

enum { V_EXTRACT, V_SYNTAX, V_PLUGIN, V_PLAIN, NV };
static const char *const variant_name[NV] = {"extract", "syntax-only", "plugin -O2", "plain -O2"};

typedef struct sample {
    double wall_ms, cpu_ms;
} sample;

static double now_ms(void)
{
    return (double)ompdag_now_ns() / 1e6;
}

/* Runs argv with stdout/stderr to /dev/null; returns false on failure. */
static int run_once(char *const argv[], sample *s)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    double t0 = now_ms();
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return 0;
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) return 0;
    s->wall_ms = now_ms() - t0;
    s->cpu_ms = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static double median(double *v, int n)
{
    return ompdag_median_double(v, (size_t)n);
}

/* Writes the 200-region input next to the examples' work.h. */
static int generate(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fprintf(f, "#include \"work.h\"\nstatic void helper(int n) {\n#pragma omp task\n"
               "    work(n);\n#pragma omp taskwait\n}\n");
    for (int i = 1; i <= 200; ++i)
        fprintf(f,
                "void region_%d(int n) {\n#pragma omp parallel\n#pragma omp single\n    {\n"
                "        for (int i = 0; i < 4; ++i) {\n#pragma omp task firstprivate(i)\n"
                "            work(i + %d);\n        }\n        if (n > %d) {\n"
                "#pragma omp task\n            helper(n);\n        } else {\n"
                "            work(n);\n        }\n#pragma omp taskwait\n    }\n}\n",
                i, i, i);
    fprintf(f, "int main(void) { region_1(3); report(\"many\"); return 0; }\n");
    return fclose(f) == 0;
}

static int bench_file(const char *const tool[4], const char *incdir, const char *file,
                      const char *tmp, int reps, double med[NV][2])
{
    char inc[4096], out[4096], obj[4096], json[4096], pl[4200], pout[4200];
    snprintf(inc, sizeof inc, "-I%s", incdir);
    snprintf(json, sizeof json, "%s/x.json", tmp);
    snprintf(obj, sizeof obj, "%s/x.o", tmp);
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(pl, sizeof pl, "-fplugin=%s", tool[1]);
    snprintf(pout, sizeof pout, "-fplugin-arg-ompdag-out=%s", out);
    char *cmds[NV][16] = {
        {(char *)tool[0], "extract", (char *)file, "-o", json, "--", inc, NULL},
        {(char *)tool[2], "-fopenmp", "-fsyntax-only", inc, (char *)file, NULL},
        {(char *)tool[2], "-fopenmp", "-O2", inc, pl, pout, "-c", (char *)file, "-o", obj, NULL},
        {(char *)tool[2], "-fopenmp", "-O2", inc, "-c", (char *)file, "-o", obj, NULL},
    };
    double *wall[NV], *cpu[NV];
    for (int v = 0; v < NV; ++v) {
        wall[v] = calloc((size_t)reps, sizeof(double));
        cpu[v] = calloc((size_t)reps, sizeof(double));
    }
    int ok = 1;
    for (int r = 0; r < reps && ok; ++r)
        for (int v = 0; v < NV && ok; ++v) {
            sample s = {0, 0};
            ok = run_once(cmds[v], &s);
            if (!ok) fprintf(stderr, "bench_plugin: %s failed on %s\n", variant_name[v], file);
            wall[v][r] = s.wall_ms;
            cpu[v][r] = s.cpu_ms;
        }
    for (int v = 0; v < NV; ++v) {
        if (ok) {
            med[v][0] = median(wall[v], reps);
            med[v][1] = median(cpu[v], reps);
        }
        free(wall[v]);
        free(cpu[v]);
    }
    return ok;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_c_file(const char *name)
{
    size_t n = strlen(name);
    return n > 2 && !strcmp(name + n - 2, ".c");
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* one line per file as it finishes */
    char ompdag_bin[4096], plugin_so[4096];
    const char *tool[4] = {NULL, NULL, NULL, NULL}, *examples;
    int reps = 7;
    if (argc == 2) {
        snprintf(ompdag_bin, sizeof ompdag_bin, "%s/cli/ompdag", argv[1]);
        snprintf(plugin_so, sizeof plugin_so, "%s/plugin/libompdag_plugin.so", argv[1]);
        tool[0] = ompdag_bin;
        tool[1] = plugin_so;
        tool[2] = OMPDAG_BENCH_CLANG;
        examples = OMPDAG_BENCH_EXAMPLES;
    } else if (argc >= 5) {
        tool[0] = argv[1];
        tool[1] = argv[2];
        tool[2] = argv[3];
        examples = argv[4];
        if (argc > 5) reps = atoi(argv[5]);
    } else {
        fprintf(stderr, "usage: bench_plugin OMPDAG_BIN PLUGIN_SO CLANG EXAMPLES_DIR [REPS]\n"
                        "       bench_plugin BUILD_DIR\n");
        return 2;
    }
    if (reps < 1) reps = 1;
    char tmp[] = "/tmp/ompdag_bench_plugin_XXXXXX";
    if (!mkdtemp(tmp)) return 1;
    char gen[4096];
    snprintf(gen, sizeof gen, "%s/many_regions.c", tmp);
    if (!generate(gen)) return 1;

    char *files[64];
    int nfiles = 0;
    DIR *d = opendir(examples);
    for (struct dirent *e; d && (e = readdir(d)) && nfiles < 63;) {
        if (!is_c_file(e->d_name)) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", examples, e->d_name);
        files[nfiles++] = strdup(path);
    }
    if (d) closedir(d);
    qsort(files, (size_t)nfiles, sizeof *files, cmp_str);
    files[nfiles++] = gen;

    printf("median of %d runs; ms wall / ms cpu (user+sys)\n", reps);
    printf("%-22s %15s %15s %7s  %15s %15s %9s\n", "file", variant_name[V_EXTRACT],
           variant_name[V_SYNTAX], "ratio", variant_name[V_PLUGIN], variant_name[V_PLAIN],
           "overhead");
    double tot[NV][2] = {{0}};
    int failed = 0;
    for (int i = 0; i < nfiles; ++i) {
        double med[NV][2];
        const char *base = strrchr(files[i], '/') ? strrchr(files[i], '/') + 1 : files[i];
        if (!bench_file(tool, examples, files[i], tmp, reps, med)) {
            ++failed;
            continue;
        }
        for (int v = 0; v < NV; ++v)
            for (int k = 0; k < 2; ++k)
                tot[v][k] += med[v][k];
        printf("%-22s %7.1f/%7.1f %7.1f/%7.1f %6.2fx  %7.1f/%7.1f %7.1f/%7.1f %8.1f%%\n", base,
               med[V_EXTRACT][0], med[V_EXTRACT][1], med[V_SYNTAX][0], med[V_SYNTAX][1],
               med[V_EXTRACT][1] / med[V_SYNTAX][1], med[V_PLUGIN][0], med[V_PLUGIN][1],
               med[V_PLAIN][0], med[V_PLAIN][1],
               100 * (med[V_PLUGIN][1] - med[V_PLAIN][1]) / med[V_PLAIN][1]);
    }
    printf("%-22s %7.1f/%7.1f %7.1f/%7.1f %6.2fx  %7.1f/%7.1f %7.1f/%7.1f %8.1f%%\n", "total",
           tot[V_EXTRACT][0], tot[V_EXTRACT][1], tot[V_SYNTAX][0], tot[V_SYNTAX][1],
           tot[V_EXTRACT][1] / tot[V_SYNTAX][1], tot[V_PLUGIN][0], tot[V_PLUGIN][1],
           tot[V_PLAIN][0], tot[V_PLAIN][1],
           100 * (tot[V_PLUGIN][1] - tot[V_PLAIN][1]) / tot[V_PLAIN][1]);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    if (system(cmd) != 0) failed++;
    for (int i = 0; i + 1 < nfiles; ++i)
        free(files[i]);
    return failed ? 1 : 0;
}
