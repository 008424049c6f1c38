/* pool_async.c — the asynchronous pair: one helper thread, one job in flight (see pool.h).
 *
 * A persistent helper waits on a generation counter exactly like a pool worker: pool_async_submit writes the job
 * descriptor (plain fields), then bumps the generation; the helper runs the job and bumps a completion
 * counter that pool_async_wait waits for. Both waits are pool_word_wait (pool_handshake.c): spin for the policy's
 * budget, then sleep with the handshake that never loses a wake-up. Spawn creates a thread per job.
 */
#include "pool.h"
#include "pool_handshake.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

struct pool_async {
    /* The first line holds what a waking helper reads: gen, the job descriptor it publishes and the helper's own
     * idle budget, so seeing the new generation brings the job with it (pool.c's layout). With the descriptor on
     * a line apart, the helper fetched two lines from the caller's core in a row per job.
     * The descriptor is written by the caller before the generation's bump, read by the helper after its
     * acquire of it, so plain fields suffice (for spawn, pthread_create orders them); they are other objects than
     * gen, so the helper's spin loads of gen do not race with these stores. */
    alignas(POOL_CACHE_LINE) atomic_uint gen; /* bumped once per job: the publish */
    bool stop;
    pool_task_fn fn;
    void *ctx;
    uint64_t worker_budget_ns; /* read-only after pool_async_create: how long the idle helper spins before sleeping */

    /* Contended words, each on its own cache line: the helper writes done and the caller reads it; the sleep
     * queues are touched by both only around a sleep. */
    alignas(POOL_CACHE_LINE) atomic_uint done;   /* bumped once per finished job */
    alignas(POOL_CACHE_LINE) pool_sleepq work_q; /* the helper asleep waiting for a new generation */
    alignas(POOL_CACHE_LINE) pool_sleepq done_q; /* the caller asleep waiting for completion */

    /* The caller's side, on a line the helper never reads: read-only after pool_async_create, and the driving
     * thread's own state (written every job: on gen's line it would pull that line back from a spinning helper
     * between jobs). */
    alignas(POOL_CACHE_LINE) int cpu;
    pool_policy policy;
    uint64_t caller_budget_ns; /* how long pool_async_wait spins before sleeping */
    pthread_t tid;             /* the persistent helper, or the spawned thread of the pending job */
    bool pending;              /* a job was submitted and not yet waited for */
    unsigned submitted;        /* jobs submitted so far (wraps): pool_async_wait waits for done to reach it */
};

_Static_assert(offsetof(struct pool_async, gen) == 0, "gen starts the first cache line");
_Static_assert(offsetof(struct pool_async, worker_budget_ns) + sizeof(uint64_t) <= POOL_CACHE_LINE,
               "the job descriptor and the helper's budget fit on gen's line");
_Static_assert(offsetof(struct pool_async, done) % POOL_CACHE_LINE == 0, "done on its own cache line");
_Static_assert(offsetof(struct pool_async, work_q) % POOL_CACHE_LINE == 0, "work_q on its own cache line");
_Static_assert(offsetof(struct pool_async, done_q) % POOL_CACHE_LINE == 0, "done_q on its own cache line");
_Static_assert(offsetof(struct pool_async, cpu) % POOL_CACHE_LINE == 0 &&
                   offsetof(struct pool_async, submitted) < offsetof(struct pool_async, cpu) + POOL_CACHE_LINE,
               "the caller's side on a line of its own");

pool_async_config pool_async_config_default(int cpu)
{
    return (pool_async_config){
        .cpu = cpu,
        .policy = POOL_SPIN,
        .spin_us = POOL_DEFAULT_SPIN_US,
        .idle_us = POOL_DEFAULT_IDLE_US,
    };
}

int pool_async_cpu(const pool_async *a) { return a->cpu; }
pool_policy pool_async_policy(const pool_async *a) { return a->policy; }

/* ---------------------------------------------------------------- the helper */

static void *pool_async_main(void *arg)
{
    struct pool_async *a = arg;
    unsigned seen = 0;
    for (;;) {
        seen = pool_word_wait(&a->gen, seen, false, a->worker_budget_ns, POOL_SPINS_BEFORE_YIELD, &a->work_q);
        if (a->stop)
            break;
        a->fn(a->ctx);
        /* seq_cst RMW: releases the job's writes to pool_async_wait's acquire of done, and is the publisher half
         * of the sleep handshake when the caller sleeps. */
        atomic_fetch_add_explicit(&a->done, 1, memory_order_seq_cst);
        pool_word_wake(&a->done_q);
    }
    return NULL;
}

static void *pool_async_spawned(void *arg)
{
    struct pool_async *a = arg;
    a->fn(a->ctx);
    return NULL;
}

static int pool_async_start(struct pool_async *a, void *(*start)(void *))
{
    pthread_attr_t attr;
    int rc = pool_attr_pinned(&attr, a->cpu);
    if (rc == 0)
        rc = pthread_create(&a->tid, &attr, start, a);
    pthread_attr_destroy(&attr);
    return rc;
}

/* ---------------------------------------------------------------- life cycle */

/* The one cpu the calling thread may run on, or -1 when it may run on several (or the mask is unknown). */
static int pool_async_caller_only_cpu(void)
{
    cpu_set_t mine;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0 || CPU_COUNT(&mine) != 1)
        return -1;
    for (int c = 0;; c++)
        if (CPU_ISSET(c, &mine))
            return c;
}

/* A pinned helper's cpu must exist and must not be the caller's only cpu (pthread_create refuses one
 * outside the process's set). */
static bool pool_async_cpu_valid(int cpu)
{
    if (cpu == POOL_ASYNC_INHERIT)
        return true;
    long conf = sysconf(_SC_NPROCESSORS_CONF);
    if (cpu < 0 || cpu >= CPU_SETSIZE || (conf > 0 && cpu >= conf))
        return false;
    return cpu != pool_async_caller_only_cpu();
}

/* What pool_async_create made before its helper started: freed by its failure and by pool_async_destroy. */
static void pool_async_free(struct pool_async *a)
{
    pool_sleepq_destroy(&a->work_q);
    pool_sleepq_destroy(&a->done_q);
    free(a);
}

void pool_async_destroy(pool_async *a)
{
    if (!a)
        return;
    pool_async_wait(a);
    if (a->policy != POOL_SPAWN)
        pool_stop_threads(&a->stop, &a->gen, &a->work_q, &a->tid, 1);
    pool_async_free(a);
}

pool_async *pool_async_create(const pool_async_config *cfg)
{
    if (!cfg || (unsigned)cfg->policy >= POOL_POLICY_COUNT || !pool_async_cpu_valid(cfg->cpu))
        return pool_fail(EINVAL);
    struct pool_async *a = pool_alloc_lines(sizeof *a);
    if (!a)
        return NULL;
    pool_sleepq_init(&a->work_q); /* first: pool_async_free destroys them */
    pool_sleepq_init(&a->done_q);
    a->cpu = cfg->cpu;
    a->policy = cfg->policy;
    pool_policy_budgets(cfg->policy, cfg->spin_us, cfg->idle_us, &a->worker_budget_ns, &a->caller_budget_ns);
    if (a->cpu == POOL_ASYNC_INHERIT && pool_async_caller_only_cpu() >= 0) {
        /* The helper will share the caller's only cpu: a spinning wait there only delays the one thread
         * that can end it (until the spin yields), so both sides sleep at once instead. */
        a->worker_budget_ns = a->caller_budget_ns = 0;
    }
    int rc = 0;
    if (a->policy != POOL_SPAWN) {
        rc = pool_async_start(a, pool_async_main);
    } else if (a->cpu >= 0) {
        /* Spawn creates its threads later: try one now, so that a cpu this process may not use fails here
         * and not at the first pool_async_submit. */
        rc = pool_cpu_usable(a->cpu);
    }
    if (rc != 0) {
        pool_async_free(a);
        return pool_fail(rc);
    }
    return a;
}

/* ---------------------------------------------------------------- jobs */

int pool_async_submit(pool_async *a, pool_task_fn fn, void *ctx)
{
    if (a->pending) {
        errno = EBUSY;
        return -1;
    }
    a->fn = fn;
    a->ctx = ctx;
    if (a->policy == POOL_SPAWN) {
        int rc = pool_async_start(a, pool_async_spawned); /* pthread_create orders the descriptor */
        if (rc != 0) {
            errno = rc;
            return -1;
        }
    } else {
        a->submitted++;
        pool_word_publish(&a->gen, &a->work_q); /* releases the job descriptor to the helper */
    }
    a->pending = true;
    return 0;
}

void pool_async_wait(pool_async *a)
{
    if (!a->pending)
        return;
    if (a->policy == POOL_SPAWN)
        pthread_join(a->tid, NULL); /* join orders the job's writes before our reads */
    else
        pool_word_wait(&a->done, a->submitted, true, a->caller_budget_ns, POOL_SPINS_BEFORE_YIELD, &a->done_q);
    a->pending = false;
}
