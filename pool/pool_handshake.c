/* pool_handshake.c — the wait/wake handshake on one word (pool_word_wait, pool_word_wake), the policies' spin
 * budgets, pinned thread start and stop, and the cache-line allocation (see pool_handshake.h). */
#include "pool_handshake.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline void pool_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

static uint64_t pool_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void pool_sleepq_init(pool_sleepq *q)
{
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    atomic_init(&q->sleepers, 0);
}

void pool_sleepq_destroy(pool_sleepq *q)
{
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
}

/* True once *word reached the state the waiter wants: == value when want_equal, != value otherwise. */
static inline bool pool_word_ready(unsigned v, unsigned value, bool want_equal)
{
    return (v == value) == want_equal;
}

unsigned pool_word_wait(atomic_uint *word, unsigned value, bool want_equal, uint64_t budget_ns, unsigned yield_after,
                        pool_sleepq *q)
{
    /* acquire: pairs with the publisher's seq_cst RMW on word, so whatever the publisher wrote before
     * (the job descriptor, or a worker's results) is visible once we see the new value. */
    unsigned v = atomic_load_explicit(word, memory_order_acquire);
    if (pool_word_ready(v, value, want_equal))
        return v;
    if (budget_ns > 0) {
        uint64_t t0 = budget_ns == POOL_FOREVER_NS ? 0 : pool_now_ns();
        /* Oversubscribed (a short yield_after): the thread waited for may need this very cpu, so no hot polls, and
         * no yield while a budget ends the spin: a yield may give the cpu away for a whole scheduler slice (EEVDF
         * moves the yielder's deadline back), far longer than the few µs it spins; it sleeps when they are over. */
        bool oversubscribed = yield_after <= POOL_SPINS_OVERSUBSCRIBED;
        unsigned hot_polls = oversubscribed ? 0 : POOL_HOT_POLLS;
        bool may_yield = !oversubscribed || budget_ns == POOL_FOREVER_NS;
        unsigned clock_every = oversubscribed ? POOL_SPINS_OVERSUBSCRIBED : POOL_CLOCK_EVERY;
        for (unsigned hot = 0; hot < hot_polls; hot++) {
            v = atomic_load_explicit(word, memory_order_acquire); /* acquire: as above */
            if (pool_word_ready(v, value, want_equal))
                return v;
        }
        for (unsigned spins = 1;; spins++) {
            pool_cpu_relax();
            v = atomic_load_explicit(word, memory_order_acquire); /* acquire: as above */
            if (pool_word_ready(v, value, want_equal))
                return v;
            bool yielding = may_yield && spins >= yield_after;
            if (yielding)
                sched_yield();
            if (budget_ns != POOL_FOREVER_NS && (yielding || spins % clock_every == 0) &&
                pool_now_ns() - t0 >= budget_ns)
                break;
        }
    }
    pthread_mutex_lock(&q->mu);
    /* seq_cst announce then seq_cst re-check: with the publisher's seq_cst RMW then seq_cst load of
     * sleepers (pool_word_wake), one total order means either we see the new value here, or the publisher
     * sees sleepers > 0 and broadcasts under the mutex we hold until pthread_cond_wait releases it. */
    atomic_fetch_add_explicit(&q->sleepers, 1, memory_order_seq_cst);
    while (!pool_word_ready(v = atomic_load_explicit(word, memory_order_seq_cst), value, want_equal))
        pthread_cond_wait(&q->cv, &q->mu);
    /* relaxed: the count only decides whether a publisher takes the mutex; a stale non-zero costs one
     * spurious broadcast. */
    atomic_fetch_sub_explicit(&q->sleepers, 1, memory_order_relaxed);
    pthread_mutex_unlock(&q->mu);
    return v;
}

void pool_word_wake(pool_sleepq *q)
{
    /* seq_cst: the other half of the handshake in pool_word_wait (a store-load pair needs seq_cst on both
     * sides; an acquire load could be ordered before our RMW's store and miss an announcing sleeper). */
    if (atomic_load_explicit(&q->sleepers, memory_order_seq_cst) > 0) {
        pthread_mutex_lock(&q->mu);
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
    }
}

static uint64_t pool_us_to_ns(unsigned us)
{
    return us == POOL_SPIN_FOREVER ? POOL_FOREVER_NS : (uint64_t)us * 1000u;
}

void pool_policy_budgets(pool_policy policy, unsigned spin_us, unsigned idle_us, uint64_t *worker_ns,
                         uint64_t *caller_ns)
{
    switch (policy) {
    case POOL_SPIN:
        *worker_ns = pool_us_to_ns(idle_us ? idle_us : POOL_DEFAULT_IDLE_US);
        *caller_ns = POOL_FOREVER_NS;
        break;
    case POOL_HYBRID:
        *worker_ns = *caller_ns = pool_us_to_ns(spin_us);
        break;
    case POOL_CONDVAR:
    case POOL_SPAWN: /* spawn never waits on the words */
    case POOL_POLICY_COUNT:
        *worker_ns = *caller_ns = 0;
        break;
    } /* no default: a policy added to the enum and left out here does not compile (-Wswitch) */
}

void pool_budgets_cap(uint64_t *worker_ns, uint64_t *caller_ns, unsigned us)
{
    uint64_t cap = (uint64_t)us * 1000u;
    *worker_ns = *worker_ns < cap ? *worker_ns : cap;
    *caller_ns = *caller_ns < cap ? *caller_ns : cap;
}

void pool_stop_threads(bool *stop, atomic_uint *gen, pool_sleepq *q, const pthread_t *tids, int n)
{
    *stop = true;
    pool_word_publish(gen, q); /* releases stop to the threads */
    for (int i = 0; i < n; i++)
        pthread_join(tids[i], NULL);
}

void *pool_alloc_lines(size_t size)
{
    size = (size + POOL_CACHE_LINE - 1) / POOL_CACHE_LINE * POOL_CACHE_LINE;
    void *m = aligned_alloc(POOL_CACHE_LINE, size);
    if (m)
        memset(m, 0, size);
    return m;
}

void *pool_fail(int err)
{
    errno = err;
    return NULL;
}

int pool_attr_pinned(pthread_attr_t *attr, int cpu)
{
    int rc = pthread_attr_init(attr);
    if (rc != 0 || cpu < 0)
        return rc;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_attr_setaffinity_np(attr, sizeof set, &set);
}

/* Starts and ends at once: pool_cpu_usable's probe. */
static void *pool_noop(void *arg)
{
    return arg;
}

int pool_cpu_usable(int cpu)
{
    pthread_attr_t attr;
    pthread_t tid;
    int rc = pool_attr_pinned(&attr, cpu);
    if (rc == 0)
        rc = pthread_create(&tid, &attr, pool_noop, NULL);
    pthread_attr_destroy(&attr);
    if (rc == 0)
        pthread_join(tid, NULL);
    return rc;
}
