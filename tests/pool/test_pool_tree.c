/* The tree-shaped pool (pool_config.group): every shape runs every id once per job, covers every row once,
 * hands each row to the thread the flat pool hands it to and computes the flat pool's bits; bad groups are
 * refused; idle groups sleep and wake. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pool.h"
#include "pool_test_util.h"

#define MAX_T PT_MAX_IDS
#define ROWS 301

/* The shapes: one group, many, uneven, groups of one, any numbering (the caller's group need not be 0). */
typedef struct shape {
    const char *name;
    int threads, groups; /* groups: what pool_groups must say */
    int group[MAX_T];
} shape;

static const shape shapes[] = {
    { "one group", 4, 1, { 0, 0, 0, 0 } },
    { "two groups of 3", 6, 2, { 0, 0, 0, 1, 1, 1 } },
    { "uneven 1+3+2", 6, 3, { 0, 1, 1, 1, 2, 2 } },
    { "uneven 4+1", 5, 2, { 0, 0, 0, 0, 1 } },
    { "groups of one", 5, 5, { 0, 1, 2, 3, 4 } },
    { "interleaved, caller's group numbered 6", 7, 3, { 6, 2, 6, 2, 5, 5, 6 } },
    { "pairs", 8, 4, { 0, 0, 1, 1, 2, 2, 3, 3 } },
    { "two threads, one group", 2, 1, { 0, 0 } },
    { "two threads, two groups", 2, 2, { 1, 0 } },
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])
static const pool_policy tree_policies[] = { POOL_SPIN, POOL_CONDVAR, POOL_HYBRID };

static pool *make_tree(const shape *s, pool_policy pol, const pool_slice_hook *hook)
{
    pool_config cfg = pool_config_default();
    cfg.threads = s->threads;
    cfg.policy = pol;
    cfg.group = s->group;
    cfg.spin_us = 20;
    if (hook)
        cfg.hook = *hook;
    pool *p = pool_create(&cfg);
    cr_assert_not_null(p, "%s, %s: pool_create: errno %d", s->name, pool_policy_name(pol), errno);
    cr_assert_eq(pool_groups(p), s->groups, "%s: %d groups, want %d", s->name, pool_groups(p), s->groups);
    return p;
}

Test(pool_tree, run_calls_every_id_once_per_job_in_every_shape)
{
    for (size_t k = 0; k < NSHAPES; k++)
        for (size_t pi = 0; pi < sizeof tree_policies / sizeof *tree_policies; pi++) {
            pool *p = make_tree(&shapes[k], tree_policies[pi], NULL);
            char what[128];
            snprintf(what, sizeof what, "%s, %s", shapes[k].name, pool_policy_name(tree_policies[pi]));
            for (int job = 0; job < 200; job++)
                pt_expect_ids_once(p, shapes[k].threads, what, job);
            pool_destroy(p);
        }
}

/* Which thread ran each row, and the row's value: the observer's begin names the thread, the rows callback
 * (on that thread, right after) writes both. */
static _Thread_local int slice_thread = -1;

static uint64_t note_thread(void *ctx, int id)
{
    (void)ctx;
    slice_thread = id;
    return 0;
}

static void no_end(void *ctx, int id, uint64_t mark, size_t rows)
{
    (void)ctx;
    (void)id;
    (void)mark;
    (void)rows;
}

typedef struct rows_ctx {
    atomic_int hits[ROWS];
    int who[ROWS];   /* written once per row by the thread that ran it, read after the job */
    float out[ROWS]; /* the same */
} rows_ctx;

/* A row whose float bits depend on the order of its operations: a long dependent sum. */
static void compute_rows(void *arg, size_t r0, size_t r1)
{
    rows_ctx *c = arg;
    for (size_t r = r0; r < r1; r++) {
        float acc = 0;
        for (int j = 1; j <= 200; j++)
            acc += sinf((float)(r * 131 + (size_t)j)) / (float)j;
        c->out[r] = acc;
        c->who[r] = slice_thread;
        atomic_fetch_add(&c->hits[r], 1);
    }
}

/* Dynamic claims of chunk rows, or with steal the static shares claimed in chunks and stolen from. */
static void run_rows(pool *p, size_t rows, size_t chunk, int steal, rows_ctx *c)
{
    memset(c, 0, sizeof *c);
    if (steal)
        pool_rows_steal(p, rows, chunk, 1, compute_rows, c);
    else
        pool_rows(p, rows, chunk, compute_rows, c);
}

Test(pool_tree, rows_once_on_the_flat_pools_thread_with_its_bits)
{
    static const size_t rows[] = { 1, 5, 64, ROWS };
    static const size_t chunks[] = { 0, 1, 7 };
    const pool_slice_hook hook = { .begin = note_thread, .end = no_end };
    rows_ctx *flat_c = calloc(1, sizeof *flat_c), *tree_c = calloc(1, sizeof *tree_c);
    for (size_t k = 0; k < NSHAPES; k++) {
        pool_config cfg = pool_config_default();
        cfg.threads = shapes[k].threads;
        cfg.hook = hook;
        pool *flat = pool_create(&cfg);
        cr_assert_not_null(flat);
        for (size_t pi = 0; pi < sizeof tree_policies / sizeof *tree_policies; pi++) {
            pool *tree = make_tree(&shapes[k], tree_policies[pi], &hook);
            for (size_t r = 0; r < sizeof rows / sizeof *rows; r++)
                for (size_t ch = 0; ch < 2 * sizeof chunks / sizeof *chunks; ch++) {
                    int steal = ch % 2;
                    run_rows(flat, rows[r], chunks[ch / 2], steal, flat_c);
                    run_rows(tree, rows[r], chunks[ch / 2], steal, tree_c);
                    for (size_t i = 0; i < rows[r]; i++) {
                        cr_assert_eq(atomic_load(&tree_c->hits[i]), 1, "%s, %s, rows %zu chunk %zu steal %d: row %zu "
                                     "ran %d times", shapes[k].name, pool_policy_name(tree_policies[pi]), rows[r],
                                     chunks[ch / 2], steal, i, atomic_load(&tree_c->hits[i]));
                        cr_assert(tree_c->who[i] >= 0 && tree_c->who[i] < shapes[k].threads);
                        if (chunks[ch / 2] == 0)
                            cr_assert_eq(tree_c->who[i], flat_c->who[i], "%s: static row %zu on thread %d, the flat "
                                         "pool's on %d", shapes[k].name, i, tree_c->who[i], flat_c->who[i]);
                    }
                    cr_assert(memcmp(tree_c->out, flat_c->out, rows[r] * sizeof(float)) == 0,
                              "%s, %s, rows %zu chunk %zu steal %d: the tree's bits differ from the flat pool's",
                              shapes[k].name, pool_policy_name(tree_policies[pi]), rows[r], chunks[ch / 2], steal);
                }
            pool_destroy(tree);
        }
        pool_destroy(flat);
    }
    free(flat_c);
    free(tree_c);
}

Test(pool_tree, bad_groups_are_refused)
{
    int group[4] = { 0, 0, 1, 1 };
    pool_config cfg = pool_config_default();
    cfg.threads = 4;
    cfg.group = group;
    cfg.policy = POOL_SPAWN;
    errno = 0;
    cr_assert_null(pool_create(&cfg), "spawn has no workers to group");
    cr_assert_eq(errno, EINVAL);
    cfg.policy = POOL_SPIN;
    group[3] = 4; /* one past threads - 1 */
    errno = 0;
    cr_assert_null(pool_create(&cfg));
    cr_assert_eq(errno, EINVAL);
    group[3] = -1;
    cr_assert_null(pool_create(&cfg));
    group[3] = 3;
    pool *p = pool_create(&cfg);
    cr_assert_not_null(p);
    cr_assert_eq(pool_groups(p), 3);
    pool_destroy(p);
    cfg.group = NULL;
    p = pool_create(&cfg);
    cr_assert_eq(pool_groups(p), 0, "a flat pool has no groups");
    pool_destroy(p);
}

/* Idle past their budgets, members and leaders sleep on their own queues; the next job wakes every one. */
Test(pool_tree, sleeping_groups_wake_for_the_next_job)
{
    const shape *s = &shapes[2]; /* uneven 1+3+2: a caller alone, leaders with members */
    for (size_t pi = 0; pi < sizeof tree_policies / sizeof *tree_policies; pi++) {
        pool_config cfg = pool_config_default();
        cfg.threads = s->threads;
        cfg.policy = tree_policies[pi];
        cfg.group = s->group;
        cfg.spin_us = 50;
        cfg.idle_us = 500;
        pool *p = pool_create(&cfg);
        cr_assert_not_null(p);
        atomic_long total = 0;
        for (int i = 0; i < 6; i++) {
            pool_run(p, pt_add_one, &total);
            usleep(i % 2 ? 5000 : 0); /* past both budgets every other job */
        }
        cr_assert_eq(atomic_load(&total), 6 * s->threads);
        pool_destroy(p);
    }
}

Test(pool_tree, create_destroy_every_shape_without_a_job)
{
    for (int rep = 0; rep < 5; rep++)
        for (size_t k = 0; k < NSHAPES; k++) {
            pool *p = make_tree(&shapes[k], tree_policies[(size_t)rep % 3], NULL);
            pool_destroy(p); /* stop reaches members through their leaders, never having run a job */
        }
}
