/* ThreadSanitizer harness for the pool: a plain main, because Criterion aborts under TSan.
 * Hammers every policy through pool_run and pool_rows with plain (non-atomic) writes to per-id and per-row
 * slots that the caller reads afterwards: any missing happens-before between a worker's writes and the
 * caller's reads, or between the job descriptor and a worker, is a data race TSan reports. Exits non-zero
 * on a wrong result; TSAN_OPTIONS=halt_on_error=1 makes a race fatal too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "tsan_slots.h"
#include "tsan_tally.h"

static int check_policy(pool_policy pol, int threads, int iters)
{
    pool *p = tsan_slots_pool(pol, threads, NULL);
    if (!p) {
        fprintf(stderr, "tsan_pool: pool_create %s/%d failed\n", pool_policy_name(pol), threads);
        return 1;
    }
    tsan_slots *j = calloc(1, sizeof *j);
    int failed = 0;
    for (int it = 0; it < iters && !failed; it++) {
        failed |= tsan_slots_round(p, j, threads, it, TSAN_SLOTS_ROWS, 7);
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
