/* pb_pingpong.h — the physical floor of a dispatch: one cache line from cpu a to cpu b and one back, the
 * same traffic a pool dispatch needs (publish + completion). Measured as a batch mean over many round trips
 * with both threads pinned. On shared virtual machines the vCPUs move between placements within seconds,
 * so every figure that depends on it carries its own same-run round trip and a near/far tag. */
#ifndef PB_PINGPONG_H
#define PB_PINGPONG_H

#include <stdbool.h>

#include "pb_stats.h"
#include "pb_topo.h"
#include "pb_tuning.h" /* PB_FAR_RT_NS, the near/far cut, and why it is where it is */

typedef struct pb_rt {
    double ns_batch_mean; /* median over batches of (batch time / round trips in the batch) */
    pb_summary batches;   /* the per-batch means */
} pb_rt;

/* Measures batches of iters round trips between cpus a and b (OS ids). a == b has no cache-line transfer
 * to measure: 0 with NaN figures. 0, or -1 with errno when a thread could not be pinned. The calling thread
 * runs on cpu a for the measurement; its affinity is restored afterwards. */
int pb_pingpong(int cpu_a, int cpu_b, int batches, int iters, pb_rt *out);
/* "near" or "far" by PB_FAR_RT_NS; "n/a" for NaN (one cpu only). */
const char *pb_placement(double rt_ns);
/* The tag of cpus a and b: the topology's ("smt", "near", "far": pb_topo_pair_place) where it can tell and is
 * trusted, else pb_placement(rt_ns). Trust it (trust_topo) on bare metal; under a hypervisor the guest's
 * topology says nothing of where its vCPUs run (on the development VM one "L3" holds pairs that measure
 * 150 ns one minute and 800 ns the next), so there the measured round trip decides. */
const char *pb_placement_pair(const pb_topo *t, int a, int b, bool trust_topo, double rt_ns);

#endif
