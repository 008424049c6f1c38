/* pool_struct.h — struct pool itself, for the pool's own source files (pool.c: life cycle and pool_run;
 * pool_rows.c: splitting rows over a job). Not part of the API: pool.h keeps the struct opaque. Every field's
 * comment says who writes it and when; the static asserts keep the contended words on their own cache lines. */
#ifndef POOL_STRUCT_H
#define POOL_STRUCT_H

#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pool.h"
#include "pool_impl.h"

typedef struct pool_worker {
    struct pool *p;
    int id;
} pool_worker;

/* pool_rows' job: its rows callback and how to split (chunk and rows in rows, chunk a multiple of grain). It
 * lives only in struct pool (rows_job), which is how its runners find their pool. */
typedef struct pool_rows_job {
    pool_rows_fn fn;
    void *ctx;
    size_t rows, chunk, grain;
} pool_rows_job;

struct pool {
    /* Read-only after pool_create (stop: written once, by pool_stop_workers through pool_stop_threads, before the
     * generation that tells the workers to read it; off gen's line, which it would crowd, and read from L1 after
     * every wake). */
    int n;
    pool_policy policy;
    bool stop;
    atomic_uint *done; /* the completion counter: &done_near (one worker) or &done_far, chosen by pool_create */
    uint64_t worker_budget_ns; /* how long an idle worker spins before sleeping */
    uint64_t caller_budget_ns; /* how long the caller spins on completion before sleeping */
    unsigned yield_after;      /* pauses before a spinner yields: fewer when threads outnumber their cpus */
    int *cpus;                 /* NULL or n cpu ids */
    pthread_t *tids;           /* n entries; [0] unused (the caller is worker 0) */
    pool_worker *workers;      /* n entries */
    pool_slice_hook hook;      /* observer of every slice (hook.end NULL: none) */

    /* Read-mostly: written by pool_set_weights between jobs (the driving thread), read by the workers inside a
     * job. Plain fields: the next job's seq_cst RMW on gen releases them to the workers' acquire of it. */
    bool weighted;             /* static splits follow cum instead of pool_split */
    double *cum;               /* n + 1 cumulative shares (pool_split_weighted) */

    /* pool_bind_caller's state: only the driving thread reads or writes these (a pool is driven by one thread
     * at a time), so plain fields suffice. */
    bool caller_bound;         /* the caller is pinned to cpus[0] by pool_bind_caller */
    cpu_set_t caller_saved_mask; /* the mask pool_bind_caller replaced: pool_unbind_caller restores it */

    unsigned done_target; /* caller only: the value of done once the current job is finished */

    /* Contended counters, each on its own cache line so one's traffic does not evict the others. */
    alignas(POOL_CACHE_LINE) atomic_uint gen;      /* bumped once per job: the publish */
    /* One worker's completion count, on gen's line. A line one side only writes and the other only reads costs
     * an ownership request and a reload at every hand-off, so publish and completion on two lines cost two
     * round trips; on one line both sides read and then write it, as the one-line ping-pong does, and a
     * dispatch costs about one (measured here: 2 threads, 2-line 364-390 ns, 1-line 134-206 ns, the one-line
     * ping-pong 157-204 ns, best of 20 batches each). With more workers their completions share done_far
     * instead: on gen's line every worker's increment would also take the line from the finished workers
     * polling it, which nothing here could measure (2 vCPUs). */
    atomic_uint done_near;
    /* The job descriptor, on gen's line: the line a waking worker must fetch anyway brings the job with it, where
     * a line of its own cost a second dependent transfer from the caller's core per dispatch (≈ 0.3 µs when
     * the two cores sit on different chiplets). Written by the caller before the generation's release, read
     * by workers after their acquire of it, so plain fields suffice (they are other objects than gen: a
     * worker's spin loads of gen do not race with these stores). */
    pool_fn fn;
    void *ctx;
    pool_rows_job rows_job; /* pool_rows' job, whose address pool_rows passes as ctx */
    alignas(POOL_CACHE_LINE) atomic_uint done_far; /* jobs finished by workers (not the caller), all jobs summed */
    alignas(POOL_CACHE_LINE) atomic_size_t next_row; /* pool_rows dynamic claims */
    alignas(POOL_CACHE_LINE) pool_sleepq work_q;   /* workers asleep waiting for a new generation */
    alignas(POOL_CACHE_LINE) pool_sleepq done_q;   /* the caller asleep waiting for completion */
};

_Static_assert(offsetof(struct pool, gen) % POOL_CACHE_LINE == 0, "gen starts a cache line");
_Static_assert(offsetof(struct pool, rows_job) + sizeof(pool_rows_job) <= offsetof(struct pool, gen) + POOL_CACHE_LINE,
               "the job descriptor fits on gen's line");
_Static_assert(offsetof(struct pool, done_target) / POOL_CACHE_LINE >
                   (offsetof(struct pool, cum) + sizeof(double *) - 1) / POOL_CACHE_LINE,
               "done_target, written by the caller every job, is not on a line the workers read (n to cum)");
_Static_assert(offsetof(struct pool, done_near) / POOL_CACHE_LINE == offsetof(struct pool, gen) / POOL_CACHE_LINE,
               "done_near on gen's line");
_Static_assert(offsetof(struct pool, done_far) % POOL_CACHE_LINE == 0, "done_far on its own cache line");
_Static_assert(offsetof(struct pool, next_row) % POOL_CACHE_LINE == 0, "next_row on its own cache line");
_Static_assert(offsetof(struct pool, work_q) % POOL_CACHE_LINE == 0, "work_q on its own cache line");
_Static_assert(offsetof(struct pool, done_q) % POOL_CACHE_LINE == 0, "done_q on its own cache line");

#endif
