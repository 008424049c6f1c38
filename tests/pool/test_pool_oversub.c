/* A pool whose threads outnumber their cpus (two pinned to one cpu): its waiters sleep after a few µs, whatever the
 * spin and hybrid budgets say, since the thread they wait for most likely needs their cpu. Seen failing before:
 * the idle worker burned its whole second-long idle budget yielding, and the caller waiting for a sleeping worker
 * burned the wait. */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <unistd.h>

#include "pool.h"
#include "test_files.h"

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec * 1e-6;
}

/* Worker 1 sleeps 200 ms in the job; the caller waits for it. */
static void worker_naps(void *arg, int id, int n)
{
    (void)arg;
    (void)n;
    if (id == 1)
        usleep(200 * 1000);
}

static pool *two_on_one_cpu(pool_policy pol, int *cpu)
{
    int c[1];
    tf_need_cpus(c, 1, "a cpu to pin to");
    cpu[0] = cpu[1] = c[0];
    pool_config cfg = pool_config_default();
    cfg.threads = 2;
    cfg.policy = pol;
    cfg.cpus = cpu;
    cfg.spin_us = POOL_SPIN_FOREVER; /* hybrid: a budget that would never end */
    cfg.idle_us = 1000000;           /* spin: a second of idle spin */
    pool *p = pool_create_bound(&cfg);
    cr_assert_not_null(p);
    return p;
}

/* Every policy whose waiters spin (pool_policy_spins). */
Test(pool_oversub, waiters_sleep_though_the_budgets_say_spin, .timeout = 30)
{
    for (int i = 0; i < POOL_POLICY_COUNT; i++) {
        pool_policy pol = (pool_policy)i;
        if (!pool_policy_spins(pol))
            continue;
        int cpu[2];
        pool *p = two_on_one_cpu(pol, cpu);
        double c0 = cpu_seconds();
        pool_run(p, worker_naps, NULL); /* the caller waits 200 ms for a worker that sleeps */
        double waited = cpu_seconds() - c0;
        cr_expect_lt(waited, 0.02, "%s: the caller burned %.3f s of cpu waiting 0.2 s for a sleeping worker",
                     pool_policy_name(pol), waited);
        usleep(20 * 1000);
        c0 = cpu_seconds();
        usleep(300 * 1000); /* idle: the worker's budget would spin through it */
        double idle = cpu_seconds() - c0;
        cr_expect_lt(idle, 0.02, "%s: an idle worker burned %.3f s of cpu in 0.3 s", pool_policy_name(pol), idle);
        pool_destroy(p);
    }
}
