/* pool_handshake.h — the wait/wake handshake and the thread helpers the pool's files share (pool_handshake.c);
 * not part of the API.
 *
 * The wait/wake handshake: a publisher changes one word with a seq_cst RMW, then calls pool_word_wake; a waiter
 * calls pool_word_wait, which spins (hot polls, then paused polls, then yields; oversubscribed: paused polls only)
 * for a budget and then sleeps on a pool_sleepq until the word is ready. The handshake (described at
 * pool_word_wait) never loses a wake-up. */
#ifndef POOL_HANDSHAKE_H
#define POOL_HANDSHAKE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pool_tuning.h"
#include "pool_types.h"

#define POOL_CACHE_LINE 64
#define POOL_FOREVER_NS UINT64_MAX

/* Sleepers waiting for one word to change. */
typedef struct pool_sleepq {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_uint sleepers; /* waiters between their announce and their wake-up */
} pool_sleepq;

void pool_sleepq_init(pool_sleepq *q);
void pool_sleepq_destroy(pool_sleepq *q);

/* The spin budgets (POOL_HOT_POLLS, POOL_SPINS_BEFORE_YIELD, POOL_SPINS_OVERSUBSCRIBED, POOL_CLOCK_EVERY) are in
 * pool_tuning.h, with every other tunable of the pool. */

/* Waits until *word == value (want_equal) or != value (!want_equal): spins (yielding after yield_after pauses, but
 * never with the oversubscribed POOL_SPINS_OVERSUBSCRIBED and a budget that ends) up to budget_ns (0 = sleep at
 * once, POOL_FOREVER_NS = never sleep), then sleeps on q. Returns
 * the value that made it ready. The load that sees it is an acquire: what the publisher wrote before its
 * RMW is visible on return. */
unsigned pool_word_wait(atomic_uint *word, unsigned value, bool want_equal, uint64_t budget_ns, unsigned yield_after,
                        pool_sleepq *q);

/* Called by a publisher right after its seq_cst RMW on the word q's sleepers wait on. */
void pool_word_wake(pool_sleepq *q);
/* The publish a generation word gets: one seq_cst increment (releasing what the caller wrote before it to the
 * waiters' acquire of the word, and the RMW half of the sleep handshake that pool_word_wake's seq_cst load
 * completes), then pool_word_wake(q). Inline: the descriptor's stores and this RMW go to the line the waiters
 * poll, and every instruction between them is time for a poll to take the line back (pool.c, pool_run_tree). */
static inline void pool_word_publish(atomic_uint *word, pool_sleepq *q)
{
    atomic_fetch_add_explicit(word, 1, memory_order_seq_cst);
    pool_word_wake(q);
}

/* The spin budgets of a policy: how long an idle worker spins before sleeping, and how long the caller
 * spins on completion. spin: idle_us (0 = POOL_DEFAULT_IDLE_US) and forever; hybrid: spin_us both;
 * condvar and spawn: 0. */
void pool_policy_budgets(pool_policy policy, unsigned spin_us, unsigned idle_us, uint64_t *worker_ns,
                         uint64_t *caller_ns);
/* Both budgets at most us microseconds. */
void pool_budgets_cap(uint64_t *worker_ns, uint64_t *caller_ns, unsigned us);

/* Tells the threads that wait (pool_word_wait) for *gen to change, sleeping on q, to stop: sets *stop and bumps
 * *gen, then joins tids[0..n-1]. Each thread reads stop after the acquire load of gen that woke it. */
void pool_stop_threads(bool *stop, atomic_uint *gen, pool_sleepq *q, const pthread_t *tids, int n);

/* size bytes, rounded up to whole cache lines, aligned to one and zeroed (a pool's or a helper's struct, whose
 * hot words sit on lines of their own); NULL when out of memory. */
void *pool_alloc_lines(size_t size);

/* A create function's failure: sets errno to err and returns the NULL it hands back. */
void *pool_fail(int err);

/* pthread_attr_init, plus affinity to the one cpu when cpu >= 0. 0 or the error number. */
int pool_attr_pinned(pthread_attr_t *attr, int cpu);

/* Starts and joins a thread pinned to cpu: 0, or the error of pthread_create (EINVAL for a cpu outside this
 * process's set). How a pool checks a cpu it does not start a thread on yet, without moving the caller. */
int pool_cpu_usable(int cpu);

#endif
