/* ThreadSanitizer harness for the asynchronous pair: a plain main, because Criterion aborts under TSan.
 * The caller writes the job's input with plain stores before pool_async_submit and, while the job runs, does its
 * own work on other data; the job reads that input and writes its output with plain stores; the caller
 * reads the output after pool_async_wait. A missing happens-before (descriptor to helper, helper's writes to the
 * caller after pool_async_wait) is a data race TSan reports; a job that ran twice, never, or not before pool_async_wait
 * returned gives a wrong count. TSAN_OPTIONS=halt_on_error=1 makes a race fatal. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "pool.h"
#include "tsan_tally.h"

#define SLOTS 64

typedef struct job {
    int input;        /* written by the caller before submit */
    int out[SLOTS];   /* written by the job, read by the caller after wait */
    int runs;         /* plain: incremented by the job only, read after wait */
} job;

static void fill(void *arg)
{
    job *j = arg;
    for (int i = 0; i < SLOTS; i++)
        j->out[i] = j->input + i;
    j->runs++;
}

static int other_cpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            return c; /* the caller is not pinned: any cpu is not its only one */
    return -1;
}

static int check(pool_policy pol, int cpu, int iters)
{
    pool_async_config cfg = pool_async_config_default(cpu);
    cfg.policy = pol;
    cfg.spin_us = 20;
    cfg.idle_us = 200; /* short, so the helper also goes through the sleep path */
    pool_async *a = pool_async_create(&cfg);
    if (!a) {
        fprintf(stderr, "tsan_async: pool_async_create %s cpu %d failed\n", pool_policy_name(pol), cpu);
        return 1;
    }
    job *j = calloc(1, sizeof *j);
    int own[SLOTS] = { 0 };
    int failed = 0;
    for (int it = 0; it < iters && !failed; it++) {
        j->input = it * 1000; /* plain write before the publish: the descriptor handoff */
        if (pool_async_submit(a, fill, j) != 0) {
            failed = 1;
            break;
        }
        for (int i = 0; i < SLOTS; i++) /* the caller's own work meanwhile, on its own data */
            own[i] += i;
        pool_async_wait(a);
        for (int i = 0; i < SLOTS; i++)
            failed |= j->out[i] != it * 1000 + i;
        failed |= j->runs != it + 1;
        if (it % 250 == 249)
            tsan_sleep_us(1000); /* idle 1 ms: the helper falls asleep, then must wake */
    }
    failed |= own[SLOTS - 1] == -1; /* keeps the caller's work alive */
    pool_async_destroy(a);
    free(j);
    return failed;
}

int main(void)
{
    tsan_tally tally = { 0 };
    int cpus[] = { POOL_ASYNC_INHERIT, other_cpu() };
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        for (int k = 0; k < 2; k++) {
            if (k == 1 && cpus[1] < 0)
                continue;
            tsan_count(&tally, check((pool_policy)pol, cpus[k], pol == POOL_SPAWN ? 300 : 3000),
                       "tsan_async: %s cpu %d", pool_policy_name((pool_policy)pol), cpus[k]);
        }
    }
    /* A caller pinned to one cpu: the inheriting helper shares it and both sides sleep at once. */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    if (sched_setaffinity(0, sizeof one, &one) == 0)
        tsan_count(&tally, check(POOL_SPIN, POOL_ASYNC_INHERIT, 3000), "tsan_async: %s cpu %d, caller on one cpu",
                   pool_policy_name(POOL_SPIN), POOL_ASYNC_INHERIT);
    return tsan_report("tsan_async", &tally);
}
