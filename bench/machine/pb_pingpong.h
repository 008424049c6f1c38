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

/* The ping-pong variants. A round trip's cost depends on how it is made: one line that both sides exchange
 * (1line_rmw) can be much faster than two lines each written with a plain store (2line_store), so a dispatch
 * judged by the store variant alone can look cheaper than the handshake it is made of. Each is a floor of some
 * real handshake: one line is a flag both sides flip, two lines are a pool's generation and completion counters
 * (stores: flags; RMW: the counters' fetch-adds). The tightest of them is the reference a dispatch is judged by. */
typedef enum pb_rt_variant { PB_RT_1LINE_RMW, PB_RT_2LINE_STORE, PB_RT_2LINE_RMW, PB_RT_VARIANTS } pb_rt_variant;
/* "1line_rmw", "2line_store", "2line_rmw"; NULL for an unknown value. */
const char *pb_rt_variant_name(pb_rt_variant v);

/* Measures batches of iters round trips of variant v between cpus a and b (OS ids). a == b has no cache-line
 * transfer to measure: 0 with NaN figures. 0, or -1 with errno when a thread could not be pinned (EINVAL: an
 * unknown variant). The calling thread runs on cpu a for the measurement; its affinity is restored afterwards. */
int pb_pingpong_variant(int cpu_a, int cpu_b, pb_rt_variant v, int batches, int iters, pb_rt *out);
/* The two-line store/load variant. */
int pb_pingpong(int cpu_a, int cpu_b, int batches, int iters, pb_rt *out);

/* Every variant, back to back in one block (each batches x iters / PB_RT_VARIANTS round trips: the block costs
 * what one variant of iters did), and the tightest: the least batch mean. */
typedef struct pb_rt_tight {
    pb_rt v[PB_RT_VARIANTS];
    double tight_ns;       /* NaN for one cpu */
    pb_rt_variant tightest;
} pb_rt_tight;
int pb_pingpong_tight(int cpu_a, int cpu_b, int batches, int iters, pb_rt_tight *out);

/* A pair's tag from its round trip: "smt?" below PB_HIDDEN_SMT_RT_NS (likely SMT siblings a hypervisor shows as
 * two cores), "far" above PB_FAR_RT_NS, else "near"; "n/a" for NaN (one cpu only). Meant for the tightest round
 * trip, which both thresholds were set against. */
const char *pb_placement(double rt_ns);

#endif
