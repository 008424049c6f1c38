/* pool_test_util.h — helpers shared by the pool tests: a job that counts its calls, and one job's ids checked,
 * every id once. Static functions only (one copy per test file). */
#ifndef POOL_TEST_UTIL_H
#define POOL_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdatomic.h>

#include "pool.h"

#define PT_MAX_IDS 8

/* Ids are checked where they run (on workers too, where a failed cr_assert is no clean test failure): a bad one
 * is counted in bad, which the test's own thread asserts after the job. */
typedef struct pt_ids {
    atomic_int counts[PT_MAX_IDS];
    atomic_int bad; /* an id out of 0..n-1, or a count other than n */
    int n;
} pt_ids;

static inline void pt_count_id(void *arg, int id, int n)
{
    pt_ids *c = arg;
    if (n != c->n || id < 0 || id >= n)
        atomic_fetch_add(&c->bad, 1);
    else
        atomic_fetch_add(&c->counts[id], 1);
}

/* A job that counts its calls: every thread adds one to the atomic_long at arg. */
static inline void pt_add_one(void *arg, int id, int n)
{
    (void)id;
    (void)n;
    atomic_fetch_add((atomic_long *)arg, 1);
}

/* One pool_run on p, a pool of n threads (at most PT_MAX_IDS): every id 0..n-1 ran exactly once, told n; what
 * (the pool's description) and job name a failure. */
static inline void pt_expect_ids_once(pool *p, int n, const char *what, int job)
{
    cr_assert_leq(n, PT_MAX_IDS);
    pt_ids c = { .n = n };
    pool_run(p, pt_count_id, &c);
    cr_assert_eq(atomic_load(&c.bad), 0, "%s, job %d: a bad id or count", what, job);
    for (int id = 0; id < n; id++)
        cr_assert_eq(atomic_load(&c.counts[id]), 1, "%s, job %d: id %d ran %d times", what, job, id,
                     atomic_load(&c.counts[id]));
}

#endif
