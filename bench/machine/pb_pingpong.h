/* pb_pingpong.h — the physical floor of a dispatch: one cache line from cpu a to cpu b and one back, the
 * same traffic a pool dispatch needs (publish + completion). Measured as a batch mean over many round trips
 * with both threads pinned. On shared virtual machines the vCPUs move between placements within seconds,
 * so every figure that depends on it carries its own same-run round trip and a near/far tag. */
#ifndef PB_PINGPONG_H
#define PB_PINGPONG_H

#include "pb_stats.h"

/* A round trip above this is tagged "far" (on the development EPYC: ≈ 65 ns within a chiplet, ≈ 400 ns
 * across chiplets; a threshold at 200 ns splits them with margin on both sides). */
#define PB_FAR_RT_NS 200.0

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

#endif
