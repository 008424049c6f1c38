/* pb_topo_groups.c — a tree-shaped pool's groups from the topology (see pb_topo.h). Pure: reads a loaded
 * pb_topo, so fixtures of machines with several caches and clusters test it. */
#include "pb_topo.h"

/* What a level groups PUs by; -1 where the topology names nothing at that level above the PU. */
typedef struct pb_group_level {
    const char *name;
    int (*key)(const pb_topo_pu *pu);
} pb_group_level;

static int pb_key_llc(const pb_topo_pu *pu) { return pu->llc; }
static int pb_key_cluster(const pb_topo_pu *pu) { return pu->cluster; }

static const pb_group_level pb_group_levels[] = {
    { "llc", pb_key_llc },
    { "cluster", pb_key_cluster },
};

/* group[i] for each thread by the level's key, numbered in order of first appearance: the number of groups, or
 * 0 when a PU the topology holds has no object at this level (the level cannot tell those apart). */
static int pb_number_by(const pb_topo *t, const int *cpus, int n, const pb_group_level *lv, int *group)
{
    int key[PB_MAX_CPUS], first[PB_MAX_CPUS], groups = 0;
    for (int i = 0; i < n; i++) {
        int at = pb_topo_find(t, cpus[i]);
        key[i] = at < 0 ? -2 - cpus[i] : lv->key(&t->pu[at]); /* an unknown cpu: a key of its own */
        if (key[i] == -1)
            return 0;
        int g = 0;
        while (g < groups && key[first[g]] != key[i])
            g++;
        if (g == groups)
            first[groups++] = i;
        group[i] = g;
    }
    return groups;
}

int pb_topo_groups(const pb_topo *t, const int *cpus, int n, int *group, const char **level)
{
    n = n < PB_MAX_CPUS ? n : PB_MAX_CPUS;
    for (size_t l = 0; t && cpus && l < sizeof pb_group_levels / sizeof *pb_group_levels; l++) {
        int groups = pb_number_by(t, cpus, n, &pb_group_levels[l], group);
        if (groups > 1) {
            if (level)
                *level = pb_group_levels[l].name;
            return groups;
        }
    }
    for (int i = 0; i < n; i++)
        group[i] = 0;
    if (level)
        *level = "one";
    return 1;
}
