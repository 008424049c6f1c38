/* The pool's weighted static split (pool_set_weights, pool_split_weighted, pool_weights_cum) and its slice
 * observer (pool_config.hook): every row once whatever the weights, each thread's share proportional to its
 * weight, bad weights refused with the split unchanged, and the observer called around every slice — static
 * shares, dynamic claims, a one-thread pool's whole range — on the thread that ran it. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "pool.h"

#define ROWS 3000

/* What the observer saw, per thread id (ids < 8): rows, slices, and begin/end pairs. */
typedef struct seen {
    atomic_ulong rows[8], slices[8], open[8];
    atomic_int bad;
} seen;

static uint64_t obs_begin(void *ctx, int id)
{
    seen *s = ctx;
    if (id < 0 || id >= 8)
        atomic_store(&s->bad, 1);
    else
        atomic_fetch_add(&s->open[id], 1);
    return 12345 + (uint64_t)id; /* end must get it back */
}

static void obs_end(void *ctx, int id, uint64_t mark, size_t rows)
{
    seen *s = ctx;
    if (id < 0 || id >= 8 || mark != 12345 + (uint64_t)id || atomic_load(&s->open[id]) == 0) {
        atomic_store(&s->bad, 1);
        return;
    }
    atomic_fetch_sub(&s->open[id], 1);
    atomic_fetch_add(&s->rows[id], rows);
    atomic_fetch_add(&s->slices[id], 1);
}

/* Each row's count of visits: every row must be covered exactly once. */
typedef struct cover {
    atomic_int hits[ROWS];
} cover;

static void cover_rows(void *ctx, size_t r0, size_t r1)
{
    cover *c = ctx;
    for (size_t r = r0; r < r1; r++)
        atomic_fetch_add(&c->hits[r], 1);
}

static pool *make(int threads, pool_policy policy, seen *s)
{
    pool_config cfg = pool_config_default();
    cfg.threads = threads;
    cfg.policy = policy;
    cfg.hook = (pool_slice_hook){ .begin = obs_begin, .end = obs_end, .ctx = s };
    pool *p = pool_create(&cfg);
    cr_assert_not_null(p, "pool of %d: %s", threads, strerror(errno));
    return p;
}

static void expect_each_row_once(const cover *c, size_t rows, const char *what)
{
    for (size_t r = 0; r < rows; r++)
        cr_assert_eq(atomic_load(&c->hits[r]), 1, "%s: row %zu covered %d times", what, r, atomic_load(&c->hits[r]));
}

Test(pool_weights, cum_from_weights_and_refusals)
{
    double cum[4];
    cr_assert_eq(pool_weights_cum((const double[]){ 1, 2, 1 }, 3, cum), 0);
    cr_expect_float_eq(cum[0], 0.0, 1e-12);
    cr_expect_float_eq(cum[1], 0.25, 1e-12);
    cr_expect_float_eq(cum[2], 0.75, 1e-12);
    cr_expect_eq(cum[3], 1.0, "the last boundary is exactly 1");
    static const double bad[][3] = { { 1, -1, 1 }, { 1, NAN, 1 }, { 1, INFINITY, 1 }, { 0, 0, 0 } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double keep[4] = { 7, 7, 7, 7 };
        errno = 0;
        cr_expect_eq(pool_weights_cum(bad[i], 3, keep), -1, "bad weights %zu accepted", i);
        cr_expect_eq(errno, EINVAL);
        cr_expect_eq(keep[1], 7, "cum untouched on a refusal");
    }
}

Test(pool_weights, split_is_contiguous_disjoint_and_proportional)
{
    static const double w[][4] = { { 2, 1, 1, 0 }, { 1, 1, 1, 1 }, { 0.1, 3, 0.5, 1e-9 }, { 0, 0, 0, 5 } };
    static const size_t totals[] = { 0, 1, 7, 1000, 151936 };
    for (size_t k = 0; k < sizeof w / sizeof w[0]; k++)
        for (size_t t = 0; t < sizeof totals / sizeof totals[0]; t++) {
            double cum[5], sum = w[k][0] + w[k][1] + w[k][2] + w[k][3];
            cr_assert_eq(pool_weights_cum(w[k], 4, cum), 0);
            size_t next = 0;
            for (int id = 0; id < 4; id++) {
                size_t r0, r1;
                pool_split_weighted(totals[t], id, 4, cum, &r0, &r1);
                cr_assert_eq(r0, next, "weights %zu, %zu items: thread %d starts at %zu, not %zu", k, totals[t], id,
                             r0, next);
                cr_assert_geq(r1, r0);
                double want = (double)totals[t] * w[k][id] / sum;
                cr_expect(fabs((double)(r1 - r0) - want) <= 1.0, "weights %zu, %zu items: thread %d got %zu, wants %.1f",
                          k, totals[t], id, r1 - r0, want);
                next = r1;
            }
            cr_assert_eq(next, totals[t], "every item covered");
        }
}

Test(pool_weights, a_live_pool_splits_by_its_weights_and_back)
{
    for (int policy = POOL_SPIN; policy <= POOL_SPAWN; policy++) {
        static seen s;
        static cover c;
        memset(&s, 0, sizeof s);
        memset(&c, 0, sizeof c);
        pool *p = make(3, (pool_policy)policy, &s);
        cr_assert_eq(pool_set_weights(p, (const double[]){ 3, 2, 1 }), 0);
        pool_rows(p, ROWS, 0, cover_rows, &c);
        expect_each_row_once(&c, ROWS, pool_policy_name((pool_policy)policy));
        cr_expect_eq(atomic_load(&s.rows[0]), 1500, "%s: thread 0 wants 3/6 of the rows", pool_policy_name((pool_policy)policy));
        cr_expect_eq(atomic_load(&s.rows[1]), 1000);
        cr_expect_eq(atomic_load(&s.rows[2]), 500);
        /* Refused weights leave the split as it was. */
        errno = 0;
        cr_expect_eq(pool_set_weights(p, (const double[]){ 1, NAN, 1 }), -1);
        cr_expect_eq(errno, EINVAL);
        memset(&s, 0, sizeof s);
        memset(&c, 0, sizeof c);
        pool_rows(p, ROWS, 0, cover_rows, &c);
        cr_expect_eq(atomic_load(&s.rows[0]), 1500, "the refused weights changed the split");
        /* NULL: the equal split (pool_split) again. */
        cr_assert_eq(pool_set_weights(p, NULL), 0);
        memset(&s, 0, sizeof s);
        memset(&c, 0, sizeof c);
        pool_rows(p, ROWS, 0, cover_rows, &c);
        expect_each_row_once(&c, ROWS, "equal again");
        for (int id = 0; id < 3; id++)
            cr_expect_eq(atomic_load(&s.rows[id]), 1000, "thread %d: equal split", id);
        cr_expect_eq(atomic_load(&s.bad), 0, "every end matched its begin on the same id");
        pool_destroy(p);
    }
}

Test(pool_weights, the_observer_sees_every_slice)
{
    static seen s;
    static cover c;
    /* dynamic claims of 7 rows: ceil(3000 / 7) slices in all; grain 32 static: one slice per thread */
    memset(&s, 0, sizeof s);
    pool *p = make(2, POOL_SPIN, &s);
    memset(&c, 0, sizeof c);
    pool_rows(p, ROWS, 7, cover_rows, &c);
    expect_each_row_once(&c, ROWS, "dynamic");
    cr_expect_eq(atomic_load(&s.rows[0]) + atomic_load(&s.rows[1]), ROWS);
    cr_expect_eq(atomic_load(&s.slices[0]) + atomic_load(&s.slices[1]), (ROWS + 6) / 7);
    memset(&s, 0, sizeof s);
    memset(&c, 0, sizeof c);
    pool_set_weights(p, (const double[]){ 1, 3 });
    pool_rows_grain(p, ROWS, 0, 32, cover_rows, &c);
    expect_each_row_once(&c, ROWS, "weighted on a grain");
    cr_expect_eq(atomic_load(&s.slices[0]), 1);
    cr_expect_eq(atomic_load(&s.rows[0]) % 32, 0, "the weighted boundary stays on the grain");
    cr_expect(atomic_load(&s.rows[0]) > 600 && atomic_load(&s.rows[0]) < 900, "thread 0: %lu rows of a 1:3 split",
              atomic_load(&s.rows[0]));
    pool_destroy(p);
    /* one thread: the caller runs the whole range, observed as thread 0 */
    memset(&s, 0, sizeof s);
    memset(&c, 0, sizeof c);
    p = make(1, POOL_SPIN, &s);
    pool_rows(p, ROWS, 0, cover_rows, &c);
    expect_each_row_once(&c, ROWS, "one thread");
    cr_expect_eq(atomic_load(&s.rows[0]), ROWS);
    cr_expect_eq(atomic_load(&s.slices[0]), 1);
    cr_expect_eq(atomic_load(&s.bad), 0);
    pool_destroy(p);
}
