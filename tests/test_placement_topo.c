/* Placement from the topology: SMT siblings, one last-level cache (near), another L3 or package (far), on
 * hwloc XML fixtures (tests/data; zen-2ccd-4c8t.xml is hwloc's synthetic "pack:1 l3:2 l2:2 l1:1 core:1 pu:2",
 * one package with two chiplets' L3s, made with lstopo-no-graphics --input ... --of xml), and the fallback
 * to the round trip where the topology cannot tell or is not trusted (a hypervisor). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_pingpong.h"
#include "pb_topo.h"

static pb_topo *load(const char *file)
{
    char path[256], err[256] = "";
    snprintf(path, sizeof path, "tests/data/%s", file);
    pb_topo *t = pb_topo_load(path, err, sizeof err);
    cr_assert(t, "loading %s: %s", path, err);
    return t;
}

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
};

Test(placement_topo, pairs_on_fixtures)
{
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
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
