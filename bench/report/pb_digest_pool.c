/* Dispatch figures from pool_overhead.csv. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_digest.h"
#include "pb_stats.h"

void pb_digest_copy(char *dst, const char *src) { snprintf(dst, PB_DIGEST_NAME, "%s", src); }

int pb_digest_int(const pb_table *t, size_t row, int col)
{
    double v = pb_table_num(t, row, col);
    return isfinite(v) && fabs(v) < 1e9 ? (int)v : -1;
}

void pb_digest_cols(const pb_table *t, pb_kind k, int *col)
{
    for (int i = 0; i < pb_schema_get(k)->ncols; i++)
        col[i] = pb_table_col(t, pb_schema_name(k, i));
}

static bool is_pingpong(const pb_table *t, const int *c, size_t r)
{
    return strcmp(pb_table_str(t, r, c[PB_POOL_policy]), "pingpong") == 0;
}

/* The mean of the two round trips around a block; either alone when the other is missing. */
static double rt_of(const pb_table *t, const int *c, size_t r)
{
    double a = pb_table_num(t, r, c[PB_POOL_rt_ns_before]), b = pb_table_num(t, r, c[PB_POOL_rt_ns_after]);
    if (isnan(a))
        return b;
    if (isnan(b))
        return a;
    return (a + b) / 2;
}

/* The headline thread count: the machine's PU count when it was measured (the largest count that is not
 * oversubscribed), else the largest measured. */
static int headline_threads(const pb_table *t, const int *c, const pb_rundata *rd)
{
    const char *pus = pb_machine_value(rd, PB_MKEY(pus));
    int want = pus ? atoi(pus) : -1, best = -1;
    for (size_t r = 0; r < t->nrows; r++) {
        if (is_pingpong(t, c, r))
            continue;
        int n = pb_digest_int(t, r, c[PB_POOL_threads]);
        if (n == want)
            return want;
        if (n > best)
            best = n;
    }
    return best;
}

static void pool_headline_row(pb_pool_digest *p, const pb_table *t, const int *c, size_t r)
{
    const char *pol = pb_table_str(t, r, c[PB_POOL_policy]);
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->d[i].policy, pol) == 0)
            return; /* the first row of a policy wins */
    if (p->n == (int)(sizeof p->d / sizeof p->d[0]))
        return;
    pb_dispatch_digest *d = &p->d[p->n++];
    pb_digest_copy(d->policy, pol);
    pb_digest_copy(d->placement, pb_table_str(t, r, c[PB_POOL_placement]));
    d->ns = pb_table_num(t, r, c[PB_POOL_ns_batch_mean]);
    d->ns_median = pb_table_num(t, r, c[PB_POOL_ns_median]);
    d->ns_p99 = pb_table_num(t, r, c[PB_POOL_ns_p99]);
    d->rt_before = pb_table_num(t, r, c[PB_POOL_rt_ns_before]);
    d->rt_after = pb_table_num(t, r, c[PB_POOL_rt_ns_after]);
    d->rt_ns = rt_of(t, c, r);
    d->x_rt = pb_table_num(t, r, c[PB_POOL_ratio_to_rt]);
    d->x_omp = pb_table_num(t, r, c[PB_POOL_ratio_to_omp]);
    /* In rt_var's order. */
    static const int var[3] = { PB_POOL_rt_1line_rmw_ns, PB_POOL_rt_2line_store_ns, PB_POOL_rt_2line_rmw_ns };
    for (int v = 0; v < 3; v++)
        d->rt_var[v] = pb_table_num(t, r, c[var[v]]);
}

void pb_digest_pool(pb_pool_digest *p, const pb_rundata *rd)
{
    memset(p, 0, sizeof *p);
    p->pingpong_ns = p->spin_us = NAN;
    const pb_table *t = pb_rundata_table(rd, PB_K_POOL);
    if (!t)
        return;
    int c[PB_POOL_NCOLS];
    pb_digest_cols(t, PB_K_POOL, c);
    p->threads = headline_threads(t, c, rd);
    double pp[PB_DIGEST_MAX];
    size_t npp = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        double gap = pb_table_num(t, r, c[PB_POOL_gap_us]), job = pb_table_num(t, r, c[PB_POOL_job_ns]);
        int thr = pb_digest_int(t, r, c[PB_POOL_threads]);
        if (is_pingpong(t, c, r)) {
            if (npp < PB_DIGEST_MAX && !isnan(pb_table_num(t, r, c[PB_POOL_ns_batch_mean])))
                pp[npp++] = pb_table_num(t, r, c[PB_POOL_ns_batch_mean]);
            continue;
        }
        if (strcmp(pb_table_str(t, r, c[PB_POOL_policy]), "hybrid") == 0 && isnan(p->spin_us))
            p->spin_us = pb_table_num(t, r, c[PB_POOL_spin_us]);
        if (job != 0)
            continue;
        if (gap == 0 && p->nthr < PB_DIGEST_MAX) {
            p->thr[p->nthr].threads = thr;
            pb_digest_copy(p->thr[p->nthr].policy, pb_table_str(t, r, c[PB_POOL_policy]));
            p->thr[p->nthr++].ns = pb_table_num(t, r, c[PB_POOL_ns_batch_mean]);
        }
        if (thr != p->threads)
            continue;
        if (gap == 0)
            pool_headline_row(p, t, c, r);
        if (p->ngap < PB_DIGEST_MAX) {
            pb_digest_copy(p->gap[p->ngap].policy, pb_table_str(t, r, c[PB_POOL_policy]));
            p->gap[p->ngap].gap_us = gap;
            p->gap[p->ngap++].ns = pb_table_num(t, r, c[PB_POOL_ns_batch_mean]);
        }
    }
    p->pingpong_ns = pb_summarize(pp, npp).median;
    p->have = p->n > 0;
}

const pb_dispatch_digest *pb_digest_pool_policy(const pb_pool_digest *p, const char *policy)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->d[i].policy, policy) == 0)
            return &p->d[i];
    return NULL;
}
