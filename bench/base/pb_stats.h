/* pb_stats.h — pure statistics over samples, with stated edge cases.
 *  - n == 0: every field NaN, n = 0.
 *  - n == 1: min = median = p90 = p99 = max = mean = the value; stddev 0; spread 0.
 *  - Percentiles interpolate linearly between the closest ranks (the "R-7" / numpy default definition):
 *    q in [0,1], rank = q*(n-1).
 *  - spread = (max - min) / median; NaN when the median is 0.
 *  - cv = stddev / mean (population stddev); NaN when the mean is 0. */
#ifndef PB_STATS_H
#define PB_STATS_H

#include <stddef.h>

typedef struct pb_summary {
    size_t n;
    double min, median, p90, p99, max, mean, stddev, spread, cv;
} pb_summary;

/* Summarises v[0..n) without modifying it (sorts a copy). */
pb_summary pb_summarize(const double *v, size_t n);
/* q-quantile of an already sorted array, as above; NaN when n == 0. */
double pb_percentile_sorted(const double *sorted, size_t n, double q);
/* Sorts v in place, ascending. */
void pb_sort_doubles(double *v, size_t n);

#endif
