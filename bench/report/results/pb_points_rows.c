/* pb_points_rows.c — the points of each CSV kind (see pb_points.h for their names). A figure's range comes from
 * the spread the row itself records: a token's min and max time, the least and greatest batch mean, the slowest
 * and fastest sample or rep; a ratio's range combines its two sides' spreads. Columns are looked up by name
 * (PB_COL): a column an older CSV lacks reads as NaN, and the figures made from it are left out. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_points.h"

#define NUM(t, r, K, c) pb_table_num((t), (r), pb_table_col((t), PB_COL(K, c)))
#define STR(t, r, K, c) pb_table_str((t), (r), pb_table_col((t), PB_COL(K, c)))

static const char TOKENS[] = "its tokens' min and max time";
static const char TOKENS_FLOOR[] = "its tokens' min and max time and its floor's best pass";
static const char TOKENS_BOTH[] = "its and its 1-thread point's tokens' min and max time";
static const char BATCHES[] = "its least and greatest batch mean and the round trips before and after";
static const char BATCHES_OMP[] = "its and omp's least and greatest batch means";
static const char SAMPLES_FLOOR[] = "its slowest and fastest sample and the floor's slowest and best pass";
static const char REPS[] = "its slowest and fastest rep";

/* An attribute from a CSV column, as text. */
static void attr_col(pb_point *p, const pb_table *t, size_t r, pb_kind k, int col, bool named, bool keyed)
{
    pb_point_attr_add(p, pb_schema_name(k, col), pb_table_str(t, r, pb_table_col(t, pb_schema_name(k, col))), named,
                      keyed);
}
#define ATTR(p, t, r, K, c, named, keyed) attr_col((p), (t), (r), PB_K_##K, PB_##K##_##c, (named), (keyed))
/* A figure of family FAM by its identifier in pb_schema.h's lists, then pb_point_fig_add's other arguments. */
#define FIG(p, FAM, name, ...) pb_point_fig_add((p), PB_FIG(FAM, name), __VA_ARGS__)

/* An attribute every point of a kind takes from its row, as ATTR's arguments. */
typedef struct attr_spec {
    int col;
    bool named, keyed;
} attr_spec;

/* A new point of family with row r's attributes a[0..n) (a kind's fixed ones, in name order); NULL when out of
 * memory. */
static pb_point *row_point(pb_points *ps, const char *family, const pb_table *t, size_t r, pb_kind k,
                           const attr_spec *a, size_t n)
{
    pb_point *p = pb_points_add(ps, family);
    if (p)
        p->row = (long)r;
    for (size_t i = 0; p && i < n; i++)
        attr_col(p, t, r, k, a[i].col, a[i].named, a[i].keyed);
    return p;
}
#define ROW_POINT(ps, family, t, r, K, a) row_point((ps), (family), (t), (r), PB_K_##K, (a), sizeof(a) / sizeof(a)[0])

/* Half the last digit a column is printed with ("%.3f": 0.0005), 0 for other formats: a printed 0.000 may have
 * been anything below 0.0005, and two runs that differ by less than that are not told apart. */
static double half_digit(pb_kind k, int col)
{
    const char *fmt = pb_schema_get(k)->cols[col].fmt;
    int digits;
    char f;
    return sscanf(fmt, "%%.%d%c", &digits, &f) == 2 && f == 'f' ? 0.5 * pow(10.0, -digits) : 0.0;
}

/* lo..hi widened to hold every value v, printed with col's format, may have been. */
static void printed_range(pb_kind k, int col, double v, double *lo, double *hi)
{
    double h = half_digit(k, col);
    *lo = isnan(*lo) ? v - h : fmin(*lo, v - h);
    *hi = isnan(*hi) ? v + h : fmax(*hi, v + h);
}

/* What every point ends with: one iteration's time and unit, how many were timed (1 when the CSV does not say),
 * its threads; then the point joins the list under its name. */
static void finish(pb_points *ps, pb_point *p, const char *unit, double real_time, double iterations, double threads)
{
    p->unit = unit;
    p->real_time = real_time;
    p->iterations = iterations > 0 ? iterations : 1;
    p->threads = (int)threads;
    pb_points_commit(ps);
}

/* Calls row(ps, t, r, ctx) for every row of t (none when t is NULL: the CSV is not there). 0 or -1 (ENOMEM). */
typedef int (*row_fn)(pb_points *ps, const pb_table *t, size_t r, const void *ctx);
static int each_row(pb_points *ps, const pb_table *t, row_fn row, const void *ctx)
{
    for (size_t r = 0; t && r < t->nrows; r++)
        if (row(ps, t, r, ctx) != 0)
            return -1;
    return 0;
}

/* x scaled by a / b, NaN when either is missing or b is 0. */
static double scaled(double x, double a, double b)
{
    return b > 0 && !isnan(a) ? x * a / b : NAN;
}

/* ---------------------------------------------------------------- decode (sweep.csv) */

/* Whether sweep rows i and r hold the same text in each of the n columns same. */
static bool rows_alike(const pb_table *t, size_t i, size_t r, const int *same, size_t n)
{
    for (size_t c = 0; c < n; c++) {
        int col = pb_table_col(t, pb_schema_name(PB_K_SWEEP, same[c]));
        if (strcmp(pb_table_str(t, i, col), pb_table_str(t, r, col)) != 0)
            return false;
    }
    return true;
}

/* The row of row r's series (model, format, policy, schedule, glue, core set, batch, context, cache type, weights,
 * prompt) at 1 thread; -1 when none. */
static long one_thread_row(const pb_table *t, size_t r)
{
    static const int same[] = { PB_SWEEP_model,   PB_SWEEP_format,  PB_SWEEP_policy, PB_SWEEP_schedule,
                                PB_SWEEP_glue,    PB_SWEEP_cpuset,  PB_SWEEP_batch,  PB_SWEEP_context,
                                PB_SWEEP_kv_type, PB_SWEEP_weights, PB_SWEEP_prompt };
    for (size_t i = 0; i < t->nrows; i++)
        if (NUM(t, i, SWEEP, threads) == 1 && rows_alike(t, i, r, same, sizeof same / sizeof same[0]))
            return (long)i;
    return -1;
}

/* The best floor pass of any point that reads row r's bytes (model, format, batch, context, cache type, weights,
 * prompt) through its cpus (core set, threads), whatever its policy, schedule or glue. A shared host's bandwidth
 * moves within a block, so one point's floor may read well under the next point's tokens: a token cannot beat the
 * best the machine read there, but may beat its own point's. */
static double best_floor_alike(const pb_table *t, size_t r)
{
    static const int same[] = { PB_SWEEP_model,   PB_SWEEP_format,  PB_SWEEP_cpuset, PB_SWEEP_threads,
                                PB_SWEEP_batch,   PB_SWEEP_context, PB_SWEEP_kv_type, PB_SWEEP_weights,
                                PB_SWEEP_prompt };
    double best = NUM(t, r, SWEEP, floor_gbps_best);
    for (size_t i = 0; i < t->nrows; i++) {
        double b = NUM(t, i, SWEEP, floor_gbps_best);
        if (b > best && rows_alike(t, i, r, same, sizeof same / sizeof same[0]))
            best = b;
    }
    return best;
}

/* tok/s over the same series' 1-thread tok/s: what the threads bought, measured in one run, so a machine that is
 * slower or busier as a whole moves it far less than tok/s. Its range takes both points' token spreads. */
static void decode_x_1thread(pb_point *p, const pb_table *t, size_t r)
{
    long o = NUM(t, r, SWEEP, threads) > 1 ? one_thread_row(t, r) : -1;
    if (o < 0)
        return;
    size_t one = (size_t)o;
    double tok1 = NUM(t, one, SWEEP, tok_per_s), x = tok1 > 0 ? NUM(t, r, SWEEP, tok_per_s) / tok1 : NAN;
    double med = NUM(t, r, SWEEP, ms_per_token_median), med1 = NUM(t, one, SWEEP, ms_per_token_median);
    double lo = scaled(scaled(x, med, NUM(t, r, SWEEP, ms_per_token_max)), NUM(t, one, SWEEP, ms_per_token_min), med1);
    double hi = scaled(scaled(x, med, NUM(t, r, SWEEP, ms_per_token_min)), NUM(t, one, SWEEP, ms_per_token_max), med1);
    FIG(p, DECODE, x_1thread, x, lo, hi, PB_BETTER_HIGHER, TOKENS_BOTH);
}

static int decode_row(pb_points *ps, const pb_table *t, size_t r, const void *unused)
{
    (void)unused;
    static const attr_spec attrs[] = {
        { PB_SWEEP_model, true, false }, { PB_SWEEP_format, true, false }, { PB_SWEEP_policy, true, false },
        { PB_SWEEP_schedule, true, false }, { PB_SWEEP_glue, true, false }, { PB_SWEEP_cpuset, true, false },
        { PB_SWEEP_threads, true, true },
    };
    pb_point *p = ROW_POINT(ps, PB_FAMILY(DECODE), t, r, SWEEP, attrs);
    if (!p)
        return -1;
    /* The defaults stay out of the name (batch 1, context 0, an f16 cache, weights in the arena, no prompt): decode proper
     * keeps short names, and a run without those columns names its points as a newer one does. */
    double batch = NUM(t, r, SWEEP, batch), context = NUM(t, r, SWEEP, context);
    const char *kv = STR(t, r, SWEEP, kv_type), *weights = STR(t, r, SWEEP, weights);
    ATTR(p, t, r, SWEEP, batch, batch != 1, true);
    ATTR(p, t, r, SWEEP, context, context > 0, true);
    ATTR(p, t, r, SWEEP, kv_type, *kv && strcmp(kv, "f16") != 0, true);
    ATTR(p, t, r, SWEEP, weights, strcmp(weights, "mmap") == 0, false);
    ATTR(p, t, r, SWEEP, prompt, NUM(t, r, SWEEP, prompt) > 0, true); /* a prompt's point, not a batch's decode */
    double mn = NUM(t, r, SWEEP, ms_per_token_min), med = NUM(t, r, SWEEP, ms_per_token_median),
           mx = NUM(t, r, SWEEP, ms_per_token_max);
    /* % of floor goes as 1 / token time and as 1 / floor, whose passes spread up to the best one (their lower end
     * is not recorded: taken as far below the median). tok/s is shown, not compared: it has a unit, and moves with
     * whatever else the machine runs between two runs. */
    double tok = NUM(t, r, SWEEP, tok_per_s), pct = NUM(t, r, SWEEP, pct_of_floor);
    double floor = NUM(t, r, SWEEP, floor_gbps), best = NUM(t, r, SWEEP, floor_gbps_best);
    double fspread = best > floor ? best / floor : 1.0;
    FIG(p, DECODE, tok_per_s, tok, scaled(tok, med, mx), scaled(tok, med, mn), PB_BETTER_NONE, TOKENS);
    FIG(p, DECODE, pct_of_floor, pct, scaled(pct, med, mx) / fspread, scaled(pct, med, mn) * fspread,
        PB_BETTER_HIGHER, TOKENS_FLOOR);
    decode_x_1thread(p, t, r);
    double gbps = NUM(t, r, SWEEP, gbps_effective);
    FIG(p, DECODE, gbps, gbps, NAN, NAN, PB_BETTER_NONE, NULL);
    FIG(p, DECODE, floor_gbps, floor, NAN, best, PB_BETTER_NONE, NULL);
    FIG(p, DECODE, floor_tok_per_s, NUM(t, r, SWEEP, floor_tok_per_s), NAN, NAN, PB_BETTER_NONE, NULL);
    double alike = best_floor_alike(t, r);
    FIG(p, DECODE, x_best_floor, alike > 0 ? gbps / alike : NAN, NAN, NAN, PB_BETTER_NONE, NULL);
    FIG(p, DECODE, glue_pct, NUM(t, r, SWEEP, glue_pct), NAN, NAN, PB_BETTER_NONE, NULL);
    FIG(p, DECODE, busy_pct_mean, NUM(t, r, SWEEP, busy_pct_mean), NAN, NAN, PB_BETTER_NONE, NULL);
    FIG(p, DECODE, verified, NUM(t, r, SWEEP, verified), NAN, NAN, PB_BETTER_NONE, NULL);
    finish(ps, p, "ms", med, NUM(t, r, SWEEP, tokens), NUM(t, r, SWEEP, threads));
    return 0;
}

int pb_points_decode(pb_points *ps, const pb_rundata *rd)
{
    return each_row(ps, pb_rundata_table(rd, PB_K_SWEEP), decode_row, NULL);
}

/* ---------------------------------------------------------------- dispatch (pool_overhead.csv) */

typedef struct pool_ctx {
    const pb_table *t;
    double tightest; /* the least round trip of the run (pingpong rows' batch mean), NaN when none */
    double pus;      /* machine.csv's, NaN when unknown */
} pool_ctx;

static bool is_pingpong(const pb_table *t, size_t r)
{
    return strcmp(STR(t, r, POOL, policy), "pingpong") == 0;
}

/* The row of policy at row r's threads, gap and job; -1 when none. */
static long peer_row(const pb_table *t, size_t r, const char *policy)
{
    double th = NUM(t, r, POOL, threads), gap = NUM(t, r, POOL, gap_us), job = NUM(t, r, POOL, job_ns);
    for (size_t i = 0; i < t->nrows; i++)
        if (strcmp(STR(t, i, POOL, policy), policy) == 0 && NUM(t, i, POOL, threads) == th &&
            NUM(t, i, POOL, gap_us) == gap && NUM(t, i, POOL, job_ns) == job)
            return (long)i;
    return -1;
}

/* ratio_to_rt divides the batch mean by the block's round trip; its range takes the least and greatest batch
 * mean over the least and greatest of the round trips around the block. */
static void ratio_to_rt(pb_point *p, const pb_table *t, size_t r, pb_better better)
{
    double v = NUM(t, r, POOL, ratio_to_rt), mean = NUM(t, r, POOL, ns_batch_mean);
    double used = v > 0 ? mean / v : NAN, before = NUM(t, r, POOL, rt_ns_before), after = NUM(t, r, POOL, rt_ns_after);
    double rt_lo = fmin(used, fmin(before, after)), rt_hi = fmax(used, fmax(before, after));
    double lo = NUM(t, r, POOL, ns_batch_min) / rt_hi, hi = NUM(t, r, POOL, ns_batch_max) / rt_lo;
    printed_range(PB_K_POOL, PB_POOL_ratio_to_rt, v, &lo, &hi);
    FIG(p, DISPATCH, ratio_to_rt, v, lo, hi, better, BATCHES);
}

/* ratio_to_omp: the batch mean over omp's at the same threads, gap and job; both sides' batch means spread. */
static void ratio_to_omp(pb_point *p, const pb_table *t, size_t r, pb_better better)
{
    double v = NUM(t, r, POOL, ratio_to_omp), mean = NUM(t, r, POOL, ns_batch_mean);
    long o = peer_row(t, r, "omp");
    size_t orow = o >= 0 ? (size_t)o : t->nrows; /* out of range: every omp cell reads NaN */
    double omean = NUM(t, orow, POOL, ns_batch_mean);
    double lo = scaled(scaled(v, NUM(t, r, POOL, ns_batch_min), mean), omean, NUM(t, orow, POOL, ns_batch_max));
    double hi = scaled(scaled(v, NUM(t, r, POOL, ns_batch_max), mean), omean, NUM(t, orow, POOL, ns_batch_min));
    printed_range(PB_K_POOL, PB_POOL_ratio_to_omp, v, &lo, &hi);
    FIG(p, DISPATCH, ratio_to_omp, v, lo, hi, better, BATCHES_OMP);
}

static void dispatch_attrs(pb_point *p, const pool_ctx *c, size_t r)
{
    const pb_table *t = c->t;
    ATTR(p, t, r, POOL, spin_us, NUM(t, r, POOL, spin_us) > 0, true); /* hybrid's budget only */
    double th = NUM(t, r, POOL, threads);
    /* More threads than PUs: the workers take turns on the cpus, and no dispatch figure means what it does. */
    const char *over = isnan(c->pus) ? "-" : th > c->pus ? "yes" : "no";
    pb_point_attr_add(p, PB_ATTR(DISPATCH, oversubscribed), over, false, false);
}

static int dispatch_row(pb_points *ps, const pb_table *t, size_t r, const void *ctx)
{
    const pool_ctx *c = ctx;
    if (is_pingpong(t, r))
        return 0;
    static const attr_spec attrs[] = {
        { PB_POOL_policy, true, false }, { PB_POOL_threads, true, true }, { PB_POOL_gap_us, true, true },
        { PB_POOL_job_ns, true, true },
    };
    pb_point *p = ROW_POINT(ps, PB_FAMILY(DISPATCH), t, r, POOL, attrs);
    if (!p)
        return -1;
    dispatch_attrs(p, c, r);
    /* Only spin is held to a baseline: the other policies' costs are a wake-up, a thread start or a team's
     * barrier, whose spread on a shared machine is wider than any change a commit makes. Nor is spin when its
     * workers outnumber the cpus: then its cost is the scheduler's time slice, from one run to the next. */
    double th = NUM(t, r, POOL, threads);
    bool is_spin = strcmp(STR(t, r, POOL, policy), "spin") == 0, over = th > c->pus;
    /* One thread hands nothing over: its "dispatch" is a call of a few ns, beside a round trip of hundreds. */
    pb_better b = is_spin && !over && th >= 2 ? PB_BETTER_LOWER : PB_BETTER_NONE;
    double mean = NUM(t, r, POOL, ns_batch_mean);
    FIG(p, DISPATCH, ns, mean, NUM(t, r, POOL, ns_batch_min), NUM(t, r, POOL, ns_batch_max), PB_BETTER_NONE,
        BATCHES);
    ratio_to_rt(p, t, r, b);
    ratio_to_omp(p, t, r, b);
    FIG(p, DISPATCH, x_tightest_rt, c->tightest > 0 ? mean / c->tightest : NAN, NAN, NAN, PB_BETTER_NONE, NULL);
    long s = peer_row(t, r, "spin");
    double spin = s >= 0 ? NUM(t, (size_t)s, POOL, ns_batch_mean) : NAN;
    FIG(p, DISPATCH, x_spin, spin > 0 ? mean / spin : NAN, NAN, NAN, PB_BETTER_NONE, NULL);
    FIG(p, DISPATCH, ns_p99, NUM(t, r, POOL, ns_p99), NAN, NAN, PB_BETTER_NONE, NULL);
    finish(ps, p, "ns", mean, NUM(t, r, POOL, reps) * NUM(t, r, POOL, k), th);
    return 0;
}

int pb_points_dispatch(pb_points *ps, const pb_rundata *rd)
{
    const pb_table *t = pb_rundata_table(rd, PB_K_POOL);
    if (!t)
        return 0;
    const char *pus = pb_machine_value(rd, PB_MKEY(pus));
    pool_ctx c = { .t = t, .tightest = NAN, .pus = pus ? atof(pus) : NAN };
    for (size_t r = 0; r < t->nrows; r++)
        if (is_pingpong(t, r))
            c.tightest = fmin(c.tightest, NUM(t, r, POOL, ns_batch_mean)); /* fmin skips the NaN start */
    return each_row(ps, t, dispatch_row, &c);
}

/* ---------------------------------------------------------------- kernels (kernels.csv) */

/* The run's floor at a thread count: the read kernel with the best median there (its row in memory_floor.csv),
 * -1 when the run has none. */
static long floor_row(const pb_table *mf, double threads)
{
    long best = -1;
    for (size_t i = 0; mf && i < mf->nrows; i++)
        if (strcmp(STR(mf, i, MEMORY, op), "read") == 0 && NUM(mf, i, MEMORY, threads) == threads &&
            (best < 0 || NUM(mf, i, MEMORY, gbps_median) > NUM(mf, (size_t)best, MEMORY, gbps_median)))
            best = (long)i;
    return best;
}

/* GB/s over the run's floor at the same threads: the kernel's samples spread over the floor's passes. */
static void kernel_x_floor(pb_point *p, const pb_table *t, size_t r, const pb_table *mf)
{
    long f = floor_row(mf, NUM(t, r, KERNELS, threads));
    if (f < 0)
        return;
    double med = NUM(mf, (size_t)f, MEMORY, gbps_median), lo = NUM(mf, (size_t)f, MEMORY, gbps_min),
           best = NUM(mf, (size_t)f, MEMORY, gbps_best);
    /* GB/s is printed to 3 decimals: a slow scalar kernel's 0.004 is known to +-0.0005, an eighth of itself. */
    double g = NUM(t, r, KERNELS, gbps_median), gmin = NUM(t, r, KERNELS, gbps_min);
    double gmax = NUM(t, r, KERNELS, gbps_max);
    printed_range(PB_K_KERNELS, PB_KERNELS_gbps_median, g, &gmin, &gmax);
    FIG(p, KERNEL, x_floor, med > 0 ? g / med : NAN, best > 0 ? gmin / best : NAN, lo > 0 ? gmax / lo : NAN,
        PB_BETTER_HIGHER, SAMPLES_FLOOR);
}

static int kernel_row(pb_points *ps, const pb_table *t, size_t r, const void *memory_floor)
{
    const pb_table *mf = memory_floor;
    static const attr_spec attrs[] = {
        { PB_KERNELS_format, true, false }, { PB_KERNELS_variant, true, false }, { PB_KERNELS_level, true, false },
        { PB_KERNELS_threads, true, true }, { PB_KERNELS_batch, true, true },
    };
    pb_point *p = ROW_POINT(ps, PB_FAMILY(KERNEL), t, r, KERNELS, attrs);
    if (!p)
        return -1;
    /* The layout names only a repacked point (file's keep their names; a CSV from before the column is file) */
    const char *lay = STR(t, r, KERNELS, layout);
    lay = lay && *lay ? lay : "file";
    pb_point_attr_add(p, PB_ATTR(KERNEL, layout), lay, strcmp(lay, "file") != 0, false);
    double g = NUM(t, r, KERNELS, gbps_median);
    FIG(p, KERNEL, gbps, g, NUM(t, r, KERNELS, gbps_min), NUM(t, r, KERNELS, gbps_max), PB_BETTER_NONE, NULL);
    kernel_x_floor(p, t, r, mf);
    /* GB/s over the floor's read of the same buffer just before the point (dram, 1 thread, batch 1): side by side,
     * so no placement change between two runs moves it; at most about 1 (pb_tuning.h, PB_KERNELS_OVER_FLOOR_PCT). */
    double rd = NUM(t, r, KERNELS, read_gbps);
    FIG(p, KERNEL, x_read, rd > 0 ? g / rd : NAN, rd > 0 ? NUM(t, r, KERNELS, gbps_min) / rd : NAN,
        rd > 0 ? NUM(t, r, KERNELS, gbps_max) / rd : NAN, PB_BETTER_HIGHER, "its slowest and fastest sample");
    FIG(p, KERNEL, gops, NUM(t, r, KERNELS, gops_median), NAN, NAN, PB_BETTER_NONE, NULL);
    /* One matvec: ns per row times rows (GB/s, printed to 3 decimals, reads 0.000 for the slowest scalar ones). */
    double per_row = NUM(t, r, KERNELS, ns_per_row), rows = NUM(t, r, KERNELS, rows);
    double us = per_row > 0 && rows > 0 ? per_row * rows / 1e3 : g > 0 ? NUM(t, r, KERNELS, bytes) / g / 1e3 : NAN;
    finish(ps, p, "us", us, 1, NUM(t, r, KERNELS, threads));
    return 0;
}

int pb_points_kernel(pb_points *ps, const pb_rundata *rd)
{
    return each_row(ps, pb_rundata_table(rd, PB_K_KERNELS), kernel_row, pb_rundata_table(rd, PB_K_MEMORY));
}

/* ---------------------------------------------------------------- overlap (overlap.csv) */

static int overlap_row(pb_points *ps, const pb_table *t, size_t r, const void *unused)
{
    (void)unused;
    static const attr_spec attrs[] = { { PB_OVERLAP_mode, true, false }, { PB_OVERLAP_ratio, true, true } };
    pb_point *p = ROW_POINT(ps, PB_FAMILY(OVERLAP), t, r, OVERLAP, attrs);
    if (!p)
        return -1;
    double us = NUM(t, r, OVERLAP, us_per_step), mn = NUM(t, r, OVERLAP, us_per_step_min),
           mx = NUM(t, r, OVERLAP, us_per_step_max);
    /* serial is the yardstick: its share of the ceiling moves only with the prep/job ratio it reached. */
    pb_better b = strcmp(STR(t, r, OVERLAP, mode), "serial") == 0 ? PB_BETTER_NONE : PB_BETTER_HIGHER;
    double pct = NUM(t, r, OVERLAP, pct_of_ceiling), sp = NUM(t, r, OVERLAP, speedup);
    double plo = scaled(pct, us, mx), phi = scaled(pct, us, mn);
    printed_range(PB_K_OVERLAP, PB_OVERLAP_pct_of_ceiling, pct, &plo, &phi);
    FIG(p, OVERLAP, pct_of_ceiling, pct, plo, phi, b, REPS);
    FIG(p, OVERLAP, speedup, sp, scaled(sp, us, mx), scaled(sp, us, mn), PB_BETTER_NONE, REPS);
    FIG(p, OVERLAP, ceiling, NUM(t, r, OVERLAP, ceiling), NAN, NAN, PB_BETTER_NONE, NULL);
    finish(ps, p, "us", us, NUM(t, r, OVERLAP, steps) * NUM(t, r, OVERLAP, reps), 2); /* the caller and its helper */
    return 0;
}

int pb_points_overlap(pb_points *ps, const pb_rundata *rd)
{
    return each_row(ps, pb_rundata_table(rd, PB_K_OVERLAP), overlap_row, NULL);
}

/* ---------------------------------------------------------------- floor (memory_floor.csv) */

static int floor_point(pb_points *ps, const pb_table *t, size_t r, const void *unused)
{
    (void)unused;
    static const attr_spec attrs[] = {
        { PB_MEMORY_op, true, false }, { PB_MEMORY_kernel, true, false }, { PB_MEMORY_threads, true, true },
    };
    pb_point *p = ROW_POINT(ps, PB_FAMILY(FLOOR), t, r, MEMORY, attrs);
    if (!p)
        return -1;
    double med = NUM(t, r, MEMORY, gbps_median), best = NUM(t, r, MEMORY, gbps_best);
    FIG(p, FLOOR, gbps, med, NUM(t, r, MEMORY, gbps_min), best, PB_BETTER_NONE, NULL);
    FIG(p, FLOOR, gbps_best, best, NAN, NAN, PB_BETTER_NONE, NULL);
    double pass_ms = med > 0 ? NUM(t, r, MEMORY, size_mib) * 1048576.0 / med / 1e6 : NAN;
    finish(ps, p, "ms", pass_ms, NUM(t, r, MEMORY, passes), NUM(t, r, MEMORY, threads));
    return 0;
}

int pb_points_floor(pb_points *ps, const pb_rundata *rd)
{
    return each_row(ps, pb_rundata_table(rd, PB_K_MEMORY), floor_point, NULL);
}
