/* pool_types.h — the pool's plain data: its policies, its configuration and the function types it runs. Part of
 * the API (pool.h includes it); on its own here so that the pool's lower files (the handshake, the tree) take
 * these types without the functions of pool.h's pool.c. */
#ifndef POOL_TYPES_H
#define POOL_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* A pool whose threads outnumber their cpus (two pinned to one cpu, or more threads than this process's cpus)
 * spins at most POOL_OVERSUBSCRIBED_SPIN_US before sleeping, whatever the policy's budgets: the thread a waiter
 * waits for there most likely needs the waiter's cpu. */
typedef enum pool_policy {
    POOL_SPIN,    /* workers spin on one generation counter; sleep only after idle_us without a job */
    POOL_CONDVAR, /* workers and caller sleep on condition variables between jobs */
    POOL_HYBRID,  /* spin for spin_us, then sleep; 0 = condvar, POOL_SPIN_FOREVER = spin without idle sleep */
    POOL_SPAWN,   /* threads created and joined for every job: the baseline a pool exists to beat */
    POOL_POLICY_COUNT
} pool_policy;

/* The policies as one list to expand, X(policy, "name", "words"): pool_policy_name's table, and any table that
 * extends it (bench's executor kinds add "omp"), come from here, so a name is written once; the words say what its
 * workers do between jobs, for prose (report.md's answers), written beside the name so a policy never lacks them. */
#define POOL_POLICY_NAMES(X)                                        \
    X(POOL_SPIN, "spin", "workers spin between dispatches")         \
    X(POOL_CONDVAR, "condvar", "workers sleep between dispatches")  \
    X(POOL_HYBRID, "hybrid", "workers spin, then sleep")            \
    X(POOL_SPAWN, "spawn", "threads made for every dispatch")

#define POOL_MAX_THREADS 1024
#define POOL_SPIN_FOREVER 0xFFFFFFFFu
/* POOL_DEFAULT_IDLE_US (spin: an idle worker sleeps after this long without a job) and POOL_DEFAULT_SPIN_US
 * (hybrid's default spin budget) come from pool_tuning.h, which holds every tunable of the pool. */

/* An observer of the slices: begin(ctx, id) runs on thread id just before fn(ctx, r0, r1) of pool_rows (a static
 * share or a dynamic claim, including the whole range of a one-thread pool), end(ctx, id, mark, r1 - r0) just
 * after, with what begin returned. Both run on the thread that ran the slice, inside the dispatch, so whatever
 * end writes is visible to the caller once pool_rows returns. pool_run's fn calls are not observed. */
typedef struct pool_slice_hook {
    uint64_t (*begin)(void *ctx, int id);
    void (*end)(void *ctx, int id, uint64_t mark, size_t rows);
    void *ctx;
} pool_slice_hook;

typedef struct pool_config {
    int threads;        /* 1..POOL_MAX_THREADS, the caller included */
    pool_policy policy;
    unsigned spin_us;   /* hybrid: spin budget before sleeping (POOL_SPIN_FOREVER = never sleep) */
    unsigned idle_us;   /* spin: idle budget before sleeping; 0 = POOL_DEFAULT_IDLE_US */
    const int *cpus;    /* optional: threads OS cpu ids; worker i on cpus[i], the caller on cpus[0] while
                           bound (pool_bind_caller) */
    pool_slice_hook hook; /* optional (end NULL: none) */
    const int *group;   /* optional: threads entries, thread i's group, each in 0..threads-1 (threads with one
                           value share a group; any numbering): a tree-shaped pool (see the top). NULL: flat */
} pool_config;

typedef struct pool pool;
typedef void (*pool_fn)(void *ctx, int id, int n);
typedef void (*pool_rows_fn)(void *ctx, size_t r0, size_t r1);

#endif
