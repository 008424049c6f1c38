/* pool.h — the shared persistent thread pool.
 *
 * A pool of N threads owns N-1 workers; the thread that calls pool_run is worker 0 and computes its own
 * share. Four wait policies sit behind one API (see pool_policy). Depends on pthreads only: pinning takes
 * plain OS cpu ids, so another program can use this pool without hwloc.
 *
 * Contract:
 *  - pool_run(p, fn, ctx): every worker id 0..n-1 calls fn(ctx, id, n) exactly once; returns when all did.
 *  - pool_rows(p, rows, chunk, fn, ctx): covers 0..rows with fn(ctx, r0, r1) calls, each row exactly once.
 *    chunk 0 = static contiguous split (pool_split), chunk k = dynamic claims of k rows.
 *  - A pool is driven by one thread at a time, and fn must not call back into the same pool.
 */
#ifndef POOL_H
#define POOL_H

#include <stddef.h>

typedef enum pool_policy {
    POOL_SPIN,    /* workers spin on one generation counter; sleep only after idle_us without a job */
    POOL_CONDVAR, /* workers and caller sleep on condition variables between jobs */
    POOL_HYBRID,  /* spin for spin_us, then sleep; 0 = condvar, POOL_SPIN_FOREVER = spin without idle sleep */
    POOL_SPAWN,   /* threads created and joined for every job: the baseline a pool exists to beat */
    POOL_POLICY_COUNT
} pool_policy;

#define POOL_MAX_THREADS 1024
#define POOL_SPIN_FOREVER 0xFFFFFFFFu
#define POOL_DEFAULT_IDLE_US 5000u /* spin policy: an idle worker sleeps after this long without a job */
#define POOL_DEFAULT_SPIN_US 50u   /* hybrid policy's default spin budget */

typedef struct pool_config {
    int threads;        /* 1..POOL_MAX_THREADS, the caller included */
    pool_policy policy;
    unsigned spin_us;   /* hybrid: spin budget before sleeping (POOL_SPIN_FOREVER = never sleep) */
    unsigned idle_us;   /* spin: idle budget before sleeping; 0 = POOL_DEFAULT_IDLE_US */
    const int *cpus;    /* optional: threads OS cpu ids; worker i on cpus[i], the caller on cpus[0] */
} pool_config;

typedef struct pool pool;
typedef void (*pool_fn)(void *ctx, int id, int n);
typedef void (*pool_rows_fn)(void *ctx, size_t r0, size_t r1);

/* A config with defaults: threads = cpus this process may run on, policy spin, hybrid budget 50 µs. */
pool_config pool_config_default(void);

/* Overrides cfg from POOLBENCH_THREADS (1..1024) and POOLBENCH_POLICY (spin|condvar|hybrid|spawn).
 * Unset variables leave cfg alone; a set but bad or empty value returns -1 with errno = EINVAL and writes
 * one line saying what was wrong and what is accepted into err (if errlen > 0). */
int pool_config_from_env(pool_config *cfg, char *err, size_t errlen);

/* NULL with errno = EINVAL on a bad config (threads out of range, unknown policy, a pin cpu that does not
 * exist or that this process may not run on), or the errno of a failed allocation or thread creation.
 * With cpus set, the calling thread is pinned to cpus[0] until pool_destroy restores its old mask. */
pool *pool_create(const pool_config *cfg);
void pool_destroy(pool *p);

void pool_run(pool *p, pool_fn fn, void *ctx);
void pool_rows(pool *p, size_t rows, size_t chunk, pool_rows_fn fn, void *ctx);

/* Static split of total items over n threads: thread id gets [*r0, *r1); the first total % n threads
 * take one more. */
void pool_split(size_t total, int id, int n, size_t *r0, size_t *r1);

int pool_threads(const pool *p);
pool_policy pool_get_policy(const pool *p);

/* "spin", "condvar", "hybrid", "spawn"; NULL for an unknown value. */
const char *pool_policy_name(pool_policy policy);
/* 0 and *out set on a known name, -1 otherwise. */
int pool_policy_parse(const char *name, pool_policy *out);

#endif
