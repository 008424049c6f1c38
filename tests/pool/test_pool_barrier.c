/* Barriers inside a job (pool_barrier): every kind, on flat and tree-shaped pools of several shapes, holds
 * every thread until all arrived, round after round, and shows each thread every other's writes. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pool.h"
#include "test_files.h"

#define MAX_T 7
#define ROUNDS 60

typedef struct bar_ctx {
    pool_barrier *b;
    int n;
    int slot[MAX_T]; /* plain: slot[id] written by id between barriers, read by all after the next one */
    atomic_int bad;
} bar_ctx;

/* Each round: write our slot, barrier, check everyone's, barrier (so nobody overwrites a slot still read). */
static void bar_job(void *arg, int id, int n)
{
    bar_ctx *c = arg;
    for (int round = 1; round <= ROUNDS; round++) {
        c->slot[id] = round * 100 + id;
        pool_barrier_wait(c->b, id);
        for (int t = 0; t < n; t++)
            if (c->slot[t] != round * 100 + t)
                atomic_fetch_add(&c->bad, 1);
        pool_barrier_wait(c->b, id);
    }
}

typedef struct bar_shape {
    const char *name;
    int threads;
    const int *group; /* NULL: flat */
} bar_shape;

static const int g_uneven[] = { 0, 1, 1, 1, 2, 2 }, g_one[] = { 0, 0, 0 }, g_singles[] = { 0, 1, 2, 3, 4 },
                 g_pairs[] = { 3, 3, 1, 1, 0, 0, 2 };
static const bar_shape bar_shapes[] = {
    { "flat 1", 1, NULL }, { "flat 2", 2, NULL }, { "flat 3", 3, NULL }, { "flat 5", 5, NULL },
    { "tree 1+3+2", 6, g_uneven }, { "tree one group", 3, g_one }, { "tree groups of one", 5, g_singles },
    { "tree pairs and one", 7, g_pairs },
};

static void check_kind(pool_barrier_kind kind, const bar_shape *s, pool_policy pol)
{
    pool_config cfg = pool_config_default();
    cfg.threads = s->threads;
    cfg.policy = pol;
    cfg.group = s->group;
    pool *p = pool_create(&cfg);
    cr_assert_not_null(p, "%s: pool_create: errno %d", s->name, errno);
    bar_ctx c = { .n = s->threads };
    c.b = pool_barrier_create(p, kind);
    cr_assert_not_null(c.b, "%s: pool_barrier_create(%s)", s->name, pool_barrier_name(kind));
    for (int job = 0; job < 2; job++) /* a second job reuses the barrier's running totals */
        pool_run(p, bar_job, &c);
    cr_assert_eq(atomic_load(&c.bad), 0, "%s barrier, %s pool %s: %d stale slots seen", pool_barrier_name(kind),
                 pool_policy_name(pol), s->name, atomic_load(&c.bad));
    pool_barrier_destroy(c.b);
    pool_destroy(p);
}

Test(pool_barrier, every_kind_holds_every_thread_in_every_shape)
{
    for (int k = 0; k < POOL_BARRIER_KINDS; k++)
        for (size_t s = 0; s < sizeof bar_shapes / sizeof *bar_shapes; s++)
            check_kind((pool_barrier_kind)k, &bar_shapes[s], POOL_SPIN);
}

Test(pool_barrier, works_in_a_spawned_job_too)
{
    static const bar_shape s = { "flat 3", 3, NULL };
    for (int k = 0; k < POOL_BARRIER_KINDS; k++)
        check_kind((pool_barrier_kind)k, &s, POOL_SPAWN);
}

Test(pool_barrier, names_and_bad_kind)
{
    cr_assert_str_eq(pool_barrier_name(POOL_BARRIER_CENTRAL), "central");
    cr_assert_str_eq(pool_barrier_name(POOL_BARRIER_TREE), "tree");
    cr_assert_str_eq(pool_barrier_name(POOL_BARRIER_DISSEMINATION), "dissemination");
    cr_assert_null(pool_barrier_name(POOL_BARRIER_KINDS));
    pool_config cfg = pool_config_default();
    cfg.threads = 2;
    pool *p = pool_create(&cfg);
    errno = 0;
    cr_assert_null(pool_barrier_create(p, POOL_BARRIER_KINDS));
    cr_assert_eq(errno, EINVAL);
    pool_destroy(p);
}

/* ---------------------------------------------------------------- long and oversubscribed waits sleep */

#define NAP_US 60000

typedef struct nap_ctx {
    pool_barrier *b;
    int napper;         /* this thread sleeps NAP_US before it arrives */
    double burned[2];   /* plain: burned[id] by thread id, read by the caller after the job */
} nap_ctx;

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void nap_job(void *arg, int id, int n)
{
    (void)n;
    nap_ctx *c = arg;
    double t0 = thread_cpu_s();
    if (id == c->napper)
        usleep(NAP_US);
    pool_barrier_wait(c->b, id);
    c->burned[id] = thread_cpu_s() - t0;
}

/* Each thread in turn waits NAP_US at the barrier for the other, which sleeps: the waiter must fall asleep too
 * after its bounded spin, not burn the wait (seen failing before: it spun, yielding, through all of it). */
static void check_naps(pool *p, const char *what)
{
    for (int k = 0; k < POOL_BARRIER_KINDS; k++) {
        nap_ctx c = { .b = pool_barrier_create(p, (pool_barrier_kind)k) };
        cr_assert_not_null(c.b);
        for (c.napper = 0; c.napper < 2; c.napper++) {
            pool_run(p, nap_job, &c);
            double burned = c.burned[1 - c.napper];
            cr_expect_lt(burned, 0.015, "%s, %s barrier: thread %d burned %.3f s of cpu waiting %.3f s for a "
                         "sleeping thread", what, pool_barrier_name((pool_barrier_kind)k), 1 - c.napper, burned,
                         NAP_US * 1e-6);
        }
        pool_barrier_destroy(c.b);
    }
}

Test(pool_barrier, a_long_wait_sleeps_after_the_pools_spin_budget, .timeout = 30)
{
    pool_config cfg = pool_config_default();
    cfg.threads = 2;
    cfg.idle_us = 1000; /* the pool's idle workers sleep after 1 ms: so must a barrier's waiter */
    pool *p = pool_create(&cfg);
    cr_assert_not_null(p);
    check_naps(p, "spin pool, 1 ms idle budget");
    pool_destroy(p);
}

Test(pool_barrier, oversubscribed_waiters_sleep_though_the_budget_says_spin, .timeout = 30)
{
    int c[1], cpu[2];
    tf_need_cpus(c, 1, "a cpu to pin two threads to");
    cpu[0] = cpu[1] = c[0];
    pool_config cfg = pool_config_default();
    cfg.threads = 2;
    cfg.cpus = cpu;
    cfg.idle_us = 1000000; /* a second of spin, were the pool not oversubscribed */
    pool *p = pool_create_bound(&cfg);
    cr_assert_not_null(p);
    check_naps(p, "two threads on one cpu");
    pool_destroy(p);
}
