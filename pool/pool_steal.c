/* pool_steal.c — claims over static shares that idle threads steal from (pool_rows_steal, and the OpenMP
 * executor's twin in bench): each thread walks its own share from the front, so its weight streams run on as in
 * a static split, and a thread done with its share takes chunks from the back of another's. See pool.h. */
#include "pool.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static uint64_t pool_steal_pack(size_t next, size_t end)
{
    return (uint64_t)next | (uint64_t)end << 32;
}

void pool_steal_reset(pool_share *s, size_t units, int n, const double *cum)
{
    for (int id = 0; id < n; id++) {
        size_t u0, u1;
        if (cum)
            pool_split_weighted(units, id, n, cum, &u0, &u1);
        else
            pool_split(units, id, n, &u0, &u1);
        /* relaxed: the dispatch that runs the claims publishes these (pool_run's seq_cst RMW on its generation,
         * OpenMP's fork of the region) */
        atomic_store_explicit(&s[id].range, pool_steal_pack(u0, u1), memory_order_relaxed);
    }
}

/* Units off share s: from its front when front is set (the owner: half of what is left, at least chunk, so that a
 * share is a few kernel calls, each stream restarted once a call, and its second half is there for thieves while
 * the owner runs its first), else chunk of them from its back (a thief). */
static bool pool_steal_take(pool_share *s, size_t chunk, bool front, size_t *u0, size_t *u1)
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
        uint64_t now = front ? pool_steal_pack(next + take, end) : pool_steal_pack(next, end - take);
        if (atomic_compare_exchange_weak_explicit(&s->range, &v, now, memory_order_relaxed, memory_order_relaxed)) {
            *u0 = front ? next : end - take;
            *u1 = front ? next + take : end;
            return true;
        }
    }
}

bool pool_steal_claim(pool_share *s, int id, int n, size_t chunk, size_t *u0, size_t *u1)
{
    chunk = chunk ? chunk : 1;
    if (pool_steal_take(&s[id], chunk, true, u0, u1))
        return true;
    for (int k = 1; k < n; k++)
        if (pool_steal_take(&s[(id + k) % n], chunk, false, u0, u1))
            return true;
    return false;
}
