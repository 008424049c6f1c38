/* A tree-shaped pool's groups from the topology (pb_topo_groups), on hwloc XML fixtures with several last-level
 * caches (two chiplets, two sockets, Apple's L2 clusters) or several clusters under one L3 (RK3588), and on
 * machines with one: the count, the level that made them, and that each thread's group is its cache's. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "pb_topo.h"
#include "topo_fixture.h"

typedef struct groups_want {
    const char *file;
    int groups;
    const char *level;
} groups_want;

static const groups_want wants[] = {
    { "zen-2ccd-4c8t.xml", 2, "llc" },          { "numa-2s-16c32t.xml", 2, "llc" },
    { "apple-m2pro-6p4e-linux.xml", 3, "llc" }, { "rk3588-4a76-4a55.xml", 3, "cluster" },
    { "kvm-epyc-2c.xml", 1, "one" },            { "smt-8c16t.xml", 1, "one" },
};

/* The key the level groups by, for the check that threads share a group exactly when their cpus share it. */
static int level_key(const pb_topo *t, int cpu, const char *level)
{
    const pb_topo_pu *pu = &t->pu[pb_topo_find(t, cpu)];
    return strcmp(level, "llc") == 0 ? pu->llc : strcmp(level, "cluster") == 0 ? pu->cluster : 0;
}

Test(topo_groups, every_pu_of_each_fixture_grouped_by_its_cache_or_cluster)
{
    for (size_t w = 0; w < sizeof wants / sizeof *wants; w++) {
        pb_topo *t = load(wants[w].file);
        pb_cpulist place;
        char err[256];
        cr_assert_eq(pb_topo_place_named(t, "all", t->npus, &place, err, sizeof err), 0, "%s", err);
        int group[PB_MAX_CPUS];
        const char *level = NULL;
        int n = pb_topo_groups(t, place.cpu, place.n, group, &level);
        cr_assert_eq(n, wants[w].groups, "%s: %d groups, want %d", wants[w].file, n, wants[w].groups);
        cr_assert_str_eq(level, wants[w].level, "%s", wants[w].file);
        cr_assert_eq(group[0], 0, "%s: the caller's group is 0", wants[w].file);
        int seen_max = 0;
        for (int i = 0; i < place.n; i++) {
            cr_assert(group[i] >= 0 && group[i] <= seen_max + 1, "%s: groups numbered in order of appearance",
                      wants[w].file);
            seen_max = group[i] > seen_max ? group[i] : seen_max;
            for (int j = 0; j < i; j++) {
                bool same_key = level_key(t, place.cpu[i], level) == level_key(t, place.cpu[j], level);
                cr_assert_eq(group[i] == group[j], same_key, "%s: cpus %d and %d", wants[w].file, place.cpu[i],
                             place.cpu[j]);
            }
        }
        pb_topo_free(t);
    }
}

/* A pool of more threads than cpus wraps around them (the harnesses' oversubscription): a cpu repeated is in
 * one group; a cpu the topology does not hold is a group of its own; no cpus (unpinned), one group. */
Test(topo_groups, repeats_unknown_cpus_and_no_cpus)
{
    pb_topo *t = load("zen-2ccd-4c8t.xml");
    pb_cpulist place;
    char err[256];
    cr_assert_eq(pb_topo_place_named(t, "physical", 2, &place, err, sizeof err), 0, "%s", err);
    int cpus[6] = { place.cpu[0], place.cpu[1], place.cpu[0], place.cpu[1], 999, 999 }, group[6];
    bool two_l3 = level_key(t, cpus[0], "llc") != level_key(t, cpus[1], "llc");
    int n = pb_topo_groups(t, cpus, 6, group, NULL);
    cr_assert_eq(n, two_l3 ? 3 : 2, "the placement's cpus, then an unknown one: %d groups", n);
    cr_assert_eq(group[2], group[0]);
    cr_assert_eq(group[3], group[1]);
    cr_assert_eq(group[4], group[5]);
    cr_assert_neq(group[4], group[0]);
    const char *level = NULL;
    cr_assert_eq(pb_topo_groups(t, NULL, 4, group, &level), 1);
    cr_assert_str_eq(level, "one");
    for (int i = 0; i < 4; i++)
        cr_assert_eq(group[i], 0);
    pb_topo_free(t);
}
