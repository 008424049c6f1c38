/* pool_rows.c — pool_rows and its weights (pool_set_weights): a rows job set up and run through pool_run, its
 * split done by pool_split.c's runners; see pool.h. */
#include "pool.h"
#include "pool_handshake.h"
#include "pool_struct.h"

#include <errno.h>
#include <float.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int pool_weights_cum(const double *weight, int n, double *cum)
{
    double sum = 0;
    bool ok = n > 0;
    for (int i = 0; ok && i < n; i++) {
        ok = weight[i] >= 0 && weight[i] <= DBL_MAX; /* false for NaN, a negative or an infinite weight */
        sum += ok ? weight[i] : 0;
    }
    if (!ok || !(sum > 0 && sum <= DBL_MAX)) {
        errno = EINVAL;
        return -1;
    }
    double run = 0;
    cum[0] = 0;
    for (int k = 0; k < n; k++)
        cum[k + 1] = (run += weight[k]) / sum;
    cum[n] = 1; /* exactly, whatever the rounding of the sum */
    return 0;
}

int pool_set_weights(pool *p, const double *weight)
{
    if (weight && pool_weights_cum(weight, p->n, p->cum) != 0)
        return -1;
    p->weighted = weight != NULL;
    return 0;
}

void pool_rows(pool *p, size_t rows, size_t chunk, pool_rows_fn fn, void *ctx)
{
    pool_rows_grain(p, rows, chunk, 1, fn, ctx);
}

/* p->rows_job set for rows in claims of chunk rows (rounded up to grain; 0: none), and whether there is anything
 * for the threads to do: with one thread, or no rows, the slice has run here or there is none. */
static bool pool_rows_set(pool *p, size_t rows, size_t chunk, size_t grain, pool_rows_fn fn, void *ctx)
{
    if (rows == 0)
        return false;
    if (p->n == 1) {
        pool_rows_job one = { .fn = fn, .ctx = ctx, .rows = rows };
        pool_split_slice(p, 0, &one, 0, rows);
        return false;
    }
    grain = grain ? grain : 1;
    chunk = chunk < rows ? chunk : rows;
    chunk = (chunk + grain - 1) / grain * grain;
    /* No worker reads rows_job now: the last job's were all counted done before its pool_run returned. */
    p->rows_job = (pool_rows_job){ .fn = fn, .ctx = ctx, .rows = rows, .chunk = chunk, .grain = grain };
    return true;
}

void pool_rows_grain(pool *p, size_t rows, size_t chunk, size_t grain, pool_rows_fn fn, void *ctx)
{
    if (!pool_rows_set(p, rows, chunk, grain, fn, ctx))
        return;
    /* relaxed: published to the workers with the job by pool_run's seq_cst RMW on gen (or pthread_create).
     * Static splits never touch the counter, so they do not pay for moving its line. */
    if (chunk != 0)
        atomic_store_explicit(&p->next_row, 0, memory_order_relaxed);
    pool_run(p, chunk == 0 ? pool_split_static : pool_split_dynamic, &p->rows_job);
}

void pool_rows_steal(pool *p, size_t rows, size_t chunk, size_t grain, pool_rows_fn fn, void *ctx)
{
    size_t g = grain ? grain : 1, units = (rows + g - 1) / g;
    if (chunk == 0 || units > UINT32_MAX) {
        pool_rows_grain(p, rows, 0, grain, fn, ctx);
        return;
    }
    if (!pool_rows_set(p, rows, chunk, grain, fn, ctx))
        return;
    pool_split_steal_reset(p->shares, units, p->n, p->weighted ? p->cum : NULL); /* published as next_row is */
    pool_run(p, pool_split_steal, &p->rows_job);
}
