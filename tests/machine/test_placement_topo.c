/* Placement from the topology: SMT siblings, one last-level cache (near), another L3 or package (far), on
 * hwloc XML fixtures (tests/data; zen-2ccd-4c8t.xml is hwloc's synthetic "pack:1 l3:2 l2:2 l1:1 core:1 pu:2",
 * one package with two chiplets' L3s, made with lstopo-no-graphics --input ... --of xml), every fixture there
 * covered (SMT siblings, one L3, across packages, hybrid clusters), and the fallback to the round trip where the
 * topology cannot tell or is not trusted (a hypervisor), where a round trip under PB_HIDDEN_SMT_RT_NS between
 * two cores tags them smt?. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pb_pingpong.h"
#include "pb_placement.h"
#include "pb_topo.h"
#include "topo_fixture.h"

static const char *topo_tag(const pb_topo *t, int a, int b)
{
    const char *s = pb_pair_place_name(pb_topo_pair_place(t, a, b));
    return s ? s : "unknown";
}

/* What the topology alone says of a pair of OS cpus. */
static const struct {
    const char *file;
    int a, b;
    const char *want, *why;
} pairs[] = {
    { "zen-2ccd-4c8t.xml", 0, 1, "smt", "siblings of core 0" },
    { "zen-2ccd-4c8t.xml", 0, 2, "near", "two cores under one L3" },
    { "zen-2ccd-4c8t.xml", 0, 4, "far", "another chiplet's L3, same package" },
    { "zen-2ccd-4c8t.xml", 7, 3, "far", "the same, the other way" },
    { "zen-2ccd-4c8t.xml", 5, 5, "smt", "a cpu with itself" },
    { "zen-2ccd-4c8t.xml", 0, 99, "unknown", "a cpu the topology does not hold" },
    { "numa-2s-16c32t.xml", 0, 1, "smt", "siblings" },
    { "numa-2s-16c32t.xml", 0, 2, "near", "one package's L3" },
    { "numa-2s-16c32t.xml", 0, 16, "far", "across packages" },
    { "smt-8c16t.xml", 0, 1, "smt", "PU 2k and 2k+1 are siblings" },
    { "smt-8c16t.xml", 0, 2, "unknown", "no L3 in the fixture: chiplets cannot be told apart" },
    { "hybrid-4p4e-caches.xml", 0, 8, "near", "a P-core and an E-core under the one 30M L3" },
    { "hybrid-4p4e-caches.xml", 8, 11, "near", "E-cores sharing their L2 and the L3" },
    { "hybrid-4p4e-caches.xml", 6, 7, "smt", "a P-core's two hyperthreads" },
    { "hybrid-4p4e.xml", 2, 3, "smt", "a P-core's two hyperthreads" },
    { "hybrid-4p4e.xml", 0, 8, "unknown", "P and E with no cache in the fixture: the round trip decides" },
    { "apple-6p4e.xml", 0, 6, "near", "a P-core and an E-core under the synthetic 24M L3" },
    { "apple-6p4e.xml", 7, 9, "near", "two E-cores" },
    { "apple-m2pro-6p4e-linux.xml", 4, 6, "near", "two P-cores of one cluster's L2 (no L3: the L2 is the last level)" },
    { "apple-m2pro-6p4e-linux.xml", 4, 7, "far", "the two P clusters' L2s" },
    { "apple-m2pro-6p4e-linux.xml", 0, 4, "far", "the E cluster and a P cluster" },
    { "apple-m2pro-6p4e-linux.xml", 0, 3, "near", "two E-cores of their cluster" },
    { "rk3588-4a76-4a55.xml", 0, 4, "near", "an A55 and an A76: the clusters share the DSU's L3" },
    { "rk3588-4a76-4a55.xml", 4, 7, "near", "two A76 cores" },
    { "rk3588-capacity-only.xml", 1, 5, "near", "the same board, capacities only" },
    { "graviton3-64c.xml", 0, 63, "near", "64 cores, one L3 (the mesh)" },
    { "kvm-epyc-2c.xml", 0, 1, "near", "the guest's two vCPUs under its one L3 (a request, not a fact: untrusted)" },
    { "numa-2s-16c32t.xml", 17, 31, "near", "two cores of the second package" },
    { "smt-8c16t.xml", 14, 15, "smt", "the last core's siblings" },
};

/* Every hwloc fixture in tests/data has pairs above (the fixtures in /work/shared/fixtures/topology are copies
 * of these): a fixture added without them fails here. */
Test(placement_topo, every_fixture_is_covered)
{
    DIR *d = opendir("tests/data");
    cr_assert_not_null(d);
    int seen = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".xml") != 0)
            continue;
        bool covered = false;
        for (size_t i = 0; i < sizeof pairs / sizeof pairs[0] && !covered; i++)
            covered = strcmp(pairs[i].file, e->d_name) == 0;
        cr_expect(covered, "tests/data/%s has no placement pairs in this test", e->d_name);
        seen++;
    }
    closedir(d);
    cr_expect_geq(seen, 7);
}

Test(placement_topo, pairs_on_fixtures)
{
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "tests/data/%s", pairs[i].file);
        if (access(path, R_OK) != 0)
            continue; /* a fixture of work not in this tree (yet): nothing to check */
        pb_topo *t = load(pairs[i].file);
        cr_expect_str_eq(topo_tag(t, pairs[i].a, pairs[i].b), pairs[i].want, "%s cpus %d,%d: %s", pairs[i].file,
                         pairs[i].a, pairs[i].b, pairs[i].why);
        pb_topo_free(t);
    }
}

Test(placement_topo, the_round_trip_decides_where_the_topology_cannot_or_is_not_trusted)
{
    pb_topo *t = load("zen-2ccd-4c8t.xml");
    /* Trusted and known: the round trip is ignored (a near pair measuring 210 ns is still near). */
    cr_expect_str_eq(pb_placement_pair(t, 0, 2, true, PB_FAR_RT_NS + 10), "near");
    cr_expect_str_eq(pb_placement_pair(t, 0, 4, true, PB_FAR_RT_NS - 10), "far");
    cr_expect_str_eq(pb_placement_pair(t, 0, 1, true, 30), "smt");
    /* Under a hypervisor: the round trip against PB_FAR_RT_NS. */
    cr_expect_str_eq(pb_placement_pair(t, 0, 2, false, PB_FAR_RT_NS + 10), "far");
    cr_expect_str_eq(pb_placement_pair(t, 0, 4, false, 150), "near");
    cr_expect_str_eq(pb_placement_pair(t, 0, 4, false, NAN), "n/a");
    pb_topo_free(t);
    /* Trusted but unknown (no L3 in the fixture): the round trip. */
    t = load("smt-8c16t.xml");
    cr_expect_str_eq(pb_placement_pair(t, 0, 2, true, 600), "far");
    cr_expect_str_eq(pb_placement_pair(t, 0, 2, true, 160), "near");
    pb_topo_free(t);
    cr_expect_str_eq(pb_placement_pair(NULL, 0, 2, true, 160), "near", "no topology at all");
}

Test(placement_topo, a_round_trip_under_60_ns_between_two_cores_is_likely_hidden_smt)
{
    pb_topo *t = load("kvm-epyc-2c.xml");
    /* The guest's topology says two cores under one L3; under a hypervisor it is not trusted, and 49.5 ns (seen on
     * such a guest) is faster than a line travels between two cores. */
    cr_expect_str_eq(pb_placement_pair(t, 0, 1, false, 49.5), "smt?");
    cr_expect_str_eq(pb_placement_pair(t, 0, 1, false, PB_HIDDEN_SMT_RT_NS + 5), "near");
    cr_expect_str_eq(pb_placement_pair(t, 0, 1, true, 49.5), "near", "trusted: bare metal's topology decides");
    cr_expect_str_eq(pb_placement(PB_HIDDEN_SMT_RT_NS - 1), "smt?");
    pb_topo_free(t);
    /* A block: both round trips agree, or it is mixed; the topology's tag whatever the round trips, when trusted. */
    t = load("zen-2ccd-4c8t.xml");
    const pb_where trusted = { .topo = t, .trust_topo = true }, vm = { .topo = t, .trust_topo = false };
    cr_expect_str_eq(pb_placement_block(&trusted, 0, 4, 40, 45), "far");
    cr_expect_str_eq(pb_placement_block(&vm, 0, 4, 40, 45), "smt?");
    cr_expect_str_eq(pb_placement_block(&vm, 0, 4, 40, 450), "mixed");
    cr_expect_str_eq(pb_placement_block(&vm, 0, -1, NAN, NAN), "n/a", "one cpu");
    cr_expect_str_eq(pb_placement_block(NULL, 0, 4, 450, 460), "far", "no topology: the round trips");
    pb_topo_free(t);
}

Test(placement_topo, round_trip_variants_and_the_tightest)
{
    cr_expect_str_eq(pb_rt_variant_name(PB_RT_1LINE_RMW), "1line_rmw");
    cr_expect_str_eq(pb_rt_variant_name(PB_RT_2LINE_STORE), "2line_store");
    cr_expect_str_eq(pb_rt_variant_name(PB_RT_2LINE_RMW), "2line_rmw");
    cr_expect_null(pb_rt_variant_name(PB_RT_VARIANTS));
    cpu_set_t set;
    cr_assert_eq(sched_getaffinity(0, sizeof set, &set), 0);
    int cpu[2], n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &set))
            cpu[n++] = c;
    pb_rt_tight rt;
    cr_assert_eq(pb_pingpong_tight(cpu[0], cpu[0], 3, 100, &rt), 0);
    cr_expect(isnan(rt.tight_ns), "one cpu: nothing to measure");
    if (n < 2)
        cr_skip_test("one cpu");
    cr_assert_eq(pb_pingpong_tight(cpu[0], cpu[1], 3, 2000, &rt), 0);
    double least = INFINITY;
    for (int v = 0; v < PB_RT_VARIANTS; v++) {
        cr_expect(rt.v[v].ns_batch_mean > 0, "%s: %f", pb_rt_variant_name((pb_rt_variant)v), rt.v[v].ns_batch_mean);
        least = fmin(least, rt.v[v].ns_batch_mean);
    }
    cr_expect_eq(rt.tight_ns, least, "the tightest is the least of the variants");
    cr_expect_eq(rt.v[rt.tightest].ns_batch_mean, least);
    cr_expect_eq(pb_roundtrip_ns(cpu[0], -1, 3, 100) != pb_roundtrip_ns(cpu[0], -1, 3, 100), 1, "NaN without b");
}
