/* pool_split.c — how a rows job's rows are split over the threads that run it: the even static split, the
 * capacity-weighted static split, dynamic claims of chunk rows, claims over the static shares that idle threads
 * steal from, and a group's own copy of a rows job (a tree's leader takes it before waking its group). Below the
 * dispatch: pool.c and pool_tree.c call in here and pool_rows.c starts the jobs; nothing here calls either. */
#include "pool.h"
#include "pool_handshake.h"
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

/* ---- Stealing claims over the static shares (pool_rows_steal, and the OpenMP executor's twin in bench): each
 * thread walks its own share from the front, so its weight streams run on as in a static split, and a thread done
 * with its share takes chunks from the back of another's. */

static uint64_t pool_split_steal_pack(size_t next, size_t end)
{
    return (uint64_t)next | (uint64_t)end << 32;
}

void pool_split_steal_reset(pool_share *s, size_t units, int n, const double *cum)
{
    for (int id = 0; id < n; id++) {
        size_t u0, u1;
        if (cum)
            pool_split_weighted(units, id, n, cum, &u0, &u1);
        else
            pool_split(units, id, n, &u0, &u1);
        /* relaxed: the dispatch that runs the claims publishes these (pool_run's seq_cst RMW on its generation,
         * OpenMP's fork of the region) */
        atomic_store_explicit(&s[id].range, pool_split_steal_pack(u0, u1), memory_order_relaxed);
    }
}

/* Units off share s: from its front when front is set (the owner: half of what is left, at least chunk, so that a
 * share is a few kernel calls, each stream restarted once a call, and its second half is there for thieves while
 * the owner runs its first), else chunk of them from its back (a thief). */
static bool pool_split_steal_take(pool_share *s, size_t chunk, bool front, size_t *u0, size_t *u1)
{
    /* relaxed: atomicity alone keeps claims disjoint; what a claim's rows write reaches the caller through the
     * dispatch's completion, as a dynamic claim's does */
    uint64_t v = atomic_load_explicit(&s->range, memory_order_relaxed);
    for (;;) {
        size_t next = (uint32_t)v, end = (size_t)(v >> 32);
        if (next >= end)
            return false;
        size_t left = end - next, want = front && left / 2 > chunk ? left / 2 : chunk;
        size_t take = left < want ? left : want;
        uint64_t now = front ? pool_split_steal_pack(next + take, end) : pool_split_steal_pack(next, end - take);
        if (atomic_compare_exchange_weak_explicit(&s->range, &v, now, memory_order_relaxed, memory_order_relaxed)) {
            *u0 = front ? next : end - take;
            *u1 = front ? next + take : end;
            return true;
        }
    }
}

bool pool_split_steal_claim(pool_share *s, int id, int n, size_t chunk, size_t *u0, size_t *u1)
{
    chunk = chunk ? chunk : 1;
    if (pool_split_steal_take(&s[id], chunk, true, u0, u1))
        return true;
    for (int k = 1; k < n; k++)
        if (pool_split_steal_take(&s[(id + k) % n], chunk, false, u0, u1))
            return true;
    return false;
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

/* A stealing split's claims (pool_split_steal_claim), each a slice: units u0..u1 of the job's grains, the last cut
 * at rows. */
static void pool_split_steal_of(struct pool *p, const pool_rows_job *j, int id, int n)
{
    size_t u0, u1, g = j->grain;
    while (pool_split_steal_claim(p->shares, id, n, j->chunk / g, &u0, &u1))
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
