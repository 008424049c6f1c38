/* pb_tune_measure.h — bench_tune's seam (pb_tune.h): every candidate timed by pb_kernel_timing at dram level on one
 * buffer of the size a decode streams, through a spin pool of the candidate's threads pinned to the first cpus given.
 *
 * Successive points walk on through the buffer where the last one stopped (pb_kernel_timing_point.start_row), so no
 * point reads what the one before it left in the last-level cache. Each point samples for an equal share of the time
 * left until the deadline (at least 3 samples), so the whole tuning keeps to its budget however slow the host is
 * today.
 * A candidate's prefetch hint and distance are set for its point only (kern_prefetch_set_temporal, _set_distance)
 * and the ones before put back after. Each point draws the progress line. A dispatch point (flat or tree)
 * measures pb_dispatch_cost of the spin pool of its threads on the same cpus, empty jobs back to back, the tree's
 * groups from topo; the kernels' pool is destroyed first, so no idle spinner of it runs beside. */
#ifndef PB_TUNE_MEASURE_H
#define PB_TUNE_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_kernel_timing.h"
#include "pb_tune.h"
#include "pool.h"

typedef struct pb_tune_bench {
    pb_kernel_timing_buf buf;
    size_t bytes;           /* of weights per point: the dram level's size */
    size_t cols;
    const int *cpus;        /* the pinning order; threads take its first ones */
    int ncpus;
    uint64_t deadline;      /* pb_now_ns when the last point should end */
    size_t window_bytes;    /* a sample's most bytes */
    size_t next_row;        /* where the next kernel point starts */
    pool *pool;             /* the current points' pool, of pool_threads threads */
    int pool_threads;
    int done, total;        /* points, for the progress line */
    uint64_t t0;
    const struct pb_topo *topo; /* the tree's groups (NULL: one group); set after pb_tune_bench_open */
    int failed;             /* points that could not run (their figure NaN) */
    char err[256];          /* the first reason */
} pb_tune_bench;

/* A buffer of bytes (THP asked) and the rest; total points to come, within budget_s from now. 0, or -1 with the
 * reason in err. */
int pb_tune_bench_open(pb_tune_bench *b, size_t bytes, size_t cols, const int *cpus, int ncpus, double budget_s,
                       size_t window_bytes, int total, char *err, size_t errlen);
void pb_tune_bench_close(pb_tune_bench *b);
/* The seam over b. */
pb_tune_seam pb_tune_bench_seam(pb_tune_bench *b);

#endif
