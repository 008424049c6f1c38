/* likwid_compare.csv (scripts/likwid_compare.sh): per thread count and round, likwid-bench's best load kernel
 * against our best one-stream read kernel and our floor; then per thread count the ratios over the rounds. A
 * kernel name ending in "-4s" or "-4b" reads 4 streams per thread: the floor counts it, the one-stream figure does
 * not. */
#include <math.h>
#include <string.h>

#include "pb_digest.h"
#include "pb_stats.h"

#define LK_ROUNDS 64

typedef struct lk_round {
    int threads, round;
    double likwid, one, floor;
    char placement[PB_DIGEST_NAME];
} lk_round;

static bool lk_is_multi_stream(const char *kernel)
{
    size_t n = strlen(kernel);
    return n >= 3 && (strcmp(kernel + n - 3, "-4s") == 0 || strcmp(kernel + n - 3, "-4b") == 0);
}

static void lk_max(double *dst, double v)
{
    if (!isnan(v) && (isnan(*dst) || v > *dst))
        *dst = v;
}

/* The (threads, round) entry of rs, added when new (NULL when full). */
static lk_round *lk_find(lk_round *rs, int *n, int threads, int round)
{
    for (int i = 0; i < *n; i++)
        if (rs[i].threads == threads && rs[i].round == round)
            return &rs[i];
    if (*n == LK_ROUNDS)
        return NULL;
    rs[*n] = (lk_round){ .threads = threads, .round = round, .likwid = NAN, .one = NAN, .floor = NAN };
    return &rs[(*n)++];
}

/* Median, min and max of v[0..n), NaN when n is 0. */
static void lk_stats(const double *v, int n, double *med, double *lo, double *hi)
{
    *med = *lo = *hi = NAN;
    if (n == 0)
        return;
    pb_summary s = pb_summarize(v, (size_t)n);
    *med = s.median;
    *lo = s.min;
    *hi = s.max;
}

static void lk_per_thread_count(pb_likwid_digest *l, const lk_round *rs, int n, int threads)
{
    double lk[LK_ROUNDS], one[LK_ROUNDS], fl[LK_ROUNDS];
    int k = 0, k1 = 0;
    const char *place = NULL;
    bool mixed = false;
    for (int i = 0; i < n; i++) {
        const lk_round *r = &rs[i];
        if (r->threads != threads || isnan(r->likwid) || isnan(r->floor) || !(r->likwid > 0))
            continue;
        lk[k] = r->likwid;
        fl[k++] = r->floor / r->likwid;
        if (!isnan(r->one))
            one[k1++] = r->one / r->likwid;
        mixed |= place && strcmp(place, r->placement) != 0;
        place = r->placement;
    }
    if (k == 0 || l->n == (int)(sizeof l->t / sizeof l->t[0]))
        return;
    pb_likwid_point *t = &l->t[l->n++];
    t->threads = threads;
    t->rounds = k;
    double lo, hi;
    lk_stats(lk, k, &t->likwid_median, &lo, &hi);
    lk_stats(one, k1, &t->one_x, &t->one_min, &t->one_max);
    lk_stats(fl, k, &t->floor_x, &t->floor_min, &t->floor_max);
    pb_digest_copy(t->placement, mixed ? "mixed" : place);
}

void pb_digest_likwid(pb_likwid_digest *l, const pb_rundata *rd)
{
    memset(l, 0, sizeof *l);
    const pb_table *t = pb_rundata_table(rd, PB_K_LIKWID);
    if (!t)
        return;
    int cr = pb_table_col(t, PB_COL(LIKWID, round)), ct = pb_table_col(t, PB_COL(LIKWID, threads)),
        ctool = pb_table_col(t, PB_COL(LIKWID, tool)), ck = pb_table_col(t, PB_COL(LIKWID, kernel)),
        cg = pb_table_col(t, PB_COL(LIKWID, gbps)), cm = pb_table_col(t, PB_COL(LIKWID, gbps_median)),
        cp = pb_table_col(t, PB_COL(LIKWID, placement));
    lk_round rs[LK_ROUNDS];
    int n = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        int threads = pb_digest_int(t, r, ct), round = pb_digest_int(t, r, cr);
        lk_round *e = threads > 0 && round > 0 ? lk_find(rs, &n, threads, round) : NULL;
        if (!e)
            continue;
        const char *tool = pb_table_str(t, r, ctool), *kernel = pb_table_str(t, r, ck);
        if (strcmp(tool, "likwid") == 0) {
            lk_max(&e->likwid, pb_table_num(t, r, cg));
        } else if (strcmp(tool, "poolbench") == 0) {
            double med = pb_table_num(t, r, cm);
            lk_max(&e->floor, med);
            if (!lk_is_multi_stream(kernel))
                lk_max(&e->one, med);
            pb_digest_copy(e->placement, pb_table_str(t, r, cp));
        }
    }
    for (int threads = 1; threads <= 1024 && l->n < (int)(sizeof l->t / sizeof l->t[0]); threads++)
        for (int i = 0; i < n; i++)
            if (rs[i].threads == threads) {
                lk_per_thread_count(l, rs, n, threads);
                break;
            }
    l->have = l->n > 0;
}
