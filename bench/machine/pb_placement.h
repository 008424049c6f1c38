/* pb_placement.h — where a block of points ran, as every harness records it: the round trip between two cpus
 * measured before and after the block (pb_pingpong), its near/far tag, and the pinned cpus as text. One copy of
 * what bench_pool_overhead, bench_memory_floor, bench_sweep and bench_overlap each tag their rows with. */
#ifndef PB_PLACEMENT_H
#define PB_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>

/* The round trip between cpus a and b: the tightest ping-pong variant's batch mean over batches x iters
 * (pb_pingpong_tight), NaN when there is no second cpu (b < 0, a == b) or a thread could not be pinned: a row
 * then says n/a, it does not fail. */
double pb_roundtrip_ns(int a, int b, int batches, int iters);

/* "near", "far" or "smt?" when the round trips before and after a block agree (pb_placement), "mixed" when the
 * vCPUs moved in between (or only one was measured), "n/a" when neither was. */
const char *pb_placement_between(double before, double after);

/* What decides a block's placement tag: the topology, where it can tell and is trusted (bare metal: hwloc's
 * cores and caches are the hardware's), else the round trips. A harness fills one once it knows the machine
 * (pb_harness: trust_topo = no hypervisor); topo NULL is the round trips alone. */
typedef struct pb_where {
    const struct pb_topo *topo;
    bool trust_topo;
} pb_where;

/* The tag of a block run on cpus a and b: "smt" (siblings of one core), "near" (one last-level cache) or "far"
 * (another L3 or package) from the topology (pb_placement_pair), else pb_placement_between(before, after).
 * w NULL: the round trips. */
const char *pb_placement_block(const pb_where *w, int a, int b, double before, double after);

/* The tag of cpus a and b: the topology's ("smt", "near", "far": pb_topo_pair_place) where it can tell and is
 * trusted, else pb_placement(rt_ns) (pb_pingpong.h). Trust it (trust_topo) on bare metal; under a hypervisor the
 * guest's topology says nothing of where its vCPUs run (one "L3" can hold pairs whose round trip changes
 * several-fold from minute to minute), so there the measured round trip decides. pb_placement_block with one
 * round trip for before and after. */
const char *pb_placement_pair(const struct pb_topo *t, int a, int b, bool trust_topo, double rt_ns);

/* The block's round trip: the mean of the two, or the one that was measured (NaN when neither). */
double pb_rt_between(double before, double after);

/* The pinned cpus as a row's text, "3 5 7": cpu[i % ncpu] for i < n (threads wrap around a shorter list),
 * space-separated; an id that would not fit in len is left out whole. */
void pb_cpus_text(const int *cpu, int ncpu, int n, char *buf, size_t len);

#endif
