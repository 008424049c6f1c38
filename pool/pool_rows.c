/* pool_rows.c — splitting a job's rows over the pool's threads: the even static split, the capacity-weighted
 * static split (pool_set_weights), and dynamic claims of chunk rows; see pool.h. */
#include "pool.h"
#include "pool_impl.h"
#include "pool_struct.h"

#include <errno.h>
#include <float.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void pool_split(size_t total, int id, int n, size_t *r0, size_t *r1)
{
    size_t un = (size_t)n, uid = (size_t)id;
    size_t base = total / un, extra = total % un;
    *r0 = uid * base + (uid < extra ? uid : extra);
    *r1 = *r0 + base + (uid < extra ? 1 : 0);
}

void pool_split_weighted(size_t total, int id, int n, const double *cum, size_t *r0, size_t *r1)
{
    /* Each boundary is computed by one expression, whichever thread asks, so neighbours agree on it. */
    size_t b0 = id == 0 ? 0 : (size_t)((double)total * cum[id]);
    size_t b1 = id == n - 1 ? total : (size_t)((double)total * cum[id + 1]);
    *r0 = b0 < total ? b0 : total;
    *r1 = b1 < total ? b1 : total;
    *r1 = *r1 < *r0 ? *r0 : *r1;
}

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

/* The pool of a rows job: arg is &p->rows_job (pool_rows_grain passes nothing else), so stepping back by its
 * offset gives the pool; const is dropped only to reach next_row, an atomic meant to be written. */
static struct pool *pool_of_rows_job(const pool_rows_job *j)
{
    return (struct pool *)(uintptr_t)((const char *)j - offsetof(struct pool, rows_job));
}

/* The same for a group's copy (pool_rows_pass): the group's read-only back pointer. */
static struct pool *pool_of_group_rows_job(const pool_rows_job *j)
{
    return ((const pool_group *)(const void *)((const char *)j - offsetof(pool_group, rows_job)))->p;
}

/* One slice, through the observer when there is one. */
static void pool_slice(const struct pool *p, int id, const pool_rows_job *j, size_t r0, size_t r1)
{
    if (!p->hook.end) {
        j->fn(j->ctx, r0, r1);
        return;
    }
    uint64_t mark = p->hook.begin ? p->hook.begin(p->hook.ctx, id) : 0;
    j->fn(j->ctx, r0, r1);
    p->hook.end(p->hook.ctx, id, mark, r1 - r0);
}

static void pool_rows_static_of(const struct pool *p, const pool_rows_job *j, int id, int n)
{
    size_t u0, u1, g = j->grain, units = (j->rows + g - 1) / g;
    if (p->weighted)
        pool_split_weighted(units, id, n, p->cum, &u0, &u1);
    else
        pool_split(units, id, n, &u0, &u1);
    size_t r0 = u0 * g, r1 = u1 * g < j->rows ? u1 * g : j->rows;
    if (r0 < r1)
        pool_slice(p, id, j, r0, r1);
}

static void pool_rows_dynamic_of(struct pool *p, const pool_rows_job *j, int id)
{
    for (;;) {
        /* relaxed: atomicity alone keeps claims disjoint; the reset to 0 is ordered by the job's publish. */
        size_t r0 = atomic_fetch_add_explicit(&p->next_row, j->chunk, memory_order_relaxed);
        if (r0 >= j->rows)
            break;
        size_t r1 = j->rows - r0 < j->chunk ? j->rows : r0 + j->chunk;
        pool_slice(p, id, j, r0, r1);
    }
}

/* The runners pool_run calls with &p->rows_job, and their twins for a group's copy. */
static void pool_rows_static(void *arg, int id, int n)
{
    pool_rows_static_of(pool_of_rows_job(arg), arg, id, n);
}

static void pool_rows_dynamic(void *arg, int id, int n)
{
    (void)n;
    pool_rows_dynamic_of(pool_of_rows_job(arg), arg, id);
}

static void pool_rows_static_group(void *arg, int id, int n)
{
    pool_rows_static_of(pool_of_group_rows_job(arg), arg, id, n);
}

static void pool_rows_dynamic_group(void *arg, int id, int n)
{
    (void)n;
    pool_rows_dynamic_of(pool_of_group_rows_job(arg), arg, id);
}

void pool_rows_pass(const struct pool *p, pool_group *g)
{
    bool is_static = p->job.fn == pool_rows_static;
    if (!is_static && p->job.fn != pool_rows_dynamic) {
        g->job = p->job;
        return;
    }
    g->rows_job = p->rows_job;
    g->job = (pool_job){ .fn = is_static ? pool_rows_static_group : pool_rows_dynamic_group, .ctx = &g->rows_job };
}

void pool_rows(pool *p, size_t rows, size_t chunk, pool_rows_fn fn, void *ctx)
{
    pool_rows_grain(p, rows, chunk, 1, fn, ctx);
}

void pool_rows_grain(pool *p, size_t rows, size_t chunk, size_t grain, pool_rows_fn fn, void *ctx)
{
    if (rows == 0)
        return;
    if (p->n == 1) {
        pool_rows_job one = { .fn = fn, .ctx = ctx, .rows = rows };
        pool_slice(p, 0, &one, 0, rows);
        return;
    }
    grain = grain ? grain : 1;
    chunk = chunk < rows ? chunk : rows;
    chunk = (chunk + grain - 1) / grain * grain;
    /* No worker reads rows_job now: the last job's were all counted done before its pool_run returned. */
    p->rows_job = (pool_rows_job){ .fn = fn, .ctx = ctx, .rows = rows, .chunk = chunk, .grain = grain };
    /* relaxed: published to the workers with the job by pool_run's seq_cst RMW on gen (or pthread_create).
     * Static splits never touch the counter, so they do not pay for moving its line. */
    if (chunk != 0)
        atomic_store_explicit(&p->next_row, 0, memory_order_relaxed);
    pool_run(p, chunk == 0 ? pool_rows_static : pool_rows_dynamic, &p->rows_job);
}
