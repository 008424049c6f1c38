/* pool_split.c — how a rows job's rows are split over the threads that run it: the even static split, the
 * capacity-weighted static split, dynamic claims of chunk rows, claims over the static shares that idle threads
 * steal from, and a group's own copy of a rows job (a tree's leader takes it before waking its group). Below the
 * dispatch: pool.c and pool_tree.c call in here and pool_rows.c starts the jobs; nothing here calls either. */
#include "pool.h"
#include "pool_impl.h"
#include "pool_struct.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* The pool of a rows job: arg is &p->rows_job (pool_rows_grain passes nothing else), so stepping back by its
 * offset gives the pool; const is dropped only to reach next_row, an atomic meant to be written. */
static struct pool *pool_split_pool_of(const pool_rows_job *j)
{
    return (struct pool *)(uintptr_t)((const char *)j - offsetof(struct pool, rows_job));
}

/* The same for a group's copy (pool_split_pass): the group's read-only back pointer. */
static struct pool *pool_split_pool_of_group_copy(const pool_rows_job *j)
{
    return ((const pool_group *)(const void *)((const char *)j - offsetof(pool_group, rows_job)))->p;
}

/* One slice, through the observer when there is one. */
void pool_split_slice(const struct pool *p, int id, const pool_rows_job *j, size_t r0, size_t r1)
{
    if (!p->hook.end) {
        j->fn(j->ctx, r0, r1);
        return;
    }
    uint64_t mark = p->hook.begin ? p->hook.begin(p->hook.ctx, id) : 0;
    j->fn(j->ctx, r0, r1);
    p->hook.end(p->hook.ctx, id, mark, r1 - r0);
}

static void pool_split_static_of(const struct pool *p, const pool_rows_job *j, int id, int n)
{
    size_t u0, u1, g = j->grain, units = (j->rows + g - 1) / g;
    if (p->weighted)
        pool_split_weighted(units, id, n, p->cum, &u0, &u1);
    else
        pool_split(units, id, n, &u0, &u1);
    size_t r0 = u0 * g, r1 = u1 * g < j->rows ? u1 * g : j->rows;
    if (r0 < r1)
        pool_split_slice(p, id, j, r0, r1);
}

static void pool_split_dynamic_of(struct pool *p, const pool_rows_job *j, int id)
{
    for (;;) {
        /* relaxed: atomicity alone keeps claims disjoint; the reset to 0 is ordered by the job's publish. */
        size_t r0 = atomic_fetch_add_explicit(&p->next_row, j->chunk, memory_order_relaxed);
        if (r0 >= j->rows)
            break;
        size_t r1 = j->rows - r0 < j->chunk ? j->rows : r0 + j->chunk;
        pool_split_slice(p, id, j, r0, r1);
    }
}

/* A stealing split's claims (pool_steal.c), each a slice: units u0..u1 of the job's grains, the last cut at rows. */
static void pool_split_steal_of(struct pool *p, const pool_rows_job *j, int id, int n)
{
    size_t u0, u1, g = j->grain;
    while (pool_steal_claim(p->shares, id, n, j->chunk / g, &u0, &u1))
        pool_split_slice(p, id, j, u0 * g, u1 * g < j->rows ? u1 * g : j->rows);
}

/* The runners pool_run calls with &p->rows_job, and their twins for a group's copy. */
void pool_split_static(void *arg, int id, int n)
{
    pool_split_static_of(pool_split_pool_of(arg), arg, id, n);
}

void pool_split_dynamic(void *arg, int id, int n)
{
    (void)n;
    pool_split_dynamic_of(pool_split_pool_of(arg), arg, id);
}

void pool_split_steal(void *arg, int id, int n)
{
    pool_split_steal_of(pool_split_pool_of(arg), arg, id, n);
}

static void pool_split_static_group(void *arg, int id, int n)
{
    pool_split_static_of(pool_split_pool_of_group_copy(arg), arg, id, n);
}

static void pool_split_dynamic_group(void *arg, int id, int n)
{
    (void)n;
    pool_split_dynamic_of(pool_split_pool_of_group_copy(arg), arg, id);
}

static void pool_split_steal_group(void *arg, int id, int n)
{
    pool_split_steal_of(pool_split_pool_of_group_copy(arg), arg, id, n);
}

void pool_split_pass(const struct pool *p, pool_group *g, pool_job job)
{
    if (!pool_job_is_rows(job)) {
        g->job = job;
        return;
    }
    g->rows_job = p->rows_job;
    pool_fn fn = job.fn == pool_split_static ? pool_split_static_group
                 : job.fn == pool_split_dynamic ? pool_split_dynamic_group : pool_split_steal_group;
    g->job = (pool_job){ .fn = fn, .ctx = &g->rows_job };
}
