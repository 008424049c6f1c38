/* ThreadSanitizer harness for the tree-shaped pool and the barriers: a plain main, because Criterion aborts under
 * TSan. Tree: every persistent policy over several group shapes, pool_run and pool_rows writing per-id and
 * per-row slots with plain stores that the caller reads after the job (a member's writes reach the caller through
 * its leader's count at the root: a missing happens-before there is a race TSan reports), with idle pauses so
 * members and leaders also sleep and wake. Barriers: every kind on flat and tree pools, spin and condvar (whose
 * waiters sleep at once: the barrier's sleep handshake), each thread writing its slot with a plain store before a
 * barrier and reading every other slot after it. Exits non-zero on a wrong result; TSAN_OPTIONS=halt_on_error=1
 * makes a race fatal too. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "tsan_slots.h"
#include "tsan_tally.h"

#define MAX_T 6
#define MAX_ROWS 129

typedef struct shape {
    const char *name;
    int threads;
    int group[MAX_T];
} shape;

static const shape shapes[] = {
    { "1 group", 3, { 0, 0, 0 } },
    { "2x2", 4, { 0, 0, 1, 1 } },
    { "1+3+2", 6, { 0, 1, 1, 1, 2, 2 } },
    { "groups of 1", 4, { 3, 2, 1, 0 } },
};

typedef struct job {
    int slot[MAX_T];
    pool_barrier *b;
    int bad[MAX_T]; /* plain: bad[id] written by thread id only, read by the caller after the job */
} job;

static pool *make(const shape *s, pool_policy pol, bool tree)
{
    return tsan_slots_pool(pol, s->threads, tree ? s->group : NULL);
}

/* The descriptor's handoff, and the members' writes back to the caller, go through the leaders. */
static int check_tree(const shape *s, pool_policy pol, int iters)
{
    pool *p = make(s, pol, true);
    if (!p)
        return 1;
    tsan_slots *j = calloc(1, sizeof *j);
    int failed = 0;
    for (int it = 0; it < iters && !failed; it++) {
        failed |= tsan_slots_round(p, j, s->threads, it, MAX_ROWS, 5);
        if (it % 400 == 399)
            tsan_sleep_us(1000); /* idle 1 ms: members and leaders fall asleep, then must wake */
    }
    free(j);
    pool_destroy(p);
    return failed;
}

/* Rounds of: write own slot, barrier, read all, barrier. */
static void barrier_job(void *arg, int id, int n)
{
    job *j = arg;
    for (int round = 1; round <= 40; round++) {
        j->slot[id] = round * 10 + id;
        pool_barrier_wait(j->b, id);
        for (int t = 0; t < n; t++)
            j->bad[id] |= j->slot[t] != round * 10 + t;
        pool_barrier_wait(j->b, id);
    }
}

static int check_barrier(const shape *s, pool_barrier_kind kind, pool_policy pol, bool tree)
{
    pool *p = make(s, pol, tree);
    job *j = calloc(1, sizeof *j);
    if (!p || !j || !(j->b = pool_barrier_create(p, kind))) {
        free(j);
        pool_destroy(p);
        return 1;
    }
    for (int rep = 0; rep < 5; rep++)
        pool_run(p, barrier_job, j);
    int failed = 0;
    for (int t = 0; t < s->threads; t++)
        failed |= j->bad[t] | (j->slot[t] != 400 + t);
    pool_barrier_destroy(j->b);
    free(j);
    pool_destroy(p);
    return failed;
}

int main(void)
{
    static const pool_policy pols[] = { POOL_SPIN, POOL_CONDVAR };
    tsan_tally tally = { 0 };
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        for (int k = 0; k < POOL_POLICY_COUNT; k++) /* every persistent policy: spawn's workers live one job */
            if ((pool_policy)k != POOL_SPAWN)
                tsan_count(&tally, check_tree(&shapes[s], (pool_policy)k, 1200), "tsan_tree: %s, %s",
                           pool_policy_name((pool_policy)k), shapes[s].name);
        /* spin (a 200 µs budget, 5 µs oversubscribed) and condvar (none): barrier waiters spin, then sleep */
        for (int b = 0; b < POOL_BARRIER_KINDS; b++)
            for (int tree = 0; tree < 2; tree++)
                for (size_t k = 0; k < sizeof pols / sizeof *pols; k++)
                    tsan_count(&tally, check_barrier(&shapes[s], (pool_barrier_kind)b, pols[k], tree),
                               "tsan_tree: %s barrier, %s %s pool of %s", pool_barrier_name((pool_barrier_kind)b),
                               tree ? "tree" : "flat", pool_policy_name(pols[k]), shapes[s].name);
    }
    return tsan_report("tsan_tree", &tally);
}
