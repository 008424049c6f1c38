/* tsan_slots.h — what the pool's ThreadSanitizer mains (tsan_pool, tsan_tree) share: a pool with short spin and
 * idle budgets, and rounds of pool_run and pool_rows writing per-id and per-row slots with plain stores that the
 * caller reads after the job. A header, not a .c: every .c file in tests/tsan is built as a program of its own. */
#ifndef TSAN_SLOTS_H
#define TSAN_SLOTS_H

#include <stddef.h>

#include "pool.h"

#define TSAN_SLOTS_IDS 16
#define TSAN_SLOTS_ROWS 257

typedef struct tsan_slots {
    int slot[TSAN_SLOTS_IDS];
    int rows[TSAN_SLOTS_ROWS];
    int stamp;
} tsan_slots;

/* A pool of threads under pol (group: pool_config.group, NULL for a flat pool); its budgets short, so that
 * workers also go through the sleep path. NULL when pool_create fails. */
static inline pool *tsan_slots_pool(pool_policy pol, int threads, const int *group)
{
    pool_config cfg = pool_config_default();
    cfg.threads = threads;
    cfg.policy = pol;
    cfg.group = group;
    cfg.spin_us = 20;
    cfg.idle_us = 200;
    return pool_create(&cfg);
}

static inline void tsan_slots_write_id(void *arg, int id, int n)
{
    (void)n;
    tsan_slots *j = arg;
    j->slot[id] = j->stamp + id; /* plain write, read by the caller after pool_run */
}

static inline void tsan_slots_write_rows(void *arg, size_t r0, size_t r1)
{
    tsan_slots *j = arg;
    for (size_t r = r0; r < r1; r++)
        j->rows[r] = j->stamp + (int)r;
}

/* Round it on p (threads threads): stamp it * 1000, published with the job; pool_run; then pool_rows over
 * it % max_rows rows (at most TSAN_SLOTS_ROWS), by a static split every third round, else in claims of
 * it % chunk_mod + 1 rows, dynamic or (every other such round) stolen from static shares (pool_rows_steal).
 * Non-zero when a slot or a row the caller reads back is wrong. */
static inline int tsan_slots_round(pool *p, tsan_slots *j, int threads, int it, size_t max_rows, int chunk_mod)
{
    int failed = 0;
    j->stamp = it * 1000; /* plain write before the publish: the descriptor handoff */
    pool_run(p, tsan_slots_write_id, j);
    for (int id = 0; id < threads; id++)
        failed |= j->slot[id] != it * 1000 + id;
    size_t rows = (size_t)it % max_rows;
    size_t chunk = (size_t)(it % 3 == 0 ? 0 : it % chunk_mod + 1);
    if (it % 2)
        pool_rows_steal(p, rows, chunk, 1, tsan_slots_write_rows, j);
    else
        pool_rows(p, rows, chunk, tsan_slots_write_rows, j);
    for (size_t r = 0; r < rows; r++)
        failed |= j->rows[r] != it * 1000 + (int)r;
    return failed;
}

#endif
