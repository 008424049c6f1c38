/* pb_poolclock.c — see pb_poolclock.h. */
#include "pb_poolclock.h"

#include "pb_clock.h"

#include <math.h>

typedef struct poolclock_job {
    double ghz[POOL_MAX_THREADS];
} poolclock_job;

static void poolclock_thread(void *ctx, int id, int n)
{
    (void)n;
    poolclock_job *job = ctx; /* pool_run hands back the poolclock_job pb_poolclock_ghz passed */
    job->ghz[id] = pb_clock_ghz();
}

double pb_poolclock_ghz(pool *pl)
{
    if (!pl)
        return pb_clock_ghz();
    poolclock_job job;
    pool_run(pl, poolclock_thread, &job);
    int n = pool_threads(pl);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += job.ghz[i];
    return n > 0 ? sum / n : NAN;
}
