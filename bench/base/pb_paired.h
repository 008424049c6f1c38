/* pb_paired.h — a comparison of B against A from paired samples (a_i and b_i measured side by side, in one time
 * window), with a 95% interval that holds on a shared machine: whatever drifts between pairs cancels inside each.
 *
 * The method (pure, deterministic, no resampling): the pairs' log ratios d_i = ln(b_i / a_i); the estimate is
 * their Hodges-Lehmann median (the median of every Walsh average (d_i + d_j) / 2, i <= j); the interval is the
 * one the exact Wilcoxon signed-rank test inverts: [W_(k+1), W_(M-k)] of the M = n(n+1)/2 sorted Walsh averages,
 * k the largest count with P(T+ <= k) <= 2.5% under no difference. It assumes the log ratios spread
 * symmetrically about their centre, which timing noise on both sides of a pair gives; one outlier moves neither
 * end by more than one rank.
 *
 * Edge cases:
 *  - a pair with a NaN, an infinity or a value <= 0 is left out (a point that could not run);
 *  - no pair: ratio NaN; fewer than PB_PAIRED_MIN_CI pairs (6: at 5, P(T+ = 0) is 3.1% > 2.5%): the ratio, no
 *    interval (lo = hi = NaN);
 *  - all pairs equal: the interval is that one ratio, both ends. */
#ifndef PB_PAIRED_H
#define PB_PAIRED_H

#include <stdbool.h>
#include <stddef.h>

#define PB_PAIRED_MIN_CI 6
#define PB_PAIRED_MAX 256 /* pairs read; more are left out (the Walsh averages grow as n^2) */

typedef struct pb_paired {
    int n;          /* pairs used */
    double ratio;   /* B / A: exp(Hodges-Lehmann of the log ratios); NaN without a pair */
    double lo, hi;  /* its 95% interval; NaN with fewer than PB_PAIRED_MIN_CI pairs */
} pb_paired;

/* B against A over n pairs (a[i], b[i]); a or b may hold any value (see the edge cases). */
pb_paired pb_paired_ratio(const double *a, const double *b, size_t n);

/* Whether the interval excludes no difference (1): false without an interval. */
bool pb_paired_differs(const pb_paired *p);

/* The comparison in words: "+12% (+8% to +15%)" when it differs, "no difference measured
 * (-3% to +5%)" when its interval holds 1, "too few pairs to tell (4; 6 give an interval)" without one. */
void pb_paired_text(const pb_paired *p, char *buf, size_t len);

#endif
