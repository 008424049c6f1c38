/* Paired comparisons (pb_paired.h): the edge cases the header states, a drift that a sequential A-then-B
 * comparison takes for a 30% difference and pairing does not, a true 10% found through the same drift, and the
 * interval's coverage over 200 synthetic trials of known ratio. Noise comes from a fixed-seed generator: the
 * figures are the same on every run. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pb_paired.h"
#include "pb_stats.h"

/* xorshift64*: a uniform in [0, 1). */
static double unit(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

/* A normal deviate (Box-Muller). */
static double normal(uint64_t *s)
{
    double u = unit(s), v = unit(s);
    return sqrt(-2 * log(u + 1e-300)) * cos(2 * M_PI * v);
}

Test(paired, fewer_than_six_pairs_give_a_ratio_and_no_interval)
{
    const double a[] = { 10, 10, 10, 10, 10 }, b[] = { 11, 12, 11, 12, 11 };
    pb_paired p = pb_paired_ratio(a, b, 2);
    cr_expect_eq(p.n, 2);
    cr_expect(isfinite(p.ratio) && isnan(p.lo) && isnan(p.hi));
    p = pb_paired_ratio(a, b, 5);
    cr_expect(isnan(p.lo), "5 pairs: P(T+ = 0) is 3.1%, above 2.5%");
    cr_expect_not(pb_paired_differs(&p));
    char t[128];
    pb_paired_text(&p, t, sizeof t);
    cr_expect_str_eq(t, "too few pairs to tell (5; 6 give an interval)");
    p = pb_paired_ratio(a, b, 0);
    cr_expect(p.n == 0 && isnan(p.ratio));
}

Test(paired, pairs_that_could_not_run_are_left_out)
{
    const double a[] = { 10, NAN, 10, 0, 10, 10, 10, 10, 10 }, b[] = { 11, 11, INFINITY, 11, 11, 11, 11, 11, 11 };
    pb_paired p = pb_paired_ratio(a, b, 9);
    cr_expect_eq(p.n, 6);
    cr_expect_float_eq(p.ratio, 1.1, 1e-12);
}

Test(paired, all_equal_pairs_give_a_point_interval)
{
    double a[8], b[8];
    for (int i = 0; i < 8; i++)
        a[i] = b[i] = 5;
    pb_paired p = pb_paired_ratio(a, b, 8);
    cr_expect(p.ratio == 1 && p.lo == 1 && p.hi == 1);
    cr_expect_not(pb_paired_differs(&p));
    char t[128];
    pb_paired_text(&p, t, sizeof t);
    cr_expect_str_eq(t, "no difference measured (+0% to +0%)");
    for (int i = 0; i < 8; i++)
        b[i] = 5.5;
    p = pb_paired_ratio(a, b, 8);
    cr_expect(pb_paired_differs(&p), "every pair 10%% apart");
    pb_paired_text(&p, t, sizeof t);
    cr_expect_str_eq(t, "+10% (+10% to +10%)");
}

/* One pair 5x off moves the estimate by no more than the noise, and the interval keeps 1. */
Test(paired, one_outlier_does_not_make_a_difference)
{
    double a[12], b[12];
    uint64_t s = 7;
    for (int i = 0; i < 12; i++) {
        a[i] = 20 * (1 + 0.02 * normal(&s));
        b[i] = 20 * (1 + 0.02 * normal(&s));
    }
    b[5] = 100;
    pb_paired p = pb_paired_ratio(a, b, 12);
    cr_expect(p.ratio > 0.97 && p.ratio < 1.04, "%f", p.ratio);
    cr_expect(p.lo < 1 && p.hi > 1, "[%f, %f]", p.lo, p.hi);
}

/* The interval's ends at 10 pairs are the 9th smallest and the 9th largest Walsh averages (the table's critical
 * value 8 for n = 10, two-sided 5%): with log ratios 1..10 (as ratios e^1..e^10), the Walsh averages' 9th smallest
 * is 3.0 and 9th largest 8.0. */
Test(paired, ten_pairs_take_the_tables_critical_value)
{
    double a[10], b[10];
    for (int i = 0; i < 10; i++) {
        a[i] = 1;
        b[i] = exp(i + 1);
    }
    pb_paired p = pb_paired_ratio(a, b, 10);
    cr_expect_float_eq(log(p.lo), 3.0, 1e-9);
    cr_expect_float_eq(log(p.hi), 8.0, 1e-9);
    cr_expect_float_eq(log(p.ratio), 5.5, 1e-9);
}

/* 20 rounds; the host gets 30% slower halfway. Measured one after the other (every A in the first half, every B
 * in the second) B looks 30% slower; measured in pairs (A B, B A, ... within each round) the drift cancels. */
static void drift(double truth, double *a, double *b, double *seq_a, double *seq_b, uint64_t *s)
{
    for (int i = 0; i < 20; i++) {
        double host = i < 10 ? 1.0 : 1.3;
        a[i] = 50 * host * (1 + 0.02 * normal(s));
        b[i] = 50 * truth * host * (1 + 0.02 * normal(s));
        seq_a[i] = 50 * (1 + 0.02 * normal(s));                 /* all of A before the slowdown */
        seq_b[i] = 50 * truth * 1.3 * (1 + 0.02 * normal(s));   /* all of B after it */
    }
}

Test(paired, a_drift_halfway_is_no_difference_when_paired)
{
    double a[20], b[20], sa[20], sb[20];
    uint64_t s = 42;
    drift(1.0, a, b, sa, sb, &s);
    double sequential = pb_summarize(sb, 20).median / pb_summarize(sa, 20).median;
    cr_expect(sequential > 1.25 && sequential < 1.35, "sequential ratio %f", sequential);
    pb_paired p = pb_paired_ratio(a, b, 20);
    cr_expect(p.ratio > 0.98 && p.ratio < 1.02, "paired %f", p.ratio);
    cr_expect(p.lo <= 1 && p.hi >= 1, "[%f, %f]", p.lo, p.hi);
    char t[128];
    pb_paired_text(&p, t, sizeof t);
    cr_expect(strncmp(t, "no difference measured (", 24) == 0, "%s", t);
}

Test(paired, a_true_ten_percent_is_found_through_the_drift)
{
    double a[20], b[20], sa[20], sb[20];
    uint64_t s = 43;
    drift(1.1, a, b, sa, sb, &s);
    pb_paired p = pb_paired_ratio(a, b, 20);
    cr_expect(p.ratio > 1.07 && p.ratio < 1.13, "paired %f", p.ratio);
    cr_expect(pb_paired_differs(&p) && p.lo > 1, "[%f, %f]", p.lo, p.hi);
    char t[128];
    pb_paired_text(&p, t, sizeof t);
    cr_expect(t[0] == '+', "%s", t);
}

/* 200 trials, each 12 pairs of a known ratio (0.8 to 1.25) with a drift shared by the pair and 5% noise on each
 * side: the 95% intervals hold the true ratio in at least 90% of them (on this seed: see the message). */
Test(paired, intervals_cover_the_true_ratio)
{
    uint64_t s = 2026;
    int held = 0;
    for (int trial = 0; trial < 200; trial++) {
        double truth = 0.8 + 0.45 * unit(&s), a[12], b[12];
        for (int i = 0; i < 12; i++) {
            double host = 1 + 0.5 * unit(&s);
            a[i] = 30 * host * exp(0.05 * normal(&s));
            b[i] = 30 * truth * host * exp(0.05 * normal(&s));
        }
        pb_paired p = pb_paired_ratio(a, b, 12);
        held += p.lo <= truth && truth <= p.hi;
    }
    cr_expect_geq(held, 180, "the intervals held the true ratio in %d of 200 trials", held);
}
