/* Noise: the placement tags and round trips every CSV carries, and the spreads of the headline figures. */
#include <math.h>
#include <string.h>

#include "pb_digest.h"

static void range(double *lo, double *hi, double v)
{
    if (isnan(v))
        return;
    if (isnan(*lo) || v < *lo)
        *lo = v;
    if (isnan(*hi) || v > *hi)
        *hi = v;
}

/* A table's placement tags and round trips: the columns of kind k at index place and at rt_cols (ending with
 * PB_NEED_END). */
static void scan_placements(pb_noise_digest *n, const pb_table *t, pb_kind k, int place, const int *rt_cols)
{
    int cp = pb_table_col(t, pb_schema_name(k, place));
    for (size_t r = 0; r < t->nrows; r++) {
        const char *p = pb_table_str(t, r, cp);
        if (strcmp(p, "near") == 0)
            n->near++;
        else if (strcmp(p, "far") == 0)
            n->far++;
        else if (cp >= 0 && *p && strcmp(p, "n/a") != 0)
            n->other++;
        n->smt += strcmp(p, "smt") == 0;
        n->hidden_smt += strcmp(p, "smt?") == 0;
        for (const int *c = rt_cols; *c != PB_NEED_END; c++)
            range(&n->rt_min, &n->rt_max, pb_table_num(t, r, pb_table_col(t, pb_schema_name(k, *c))));
    }
}

/* The clock columns around each point of a table (ghz_before and ghz_after at indices before, after). */
static void scan_clocks(pb_noise_digest *n, const pb_table *t, pb_kind k, int before, int after)
{
    int cb = pb_table_col(t, pb_schema_name(k, before)), ca = pb_table_col(t, pb_schema_name(k, after));
    for (size_t r = 0; r < t->nrows; r++) {
        double b = pb_table_num(t, r, cb), a = pb_table_num(t, r, ca);
        range(&n->ghz_min, &n->ghz_max, b);
        range(&n->ghz_min, &n->ghz_max, a);
        n->ghz_points += !isnan(b) || !isnan(a);
    }
}

void pb_digest_noise(pb_noise_digest *n, const pb_digest *d, const pb_rundata *rd)
{
    memset(n, 0, sizeof *n);
    n->rt_min = n->rt_max = n->dispatch_p99_over_median = n->floor_spread_max = n->ghz_min = n->ghz_max = NAN;
    static const int pool_rt[] = { PB_POOL_rt_ns_before, PB_POOL_rt_ns_after, PB_NEED_END };
    static const int memory_rt[] = { PB_MEMORY_rt_ns, PB_NEED_END };
    static const int sweep_rt[] = { PB_SWEEP_rt_ns, PB_NEED_END };
    const pb_table *t;
    if ((t = pb_rundata_table(rd, PB_K_POOL)))
        scan_placements(n, t, PB_K_POOL, PB_POOL_placement, pool_rt);
    if ((t = pb_rundata_table(rd, PB_K_MEMORY)))
        scan_placements(n, t, PB_K_MEMORY, PB_MEMORY_placement, memory_rt);
    if ((t = pb_rundata_table(rd, PB_K_SWEEP))) {
        scan_placements(n, t, PB_K_SWEEP, PB_SWEEP_placement, sweep_rt);
        scan_clocks(n, t, PB_K_SWEEP, PB_SWEEP_ghz_before, PB_SWEEP_ghz_after);
    }
    if ((t = pb_rundata_table(rd, PB_K_KERNELS)))
        scan_clocks(n, t, PB_K_KERNELS, PB_KERNELS_ghz_before, PB_KERNELS_ghz_after);
    for (int i = 0; i < d->pool.n; i++)
        if (strcmp(d->pool.d[i].policy, "spin") == 0)
            n->dispatch_p99_over_median = d->pool.d[i].ns_p99 / d->pool.d[i].ns_median;
    for (int i = 0; i < d->floor.n; i++) {
        const pb_floor_point *p = &d->floor.pt[i];
        double s = (p->best - p->min) / p->best;
        if (isfinite(s) && (isnan(n->floor_spread_max) || s > n->floor_spread_max)) {
            n->floor_spread_max = s;
            n->floor_spread_threads = p->threads;
        }
    }
}

void pb_digest_run(pb_digest *d, const pb_rundata *rd)
{
    pb_digest_pool(&d->pool, rd);
    pb_digest_floor(&d->floor, &d->token, rd);
    pb_digest_sweep(&d->sweep, rd);
    pb_digest_kernels(&d->kern, rd);
    pb_digest_overlap_util(&d->overlap, &d->util, rd);
    pb_digest_likwid(&d->likwid, rd);
    pb_digest_latency(&d->latency, rd);
    pb_digest_roof(&d->roof, rd);
    pb_digest_noise(&d->noise, d, rd);
}
