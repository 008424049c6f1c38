/* The asynchronous pair's contract: a submitted job runs exactly once, on the helper, and pool_async_wait returns
 * only after it ended; one job in flight; placement (pinned elsewhere, inherited, refused on the caller's
 * only cpu), seen from inside the job. */
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "pool.h"

typedef struct once_ctx {
    atomic_int runs;
    atomic_bool ended; /* set as the job's last act */
    long sleep_us;     /* how long the job takes */
} once_ctx;

static void once_job(void *arg)
{
    once_ctx *c = arg;
    atomic_fetch_add(&c->runs, 1);
    if (c->sleep_us > 0) {
        struct timespec ts = { 0, c->sleep_us * 1000 };
        nanosleep(&ts, NULL);
    }
    atomic_store(&c->ended, true);
}

/* The cpus the calling thread may run on, and one of them that is not `not` (-1 when there is none). */
static int other_cpu(int not)
{
    cpu_set_t set;
    cr_assert_eq(sched_getaffinity(0, sizeof set, &set), 0);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set) && c != not)
            return c;
    return -1;
}

static void pin_self(int cpu, cpu_set_t *saved)
{
    cr_assert_eq(sched_getaffinity(0, sizeof *saved, saved), 0);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    cr_assert_eq(sched_setaffinity(0, sizeof one, &one), 0, "pin to cpu %d", cpu);
}

static pool_async *make_async(int cpu, pool_policy policy)
{
    pool_async_config cfg = pool_async_config_default(cpu);
    cfg.policy = policy;
    cfg.spin_us = 20;
    cfg.idle_us = 200; /* short: the helper also goes through its sleep path between jobs */
    pool_async *a = pool_async_create(&cfg);
    cr_assert_not_null(a, "pool_async_create(cpu %d, %s): errno %d", cpu, pool_policy_name(policy), errno);
    return a;
}

Test(async, job_runs_once_and_wait_returns_after_it_ended)
{
    /* a pinned helper needs a cpu that is not the caller's only one */
    int cpus[] = { POOL_ASYNC_INHERIT, other_cpu(-1) };
    size_t ncpus = other_cpu(cpus[1]) >= 0 ? 2 : 1;
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        for (size_t k = 0; k < ncpus; k++) {
            pool_async *a = make_async(cpus[k], (pool_policy)pol);
            for (int it = 0; it < 200; it++) {
                once_ctx c = { .sleep_us = it % 50 == 0 ? 2000 : it % 3 };
                cr_assert_eq(pool_async_submit(a, once_job, &c), 0);
                pool_async_wait(a);
                cr_assert(atomic_load(&c.ended), "%s cpu %d job %d: pool_async_wait returned before the job ended",
                          pool_policy_name(pol), cpus[k], it);
                cr_assert_eq(atomic_load(&c.runs), 1, "%s cpu %d job %d ran %d times", pool_policy_name(pol),
                             cpus[k], it, atomic_load(&c.runs));
                pool_async_wait(a); /* nothing pending: returns at once */
                if (it % 50 == 25)
                    usleep(1000); /* the idle helper falls asleep, and must wake for the next job */
            }
            pool_async_destroy(a);
        }
    }
}

Test(async, submit_while_pending_is_ebusy_and_runs_nothing)
{
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        pool_async *a = make_async(POOL_ASYNC_INHERIT, (pool_policy)pol);
        once_ctx first = { .sleep_us = 20000 }, second = { 0 };
        cr_assert_eq(pool_async_submit(a, once_job, &first), 0);
        errno = 0;
        cr_assert_eq(pool_async_submit(a, once_job, &second), -1);
        cr_assert_eq(errno, EBUSY);
        pool_async_wait(a);
        cr_assert_eq(atomic_load(&first.runs), 1);
        cr_assert_eq(atomic_load(&second.runs), 0, "%s: a refused job never runs", pool_policy_name(pol));
        pool_async_destroy(a);
    }
}

Test(async, destroy_waits_for_a_pending_job)
{
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        pool_async *a = make_async(POOL_ASYNC_INHERIT, (pool_policy)pol);
        once_ctx c = { .sleep_us = 10000 };
        cr_assert_eq(pool_async_submit(a, once_job, &c), 0);
        pool_async_destroy(a);
        cr_assert(atomic_load(&c.ended), "%s", pool_policy_name(pol));
        cr_assert_eq(atomic_load(&c.runs), 1);
    }
}

/* Where the job ran, seen from inside it. */
typedef struct where_ctx {
    int cpu;
    cpu_set_t mask;
    int mask_ok;
} where_ctx;

static void where_job(void *arg)
{
    where_ctx *w = arg;
    w->cpu = sched_getcpu();
    w->mask_ok = sched_getaffinity(0, sizeof w->mask, &w->mask) == 0;
}

Test(async, inherit_runs_on_the_callers_one_cpu)
{
    int cpu = other_cpu(-1);
    cpu_set_t saved;
    pin_self(cpu, &saved);
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        /* created after the caller pinned itself: the helper inherits the one-cpu mask */
        pool_async *a = make_async(POOL_ASYNC_INHERIT, (pool_policy)pol);
        for (int it = 0; it < 20; it++) {
            where_ctx w = { .cpu = -1 };
            cr_assert_eq(pool_async_submit(a, where_job, &w), 0);
            pool_async_wait(a);
            cr_assert(w.mask_ok);
            cr_assert_eq(CPU_COUNT(&w.mask), 1, "%s: the helper's mask is the caller's one cpu", pool_policy_name(pol));
            cr_assert(CPU_ISSET(cpu, &w.mask));
            cr_assert_eq(w.cpu, cpu, "%s: the job ran on cpu %d, the caller is pinned to %d", pool_policy_name(pol),
                         w.cpu, cpu);
        }
        pool_async_destroy(a);
    }
    sched_setaffinity(0, sizeof saved, &saved);
}

Test(async, pinned_runs_on_its_cpu_never_the_callers)
{
    int mine = other_cpu(-1), theirs = other_cpu(mine);
    if (theirs < 0)
        cr_skip_test("one cpu: no other cpu to pin the helper to");
    cpu_set_t saved;
    pin_self(mine, &saved);
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        pool_async *a = make_async(theirs, (pool_policy)pol);
        cr_assert_eq(pool_async_cpu(a), theirs);
        cr_assert_eq(pool_async_policy(a), (pool_policy)pol);
        for (int it = 0; it < 20; it++) {
            where_ctx w = { .cpu = -1 };
            cr_assert_eq(pool_async_submit(a, where_job, &w), 0);
            pool_async_wait(a);
            cr_assert(w.mask_ok);
            cr_assert_eq(CPU_COUNT(&w.mask), 1);
            cr_assert(CPU_ISSET(theirs, &w.mask));
            cr_assert_eq(w.cpu, theirs, "%s: the job ran on cpu %d", pool_policy_name(pol), w.cpu);
        }
        pool_async_destroy(a);
    }
    sched_setaffinity(0, sizeof saved, &saved);
}

Test(async, bad_configs_fail_cleanly)
{
    cr_assert_null(pool_async_create(NULL));
    cr_assert_eq(errno, EINVAL);
    int bad_cpus[] = { -2, CPU_SETSIZE, 1 << 20 };
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        for (size_t k = 0; k < sizeof bad_cpus / sizeof *bad_cpus; k++) {
            pool_async_config cfg = pool_async_config_default(bad_cpus[k]);
            cfg.policy = (pool_policy)pol;
            errno = 0;
            cr_assert_null(pool_async_create(&cfg), "cpu %d accepted", bad_cpus[k]);
            cr_assert_eq(errno, EINVAL);
        }
    }
    pool_async_config cfg = pool_async_config_default(POOL_ASYNC_INHERIT);
    cfg.policy = POOL_POLICY_COUNT;
    cr_assert_null(pool_async_create(&cfg));
    cr_assert_eq(errno, EINVAL);
    long conf = sysconf(_SC_NPROCESSORS_CONF);
    if (conf > 0 && conf < CPU_SETSIZE) {
        cfg = pool_async_config_default((int)conf); /* one past the last cpu */
        cr_assert_null(pool_async_create(&cfg));
        cr_assert_eq(errno, EINVAL);
    }
}

Test(async, pinning_to_the_callers_only_cpu_is_refused)
{
    int cpu = other_cpu(-1);
    cpu_set_t saved;
    pin_self(cpu, &saved);
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        pool_async_config cfg = pool_async_config_default(cpu);
        cfg.policy = (pool_policy)pol;
        errno = 0;
        cr_assert_null(pool_async_create(&cfg), "%s: a helper on the caller's only cpu", pool_policy_name(pol));
        cr_assert_eq(errno, EINVAL);
    }
    sched_setaffinity(0, sizeof saved, &saved);
}

Test(async, create_destroy_100_times)
{
    for (int i = 0; i < 100; i++)
        pool_async_destroy(make_async(POOL_ASYNC_INHERIT, (pool_policy)(i % POOL_POLICY_COUNT)));
    pool_async_destroy(NULL);
}
