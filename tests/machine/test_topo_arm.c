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

#include "pb_cpusets.h"
#include "pb_topo.h"
#include "topo_fixture.h"

/* The names of the sets bench_sweep runs by default here, comma-separated. */
static void default_set_names(const pb_topo *t, char *buf, size_t len)
{
    pb_cpusets s;
    char err[256] = "";
    cr_assert_eq(pb_cpusets_parse(t, NULL, &s, err, sizeof err), 0, "%s", err);
    buf[0] = '\0';
    for (int i = 0; i < s.n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "," : "", s.set[i].name);
}

#define EXPECT_DEFAULT_SETS(t, want)                                              \
    do {                                                                          \
        char got_[256];                                                           \
        default_set_names(t, got_, sizeof got_);                                  \
        cr_expect_str_eq(got_, want, "default sets: got %s, want %s", got_, want); \
    } while (0)

Test(topo_arm, rk3588_big_little)
{
    pb_topo *t = load("rk3588-4a76-4a55.xml");
    cr_expect_eq(t->npus, 8);
    cr_expect_eq(t->ncores, 8);
    cr_assert_eq(t->nkinds, 2);
    cr_expect_eq(t->kind[0].max_mhz, 2400);
    cr_expect_eq(t->kind[0].capacity, 1024);
    cr_expect_eq(t->kind[0].cores, 4);
    cr_expect_eq(t->kind[1].max_mhz, 1800);
    cr_expect_eq(t->kind[1].capacity, 397);
    cr_expect_str_eq(t->kind[0].name, ""); /* hwloc names no core type on arm64: the identity does */
    EXPECT_SET(t, "p", "4-7");
    EXPECT_SET(t, "e", "0-3");
    EXPECT_SET(t, "p+e", "0-7");
    EXPECT_SET(t, "physical", "0-7");
    /* The big cores first, in logical order across their two clusters, then the little ones. */
    EXPECT_PLACE(t, "p+e", 6, "4-7,0,1");
    EXPECT_PLACE(t, "all", 8, "4-7,0-3");
    EXPECT_PLACE(t, "e", 2, "0,1");
    EXPECT_ERR(t, "p", 5, "accepted 1..4");
    EXPECT_DEFAULT_SETS(t, "p,e,p+e");
    cr_expect_eq(default_threads(t), 4);
    pb_topo_free(t);
}

Test(topo_arm, rk3588_caches_per_kind)
{
    pb_topo *t = load("rk3588-4a76-4a55.xml");
    cr_assert_eq(t->ncaches, 3);
    const pb_topo_cache *l1 = &t->cache[0], *l2 = &t->cache[1], *l3 = &t->cache[2];
    cr_expect_eq(l1->bytes[0], 64u * 1024); /* A76 */
    cr_expect_eq(l1->bytes[1], 32u * 1024); /* A55 */
    cr_expect_eq(l2->bytes[0], 512u * 1024);
    cr_expect_eq(l2->bytes[1], 128u * 1024);
    cr_expect_eq(l2->shared_by[0], 1);
    cr_expect_eq(l2->instances, 8);
    cr_expect_eq(l3->instances, 1);
    cr_expect_eq(l3->shared_by[0], 8);
    cr_expect_eq(l3->total_bytes, 3u << 20);
    /* One L3 over both clusters: every pair is near (the clusters are Groups, not caches). */
    cr_expect_eq(pb_topo_pair_place(t, 4, 6), PB_PAIR_NEAR);
    cr_expect_eq(pb_topo_pair_place(t, 0, 7), PB_PAIR_NEAR);
    cr_expect_eq(t->numa[0].memory, 16ull << 30);
    pb_topo_free(t);
}

/* Without frequencies hwloc leaves the kinds unranked and lists the big one first: Linux's cpu capacity must
 * still make the A76 cores 'p' (the order alone would make the A55 ones 'p'). */
Test(topo_arm, rk3588_ranked_by_capacity_alone)
{
    pb_topo *t = load("rk3588-capacity-only.xml");
    cr_assert_eq(t->nkinds, 2);
    cr_expect_eq(t->kind[0].efficiency, -1);
    cr_expect_eq(t->kind[0].max_mhz, 0);
    cr_expect_eq(t->kind[0].capacity, 1024);
    EXPECT_SET(t, "p", "4-7");
    EXPECT_SET(t, "e", "0-3");
    EXPECT_PLACE(t, "p+e", 5, "4-7,0");
    cr_expect_eq(default_threads(t), 4);
    pb_topo_free(t);
}

Test(topo_arm, graviton3_one_kind)
{
    pb_topo *t = load("graviton3-64c.xml");
    cr_expect_eq(t->npus, 64);
    cr_expect_eq(t->ncores, 64);
    cr_expect_eq(t->nkinds, 1);
    cr_expect_eq(t->kind[0].efficiency, -1);
    EXPECT_SET(t, "p", "0-63");
    EXPECT_SET(t, "p+e", "0-63");
    EXPECT_ERR(t, "e", 1, "cpu set 'e' is empty: this machine has one kind of core");
    EXPECT_PLACE(t, "p", 3, "0-2");
    EXPECT_DEFAULT_SETS(t, "p");
    cr_expect_eq(default_threads(t), 64);
    cr_assert_eq(t->ncaches, 3);
    cr_expect_eq(t->cache[1].bytes[0], 1u << 20);
    cr_expect_eq(t->cache[2].total_bytes, 32u << 20);
    cr_expect_eq(t->numa[0].memory, 128ull << 30);
    pb_list counts;
    pb_topo_thread_counts(t, &counts);
    cr_expect_gt(counts.n, 1);
    pb_topo_free(t);
}

Test(topo_arm, apple_m2pro_efficiency_cores_first)
{
    pb_topo *t = load("apple-m2pro-6p4e-linux.xml");
    cr_expect_eq(t->npus, 10);
    cr_assert_eq(t->nkinds, 2);
    cr_expect_eq(t->kind[0].cores, 6);
    cr_expect_eq(t->kind[0].max_mhz, 3504);
    cr_expect_eq(t->kind[1].cores, 4);
    EXPECT_SET(t, "p", "4-9");
    EXPECT_SET(t, "e", "0-3");
    EXPECT_SET(t, "p+e", "0-9");
    EXPECT_PLACE(t, "p+e", 7, "4-9,0");
    EXPECT_PLACE(t, "e", 4, "0-3");
    EXPECT_DEFAULT_SETS(t, "p,e,p+e");
    cr_expect_eq(default_threads(t), 6);
    /* No L3: each cluster's L2 is the last level, so the two P clusters are far from each other. */
    cr_assert_eq(t->ncaches, 2);
    cr_expect_eq(t->cache[0].bytes[0], 128u * 1024);
    cr_expect_eq(t->cache[0].bytes[1], 64u * 1024);
    cr_expect_eq(t->cache[1].bytes[0], 16u << 20);
    cr_expect_eq(t->cache[1].shared_by[0], 3);
    cr_expect_eq(t->cache[1].bytes[1], 4u << 20);
    cr_expect_eq(t->cache[1].shared_by[1], 4);
    cr_expect_eq(pb_topo_pair_place(t, 4, 6), PB_PAIR_NEAR);
    cr_expect_eq(pb_topo_pair_place(t, 4, 7), PB_PAIR_FAR);
    cr_expect_eq(pb_topo_pair_place(t, 0, 9), PB_PAIR_FAR);
    pb_topo_free(t);
}
