/* pool.c — the persistent thread pool: one wait mechanism, four policies.
 *
 * A job is published by writing the job descriptor (plain fields), then bumping one generation counter.
 * Workers wait for the generation to change, run their share, and count themselves done on one completion
 * counter the caller waits on. Spin, hybrid and condvar differ only in how long a waiter spins before it
 * sleeps on a condition variable (pool_policy_budgets): condvar 0, hybrid spin_us, spin the idle budget for
 * workers and forever for the caller. Spawn creates and joins threads for every job. The wait/wake handshake
 * lives in pool_handshake.c (pool_handshake.h), shared with the asynchronous worker (pool_async.c).
 */
#include "pool.h"
#include "pool_handshake.h"
#include "pool_struct.h"
#include "pool_tree.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define POOL_NAME_ENTRY(policy, name, words) [policy] = name,
static const char *const pool_policy_names[POOL_POLICY_COUNT] = { POOL_POLICY_NAMES(POOL_NAME_ENTRY) };
#undef POOL_NAME_ENTRY

const char *pool_policy_name(pool_policy policy)
{
    return (unsigned)policy < POOL_POLICY_COUNT ? pool_policy_names[policy] : NULL;
}

int pool_policy_parse(const char *name, pool_policy *out)
{
    for (int i = 0; i < POOL_POLICY_COUNT; i++) {
        if (name && strcmp(name, pool_policy_names[i]) == 0) {
            *out = (pool_policy)i;
            return 0;
        }
    }
    return -1;
}

bool pool_policy_spins(pool_policy policy)
{
    uint64_t worker_ns = 0, caller_ns = 0;
    if ((unsigned)policy >= POOL_POLICY_COUNT)
        return false;
    pool_policy_budgets(policy, POOL_DEFAULT_SPIN_US, POOL_DEFAULT_IDLE_US, &worker_ns, &caller_ns);
    return worker_ns > 0;
}

/* ---------------------------------------------------------------- workers */

/* A worker at its level (flat: every worker at the root; a tree: members at their group, leaders at the root
 * and publishing to their group, pool_tree.c). */
static void *pool_worker_main(void *arg)
{
    pool_worker *w = arg;
    struct pool *p = w->p;
    pool_level up, down;
    pool_tree_levels(p, w->id, &up, &down);
    unsigned seen = 0, down_target = 0;
    for (;;) {
        seen = pool_word_wait(up.gen, seen, false, p->worker_budget_ns, p->yield_after, up.work_q);
        if (down.waiters) {
            /* A leader passes the job (or the stop) on before its own share: its group's copy of the descriptor,
             * then pool_word_publish's seq_cst RMW, which releases it and what the acquire of up.gen just made
             * visible (stop), to the members' acquire of down.gen. */
            if (!p->stop)
                pool_split_pass(p, down.group, *up.job);
            down_target += down.waiters;
            pool_word_publish(down.gen, down.work_q);
        }
        if (p->stop)
            break;
        up.job->fn(up.job->ctx, w->id, p->n);
        if (down.waiters) /* acquire (pool_word_wait): the members' writes, released by their RMWs on done */
            pool_word_wait(down.done, down_target, true, p->caller_budget_ns, p->yield_after, down.done_q);
        /* seq_cst RMW: releases this worker's writes in fn (a leader's: its group's too, acquired above) to the
         * acquire of done one level up, and is the publisher half of the sleep handshake when that side sleeps. */
        unsigned done = atomic_fetch_add_explicit(up.done, 1, memory_order_seq_cst) + 1;
        /* Generation g is the g-th job, so the last finisher of job g brings done to g * waiters (mod 2^32,
         * like the target its waiter keeps): only that one wakes a sleeping waiter. */
        if (done == seen * up.waiters)
            pool_word_wake(up.done_q);
    }
    return NULL;
}

static int pool_start_thread(struct pool *p, int id, void *(*start)(void *))
{
    pthread_attr_t attr;
    int rc = pool_attr_pinned(&attr, p->cpus ? p->cpus[id] : -1);
    if (rc == 0)
        rc = pthread_create(&p->tids[id], &attr, start, &p->workers[id]);
    pthread_attr_destroy(&attr);
    return rc;
}

/* ---------------------------------------------------------------- config */

static int pool_online_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* More threads than cpus to run them: two pinned to one cpu, or more threads than the process's cpus. */
static bool pool_oversubscribed(const pool_config *cfg)
{
    if (!cfg->cpus)
        return cfg->threads > pool_online_cpus();
    cpu_set_t seen;
    CPU_ZERO(&seen);
    for (int i = 0; i < cfg->threads; i++) {
        if (CPU_ISSET(cfg->cpus[i], &seen))
            return true;
        CPU_SET(cfg->cpus[i], &seen);
    }
    return false;
}

pool_config pool_config_default(void)
{
    pool_config cfg = {
        .threads = pool_online_cpus(),
        .policy = POOL_SPIN,
        .spin_us = POOL_DEFAULT_SPIN_US,
        .idle_us = POOL_DEFAULT_IDLE_US,
        .cpus = NULL,
    };
    if (cfg.threads > POOL_MAX_THREADS)
        cfg.threads = POOL_MAX_THREADS;
    return cfg;
}

static bool pool_config_valid(const pool_config *cfg)
{
    if (!cfg || cfg->threads < 1 || cfg->threads > POOL_MAX_THREADS || (unsigned)cfg->policy >= POOL_POLICY_COUNT ||
        !pool_tree_valid(cfg))
        return false;
    if (cfg->cpus) {
        long conf = sysconf(_SC_NPROCESSORS_CONF);
        for (int i = 0; i < cfg->threads; i++)
            if (cfg->cpus[i] < 0 || cfg->cpus[i] >= CPU_SETSIZE || (conf > 0 && cfg->cpus[i] >= conf))
                return false;
    }
    return true;
}

/* ---------------------------------------------------------------- life cycle */

static void pool_free(struct pool *p)
{
    pool_tree_free(p);
    pool_sleepq_destroy(&p->work_q);
    pool_sleepq_destroy(&p->done_q);
    free(p->cum);
    free(p->shares);
    free(p->cpus);
    free(p->tids);
    free(p->workers);
    free(p);
}

/* Stops and joins workers 1..started-1 (tids[0] is the caller's slot). */
static void pool_stop_workers(struct pool *p, int started)
{
    if (p->ngroups) {
        pool_tree_stop(p, started);
        return;
    }
    pool_stop_threads(&p->stop, &p->gen, &p->work_q, p->tids + 1, started - 1);
}

int pool_bind_caller(pool *p)
{
    if (!p->cpus)
        return 0;
    if (p->caller_bound) {
        errno = EBUSY;
        return -1;
    }
    if (sched_getaffinity(0, sizeof p->caller_saved_mask, &p->caller_saved_mask) != 0)
        return -1;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(p->cpus[0], &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return -1; /* EINVAL: the cpu went offline, or this thread's cpuset no longer holds it */
    p->caller_bound = true;
    return 0;
}

void pool_unbind_caller(pool *p)
{
    if (!p->caller_bound)
        return;
    sched_setaffinity(0, sizeof p->caller_saved_mask, &p->caller_saved_mask);
    p->caller_bound = false;
}

pool *pool_create_bound(const pool_config *cfg)
{
    pool *p = pool_create(cfg);
    if (p && pool_bind_caller(p) != 0) {
        int e = errno;
        pool_destroy(p);
        return pool_fail(e);
    }
    return p;
}

/* Also takes a half-built pool (pool_create's failures): it stops only the workers that started. */
void pool_destroy(pool *p)
{
    if (!p)
        return;
    pool_unbind_caller(p);
    if (p->started > 1)
        pool_stop_workers(p, p->started);
    pool_free(p);
}

/* The cpus no thread of the pool runs on yet: the caller's cpus[0] (taken only once it binds) and, for spawn,
 * every cpu (its threads start with each job). Each takes a thread now, so that a cpu this process may not
 * use fails pool_create, as a worker's does when it starts. 0 or the error of starting the thread. */
static int pool_check_cpus(const struct pool *p)
{
    int upto = p->policy == POOL_SPAWN ? p->n : 1;
    int rc = 0;
    for (int i = 0; p->cpus && rc == 0 && i < upto; i++)
        rc = pool_cpu_usable(p->cpus[i]);
    return rc;
}

pool *pool_create(const pool_config *cfg)
{
    if (!pool_config_valid(cfg))
        return pool_fail(EINVAL);
    struct pool *p = pool_alloc_lines(sizeof *p);
    if (!p)
        return NULL;
    p->n = cfg->threads;
    p->policy = cfg->policy;
    pool_policy_budgets(cfg->policy, cfg->spin_us, cfg->idle_us, &p->worker_budget_ns, &p->caller_budget_ns);
    bool over = pool_oversubscribed(cfg);
    p->yield_after = over ? POOL_SPINS_OVERSUBSCRIBED : POOL_SPINS_BEFORE_YIELD;
    if (over) /* the thread waited for likely needs this cpu: sleep soon (pool_tuning.h) */
        pool_budgets_cap(&p->worker_budget_ns, &p->caller_budget_ns, POOL_OVERSUBSCRIBED_SPIN_US);
    pool_sleepq_init(&p->work_q);
    pool_sleepq_init(&p->done_q);
    p->hook = cfg->hook;
    p->started = 1; /* the caller */
    p->tids = calloc((size_t)p->n, sizeof *p->tids);
    p->workers = calloc((size_t)p->n, sizeof *p->workers);
    p->cum = calloc((size_t)p->n + 1, sizeof *p->cum);
    p->shares = pool_alloc_lines((size_t)p->n * sizeof *p->shares);
    if (cfg->cpus && (p->cpus = malloc((size_t)p->n * sizeof *p->cpus)))
        memcpy(p->cpus, cfg->cpus, (size_t)p->n * sizeof *p->cpus);
    if (!p->tids || !p->workers || !p->cum || !p->shares || (cfg->cpus && !p->cpus)) {
        pool_destroy(p);
        return pool_fail(ENOMEM);
    }
    for (int i = 0; i < p->n; i++)
        p->workers[i] = (pool_worker){ .p = p, .id = i };
    int rc = pool_tree_init(p, cfg->group);
    p->done = p->root_waiters == 1 ? &p->done_near : &p->done_far; /* pool_struct.h says why */
    if (rc == 0)
        rc = pool_check_cpus(p);
    while (rc == 0 && p->policy != POOL_SPAWN && p->started < p->n)
        if ((rc = pool_start_thread(p, p->started, pool_worker_main)) == 0)
            p->started++;
    if (rc != 0) {
        pool_destroy(p);
        return pool_fail(rc);
    }
    return p;
}

int pool_threads(const pool *p) { return p->n; }
pool_policy pool_get_policy(const pool *p) { return p->policy; }

/* ---------------------------------------------------------------- jobs */

static void *pool_spawned_main(void *arg)
{
    pool_worker *w = arg;
    w->p->job.fn(w->p->job.ctx, w->id, w->p->n);
    return NULL;
}

/* pthread_create/join order the job descriptor and the results, so no atomics are needed here. */
static void pool_run_spawn(struct pool *p)
{
    bool started[POOL_MAX_THREADS] = { false };
    for (int i = 1; i < p->n; i++)
        started[i] = pool_start_thread(p, i, pool_spawned_main) == 0;
    p->job.fn(p->job.ctx, 0, p->n);
    for (int i = 1; i < p->n; i++) {
        if (started[i])
            pthread_join(p->tids[i], NULL);
        else
            p->job.fn(p->job.ctx, i, p->n); /* out of threads: still run the share, on the caller */
    }
}

/* The caller's side of a job of a tree-shaped pool: the other leaders first (their groups wait one hop longer),
 * then its own group, whose descriptor is written from the arguments just before its publish, as the flat pool
 * does. Here rather than in pool_tree.c: as a call that read the job back from p->job and published through
 * two more calls, a one-group tree dispatched slower than the flat pool on the same words (likely because the
 * member's next poll takes the line back between the descriptor's store and the publish). Targets are running
 * totals (pool_run's reason); each publish is pool_word_publish's seq_cst RMW, which releases the descriptor
 * written before it. */
static void pool_run_tree(struct pool *p, pool_job job)
{
    pool_group *g0 = &p->groups[0];
    unsigned members = (unsigned)g0->size - 1;
    if (p->root_waiters) {
        p->done_target += p->root_waiters;
        pool_word_publish(&p->gen, &p->work_q);
    }
    if (members) {
        if (pool_job_is_rows(job)) /* a plain job is copied here, without the call (see above) */
            pool_split_pass(p, g0, job);
        else
            g0->job = job;
        p->group0_target += members;
        pool_word_publish(&g0->gen, &g0->work_q);
    }
    job.fn(job.ctx, 0, p->n);
    /* Both waits end on an acquire load (pool_word_wait) pairing with the finishers' seq_cst RMWs: a member's
     * writes reach the caller directly, another group's through its leader's RMW at the root, which its own
     * acquire of the group's count came before. */
    if (members)
        pool_word_wait(g0->done, p->group0_target, true, p->caller_budget_ns, p->yield_after, &g0->done_q);
    if (p->root_waiters)
        pool_word_wait(p->done, p->done_target, true, p->caller_budget_ns, p->yield_after, &p->done_q);
}

void pool_run(pool *p, pool_fn fn, void *ctx)
{
    p->job = (pool_job){ .fn = fn, .ctx = ctx };
    if (p->n == 1) {
        fn(ctx, 0, 1);
        return;
    }
    if (p->policy == POOL_SPAWN) {
        pool_run_spawn(p);
        return;
    }
    if (p->ngroups) {
        pool_run_tree(p, (pool_job){ .fn = fn, .ctx = ctx });
        return;
    }
    /* done is never reset: resetting it would take its cache line back from the workers before every
     * publish. The caller waits for the running total instead (unsigned wrap-around keeps == exact). */
    p->done_target += (unsigned)p->n - 1;
    pool_word_publish(&p->gen, &p->work_q); /* releases the job descriptor to the workers */
    fn(ctx, 0, p->n);
    pool_word_wait(p->done, p->done_target, true, p->caller_budget_ns, p->yield_after, &p->done_q);
}
