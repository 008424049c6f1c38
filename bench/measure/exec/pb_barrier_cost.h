/* pb_barrier_cost.h — measuring one barrier among N threads already inside a job (how an engine synchronises
 * after every graph node): the pool's barriers (pool_barrier: central counter, the pool's tree, dissemination),
 * each in a job of the topology-shaped spin pool (pb_exec's tree kind, so the tree barrier follows the cache
 * groups), and OpenMP's `barrier` inside a `parallel` region of the same pinned team. Every thread makes the same
 * number of calls back to back; the caller's thread times them. Measuring only fills a pb_dispatch_cost_result:
 *   batch_mean_ns  the median over batches of a batch's time / its K barriers
 *   samples        single barriers: the time between two consecutive returns on the caller's thread */
#ifndef PB_BARRIER_COST_H
#define PB_BARRIER_COST_H

#include "pb_dispatch_cost.h"
#include "pool.h"

/* The barriers measured: the pool's kinds keep their values, OpenMP's comes after them. */
typedef enum pb_barrier_id {
    PB_BARRIER_OMP = POOL_BARRIER_KINDS,
    PB_BARRIER_IDS
} pb_barrier_id;

/* "central", "tree", "dissemination" (the pool's names), "omp"; NULL-terminated (bench_pool_overhead's
 * --barrier choices). */
extern const char *const pb_barrier_names[PB_BARRIER_IDS + 1];

typedef struct pb_barrier_cost_point {
    int barrier;                /* a pool_barrier_kind, or PB_BARRIER_OMP */
    int threads;                /* 2.. (one thread has nothing to wait for) */
    const int *cpus;            /* threads OS cpu ids to pin to, or NULL */
    const struct pb_topo *topo; /* the tree pool's groups (NULL: one group) */
    int reps;                   /* batches */
    double batch_ms;            /* target length of one batch; K follows from a calibration job */
} pb_barrier_cost_point;

/* 0, or -1 with errno: EINVAL (an unknown barrier, fewer than 2 threads), or the executor's or an allocation's. */
int pb_barrier_cost_measure(const pb_barrier_cost_point *pt, pb_dispatch_cost_result *out);

#endif
