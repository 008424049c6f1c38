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
#include "pool_handshake.h"

typedef struct pool_worker {
    struct pool *p;
    int id;
} pool_worker;

/* A job: what every thread calls, fn(ctx, id, n). */
typedef struct pool_job {
    pool_fn fn;
    void *ctx;
} pool_job;

/* pool_rows' job: its rows callback and how to split (chunk and rows in rows, chunk a multiple of grain). It
 * lives in struct pool (rows_job) and, copied, in each group of a tree (pool_group.rows_job): which of the two
 * the job's runner is handed is how it finds its pool (pool_split.c). */
typedef struct pool_rows_job {
    pool_rows_fn fn;
    void *ctx;
    size_t rows, chunk, grain;
} pool_rows_job;

/* One group of a tree-shaped pool (pool_tree.c): its leader publishes on gen and waits for done, its members
 * wait on gen and count themselves done. The same words as the root's in struct pool, one set per group, so a
 * group's traffic stays on lines of its own (and in the cache its threads share). An array of these comes from
 * pool_alloc_lines: every element starts a line (alignas below). */
typedef struct pool_group {
    /* Read-only after pool_create: read by the group's threads (a line never written: it stays in their caches). */
    int leader;        /* the group's lowest thread id (0 for the caller's group) */
    int size;          /* threads in the group, its leader included */
    atomic_uint *done; /* &done_near (one member) or &done_far: the root's rule (struct pool's done) */
    struct pool *p;    /* the pool: how a rows job's runner finds it from the group's copy (pool_split.c) */
    /* Bumped by the leader once per job (seq_cst RMW: pool_word_publish); members poll it. */
    alignas(POOL_CACHE_LINE) atomic_uint gen;
    atomic_uint done_near; /* one member's completions, on gen's line (the root's reason: see done_near below) */
    /* The job, copied here by the leader before its publish (pool_split_pass), so a waking member fetches one line,
     * its group's, as a flat worker does the root's: read from the root's line it cost a second transfer per
     * dispatch. Plain fields: written before the publish's release, read after the members' acquire of gen, and
     * only once every member counted the previous job done (its leader waited for that). */
    pool_job job;
    pool_rows_job rows_job; /* a rows job's copy, which job.ctx then points to */
    alignas(POOL_CACHE_LINE) atomic_uint done_far; /* members' completions, all jobs summed */
    alignas(POOL_CACHE_LINE) pool_sleepq work_q;   /* members asleep waiting for the group's next generation */
    alignas(POOL_CACHE_LINE) pool_sleepq done_q;   /* the leader asleep waiting for its group */
} pool_group;

_Static_assert(offsetof(pool_group, gen) % POOL_CACHE_LINE == 0, "a group's gen starts a cache line");
_Static_assert(offsetof(pool_group, rows_job) + sizeof(pool_rows_job) <= offsetof(pool_group, gen) + POOL_CACHE_LINE,
               "a group's done_near and job on its gen's line");
_Static_assert(offsetof(pool_group, done_far) % POOL_CACHE_LINE == 0, "a group's done_far on its own cache line");
_Static_assert(offsetof(pool_group, work_q) % POOL_CACHE_LINE == 0, "a group's work_q on its own cache line");
_Static_assert(offsetof(pool_group, done_q) % POOL_CACHE_LINE == 0, "a group's done_q on its own cache line");
_Static_assert(sizeof(pool_group) % POOL_CACHE_LINE == 0, "groups in an array keep their lines apart");

/* One level of release and completion as one thread sees it: the word a job is published on, the counter its
 * waiters count themselves done on, their sleep queues, and how many threads wait there per job (after job g
 * the counter reaches g x waiters, mod 2^32). A worker waits at one level (up) and, when it leads a group,
 * publishes at another (down); waiters 0 is no level. Local copies of pointers: read-only after pool_create. */
typedef struct pool_level {
    atomic_uint *gen, *done;
    pool_sleepq *work_q, *done_q;
    const pool_job *job; /* the job descriptor published there */
    pool_group *group;   /* the group (NULL: the root) */
    unsigned waiters;
} pool_level;


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
    int started;               /* threads running, the caller's included: what pool_destroy stops */
    pool_worker *workers;      /* n entries */
    pool_slice_hook hook;      /* observer of every slice (hook.end NULL: none) */
    /* The tree (pool_tree.c): ngroups 0 for a flat pool. root_waiters: threads that wait on gen per job, n - 1
     * when flat, the other groups' leaders in a tree. */
    int ngroups;
    unsigned root_waiters;
    int *group;                /* tree: n entries, thread i's group (renumbered: 0..ngroups-1, 0 the caller's) */
    pool_group *groups;        /* tree: ngroups entries */

    /* Read-mostly: written by pool_set_weights between jobs (the driving thread), read by the workers inside a
     * job. Plain fields: the next job's seq_cst RMW on gen releases them to the workers' acquire of it. */
    bool weighted;             /* static splits follow cum instead of pool_split */
    double *cum;               /* n + 1 cumulative shares (pool_split_weighted) */
    pool_share *shares;        /* n shares of a stealing split, each on its own line (set up per job by the
                                * caller, claimed by the threads: pool_split.c) */

    /* pool_bind_caller's state: only the driving thread reads or writes these (a pool is driven by one thread
     * at a time), so plain fields suffice. */
    bool caller_bound;         /* the caller is pinned to cpus[0] by pool_bind_caller */
    cpu_set_t caller_saved_mask; /* the mask pool_bind_caller replaced: pool_unbind_caller restores it */

    unsigned done_target; /* caller only: the value of done once the current job is finished */
    unsigned group0_target; /* caller only, tree: the same for its own group's done */

    /* Contended counters, each on its own cache line so one's traffic does not evict the others. */
    alignas(POOL_CACHE_LINE) atomic_uint gen;      /* bumped once per job: the publish */
    /* One worker's completion count, on gen's line. A line one side only writes and the other only reads costs
     * an ownership request and a reload at every hand-off, so publish and completion on two lines cost two
     * round trips; on one line both sides read and then write it, as the one-line ping-pong does, and a
     * dispatch costs about one. With more workers their completions share done_far instead: on gen's line every
     * worker's increment would also take the line from the finished workers polling it (not measured yet). */
    atomic_uint done_near;
    /* The job descriptor, on gen's line: the line a waking worker must fetch anyway brings the job with it, where
     * a line of its own costs a second dependent transfer from the caller's core per dispatch. Written by the
     * caller before the generation's release, read by workers after their acquire of it, so plain fields suffice
     * (they are other objects than gen: a worker's spin loads of gen do not race with these stores). */
    pool_job job;
    pool_rows_job rows_job; /* pool_rows' job, whose address pool_rows passes as ctx */
    alignas(POOL_CACHE_LINE) atomic_uint done_far; /* jobs finished by workers (not the caller), all jobs summed */
    alignas(POOL_CACHE_LINE) atomic_size_t next_row; /* pool_rows dynamic claims */
    alignas(POOL_CACHE_LINE) pool_sleepq work_q;   /* workers asleep waiting for a new generation */
    alignas(POOL_CACHE_LINE) pool_sleepq done_q;   /* the caller asleep waiting for completion */
};

/* A leader's copy of job, the pool's, into its group g (pool_split.c: a rows job's runner and descriptor are the
 * group's own). The job comes by value: the caller has it in registers, where reading back p->job just written
 * would be one 16-byte load of two 8-byte stores, which the store buffer cannot forward. */
void pool_split_pass(const struct pool *p, pool_group *g, pool_job job);
/* The runners of a rows job, fn(&p->rows_job, id, n): the static split (weighted when p->weighted) and the
 * dynamic claims of chunk rows (pool_split.c). */
void pool_split_static(void *arg, int id, int n);
void pool_split_dynamic(void *arg, int id, int n);
/* And the stealing split's claims (pool_rows_steal). */
void pool_split_steal(void *arg, int id, int n);
/* Whether job is a rows job (pool_rows'), whose runner and descriptor a group gets its own copies of. */
static inline bool pool_job_is_rows(pool_job job)
{
    return job.fn == pool_split_static || job.fn == pool_split_dynamic || job.fn == pool_split_steal;
}
/* One slice r0..r1 of job j on thread id, through p's observer when there is one. */
void pool_split_slice(const struct pool *p, int id, const pool_rows_job *j, size_t r0, size_t r1);

_Static_assert(offsetof(struct pool, gen) % POOL_CACHE_LINE == 0, "gen starts a cache line");
_Static_assert(offsetof(struct pool, rows_job) + sizeof(pool_rows_job) <= offsetof(struct pool, gen) + POOL_CACHE_LINE,
               "the job descriptor fits on gen's line");
_Static_assert(offsetof(struct pool, done_target) / POOL_CACHE_LINE >
                   (offsetof(struct pool, cum) + sizeof(double *) - 1) / POOL_CACHE_LINE,
               "done_target, written by the caller every job, is not on a line the workers read (n to cum)");
_Static_assert(offsetof(struct pool, group0_target) < offsetof(struct pool, gen),
               "group0_target beside done_target, off gen's line");
_Static_assert(offsetof(struct pool, done_near) / POOL_CACHE_LINE == offsetof(struct pool, gen) / POOL_CACHE_LINE,
               "done_near on gen's line");
_Static_assert(offsetof(struct pool, done_far) % POOL_CACHE_LINE == 0, "done_far on its own cache line");
_Static_assert(offsetof(struct pool, next_row) % POOL_CACHE_LINE == 0, "next_row on its own cache line");
_Static_assert(offsetof(struct pool, work_q) % POOL_CACHE_LINE == 0, "work_q on its own cache line");
_Static_assert(offsetof(struct pool, done_q) % POOL_CACHE_LINE == 0, "done_q on its own cache line");

#endif
