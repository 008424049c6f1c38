/* ThreadSanitizer harness for the pool: a plain main, because Criterion aborts under TSan.
 * Hammers every policy through pool_run and pool_rows with plain (non-atomic) writes to per-id and per-row
 * slots that the caller reads afterwards: any missing happens-before between a worker's writes and the
 * caller's reads, or between the job descriptor and a worker, is a data race TSan reports. Exits non-zero
 * on a wrong result; TSAN_OPTIONS=halt_on_error=1 makes a race fatal too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "tsan_tally.h"

#define MAX_ROWS 257

typedef struct job {
    int slot[16];
    int rows[MAX_ROWS];
    int stamp;
} job;

static void write_slot(void *arg, int id, int n)
{
    (void)n;
    job *j = arg;
    j->slot[id] = j->stamp + id; /* plain write, read by the caller after pool_run */
}

static void write_rows(void *arg, size_t r0, size_t r1)
{
    job *j = arg;
    for (size_t r = r0; r < r1; r++)
        j->rows[r] = j->stamp + (int)r;
}

static int check_policy(pool_policy pol, int threads, int iters)
{
    pool_config cfg = pool_config_default();
    cfg.threads = threads;
    cfg.policy = pol;
    cfg.spin_us = 20;
    cfg.idle_us = 200; /* short, so spin workers also go through the sleep path */
    pool *p = pool_create(&cfg);
    if (!p) {
        fprintf(stderr, "tsan_pool: pool_create %s/%d failed\n", pool_policy_name(pol), threads);
        return 1;
    }
    job *j = calloc(1, sizeof *j);
    int failed = 0;
    for (int it = 0; it < iters && !failed; it++) {
        j->stamp = it * 1000; /* plain write before the publish: the descriptor handoff */
        pool_run(p, write_slot, j);
        for (int id = 0; id < threads; id++)
            failed |= j->slot[id] != it * 1000 + id;
        size_t rows = (size_t)(it % MAX_ROWS);
        pool_rows(p, rows, (size_t)(it % 3 == 0 ? 0 : it % 7 + 1), write_rows, j);
        for (size_t r = 0; r < rows; r++)
            failed |= j->rows[r] != it * 1000 + (int)r;
        if (it % 500 == 499)
            tsan_sleep_us(1000); /* idle 1 ms: workers fall asleep, then must wake */
    }
    free(j);
    pool_destroy(p);
    return failed;
}

int main(void)
{
    tsan_tally tally = { 0 };
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++)
        for (int threads = 2; threads <= 4; threads++)
            tsan_count(&tally, check_policy((pool_policy)pol, threads, pol == POOL_SPAWN ? 300 : 3000),
                       "tsan_pool: %s/%d threads", pool_policy_name((pool_policy)pol), threads);
    return tsan_report("tsan_pool", &tally);
}
