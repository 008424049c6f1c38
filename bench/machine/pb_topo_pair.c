/* pb_topo_pair.c — where two cpus sit relative to each other, from the topology alone (see pb_topo.h). Pure:
 * reads a loaded pb_topo. */
#include "pb_topo.h"

pb_pair_place pb_topo_pair_place(const pb_topo *t, int cpu_a, int cpu_b)
{
    int ia = pb_topo_find(t, cpu_a), ib = pb_topo_find(t, cpu_b);
    if (ia < 0 || ib < 0)
        return PB_PAIR_UNKNOWN;
    const pb_topo_pu *a = &t->pu[ia], *b = &t->pu[ib];
    if (a->core == b->core)
        return PB_PAIR_SMT;
    /* Two packages never share a cache: far, whatever the caches say (or do not). */
    if (a->package >= 0 && b->package >= 0 && a->package != b->package)
        return PB_PAIR_FAR;
    /* One package: only its last-level caches tell its chiplets (or dies) apart. */
    if (a->llc >= 0 && b->llc >= 0)
        return a->llc == b->llc ? PB_PAIR_NEAR : PB_PAIR_FAR;
    return PB_PAIR_UNKNOWN;
}

const char *pb_pair_place_name(pb_pair_place p)
{
    static const char *const names[] = { [PB_PAIR_UNKNOWN] = NULL, [PB_PAIR_SMT] = "smt", [PB_PAIR_NEAR] = "near",
                                         [PB_PAIR_FAR] = "far" };
    return (unsigned)p < sizeof names / sizeof names[0] ? names[p] : NULL;
}
