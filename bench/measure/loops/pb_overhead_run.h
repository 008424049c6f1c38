/* pb_overhead_run.h — bench_pool_overhead's measuring loop. Per thread count, one block per policy: the round
 * trip between the first two cpus (a pingpong row: every ping-pong variant, pb_pingpong_tight), every gap x job
 * point (pb_dispatch_cost), the round trip again; then, from 2 threads, one block of barriers: the round trip,
 * one point per barrier asked for (pb_barrier_cost: a barrier inside a job), the round trip again; each point's ratio_to_rt is against the mean of the two
 * tightest round trips, its placement from the topology where it is trusted, else near/far/mixed from them. Once
 * a thread count's blocks are done, each point gets ratio_to_omp (omp's point at the same threads, gap and job):
 * its rows are complete then, and the caller writes them.
 *
 * Measuring only, and it never exits: a failure returns -1 with the reason, the rows measured so far kept; a
 * signal (pb_stop_signal) ends the loop at the next point with 0. */
#ifndef PB_OVERHEAD_RUN_H
#define PB_OVERHEAD_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_barrier_cost.h"
#include "pb_cli.h"
#include "pb_dispatch_cost.h"
#include "pb_pingpong.h"
#include "pb_placement.h"
#include "pb_vec.h"

#define PB_OVERHEAD_RT_BATCHES 11 /* a pingpong row's batches: its "reps" */
#define PB_OVERHEAD_RT_ITERS 20000

/* A row's kind: -1 a round trip (pingpong), a pb_exec_kind a dispatch point, PB_OVERHEAD_BARRIER + a pb_barrier_id a
 * barrier point (policy barrier-central, barrier-tree, barrier-dissemination, barrier-omp). */
#define PB_OVERHEAD_BARRIER PB_EXEC_KINDS
#define PB_OVERHEAD_KINDS (PB_OVERHEAD_BARRIER + PB_BARRIER_IDS)

/* One row of pool_overhead.csv: a dispatch point, a barrier point, or a round trip. */
typedef struct pb_overhead_row {
    int kind; /* see PB_OVERHEAD_BARRIER */
    int threads;
    unsigned gap_us, job_ns;
    pb_dispatch_cost_result r;
    double rt_before, rt_after, ratio_to_rt, ratio_to_omp; /* rt_*: the tightest variant's */
    double rt_variant[PB_RT_VARIANTS]; /* each variant's round trip, the mean of before and after */
    double rt_tight;                   /* the tightest, the mean of before and after: ratio_to_rt's reference */
    char placement[8];
} pb_overhead_row;

/* What to measure: the options, defaults applied (the caller's lists, alive for the run). */
typedef struct pb_overhead_plan {
    const int *cpus; /* pinning order; threads wrap around a shorter list */
    int ncpus;
    const pb_list *policies, *threads, *gaps, *jobs;
    const pb_list *barriers; /* pb_barrier_ids, or none */
    const char *co_runner;   /* --co-runner's spec ("": none): every row's co_runner */
    unsigned spin_us;
    int reps;
    double batch_ms;
    bool quick; /* shorter round trips */
    const pb_where *where; /* placement tags: the topology or the round trips (NULL: the round trips) */
} pb_overhead_plan;

typedef struct pb_overhead_run {
    const pb_overhead_plan *p;
    pb_vec rows;     /* pb_overhead_row, in measuring order */
    int done, total; /* points, for the progress line */
    uint64_t t0;
} pb_overhead_run;

void pb_overhead_run_begin(pb_overhead_run *run, const pb_overhead_plan *p);

/* Every policy's block at this thread count, the barriers' block, then their ratio_to_omp. 0, or -1 with err. */
int pb_overhead_run_threads(pb_overhead_run *run, int threads, char *err, size_t errlen);

/* "pingpong" for a round-trip row, the policy's name for a dispatch, "barrier-NAME" for a barrier. */
const char *pb_overhead_run_kind_name(int kind);

void pb_overhead_run_free(pb_overhead_run *run);

#endif
