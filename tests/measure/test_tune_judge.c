/* The rule by which bench_tune leaves rank's default (pb_tune_judge, pb_tune.h), and what it means for the choice
 * through the seam: a candidate that looked faster once, or is faster by less than the noise its own pairs show,
 * leaves the default where it is; so do streaming settings that slow one point down. The old rule (the single fastest
 * figure wins, by any margin) picks the candidate in every one of these. */
#include <criterion/criterion.h>
#include <math.h>

#include "pb_tune.h"
#include "pb_tuning.h"
#include "tune_test_util.h"

static pb_tune_verdict judge(const double *r, int n)
{
    return pb_tune_judge(r, n, PB_TUNE_MIN_GAIN);
}

Test(tune_judge, a_gain_below_the_least_is_no_gain)
{
    const double r[] = { 1.01, 1.02, 1.01 }; /* faster in every pair, by less than 3% */
    pb_tune_verdict v = judge(r, 3);
    cr_assert(!v.gain);
    cr_assert_float_eq(v.median, 1.01, 1e-12);
    cr_assert_float_eq(v.spread, 0.005, 1e-12);
}

Test(tune_judge, a_gain_within_the_pairs_spread_is_no_gain)
{
    const double r[] = { 1.30, 0.70, 1.30 }; /* median 1.3, but pairs stray 0.3 from each other */
    pb_tune_verdict v = judge(r, 3);
    cr_assert(!v.gain);
    cr_assert_float_eq(v.spread, 0.3, 1e-12);
    const double steady[] = { 1.20, 1.18, 1.22 };
    v = judge(steady, 3);
    cr_assert(v.gain, "20%% in every pair, spread 2%%: real");
    cr_assert_float_eq(v.median, 1.20, 1e-12);
}

Test(tune_judge, one_disturbed_pair_of_seven_is_left_out_of_the_spread)
{
    const double r[] = { 1.20, 1.22, 1.80, 1.21, 1.19, 1.20, 1.22 }; /* 20% steady, one pair disturbed */
    pb_tune_verdict v = judge(r, 3);
    cr_assert(!v.gain && v.open, "three pairs: the disturbed one's spread hides the gain, more pairs could tell");
    v = judge(r, 7);
    cr_assert(v.gain && !v.open, "seven: the lowest and highest pair are left out of the spread");
    cr_assert_float_eq(v.median, 1.21, 1e-12);
    cr_assert_float_eq(v.spread, 0.01, 1e-12);
    const double split[] = { 1.30, 0.70, 1.30, 0.70, 1.30, 0.70, 1.30 };
    v = judge(split, 7);
    cr_assert(!v.gain, "pairs that disagree stay noise however many");
    cr_assert_float_eq(v.spread, 0.3, 1e-12);
}

Test(tune_judge, the_least_gain_is_the_callers)
{
    const double r[] = { 1.04, 1.04, 1.04 };
    cr_assert(pb_tune_judge(r, 3, 0.03).gain);
    cr_assert(!pb_tune_judge(r, 3, 0.05).gain);
}

Test(tune_judge, too_few_pairs_or_none)
{
    const double one[] = { 1.5 };
    pb_tune_verdict v = judge(one, 1);
    cr_assert(!v.gain && v.pairs == 1, "one pair has no spread to judge it by");
    const double holes[] = { NAN, 1.5, 1.5, 0.0, -1.0 };
    v = judge(holes, 5);
    cr_assert(v.gain && v.pairs == 2, "what could not run is left out");
    v = judge(NULL, 0);
    cr_assert(!v.gain && v.pairs == 0 && isnan(v.median));
}

/* ---------------------------------------------------------------- through the seam */

typedef struct fake {
    double (*fig)(const pb_tune_cand *c, int call);
    int calls;
} fake;

static double fake_kernel(void *ctx, const pb_tune_cand *c)
{
    fake *f = ctx;
    return f->fig(c, f->calls++);
}

static pb_wisdom run_plan(const pb_tune_plan *p, fake *f)
{
    return tt_tune(p, &(pb_tune_seam){ .kernel = fake_kernel, .ctx = f });
}

static kern_format the_format; /* the one the fakes below judge */
static int first_calls;        /* the first timings' count: a fake's later calls are the confirmation's */

static kern_isa rank_isa(kern_format f)
{
    return kern_matvec_isa(f, kern_isa_best());
}

/* A format with a second kernel besides rank's, or skip. */
static kern_isa need_second(kern_format *f)
{
    for (int i = 0; i < KERN_FORMAT_COUNT; i++) {
        pb_tune_cand c[PB_TUNE_MAX_CANDS];
        int n = pb_tune_candidates((kern_format)i, 1, c, PB_TUNE_MAX_CANDS);
        for (int k = 0; k < n; k++) {
            if (c[k].isa != rank_isa((kern_format)i) && c[k].layout == KERN_LAYOUT_FILE) {
                *f = (kern_format)i;
                return c[k].isa;
            }
        }
    }
    cr_skip_test("this CPU runs one kernel per format: nothing to choose between");
    return KERN_ISA_COUNT;
}

static kern_isa second;
static double second_by_two_pct(const pb_tune_cand *c, int call)
{
    (void)call;
    return c->isa == second && !c->prefetch ? 10.2 : 10.0;
}

/* Another kernel 2% faster in its first timing (and every one after): rank's default stays, saying rank. */
Test(tune_judge, a_kernel_faster_by_less_than_the_least_gain_keeps_rank)
{
    second = need_second(&the_format);
    fake fk = { .fig = second_by_two_pct };
    pb_tune_plan p = { .formats = { the_format }, .nformats = 1, .threads = { 1 }, .nthreads = 1 };
    pb_wisdom w = run_plan(&p, &fk);
    const pb_wisdom_kernel *k = pb_wisdom_kernel_at(&w, the_format, 1);
    cr_assert_not_null(k);
    cr_assert_eq(k->isa, rank_isa(the_format), "%s: %s, not rank's", kern_format_names[the_format],
                 kern_isa_name(k->isa));
    cr_assert(!k->tuned);
    cr_assert_eq(k->prefetch, kern_matvec_prefetches(the_format, k->isa));
}

/* Another kernel 30% faster in its first timing, then 0.7x and 1.3x of rank's in the pairs: the pairs' spread says
 * the edge is noise, so rank's default stays. */
static int second_calls;
static double second_noisy(const pb_tune_cand *c, int call)
{
    (void)call;
    if (c->isa != second || c->prefetch)
        return 10.0;
    int n = second_calls++;
    return n == 0 || n % 2 == 1 ? 13.0 : 7.0; /* first timing 13, then the rounds: 13, 7, 13 */
}

/* One format at 1 thread through the seam with the second kernel's figures from fig: its entry, once it was timed
 * first, then in every round and in the more rounds (both fakes here leave three rounds open). */
static pb_wisdom_kernel second_timed(double (*fig)(const pb_tune_cand *c, int call))
{
    second = need_second(&the_format);
    second_calls = 0;
    pb_tune_plan p = { .formats = { the_format }, .nformats = 1, .threads = { 1 }, .nthreads = 1 };
    fake fk = { .fig = fig };
    pb_wisdom w = run_plan(&p, &fk);
    cr_assert_eq(second_calls, 1 + PB_TUNE_CONFIRM_ROUNDS + PB_TUNE_EXTRA_ROUNDS, "timed again, every round, and "
                 "more rounds where three left it open");
    const pb_wisdom_kernel *k = pb_wisdom_kernel_at(&w, the_format, 1);
    cr_assert_not_null(k);
    return *k;
}

Test(tune_judge, a_kernel_whose_pairs_disagree_keeps_rank)
{
    pb_wisdom_kernel k = second_timed(second_noisy);
    cr_assert_eq(k.isa, rank_isa(the_format), "chose %s on noise", kern_isa_name(k.isa));
    cr_assert(!k.tuned);
    cr_assert_float_eq(k.vs_rank, 1.3, 1e-9, "what fell short is on the line: %.3f", k.vs_rank);
}

/* Another kernel 20% faster in every pair but one that a neighbour disturbed (1.8x): three pairs leave it open, the
 * four more confirm it, and the kernel is chosen, tuned. */
static double second_steady_but_one(const pb_tune_cand *c, int call)
{
    (void)call;
    static const double fig[] = { 12.0, 12.0, 12.2, 18.0, 12.1, 11.9, 12.0, 12.2 };
    if (c->isa != second || c->prefetch)
        return 10.0;
    int n = second_calls++;
    return fig[n < 8 ? n : 7];
}

Test(tune_judge, a_steady_gain_with_one_disturbed_pair_is_chosen)
{
    pb_wisdom_kernel k = second_timed(second_steady_but_one);
    cr_assert_eq(k.isa, second, "kept %s", kern_isa_name(k.isa));
    cr_assert(k.tuned);
    cr_assert_float_eq(k.vs_rank, 1.21, 1e-9, "%.3f", k.vs_rank);
}

/* Another kernel that came 5% or 20% under rank's default in its first timing and is 20% faster in every pair: the
 * default's rival is timed again whatever its first figure, and the pairs choose it. */
static double second_first;
static double second_slow_first(const pb_tune_cand *c, int call)
{
    (void)call;
    if (c->isa == second && !c->prefetch && c->layout == KERN_LAYOUT_FILE)
        return second_calls++ == 0 ? second_first : 12.0;
    bool dflt = c->isa == rank_isa(c->fmt) && c->layout == KERN_LAYOUT_FILE &&
                c->prefetch == kern_matvec_prefetches(c->fmt, c->isa);
    return dflt ? 10.0 : 5.0; /* the rest far behind: the second is the default's rival */
}

Test(tune_judge, a_kernel_slower_only_in_its_first_timing_is_timed_again)
{
    second = need_second(&the_format);
    pb_tune_plan p = { .formats = { the_format }, .nformats = 1, .threads = { 1 }, .nthreads = 1 };
    const double first[2] = { 9.5, 8.0 };
    for (int i = 0; i < 2; i++) {
        second_calls = 0;
        second_first = first[i];
        fake fk = { .fig = second_slow_first };
        pb_wisdom w = run_plan(&p, &fk);
        const pb_wisdom_kernel *k = pb_wisdom_kernel_at(&w, the_format, 1);
        cr_assert_not_null(k);
        cr_assert_eq(second_calls, 1 + PB_TUNE_CONFIRM_ROUNDS, "%.1f at first: timed again (%d)", first[i],
                     second_calls);
        cr_assert(k->isa == second && k->tuned, "kept %s", kern_isa_name(k->isa));
        cr_assert_float_eq(k->vs_rank, 1.2, 1e-9, "%.3f", k->vs_rank);
    }
}

/* Formats whose rank kernel prefetches (the distance matters to them), or skip. */
static int need_prefetching(kern_format *out, int want)
{
    int n = 0;
    for (int f = 0; f < KERN_FORMAT_COUNT && n < want; f++)
        if (kern_matvec_prefetches((kern_format)f, rank_isa((kern_format)f)))
            out[n++] = (kern_format)f;
    if (n < want)
        cr_skip_test("fewer than %d formats prefetch here", want);
    return n;
}

static unsigned other_distance;
static double distance_first_only(const pb_tune_cand *c, int call)
{
    if (!c->prefetch)
        return 5.0;
    return c->distance == other_distance && call < first_calls ? 11.0 : 10.0;
}

/* A distance 10% faster in the first timings and no faster when timed again beside the default: the default kept,
 * the streaming line says rank. */
Test(tune_judge, a_distance_faster_only_once_keeps_the_default)
{
    kern_format f[1];
    need_prefetching(f, 1);
    other_distance = kern_prefetch_distances[KERN_PREFETCH_NDIST - 1];
    cr_assert_neq(other_distance, KERN_PREFETCH_BYTES);
    pb_tune_plan p = { .formats = { f[0] }, .nformats = 1, .threads = { 1, 2 }, .nthreads = 2 };
    pb_tune_cand c[PB_TUNE_MAX_CANDS];
    first_calls = 0;
    for (int t = 0; t < 2; t++)
        first_calls += pb_tune_candidates(f[0], p.threads[t], c, PB_TUNE_MAX_CANDS) + KERN_PREFETCH_NDIST;
    fake fk = { .fig = distance_first_only };
    pb_wisdom w = run_plan(&p, &fk);
    cr_assert(w.has_distance && w.distance == KERN_PREFETCH_BYTES, "distance %u", w.distance);
    cr_assert(w.has_streaming && !w.streaming_tuned);
    cr_assert(!pb_wisdom_kernel_at(&w, f[0], 1)->tuned);
}

static kern_format slowed;
static double distance_helps_one_slows_other(const pb_tune_cand *c, int call)
{
    (void)call;
    if (!c->prefetch)
        return 5.0;
    if (c->distance != other_distance)
        return 10.0;
    return c->fmt == slowed ? 9.0 : 15.0;
}

/* A distance 50% faster for one format and 10% slower for another (its geometric mean well ahead): it would make
 * the second's decode slower than rank's, so the default is kept. */
Test(tune_judge, a_distance_that_slows_one_point_keeps_the_default)
{
    kern_format f[2];
    need_prefetching(f, 2);
    slowed = f[1];
    other_distance = kern_prefetch_distances[KERN_PREFETCH_NDIST - 1];
    fake fk = { .fig = distance_helps_one_slows_other };
    pb_tune_plan p = { .formats = { f[0], f[1] }, .nformats = 2, .threads = { 1 }, .nthreads = 1 };
    pb_wisdom w = run_plan(&p, &fk);
    cr_assert(w.has_distance && w.distance == KERN_PREFETCH_BYTES, "distance %u", w.distance);
    cr_assert(!w.streaming_tuned);
    /* without the slowed format the distance is kept: it really is faster there */
    p = (pb_tune_plan){ .formats = { f[0] }, .nformats = 1, .threads = { 1 }, .nthreads = 1 };
    w = run_plan(&p, &fk);
    cr_assert(w.distance == other_distance && w.streaming_tuned);
    cr_assert_float_eq(w.streaming_vs, 1.5, 1e-9);
}
