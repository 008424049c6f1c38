/* Topology of arm64 machines we do not have, from hwloc XML fixtures written for poolbench (tests/data):
 *   rk3588-4a76-4a55.xml       Rockchip RK3588 board: cpu0-3 Cortex-A55 (one cluster, 128 KiB L2 each),
 *                              cpu4-7 Cortex-A76 (two clusters of two, 512 KiB L2 each), one 3 MiB L3; cpukinds
 *                              as Linux's hwloc gives them (FrequencyMaxMHz 1800/2400, LinuxCapacity 397/1024)
 *   rk3588-capacity-only.xml   the same without a cpufreq driver: the kinds carry only LinuxCapacity, so hwloc
 *                              cannot rank them (efficiency -1), and lists the big kind first
 *   graviton3-64c.xml          a 64-core Neoverse V1 server (Graviton 3-like): no SMT, 1 MiB L2 per core, 32 MiB
 *                              L3, one NUMA node, no cpukinds (no cpufreq in the VM)
 *   apple-m2pro-6p4e-linux.xml Apple M2 Pro under Asahi Linux: the E-cores first (cpu0-3, one 4 MiB L2), then six
 *                              P-cores in two clusters of three (16 MiB L2 each); no L3 the OS sees
 * Each has its /proc/cpuinfo beside it (.cpuinfo), read by test_cpuinfo.c. */
#include <criterion/criterion.h>

#include "pb_topo.h"
#include "topo_cases.h"
#include "topo_fixture.h"

/* Each fixture's counts, kinds, sets, placements and refusals (topo_cases.h checks a row). hwloc names no core
 * type on arm64 (the kinds' names are ""): the identity does, from cpuinfo (test_cpuinfo.c). */
static const topo_want fixtures[] = {
    /* The big cores first, in logical order across their two clusters, then the little ones. */
    { .file = "rk3588-4a76-4a55.xml", .npus = 8, .ncores = 8, .nkinds = 2, .default_threads = 4,
      .kind = { { "", 4, 4, 2400, 1024, 1 }, { "", 4, 4, 1800, 397, 0 } },
      .sets = { { "p", "4-7" }, { "e", "0-3" }, { "p+e", "0-7" }, { "physical", "0-7" } },
      .places = { { "p+e", 6, "4-7,0,1" }, { "all", 8, "4-7,0-3" }, { "e", 2, "0,1" } },
      .refused = { { "p", 5, "accepted 1..4" } },
      .default_sets = "p,e,p+e" },
    /* Without frequencies hwloc leaves the kinds unranked and lists the big one first: Linux's cpu capacity must
     * still make the A76 cores 'p' (the order alone would make the A55 ones 'p'). */
    { .file = "rk3588-capacity-only.xml", .npus = 8, .ncores = 8, .nkinds = 2, .default_threads = 4,
      .kind = { { "", 4, 4, 0, 1024, -1 }, { "", 4, 4, 0, 397, -1 } },
      .sets = { { "p", "4-7" }, { "e", "0-3" } },
      .places = { { "p+e", 5, "4-7,0" } } },
    { .file = "graviton3-64c.xml", .npus = 64, .ncores = 64, .nkinds = 1, .default_threads = 64,
      .kind = { { "", 64, 64, 0, 0, -1 } },
      .sets = { { "p", "0-63" }, { "p+e", "0-63" } },
      .places = { { "p", 3, "0-2" } },
      .refused = { { "e", 1, "cpu set 'e' is empty: this machine has one kind of core" } },
      .default_sets = "p" },
    { .file = "apple-m2pro-6p4e-linux.xml", .npus = 10, .ncores = 10, .nkinds = 2, .default_threads = 6,
      .kind = { { "", 6, 6, 3504, 1024, 1 }, { "", 4, 4, 2424, 459, 0 } },
      .sets = { { "p", "4-9" }, { "e", "0-3" }, { "p+e", "0-9" } },
      .places = { { "p+e", 7, "4-9,0" }, { "e", 4, "0-3" } },
      .default_sets = "p,e,p+e" },
};

Test(topo_arm, fixtures)
{
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++)
        expect_topo(&fixtures[i]);
}

static const topo_caches_want caches[] = {
    /* Per kind: A76, then A55. One L3 over both clusters: every pair is near (the clusters are Groups, not
     * caches). */
    { .file = "rk3588-4a76-4a55.xml", .ncaches = 3, .nnuma = 1, .memory = 16ull << 30,
      .cache = { { 1, 8, 4u * (64 + 32) * 1024, { 64u * 1024, 32u * 1024 }, { 1, 1 } },
                 { 2, 8, 4u * (512 + 128) * 1024, { 512u * 1024, 128u * 1024 }, { 1, 1 } },
                 { 3, 1, 3u << 20, { 3u << 20, 3u << 20 }, { 8, 8 } } },
      .pairs = { { 4, 6, PB_PAIR_NEAR }, { 0, 7, PB_PAIR_NEAR } } },
    { .file = "graviton3-64c.xml", .ncaches = 3, .nnuma = 1, .memory = 128ull << 30,
      .cache = { { 1, 64, 64u * 64 * 1024, { 64u * 1024, 0 }, { 1, 0 } },
                 { 2, 64, 64u << 20, { 1u << 20, 0 }, { 1, 0 } },
                 { 3, 1, 32u << 20, { 32u << 20, 0 }, { 64, 0 } } } },
    /* No L3: each cluster's L2 is the last level, so the two P clusters are far from each other. */
    { .file = "apple-m2pro-6p4e-linux.xml", .ncaches = 2, .nnuma = 1, .memory = 16ull << 30,
      .cache = { { 1, 10, (6u * 128 + 4 * 64) * 1024, { 128u * 1024, 64u * 1024 }, { 1, 1 } },
                 { 2, 3, (2u * 16 + 4) << 20, { 16u << 20, 4u << 20 }, { 3, 4 } } },
      .pairs = { { 4, 6, PB_PAIR_NEAR }, { 4, 7, PB_PAIR_FAR }, { 0, 9, PB_PAIR_FAR } } },
};

Test(topo_arm, caches)
{
    for (size_t i = 0; i < sizeof caches / sizeof caches[0]; i++)
        expect_caches(&caches[i]);
}

Test(topo_arm, graviton3_thread_counts)
{
    pb_topo *t = load("graviton3-64c.xml");
    pb_list counts;
    pb_topo_thread_counts(t, &counts);
    cr_expect_gt(counts.n, 1);
    pb_topo_free(t);
}
