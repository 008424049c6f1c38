/* pb_dispatch_cost.h — measuring the cost of one dispatch: a pool policy or an OpenMP parallel region, with the
 * caller doing gap_us of serial work between dispatches and every thread doing job_ns of work per dispatch.
 * Measuring only fills pb_dispatch_cost_result; printing and CSV live in the harness. */
#ifndef PB_DISPATCH_COST_H
#define PB_DISPATCH_COST_H

#include <stdint.h>

#include "pb_exec.h"
#include "pb_stats.h"

typedef struct pb_dispatch_cost_point {
    pb_exec_kind kind; /* a pool policy, or the OpenMP peer: one dispatch = one pb_exec_run */
    int threads;
    const int *cpus;   /* threads OS cpu ids to pin to */
    unsigned gap_us;   /* caller's serial busy work between dispatches */
    unsigned job_ns;   /* busy work per thread per dispatch; 0 = empty job */
    unsigned spin_us;  /* hybrid's spin budget */
    int reps;          /* batches */
    double batch_ms;   /* target length of one batch; the batch size K follows from a warm-up */
    const struct pb_topo *topo; /* tree: where its groups come from (NULL: one group) */
} pb_dispatch_cost_point;

typedef struct pb_dispatch_cost_result {
    double batch_mean_ns;  /* median over batches of (batch time - gap time) / K */
    pb_summary batches;    /* the per-batch means */
    pb_summary samples;    /* single dispatches timed one by one (for percentiles) */
    long k;                /* dispatches per batch */
} pb_dispatch_cost_result;

/* 0, or -1 with errno when the pool could not be created. */
int pb_dispatch_cost_measure(const pb_dispatch_cost_point *pt, pb_dispatch_cost_result *out);

/* k dispatches on an executor already open (a decode's own: its kind, threads and cpus) at a decode's cadence:
 * the caller busy gap_ns before each (its serial glue), every thread busy job_ns in it (a slice's length: a
 * worker that sleeps between dispatches sleeps as long as in the decode). out[i]: dispatch i's time beyond its
 * slowest thread's time in the job, in ns: what the dispatch itself cost (a thread preempted inside its job is
 * the machine's, and not counted). Each counts into e->dispatches. 0, or -1 with errno ENOMEM. */
int pb_dispatch_cost_samples(pb_exec *e, long k, uint64_t gap_ns, uint64_t job_ns, double *out);

#endif
