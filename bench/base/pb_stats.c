/* pb_stats.c — statistics over samples (pb_stats.h): medians, percentiles, spreads, with their edge cases. */
#include "pb_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int pb_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void pb_sort_doubles(double *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, pb_cmp_double);
}

double pb_percentile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return NAN;
    if (q <= 0)
        return sorted[0];
    if (q >= 1)
        return sorted[n - 1];
    double rank = q * (double)(n - 1);
    size_t lo = (size_t)rank;
    double frac = rank - (double)lo;
    if (lo + 1 >= n)
        return sorted[n - 1];
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

static void pb_moments(const double *v, size_t n, double *mean, double *stddev)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    *mean = sum / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - *mean) * (v[i] - *mean);
    *stddev = sqrt(ss / (double)n);
}

pb_summary pb_summarize(const double *v, size_t n)
{
    pb_summary s = { .n = n, .min = NAN, .median = NAN, .p90 = NAN, .p99 = NAN, .max = NAN,
                     .mean = NAN, .stddev = NAN, .spread = NAN, .cv = NAN };
    if (n == 0)
        return s;
    double *c = malloc(n * sizeof *c);
    if (!c)
        return s;
    memcpy(c, v, n * sizeof *c);
    pb_sort_doubles(c, n);
    s.min = c[0];
    s.max = c[n - 1];
    s.median = pb_percentile_sorted(c, n, 0.5);
    s.p90 = pb_percentile_sorted(c, n, 0.9);
    s.p99 = pb_percentile_sorted(c, n, 0.99);
    free(c);
    pb_moments(v, n, &s.mean, &s.stddev);
    s.spread = s.median != 0 ? (s.max - s.min) / s.median : NAN;
    s.cv = s.mean != 0 ? s.stddev / s.mean : NAN;
    if (n == 1) {
        s.stddev = 0;
        s.spread = 0;
        s.cv = s.mean != 0 ? 0 : NAN;
    }
    return s;
}
