/*
 * test_resources.c — resource discovery (hwloc; CUDA devices, zero being a
 * normal answer), `ompdag resources` in both formats, and the greedy DISPAR
 * mapping of CO/CG regions with its mapping file.
 */
#include <jansson.h>
#include <unistd.h>

#include "cli.h"
#include "offload_test_util.h"

Test(resources, discovers_cpus_and_zero_or_more_gpus)
{
    ompdag_resources *res = NULL;
    ompdag_error err = {0};
    cr_assert_eq(ompdag_resources_discover(&res, &err), OMPDAG_OK, "%s", err.message);
    const ompdag_cpu_topology *c = ompdag_resources_cpu(res);
    cr_assert_geq(c->pus, 1);
    cr_assert_geq(c->cores, 1);
    cr_assert_leq(c->cores, c->pus);
    cr_assert_geq(c->packages, 1);
    cr_assert_geq(c->numa_nodes, 1);
    cr_assert_eq(c->pus, (int)sysconf(_SC_NPROCESSORS_ONLN), "every online PU is listed");
    int g = ompdag_resources_gpus(res);
    cr_assert_geq(g, 0);
    if (g == 0) cr_assert_neq(ompdag_resources_gpu_note(res)[0], 0, "zero GPUs comes with a note");
    for (int i = 0; i < g; ++i) {
        cr_assert_gt(ompdag_resources_gpu(res, i)->sms, 0);
        cr_assert_geq(ompdag_resources_gpu(res, i)->cc_major, 3);
    }
    cr_assert_null(ompdag_resources_gpu(res, g));
    ompdag_map_resource *t = NULL;
    int nt = 0;
    cr_assert_eq(ompdag_resources_map_targets(res, &t, &nt, NULL), OMPDAG_OK);
    int co = 0, cg = 0;
    double cores = 0;
    for (int i = 0; i < nt; ++i) {
        if (t[i].kind == OMPDAG_REGION_CO) {
            ++co;
            cores += t[i].capacity;
        } else {
            ++cg;
        }
    }
    cr_assert_geq(co, 1);
    cr_assert_eq(cg, g);
    cr_assert_eq(cores, c->cores, "CO targets share out the cores");
    free(t);
    ompdag_resources_destroy(res);
}

static char *run_cli(int expect_rc, const char *format)
{
    char path[] = "/tmp/ompdag-res-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    char *argv[] = {"resources", "--format", (char *)format, "-o", path, NULL};
    cr_assert_eq(cmd_resources(5, argv), expect_rc);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char *buf = calloc(1, 1 << 16);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    buf[n] = 0;
    fclose(f);
    unlink(path);
    return buf;
}

Test(resources, cli_json_and_text)
{
    char *js = run_cli(CLI_EXIT_OK, "json");
    json_error_t je;
    json_t *j = json_loads(js, 0, &je);
    cr_assert_not_null(j, "JSON: %s\n%s", je.text, js);
    json_t *cpu = json_object_get(j, "cpu");
    cr_assert(json_integer_value(json_object_get(cpu, "pus")) >= 1);
    cr_assert(json_integer_value(json_object_get(cpu, "cores")) >= 1);
    ompdag_resources *res = NULL;
    cr_assert_eq(ompdag_resources_discover(&res, NULL), OMPDAG_OK);
    bool hw = ompdag_resources_cpu(res)->from_hwloc;
    cr_assert_str_eq(json_string_value(json_object_get(cpu, "source")), hw ? "hwloc" : "sysconf");
    cr_assert_eq(json_integer_value(json_object_get(cpu, "pus")), ompdag_resources_cpu(res)->pus);
    cr_assert_eq((int)json_array_size(json_object_get(j, "gpus")), ompdag_resources_gpus(res));
    ompdag_resources_destroy(res);
    cr_assert(json_is_array(json_object_get(cpu, "numa")));
    cr_assert(json_is_array(json_object_get(j, "gpus")));
    cr_assert(json_is_string(json_object_get(j, "gpu_note")));
    json_decref(j);
    free(js);
    char *text = run_cli(CLI_EXIT_OK, "text");
    cr_assert(strstr(text, "CPU (") && strstr(text, "GPUs: ") && strstr(text, "mapping targets:"),
              "%s", text);
    free(text);
}

Test(resources, cli_usage_errors)
{
    char *a1[] = {"resources", "--format", "xml", NULL};
    cr_assert_eq(cmd_resources(3, a1), CLI_EXIT_USAGE);
    char *a2[] = {"resources", "extra", NULL};
    cr_assert_eq(cmd_resources(2, a2), CLI_EXIT_USAGE);
    char *a3[] = {"resources", "-o", "/nonexistent-dir/x.json", NULL};
    cr_assert_eq(cmd_resources(3, a3), CLI_EXIT_FAIL);
}

/* ---- mapping ---- */

static const ompdag_map_resource machine[3] = {
    {"numa0", OMPDAG_REGION_CO, 4}, {"numa1", OMPDAG_REGION_CO, 4}, {"gpu0", OMPDAG_REGION_CG, 1}};

Test(map, cg_regions_go_to_cg_resources_only)
{
    ompdag_map_region regs[4] = {{"a", OMPDAG_REGION_CO, 1},
                                 {"b", OMPDAG_REGION_CG, 1},
                                 {"c", OMPDAG_REGION_CG, 5},
                                 {"d", OMPDAG_REGION_CO, 1}};
    int32_t assign[4];
    cr_assert_eq(ompdag_map_regions(regs, 4, NULL, 0, machine, 3, assign, NULL), OMPDAG_OK);
    cr_assert_eq(assign[1], 2);
    cr_assert_eq(assign[2], 2);
    cr_assert_neq(assign[0], 2, "a CO region takes the least-loaded resource (a NUMA node)");
    /* Without a GPU a CG region cannot be mapped. */
    ompdag_error err = {0};
    cr_assert_eq(ompdag_map_regions(regs, 4, NULL, 0, machine, 2, assign, &err),
                 OMPDAG_ERR_UNSUPPORTED);
    cr_assert(strstr(err.message, "region b is CG"), "%s", err.message);
}

Test(map, adjacent_regions_are_co_located)
{
    /* A chain a -> b -> c of small CO regions, plus a big independent one:
     * the chain shares one resource, the big one takes another. */
    ompdag_map_region regs[4] = {{"a", OMPDAG_REGION_CO, 1},
                                 {"b", OMPDAG_REGION_CO, 1},
                                 {"c", OMPDAG_REGION_CO, 1},
                                 {"big", OMPDAG_REGION_CO, 6}};
    const int32_t edges[] = {0, 1, 1, 2};
    int32_t assign[4];
    const ompdag_map_resource cpus[2] = {{"numa0", OMPDAG_REGION_CO, 4},
                                         {"numa1", OMPDAG_REGION_CO, 4}};
    cr_assert_eq(ompdag_map_regions(regs, 4, edges, 2, cpus, 2, assign, NULL), OMPDAG_OK);
    cr_assert_eq(assign[0], assign[1]);
    cr_assert_eq(assign[1], assign[2]);
    cr_assert_neq(assign[3], assign[0]);
}

Test(map, least_loaded_when_no_neighbour_fits)
{
    /* Eight independent equal regions over two equal resources: 4 and 4;
     * a chain whose resource is full spills to the other. */
    ompdag_map_region regs[8];
    for (int i = 0; i < 8; ++i)
        regs[i] = (ompdag_map_region){"r", OMPDAG_REGION_CO, 2};
    const ompdag_map_resource cpus[2] = {{"numa0", OMPDAG_REGION_CO, 4},
                                         {"numa1", OMPDAG_REGION_CO, 4}};
    int32_t assign[8];
    cr_assert_eq(ompdag_map_regions(regs, 8, NULL, 0, cpus, 2, assign, NULL), OMPDAG_OK);
    int on0 = 0;
    for (int i = 0; i < 8; ++i)
        on0 += assign[i] == 0;
    cr_assert_eq(on0, 4);
    int32_t chain[14];
    for (int i = 0; i < 7; ++i) {
        chain[2 * i] = i;
        chain[2 * i + 1] = i + 1;
    }
    cr_assert_eq(ompdag_map_regions(regs, 8, chain, 7, cpus, 2, assign, NULL), OMPDAG_OK);
    on0 = 0;
    for (int i = 0; i < 8; ++i)
        on0 += assign[i] == 0;
    cr_assert_eq(on0, 4, "co-location stops at the resource's share");
    for (int i = 0; i < 3; ++i)
        cr_assert_eq(assign[i], assign[i + 1], "the chain's start stays together");
}

Test(map, writes_a_mapping_file_and_checks_arguments)
{
    ompdag_map_region regs[3] = {{"load\"x", OMPDAG_REGION_CO, 1},
                                 {"kern", OMPDAG_REGION_CG, 3},
                                 {"store", OMPDAG_REGION_CO, 1}};
    const int32_t edges[] = {0, 1, 1, 2};
    int32_t assign[3];
    cr_assert_eq(ompdag_map_regions(regs, 3, edges, 2, machine, 3, assign, NULL), OMPDAG_OK);
    char path[] = "/tmp/ompdag-map-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    ompdag_error err = {0};
    cr_assert_eq(ompdag_map_write(path, regs, 3, machine, 3, assign, &err), OMPDAG_OK, "%s",
                 err.message);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    unlink(path);
    cr_assert_not_null(j, "%s", je.text);
    json_t *rs = json_object_get(j, "regions");
    cr_assert_eq(json_array_size(rs), 3);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(rs, 0), "name")), "load\"x");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(rs, 1), "resource")), "gpu0");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(rs, 1), "class")), "CG");
    double total = 0;
    json_t *res = json_object_get(j, "resources");
    for (size_t i = 0; i < json_array_size(res); ++i)
        total += json_number_value(json_object_get(json_array_get(res, i), "load"));
    cr_assert_float_eq(total, 5.0, 1e-12);
    json_decref(j);

    const int32_t bad_edge[] = {0, 7};
    cr_assert_eq(ompdag_map_regions(regs, 3, bad_edge, 1, machine, 3, assign, NULL),
                 OMPDAG_ERR_ARGUMENT);
    const ompdag_map_resource zero[1] = {{"x", OMPDAG_REGION_CO, 0}};
    cr_assert_eq(ompdag_map_regions(regs, 3, NULL, 0, zero, 1, assign, NULL), OMPDAG_ERR_ARGUMENT);
    cr_assert_eq(ompdag_map_regions(regs, 3, NULL, 0, machine, 0, assign, NULL),
                 OMPDAG_ERR_ARGUMENT);
    int32_t bad_assign[3] = {0, 9, 0};
    cr_assert_eq(ompdag_map_write("-", regs, 3, machine, 3, bad_assign, NULL), OMPDAG_ERR_ARGUMENT);
}
